//! The supervisor: everything the app can ask of Rootgate, in one place that
//! runs without a window.
//!
//! It owns the store, the timeline and one session per configured server,
//! and turns a person's acts into core calls: a chosen folder becomes a
//! consent prompt, an answered prompt becomes a root and exact grants, an
//! approved command line lets a server start. Each desktop command is one
//! line into a method here, so the commands' logic is tested headless.
//!
//! This file holds the supervisor itself: opening, and one session per
//! server with its changes forwarded. Each of the app's sections is a file
//! of its own under `supervisor/`: the folder list (`folders`), the servers
//! with their lifecycle (`servers`), the AI apps' connections
//! (`connections`), consent prompts (`prompts`: how a chosen folder is
//! asked about and an answer shared), when a server that failed is started
//! again (`restarts`), secrets, offers, the AI apps' files and suggestions,
//! the desktop's questions (`questions`) and other notifications (`notes`),
//! and the window's Settings (`preferences`: pause, Start at login). What
//! other processes save in the settings file is followed in
//! `settings_watch`. Their public types are re-exported here.
//!
//! It does not open dialogs or windows (the shell does, and hands over the
//! path the person picked), does not hold UI text beyond error, warning and
//! status messages, and never takes a path from the webview: the only ways
//! in are [`Supervisor::prompt_for_path`] (and
//! [`Supervisor::prompts_for_paths`], for several at once), called by the
//! shell with paths from the native picker, a drop on the window or the
//! command line, and [`Supervisor::prompt_for_root`], which re-checks a
//! root already kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use serde::Serialize;
use thiserror::Error;
use tokio::sync::broadcast;

use rootgate_bridge::connections::{ConnectionView, Connections};
use rootgate_model::folders::FolderError;
use rootgate_model::ids::{ConnectionId, ServerId};
use rootgate_model::servers::ServerSpec;
use rootgate_model::settings::{Recovery, SettingsFile};
use rootgate_model::store::{Store, StoreError};
use rootgate_model::timeline::{Entry, Timeline};
use rootgate_session::delivery::DeliverySummary;
use rootgate_session::notices::OfferKind;
use rootgate_session::{
    Delivery, Following, LogLine, Session, SessionConfig, SessionError, Status,
};

mod answers;
mod apps;
mod audit;
mod connections;
mod folders;
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
mod settings_watch;
mod suggestions;
mod tool_asks;

pub use answers::QuestionView;
pub use apps::{ImportOutcome, PlanView};
pub use folders::FolderView;
pub use install::{InstallOutcome, InstallView};
pub use preferences::PreferencesView;
pub use servers::{FolderChoice, ServerView};

pub use audit::Exported;
use prompts::OpenPrompts;
pub use prompts::{
    ConsentPrompt, Intake, PromptId, ROOTS_ARE_ADVICE, ServerChoice, Suggestion, WarningView,
};
use restarts::Restarts;
pub use restarts::{RestartPolicy, Retry};
pub use suggestions::{WaitingQuestion, app_title};
pub use tool_asks::ToolQuestion;

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
    #[error("the command cannot be found: {0}")]
    CommandMissing(String),
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

