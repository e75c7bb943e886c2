//! The settings file: one versioned JSON document with the roots, the grants
//! and the servers, written atomically and never overwritten when it cannot
//! be trusted.
//!
//! Saving writes a temporary file beside the real one (mode 0600, in a folder
//! of mode 0700), syncs it, renames it over the old file and syncs the folder,
//! so a crash at any moment leaves either the old or the new file, whole. A
//! crash in the middle of a save also leaves that temporary file behind; the
//! next load removes such files once the process that wrote them is gone.
//! Loading a file that is corrupt, truncated, empty or from a newer Rootgate
//! moves it aside, keeps every entry that could still be read, and reports
//! where the original went.
//!
//! This module holds no state between calls and publishes nothing: the
//! `store` owns the settings in memory and decides when to save.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::consent::Grant;
use crate::ids::now_ms;
use crate::preferences::Preferences;
use crate::roots::Root;
use crate::servers::ServerSpec;

/// The settings format this build writes and reads (and every older one
/// it reads, upgraded as it does). 2: servers' secret variables
/// (`secrets`), whose values are kept outside the file. 3: a server's
/// `seenEra` "modern" means it refused `initialize`; before, it meant it
/// answered `server/discover`, which servers of both eras do.
pub const SETTINGS_VERSION: u32 = 3;

/// Everything Rootgate remembers between runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub version: u32,
    #[serde(default)]
    pub roots: Vec<Root>,
    #[serde(default)]
    pub grants: Vec<Grant>,
    #[serde(default)]
    pub servers: Vec<ServerSpec>,
    /// Pause, notifications, the login offer (see `preferences`).
    #[serde(default)]
    pub preferences: Preferences,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            version: SETTINGS_VERSION,
            roots: Vec::new(),
            grants: Vec::new(),
            servers: Vec::new(),
            preferences: Preferences::default(),
        }
    }
}

impl Settings {
    /// Drops grants whose server or root no longer exists, so the file never
    /// carries consent for something the person cannot see in the app.
    pub fn prune_dangling_grants(&mut self) {
        let roots: std::collections::HashSet<_> = self.roots.iter().map(|r| &r.id).collect();
        let servers: std::collections::HashSet<_> = self.servers.iter().map(|s| &s.id).collect();
        self.grants
            .retain(|g| roots.contains(&g.root) && servers.contains(&g.server));
        self.write_out_deceiving_names();
    }

    /// Gives every folder whose name could not be typed today (one kept by
    /// an earlier Rootgate, which named folders after their last path
    /// component as it was, hidden characters and all) the name made for
    /// it now, so no server is sent a name that reads as something else.
    fn write_out_deceiving_names(&mut self) {
        for root in &mut self.roots {
            if crate::names::check(&root.name).is_err() {
                root.name = crate::names::usable(&root.name, &root.real_path.display().to_string());
            }
        }
    }
}

/// Why the settings could not be read or written.
#[derive(Debug, Error)]
pub enum SettingsError {
    #[error("no configuration folder could be found for this user (is HOME set?)")]
    NoConfigDir,
    #[error("could not create the settings folder \"{path}\": {source}")]
    CreateDir {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("could not save settings to \"{path}\": {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("could not read settings from \"{path}\": {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("could not move the unreadable settings file \"{path}\" aside: {source}")]
    MoveAside {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("could not encode settings: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("the settings file \"{path}\" cannot be read whole: {reason}")]
    Unreadable { path: PathBuf, reason: String },
}

/// What happened to a settings file that could not be trusted.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Recovery {
    /// Where the original file now is, untouched.
    pub moved_to: PathBuf,
    /// What was wrong with it, in plain words.
    pub reason: String,
    /// How many roots, grants and servers could still be read from it.
    pub kept_roots: usize,
    pub kept_grants: usize,
    pub kept_servers: usize,
}

impl Recovery {
    /// The whole story in one sentence, for a banner in the app.
    pub fn message(&self) -> String {
        format!(
            "The settings file could not be fully read ({}). It was moved to \"{}\"; \
             {}, {} and {} were recovered from it.",
            self.reason,
            self.moved_to.display(),
            count(self.kept_roots, "folder", "folders"),
            count(self.kept_grants, "permission", "permissions"),
            count(self.kept_servers, "server", "servers")
        )
    }
}

