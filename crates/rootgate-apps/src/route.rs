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
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::import::routed_name;
use super::{AppKind, ConfigError, RouteTo, Scope, Transport, parse, restore, rewrite};
use rootgate_model::ids::{ServerId, now_ms};

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
    let mut routes = Vec::new();
    let mut entries = Vec::new();
    let mut skipped = Vec::new();
    let mut routed_already = 0;
    for entry in &parsed.entries {
        if !only.is_empty() && !only.contains(&entry.key) {
            continue;
        }
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
        return Err(RouteError::AlreadyRouted { file: shown });
    }
    if routes.is_empty() {
        let reason = match skipped.first() {
            Some(s) if skipped.len() == 1 => format!("`{}`: {}", s.key, s.reason),
            Some(_) => "no server in it can be routed (see each one's reason)".into(),
            None => "it has no servers".into(),
        };
        return Err(RouteError::Nothing {
            file: shown,
            reason,
        });
    }
    let after = rewrite(app, &shown, &before, &routes)?;
    Ok(Plan {
        app,
        diff: masked_diff(app, &shown, &before, &after),
        read: digest(&before),
        file: file.to_path_buf(),
        before,
        after,
        entries,
        skipped,
        partial_undo: false,
    })
}

/// Writes a route plan: checks the file is still as read, backs it up (the
/// first time it is routed), writes the new text and records the route.
pub fn apply_route(plan: &Plan, ledger: &Ledger) -> Result<(), RouteError> {
    let shown = plan.file.display().to_string();
    ledger.change(|data| {
        let current = read(&plan.file)?;
        if digest(&current) != plan.read {
            return Err(RouteError::Changed {
                file: shown.clone(),
            });
        }
        let target = real_target(&plan.file);
        // A file already routed by Rootgate, unchanged since, keeps its
        // first backup: undo then goes back to the file before Rootgate.
        let earlier = data
            .routes
            .iter()
            .position(|r| r.file == plan.file && r.written == plan.read);
        let (backup, mut entries) = match earlier {
            Some(i) => {
                let record = data.routes.remove(i);
                (record.backup, record.entries)
            }
            None => {
                let backup = backup_path(&target);
                write_new(&backup, current.as_bytes(), 0o600).map_err(|source| {
                    RouteError::Write {
                        file: backup.display().to_string(),
                        source,
                    }
                })?;
                (backup, Vec::new())
            }
        };
        write_atomic(&target, plan.after.as_bytes()).map_err(|source| RouteError::Write {
            file: shown.clone(),
            source,
        })?;
        for entry in &plan.entries {
            if !entries
                .iter()
                .any(|e: &RoutedEntry| e.key == entry.key && e.scope == entry.scope)
            {
                entries.push(entry.clone());
            }
        }
        data.routes.retain(|r| r.file != plan.file);
        data.routes.push(RouteRecord {
            app: plan.app,
            file: plan.file.clone(),
            backup,
            written: digest(&plan.after),
            entries,
            at: now_ms(),
        });
        Ok(())
    })
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
        app,
        diff: masked_diff(app, &shown, &before, &after),
        read: digest(&before),
        file: file.to_path_buf(),
        before,
        after,
        entries: record.entries.clone(),
        skipped: Vec::new(),
        partial_undo: !exact,
    })
}

/// Writes an undo plan, checking the file is still as read, and forgets the
/// route. The backup is removed once its bytes are back in place.
pub fn apply_undo(plan: &Plan, ledger: &Ledger) -> Result<(), RouteError> {
    let shown = plan.file.display().to_string();
    ledger.change(|data| {
        let current = read(&plan.file)?;
        if digest(&current) != plan.read {
            return Err(RouteError::Changed {
                file: shown.clone(),
            });
        }
        write_atomic(&real_target(&plan.file), plan.after.as_bytes()).map_err(|source| {
            RouteError::Write {
                file: shown.clone(),
                source,
            }
        })?;
        if let Some(i) = data.routes.iter().position(|r| r.file == plan.file) {
            let record = data.routes.remove(i);
            if !plan.partial_undo {
                // Best effort: a backup left behind is only clutter.
                let _ = fs::remove_file(&record.backup);
            }
        }
        Ok(())
    })
}

