//! The server's output read on a thread of its own, and what it says to
//! the app written from that thread straight to the app's output.
//!
//! Everything else in the bridge runs on one event loop. The answers a
//! server writes are most of what crosses a bridge, and on the event loop
//! each one costs a turn of it (the reactor's `epoll_wait`, a task woken to
//! read, another to write): about a tenth of a call's round trip over a
//! bare copy, and a 1 MiB answer a tenth more, in the bridge benchmark's
//! "tokio-floor" (BENCHMARKS.md). So a server life's output is read with
//! blocking reads on a thread, routed there through the same [`Router`]
//! under the same lock, and its lines for the app are written there with
//! blocking writes, as the byte-copying floor does. The relay's async code
//! runs unchanged on that thread (`Handle::block_on`); its channels and
//! timers are the event loop's, driven by the runtime's own thread.
//!
//! The app's output is then written from two places: this thread, and the
//! relay's writer task for everything the event loop says to the app
//! (errors, the bridge's own requests and notifications). A line is always
//! written whole by whichever holds the turn ([`Direct::turn`]), so lines
//! never mix; lines from the two may pass each other, which JSON-RPC
//! allows (each answer names its request).
//!
//! What is not here: what the lines mean (the router) and the life's
//! start and end (the relay's `attach` and `detach`).
//!
//! [`Router`]: crate::route::Router

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

