//! The example server's loop: read a line from stdin, hand it to the state
//! machine, carry out its side effects (stderr, the report file), and write
//! what it caused to stdout, one message a line, until stdin ends. The
//! misbehaviours act at the edges of this loop; `--ask-every-ms` asks from
//! a second thread.
//!
//! Not here: what a line means (`state`), the options (`cli`), and which
//! bytes a misbehaviour writes (`misbehave`).

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, Write};
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::cli::Config;
use crate::misbehave::{self, Seen};
use crate::state::{Effect, POLL_ID_PREFIX, Server};

/// The prefix of every stderr line. It stays fixed even when `--name` is given,
/// so tests and users can always find this server's lines in a shared log
/// (and, like the default name, it kept the name from before the crate's).
const LOG_PREFIX: &str = "rootgate-fixture";

/// Writes one line to stderr.
///
/// Write errors are ignored on purpose: a parent that stopped reading stderr
/// must not bring the server down, and there is nowhere else to report them.
pub(crate) fn log(line: &str) {
    let _ = writeln!(io::stderr().lock(), "{LOG_PREFIX}: {line}");
}

/// Sends one message as one line with a single `write_all`, then flushes, so
/// the client never sees a partial message and never waits for a buffer to fill.
fn write_message(out: &mut impl Write, message: &Value) -> io::Result<()> {
    let mut bytes = message.to_string().into_bytes();
    bytes.push(b'\n');
    out.write_all(&bytes)?;
    out.flush()
}

/// Appends one report line. The file is unbuffered and opened for appending,
/// so processes appending together never interleave their lines; a reader
/// may still see a long line half written (a regular file's write is not
/// atomic to readers: a 1000-folder list was caught at 8 KiB), so the
/// tests' reader takes only lines that end (`report::reported`).
fn append_report(file: &mut File, event: &Value) -> io::Result<()> {
    let mut bytes = event.to_string().into_bytes();
    bytes.push(b'\n');
    file.write_all(&bytes)?;
    file.flush()
}

/// Runs the read–handle–write loop until stdin ends, and returns the code
/// to exit with.
pub(crate) fn run(config: &Config) -> Result<ExitCode, String> {
    let kind = config.misbehave;
    match kind {
        Some(misbehave::Kind::ExitAtOnce) => {
            log("misbehaving (exit-at-once): exiting with code 3 before reading anything");
            return Ok(ExitCode::from(misbehave::EXIT_AT_ONCE_CODE));
        }
        Some(misbehave::Kind::IgnoreStdinCloseAndSigterm) => misbehave::block_sigterm()?,
        _ => {}
    }
    // Opening the report file up front turns a bad path into a startup error
    // instead of a silent gap in the report later.
    let mut report = match &config.report {
        Some(path) => Some(
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|err| format!("cannot open report file {}: {err}", path.display()))?,
        ),
        None => None,
    };

    let mut server = Server::new(config);
    let mut misbehaving = misbehave::State::default();
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        // Reading bytes rather than `String`s lets a line that is not UTF-8 be
        // answered with a parse error instead of ending the loop.
        let read = input
            .read_until(b'\n', &mut line)
            .map_err(|err| format!("cannot read stdin: {err}"))?;
        if read == 0 {
            if let Some(kind) = kind.filter(|k| k.ignores_stdin_close()) {
                log(&format!(
                    "misbehaving ({}): stdin closed; staying alive anyway",
                    kind.name()
                ));
                misbehave::linger();
            }
            return Ok(ExitCode::SUCCESS);
        }
        let mut messages = server.handle(&line);
        let seen = server.take_seen();
        if let (Some(every), Some(Seen::Initialized)) = (config.ask_every, seen)
            && server.client_has_roots
        {
            start_polling(every);
        }
        // Side effects go out before the messages, so that a test which reads
        // the report after receiving a tool result always finds the line there.
        for effect in server.take_effects() {
            match effect {
                Effect::Diagnostic(text) => log(&text),
                Effect::Report(event) => {
                    if let Some(file) = report.as_mut()
                        && let Err(err) = append_report(file, &event)
                    {
                        log(&format!("cannot append to the report file: {err}"));
                    }
                }
            }
        }
        let plan = kind.map(|kind| {
            kind.plan(
                seen,
                &mut messages,
                &mut misbehaving,
                (config.flood_requests, config.flood_bytes),
                log,
            )
        });
        let asks = messages
            .iter()
            .any(|m| m.get("method").and_then(Value::as_str) == Some("roots/list"));
        if asks && !config.ask_delay.is_zero() {
            std::thread::sleep(config.ask_delay);
        }
        let (before, after) = match &plan {
            Some(plan) => (&plan.before[..], &plan.after[..]),
            None => (&[][..], &[][..]),
        };
        for raw in before {
            write_raw(raw)?;
        }
        for message in &messages {
            // A failed write means the client is gone, so there is no one left
            // to serve. The lock is taken per message: a flood thread may be
            // writing too, and lines must not interleave.
            write_message(&mut io::stdout().lock(), message)
                .map_err(|err| format!("cannot write to stdout: {err}"))?;
        }
        for raw in after {
            write_raw(raw)?;
        }
        match plan.map(|plan| plan.then) {
            Some(misbehave::Then::Exit(code)) => return Ok(ExitCode::from(code)),
            Some(misbehave::Then::StopReading) => misbehave::linger(),
            Some(misbehave::Then::Crash) => {
                panic!("rootgate-fixture crashed on purpose (--misbehave crash-after-init)")
            }
            Some(misbehave::Then::Continue) | None => {}
        }
    }
}

/// Asks for `roots/list` every `every`, from a second thread, until the
/// client is gone. The main loop reads and applies the answers.
fn start_polling(every: std::time::Duration) {
    std::thread::spawn(move || {
        for i in 0u64.. {
            std::thread::sleep(every);
            let request = json!({
                "jsonrpc": "2.0", "id": format!("{POLL_ID_PREFIX}{i}"), "method": "roots/list",
            });
            if write_message(&mut io::stdout().lock(), &request).is_err() {
                return;
            }
        }
    });
}

/// Writes one line a misbehaviour made up.
fn write_raw(raw: &misbehave::Raw) -> Result<(), String> {
    match raw {
        misbehave::Raw::Bytes(bytes) => misbehave::write_stdout(bytes),
        misbehave::Raw::Message(message) => write_message(&mut io::stdout().lock(), message),
    }
    .map_err(|err| format!("cannot write to stdout: {err}"))
}
