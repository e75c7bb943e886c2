//! Consent prompts: what the person is asked before a folder is shared
//! ([`ConsentPrompt`]: the real path, its warnings, the servers to tick),
//! the prompts open and not yet answered, and how an answer becomes a kept
//! folder with exact grants. Also the intake of several folders chosen
//! together ([`Intake`]): a prompt for each that can be shared, a refusal in
//! plain words for each that cannot, one bad folder not losing the others.
//!
//! A prompt is opened only for a folder the person chose
//! ([`Consent::prompt_for_path`] and [`Consent::prompts_for_paths`],
//! with paths the shell got from the native picker, a drop on the window or
//! the command line) or for one already kept
//! ([`Consent::prompt_for_root`]); nothing here takes a path
//! from the webview, and an answer names a prompt, never a path. Not here:
//! what makes a folder acceptable and what deserves a warning
//! (`rootgate_model::folders`), keeping and sharing (the store), and the
//! folder list an answer returns (`folders`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use serde::{Deserialize, Serialize};

use super::folders::Folders;
use super::ground::{Ground, TrayCue};
use super::{FolderView, SupervisorError, lock};
use rootgate_bridge::connections::{ConnectionView, Connections};
use rootgate_model::folders::{self, CheckedFolder, Warning};
use rootgate_model::ids::{RootId, ServerId};
use rootgate_model::servers::ServerSpec;
use rootgate_model::store::StoreError;

/// What the app says about roots wherever it asks for consent. Roots are
/// advice to a server, not a sandbox, and a person deciding deserves to
/// know that.
pub const ROOTS_ARE_ADVICE: &str = "Sharing a folder tells a server where to work. It does not \
lock the server in: a server can still read anything your user account can.";

/// Identifies one open consent prompt. Unlike [`RootId`] and [`ServerId`]
/// it is neither random nor saved: a prompt lives only while the app runs,
/// so prompt ids count up from 1. In JSON (and TypeScript) it is a plain
/// number.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ts_rs::TS,
)]
#[serde(transparent)]
pub struct PromptId(u64);

impl PromptId {
    /// The number, as a menu item's id carries it.
    pub fn get(self) -> u64 {
        self.0
    }
}

impl From<u64> for PromptId {
    /// Wraps a prompt id received from the UI. An unknown id is harmless:
    /// answering or cancelling it finds no prompt.
    fn from(id: u64) -> Self {
        PromptId(id)
    }
}

/// A server the person can tick in a consent prompt.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerChoice {
    pub id: ServerId,
    pub name: String,
    /// Whether this server sees the folder now (always false for a new one).
    pub granted: bool,
    /// Ticked to start with because an AI app connected to this server
    /// works in the folder (a suggestion); the person still decides.
    pub suggested: bool,
    /// Whether the kernel holds this server to its folders (Landlock): for
    /// it, sharing is more than advice.
    pub enforced: bool,
    /// Whether sharing with it restarts it, if it runs: it is enforced (a
    /// new ruleset) or takes its folders as arguments.
    pub restarts: bool,
    /// The AI apps connected to it through Rootgate when the prompt opened
    /// (their product names where Rootgate knows them), so that taking the
    /// folder away says who is using the server now.
    pub connected: Vec<String>,
}

/// A warning with its words, for the prompt.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WarningView {
    #[serde(flatten)]
    pub warning: Warning,
    pub message: String,
}

/// What the person is asked before a folder is shared.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsentPrompt {
    pub id: PromptId,
    /// Set when the prompt changes access to a folder already kept.
    pub root: Option<RootId>,
    pub name: String,
    /// The canonical real path: what would be shared.
    pub real_path: PathBuf,
    /// The path as chosen, when a symlink or `..` led elsewhere.
    pub chosen_path: Option<PathBuf>,
    pub warnings: Vec<WarningView>,
    pub servers: Vec<ServerChoice>,
    pub note: String,
    /// Set when an AI app's own folder is suggested: which app, working
    /// through which server.
    pub suggestion: Option<Suggestion>,
}

/// Where a suggested folder came from.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    /// The app's name: its product's name for the apps Rootgate knows
    /// ("Claude Code" for `claude-code`), else as its `initialize` gave it.
    pub app: String,
    pub server: ServerId,
    pub server_name: String,
    /// Set when the folder was in the server's arguments in the app's own
    /// config, and the server was just imported from there; unset when the
    /// app reported working in it.
    pub imported: bool,
}

