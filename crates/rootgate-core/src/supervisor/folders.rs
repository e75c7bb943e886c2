//! The folder list ([`Folders`]): every kept folder with whether it is
//! there and the servers that see it ([`FolderView`]), and a person's
//! renaming, removal and withdrawal of one from one server.
//!
//! Not here: how a folder comes to be kept and shared (a consent prompt,
//! see `prompts`), and a server's own checklist of folders (`servers`).
//! What a change reaches the servers is the store's and the sessions' to
//! do; this only asks the store.

use std::collections::HashMap;

use serde::Serialize;

use super::SupervisorError;
use super::ground::Ground;
use rootgate_model::ids::{RootId, ServerId};
use rootgate_model::roots::Root;
use rootgate_model::store::StoreError;

/// A kept folder, as the folder list shows it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderView {
    #[serde(flatten)]
    pub root: Root,
    pub available: bool,
    /// The servers that have a grant for it.
    pub servers: Vec<ServerId>,
}

/// The folder list: the kept folders and what a person does to one.
pub struct Folders {
    ground: Ground,
}

impl Folders {
    pub(super) fn new(ground: Ground) -> Folders {
        Folders { ground }
    }

    /// Marks each root available or not by checking it again, and notes a
    /// root whose folder now resolves elsewhere as unavailable (its grants
    /// were for the old real path).
    pub fn check_availability(&self) {
        let mounts = rootgate_host::mounts::MountTable::read();
        for root in self.ground.store.snapshot().roots {
            let _ = self.ground.store.set_available(
                &root.id,
                rootgate_model::monitor::is_available(&root, &mounts),
            );
        }
    }

    /// One kept folder as the folder list shows it (a prompt's answer
    /// returns it).
    pub(crate) fn folder(&self, id: &RootId) -> Result<FolderView, SupervisorError> {
        self.list()
            .into_iter()
            .find(|f| &f.root.id == id)
            .ok_or_else(|| StoreError::UnknownRoot(id.clone()).into())
    }

    /// Every kept folder with its availability and the servers that see it.
    pub fn list(&self) -> Vec<FolderView> {
        let settings = self.ground.store.snapshot();
        let mut by_root: HashMap<&RootId, Vec<ServerId>> = HashMap::new();
        for g in &settings.grants {
            by_root.entry(&g.root).or_default().push(g.server.clone());
        }
        settings
            .roots
            .iter()
            .map(|root| FolderView {
                available: self.ground.store.is_available(&root.id),
                servers: by_root.get(&root.id).cloned().unwrap_or_default(),
                root: root.clone(),
            })
            .collect()
    }

    pub fn rename_folder(&self, id: &RootId, name: &str) -> Result<FolderView, SupervisorError> {
        self.ground.store.rename_root(id, name)?;
        self.folder(id)
    }

    /// Removes a folder; it is withdrawn from every server at once.
    pub fn remove_folder(&self, id: &RootId) -> Result<(), SupervisorError> {
        Ok(self.ground.store.remove_root(id)?)
    }

    /// Withdraws one folder from one server. Withdrawing needs no prompt.
    pub fn revoke(&self, server: &ServerId, root: &RootId) -> Result<(), SupervisorError> {
        Ok(self.ground.store.revoke(server, root)?)
    }
}
