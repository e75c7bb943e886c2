//! The hub: one server session's app side when several connections share
//! the server (see `shared`). The session drives the hub as it drives one
//! relay; the hub gives each connection's relay a server life of its own
//! to attach to (a pipe for what the server says to it, a wire for what it
//! says to the server), and carries lines between those and the one real
//! server through the mux (`route::mux`), which decides where each goes.
//!
//! So each relay works exactly as for a server of its own (its router, its
//! tool rules and asks, its record of calls, its first request held until
//! the server has its folders, a restart replayed), and the server sees
//! one client. What is not here: which connections share a server and for
//! how long (`shared`), and what each line means (`route::mux`).

use std::collections::BTreeMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use crate::EndsWith;
use crate::relay::{Line, Lines, Relay};
use crate::route::mux::{Member, Mux, MuxOut};
use rootgate_model::consent::SharedRoots;
use rootgate_model::servers::Era;
use rootgate_session::app_side::{AppFuture, AppSide, AttachedLife};
use rootgate_session::process::{DrainOnDrop, StartedBy};
use rootgate_session::ready::Readiness;
use rootgate_session::wire::{Frame, Wire};

/// How many lines may wait for one connection's relay before the server's
/// reader waits for it (the relay waits on its app in turn).
const QUEUED_FOR_MEMBER: usize = 1024;

/// One server session's app side, shared by its connections.
pub(crate) struct Hub {
    state: Mutex<HubState>,
    /// Whether any connection's app has sent its `initialize`.
    arrived: watch::Sender<bool>,
    me: Weak<Hub>,
}

struct HubState {
    next_member: Member,
    members: BTreeMap<Member, Joined>,
    life: Option<HubLife>,
    readiness: Option<watch::Receiver<Readiness>>,
    guessed: bool,
    started_by: Option<StartedBy>,
}

/// A connection sharing the server.
struct Joined {
    relay: Arc<Relay>,
    /// Its own part of what is shared, a Workspace connection's: a modern
    /// life answers its rounds from it (see `shared`).
    own: Option<watch::Receiver<SharedRoots>>,
    /// How many server lives it has been attached to.
    lives: u64,
    attached: Option<MemberLife>,
    _arrival: EndsWith,
}

/// A connection's part of the current server life.
struct MemberLife {
    /// The relay's number for its life.
    life: u64,
    to_relay: mpsc::Sender<Vec<u8>>,
    _frames: EndsWith,
    _ready: EndsWith,
}

/// The current server life.
struct HubLife {
    life: u64,
    wire: Wire,
    era: Era,
    roots: watch::Receiver<SharedRoots>,
    mux: Mux,
    /// Set by the session once the server answered `initialize`: whether
    /// what the apps told an earlier life must be told again.
    ready: watch::Sender<Option<bool>>,
    /// The session's wait for the server's `initialize` answer.
    initialized: Option<oneshot::Sender<Result<Value, String>>>,
}

/// Where a line of the mux's goes, resolved under the hub's lock so that
/// the writes wait outside it.
enum Target {
    Wire(mpsc::Sender<Frame>, Frame),
    Member(mpsc::Sender<Vec<u8>>, Vec<u8>),
    Say(Vec<Arc<Relay>>, String),
}

