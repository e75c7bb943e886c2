//! The supervisor's side of the AI apps' connections: it takes the reports
//! of bridges (`rootgate connect`) on the settings' socket, turns each into
//! a change for the window (and an app's own folders into suggestion
//! prompts), and lists the connections and what happened on each.
//!
//! Not here: the bridge itself and the socket's protocol
//! (`rootgate-bridge`), and how a suggestion becomes a prompt (`prompts`).

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::broadcast;

use super::{Change, Supervisor};
use rootgate_bridge::connections::{ConnectionChange, ConnectionView};
use rootgate_model::ids::ConnectionId;
use rootgate_model::timeline::Entry;
use rootgate_session::Status;

impl Supervisor {
    // ----- AI apps' connections ----------------------------------------------

    /// Takes the reports of bridges (`rootgate connect`) from now on, on the
    /// socket that belongs to these settings (see `connections`), and
    /// returns its path. Each report becomes a change for the window; an
    /// app's own folders become suggestion prompts. Called once, by the app.
    pub async fn listen_for_bridges(self: &Arc<Self>) -> std::io::Result<PathBuf> {
        let path = rootgate_bridge::connections::socket_path(self.settings_path());
        let mut reports = self.connections.subscribe();
        let importer = self.me.clone();
        self.connections
            .answer_imports_with(Box::new(move |request| match importer.upgrade() {
                Some(supervisor) => supervisor.import_for_terminal(request),
                None => rootgate_bridge::connections::ImportAnswer::default(),
            }));
        self.connections.listen(&path).await?;
        let me = self.me.clone();
        tokio::spawn(async move {
            loop {
                let change = match reports.recv().await {
                    Ok(change) => change,
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                let Some(supervisor) = me.upgrade() else {
                    return;
                };
                supervisor.on_connection(change);
            }
        });
        Ok(path)
    }

    fn on_connection(&self, change: ConnectionChange) {
        let change = match change {
            ConnectionChange::Updated(connection) => {
                // A bridge's failed start, like the window's own, means the
                // era remembered may be wrong: the next start asks again.
                if matches!(connection.status, Status::Failed { .. }) {
                    self.remember_era(&connection.server, &connection.status);
                }
                self.note_connection(&connection);
                if !connection.live {
                    self.asks_ended(&connection.id);
                }
                Change::Connection {
                    connection: *connection,
                }
            }
            ConnectionChange::Entry { connection, entry } => {
                self.remember_bridged_era(&entry);
                self.note_entry(&connection, &entry);
                Change::ConnectionEntry { connection, entry }
            }
            ConnectionChange::ToolsSeen { server, tools } => {
                // The window keeps what servers list, where a tool that
                // changed since it was last seen is marked: bridges
                // cannot write the settings.
                match self.store.saw_tools(&server, tools) {
                    Ok(changed) if !changed.is_empty() => {
                        tracing::info!(?changed, "tools changed since they were last seen");
                    }
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "what a server listed was not kept"),
                }
                return;
            }
            ConnectionChange::Asks {
                connection,
                server,
                server_name,
                app,
                asks,
            } => {
                self.on_asks(connection, server, server_name, app, asks);
                return;
            }
            ConnectionChange::Suggested {
                connection,
                server,
                app,
                uris,
            } => {
                let app = app.map(|a| a.name).unwrap_or_default();
                // Each folder becomes a suggestion, asked on the desktop
                // when it can be (see `questions`).
                let prompts = self.ask_about(&connection, &server, &app, &uris);
                if prompts.is_empty() {
                    return;
                }
                Change::Prompts { prompts }
            }
        };
        let _ = self.changes.send(change);
    }

    /// Every AI app's connection the window heard of, live ones first.
    pub fn connections(&self) -> Vec<ConnectionView> {
        self.connections.list()
    }

    /// What happened on one connection, oldest first.
    pub fn connection_timeline(&self, id: &ConnectionId) -> Vec<Entry> {
        self.connections.entries(id)
    }
}
