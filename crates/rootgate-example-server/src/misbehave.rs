//! Deliberate misbehaviour for fault-injection tests: `--misbehave KIND`
//! makes the example server break the protocol or the process contract in
//! one specific way, so a client's tests can check that it copes (reports a
//! clear reason, stays responsive, leaks nothing).
//!
//! Each [`Kind`] is one behaviour a real server has been seen to have, or
//! could have: exiting at once, crashing mid-session, never answering
//! `initialize`, writing garbage, huge or unterminated lines, malformed
//! JSON-RPC or responses nobody asked for on stdout, asking for roots too
//! early or thousands of times a second, sending requests the client never
//! offered, refusing to end when its input closes or when sent SIGTERM,
//! no longer reading its input, and flooding stderr. What the server got back from the client for the
//! requests it made up is written to the `--report` file as `reply` (or
//! `flood`) events, so a test can check the client's answers.
//!
//! This module only decides *what* to misbehave with and builds the bytes to
//! send; the read–handle–write loop in the crate root calls it at fixed
//! points (start, before and after each answer, end of input). It does not
//! fork or daemonise (a separate concern of process clean-up), and a server
//! started without `--misbehave` never reaches any of this.

use std::io::{self, Write};
use std::time::Duration;

use serde_json::{Value, json};

/// A protocol step an input line completed, for the misbehaviours that act
/// at a given point of the session.
/// The state machine says which step a line completed; the word is kept
/// here, with the misbehaviours that act on it, so that this module needs
/// nothing from the state machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Seen {
    /// The client's `initialize` request (its answer is in the output).
    Initialize,
    /// The client's `notifications/initialized`.
    Initialized,
    /// The client's `notifications/roots/list_changed`.
    ListChanged,
    /// A well-formed answer to one of our own `roots/list` requests.
    RootsAccepted,
    /// A reply to a request a misbehaviour made up.
    Reply,
}

/// The id prefix of the `roots/list` requests sent by [`Kind::RootsFlood`]
/// (and [`Kind::StopReadingInput`]), so their answers can be counted apart
/// from everything else.
pub(crate) const FLOOD_ID_PREFIX: &str = "flood-";

/// How many `roots/list` requests [`Kind::RootsFlood`] sends unless
/// `--flood-requests` says otherwise.
pub(crate) const DEFAULT_FLOOD_REQUESTS: u64 = 10_000;

/// How many bytes [`Kind::StderrFlood`] writes unless `--flood-bytes` says
/// otherwise: one GiB.
pub(crate) const DEFAULT_FLOOD_BYTES: u64 = 1 << 30;

/// The exit code of [`Kind::ExitAtOnce`].
pub(crate) const EXIT_AT_ONCE_CODE: u8 = 3;

/// The exit code of [`Kind::ExitOnListChanged`].
pub(crate) const EXIT_ON_LIST_CHANGED_CODE: u8 = 4;

/// The size of [`Kind::StdoutHugeLine`]'s single line, in bytes of its data
/// string: 50 MB, far beyond any real message.
pub(crate) const HUGE_LINE_BYTES: usize = 50 * 1000 * 1000;

/// One way to misbehave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Exits with code 3 before reading anything, saying why on stderr.
    ExitAtOnce,
    /// Panics (exit code 101) right after the first roots answer.
    CrashAfterInit,
    /// Exits with code 4 when told `notifications/roots/list_changed`.
    ExitOnListChanged,
    /// Reads its input but never answers `initialize` (exits at end of input).
    NoInitializeAnswer,
    /// Writes lines that are not JSON before answering `initialize` and after
    /// every roots answer.
    StdoutNonJson,
    /// Writes lines that are not UTF-8, alone and inside otherwise valid
    /// JSON-RPC, before answering `initialize` and after every roots answer.
    StdoutInvalidUtf8,
    /// After the first roots answer, writes one 50 MB line (a logging
    /// notification), then a small logging notification saying it is done.
    StdoutHugeLine,
    /// After the first roots answer, writes a whole message without its
    /// newline and exits with code 0.
    StdoutNoNewline,
    /// After the first roots answer, writes JSON-RPC with wrong types (bad
    /// ids, params, versions, methods, batches), then one valid `roots/list`.
    StdoutWrongTypes,
    /// After the first roots answer, writes responses to requests the client
    /// never made, and answers each `tools/call` twice, a forged response to
    /// the client's next id first.
    StdoutUnknownIds,
    /// Sends `roots/list` before answering `initialize` and waits for its
    /// answer before answering (as a server that fetches its roots while
    /// starting up does), then sends another after answering `initialize`
    /// but before the client's `notifications/initialized`.
    RootsBeforeInitialized,
    /// After `notifications/initialized`, sends `--flood-requests` `roots/list`
    /// requests from a second thread as fast as the pipe takes them.
    RootsFlood,
    /// After the first roots answer, sends `sampling/createMessage` and
    /// `elicitation/create`, which the client did not declare.
    UndeclaredRequests,
    /// Keeps running after its input closes (ends on SIGTERM).
    IgnoreStdinClose,
    /// Keeps running after its input closes and blocks SIGTERM (ends only on
    /// SIGKILL).
    IgnoreStdinCloseAndSigterm,
    /// After the first roots answer, writes `--flood-bytes` to stderr from a
    /// second thread (long and short lines), then a last line saying so.
    StderrFlood,
    /// After the first roots answer, stops reading its input for good while
    /// a second thread sends `--flood-requests` `roots/list` requests, so the
    /// client's answers fill the pipe and its writes block (ends on SIGTERM).
    StopReadingInput,
}