impl Hub {
    pub(crate) fn new(started_by: Option<StartedBy>) -> Arc<Hub> {
        Arc::new_cyclic(|me| Hub {
            state: Mutex::new(HubState {
                next_member: 0,
                members: BTreeMap::new(),
                life: None,
                readiness: None,
                guessed: false,
                started_by,
            }),
            arrived: watch::Sender::new(false),
            me: me.clone(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HubState> {
        // Each critical section leaves the state whole.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A connection joins: it is attached to the current server life, if
    /// there is one, and to every later one. `moved`: it comes from
    /// another life (see [`Hub::leave_moving`]), and what its app told that
    /// one is told this one, as after a restart.
    pub(crate) fn join(
        &self,
        relay: Arc<Relay>,
        moved: bool,
        own: Option<watch::Receiver<SharedRoots>>,
    ) -> Member {
        let mut state = self.lock();
        state.next_member += 1;
        let member = state.next_member;
        if let Some(readiness) = &state.readiness {
            relay.follow_readiness(readiness.clone());
        }
        relay.guess_era(state.guessed);
        let arrived = self.arrived.clone();
        let mut seen = relay.subscribe();
        let arrival = EndsWith(tokio::spawn(async move {
            if seen.wait_for(|s| s.app.is_some()).await.is_ok() {
                arrived.send_replace(true);
            }
        }));
        state.members.insert(
            member,
            Joined {
                relay,
                own,
                lives: u64::from(moved),
                attached: None,
                _arrival: arrival,
            },
        );
        self.attach_member(&mut state, member);
        member
    }

    /// A connection leaves: what the server still does for it is undone
    /// (see `Mux::leave`).
    pub(crate) async fn leave(&self, member: Member) {
        let targets = {
            let mut state = self.lock();
            state.members.remove(&member);
            // A life started again with no app left waits for the next to
            // arrive, as a session waits for its one app.
            self.arrived.send_replace(any_arrived(&state));
            let outs = match &mut state.life {
                Some(life) => life.mux.leave(member),
                None => Vec::new(),
            };
            resolve(&state, outs)
        };
        perform(targets).await;
    }

    /// A connection leaves for another life (a Workspace connection whose
    /// app said its project: `shared`): as [`Hub::leave`], but its relay
    /// takes its life for restarting, so that the app's requests wait for
    /// the next life rather than fail, and the app is not disconnected.
    pub(crate) async fn leave_moving(&self, member: Member, why: &str) {
        let (moving, targets) = {
            let mut state = self.lock();
            let joined = state.members.remove(&member);
            self.arrived.send_replace(any_arrived(&state));
            let outs = match &mut state.life {
                Some(life) => life.mux.leave(member),
                None => Vec::new(),
            };
            (joined, resolve(&state, outs))
        };
        // Restarting first, while its part of the life (the pipe its
        // relay reads the server from) is still held: an ended pipe reads
        // as the server gone, which fails what waits rather than keeping
        // it. The calls the server is asked to cancel below are then the
        // relay's to send again, or to answer, not lost.
        if let Some(joined) = &moving
            && let Some(attached) = &joined.attached
        {
            joined.relay.restarting(attached.life, why).await;
        }
        drop(moving);
        perform(targets).await;
    }

    /// The era the current server life is spoken to in, if there is one.
    pub(crate) fn era(&self) -> Option<Era> {
        self.lock().life.as_ref().map(|l| l.era)
    }

    /// How many connections share the server.
    pub(crate) fn members(&self) -> usize {
        self.lock().members.len()
    }

    /// Attaches `member` to the current server life, if there is one.
    fn attach_member(&self, state: &mut HubState, member: Member) {
        let Some(life) = &mut state.life else { return };
        let Some(joined) = state.members.get_mut(&member) else {
            return;
        };
        life.mux.join(member);
        let (to_relay, from_hub) = mpsc::channel(QUEUED_FOR_MEMBER);
        let (frames, mut for_server) = mpsc::channel::<Frame>(QUEUED_FOR_MEMBER);
        let wire = Wire {
            frames,
            closed: CancellationToken::new(),
        };
        // A modern server is told each connection's folders in its own
        // requests' rounds: a connection with a part of its own is told
        // that part; the others, the life's list.
        let roots = match &joined.own {
            Some(own) if life.era == Era::Modern => own.clone(),
            _ => life.roots.clone(),
        };
        let attached = Relay::attach(&joined.relay, Pipe::new(from_hub), &wire, life.era, roots);
        let replay = joined.lives > 0;
        joined.lives += 1;
        let hub = self.me.clone();
        let number = life.life;
        let frames = EndsWith(tokio::spawn(async move {
            while let Some(frame) = for_server.recv().await {
                let Some(hub) = hub.upgrade() else { return };
                hub.member_wrote(number, member, frame).await;
            }
        }));
        let hub = self.me.clone();
        let mut ready = life.ready.subscribe();
        let relay = Arc::clone(&joined.relay);
        let relay_life = attached.life;
        let mut initialized = attached.initialized;
        let ready_task = EndsWith(tokio::spawn(async move {
            let Ok(result) = (&mut initialized).await else {
                return;
            };
            if let Some(hub) = hub.upgrade() {
                hub.opened(number, result.clone());
            }
            if result.is_err() {
                return;
            }
            if ready.wait_for(Option::is_some).await.is_ok() {
                relay.ready(relay_life, replay).await;
            }
        }));
        // The relay's reader ends when its pipe does (the life is over).
        drop(attached.reader);
        joined.attached = Some(MemberLife {
            life: relay_life,
            to_relay,
            _frames: frames,
            _ready: ready_task,
        });
    }

    /// A connection's relay has the server's answer to its `initialize`
    /// (the first one's is the server's own; the others' the mux gave):
    /// the session hears the first.
    fn opened(&self, life: u64, result: Result<Value, String>) {
        let mut state = self.lock();
        if let Some(hub_life) = state.life.as_mut().filter(|l| l.life == life)
            && let Some(initialized) = hub_life.initialized.take()
        {
            let _ = initialized.send(result);
        }
    }

    /// What a connection's relay wrote for the server.
    async fn member_wrote(&self, life: u64, member: Member, frame: Frame) {
        let targets = {
            let mut state = self.lock();
            let Some(hub_life) = state.life.as_mut().filter(|l| l.life == life) else {
                return;
            };
            let outs = match frame {
                Frame::Lines(lines) => lines
                    .split(|b| *b == b'\n')
                    .filter(|l| !l.is_empty())
                    .flat_map(|l| hub_life.mux.member_line(member, l))
                    .collect(),
                // Never asked of a relay here (the mux answers the server's
                // `roots/list` beneath), but answered from consent if it is.
                Frame::Roots { id } => vec![MuxOut::RootsList(id)],
            };
            resolve(&state, outs)
        };
        perform(targets).await;
    }

    /// Reads the server's output until it ends.
    async fn read_server(self: Arc<Self>, stdout: DrainOnDrop, life: u64) {
        let mut lines = Lines::new(stdout);
        loop {
            let line = match lines.next().await {
                Ok(Some(Line::Whole)) => lines.line(),
                Ok(Some(Line::TooLong(bytes))) => {
                    let words = format!(
                        "the server wrote a line longer than Rootgate takes ({bytes} bytes); \
                         dropped"
                    );
                    let targets = resolve(&self.lock(), vec![MuxOut::Note(words)]);
                    perform(targets).await;
                    continue;
                }
                Ok(None) | Err(_) => return,
            };
            let targets = {
                let mut state = self.lock();
                let Some(hub_life) = state.life.as_mut().filter(|l| l.life == life) else {
                    return;
                };
                let outs = hub_life.mux.server_line(line);
                resolve(&state, outs)
            };
            perform(targets).await;
        }
    }

    /// Ends the life `life` for every connection, as the session says.
    async fn end_life(&self, life: u64, why: &str, restarting: bool) {
        let ending: Vec<(Arc<Relay>, u64)> = {
            let mut state = self.lock();
            if state.life.as_ref().is_some_and(|l| l.life == life) {
                state.life = None;
            }
            state
                .members
                .values_mut()
                .filter_map(|j| {
                    let attached = j.attached.take()?;
                    Some((Arc::clone(&j.relay), attached.life))
                })
                .collect()
        };
        for (relay, relay_life) in ending {
            if restarting {
                relay.restarting(relay_life, why).await;
            } else {
                relay.detach(relay_life, why).await;
            }
        }
    }
}

/// Whether any connection's app has sent its `initialize`.
fn any_arrived(state: &HubState) -> bool {
    state
        .members
        .values()
        .any(|j| j.relay.subscribe().borrow().app.is_some())
}

/// Where each line of the mux's goes, resolved under the lock.
fn resolve(state: &HubState, outs: Vec<MuxOut>) -> Vec<Target> {
    let wire = state.life.as_ref().map(|l| l.wire.frames.clone());
    outs.into_iter()
        .filter_map(|out| match out {
            MuxOut::Server(line) => wire.clone().map(|w| Target::Wire(w, Frame::Lines(line))),
            MuxOut::RootsList(id) => wire.clone().map(|w| Target::Wire(w, Frame::Roots { id })),
            MuxOut::Member(member, line) => state
                .members
                .get(&member)
                .and_then(|j| j.attached.as_ref())
                .map(|a| Target::Member(a.to_relay.clone(), line)),
            MuxOut::Note(words) => Some(Target::Say(
                state
                    .members
                    .values()
                    .map(|j| Arc::clone(&j.relay))
                    .collect(),
                words,
            )),
        })
        .collect()
}

/// Writes what was resolved, in order. A side that is gone (the life
/// ended, the connection left) is skipped: what it would have been told is
/// no longer anyone's.
async fn perform(targets: Vec<Target>) {
    for target in targets {
        match target {
            Target::Wire(wire, frame) => {
                let _ = wire.send(frame).await;
            }
            Target::Member(relay, line) => {
                let _ = relay.send(line).await;
            }
            Target::Say(relays, words) => {
                for relay in relays {
                    relay.say(&words);
                }
            }
        }
    }
}

impl AppSide for Hub {
    fn started_by(&self) -> Option<StartedBy> {
        self.lock().started_by.clone()
    }

    fn follow_readiness(&self, readiness: watch::Receiver<Readiness>) {
        let mut state = self.lock();
        for joined in state.members.values() {
            joined.relay.follow_readiness(readiness.clone());
        }
        state.readiness = Some(readiness);
    }

    fn guess_era(&self, guessed: bool) {
        let mut state = self.lock();
        state.guessed = guessed;
        for joined in state.members.values() {
            joined.relay.guess_era(guessed);
        }
    }

    fn attach(
        self: Arc<Self>,
        stdout: DrainOnDrop,
        wire: &Wire,
        era: Era,
        roots: watch::Receiver<SharedRoots>,
    ) -> AttachedLife {
        let (initialized_tx, initialized) = oneshot::channel();
        let life = {
            let mut state = self.lock();
            let life = state.life.as_ref().map_or(0, |l| l.life) + 1;
            state.life = Some(HubLife {
                life,
                wire: wire.clone(),
                era,
                roots,
                mux: Mux::new(),
                ready: watch::Sender::new(None),
                initialized: Some(initialized_tx),
            });
            let members: Vec<Member> = state.members.keys().copied().collect();
            for member in members {
                self.attach_member(&mut state, member);
            }
            life
        };
        let (ended_tx, ended) = watch::channel(false);
        let hub = Arc::clone(&self);
        let reader = tokio::spawn(async move {
            hub.read_server(stdout, life).await;
            let _ = ended_tx.send(true);
        });
        AttachedLife {
            life,
            initialized,
            ended,
            reader,
        }
    }

    fn ready(&self, life: u64, replay: bool) -> AppFuture<'_, ()> {
        let state = self.lock();
        if let Some(hub_life) = state.life.as_ref().filter(|l| l.life == life) {
            hub_life.ready.send_replace(Some(replay));
        }
        Box::pin(async {})
    }

    fn detach<'a>(&'a self, life: u64, why: &'a str) -> AppFuture<'a, ()> {
        Box::pin(self.end_life(life, why, false))
    }

    fn restarting<'a>(&'a self, life: u64, why: &'a str) -> AppFuture<'a, ()> {
        Box::pin(self.end_life(life, why, true))
    }

    fn app_arrived(&self) -> bool {
        any_arrived(&self.lock())
    }

    fn app_arrival(&self) -> AppFuture<'static, bool> {
        let mut arrived = self.arrived.subscribe();
        Box::pin(async move { arrived.wait_for(|a| *a).await.is_ok() })
    }
}

/// What the server says to one connection, as the relay reads a server's
/// output: the lines the hub gives it, in order, ending when the life does.
struct Pipe {
    from_hub: mpsc::Receiver<Vec<u8>>,
    line: Vec<u8>,
    at: usize,
}

impl Pipe {
    fn new(from_hub: mpsc::Receiver<Vec<u8>>) -> Pipe {
        Pipe {
            from_hub,
            line: Vec::new(),
            at: 0,
        }
    }
}

impl AsyncRead for Pipe {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.at == this.line.len() {
            match std::task::ready!(this.from_hub.poll_recv(cx)) {
                Some(line) => {
                    this.line = line;
                    this.at = 0;
                }
                // The life ended: the relay reads the end of its output.
                None => return Poll::Ready(Ok(())),
            }
        }
        let n = buf.remaining().min(this.line.len() - this.at);
        buf.put_slice(&this.line[this.at..this.at + n]);
        this.at += n;
        Poll::Ready(Ok(()))
    }
}