/// "1 folder", "2 folders": a count in words a person reads.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The result of loading: the settings to start with, and what was done if
/// the file on disk could not be trusted.
#[derive(Debug)]
pub struct Loaded {
    pub settings: Settings,
    pub recovery: Option<Recovery>,
}

/// The location of the settings file and the operations on it.
#[derive(Debug, Clone)]
pub struct SettingsFile {
    path: PathBuf,
}

impl SettingsFile {
    /// The settings file in the platform's configuration folder
    /// (`$XDG_CONFIG_HOME/rootgate/settings.json` on Linux).
    pub fn default_location() -> Result<SettingsFile, SettingsError> {
        let dirs = directories::ProjectDirs::from("org", "Rootgate", "rootgate")
            .ok_or(SettingsError::NoConfigDir)?;
        Ok(SettingsFile::at(dirs.config_dir().join("settings.json")))
    }

    /// A settings file at an explicit path (tests, `--settings`).
    pub fn at(path: impl Into<PathBuf>) -> SettingsFile {
        SettingsFile { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// Reads the settings. A missing file gives empty settings; a file that
    /// cannot be trusted is moved aside, what could be read is kept and
    /// saved to a fresh file, and [`Loaded::recovery`] says what happened.
    /// Reads the file and changes nothing on disk: what a second process
    /// (a bridge) does while the app owns the file. A damaged file gives
    /// every entry that could still be read and the reason, and stays where
    /// it is for the app to recover; a missing one gives empty settings.
    pub fn read(&self) -> Result<(Settings, Option<String>), SettingsError> {
        match fs::read(&self.path) {
            Ok(bytes) => Ok(parse(&bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok((Settings::default(), None)),
            Err(source) => Err(SettingsError::Read {
                path: self.path.clone(),
                source,
            }),
        }
    }

    pub fn load(&self) -> Result<Loaded, SettingsError> {
        self.remove_stale_temporaries();
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Loaded {
                    settings: Settings::default(),
                    recovery: None,
                });
            }
            Err(source) => {
                return Err(SettingsError::Read {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        let (settings, problem) = parse(&bytes);
        // The file's bytes are not needed any more; with many folders they
        // are megabytes, so they go before anything else is allocated.
        drop(bytes);
        let Some(reason) = problem else {
            return Ok(Loaded {
                settings,
                recovery: None,
            });
        };
        let moved_to = self.move_aside()?;
        let recovery = Recovery {
            moved_to,
            reason,
            kept_roots: settings.roots.len(),
            kept_grants: settings.grants.len(),
            kept_servers: settings.servers.len(),
        };
        tracing::warn!(message = %recovery.message(), "settings recovered");
        self.save(&settings)?;
        Ok(Loaded {
            settings,
            recovery: Some(recovery),
        })
    }

    /// Renames the current file to `settings.json.unreadable-<ms>` (never
    /// over an existing file) and returns the new path.
    fn move_aside(&self) -> Result<PathBuf, SettingsError> {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "settings.json".into());
        let stamp = now_ms();
        for attempt in 0..100u32 {
            let candidate = self
                .dir()
                .join(format!("{name}.unreadable-{stamp}-{attempt}"));
            if candidate.exists() {
                continue;
            }
            return fs::rename(&self.path, &candidate)
                .map(|()| candidate)
                .map_err(|source| SettingsError::MoveAside {
                    path: self.path.clone(),
                    source,
                });
        }
        Err(SettingsError::MoveAside {
            path: self.path.clone(),
            source: io::Error::new(io::ErrorKind::AlreadyExists, "too many earlier copies"),
        })
    }

    /// The prefix of the temporary files saves write, before the writer's
    /// process id.
    fn temporary_prefix(&self) -> String {
        format!(
            ".{}.tmp-",
            self.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        )
    }

    /// Removes the temporary files of saves that a killed or crashed
    /// Rootgate never finished. Each holds a copy of the settings, and none
    /// is ever read or renamed again: the writer's process id is in its name,
    /// and the next Rootgate has another. A file whose writer still runs (or
    /// whose id now belongs to another process) is left alone, so a second
    /// Rootgate saving at this moment is not disturbed. Best effort: a file
    /// that cannot be removed costs only disk space.
    fn remove_stale_temporaries(&self) {
        let Ok(entries) = fs::read_dir(self.dir()) else {
            return;
        };
        let prefix = self.temporary_prefix();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name
                .to_str()
                .and_then(|n| n.strip_prefix(&prefix))
                .and_then(|pid| pid.parse::<i32>().ok())
                .filter(|pid| *pid > 0 && *pid as u32 != std::process::id())
            else {
                continue;
            };
            let gone = matches!(
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
                Err(nix::errno::Errno::ESRCH)
            );
            if gone && let Err(e) = fs::remove_file(entry.path()) {
                tracing::warn!(path = %entry.path().display(), error = %e,
                    "could not remove a temporary settings file left by a crash");
            }
        }
    }

    /// Writes the settings atomically: temporary file (0600), fsync, rename,
    /// fsync of the folder (0700).
    pub fn save(&self, settings: &Settings) -> Result<(), SettingsError> {
        let dir = self.dir().to_path_buf();
        DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|source| SettingsError::CreateDir {
                path: dir.clone(),
                source,
            })?;
        // The folder may predate us with looser permissions; it is ours.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).map_err(|source| {
            SettingsError::CreateDir {
                path: dir.clone(),
                source,
            }
        })?;
        let mut json = serde_json::to_vec_pretty(settings)?;
        json.push(b'\n');
        let tmp = dir.join(format!("{}{}", self.temporary_prefix(), std::process::id()));
        let write_err = |source| SettingsError::Write {
            path: self.path.clone(),
            source,
        };
        let result = (|| {
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&tmp)?;
            file.write_all(&json)?;
            file.sync_all()?;
            fs::rename(&tmp, &self.path)?;
            File::open(&dir)?.sync_all()
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result.map_err(write_err)
    }
}

/// Parses settings: the whole file at once when it is sound, entry by entry
/// otherwise. Returns the settings and, when anything was wrong, why.
///
/// A sound file (it parses as [`Settings`], its version is not newer and no
/// grant dangles) gives exactly what [`parse_tolerantly`] would, without the
/// JSON tree the tolerant path builds first: with 10,000 folders that tree
/// was most of the app's peak memory at start (12 of 27 MB of heap) and
/// more than half of the time spent loading.
fn parse(bytes: &[u8]) -> (Settings, Option<String>) {
    // serde also reads a struct from a list (`[1]`), which is not a
    // settings object; only an object may take the quick way.
    let is_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if is_object
        && let Ok(mut settings) = serde_json::from_slice::<Settings>(bytes)
        && settings.version <= SETTINGS_VERSION
    {
        let grants = settings.grants.len();
        settings.prune_dangling_grants();
        if settings.grants.len() == grants {
            upgrade(&mut settings.servers, settings.version.into());
            settings.version = SETTINGS_VERSION;
            // Lists read from JSON grow by doubling; these are kept for the
            // whole run, so they keep only what they hold (with 10,000
            // folders the spare room was over a megabyte).
            settings.roots.shrink_to_fit();
            settings.grants.shrink_to_fit();
            settings.servers.shrink_to_fit();
            return (settings, None);
        }
    }
    parse_tolerantly(bytes)
}

/// Parses settings, keeping every entry that can be read. Returns the
/// settings and, when anything was wrong, why.
fn parse_tolerantly(bytes: &[u8]) -> (Settings, Option<String>) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return (Settings::default(), Some("the file is empty".into()));
    }
    let mut problems = Vec::new();
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(e) => match salvage(bytes, &e) {
            Some(value) => {
                problems.push(if e.is_eof() {
                    format!("it was cut short ({e}); the whole entries before the cut were kept")
                } else {
                    format!(
                        "it is not valid JSON ({e}); the whole entries before the damage were kept"
                    )
                });
                value
            }
            None if e.is_eof() => {
                return (Settings::default(), Some(format!("it was cut short ({e})")));
            }
            None => {
                return (
                    Settings::default(),
                    Some(format!("it is not valid JSON: {e}")),
                );
            }
        },
    };
    let Some(object) = value.as_object() else {
        return (
            Settings::default(),
            Some("it does not hold a settings object".into()),
        );
    };
    let version = object.get("version").and_then(Value::as_u64);
    match version {
        Some(v) if v > u64::from(SETTINGS_VERSION) => {
            return (
                Settings::default(),
                Some(format!(
                    "it was written by a newer Rootgate (format {v}, this one reads {SETTINGS_VERSION})"
                )),
            );
        }
        Some(_) => {}
        None => {
            return (Settings::default(), Some("it has no format version".into()));
        }
    }
    let mut settings = Settings {
        version: SETTINGS_VERSION,
        roots: entries(object.get("roots"), "folder", &mut problems),
        grants: entries(object.get("grants"), "permission", &mut problems),
        servers: entries(object.get("servers"), "server", &mut problems),
        // Kept when they can be read: a pause the person set stays set.
        preferences: object
            .get("preferences")
            .and_then(|p| serde_json::from_value(p.clone()).ok())
            .unwrap_or_default(),
    };
    upgrade(&mut settings.servers, version.unwrap_or_default());
    let before = settings.grants.len();
    settings.prune_dangling_grants();
    if settings.grants.len() != before {
        let dropped = before - settings.grants.len();
        problems.push(format!(
            "{} named a missing folder or server",
            count(dropped, "permission", "permissions")
        ));
    }
    let problem = (!problems.is_empty()).then(|| problems.join("; "));
    (settings, problem)
}

