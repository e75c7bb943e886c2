//! One Rootgate per settings file: which start of the app owns the
//! settings, and how any other start hands its folders to it and gets out
//! of the way.
//!
//! The window holds the settings in memory and saves them on every change,
//! so two windows on one file would overwrite each other. The authority is
//! an exclusive `flock` on `settings.json.lock` beside the settings file:
//! the kernel lets it go when its process ends, however it ends, so a
//! window that crashed never keeps another from starting, and a socket it
//! left behind is only a file (the owner replaces it when it listens). A
//! start that finds the lock held sends an [`OpenRequest`] (its folders,
//! possibly none) over the window's private socket (`connections`, the one
//! `rootgate import` and the bridges use; its folder and the listener's uid
//! are checked before a byte is sent: `window_socket`), prints the answer
//! and exits; the owner opens a consent prompt per folder and raises its
//! window. An owner still starting (the lock taken, the socket not yet
//! bound) is waited for, watching the socket's folder, for at most the
//! patience given; one that ends meanwhile frees the lock and the waiting
//! start becomes the owner itself, so no folder is lost either way.
//!
//! Not here: what the window does with the folders (the supervisor's
//! prompts, the app's raising of its window), and the socket's listener
//! (`connections`).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use nix::fcntl::{Flock, FlockArg};
use rootgate_host::private_files;

use crate::connections::{OpenAnswer, OpenRequest, Report, socket_path};
use crate::window_socket::{Unreached, connect_window, refusal_words};

/// How long a second start waits for the owner's window to answer by
/// default: long enough for a cold WebKit window on a busy machine to bind
/// its socket.
pub const PATIENCE: Duration = Duration::from_secs(30);

/// While waiting for an owner's socket, how often the lock is tried again:
/// an owner that dies before it binds leaves no event in the socket's
/// folder, only a lock that is free.
const RECHECK: Duration = Duration::from_millis(250);

/// The lock that makes this process the one Rootgate of its settings file.
/// Held for as long as the value lives; the kernel releases it when the
/// process ends. The file is opened close-on-exec, so no server started by
/// the app inherits it.
#[derive(Debug)]
pub struct Owner {
    _lock: Flock<File>,
}

/// What a start of Rootgate found.
#[derive(Debug)]
pub enum Start {
    /// No other Rootgate has these settings: this one owns them.
    Own(Owner),
    /// Another one has them and took the folders: this one should exit.
    HandedOver(OpenAnswer),
}

/// Why a start could neither own the settings nor hand its folders over.
#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error("cannot use the lock file {path}: {source}")]
    Lock {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "Rootgate{} has these settings open but its window did not answer on {socket} within {}{}",
        pid_words(*.pid),
        seconds(*.waited),
        folders_words(.folders)
    )]
    NoAnswer {
        pid: Option<u32>,
        socket: PathBuf,
        waited: Duration,
        folders: Vec<PathBuf>,
    },
    #[error("{}{}", refusal_words(.why), folders_words(.folders))]
    NotOurs { why: String, folders: Vec<PathBuf> },
    #[error("the Rootgate window on {socket} {what}{}", folders_words(.folders))]
    Refused {
        socket: PathBuf,
        what: String,
        folders: Vec<PathBuf>,
    },
}

