//! `relay-floor-tokio`: the byte-copying floor built the way the bridge is
//! built, on one thread with tokio's current-thread runtime: the app's
//! input and the server's output are read through the reactor, and each
//! chunk read goes through a channel to a task of its own that writes it,
//! as the bridge's relay hands a line to the server's wire or to the app's
//! writer. It parses nothing. Beside `relay-floor` (a blocking thread per
//! direction) and `rootgate connect` in the bridge benchmark it splits what
//! the bridge adds over the floor into the event loop's share (this one
//! against `relay-floor`) and the bridge's own work (`rootgate` against
//! this one).
//!
//! Not here: anything a real relay needs beyond copying (framing, ids,
//! errors); a failure ends the copy quietly, as `relay-floor` does.
//!
//! Usage: `relay-floor-tokio COMMAND [ARG...]`.

use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::process::{ExitCode, Stdio};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::process::Command;
use tokio::sync::mpsc;

/// A non-blocking copy of a standard stream's descriptor, for the reactor
/// (a pipe from Python's subprocess, a socket from Node's child_process:
/// `set_nonblocking` is the same `fcntl` for both).
fn nonblocking(fd: BorrowedFd<'_>) -> io::Result<File> {
    let copy = UnixStream::from(fd.try_clone_to_owned()?);
    copy.set_nonblocking(true)?;
    Ok(File::from(std::os::fd::OwnedFd::from(copy)))
}

/// Reads `from` and hands each chunk to a writer task for `to`, the
/// bridge's two hops in one direction.
async fn relay(mut from: impl AsyncRead + Unpin, mut to: impl AsyncWrite + Unpin + Send + 'static) {
    let (chunks, mut queue) = mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(async move {
        while let Some(chunk) = queue.recv().await {
            if to.write_all(&chunk).await.is_err() || to.flush().await.is_err() {
                return;
            }
        }
    });
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if chunks.send(buf[..n].to_vec()).await.is_err() {
                    break;
                }
            }
        }
    }
    drop(chunks);
    let _ = writer.await;
}

async fn run(program: std::ffi::OsString, args: Vec<std::ffi::OsString>) -> io::Result<()> {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let (Some(to_server), Some(from_server)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(io::Error::other("the server's pipes were not made"));
    };
    let app_in = pipe::Receiver::from_file_unchecked(nonblocking(io::stdin().as_fd())?)?;
    let app_out = pipe::Sender::from_file_unchecked(nonblocking(io::stdout().as_fd())?)?;
    let up = tokio::spawn(relay(app_in, to_server));
    relay(from_server, app_out).await;
    let _ = up.await;
    let _ = child.wait().await;
    Ok(())
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: relay-floor-tokio COMMAND [ARG...]");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("relay-floor-tokio: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(program, args.collect())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("relay-floor-tokio: {e}");
            ExitCode::FAILURE
        }
    }
}