/// Brings servers read from a file of format `from` to this one's. Before
/// 2, every value was in the file: a variable whose name looks secret is
/// marked secret, its value left in the file until it can move to the
/// keyring (see `store`), and its approval kept. Before 3, a server seen
/// modern may speak both eras, and is spoken to in the legacy era now
/// (see `session::era`): what was seen is forgotten, so that its next start
/// finds out again.
fn upgrade(servers: &mut [ServerSpec], from: u64) {
    // Tools hidden before tool rules existed (written without a new
    // version): moved into the rules, whatever the version.
    for server in servers.iter_mut() {
        for tool in std::mem::take(&mut server.hidden_tools_before_rules) {
            server
                .tool_rules
                .set(None, &tool, Some(crate::tools::ToolSetting::Hidden));
        }
        // Secrets written in arguments (`--api-key sk-…`) before they were
        // lifted into secret variables: lifted now, whatever the version,
        // and moved to the keyring as every value from before is.
        server.lift_arg_secrets_from_before();
    }
    if from < 2 {
        for server in servers.iter_mut() {
            server.mark_secrets_from_before();
        }
    }
    if from < 3 {
        for server in servers.iter_mut() {
            if server.seen_era == Some(crate::servers::Era::Modern) {
                server.seen_era = None;
            }
        }
    }
}

