//! Installing an offer as a server, and remembering where each installed
//! server came from: `installed.json` beside the settings.
//!
//! The record is what makes an update and a removal do what a person
//! expects. Installing the same bundle or registry entry again updates the
//! server it made (same name, same folders shared, the person's earlier
//! answers kept unless answered anew; a changed command waits for approval
//! as any other), and removing that server can take its bundle's files.
//!
//! What this module does not do: unpack a bundle or fetch anything (the
//! sources do, before calling [`install`]), delete files (it says which
//! folder was the server's; the caller removes it), or keep a secret: the
//! answers it records are the ones that are not secret, and a secret goes
//! to the keyring through the store.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rootgate_host::private_files;
use rootgate_model::ids::{ServerId, now_ms};
use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_model::store::{Store, StoreError};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::offer::{Offer, OfferError, SettingKind, Source};

/// One server installed from a source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallRecord {
    pub server: ServerId,
    pub source: Source,
    pub at: u64,
    /// The person's answers that are not secret, by setting key.
    #[serde(default)]
    pub values: BTreeMap<String, String>,
    /// The folder this install unpacked (a bundle's), removed with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<PathBuf>,
}

/// What the record file holds.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstallsData {
    #[serde(default)]
    pub installs: Vec<InstallRecord>,
}

