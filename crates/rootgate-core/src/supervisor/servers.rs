//! The servers ([`Servers`]): the server list ([`ServerView`]) and a
//! server's checklist of folders ([`FolderChoice`]); adding, editing,
//! approving and removing a server; starting, restarting and stopping one
//! and all; and what the window reads of one (its timeline and its log).
//!
//! Not here: the session each server runs in and how its changes are
//! forwarded (`sessions`), when a failed server is started again
//! (`restarts`), its secrets' values (`secrets`) and the AI apps' bridges
//! to it (`connections`).

use std::path::Path;

use rootgate_sources::bundle;
use rootgate_sources::installed::Installs;
use serde::Serialize;

use super::sessions::Servers;
use super::{Retry, SupervisorError, WarningView, lock};
use rootgate_model::consent::SharedRoots;
use rootgate_model::ids::{RootId, ServerId};
use rootgate_model::roots::Root;
use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_model::store::StoreError;
use rootgate_model::timeline::{Entry, Page};
use rootgate_session::delivery::{DeliverySummary, FolderDelivery};
use rootgate_session::{Delivery, Following, LogLine, Session, Status};

/// A configured server, as the server list shows it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
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

/// What the other services need of the servers, and all they are handed
/// of them: a server as the window shows it, and its session (made, idle,
/// if it has none yet).
pub(crate) trait ServerHandle: Send + Sync {
    /// A server as the window shows it.
    fn server(&self, id: &ServerId) -> Result<ServerView, SupervisorError>;
    /// The session of `spec`, made if it has none yet.
    fn ensure_session(&self, spec: &ServerSpec) -> Result<Session, SupervisorError>;
    /// The session of a configured server, made if it has none yet.
    fn session(&self, id: &ServerId) -> Result<Session, SupervisorError>;
}

impl ServerHandle for Servers {
    fn server(&self, id: &ServerId) -> Result<ServerView, SupervisorError> {
        Servers::server(self, id)
    }

    fn ensure_session(&self, spec: &ServerSpec) -> Result<Session, SupervisorError> {
        Servers::ensure_session(self, spec)
    }

    fn session(&self, id: &ServerId) -> Result<Session, SupervisorError> {
        Servers::session(self, id)
    }
}

/// A kept folder in a server's checklist.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderChoice {
    #[serde(flatten)]
    pub root: Root,
    /// Whether this server may see it now.
    pub granted: bool,
    pub available: bool,
    pub warnings: Vec<WarningView>,
}

