//! The session actor: the task that owns one server's lives, one after
//! another. Between lives it waits for a command (start, restart, stop,
//! shutdown); each life is a [`Connection`](super::connection), run from
//! launch to close by `connection.rs` and served by `serve.rs`.
//!
//! What the actor keeps across lives is here: the server's status and
//! delivery channels, what was learned of the way it takes changes, and the
//! last restart made to apply one. What is not here: how a process is
//! launched and ended (`connection`, `process`), when to notify
//! (`list_changed`), and the bytes on the wire (`wire`, `protocol`).

use std::sync::Arc;

use tokio::sync::{broadcast, mpsc, oneshot, watch};

use super::app_side::AppSide;
use super::delivery::{Delivery, DeliveryState, Following, Restarted};
use super::wire::ServerMessage;
use super::{Command, SessionConfig, Status, StderrLog};
use rootgate_model::consent::{SharedRoot, SharedRoots};
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerSpec;
use rootgate_model::timeline::{Event, Timeline};

/// How a life of the server ended, and what the actor does next.
pub(super) enum Next {
    Idle,
    Start(ServerSpec),
    Quit(Option<oneshot::Sender<()>>),
    /// The server's folders are passed as arguments and are not there yet:
    /// start it when its list changes (or when asked to again).
    WaitForFolders(ServerSpec),
}

pub(super) struct Actor {
    pub(super) server: ServerId,
    pub(super) commands: mpsc::UnboundedReceiver<Command>,
    pub(super) status: watch::Sender<Status>,
    pub(super) delivery: watch::Sender<Delivery>,
    /// Whether the current life has its first folders (see `ready`).
    pub(super) ready: watch::Sender<super::ready::Readiness>,
    /// Whether the server asks for its folders at start, as seen in its
    /// last life that settled it: a server that did not is not waited for.
    pub(super) asks: Option<bool>,
    /// What was seen of the server's way with `list_changed`, across runs.
    pub(super) following: Following,
    /// The last restart made to apply a change.
    pub(super) restarted: Option<Restarted>,
    pub(super) roots: watch::Receiver<SharedRoots>,
    pub(super) timeline: Arc<Timeline>,
    pub(super) stderr: Arc<StderrLog>,
    pub(super) messages: broadcast::Sender<ServerMessage>,
    /// How many `roots/list` the server has been answered, across its
    /// lives: a try counts those answered while it ran (see `offers`).
    pub(super) answered: Arc<std::sync::atomic::AtomicU64>,
    /// Where the handler passes progress and list changes (see `offers`).
    pub(super) notices: broadcast::Sender<super::notices::Notice>,
    pub(super) config: SessionConfig,
    /// Set for a bridge's session: the AI app's relay, which makes the
    /// handshake and carries everything but roots.
    pub(super) relay: Option<Arc<dyn AppSide>>,
    /// Where the values of the server's secrets are read at each start.
    pub(super) secrets: Arc<rootgate_model::secrets::Secrets>,
}

impl Actor {
    pub(super) async fn run(mut self) {
        let mut last_spec: Option<ServerSpec> = None;
        let mut next: Option<ServerSpec> = None;
        loop {
            let spec = match next.take() {
                Some(spec) => spec,
                None => match self.commands.recv().await {
                    None => return,
                    Some(Command::Start(spec)) => {
                        self.adopt(&spec);
                        spec
                    }
                    Some(Command::Restart(spec)) => match spec.or_else(|| last_spec.clone()) {
                        Some(spec) => {
                            self.adopt(&spec);
                            spec
                        }
                        None => continue,
                    },
                    Some(Command::Forget) => {
                        self.forget();
                        continue;
                    }
                    Some(Command::Stop(done)) => {
                        let _ = done.send(());
                        continue;
                    }
                    Some(Command::Shutdown(done)) => {
                        let _ = done.send(());
                        return;
                    }
                    Some(Command::Peer(reply)) => {
                        let _ = reply.send(None);
                        continue;
                    }
                },
            };
            last_spec = Some(spec.clone());
            match self.run_connection(&spec).await {
                Next::Idle => {}
                Next::Start(spec) => next = Some(spec),
                Next::Quit(done) => {
                    if let Some(done) = done {
                        let _ = done.send(());
                    }
                    return;
                }
                Next::WaitForFolders(spec) => match self.wait_for_folders(spec).await {
                    Next::Start(spec) => next = Some(spec),
                    Next::Quit(done) => {
                        if let Some(done) = done {
                            let _ = done.send(());
                        }
                        return;
                    }
                    Next::Idle | Next::WaitForFolders(_) => {}
                },
            }
        }
    }