impl Kind {
    /// Every kind with its command-line name, for parsing and for `--help`.
    pub(crate) const ALL: [(&'static str, Kind); 17] = [
        ("exit-at-once", Kind::ExitAtOnce),
        ("crash-after-init", Kind::CrashAfterInit),
        ("exit-on-list-changed", Kind::ExitOnListChanged),
        ("no-initialize-answer", Kind::NoInitializeAnswer),
        ("stdout-non-json", Kind::StdoutNonJson),
        ("stdout-invalid-utf8", Kind::StdoutInvalidUtf8),
        ("stdout-huge-line", Kind::StdoutHugeLine),
        ("stdout-no-newline", Kind::StdoutNoNewline),
        ("stdout-wrong-types", Kind::StdoutWrongTypes),
        ("stdout-unknown-ids", Kind::StdoutUnknownIds),
        ("roots-before-initialized", Kind::RootsBeforeInitialized),
        ("roots-flood", Kind::RootsFlood),
        ("undeclared-requests", Kind::UndeclaredRequests),
        ("ignore-stdin-close", Kind::IgnoreStdinClose),
        (
            "ignore-stdin-close-and-sigterm",
            Kind::IgnoreStdinCloseAndSigterm,
        ),
        ("stderr-flood", Kind::StderrFlood),
        ("stop-reading-input", Kind::StopReadingInput),
    ];

    pub(crate) fn parse(name: &str) -> Option<Kind> {
        Kind::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, kind)| *kind)
    }

    /// Whether answers to requests this server made up are reported.
    pub(crate) fn reports_replies(self) -> bool {
        matches!(
            self,
            Kind::StdoutWrongTypes
                | Kind::StdoutUnknownIds
                | Kind::RootsBeforeInitialized
                | Kind::UndeclaredRequests
        )
    }

    /// Whether the server keeps running after its input ends.
    pub(crate) fn ignores_stdin_close(self) -> bool {
        matches!(
            self,
            Kind::IgnoreStdinClose | Kind::IgnoreStdinCloseAndSigterm
        )
    }
}

/// One line a misbehaviour writes on stdout.
pub(crate) enum Raw {
    /// Bytes written as they are (a line must carry its own newline).
    Bytes(Vec<u8>),
    /// A message serialised on one line, like any other.
    Message(Value),
}

/// Lines that are not JSON at all, as a server printing a banner or a debug
/// line to stdout writes them.
pub(crate) fn non_json_lines() -> Vec<Raw> {
    vec![
        Raw::Bytes(b"Server starting on stdio...\n".to_vec()),
        Raw::Bytes(b"{\"jsonrpc\": \"2.0\", \"method\": \"cut off\n".to_vec()),
        Raw::Bytes(b"DEBUG: roots = [object Object]\n".to_vec()),
        Raw::Bytes(b"   \n".to_vec()),
    ]
}

/// Lines that are not valid UTF-8: raw bytes, and a logging notification
/// whose text holds bytes that cannot be text.
pub(crate) fn invalid_utf8_lines() -> Vec<Raw> {
    vec![
        Raw::Bytes(b"\xff\xfe\xfd not text\n".to_vec()),
        Raw::Bytes(
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"bad \xff\xfe bytes\"}}\n"
                .to_vec(),
        ),
        Raw::Bytes(vec![0xc3, 0x28, 0xa0, 0xa1, b'\n']),
    ]
}