/// What became of folders the person chose together (one pick, one drop,
/// the folders on the command line): a prompt for each that can be shared
/// and, for each other one, why not. One folder that cannot be shared does
/// not lose the others.
#[derive(Debug)]
pub struct Intake {
    /// One open prompt per folder that can be shared, in the order chosen.
    pub prompts: Vec<ConsentPrompt>,
    /// Why each other folder cannot be shared, in the order chosen.
    pub refused: Vec<SupervisorError>,
}

impl Intake {
    /// The refusals in plain words, for notices beside the prompts.
    pub fn notices(&self) -> Vec<String> {
        self.refused.iter().map(ToString::to_string).collect()
    }

    /// The prompts, as a pick answers: when no folder could be offered and
    /// some were refused, the first refusal is the error; otherwise the
    /// prompts (none when nothing was chosen), and the refused folders go
    /// unsaid beside the ones offered.
    pub fn into_prompts(self) -> Result<Vec<ConsentPrompt>, SupervisorError> {
        match (self.prompts.is_empty(), self.refused.into_iter().next()) {
            (true, Some(first)) => Err(first),
            _ => Ok(self.prompts),
        }
    }
}

/// A prompt open and not yet answered: the folder as checked when it was
/// opened, and what the person was shown.
pub(super) struct PendingPrompt {
    pub(super) folder: CheckedFolder,
    root: Option<RootId>,
    pub(super) shown: ConsentPrompt,
}

/// The prompts open and not yet answered, by id. Ids count up from 1 and
/// are never reused while the supervisor lives.
pub(super) struct OpenPrompts {
    next: u64,
    pub(super) open: HashMap<PromptId, PendingPrompt>,
    /// The (server, real path) pairs suggested already while the app runs:
    /// a folder is suggested once, not at every reconnection.
    pub(super) suggested: HashSet<(ServerId, PathBuf)>,
}

impl Default for OpenPrompts {
    fn default() -> Self {
        OpenPrompts {
            next: 1,
            open: HashMap::new(),
            suggested: HashSet::new(),
        }
    }
}

impl OpenPrompts {
    fn next_id(&mut self) -> PromptId {
        let id = PromptId(self.next);
        self.next += 1;
        id
    }
}

/// Who hears of a prompt answered or dismissed: the questions, whose
/// suggestion prompts stand for a question (see `answers`). Owned here so
/// that consent names no service above it.
pub(crate) trait PromptListener: Send + Sync {
    /// The prompt was answered, sharing with `servers`.
    fn answered(&self, prompt: PromptId, servers: &[ServerId]);
    /// The person closed the prompt without an answer.
    fn dismissed(&self, prompt: PromptId);
}

/// Folders and consent: the prompts open, how each is answered, and the
/// AI apps' folders suggested for sharing.
pub struct Consent {
    pub(super) ground: Ground,
    pub(super) prompts: Mutex<OpenPrompts>,
    tray: TrayCue,
    /// AI apps' connections through bridges, for who uses each server.
    pub(super) connections: Arc<Connections>,
    folders: Arc<Folders>,
    listener: OnceLock<Weak<dyn PromptListener>>,
}

impl Consent {
    pub(super) fn new(
        ground: Ground,
        tray: TrayCue,
        connections: Arc<Connections>,
        folders: Arc<Folders>,
    ) -> Consent {
        Consent {
            ground,
            prompts: Mutex::new(OpenPrompts::default()),
            tray,
            connections,
            folders,
            listener: OnceLock::new(),
        }
    }

    /// Tells `listener` of each prompt answered or dismissed from now on.
    /// Called once, by the root that wires the services.
    pub(super) fn listen_with(&self, listener: Weak<dyn PromptListener>) {
        let _ = self.listener.set(listener);
    }

    fn listener(&self) -> Option<Arc<dyn PromptListener>> {
        self.listener.get().and_then(Weak::upgrade)
    }

    /// What prompt `prompt` shows, while it is open.
    pub(super) fn shown(&self, prompt: PromptId) -> Option<ConsentPrompt> {
        lock(&self.prompts)
            .open
            .get(&prompt)
            .map(|p| p.shown.clone())
    }

