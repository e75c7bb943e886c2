//! The bridge's end of the AI app's connection: standard input and output,
//! read and written on the runtime's own thread without waking it for
//! nothing.
//!
//! AI apps give pipes (Python's subprocess) or socket pairs (Node's
//! child_process, and so every Electron app). Both are read through the
//! reactor, registered for readability only; the output is written with
//! plain non-blocking writes and joins the reactor only once a write would
//! block (the app is not reading), leaving it when the relay flushes with
//! nothing more queued. The reason is the socket pairs: a stream socket
//! registered for writability gets an event each time the app reads what
//! was written to it, so with tokio's own `UnixStream` about a third of the
//! answers woke the bridge once more only to find nothing to do (2.32
//! `epoll_wait` per call against 2.00 now, `strace -c` through the
//! TypeScript SDK client; see BENCHMARKS.md). Anything else (a file, a
//! terminal) goes through tokio's standard streams, which use a thread of
//! their own for each read and write.
//!
//! Both the bridge's own streams (`app_io`) and a door's, handed to the
//! gate (`from_fds`), are made so.
//!
//! What is not here: what the lines say (the bridge's relay reads them).

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::unix::pipe;

/// The app's input, as the relay reads it.
pub type Input = Box<dyn AsyncRead + Unpin + Send>;
/// The app's output, as the relay writes it.
pub type Output = Box<dyn AsyncWrite + Unpin + Send>;

/// The app's input and output, on the reactor where they can be.
///
/// tokio's pipe types are used for sockets too: each registers one
/// descriptor for one direction and reads or writes it with `read(2)` and
/// `write(2)`, which is all a stream socket needs; their checked
/// constructors only refuse what is not a FIFO, hence `_unchecked` after
/// our own check. tokio's `UnixStream` would register the socket for both
/// directions, which is what this module avoids.
pub fn app_io() -> (Input, Output) {
    let input: Input = match streamable(io::stdin().as_fd())
        .and_then(|fd| pipe::Receiver::from_owned_fd_unchecked(fd.into()).ok())
    {
        Some(reader) => Box::new(reader),
        None => Box::new(tokio::io::stdin()),
    };
    let output: Output = match streamable(io::stdout().as_fd()) {
        Some(fd) => Box::new(Writer {
            file: fd,
            waiting: None,
        }),
        None => Box::new(tokio::io::stdout()),
    };
    (input, output)
}

/// The same for a door's input and output, handed to the gate: on the
/// reactor where they are pipes or sockets, else (a file, a terminal)
/// through tokio's file type, which reads and writes on its blocking
/// threads as tokio's standard streams do.
pub fn from_fds(input: OwnedFd, output: OwnedFd) -> (Input, Output) {
    let input: Input = match streamable(input.as_fd())
        .and_then(|fd| pipe::Receiver::from_owned_fd_unchecked(fd.into()).ok())
    {
        Some(reader) => Box::new(reader),
        None => Box::new(tokio::fs::File::from_std(File::from(input))),
    };
    let output: Output = match streamable(output.as_fd()) {
        Some(fd) => Box::new(Writer {
            file: fd,
            waiting: None,
        }),
        None => Box::new(tokio::fs::File::from_std(File::from(output))),
    };
    (input, output)
}

/// A non-blocking copy of `fd` if it is a pipe or a socket; `None` for
/// anything else, and for a descriptor that cannot be made non-blocking.
/// A terminal is left alone on purpose: making it non-blocking would
/// change it for the shell that shares it.
fn streamable(fd: BorrowedFd<'_>) -> Option<File> {
    use std::os::unix::fs::FileTypeExt;
    let owned: OwnedFd = fd.try_clone_to_owned().ok()?;
    let file = File::from(owned);
    let kind = file.metadata().ok()?.file_type();
    if !(kind.is_fifo() || kind.is_socket()) {
        return None;
    }
    set_nonblocking(&file).ok()?;
    Some(file)
}

