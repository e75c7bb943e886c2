//! The running phase of a life of the server: roots answered (by the
//! wire), changes told with `list_changed` when the notify gate says so,
//! withdrawals that need a restart, changes not picked up, and the
//! delivery the window shows, until something ends the connection; and a
//! modern-era server's running phase, which has nothing to tell (its
//! rounds are answered where its requests are made).
//!
//! What is not here: launching and closing the process (`connection`), the
//! timing rules (`list_changed`), and the bytes on the wire (`wire`).

use std::ops::ControlFlow;
use std::sync::Arc;

use tokio::time::Instant;

use super::Command;
use super::actor::Actor;
use super::connection::{Connection, Ending, seconds};
use super::delivery::{DeliveryState, Following, Restarted};
use super::list_changed::{Decision, NotifyGate};
use super::ready::{FirstFolders, NoWait, Readiness};
use super::wire::{HandlerEvent, Wire};
use rootgate_model::consent::{SharedRoot, SharedRoots};
use rootgate_model::ids::now_ms;
use rootgate_model::servers::{Era, ServerSpec, Withdrawal};
use rootgate_model::timeline::Event;

/// What a legacy-era life keeps while it runs, besides the actor's own
/// state: when to tell it of changes, its wait for its first folders, the
/// list it was last given, and what it is waited on for.
struct Running {
    gate: NotifyGate,
    first: FirstFolders,
    last_given: Option<Arc<[SharedRoot]>>,
    waiting: Waiting,
    /// The list a server given its folders as arguments was started with.
    arguments: Option<Arc<[SharedRoot]>>,
}

impl Running {
    /// The next instant something is due: the gate's or the first folders'.
    fn next_wake(&self, generation: u64) -> Option<Instant> {
        [self.gate.next_wake(generation), self.first.next_wake()]
            .into_iter()
            .flatten()
            .min()
    }
}

impl Actor {
    /// The running phase: answers, notifies and watches until something
    /// ends the connection.
    pub(super) async fn serve(&mut self, spec: &ServerSpec, conn: &mut Connection) -> Ending {
        if conn.era == Era::Modern {
            return self.serve_modern(spec, conn).await;
        }
        let Connection {
            exit,
            events,
            wire,
            link,
            enforced,
            expanded,
            started_with,
            ..
        } = conn;
        let (Some(wire), Some(link)) = (wire.as_ref(), link.as_mut()) else {
            return Ending::Closed;
        };
        let enforced = enforced.as_ref();
        let peer = link.peer();
        // Most servers ask for roots right after `initialized`; one that
        // does not is told with `list_changed` once the hold has passed, so
        // folders shared before it started still reach it.
        let mut run = Running {
            gate: NotifyGate::after_initialized(self.config.notify, Instant::now()),
            first: self.first_folders(expanded.is_some()),
            last_given: None,
            waiting: Waiting::default(),
            arguments: expanded.as_ref().map(|_| started_with.shared()),
        };
        self.publish_running(&mut run);
        loop {
            let wake = run.next_wake(self.roots.borrow().generation());
            // Biased, in this order: the person's commands are never starved,
            // and everything the server said before it went away (answers,
            // messages) is recorded before its exit or closed output is.
            let decision = tokio::select! {
                biased;
                command = self.commands.recv() => match self.running_command(command, spec, &peer) {
                    Some(ending) => return ending,
                    None => Decision::Idle,
                },
                changed = self.roots.changed() => {
                    if changed.is_err() {
                        return Ending::Removed;
                    }
                    match self.on_change(&mut run, spec, enforced, expanded.as_ref()) {
                        ControlFlow::Continue(decision) => decision,
                        ControlFlow::Break(ending) => return ending,
                    }
                }
                Some(event) = events.recv() => self.on_event(&mut run, event),
                _ = sleep_until(wake), if wake.is_some() => self.on_wake(&mut run),
                _ = exit.exited() => return Ending::Exited,
                _ = link.ended.wait_for(|ended| *ended) => return Ending::Closed,
            };
            if let Some(ending) = self.act(&mut run, decision, wire) {
                return ending;
            }
            self.publish_running(&mut run);
        }
    }

