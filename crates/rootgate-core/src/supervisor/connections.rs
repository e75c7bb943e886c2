//! The bridges' service ([`Bridges`]): the AI apps' connections. It takes
//! the reports of bridges (`rootgate connect`) on the settings' socket,
//! hands each to the service it concerns and turns it into a change for
//! the window (an app's own folders become suggestion prompts), answers
//! the folders and bundles another start hands over, and lists the
//! connections and what happened on each. It is the top service: it holds
//! the others it hands reports to, and none holds it.
//!
//! Not here: the bridge itself and the socket's protocol
//! (`rootgate-bridge`), and how a suggestion becomes a prompt (`prompts`).

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use tokio::sync::broadcast;

use super::Change;
use super::apps::Apps;
use super::asking::Questions;
use super::ground::Ground;
use super::install::Installing;
use super::notes::Notes;
use super::prompts::Consent;
use super::sessions::Servers;
use super::tool_asks::ToolConsent;
use rootgate_bridge::connections::{
    ConnectionChange, ConnectionView, Connections, OpenAnswer, OpenRequest,
};
use rootgate_model::ids::ConnectionId;
use rootgate_model::timeline::Entry;
use rootgate_session::Status;

/// The bridges' side: their reports, turned into changes and handed to
/// the services they concern, and the other starts' folders and bundles.
pub struct Bridges {
    me: Weak<Bridges>,
    ground: Ground,
    connections: Arc<Connections>,
    servers: Arc<Servers>,
    notes: Arc<Notes>,
    tools: Arc<ToolConsent>,
    questions: Arc<Questions>,
    consent: Arc<Consent>,
    installing: Arc<Installing>,
    apps: Arc<Apps>,
}

/// The services the bridges' reports reach.
pub(super) struct BridgesReach {
    pub(super) connections: Arc<Connections>,
    pub(super) servers: Arc<Servers>,
    pub(super) notes: Arc<Notes>,
    pub(super) tools: Arc<ToolConsent>,
    pub(super) questions: Arc<Questions>,
    pub(super) consent: Arc<Consent>,
    pub(super) installing: Arc<Installing>,
    pub(super) apps: Arc<Apps>,
}

impl Bridges {
    pub(super) fn new(ground: Ground, reach: BridgesReach) -> Arc<Bridges> {
        Arc::new_cyclic(|me| Bridges {
            me: me.clone(),
            ground,
            connections: reach.connections,
            servers: reach.servers,
            notes: reach.notes,
            tools: reach.tools,
            questions: reach.questions,
            consent: reach.consent,
            installing: reach.installing,
            apps: reach.apps,
        })
    }

    /// Takes the reports of bridges (`rootgate connect`) from now on, on the
    /// socket that belongs to these settings (see `connections`), and
    /// returns its path. Each report becomes a change for the window; an
    /// app's own folders become suggestion prompts. Called once, by the app.
    pub async fn listen(&self) -> std::io::Result<PathBuf> {
        let path = rootgate_bridge::connections::socket_path(self.ground.settings_path());
        let mut reports = self.connections.subscribe();
        let importer = Arc::downgrade(&self.apps);
        self.connections
            .answer_imports_with(Box::new(move |request| match importer.upgrade() {
                Some(apps) => apps.import_for_terminal(request),
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
                let Some(bridges) = me.upgrade() else {
                    return;
                };
                bridges.on_connection(change);
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
                    self.servers
                        .remember_era(&connection.server, &connection.status);
                }
                self.notes.note_connection(&connection);
                if !connection.live {
                    self.tools.asks_ended(&connection.id);
                }
                Change::Connection {
                    connection: *connection,
                }
            }
            ConnectionChange::Entry { connection, entry } => {
                self.servers.remember_bridged_era(&entry);
                self.notes.note_entry(&connection, &entry);
                Change::ConnectionEntry { connection, entry }
            }
            ConnectionChange::ToolsSeen { server, tools } => {
                // The window keeps what servers list, where a tool that
                // changed since it was last seen is marked: bridges
                // cannot write the settings.
                match self.ground.store.saw_tools(&server, tools) {
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
                self.tools
                    .on_asks(connection, server, server_name, app, asks);
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
                let prompts = self.questions.ask_about(&connection, &server, &app, &uris);
                if prompts.is_empty() {
                    return;
                }
                Change::Prompts { prompts }
            }
        };
        let _ = self.ground.changes.send(change);
    }

    /// Opens the prompts for the folders another start of Rootgate on these
    /// settings handed over (`rootgate FOLDER` while the window is open),
    /// as for folders on this start's own command line, and sends them to
    /// the window as a change; and the install dialog for each MCP bundle
    /// handed over (`rootgate FILE.mcpb`, the file manager's Open). The paths come from the person's command
    /// line, through the private socket (see `instance`).
    pub fn open_handed_over(&self, request: &OpenRequest) -> OpenAnswer {
        let intake = self.consent.prompts_for_paths(&request.folders);
        let mut answer = OpenAnswer {
            prompts: intake.prompts.len(),
            notices: intake.notices(),
            ..OpenAnswer::default()
        };
        if !intake.prompts.is_empty() {
            let _ = self.ground.changes.send(super::Change::Prompts {
                prompts: intake.prompts,
            });
        }
        // Each bundle is read and checked here, and shown in the window's
        // install dialog; one that is refused says why, in words.
        for file in &request.bundles {
            match self.installing.open_bundle(file) {
                Ok(install) => {
                    answer.bundles += 1;
                    let _ = self.ground.changes.send(super::Change::Install { install });
                }
                Err(e) => answer.notices.push(e.to_string()),
            }
        }
        answer
    }

    /// Takes other starts' folders from now on (see
    /// [`Bridges::open_handed_over`]); `then` is told each answer, for
    /// the app to raise its window and show the notices. Called once,
    /// before [`Bridges::listen`].
    pub fn take_other_starts(&self, then: Box<dyn Fn(&OpenAnswer) + Send + Sync>) {
        let me = self.me.clone();
        self.connections
            .answer_opens_with(Box::new(move |request| match me.upgrade() {
                Some(bridges) => {
                    let answer = bridges.open_handed_over(&request);
                    then(&answer);
                    answer
                }
                None => OpenAnswer {
                    notices: vec!["this Rootgate window is closing".into()],
                    ..OpenAnswer::default()
                },
            }));
    }

    /// Every AI app's connection the window heard of, live ones first.
    pub fn list(&self) -> Vec<ConnectionView> {
        self.connections.list()
    }

    /// What happened on one connection, oldest first.
    pub fn connection_timeline(&self, id: &ConnectionId) -> Vec<Entry> {
        self.connections.entries(id)
    }
}
