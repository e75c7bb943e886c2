//! The bridge's router: what to do with each line an AI app or its server
//! writes, as a pure state machine over bytes.
//!
//! Every request that crosses gets an id of the bridge's own on the far
//! side, and the answer is matched back by that id alone, so the two sides'
//! ids never meet: an app that reuses ids, picks ids the server uses, or
//! answers a request nobody sent cannot reach the server with it. In
//! particular an app can never answer the server's `roots/list`: those are
//! answered beneath the router by the session's wire, from consent, and the
//! app is never asked. The app's `initialize` is passed on with
//! `roots.listChanged: true` in place of whatever the app declared; its own
//! roots (and `notifications/roots/list_changed`) never reach the server and
//! become suggestions instead. Sampling and elicitation from the server go
//! to the app only when it declared them.
//!
//! For a server or an app of the 2026-07-28 era the router translates
//! (`modern` for a modern server, `modern_app` for a modern app): the
//! opening, the per-request `_meta`, and the input rounds, whose roots are
//! answered from consent as everywhere else.
//!
//! Payloads (`params`, `result`, `error`) are kept as the raw JSON they came
//! as and copied, not decoded, so a megabyte result costs one scan and one
//! copy. Nothing here does I/O, waits, or knows about processes: the relay
//! (`bridge::relay`) reads and writes, and records what the router reports.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::time::Instant;

mod app;
mod envelope;
mod keys;
mod lines;
mod modern;
mod modern_app;
pub(crate) mod mux;
mod resend;
mod server;
mod strict;
mod subscriptions;
mod tools;
pub use strict::MAX_DEPTH;

use envelope::{Message, Raw};
pub(crate) use lines::depends_on_folders;
use lines::*;
pub use resend::request_id;

/// The most app requests that may wait for the server at once; more are
/// refused until some are answered, so a flood costs a bounded table.
pub const MAX_IN_FLIGHT: usize = 10_000;

/// What the app declared it can do, as far as the bridge needs to know.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppCapabilities {
    pub roots: bool,
    pub(crate) sampling: bool,
    pub elicitation: bool,
}

/// Who the app is, from its `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppInfo {
    pub name: String,
    pub version: String,
    pub protocol_version: String,
    pub capabilities: AppCapabilities,
}

/// What the relay should do, in order.
#[derive(Debug, PartialEq)]
pub enum Out {
    /// Write this line to the server.
    Server(Vec<u8>),
    /// The server asked `roots/list` (request id as JSON text): the wire
    /// answers it from consent; the app never sees it.
    RootsList(Box<str>),
    /// Write this line to the app.
    App(Vec<u8>),
    /// The app's `initialize` arrived: the server may be initialized now.
    AppInitialized,
    /// The server answered an `initialize` of the bridge's own (a restart's
    /// replay): its `result`, or the error.
    ServerInitialized(Result<Value, String>),
    /// The app's roots, as it listed them: suggestions for the person.
    AppRoots(Vec<String>),
    /// An app request was answered (or cancelled), for the timeline.
    Call(Call),
    /// The server asked for something the app did not declare; it got the
    /// JSON-RPC error.
    Refused(String),
    /// A modern server asked for its roots (input request `key`) while
    /// handling an app call, and the retry carries exactly `roots`.
    Round {
        method: String,
        target: Option<String>,
        key: String,
        generation: u64,
        roots: std::sync::Arc<[rootgate_model::consent::SharedRoot]>,
    },
    /// A modern server asked for input that cannot be given; the app's call
    /// ended with an error that says so.
    InputNotOffered {
        method: String,
        target: Option<String>,
        key: String,
        asked: String,
    },
    /// Something was dropped or refused, in words, for the log.
    Note(String),
    /// An app's tool call waits for the person's answer (see `tools`):
    /// the relay asks, and brings the answer back (`Router::answer_ask`).
    Ask(Box<crate::connections::ToolAsk>),
    /// The call of that key (its id as JSON text) waits no more.
    AskGone(String),
    /// What a `tools/list` answer showed of the tools, for the settings
    /// (to notice one that changed).
    ToolsSeen(std::collections::BTreeMap<String, rootgate_model::tools::ToolSeen>),
}

