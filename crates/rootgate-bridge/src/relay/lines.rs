//! The relay's lines on the wire: reading newline-delimited lines from the
//! app or a server, each at most [`MAX_LINE`] bytes kept ([`Lines`]), and
//! writing the app's lines out in as few writes as a burst allows
//! ([`write_app`]).
//!
//! What is not here: what a line means (the router), and where it goes
//! (the relay).

use std::io;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// The longest line either side may write. A longer one is dropped whole
/// (read through to its end without being kept), with an error to an app
/// and a note for a server: a hostile peer costs its own connection a
/// bounded buffer, nothing more.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// Writes the lines for the app to `out` until the relay is gone, or until
/// `done`: then what is already queued is written and the writer ends.
pub(crate) async fn write_app(
    mut lines: mpsc::Receiver<Vec<u8>>,
    out: impl AsyncWrite + Unpin,
    done: CancellationToken,
) {
    let mut out = tokio::io::BufWriter::with_capacity(64 * 1024, out);
    loop {
        let line = tokio::select! {
            line = lines.recv() => line,
            _ = done.cancelled() => {
                while let Ok(line) = lines.try_recv() {
                    if out.write_all(&line).await.is_err() {
                        return;
                    }
                }
                break;
            }
        };
        let Some(line) = line else { break };
        if out.write_all(&line).await.is_err() {
            return;
        }
        // Flush when nothing else is waiting, so a burst goes out in few
        // writes and a lone answer goes out at once.
        if lines.is_empty() && out.flush().await.is_err() {
            return;
        }
    }
    let _ = out.flush().await;
}

pub(super) fn too_long(bytes: usize) -> Vec<u8> {
    let message = format!(
        "Parse error: a line of {bytes} bytes is longer than the {MAX_LINE} bytes Rootgate relays"
    );
    let message = Value::String(message).to_string();
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":-32700,\"message\":{message}}}}}\n"
    )
    .into_bytes()
}

/// One line read (see [`Lines::line`]), or how long a line was that could
/// not be kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    Whole,
    TooLong(usize),
}

/// Newline-delimited lines from a stream, each at most [`MAX_LINE`] bytes
/// kept; blank lines are skipped. One buffer serves every line, so a run of
/// large lines (megabyte results) is not a run of growing allocations.
pub struct Lines<R> {
    reader: BufReader<R>,
    line: Vec<u8>,
    /// The length of the line being read so far, kept here (not in
    /// `next`) so that a read dropped half-way goes on where it stopped:
    /// the relay reads the app's answers while it holds a request (see
    /// [`super::Relay::read_app`]), and stops reading when the hold ends.
    total: usize,
    /// The last [`Lines::next`] returned: the next one starts a new line.
    returned: bool,
}

impl<R: AsyncRead + Unpin> Lines<R> {
    pub fn new(input: R) -> Self {
        Lines {
            reader: BufReader::with_capacity(64 * 1024, input),
            line: Vec::new(),
            total: 0,
            returned: true,
        }
    }

    /// The line the last [`Lines::next`] read whole.
    pub fn line(&self) -> &[u8] {
        &self.line
    }

    /// Reads the next line: whole (see [`Lines::line`]), too long (its
    /// length), or `None` at the end of the stream.
    /// Cancel-safe: a call dropped before it returns loses nothing, and
    /// the next call goes on with the same line.
    pub async fn next(&mut self) -> io::Result<Option<Line>> {
        if self.returned {
            self.line.clear();
            self.total = 0;
            self.returned = false;
        }
        let next = self.next_line().await;
        self.returned = true;
        next
    }

    async fn next_line(&mut self) -> io::Result<Option<Line>> {
        let total = &mut self.total;
        loop {
            let buf = self.reader.fill_buf().await?;
            if buf.is_empty() {
                // The end: a last line without its newline still counts, as
                // any other line does.
                if *total > MAX_LINE {
                    return Ok(Some(Line::TooLong(*total)));
                }
                if self.line.iter().all(u8::is_ascii_whitespace) {
                    return Ok(None);
                }
                if self.line.last() == Some(&b'\r') {
                    self.line.pop();
                }
                return Ok(Some(Line::Whole));
            }
            let (chunk, newline) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], true),
                None => (buf, false),
            };
            *total += chunk.len();
            if *total <= MAX_LINE {
                self.line.extend_from_slice(chunk);
            } else if !self.line.is_empty() {
                // Too long: what was kept goes, and so does its memory.
                self.line = Vec::new();
            }
            let used = chunk.len() + usize::from(newline);
            self.reader.consume(used);
            if newline {
                if *total > MAX_LINE {
                    return Ok(Some(Line::TooLong(*total)));
                }
                if self.line.iter().all(u8::is_ascii_whitespace) {
                    self.line.clear();
                    *total = 0;
                    continue;
                }
                if self.line.last() == Some(&b'\r') {
                    self.line.pop();
                }
                return Ok(Some(Line::Whole));
            }
        }
    }
}
