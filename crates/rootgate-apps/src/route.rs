//! Routing an AI app through Rootgate: planning the rewrite of its config
//! file (with the diff the person reads first), writing it atomically beside
//! a backup, and undoing it.
//!
//! A plan remembers the digest of the file as it was read; applying it reads
//! the file again and refuses when the digest differs, so a file the app
//! changed after the person read the diff is never overwritten. The file is
//! written through a temporary file and a rename (a symlink to it stays a
//! symlink: its target is written), and the original bytes go to a backup
//! beside it first. The [`Ledger`] (`apps.json` beside Rootgate's settings)
//! keeps, per file, the backup and the digest of what Rootgate wrote, and
//! which app entries were imported as which servers. Undo restores the
//! backup byte for byte when the file is still what Rootgate wrote; when
//! the app changed it since, undo puts back only the routed entries, as a
//! new plan with its own diff.
//!
//! What is not here: which server an entry maps to (the caller says), and
//! anything about Rootgate's own settings.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::import::routed_name;
use super::{AppKind, ConfigError, RawEntry, RouteTo, Scope, Transport, parse, restore, rewrite};
use rootgate_model::ids::now_ms;

mod files;
mod ledger;

pub use files::write_private;
use files::{backup_path, check_replaceable, real_target, swap_in, temp_path, write_new};
use ledger::Locked;
pub use ledger::{ImportRecord, Ledger, LedgerData, Pending, PendingKind, RouteRecord};

/// What a masked value is shown as in a diff.
const MASK: &str = "••••••";
/// Values shorter than this are not masked in diffs: `"1"` or `"true"` would
/// mask half the file, and a secret is longer.
const MASK_MIN: usize = 6;

/// Why routing or undoing did not happen. Nothing was written when one is
/// returned.
#[derive(Debug, Error)]
pub enum RouteError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{file}: cannot be read: {source}")]
    Read { file: String, source: io::Error },
    #[error("{file}: cannot be written: {source}")]
    Write { file: String, source: io::Error },
    #[error(
        "{file} changed since Rootgate read it (the app, or another program, wrote it); \
         nothing was written. Look at it again and retry"
    )]
    Changed { file: String },
    #[error("{file}: nothing to route: {reason}")]
    Nothing { file: String, reason: String },
    #[error(
        "{file} is already routed through Rootgate: each of its servers runs `rootgate connect`"
    )]
    AlreadyRouted { file: String },
    #[error("{file}: Rootgate has no record of routing it, so there is nothing to undo")]
    NotRouted { file: String },
    #[error(
        "{file} is read-only: its permissions say it is to be kept as it is, so Rootgate \
         does not replace it. Make it writable (chmod u+w) if you want it routed"
    )]
    ReadOnly { file: String },
    #[error(
        "{file} belongs to {owner}, not to you: Rootgate does not replace another user's \
         file (it would come back owned by you). Change its owner if it is yours"
    )]
    NotOwned { file: String, owner: String },
    #[error("the backup {backup} is gone, so the original cannot be restored from it")]
    BackupGone { backup: String },
    #[error("Rootgate's record of imports and routes ({file}) cannot be used: {reason}")]
    Ledger { file: String, reason: String },
}

/// An entry a route rewrites, and the Rootgate server it reaches.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoutedEntry {
    pub scope: Scope,
    pub key: String,
    /// The server's name in Rootgate (`rootgate connect NAME`).
    pub server: String,
}

/// An entry a route leaves as it is, and why.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub scope: Scope,
    pub key: String,
    pub reason: String,
}

/// A rewrite of one file, planned and not yet written.
#[derive(Debug, Clone)]
pub struct Plan {
    pub app: AppKind,
    /// The file as the app names it.
    pub file: PathBuf,
    pub before: String,
    pub after: String,
    /// A unified diff of the change, environment values masked.
    pub diff: String,
    pub entries: Vec<RoutedEntry>,
    pub skipped: Vec<Skipped>,
    /// An undo that puts entries back into a file the app changed since it
    /// was routed, rather than the exact original.
    pub partial_undo: bool,
    read: String,
}

