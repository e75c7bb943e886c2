//! The record of AI apps' calls through Rootgate: one JSON line per call
//! ([`CallRecord`]: who, to which server, what, how long, how it ended, who
//! let it through, how many bytes each way), in a file per day in a folder
//! beside the settings (`calls/YYYY-MM-DD.jsonl`), kept [`KEPT_DAYS`] days.
//! Bridges append to it (each record one `write` of a whole line, on a file
//! opened for appending, so bridges running at once never interleave), and
//! the window searches and exports it.
//!
//! Beside the settings rather than in `$XDG_STATE_HOME`: the record belongs
//! to one Rootgate (one settings file), as the window's socket does, so a
//! second settings folder (or a test's) keeps its own.
//!
//! No arguments are kept: the timeline keeps none either. Nor is anything
//! a server or an app wrote that could carry them: an error is kept as its
//! code, with no server's message ([`kept_outcome`]), and a resource as its
//! scheme, host and path, with no query, fragment or user and password
//! ([`kept_target`]). What is not here: when a bridge writes (its `audit`),
//! the window's views.

use std::fs;
use std::io::{self, BufRead, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many days of calls are kept; older files are removed when the
/// window starts.
pub const KEPT_DAYS: u64 = 30;

/// One call an AI app made through a bridge.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    /// When it ended, in milliseconds since the epoch.
    pub at_ms: u64,
    /// The app's name as it gave it, and its version.
    pub app: String,
    #[serde(default)]
    pub app_version: String,
    pub server: String,
    pub server_name: String,
    pub method: String,
    /// The tool, prompt or resource it named.
    #[serde(default)]
    pub target: Option<String>,
    pub duration_ms: u64,
    /// "ok", "error CODE" (the server's message is not kept), "refused:
    /// why" (Rootgate's own words), "cancelled".
    pub outcome: String,
    /// Who let a tool call through when the rules looked at it.
    #[serde(default)]
    pub consent: Option<String>,
    /// The request's size and the answer's, in bytes.
    #[serde(default)]
    pub bytes_in: u64,
    #[serde(default)]
    pub bytes_out: u64,
}

impl CallRecord {
    /// How it ended, in one word: ok, error, refused or cancelled.
    pub fn kind(&self) -> &'static str {
        if self.outcome == "ok" {
            "ok"
        } else if self.outcome == "cancelled" {
            "cancelled"
        } else if self.outcome.starts_with("refused") {
            "refused"
        } else {
            "error"
        }
    }
}

/// The words between an error's code and Rootgate's own reason, in an
/// outcome of an error Rootgate made itself (the server stopped before it
/// answered, say): `error -32603 (Rootgate): why`. A server's error is
/// always written `error CODE: message`, the colon right after the code,
/// so no server's message can take this form.
pub const ROOTGATE_ERROR: &str = " (Rootgate): ";

/// What the record keeps of a call's outcome: Rootgate's own words
/// ("ok", "cancelled", "refused: why", an error Rootgate made itself with
/// its reason, see [`ROOTGATE_ERROR`]), and of a server's error only its code. An
/// error's message is most often the server's, which may quote the call's
/// arguments or a secret it was given; the window's timeline, which is not
/// written down, still shows it.
pub fn kept_outcome(outcome: &str) -> std::borrow::Cow<'_, str> {
    match outcome.strip_prefix("error ") {
        Some(rest) => {
            if let Some((code, _why)) = rest.split_once(ROOTGATE_ERROR)
                && code.parse::<i64>().is_ok()
            {
                return outcome.into();
            }
            let code = rest.split(':').next().unwrap_or_default().trim();
            if code.parse::<i64>().is_ok() {
                format!("error {code}").into()
            } else {
                "error".into()
            }
        }
        None => outcome.into(),
    }
}

/// What the record keeps of a call's target: a tool's or a prompt's name
/// as it is; a resource's URI (`resources/…` methods) without its query
/// and fragment, and without a user or password before its host, which is
/// where a URI carries tokens.
pub fn kept_target<'a>(method: &str, target: &'a str) -> std::borrow::Cow<'a, str> {
    if !method.starts_with("resources/") {
        return target.into();
    }
    let end = target.find(['?', '#']).unwrap_or(target.len());
    let uri = &target[..end];
    let Some(at) = uri.find("://") else {
        return uri.into();
    };
    let authority_start = at + 3;
    let authority_end = uri[authority_start..]
        .find('/')
        .map_or(uri.len(), |i| authority_start + i);
    match uri[authority_start..authority_end].rfind('@') {
        Some(user) => format!(
            "{}{}",
            &uri[..authority_start],
            &uri[authority_start + user + 1..]
        )
        .into(),
        None => uri.into(),
    }
}

/// The folder of the record, beside the settings file `settings`.
pub fn folder(settings: &Path) -> PathBuf {
    settings
        .parent()
        .map_or_else(|| PathBuf::from("calls"), |dir| dir.join("calls"))
}

