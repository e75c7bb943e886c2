//! Start at login: the XDG autostart entry
//! (`$XDG_CONFIG_HOME/autostart/rootgate.desktop`, the Desktop Application
//! Autostart Specification) that starts Rootgate hidden in the tray when
//! the person logs in.
//!
//! The file is the truth: whether Rootgate starts at login is read from it
//! each time, never remembered beside it, so a person who removes it by
//! hand (or with their desktop's own "Startup Applications") sees the
//! choice off in the window. A file Rootgate wrote is recognised by its
//! content; one the person edited (an extra option, another icon) is
//! theirs: turning the choice off then marks it `Hidden=true` (the
//! specification's way of saying "do not start") instead of deleting their
//! work, and turning it on again removes that mark.
//!
//! What is not here: the choice's place in the window, and when it is
//! offered (the supervisor, with `Preferences::start_at_login_offered`).

use std::fs::{self, DirBuilder};
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// The option that starts the app hidden, in the tray.
pub const HIDDEN_FLAG: &str = "--hidden";

/// Why the entry could not be written or removed.
#[derive(Debug, thiserror::Error)]
pub enum AutostartError {
    #[error("the autostart entry {path} could not be {doing}: {source}")]
    Io {
        path: PathBuf,
        doing: &'static str,
        #[source]
        source: io::Error,
    },
    #[error("Rootgate's program path {0} is not valid UTF-8, which a desktop entry cannot hold")]
    NotUtf8(PathBuf),
    #[error(
        "Rootgate's program was replaced or removed while it ran ({0}), and no installed \
         Rootgate is there to start at login instead; start Rootgate again, then turn Start \
         at login on"
    )]
    Gone(PathBuf),
}

/// Where the package installs the app.
pub(crate) const INSTALLED: &str = "/usr/bin/rootgate-desktop";

/// What Linux writes after the path of a running program whose file was
/// replaced or removed since it started (`/proc/self/exe`, and so
/// `std::env::current_exe`): `apt upgrade` replaces the app while it runs.
const DELETED: &str = " (deleted)";

/// The program a login should start, for the running `program`: itself,
/// unless its file was replaced or removed since it started; then the
/// file now at its path (the upgrade's), else the installed app
/// (`installed`), else none. Never a path ending in " (deleted)", which
/// names no file and would silently never start.
pub(crate) fn login_program(program: &Path, installed: &Path) -> Option<PathBuf> {
    let Some(was) = program.to_str().and_then(|p| p.strip_suffix(DELETED)) else {
        return Some(program.to_path_buf());
    };
    if program.is_file() {
        // A file really named so: it is there to start.
        return Some(program.to_path_buf());
    }
    [Path::new(was), installed]
        .into_iter()
        .find(|p| p.is_file())
        .map(Path::to_path_buf)
}

/// Where Start at login stands, for the window.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoginStart {
    /// Rootgate starts when the person logs in.
    pub on: bool,
    /// The file is not the one Rootgate writes: the person (or another
    /// tool) changed it, and Rootgate keeps their changes.
    pub edited: bool,
    /// The entry's path, to show (never taken back from the window).
    pub path: PathBuf,
}

/// The autostart entry of one configuration folder.
#[derive(Debug, Clone)]
pub struct Autostart {
    path: PathBuf,
}

impl Autostart {
    /// The entry in the configuration folder `config_home`
    /// (`$XDG_CONFIG_HOME`, `~/.config` when unset).
    pub fn in_config_home(config_home: &Path) -> Autostart {
        Autostart {
            path: config_home.join("autostart").join("rootgate.desktop"),
        }
    }