/// A diff of `before` and `after` for a person to read, with the
/// environment values of either version masked, and the secrets written in
/// arguments (`servers::arg_secrets`). An environment value that is an
/// absolute path (Rootgate's own `XDG_CONFIG_HOME`, a data folder) is left
/// readable: secrets are not written as paths, and the person should see
/// where things point.
pub fn masked_diff(app: AppKind, file: &str, before: &str, after: &str) -> String {
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

fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The file to write for `file`: a symlink's target (dotfile managers link
/// configs into place, and replacing the link would cut it from theirs).
fn real_target(file: &Path) -> PathBuf {
    fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf())
}

fn backup_path(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!("{name}.before-rootgate-{}", now_ms()))
}

/// Creates `path` (it must not exist) with `bytes`, synced.
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Replaces `target` with `bytes` through a temporary file beside it and a
/// rename, keeping its permissions, so the app reads either the old file or
/// the new one, whole.
pub(crate) fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = target.parent().unwrap_or_else(|| Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mode = fs::metadata(target)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o600);
    let tmp = dir.join(format!(".{name}.rootgate-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let written = write_new(&tmp, bytes, mode).and_then(|()| {
        fs::set_permissions(&tmp, fs::Permissions::from_mode(mode))?;
        fs::rename(&tmp, target)
    });
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written?;
    fs::File::open(dir)?.sync_all()
}

/// Writes a file of Rootgate's own (0600) atomically, creating it if needed.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    if !path.exists() {
        write_new(path, b"", 0o600)?;
    }
    write_atomic(path, bytes)
}

/// A route Rootgate wrote, kept so it can be undone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteRecord {
    pub app: AppKind,
    pub file: PathBuf,
    pub backup: PathBuf,
    /// The SHA-256 of what Rootgate wrote, hex.
    pub written: String,
    pub entries: Vec<RoutedEntry>,
    pub at: u64,
}

/// An app entry imported as a Rootgate server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportRecord {
    pub app: AppKind,
    pub file: PathBuf,
    pub scope: Scope,
    pub key: String,
    pub server: ServerId,
    pub at: u64,
    /// The digest of the entry as it was read then (`identity::entry_digest`):
    /// the link holds while the entry is unchanged. Absent in records made
    /// before Rootgate compared entries, which are therefore not trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<String>,
    /// The digest of what the entry runs, its values filled
    /// (`identity::identity`): another entry with the same one is the same
    /// server. Absent when the person linked an entry whose values were
    /// not given to a server of their choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<String>,
}

/// What the ledger file holds.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerData {
    #[serde(default)]
    pub imports: Vec<ImportRecord>,
    #[serde(default)]
    pub routes: Vec<RouteRecord>,
}

/// `apps.json` beside the settings: imports and routes, read and written
/// whole under a lock, so the window and the `rootgate` command can both
/// change it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ledger {
    path: PathBuf,
}

impl Ledger {
    /// The ledger beside `settings` (Rootgate's settings file).
    pub fn beside(settings: &Path) -> Ledger {
        Ledger {
            path: settings.with_file_name("apps.json"),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The ledger's contents; empty when there is no file yet.
    pub fn load(&self) -> Result<LedgerData, RouteError> {
        match fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| self.error(e.to_string())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(LedgerData::default()),
            Err(e) => Err(self.error(e.to_string())),
        }
    }

    /// Runs `f` on the ledger's contents under an exclusive lock and saves
    /// what it leaves, unless it fails.
    pub fn change<T>(
        &self,
        f: impl FnOnce(&mut LedgerData) -> Result<T, RouteError>,
    ) -> Result<T, RouteError> {
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| self.error(e.to_string()))?;
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(self.path.with_extension("lock"))
            .map_err(|e| self.error(e.to_string()))?;
        // Held until this function returns; the lock file itself stays.
        let _held = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
            .map_err(|(_, e)| self.error(e.to_string()))?;
        let mut data = self.load()?;
        let out = f(&mut data)?;
        let text = serde_json::to_string_pretty(&data).map_err(|e| self.error(e.to_string()))?;
        if !self.path.exists() {
            write_new(&self.path, b"{}", 0o600).map_err(|e| self.error(e.to_string()))?;
        }
        write_atomic(&self.path, text.as_bytes()).map_err(|e| self.error(e.to_string()))?;
        Ok(out)
    }

    fn error(&self, reason: String) -> RouteError {
        RouteError::Ledger {
            file: self.path.display().to_string(),
            reason,
        }
    }
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