/// "30 s", or "0.5 s" below a second.
fn seconds(d: Duration) -> String {
    if d.as_secs() >= 1 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

fn pid_words(pid: Option<u32>) -> String {
    pid.map(|p| format!(" (process {p})")).unwrap_or_default()
}

/// The folders a failed hand-over did not deliver, so that the person can
/// give them again rather than lose them.
fn folders_words(folders: &[PathBuf]) -> String {
    if folders.is_empty() {
        return String::new();
    }
    let list: Vec<String> = folders.iter().map(|f| f.display().to_string()).collect();
    format!("; these folders were not handed over: {}", list.join(", "))
}

/// What a start that handed its folders over tells the person: a line for
/// the terminal, and a line per folder the window could not take (its
/// reason, as the window shows it too).
pub fn answer_words(answer: &OpenAnswer) -> (String, &[String]) {
    let mut said = match answer.prompts {
        0 => "Rootgate is open already; its window was brought to the front.".to_owned(),
        1 => "Rootgate is open already: it asks you about the folder in its window.".to_owned(),
        n => format!("Rootgate is open already: it asks you about {n} folders in its window."),
    };
    match answer.bundles {
        0 => {}
        1 => said.push_str(" It shows the bundle there; install it from the window."),
        n => said.push_str(&format!(
            " It shows the {n} bundles there; install them from the window."
        )),
    }
    (said, &answer.notices)
}

/// Prints [`answer_words`] for a start that handed its folders over (the
/// `rootgate` command's and the desktop app's, which say the same) and
/// says how it ended: a failure when the window could not take a folder.
pub fn tell(answer: &OpenAnswer) -> std::process::ExitCode {
    let (said, refused) = answer_words(answer);
    println!("{said}");
    for reason in refused {
        eprintln!("rootgate: {reason}");
    }
    if refused.is_empty() {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}

/// The folders of a command line as another start hands them over: made
/// absolute against this process's working folder, which the window does
/// not share, and not resolved further (the window checks each and tells
/// a symlink from its target).
pub fn request_for(paths: &[PathBuf]) -> OpenRequest {
    let (bundles, folders) = paths
        .iter()
        .map(|f| std::path::absolute(f).unwrap_or_else(|_| f.clone()))
        .partition(|p| is_bundle(p));
    OpenRequest { folders, bundles }
}

/// Whether `path` names an MCP bundle: a file whose name ends in `.mcpb`
/// (what the format and the file manager's MIME type go by). A folder of
/// that name is a folder.
pub fn is_bundle(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("mcpb"))
        && !path.is_dir()
}

/// The lock file of the settings file `settings`.
pub fn lock_path(settings: &Path) -> PathBuf {
    let mut name = settings
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "settings.json".into());
    name.push(".lock");
    settings.with_file_name(name)
}

/// Takes the lock of `settings` if no other process holds it: `Ok(Some)`
/// makes this process the owner, `Ok(None)` says another one is.
pub fn claim(settings: &Path) -> Result<Option<Owner>, InstanceError> {
    let path = lock_path(settings);
    let error = |source| InstanceError::Lock {
        path: path.clone(),
        source,
    };
    if let Some(dir) = path.parent() {
        private_files::folder(dir).map_err(error)?;
    }
    let file = private_files::lock_file(&path).map_err(error)?;
    match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
        Ok(mut lock) => {
            // The owner's process id, for the words of a start that cannot
            // reach it; the lock, not this number, is what counts.
            let pid = std::process::id().to_string();
            let _ = lock
                .set_len(0)
                .and_then(|()| lock.write_all(pid.as_bytes()));
            Ok(Some(Owner { _lock: lock }))
        }
        Err((_, nix::errno::Errno::EWOULDBLOCK)) => Ok(None),
        Err((_, errno)) => Err(error(io::Error::from(errno))),
    }
}

/// The process that holds the lock, as it wrote it.
fn owner_pid(settings: &Path) -> Option<u32> {
    let mut text = String::new();
    File::open(lock_path(settings))
        .ok()?
        .read_to_string(&mut text)
        .ok()?;
    text.trim().parse().ok()
}

/// Owns the settings when no other Rootgate does; otherwise hands
/// `request` to the one that does, waiting up to `patience` for its window
/// to answer (see the module's documentation).
pub fn start(
    settings: &Path,
    request: &OpenRequest,
    patience: Duration,
) -> Result<Start, InstanceError> {
    Ok(match hand_over(settings, request, patience)? {
        Handed::Free(owner) => Start::Own(owner),
        Handed::Answer(answer) => Start::HandedOver(answer),
    })
}

/// Hands `request` to the Rootgate that owns `settings`, if one does;
/// `None` when none does (the lock is free, and left free for the app the
/// caller starts). For the `rootgate` command, which opens the desktop app
/// only when there is no window to hand over to.
pub fn hand_over_if_running(
    settings: &Path,
    request: &OpenRequest,
    patience: Duration,
) -> Result<Option<OpenAnswer>, InstanceError> {
    Ok(match hand_over(settings, request, patience)? {
        // Let go at once: the app the caller opens takes it.
        Handed::Free(_) => None,
        Handed::Answer(answer) => Some(answer),
    })
}

enum Handed {
    /// Nobody held the lock; now this process does.
    Free(Owner),
    Answer(OpenAnswer),
}