/// One finished app request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub method: String,
    /// The tool, prompt or resource it named, if any.
    pub target: Option<String>,
    pub duration: Duration,
    /// "ok", "error -32602: ...", or "cancelled".
    pub outcome: String,
    /// Who let a tool call through, in words, when the rules looked at it
    /// ("allowed once by you, in the window, after 2140 ms").
    pub consent: Option<String>,
    /// The request's size and its answer's, in bytes (0: none passed).
    pub bytes_in: u64,
    pub bytes_out: u64,
}

/// An app request waiting for the server.
struct Pending {
    /// Its id as the app wrote it.
    app_id: Box<str>,
    method: String,
    target: Option<String>,
    started: Instant,
    /// For a modern server's calls: what is needed to send it again with
    /// the answers to the input it asks for. Boxed: it holds the whole
    /// request, and a pending call is moved around as an error value.
    retry: Option<Box<modern::Retry>>,
    /// Who let it through, when the tool rules looked at it (boxed: a
    /// pending call is moved around as an error value).
    consent: Option<Box<str>>,
    /// The app's request line's size, and the answer's once sent.
    bytes_in: u64,
    bytes_out: u64,
}

impl Pending {
    /// The call's record for the timeline, as it ends now with `outcome`.
    fn ended(self, now: Instant, outcome: String) -> Out {
        Out::Call(Call {
            method: self.method,
            target: self.target,
            duration: now.saturating_duration_since(self.started),
            outcome,
            consent: self.consent.map(String::from),
            bytes_in: self.bytes_in,
            bytes_out: self.bytes_out,
        })
    }

    /// The app's error for the call, with `why` in words, and its record.
    fn failed(self, now: Instant, why: &str) -> [Out; 2] {
        let line = error_line(&self.app_id, -32603, why);
        [
            Out::App(line),
            // Rootgate's own words, in the one form the record keeps
            // (a server's message is never written down).
            self.ended(
                now,
                format!("error -32603{}{why}", rootgate_model::calls::ROOTGATE_ERROR),
            ),
        ]
    }
}

enum ToServer {
    /// An app request.
    App(Pending),
    /// The `initialize` forwarded for the app (the first life): its answer
    /// goes to the app.
    FirstInitialize { app_id: Box<str> },
    /// The opening for a modern app whose first message was a request, not
    /// `server/discover` (the era is stateless: it need not ask): the
    /// answer is kept, and goes to nobody.
    ImplicitOpen,
    /// An `initialize` of the bridge's own, after a restart.
    ReplayInitialize,
    /// Another request of the bridge's own (a replayed subscription or
    /// logging level): its answer is dropped.
    Own,
}

enum ToApp {
    /// A server request passed on: its id as the server wrote it.
    Server { server_id: Box<str> },
    /// The bridge's own `roots/list`, for suggestions.
    Roots,
    /// Input a modern server asked for in round `round` of an app call,
    /// under `key`.
    Input { round: u64, key: String },
}

enum Init {
    /// No `initialize` from the app yet.
    Waiting,
    /// The app's `initialize`: its id (until answered) and params.
    Received {
        app_id: Option<Box<str>>,
        params: Map<String, Value>,
    },
}