/// The day (UTC) of `at_ms`, as the file's name has it.
pub fn day(at_ms: u64) -> String {
    crate::dates::day(at_ms)
}

/// Appends `lines` (whole JSON lines) to the day's file of `folder`, in one
/// write. The folder is made private (0700) and the file 0600 when new.
pub fn append(folder: &Path, at_ms: u64, lines: &[u8]) -> io::Result<()> {
    rootgate_host::private_files::folder(folder)?;
    let path = folder.join(format!("{}.jsonl", day(at_ms)));
    let mut file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(lines)
}

/// What to look for in the record.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallQuery {
    /// Words that must all appear in the app, server, method, target,
    /// outcome or consent (any case).
    #[serde(default)]
    pub text: String,
    /// Only calls that ended so: ok, error, refused, cancelled.
    #[serde(default)]
    pub kind: Option<String>,
    /// The most records to return, newest first.
    #[serde(default)]
    pub limit: Option<usize>,
}

impl CallQuery {
    fn matches(&self, record: &CallRecord) -> bool {
        if let Some(kind) = &self.kind
            && record.kind() != kind
        {
            return false;
        }
        let words: Vec<String> = self
            .text
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        if words.is_empty() {
            return true;
        }
        let haystack = format!(
            "{} {} {} {} {} {}",
            record.app,
            record.server_name,
            record.method,
            record.target.as_deref().unwrap_or_default(),
            record.outcome,
            record.consent.as_deref().unwrap_or_default()
        )
        .to_lowercase();
        words.iter().all(|w| haystack.contains(w.as_str()))
    }
}

/// What a search found: the records (newest first), how many matched in
/// all, and how many lines could not be read.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CallsFound {
    pub records: Vec<CallRecord>,
    pub matched: usize,
    pub unreadable: usize,
}

/// The day files of `folder`, newest first.
fn days(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(folder)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files.reverse();
    files
}

/// Searches the record: every call that matches `query`, newest first, at
/// most `query.limit`. A line that is not a record (a torn write, a hand
/// edit) is counted, not fatal.
pub fn search(folder: &Path, query: &CallQuery) -> CallsFound {
    let mut found = CallsFound::default();
    for file in days(folder) {
        let Ok(f) = fs::File::open(&file) else {
            continue;
        };
        let mut day: Vec<CallRecord> = Vec::new();
        for line in io::BufReader::new(f).lines() {
            let Ok(line) = line else {
                found.unreadable += 1;
                continue;
            };
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<CallRecord>(&line) {
                Ok(record) if query.matches(&record) => day.push(record),
                Ok(_) => {}
                Err(_) => found.unreadable += 1,
            }
        }
        day.sort_by_key(|r| std::cmp::Reverse(r.at_ms));
        found.matched += day.len();
        let room = query
            .limit
            .unwrap_or(usize::MAX)
            .saturating_sub(found.records.len());
        found.records.extend(day.into_iter().take(room));
    }
    found
}

/// Removes the day files older than [`KEPT_DAYS`] before `now_ms`.
pub fn prune(folder: &Path, now_ms: u64) {
    let oldest = day(now_ms.saturating_sub(KEPT_DAYS * 86_400_000));
    for file in days(folder) {
        let name = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if name < oldest.as_str() {
            let _ = fs::remove_file(&file);
        }
    }
}

/// The forms an export of the record takes.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ExportFormat {
    /// One JSON record per line, as kept.
    Jsonl,
    /// A table with a header, for a spreadsheet.
    Csv,
}

impl ExportFormat {
    /// The file name's extension.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::Csv => "csv",
        }
    }

    /// `records` in this form.
    pub fn render(self, records: &[CallRecord]) -> String {
        match self {
            ExportFormat::Csv => csv(records),
            ExportFormat::Jsonl => records
                .iter()
                .filter_map(|r| serde_json::to_string(r).ok())
                .map(|line| line + "\n")
                .collect(),
        }
    }
}