fn set_nonblocking(file: &File) -> io::Result<()> {
    use nix::fcntl::{FcntlArg, OFlag, fcntl};
    let flags = fcntl(file, FcntlArg::F_GETFL).map_err(io::Error::from)?;
    let flags = OFlag::from_bits_truncate(flags) | OFlag::O_NONBLOCK;
    fcntl(file, FcntlArg::F_SETFL(flags)).map_err(io::Error::from)?;
    Ok(())
}

/// The app's output: plain non-blocking writes, on the reactor only from a
/// write that would block until the relay's next flush (see the module's
/// note).
struct Writer {
    file: File,
    /// A copy of the descriptor registered for writability after a write
    /// would block; dropped (which takes it off the reactor) at the next
    /// flush, when the relay has nothing more queued for the app.
    waiting: Option<pipe::Sender>,
}

impl AsyncWrite for Writer {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        loop {
            // Once a write has blocked, the rest of the burst (the rest of a
            // megabyte answer, or a hundred answers at once) goes through
            // the registration; it is dropped when the burst is over (see
            // `poll_flush`), not after each write, which would cost two
            // `epoll_ctl` calls and a `dup` for every socket buffer's worth.
            if let Some(waiting) = self.waiting.as_mut() {
                return Pin::new(waiting).poll_write(cx, buf);
            }
            match (&self.file).write(buf) {
                Ok(written) => return Poll::Ready(Ok(written)),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    // Registered after the write failed: the registration
                    // reports the descriptor's state as it is now, so room
                    // made in between is not missed.
                    let copy = self.file.try_clone()?;
                    self.waiting = Some(pipe::Sender::from_owned_fd_unchecked(copy.into())?);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // Nothing is buffered here: every byte accepted was written. The
        // relay flushes when nothing more is queued for the app, so this is
        // where the output leaves the reactor again.
        self.waiting = None;
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::os::unix::net::UnixStream;

    use tokio::io::AsyncWriteExt;

    use super::*;

    /// The app's output joins the reactor only while the app does not read:
    /// a write that would block waits there, the rest of the burst goes
    /// through it, and the flush at the end of the burst leaves it, every
    /// byte delivered in order.
    #[tokio::test]
    async fn a_write_that_would_block_waits_on_the_reactor_and_leaves_it_at_the_flush() {
        let (ours, mut theirs) = UnixStream::pair().expect("a socket pair");
        let file = streamable(ours.as_fd()).expect("a socket is streamable");
        let mut writer = Writer {
            file,
            waiting: None,
        };
        let data: Vec<u8> = (0..4u32 << 20).map(|i| (i % 251) as u8).collect();
        // Nobody reads yet: write until a write would block.
        let mut sent = 0;
        std::future::poll_fn(|cx| {
            loop {
                match Pin::new(&mut writer).poll_write(cx, &data[sent..]) {
                    Poll::Ready(Ok(n)) => sent += n,
                    Poll::Ready(Err(e)) => panic!("write failed: {e}"),
                    Poll::Pending => return Poll::Ready(()),
                }
            }
        })
        .await;
        assert!(sent < data.len(), "4 MiB fitted in a socket's buffer");
        assert!(writer.waiting.is_some(), "waits for room on the reactor");

        let reader = std::thread::spawn(move || {
            let mut got = vec![0; 4 << 20];
            theirs.read_exact(&mut got).map(|()| got)
        });
        writer
            .write_all(&data[sent..])
            .await
            .expect("the rest goes through once the app reads");
        assert!(
            writer.waiting.is_some(),
            "stays on the reactor for the burst"
        );
        writer.flush().await.expect("a flush");
        assert!(writer.waiting.is_none(), "left the reactor at the flush");
        let got = reader.join().expect("the reader").expect("every byte");
        assert!(got == data, "the bytes arrived changed or out of order");
    }

    /// A terminal or a file is not made non-blocking (a shell shares a
    /// terminal): only pipes and sockets are.
    #[test]
    fn only_pipes_and_sockets_are_streamable() {
        let dir = tempfile::tempdir().expect("a folder");
        let file = File::create(dir.path().join("out")).expect("a file");
        assert!(streamable(file.as_fd()).is_none());
        let (reader, _writer) = std::io::pipe().expect("a pipe");
        assert!(streamable(reader.as_fd()).is_some());
    }
}