    /// The shared list changed: the ending it calls for (a restart), or
    /// what the gate decides.
    fn on_change(
        &mut self,
        run: &mut Running,
        spec: &ServerSpec,
        enforced: Option<&SharedRoots>,
        expanded: Option<&rootgate_model::placeholders::Expanded>,
    ) -> ControlFlow<Ending, Decision> {
        let current = self.roots.borrow_and_update().clone();
        if let Some(ending) = restart_for_change(spec, enforced, expanded, &current) {
            return ControlFlow::Break(ending);
        }
        let ignores = self.following == Following::Ignores;
        let given = run.last_given.as_deref();
        if let Some(why) = must_restart(spec.withdrawal, ignores, given, &current) {
            return ControlFlow::Break(self.withdraw(why, given, &current));
        }
        // A life that began with nothing waits for its first
        // folders (see `FirstFolders::on_first_share`).
        if !current.is_empty()
            && let Some(ready) = run.first.on_first_share(Instant::now())
        {
            self.ready.send_replace(ready);
        }
        ControlFlow::Continue(run.gate.on_change(current.generation(), Instant::now()))
    }

    /// What the server's side of the wire reported: an answer to its
    /// `roots/list`, a request refused, or a message.
    fn on_event(&mut self, run: &mut Running, event: HandlerEvent) -> Decision {
        match event {
            HandlerEvent::Answered {
                request_id,
                generation,
                roots,
            } => {
                self.record(Event::RootsAnswered {
                    request_id,
                    generation,
                    roots: Arc::clone(&roots),
                });
                // Asking while told of a change is following it.
                if run.gate.notified_out() && self.following == Following::Unknown {
                    self.following = Following::Follows;
                }
                let len = roots.len();
                run.last_given = Some(roots);
                let current = self.roots.borrow().generation();
                let decision = run
                    .gate
                    .on_answered(generation, len, current, Instant::now());
                self.asks = Some(true);
                let applied_by = run.gate.applied_by(generation);
                if let Some(ready) = run.first.on_answered(generation, current, applied_by) {
                    self.ready.send_replace(ready);
                }
                decision
            }
            HandlerEvent::Refused { method } => {
                self.record(Event::RequestRefused {
                    method: method.to_owned(),
                });
                Decision::Idle
            }
            HandlerEvent::Message(message) => {
                // Nobody listening is normal (the app does not show
                // these yet).
                let _ = self.messages.send(message);
                Decision::Idle
            }
        }
    }

    /// Something came due: the first folders' wait, or the gate's.
    fn on_wake(&mut self, run: &mut Running) -> Decision {
        if let Some(ready) = run.first.on_deadline(Instant::now()) {
            // It may have asked at its start: only a life that
            // waited from its start says it does not ask.
            if !run.first.rearmed() {
                self.asks = Some(false);
            }
            self.ready.send_replace(ready);
        }
        let current = self.roots.borrow().generation();
        run.gate.on_deadline(current, Instant::now())
    }

    /// Carries out the gate's decision: tells the server, or notes that it
    /// did not pick a change up (and restarts it when that withholds a
    /// withdrawal).
    fn act(&mut self, run: &mut Running, decision: Decision, wire: &Wire) -> Option<Ending> {
        match decision {
            Decision::Send if !wire.closed.is_cancelled() => {
                let generation = self.roots.borrow().generation();
                // Queued from a task of its own (see `Wire`): a server
                // that stopped reading its input leaves the queue full,
                // and waiting here would block every command too, stop
                // included. It is recorded as it is handed to the wire,
                // so it precedes the `roots/list` it prompts in the
                // timeline.
                self.record(Event::ListChangedSent { generation });
                wire.notify_list_changed();
            }
            Decision::Send | Decision::Idle => {}
            Decision::NotPickedUp => {
                let current = self.roots.borrow().clone();
                if let Some(given) = run.last_given.as_deref() {
                    // It asked before, and not after being told: it does
                    // not follow changes.
                    self.following = Following::Ignores;
                    if current.withdraws_from(given) {
                        let why = format!(
                            "it did not pick up the change within {}",
                            seconds(self.config.notify.pickup)
                        );
                        return Some(self.withdraw(why, Some(given), &current));
                    }
                }
                let waited = self.config.notify.pickup;
                self.record(Event::NotPickedUp {
                    generation: current.generation(),
                    waited_ms: waited.as_millis() as u64,
                });
            }
        }
        None
    }

    /// Publishes where the running life stands with its folders. A server
    /// given them as arguments holds the list it was started with
    /// (`arguments`) from its start, whatever it asks: any other list
    /// starts it again (see `restart_for_change`). The app's first request
    /// waits on this (the bridge's `folder_question` and `workspace`): for such a
    /// server, until the start that has its folders.
    fn publish_running(&self, run: &mut Running) {
        if let Some(started_with) = &run.arguments {
            self.publish_delivery(DeliveryState::UpToDate, Some(started_with));
        } else {
            let state = run
                .waiting
                .state(&run.gate, self.roots.borrow().generation());
            self.publish_delivery(state, run.last_given.as_ref());
        }
    }