impl Servers {
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
                .ground
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
            retry: self.restarting.retry_of(&spec.id),
            keyring_problem: self.ground.store.secrets().problem(&spec),
            missing_secrets: self.ground.store.secrets().missing(&spec),
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
        let settings = self.ground.store.snapshot();
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
                        rootgate_model::folders::warnings(
                            &folder,
                            self.ground.home.as_deref(),
                            others,
                        )
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
                    available: self.ground.store.is_available(&root.id),
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
        let settings = self.ground.store.snapshot();
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
        self.ground
            .store
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
        self.ground.store.set_ignores_list_changed(id, false)?;
        self.session(id)?.forget_following();
        self.server(id)
    }

    pub fn list(&self) -> Vec<ServerView> {
        self.ground
            .store
            .snapshot()
            .servers
            .into_iter()
            .map(|s| self.view(s))
            .collect()
    }

    pub fn server(&self, id: &ServerId) -> Result<ServerView, SupervisorError> {
        Ok(self.view(self.ground.store.server(id)?))
    }

    /// Adds a server. It does not start until its command is approved.
    pub fn add_server(&self, draft: ServerDraft) -> Result<ServerView, SupervisorError> {
        command_exists(&draft)?;
        let spec = self.ground.store.add_server(draft)?;
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
        let before = self.ground.store.server(id)?;
        if draft.command != before.command || draft.cwd != before.cwd {
            command_exists(&draft)?;
        }
        let spec = self.ground.store.update_server(id, draft)?;
        let session = self.ensure_session(&spec)?;
        let running = !matches!(
            session.status(),
            Status::Stopped { .. } | Status::Failed { .. }
        );
        // A secret given a new value: the running process has the old one.
        let rotated = self.ground.store.secrets().take_rotated(id);
        let process_changed = rotated
            || before.command_line() != spec.command_line()
            || before.cwd != spec.cwd
            || before.withdrawal != spec.withdrawal
            || before.enforce_roots != spec.enforce_roots
            // A held server's network is its sandbox's: only a new one
            // changes it.
            || (spec.enforce_roots && before.allow_network != spec.allow_network)
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
        let spec = self.ground.store.approve_command(id, command_line)?;
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
        self.ground.store.server(id)?;
        self.restarting.forget_restarts(id);
        let session = lock(&self.sessions).remove(id);
        if let Some(session) = session {
            session.shutdown().await;
        }
        self.ground.store.remove_server(id)?;
        self.ground.timeline.forget(id);
        forget_install(self.ground.settings_path(), id);
        Ok(())
    }

    fn approved(&self, id: &ServerId) -> Result<ServerSpec, SupervisorError> {
        let spec = self.ground.store.server(id)?;
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
        self.restarting.take_over(id);
        // The person started it: Rootgate's giving up is over.
        self.ground.store.set_gave_up(id, false)?;
        self.session(id)?.start(spec);
        Ok(())
    }

    pub fn restart(&self, id: &ServerId) -> Result<(), SupervisorError> {
        let spec = self.approved(id)?;
        self.restarting.take_over(id);
        self.session(id)?.restart(Some(spec));
        Ok(())
    }

    /// Stops a server and waits until its process has exited.
    pub async fn stop(&self, id: &ServerId) -> Result<(), SupervisorError> {
        self.restarting.take_over(id);
        self.session(id)?.stop().await;
        Ok(())
    }

    /// Starts every enabled server whose command is approved; the others
    /// wait for the person. Called once, when the app's window shows its
    /// content; it returns at once and never delays the window.
    pub fn start_enabled(&self) {
        for spec in self.ground.store.snapshot().servers {
            if spec.enabled
                && spec.is_approved()
                && !spec.gave_up
                // A secret not stored waits to be given again: starting
                // without it would only fail, and be retried.
                && self.ground.store.secrets().missing(&spec).is_empty()
                && let Ok(session) = self.ensure_session(&spec)
            {
                session.start(spec);
            }
        }
    }

    /// Stops every server and waits until all have exited.
    pub async fn shutdown(&self) {
        self.restarting.cancel_restarts();
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
        self.kept.save();
    }

    /// A server's timeline, oldest first.
    pub fn timeline_of(&self, id: &ServerId) -> Vec<Entry> {
        self.ground.timeline.for_server(id)
    }

    /// Up to `limit` of a server's newest entries older than `before`, and
    /// how many older ones remain: how the window loads a long timeline.
    pub fn timeline_page(&self, id: &ServerId, before: Option<u64>, limit: usize) -> Page {
        self.ground.timeline.page(id, before, limit)
    }

    /// Every server's timeline merged, oldest first.
    pub fn activity(&self) -> Vec<Entry> {
        self.ground.timeline.all()
    }

    /// A server's stderr lines kept, oldest first.
    pub fn log_of(&self, id: &ServerId) -> Result<Vec<LogLine>, SupervisorError> {
        Ok(self.session(id)?.stderr().lines())
    }

    /// The person's "Stop retrying": the scheduled restart is cancelled and
    /// the server waits for them, as if Rootgate had given up.
    pub fn stop_retrying(&self, id: &ServerId) -> Result<(), SupervisorError> {
        self.ground.store.server(id)?;
        self.restarting.take_over(id);
        self.ground.store.set_gave_up(id, true)?;
        Ok(())
    }

    /// The session of a server, for calls the app does not wrap (tests).
    pub fn session_of(&self, id: &ServerId) -> Result<Session, SupervisorError> {
        self.session(id)
    }
}

/// Forgets how `server` was installed, once it is removed, and removes
/// the bundle files it ran from, if it was installed from a bundle.
pub(super) fn forget_install(settings: &Path, server: &ServerId) {
    let files = match Installs::beside(settings).forget(server) {
        Ok(record) => record.and_then(|r| r.files),
        Err(e) => {
            tracing::warn!("{e}");
            None
        }
    };
    if let Some(files) = files
        && let Err(e) = bundle::remove_files(&files)
    {
        tracing::warn!("{e}");
    }
}