fn hand_over(
    settings: &Path,
    request: &OpenRequest,
    patience: Duration,
) -> Result<Handed, InstanceError> {
    let socket = socket_path(settings);
    let deadline = Instant::now() + patience;
    // Made before the first look, so that a socket bound between the look
    // and the wait still wakes it.
    let (wake, woken) = mpsc::channel();
    let _watcher = watch_folder(&socket, wake);
    loop {
        if let Some(owner) = claim(settings)? {
            return Ok(Handed::Free(owner));
        }
        match send(&socket, request) {
            Ok(answer) => return Ok(Handed::Answer(answer)),
            Err(Send::NotYet) => {}
            Err(Send::NotOurs(why)) => {
                return Err(InstanceError::NotOurs {
                    why,
                    folders: request.folders.clone(),
                });
            }
            Err(Send::Failed(what)) => {
                return Err(InstanceError::Refused {
                    socket,
                    what,
                    folders: request.folders.clone(),
                });
            }
        }
        let now = Instant::now();
        if now >= deadline {
            return Err(InstanceError::NoAnswer {
                pid: owner_pid(settings),
                socket,
                waited: patience,
                folders: request.folders.clone(),
            });
        }
        let _ = woken.recv_timeout(RECHECK.min(deadline - now));
        while woken.try_recv().is_ok() {}
    }
}

/// Watches the socket's folder, so that the window binding its socket
/// wakes the wait at once. Without a watch (no inotify left), the wait
/// still re-checks every `RECHECK`.
fn watch_folder(socket: &Path, wake: mpsc::Sender<()>) -> Option<notify::RecommendedWatcher> {
    use notify::{RecursiveMode, Watcher};
    let dir = socket.parent()?;
    crate::connections::private_dir(dir).ok()?;
    let mut watcher = notify::recommended_watcher(move |_: notify::Result<notify::Event>| {
        let _ = wake.send(());
    })
    .ok()?;
    watcher.watch(dir, RecursiveMode::NonRecursive).ok()?;
    Some(watcher)
}

enum Send {
    /// Nobody listens there yet (or any more).
    NotYet,
    /// Someone listens but did not take the request, in words.
    Failed(String),
    /// What is there is not the person's own window (see
    /// `window_socket`): nothing was sent.
    NotOurs(String),
}

/// Sends `request` as the first and only line and reads the one answer,
/// to the person's own window only (`window_socket::connect_window`).
fn send(socket: &Path, request: &OpenRequest) -> Result<OpenAnswer, Send> {
    let stream = match connect_window(socket) {
        Ok(stream) => stream,
        Err(Unreached::Absent) => return Err(Send::NotYet),
        Err(Unreached::NotOurs(why)) => return Err(Send::NotOurs(why)),
        Err(e @ Unreached::Failed(_)) => return Err(Send::Failed(e.to_string())),
    };
    let report = Report::Open {
        request: request.clone(),
    };
    let mut line = serde_json::to_vec(&report).map_err(|e| Send::Failed(e.to_string()))?;
    line.push(b'\n');
    let mut writer = &stream;
    writer
        .write_all(&line)
        .map_err(|e| Send::Failed(format!("stopped reading: {e}")))?;
    let mut answer = String::new();
    BufReader::new(&stream)
        .read_line(&mut answer)
        .map_err(|e| Send::Failed(format!("did not answer: {e}")))?;
    serde_json::from_str(&answer).map_err(|_| {
        Send::Failed("did not answer (it may be a Rootgate of another version)".into())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_sits_beside_the_settings_file() {
        assert_eq!(
            lock_path(Path::new("/home/a/.config/rootgate/settings.json")),
            Path::new("/home/a/.config/rootgate/settings.json.lock")
        );
    }

    #[test]
    fn one_claim_holds_until_it_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("rootgate/settings.json");
        let first = claim(&settings).unwrap().expect("the first claim owns");
        assert!(
            claim(&settings).unwrap().is_none(),
            "a second claim is held off"
        );
        assert_eq!(owner_pid(&settings), Some(std::process::id()));
        drop(first);
        assert!(
            claim(&settings).unwrap().is_some(),
            "a dropped claim frees it"
        );
    }

    #[test]
    fn the_words_of_a_failed_hand_over_keep_its_folders() {
        let e = InstanceError::NoAnswer {
            pid: Some(42),
            socket: PathBuf::from("/run/user/1000/rootgate/window-1.sock"),
            waited: Duration::from_secs(30),
            folders: vec![PathBuf::from("/home/a/notes")],
        };
        let words = e.to_string();
        assert!(words.contains("(process 42)"), "{words}");
        assert!(words.contains("within 30 s"), "{words}");
        assert!(words.contains("/home/a/notes"), "{words}");
    }
}