    /// Notes `folder` as suggested for `server` already while the app runs.
    pub(super) fn mark_suggested(&self, server: &ServerId, folder: &Path) {
        lock(&self.prompts)
            .suggested
            .insert((server.clone(), folder.to_path_buf()));
    }

    /// Checks a folder the person chose and returns the consent prompt for
    /// it: its real path, its warnings and every server, none ticked. The
    /// path must come from the person at the machine (picker, drop,
    /// command line), never from the webview.
    pub fn prompt_for_path(&self, chosen: &Path) -> Result<ConsentPrompt, SupervisorError> {
        let folder = folders::check(chosen)?;
        let existing = self.kept_at(&folder);
        Ok(self.open_prompt(folder, existing))
    }

    /// [`Consent::prompt_for_path`] for each of several folders the
    /// person chose together, keeping the prompts of those that can be
    /// shared and the refusals of the others (see [`Intake`]). The paths
    /// must come from the person at the machine, as for one.
    pub fn prompts_for_paths(&self, chosen: impl IntoIterator<Item = impl AsRef<Path>>) -> Intake {
        let mut intake = Intake {
            prompts: Vec::new(),
            refused: Vec::new(),
        };
        for path in chosen {
            match self.prompt_for_path(path.as_ref()) {
                Ok(prompt) => intake.prompts.push(prompt),
                Err(e) => intake.refused.push(e),
            }
        }
        intake
    }

    /// Re-checks a kept folder and returns a prompt to change which servers
    /// see it, with the current grants ticked.
    pub fn prompt_for_root(&self, root: &RootId) -> Result<ConsentPrompt, SupervisorError> {
        let kept = self
            .ground
            .store
            .snapshot()
            .roots
            .into_iter()
            .find(|r| &r.id == root)
            .ok_or_else(|| StoreError::UnknownRoot(root.clone()))?;
        let folder = folders::check(&kept.chosen_path)?;
        Ok(self.open_prompt(folder, Some(kept.id)))
    }

    /// A prompt for a folder found in the arguments of a server just
    /// imported from an AI app's config (`app` names the app), with that
    /// server ticked as a suggestion. The path comes from the person's own
    /// config file, read by the core, never from the webview.
    pub fn prompt_for_import(
        &self,
        path: &Path,
        server: &ServerSpec,
        app: &str,
    ) -> Result<ConsentPrompt, SupervisorError> {
        let folder = folders::check(path)?;
        let kept = self.kept_at(&folder);
        let suggestion = Suggestion {
            app: app.to_owned(),
            server: server.id.clone(),
            server_name: server.name.clone(),
            imported: true,
        };
        Ok(self.open_prompt_with(folder, kept, Some(suggestion)))
    }

    /// The kept folder at `folder`'s real path, if there is one: a prompt
    /// for it changes which servers see that one rather than keep another.
    fn kept_at(&self, folder: &CheckedFolder) -> Option<RootId> {
        self.ground
            .store
            .snapshot()
            .roots
            .into_iter()
            .find(|r| r.real_path == folder.real())
            .map(|r| r.id)
    }

    fn open_prompt(&self, folder: CheckedFolder, root: Option<RootId>) -> ConsentPrompt {
        self.open_prompt_with(folder, root, None)
    }