/// The router of one bridge connection.
pub struct Router {
    init: Init,
    app: AppInfo,
    to_server: HashMap<u64, ToServer>,
    /// App request ids in flight, to the bridge's id for them (for the
    /// app's cancellations).
    app_ids: HashMap<Box<str>, u64>,
    next_server_id: u64,
    to_app: HashMap<u64, ToApp>,
    /// Server request ids passed on to the app, to the bridge's id.
    server_ids: HashMap<Box<str>, u64>,
    next_app_id: u64,
    /// Replayed after a restart: the last logging level asked for, and the
    /// resources subscribed to (those the server accepted).
    log_level: Option<Box<RawValue>>,
    subscriptions: subscriptions::Subscriptions,
    /// The era of the server of the current life (see `modern`).
    era: rootgate_model::servers::Era,
    /// That era is a guess: a refused opening is kept for the next life
    /// (see `modern::hold_refused_opening`).
    era_guessed: bool,
    /// The consented list as it is now, for a modern server's rounds.
    roots: rootgate_model::consent::SharedRoots,
    /// Rounds waiting for the app's answers, by the round's id.
    rounds: HashMap<u64, modern::Round>,
    /// The app opened with `server/discover`: it speaks the modern era
    /// (see `modern_app`).
    app_modern: bool,
    /// The discover result a modern app was given, for when it asks again.
    discovered: Option<Value>,
    /// A modern app opened with a request: the first opening sent to the
    /// server answers nobody.
    implicit_open: bool,
    /// That request, held until the server's era is known and it is open:
    /// its id (JSON text), method and params.
    deferred: Option<(Box<RawValue>, String, Option<Box<RawValue>>)>,
    /// Set while the server's current life may not have its first folders
    /// yet: the next app request that depends on folders is held (see
    /// [`Router::take_hold`]).
    hold_armed: bool,
    /// That request, in words, for the relay to hold.
    hold: Option<String>,
    /// The person's rules for the server's tools (see `tools`).
    rules: rootgate_model::tools::ToolRules,
    /// What each tool's annotations claimed, as last listed.
    claims: HashMap<String, tools::Claims>,
    /// Each listed tool's fingerprint (see `ToolSeen`), as last listed.
    live: HashMap<String, String>,
    /// The listed tools that differ from what the settings last saw.
    unseen_changes: BTreeSet<String>,
    /// The app's tool calls that wait for the person, by id (JSON text).
    asked: HashMap<Box<str>, tools::Parked>,
    /// Who let the request being routed now through, for its record (set
    /// by the rules' judgement, taken by the request's `Pending`).
    next_consent: Option<String>,
    /// The size of the app's line being routed now, for its record.
    in_bytes: u64,
    /// The app's requests not yet put on a life's wire, the lines of those
    /// that only read, and those to send again to the next life (see
    /// `resend`).
    unhanded: std::collections::HashSet<u64>,
    again: HashMap<u64, Vec<u8>>,
    resend: Vec<u64>,
}

impl Default for Router {
    fn default() -> Self {
        Router::new()
    }
}

impl Router {
    pub fn new() -> Router {
        Router {
            init: Init::Waiting,
            app: AppInfo::default(),
            to_server: HashMap::new(),
            app_ids: HashMap::new(),
            next_server_id: 1,
            to_app: HashMap::new(),
            server_ids: HashMap::new(),
            next_app_id: 1,
            log_level: None,
            subscriptions: subscriptions::Subscriptions::default(),
            era: rootgate_model::servers::Era::Legacy,
            era_guessed: false,
            roots: rootgate_model::consent::SharedRoots::empty(),
            rounds: HashMap::new(),
            app_modern: false,
            discovered: None,
            implicit_open: false,
            deferred: None,
            // Armed from the start: an app that skips `initialized` and
            // sends its first call at once is held as well.
            hold_armed: true,
            hold: None,
            rules: rootgate_model::tools::ToolRules::default(),
            claims: HashMap::new(),
            live: HashMap::new(),
            unseen_changes: BTreeSet::new(),
            asked: HashMap::new(),
            next_consent: None,
            in_bytes: 0,
            unhanded: std::collections::HashSet::new(),
            again: HashMap::new(),
            resend: Vec::new(),
        }
    }