impl Plan {
    /// The plan to change `file` of `app` (`shown` as errors name it) from
    /// `before`, as read now, to `after`: its masked diff and the digest
    /// that says whether the file is still as read when it is applied. It
    /// names no entries and skips none; routing and undoing say which.
    fn change(app: AppKind, file: &Path, shown: &str, before: String, after: String) -> Plan {
        Plan {
            app,
            diff: masked_diff(app, shown, &before, &after),
            read: digest(&before),
            file: file.to_path_buf(),
            before,
            after,
            entries: Vec::new(),
            skipped: Vec::new(),
            partial_undo: false,
        }
    }
}

/// What `rootgate connect` is in an app's config: the absolute path of the
/// installed program, and the environment a bridge needs to find these
/// settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub program: PathBuf,
    pub env: BTreeMap<String, String>,
}

/// Plans routing `file` of `app`: each stdio entry named in `only` (every
/// entry when empty) that `server_of` maps to a Rootgate server is
/// rewritten to `rootgate connect NAME`; `server_of` says in words why it
/// maps another to none.
pub fn plan_route(
    app: AppKind,
    file: &Path,
    only: &[String],
    server_of: impl Fn(&Scope, &str) -> Result<String, String>,
    target: &Target,
) -> Result<Plan, RouteError> {
    let shown = file.display().to_string();
    let before = read(file)?;
    let parsed = parse(app, &shown, &before)?;
    if let Some(unknown) = only
        .iter()
        .find(|k| !parsed.entries.iter().any(|e| &&e.key == k))
    {
        return Err(ConfigError::NoSuchEntry {
            file: shown,
            key: unknown.clone(),
            scope: String::new(),
        }
        .into());
    }
    let chosen = parsed
        .entries
        .iter()
        .filter(|e| only.is_empty() || only.contains(&e.key));
    let Chosen {
        routes,
        entries,
        skipped,
    } = choose(chosen, &server_of, target).map_err(|why| why.about(shown.clone()))?;
    let after = rewrite(app, &shown, &before, &routes)?;
    Ok(Plan {
        entries,
        skipped,
        ..Plan::change(app, file, &shown, before, after)
    })
}

/// What routing the chosen entries of a file does: the routes to write,
/// the entries they route, and the entries left alone with why.
struct Chosen {
    routes: Vec<RouteTo>,
    entries: Vec<RoutedEntry>,
    skipped: Vec<Skipped>,
}

/// Why a file has nothing to route, before the file is named.
enum NothingToRoute {
    /// Every entry chosen runs through Rootgate already.
    AlreadyRouted,
    /// No entry can be routed; the reason says why.
    Nothing(String),
}

impl NothingToRoute {
    fn about(self, file: String) -> RouteError {
        match self {
            NothingToRoute::AlreadyRouted => RouteError::AlreadyRouted { file },
            NothingToRoute::Nothing(reason) => RouteError::Nothing { file, reason },
        }
    }
}

/// Decides each chosen entry: routed to the server `server_of` maps it to,
/// or skipped with the reason (a remote server, one routed already, one
/// that maps to no server); at least one must be routed.
fn choose<'e>(
    chosen: impl Iterator<Item = &'e RawEntry>,
    server_of: &impl Fn(&Scope, &str) -> Result<String, String>,
    target: &Target,
) -> Result<Chosen, NothingToRoute> {
    let mut routes = Vec::new();
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    let mut routed_already = 0;
    for entry in chosen {
        let skip = |reason: String| Skipped {
            scope: entry.scope.clone(),
            key: entry.key.clone(),
            reason,
        };
        let Transport::Stdio { command, args, .. } = &entry.transport else {
            skipped.push(skip(
                "it is a remote server; Rootgate runs local servers".into(),
            ));
            continue;
        };
        if let Some(name) = routed_name(command, args) {
            routed_already += 1;
            skipped.push(skip(format!(
                "it already runs through Rootgate, as `{name}`"
            )));
            continue;
        }
        let server = match server_of(&entry.scope, &entry.key) {
            Ok(server) => server,
            Err(reason) => {
                skipped.push(skip(reason));
                continue;
            }
        };
        routes.push(RouteTo {
            scope: entry.scope.clone(),
            key: entry.key.clone(),
            command: target.program.display().to_string(),
            args: vec!["connect".into(), server.clone()],
            env: target.env.clone(),
        });
        entries.push(RoutedEntry {
            scope: entry.scope.clone(),
            key: entry.key.clone(),
            server,
        });
    }
    if routes.is_empty() && routed_already > 0 && routed_already == skipped.len() {
        return Err(NothingToRoute::AlreadyRouted);
    }
    if routes.is_empty() {
        let reason = match skipped.first() {
            Some(s) if skipped.len() == 1 => format!("`{}`: {}", s.key, s.reason),
            Some(_) => "no server in it can be routed (see each one's reason)".into(),
            None => "it has no servers".into(),
        };
        return Err(NothingToRoute::Nothing(reason));
    }
    Ok(Chosen {
        routes,
        entries,
        skipped,
    })
}

