//! Where the apps added after the first six keep their MCP configuration
//! on Linux, each by its own documentation, and the variables that move
//! them. Where two sources disagree on a path, both are looked at, and the
//! comment at the app says which said what.
//!
//! Like `locate`, this only names paths and asks whether they exist: it
//! never reads a file's contents.

use std::path::{Path, PathBuf};

use super::{Places, absolute};
use crate::{AppKind, ConfigFile, Format};

/// Environment variables that move an app's files, read once so tests can
/// give their own. Only absolute values count: a relative one would be
/// taken from wherever the app was started, which Rootgate cannot know.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppHomes {
    /// `$CODEX_HOME`: Codex CLI's folder instead of `~/.codex`.
    pub codex_home: Option<PathBuf>,
    /// `$COPILOT_HOME`: GitHub Copilot CLI's folder instead of `~/.copilot`.
    pub copilot_home: Option<PathBuf>,
    /// `$CONTINUE_GLOBAL_DIR`: Continue's folder instead of `~/.continue`.
    pub continue_global_dir: Option<PathBuf>,
}

impl AppHomes {
    pub fn from_env() -> AppHomes {
        let var = |name: &str| absolute(std::env::var_os(name));
        AppHomes {
            codex_home: var("CODEX_HOME"),
            copilot_home: var("COPILOT_HOME"),
            continue_global_dir: var("CONTINUE_GLOBAL_DIR"),
        }
    }
}

/// The VS Code builds (and forks) whose user folder may hold Cline's
/// global storage. Cline keeps its MCP settings in the extension's
/// `globalStorage` folder, which each editor puts under its own folder in
/// `$XDG_CONFIG_HOME`; VS Code itself comes first, as Cline's docs name it.
const CLINE_EDITORS: [&str; 6] = [
    "Code",
    "Code - Insiders",
    "VSCodium",
    "Code - OSS",
    "Cursor",
    "Windsurf",
];

/// Cline's settings file under an editor's folder.
fn cline_file(config: &Path, editor: &str) -> PathBuf {
    config
        .join(editor)
        .join("User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json")
}

/// The folder of Cline's own command line (`cline`), whose docs put its MCP
/// settings in `~/.cline/data/settings/cline_mcp_settings.json`.
fn cline_cli_file(places: &Places) -> PathBuf {
    places
        .home
        .join(".cline/data/settings/cline_mcp_settings.json")
}

fn codex_home(places: &Places) -> PathBuf {
    places
        .homes
        .codex_home
        .clone()
        .unwrap_or_else(|| places.home.join(".codex"))
}

fn continue_dir(places: &Places) -> PathBuf {
    places
        .homes
        .continue_global_dir
        .clone()
        .unwrap_or_else(|| places.home.join(".continue"))
}

/// The first of `paths` that exists, or else the first.
fn first_existing(paths: Vec<PathBuf>) -> PathBuf {
    paths
        .iter()
        .find(|p| p.is_file())
        .or(paths.first())
        .cloned()
        .unwrap_or_default()
}

/// The main file of one of the later apps (`locate::main_file` answers for
/// the first six).
pub(super) fn main_file(app: AppKind, places: &Places) -> PathBuf {
    let home = &places.home;
    let config = places.config_home();
    match app {
        // Windsurf's docs name `~/.codeium/windsurf/mcp_config.json`; an
        // earlier page (still served in some languages) names
        // `~/.codeium/mcp_config.json`. The first that exists is read.
        AppKind::Windsurf => first_existing(vec![
            home.join(".codeium/windsurf/mcp_config.json"),
            home.join(".codeium/mcp_config.json"),
        ]),
        // LM Studio's docs say `~/.lmstudio/mcp.json`; a bug report shows
        // it under `~/.cache/lm-studio`, the app's folder before 0.3.
        AppKind::LmStudio => first_existing(vec![
            home.join(".lmstudio/mcp.json"),
            home.join(".cache/lm-studio/mcp.json"),
        ]),
        AppKind::Kiro => home.join(".kiro/settings/mcp.json"),
        // Amazon Q Developer's CLI documented `~/.aws/amazonq/mcp.json`
        // (its later agent files still read it with `useLegacyMcpJson`);
        // the IDE's global agent is an extra file (`extra_files`).
        AppKind::AmazonQ => home.join(".aws/amazonq/mcp.json"),
        // Copilot CLI's docs: `~/.copilot/mcp-config.json`, the folder moved
        // by `$COPILOT_HOME`; earlier releases put it under
        // `$XDG_CONFIG_HOME/.copilot`, which is read when it exists.
        AppKind::CopilotCli => match &places.homes.copilot_home {
            Some(dir) => dir.join("mcp-config.json"),
            None => first_existing(vec![
                home.join(".copilot/mcp-config.json"),
                places
                    .xdg_config_home
                    .as_ref()
                    .filter(|dir| dir.is_absolute())
                    .map_or_else(
                        || home.join(".copilot/mcp-config.json"),
                        |dir| dir.join(".copilot/mcp-config.json"),
                    ),
            ]),
        },
        AppKind::GeminiCli => home.join(".gemini/settings.json"),
        AppKind::Cline => first_existing(
            CLINE_EDITORS
                .iter()
                .map(|editor| cline_file(&config, editor))
                .collect(),
        ),
        AppKind::Codex => codex_home(places).join("config.toml"),
        AppKind::Continue => continue_dir(places).join("config.yaml"),
        AppKind::Opencode => config.join("opencode/opencode.json"),
        // The first six are answered by `locate::main_file`.
        _ => PathBuf::new(),
    }
}

