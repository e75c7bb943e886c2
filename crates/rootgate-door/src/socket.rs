//! Where the window's socket is and who may be on either end of it: its
//! path ([`socket_path`]), its folder made or found private
//! ([`private_dir`]), and a client's connection that is made only to the
//! person's own window ([`connect_window`]).
//!
//! What is sent over the socket (a folder to share, a value the person
//! typed for `rootgate import --set TOKEN=-`, a bridge's reports) is the
//! person's, so a client sends nothing until three things hold: the
//! socket's folder belongs to this user, nobody else may enter it (mode
//! 0700, looked at without following a link), and the process listening
//! runs as this user (`SO_PEERCRED`). The listener checks every peer's uid
//! too (`connections::Connections::listen`). Without `XDG_RUNTIME_DIR` or
//! `/run/user/UID` the folder is `/tmp/rootgate-UID`, in the shared
//! temporary folder where another user could make it first: the window
//! makes it 0700 itself, and a folder found there that is not the user's
//! own and closed is refused in words, never used or taken over.
//!
//! The gate's socket lives in the same folder, under the same rules
//! (`gate_socket_path`), and the door reaches it with [`connect_window`].
//!
//! Not here: what goes over the socket (the bridge's `connections`, the
//! gate's `hello`), and the one window per settings file (the bridge's
//! `instance`).

use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

/// Where the window of the settings file `settings` listens for bridges:
/// `$XDG_RUNTIME_DIR/rootgate/window-HASH.sock`, HASH naming the settings
/// file, so that windows of different settings (a test's, a person's) never
/// meet. Without `XDG_RUNTIME_DIR`, `/run/user/UID/rootgate`, and without
/// that `/tmp/rootgate-UID` stands in.
pub fn socket_path(settings: &Path) -> PathBuf {
    runtime_path(settings, "window", "sock")
}

/// Where the gate of the settings file `settings` listens. The person's
/// usual settings file (`~/.config/rootgate/settings.json`, the home read
/// from the user database, not from the environment) has `gate.sock`, a
/// name systemd's socket unit can give (`%t/rootgate/gate.sock`); any other
/// is named by its settings file, as the window's socket is, so that a
/// test's gate never meets a person's, nor another test's.
pub fn gate_socket_path(settings: &Path) -> PathBuf {
    let usual = nix::unistd::User::from_uid(nix::unistd::getuid())
        .ok()
        .flatten()
        .map(|user| user.dir.join(".config/rootgate/settings.json"));
    if usual.as_deref() == Some(settings) {
        return runtime_path(settings, "gate", "sock").with_file_name("gate.sock");
    }
    runtime_path(settings, "gate", "sock")
}

/// The gate's standard error: beside its socket, for a door that could
/// not start it to quote.
pub fn gate_log_path(settings: &Path) -> PathBuf {
    gate_socket_path(settings).with_extension("log")
}

/// `KIND-HASH.EXT` in the folder of [`socket_path`]: the private runtime
/// folder's file of kind `KIND` for the settings file `settings` (the
/// window's socket, the gate's socket, lock and log).
pub fn runtime_path(settings: &Path, kind: &str, ext: &str) -> PathBuf {
    let uid = nix::unistd::getuid().as_raw();
    // AI apps start servers with a reduced environment (the official SDKs
    // pass HOME, PATH, USER and a few more, not XDG_RUNTIME_DIR), so a
    // bridge must find the window's socket without it: systemd's
    // `/run/user/UID` is what XDG_RUNTIME_DIR is in a desktop session.
    let standard = PathBuf::from(format!("/run/user/{uid}"));
    let dir = match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(run) => PathBuf::from(run).join("rootgate"),
        None if standard.is_dir() => standard.join("rootgate"),
        None => PathBuf::from(format!("/tmp/rootgate-{uid}")),
    };
    // FNV-1a: a stable name, not a secret.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in settings.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    dir.join(format!("{kind}-{hash:016x}.{ext}"))
}

/// Creates `dir` with mode 0700 if it is missing, and refuses one that
/// another user owns, others may enter, or that is a link (whoever made
/// the link could point it elsewhere later).
pub fn private_dir(dir: &Path) -> io::Result<()> {
    match std::fs::DirBuilder::new()
        .recursive(false)
        .mode(0o700)
        .create(dir)
    {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
        }
        Err(e) => return Err(e),
    }
    match check_private(dir) {
        Ok(Some(())) => Ok(()),
        Ok(None) => Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("{} went away as it was made", dir.display()),
        )),
        Err(why) => Err(io::Error::new(io::ErrorKind::PermissionDenied, why)),
    }
}

/// Whether `dir` is this user's own folder, closed to others, looked at
/// without following a link: `Ok(None)` when it is not there, and the
/// reason in words when it is not private.
pub fn check_private(dir: &Path) -> Result<Option<()>, String> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{} cannot be looked at: {e}", dir.display())),
    };
    let me = nix::unistd::getuid().as_raw();
    let shown = dir.display();
    if meta.file_type().is_symlink() {
        return Err(format!(
            "{shown} is a link, not a folder of its own, so it may lead to another user's folder"
        ));
    }
    if !meta.is_dir() {
        return Err(format!("{shown} is not a folder"));
    }
    if meta.uid() != me {
        return Err(format!(
            "{shown} belongs to another user (uid {}), who may be listening there",
            meta.uid()
        ));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(format!(
            "{shown} is open to other users (mode {:04o}); it must be 0700",
            meta.mode() & 0o7777
        ));
    }
    Ok(Some(()))
}

