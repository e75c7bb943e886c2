//! The resident gate: one Rootgate process per user session (per settings
//! file) that serves every `rootgate connect`. Each app session's door
//! hands it the app's standard streams over the user's private socket
//! (`hello`, `door`), and the gate runs the connection (`connect`) on them
//! in this one process: one settings watch, one runtime, one questions
//! path for all of them, instead of one bridge process each.
//!
//! The gate is started by the first door that finds none (`door`), or by
//! systemd's user socket activation where systemd runs the session (the
//! `.deb`'s `rootgate-gate.socket`); it ends once it has had no connection
//! for its idle time. One gate listens per settings file: a lock beside the
//! socket decides between two started at once. A door of another build
//! makes the gate step aside: it stops listening at once, serves its
//! connections to their end, and the door starts a gate of its own build.
//! Killing the gate ends every door with the reason on the app's standard
//! error (the door's side, `door`); the next door starts a new one.
//!
//! The connections share server processes where they can (`shared`): the
//! gate stays while a server it keeps for the next connection runs.
//!
//! What is not here: what a connection does (`connect`, the relay), and
//! how connections share a server (`shared`).

pub use rootgate_door::socket::{gate_log_path, gate_socket_path};
pub use rootgate_door::{door, hello};

use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rootgate_model::settings::SettingsFile;
use rootgate_session::SessionConfig;
use rootgate_session::process::StartedBy;
use tokio::io::Interest;
use tokio::net::UnixStream;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::window_socket::{private_dir, same_user};
use crate::{Options, Outcome, app_io, connect, notes::Notes};
use hello::{Hello, Reply};

/// How long a gate with no connection waits for one before it ends.
pub const IDLE: Duration = Duration::from_secs(120);

/// How long a door has to send its hello once connected.
const HELLO_WITHIN: Duration = Duration::from_secs(5);

/// What a gate serves.
#[derive(Clone)]
pub struct GateConfig {
    pub settings: SettingsFile,
    /// How long it waits, with no connection, before it ends.
    pub idle: Duration,
    pub session: SessionConfig,
    /// This build (see `Hello::build`).
    pub build: String,
}

/// Why the gate did not serve.
#[derive(Debug)]
pub enum NotServed {
    /// Another gate listens for these settings; this one had nothing to do.
    AnotherListens,
    /// The socket could not be made; the words say why.
    Failed(String),
}

/// Serves doors until the gate has been idle for `config.idle`, has
/// stepped aside for another build, or is told to stop (SIGTERM, SIGINT).
/// `inherited` is a listening socket systemd passed; without one the gate
/// binds its own.
pub async fn serve(
    config: GateConfig,
    inherited: Option<std::os::unix::net::UnixListener>,
) -> Result<(), NotServed> {
    let socket = gate_socket_path(config.settings.path());
    let (listening, bound) = listen(&socket, inherited)?;
    // Settings that cannot be read at all leave each connection to say so
    // to its app, as a connection of its own does.
    let lives = crate::shared::Lives::open(config.settings.clone(), config.session)
        .map_err(|e| eprintln!("rootgate gate: the settings could not be read: {e}"))
        .ok();
    let config = Arc::new(Served { config, lives });
    let (count, mut counted) = watch::channel(0usize);
    let step_aside = CancellationToken::new();
    let (stepped_aside, _) = watch::channel(false);
    let mut terminated = crate::stop_signals();
    loop {
        tokio::select! {
            accepted = listening.listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let aside = Aside { asked: step_aside.clone(), done: stepped_aside.subscribe() };
                    tokio::spawn(door(stream, Arc::clone(&config), count.clone(), aside));
                }
                Err(e) => {
                    eprintln!("rootgate gate: a connection could not be accepted: {e}");
                    // Out of descriptors, most likely: the ones in use end
                    // before more can be taken.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            () = idle(counted.clone(), config.config.idle, config.lives.clone()) => break,
            () = step_aside.cancelled() => break,
            // Each connection hears the signal too and ends, its calls
            // recorded; the gate waits for them (`until_end`).
            Some(()) = terminated.recv() => break,
        }
    }
    // No door reaches this gate from here on; the connections it serves
    // go on to their end.
    drop(listening);
    if let Some(inode) = bound {
        forget_socket(&socket, inode);
    }
    stepped_aside.send_replace(true);
    let _ = counted.wait_for(|n| *n == 0).await;
    Ok(())
}