    /// The running phase of a modern-era server: nothing to tell it, as
    /// every request it handles is answered from the folders shared at that
    /// moment (see `Session::call_tool`); a change that needs a new process
    /// (enforcement, folders as arguments) still restarts it.
    async fn serve_modern(&mut self, spec: &ServerSpec, conn: &mut Connection) -> Ending {
        let Connection {
            exit,
            events,
            link,
            enforced,
            expanded,
            ..
        } = conn;
        let Some(link) = link.as_mut() else {
            return Ending::Closed;
        };
        let enforced = enforced.as_ref();
        let peer = link.peer();
        // Its list changes come only on a listen stream of its own, open
        // while it runs (see `listen`).
        let _lists = peer
            .clone()
            .map(|p| super::listen::lists(p, self.notices.clone()));
        self.publish_delivery(DeliveryState::PerRequest, None);
        self.ready
            .send_replace(Readiness::Ready(NoWait::PerRequest));
        loop {
            tokio::select! {
                biased;
                command = self.commands.recv() => {
                    if let Some(ending) = self.running_command(command, spec, &peer) {
                        return ending;
                    }
                }
                changed = self.roots.changed() => {
                    if changed.is_err() {
                        return Ending::Removed;
                    }
                    let current = self.roots.borrow_and_update().clone();
                    if let Some(ending) = restart_for_change(spec, enforced, expanded.as_ref(), &current) {
                        return ending;
                    }
                }
                Some(event) = events.recv() => match event {
                    // The stdio binding forbids a modern server to send
                    // requests; one that asks `roots/list` anyway is
                    // answered by the wire all the same, and it is recorded.
                    HandlerEvent::Answered { request_id, generation, roots } => {
                        self.record(Event::RootsAnswered { request_id, generation, roots });
                    }
                    HandlerEvent::Refused { method } => {
                        self.record(Event::RequestRefused { method: method.to_owned() });
                    }
                    HandlerEvent::Message(message) => {
                        let _ = self.messages.send(message);
                    }
                },
                _ = exit.exited() => return Ending::Exited,
                _ = link.ended.wait_for(|ended| *ended) => return Ending::Closed,
            }
            self.publish_delivery(DeliveryState::PerRequest, None);
        }
    }

    /// The start of a life's wait for its first folders, published: none
    /// for a server told its folders as arguments (`arguments`), with
    /// nothing shared, or seen not to ask in an earlier life.
    fn first_folders(&self, arguments: bool) -> FirstFolders {
        let known = if arguments {
            Some(NoWait::Arguments)
        } else if self.roots.borrow().is_empty() {
            Some(NoWait::NothingShared)
        } else if self.asks == Some(false) {
            Some(NoWait::DoesNotAsk)
        } else {
            None
        };
        let (first, readiness) = FirstFolders::start(known, Instant::now());
        self.ready.send_replace(readiness);
        first
    }

    /// A command that came while the server runs: the ending it asks for,
    /// if it asks for one.
    fn running_command(
        &mut self,
        command: Option<Command>,
        spec: &ServerSpec,
        peer: &Option<rmcp::service::Peer<rmcp::service::RoleClient>>,
    ) -> Option<Ending> {
        match command {
            None => Some(Ending::Quit(None)),
            Some(Command::Shutdown(done)) => Some(Ending::Quit(Some(done))),
            Some(Command::Stop(done)) => Some(Ending::Stop(done)),
            Some(Command::Restart(new)) => {
                let new = new.unwrap_or_else(|| spec.clone());
                self.adopt(&new);
                Some(Ending::Restart(new))
            }
            Some(Command::Start(_)) => None,
            Some(Command::Peer(reply)) => {
                let _ = reply.send(peer.clone());
                None
            }
            Some(Command::Forget) => {
                self.forget();
                None
            }
        }
    }

    /// Ends the connection to restart the server so that a withdrawal takes
    /// effect, noting what the restart withdraws.
    pub(super) fn withdraw(
        &mut self,
        why: String,
        given: Option<&[SharedRoot]>,
        current: &SharedRoots,
    ) -> Ending {
        let withdrawn: Vec<SharedRoot> = given
            .unwrap_or_default()
            .iter()
            .filter(|old| !current.roots().iter().any(|new| new.uri == old.uri))
            .cloned()
            .collect();
        self.restarted = Some(Restarted {
            at_ms: now_ms(),
            reason: why.clone(),
            withdrawn,
        });
        Ending::Withdraw(why)
    }
}

/// When the current wait for the server began, so the state the app shows
/// keeps its time while it lasts.
#[derive(Default)]
pub(super) struct Waiting {
    since_ms: Option<u64>,
    not_picked_up_ms: Option<u64>,
}

