//! A server's stderr, kept as a bounded log of its newest lines.
//!
//! The log holds at most a fixed number of lines and bytes, cuts single lines
//! that are absurdly long, and hands new lines to subscribers. What a server
//! writes on stderr is information, never an error by itself (the stdio
//! transport says so), so nothing here judges it. Reading the pipe is the
//! session's job; this module only stores.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;
use tokio::sync::broadcast;

use rootgate_model::ids::now_ms;

/// One line of stderr.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogLine {
    pub seq: u64,
    pub at_ms: u64,
    pub text: String,
}

/// Limits of one server's log.
#[derive(Debug, Clone, Copy)]
pub struct LogLimits {
    pub max_lines: usize,
    pub max_bytes: usize,
    pub max_line_bytes: usize,
}

impl Default for LogLimits {
    fn default() -> Self {
        LogLimits {
            max_lines: 5_000,
            max_bytes: 2 * 1024 * 1024,
            max_line_bytes: 8 * 1024,
        }
    }
}

struct Inner {
    lines: VecDeque<LogLine>,
    bytes: usize,
    next_seq: u64,
    dropped: u64,
}

/// The newest lines of one server's stderr.
pub struct StderrLog {
    limits: LogLimits,
    inner: Mutex<Inner>,
    live: broadcast::Sender<LogLine>,
}

impl Default for StderrLog {
    fn default() -> Self {
        StderrLog::new(LogLimits::default())
    }
}

impl StderrLog {
    pub fn new(limits: LogLimits) -> Self {
        StderrLog {
            limits,
            inner: Mutex::new(Inner {
                lines: VecDeque::new(),
                bytes: 0,
                next_seq: 1,
                dropped: 0,
            }),
            live: broadcast::Sender::new(512),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Lines are pushed whole; a poisoned lock holds nothing torn.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The longest line kept, in bytes; longer lines are cut.
    pub fn max_line_bytes(&self) -> usize {
        self.limits.max_line_bytes
    }

    /// Appends one line (without its newline). Invalid UTF-8 is shown with
    /// replacement characters; a line over the limit is cut and marked.
    pub fn push(&self, raw: &[u8], truncated: bool) {
        let mut text = String::from_utf8_lossy(raw).into_owned();
        if text.len() > self.limits.max_line_bytes {
            let mut cut = self.limits.max_line_bytes;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        if truncated || raw.len() > self.limits.max_line_bytes {
            text.push_str(" …[line cut]");
        }
        let line = {
            let mut inner = self.lock();
            let line = LogLine {
                seq: inner.next_seq,
                at_ms: now_ms(),
                text,
            };
            inner.next_seq += 1;
            inner.bytes += line.text.len();
            inner.lines.push_back(line.clone());
            while inner.lines.len() > self.limits.max_lines || inner.bytes > self.limits.max_bytes {
                match inner.lines.pop_front() {
                    Some(old) => {
                        inner.bytes -= old.text.len();
                        inner.dropped += 1;
                    }
                    None => break,
                }
            }
            line
        };
        let _ = self.live.send(line);
    }

    /// The lines kept, oldest first.
    pub fn lines(&self) -> Vec<LogLine> {
        self.lock().lines.iter().cloned().collect()
    }

    /// The sequence number the next line will get: a bookmark for
    /// [`StderrLog::lines_since`].
    pub fn next_seq(&self) -> u64 {
        self.lock().next_seq
    }

    /// The lines kept whose sequence number is at least `seq`.
    pub(crate) fn lines_since(&self, seq: u64) -> Vec<LogLine> {
        self.lock()
            .lines
            .iter()
            .filter(|l| l.seq >= seq)
            .cloned()
            .collect()
    }

    /// How many older lines were dropped to stay within the limits.
    pub fn dropped(&self) -> u64 {
        self.lock().dropped
    }

    pub fn subscribe(&self) -> broadcast::Receiver<LogLine> {
        self.live.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_lines_within_bounds() {
        let log = StderrLog::new(LogLimits {
            max_lines: 3,
            max_bytes: 1000,
            max_line_bytes: 10,
        });
        for i in 0..5 {
            log.push(format!("line {i}").as_bytes(), false);
        }
        let texts: Vec<_> = log.lines().into_iter().map(|l| l.text).collect();
        assert_eq!(texts, ["line 2", "line 3", "line 4"]);
        assert_eq!(log.dropped(), 2);
    }

    #[test]
    fn long_lines_are_cut_and_bytes_bounded() {
        let log = StderrLog::new(LogLimits {
            max_lines: 100,
            max_bytes: 30,
            max_line_bytes: 10,
        });
        log.push("프로젝트프로젝트".as_bytes(), false);
        let first = &log.lines()[0].text;
        assert!(first.starts_with("프로젝"), "{first}");
        assert!(first.ends_with("[line cut]"));
        for _ in 0..10 {
            log.push(b"0123456789", false);
        }
        let total: usize = log.lines().iter().map(|l| l.text.len()).sum();
        assert!(total <= 30);
    }

    #[test]
    fn invalid_utf8_is_shown_not_refused() {
        let log = StderrLog::default();
        log.push(&[b'o', b'k', 0xff, 0xfe], false);
        assert_eq!(log.lines()[0].text, "ok\u{fffd}\u{fffd}");
    }
}
