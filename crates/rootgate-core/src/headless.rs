//! Rootgate without its window: the store opened for one run of the
//! `rootgate` command that found no window to hand its work to, and the
//! same jobs the window's services do with it (an import, an install),
//! so that the command never opens the store itself nor repeats them.
//!
//! What it deliberately lacks: sessions, consent prompts, questions, the
//! bridges' socket and every watch. The command never starts a server or
//! shares a folder; it saves what the person asked for, and the window
//! (when it opens, or at once when it holds the settings) does the rest.

use std::collections::BTreeMap;

use rootgate_apps::ConfigFile;
use rootgate_apps::locate::Places;
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerSpec;
use rootgate_model::settings::{Settings, SettingsFile};
use rootgate_model::store::{Store, StoreError};
use rootgate_sources::bundle::{BundleError, Opened};
use rootgate_sources::installable::Installable;
use rootgate_sources::installed::{Installed, Installs};

use crate::connecting::{self, EntryImported, FileImport};

/// The settings opened by a command with no window to hand its work to.
pub struct Headless {
    store: Store,
}

/// Why an install from the command did not happen.
#[derive(Debug, thiserror::Error)]
pub enum InstallRefused {
    /// The settings could not be held for writing.
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Bundle(#[from] BundleError),
}

impl Headless {
    /// Opens the settings (recovering a damaged file, as the window does).
    pub fn open(settings: SettingsFile) -> Result<Headless, StoreError> {
        let (store, _) = Store::open(settings)?;
        Ok(Headless { store })
    }

    /// What the settings hold now, read without taking them for writing
    /// (the lists the command prints, a route's names).
    pub fn read_settings(settings: SettingsFile) -> Result<Settings, StoreError> {
        Store::open_read_only(settings).map(|(store, _)| store.snapshot())
    }

    /// The server `--into NAME` chose for the one entry `keys` names.
    pub fn existing(
        &self,
        keys: &[String],
        into: Option<&str>,
    ) -> Result<Option<ServerId>, String> {
        connecting::existing(&self.store, keys, into)
    }

    /// Imports the entries of `file` an import takes (see
    /// [`FileImport::import`]): what the window does for `rootgate import`
    /// while it holds the settings, without its sessions and prompts.
    pub fn import(
        &self,
        read: &FileImport<'_>,
        places: &Places,
        keys: &[String],
        set: &BTreeMap<String, String>,
        existing: Option<&ServerId>,
    ) -> Vec<EntryImported> {
        read.import(&self.store, places, keys, set, existing)
    }

    /// Reads `file` for importing.
    pub fn read(file: &ConfigFile) -> Result<FileImport<'_>, String> {
        FileImport::read(file)
    }

    /// Installs the bundle `opened` with `values`, the settings held so
    /// that no other writer comes in between.
    pub fn install_bundle(
        &self,
        opened: &Opened,
        values: &BTreeMap<String, String>,
    ) -> Result<Installed, InstallRefused> {
        let _held = self.store.hold()?;
        Ok(opened.install(&self.store, &self.installs(), values)?)
    }

    /// Installs `chosen` (a registry entry's package) with `values`, the
    /// settings held as for a bundle.
    pub fn install(
        &self,
        chosen: &Installable,
        values: &BTreeMap<String, String>,
    ) -> Result<Installed, InstallRefused> {
        let _held = self.store.hold()?;
        Ok(chosen.install(&self.store, &self.installs(), values)?)
    }

    /// Why some of `server`'s secrets are not in the keyring, in the
    /// keyring's words, if they are not.
    pub fn keyring_problem(&self, server: &ServerSpec) -> Option<String> {
        self.store.secrets().problem(server)
    }

    fn installs(&self) -> Installs {
        Installs::beside(self.store.file().path())
    }
}