    /// A new server life starts: its first app request that depends on
    /// folders is to be held until the server has them.
    pub(crate) fn arm_hold(&mut self) {
        self.hold_armed = true;
        self.hold = None;
    }

    /// Whether the router answers rounds from the consented list (a modern
    /// server's), so the relay need only hand it the list then.
    pub(crate) fn uses_roots(&self) -> bool {
        self.modern()
    }

    /// The hold is over for this life: requests go at once.
    pub(crate) fn release_hold(&mut self) {
        self.hold_armed = false;
    }

    /// The request the last line made, in words, if it must wait for the
    /// server's first folders before it is written.
    pub(crate) fn take_hold(&mut self) -> Option<String> {
        self.hold.take()
    }

    /// Who the app is, once its `initialize` arrived.
    pub fn app(&self) -> Option<&AppInfo> {
        matches!(self.init, Init::Received { .. }).then_some(&self.app)
    }

    /// Whether the bridge asked the app for its roots and has no answer
    /// yet: what it works in is about to be known.
    pub(crate) fn awaiting_app_roots(&self) -> bool {
        self.to_app.values().any(|t| matches!(t, ToApp::Roots))
    }

    /// How many app requests wait for the server.
    pub fn in_flight(&self) -> usize {
        self.app_ids.len()
    }

    /// What to do with one line the app wrote (without its newline).
    pub fn from_app(&mut self, line: &[u8], now: Instant) -> Vec<Out> {
        self.in_bytes = line.len() as u64;
        // JSON is UTF-8, and what passes on unchanged must be too: serde
        // does not look inside the strings of fields it skips.
        let text = match std::str::from_utf8(line) {
            Ok(text) => text,
            Err(e) => {
                return vec![Out::App(error_line(
                    "null",
                    -32700,
                    &format!("Parse error: the line is not UTF-8 ({e})"),
                ))];
            }
        };
        // One reading: a line two readers could read apart (a key twice,
        // or nesting the server may not parse) is refused whole, before
        // anything of it is read (see `strict`).
        let checked = strict::check(text);
        if let Err(refusal @ (strict::Refusal::Duplicate { .. } | strict::Refusal::TooDeep)) =
            &checked
        {
            let words = refusal.words();
            let mut out = vec![
                Out::App(error_line(strict::answerable_id(text), -32600, &words)),
                Out::Note(format!("the app's message was refused: {words}")),
            ];
            out.extend(strict::answered_id(text).and_then(|id| self.answer_refused(id, &words)));
            return out;
        }
        // Parsed from the checked text: serde then does not check the
        // strings and the raw payload for UTF-8 a second time (a megabyte
        // result was checked twice).
        let message: Message = match (envelope::parse(text), checked) {
            (Ok(m), Ok(())) => m,
            (Err(e), _) => {
                return vec![Out::App(error_line(
                    "null",
                    -32700,
                    &format!("Parse error: {e}"),
                ))];
            }
            // The walk and serde agree on what is JSON (the tests hold
            // them to it); were they ever to differ, nothing unwalked
            // passes on.
            (Ok(_), Err(refusal)) => {
                return vec![Out::App(error_line("null", -32700, &refusal.words()))];
            }
        };
        if message.jsonrpc.as_deref() != Some("2.0") {
            // Not JSON-RPC 2.0: nothing passes on. A request is told so;
            // anything else has no one to tell.
            return match message.id {
                Some(id) if message.method.is_some() => vec![Out::App(error_line(
                    id.get(),
                    -32600,
                    "Invalid Request: \"jsonrpc\" must be \"2.0\"",
                ))],
                _ => vec![Out::Note(format!(
                    "the app wrote a message that is not JSON-RPC 2.0; dropped: {}",
                    excerpt(line)
                ))],
            };
        }
        match (&message.method, message.id) {
            (Some(method), Some(id)) => self.app_request(method, id, message.params, now),
            (Some(method), None) => self.app_notification(method, message.params, line, now),
            (None, Some(id)) => self.app_response(id, message.result, message.error, now),
            (None, None) => vec![Out::App(error_line(
                "null",
                -32600,
                "Invalid Request: neither a method nor an id",
            ))],
        }
    }