/// Everything Rootgate is doing, behind the app's commands.
pub struct Supervisor {
    me: Weak<Supervisor>,
    /// The runtime the supervisor was opened on: sessions and timers are
    /// spawned there even when a method is called from a thread outside it
    /// (the app's synchronous commands run on the UI thread).
    runtime: tokio::runtime::Handle,
    store: Arc<Store>,
    timeline: Arc<Timeline>,
    config: SessionConfig,
    restart_policy: RestartPolicy,
    restarts: Mutex<HashMap<ServerId, Restarts>>,
    recovery: Option<Recovery>,
    home: Option<PathBuf>,
    sessions: Mutex<HashMap<ServerId, Session>>,
    prompts: Mutex<OpenPrompts>,
    changes: broadcast::Sender<Change>,
    /// AI apps' connections through bridges, as they report them.
    connections: Arc<Connections>,
    /// Rewrites of AI apps' configs shown and not yet written.
    plans: Mutex<apps::OpenPlans>,
    /// Published servers shown for installing and not yet installed.
    install_offers: Mutex<install::OpenInstalls>,
    /// Servers edited while running whose new command is not approved yet:
    /// each keeps running its approved command until the new one is.
    awaiting_approval: Mutex<std::collections::HashSet<ServerId>>,
    /// The newest timeline entry saved for the next launch.
    timeline_saved: Mutex<Option<u64>>,
    /// The window's calls in flight, by the number it gave each, to cancel.
    calls: Mutex<HashMap<u32, tokio_util::sync::CancellationToken>>,
    /// Questions asked on the desktop when an AI app needs a folder.
    asking: questions::Asking,
    /// The other desktop notifications sent, so each is sent once.
    notes: notes::Noted,
    /// AI apps' tool calls that wait for the person's answer.
    tool_asking: tool_asks::ToolAsking,
    /// Grows whenever a consent prompt opens or closes: the tray's cue to
    /// list the questions waiting again.
    prompts_revision: tokio::sync::watch::Sender<u64>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section here leaves its map whole, so a poisoned lock
    // is safe to keep using.
    m.lock().unwrap_or_else(|p| p.into_inner())
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
            && let Err(e) = rootgate_model::secrets::service::record_bus(dir)
        {
            eprintln!(
                "rootgate: where the session bus is could not be recorded in {} ({e}); \
                 servers started through `rootgate connect` may not reach the keyring",
                dir.display()
            );
        }
        let home = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
        let runtime = tokio::runtime::Handle::current();
        let settings_path = store.file().path().to_path_buf();
        let supervisor = Arc::new_cyclic(|me| Supervisor {
            me: me.clone(),
            runtime,
            store: Arc::new(store),
            timeline: Arc::new(Timeline::default()),
            config,
            restart_policy,
            restarts: Mutex::new(HashMap::new()),
            recovery,
            home,
            sessions: Mutex::new(HashMap::new()),
            prompts: Mutex::new(OpenPrompts::default()),
            changes: broadcast::Sender::new(4096),
            connections: Arc::new(Connections::default()),
            plans: Mutex::new(apps::OpenPlans::default()),
            install_offers: Mutex::new(install::OpenInstalls::default()),
            awaiting_approval: Mutex::new(std::collections::HashSet::new()),
            timeline_saved: Mutex::new(None),
            calls: Mutex::new(HashMap::new()),
            asking: questions::Asking::beside(&settings_path),
            notes: notes::Noted::default(),
            tool_asking: tool_asks::ToolAsking::default(),
            prompts_revision: tokio::sync::watch::Sender::new(0),
        });
        let servers: Vec<ServerId> = supervisor
            .store
            .snapshot()
            .servers
            .into_iter()
            .map(|s| s.id)
            .collect();
        supervisor.timeline.restore(kept_timeline::load(
            supervisor.store.file().path(),
            &servers,
        ));
        *lock(&supervisor.timeline_saved) = supervisor.timeline.newest(1).last().map(|e| e.seq);
        supervisor.keep_timeline();
        supervisor.check_availability();
        rootgate_model::monitor::spawn(Arc::clone(&supervisor.store));
        for spec in supervisor.store.snapshot().servers {
            supervisor.ensure_session(&spec)?;
        }
        supervisor.forward_revisions();
        supervisor.follow_settings();
        supervisor.move_secrets_from_before();
        supervisor.prune_calls();
        Ok(supervisor)
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    pub fn timeline(&self) -> &Arc<Timeline> {
        &self.timeline
    }

    /// What happened to a settings file that could not be trusted, if
    /// anything, for a banner.
    pub fn recovery(&self) -> Option<&Recovery> {
        self.recovery.as_ref()
    }

    pub fn settings_path(&self) -> &Path {
        self.store.file().path()
    }

