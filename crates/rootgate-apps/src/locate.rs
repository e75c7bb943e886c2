//! Where each app keeps its MCP configuration on Linux, by each app's own
//! rules: Claude Desktop, VS Code, Zed, Goose and opencode under
//! `$XDG_CONFIG_HOME` (`~/.config` when it is unset or not absolute, as the
//! XDG specification says), Cursor under `~/.cursor`, Claude Code in
//! `~/.claude.json` unless `$CLAUDE_CONFIG_DIR` moves it. The apps added
//! later live in `more`, which also reads the variables that move them
//! (`CODEX_HOME`, `COPILOT_HOME`, `CLINE_MCP_SETTINGS_PATH`).
//!
//! The environment is read once, into [`Places`], so the rules can be
//! tested with any home and variables. This module only names paths and
//! asks whether they exist: it never reads or creates a file, and it knows
//! nothing of other operating systems' locations.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{AppKind, ConfigFile, Format};
pub use more::{AppHomes, extra_files};

mod more;

/// The places the apps' paths are made from, read from the environment
/// once so that tests can give their own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME`, when set to an absolute path.
    pub xdg_config_home: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`, which Claude Code reads `.claude.json` from.
    pub claude_config_dir: Option<PathBuf>,
    /// The variables that move the later apps' files.
    pub homes: AppHomes,
}

impl Places {
    /// The places of this process's environment; none without a home.
    pub fn from_env() -> Option<Places> {
        let home = directories::BaseDirs::new()?.home_dir().to_path_buf();
        Some(Places {
            home,
            xdg_config_home: absolute(std::env::var_os("XDG_CONFIG_HOME")),
            claude_config_dir: absolute(std::env::var_os("CLAUDE_CONFIG_DIR")),
            homes: AppHomes::from_env(),
        })
    }

    /// `$XDG_CONFIG_HOME`, or `~/.config`. A relative value is ignored here
    /// too, since `Places` may be built by hand: the specification says such
    /// a value is invalid, and the apps' XDG libraries skip it.
    pub(crate) fn config_home(&self) -> PathBuf {
        match &self.xdg_config_home {
            Some(dir) if dir.is_absolute() => dir.clone(),
            _ => self.home.join(".config"),
        }
    }

    /// Claude Code's own folder: `$CLAUDE_CONFIG_DIR`, or `~/.claude`.
    fn claude_dir(&self) -> PathBuf {
        self.claude_config_dir()
            .map_or_else(|| self.home.join(".claude"), Path::to_path_buf)
    }

    /// `$CLAUDE_CONFIG_DIR` when usable. Claude Code treats an empty value
    /// as unset; a relative one would be taken from wherever Claude Code was
    /// started, which Rootgate cannot know, so it is ignored.
    fn claude_config_dir(&self) -> Option<&Path> {
        self.claude_config_dir
            .as_deref()
            .filter(|dir| dir.is_absolute())
    }
}

/// The value of an environment variable when it is an absolute path.
pub(crate) fn absolute(value: Option<OsString>) -> Option<PathBuf> {
    value.map(PathBuf::from).filter(|path| path.is_absolute())
}

/// The main config file of `app` under `places`, whether or not it exists.
pub fn main_file(app: AppKind, places: &Places) -> ConfigFile {
    let config = places.config_home();
    let path = match app {
        AppKind::ClaudeDesktop => config.join("Claude").join("claude_desktop_config.json"),
        AppKind::ClaudeCode => claude_code_file(places),
        AppKind::Cursor => places.home.join(".cursor").join("mcp.json"),
        AppKind::VsCode => config.join("Code").join("User").join("mcp.json"),
        AppKind::Zed => config.join("zed").join("settings.json"),
        AppKind::Goose => config.join("goose").join("config.yaml"),
        other => more::main_file(other, places),
    };
    ConfigFile {
        app,
        path,
        format: app.format(),
    }
}

/// Claude Code's rule: a `.config.json` left in its folder by early
/// versions wins when it exists; otherwise `.claude.json` sits in
/// `$CLAUDE_CONFIG_DIR`, or in the home folder (not in `~/.claude`).
fn claude_code_file(places: &Places) -> PathBuf {
    let legacy = places.claude_dir().join(".config.json");
    if legacy.is_file() {
        return legacy;
    }
    places
        .claude_config_dir()
        .unwrap_or(&places.home)
        .join(".claude.json")
}

/// The folder an app creates for itself when it first runs.
fn app_folder(app: AppKind, places: &Places) -> PathBuf {
    let config = places.config_home();
    match app {
        AppKind::ClaudeDesktop => config.join("Claude"),
        AppKind::ClaudeCode => places.claude_dir(),
        AppKind::Cursor => places.home.join(".cursor"),
        AppKind::VsCode => config.join("Code"),
        AppKind::Zed => config.join("zed"),
        AppKind::Goose => config.join("goose"),
        other => more::app_folder(other, places),
    }
}

/// Whether `app` looks installed: its main file, or the folder it keeps
/// it in, exists.
pub fn installed(app: AppKind, places: &Places) -> bool {
    main_file(app, places).path.exists() || app_folder(app, places).is_dir()
}

/// The `.mcp.json` files of the Claude Code projects named in
/// `~/.claude.json` (`projects`), those that exist.
///
/// A project written as a relative path is skipped: it would be taken from
/// Rootgate's working folder, not the project's.
pub fn project_files(projects: &[String]) -> Vec<ConfigFile> {
    projects
        .iter()
        .map(Path::new)
        .filter(|project| project.is_absolute())
        .map(|project| project.join(".mcp.json"))
        .filter(|path| path.is_file())
        .map(|path| ConfigFile {
            app: AppKind::ClaudeCode,
            path,
            format: Format::Json,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(xdg: Option<&str>) -> Places {
        Places {
            home: PathBuf::from("/home/me"),
            xdg_config_home: xdg.map(PathBuf::from),
            claude_config_dir: None,
            homes: AppHomes::default(),
        }
    }

    #[test]
    fn a_relative_xdg_config_home_is_ignored() {
        let file = main_file(AppKind::Zed, &places(Some("rel/config")));
        assert_eq!(file.path, Path::new("/home/me/.config/zed/settings.json"));
    }

    #[test]
    fn only_absolute_variables_count() {
        assert_eq!(absolute(Some(OsString::from("relative"))), None);
        assert_eq!(absolute(Some(OsString::new())), None);
        assert_eq!(
            absolute(Some(OsString::from("/x"))),
            Some(PathBuf::from("/x"))
        );
    }
}
