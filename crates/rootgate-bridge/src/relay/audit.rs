//! The bridge's part of the record of calls (`rootgate_model::calls`):
//! each call the app made is kept as a line, written beside the settings
//! in batches, so that an allowed call costs one small copy into memory
//! rather than a write: the lines written at most [`FLUSH_AFTER`] after the
//! first waiting one, at once past [`FLUSH_AT`] bytes, and when the app
//! goes. A bridge cannot write the settings (the window owns them), but the
//! record is its own: every bridge appends to the day's file, each batch in
//! one write.
//!
//! A line keeps what `calls::kept_outcome` and `calls::kept_target` keep:
//! no server's error message, no resource's query.
//!
//! What is not here: what a record holds and where the files are (the
//! model's `calls`), searching them (the window).

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use rootgate_model::calls;
#[cfg(test)]
use rootgate_model::calls::CallRecord;

use super::Relay;
use crate::route::Call;

/// How long a recorded call may wait in memory before it is written.
const FLUSH_AFTER: Duration = Duration::from_secs(1);
/// How many bytes of records are written at once, whatever the time.
const FLUSH_AT: usize = 64 * 1024;

/// Where this connection's calls are kept, and those not written yet.
pub(super) struct Audit {
    folder: PathBuf,
    server_name: String,
    waiting: Mutex<Vec<u8>>,
    /// The part of every line that is the same for the whole connection
    /// (the app, once it said who it is, and the server), made once.
    same: std::sync::OnceLock<Vec<u8>>,
}

/// Appends `text` as a JSON string.
fn string(out: &mut Vec<u8>, text: &str) {
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

fn optional(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        Some(text) => string(out, text),
        None => out.extend_from_slice(b"null"),
    }
}

fn number(out: &mut Vec<u8>, n: u64) {
    use std::io::Write;
    let _ = write!(out, "{n}");
}

/// The fields of a record that are the same for every call of the
/// connection, as JSON members followed by a comma.
fn same_part(app: &str, app_version: &str, server: &str, server_name: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(96);
    for (key, value) in [
        ("app", app),
        ("appVersion", app_version),
        ("server", server),
        ("serverName", server_name),
    ] {
        string(&mut out, key);
        out.push(b':');
        string(&mut out, value);
        out.push(b',');
    }
    out
}

/// Appends one [`CallRecord`](calls::CallRecord) line for `call`, written
/// field by field (serde's map machinery and the line's own allocation
/// were most of what recording a call cost: BENCHMARKS.md).
fn write_line(out: &mut Vec<u8>, at_ms: u64, same: &[u8], call: &Call) {
    out.extend_from_slice(b"{\"atMs\":");
    number(out, at_ms);
    out.push(b',');
    out.extend_from_slice(same);
    out.extend_from_slice(b"\"method\":");
    string(out, &call.method);
    out.extend_from_slice(b",\"target\":");
    let target = call
        .target
        .as_deref()
        .map(|t| calls::kept_target(&call.method, t));
    optional(out, target.as_deref());
    out.extend_from_slice(b",\"durationMs\":");
    number(out, call.duration.as_millis() as u64);
    out.extend_from_slice(b",\"outcome\":");
    string(out, &calls::kept_outcome(&call.outcome));
    out.extend_from_slice(b",\"consent\":");
    optional(out, call.consent.as_deref());
    out.extend_from_slice(b",\"bytesIn\":");
    number(out, call.bytes_in);
    out.extend_from_slice(b",\"bytesOut\":");
    number(out, call.bytes_out);
    out.extend_from_slice(b"}\n");
}

impl Relay {
    /// Keeps this connection's calls in the record in `folder` (see the
    /// model's `calls::folder`), naming the server `server_name`. Set once.
    pub fn record_calls_in(&self, folder: PathBuf, server_name: String) {
        let _ = self.audit.set(Audit {
            folder,
            server_name,
            waiting: Mutex::new(Vec::new()),
            same: std::sync::OnceLock::new(),
        });
    }