/// The listening socket, with the lock that makes it the only one for its
/// settings file (held as long as the listener).
struct Listening {
    listener: tokio::net::UnixListener,
    _lock: Option<File>,
}

/// Listens on `socket` (or on what systemd passed); with the inode of the
/// socket file when this gate made it, so it removes only its own.
fn listen(
    socket: &Path,
    inherited: Option<std::os::unix::net::UnixListener>,
) -> Result<(Listening, Option<u64>), NotServed> {
    let failed = |what: &str, e: io::Error| NotServed::Failed(format!("{what}: {e}"));
    let (std_listener, lock, bound) = match inherited {
        Some(listener) => (listener, None, None),
        None => {
            let dir = socket.parent().unwrap_or(Path::new("/"));
            private_dir(dir).map_err(|e| failed("the gate's folder cannot be made", e))?;
            let lock = File::create(socket.with_extension("lock"))
                .map_err(|e| failed("the gate's lock cannot be made", e))?;
            match rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => return Err(NotServed::AnotherListens),
                Err(e) => return Err(failed("the gate's lock cannot be taken", e.into())),
            }
            // Under the lock, a socket file there is a gate's that is gone.
            match std::fs::remove_file(socket) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => {
                    return Err(failed("an old gate's socket cannot be removed", e));
                }
                _ => {}
            }
            let listener = std::os::unix::net::UnixListener::bind(socket)
                .map_err(|e| failed("the gate's socket cannot be made", e))?;
            let inode = std::fs::symlink_metadata(socket).map(|m| m.ino()).ok();
            (listener, Some(lock), inode)
        }
    };
    std_listener
        .set_nonblocking(true)
        .map_err(|e| failed("the gate's socket cannot be set up", e))?;
    let listener = tokio::net::UnixListener::from_std(std_listener)
        .map_err(|e| failed("the gate's socket cannot be set up", e))?;
    Ok((
        Listening {
            listener,
            _lock: lock,
        },
        bound,
    ))
}

/// Removes the gate's socket file if it is still the one this gate made
/// (a gate started since has its own there).
fn forget_socket(socket: &Path, inode: u64) {
    if std::fs::symlink_metadata(socket).is_ok_and(|m| m.ino() == inode) {
        let _ = std::fs::remove_file(socket);
    }
}

/// Resolves once no connection has been served for `idle`, and no server
/// the connections shared is kept for the next (see `shared`).
async fn idle(
    mut counted: watch::Receiver<usize>,
    idle: Duration,
    lives: Option<Arc<crate::shared::Lives>>,
) {
    loop {
        if counted.wait_for(|n| *n == 0).await.is_err() {
            return;
        }
        tokio::select! {
            () = tokio::time::sleep(idle) => {
                if lives.as_ref().is_none_or(|l| l.running() == 0) {
                    return;
                }
            }
            changed = counted.changed() => if changed.is_err() { return },
        }
    }
}

/// What the gate serves, and the server lives its connections share.
struct Served {
    config: GateConfig,
    lives: Option<Arc<crate::shared::Lives>>,
}

/// Counts a connection for as long as it lives.
struct Counted(watch::Sender<usize>);