/// A plan's file checked under the ledger's lock before it is written.
struct Checked<'l> {
    /// The file as errors name it.
    shown: String,
    locked: Locked<'l>,
    data: LedgerData,
    /// The file written: the link's target when the file is a link.
    target: PathBuf,
    /// What it holds now: what the plan read.
    current: String,
}

/// Takes the ledger's lock and checks that `plan`'s file is still as it
/// was read and may be replaced.
fn check_still_as_read<'l>(plan: &Plan, ledger: &'l Ledger) -> Result<Checked<'l>, RouteError> {
    let shown = plan.file.display().to_string();
    let locked = ledger.lock()?;
    let data = locked.load()?;
    let target = real_target(&plan.file);
    let current = read(&target)?;
    if digest(&current) != plan.read {
        return Err(RouteError::Changed { file: shown });
    }
    check_replaceable(&shown, &target)?;
    Ok(Checked {
        shown,
        locked,
        data,
        target,
        current,
    })
}

/// Writes a route plan: checks the file is still as read and may be
/// replaced, records the intent, backs the file up (the first time it is
/// routed), writes the new text and records the route. A process killed
/// anywhere in between leaves either the file as it was or the route
/// recorded (see `ledger`).
pub fn apply_route(plan: &Plan, ledger: &Ledger) -> Result<(), RouteError> {
    let Checked {
        shown,
        locked,
        mut data,
        target,
        current,
    } = check_still_as_read(plan, ledger)?;
    // A file already routed by Rootgate, unchanged since, keeps its first
    // backup: undo then goes back to the file before Rootgate.
    let earlier = data
        .routes
        .iter()
        .find(|r| r.file == plan.file && r.written == plan.read);
    let (backup, new_backup, mut entries) = match earlier {
        Some(record) => (record.backup.clone(), false, record.entries.clone()),
        None => (backup_path(&target), true, Vec::new()),
    };
    for entry in &plan.entries {
        if !entries
            .iter()
            .any(|e: &RoutedEntry| e.key == entry.key && e.scope == entry.scope)
        {
            entries.push(entry.clone());
        }
    }
    let pending = Pending {
        kind: PendingKind::Route,
        app: plan.app,
        file: plan.file.clone(),
        temp: temp_path(&target),
        target,
        backup,
        new_backup,
        before: plan.read.clone(),
        after: digest(&plan.after),
        entries,
        at: now_ms(),
    };
    let written = begin(&locked, &mut data, &pending, &shown).and_then(|()| {
        if pending.new_backup {
            write_new(&pending.backup, current.as_bytes(), 0o600).map_err(|source| {
                RouteError::Write {
                    file: pending.backup.display().to_string(),
                    source,
                }
            })?;
        }
        write_and_swap(&pending, &plan.after, &shown)
    });
    data.pending.retain(|p| p != &pending);
    if let Err(e) = written {
        if pending.new_backup {
            let _ = fs::remove_file(&pending.backup);
        }
        // The intent is dropped: the file is as it was.
        let _ = locked.save(&data);
        return Err(e);
    }
    data.routes.retain(|r| r.file != plan.file);
    data.routes.push(RouteRecord {
        app: plan.app,
        file: plan.file.clone(),
        backup: pending.backup,
        written: pending.after,
        entries: pending.entries,
        at: pending.at,
    });
    // Were this save lost, the intent saved before settles as this route.
    locked.save(&data)
}

