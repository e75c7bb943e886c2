//! A root: a folder the person added, as it is kept in the settings file.
//!
//! A [`Root`] remembers the path the person chose, the real path it resolved
//! to when they consented, the mount that held it then, and the name servers
//! are shown. A root by itself
//! is shared with no one: only a grant in `consent` makes it reach a server.
//! Checking a path is `folders`; storing and publishing is `store`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::folders::CheckedFolder;
use crate::ids::{RootId, now_ms};
use rootgate_host::mounts::MountTable;

/// A folder the person added.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    pub id: RootId,
    /// The name servers are shown (the folder's name unless renamed).
    pub name: String,
    /// The path as the person chose it.
    pub chosen_path: PathBuf,
    /// The canonical real path it resolved to when it was added.
    pub real_path: PathBuf,
    #[serde(default)]
    pub added_at_ms: u64,
    /// Where the filesystem that held the folder was mounted when it was
    /// added (`/` for most folders, `/media/me/Disk` for one on that disk).
    /// While that filesystem is unmounted the root is unavailable, even if
    /// an empty folder is left at its path. Absent in files written before
    /// it was kept, or where the mount table could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(skip)]
    pub mount: Option<PathBuf>,
}

impl Root {
    /// A new root for a checked folder, named after the folder unless a name
    /// is given.
    pub fn new(folder: &CheckedFolder, name: Option<String>) -> Self {
        let name = name
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| folder.default_name());
        Root {
            id: RootId::generate(),
            name,
            chosen_path: folder.chosen().to_path_buf(),
            real_path: folder.real().to_path_buf(),
            added_at_ms: now_ms(),
            mount: MountTable::read()
                .holding(folder.real())
                .map(Path::to_path_buf),
        }
    }
}
