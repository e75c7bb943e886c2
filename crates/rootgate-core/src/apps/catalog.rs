//! What the window's "Connect an app" view and `rootgate apps` show: each
//! app found on this machine, its config files, and each server entry with
//! whether it is imported, routed, and what importing it would offer.
//!
//! Also the import itself, on a [`Store`], so that the window and the
//! `rootgate` command share one path: an entry becomes a server that is not
//! enabled and not approved, recorded in the [`Ledger`] so a second import
//! finds it. The window then asks for approval and consent; the command
//! points at the window. Nothing here shares a folder or approves a
//! command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use super::import::{self, ImportError, ImportPlan, Need};
use super::locate::{self, Places};
use super::route::{ImportRecord, Ledger, LedgerData, RouteError};
use super::{AppKind, ConfigFile, Format, ParsedConfig, Scope, Transport, parse};
use crate::ids::{ServerId, now_ms};
use crate::servers::{ServerSpec, shell_quote};
use crate::store::{Store, StoreError};

/// An app found on this machine.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppView {
    pub app: AppKind,
    pub title: String,
    pub files: Vec<FileView>,
}

/// One of an app's config files.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileView {
    /// Which of the app's files this is, for the window's commands (the
    /// webview never names a file by its path).
    pub index: u32,
    pub path: PathBuf,
    pub format: Format,
    pub exists: bool,
    /// Why it cannot be read, in words; its servers are then unknown.
    pub problem: Option<String>,
    /// Whether Rootgate routed it and can undo that.
    pub routed_by_rootgate: bool,
    pub servers: Vec<EntryView>,
}

/// A server entry of an app's config.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EntryView {
    pub scope: Scope,
    pub key: String,
    /// The command line with environment values hidden, or the URL of a
    /// remote server.
    pub command_line: String,
    pub env_names: Vec<String>,
    pub remote: bool,
    pub enabled: bool,
    /// `NAME` when the entry runs `rootgate connect NAME`.
    pub routed_to: Option<String>,
    /// The Rootgate server it was imported as.
    pub imported_as: Option<ImportedAs>,
    /// What importing it would offer and ask.
    pub folders: Vec<PathBuf>,
    pub needs: Vec<Need>,
    pub kept_paths: Vec<String>,
    /// The command Rootgate would add, with folder placeholders.
    pub import_command_line: Option<String>,
    /// Why it cannot be imported, when it cannot.
    pub not_importable: Option<String>,
}

#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportedAs {
    pub id: ServerId,
    pub name: String,
}

/// Why an app action could not be done.
#[derive(Debug, Error)]
pub enum AppsError {
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Route(#[from] RouteError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{app} has no config file number {index}")]
    NoFile { app: &'static str, index: u32 },
    #[error("{file}: there is no server `{key}`")]
    NoEntry { file: String, key: String },
    #[error("`{key}` is already in Rootgate as `{name}`")]
    AlreadyImported { key: String, name: String },
    #[error(
        "the `rootgate` command is not beside {program}, so an app could not run it; \
         install Rootgate from its package (scripts/package.sh --install)"
    )]
    NoCommand { program: String },
}

/// The config files of `app`: its main file, and for Claude Code the
/// `.mcp.json` of each project its main file names.
pub fn files_of(app: AppKind, places: &Places) -> Vec<ConfigFile> {
    let main = locate::main_file(app, places);
    let mut files = vec![main.clone()];
    if app == AppKind::ClaudeCode
        && let Ok(text) = std::fs::read_to_string(&main.path)
        && let Ok(parsed) = parse(app, &main.path.display().to_string(), &text)
    {
        files.extend(locate::project_files(&parsed.projects));
    }
    files
}

/// The file `index` of `app`.
pub fn file_of(app: AppKind, index: u32, places: &Places) -> Result<ConfigFile, AppsError> {
    files_of(app, places)
        .into_iter()
        .nth(index as usize)
        .ok_or(AppsError::NoFile {
            app: app.title(),
            index,
        })
}

/// Every app installed here, with its files and servers.
pub fn survey(places: &Places, ledger: &LedgerData, servers: &[ServerSpec]) -> Vec<AppView> {
    AppKind::ALL
        .iter()
        .filter(|app| locate::installed(**app, places))
        .map(|&app| AppView {
            app,
            title: app.title().to_owned(),
            files: files_of(app, places)
                .into_iter()
                .enumerate()
                .map(|(i, file)| file_view(i as u32, &file, places, ledger, servers))
                .collect(),
        })
        .collect()
}

