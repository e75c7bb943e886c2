//! Where the window's socket is and who may be on either end of it. The
//! paths and the checks a client makes before it sends anything are the
//! door crate's (`rootgate_door::socket`, where the gate's socket is too,
//! since the door, which links nothing of the bridge, reaches it); the
//! listener's check of each peer, on tokio's sockets, is here.
//!
//! Not here: what goes over the socket (`connections`), and the one window
//! per settings file (`instance`).

pub use rootgate_door::socket::{
    Unreached, check_private, connect_window, private_dir, refusal_words, runtime_path, socket_path,
};

/// Whether the peer of `stream` runs as this process's user.
pub(crate) fn same_user(stream: &tokio::net::UnixStream) -> bool {
    stream
        .peer_cred()
        .is_ok_and(|cred| cred.uid() == nix::unistd::getuid().as_raw())
}
