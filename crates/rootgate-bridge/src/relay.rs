//! The bridge's relay: the tasks that carry lines between an AI app and
//! the server Rootgate runs for it, through the [`Router`].
//!
//! One relay lives as long as the app's connection; the server under it
//! may have several lives (a restart to withdraw a folder, or to remake an
//! enforced ruleset). Each life attaches to the relay: a task reads the
//! server's output and routes it, `roots/list` going to the session's wire
//! to be answered from consent; the app's one reader passes the app's lines
//! to the life that is ready, and waits while none is (during a restart),
//! so none is lost or reordered and the app is held back by its own pipe;
//! while none can start at all (`Relay::cannot_start`), the app's requests
//! are answered at once with why. An `initialize` for a restarted
//! server is the app's again, answered inside the bridge, followed by what
//! the server must be told again (initialized, logging level,
//! subscriptions); the app is not interrupted.
//!
//! What is not here: the decisions about lines (`route`), the process and
//! the session's roots logic (`session`), and the bridge's settings and
//! window link (`bridge`).

use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::io::AsyncRead;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

mod audit;
mod catch_up;
mod fence;
mod folder_question;
mod lines;
mod place;
mod resend;
mod tool_question;
pub mod workspace;

pub use place::live_relays;

use lines::too_long;
pub(crate) use lines::write_app;
pub use lines::{Line, Lines, MAX_LINE};

pub(crate) use fence::Fence;

use super::route::{AppInfo, Call, Out, Router};
use crate::connections::{Sees, WaitingCall};
use rootgate_model::consent::SharedRoots;
use rootgate_model::ids::ServerId;
use rootgate_model::servers::Era;
use rootgate_model::timeline::{Event, Timeline};
use rootgate_session::ready::{self, HOLD_BOUND, Readiness};
use rootgate_session::wire::{Frame, Wire};

/// The most app lines kept waiting behind a held request; past it the
/// bridge stops reading and the app waits on its own pipe, as it would
/// behind a slow server.
const QUEUED_IN_HOLD: usize = 1024;

/// Whether an app's line answers a request (it has an id and no method):
/// the bridge's own requests to the app are answered during a hold.
fn is_answer(line: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(borrow)]
        id: Option<&'a serde_json::value::RawValue>,
        #[serde(borrow)]
        method: Option<&'a serde_json::value::RawValue>,
    }
    serde_json::from_slice::<Probe<'_>>(line).is_ok_and(|p| p.id.is_some() && p.method.is_none())
}

/// What the window and the bridge's own loop are told of the connection.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seen {
    /// Who the app is, once it sent `initialize`.
    pub app: Option<AppInfo>,
    /// The app's own roots: suggestions, never shared by themselves.
    pub app_roots: Vec<String>,
    /// The bridge asked the app for its roots, and whether it answered
    /// (an answer may be an empty list): what it works in is known then.
    pub app_roots_asked: bool,
    pub app_roots_answered: bool,
    /// The folder the app started the bridge in, when it counts as what
    /// the app works in (see `workspace`): set for a server whose
    /// connections see only their app's project, when the app gave no
    /// roots.
    pub working_folder: Option<String>,
    /// Which folders the connection's server is given, and why.
    pub sees: Option<Sees>,
    /// The app's request held because no server life is ready for it (the
    /// server starts or restarts), so the window can show what waits.
    pub waiting: Option<WaitingCall>,
    /// The app's tool calls that wait for the person's answer (see `tool_question`).
    pub asks: Vec<crate::connections::ToolAsk>,
}

struct State {
    router: Router,
    /// The current server life: its number and the wire's frames, once it
    /// answered `initialize` (ready) or before (attached).
    life: u64,
    attached: Option<mpsc::Sender<Frame>>,
    /// Waits for the current life's `initialize` answer.
    init_waiter: Option<oneshot::Sender<Result<Value, String>>>,
    /// Notes written to stderr so far (they stop after a few).
    notes: usize,
    /// The server's consented list, for a modern server's input rounds.
    roots: Option<watch::Receiver<SharedRoots>>,
    /// Whether the server's current life has its first folders (see
    /// `session::ready`): the app's first request that depends on folders
    /// waits for it.
    readiness: Option<watch::Receiver<Readiness>>,
    /// Where the session says what its server was given, for a folder
    /// shared while the app's first request waits (see `folder_question`).
    delivery: Option<watch::Receiver<rootgate_session::Delivery>>,
    /// Whether the bridge asked the app for its roots (said once in `Seen`).
    app_roots_asked: bool,
    /// What the connection is given, for a server whose connections see
    /// only their app's project (see `workspace`); none otherwise.
    workspace: Option<watch::Receiver<Option<Sees>>>,
    /// The generation of the store's list for the server when it was last
    /// said that no life can start (see `catch_up`).
    unstartable_at: Option<u64>,
    /// The connection is leaving this life for another (see
    /// [`Relay::drain`]): no new request is handed to it.
    draining: bool,
}