/// Why an install did not happen.
#[derive(Debug, Error)]
pub enum InstallError {
    #[error("{0}")]
    Offer(#[from] OfferError),
    #[error("{0}")]
    Store(#[from] StoreError),
    #[error("{title} cannot run here: {why}")]
    Unfit { title: String, why: String },
    #[error("cannot keep the record of installed servers in {file}: {reason}")]
    Record { file: String, reason: String },
}

/// `installed.json` beside the settings, read and written whole under a
/// lock, so the window and the `rootgate` command can both install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installs {
    path: PathBuf,
}

impl Installs {
    /// The record beside `settings` (Rootgate's settings file).
    pub fn beside(settings: &Path) -> Installs {
        Installs {
            path: settings.with_file_name("installed.json"),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The records; none when there is no file yet.
    pub fn load(&self) -> Result<InstallsData, InstallError> {
        match fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| self.error(e)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(InstallsData::default()),
            Err(e) => Err(self.error(e)),
        }
    }

    /// Forgets the install that made `server` and gives its record back
    /// (the caller removes its files).
    pub fn forget(&self, server: &ServerId) -> Result<Option<InstallRecord>, InstallError> {
        self.change(|data| {
            let at = data.installs.iter().position(|r| &r.server == server);
            Ok(at.map(|i| data.installs.remove(i)))
        })
    }

    /// Runs `f` on the records under an exclusive lock and saves what it
    /// leaves, unless it fails.
    pub fn change<T>(
        &self,
        f: impl FnOnce(&mut InstallsData) -> Result<T, InstallError>,
    ) -> Result<T, InstallError> {
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        private_files::folder(dir).map_err(|e| self.error(e))?;
        let lock = private_files::lock_file(&self.path.with_extension("lock"))
            .map_err(|e| self.error(e))?;
        // Held until this function returns; the lock file itself stays.
        let _held = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
            .map_err(|(_, e)| self.error(e))?;
        let mut data = self.load()?;
        let out = f(&mut data)?;
        let text = serde_json::to_vec_pretty(&data).map_err(|e| self.error(e))?;
        write_private(&self.path, &text).map_err(|e| self.error(e))?;
        Ok(out)
    }

    fn error(&self, reason: impl std::fmt::Display) -> InstallError {
        InstallError::Record {
            file: self.path.display().to_string(),
            reason: reason.to_string(),
        }
    }
}

/// Writes `bytes` to `path` (0600) through a temporary file and a rename.
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    rootgate_model::durable::replace(path, &tmp, bytes, 0o600)
}

/// What an install did.
#[derive(Debug, Clone)]
pub struct Installed {
    pub server: ServerSpec,
    /// Whether it updated a server an earlier install of the same source
    /// made, rather than adding one.
    pub updated: bool,
    /// The earlier install's files, when this one replaced them (the
    /// caller removes them once nothing runs from them).
    pub replaced_files: Option<PathBuf>,
    /// Folders to offer for sharing with it.
    pub folders: Vec<PathBuf>,
}

/// Adds the server `offer` describes to `store` with the person's
/// `values`, or updates the one an earlier install of the same source made,
/// and records it. `files` is the folder a bundle was unpacked into.
///
/// An update keeps the server's name, its switches (enabled, Landlock,
/// era, how withdrawals reach it) and the folders shared with it; an
/// answer not given again is the one given last time (a secret's is kept
/// in the keyring by the store).
pub fn install(
    store: &Store,
    installs: &Installs,
    offer: &Offer,
    values: &BTreeMap<String, String>,
    files: Option<PathBuf>,
) -> Result<Installed, InstallError> {
    if let Some(why) = &offer.about.unfit {
        return Err(InstallError::Unfit {
            title: offer.about.title.clone(),
            why: why.clone(),
        });
    }
    let key = offer.source.key();
    let earlier = installs
        .load()?
        .installs
        .into_iter()
        .find(|r| r.source.key() == key && store.server(&r.server).is_ok());
    let mut answers = earlier
        .as_ref()
        .map(|r| r.values.clone())
        .unwrap_or_default();
    // Answers to settings the new version no longer has are dropped, so
    // they are not refused as unknown.
    answers.retain(|k, _| offer.settings.iter().any(|s| &s.key == k));
    answers.extend(values.iter().map(|(k, v)| (k.clone(), v.clone())));
    let draft = fill_keeping_secrets(offer, &answers, earlier.is_some())?;
    let (server, updated, replaced_files) = match &earlier {
        Some(record) => {
            let old = store.server(&record.server)?;
            let draft = ServerDraft {
                name: old.name.clone(),
                enabled: old.enabled,
                withdrawal: old.withdrawal,
                enforce_roots: old.enforce_roots,
                allow_network: old.allow_network,
                workspace_only: old.workspace_only,
                own_process: old.own_process,
                era: old.era,
                ..draft
            };
            let server = store.update_server(&record.server, draft)?;
            let replaced = record.files.clone().filter(|f| Some(f) != files.as_ref());
            (server, true, replaced)
        }
        None => {
            let mut draft = draft;
            draft.name = rootgate_model::servers::free_name(&draft.name, &store.snapshot().servers);
            (store.add_server(draft)?, false, None)
        }
    };
    let kept: BTreeMap<String, String> = answers
        .into_iter()
        .filter(|(k, _)| {
            offer
                .settings
                .iter()
                .any(|s| &s.key == k && !s.secret && !matches!(s.kind, SettingKind::Folder { .. }))
        })
        .collect();
    installs.change(|data| {
        data.installs.retain(|r| r.server != server.id);
        data.installs.push(InstallRecord {
            server: server.id.clone(),
            source: offer.source.clone(),
            at: now_ms(),
            values: kept,
            files,
        });
        Ok(())
    })?;
    Ok(Installed {
        server,
        updated,
        replaced_files,
        folders: offer.folders.clone(),
    })
}

/// Fills `offer`; on an update, a required secret not given again is
/// filled empty, which the store reads as "keep the value it has".
fn fill_keeping_secrets(
    offer: &Offer,
    answers: &BTreeMap<String, String>,
    update: bool,
) -> Result<ServerDraft, InstallError> {
    if !update {
        return Ok(offer.fill(answers)?);
    }
    let mut relaxed = offer.clone();
    for setting in relaxed.settings.iter_mut().filter(|s| s.secret) {
        if !answers.contains_key(&setting.key) {
            setting.required = false;
        }
    }
    let mut draft = relaxed.fill(answers)?;
    // A secret variable left out because it was not answered again keeps
    // its value: it is put back empty and marked secret.
    for setting in offer.settings.iter().filter(|s| s.secret) {
        if answers.contains_key(&setting.key) {
            continue;
        }
        for (name, value) in &offer.draft.env {
            if value == &setting.token {
                draft.env.insert(name.clone(), String::new());
                draft
                    .secret_env
                    .get_or_insert_with(Default::default)
                    .insert(name.clone());
            }
        }
    }
    Ok(draft)
}