    /// What to do with one line the server wrote (without its newline).
    /// A `roots/list` is handed back as [`Out::RootsList`], for the wire to
    /// answer.
    pub fn from_server(&mut self, line: &[u8], now: Instant) -> Vec<Out> {
        let Ok(text) = std::str::from_utf8(line) else {
            return vec![Out::Note(
                "the server wrote a line that is not UTF-8; dropped".into(),
            )];
        };
        let message: Message = match envelope::parse(text) {
            Ok(m) => m,
            Err(e) => {
                return vec![Out::Note(format!(
                    "the server wrote a line that is not JSON ({e}); dropped"
                ))];
            }
        };
        if message.jsonrpc.as_deref() != Some("2.0") {
            return vec![Out::Note(format!(
                "the server wrote a message that is not JSON-RPC 2.0; dropped: {}",
                excerpt(line)
            ))];
        }
        match (&message.method, message.id) {
            (Some(method), Some(id)) => self.server_request(method, id, message.params),
            (Some(method), None) => self.server_notification(method, message.params, line),
            (None, Some(id)) => self.server_response(id, message.result, message.error, now),
            (None, None) => vec![Out::Note(format!(
                "the server wrote a message with neither a method nor an id; dropped: {}",
                excerpt(line)
            ))],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(out: &Out) -> String {
        match out {
            Out::Server(line) | Out::App(line) => {
                String::from_utf8_lossy(line).trim_end().to_owned()
            }
            other => format!("{other:?}"),
        }
    }

    fn json_of(out: &Out) -> Value {
        match out {
            Out::Server(line) | Out::App(line) => serde_json::from_slice(line).unwrap(),
            other => panic!("not a line: {other:?}"),
        }
    }

    fn initialized(router: &mut Router, capabilities: Value) {
        let now = Instant::now();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "app", "version": "9"}}});
        assert_eq!(
            router.from_app(init.to_string().as_bytes(), now),
            vec![Out::AppInitialized]
        );
        let sent = router.initialize_for_server().unwrap();
        let sent: Value = serde_json::from_slice(&sent).unwrap();
        let answer = json!({"jsonrpc": "2.0", "id": sent["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
        let outs = router.from_server(answer.to_string().as_bytes(), now);
        assert_eq!(json_of(&outs[0])["id"], 0, "the app's own id: {outs:?}");
        assert!(matches!(outs[1], Out::ServerInitialized(Ok(_))));
    }

    #[test]
    fn a_request_crosses_with_an_id_of_the_bridge_and_its_answer_comes_back_with_the_apps() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        let outs = router.from_app(
            br#"{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"grep","arguments":{"q":1}}}"#,
            now,
        );
        let sent = json_of(&outs[0]);
        assert!(matches!(outs[0], Out::Server(_)));
        assert_ne!(sent["id"], "abc");
        assert_eq!(sent["params"]["arguments"]["q"], 1);
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[]}}}}"#,
            sent["id"]
        );
        let outs = router.from_server(answer.as_bytes(), now + Duration::from_millis(7));
        assert_eq!(
            text(&outs[0]),
            r#"{"jsonrpc":"2.0","id":"abc","result":{"content":[]}}"#
        );
        let Out::Call(call) = &outs[1] else {
            panic!("{outs:?}")
        };
        assert_eq!(
            (call.method.as_str(), call.target.as_deref()),
            ("tools/call", Some("grep"))
        );
        assert_eq!(call.duration, Duration::from_millis(7));
        assert_eq!(call.outcome, "ok");
        assert_eq!(router.in_flight(), 0);
    }

    #[test]
    fn the_first_request_that_depends_on_folders_is_marked_for_the_hold_once_per_life() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        let send = |router: &mut Router, id: u32, method: &str, params: Value| {
            let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            let outs = router.from_app(line.to_string().as_bytes(), now);
            assert!(matches!(outs[0], Out::Server(_)), "{outs:?}");
            router.take_hold()
        };
        for (id, method) in [(1, "ping"), (2, "tools/list"), (3, "prompts/list")] {
            assert_eq!(send(&mut router, id, method, json!({})), None, "{method}");
        }
        let read = json!({"name": "read_text_file", "arguments": {"path": "/a"}});
        assert_eq!(
            send(&mut router, 4, "tools/call", read.clone()).as_deref(),
            Some("tools/call “read_text_file”")
        );
        router.release_hold();
        assert_eq!(send(&mut router, 5, "tools/call", read.clone()), None);
        assert_eq!(send(&mut router, 6, "resources/list", json!({})), None);
        // A new life has no folders either.
        router.arm_hold();
        assert_eq!(
            send(&mut router, 7, "resources/list", json!({})).as_deref(),
            Some("resources/list")
        );
    }

    #[test]
    fn the_apps_initialize_goes_on_with_rootgates_roots_and_its_own_kept_from_the_server() {
        let mut router = Router::new();
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":false},"sampling":{}},"clientInfo":{"name":"Claude Code","version":"2.1"}}}"#;
        assert_eq!(
            router.from_app(init, Instant::now()),
            vec![Out::AppInitialized]
        );
        let app = router.app().unwrap();
        assert_eq!(
            (app.name.as_str(), app.version.as_str()),
            ("Claude Code", "2.1")
        );
        assert!(
            app.capabilities.roots && app.capabilities.sampling && !app.capabilities.elicitation
        );
        let sent: Value = serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
        assert_eq!(sent["method"], "initialize");
        assert_eq!(
            sent["params"]["capabilities"]["roots"],
            json!({"listChanged": true})
        );
        assert_eq!(sent["params"]["capabilities"]["sampling"], json!({}));
        assert_eq!(sent["params"]["protocolVersion"], "2025-06-18");
        // Claude Desktop declares no capabilities at all: roots are still Rootgate's.
        let mut router = Router::new();
        router.from_app(
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            Instant::now(),
        );
        let sent: Value = serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
        assert_eq!(
            sent["params"]["capabilities"]["roots"],
            json!({"listChanged": true})
        );
    }

    #[test]
    fn notifications_pass_unchanged_as_whole_lines() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let progress = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#;
        assert_eq!(
            router.from_server(progress, Instant::now()),
            vec![Out::App([progress.as_slice(), b"\n"].concat())]
        );
        let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(
            router.from_app(initialized, Instant::now())[0],
            Out::Server([initialized.as_slice(), b"\n"].concat())
        );
    }

    #[test]
    fn the_servers_roots_list_never_reaches_the_app() {
        let mut router = Router::new();
        initialized(&mut router, json!({"roots": {"listChanged": true}}));
        let outs = router.from_server(
            br#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#,
            Instant::now(),
        );
        assert_eq!(outs, vec![Out::RootsList("0".into())]);
    }

    #[test]
    fn an_app_cannot_answer_a_request_it_was_never_sent() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        // The server's roots/list has id 0; an app that answers "id 0" with
        // roots of its own reaches nobody.
        for forged in [
            br#"{"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///"}]}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":"0","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":99,"error":{"code":1,"message":"x"}}"#,
        ] {
            let outs = router.from_app(forged, Instant::now());
            assert!(outs.iter().all(|o| matches!(o, Out::Note(_))), "{outs:?}");
        }
    }

    #[test]
    fn the_apps_roots_become_suggestions_and_its_list_changed_stays_with_the_bridge() {
        let mut router = Router::new();
        initialized(&mut router, json!({"roots": {"listChanged": true}}));
        let outs = router.from_app(
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            Instant::now(),
        );
        assert!(matches!(outs[0], Out::Server(_)));
        let ask = json_of(&outs[1]);
        assert_eq!(ask["method"], "roots/list");
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"roots":[{{"uri":"file:///home/me/app","name":"app"}}]}}}}"#,
            ask["id"]
        );
        assert_eq!(
            router.from_app(answer.as_bytes(), Instant::now()),
            vec![Out::AppRoots(vec!["file:///home/me/app".into()])]
        );
        let outs = router.from_app(
            br#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
            Instant::now(),
        );
        assert_eq!(outs.len(), 1);
        assert_eq!(
            json_of(&outs[0])["method"],
            "roots/list",
            "asked again, not passed on"
        );
    }

    #[test]
    fn sampling_goes_to_the_app_only_when_it_declared_it() {
        let mut router = Router::new();
        initialized(&mut router, json!({"sampling": {}}));
        let outs = router.from_server(
            br#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5}}"#,
            Instant::now(),
        );
        let asked = json_of(&outs[0]);
        assert!(matches!(outs[0], Out::App(_)));
        assert_eq!(asked["params"]["maxTokens"], 5);
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"role":"assistant"}}}}"#,
            asked["id"]
        );
        let outs = router.from_app(answer.as_bytes(), Instant::now());
        assert_eq!(
            text(&outs[0]),
            r#"{"jsonrpc":"2.0","id":7,"result":{"role":"assistant"}}"#
        );
        // Elicitation was not declared: the server gets "method not found".
        let outs = router.from_server(
            br#"{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{}}"#,
            Instant::now(),
        );
        assert!(matches!(&outs[0], Out::Server(_)));
        assert_eq!(json_of(&outs[0])["error"]["code"], -32601);
        assert_eq!(outs[1], Out::Refused("elicitation/create".into()));
    }

    #[test]
    fn cancellation_is_passed_on_with_the_bridges_id_and_ends_the_call() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        let sent = json_of(
            &router.from_app(
                br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}"#,
                now,
            )[0],
        );
        let outs = router.from_app(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}"#,
            now,
        );
        let cancel = json_of(&outs[0]);
        assert_eq!(cancel["params"]["requestId"], sent["id"]);
        assert_eq!(cancel["params"]["reason"], "user");
        assert!(matches!(&outs[1], Out::Call(c) if c.outcome == "cancelled"));
        // A late answer is dropped, and the id may be used again.
        let late = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, sent["id"]);
        assert!(matches!(
            router.from_server(late.as_bytes(), now)[0],
            Out::Note(_)
        ));
        assert!(matches!(
            router.from_app(br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#, now)[0],
            Out::Server(_)
        ));
    }

    #[test]
    fn garbage_and_misuse_get_errors_and_cost_nothing() {
        let mut router = Router::new();
        let now = Instant::now();
        for (line, code) in [
            (b"not json".as_slice(), -32700),
            (b"\xff\xfe{}", -32700),
            (br#"{"jsonrpc":"2.0"}"#, -32600),
            (br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, -32600),
        ] {
            let outs = router.from_app(line, now);
            assert_eq!(
                json_of(&outs[0])["error"]["code"],
                code,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(
            json_of(&router.from_app(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, now)[0])["result"],
            json!({})
        );
        initialized(&mut router, json!({}));
        let again = router.from_app(
            br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}"#,
            now,
        );
        assert_eq!(json_of(&again[0])["error"]["code"], -32600);
        // The same id twice while the first is in flight.
        router.from_app(br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#, now);
        let twice = router.from_app(br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#, now);
        assert_eq!(json_of(&twice[0])["error"]["code"], -32600);
        assert_eq!(router.in_flight(), 1);
    }

    #[test]
    fn only_json_rpc_2_0_passes_either_way() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        let request = router.from_app(br#"{"jsonrpc":"1.0","id":4,"method":"tools/list"}"#, now);
        assert_eq!(json_of(&request[0])["error"]["code"], -32600);
        assert_eq!(json_of(&request[0])["id"], 4);
        let sneaky = br#"{"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{}}}"#;
        assert!(matches!(router.from_app(sneaky, now)[..], [Out::Note(_)]));
        for line in [
            br#"{"jnporsc":"2.0","method":"notifications/cancelled"}"#.as_slice(),
            br#"{"method":"notifications/initialized"}"#,
        ] {
            assert!(matches!(router.from_app(line, now)[..], [Out::Note(_)]));
            assert!(matches!(router.from_server(line, now)[..], [Out::Note(_)]));
        }
    }

    #[test]
    fn a_line_that_is_not_utf_8_never_passes_on() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        // serde skips the unknown field without looking at its bytes.
        let line = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"junk\":\"\xf2\xf2\"}";
        assert!(matches!(router.from_server(line, now)[..], [Out::Note(_)]));
        assert_eq!(
            json_of(&router.from_app(line, now)[0])["error"]["code"],
            -32700
        );
    }

    #[test]
    fn a_flood_of_requests_is_bounded() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        for i in 0..MAX_IN_FLIGHT {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/list"}}"#);
            assert!(matches!(
                router.from_app(line.as_bytes(), now)[0],
                Out::Server(_)
            ));
        }
        let over = router.from_app(
            br#"{"jsonrpc":"2.0","id":"over","method":"tools/list"}"#,
            now,
        );
        assert_eq!(json_of(&over[0])["error"]["code"], -32000);
        assert_eq!(router.in_flight(), MAX_IN_FLIGHT);
    }

    #[test]
    fn when_the_server_goes_every_waiting_request_gets_an_error_and_a_restart_is_replayed() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        router.from_app(
            br#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}"#,
            now,
        );
        // A subscription the server accepted is replayed; one it refused
        // is not.
        for (id, uri, answer) in [
            (2, "file:///a", json!({"result": {}})),
            (
                4,
                "file:///b",
                json!({"error": {"code": -32602, "message": "no"}}),
            ),
        ] {
            let sent = router.from_app(
                json!({"jsonrpc": "2.0", "id": id, "method": "resources/subscribe",
                                              "params": {"uri": uri}})
                .to_string()
                .as_bytes(),
                now,
            );
            let mut answer = answer;
            answer["jsonrpc"] = json!("2.0");
            answer["id"] = json_of(&sent[0])["id"].clone();
            router.from_server(answer.to_string().as_bytes(), now);
        }
        router.from_app(
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}"#,
            now,
        );
        let outs = router.server_gone("restarted", now);
        let errors: Vec<Value> = outs
            .iter()
            .filter(|o| matches!(o, Out::App(_)))
            .map(json_of)
            .collect();
        assert_eq!(
            errors.iter().map(|e| e["id"].clone()).collect::<Vec<_>>(),
            [json!(1), json!(3)]
        );
        assert!(errors.iter().all(|e| e["error"]["message"] == "restarted"));
        assert_eq!(router.in_flight(), 0);
        // The next life gets the app's initialize again, as the bridge's own.
        let init: Value = serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
        let answer = json!({"jsonrpc": "2.0", "id": init["id"], "result": {"protocolVersion": "2025-11-25"}});
        let outs = router.from_server(answer.to_string().as_bytes(), now);
        assert_eq!(outs.len(), 1, "nothing for the app: {outs:?}");
        let replay: Vec<Value> = router
            .replay()
            .iter()
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        let methods: Vec<&str> = replay
            .iter()
            .map(|m| m["method"].as_str().unwrap())
            .collect();
        assert_eq!(
            methods,
            [
                "notifications/initialized",
                "logging/setLevel",
                "resources/subscribe"
            ]
        );
        assert_eq!(replay[2]["params"]["uri"], "file:///a");
    }
}
