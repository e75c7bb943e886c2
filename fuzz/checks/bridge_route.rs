//! Invariants of the bridge's framing and routing (`bridge::relay::Lines`
//! and `bridge::route::Router`), for any bytes an AI app and its server
//! write, interleaved in any way. Shared by the cargo-fuzz target
//! `bridge_route` and the core's corpus replay test.
//!
//! The input is a sequence of records: one byte (its lowest bit: from the
//! app or from the server), two bytes of length (little-endian), and that
//! many bytes of stream, which may hold any number of lines, parts of lines
//! or garbage. Each side's bytes are cut into lines by the bridge's own
//! line reader and routed in the order the records come.
//!
//! What must hold, whatever the bytes:
//! - the line reader gives exactly the input's non-blank lines (without
//!   their `\r\n`), each no longer than the limit, and nothing else;
//! - every line the router writes to either side is one JSON-RPC 2.0
//!   message on one line;
//! - the server never gets a response to its `roots/list` but from the
//!   wire (the router hands each one back as `RootsList` with the server's
//!   own id, and never writes a response with such an id to the server);
//! - the server never gets a response the app made up: every response it
//!   gets answers a request it sent and that was passed on to the app;
//! - an `initialize` the server gets declares `roots: {listChanged: true}`;
//! - to a modern-era server (inputs of odd length; the era does not take a
//!   byte, so the corpus means what it meant), every request carries the
//!   modern `_meta` with Rootgate's `roots: {}`, and a round's retry is
//!   answered with the consented list (empty here), never the app's;
//! - requests in flight stay within the bound, and nothing panics.

use std::collections::{HashMap, HashSet};

use rootgate_bridge::relay::{Line, Lines};
use rootgate_bridge::route::{MAX_IN_FLIGHT, Out, Router};
use rootgate_model::servers::Era;
use serde_json::Value;

/// The longest line the reader keeps (a record is shorter, so every line
/// here is kept whole).
const MAX_LINE: usize = rootgate_bridge::relay::MAX_LINE;

fn lines_of(bytes: &[u8]) -> Vec<Vec<u8>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let mut reader = Lines::new(bytes);
        let mut out = Vec::new();
        loop {
            match reader.next().await {
                Ok(Some(Line::Whole)) => out.push(reader.line().to_vec()),
                Ok(Some(Line::TooLong(n))) => {
                    assert!(n > MAX_LINE, "a line of {n} bytes called too long");
                }
                Ok(None) => return out,
                Err(e) => panic!("reading bytes from memory failed: {e}"),
            }
        }
    })
}

/// The non-blank lines of `bytes`, as the protocol's framing defines them.
fn expected_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .map(<[u8]>::to_vec)
        .collect()
}

fn one_message(line: &[u8], to: &str) -> Value {
    assert_eq!(
        line.last(),
        Some(&b'\n'),
        "a line to the {to} ends with its newline"
    );
    let body = &line[..line.len() - 1];
    assert!(
        !body.contains(&b'\n'),
        "one line to the {to} holds one message"
    );
    let message: Value = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("the {to} got a line that is not JSON ({e})"));
    assert_eq!(message["jsonrpc"], "2.0", "the {to} got {message}");
    assert!(
        message.get("method").is_some() || message.get("id").is_some(),
        "the {to} got a message with neither a method nor an id: {message}"
    );
    message
}

#[derive(Default)]
struct Watch {
    /// Ids (as JSON text) of `roots/list` requests the server sent.
    server_roots_ids: HashSet<String>,
    /// Ids of other requests the server sent, to the count of them.
    server_requests: HashMap<String, usize>,
    /// The server is of the modern era.
    modern: bool,
}

pub fn check(data: &[u8]) {
    let mut router = Router::new();
    let mut watch = Watch {
        modern: data.len() % 2 == 1,
        ..Watch::default()
    };
    // Nothing is consented here: any root in a round's answer came from
    // somewhere it must not.
    if watch.modern {
        router.set_server_era(Era::Modern);
    }
    let mut rest = data;
    let now = tokio::time::Instant::now();
    while rest.len() >= 3 {
        let from_app = rest[0] & 1 == 0;
        let len = usize::from(u16::from_le_bytes([rest[1], rest[2]])).min(rest.len() - 3);
        let chunk = &rest[3..3 + len];
        rest = &rest[3 + len..];
        let lines = lines_of(chunk);
        assert_eq!(
            lines,
            expected_lines(chunk),
            "the line reader cut the stream wrongly"
        );
        for line in lines {
            let outs = if from_app {
                router.from_app(&line, now)
            } else {
                let parsed: Option<Value> = serde_json::from_slice(&line).ok();
                if let Some(m) = &parsed
                    && let (Some(method), Some(id)) =
                        (m.get("method").and_then(Value::as_str), m.get("id"))
                    && !id.is_null()
                {
                    if method == "roots/list" {
                        watch.server_roots_ids.insert(id.to_string());
                    } else {
                        *watch.server_requests.entry(id.to_string()).or_insert(0) += 1;
                    }
                }
                router.from_server(&line, now)
            };
            for out in &outs {
                observe(out, &mut watch);
            }
            assert!(router.in_flight() <= MAX_IN_FLIGHT);
        }
    }
    if let Some(line) = router.initialize_for_server() {
        let message = one_message(&line, "server");
        if watch.modern {
            assert_eq!(message["method"], "server/discover");
        } else {
            assert_eq!(
                message["params"]["capabilities"]["roots"],
                serde_json::json!({"listChanged": true})
            );
        }
    }
    for out in router.server_gone("gone", now) {
        observe(&out, &mut watch);
    }
}

fn observe(out: &Out, watch: &mut Watch) {
    match out {
        Out::Server(line) => {
            let message = one_message(line, "server");
            if message.get("method").is_none() {
                let id = message["id"].to_string();
                assert!(
                    !watch.server_roots_ids.contains(&id)
                        || watch.server_requests.contains_key(&id),
                    "the server got a response to its roots/list {id} from the router: {message}"
                );
                assert!(
                    watch.server_requests.contains_key(&id),
                    "the server got a response to request {id}, which it never sent: {message}"
                );
            }
            if message["method"] == "initialize" {
                assert!(!watch.modern, "a modern server got initialize: {message}");
                assert_eq!(
                    message["params"]["capabilities"]["roots"],
                    serde_json::json!({"listChanged": true})
                );
            }
            if watch.modern && message.get("method").is_some() && message.get("id").is_some() {
                let meta = &message["params"]["_meta"];
                assert_eq!(
                    meta["io.modelcontextprotocol/clientCapabilities"]["roots"],
                    serde_json::json!({}),
                    "a modern request without Rootgate's roots: {message}"
                );
                assert_eq!(
                    meta["io.modelcontextprotocol/protocolVersion"],
                    "2026-07-28"
                );
                if let Some(answers) = message["params"]["inputResponses"].as_object() {
                    for answer in answers.values() {
                        if let Some(roots) = answer.get("roots").and_then(Value::as_array) {
                            assert!(
                                roots.is_empty(),
                                "a round was answered with roots that are not consented: {message}"
                            );
                        }
                    }
                }
            }
        }
        Out::App(line) => {
            one_message(line, "app");
        }
        Out::RootsList(id) => {
            assert!(
                watch.server_roots_ids.contains(id.as_ref()),
                "a roots/list the server never sent: {id}"
            );
        }
        _ => {}
    }
}
