//! The window's side of servers installed from where they are published:
//! each offer shown by number (a bundle opened from a file, an entry of the
//! MCP Registry), installing one with the person's answers, and the consent
//! prompts for the folders its publisher's defaults name.
//!
//! What this module does not do: read a bundle or ask a registry (the
//! sources crate does), approve the command (a new or changed command
//! waits for the person, as any other), or take a folder from the window:
//! a folder setting is a placeholder, and its folders are shared through
//! the consent prompt.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use rootgate_model::ids::ServerId;
use rootgate_model::servers::shell_quote;
use rootgate_sources::installed::{self, Installed, Installs};
use rootgate_sources::offer::{About, Offer, Setting, Source};
use serde::Serialize;

use super::{ConsentPrompt, ServerView, Supervisor, SupervisorError, lock};

/// An offer shown in the window before anything is installed.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallView {
    /// The number the window installs or drops it by.
    pub id: u32,
    pub about: About,
    pub source: Source,
    pub settings: Vec<Setting>,
    /// Folders its defaults name that exist here: each gets a consent
    /// prompt once it is installed.
    pub folders: Vec<PathBuf>,
    pub notes: Vec<String>,
    /// The command line it will run, settings not yet filled in
    /// (`${user_config.KEY}`), folders as placeholders.
    pub command_line: String,
    /// The server an earlier install of the same bundle or registry entry
    /// made, which installing this one updates.
    pub updates: Option<String>,
}

/// What installing did, for the window: the server (waiting for approval)
/// and a consent prompt per folder its publisher's defaults name.
#[derive(ts_rs::TS, Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallOutcome {
    pub server: ServerView,
    /// Whether it updated the server an earlier install made.
    pub updated: bool,
    pub prompts: Vec<ConsentPrompt>,
    /// Folders that cannot be offered, and why.
    pub notes: Vec<String>,
}

/// Offers shown and not yet installed or dropped, by number.
#[derive(Default)]
pub(crate) struct OpenInstalls {
    next: u32,
    open: HashMap<u32, Offer>,
}

impl Supervisor {
    pub(crate) fn installs(&self) -> Installs {
        Installs::beside(self.store.file().path())
    }

    /// Keeps `offer` for the window to install, and what it shows of it.
    pub fn show_offer(&self, offer: Offer) -> InstallView {
        let updates = self
            .installs()
            .load()
            .ok()
            .and_then(|data| {
                let key = offer.source.key();
                data.installs.into_iter().find(|r| r.source.key() == key)
            })
            .and_then(|r| self.store.server(&r.server).ok())
            .map(|s| s.name);
        let command_line = draft_line(&offer);
        let mut open = lock(&self.install_offers);
        open.next += 1;
        let id = open.next;
        let view = InstallView {
            id,
            about: offer.about.clone(),
            source: offer.source.clone(),
            settings: offer.settings.clone(),
            folders: offer.folders.clone(),
            notes: offer.notes.clone(),
            command_line,
            updates,
        };
        open.open.insert(id, offer);
        view
    }

    /// Forgets offer `id` without installing it.
    pub fn drop_install(&self, id: u32) {
        lock(&self.install_offers).open.remove(&id);
    }

    /// Installs offer `id` with the person's `values` (by setting key; not
    /// logged): a new server, or the update of the one an earlier install
    /// made. Its command waits for approval; its publisher's folders get
    /// consent prompts.
    pub fn install(
        &self,
        id: u32,
        values: &BTreeMap<String, String>,
    ) -> Result<InstallOutcome, SupervisorError> {
        let offer = lock(&self.install_offers)
            .open
            .get(&id)
            .cloned()
            .ok_or(SupervisorError::UnknownInstall)?;
        let done = installed::install(&self.store, &self.installs(), &offer, values, None)?;
        lock(&self.install_offers).open.remove(&id);
        self.after_install(&offer, done)
    }

    /// The session and prompts of a server just installed from `offer`.
    pub(crate) fn after_install(
        &self,
        offer: &Offer,
        done: Installed,
    ) -> Result<InstallOutcome, SupervisorError> {
        self.ensure_session(&done.server)?;
        let from = offer.about.title.clone();
        let mut prompts = Vec::new();
        let mut notes = Vec::new();
        for folder in &done.folders {
            match self.prompt_for_import(folder, &done.server, &from) {
                Ok(prompt) => prompts.push(prompt),
                Err(e) => notes.push(format!("{}: {e}", folder.display())),
            }
        }
        Ok(InstallOutcome {
            server: self.server(&done.server.id)?,
            updated: done.updated,
            prompts,
            notes,
        })
    }

    /// Forgets how `server` was installed, once it is removed, and gives
    /// back the folder its files were unpacked into, if any.
    pub(crate) fn forget_install(&self, server: &ServerId) -> Option<PathBuf> {
        match self.installs().forget(server) {
            Ok(record) => record.and_then(|r| r.files),
            Err(e) => {
                tracing::warn!("{e}");
                None
            }
        }
    }
}

/// The offer's command line as the approval will show it, its settings'
/// tokens still in place: environment assignments first, then the command.
fn draft_line(offer: &Offer) -> String {
    let draft = &offer.draft;
    let mut parts: Vec<String> = draft
        .env
        .iter()
        .map(|(k, v)| format!("{k}={}", shell_quote(v)))
        .collect();
    parts.push(shell_quote(&draft.command));
    parts.extend(draft.args.iter().map(|a| shell_quote(a)));
    parts.join(" ")
}
