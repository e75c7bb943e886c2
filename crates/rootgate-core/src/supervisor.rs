//! The supervisor: everything the app can ask of Rootgate, in one place that
//! runs without a window.
//!
//! It owns the store, the timeline and one session per configured server,
//! and turns a person's acts into core calls: a chosen folder becomes a
//! consent prompt, an answered prompt becomes a root and exact grants, an
//! approved command line lets a server start. Each desktop command is one
//! line into a method here, so the commands' logic is tested headless.
//!
//! This file holds the supervisor itself and its servers' lifecycle:
//! opening, one session per server with its changes forwarded, the folder
//! and server lists, start, stop, edit and removal. Consent prompts (how a
//! chosen folder is asked about and an answer shared) are in `prompts`;
//! when a server that failed is started again is the business of
//! `restarts`. Both are re-exported here.
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

use rootgate_bridge::connections::{ConnectionChange, ConnectionView, Connections};
use rootgate_model::consent::SharedRoots;
use rootgate_model::folders::FolderError;
use rootgate_model::ids::{ConnectionId, RootId, ServerId};
use rootgate_model::roots::Root;
use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_model::settings::{Recovery, SettingsFile};
use rootgate_model::store::{Store, StoreError};
use rootgate_model::timeline::{Entry, Page, Timeline};
use rootgate_session::delivery::{DeliverySummary, FolderDelivery};
use rootgate_session::notices::OfferKind;
use rootgate_session::{
    Delivery, Following, LogLine, Session, SessionConfig, SessionError, Status,
};

mod apps;
mod kept_timeline;
mod offers;
mod prompts;
mod questions;
mod restarts;
mod secrets;
mod suggestions;

pub use apps::{ImportOutcome, PlanView};

use prompts::OpenPrompts;
pub use prompts::{
    ConsentPrompt, Intake, PromptId, ROOTS_ARE_ADVICE, ServerChoice, Suggestion, WarningView,
};
use restarts::Restarts;
pub use restarts::{RestartPolicy, Retry};
pub use suggestions::app_title;

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
    #[error("this change was already written or dropped; look at the app again")]
    UnknownPlan,
    #[error("the command cannot be found: {0}")]
    CommandMissing(String),
    #[error("there is no home folder (HOME is not set), so AI apps' configs cannot be found")]
    NoHome,
}

/// A kept folder, as the folder list shows it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderView {
    #[serde(flatten)]
    pub root: Root,
    pub available: bool,
    /// The servers that have a grant for it.
    pub servers: Vec<ServerId>,
}

/// A configured server, as the server list shows it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerView {
    #[serde(flatten)]
    pub spec: ServerSpec,
    pub command_line: String,
    pub approved: bool,
    pub status: Status,
    /// Where the server stands with its folders.
    pub delivery: DeliverySummary,
    /// Whether it takes folders as arguments (`${folders}` and the like),
    /// besides being told them as roots.
    pub folders_as_arguments: bool,
    /// Its command line with the folders shared now filled in (environment
    /// values hidden), when it takes folders as arguments and they are there.
    pub resolved_command_line: Option<String>,
    /// What it waits for, when it takes folders as arguments that are not
    /// there.
    pub waits_for: Option<String>,
    /// The package its command fetches at start (npx, uvx, …), and whether
    /// that version is pinned, for the approval dialog to say.
    pub downloads: Option<rootgate_model::downloads::Download>,
    /// The restart scheduled after a failure, if one is: the server is
    /// not failed for good, and the window says when it starts again.
    pub retry: Option<Retry>,
    /// Why some of its secrets are not in the keyring, in the keyring's
    /// words, while they wait for the person to choose where they go (see
    /// `SecretPlace`): in the settings file, or not stored.
    pub keyring_problem: Option<String>,
    /// Its secrets whose values Rootgate does not have (not stored, and
    /// Rootgate has started again since): it cannot start until they are
    /// given again.
    pub missing_secrets: Vec<String>,
}

