//! What the window's "Connect an app" view and `rootgate apps` show: each
//! app found on this machine, its config files, and each server entry with
//! whether it is imported, routed, and what importing it would offer.
//!
//! Also the import itself, on a [`Store`], so that the window and the
//! `rootgate` command share one path: an entry becomes a server that is not
//! enabled and not approved, recorded in the [`Ledger`] so a second import
//! finds it. It joins a server already in Rootgate only when it runs
//! exactly what that server runs (`identity`), or when the person chose
//! that server, seeing how the two differ (`standing`). The window then asks
//! for approval and consent; the command points at the window. Nothing
//! here shares a folder or approves a command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use super::identity;
use super::import::{self, ImportError, ImportPlan, Need};
use super::locate::{self, Places};
use super::route::{ImportRecord, Ledger, LedgerData, RouteError};
pub use super::standing::{Candidate, DoubtfulLink, ImportedAs};
use super::standing::{is_this, standing};
use super::{AppKind, ConfigFile, Format, ParsedConfig, Scope, Transport, parse};
use rootgate_model::ids::{ServerId, now_ms};
use rootgate_model::servers::{ServerSpec, mask_args, shell_quote};
use rootgate_model::settings::Settings;
use rootgate_model::store::{Store, StoreError};

/// An app found on this machine.
#[derive(ts_rs::TS, Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AppView {
    pub app: AppKind,
    pub title: String,
    pub files: Vec<FileView>,
}

/// One of an app's config files.
#[derive(ts_rs::TS, Debug, Clone, Serialize)]
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
#[derive(ts_rs::TS, Debug, Clone, Serialize)]
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
    /// The Rootgate server it was imported as, when that link holds.
    pub imported_as: Option<ImportedAs>,
    /// A link in Rootgate's record that is not trusted, and why: the entry
    /// changed since it was imported, or an earlier Rootgate made the link
    /// without comparing the entries. Routing leaves such an entry alone.
    pub doubtful_link: Option<DoubtfulLink>,
    /// A server that runs exactly what this entry runs (command, arguments,
    /// folders, environment, working folder): importing it links it there.
    pub same_as: Option<ImportedAs>,
    /// Servers the person may choose to use instead of adding a new one:
    /// those running the same program with the same arguments, and the one
    /// a doubtful link names, each with how it differs.
    pub candidates: Vec<Candidate>,
    /// What importing it would offer and ask.
    pub folders: Vec<PathBuf>,
    pub needs: Vec<Need>,
    pub kept_paths: Vec<String>,
    /// The command Rootgate would add, with folder placeholders.
    pub import_command_line: Option<String>,
    /// Why it cannot be imported, when it cannot.
    pub not_importable: Option<String>,
}

/// How an imported entry joined Rootgate.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum Joined {
    /// As a server of its own, added now.
    New,
    /// As a server that runs exactly what it runs.
    Same,
    /// As a server the person chose, which differs from it thus.
    Chosen { differences: Vec<String> },
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
    #[error("there is no server `{name}` in Rootgate to use for `{key}`")]
    NoServer { key: String, name: String },
    #[error(
        "the `rootgate` command is not beside {program}, so an app could not run it; \
         install Rootgate from its package (scripts/package.sh --install)"
    )]
    NoCommand { program: String },
}

