//! The door: what `rootgate connect NAME` does. It hands the app's standard
//! input, output and error to the resident gate over the user's private
//! socket, waits for the connection to end, and exits with its status, so
//! an app's bytes go app → gate → server with no process copying them in
//! between, and each app session costs one small waiting process.
//!
//! Where no gate listens, the door starts one (`rootgate gate`, detached
//! in a process group of its own, its standard streams none of the app's)
//! and knocks again once it listens. A gate of another build steps aside
//! when asked and the door starts a new one. A gate that ends before the
//! connection does (killed, or crashed) ends the door with the reason on
//! standard error, never a hang: the app sees its server end.
//!
//! What is not here: anything a connection decides (the gate runs
//! `connect`); this is blocking code on purpose, with no runtime, so the
//! door stays a few pages of memory.

use std::io::{self, Read};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{SigSet, Signal};

use crate::hello::{self, Hello, Reply};
use crate::socket::{Unreached, connect_window, gate_log_path, gate_socket_path, private_dir};

/// How long a door waits for a gate it started to listen.
pub const START_PATIENCE: Duration = Duration::from_secs(10);

/// How the door ended, for its exit status.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    /// The gate said how the connection ended.
    Status(u8),
    /// No gate could be reached or started, or it ended before the
    /// connection did; the words say why and what to do.
    Failed(String),
}

/// The door's whole run: the hello for the server `server` in the settings
/// file `settings` (found by `rootgate`, which owns where settings are),
/// handed over, and the exit status the gate replies. `program` is the
/// `rootgate` that starts a gate, and whose build the gate must be.
pub fn run(program: &Path, settings: &Path, server: String) -> ExitCode {
    let hello = Hello {
        build: build_of(program),
        settings: settings.to_path_buf(),
        server,
        working_folder: std::env::current_dir().ok(),
        env: hello::inherited_env(),
    };
    match knock(settings, &hello, program) {
        Ended::Status(code) => ExitCode::from(code),
        Ended::Failed(why) => {
            eprintln!("rootgate: {why}");
            ExitCode::FAILURE
        }
    }
}

/// The build of the `rootgate` at `program`, as a door and its gate
/// compare it: the version, and the program file's size and time, so that a
/// gate left from before an upgrade (or a rebuild) steps aside for one of
/// the program now there.
pub fn build_of(program: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    let file = std::fs::metadata(program)
        .map(|m| format!("{}:{}.{}", m.size(), m.mtime(), m.mtime_nsec()))
        .unwrap_or_default();
    format!("{}+{file}", env!("CARGO_PKG_VERSION"))
}

/// Hands this process's standard streams to the gate of `settings` for
/// the connection `hello` asks for, and waits for it to end. `program` is
/// what starts a gate (this program, with `gate`).
pub fn knock(settings: &Path, hello: &Hello, program: &Path) -> Ended {
    let socket = gate_socket_path(settings);
    // A gate of another build steps aside once; a second step aside would
    // mean two builds keep starting each other's gates.
    for _ in 0..2 {
        let stream = match reach_or_start(&socket, settings, program) {
            Ok(stream) => stream,
            Err(why) => return Ended::Failed(why),
        };
        match hand_over(&stream, hello) {
            Ok(Reply::Exit(code)) => return Ended::Status(code),
            Ok(Reply::Again) => continue,
            Err(why) => return Ended::Failed(why),
        }
    }
    Ended::Failed(
        "the Rootgate gate running now is of another version and would not step aside; \
         quit Rootgate and start the app's server again"
            .into(),
    )
}

