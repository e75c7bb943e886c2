//! What the model expects: the folders, the servers with their grants,
//! approval and Workspace, the pause, and each AI app's config file with
//! the bytes it must hold. It is changed only by the steps the test takes
//! and what they were answered, never by reading Rootgate's own state, so
//! the checks compare two independent accounts.
//!
//! Not here: processes (see `world`) or the comparisons (see `check`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// One server as the model knows it.
#[derive(Debug, Clone)]
pub struct Server {
    pub approved: bool,
    pub workspace: bool,
    /// Indexes into [`Model::folders`].
    pub grants: BTreeSet<usize>,
}

/// Where an app's config stands.
#[derive(Clone, PartialEq)]
pub enum Routing {
    /// As the person wrote it: [`AppFile::original`], byte for byte.
    Original,
    /// Routed by `rootgate route`: exactly these bytes.
    Routed(Vec<u8>),
    /// A `rootgate route` was killed: either of the two, found out by the
    /// next check.
    Unsure,
}

// Bytes would be shown as numbers: a failure names the state.
impl std::fmt::Debug for Routing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Routing::Original => f.write_str("as the person wrote it"),
            Routing::Routed(bytes) => write!(f, "routed ({} bytes)", bytes.len()),
            Routing::Unsure => f.write_str("after a killed route"),
        }
    }
}

/// An AI app's config file holding one server entry.
#[derive(Debug, Clone)]
pub struct AppFile {
    /// The app as `rootgate` names it.
    pub app: &'static str,
    /// The entry's key in the file, and the server's name once imported.
    pub entry: &'static str,
    pub path: PathBuf,
    pub original: Vec<u8>,
    pub routing: Routing,
    pub imported: bool,
    pub secret: Option<(&'static str, &'static str)>,
    /// A run on this file was killed: leftovers may stay until the next
    /// run on it completes.
    pub leftovers_allowed: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Model {
    /// Real paths of the folders the steps choose from; each holds a file
    /// [`NOTE`] whose text names it.
    pub folders: Vec<PathBuf>,
    pub servers: BTreeMap<String, Server>,
    pub paused: bool,
    pub files: Vec<AppFile>,
}

/// The file in every folder whose reads are checked.
pub const NOTE: &str = "note.txt";

impl Model {
    /// The folders a connection to `server` must see: none while paused,
    /// else the server's grants, narrowed to the app's folder when the
    /// connection started with Workspace on and the app declared roots.
    /// Sibling folders: a grant is "inside" the app's folder only when it
    /// is that folder.
    pub fn expected(&self, server: &str, roots: Option<usize>, workspace: bool) -> BTreeSet<usize> {
        let Some(spec) = self.servers.get(server) else {
            return BTreeSet::new();
        };
        if self.paused {
            return BTreeSet::new();
        }
        match (workspace, roots) {
            (true, Some(folder)) => spec
                .grants
                .iter()
                .copied()
                .filter(|g| *g == folder)
                .collect(),
            _ => spec.grants.clone(),
        }
    }

    pub fn note_text(&self, folder: usize) -> String {
        format!("the note of folder {folder}")
    }
}