/// Refuses a server whose command is not there, when it is saved rather
/// than after it was approved and started: the person is at the form, and
/// can fix a typo or install the program. A command given by its path is
/// looked for there; a bare name on the PATH the server will get.
fn command_exists(draft: &ServerDraft) -> Result<(), SupervisorError> {
    let command = draft.command.trim();
    if command.is_empty() || command.contains("${") {
        // Validation says what is wrong with an empty one; a placeholder is
        // filled at start.
        return Ok(());
    }
    let path = draft
        .env
        .get("PATH")
        .map(std::ffi::OsString::from)
        .or_else(|| std::env::var_os("PATH"));
    if rootgate_launcher::enforcement::resolve_command(
        command,
        path.as_deref(),
        draft.cwd.as_deref(),
    )
    .is_some()
    {
        return Ok(());
    }
    Err(SupervisorError::CommandMissing(if command.contains('/') {
        format!("there is no program at {command}")
    } else {
        format!("`{command}` is not installed, or not on the PATH servers get")
    }))
}

/// A kept folder in a server's checklist.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderChoice {
    #[serde(flatten)]
    pub root: Root,
    /// Whether this server may see it now.
    pub granted: bool,
    pub available: bool,
    pub warnings: Vec<WarningView>,
}

/// Something that changed, for the app to show without polling.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    /// Servers edited while running whose new command is not approved yet:
    /// each keeps running its approved command until the new one is.
    awaiting_approval: Mutex<std::collections::HashSet<ServerId>>,
    /// The newest timeline entry saved for the next launch.
    timeline_saved: Mutex<Option<u64>>,
    /// The window's calls in flight, by the number it gave each, to cancel.
    calls: Mutex<HashMap<u32, tokio_util::sync::CancellationToken>>,
    /// Questions asked on the desktop when an AI app needs a folder.
    asking: questions::Asking,
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
            awaiting_approval: Mutex::new(std::collections::HashSet::new()),
            timeline_saved: Mutex::new(None),
            calls: Mutex::new(HashMap::new()),
            asking: questions::Asking::beside(&settings_path),
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
        if let Err(e) = rootgate_model::monitor::spawn(Arc::clone(&supervisor.store)) {
            // Without events, availability is still checked at every start
            // and when a folder is chosen again; say so in the log.
            tracing::warn!("folders will not be watched for changes: {e}");
        }
        for spec in supervisor.store.snapshot().servers {
            supervisor.ensure_session(&spec)?;
        }
        supervisor.forward_revisions();
        supervisor.move_secrets_from_before();
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

    // ----- folders -------------------------------------------------------

    fn folder(&self, id: &RootId) -> Result<FolderView, SupervisorError> {
        self.folders()
            .into_iter()
            .find(|f| &f.root.id == id)
            .ok_or_else(|| StoreError::UnknownRoot(id.clone()).into())
    }

    /// Every kept folder with its availability and the servers that see it.
    pub fn folders(&self) -> Vec<FolderView> {
        let settings = self.store.snapshot();
        let mut by_root: HashMap<&RootId, Vec<ServerId>> = HashMap::new();
        for g in &settings.grants {
            by_root.entry(&g.root).or_default().push(g.server.clone());
        }
        settings
            .roots
            .iter()
            .map(|root| FolderView {
                available: self.store.is_available(&root.id),
                servers: by_root.get(&root.id).cloned().unwrap_or_default(),
                root: root.clone(),
            })
            .collect()
    }

    pub fn rename_folder(&self, id: &RootId, name: &str) -> Result<FolderView, SupervisorError> {
        self.store.rename_root(id, name)?;
        self.folder(id)
    }

    /// Removes a folder; it is withdrawn from every server at once.
    pub fn remove_folder(&self, id: &RootId) -> Result<(), SupervisorError> {
        Ok(self.store.remove_root(id)?)
    }

    /// Withdraws one folder from one server. Withdrawing needs no prompt.
    pub fn revoke(&self, server: &ServerId, root: &RootId) -> Result<(), SupervisorError> {
        Ok(self.store.revoke(server, root)?)
    }

    // ----- servers ---------------------------------------------------------

    fn view(&self, spec: ServerSpec) -> ServerView {
        let (status, delivery) = lock(&self.sessions)
            .get(&spec.id)
            .map(|s| (s.status(), s.delivery()))
            .unwrap_or_else(|| (Status::Stopped { last_exit: None }, Delivery::default()));
        let mut delivery = delivery.summary();
        if spec.ignores_list_changed {
            delivery.following = Following::Ignores;
        }
        let folders_as_arguments = rootgate_model::placeholders::has_placeholders(&spec);
        let (resolved_command_line, waits_for) = if folders_as_arguments {
            let shared = self
                .store
                .shared_with(&spec.id)
                .unwrap_or_else(|_| SharedRoots::empty());
            match rootgate_model::placeholders::expand(&spec, shared.roots()) {
                Ok(expanded) => {
                    let mut filled = spec.clone();
                    filled.args = expanded.args;
                    filled.env = expanded.env;
                    filled.cwd = expanded.cwd;
                    (Some(filled.masked_command_line()), None)
                }
                Err(e) => (None, Some(e.to_string())),
            }
        } else {
            (None, None)
        };
        ServerView {
            command_line: spec.command_line(),
            approved: spec.is_approved(),
            downloads: rootgate_model::downloads::of(&spec.command, &spec.args),
            retry: self.retry_of(&spec.id),
            keyring_problem: self.store.secrets().problem(&spec),
            missing_secrets: self.store.secrets().missing(&spec),
            status,
            delivery,
            folders_as_arguments,
            resolved_command_line,
            waits_for,
            // The window is never sent a secret's value, only shown one the
            // person asks to reveal.
            spec: spec.without_secret_values(),
        }
    }

    /// Every kept folder, for the server's own checklist: whether this
    /// server may see it, whether it is there now, and the warnings a
    /// consent prompt would show for it.
    pub fn folder_choices(&self, id: &ServerId) -> Result<Vec<FolderChoice>, SupervisorError> {
        let settings = self.store.snapshot();
        settings
            .servers
            .iter()
            .find(|s| &s.id == id)
            .ok_or_else(|| StoreError::UnknownServer(id.clone()))?;
        Ok(settings
            .roots
            .iter()
            .map(|root| {
                let others = settings
                    .roots
                    .iter()
                    .filter(|r| r.id != root.id)
                    .map(|r| r.real_path.as_path());
                let warnings = rootgate_model::folders::check(&root.chosen_path)
                    .map(|folder| {
                        rootgate_model::folders::warnings(&folder, self.home.as_deref(), others)
                    })
                    .unwrap_or_default()
                    .into_iter()
                    .map(|warning| WarningView {
                        message: warning.message(),
                        warning,
                    })
                    .collect();
                FolderChoice {
                    granted: settings
                        .grants
                        .iter()
                        .any(|g| &g.server == id && g.root == root.id),
                    available: self.store.is_available(&root.id),
                    root: root.clone(),
                    warnings,
                }
            })
            .collect())
    }

    /// The person's checklist answer: `server` may see exactly `roots`, in
    /// one change. Each folder newly given is checked again first, as a
    /// consent prompt's answer is: one that now leads elsewhere is not
    /// shared, and nothing changes.
    pub fn set_server_folders(
        &self,
        id: &ServerId,
        roots: &[RootId],
    ) -> Result<ServerView, SupervisorError> {
        let settings = self.store.snapshot();
        for root_id in roots {
            let root = settings
                .roots
                .iter()
                .find(|r| &r.id == root_id)
                .ok_or_else(|| StoreError::UnknownRoot(root_id.clone()))?;
            let granted = settings
                .grants
                .iter()
                .any(|g| &g.server == id && &g.root == root_id);
            if !granted {
                let now = rootgate_model::folders::check(&root.chosen_path)?;
                if now.real() != root.real_path {
                    return Err(SupervisorError::FolderMoved {
                        shown: root.real_path.clone(),
                        now: now.real().to_path_buf(),
                    });
                }
            }
        }
        self.store
            .set_server_roots(std::slice::from_ref(id), roots)?;
        self.server(id)
    }

    /// Each folder a server is granted or may still hold, and where it
    /// stands with the server.
    pub fn server_folders(&self, id: &ServerId) -> Result<Vec<FolderDelivery>, SupervisorError> {
        Ok(self.session(id)?.delivery().folders())
    }

    /// Forgets that a server was seen not to follow changes: its
    /// withdrawals are told again, and it is watched afresh.
    pub fn forget_following(&self, id: &ServerId) -> Result<ServerView, SupervisorError> {
        self.store.set_ignores_list_changed(id, false)?;
        self.session(id)?.forget_following();
        self.server(id)
    }

    pub fn servers(&self) -> Vec<ServerView> {
        self.store
            .snapshot()
            .servers
            .into_iter()
            .map(|s| self.view(s))
            .collect()
    }

    pub fn server(&self, id: &ServerId) -> Result<ServerView, SupervisorError> {
        Ok(self.view(self.store.server(id)?))
    }

    /// Adds a server. It does not start until its command is approved.
    pub fn add_server(&self, draft: ServerDraft) -> Result<ServerView, SupervisorError> {
        command_exists(&draft)?;
        let spec = self.store.add_server(draft)?;
        self.ensure_session(&spec)?;
        Ok(self.view(spec))
    }

    /// Changes a server. A running server is restarted with the new spec
    /// if its command is still approved; if it is not, it keeps running the
    /// command that was approved (its session holds that spec) until the
    /// person approves the new one, which then restarts it.
    pub async fn update_server(
        &self,
        id: &ServerId,
        draft: ServerDraft,
    ) -> Result<ServerView, SupervisorError> {
        let before = self.store.server(id)?;
        if draft.command != before.command || draft.cwd != before.cwd {
            command_exists(&draft)?;
        }
        let spec = self.store.update_server(id, draft)?;
        let session = self.ensure_session(&spec)?;
        let running = !matches!(
            session.status(),
            Status::Stopped { .. } | Status::Failed { .. }
        );
        // A secret given a new value: the running process has the old one.
        let rotated = self.store.secrets().take_rotated(id);
        let process_changed = rotated
            || before.command_line() != spec.command_line()
            || before.cwd != spec.cwd
            || before.withdrawal != spec.withdrawal
            || before.enforce_roots != spec.enforce_roots
            || before.era != spec.era;
        if running && process_changed {
            if spec.is_approved() {
                lock(&self.awaiting_approval).remove(id);
                session.restart(Some(spec.clone()));
            } else {
                lock(&self.awaiting_approval).insert(id.clone());
            }
        }
        Ok(self.view(spec))
    }

    /// Records the person's approval of the exact command line shown.
    pub fn approve_command(
        &self,
        id: &ServerId,
        command_line: &str,
    ) -> Result<ServerView, SupervisorError> {
        let spec = self.store.approve_command(id, command_line)?;
        // A server that kept running its earlier approved command while the
        // edited one waited for approval now runs the new one.
        let waited = lock(&self.awaiting_approval).remove(id);
        if waited && let Some(session) = lock(&self.sessions).get(id).cloned() {
            session.restart(Some(spec.clone()));
        }
        Ok(self.view(spec))
    }

    /// Stops and removes a server; every grant to it goes with it.
    pub async fn remove_server(&self, id: &ServerId) -> Result<(), SupervisorError> {
        self.store.server(id)?;
        self.forget_restarts(id);
        let session = lock(&self.sessions).remove(id);
        if let Some(session) = session {
            session.shutdown().await;
        }
        self.store.remove_server(id)?;
        self.timeline.forget(id);
        Ok(())
    }

    fn approved(&self, id: &ServerId) -> Result<ServerSpec, SupervisorError> {
        let spec = self.store.server(id)?;
        if spec.is_approved() {
            Ok(spec)
        } else {
            // Masked: an error reaches logs and the window's toasts, and
            // the environment is where API keys live.
            Err(SupervisorError::NeedsApproval {
                command_line: spec.masked_command_line(),
            })
        }
    }

    /// Starts a server whose command is approved.
    pub fn start(&self, id: &ServerId) -> Result<(), SupervisorError> {
        let spec = self.approved(id)?;
        self.take_over(id);
        // The person started it: Rootgate's giving up is over.
        self.store.set_gave_up(id, false)?;
        self.session(id)?.start(spec);
        Ok(())
    }

    pub fn restart(&self, id: &ServerId) -> Result<(), SupervisorError> {
        let spec = self.approved(id)?;
        self.take_over(id);
        self.session(id)?.restart(Some(spec));
        Ok(())
    }

    /// Stops a server and waits until its process has exited.
    pub async fn stop(&self, id: &ServerId) -> Result<(), SupervisorError> {
        self.take_over(id);
        self.session(id)?.stop().await;
        Ok(())
    }

    /// Starts every enabled server whose command is approved; the others
    /// wait for the person. Called once, when the app's window shows its
    /// content; it returns at once and never delays the window.
    pub fn start_enabled(&self) {
        for spec in self.store.snapshot().servers {
            if spec.enabled
                && spec.is_approved()
                && !spec.gave_up
                // A secret not stored waits to be given again: starting
                // without it would only fail, and be retried.
                && self.store.secrets().missing(&spec).is_empty()
                && let Ok(session) = self.ensure_session(&spec)
            {
                session.start(spec);
            }
        }
    }

    /// Stops every server and waits until all have exited.
    pub async fn shutdown(&self) {
        self.cancel_restarts();
        let sessions: Vec<Session> = lock(&self.sessions).values().cloned().collect();
        // In parallel: shutting down many servers takes as long as the
        // slowest one, not the sum.
        let waits: Vec<_> = sessions
            .into_iter()
            .map(|s| tokio::spawn(async move { s.shutdown().await }))
            .collect();
        for wait in waits {
            let _ = wait.await;
        }
        // Kept with the stops in it: the next launch shows what happened
        // last, up to the end.
        self.save_timeline();
    }

    /// A server's timeline, oldest first.
    pub fn timeline_of(&self, id: &ServerId) -> Vec<Entry> {
        self.timeline.for_server(id)
    }

    /// Up to `limit` of a server's newest entries older than `before`, and
    /// how many older ones remain: how the window loads a long timeline.
    pub fn timeline_page(&self, id: &ServerId, before: Option<u64>, limit: usize) -> Page {
        self.timeline.page(id, before, limit)
    }

    /// Every server's timeline merged, oldest first.
    pub fn activity(&self) -> Vec<Entry> {
        self.timeline.all()
    }

    /// A server's stderr lines kept, oldest first.
    pub fn log_of(&self, id: &ServerId) -> Result<Vec<LogLine>, SupervisorError> {
        Ok(self.session(id)?.stderr().lines())
    }

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
                Change::Connection { connection }
            }
            ConnectionChange::Entry { connection, entry } => {
                self.remember_bridged_era(&entry);
                Change::ConnectionEntry { connection, entry }
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

    /// The session of a server, for calls the app does not wrap (tests).
    pub fn session_of(&self, id: &ServerId) -> Result<Session, SupervisorError> {
        self.session(id)
    }
}