    /// Changes as they happen.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.changes.subscribe()
    }

    /// A counter that grows whenever a consent prompt opens or closes, or
    /// a tool call starts or stops waiting (the tray lists what waits again).
    pub fn subscribe_prompts(&self) -> tokio::sync::watch::Receiver<u64> {
        self.prompts_revision.subscribe()
    }

    fn prompts_changed_for_tray(&self) {
        self.prompts_revision.send_modify(|r| *r += 1);
    }

    /// Marks each root available or not by checking it again, and notes a
    /// root whose folder now resolves elsewhere as unavailable (its grants
    /// were for the old real path).
    pub fn check_availability(&self) {
        let mounts = rootgate_model::mounts::MountTable::read();
        for root in self.store.snapshot().roots {
            let _ = self.store.set_available(
                &root.id,
                rootgate_model::monitor::is_available(&root, &mounts),
            );
        }
    }

    fn forward_revisions(self: &Arc<Self>) {
        let mut revisions = self.store.subscribe_revision();
        let changes = self.changes.clone();
        tokio::spawn(async move {
            while revisions.changed().await.is_ok() {
                let revision = *revisions.borrow_and_update();
                let _ = changes.send(Change::Settings { revision });
            }
        });
    }

    /// The session of `spec`, made (idle) if it does not exist yet, with
    /// its status and stderr forwarded as changes.
    fn ensure_session(&self, spec: &ServerSpec) -> Result<Session, SupervisorError> {
        let _runtime = self.runtime.enter();
        let mut sessions = lock(&self.sessions);
        if let Some(session) = sessions.get(&spec.id) {
            return Ok(session.clone());
        }
        let session = Session::spawn_with_secrets(
            spec.id.clone(),
            self.store.subscribe(&spec.id)?,
            Arc::clone(&self.timeline),
            self.config,
            Arc::clone(self.store.secrets()),
        );
        let mut status = session.subscribe_status();
        let mut delivery = session.subscribe_delivery();
        let mut log = session.stderr().subscribe();
        let mut notices = session.subscribe_notices();
        let changes = self.changes.clone();
        let server = spec.id.clone();
        let me = self.me.clone();
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    changed = status.changed() => {
                        if changed.is_err() { break; }
                        let status = status.borrow_and_update().clone();
                        if let Some(supervisor) = me.upgrade() {
                            supervisor.remember_era(&server, &status);
                            supervisor.on_status(&server, &status);
                        }
                        let _ = changes.send(Change::Status { server: server.clone(), status });
                    }
                    changed = delivery.changed() => {
                        if changed.is_err() { break; }
                        let now = delivery.borrow_and_update().clone();
                        if let Some(supervisor) = me.upgrade() {
                            supervisor.on_delivery(&server, &now);
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
                            if let Some(change) = offers::change_of(&server, notice) {
                                let _ = changes.send(change);
                            }
                        }
                        Err(broadcast::error::RecvError::Lagged(_)) => {}
                        Err(broadcast::error::RecvError::Closed) => break,
                    },
                }
            }
        });
        sessions.insert(spec.id.clone(), session.clone());
        Ok(session)
    }

    /// Remembers, in the settings, a server seen not to follow changes, so
    /// that it is shown and its withdrawals are applied by restart from its
    /// next launch on too.
    fn on_delivery(&self, id: &ServerId, delivery: &Delivery) {
        if delivery.following == Following::Ignores
            && let Err(e) = self.store.set_ignores_list_changed(id, true)
        {
            tracing::warn!("could not remember that {id} ignores list_changed: {e}");
        }
    }

    /// Remembers, in the settings, the era a server's start found, so that
    /// its later starts need not find out; forgets it when a start fails, so
    /// that the next start finds out again (the spec's "re-probe if the cached
    /// assumption later fails"). A forced era is the person's and is left
    /// alone.
    fn remember_era(&self, id: &ServerId, status: &Status) {
        let Ok(spec) = self.store.server(id) else {
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
        if let Err(e) = self.store.set_seen_era(id, seen) {
            tracing::warn!("could not remember the era of {id}: {e}");
        }
    }

    /// A bridge found the era of a server whose era was not known yet: the
    /// window, the one writer of the settings, remembers what it found, so
    /// that the next bridge (and the window's own session) need not ask.
    fn remember_bridged_era(&self, entry: &Entry) {
        let rootgate_model::timeline::Event::EraFound { era, .. } = entry.event else {
            return;
        };
        let Ok(spec) = self.store.server(&entry.server) else {
            return;
        };
        if spec.known_era().is_none()
            && let Err(e) = self.store.set_seen_era(&entry.server, Some(era))
        {
            tracing::warn!("could not remember the era of {}: {e}", entry.server);
        }
    }

    fn session(&self, id: &ServerId) -> Result<Session, SupervisorError> {
        let spec = self.store.server(id)?;
        self.ensure_session(&spec)
    }
}
