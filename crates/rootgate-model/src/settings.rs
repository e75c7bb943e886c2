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

use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::consent::Grant;
use crate::ids::now_ms;
use crate::preferences::Preferences;
use crate::roots::Root;
use crate::servers::ServerSpec;

mod lock;
mod tolerant;

pub use lock::WriteLock;
pub(crate) use tolerant::Parsed;
use tolerant::parse_tolerantly;

/// The settings format this build writes and reads (and every older one
/// it reads, upgraded as it does). 2: servers' secret variables
/// (`secrets`), whose values are kept outside the file. 3: a server's
/// `seenEra` "modern" means it refused `initialize`; before, it meant it
/// answered `server/discover`, which servers of both eras do.
pub(crate) const SETTINGS_VERSION: u32 = 3;

/// Everything Rootgate remembers between runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub version: u32,
    /// Pause, notifications, the login offer (see `preferences`). Written
    /// first, before the long lists, so that a file cut short keeps them.
    #[serde(default)]
    pub preferences: Preferences,
    #[serde(default)]
    pub roots: Vec<Root>,
    #[serde(default)]
    pub grants: Vec<Grant>,
    #[serde(default)]
    pub servers: Vec<ServerSpec>,
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
    pub(crate) fn prune_dangling_grants(&mut self) {
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
    #[error(
        "could not take the lock that makes one process at a time change the settings, \"{path}\": {source}"
    )]
    Lock {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
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
    /// Whether sharing was paused could not be read, so Rootgate paused it:
    /// no app sees a folder until the person resumes.
    pub paused_unread: bool,
}

impl Recovery {
    /// The whole story in a few sentences, for a banner in the app.
    pub fn message(&self) -> String {
        let mut message = format!(
            "The settings file could not be fully read ({}). It was moved to \"{}\"; \
             {}, {} and {} were recovered from it.",
            self.reason,
            self.moved_to.display(),
            count(self.kept_roots, "folder", "folders"),
            count(self.kept_grants, "permission", "permissions"),
            count(self.kept_servers, "server", "servers")
        );
        if self.paused_unread {
            message.push_str(
                " Whether you had paused sharing could not be read, so sharing is paused: \
                 no AI app sees a folder until you resume it.",
            );
        }
        message
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
        parent(&self.path)
    }

    /// Reads the settings. A missing file gives empty settings; a file that
    /// cannot be trusted is moved aside, what could be read is kept and
    /// saved to a fresh file, and [`Loaded::recovery`] says what happened.
    /// Reads the file and changes nothing on disk: what a second process
    /// (a bridge) does while the app owns the file. A damaged file gives
    /// every entry that could still be read and the reason, and stays where
    /// it is for the app to recover; a missing one gives empty settings.
    pub fn read(&self) -> Result<(Settings, Option<String>), SettingsError> {
        Ok(match self.read_bytes()? {
            Some(bytes) => {
                let parsed = parse(&bytes);
                (parsed.settings, parsed.problem)
            }
            None => (Settings::default(), None),
        })
    }

    /// The file's bytes as they are now; none when there is no file.
    pub(crate) fn read_bytes(&self) -> Result<Option<Vec<u8>>, SettingsError> {
        match fs::read(&self.path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(SettingsError::Read {
                path: self.path.clone(),
                source,
            }),
        }
    }

    /// Parses bytes read from the file (see [`SettingsFile::read_bytes`]).
    pub(crate) fn parse(bytes: &[u8]) -> Parsed {
        parse(bytes)
    }

    /// Moves a damaged file aside (its bytes kept, as at start) and saves
    /// `settings` in its place; returns where the damaged one went.
    pub(crate) fn replace_damaged(
        &self,
        settings: &Settings,
    ) -> Result<(PathBuf, Digest), SettingsError> {
        let moved_to = self.move_aside()?;
        let digest = self.write(settings)?;
        Ok((moved_to, digest))
    }

    pub fn load(&self) -> Result<Loaded, SettingsError> {
        self.remove_stale_temporaries();
        let Some(bytes) = self.read_bytes()? else {
            return Ok(Loaded {
                settings: Settings::default(),
                recovery: None,
            });
        };
        let parsed = parse(&bytes);
        // The file's bytes are not needed any more; with many folders they
        // are megabytes, so they go before anything else is allocated.
        drop(bytes);
        let recovery = self.recover(&parsed)?;
        Ok(Loaded {
            settings: parsed.settings,
            recovery,
        })
    }

    /// What [`SettingsFile::load`] does with what it parsed: nothing for
    /// a sound file; for one that cannot be trusted, moves it aside, saves
    /// what could be read in its place and says so.
    pub(crate) fn recover(&self, parsed: &Parsed) -> Result<Option<Recovery>, SettingsError> {
        let Some(reason) = parsed.problem.clone() else {
            return Ok(None);
        };
        let settings = &parsed.settings;
        let moved_to = self.move_aside()?;
        let recovery = Recovery {
            moved_to,
            reason,
            kept_roots: settings.roots.len(),
            kept_grants: settings.grants.len(),
            kept_servers: settings.servers.len(),
            paused_unread: parsed.pause_unread,
        };
        tracing::warn!(message = %recovery.message(), "settings recovered");
        self.save(settings)?;
        Ok(Some(recovery))
    }