impl Waiting {
    pub(super) fn state(&mut self, gate: &NotifyGate, current: u64) -> DeliveryState {
        if gate.settled(current) {
            *self = Waiting::default();
            return DeliveryState::UpToDate;
        }
        if gate.answered() == Some(current) {
            self.since_ms = None;
            self.not_picked_up_ms = None;
            return DeliveryState::Confirming;
        }
        if gate.not_picked_up() {
            let since_ms = *self.not_picked_up_ms.get_or_insert_with(now_ms);
            return DeliveryState::NotPickedUp { since_ms };
        }
        self.not_picked_up_ms = None;
        DeliveryState::Waiting {
            since_ms: *self.since_ms.get_or_insert_with(now_ms),
        }
    }
}

/// Whether a change of folders needs a new process, whatever the era: an
/// enforced server's ruleset is made at start, and folders passed as
/// arguments are read at start.
fn restart_for_change(
    spec: &ServerSpec,
    enforced: Option<&SharedRoots>,
    expanded: Option<&rootgate_model::placeholders::Expanded>,
    current: &SharedRoots,
) -> Option<Ending> {
    if let Some(at_start) = enforced
        && !same_folders(at_start.roots(), current.roots())
    {
        return Some(Ending::Reenforce(
            "it is kept to its folders, and a new list takes effect only when it starts again"
                .into(),
        ));
    }
    if let Some(running) = expanded {
        let now = rootgate_model::placeholders::expand(spec, current.roots());
        if now.as_ref().ok() != Some(running) {
            return Some(Ending::Reargue(
                "it takes its folders as arguments, and they changed".into(),
            ));
        }
    }
    None
}

async fn sleep_until(until: Option<Instant>) {
    match until {
        Some(until) => tokio::time::sleep_until(until).await,
        None => std::future::pending().await,
    }
}

/// Whether two lists name the same folders (names aside: a rename changes
/// what a server is told, not what it may touch).
pub(super) fn same_folders(a: &[SharedRoot], b: &[SharedRoot]) -> bool {
    fn uris(list: &[SharedRoot]) -> Vec<&str> {
        let mut uris: Vec<&str> = list.iter().map(|r| r.uri.as_str()).collect();
        uris.sort_unstable();
        uris
    }
    uris(a) == uris(b)
}

/// Whether the change from `given` (what the server last received) to
/// `current` can only take effect by restarting the server, and why.
pub(super) fn must_restart(
    policy: Withdrawal,
    ignores_changes: bool,
    given: Option<&[SharedRoot]>,
    current: &SharedRoots,
) -> Option<String> {
    let given = given?;
    if !current.withdraws_from(given) {
        return None;
    }
    if current.is_empty() {
        // Real servers (the npm filesystem server among them) keep their
        // previous folders when told the list is empty.
        return Some("its last folder was withdrawn, and servers ignore an empty list".into());
    }
    if ignores_changes {
        return Some("it does not pick up changes".into());
    }
    match policy {
        Withdrawal::Restart => {
            Some("this server is set to restart when a folder is withdrawn".into())
        }
        Withdrawal::Notify => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(uris: &[&str]) -> Vec<SharedRoot> {
        uris.iter()
            .map(|u| SharedRoot {
                root: rootgate_model::ids::RootId::generate(),
                uri: (*u).into(),
                name: "n".into(),
            })
            .collect()
    }

    #[test]
    fn restart_only_when_a_withdrawal_cannot_be_told() {
        let given = shared(&["file:///a", "file:///b"]);
        let just_a = SharedRoots::empty()
            .advance_for_tests(given[..1].to_vec())
            .unwrap();
        let none = just_a.advance_for_tests(vec![]).unwrap();
        let more = just_a.advance_for_tests(given.clone()).unwrap();
        assert_eq!(
            must_restart(Withdrawal::Notify, false, Some(&given), &just_a),
            None
        );
        assert!(must_restart(Withdrawal::Restart, false, Some(&given), &just_a).is_some());
        assert!(must_restart(Withdrawal::Notify, false, Some(&given), &none).is_some());
        assert_eq!(
            must_restart(Withdrawal::Restart, false, Some(&given[..1]), &more),
            None
        );
        // A server seen not to follow changes is restarted for any
        // withdrawal, and for nothing else.
        assert!(must_restart(Withdrawal::Notify, true, Some(&given), &just_a).is_some());
        assert_eq!(
            must_restart(Withdrawal::Notify, true, Some(&given[..1]), &more),
            None
        );
        // A server that was never given anything has nothing to forget.
        assert_eq!(must_restart(Withdrawal::Restart, true, None, &none), None);
    }
}