/// Records `pending` in the ledger, synced, before the file is touched.
fn begin(
    locked: &Locked<'_>,
    data: &mut LedgerData,
    pending: &Pending,
    shown: &str,
) -> Result<(), RouteError> {
    // A temporary file left by a killed write of this same process id is
    // not a write under way: the lock is held.
    let _ = fs::remove_file(&pending.temp);
    data.pending.push(pending.clone());
    locked.save(data).map_err(|e| match e {
        RouteError::Ledger { reason, .. } => RouteError::Write {
            file: shown.to_owned(),
            source: io::Error::other(format!(
                "Rootgate could not record what it was about to write: {reason}"
            )),
        },
        other => other,
    })
}

/// Writes the temporary file of `pending` with `text` and puts it in place
/// when the file is still as read; the temporary file is gone either way.
fn write_and_swap(pending: &Pending, text: &str, shown: &str) -> Result<(), RouteError> {
    let swapped = files::write_temp(&pending.target, &pending.temp, text.as_bytes())
        .map_err(|source| RouteError::Write {
            file: shown.to_owned(),
            source,
        })
        .and_then(|()| swap_in(shown, &pending.target, &pending.temp, &pending.before));
    if swapped.is_err() {
        let _ = fs::remove_file(&pending.temp);
    }
    swapped
}

/// Plans undoing Rootgate's route of `file`: the backup's exact bytes when
/// the file is still what Rootgate wrote, or else the routed entries put
/// back into the file as it is now (`Plan::partial_undo`).
pub fn plan_undo(app: AppKind, file: &Path, ledger: &Ledger) -> Result<Plan, RouteError> {
    let shown = file.display().to_string();
    let data = ledger.load()?;
    let record =
        data.routes
            .iter()
            .find(|r| r.file == file)
            .ok_or_else(|| RouteError::NotRouted {
                file: shown.clone(),
            })?;
    let original = fs::read_to_string(&record.backup).map_err(|_| RouteError::BackupGone {
        backup: record.backup.display().to_string(),
    })?;
    let before = read(file)?;
    let exact = digest(&before) == record.written;
    let after = if exact {
        original
    } else {
        let keys: Vec<(Scope, String)> = record
            .entries
            .iter()
            .map(|e| (e.scope.clone(), e.key.clone()))
            .collect();
        restore(app, &shown, &before, &original, &keys)?
    };
    Ok(Plan {
        entries: record.entries.clone(),
        partial_undo: !exact,
        ..Plan::change(app, file, &shown, before, after)
    })
}

/// Writes an undo plan, checking the file is still as read and may be
/// replaced, and forgets the route. The backup is removed once its bytes
/// are back in place. Crash-safe as `apply_route` is.
pub fn apply_undo(plan: &Plan, ledger: &Ledger) -> Result<(), RouteError> {
    let Checked {
        shown,
        locked,
        mut data,
        target,
        ..
    } = check_still_as_read(plan, ledger)?;
    let Some(record) = data.routes.iter().find(|r| r.file == plan.file) else {
        return Err(RouteError::NotRouted { file: shown });
    };
    let pending = Pending {
        kind: PendingKind::Undo {
            partial: plan.partial_undo,
        },
        app: plan.app,
        file: plan.file.clone(),
        temp: temp_path(&target),
        target,
        backup: record.backup.clone(),
        new_backup: false,
        before: plan.read.clone(),
        after: digest(&plan.after),
        entries: record.entries.clone(),
        at: now_ms(),
    };
    let written = begin(&locked, &mut data, &pending, &shown)
        .and_then(|()| write_and_swap(&pending, &plan.after, &shown));
    data.pending.retain(|p| p != &pending);
    if let Err(e) = written {
        let _ = locked.save(&data);
        return Err(e);
    }
    data.routes.retain(|r| r.file != plan.file);
    locked.save(&data)?;
    if !plan.partial_undo {
        // Best effort, once the ledger no longer names it: a backup left
        // behind is only clutter, and `leftovers` names it.
        let _ = fs::remove_file(&pending.backup);
    }
    Ok(())
}

