//! The ledger, `apps.json` beside Rootgate's settings: which app entries
//! were imported as which servers, which configs Rootgate routed (with the
//! backup and the digest of what it wrote), and the writes it has begun
//! and not yet finished.
//!
//! A write of an app's config is recorded as [`Pending`] (the backup, the
//! temporary file, the digests of the file before and after) before the
//! config is touched, and replaced by its outcome after. A process killed
//! in between leaves the intent, and the next reader settles it by the
//! config's digest: the "after" one means the write happened (a route is
//! recorded and can be undone byte for byte), the "before" one means it
//! never did; the files the write made are removed once settled under the
//! lock. What is not here: the writing itself (`files`) and the plans.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files::{real_target, write_atomic, write_new};
use super::{RouteError, RoutedEntry, digest};
use crate::import::routed_name;
use crate::{AppKind, Scope, Transport, parse};
use rootgate_host::private_files;
use rootgate_model::ids::ServerId;

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

/// Which write a [`Pending`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PendingKind {
    Route,
    /// An undo; `partial` when it puts entries back rather than the backup.
    Undo {
        partial: bool,
    },
}

/// A write of an app's config that was begun: recorded before the config
/// is touched, removed when its outcome is recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pending {
    pub kind: PendingKind,
    pub app: AppKind,
    /// The config as the app names it.
    pub file: PathBuf,
    /// The file written: the config, or its symlink's target.
    pub target: PathBuf,
    pub temp: PathBuf,
    pub backup: PathBuf,
    /// Whether this write makes the backup (a route's first), so that it
    /// is removed when the write never happened.
    pub new_backup: bool,
    /// SHA-256 of the config before and after the write, hex.
    pub before: String,
    pub after: String,
    /// A route's entries once written (those of an earlier route included).
    pub entries: Vec<RoutedEntry>,
    pub at: u64,
}

/// What the ledger file holds.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LedgerData {
    #[serde(default)]
    pub imports: Vec<ImportRecord>,
    #[serde(default)]
    pub routes: Vec<RouteRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<Pending>,
}

/// How a pending write ended, told by the config's digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Written,
    NotWritten,
}

impl LedgerData {
    /// Settles every pending write by what its config holds now, as
    /// described in the module's documentation. With `clean`, removes the
    /// files the settled writes made and no longer need (only under the
    /// lock, when no write is under way).
    pub(super) fn settle(&mut self, clean: bool) {
        for pending in std::mem::take(&mut self.pending) {
            let outcome = outcome(&pending);
            match (pending.kind, outcome) {
                (PendingKind::Route, Outcome::Written) => {
                    self.routes.retain(|r| r.file != pending.file);
                    self.routes.push(RouteRecord {
                        app: pending.app,
                        file: pending.file.clone(),
                        backup: pending.backup.clone(),
                        written: pending.after.clone(),
                        entries: pending.entries.clone(),
                        at: pending.at,
                    });
                }
                (PendingKind::Route, Outcome::NotWritten) => {
                    if clean && pending.new_backup {
                        let _ = fs::remove_file(&pending.backup);
                    }
                }
                (PendingKind::Undo { partial }, Outcome::Written) => {
                    self.routes.retain(|r| r.file != pending.file);
                    if clean && !partial {
                        let _ = fs::remove_file(&pending.backup);
                    }
                }
                (PendingKind::Undo { .. }, Outcome::NotWritten) => {}
            }
            if clean {
                remove_temp(&pending, outcome);
            }
        }
    }
}

/// How `pending` ended. The config holds the "after" bytes: written. The
/// "before" bytes: never written. Anything else means the app wrote it
/// since, and the entries tell: a route whose entries all run `rootgate
/// connect` now happened (its undo puts entries back, as for any file the
/// app changed), an undo whose entries all run something else happened.
fn outcome(pending: &Pending) -> Outcome {
    let Ok(now) = fs::read(&pending.target) else {
        return Outcome::NotWritten;
    };
    let now_digest = digest(&now);
    if now_digest == pending.after {
        return Outcome::Written;
    }
    if now_digest == pending.before {
        return Outcome::NotWritten;
    }
    let text = String::from_utf8_lossy(&now);
    let shown = pending.file.display().to_string();
    let Ok(parsed) = parse(pending.app, &shown, &text) else {
        return Outcome::NotWritten;
    };
    let routed = |e: &RoutedEntry| {
        parsed.entries.iter().any(|raw| {
            raw.key == e.key
                && raw.scope == e.scope
                && matches!(&raw.transport, Transport::Stdio { command, args, .. }
                    if routed_name(command, args).as_deref() == Some(e.server.as_str()))
        })
    };
    let all_routed = pending.entries.iter().all(routed);
    match (pending.kind, all_routed) {
        (PendingKind::Route, true) | (PendingKind::Undo { .. }, false) => Outcome::Written,
        _ => Outcome::NotWritten,
    }
}

