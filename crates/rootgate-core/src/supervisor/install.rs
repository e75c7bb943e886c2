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
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rootgate_model::servers::shell_quote;
use rootgate_sources::bundle::Bundles;
use rootgate_sources::installable::Installable;
use rootgate_sources::installed::{Installed, Installs};
use rootgate_sources::offer::{About, Offer, Setting, Source};
use rootgate_sources::registry::listing::{self, Found};
use rootgate_sources::registry::mapping::{self, Chosen};
use rootgate_sources::registry::{self, Client, RegistryError, cache};
use serde::Serialize;

use super::ground::Ground;
use super::prompts::Consent;
use super::servers::ServerHandle;
use super::{ConsentPrompt, ServerView, SupervisorError, lock};

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
struct OpenInstalls {
    next: u32,
    open: HashMap<u32, Installable>,
}

/// Installs: the offers shown, and installing one.
pub struct Installing {
    ground: Ground,
    /// Published servers shown for installing and not yet installed.
    install_offers: Mutex<OpenInstalls>,
    servers: Arc<dyn ServerHandle>,
    consent: Arc<Consent>,
}

impl Installing {
    pub(super) fn new(
        ground: Ground,
        servers: Arc<dyn ServerHandle>,
        consent: Arc<Consent>,
    ) -> Installing {
        Installing {
            ground,
            install_offers: Mutex::new(OpenInstalls::default()),
            servers,
            consent,
        }
    }

    fn installs(&self) -> Installs {
        Installs::beside(self.ground.settings_path())
    }

    /// Reads and checks the MCP bundle `file` (chosen in the picker, opened
    /// from the file manager, named on a command line) and keeps it for the
    /// window to install; nothing is unpacked until then.
    pub fn open_bundle(&self, file: &Path) -> Result<InstallView, SupervisorError> {
        let opened = Bundles::default_location()?.open(file)?;
        Ok(self.show_installable(Installable::Bundle(Box::new(opened))))
    }

    /// Keeps `offer` for the window to install, and what it shows of it.
    pub fn show_offer(&self, offer: Offer) -> InstallView {
        self.show_installable(Installable::Offer(Box::new(offer)))
    }

    fn show_installable(&self, installable: Installable) -> InstallView {
        let offer = installable.offer();
        let updates = self
            .installs()
            .load()
            .ok()
            .and_then(|data| {
                let key = offer.source.key();
                data.installs.into_iter().find(|r| r.source.key() == key)
            })
            .and_then(|r| self.ground.store.server(&r.server).ok())
            .map(|s| s.name);
        let command_line = draft_line(offer);
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
        open.open.insert(id, installable);
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
        // Taken out while it installs, so a second click cannot install it
        // twice; put back when the install fails, to be tried again.
        let installable = lock(&self.install_offers)
            .open
            .remove(&id)
            .ok_or(SupervisorError::UnknownInstall)?;
        match installable.install(&self.ground.store, &self.installs(), values) {
            Ok(done) => self.after_install(installable.offer(), done),
            Err(e) => {
                lock(&self.install_offers).open.insert(id, installable);
                Err(e.into())
            }
        }
    }

    /// The session and prompts of a server just installed from `offer`.
    fn after_install(
        &self,
        offer: &Offer,
        done: Installed,
    ) -> Result<InstallOutcome, SupervisorError> {
        self.servers.ensure_session(&done.server)?;
        let from = offer.about.title.clone();
        let mut prompts = Vec::new();
        let mut notes = Vec::new();
        for folder in &done.folders {
            match self.consent.prompt_for_import(folder, &done.server, &from) {
                Ok(prompt) => prompts.push(prompt),
                Err(e) => notes.push(format!("{}: {e}", folder.display())),
            }
        }
        Ok(InstallOutcome {
            server: self.servers.server(&done.server.id)?,
            updated: done.updated,
            prompts,
            notes,
        })
    }

    /// Searches the MCP Registry (the one the person chose, else
    /// `$ROOTGATE_REGISTRY`, else the official one) for `words`, off the caller's thread: the answer, or
    /// the cache's when the registry cannot be reached.
    pub async fn registry_search(&self, words: String) -> Result<Found, SupervisorError> {
        let words: Vec<String> = words.split_whitespace().map(str::to_owned).collect();
        let chosen = self.ground.store.preferences().registry;
        blocking(move || {
            let client = registry_client(chosen.as_deref())?;
            let fetched = client.search(&words, None, SEARCH_LIMIT)?;
            Ok(listing::found(client.address(), &fetched))
        })
        .await
    }

    /// Version `version` of the registry's server `name`, with its package
    /// number `package`, shown for installing.
    pub async fn registry_offer(
        &self,
        name: String,
        version: String,
        package: u32,
    ) -> Result<InstallView, SupervisorError> {
        let chosen = self.ground.store.preferences().registry;
        let offer = blocking(move || {
            let client = registry_client(chosen.as_deref())?;
            let answer = client.version(&name, &version)?.value;
            let chosen = answer
                .server
                .packages
                .get(package as usize)
                .ok_or_else(|| {
                    SupervisorError::Registry(RegistryError::Other(format!(
                        "{name} {version} has no package number {package}"
                    )))
                })?;
            match mapping::chosen(client.address(), &answer, Some(chosen)) {
                Chosen::Offer(offer) => Ok(Installable::Offer(offer)),
                Chosen::Bundle(bundle) => {
                    let bundles = Bundles::default_location()?;
                    let opened = registry::bundle_offer(&client, &bundle, &bundles)?;
                    Ok(Installable::Bundle(Box::new(opened)))
                }
            }
        })
        .await?;
        Ok(self.show_installable(offer))
    }
}

/// How many servers a search of the window lists (the registry's pages
/// hold up to 100).
const SEARCH_LIMIT: u32 = 50;

/// A client of the registry the person `chose`, else the one the
/// environment names, else the official one, keeping its answers in
/// Rootgate's cache folder.
fn registry_client(chose: Option<&str>) -> Result<Client, SupervisorError> {
    let cache = cache::rootgate_cache_dir().ok_or(SupervisorError::NoHome)?;
    Ok(Client::new(&registry::address(chose), &cache)?)
}

/// Runs `f` on tokio's blocking threads: the registry is asked over the
/// network, which must not hold the window's thread or the runtime's.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, SupervisorError> + Send + 'static,
) -> Result<T, SupervisorError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| SupervisorError::Registry(RegistryError::Other(e.to_string())))?
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