impl Counted {
    fn new(count: watch::Sender<usize>) -> Counted {
        count.send_modify(|n| *n += 1);
        Counted(count)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// A door's way to make the gate step aside, and to know it has: the
/// door is answered `Again` only once no door can reach this gate, so the
/// gate it starts is the one the next knock finds.
struct Aside {
    asked: CancellationToken,
    done: watch::Receiver<bool>,
}

/// Serves one door: its hello, its connection, its reply.
async fn door(
    mut stream: UnixStream,
    served: Arc<Served>,
    count: watch::Sender<usize>,
    mut aside: Aside,
) {
    // Only the person's own processes hand the gate an app: another user's
    // could otherwise speak as them to their servers.
    if !same_user(&stream) {
        return;
    }
    let _counted = Counted::new(count);
    let config = &served.config;
    let (hello, [input, output, error]) =
        match tokio::time::timeout(HELLO_WITHIN, read_hello(&stream)).await {
            Ok(Ok(read)) => read,
            Ok(Err(e)) => {
                eprintln!("rootgate gate: a door's hello could not be read: {e}");
                return;
            }
            Err(_) => {
                eprintln!("rootgate gate: a door sent no hello within {HELLO_WITHIN:?}");
                return;
            }
        };
    // A door of other settings has reached a gate not its own (a socket
    // systemd made for the usual settings, a door whose environment names
    // others): it is refused in words rather than served the wrong servers.
    if hello.settings != config.settings.path() {
        Notes::to(error).say(&format!(
            "the Rootgate gate at this socket serves the settings {}, not {}; nothing was \
             started",
            config.settings.path().display(),
            hello.settings.display()
        ));
        reply(&mut stream, &Reply::Exit(1)).await;
        return;
    }
    if hello.build != config.build {
        aside.asked.cancel();
        let _ = aside.done.wait_for(|done| *done).await;
        reply(&mut stream, &Reply::Again).await;
        return;
    }
    let hang_up = CancellationToken::new();
    let options = Options {
        settings: config.settings.clone(),
        server: hello.server,
        session: config.session,
        // The window lists the door's process, the one the app started.
        pid: stream
            .peer_cred()
            .ok()
            .and_then(|cred| cred.pid())
            .and_then(|pid| u32::try_from(pid).ok())
            .unwrap_or_else(std::process::id),
        started_by: Some(StartedBy {
            env: hello.env,
            working_folder: hello.working_folder,
        }),
        notes: Notes::to(error),
        hang_up: hang_up.clone(),
        lives: served.lives.clone(),
    };
    let (input, output) = app_io::from_fds(input, output);
    let connection = connect(options, input, output);
    tokio::pin!(connection);
    let outcome = tokio::select! {
        outcome = &mut connection => outcome,
        // A door that half-closed (told to stop) or was killed ends the
        // connection as when the app goes; it is answered if it waits.
        () = door_gone(&stream) => {
            hang_up.cancel();
            connection.await
        }
    };
    let code = match outcome {
        Outcome::Disconnected => 0,
        Outcome::Failed(_) => 1,
    };
    reply(&mut stream, &Reply::Exit(code)).await;
}

/// Reads a door's hello and the three descriptors that come with it.
async fn read_hello(stream: &UnixStream) -> io::Result<(Hello, [OwnedFd; hello::DESCRIPTORS])> {
    let mut buf = vec![0u8; hello::MOST];
    let mut len = 0;
    let mut fds: Vec<OwnedFd> = Vec::new();
    loop {
        stream.readable().await?;
        let received = match stream.try_io(Interest::READABLE, || {
            hello::receive(stream, &mut buf[len..])
        }) {
            Ok(received) => received,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            Err(e) => return Err(e),
        };
        fds.extend(received.fds);
        if fds.len() > hello::DESCRIPTORS {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "more descriptors than a door sends",
            ));
        }
        if received.bytes == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the door closed before its hello ended",
            ));
        }
        len += received.bytes;
        if let Some(end) = buf[..len].iter().position(|b| *b == b'\n') {
            let hello: Hello = serde_json::from_slice(&buf[..end])
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            let fds: [OwnedFd; hello::DESCRIPTORS] = fds.try_into().map_err(|_| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the hello came without the app's three streams",
                )
            })?;
            return Ok((hello, fds));
        }
        if len == buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the hello is longer than any door's",
            ));
        }
    }
}

/// Resolves when the door's end of the socket closes (it sends nothing
/// after its hello, so anything readable is its end).
async fn door_gone(stream: &UnixStream) {
    loop {
        if stream.readable().await.is_err() {
            return;
        }
        let mut byte = [0u8; 1];
        match stream.try_read(&mut byte) {
            Ok(_) => return,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
            Err(_) => return,
        }
    }
}

/// Writes the gate's one reply; a door already gone is not told.
async fn reply(stream: &mut UnixStream, reply: &Reply) {
    use tokio::io::AsyncWriteExt;
    if let Ok(mut line) = serde_json::to_vec(reply) {
        line.push(b'\n');
        let _ = stream.write_all(&line).await;
    }
}
