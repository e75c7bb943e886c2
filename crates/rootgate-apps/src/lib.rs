//! `rootgate-apps`: the AI apps' own config files, and nothing else of
//! Rootgate's: it reads the store's servers and settings (`rootgate-model`)
//! but never starts a server or speaks MCP, and knows nothing of the bridge
//! or the window. Its foreign stack is lossless editing (jsonc-parser,
//! yaml-edit), diffs (similar) and digests (sha2).
//!
//! Which app is which ([`AppKind`], with the name each gives itself in
//! MCP's `initialize`) and how its file is written ([`Format`]) are the
//! model's words (`rootgate_model::app_kind`), re-exported here.
//!
//! Modules: `catalog` (what the window shows of each app, and imports),
//! `goose` and `json` (reading and editing each format), `identity`
//! (whether two entries are one server), `import` (an entry as a server
//! draft), `standing` (where an entry stands with Rootgate's servers), `locate`
//! (where each app keeps its files), `route` (rewriting an app to reach its
//! servers through Rootgate, and undoing it).
//!
//! AI apps' own MCP configuration: finding it, reading the servers it
//! holds, and rewriting it so that an app reaches its servers through
//! `rootgate connect`.
//!
//! Sixteen apps are known (see [`AppKind`]): Claude Desktop, Claude Code,
//! Cursor, Windsurf, LM Studio, Kiro, Amazon Q Developer, GitHub Copilot
//! CLI and Cline write JSON; VS Code, Zed, Gemini CLI and opencode write
//! JSON with comments; Goose and Continue write YAML, and Codex CLI writes
//! TOML. `locate` says where each keeps its files on Linux; `json`,
//! `goose`, `continue_dev` and `codex` read them into [`ParsedConfig`] and
//! edit them in place, keeping every other key, comment and the file's
//! formatting; `import` turns an entry into a server draft and folder
//! offers; `identity` says whether two entries are one server and `standing`
//! where an entry stands with Rootgate's servers; `route`
//! plans a rewrite (with its diff), writes it atomically beside a backup,
//! and undoes it byte for byte.
//!
//! This module never approves a command or shares a folder: an imported
//! server is a draft the person still approves, and the folders found in
//! its arguments are offers that go through the consent prompt. It never
//! writes a file it did not read and check for changes first, and it never
//! puts an environment value in an error message.

pub mod catalog;
pub(crate) mod codex;
pub(crate) mod continue_dev;
pub(crate) mod fields;
pub(crate) mod goose;
pub(crate) mod identity;
pub mod import;
pub(crate) mod json;
pub mod locate;
pub mod route;
pub(crate) mod standing;
pub(crate) mod yaml;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Which app, and how its main file is written: the model's words, since
/// the bridge names the app a connection is without naming this crate.
/// They stay nameable here because this crate's own types carry them
/// (`ConfigFile::format`, `main_file(app, ..)`).
pub use rootgate_model::app_kind::{AppKind, Format};

/// Where in a file a server entry sits. Most files hold one list; Claude
/// Code's `~/.claude.json` holds one for the user and one per project.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind", content = "path")]
pub enum Scope {
    /// The file's own list (`mcpServers`, `servers`, `context_servers`,
    /// `extensions`).
    Global,
    /// `projects.<path>.mcpServers` in `~/.claude.json`; the path as written
    /// there.
    Project(String),
}

/// How an entry starts its server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A local command speaking MCP on standard input and output. Values are
    /// as written in the file: variables such as `${input:token}` are not
    /// expanded (see `import`).
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<String>,
        /// VS Code's and Cursor's `envFile`.
        env_file: Option<String>,
        /// Goose's `env_keys`: variables whose values Goose keeps in its own
        /// keyring, not in the file.
        env_keys: Vec<String>,
    },
    /// A server reached over the network (`url`, or `type: http/sse`).
    /// Rootgate runs local servers only, so these are listed, not imported.
    Remote { url: String },
}

/// One server entry of an app's config, as the file holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEntry {
    pub scope: Scope,
    /// The entry's name in the app's config.
    pub key: String,
    pub transport: Transport,
    /// Whether the app runs it (Goose's and Zed's `enabled`, VS Code's
    /// `disabled`); true when the file does not say.
    pub enabled: bool,
}

/// A VS Code `inputs` declaration: a value VS Code asks the person for
/// when it starts a server that names it as `${input:ID}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputDecl {
    pub id: String,
    pub description: Option<String>,
    /// Whether VS Code masks it (`"password": true`).
    pub password: bool,
}