/// Reads `file`: its text (empty when it does not exist) and what it holds.
pub fn read(file: &ConfigFile) -> Result<(bool, ParsedConfig), String> {
    match std::fs::read_to_string(&file.path) {
        Ok(text) => parse(file.app, &file.path.display().to_string(), &text)
            .map(|parsed| (true, parsed))
            .map_err(|e| e.to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((false, ParsedConfig::default())),
        Err(e) => Err(format!("{}: cannot be read: {e}", file.path.display())),
    }
}

fn file_view(
    index: u32,
    file: &ConfigFile,
    places: &Places,
    ledger: &LedgerData,
    servers: &[ServerSpec],
) -> FileView {
    let (exists, parsed, problem) = match read(file) {
        Ok((exists, parsed)) => (exists, parsed, None),
        Err(problem) => (true, ParsedConfig::default(), Some(problem)),
    };
    let entries = parsed
        .entries
        .iter()
        .map(|entry| {
            let planned = import::plan(
                file.app,
                &file.path,
                entry,
                &parsed.inputs,
                Some(&places.home),
            );
            entry_view(file, entry, planned, ledger, servers)
        })
        .collect();
    FileView {
        index,
        path: file.path.clone(),
        format: file.format,
        exists,
        problem,
        routed_by_rootgate: ledger.routes.iter().any(|r| r.file == file.path),
        servers: entries,
    }
}

fn entry_view(
    file: &ConfigFile,
    entry: &super::RawEntry,
    planned: Result<ImportPlan, ImportError>,
    ledger: &LedgerData,
    servers: &[ServerSpec],
) -> EntryView {
    let (command_line, env_names, remote, routed_to) = match &entry.transport {
        Transport::Stdio {
            command, args, env, ..
        } => {
            let mut parts: Vec<String> = env.keys().map(|k| format!("{k}=…")).collect();
            parts.push(shell_quote(command));
            parts.extend(args.iter().map(|a| shell_quote(a)));
            (
                parts.join(" "),
                env.keys().cloned().collect(),
                false,
                import::routed_name(command, args),
            )
        }
        Transport::Remote { url } => (url.clone(), Vec::new(), true, None),
    };
    let imported_as = imported_as(
        file,
        &entry.scope,
        &entry.key,
        planned.as_ref().ok(),
        ledger,
        servers,
    );
    let (folders, needs, kept_paths, import_command_line, not_importable) = match planned {
        Ok(plan) => {
            let mut parts: Vec<String> = plan.draft.env.keys().map(|k| format!("{k}=…")).collect();
            parts.push(shell_quote(&plan.draft.command));
            parts.extend(plan.draft.args.iter().map(|a| shell_quote(a)));
            (
                plan.folders,
                plan.needs,
                plan.kept_paths,
                Some(parts.join(" ")),
                None,
            )
        }
        Err(e) => (
            Vec::new(),
            Vec::new(),
            Vec::new(),
            None,
            Some(e.to_string()),
        ),
    };
    EntryView {
        scope: entry.scope.clone(),
        key: entry.key.clone(),
        command_line,
        env_names,
        remote,
        enabled: entry.enabled,
        routed_to,
        imported_as,
        folders,
        needs,
        kept_paths,
        import_command_line,
        not_importable,
    }
}

/// The Rootgate server an entry was imported as: by the ledger's record,
/// or, for a server added by hand, by the same command and arguments.
fn imported_as(
    file: &ConfigFile,
    scope: &Scope,
    key: &str,
    plan: Option<&ImportPlan>,
    ledger: &LedgerData,
    servers: &[ServerSpec],
) -> Option<ImportedAs> {
    let recorded = ledger
        .imports
        .iter()
        .filter(|r| r.app == file.app && r.file == file.path && &r.scope == scope && r.key == key)
        .find_map(|r| servers.iter().find(|s| s.id == r.server));
    let same = || {
        let plan = plan?;
        servers
            .iter()
            .find(|s| s.command == plan.draft.command && s.args == plan.draft.args)
    };
    recorded.or_else(same).map(|s| ImportedAs {
        id: s.id.clone(),
        name: s.name.clone(),
    })
}

/// The Rootgate server name for each entry of `file` that was imported, for
/// `route::plan_route`.
pub fn server_names(
    file: &ConfigFile,
    places: &Places,
    ledger: &LedgerData,
    servers: &[ServerSpec],
) -> BTreeMap<(Scope, String), String> {
    let view = file_view(0, file, places, ledger, servers);
    view.servers
        .into_iter()
        .filter_map(|e| Some(((e.scope, e.key), e.imported_as?.name)))
        .collect()
}

/// What an import did: the server added (not enabled, not approved) and the
/// folders to offer for sharing with it.
#[derive(Debug, Clone)]
pub struct Imported {
    pub server: ServerSpec,
    /// Whether the server was in Rootgate already with the same command
    /// (from another app, or added by hand), and this entry now maps to it.
    pub existed: bool,
    pub folders: Vec<PathBuf>,
    pub kept_paths: Vec<String>,
}

/// Imports the entry `key` (in `scope`) of `file` into `store`, with the
/// person's `values` for its needs, and records it in `ledger`. Its name is
/// the entry's, or the entry's with a number when that name is taken.
pub fn import_entry(
    store: &Store,
    ledger: &Ledger,
    places: &Places,
    file: &ConfigFile,
    scope: &Scope,
    key: &str,
    values: &BTreeMap<String, String>,
) -> Result<Imported, AppsError> {
    let shown = file.path.display().to_string();
    let (_, parsed) = read(file).map_err(|reason| RouteError::Nothing {
        file: shown.clone(),
        reason,
    })?;
    let entry = parsed
        .entries
        .iter()
        .find(|e| &e.scope == scope && e.key == key)
        .ok_or_else(|| AppsError::NoEntry {
            file: shown.clone(),
            key: key.to_owned(),
        })?;
    let mut plan = import::plan(
        file.app,
        &file.path,
        entry,
        &parsed.inputs,
        Some(&places.home),
    )?;
    let settings = store.snapshot();
    let known = ledger.load()?;
    let recorded = known
        .imports
        .iter()
        .any(|r| r.app == file.app && r.file == file.path && &r.scope == scope && r.key == key);
    let existing = imported_as(file, scope, key, Some(&plan), &known, &settings.servers);
    let (server, existed) = match existing {
        Some(existing) if recorded => {
            return Err(AppsError::AlreadyImported {
                key: key.to_owned(),
                name: existing.name,
            });
        }
        // The same command is in Rootgate already (another app's import, or
        // added by hand): this entry becomes that server, and its folders are
        // offered to it, rather than a second copy of one server.
        Some(existing) => (store.server(&existing.id)?, true),
        None => {
            plan.fill(values)?;
            plan.draft.name = free_name(&plan.draft.name, &settings.servers);
            (store.add_server(plan.draft.clone())?, false)
        }
    };
    ledger.change(|data| {
        data.imports.push(ImportRecord {
            app: file.app,
            file: file.path.clone(),
            scope: scope.clone(),
            key: key.to_owned(),
            server: server.id.clone(),
            at: now_ms(),
        });
        Ok(())
    })?;
    Ok(Imported {
        server,
        existed,
        folders: plan.folders,
        kept_paths: plan.kept_paths,
    })
}

/// The values of `set` (by [`Need::token`]) that `entry` needs: one set of
/// values given on a command line can serve several servers, and a value
/// meant for another is not a typo there.
pub fn values_for(
    set: &BTreeMap<String, String>,
    file: &ConfigFile,
    entry: &super::RawEntry,
    inputs: &[super::InputDecl],
    places: &Places,
) -> BTreeMap<String, String> {
    let Ok(plan) = import::plan(file.app, &file.path, entry, inputs, Some(&places.home)) else {
        return BTreeMap::new();
    };
    set.iter()
        .filter(|(token, _)| plan.needs.iter().any(|n| &&n.token == token))
        .map(|(t, v)| (t.clone(), v.clone()))
        .collect()
}

/// `name`, or `name-2`, `name-3`… when a server has it already.
fn free_name(name: &str, servers: &[ServerSpec]) -> String {
    let taken = |n: &str| servers.iter().any(|s| s.name.eq_ignore_ascii_case(n));
    if !taken(name) {
        return name.to_owned();
    }
    (2..)
        .map(|i| format!("{name}-{i}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| name.to_owned())
}

/// The `rootgate` program to write into an app's config: the one beside
/// `exe` (the desktop app's binary, or the command itself), by absolute
/// path, and the environment a bridge needs to find `settings`. None when
/// there is no `rootgate` there: writing another program would leave the
/// app with an entry that does not run.
pub fn target(exe: &Path, settings: &Path, places: &Places) -> Option<super::route::Target> {
    let program = if exe.file_name().is_some_and(|n| n == "rootgate") {
        exe.to_path_buf()
    } else {
        exe.parent()
            .map(|dir| dir.join("rootgate"))
            .filter(|p| p.is_file())?
    };
    let mut env = BTreeMap::new();
    // A bridge finds the settings in `$XDG_CONFIG_HOME/rootgate`; an app
    // may start it with another environment, so a settings folder that is
    // not the default one is written into the entry.
    let default = places.home.join(".config/rootgate/settings.json");
    if settings != default
        && let Some(config_home) = settings.parent().and_then(Path::parent)
    {
        env.insert(
            "XDG_CONFIG_HOME".to_owned(),
            config_home.display().to_string(),
        );
    }
    Some(super::route::Target { program, env })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::servers::ServerDraft;

    #[test]
    fn a_taken_name_gets_the_first_free_number() {
        let spec = |name: &str| {
            ServerDraft {
                name: name.into(),
                command: "x".into(),
                ..ServerDraft::default()
            }
            .validate(ServerId::generate(), [])
            .unwrap()
        };
        let servers = [spec("files"), spec("Files-2")];
        assert_eq!(free_name("github", &servers), "github");
        assert_eq!(free_name("files", &servers), "files-3");
    }
}