    /// Renames the current file to `settings.json.unreadable-<ms>` (never
    /// over an existing file) and returns the new path.
    fn move_aside(&self) -> Result<PathBuf, SettingsError> {
        // Through a symbolic link, the file itself is moved aside and the
        // link kept: the next save writes through it again.
        let target = self.target();
        let name = file_name(&target);
        let dir = parent(&target);
        let stamp = now_ms();
        for attempt in 0..100u32 {
            let candidate = dir.join(format!("{name}.unreadable-{stamp}-{attempt}"));
            if candidate.exists() {
                continue;
            }
            return fs::rename(&target, &candidate)
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

    /// The file the settings are in: the path itself, or, when it is a
    /// symbolic link (a person keeping their settings with their other
    /// dotfiles), the file it points to, followed link by link. A link to
    /// a file that is not there (yet) is followed too, so that a save puts
    /// the file where the link says and the link stays a link.
    pub(crate) fn target(&self) -> PathBuf {
        let mut path = self.path.clone();
        // As many links as the kernel follows before it gives up (ELOOP).
        for hops in 0..40 {
            match fs::read_link(&path) {
                Ok(next) => path = parent(&path).join(next),
                Err(_) if hops == 0 => return path,
                Err(_) => break,
            }
        }
        // Named without the `..` a relative link leaves, as a person would
        // look for it (where a damaged file was moved aside).
        match (fs::canonicalize(parent(&path)), path.file_name()) {
            (Ok(dir), Some(name)) => dir.join(name),
            _ => path,
        }
    }

    /// The prefix of the temporary files saves write beside `target`,
    /// before the writer's process id.
    fn temporary_prefix(target: &Path) -> String {
        format!(".{}.tmp-", file_name(target))
    }

    /// Removes the temporary files of saves that a killed or crashed
    /// Rootgate never finished. Each holds a copy of the settings, and none
    /// is ever read or renamed again: the writer's process id is in its name,
    /// and the next Rootgate has another. A file whose writer still runs (or
    /// whose id now belongs to another process) is left alone, so a second
    /// Rootgate saving at this moment is not disturbed. Best effort: a file
    /// that cannot be removed costs only disk space.
    fn remove_stale_temporaries(&self) {
        let target = self.target();
        let Ok(entries) = fs::read_dir(parent(&target)) else {
            return;
        };
        let prefix = Self::temporary_prefix(&target);
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
    /// fsync of the folder (0700). Through a symbolic link, the temporary
    /// file is written beside the file the link points to and renamed over
    /// it there, so the link stays and keeps pointing at the settings.
    pub fn save(&self, settings: &Settings) -> Result<(), SettingsError> {
        self.write(settings).map(|_| ())
    }

    /// [`SettingsFile::save`], giving the digest of the bytes written.
    pub(crate) fn write(&self, settings: &Settings) -> Result<Digest, SettingsError> {
        let dir = self.dir().to_path_buf();
        private_dir(&dir)?;
        // The folder may predate us with looser permissions; it is ours.
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).map_err(|source| {
            SettingsError::CreateDir {
                path: dir.clone(),
                source,
            }
        })?;
        let target = self.target();
        // The folder a link points into is the person's, and keeps the
        // permissions they gave it; it is made only when it is missing.
        let target_dir = parent(&target).to_path_buf();
        private_dir(&target_dir)?;
        let mut json = serde_json::to_vec_pretty(settings)?;
        json.push(b'\n');
        let tmp = target_dir.join(format!(
            "{}{}",
            Self::temporary_prefix(&target),
            std::process::id()
        ));
        let write_err = |source| SettingsError::Write {
            path: self.path.clone(),
            source,
        };
        crate::durable::replace(&target, &tmp, &json, 0o600).map_err(write_err)?;
        Ok(digest(&json))
    }
}

/// What a store keeps of a settings file's bytes to tell whether another
/// process saved since it last read or wrote them: their length and a
/// 64-bit hash. Not a cryptographic digest: whoever can write the file can
/// change the settings anyway, and the standard library's hasher is
/// compiled optimised even in the debug builds the tests run (the `sha2`
/// crate is not), over a file of megabytes with thousands of folders.
pub(crate) type Digest = (usize, u64);

/// The [`Digest`] of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> Digest {
    use std::hash::Hasher;
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(bytes);
    (bytes.len(), hasher.finish())
}

/// Creates `dir` (0700) and the folders above it when missing.
fn private_dir(dir: &Path) -> Result<(), SettingsError> {
    rootgate_host::private_files::folder(dir).map_err(|source| SettingsError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })
}

/// The folder `path` is in.
fn parent(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("."))
}

/// The last component of `path`, as text.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "settings.json".into())
}

/// Parses settings: the whole file at once when it is sound, entry by entry
/// otherwise. Returns the settings and, when anything was wrong, why.
///
/// A sound file (it parses as [`Settings`], its version is not newer and no
/// grant dangles) gives exactly what [`parse_tolerantly`] would, without the
/// JSON tree the tolerant path builds first: with 10,000 folders that tree
/// was most of the app's peak memory at start (12 of 27 MB of heap) and
/// more than half of the time spent loading.
fn parse(bytes: &[u8]) -> Parsed {
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
            return Parsed {
                settings,
                problem: None,
                pause_unread: false,
            };
        }
    }
    parse_tolerantly(bytes)
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
        let Parsed {
            settings, problem, ..
        } = parse(&serde_json::to_vec(&older).unwrap());
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
        for Parsed { settings, .. } in [parse(&bytes), parse_tolerantly(&bytes)] {
            // Found by `server/discover`, which servers of both eras answer:
            // it is found again. A legacy era seen is still right.
            let eras: Vec<_> = settings.servers.iter().map(|s| s.seen_era).collect();
            assert_eq!(eras, [None, Some(Era::Legacy)]);
        }
        // What this format wrote is kept.
        s.version = SETTINGS_VERSION;
        let settings = parse(&serde_json::to_vec(&s).unwrap()).settings;
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
            let loaded = parse_tolerantly(&bytes[..cut]).settings;
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

#[cfg(test)]
mod recovery_tests;

#[cfg(test)]
mod link_tests;