/// A connection to the gate: the one that listens, else one this door
/// starts.
fn reach_or_start(socket: &Path, settings: &Path, program: &Path) -> Result<UnixStream, String> {
    match connect_window(socket) {
        Ok(stream) => return Ok(stream),
        Err(Unreached::Absent) => {}
        Err(Unreached::NotOurs(why)) => {
            return Err(format!(
                "the Rootgate gate's socket cannot be trusted: {why}"
            ));
        }
        Err(Unreached::Failed(e)) => {
            return Err(format!("the Rootgate gate could not be reached: {e}"));
        }
    }
    let mut child = start(socket, settings, program)?;
    let deadline = Instant::now() + START_PATIENCE;
    loop {
        match connect_window(socket) {
            Ok(stream) => return Ok(stream),
            Err(Unreached::Absent) => {}
            Err(e) => return Err(format!("the Rootgate gate could not be reached: {e}")),
        }
        // A gate that lost the race to another exits at once and well; the
        // winner is then waited for like this one.
        if let Ok(Some(status)) = child.try_wait()
            && !status.success()
        {
            return Err(format!(
                "the Rootgate gate could not start ({status}){}",
                last_words(&gate_log_path(settings))
            ));
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "the Rootgate gate did not start listening within {} s{}",
                START_PATIENCE.as_secs(),
                last_words(&gate_log_path(settings))
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Starts `program gate`, detached: a process group of its own (an app
/// that stops its server's group stops the door, not the gate every other
/// session uses), working in `/`, standard input and output on nothing,
/// and its standard error in a log beside its socket, never on the app's
/// (a gate outlives the door that started it).
fn start(socket: &Path, settings: &Path, program: &Path) -> Result<Child, String> {
    let dir = socket.parent().unwrap_or(Path::new("/"));
    private_dir(dir).map_err(|e| format!("the Rootgate gate's folder cannot be made: {e}"))?;
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(gate_log_path(settings))
        .map_err(|e| format!("the Rootgate gate's log cannot be opened: {e}"))?;
    Command::new(program)
        .arg("gate")
        .arg("--settings")
        .arg(settings)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        // Not the app's project: a gate outlives the session that started
        // it, and would keep that folder busy (an unmount, a removal).
        .current_dir("/")
        .process_group(0)
        .spawn()
        .map_err(|e| {
            format!(
                "the Rootgate gate could not be started ({}): {e}",
                program.display()
            )
        })
}

/// The log's last line, as the end of a sentence, when there is one.
fn last_words(log: &PathBuf) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    match text.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(line) => format!(": {}", line.trim()),
        None => String::new(),
    }
}

/// Sends the hello with this process's standard streams and reads the
/// gate's one reply. SIGTERM, SIGINT and SIGHUP meanwhile end the
/// connection rather than the door: an app that stops its server with
/// SIGTERM (the TypeScript SDK does, 2 s after closing its input) gets the
/// calls recorded and the server stopped before the door exits, as it did
/// when the door was the bridge.
fn hand_over(stream: &UnixStream, hello: &Hello) -> Result<Reply, String> {
    let stops = pass_stop_signals_on(stream);
    let reply = exchange(stream, hello);
    if let Some(stops) = stops {
        let _ = stops.thread_unblock();
    }
    reply
}

/// Blocks the stop signals in this thread and waits for them on a thread
/// of its own, which half-closes the socket: the gate ends the connection
/// as when the app goes, and replies. Blocked only here, after any gate
/// this door starts was started (a child inherits the blocked set).
fn pass_stop_signals_on(stream: &UnixStream) -> Option<SigSet> {
    let mut stops = SigSet::empty();
    for signal in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        stops.add(signal);
    }
    let half = stream.try_clone().ok()?;
    stops.thread_block().ok()?;
    let waited = stops;
    let spawned = std::thread::Builder::new()
        .name("stop-signals".into())
        .spawn(move || {
            if waited.wait().is_ok() {
                let _ = half.shutdown(std::net::Shutdown::Write);
            }
        });
    if spawned.is_err() {
        let _ = stops.thread_unblock();
        return None;
    }
    Some(stops)
}

fn exchange(stream: &UnixStream, hello: &Hello) -> Result<Reply, String> {
    let (stdin, stdout, stderr) = (io::stdin(), io::stdout(), io::stderr());
    let fds = [stdin.as_fd(), stdout.as_fd(), stderr.as_fd()];
    hello::send(stream.as_fd(), hello, fds)
        .map_err(|e| format!("the connection could not be handed to the Rootgate gate: {e}"))?;
    let mut line = Vec::new();
    let reader = stream;
    // The reply is one short line at the connection's end; the gate closes
    // the socket after it, so reading to the end reads the line.
    reader
        .take(hello::MOST as u64)
        .read_to_end(&mut line)
        .map_err(|e| format!("the Rootgate gate's answer could not be read: {e}"))?;
    let text = String::from_utf8_lossy(&line);
    let Some(first) = text.lines().next().filter(|l| !l.trim().is_empty()) else {
        return Err(
            "the Rootgate gate ended before this connection did (it was stopped or failed); \
             start the app's server again to reach a new one"
                .into(),
        );
    };
    serde_json::from_str(first)
        .map_err(|e| format!("the Rootgate gate answered in words this version does not read: {e}"))
}
