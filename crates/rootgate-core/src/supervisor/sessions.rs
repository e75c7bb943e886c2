//! The servers' service itself ([`Servers`]): its state, and one session
//! per configured server with its changes forwarded to the window (status,
//! stderr, where it stands with its folders, its lists) and remembered in
//! the settings (the era a start found, a server seen not to follow
//! changes).
//!
//! The rest of the servers' area is in the files beside: the list and a
//! person's acts on a server (`servers`), restarts after a failure
//! (`restarts`), secrets (`secrets`), the settings file followed
//! (`settings_watch`) and the timeline kept across launches
//! (`kept_timeline`). Not here: anything about folders' consent, the AI
//! apps or their connections; this service needs no other.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::broadcast;

use super::ground::{Ground, lock};
use super::kept_timeline::KeptTimeline;
use super::restarts::{RestartPolicy, Restarting, StartAgain};
use super::{Change, SupervisorError};
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerSpec;
use rootgate_model::timeline::Entry;
use rootgate_session::notices::Notice;
use rootgate_session::{Delivery, Following, Session, SessionConfig, Status};

/// The servers: their sessions, restarts, approvals and secrets.
pub struct Servers {
    pub(super) me: Weak<Servers>,
    pub(super) ground: Ground,
    config: SessionConfig,
    /// Restarts after a failure.
    pub(super) restarting: Restarting,
    pub(super) sessions: Mutex<HashMap<ServerId, Session>>,
    /// Servers edited while running whose new command is not approved yet:
    /// each keeps running its approved command until the new one is.
    pub(super) awaiting_approval: Mutex<HashSet<ServerId>>,
    /// The timeline kept for the next launch.
    pub(super) kept: Arc<KeptTimeline>,
}

impl Servers {
    pub(super) fn new(
        ground: Ground,
        config: SessionConfig,
        restart_policy: RestartPolicy,
    ) -> Arc<Servers> {
        Arc::new_cyclic(|me: &Weak<Servers>| {
            let weak = me.clone();
            let again: StartAgain = Arc::new(move |id: &ServerId| {
                if let Some(servers) = weak.upgrade() {
                    servers.start_again(id);
                }
            });
            Servers {
                me: me.clone(),
                restarting: Restarting::new(ground.clone(), restart_policy, again),
                kept: KeptTimeline::new(ground.clone()),
                ground,
                config,
                sessions: Mutex::new(HashMap::new()),
                awaiting_approval: Mutex::new(HashSet::new()),
            }
        })
    }

    /// Puts back the timeline an earlier launch kept, and keeps it from
    /// now on.
    pub(super) fn restore_timeline(&self) {
        self.kept.restore();
    }

    /// One idle session per configured server.
    pub(super) fn open_sessions(&self) -> Result<(), SupervisorError> {
        for spec in self.ground.store.snapshot().servers {
            self.ensure_session(&spec)?;
        }
        Ok(())
    }

    /// The session of `spec`, made (idle) if it does not exist yet, with
    /// its status and stderr forwarded as changes.
    pub(crate) fn ensure_session(&self, spec: &ServerSpec) -> Result<Session, SupervisorError> {
        let _runtime = self.ground.runtime.enter();
        let mut sessions = lock(&self.sessions);
        if let Some(session) = sessions.get(&spec.id) {
            return Ok(session.clone());
        }
        let store = &self.ground.store;
        let session = Session::spawn_with_secrets(
            spec.id.clone(),
            store.subscribe(&spec.id)?,
            Arc::clone(&self.ground.timeline),
            self.config,
            Arc::clone(store.secrets()),
        );
        // Subscribed now, before the session can change: the task may
        // first run later, and must not miss what happened meanwhile.
        tokio::spawn(forward(
            Feeds::of(&session),
            spec.id.clone(),
            self.ground.changes.clone(),
            self.me.clone(),
        ));
        sessions.insert(spec.id.clone(), session.clone());
        Ok(session)
    }

    /// Remembers, in the settings, a server seen not to follow changes, so
    /// that it is shown and its withdrawals are applied by restart from its
    /// next launch on too.
    fn on_delivery(&self, id: &ServerId, delivery: &Delivery) {
        if delivery.following == Following::Ignores
            && let Err(e) = self.ground.store.set_ignores_list_changed(id, true)
        {
            tracing::warn!("could not remember that {id} ignores list_changed: {e}");
        }
    }

