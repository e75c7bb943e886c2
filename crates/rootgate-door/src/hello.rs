//! The words on the gate's socket: a door's one message (`Hello`, with the
//! app's standard input, output and error attached as file descriptors)
//! and the gate's one answer (`Reply`) when the connection ends.
//!
//! Each is one line of JSON. The descriptors travel with the hello's first
//! byte (`SCM_RIGHTS`), so the gate holds the app's own pipes or sockets
//! and no process copies the app's bytes in between.
//!
//! What is not here: who may speak on the socket (the gate checks the
//! peer's user, `gate.rs`) and what the connection does (`connect`).

use std::collections::BTreeMap;
use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;

use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, ReturnFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, recvmsg, sendmsg,
};
use serde::{Deserialize, Serialize};

/// The variables a server inherits from whoever starts it, the app's own
/// when the gate starts it for a door: the rest of the app's environment
/// stays the app's (a server's own variables are in its settings).
pub const INHERITED_ENV: &[&str] = &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG"];

/// The variables of [`INHERITED_ENV`] this process has: what a door sends
/// the gate, and what a server of this process's own inherits.
pub fn inherited_env() -> BTreeMap<String, String> {
    INHERITED_ENV
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v)))
        .collect()
}

/// The most a hello may be: the app's environment's few variables and a
/// working folder fit many times over; more is a peer that is not a door.
pub const MOST: usize = 64 * 1024;

/// How many descriptors a hello carries: input, output, error.
pub const DESCRIPTORS: usize = 3;

/// What a door asks of the gate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    /// The door's build (`CARGO_PKG_VERSION` and the binary's identity):
    /// a gate of another build steps aside for a new one.
    pub build: String,
    /// The settings file the door reads: the gate serves one, and refuses
    /// a door of another.
    pub settings: PathBuf,
    /// The configured server's name, as the app's config gives it.
    pub server: String,
    /// Where the app started the door: a Workspace server's project when
    /// the app names no roots.
    pub working_folder: Option<PathBuf>,
    /// The few variables a server inherits (`PATH`, `HOME`, ...), as the
    /// app gave them to the door: the server is started with the app's,
    /// not with those of whichever door started the gate.
    pub env: BTreeMap<String, String>,
}

/// The gate's answer, when the connection has ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Reply {
    /// The connection ended; the door exits with this status.
    Exit(u8),
    /// The gate is of another build and has stepped aside: the door starts
    /// a new gate and knocks again.
    Again,
}

/// Sends `hello` with the three descriptors, as one message whose first
/// byte carries them, then the rest of the line if the socket took only part.
pub fn send(
    socket: BorrowedFd<'_>,
    hello: &Hello,
    fds: [BorrowedFd<'_>; DESCRIPTORS],
) -> io::Result<()> {
    let mut line = serde_json::to_vec(hello).map_err(io::Error::other)?;
    line.push(b'\n');
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(DESCRIPTORS))];
    let mut rights = SendAncillaryBuffer::new(&mut space);
    if !rights.push(SendAncillaryMessage::ScmRights(&fds)) {
        return Err(io::Error::other("no room for the descriptors"));
    }
    let sent = loop {
        match sendmsg(
            socket,
            &[IoSlice::new(&line)],
            &mut rights,
            SendFlags::NOSIGNAL,
        ) {
            Ok(n) => break n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    };
    write_all(socket, &line[sent..])
}

/// Writes what is left of a line on a blocking socket.
pub fn write_all(socket: BorrowedFd<'_>, mut rest: &[u8]) -> io::Result<()> {
    while !rest.is_empty() {
        match rustix::net::send(socket, rest, SendFlags::NOSIGNAL) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => rest = &rest[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// What one `recvmsg` brought: bytes, and the descriptors if they came
/// with them (each owned from here on, closed when dropped).
pub struct Received {
    pub bytes: usize,
    pub fds: Vec<OwnedFd>,
}

/// One non-blocking `recvmsg` on `socket` into `buf`. Close-on-exec is set
/// on every descriptor that comes, so no server the gate starts inherits an
/// app's pipe; a message with more than a door sends is refused (what did
/// come is closed as it is dropped).
pub fn receive(socket: impl AsFd, buf: &mut [u8]) -> io::Result<Received> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(DESCRIPTORS))];
    let mut ancillary = RecvAncillaryBuffer::new(&mut space);
    let msg = recvmsg(
        socket.as_fd(),
        &mut [IoSliceMut::new(buf)],
        &mut ancillary,
        RecvFlags::CMSG_CLOEXEC | RecvFlags::DONTWAIT,
    )?;
    let mut fds = Vec::new();
    for message in ancillary.drain() {
        if let RecvAncillaryMessage::ScmRights(rights) = message {
            fds.extend(rights);
        }
    }
    if msg.flags.contains(ReturnFlags::CTRUNC) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "more descriptors came than a door sends",
        ));
    }
    Ok(Received {
        bytes: msg.bytes,
        fds,
    })
}