    /// The entry beside the settings file `settings`
    /// (`CONFIG/rootgate/settings.json`): the same configuration folder, so
    /// a test's or a second profile's Rootgate never touches the person's.
    pub fn for_settings(settings: &Path) -> Option<Autostart> {
        let config_home = settings.parent()?.parent()?;
        Some(Autostart::in_config_home(config_home))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the choice stands now, for `program` (the app's binary).
    pub fn state(&self, program: &Path) -> LoginStart {
        let text = fs::read_to_string(&self.path).ok();
        LoginStart {
            on: text.as_deref().is_some_and(starts),
            edited: text
                .as_deref()
                .is_some_and(|t| entry(program).is_none_or(|ours| !same_but_exec(t, &ours))),
            path: self.path.clone(),
        }
    }

    /// Starts Rootgate at login: writes the entry, or takes the "do not
    /// start" mark off one the person edited.
    pub fn enable(&self, program: &Path) -> Result<LoginStart, AutostartError> {
        let program = &login_program(program, Path::new(INSTALLED))
            .ok_or_else(|| AutostartError::Gone(program.into()))?;
        let ours = entry(program).ok_or_else(|| AutostartError::NotUtf8(program.into()))?;
        match self.read()? {
            // Ours, perhaps naming a program that moved: written anew.
            Some(text) if same_but_exec(&text, &ours) => {
                if text != ours {
                    self.write(&ours)?;
                }
            }
            Some(text) if !starts(&text) => self.write(&unhidden(&text))?,
            Some(_) => {}
            None => self.write(&ours)?,
        }
        Ok(self.state(program))
    }

    /// Stops starting Rootgate at login: removes the entry Rootgate wrote,
    /// or marks one the person edited `Hidden=true`, keeping their changes.
    pub fn disable(&self, program: &Path) -> Result<LoginStart, AutostartError> {
        match self.read()? {
            None => {}
            Some(text) if entry(program).is_some_and(|ours| same_but_exec(&text, &ours)) => {
                fs::remove_file(&self.path).map_err(|source| AutostartError::Io {
                    path: self.path.clone(),
                    doing: "removed",
                    source,
                })?;
            }
            Some(text) if starts(&text) => self.write(&hidden(&text))?,
            Some(_) => {}
        }
        Ok(self.state(program))
    }

    fn read(&self) -> Result<Option<String>, AutostartError> {
        match fs::read(&self.path) {
            // A file that is not UTF-8 is not a valid entry: it is the
            // person's, and is handled as edited.
            Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(AutostartError::Io {
                path: self.path.clone(),
                doing: "read",
                source,
            }),
        }
    }

    /// Writes `text` atomically (temporary file, fsync, rename), so a
    /// login never finds half an entry.
    fn write(&self, text: &str) -> Result<(), AutostartError> {
        let fail = |source| AutostartError::Io {
            path: self.path.clone(),
            doing: "written",
            source,
        };
        let dir = self.path.parent().unwrap_or(Path::new("."));
        DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(dir)
            .map_err(fail)?;
        let tmp = dir.join(format!(".rootgate.desktop.{}", std::process::id()));
        crate::durable::replace(&self.path, &tmp, text.as_bytes(), 0o644).map_err(fail)
    }
}

/// The entry Rootgate writes for `program`; `None` for a path that is not
/// UTF-8.
pub fn entry(program: &Path) -> Option<String> {
    let program = program.to_str()?;
    Some(format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Name=Rootgate\n\
         Comment=Keeps Rootgate in the tray, to ask when an AI app needs a folder\n\
         Exec={} {HIDDEN_FLAG}\n\
         Icon=rootgate-desktop\n\
         Terminal=false\n\
         X-GNOME-Autostart-enabled=true\n",
        exec_arg(program)
    ))
}

/// One argument of an `Exec` line, as the Desktop Entry Specification
/// asks: quoted when it holds a reserved character (with `"`, `` ` ``,
/// `$` and `\` escaped inside), then escaped as a string value (`\` twice)
/// and with `%` doubled, since `%` starts a field code.
fn exec_arg(arg: &str) -> String {
    const RESERVED: &str = " \t\n\"'\\><~|&;$*?#()`";
    let quoted = if arg.is_empty() || arg.chars().any(|c| RESERVED.contains(c)) {
        let mut q = String::from("\"");
        for c in arg.chars() {
            if matches!(c, '"' | '`' | '$' | '\\') {
                q.push('\\');
            }
            q.push(c);
        }
        q.push('"');
        q
    } else {
        arg.to_owned()
    };
    quoted.replace('\\', "\\\\").replace('%', "%%")
}

/// Whether `a` and `b` are the same entry but for the program they run.
fn same_but_exec(a: &str, b: &str) -> bool {
    let without = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.starts_with("Exec="))
            .map(str::to_owned)
            .collect()
    };
    without(a) == without(b)
        && a.lines().filter(|l| l.starts_with("Exec=")).count() == 1
        && a.lines()
            .find(|l| l.starts_with("Exec="))
            .is_some_and(|l| l.ends_with(&format!(" {HIDDEN_FLAG}")))
}