    pub(super) fn open_prompt_with(
        &self,
        folder: CheckedFolder,
        root: Option<RootId>,
        suggestion: Option<Suggestion>,
    ) -> ConsentPrompt {
        let settings = self.ground.store.snapshot();
        let others: Vec<&Path> = settings
            .roots
            .iter()
            .filter(|r| Some(&r.id) != root.as_ref())
            .map(|r| r.real_path.as_path())
            .collect();
        let warnings = folders::warnings(&folder, self.ground.home.as_deref(), others)
            .into_iter()
            .map(|warning| WarningView {
                message: warning.message(),
                warning,
            })
            .collect();
        let kept = root
            .as_ref()
            .and_then(|id| settings.roots.iter().find(|r| &r.id == id));
        let live: Vec<ConnectionView> = self
            .connections
            .list()
            .into_iter()
            .filter(|c| c.live)
            .collect();
        let servers = settings
            .servers
            .iter()
            .map(|s| ServerChoice {
                connected: super::app_names::connected_apps(&live, &s.id),
                id: s.id.clone(),
                name: s.name.clone(),
                granted: kept.is_some_and(|r| {
                    settings
                        .grants
                        .iter()
                        .any(|g| g.server == s.id && g.root == r.id && g.real_path == folder.real())
                }),
                suggested: suggestion.as_ref().is_some_and(|x| x.server == s.id),
                enforced: s.enforce_roots,
                restarts: s.enforce_roots || rootgate_model::placeholders::has_placeholders(s),
            })
            .collect();
        let mut prompts = lock(&self.prompts);
        let id = prompts.next_id();
        let prompt = ConsentPrompt {
            id,
            root: root.clone(),
            name: kept
                .map(|r| r.name.clone())
                .unwrap_or_else(|| folder.default_name()),
            real_path: folder.real().to_path_buf(),
            chosen_path: folder
                .is_redirected()
                .then(|| folder.chosen().to_path_buf()),
            warnings,
            servers,
            note: ROOTS_ARE_ADVICE.to_owned(),
            suggestion,
        };
        prompts.open.insert(
            id,
            PendingPrompt {
                folder,
                root,
                shown: prompt.clone(),
            },
        );
        drop(prompts);
        self.tray.grow();
        prompt
    }

    /// The person's answer to a prompt: keep the folder (under `name`, if
    /// given) and share it with exactly `servers`. The folder is checked
    /// again first: if it now leads elsewhere, nothing is shared.
    pub fn answer_prompt(
        &self,
        prompt: PromptId,
        servers: &[ServerId],
        name: Option<String>,
    ) -> Result<FolderView, SupervisorError> {
        let (chosen, shown_real, kept) = {
            let prompts = lock(&self.prompts);
            let pending = prompts
                .open
                .get(&prompt)
                .ok_or(SupervisorError::UnknownPrompt)?;
            (
                pending.folder.chosen().to_path_buf(),
                pending.folder.real().to_path_buf(),
                pending.root.clone(),
            )
        };
        // The folder is checked again: what is shared must be what was
        // shown. If it now fails or leads elsewhere, the prompt closes and
        // the person chooses again; if the answer is refused or saving
        // fails, the prompt stays open so the answer can be given again.
        let now = match folders::check(&chosen) {
            Ok(now) if now.real() == shown_real => now,
            Ok(now) => {
                self.close_prompt(prompt);
                return Err(SupervisorError::FolderMoved {
                    shown: shown_real,
                    now: now.real().to_path_buf(),
                });
            }
            Err(e) => {
                self.close_prompt(prompt);
                return Err(e.into());
            }
        };
        // Keeping the folder and sharing it is one change: an answer that is
        // refused in part (a server that no longer exists, a name that
        // cannot be used) keeps nothing.
        let root = self
            .ground
            .store
            .keep_and_share(&now, kept.as_ref(), name, servers)?;
        let _ = self.ground.store.set_available(&root, true);
        self.close_prompt(prompt);
        // A question this prompt stands for is answered with it, and the
        // app waiting for it goes on at once (see `answers`).
        if let Some(listener) = self.listener() {
            listener.answered(prompt, servers);
        }
        self.folders.folder(&root)
    }

    /// Prompts opened and not yet answered, oldest first (a window that
    /// opens after a drop or a command-line folder shows them).
    pub fn open_prompts(&self) -> Vec<ConsentPrompt> {
        let mut open: Vec<ConsentPrompt> = lock(&self.prompts)
            .open
            .values()
            .map(|p| p.shown.clone())
            .collect();
        open.sort_by_key(|p| p.id);
        open
    }

    /// The person closed a prompt without sharing anything. A question it
    /// stands for stays unanswered (see `answers`).
    pub fn cancel_prompt(&self, prompt: PromptId) {
        self.close_prompt(prompt);
        if let Some(listener) = self.listener() {
            listener.dismissed(prompt);
        }
    }

    /// Closes a prompt, as answered or as no longer valid; whoever lists
    /// the open prompts (the tray's menu) hears of it.
    pub(super) fn close_prompt(&self, prompt: PromptId) {
        if lock(&self.prompts).open.remove(&prompt).is_some() {
            self.tray.grow();
        }
    }
}
