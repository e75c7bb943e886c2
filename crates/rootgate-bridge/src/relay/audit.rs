//! The bridge's part of the record of calls (`rootgate_model::calls`):
//! each call the app made is kept as a line, written beside the settings
//! in batches, so that an allowed call costs one small copy into memory
//! rather than a write: the lines written at most [`FLUSH_AFTER`] after the
//! first waiting one, at once past [`FLUSH_AT`] bytes, and when the app
//! goes. A bridge cannot write the settings (the window owns them), but the
//! record is its own: every bridge appends to the day's file, each batch in
//! one write.
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

/// A [`CallRecord`] as written: borrowed from the call, so that recording
/// one copies nothing but the line itself (a test reads it back as the
/// record).
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    at_ms: u64,
    app: &'a str,
    app_version: &'a str,
    server: &'a str,
    server_name: &'a str,
    method: &'a str,
    target: Option<&'a str>,
    duration_ms: u64,
    outcome: &'a str,
    consent: Option<&'a str>,
    bytes_in: u64,
    bytes_out: u64,
}

/// Where this connection's calls are kept, and those not written yet.
pub(super) struct Audit {
    folder: PathBuf,
    server_name: String,
    waiting: Mutex<Vec<u8>>,
}

impl Relay {
    /// Keeps this connection's calls in the record in `folder` (see the
    /// model's `calls::folder`), naming the server `server_name`. Set once.
    pub fn record_calls_in(&self, folder: PathBuf, server_name: String) {
        let _ = self.audit.set(Audit {
            folder,
            server_name,
            waiting: Mutex::new(Vec::new()),
        });
    }

    /// Adds one call to the record (written soon, not now).
    pub(super) fn audit_call(&self, call: &Call) {
        let Some(audit) = self.audit.get() else {
            return;
        };
        let line = {
            let seen = self.seen.borrow();
            let app = seen.app.as_ref();
            serde_json::to_vec(&Line {
                at_ms: rootgate_model::ids::now_ms(),
                app: app.map_or("", |a| a.name.as_str()),
                app_version: app.map_or("", |a| a.version.as_str()),
                server: self.server.as_str(),
                server_name: &audit.server_name,
                method: &call.method,
                target: call.target.as_deref(),
                duration_ms: call.duration.as_millis() as u64,
                outcome: &call.outcome,
                consent: call.consent.as_deref(),
                bytes_in: call.bytes_in,
                bytes_out: call.bytes_out,
            })
        };
        let Ok(mut line) = line else {
            return;
        };
        line.push(b'\n');
        let (first, full) = {
            let mut waiting = audit.waiting.lock().unwrap_or_else(|p| p.into_inner());
            let first = waiting.is_empty();
            waiting.extend_from_slice(&line);
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
        let line = Line {
            at_ms: 5,
            app: "claude-code",
            app_version: "2",
            server: "srv-1",
            server_name: "files",
            method: "tools/call",
            target: Some("write_file"),
            duration_ms: 7,
            outcome: "ok",
            consent: Some("allowed once by you"),
            bytes_in: 10,
            bytes_out: 20,
        };
        let record: CallRecord =
            serde_json::from_slice(&serde_json::to_vec(&line).unwrap()).unwrap();
        assert_eq!(
            record,
            CallRecord {
                at_ms: 5,
                app: "claude-code".into(),
                app_version: "2".into(),
                server: "srv-1".into(),
                server_name: "files".into(),
                method: "tools/call".into(),
                target: Some("write_file".into()),
                duration_ms: 7,
                outcome: "ok".into(),
                consent: Some("allowed once by you".into()),
                bytes_in: 10,
                bytes_out: 20,
            }
        );
    }
}
