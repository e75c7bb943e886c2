//! The supervisor: everything the app can ask of Rootgate, in one place that
//! runs without a window, as services by area, each owning its state and
//! its lock.
//!
//! The services mirror the window's areas: the folder list ([`Folders`]),
//! folders' consent prompts and the AI apps' folders suggested
//! ([`Consent`]), the servers with their sessions, approvals, restarts and
//! secrets ([`Servers`]), the window's tries on a server ([`Tries`]), the
//! questions asked when an AI app needs a folder ([`Questions`]), tool
//! consent ([`ToolConsent`]) and the record of calls ([`CallRecord`]), the
//! AI apps ([`Apps`]), installs ([`Installing`]), the bridges' connections
//! ([`Bridges`]) and the window's Settings ([`Preferences`]); the other
//! desktop notifications (`notes`) serve the others. A service that needs
//! another holds that one service (or, where the lower one must call up,
//! a small trait it owns: `prompts::PromptListener`), never the root.
//!
//! This file holds the root, [`Supervisor`]: it opens the store, makes the
//! services and wires them, and hands each out; each desktop command is one
//! line into one service, so the commands' logic is tested headless. What
//! all services stand on (store, timeline, changes, runtime) is
//! `ground`'s.
//!
//! It does not open dialogs or windows (the shell does, and hands over the
//! path the person picked), does not hold UI text beyond error, warning and
//! status messages, and never takes a path from the webview: the only ways
//! in are [`Consent::prompt_for_path`] (and [`Consent::prompts_for_paths`],
//! for several at once), called by the shell with paths from the native
//! picker, a drop on the window or the command line, and
//! [`Consent::prompt_for_root`], which re-checks a root already kept.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use thiserror::Error;
use tokio::sync::broadcast;

use rootgate_bridge::connections::{ConnectionView, Connections};
use rootgate_model::folders::FolderError;
use rootgate_model::ids::{ConnectionId, ServerId};
use rootgate_model::settings::{Recovery, SettingsFile};
use rootgate_model::store::{Store, StoreError};
use rootgate_model::timeline::{Entry, Timeline};
use rootgate_session::delivery::DeliverySummary;
use rootgate_session::notices::OfferKind;
use rootgate_session::{LogLine, SessionConfig, SessionError, Status};

mod answers;
mod app_names;
mod apps;
mod asking;
mod audit;
mod connections;
mod folders;
mod ground;
mod install;
mod kept_timeline;
mod notes;
mod offers;
mod preferences;
mod prompts;
mod questions;
mod restarts;
mod secrets;
mod servers;
mod sessions;
mod settings_watch;
mod suggestions;
mod tool_asks;

pub use app_names::app_title;
pub use apps::{Apps, ImportOutcome, PlanView};
pub use asking::{QuestionView, Questions};
pub use audit::{CallRecord, Exported};
pub use connections::Bridges;
pub use folders::{FolderView, Folders};
pub use install::{InstallOutcome, InstallView, Installing};
pub use offers::Tries;
pub use preferences::{Preferences, PreferencesView};
pub use prompts::{
    Consent, ConsentPrompt, Intake, PromptId, ROOTS_ARE_ADVICE, ServerChoice, Suggestion,
    WarningView,
};
pub use restarts::{RestartPolicy, Retry};
pub use servers::{FolderChoice, ServerView};
pub use sessions::Servers;
pub use suggestions::WaitingQuestion;
pub use tool_asks::{ToolConsent, ToolQuestion};

use asking::QuestionsNeed;
use connections::BridgesReach;
use ground::{DesktopSlot, Ground, TrayCue, lock};
use notes::Notes;

