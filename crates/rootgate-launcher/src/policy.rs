//! What a held server may touch: the [`Policy`] that `enforcement` decides
//! for a server and that both the Landlock ruleset (`enforcement`) and
//! bubblewrap's command line (`sandbox`) are made from. It is plain data,
//! below both, so that neither module needs the other to name it; it
//! decides nothing and applies nothing.

use std::path::PathBuf;

/// What a server may touch under enforcement.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// The granted folders: read, write, create, delete, execute.
    pub read_write: Vec<PathBuf>,
    /// What the server needs to run: read and execute only.
    pub read_only: Vec<PathBuf>,
    /// Whether the person allowed this server the network. Without it a
    /// held server gets a network namespace of its own, with nothing in it.
    pub network: bool,
    /// The bubblewrap program that holds the server, or `None` where
    /// bubblewrap cannot make its namespaces: then the server runs under
    /// Landlock with its scopes and a seccomp filter only, and is not
    /// called held (see `enforcement::Support::Partial`).
    pub sandbox: Option<PathBuf>,
    /// The folder the server starts in, inside the sandbox: its working
    /// folder once `enforcement::policy_for` accepted it.
    pub cwd: Option<PathBuf>,
}