/// What can still be read from a file that is not valid JSON: the part
/// before the damage (or before the end, for a file cut short), cut back to
/// the end of the last whole entry of a top-level list (or the last whole
/// list) and closed, so that it parses. An entry is kept whole or not at
/// all: a server cut inside its environment is dropped, not kept without
/// it. `None` when nothing whole comes before the damage.
fn salvage(bytes: &[u8], error: &serde_json::Error) -> Option<Value> {
    // serde_json counts lines from 1 and columns in bytes from 1.
    let line_start = match error.line().checked_sub(2) {
        None => 0,
        Some(newlines_before) => bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(newlines_before)
            .map_or(bytes.len(), |(i, _)| i + 1),
    };
    let damage = (line_start + error.column().saturating_sub(1)).min(bytes.len());
    let mut open: Vec<u8> = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    let mut cut: Option<(usize, Vec<u8>)> = None;
    for (i, &b) in bytes[..damage].iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => open.push(b),
            b'}' | b']' => {
                open.pop();
                let entry_closed = b == b'}' && open == [b'{', b'['];
                let list_closed = b == b']' && open == [b'{'];
                if entry_closed || list_closed {
                    cut = Some((i + 1, open.clone()));
                }
            }
            _ => {}
        }
    }
    let (at, open) = cut?;
    let mut text = bytes[..at].to_vec();
    text.extend(
        open.iter()
            .rev()
            .map(|b| if *b == b'[' { b']' } else { b'}' }),
    );
    serde_json::from_slice(&text).ok()
}