    /// Waits, with the status saying why, until the server's list changes
    /// (then it is started again, and its folders may be there now) or a
    /// command says otherwise.
    async fn wait_for_folders(&mut self, spec: ServerSpec) -> Next {
        loop {
            tokio::select! {
                changed = self.roots.changed() => {
                    return match changed {
                        Ok(()) => Next::Start(spec),
                        Err(_) => {
                            self.status.send_replace(Status::Stopped { last_exit: None });
                            Next::Quit(None)
                        }
                    };
                }
                command = self.commands.recv() => match command {
                    None => return Next::Quit(None),
                    Some(Command::Start(new)) | Some(Command::Restart(Some(new))) => {
                        self.adopt(&new);
                        return Next::Start(new);
                    }
                    Some(Command::Restart(None)) => return Next::Start(spec),
                    Some(Command::Stop(done)) => {
                        self.status.send_replace(Status::Stopped { last_exit: None });
                        let _ = done.send(());
                        return Next::Idle;
                    }
                    Some(Command::Shutdown(done)) => {
                        self.status.send_replace(Status::Stopped { last_exit: None });
                        return Next::Quit(Some(done));
                    }
                    Some(Command::Peer(reply)) => {
                        let _ = reply.send(None);
                    }
                    Some(Command::Forget) => self.forget(),
                },
            }
        }
    }

    pub(super) fn record(&self, event: Event) {
        self.timeline.record(&self.server, event);
    }

    pub(super) fn fail(&self, reason: String) {
        self.record(Event::Failed {
            reason: reason.clone(),
        });
        self.status.send_replace(Status::Failed { reason });
    }

    /// The last few stderr lines written since `since`, to explain a
    /// failure in the server's own words.
    pub(super) fn stderr_tail(&self, since: u64) -> String {
        let lines = self.stderr.lines_since(since);
        let tail: Vec<&str> = lines
            .iter()
            .rev()
            .filter(|l| !l.text.trim().is_empty())
            .take(3)
            .map(|l| l.text.trim())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if tail.is_empty() {
            String::new()
        } else {
            format!(" It said: \"{}\"", tail.join(" / "))
        }
    }

    /// Takes what the person's settings say about the server's way with
    /// changes, at a start or restart they asked for. (Restarts the actor
    /// makes itself keep what it saw, which the settings may not hold yet.)
    pub(super) fn adopt(&mut self, spec: &ServerSpec) {
        if spec.ignores_list_changed {
            self.following = Following::Ignores;
        } else if self.following == Following::Ignores {
            self.following = Following::Unknown;
        }
    }

    pub(super) fn forget(&mut self) {
        if self.following == Following::Ignores {
            self.following = Following::Unknown;
            self.delivery
                .send_modify(|d| d.following = Following::Unknown);
        }
    }

    /// Publishes where the server stands with its folders, if that moved.
    pub(super) fn publish_delivery(&self, state: DeliveryState, given: Option<&Arc<[SharedRoot]>>) {
        let (granted, generation) = {
            let roots = self.roots.borrow();
            (roots.shared(), roots.generation())
        };
        let following = self.following;
        let restarted = &self.restarted;
        self.delivery.send_if_modified(|d| {
            // Lists are compared by identity: the store shares one list per
            // generation, and comparing 10,000 roots on every answer would
            // cost more than the answer.
            let same_list =
                |a: Option<&Arc<[SharedRoot]>>, b: Option<&Arc<[SharedRoot]>>| match (a, b) {
                    (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                    (None, None) => true,
                    _ => false,
                };
            if d.state == state
                && d.following == following
                && d.restarted == *restarted
                && d.generation == generation
                && Arc::ptr_eq(&d.granted, &granted)
                && same_list(d.given.as_ref(), given)
            {
                return false;
            }
            *d = Delivery {
                state,
                given: given.cloned(),
                granted,
                generation,
                following,
                restarted: restarted.clone(),
            };
            true
        });
    }
}