/// The config files of `app`: its main file, for Claude Code the
/// `.mcp.json` of each project its main file names, and the other files
/// some apps read beside their main one (`locate::extra_files`).
pub fn files_of(app: AppKind, places: &Places) -> Vec<ConfigFile> {
    let main = locate::main_file(app, places);
    let mut files = vec![main.clone()];
    files.extend(locate::extra_files(app, places));
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
pub fn survey(places: &Places, ledger: &LedgerData, settings: &Settings) -> Vec<AppView> {
    AppKind::ALL
        .iter()
        .filter(|app| locate::installed(**app, places))
        .map(|&app| AppView {
            app,
            title: app.title().to_owned(),
            files: files_of(app, places)
                .into_iter()
                .enumerate()
                .map(|(i, file)| file_view(i as u32, &file, places, ledger, settings))
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

pub(super) fn file_view(
    index: u32,
    file: &ConfigFile,
    places: &Places,
    ledger: &LedgerData,
    settings: &Settings,
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
            entry_view(file, entry, planned, ledger, settings)
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

/// For each entry of `file`, the Rootgate server to route it to, or why it
/// is left alone, for `route::plan_route`.
pub fn server_names(
    file: &ConfigFile,
    places: &Places,
    ledger: &LedgerData,
    settings: &Settings,
) -> BTreeMap<(Scope, String), Result<String, String>> {
    let view = file_view(0, file, places, ledger, settings);
    view.servers
        .into_iter()
        .map(|e| {
            let to = match (e.imported_as, e.doubtful_link, e.same_as) {
                // A secret stored nowhere is not taken out of the file.
                (Some(server), _, _) => match settings
                    .servers
                    .iter()
                    .find(|s| s.id == server.id)
                    .and_then(super::route::unstored_secrets)
                {
                    Some(why) => Err(why),
                    None => Ok(server.name),
                },
                (None, Some(link), _) => Err(format!(
                    "its link to `{}` is not trusted: {}",
                    link.server.name, link.reason
                )),
                (None, None, Some(same)) => Err(format!(
                    "it is not imported yet; it runs exactly what `{}` runs, so importing it \
                     links it there",
                    same.name
                )),
                (None, None, None) => {
                    Err("it is not imported into Rootgate yet; import it first".into())
                }
            };
            ((e.scope, e.key), to)
        })
        .collect()
}

fn entry_view(
    file: &ConfigFile,
    entry: &super::RawEntry,
    planned: Result<ImportPlan, ImportError>,
    ledger: &LedgerData,
    settings: &Settings,
) -> EntryView {
    let (command_line, env_names, remote, routed_to) = match &entry.transport {
        Transport::Stdio {
            command, args, env, ..
        } => {
            let mut parts: Vec<String> = env.keys().map(|k| format!("{k}=…")).collect();
            parts.push(shell_quote(command));
            // Secrets written in arguments are never shown (`mask_args`).
            parts.extend(mask_args(args).iter().map(|a| shell_quote(a)));
            (
                parts.join(" "),
                env.keys().cloned().collect(),
                false,
                import::routed_name(command, args),
            )
        }
        Transport::Remote { url } => (url.clone(), Vec::new(), true, None),
    };
    let standing = standing(
        file,
        &entry.scope,
        &entry.key,
        planned.as_ref().ok(),
        ledger,
        settings,
    );
    let (folders, needs, kept_paths, import_command_line, not_importable) = match planned {
        Ok(plan) => {
            let mut parts: Vec<String> = plan.draft.env.keys().map(|k| format!("{k}=…")).collect();
            parts.push(shell_quote(&plan.draft.command));
            parts.extend(mask_args(&plan.draft.args).iter().map(|a| shell_quote(a)));
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
        imported_as: standing.imported_as,
        doubtful_link: standing.doubtful_link,
        same_as: standing.same_as,
        candidates: standing.candidates,
        folders,
        needs,
        kept_paths,
        import_command_line,
        not_importable,
    }
}

/// What an import did: the server added (not enabled, not approved), or
/// the one the entry now maps to, and the folders to offer for sharing
/// with it.
#[derive(Debug, Clone)]
pub struct Imported {
    pub server: ServerSpec,
    pub joined: Joined,
    pub folders: Vec<PathBuf>,
    pub kept_paths: Vec<String>,
}

/// Imports the entry `key` (in `scope`) of `file` into `store`, with the
/// person's `values` for its needs, and records it in `ledger`.
///
/// The entry becomes a new server (named after it, with a number when that
/// name is taken), unless a server runs exactly what it runs, values
/// filled, or the person chose `existing`: then it maps to that one, and
/// its folders are offered to it. A link the ledger holds but does not
/// trust (see [`EntryView::doubtful_link`]) is replaced.
#[allow(clippy::too_many_arguments)]
pub fn import_entry(
    store: &Store,
    ledger: &Ledger,
    places: &Places,
    file: &ConfigFile,
    scope: &Scope,
    key: &str,
    values: &BTreeMap<String, String>,
    existing: Option<&ServerId>,
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
    let standing = standing(file, scope, key, Some(&plan), &known, &settings);
    if let Some(linked) = standing.imported_as {
        return Err(AppsError::AlreadyImported {
            key: key.to_owned(),
            name: linked.name,
        });
    }
    let entry_digest = identity::entry_digest(&plan);
    let (server, joined, identity) = match existing {
        Some(id) => {
            let server = store.server(id)?;
            let shared = identity::shared_folders(&settings, &server);
            let differences = identity::differences(&plan, &server, &shared);
            (
                server,
                Joined::Chosen { differences },
                identity::identity(&plan, false),
            )
        }
        None => {
            plan.fill(values)?;
            let identity = identity::identity(&plan, true);
            let same = identity
                .as_ref()
                .and_then(|id| {
                    known
                        .imports
                        .iter()
                        .filter(|r| r.identity.as_ref() == Some(id))
                        .find_map(|r| settings.servers.iter().find(|s| s.id == r.server))
                })
                .or_else(|| {
                    let same = standing.same_as.as_ref()?;
                    settings.servers.iter().find(|s| s.id == same.id)
                });
            match same {
                Some(server) => (server.clone(), Joined::Same, identity),
                None => {
                    plan.draft.name =
                        rootgate_model::servers::free_name(&plan.draft.name, &settings.servers);
                    (store.add_server(plan.draft.clone())?, Joined::New, identity)
                }
            }
        }
    };
    ledger.change(|data| {
        // A doubtful record of this entry gives way to this one.
        data.imports.retain(|r| !is_this(r, file, scope, key));
        data.imports.push(ImportRecord {
            app: file.app,
            file: file.path.clone(),
            scope: scope.clone(),
            key: key.to_owned(),
            server: server.id.clone(),
            at: now_ms(),
            entry: Some(entry_digest),
            identity,
        });
        Ok(())
    })?;
    Ok(Imported {
        server,
        joined,
        folders: plan.folders,
        kept_paths: plan.kept_paths,
    })
}

/// What an import did, in words for a terminal: a line saying how the
/// entry `key` joined, and for a chosen server how it differs. `next` is
/// what the person does about a new server.
pub fn joined_lines(key: &str, done: &Imported, next: &str) -> Vec<String> {
    let name = &done.server.name;
    match &done.joined {
        Joined::New => vec![format!("Imported `{key}` as {name}: {next}.")],
        Joined::Same => vec![format!(
            "`{key}` runs exactly what {name} runs (the same command, arguments, folders, \
             environment and working folder), so it is that server now."
        )],
        Joined::Chosen { differences } => {
            let mut lines = vec![format!("`{key}` now uses {name}, as you chose.")];
            lines.extend(differences.iter().map(|d| format!("  Differs: {d}.")));
            lines
        }
    }
}

/// The server named `name`, for a person who chose it by name on a command
/// line.
pub fn server_named(store: &Store, key: &str, name: &str) -> Result<ServerId, AppsError> {
    store
        .snapshot()
        .servers
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name))
        .map(|s| s.id.clone())
        .ok_or_else(|| AppsError::NoServer {
            key: key.to_owned(),
            name: name.to_owned(),
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
        .filter(|(token, _)| plan.needs.iter().any(|n| n.answers(token)))
        .map(|(t, v)| (t.clone(), v.clone()))
        .collect()
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

/// Why `program` is a poor thing to write into an app's config, when it
/// is: it lies in a Cargo build folder (one holding `CACHEDIR.TAG`, as
/// Cargo's `target` does), which a rebuild replaces and a clean removes,
/// so the app would lose its servers. Rootgate installed from its package
/// is `/usr/bin/rootgate`.
pub fn build_folder_warning(program: &Path) -> Option<String> {
    let build = program
        .ancestors()
        .skip(1)
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())?;
    let installed = Path::new("/usr/bin/rootgate");
    let instead = if installed.is_file() {
        format!(
            "run the installed {} (`{} route …`) so the app keeps working",
            installed.display(),
            installed.display()
        )
    } else {
        "install Rootgate from its package (scripts/package.sh --install) and route with it"
            .to_owned()
    };
    Some(format!(
        "warning: this writes {}, in the build folder {}, which a rebuild replaces and a \
         clean removes; {instead}",
        rootgate_model::names::written_out(&program.display().to_string()),
        rootgate_model::names::written_out(&build.display().to_string()),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use rootgate_model::servers::ServerDraft;

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
        assert_eq!(
            rootgate_model::servers::free_name("github", &servers),
            "github"
        );
        assert_eq!(
            rootgate_model::servers::free_name("files", &servers),
            "files-3"
        );
    }

    #[test]
    fn a_program_in_a_cargo_build_folder_is_warned_about() {
        let dir = tempfile::tempdir().unwrap();
        let debug = dir.path().join("target/debug");
        std::fs::create_dir_all(&debug).unwrap();
        let program = debug.join("rootgate");
        assert_eq!(build_folder_warning(&program), None);
        std::fs::write(dir.path().join("target/CACHEDIR.TAG"), "Signature").unwrap();
        let said = build_folder_warning(&program).unwrap();
        assert!(said.contains("build folder"), "{said}");
        assert!(said.contains(&program.display().to_string()), "{said}");
    }
}