/// Removes a settled write's temporary file. Before the exchange it holds
/// Rootgate's own text, whole or not, and goes. After it, it holds what the
/// exchange displaced: the config's old bytes go, and anything else is an
/// app's write made in the instant before the exchange, which stays
/// (`leftovers` names it).
fn remove_temp(pending: &Pending, outcome: Outcome) {
    let displaced = match outcome {
        Outcome::NotWritten => None,
        Outcome::Written => match fs::read(&pending.temp) {
            Ok(bytes) => Some(digest(&bytes)),
            Err(_) => return,
        },
    };
    if displaced.is_none_or(|d| d == pending.before || d == pending.after) {
        let _ = fs::remove_file(&pending.temp);
    }
}

/// `apps.json` beside the settings: imports and routes, read and written
/// whole under a lock, so the window and the `rootgate` command can both
/// change it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ledger {
    path: PathBuf,
}

/// The ledger's lock, held until dropped; saves go through it.
pub(super) struct Locked<'a> {
    ledger: &'a Ledger,
    _held: nix::fcntl::Flock<fs::File>,
}

impl Locked<'_> {
    /// The ledger's contents, every pending write of an earlier process
    /// settled and its files cleaned (this process holds the lock, so no
    /// write is under way).
    pub(super) fn load(&self) -> Result<LedgerData, RouteError> {
        let mut data = self.ledger.load_raw()?;
        data.settle(true);
        Ok(data)
    }

    /// Saves `data`, synced, before returning.
    pub(super) fn save(&self, data: &LedgerData) -> Result<(), RouteError> {
        let ledger = self.ledger;
        let text = serde_json::to_string_pretty(data).map_err(|e| ledger.error(e.to_string()))?;
        if !ledger.path.exists() {
            write_new(&ledger.path, b"{}", 0o600).map_err(|e| ledger.error(e.to_string()))?;
        }
        write_atomic(&ledger.path, text.as_bytes()).map_err(|e| ledger.error(e.to_string()))
    }
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

    /// The ledger's contents, empty when there is no file yet, with the
    /// writes another process began and did not finish settled by what
    /// the configs hold (see the module's documentation); nothing is
    /// written.
    pub fn load(&self) -> Result<LedgerData, RouteError> {
        let mut data = self.load_raw()?;
        data.settle(false);
        Ok(data)
    }

    fn load_raw(&self) -> Result<LedgerData, RouteError> {
        match fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| self.error(e.to_string())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(LedgerData::default()),
            Err(e) => Err(self.error(e.to_string())),
        }
    }

    /// Takes the ledger's exclusive lock (waiting for another holder).
    pub(super) fn lock(&self) -> Result<Locked<'_>, RouteError> {
        let dir = self.path.parent().unwrap_or_else(|| Path::new("."));
        private_files::folder(dir).map_err(|e| self.error(e.to_string()))?;
        let lock = private_files::lock_file(&self.path.with_extension("lock"))
            .map_err(|e| self.error(e.to_string()))?;
        let held = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
            .map_err(|(_, e)| self.error(e.to_string()))?;
        // Every save of the ledger holds this lock, so a temporary file of
        // it now is one a killed save left, and holds nothing the ledger
        // itself does not.
        let (temps, _) = super::files::leftovers(&self.path, &[]);
        for temp in temps {
            let _ = fs::remove_file(temp);
        }
        Ok(Locked {
            ledger: self,
            _held: held,
        })
    }

    /// Runs `f` on the ledger's contents under an exclusive lock and saves
    /// what it leaves, unless it fails.
    pub fn change<T>(
        &self,
        f: impl FnOnce(&mut LedgerData) -> Result<T, RouteError>,
    ) -> Result<T, RouteError> {
        let locked = self.lock()?;
        let mut data = locked.load()?;
        let out = f(&mut data)?;
        locked.save(&data)?;
        Ok(out)
    }

    /// Settles, under the lock, the writes a killed process began (see the
    /// module's documentation), removing the files they made, and saves
    /// the outcome. Writers do this anyway; a command that may write
    /// nothing (an undo with nothing to undo) calls it first.
    pub fn settle(&self) -> Result<(), RouteError> {
        let locked = self.lock()?;
        let raw = self.load_raw()?;
        if raw.pending.is_empty() {
            return Ok(());
        }
        let data = locked.load()?;
        locked.save(&data)
    }

    /// Files an interrupted write left beside `file` (an app's config)
    /// that the ledger does not account for: temporary files (none is
    /// left by a write that was settled, unless it holds an app's write
    /// displaced by an interrupted exchange) and backups no route names.
    /// They are named, never removed: a backup may be the only copy of the
    /// config as it was before an earlier version's interrupted route.
    pub fn leftovers(&self, file: &Path) -> Result<Vec<PathBuf>, RouteError> {
        let data = self.load()?;
        let known: Vec<&Path> = data
            .routes
            .iter()
            .map(|r| r.backup.as_path())
            .chain(data.pending.iter().map(|p| p.backup.as_path()))
            .collect();
        let (mut temps, backups) = super::files::leftovers(&real_target(file), &known);
        temps.extend(backups);
        Ok(temps)
    }

    pub(super) fn error(&self, reason: String) -> RouteError {
        RouteError::Ledger {
            file: self.path.display().to_string(),
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "{\"mcpServers\": {\"a\": {\"command\": \"uvx\", \"args\": [\"a\"]}}}\n";
    const AFTER: &str = "{\"mcpServers\": {\"a\": {\"command\": \"/usr/bin/rootgate\", \"args\": [\"connect\", \"a\"]}}}\n";

    fn pending(dir: &Path) -> Pending {
        let target = dir.join("c.json");
        Pending {
            kind: PendingKind::Route,
            app: AppKind::ClaudeDesktop,
            file: target.clone(),
            temp: dir.join(".c.json.rootgate-1"),
            backup: dir.join("c.json.before-rootgate-1"),
            target,
            new_backup: true,
            before: digest(BEFORE),
            after: digest(AFTER),
            entries: vec![RoutedEntry {
                scope: Scope::Global,
                key: "a".into(),
                server: "a".into(),
            }],
            at: 1,
        }
    }

    /// Settles one pending route whose config holds `now`, with its backup
    /// and temporary file on disk; says whether it became a route and
    /// which of the two files are left.
    fn settled(now: &str) -> (bool, bool, bool) {
        let dir = tempfile::tempdir().unwrap();
        let p = pending(dir.path());
        fs::write(&p.target, now).unwrap();
        fs::write(&p.backup, BEFORE).unwrap();
        fs::write(&p.temp, AFTER).unwrap();
        let mut data = LedgerData {
            pending: vec![p.clone()],
            ..LedgerData::default()
        };
        let mut seen = data.clone();
        seen.settle(false);
        data.settle(true);
        assert_eq!(seen.routes, data.routes, "reading and settling agree");
        assert!(data.pending.is_empty());
        (!data.routes.is_empty(), p.backup.exists(), p.temp.exists())
    }

    #[test]
    fn a_pending_route_is_settled_by_what_the_file_holds() {
        // Written: recorded, its backup kept for the undo.
        assert_eq!(settled(AFTER), (true, true, false));
        // Never written: no route, and the backup it made is gone.
        assert_eq!(settled(BEFORE), (false, false, false));
        // Written, then changed by the app: its entries tell.
        let changed = AFTER.replace("{\"mcpServers\"", "{\"theme\": 1, \"mcpServers\"");
        assert_eq!(settled(&changed), (true, true, false));
        let app_only = BEFORE.replace("{\"mcpServers\"", "{\"theme\": 1, \"mcpServers\"");
        assert_eq!(settled(&app_only), (false, false, false));
    }
}