/// The relay of one app connection.
pub struct Relay {
    state: Mutex<State>,
    server: ServerId,
    /// Where the connection's story is told: its own, or the shared server
    /// life's it joins (see `shared`).
    timeline: Mutex<Arc<Timeline>>,
    app_out: mpsc::Sender<Vec<u8>>,
    /// The frames of the life that is ready to take app lines.
    ready: watch::Sender<Option<mpsc::Sender<Frame>>>,
    /// Why no life can be started now (see [`Relay::cannot_start`]); set
    /// and cleared under the state's lock, with `attached`.
    unstartable: watch::Sender<Option<String>>,
    seen: watch::Sender<Seen>,
    /// What the window said about the app's folders (see `folder_question`).
    questions: watch::Sender<folder_question::Questions>,
    /// The relay itself, for the tasks it starts (an ask's deadline).
    me: std::sync::Weak<Relay>,
    /// Where the connection's calls are recorded (see `audit`).
    audit: std::sync::OnceLock<audit::Audit>,
    /// What `tools/list` answers showed (see `tool_question`).
    listed: watch::Sender<
        Option<Arc<std::collections::BTreeMap<String, rootgate_model::tools::ToolSeen>>>,
    >,
    /// What keeps requests from a server that may still hold a withdrawn
    /// folder (see `fence`); none in tests that make no store.
    fence: std::sync::OnceLock<Arc<Fence>>,
    /// Woken at each line the server writes, for [`Relay::drain`].
    answered: tokio::sync::Notify,
    /// Where the connection's notes go; this process's standard error when
    /// unset (see `notes`).
    notes_to: std::sync::OnceLock<crate::notes::Notes>,
    /// What the app gave the door, for a connection the gate serves (see
    /// `AppSide::started_by`).
    started_by: std::sync::OnceLock<rootgate_session::process::StartedBy>,
}

/// A server life attached to the relay.
pub struct Attached {
    pub(crate) life: u64,
    /// Resolves with the server's `initialize` result.
    pub initialized: oneshot::Receiver<Result<Value, String>>,
    /// Set when the server's output ended.
    pub ended: watch::Receiver<bool>,
    pub reader: JoinHandle<()>,
}

impl Relay {
    /// A relay writing to the app through `app_out` (see [`write_app`]).
    pub fn new(
        server: ServerId,
        timeline: Arc<Timeline>,
        app_out: mpsc::Sender<Vec<u8>>,
    ) -> Arc<Relay> {
        place::LIVE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Arc::new_cyclic(|me| Relay {
            state: Mutex::new(State {
                router: Router::new(),
                life: 0,
                attached: None,
                init_waiter: None,
                notes: 0,
                roots: None,
                readiness: None,
                delivery: None,
                app_roots_asked: false,
                workspace: None,
                unstartable_at: None,
                draining: false,
            }),
            server,
            timeline: Mutex::new(timeline),
            app_out,
            ready: watch::Sender::new(None),
            unstartable: watch::Sender::new(None),
            seen: watch::Sender::new(Seen::default()),
            questions: watch::Sender::new(folder_question::Questions::default()),
            me: me.clone(),
            listed: watch::Sender::new(None),
            audit: std::sync::OnceLock::new(),
            fence: std::sync::OnceLock::new(),
            answered: tokio::sync::Notify::new(),
            notes_to: std::sync::OnceLock::new(),
            started_by: std::sync::OnceLock::new(),
        })
    }

