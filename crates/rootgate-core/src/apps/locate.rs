//! Where each app keeps its MCP configuration on Linux. STUB: to be written.

use std::path::PathBuf;

use super::{AppKind, ConfigFile};

/// The places the apps' paths are made from, read from the environment
/// once so that tests can give their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME`, when set to an absolute path.
    pub xdg_config_home: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`, which Claude Code reads `.claude.json` from.
    pub claude_config_dir: Option<PathBuf>,
}

impl Places {
    /// The places of this process's environment; none without a home.
    pub fn from_env() -> Option<Places> {
        None
    }
}

/// The main config file of `app` under `places`, whether or not it exists.
pub fn main_file(app: AppKind, places: &Places) -> ConfigFile {
    ConfigFile {
        app,
        path: places.home.join(".nowhere"),
        format: app.format(),
    }
}

/// Whether `app` looks installed: its main file, or the folder it keeps
/// it in, exists.
pub fn installed(_app: AppKind, _places: &Places) -> bool {
    false
}

/// The `.mcp.json` files of the Claude Code projects named in
/// `~/.claude.json` (`projects`), those that exist.
pub fn project_files(_projects: &[String]) -> Vec<ConfigFile> {
    Vec::new()
}