fn entries<T: DeserializeOwned>(
    value: Option<&Value>,
    what: &str,
    problems: &mut Vec<String>,
) -> Vec<T> {
    let Some(value) = value else {
        return Vec::new();
    };
    let Some(items) = value.as_array() else {
        problems.push(format!("the {what} list is not a list"));
        return Vec::new();
    };
    let mut kept = Vec::with_capacity(items.len());
    let mut bad = 0;
    for item in items {
        match serde_json::from_value(item.clone()) {
            Ok(entry) => kept.push(entry),
            Err(_) => bad += 1,
        }
    }
    if bad > 0 {
        let entries = count(bad, &format!("{what} entry"), &format!("{what} entries"));
        problems.push(format!("{entries} could not be read"));
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{RootId, ServerId};
    use crate::servers::ServerDraft;

    fn sample() -> Settings {
        let server = ServerDraft {
            name: "s".into(),
            command: "x".into(),
            ..Default::default()
        }
        .validate(ServerId::generate(), [])
        .unwrap();
        let root = Root {
            id: RootId::generate(),
            name: "proj".into(),
            chosen_path: "/p".into(),
            real_path: "/p".into(),
            added_at_ms: 5,
            mount: Some("/".into()),
        };
        let grant = Grant {
            server: server.id.clone(),
            root: root.id.clone(),
            real_path: "/p".into(),
            granted_at_ms: 6,
        };
        Settings {
            version: SETTINGS_VERSION,
            roots: vec![root],
            grants: vec![grant],
            servers: vec![server],
            preferences: Preferences::default(),
        }
    }

    #[test]
    fn round_trip_with_private_modes() {
        let dir = tempfile::tempdir().unwrap();
        let file = SettingsFile::at(dir.path().join("cfg/rootgate/settings.json"));
        assert_eq!(file.load().unwrap().settings, Settings::default());
        file.save(&sample()).unwrap();
        let loaded = file.load().unwrap();
        assert!(loaded.recovery.is_none());
        assert_eq!(loaded.settings, sample_with_ids(&loaded.settings));
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(file.path()), 0o600);
        assert_eq!(mode(file.path().parent().unwrap()), 0o700);
        // No temporary file is left behind.
        let names: Vec<_> = fs::read_dir(file.path().parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["settings.json"]);
    }

    #[test]
    fn a_kept_folder_named_with_a_hidden_character_gets_it_written_out() {
        let dir = tempfile::tempdir().unwrap();
        let file = SettingsFile::at(dir.path().join("cfg/rootgate/settings.json"));
        let mut old = sample();
        old.roots[0].name = "invoice\u{202E}fdp.exe".into();
        file.save(&old).unwrap();
        let loaded = file.load().unwrap().settings;
        assert_eq!(loaded.roots[0].name, "invoice<U+202E>fdp.exe");
    }

    #[test]
    fn temporaries_of_crashed_saves_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = SettingsFile::at(dir.path().join("settings.json"));
        file.save(&sample()).unwrap();
        // A process that has ended (and was reaped) wrote one; process 1
        // always runs, and so do we.
        let mut ended = std::process::Command::new("true").spawn().unwrap();
        let ended_pid = ended.id();
        ended.wait().unwrap();
        let tmp = |pid: u32| dir.path().join(format!(".settings.json.tmp-{pid}"));
        for pid in [ended_pid, 1, std::process::id()] {
            fs::write(tmp(pid), b"{\"version\": 1, \"roo").unwrap();
        }
        fs::write(dir.path().join(".other.json.tmp-1"), b"not ours").unwrap();
        let loaded = file.load().unwrap();
        assert!(loaded.recovery.is_none());
        assert!(!tmp(ended_pid).exists());
        assert!(tmp(1).exists());
        assert!(tmp(std::process::id()).exists());
        assert!(dir.path().join(".other.json.tmp-1").exists());
    }

    /// The sample has random ids; compare shape by taking ids from `loaded`.
    fn sample_with_ids(loaded: &Settings) -> Settings {
        let mut s = sample();
        s.roots[0].id = loaded.roots[0].id.clone();
        s.servers[0].id = loaded.servers[0].id.clone();
        s.grants[0].root = loaded.roots[0].id.clone();
        s.grants[0].server = loaded.servers[0].id.clone();
        s
    }

    fn recover(contents: &[u8]) -> (Loaded, tempfile::TempDir, SettingsFile) {
        let dir = tempfile::tempdir().unwrap();
        let file = SettingsFile::at(dir.path().join("settings.json"));
        fs::write(file.path(), contents).unwrap();
        let loaded = file.load().unwrap();
        (loaded, dir, file)
    }

    #[test]
    fn corrupt_empty_and_truncated_files_are_moved_aside_not_overwritten() {
        let good = serde_json::to_vec(&sample()).unwrap();
        for (contents, reason) in [
            (&b"{not json"[..], "not valid JSON"),
            (&b""[..], "empty"),
            (&good[..good.len() / 2], "cut short"),
            (&good[..10], "cut short"),
            (&b"[1,2]"[..], "settings object"),
        ] {
            let (loaded, _dir, file) = recover(contents);
            let recovery = loaded.recovery.expect("a recovery");
            assert!(recovery.reason.contains(reason), "{}", recovery.reason);
            assert_eq!(fs::read(&recovery.moved_to).unwrap(), contents);
            assert!(
                recovery
                    .message()
                    .contains(&*recovery.moved_to.to_string_lossy())
            );
            // A fresh, valid file now stands in its place.
            assert!(file.load().unwrap().recovery.is_none());
        }
    }

    #[test]
    fn newer_versions_are_kept_aside() {
        let (loaded, _dir, _file) = recover(br#"{"version": 99, "roots": []}"#);
        let recovery = loaded.recovery.unwrap();
        assert!(recovery.reason.contains("newer Rootgate"));
        assert_eq!(
            fs::read_to_string(&recovery.moved_to).unwrap(),
            r#"{"version": 99, "roots": []}"#
        );
    }

    #[test]
    fn readable_entries_survive_a_damaged_file() {
        let mut value = serde_json::to_value(sample()).unwrap();
        value["servers"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"name": 3}));
        let (loaded, _dir, _file) = recover(&serde_json::to_vec(&value).unwrap());
        let recovery = loaded.recovery.unwrap();
        assert_eq!(
            (
                recovery.kept_roots,
                recovery.kept_grants,
                recovery.kept_servers
            ),
            (1, 1, 1)
        );
        assert!(
            recovery.reason.contains("1 server entry could not be read"),
            "{}",
            recovery.reason
        );
        assert_eq!(loaded.settings.roots.len(), 1);
        assert!(
            recovery
                .message()
                .ends_with("1 folder, 1 permission and 1 server were recovered from it."),
            "{}",
            recovery.message()
        );
    }

    #[test]
    fn the_whole_file_parse_agrees_with_the_tolerant_one() {
        let sound = serde_json::to_vec(&sample()).unwrap();
        let mut older = serde_json::to_value(sample()).unwrap();
        older["version"] = 0.into();
        let mut dangling = sample();
        dangling.grants[0].server = ServerId::generate();
        let mut duplicate = String::from_utf8(sound.clone()).unwrap();
        duplicate.insert_str(1, r#""version":1,"#);
        let mut bad_entry = serde_json::to_value(sample()).unwrap();
        bad_entry["roots"][0]["id"] = 5.into();
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("sound", sound),
            ("older version", serde_json::to_vec(&older).unwrap()),
            ("dangling grant", serde_json::to_vec(&dangling).unwrap()),
            ("duplicate key", duplicate.into_bytes()),
            ("unreadable entry", serde_json::to_vec(&bad_entry).unwrap()),
            ("newer version", br#"{"version": 4, "roots": []}"#.to_vec()),
            ("version as text", br#"{"version": "1"}"#.to_vec()),
            ("not an object", b"[1]".to_vec()),
        ];
        for (what, bytes) in cases {
            assert_eq!(parse(&bytes), parse_tolerantly(&bytes), "{what}");
        }
        // The sound file is read without a problem, at the current version.
        let (settings, problem) = parse(&serde_json::to_vec(&older).unwrap());
        assert_eq!((settings.version, problem), (SETTINGS_VERSION, None));
    }

    #[test]
    fn an_era_seen_modern_before_format_3_is_forgotten() {
        use crate::servers::Era;
        let mut s = sample();
        s.version = 2;
        let mut legacy = s.servers[0].clone();
        legacy.id = ServerId::generate();
        legacy.name = "legacy".into();
        legacy.seen_era = Some(Era::Legacy);
        s.servers[0].seen_era = Some(Era::Modern);
        s.servers.push(legacy);
        let bytes = serde_json::to_vec(&s).unwrap();
        for (settings, _) in [parse(&bytes), parse_tolerantly(&bytes)] {
            // Found by `server/discover`, which servers of both eras answer:
            // it is found again. A legacy era seen is still right.
            let eras: Vec<_> = settings.servers.iter().map(|s| s.seen_era).collect();
            assert_eq!(eras, [None, Some(Era::Legacy)]);
        }
        // What this format wrote is kept.
        s.version = SETTINGS_VERSION;
        let (settings, _) = parse(&serde_json::to_vec(&s).unwrap());
        assert_eq!(settings.servers[0].seen_era, Some(Era::Modern));
    }

    #[test]
    fn dangling_grants_are_dropped() {
        let mut s = sample();
        s.servers.clear();
        let (loaded, _dir, _file) = recover(&serde_json::to_vec(&s).unwrap());
        assert!(loaded.settings.grants.is_empty());
        assert!(
            loaded
                .recovery
                .unwrap()
                .reason
                .contains("missing folder or server")
        );
    }

    /// A file of two roots, two servers and a grant, pretty-printed as the
    /// app writes it.
    fn two_of_each() -> (Settings, Vec<u8>) {
        let mut s = sample();
        let mut root = s.roots[0].clone();
        root.id = RootId::generate();
        root.name = "second".into();
        s.roots.push(root);
        let mut server = s.servers[0].clone();
        server.id = ServerId::generate();
        server.name = "t".into();
        server.env.insert("TOKEN".into(), "}]{[\"".into());
        s.servers.push(server);
        let bytes = serde_json::to_vec_pretty(&s).unwrap();
        (s, bytes)
    }

    #[test]
    fn a_file_cut_short_keeps_every_whole_entry_before_the_cut() {
        let (full, bytes) = two_of_each();
        let text = String::from_utf8(bytes.clone()).unwrap();
        // Cut inside the second server's environment (whose value holds
        // brackets and a quote): everything before it is kept whole, the
        // second server not at all.
        let cut = text.find("TOKEN").unwrap() + 12;
        let (loaded, _dir, _file) = recover(&bytes[..cut]);
        let recovery = loaded.recovery.unwrap();
        assert!(recovery.reason.contains("cut short"), "{}", recovery.reason);
        assert_eq!(loaded.settings.roots, full.roots);
        assert_eq!(loaded.settings.grants, full.grants);
        assert_eq!(loaded.settings.servers, full.servers[..1]);
        assert_eq!(fs::read(&recovery.moved_to).unwrap(), &bytes[..cut]);

        // Cut inside the first root: nothing whole, nothing kept.
        let cut = text.find("\"name\": \"proj").unwrap();
        let (loaded, _dir, _file) = recover(&bytes[..cut]);
        assert_eq!(loaded.settings, Settings::default());
        assert!(loaded.recovery.unwrap().reason.contains("cut short"));

        // Cut at every byte: never a panic, never an entry that was not whole
        // in the original.
        for cut in 0..bytes.len() {
            let loaded = parse_tolerantly(&bytes[..cut]).0;
            assert!(loaded.roots.iter().all(|r| full.roots.contains(r)), "{cut}");
            assert!(
                loaded.servers.iter().all(|s| full.servers.contains(s)),
                "{cut}"
            );
            assert!(
                loaded.grants.iter().all(|g| full.grants.contains(g)),
                "{cut}"
            );
        }
    }

    #[test]
    fn damage_in_the_middle_keeps_the_whole_entries_before_it() {
        let (full, bytes) = two_of_each();
        let text = String::from_utf8(bytes).unwrap();
        let damaged = text.replacen("\"grants\"", "\"grants\" ?? ", 1);
        let (loaded, _dir, _file) = recover(damaged.as_bytes());
        let recovery = loaded.recovery.unwrap();
        assert!(
            recovery.reason.contains("not valid JSON"),
            "{}",
            recovery.reason
        );
        assert!(
            recovery.reason.contains("before the damage"),
            "{}",
            recovery.reason
        );
        assert_eq!(loaded.settings.roots, full.roots);
        assert!(loaded.settings.grants.is_empty() && loaded.settings.servers.is_empty());
        assert_eq!(fs::read_to_string(&recovery.moved_to).unwrap(), damaged);
    }
}