    /// Adds one call to the record (written soon, not now).
    pub(super) fn audit_call(&self, call: &Call) {
        let Some(audit) = self.audit.get() else {
            return;
        };
        // Kept once the app has said who it is; made anew until then.
        let made;
        let same = match audit.same.get() {
            Some(same) => same.as_slice(),
            None => {
                let seen = self.seen.borrow();
                let part = |app: Option<&crate::route::AppInfo>| {
                    same_part(
                        app.map_or("", |a| a.name.as_str()),
                        app.map_or("", |a| a.version.as_str()),
                        self.server.as_str(),
                        &audit.server_name,
                    )
                };
                match seen.app.as_ref() {
                    Some(app) => audit.same.get_or_init(|| part(Some(app))).as_slice(),
                    None => {
                        made = part(None);
                        made.as_slice()
                    }
                }
            }
        };
        let at_ms = rootgate_model::ids::now_ms();
        let (first, full) = {
            let mut waiting = audit.waiting.lock().unwrap_or_else(|p| p.into_inner());
            let first = waiting.is_empty();
            write_line(&mut waiting, at_ms, same, call);
            (first, waiting.len() >= FLUSH_AT)
        };
        if full {
            self.flush_calls();
        } else if first {
            // One timer per batch, not per call: the first line of a batch
            // starts it, and the flush empties the batch.
            let me = self.me.clone();
            tokio::spawn(async move {
                tokio::time::sleep(FLUSH_AFTER).await;
                if let Some(relay) = me.upgrade() {
                    relay.flush_calls();
                }
            });
        }
    }

    /// Writes the calls not written yet (when the app goes, too). A record
    /// that cannot be written is said once on stderr and dropped: the
    /// record must never hold up the app.
    pub fn flush_calls(&self) {
        let Some(audit) = self.audit.get() else {
            return;
        };
        let lines = std::mem::take(&mut *audit.waiting.lock().unwrap_or_else(|p| p.into_inner()));
        if lines.is_empty() {
            return;
        }
        if let Err(e) = calls::append(&audit.folder, rootgate_model::ids::now_ms(), &lines) {
            self.note(&format!(
                "the record of calls could not be written in {}: {e}",
                audit.folder.display()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_as_written_reads_back_as_the_record() {
        let call = Call {
            method: "tools/call".into(),
            target: Some("write \"it\"\n".into()),
            duration: Duration::from_millis(7),
            outcome: "ok".into(),
            consent: Some("allowed once by you".into()),
            bytes_in: 10,
            bytes_out: 20,
        };
        let mut out = Vec::new();
        write_line(
            &mut out,
            5,
            &same_part("claude-code", "2", "srv-1", "files «x»"),
            &call,
        );
        let none = Call {
            target: None,
            consent: None,
            ..call
        };
        write_line(&mut out, 6, &same_part("", "", "srv-1", "files"), &none);
        let lines: Vec<CallRecord> = out
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(
            lines[0],
            CallRecord {
                at_ms: 5,
                app: "claude-code".into(),
                app_version: "2".into(),
                server: "srv-1".into(),
                server_name: "files «x»".into(),
                method: "tools/call".into(),
                target: Some("write \"it\"\n".into()),
                duration_ms: 7,
                outcome: "ok".into(),
                consent: Some("allowed once by you".into()),
                bytes_in: 10,
                bytes_out: 20,
            }
        );
        assert_eq!(
            (lines[1].target.as_deref(), lines[1].consent.as_deref()),
            (None, None)
        );
        assert_eq!(lines[1].app, "");
    }

    #[test]
    fn a_line_keeps_no_servers_message_and_no_query() {
        let call = Call {
            method: "resources/read".into(),
            target: Some("file:///x?token=MARKER#MARKER".into()),
            duration: Duration::from_millis(1),
            outcome: "error -32002: not found: MARKER".into(),
            consent: None,
            bytes_in: 1,
            bytes_out: 1,
        };
        let mut out = Vec::new();
        write_line(&mut out, 1, &same_part("a", "1", "s", "files"), &call);
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("MARKER"), "{text}");
        let record: CallRecord = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(record.target.as_deref(), Some("file:///x"));
        assert_eq!(record.outcome, "error -32002");
    }

    #[test]
    fn a_line_keeps_rootgates_own_words_for_an_error_it_made() {
        let why = "the server was stopped by Rootgate before it answered";
        let call = Call {
            method: "tools/call".into(),
            target: Some("write_file".into()),
            duration: Duration::from_millis(1),
            outcome: format!("error -32603{}{why}", calls::ROOTGATE_ERROR),
            consent: None,
            bytes_in: 1,
            bytes_out: 1,
        };
        let mut out = Vec::new();
        write_line(&mut out, 1, &same_part("a", "1", "s", "files"), &call);
        let record: CallRecord =
            serde_json::from_str(String::from_utf8(out).unwrap().trim()).unwrap();
        assert_eq!(record.outcome, format!("error -32603 (Rootgate): {why}"));
        assert_eq!(record.kind(), "error");
    }
}