thread_local! {
    /// Whether this thread reads a server's output: only such a thread
    /// writes to the app itself, and it may block doing so.
    static READS_A_SERVER: Cell<bool> = const { Cell::new(false) };
    /// The lines this thread has for the app and has not written yet: the
    /// answers to many requests in flight, read together, go out together
    /// (see [`Direct::flush`]).
    static PENDING: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// How much waits in `PENDING` before it is written without waiting for
/// the end of what was read.
const FLUSH_AT: usize = 64 * 1024;

/// Marks the calling thread as a server's reader (see [`writes_directly`]).
pub(super) fn mark_reader_thread() {
    READS_A_SERVER.with(|r| r.set(true));
}

/// Whether the calling thread is a server's reader, which writes its lines
/// for the app itself rather than queueing them for the event loop.
pub(super) fn writes_directly() -> bool {
    READS_A_SERVER.with(Cell::get)
}

/// The app's output, for the threads that write it directly.
pub struct Direct {
    /// The app's stdout: a pipe or a socket, non-blocking (the event
    /// loop's writer shares it; see `write_blocking` for the waits).
    file: Arc<File>,
    /// Held while a line is written, by a reader thread or by the relay's
    /// writer task, so that lines are written whole.
    turn: Arc<tokio::sync::Mutex<()>>,
}

impl Direct {
    pub fn new(file: Arc<File>, turn: Arc<tokio::sync::Mutex<()>>) -> Direct {
        Direct { file, turn }
    }

    /// Keeps one line for the app, to be written at the next
    /// [`Direct::flush`] (at once if it is long, or if much waits).
    pub(super) async fn queue_line(&self, line: Vec<u8>) {
        let whole = PENDING.with(|p| {
            let mut pending = p.borrow_mut();
            if pending.is_empty() && line.len() >= FLUSH_AT {
                // A long line alone is written as it is, not copied.
                return Some(line);
            }
            pending.extend_from_slice(&line);
            None
        });
        match whole {
            Some(line) => self.write_line(&line).await,
            None if PENDING.with(|p| p.borrow().len()) >= FLUSH_AT => self.flush().await,
            None => {}
        }
    }

    /// Writes what this thread keeps for the app: called when what was
    /// read is used up, before the thread waits to read again.
    pub(super) async fn flush(&self) {
        let pending = PENDING.with(|p| std::mem::take(&mut *p.borrow_mut()));
        if !pending.is_empty() {
            self.write_line(&pending).await;
            // The buffer's memory is kept for the next burst, up to a bound.
            if pending.capacity() <= 4 * FLUSH_AT {
                let mut pending = pending;
                pending.clear();
                PENDING.with(|p| *p.borrow_mut() = pending);
            }
        }
    }

    /// Writes lines whole, waiting in `poll(2)` while the app does not
    /// read. An error (the app is gone) is the writer task's to notice as
    /// well; the lines are lost with the connection.
    async fn write_line(&self, lines: &[u8]) {
        let _turn = self.turn.lock().await;
        let _ = write_blocking(&self.file, lines);
    }
}

/// `write_all` on a non-blocking descriptor, blocking the calling thread
/// in `poll(2)` until there is room, as a blocking write would.
fn write_blocking(file: &File, mut buf: &[u8]) -> io::Result<()> {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    while !buf.is_empty() {
        match (&*file).write(buf) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => buf = &buf[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLOUT)];
                match poll(&mut fds, PollTimeout::NONE) {
                    Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                    Err(e) => return Err(e.into()),
                }
                // A closed or failed peer shows in the next write's error;
                // a hang-up without room would otherwise spin here.
                let gone = PollFlags::POLLERR | PollFlags::POLLHUP | PollFlags::POLLNVAL;
                if fds[0].revents().is_some_and(|r| r.intersects(gone)) {
                    return match (&*file).write(buf) {
                        Ok(_) => Err(io::ErrorKind::BrokenPipe.into()),
                        Err(e) => Err(e),
                    };
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// A blocking file as an `AsyncRead` whose reads block: only for a thread
/// that does nothing else, running one future with `Handle::block_on`.
pub(super) struct BlockingRead(pub File);

impl AsyncRead for BlockingRead {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        loop {
            match self.0.read(buf.initialize_unfilled()) {
                Ok(n) => {
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::BufRead;
    use std::os::unix::net::UnixStream;

    use super::*;

    fn nonblocking(stream: UnixStream) -> File {
        stream.set_nonblocking(true).expect("non-blocking");
        File::from(std::os::fd::OwnedFd::from(stream))
    }

    /// Two writers on one output, one of them blocked on a reader that
    /// has not started: every line arrives whole, each writer's in order.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn lines_from_a_reader_thread_and_the_event_loop_arrive_whole() {
        let (ours, theirs) = UnixStream::pair().expect("a socket pair");
        let direct = Arc::new(Direct::new(
            Arc::new(nonblocking(ours)),
            Arc::new(tokio::sync::Mutex::new(())),
        ));
        // Long lines, so that each fills the socket's buffer and waits.
        let line = |who: &str, i: usize| format!("{who} {i} {}\n", "x".repeat(300_000));
        let handle = tokio::runtime::Handle::current();
        let from_thread = Arc::clone(&direct);
        let thread = std::thread::spawn(move || {
            mark_reader_thread();
            assert!(writes_directly());
            for i in 0..8 {
                handle.block_on(async {
                    from_thread.queue_line(line("thread", i).into_bytes()).await;
                    from_thread.flush().await;
                });
            }
        });
        let from_loop = Arc::clone(&direct);
        let task = tokio::spawn(async move {
            assert!(!writes_directly(), "only a reader thread writes directly");
            for i in 0..8 {
                from_loop.write_line(line("loop", i).as_bytes()).await;
                assert!(PENDING.with(|p| p.borrow().is_empty()), "kept, not written");
            }
        });
        let reader = std::thread::spawn(move || {
            let mut got = Vec::new();
            for read in std::io::BufReader::new(theirs).lines().take(16) {
                got.push(read.expect("a line"));
            }
            got
        });
        task.await.expect("the event loop's writer");
        thread.join().expect("the reader thread");
        let got = reader.join().expect("the app");
        for who in ["thread", "loop"] {
            let mine: Vec<usize> = got
                .iter()
                .filter(|l| l.starts_with(&format!("{who} ")))
                .map(|l| {
                    let mut words = l.split(' ');
                    assert_eq!(words.nth(2).map(str::len), Some(300_000), "a line mixed");
                    l.split(' ')
                        .nth(1)
                        .and_then(|n| n.parse().ok())
                        .expect("a number")
                })
                .collect();
            assert_eq!(mine, (0..8).collect::<Vec<_>>(), "{who}'s lines");
        }
    }

    /// A reader gone while a line waits for room: the write ends with an
    /// error rather than waiting for ever.
    #[test]
    fn a_write_to_an_app_that_is_gone_ends() {
        let (ours, theirs) = UnixStream::pair().expect("a socket pair");
        let file = nonblocking(ours);
        let closer = std::thread::spawn(move || {
            // Reads a little, so that the writer is waiting, then goes.
            let mut theirs = theirs;
            let mut some = [0u8; 4096];
            let _ = theirs.read(&mut some);
            drop(theirs);
        });
        let result = write_blocking(&file, &vec![b'x'; 8 << 20]);
        closer.join().expect("the app");
        assert!(result.is_err(), "8 MiB written to an app that left");
    }
}