/// The records as CSV, with a header: for a spreadsheet.
pub fn csv(records: &[CallRecord]) -> String {
    fn cell(text: &str) -> String {
        // A cell that a spreadsheet would take for a formula is written as
        // text, and quotes are doubled.
        let text = if text.starts_with(['=', '+', '-', '@']) {
            format!("'{text}")
        } else {
            text.to_owned()
        };
        format!("\"{}\"", text.replace('"', "\"\""))
    }
    let mut out = String::from(
        "at (UTC),app,app version,server,method,target,duration ms,outcome,consent,bytes in,bytes out\n",
    );
    for r in records {
        let at = format!("{} {}", day(r.at_ms), clock(r.at_ms));
        let row = [
            at,
            r.app.clone(),
            r.app_version.clone(),
            r.server_name.clone(),
            r.method.clone(),
            r.target.clone().unwrap_or_default(),
            r.duration_ms.to_string(),
            r.outcome.clone(),
            r.consent.clone().unwrap_or_default(),
            r.bytes_in.to_string(),
            r.bytes_out.to_string(),
        ];
        let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// The time of day (UTC) of `at_ms`, to the second.
fn clock(at_ms: u64) -> String {
    let s = (at_ms / 1000) % 86_400;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(at_ms: u64, app: &str, target: &str, outcome: &str) -> CallRecord {
        CallRecord {
            at_ms,
            app: app.into(),
            app_version: "1".into(),
            server: "srv-1".into(),
            server_name: "files".into(),
            method: "tools/call".into(),
            target: Some(target.into()),
            duration_ms: 3,
            outcome: outcome.into(),
            consent: None,
            bytes_in: 10,
            bytes_out: 20,
        }
    }

    fn line(r: &CallRecord) -> Vec<u8> {
        let mut l = serde_json::to_vec(r).unwrap();
        l.push(b'\n');
        l
    }

    #[test]
    fn the_clock_reads_utc_seconds() {
        assert_eq!(clock(1_764_806_400_000 + 3_723_000), "01:02:03");
    }

    #[test]
    fn records_are_searched_newest_first_across_days_and_torn_lines_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        let folder = folder(&dir.path().join("settings.json"));
        let day1 = 1_764_806_400_000;
        let day2 = day1 + 86_400_000;
        append(
            &folder,
            day1,
            &line(&record(day1, "claude-code", "read_file", "ok")),
        )
        .unwrap();
        append(
            &folder,
            day2,
            &line(&record(
                day2,
                "cursor-vscode",
                "write_file",
                "refused: hidden",
            )),
        )
        .unwrap();
        append(
            &folder,
            day2 + 5,
            &line(&record(day2 + 5, "claude-code", "write_file", "ok")),
        )
        .unwrap();
        append(&folder, day2, b"{\"torn\n").unwrap();
        let all = search(&folder, &CallQuery::default());
        assert_eq!(all.matched, 3);
        assert_eq!(all.unreadable, 1);
        assert_eq!(all.records[0].at_ms, day2 + 5);
        assert_eq!(all.records[2].at_ms, day1);
        let writes = search(
            &folder,
            &CallQuery {
                text: "WRITE claude".into(),
                ..Default::default()
            },
        );
        assert_eq!(writes.records.len(), 1);
        let refused = search(
            &folder,
            &CallQuery {
                kind: Some("refused".into()),
                ..Default::default()
            },
        );
        assert_eq!(refused.records[0].app, "cursor-vscode");
        let one = search(
            &folder,
            &CallQuery {
                limit: Some(1),
                ..Default::default()
            },
        );
        assert_eq!((one.records.len(), one.matched), (1, 3));
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(&folder).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }

    #[test]
    fn old_days_are_pruned_and_csv_cells_cannot_be_formulas() {
        let dir = tempfile::tempdir().unwrap();
        let now = 1_764_806_400_000;
        let old = now - (KEPT_DAYS + 1) * 86_400_000;
        append(dir.path(), old, &line(&record(old, "a", "t", "ok"))).unwrap();
        append(dir.path(), now, &line(&record(now, "a", "t", "ok"))).unwrap();
        prune(dir.path(), now);
        assert_eq!(search(dir.path(), &CallQuery::default()).matched, 1);
        let text = csv(&[record(now, "=HYPERLINK(\"x\")", "t", "ok")]);
        assert!(text.contains("\"'=HYPERLINK(\"\"x\"\")\""), "{text}");
        assert!(text.starts_with("at (UTC),app,"));
    }

    #[test]
    fn an_error_is_kept_as_its_code_and_rootgates_words_as_they_are() {
        assert_eq!(
            kept_outcome("error -32602: no such file /secret/MARKER"),
            "error -32602"
        );
        assert_eq!(kept_outcome("error 0: "), "error 0");
        assert_eq!(kept_outcome("error garbage MARKER"), "error");
        // Rootgate's own reason is kept; a server's message that tries to
        // look like one is still cut to its code.
        let stopped =
            "error -32603 (Rootgate): the server was stopped by Rootgate before it answered";
        assert_eq!(kept_outcome(stopped), stopped);
        assert_eq!(
            kept_outcome("error -32603: x (Rootgate): MARKER"),
            "error -32603"
        );
        assert_eq!(kept_outcome("error x (Rootgate): MARKER"), "error");
        for own in [
            "ok",
            "cancelled",
            "refused: the tool “write_file” is not offered",
        ] {
            assert_eq!(kept_outcome(own), own);
        }
    }

    #[test]
    fn a_resource_is_kept_without_its_query_fragment_or_user() {
        let read = "resources/read";
        assert_eq!(kept_target(read, "file:///x?token=MARKER"), "file:///x");
        assert_eq!(kept_target(read, "file:///x#MARKER"), "file:///x");
        assert_eq!(
            kept_target(read, "https://me:MARKER@api.example.com/a/b?k=MARKER"),
            "https://api.example.com/a/b"
        );
        assert_eq!(kept_target(read, "note://inbox"), "note://inbox");
        assert_eq!(
            kept_target("tools/call", "what?is#this"),
            "what?is#this",
            "a tool's name is kept as it is"
        );
    }
}