    /// The timeline the connection's story is told in now.
    pub(crate) fn timeline(&self) -> Arc<Timeline> {
        Arc::clone(&self.timeline.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Tells the connection's story in `timeline` from now on: the shared
    /// server life's that the connection joined.
    pub(crate) fn tell_in(&self, timeline: Arc<Timeline>) {
        *self.timeline.lock().unwrap_or_else(|p| p.into_inner()) = timeline;
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Each critical section leaves the router whole.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What is known of the connection, as it changes.
    pub fn subscribe(&self) -> watch::Receiver<Seen> {
        self.seen.subscribe()
    }

    pub fn seen(&self) -> Seen {
        self.seen.borrow().clone()
    }

    /// Where the session publishes whether its server has its first
    /// folders; the relay holds by it (see [`Relay::hold_first`]).
    pub fn follow_readiness(&self, readiness: watch::Receiver<Readiness>) {
        self.lock().readiness = Some(readiness);
    }

    /// Reads the app's lines until it closes its output.
    pub(crate) async fn read_app(self: &Arc<Self>, input: impl AsyncRead + Unpin) {
        let mut lines = Lines::new(input);
        loop {
            let (outs, hold) = match lines.next().await {
                Ok(Some(Line::Whole)) => self.route_app_line(lines.line()),
                Ok(Some(Line::TooLong(bytes))) => (vec![Out::App(too_long(bytes))], None),
                Ok(None) | Err(_) => return,
            };
            let Some(what) = hold else {
                self.perform(outs, None).await;
                continue;
            };
            let (queued, ended) = self.hold_reading(&what, &mut lines).await;
            self.perform(outs, None).await;
            for line in queued {
                let (outs, _) = self.route_app_line(&line);
                self.perform(outs, None).await;
            }
            if ended {
                return;
            }
        }
    }

    fn route_app_line(&self, line: &[u8]) -> (Vec<Out>, Option<String>) {
        let mut state = self.lock();
        let outs = state.router.from_app(line, Instant::now());
        // Once: from then on, the app's silence about its roots is timed.
        if !state.app_roots_asked && state.router.awaiting_app_roots() {
            state.app_roots_asked = true;
            self.seen.send_modify(|s| s.app_roots_asked = true);
        }
        (outs, state.router.take_hold())
    }

    /// Holds the app's first request (see [`Relay::hold_first`]) while
    /// reading on: the app's answers to the bridge's own requests (its
    /// roots above all, which say what it works in) are taken at once, and
    /// everything else it writes waits, in order, behind the held request
    /// (at most [`QUEUED_IN_HOLD`] lines; then the app waits on its pipe).
    /// Returns what waits, and whether the app closed its output.
    async fn hold_reading(
        &self,
        what: &str,
        lines: &mut Lines<impl AsyncRead + Unpin>,
    ) -> (Vec<Vec<u8>>, bool) {
        let hold = self.hold_first(what);
        tokio::pin!(hold);
        let mut queued = Vec::new();
        let mut ended = false;
        loop {
            tokio::select! {
                biased;
                () = &mut hold => return (queued, ended),
                // `Lines::next` is cancel-safe: the hold may end mid-line.
                line = lines.next(), if !ended && queued.len() < QUEUED_IN_HOLD => match line {
                    Ok(Some(Line::Whole)) if is_answer(lines.line()) => {
                        let (outs, _) = self.route_app_line(lines.line());
                        self.perform(outs, None).await;
                    }
                    Ok(Some(Line::Whole)) => queued.push(lines.line().to_vec()),
                    Ok(Some(Line::TooLong(bytes))) => {
                        self.perform(vec![Out::App(too_long(bytes))], None).await;
                    }
                    Ok(None) | Err(_) => ended = true,
                },
            }
        }
    }

    /// Whether the era of the next life to attach is a guess, whose
    /// refused opening is kept for the life after it (see `session::era`).
    pub fn guess_era(&self, guessed: bool) {
        self.lock().router.guess_era(guessed);
    }

    /// The hold: the app's first request that depends on folders (`what`,
    /// in words) waits until the server has applied its first folders, no
    /// wait is needed, or [`HOLD_BOUND`] has passed; the timeline says
    /// which. The app's reader waits with it, so nothing the app wrote
    /// after it overtakes it. Later requests of the same life go at once.
    async fn hold_first(&self, what: &str) {
        if self.lock().readiness.is_none() {
            return;
        }
        // A server whose connections see only their app's project is given
        // that project first; then a folder the app works in that is not
        // shared may be asked about: its answer may change what it is given.
        self.settle_workspace(what).await;
        self.ask_first(what).await;
        // The life and its readiness as they are now: a Workspace
        // connection to a shared server may have moved to its project's
        // life meanwhile (`shared`), and that life's first folders are the
        // ones to wait for.
        let (life, readiness) = {
            let state = self.lock();
            (state.life, state.readiness.clone())
        };
        let Some(mut readiness) = readiness else {
            return;
        };
        let held = ready::hold(&mut readiness, HOLD_BOUND).await;
        {
            let mut state = self.lock();
            if state.life == life {
                state.router.release_hold();
            }
        }
        self.timeline().record(
            &self.server,
            Event::FirstRequest {
                held_ms: u64::try_from(held.waited.as_millis()).unwrap_or(u64::MAX),
                said: held.words(&format!("the app's first request ({what})")),
            },
        );
    }

    /// Attaches a new server life: its output is read from `stdout`, and
    /// what is for it goes to `wire`. The app's `initialize` is sent at
    /// once if it arrived already, or as soon as it does.
    pub fn attach(
        self: &Arc<Self>,
        stdout: impl AsyncRead + Unpin + Send + 'static,
        wire: &Wire,
        era: Era,
        roots: watch::Receiver<SharedRoots>,
    ) -> Attached {
        let (init_tx, initialized) = oneshot::channel();
        let (life, initialize) = {
            let mut state = self.lock();
            state.router.set_server_era(era);
            // Each life starts without folders: the app's first request
            // waits for them again.
            state.router.arm_hold();
            state.roots = Some(roots);
            state.life += 1;
            state.attached = Some(wire.frames.clone());
            state.draining = false;
            state.init_waiter = Some(init_tx);
            // A life is coming: what the app asks waits for it again.
            self.unstartable.send_replace(None);
            (state.life, state.router.initialize_for_server())
        };
        self.ready.send_replace(None);
        if let Some(line) = initialize {
            send_now(&wire.frames, line);
        }
        let (ended_tx, ended) = watch::channel(false);
        let relay = Arc::clone(self);
        let frames = wire.frames.clone();
        let reader = tokio::spawn(async move {
            relay.read_server(stdout, life, &frames).await;
            let _ = ended_tx.send(true);
        });
        Attached {
            life,
            initialized,
            ended,
            reader,
        }
    }

    /// The life `life` answered `initialize`: what a restarted server must
    /// be told again goes first, then the app's lines flow to it.
    pub async fn ready(&self, life: u64, replay: bool) {
        let (frames, replayed, resent, readiness) = {
            let mut state = self.lock();
            if state.life != life {
                return;
            }
            let replayed = if replay {
                state.router.replay()
            } else {
                Vec::new()
            };
            // Then what the last life was written and not answered, and
            // only reads (see `route::resend`).
            let resent = state.router.take_resend();
            (
                state.attached.clone(),
                replayed,
                resent,
                state.readiness.clone(),
            )
        };
        let Some(frames) = frames else { return };
        for line in replayed {
            if frames.send(Frame::Lines(line)).await.is_err() {
                return;
            }
        }
        // What is sent again waits, as a first request does, for the new
        // life to have its folders (its `initialized` just went, and it
        // asks for them after it): a read sent before would see none. The
        // wait is a task's own, since the session that calls this answers
        // the server's `roots/list` only once it returns; the app's other
        // requests wait for the life's readiness behind it.
        let (Some(mut readiness), Some(me)) = (readiness, self.me.upgrade()) else {
            self.send_ready(frames, resent).await;
            return;
        };
        if resent.is_empty() {
            self.send_ready(frames, resent).await;
            return;
        }
        tokio::spawn(async move {
            ready::hold(&mut readiness, HOLD_BOUND).await;
            if me.lock().life == life {
                me.send_ready(frames, resent).await;
            }
        });
    }

    /// Sends `resent` to the life at `frames`, then lets the app's lines
    /// flow to it.
    async fn send_ready(&self, frames: mpsc::Sender<Frame>, resent: Vec<Vec<u8>>) {
        for line in resent {
            if frames.send(Frame::Lines(line)).await.is_err() {
                return;
            }
        }
        self.ready.send_replace(Some(frames));
    }

    /// The life `life` ended (or is being ended): app requests waiting for
    /// it get an error with `why`.
    pub async fn detach(&self, life: u64, why: &str) {
        self.end_life(life, |router, now| router.server_gone(why, now))
            .await;
    }

    /// Ends life `life`, once: what waited for it is answered as `answer`
    /// says (the router's word for why it ended), and no life is ready
    /// until the next.
    async fn end_life(&self, life: u64, answer: impl FnOnce(&mut Router, Instant) -> Vec<Out>) {
        let outs = {
            let mut state = self.lock();
            // Once a life: a life already detached (by the restart that
            // ends it, see `resend`) has nothing left of its own to fail.
            if state.life != life || state.attached.is_none() {
                return;
            }
            state.attached = None;
            state.init_waiter = None;
            answer(&mut state.router, Instant::now())
        };
        self.ready.send_replace(None);
        self.perform(outs, None).await;
    }

    /// No server life can be started now (its folders are passed as
    /// arguments, and none is shared): until one attaches, every app
    /// request is answered at once with `why`, those already waiting
    /// included, and so is the app's `initialize` if it waits, rather than
    /// left to the app's own timeout with nothing to say. Ignored while a
    /// life is attached (it attached since the caller saw why).
    pub(crate) async fn cannot_start(&self, why: &str) {
        let refused = {
            let mut state = self.lock();
            if state.attached.is_some() {
                return;
            }
            self.unstartable.send_replace(Some(why.to_owned()));
            state.router.refuse_initialize(-32603, why)
        };
        self.note_unstartable_list();
        if let Some(Some(line)) = refused {
            let _ = self.app_out.send(line).await;
        }
        let kept = self.fail_kept(why);
        self.perform(kept, None).await;
    }

    /// The app's `initialize` can never be served (unknown server, command
    /// not approved, server failed to start): it gets `why` as its error.
    /// Returns false if it has not arrived yet.
    pub async fn refuse(&self, why: &str) -> bool {
        let line = self.lock().router.refuse_initialize(-32603, why);
        match line {
            Some(Some(line)) => {
                let _ = self.app_out.send(line).await;
                true
            }
            Some(None) => true,
            None => false,
        }
    }

    async fn read_server(
        self: &Arc<Self>,
        stdout: impl AsyncRead + Unpin,
        life: u64,
        frames: &mpsc::Sender<Frame>,
    ) {
        let mut lines = Lines::new(stdout);
        loop {
            let outs = match lines.next().await {
                Ok(Some(Line::Whole)) => {
                    let (outs, hold) = {
                        let mut state = self.lock();
                        // A modern server's rounds are answered from the
                        // list as it is now, and never with a folder the
                        // settings last read no longer share (a
                        // connection's own Workspace part follows them a
                        // task's turn later).
                        if state.router.uses_roots()
                            && let Some(now) = state.roots.as_ref().map(|r| r.borrow().clone())
                        {
                            let now = match self.fence.get() {
                                Some(fence) => fence.still_shared(now),
                                None => now,
                            };
                            state.router.set_roots(now);
                        }
                        let outs = state.router.from_server(lines.line(), Instant::now());
                        (outs, state.router.take_hold())
                    };
                    match hold {
                        Some(what) => self.hold_released(outs, what, frames),
                        None => outs,
                    }
                }
                Ok(Some(Line::TooLong(bytes))) => vec![Out::Note(format!(
                    "the server wrote a line of {bytes} bytes, longer than {MAX_LINE}; dropped"
                ))],
                Ok(None) | Err(_) => break,
            };
            self.perform(outs, Some((life, frames))).await;
            self.answered.notify_waiters();
        }
        self.detach(life, "the server stopped before answering")
            .await;
    }

    /// A modern app that opened with a request rather than
    /// `server/discover` (the SDK 2.x client does, once it has discovered
    /// the server on a connection of its own) has that request released
    /// here, by the server's answer to the opening. The server's reader must
    /// not wait, so the request (the last line for the server) is held on
    /// a task of its own and sent when the hold ends; the rest goes now.
    fn hold_released(
        self: &Arc<Self>,
        mut outs: Vec<Out>,
        what: String,
        frames: &mpsc::Sender<Frame>,
    ) -> Vec<Out> {
        let Some(at) = outs.iter().rposition(|o| matches!(o, Out::Server(_))) else {
            return outs;
        };
        let Out::Server(line) = outs.remove(at) else {
            return outs;
        };
        let relay = Arc::clone(self);
        let frames = frames.clone();
        tokio::spawn(async move {
            relay.hold_first(&what).await;
            relay.to_life(&frames, line).await;
        });
        outs
    }

    /// Carries out what the router said. `from` is the life whose output
    /// caused it: what goes back to that server goes to its own wire.
    async fn perform(&self, outs: Vec<Out>, from: Option<(u64, &mpsc::Sender<Frame>)>) {
        // A queue, not a loop over `outs`: asking may refuse at once, and
        // the refusal is carried out here too.
        let mut queue = std::collections::VecDeque::from(outs);
        while let Some(out) = queue.pop_front() {
            match out {
                Out::Server(line) => match from {
                    Some((_, frames)) => self.to_life(frames, line).await,
                    // The app's lines, from its one reader, in order: while
                    // no life is ready (the server starts or restarts), the
                    // reader waits, and the app is held back by its pipe.
                    None => self.to_ready_server(line).await,
                },
                Out::RootsList(id) => {
                    if let Some((_, frames)) = from {
                        let _ = frames.send(Frame::Roots { id }).await;
                    }
                }
                Out::App(line) => {
                    let _ = self.app_out.send(line).await;
                }
                Out::AppInitialized => {
                    if let Some(refused) = self.app_initialized() {
                        let _ = self.app_out.send(refused).await;
                    }
                }
                Out::ServerInitialized(result) => {
                    let waiter = {
                        let mut state = self.lock();
                        match from {
                            Some((life, _)) if life == state.life => state.init_waiter.take(),
                            _ => None,
                        }
                    };
                    if let Some(waiter) = waiter {
                        let _ = waiter.send(result);
                    }
                }
                Out::AppRoots(uris) => self.seen.send_modify(|s| {
                    s.app_roots = uris;
                    s.app_roots_answered = true;
                }),
                Out::Call(call) => self.record_call(call),
                Out::Refused(method) => {
                    self.timeline()
                        .record(&self.server, Event::RequestRefused { method });
                }
                Out::Round {
                    method,
                    target,
                    key,
                    generation,
                    roots,
                } => {
                    self.timeline().record(
                        &self.server,
                        Event::RootsAskedInRound {
                            method,
                            target,
                            key,
                            generation,
                            roots,
                        },
                    );
                }
                Out::InputNotOffered {
                    method,
                    target,
                    key,
                    asked,
                } => {
                    self.timeline().record(
                        &self.server,
                        Event::InputNotOffered {
                            method,
                            target,
                            key,
                            asked,
                        },
                    );
                }
                Out::Note(note) => self.note(&note),
                Out::Ask(ask) => queue.extend(self.ask_person(*ask)),
                Out::AskGone(key) => self.seen.send_modify(|s| s.asks.retain(|a| a.key != key)),
                Out::ToolsSeen(tools) => self.tools_were_seen(tools),
            }
        }
    }

    /// Sends an app line to the server life that is ready, waiting for one;
    /// a line the life did not take (it ended under it) goes to the next.
    async fn to_ready_server(&self, line: Vec<u8>) {
        // Never on folders older than the last save, nor to a server that
        // may still hold one withdrawn (see `fence`).
        let Some(line) = self.fenced(line).await else {
            return;
        };
        // The common case: a life is ready and has room; no subscription,
        // no wait.
        let now = self.ready.borrow().clone();
        let mut line = match now {
            Some(frames) => match self.hand_to(&frames, line).await {
                Ok(()) => return,
                Err(back) => back,
            },
            None => line,
        };
        let mut ready = self.ready.subscribe();
        loop {
            let Some(frames) = self.next_life(&mut ready, &line).await else {
                return;
            };
            match self.hand_to(&frames, line).await {
                Ok(()) => return,
                Err(back) => {
                    line = back;
                    let _ = ready
                        .wait_for(|f| f.as_ref().is_none_or(|f| !f.same_channel(&frames)))
                        .await;
                }
            }
        }
    }

    /// The life ready for an app line, waiting for one while none is (the
    /// server starts or restarts), with the line shown as waiting. `None`
    /// when the relay is gone, or when no life can be started now (see
    /// [`Relay::cannot_start`]): then every app request waiting, this
    /// line's among them, is answered with the reason, and the line goes
    /// nowhere.
    async fn next_life(
        &self,
        ready: &mut watch::Receiver<Option<mpsc::Sender<Frame>>>,
        line: &[u8],
    ) -> Option<mpsc::Sender<Frame>> {
        if let Some(frames) = ready.borrow_and_update().clone() {
            return Some(frames);
        }
        let mut unstartable = self.unstartable.subscribe();
        self.seen.send_modify(|s| s.waiting = waiting_call(line));
        // Whether the settings were caught up with for this line, and until
        // when it waits for the start that brought (see `catch_up`).
        let (mut caught_up, mut start_until) = (false, None);
        let life = loop {
            if let Some(frames) = ready.borrow_and_update().clone() {
                break Some(frames);
            }
            let why = unstartable.borrow_and_update().clone();
            if why.is_some() && !caught_up {
                caught_up = true;
                start_until = self.start_after_catch_up();
            }
            if let Some(why) = why.filter(|_| start_until.is_none()) {
                let outs = self.lock().router.server_gone(&why, Instant::now());
                for out in outs {
                    // A server gone says only these: errors for the app and
                    // the calls they end.
                    match out {
                        Out::App(line) => {
                            let _ = self.app_out.send(line).await;
                        }
                        Out::Call(call) => self.record_call(call),
                        _ => {}
                    }
                }
                break None;
            }
            tokio::select! {
                changed = ready.changed() => if changed.is_err() { break None },
                // Any word from the session (a life coming, or why none
                // can start with the list as it is now) ends the wait
                // for its answer to the caught-up save.
                changed = unstartable.changed() => {
                    if changed.is_err() { break None }
                    start_until = None;
                }
                () = sleep_until(start_until) => {
                    self.no_start_came();
                    start_until = None;
                }
            }
        };
        self.seen.send_modify(|s| s.waiting = None);
        life
    }

    /// The app's `initialize` arrived: it goes to the attached life, if
    /// there is one. Returns the app's error when no life can be started
    /// now (see [`Relay::cannot_start`]).
    fn app_initialized(&self) -> Option<Vec<u8>> {
        let (app, send, refused) = {
            let mut state = self.lock();
            let app = state.router.app().cloned();
            let line = match state.attached.clone() {
                Some(frames) => state
                    .router
                    .initialize_for_server()
                    .map(|line| (frames, line)),
                None => None,
            };
            let refused = match (&line, self.unstartable.borrow().as_deref()) {
                (None, Some(why)) => state.router.refuse_initialize(-32603, why).flatten(),
                _ => None,
            };
            (app, line, refused)
        };
        if let Some((frames, line)) = send {
            send_now(&frames, line);
        }
        self.seen.send_modify(|s| s.app = app);
        refused
    }

    fn record_call(&self, call: Call) {
        self.audit_call(&call);
        self.timeline().record(
            &self.server,
            Event::Call {
                method: call.method,
                target: call.target,
                duration_ms: call.duration.as_millis() as u64,
                outcome: call.outcome,
                consent: call.consent,
            },
        );
    }

    fn note(&self, note: &str) {
        const MOST: usize = 20;
        let n = {
            let mut state = self.lock();
            state.notes += 1;
            state.notes
        };
        let to = self.notes_to.get().cloned().unwrap_or_default();
        if n < MOST {
            to.say(note);
        } else if n == MOST {
            to.say(&format!(
                "{note} (further notes of this kind are not written)"
            ));
        }
    }
}

/// Sleeps until `until`; forever without one.
async fn sleep_until(until: Option<Instant>) {
    match until {
        Some(until) => tokio::time::sleep_until(until).await,
        None => std::future::pending().await,
    }
}

/// Sends a line to a server's wire without waiting; the queue is empty at
/// the moments this is used (an `initialize`), so it only fails when the
/// server is gone.
fn send_now(frames: &mpsc::Sender<Frame>, line: Vec<u8>) {
    let frames = frames.clone();
    tokio::spawn(async move {
        let _ = frames.send(Frame::Lines(line)).await;
    });
}

/// What an app line held for a life is, for the window: a request's
/// method and what it names (a tool, prompt or resource). Only read while
/// a line waits, never on the way of lines that pass.
fn waiting_call(line: &[u8]) -> Option<WaitingCall> {
    #[derive(serde::Deserialize)]
    struct Peek {
        #[serde(default)]
        id: Option<Value>,
        #[serde(default)]
        method: Option<String>,
        #[serde(default)]
        params: Option<Value>,
    }
    let peek: Peek = serde_json::from_slice(line).ok()?;
    peek.id?;
    let method = peek.method?;
    let params = peek.params.unwrap_or(Value::Null);
    let target = ["name", "uri"]
        .iter()
        .find_map(|key| params.get(key).and_then(Value::as_str))
        .map(str::to_owned);
    Some(WaitingCall {
        method,
        target,
        since_ms: rootgate_model::ids::now_ms(),
    })
}