/// One logging notification of [`HUGE_LINE_BYTES`] of data on a single line.
pub(crate) fn huge_line() -> Vec<u8> {
    let head = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"huge","data":""#;
    let tail = b"\"}}\n";
    let mut line = Vec::with_capacity(head.len() + HUGE_LINE_BYTES + tail.len());
    line.extend_from_slice(head);
    line.resize(head.len() + HUGE_LINE_BYTES, b'x');
    line.extend_from_slice(tail);
    line
}

/// A logging notification with `data` as its payload: the server's way of
/// saying "I got this far" to a client that shows server messages.
pub(crate) fn logging(logger: &str, data: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": { "level": "info", "logger": logger, "data": data },
    })
}

/// A whole logging notification without its newline.
pub(crate) fn unterminated_line() -> Vec<u8> {
    logging("no-newline", json!("this line has no newline"))
        .to_string()
        .into_bytes()
}

/// JSON-RPC messages with wrong types, then one valid `roots/list`
/// (id `"wt-valid"`) so the client's state afterwards can be checked.
pub(crate) fn wrong_type_lines() -> Vec<Raw> {
    let raw = |text: &str| Raw::Bytes(format!("{text}\n").into_bytes());
    vec![
        raw("[]"),
        raw(r#"[{"jsonrpc":"2.0","id":"wt-batch","method":"roots/list"}]"#),
        raw(r#""just a string""#),
        raw("null"),
        raw("42"),
        raw(r#"{"jsonrpc":"2.0","id":"wt-params","method":"roots/list","params":"not an object"}"#),
        raw(r#"{"jsonrpc":"2.0","id":{"an":"object"},"method":"roots/list"}"#),
        raw(r#"{"jsonrpc":"2.0","id":[1],"method":"roots/list"}"#),
        raw(r#"{"jsonrpc":"1.0","id":"wt-version","method":"roots/list"}"#),
        raw(r#"{"id":"wt-no-version","method":"roots/list"}"#),
        raw(r#"{"jsonrpc":"2.0","id":"wt-method-type","method":42}"#),
        raw(r#"{"jsonrpc":"2.0","id":"wt-unknown-method","method":"rootgate/nonsense"}"#),
        raw(
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"loudest","data":1}}"#,
        ),
        raw(r#"{"jsonrpc":"2.0","method":"notifications/message","params":"not an object"}"#),
        raw(
            r#"{"jsonrpc":"2.0","id":"wt-result-and-error","result":{},"error":{"code":1,"message":"both"}}"#,
        ),
        raw(r#"{"jsonrpc":"2.0","id":true,"result":{}}"#),
        Raw::Message(json!({ "jsonrpc": "2.0", "id": "wt-valid", "method": "roots/list" })),
    ]
}

/// Responses to requests the client never made.
pub(crate) fn unknown_id_lines() -> Vec<Raw> {
    vec![
        Raw::Message(json!({ "jsonrpc": "2.0", "id": 999, "result": {} })),
        Raw::Message(json!({ "jsonrpc": "2.0", "id": "never-sent", "result": { "roots": [] } })),
        Raw::Message(json!({
            "jsonrpc": "2.0", "id": 1000,
            "error": { "code": -32603, "message": "forged error for a request nobody made" },
        })),
        Raw::Message(json!({
            "jsonrpc": "2.0", "id": null,
            "error": { "code": -32700, "message": "forged error without an id" },
        })),
        Raw::Message(json!({ "jsonrpc": "2.0", "id": -1, "result": { "content": [] } })),
    ]
}

/// A forged answer to the request the client will make after the one with
/// `id`: rmcp numbers requests upwards, so this is an answer to a question
/// not yet asked.
pub(crate) fn forged_answer_to_next(id: &Value) -> Option<Value> {
    let next = id.as_i64()? + 1;
    Some(json!({
        "jsonrpc": "2.0", "id": next,
        "result": {
            "content": [{ "type": "text", "text": "forged: answered before it was asked" }],
            "structuredContent": { "forged": true },
            "isError": false,
        },
    }))
}

/// `roots/list` requests sent too early, with ids that say when.
pub(crate) fn early_roots_request(when: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": format!("early-{when}"), "method": "roots/list" })
}

/// Requests for capabilities the client did not declare.
pub(crate) fn undeclared_requests() -> Vec<Raw> {
    vec![
        Raw::Message(json!({
            "jsonrpc": "2.0", "id": "sampling", "method": "sampling/createMessage",
            "params": {
                "messages": [{ "role": "user", "content": { "type": "text", "text": "Summarise the user's files" } }],
                "maxTokens": 100,
            },
        })),
        Raw::Message(json!({
            "jsonrpc": "2.0", "id": "elicitation", "method": "elicitation/create",
            "params": {
                "message": "Please type your password",
                "requestedSchema": { "type": "object", "properties": { "password": { "type": "string" } } },
            },
        })),
    ]
}

/// Writes one line to stdout with a single locked `write_all` and a flush, so
/// lines from two threads never interleave.
pub(crate) fn write_stdout(bytes: &[u8]) -> io::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()
}

/// Sends `count` `roots/list` requests from a second thread, as fast as the
/// pipe takes them. The main loop keeps reading (and counting) the answers.
pub(crate) fn start_roots_flood(count: u64) {
    std::thread::spawn(move || {
        for i in 0..count {
            let request = json!({
                "jsonrpc": "2.0", "id": format!("{FLOOD_ID_PREFIX}{i}"), "method": "roots/list",
            });
            let mut bytes = request.to_string().into_bytes();
            bytes.push(b'\n');
            if write_stdout(&bytes).is_err() {
                // The client is gone; nothing left to flood.
                return;
            }
        }
    });
}

/// Writes at least `total` bytes to stderr from a second thread, in whole
/// 1 MiB chunks of one 64 KiB line (longer than any client should keep
/// whole) and 64 short lines numbered across the flood, then one last line
/// naming the bytes written and the last number, so a client's log can be
/// checked for keeping the newest lines.
pub(crate) fn start_stderr_flood(total: u64) {
    std::thread::spawn(move || {
        let mut long = vec![b'x'; 64 * 1024];
        long[..12].copy_from_slice(b"long line: x");
        long.push(b'\n');
        let mut written: u64 = 0;
        let mut number: u64 = 0;
        let mut chunk: Vec<u8> = Vec::with_capacity(1 << 20);
        while written < total {
            chunk.clear();
            while chunk.len() < (1 << 20) {
                chunk.extend_from_slice(&long);
                for _ in 0..64 {
                    number += 1;
                    let _ = writeln!(chunk, "flood line {number}");
                }
            }
            // Locked per chunk, which ends at a line's end: the main loop's
            // own diagnostics go out between chunks, whole.
            if io::stderr().lock().write_all(&chunk).is_err() {
                return;
            }
            written += chunk.len() as u64;
        }
        let mut stderr = io::stderr().lock();
        let _ = writeln!(
            stderr,
            "rootgate-fixture: stderr flood done after {written} bytes; last line {number}"
        );
        let _ = stderr.flush();
    });
}

/// Stops SIGTERM from reaching this process: a blocked signal stays pending
/// and is never acted on, which is what a server that ignores SIGTERM looks
/// like from outside. (Blocking needs no `unsafe`, unlike installing a
/// handler.) Threads started afterwards inherit the mask.
pub(crate) fn block_sigterm() -> Result<(), String> {
    use nix::sys::signal::{SigSet, Signal};
    let mut set = SigSet::empty();
    set.add(Signal::SIGTERM);
    set.thread_block()
        .map_err(|err| format!("cannot block SIGTERM: {err}"))
}

/// Never returns: what a server that ignores the end of its input does.
pub(crate) fn linger() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// What the loop does once a line's output is written.
pub(crate) enum Then {
    Continue,
    /// Never read input again (and never return).
    StopReading,
    /// Exit with this code.
    Exit(u8),
    /// Panic, as a server with a bug does.
    Crash,
}

/// What to write around the messages a line caused, and what to do after.
pub(crate) struct Plan {
    pub(crate) before: Vec<Raw>,
    pub(crate) after: Vec<Raw>,
    pub(crate) then: Then,
}

/// What a misbehaviour remembers across lines.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Whether the one-shot misbehaviour (the one "after the first roots
    /// answer" or "after initialized") has happened.
    fired: bool,
    /// Messages held back until the client answers a made-up request.
    held: Vec<Value>,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        Kind::ALL
            .iter()
            .find(|(_, kind)| *kind == self)
            .map_or("?", |(name, _)| name)
    }

    /// Decides how to misbehave after a line that completed `seen` and
    /// caused `messages` (which it may change), starting a flood thread if
    /// this is the moment for one. `say` gets a line for stderr.
    pub(crate) fn plan(
        self,
        seen: Option<Seen>,
        messages: &mut Vec<Value>,
        state: &mut State,
        flood: (u64, u64),
        say: impl Fn(&str),
    ) -> Plan {
        let mut plan = Plan {
            before: Vec::new(),
            after: Vec::new(),
            then: Then::Continue,
        };
        let first_roots = seen == Some(Seen::RootsAccepted) && !state.fired;
        let say = |what: &str| say(&format!("misbehaving ({}): {what}", self.name()));
        match self {
            Kind::CrashAfterInit if first_roots => {
                say("crashing after the first roots answer");
                plan.then = Then::Crash;
            }
            Kind::ExitOnListChanged if seen == Some(Seen::ListChanged) => {
                say("told the roots changed; exiting with code 4 instead of asking");
                messages.clear();
                plan.then = Then::Exit(EXIT_ON_LIST_CHANGED_CODE);
            }
            Kind::NoInitializeAnswer if seen == Some(Seen::Initialize) => {
                say("not answering initialize");
                messages.clear();
            }
            Kind::StdoutNonJson if seen == Some(Seen::Initialize) => {
                say("writing lines that are not JSON before the initialize answer");
                plan.before = non_json_lines();
            }
            Kind::StdoutNonJson if seen == Some(Seen::RootsAccepted) => {
                say("writing lines that are not JSON after a roots answer");
                plan.after = non_json_lines();
            }
            Kind::StdoutInvalidUtf8 if seen == Some(Seen::Initialize) => {
                say("writing lines that are not UTF-8 before the initialize answer");
                plan.before = invalid_utf8_lines();
            }
            Kind::StdoutInvalidUtf8 if seen == Some(Seen::RootsAccepted) => {
                say("writing lines that are not UTF-8 after a roots answer");
                plan.after = invalid_utf8_lines();
            }
            Kind::StdoutHugeLine if first_roots => {
                say("writing one 50 MB line");
                plan.after = vec![
                    Raw::Bytes(huge_line()),
                    Raw::Message(logging("huge", json!("after the huge line"))),
                ];
            }
            Kind::StdoutNoNewline if first_roots => {
                say("writing a message without its newline, then exiting with code 0");
                plan.after = vec![Raw::Bytes(unterminated_line())];
                plan.then = Then::Exit(0);
            }
            Kind::StdoutWrongTypes if first_roots => {
                say("writing JSON-RPC with wrong types");
                plan.after = wrong_type_lines();
            }
            Kind::StdoutUnknownIds => {
                if first_roots {
                    say("writing responses to requests that were never made");
                    plan.after = unknown_id_lines();
                }
                // Every answer of ours after the handshake is preceded by a
                // forged answer to the client's next request and followed by
                // a duplicate of itself. (During the handshake a client may
                // take any stray response as a broken `initialize` answer.)
                let handshake = seen == Some(Seen::Initialize);
                let answers: Vec<Value> = messages
                    .iter()
                    .filter(|m| !handshake && m.get("result").is_some())
                    .cloned()
                    .collect();
                for answer in answers {
                    if let Some(forged) = answer.get("id").and_then(forged_answer_to_next) {
                        plan.before.push(Raw::Message(forged));
                    }
                    plan.after.push(Raw::Message(answer));
                }
            }
            Kind::RootsBeforeInitialized if seen == Some(Seen::Initialize) => {
                say("asking roots/list before answering initialize, and waiting for its answer");
                state.held = std::mem::take(messages);
                plan.before = vec![Raw::Message(early_roots_request(
                    "before-initialize-answer",
                ))];
            }
            Kind::RootsBeforeInitialized if seen == Some(Seen::Reply) && !state.held.is_empty() => {
                say("answering initialize, then asking roots/list before initialized");
                *messages = std::mem::take(&mut state.held);
                plan.after = vec![Raw::Message(early_roots_request("before-initialized"))];
            }
            Kind::RootsFlood if seen == Some(Seen::Initialized) && !state.fired => {
                say(&format!("sending {} roots/list requests", flood.0));
                start_roots_flood(flood.0);
            }
            Kind::UndeclaredRequests if first_roots => {
                say("sending sampling/createMessage and elicitation/create");
                plan.after = undeclared_requests();
            }
            Kind::StopReadingInput if first_roots => {
                say(&format!(
                    "no longer reading input; sending {} roots/list requests",
                    flood.0
                ));
                start_roots_flood(flood.0);
                plan.then = Then::StopReading;
            }
            Kind::StderrFlood if first_roots => {
                say(&format!("writing {} bytes to stderr", flood.1));
                start_stderr_flood(flood.1);
            }
            _ => return plan,
        }
        if seen == Some(Seen::RootsAccepted) || self == Kind::RootsFlood {
            state.fired = true;
        }
        plan
    }
}