    /// Remembers, in the settings, the era a server's start found, so that
    /// its later starts need not find out; forgets it when a start fails, so
    /// that the next start finds out again (the spec's "re-probe if the cached
    /// assumption later fails"). A forced era is the person's and is left
    /// alone.
    pub(crate) fn remember_era(&self, id: &ServerId, status: &Status) {
        let Ok(spec) = self.ground.store.server(id) else {
            return;
        };
        if spec.era.forced().is_some() {
            return;
        }
        let seen = match status {
            Status::Running(info) => Some(info.era),
            Status::Failed { .. } => None,
            _ => return,
        };
        if let Err(e) = self.ground.store.set_seen_era(id, seen) {
            tracing::warn!("could not remember the era of {id}: {e}");
        }
    }

    /// A bridge found the era of a server whose era was not known yet: the
    /// window, the one writer of the settings, remembers what it found, so
    /// that the next bridge (and the window's own session) need not ask.
    pub(crate) fn remember_bridged_era(&self, entry: &Entry) {
        let rootgate_model::timeline::Event::EraFound { era, .. } = entry.event else {
            return;
        };
        let Ok(spec) = self.ground.store.server(&entry.server) else {
            return;
        };
        if spec.known_era().is_none()
            && let Err(e) = self.ground.store.set_seen_era(&entry.server, Some(era))
        {
            tracing::warn!("could not remember the era of {}: {e}", entry.server);
        }
    }

    /// The session of a configured server, made if it has none yet.
    pub(crate) fn session(&self, id: &ServerId) -> Result<Session, SupervisorError> {
        let spec = self.ground.store.server(id)?;
        self.ensure_session(&spec)
    }
}

/// The change the window is told of for a server's notice; progress goes
/// to its call instead (see `Tries::call_tool`).
fn change_of(server: &ServerId, notice: Notice) -> Option<Change> {
    match notice {
        Notice::Progress(_) => None,
        Notice::ListChanged(offer) => Some(Change::OffersChanged {
            server: server.clone(),
            offer,
        }),
        Notice::ResourceUpdated { uri } => Some(Change::ResourceUpdated {
            server: server.clone(),
            uri,
        }),
    }
}

impl Servers {
    /// A restart's delay is over: the server starts again.
    fn start_again(&self, id: &ServerId) {
        // The spec may have changed while waiting; run only what is still
        // enabled and approved.
        if let Ok(spec) = self.ground.store.server(id)
            && spec.enabled
            && spec.is_approved()
            && let Ok(session) = self.session(id)
        {
            session.start(spec);
        }
    }
}

/// What a session reports, subscribed to when it is made.
struct Feeds {
    status: tokio::sync::watch::Receiver<Status>,
    delivery: tokio::sync::watch::Receiver<Delivery>,
    log: broadcast::Receiver<rootgate_session::LogLine>,
    notices: broadcast::Receiver<rootgate_session::notices::Notice>,
}

impl Feeds {
    fn of(session: &Session) -> Feeds {
        Feeds {
            status: session.subscribe_status(),
            delivery: session.subscribe_delivery(),
            log: session.stderr().subscribe(),
            notices: session.subscribe_notices(),
        }
    }
}

/// Forwards a session's status, delivery, stderr and notices as changes,
/// until the session ends; status and delivery are also remembered by the
/// servers, while they are there.
async fn forward(
    feeds: Feeds,
    server: ServerId,
    changes: broadcast::Sender<Change>,
    me: Weak<Servers>,
) {
    let Feeds {
        mut status,
        mut delivery,
        mut log,
        mut notices,
    } = feeds;
    loop {
        tokio::select! {
            changed = status.changed() => {
                if changed.is_err() { break; }
                let status = status.borrow_and_update().clone();
                if let Some(servers) = me.upgrade() {
                    servers.remember_era(&server, &status);
                    servers.restarting.on_status(&server, &status);
                }
                let _ = changes.send(Change::Status { server: server.clone(), status });
            }
            changed = delivery.changed() => {
                if changed.is_err() { break; }
                let now = delivery.borrow_and_update().clone();
                if let Some(servers) = me.upgrade() {
                    servers.on_delivery(&server, &now);
                }
                let _ = changes.send(Change::Delivery { server: server.clone(), delivery: now.summary() });
            }
            line = log.recv() => match line {
                Ok(line) => { let _ = changes.send(Change::Log { server: server.clone(), line }); }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
            notice = notices.recv() => match notice {
                Ok(notice) => {
                    if let Some(change) = change_of(&server, notice) {
                        let _ = changes.send(change);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => break,
            },
        }
    }
}