/// The keys of the `[Desktop Entry]` group, as (key, value).
fn main_group(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let mut in_main = false;
    text.lines().filter_map(move |line| {
        let line = line.trim();
        if line.starts_with('[') {
            in_main = line == "[Desktop Entry]";
            return None;
        }
        if !in_main {
            return None;
        }
        let (key, value) = line.split_once('=')?;
        Some((key.trim(), value.trim()))
    })
}

/// Whether a desktop that follows the specification starts this entry:
/// not `Hidden`, and not switched off the GNOME way.
fn starts(text: &str) -> bool {
    !main_group(text).any(|(k, v)| {
        (k == "Hidden" && v == "true") || (k == "X-GNOME-Autostart-enabled" && v == "false")
    })
}

/// The person's entry with its "do not start" marks taken off.
fn unhidden(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        match line.split_once('=').map(|(k, v)| (k.trim(), v.trim())) {
            Some(("Hidden", "true")) => continue,
            Some(("X-GNOME-Autostart-enabled", "false")) => {
                out.push_str("X-GNOME-Autostart-enabled=true\n");
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// The person's entry marked `Hidden=true` under its group's heading.
fn hidden(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 12);
    let mut marked = false;
    for line in text.lines() {
        if matches!(line.split_once('='), Some((k, _)) if k.trim() == "Hidden") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if !marked && line.trim() == "[Desktop Entry]" {
            out.push_str("Hidden=true\n");
            marked = true;
        }
    }
    if !marked {
        out.insert_str(0, "[Desktop Entry]\nHidden=true\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "/usr/bin/rootgate-desktop";

    fn fixture() -> (tempfile::TempDir, Autostart) {
        let dir = tempfile::tempdir().expect("tempdir");
        let autostart = Autostart::in_config_home(dir.path());
        (dir, autostart)
    }

    #[test]
    fn a_program_replaced_while_it_ran_is_started_from_where_it_is_now() {
        let dir = tempfile::tempdir().expect("tempdir");
        let upgraded = dir.path().join("rootgate-desktop");
        let installed = dir.path().join("installed");
        let running = PathBuf::from(format!("{}{DELETED}", upgraded.display()));
        // Neither the upgrade's file nor an installed app: none, never the
        // " (deleted)" path.
        assert_eq!(login_program(&running, &installed), None);
        fs::write(&installed, "").expect("write");
        assert_eq!(login_program(&running, &installed), Some(installed.clone()));
        fs::write(&upgraded, "").expect("write");
        assert_eq!(login_program(&running, &installed), Some(upgraded.clone()));
        // A program that was not replaced is itself, there or not.
        assert_eq!(login_program(&upgraded, &installed), Some(upgraded.clone()));
        assert_eq!(
            login_program(Path::new(PROGRAM), &installed),
            Some(PathBuf::from(PROGRAM))
        );
    }

    #[test]
    fn an_entry_is_never_written_for_a_program_that_is_gone() {
        let (dir, a) = fixture();
        let gone = PathBuf::from(format!(
            "{}{DELETED}",
            dir.path().join("nowhere/rootgate-desktop").display()
        ));
        if Path::new(INSTALLED).is_file() {
            // Where the package is installed, the login starts it.
            a.enable(&gone).expect("enable");
            let text = fs::read_to_string(a.path()).expect("read");
            assert!(
                text.contains(&format!("Exec={INSTALLED} --hidden\n")),
                "{text}"
            );
        } else {
            let err = a.enable(&gone).expect_err("no program to start");
            assert!(matches!(err, AutostartError::Gone(_)), "{err}");
            assert!(!a.path().exists(), "an entry was written for {gone:?}");
        }
    }

    #[test]
    fn on_writes_the_entry_and_off_removes_it() {
        let (_dir, a) = fixture();
        let program = Path::new(PROGRAM);
        assert!(!a.state(program).on);
        let on = a.enable(program).expect("enable");
        assert!(on.on && !on.edited, "{on:?}");
        let text = fs::read_to_string(a.path()).expect("read");
        assert!(
            text.contains("Exec=/usr/bin/rootgate-desktop --hidden\n"),
            "{text}"
        );
        let off = a.disable(program).expect("disable");
        assert!(!off.on && !off.edited);
        assert!(!a.path().exists());
        // Off twice, on twice: nothing to do the second time.
        a.disable(program).expect("disable again");
        a.enable(program).expect("enable");
        a.enable(program).expect("enable again");
        assert!(a.state(program).on);
    }

    #[test]
    fn an_edited_entry_is_kept_and_marked_hidden_then_unmarked() {
        let (_dir, a) = fixture();
        let program = Path::new(PROGRAM);
        a.enable(program).expect("enable");
        let edited = fs::read_to_string(a.path())
            .expect("read")
            .replace("--hidden", "--hidden --verbose")
            + "X-Note=mine\n";
        fs::write(a.path(), &edited).expect("edit");
        let state = a.state(program);
        assert!(state.on && state.edited, "{state:?}");
        let off = a.disable(program).expect("disable");
        assert!(!off.on && off.edited);
        let text = fs::read_to_string(a.path()).expect("kept");
        assert!(text.starts_with("[Desktop Entry]\nHidden=true\n"), "{text}");
        assert!(text.contains("--verbose") && text.contains("X-Note=mine"));
        let on = a.enable(program).expect("enable");
        assert!(on.on && on.edited);
        assert_eq!(fs::read_to_string(a.path()).expect("read"), edited);
    }

    #[test]
    fn an_entry_switched_off_the_gnome_way_counts_as_off_and_is_switched_on() {
        let (_dir, a) = fixture();
        let program = Path::new(PROGRAM);
        fs::create_dir_all(a.path().parent().expect("dir")).expect("mkdir");
        let ours = entry(program).expect("entry");
        fs::write(
            a.path(),
            ours.replace("Autostart-enabled=true", "Autostart-enabled=false"),
        )
        .expect("write");
        assert!(!a.state(program).on);
        assert!(a.enable(program).expect("enable").on);
    }

    #[test]
    fn an_entry_for_a_program_that_moved_is_still_ours_and_written_anew() {
        let (_dir, a) = fixture();
        a.enable(Path::new("/old/place/rootgate-desktop"))
            .expect("enable");
        let program = Path::new(PROGRAM);
        assert!(!a.state(program).edited);
        a.enable(program).expect("enable");
        assert_eq!(
            fs::read_to_string(a.path()).expect("read"),
            entry(program).expect("entry")
        );
        a.disable(program).expect("disable");
        assert!(!a.path().exists());
    }

    #[test]
    fn program_paths_are_quoted_as_the_specification_asks() {
        assert_eq!(exec_arg("/usr/bin/rootgate"), "/usr/bin/rootgate");
        assert_eq!(
            exec_arg("/home/a b/rootgate"),
            "\"/home/a b/rootgate\"",
            "a space is quoted"
        );
        assert_eq!(
            exec_arg("/x/$HOME`\"\\/r"),
            "\"/x/\\\\$HOME\\\\`\\\\\"\\\\\\\\/r\"",
            "escaped inside the quotes, then as a string value"
        );
        assert_eq!(exec_arg("/x/100%/r"), "/x/100%%/r");
    }

    #[test]
    fn the_entry_sits_beside_the_settings_folder() {
        let a = Autostart::for_settings(Path::new("/h/.config/rootgate/settings.json"))
            .expect("autostart");
        assert_eq!(a.path(), Path::new("/h/.config/autostart/rootgate.desktop"));
    }
}