/// Why a request to the supervisor failed.
#[derive(Debug, Error)]
pub enum SupervisorError {
    #[error(transparent)]
    Folder(#[from] FolderError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("this consent prompt is no longer open; choose the folder again")]
    UnknownPrompt,
    #[error(
        "the folder now leads to \"{}\", not \"{}\" as when you chose it; choose it again",
        rootgate_model::names::written_out(&now.display().to_string()),
        rootgate_model::names::written_out(&shown.display().to_string())
    )]
    FolderMoved { shown: PathBuf, now: PathBuf },
    #[error("the command `{command_line}` has not been approved to run yet")]
    NeedsApproval { command_line: String },
    #[error(transparent)]
    Apps(#[from] rootgate_apps::catalog::AppsError),
    #[error(transparent)]
    Install(#[from] rootgate_sources::installed::InstallError),
    #[error("this server was already installed or the window closed it; open it again")]
    UnknownInstall,
    #[error(transparent)]
    Registry(#[from] rootgate_sources::registry::RegistryError),
    #[error(transparent)]
    Bundle(#[from] rootgate_sources::bundle::BundleError),
    #[error("this change was already written or dropped; look at the app again")]
    UnknownPlan,
    #[error("this question is not in Rootgate's record; look at the Questions view again")]
    UnknownQuestion,
    #[error("this call waits no more: it was answered, cancelled by the app, or it timed out")]
    UnknownToolQuestion,
    #[error("the calls could not be exported to {0}")]
    Export(String),
    /// Work handed to a blocking thread did not come back (it panicked).
    #[error("{0}")]
    Blocking(String),
    #[error("the command cannot be found: {0}")]
    CommandMissing(String),
    /// A choice the window sent that Rootgate does not take, in words.
    #[error("{0}")]
    Invalid(String),
    #[error("there is no home folder (HOME is not set), so AI apps' configs cannot be found")]
    NoHome,
    #[error(transparent)]
    Autostart(#[from] rootgate_model::autostart::AutostartError),
    #[error(
        "there is no configuration folder above the settings file, so Rootgate cannot start at login from it"
    )]
    NoConfigFolder,
}

/// Something that changed, for the app to show without polling.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Change {
    /// Folders, grants or servers changed (the store's revision grew).
    Settings { revision: u64 },
    /// A server's status changed.
    Status { server: ServerId, status: Status },
    /// A server wrote a line on stderr.
    Log { server: ServerId, line: LogLine },
    /// Where a server stands with its folders changed.
    Delivery {
        server: ServerId,
        delivery: DeliverySummary,
    },
    /// An AI app's connection through a bridge started, changed or ended.
    Connection { connection: ConnectionView },
    /// Something happened on an AI app's connection.
    ConnectionEntry {
        connection: ConnectionId,
        entry: Entry,
    },
    /// Consent prompts opened without the window asking: folders an AI app
    /// works in, suggested for sharing.
    Prompts { prompts: Vec<ConsentPrompt> },
    /// A server brought in without the window asking (`rootgate import`
    /// while the window holds the settings), or one whose approval
    /// notification's "Open Rootgate" was pressed: the window shows its
    /// command for approval, as for its own import, and then `prompts`,
    /// the consent prompts for the folders in its arguments.
    ApprovalWanted {
        server: Box<ServerView>,
        prompts: Vec<ConsentPrompt>,
    },
    /// One of the AI apps' config files, or the record of their routes,
    /// changed on disk (a route or undo made in a terminal, an app
    /// rewriting its own file): the window lists the apps again.
    AppsChanged,
    /// A published server to show for installing, opened without the
    /// window asking: a bundle opened from the file manager or another
    /// start's command line.
    Install { install: install::InstallView },
    /// A restart after a failure was scheduled, or is no longer (it ran,
    /// the person took over, or it was cancelled).
    Retry {
        server: ServerId,
        retry: Option<Retry>,
    },
    /// A call the window made reported progress.
    CallProgress {
        call: u32,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// A server said one of its lists changed: ask for it again.
    OffersChanged { server: ServerId, offer: OfferKind },
    /// A resource the window follows changed.
    ResourceUpdated { server: ServerId, uri: String },
    /// The questions asked when AI apps needed a folder changed (one was
    /// asked or answered): all of them, newest first.
    Questions { questions: Vec<QuestionView> },
    /// Consent prompts closed without the window (a question answered on
    /// the desktop): the window no longer shows them.
    PromptsClosed { prompts: Vec<PromptId> },
    /// AI apps' tool calls that wait for the person changed: all of them,
    /// oldest first.
    ToolQuestions { questions: Vec<ToolQuestion> },
}

/// The services the others stand on, and the handles they share.
struct Lower {
    tray: TrayCue,
    desktop: DesktopSlot,
    connections: Arc<Connections>,
    folders: Arc<Folders>,
    preferences: Arc<Preferences>,
    servers: Arc<Servers>,
    consent: Arc<Consent>,
    notes: Arc<Notes>,
    tools: Arc<ToolConsent>,
}

impl Lower {
    fn make(ground: &Ground, config: SessionConfig, restart_policy: RestartPolicy) -> Lower {
        let tray = TrayCue::new();
        let desktop = DesktopSlot::default();
        let connections = Arc::new(Connections::default());
        let folders = Arc::new(Folders::new(ground.clone()));
        let preferences = Arc::new(Preferences::new(ground.clone()));
        let servers = Servers::new(ground.clone(), config, restart_policy);
        let consent = Arc::new(Consent::new(
            ground.clone(),
            tray.clone(),
            Arc::clone(&connections),
            Arc::clone(&folders),
        ));
        let notes = Notes::new(
            ground.clone(),
            desktop.clone(),
            server_handle(&servers),
            Arc::clone(&preferences),
            Arc::clone(&connections),
        );
        let tools = ToolConsent::new(
            ground.clone(),
            desktop.clone(),
            tray.clone(),
            Arc::clone(&connections),
            server_handle(&servers),
        );
        Lower {
            tray,
            desktop,
            connections,
            folders,
            preferences,
            servers,
            consent,
            notes,
            tools,
        }
    }
}

/// The root: it opens the store, makes the services and wires them.
pub struct Supervisor {
    ground: Ground,
    recovery: Option<Recovery>,
    tray: TrayCue,
    folders: Arc<Folders>,
    consent: Arc<Consent>,
    servers: Arc<Servers>,
    tries: Tries,
    questions: Arc<Questions>,
    tools: Arc<ToolConsent>,
    calls: CallRecord,
    apps: Arc<Apps>,
    installing: Arc<Installing>,
    bridges: Arc<Bridges>,
    preferences: Arc<Preferences>,
}

impl Supervisor {
    /// Opens the settings (recovering a damaged file) and creates one idle
    /// session per configured server. Must run inside a tokio runtime.
    pub fn open(
        file: SettingsFile,
        config: SessionConfig,
    ) -> Result<Arc<Supervisor>, SupervisorError> {
        Supervisor::open_with(file, config, RestartPolicy::default())
    }

    /// [`Supervisor::open`] with an explicit restart policy.
    pub fn open_with(
        file: SettingsFile,
        config: SessionConfig,
        restart_policy: RestartPolicy,
    ) -> Result<Arc<Supervisor>, SupervisorError> {
        let secrets = rootgate_model::secrets::Secrets::system();
        Supervisor::open_with_secrets(file, config, restart_policy, secrets)
    }

    /// [`Supervisor::open_with`] with the values of secrets kept by
    /// `secrets` (the app's are in the desktop's keyring).
    pub fn open_with_secrets(
        file: SettingsFile,
        config: SessionConfig,
        restart_policy: RestartPolicy,
        secrets: Arc<rootgate_model::secrets::Secrets>,
    ) -> Result<Arc<Supervisor>, SupervisorError> {
        let (store, recovery) = Store::open_with_secrets(file, secrets)?;
        // Bridges that AI apps start are not told where the session bus is,
        // and find the keyring through what the window records here (see
        // `secrets::service`); failing to record it changes nothing else.
        if let Some(dir) = store.file().path().parent()
            && let Err(e) = rootgate_host::keyring::record_bus(dir)
        {
            eprintln!(
                "rootgate: where the session bus is could not be recorded in {} ({e}); \
                 servers started through `rootgate connect` may not reach the keyring",
                dir.display()
            );
        }
        let ground = Ground {
            store: Arc::new(store),
            timeline: Arc::new(Timeline::default()),
            changes: broadcast::Sender::new(4096),
            runtime: tokio::runtime::Handle::current(),
            home: directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()),
        };
        let supervisor = Arc::new(Supervisor::wire(ground, recovery, config, restart_policy));
        supervisor.begin()?;
        Ok(supervisor)
    }

    /// Makes the services, each handed the few others it needs: the
    /// ones the others stand on first ([`Lower`]), then those above.
    fn wire(
        ground: Ground,
        recovery: Option<Recovery>,
        config: SessionConfig,
        restart_policy: RestartPolicy,
    ) -> Supervisor {
        let lower = Lower::make(&ground, config, restart_policy);
        let questions = Questions::new(
            ground.clone(),
            QuestionsNeed {
                desktop: lower.desktop.clone(),
                connections: Arc::clone(&lower.connections),
                consent: Arc::clone(&lower.consent),
                folders: Arc::clone(&lower.folders),
                preferences: Arc::clone(&lower.preferences),
                notes: Arc::clone(&lower.notes),
                tools: Arc::clone(&lower.tools),
            },
        );
        let weak: std::sync::Weak<Questions> = Arc::downgrade(&questions);
        lower.consent.listen_with(weak);
        let servers = &lower.servers;
        let installing = Arc::new(Installing::new(
            ground.clone(),
            server_handle(servers),
            Arc::clone(&lower.consent),
        ));
        let apps = Apps::new(
            ground.clone(),
            server_handle(servers),
            Arc::clone(&lower.consent),
            Arc::clone(&lower.notes),
        );
        let bridges = Bridges::new(
            ground.clone(),
            BridgesReach {
                connections: Arc::clone(&lower.connections),
                servers: Arc::clone(servers),
                notes: Arc::clone(&lower.notes),
                tools: Arc::clone(&lower.tools),
                questions: Arc::clone(&questions),
                consent: Arc::clone(&lower.consent),
                installing: Arc::clone(&installing),
                apps: Arc::clone(&apps),
            },
        );
        Supervisor {
            tries: Tries::new(ground.clone(), server_handle(servers)),
            calls: CallRecord::beside(ground.settings_path()),
            ground,
            recovery,
            tray: lower.tray,
            folders: lower.folders,
            consent: lower.consent,
            servers: lower.servers,
            questions,
            tools: lower.tools,
            apps,
            installing,
            bridges,
            preferences: lower.preferences,
        }
    }

    /// What runs once the services are made: the timeline an earlier
    /// launch kept, the folders checked, one idle session per server, and
    /// the watches and background work that keep everything current.
    fn begin(&self) -> Result<(), SupervisorError> {
        self.servers.restore_timeline();
        self.folders.check_availability();
        // The window's monitor runs as long as the window: its task is let go.
        drop(rootgate_model::monitor::spawn(Arc::clone(
            &self.ground.store,
        )));
        self.servers.open_sessions()?;
        self.forward_revisions();
        self.servers.follow_settings();
        self.servers.move_secrets_from_before();
        self.calls.prune();
        Ok(())
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.ground.store
    }

    pub fn timeline(&self) -> &Arc<Timeline> {
        &self.ground.timeline
    }

    /// What happened to a settings file that could not be trusted, if
    /// anything, for a banner.
    pub fn recovery(&self) -> Option<&Recovery> {
        self.recovery.as_ref()
    }

    pub fn settings_path(&self) -> &Path {
        self.ground.settings_path()
    }

    /// Changes as they happen.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.ground.changes.subscribe()
    }

    /// A counter that grows whenever a consent prompt opens or closes, or
    /// a tool call starts or stops waiting (the tray lists what waits again).
    pub fn subscribe_prompts(&self) -> tokio::sync::watch::Receiver<u64> {
        self.tray.subscribe()
    }

    /// The folder list.
    pub fn folders(&self) -> &Folders {
        &self.folders
    }

    /// Consent prompts and the AI apps' folders suggested.
    pub fn consent(&self) -> &Consent {
        &self.consent
    }

    /// The servers: list, approval, lifecycle, restarts, secrets.
    pub fn servers(&self) -> &Servers {
        &self.servers
    }

    /// The window's tries on a running server.
    pub fn tries(&self) -> &Tries {
        &self.tries
    }

    /// The questions asked when an AI app needs a folder.
    pub fn questions(&self) -> &Questions {
        &self.questions
    }

    /// Tool consent: the calls that wait, and the tool rules.
    pub fn tools(&self) -> &ToolConsent {
        &self.tools
    }

    /// The record of AI apps' calls.
    pub fn calls(&self) -> &CallRecord {
        &self.calls
    }

    /// The AI apps: found, imported from, routed.
    pub fn apps(&self) -> &Apps {
        &self.apps
    }

    /// Servers installed from where they are published.
    pub fn installing(&self) -> &Installing {
        &self.installing
    }

    /// The AI apps' connections through bridges.
    pub fn bridges(&self) -> &Bridges {
        &self.bridges
    }

    /// The window's Settings.
    pub fn preferences(&self) -> &Preferences {
        &self.preferences
    }

    /// Takes the reports of bridges from now on (see [`Bridges::listen`]).
    pub async fn listen_for_bridges(&self) -> std::io::Result<std::path::PathBuf> {
        self.bridges.listen().await
    }

    /// Takes other starts' folders from now on (see
    /// [`Bridges::take_other_starts`]).
    pub fn take_other_starts(
        &self,
        then: Box<dyn Fn(&rootgate_bridge::connections::OpenAnswer) + Send + Sync>,
    ) {
        self.bridges.take_other_starts(then);
    }

    /// Stops every server and waits until all have exited.
    pub async fn shutdown(&self) {
        self.servers.shutdown().await;
    }

    fn forward_revisions(&self) {
        let mut revisions = self.ground.store.subscribe_revision();
        let changes = self.ground.changes.clone();
        self.ground.runtime.spawn(async move {
            while revisions.changed().await.is_ok() {
                let revision = *revisions.borrow_and_update();
                let _ = changes.send(Change::Settings { revision });
            }
        });
    }
}

/// What a service that needs the servers is handed of them.
fn server_handle(servers: &Arc<Servers>) -> Arc<dyn servers::ServerHandle> {
    Arc::clone(servers) as Arc<dyn servers::ServerHandle>
}