/// The folder one of the later apps creates for itself.
pub(super) fn app_folder(app: AppKind, places: &Places) -> PathBuf {
    let home = &places.home;
    match app {
        AppKind::Windsurf => home.join(".codeium/windsurf"),
        AppKind::LmStudio => home.join(".lmstudio"),
        AppKind::Kiro => home.join(".kiro"),
        AppKind::AmazonQ => home.join(".aws/amazonq"),
        AppKind::CopilotCli => places
            .homes
            .copilot_home
            .clone()
            .unwrap_or_else(|| home.join(".copilot")),
        AppKind::GeminiCli => home.join(".gemini"),
        // The extension's storage folder under the editor that holds it.
        AppKind::Cline => main_file(app, places)
            .ancestors()
            .nth(2)
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        AppKind::Codex => codex_home(places),
        AppKind::Continue => continue_dir(places),
        AppKind::Opencode => places.config_home().join("opencode"),
        _ => PathBuf::new(),
    }
}

/// The files an app reads beside its main one, those that exist:
/// Continue's `mcpServers` folder, opencode's `opencode.jsonc` and
/// `config.json`, Amazon Q's IDE agent, and Cline's settings under the
/// other editors that hold it and under its command line.
pub fn extra_files(app: AppKind, places: &Places) -> Vec<ConfigFile> {
    let main = main_file(app, places);
    let config = places.config_home();
    let paths: Vec<PathBuf> = match app {
        // Continue's docs put block files in a workspace's
        // `.continue/mcpServers/`; Continue loads the same folder under its
        // global `~/.continue` too. YAML blocks and Claude-style JSON files
        // are both read (see `continue_dev`).
        AppKind::Continue => {
            let dir = continue_dir(places).join("mcpServers");
            let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
                .map(|entries| {
                    entries
                        .filter_map(Result::ok)
                        .map(|e| e.path())
                        .filter(|p| {
                            p.extension()
                                .is_some_and(|x| x == "yaml" || x == "yml" || x == "json")
                        })
                        .collect()
                })
                .unwrap_or_default();
            found.sort();
            found
        }
        // opencode merges `config.json`, `opencode.json` and
        // `opencode.jsonc` from its global folder.
        AppKind::Opencode => vec![
            config.join("opencode/opencode.jsonc"),
            config.join("opencode/config.json"),
        ],
        AppKind::AmazonQ => vec![places.home.join(".aws/amazonq/agents/default.json")],
        AppKind::Cline => CLINE_EDITORS
            .iter()
            .map(|editor| cline_file(&config, editor))
            .chain([cline_cli_file(places)])
            .collect(),
        _ => Vec::new(),
    };
    paths
        .into_iter()
        .filter(|p| *p != main && p.is_file())
        .map(|path| {
            let format = match path.extension().and_then(|x| x.to_str()) {
                Some("json") if app == AppKind::Continue => Format::Json,
                Some("jsonc") => Format::Jsonc,
                _ => app.format(),
            };
            ConfigFile { app, path, format }
        })
        .collect()
}
