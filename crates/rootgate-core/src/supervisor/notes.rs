//! The desktop notifications besides the questions, each one a choice in
//! the window's Settings (`NotifyChoices`): a server that failed to start
//! for an AI app routed through Rootgate (with its reason), a server
//! restarted so that a withdrawal took effect (or, while sharing is
//! paused, restarted without its folders: said as the pause), and a
//! command imported by `rootgate import` that waits for the person's
//! approval (its "Open Rootgate" opens that approval). Each says what
//! a person using an AI app with the window closed would otherwise not
//! see, and offers "Open Rootgate".
//!
//! They go through the notification server the questions found
//! (`questions`); with none, nothing is sent, and the window shows the
//! same in its views. Each is sent once: a connection's failure once per
//! reason, a restart once per timeline entry, an approval once per server.
//!
//! Not here: the questions (`questions`), the choices' storage
//! (`rootgate_model::preferences`).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use rootgate_bridge::connections::{ConnectionView, Connections};
use rootgate_model::ids::{ConnectionId, ServerId};
use rootgate_model::timeline::{Entry, Event};
use rootgate_notify::Notification;
use rootgate_session::Status;

use super::ground::{DesktopSlot, Ground};
use super::preferences::Preferences;
use super::servers::ServerHandle;
use super::{app_title, lock};

/// How long an information stays on screen: it asks nothing, and stays in
/// the daemon's history after.
const SHOWN_FOR: Duration = Duration::from_secs(20);

/// What was sent already, so nothing is said twice, and which
/// notifications stand for a server waiting for approval.
#[derive(Default)]
pub(super) struct Noted {
    sent: Mutex<HashSet<String>>,
    /// The desktop's id of each approval notification, and its server:
    /// its "Open Rootgate" opens that server's approval in the window.
    approvals: Mutex<HashMap<u32, ServerId>>,
}

impl Noted {
    /// True the first time `key` is seen.
    fn first(&self, key: String) -> bool {
        lock(&self.sent).insert(key)
    }
}

/// The app of a connection as the person knows it.
fn app_of(connection: &ConnectionView) -> String {
    connection
        .app
        .as_ref()
        .map_or_else(|| "An AI app".to_owned(), |a| app_title(&a.name))
}

/// The desktop notifications besides the questions.
pub(crate) struct Notes {
    me: Weak<Notes>,
    ground: Ground,
    /// The notifications sent, so each is sent once.
    noted: Noted,
    desktop: DesktopSlot,
    servers: Arc<dyn ServerHandle>,
    preferences: Arc<Preferences>,
    connections: Arc<Connections>,
}

impl Notes {
    pub(super) fn new(
        ground: Ground,
        desktop: DesktopSlot,
        servers: Arc<dyn ServerHandle>,
        preferences: Arc<Preferences>,
        connections: Arc<Connections>,
    ) -> Arc<Notes> {
        Arc::new_cyclic(|me| Notes {
            me: me.clone(),
            ground,
            noted: Noted::default(),
            desktop,
            servers,
            preferences,
            connections,
        })
    }

    /// A bridge's connection changed: its server failing to start is said.
    pub(super) fn note_connection(&self, connection: &ConnectionView) {
        let Status::Failed { reason } = &connection.status else {
            return;
        };
        if !self.ground.store.preferences().notify.server_failed
            || !self
                .noted
                .first(format!("failed {} {reason}", connection.id))
        {
            return;
        }
        self.send_note(
            format!(
                "{} could not start for {}",
                connection.server_name,
                app_of(connection)
            ),
            reason.clone(),
        );
    }

    /// Something happened on a bridge's connection: a restart to withdraw
    /// a folder is said.
    pub(super) fn note_entry(&self, connection: &ConnectionId, entry: &Entry) {
        let Event::RestartedToWithdraw { reason } = &entry.event else {
            return;
        };
        if !self.ground.store.preferences().notify.withdrawal_restarted
            || !self
                .noted
                .first(format!("restart {connection} {}", entry.seq))
        {
            return;
        }
        let Some(view) = self
            .connections
            .list()
            .into_iter()
            .find(|c| &c.id == connection)
        else {
            return;
        };
        // A pause takes every folder away at once, and a server given its
        // folders as arguments is restarted with none: that is the pause
        // the person chose, not a folder withdrawn, and it is said so.
        if self.preferences.sharing_paused() {
            self.send_note(
                format!(
                    "{} was restarted for {}: sharing is paused",
                    view.server_name,
                    app_of(&view)
                ),
                "It sees no folders until you resume sharing in the Rootgate window. \
                 A call it was answering may have ended with an error."
                    .to_owned(),
            );
            return;
        }
        self.send_note(
            format!(
                "{} was restarted for {} to withdraw a folder",
                view.server_name,
                app_of(&view)
            ),
            format!("{reason}. A call it was answering may have ended with an error."),
        );
    }

    /// `rootgate import` brought in a server whose command waits for the
    /// person's approval. Its "Open Rootgate" opens that approval.
    pub(super) fn note_import(&self, server_name: &str, server_id: &ServerId, app: &str) {
        if !self.ground.store.preferences().notify.approval_waiting
            || !self.noted.first(format!("approve {server_id}"))
        {
            return;
        }
        self.send_note_for(
            format!("{server_name} waits for your approval"),
            format!(
                "Imported from {app}. Rootgate runs it once you approve its command in the window."
            ),
            Some(server_id.clone()),
        );
    }

    /// "Open Rootgate" was pressed on the notification `id`: when it said a
    /// server waits for approval, and it still does, the window shows its
    /// approval (the window itself is raised by the caller).
    pub(super) fn note_opened(&self, id: u32) {
        let Some(server) = lock(&self.noted.approvals).get(&id).cloned() else {
            return;
        };
        match self.servers.server(&server) {
            Ok(view) if !view.approved => {
                let _ = self.ground.changes.send(super::Change::ApprovalWanted {
                    server: Box::new(view),
                    prompts: Vec::new(),
                });
            }
            _ => {}
        }
    }

    fn send_note(&self, summary: String, body: String) {
        self.send_note_for(summary, body, None);
    }

    /// Sends a notification; `approval`, when set, is the server whose
    /// approval its "Open Rootgate" opens.
    fn send_note_for(&self, summary: String, body: String, approval: Option<ServerId>) {
        let Some(desktop) = self.desktop.get() else {
            return;
        };
        let notification = Notification {
            summary,
            body,
            actions: vec![("open".into(), "Open Rootgate".into())],
            expire: Some(SHOWN_FOR),
        };
        let me = self.me.clone();
        self.ground.runtime.spawn(async move {
            match desktop.notify(&notification).await {
                Ok(id) => {
                    if let (Some(server), Some(notes)) = (approval, me.upgrade()) {
                        lock(&notes.noted.approvals).insert(id, server);
                    }
                }
                Err(e) => tracing::info!(error = %e, "a notification could not be shown"),
            }
        });
    }
}