/// What a config file holds that Rootgate cares about.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedConfig {
    pub entries: Vec<RawEntry>,
    pub inputs: Vec<InputDecl>,
    /// Project folders a Claude Code `~/.claude.json` knows, whose
    /// `.mcp.json` files are read too (see `locate`).
    pub projects: Vec<String>,
}

/// What an entry is rewritten to: the absolute path of `rootgate`,
/// `["connect", NAME]`, and the environment the bridge needs (only
/// `XDG_CONFIG_HOME` when Rootgate's settings are not in the default place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteTo {
    pub scope: Scope,
    pub key: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

impl RouteTo {
    /// How the routed entry reads once written: a rewrite reads its result
    /// back and compares it with this before handing it over.
    pub(crate) fn as_written(&self) -> Transport {
        Transport::Stdio {
            command: self.command.clone(),
            args: self.args.clone(),
            env: self.env.clone(),
            cwd: None,
            env_file: None,
            env_keys: Vec::new(),
        }
    }

    /// The entry to route is not in `file`, a file of one list with no
    /// scopes (Codex's, Continue's).
    pub(crate) fn not_in(&self, file: &str) -> ConfigError {
        ConfigError::NoSuchEntry {
            file: file.to_owned(),
            key: self.key.clone(),
            scope: String::new(),
        }
    }
}

/// Why a config file could not be read or rewritten. Never holds an
/// environment value: files hold secrets.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("{file}: not valid {format} at line {line}, column {column}: {reason}")]
    Syntax {
        file: String,
        format: &'static str,
        line: usize,
        column: usize,
        reason: String,
    },
    #[error("{file}: `{key}` is not what {app} writes there: {reason}")]
    Shape {
        file: String,
        app: &'static str,
        key: String,
        reason: String,
    },
    #[error("{file}: there is no server `{key}`{scope}")]
    NoSuchEntry {
        file: String,
        key: String,
        scope: String,
    },
}

impl ConfigError {
    /// `key` (a dotted path such as `extensions.github.args`) of `file`
    /// does not hold what `app` writes there. `reason` never quotes a value.
    pub(crate) fn shape(file: &str, app: &'static str, key: &str, reason: &str) -> ConfigError {
        ConfigError::Shape {
            file: file.to_owned(),
            app,
            key: key.to_owned(),
            reason: reason.to_owned(),
        }
    }

    /// An edit of `key` (or of the file) that would not read back as
    /// intended: the fault is Rootgate's, not the file's.
    pub(crate) fn unwritable(file: &str, app: &'static str, key: &str) -> ConfigError {
        let reason = "Rootgate could not edit it so that it reads back as intended";
        ConfigError::shape(file, app, key, reason)
    }
}

/// A file that an app reads: which app, where, and in what syntax.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigFile {
    pub app: AppKind,
    pub path: PathBuf,
    pub format: Format,
}

/// Reads the entries of `text`, a file of `app`. `file` names it in errors.
pub fn parse(app: AppKind, file: &str, text: &str) -> Result<ParsedConfig, ConfigError> {
    match app {
        AppKind::Goose => goose::parse(file, text),
        AppKind::Codex => codex::parse(file, text),
        AppKind::Continue if !continue_dev::is_json(text) => continue_dev::parse(file, text),
        _ => json::parse(app, file, text),
    }
}

/// `text` with each entry in `routes` rewritten to run `rootgate connect`,
/// everything else kept as it was, byte for byte where the syntax allows.
pub fn rewrite(
    app: AppKind,
    file: &str,
    text: &str,
    routes: &[RouteTo],
) -> Result<String, ConfigError> {
    match app {
        AppKind::Goose => goose::rewrite(file, text, routes),
        AppKind::Codex => codex::rewrite(file, text, routes),
        AppKind::Continue if !continue_dev::is_json(text) => {
            continue_dev::rewrite(file, text, routes)
        }
        _ => json::rewrite(app, file, text, routes),
    }
}

/// `current` with each entry named in `entries` put back as `original` (an
/// earlier version of the same file) had it, everything else in `current`
/// kept: how a route is undone when the app changed the file since.
pub fn restore(
    app: AppKind,
    file: &str,
    current: &str,
    original: &str,
    entries: &[(Scope, String)],
) -> Result<String, ConfigError> {
    match app {
        AppKind::Goose => goose::restore(file, current, original, entries),
        AppKind::Codex => codex::restore(file, current, original, entries),
        AppKind::Continue if !continue_dev::is_json(current) => {
            continue_dev::restore(file, current, original, entries)
        }
        _ => json::restore(app, file, current, original, entries),
    }
}