/// Why [`connect_window`] gave no connection.
#[derive(Debug)]
pub enum Unreached {
    /// Nobody listens there (no folder, no socket, or a socket left by a
    /// window that is gone).
    Absent,
    /// Something is there that is not the person's own window: the words
    /// say what, and nothing was sent.
    NotOurs(String),
    /// The socket could not be reached for another reason.
    Failed(io::Error),
}

impl std::fmt::Display for Unreached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreached::Absent => write!(f, "no Rootgate window listens there"),
            Unreached::NotOurs(why) => write!(f, "{why}"),
            Unreached::Failed(e) => write!(f, "it could not be reached: {e}"),
        }
    }
}

/// Connects to the window's socket at `socket` for a client that is about
/// to send the person's words or values, and only when it is the person's
/// own window (see the module's documentation). Nothing is written here;
/// a refused socket has had nothing sent to it, not even a connection when
/// its folder is the problem.
pub fn connect_window(socket: &Path) -> Result<UnixStream, Unreached> {
    if let Some(dir) = socket.parent() {
        match check_private(dir) {
            Ok(Some(())) => {}
            Ok(None) => return Err(Unreached::Absent),
            Err(why) => return Err(Unreached::NotOurs(why)),
        }
    }
    let stream = match UnixStream::connect(socket) {
        Ok(stream) => stream,
        Err(e)
            if matches!(
                e.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
            ) =>
        {
            return Err(Unreached::Absent);
        }
        Err(e) => return Err(Unreached::Failed(e)),
    };
    let me = nix::unistd::getuid().as_raw();
    match nix::sys::socket::getsockopt(&stream, nix::sys::socket::sockopt::PeerCredentials) {
        Ok(cred) if cred.uid() == me => Ok(stream),
        Ok(cred) => Err(Unreached::NotOurs(format!(
            "{} is listened on by another user (uid {}), not by your Rootgate window",
            socket.display(),
            cred.uid()
        ))),
        Err(e) => Err(Unreached::NotOurs(format!(
            "who listens on {} cannot be told: {e}",
            socket.display()
        ))),
    }
}

/// The words a command says when it refused the window's socket: what is
/// wrong, that nothing was sent, and what the person can do.
pub fn refusal_words(why: &str) -> String {
    format!(
        "nothing was sent to the Rootgate window: {why}. Remove what is there if it is not \
         yours, or set XDG_RUNTIME_DIR to a folder of your own"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::net::UnixListener;

    fn mode(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn each_settings_file_has_its_own_socket() {
        let a = socket_path(Path::new("/home/a/.config/rootgate/settings.json"));
        let b = socket_path(Path::new("/tmp/test/config/rootgate/settings.json"));
        assert_ne!(a, b);
        assert_eq!(
            a,
            socket_path(Path::new("/home/a/.config/rootgate/settings.json"))
        );
        assert!(
            a.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("window-")
        );
    }

    #[test]
    fn a_folder_open_to_others_is_refused_and_a_missing_one_is_made_private() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        mode(&open, 0o755);
        let why = private_dir(&open).unwrap_err().to_string();
        assert!(why.contains("mode 0755"), "{why}");
        assert_eq!(
            std::fs::metadata(&open).unwrap().mode() & 0o777,
            0o755,
            "a folder found open is refused, not taken over"
        );
        let made = dir.path().join("made/here");
        private_dir(&made).unwrap();
        assert_eq!(std::fs::metadata(&made).unwrap().mode() & 0o777, 0o700);
    }

    #[test]
    fn a_link_to_a_private_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        mode(&real, 0o700);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let why = check_private(&link).unwrap_err();
        assert!(why.contains("is a link"), "{why}");
        assert!(private_dir(&link).is_err());
    }

    /// A listener of this user's in a folder open to others is not even
    /// connected to: the backlog of the listener stays empty.
    #[test]
    fn a_client_does_not_connect_through_an_open_folder() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("rootgate");
        std::fs::create_dir(&folder).unwrap();
        mode(&folder, 0o755);
        let socket = folder.join("window.sock");
        let listener = UnixListener::bind(&socket).unwrap();
        listener.set_nonblocking(true).unwrap();
        match connect_window(&socket) {
            Err(Unreached::NotOurs(why)) => assert!(why.contains("0755"), "{why}"),
            other => panic!("expected a refusal, got {other:?}"),
        }
        assert_eq!(
            listener.accept().unwrap_err().kind(),
            io::ErrorKind::WouldBlock,
            "nothing connected"
        );
        // The same socket in a private folder is the window's.
        mode(&folder, 0o700);
        assert!(connect_window(&socket).is_ok());
    }

    #[test]
    fn a_missing_folder_or_socket_is_absent() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            connect_window(&dir.path().join("none/window.sock")),
            Err(Unreached::Absent)
        ));
        let folder = dir.path().join("rootgate");
        private_dir(&folder).unwrap();
        assert!(matches!(
            connect_window(&folder.join("window.sock")),
            Err(Unreached::Absent)
        ));
    }
}