/// Why an entry imported as `server` is not routed: a secret of it is
/// stored nowhere (there was no keyring at import, and the person has not
/// said where to keep it), so the app's file holds its only lasting copy.
/// Routing removes the entry's environment from that file; keeping it
/// there instead would not help, since the server is started by Rootgate
/// with Rootgate's values, never the app's. Left as it is, the app keeps
/// working, and the entry can be routed once the value is kept.
pub(crate) fn unstored_secrets(server: &rootgate_model::servers::ServerSpec) -> Option<String> {
    let names: Vec<&str> = server
        .secrets
        .iter()
        .filter(|(_, place)| **place == rootgate_model::servers::SecretPlace::NotStored)
        .map(|(name, _)| name.as_str())
        .collect();
    if names.is_empty() {
        return None;
    }
    Some(format!(
        "{} is not stored anywhere in Rootgate (no keyring was available), so this file \
         holds its only lasting copy and routing would leave it only in a backup. Give it \
         again in the Rootgate window, which asks where to keep it, then route again",
        names.join(", ")
    ))
}

/// A diff of `before` and `after` for a person to read, with the
/// environment values of either version masked, and the secrets written in
/// arguments (`servers::arg_secrets`). An environment value that is an
/// absolute path (Rootgate's own `XDG_CONFIG_HOME`, a data folder) is left
/// readable: secrets are not written as paths, and the person should see
/// where things point.
pub(crate) fn masked_diff(app: AppKind, file: &str, before: &str, after: &str) -> String {
    let mut secrets: Vec<String> = [before, after]
        .iter()
        .filter_map(|text| parse(app, file, text).ok())
        .flat_map(|parsed| parsed.entries)
        .filter_map(|entry| match entry.transport {
            Transport::Stdio { env, args, .. } => Some(
                env.into_values()
                    .filter(|v| {
                        v.chars().count() >= MASK_MIN && !v.starts_with("${") && !v.starts_with('/')
                    })
                    // A secret written in an argument (`--api-key sk-…`,
                    // a Bearer token), whatever it looks like; a very short
                    // one is left, as an environment value is, rather than
                    // masking every place those letters appear.
                    .chain(
                        rootgate_model::servers::arg_secret_values(&args)
                            .into_iter()
                            .filter(|v| v.chars().count() >= MASK_MIN),
                    ),
            ),
            Transport::Remote { .. } => None,
        })
        .flatten()
        .collect();
    // Longest first, so a secret that contains another is masked whole.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let body = similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .to_string();
    let body = secrets
        .iter()
        .fold(body, |text, secret| text.replace(secret.as_str(), MASK));
    format!("--- {file} (now)\n+++ {file} (after the change)\n{body}")
}

fn read(file: &Path) -> Result<String, RouteError> {
    fs::read_to_string(file).map_err(|source| RouteError::Read {
        file: file.display().to_string(),
        source,
    })
}

/// The SHA-256 of `bytes`, hex.
fn digest(bytes: impl AsRef<[u8]>) -> String {
    Sha256::digest(bytes.as_ref())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_in_arguments_are_masked_in_the_diff() {
        let key = "sk-proj-abcdefghijklmnop1234";
        let before = format!(
            r#"{{"mcpServers": {{"keyed": {{"command": "srv", "args": ["--api-key", "{key}", "--header", "Authorization: Bearer tok123456", "--password", "hunter22"]}}}}}}
"#
        );
        let after = "{\"mcpServers\": {\"keyed\": {\"command\": \"rootgate\", \"args\": [\"connect\", \"keyed\"]}}}\n";
        let diff = masked_diff(
            AppKind::ClaudeDesktop,
            "claude_desktop_config.json",
            &before,
            after,
        );
        for secret in [key, "tok123456", "hunter22"] {
            assert!(!diff.contains(secret), "{secret} in {diff}");
        }
        assert!(diff.contains("Authorization: Bearer ••••••"), "{diff}");
        assert!(diff.contains("--api-key"), "{diff}");
    }
}
