//! In-memory protocol tests of `RootsClient`, the rmcp client handler of one
//! session: rmcp serves it over one end of a `tokio::io::duplex` pipe, and a
//! fake server on the other end reads and writes newline-delimited JSON by
//! hand, so every test asserts the exact messages that go on the wire.
//!
//! These tests deliberately start no child process and no session actor:
//! when to notify, when to restart and what the timeline records belong to
//! the session tests with real servers. The lists the handler answers with
//! come from the real `Store`, because `SharedRoots` can only be built from
//! granted roots.

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::service::{RoleClient, RunningService};
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerDraft;
use rootgate_model::uri::path_to_uri;
use rootgate_session::protocol::RootsClient;
use rootgate_session::wire::{HandlerEvent, Wire};
use rootgate_test_support::harness::Harness;
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use tokio::sync::mpsc;

/// How long any single read may take. Everything here is in memory, so a
/// message that has not arrived by then is never coming.
const READ: Duration = Duration::from_secs(5);

/// The server end of the pipe, driven by hand.
struct FakeServer {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
}

impl FakeServer {
    /// The next message the client wrote, parsed.
    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(READ, self.lines.next_line())
            .await
            .expect("the client sent nothing in time")
            .expect("reading from the pipe failed")
            .expect("the client closed the pipe");
        serde_json::from_str(&line).expect("the client wrote a line that is not JSON")
    }

    /// Writes one message as a single line, as a stdio server does.
    async fn send(&mut self, message: Value) {
        let mut line = serde_json::to_string(&message).expect("serialise message");
        line.push('\n');
        self.writer
            .write_all(line.as_bytes())
            .await
            .expect("writing to the pipe failed");
        self.writer.flush().await.expect("flushing the pipe failed");
    }

    /// Sends a request with no params, exactly as the npm filesystem server
    /// sends `roots/list`, and returns the client's reply to it.
    async fn ask(&mut self, id: u64, method: &str) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method}))
            .await;
        self.reply_to(id).await
    }

    /// The client's reply to request `id`. The client sends nothing else on
    /// its own in these tests, so anything else is a failure.
    async fn reply_to(&mut self, id: u64) -> Value {
        let reply = self.recv().await;
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["id"], id, "a reply to another request: {reply}");
        reply
    }
}

/// A fake server, and the client end of the pipe split into the
/// `(AsyncRead, AsyncWrite)` pair rmcp takes as a transport.
fn pipe() -> (
    FakeServer,
    (ReadHalf<DuplexStream>, WriteHalf<DuplexStream>),
) {
    let (client_end, server_end) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_end);
    let server = FakeServer {
        lines: BufReader::new(server_read).lines(),
        writer: server_write,
    };
    (server, tokio::io::split(client_end))
}

/// The answer a 2025-11-25 server gives to `initialize`.
fn initialize_result(id: &Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "serverInfo": {"name": "fake-server", "version": "0.0.0"}
        }
    })
}

/// A store with one server in it, so the handler has a real list to read.
fn store_with_server(h: &Harness) -> ServerId {
    h.store
        .add_server(ServerDraft {
            name: "fake".into(),
            command: "fake-server".into(),
            enabled: true,
            ..Default::default()
        })
        .expect("add server")
        .id
}

/// Serves a handler on `server`'s store list, completes the handshake from
/// the fake server's side and returns both ends, ready for requests.
async fn connect(
    h: &Harness,
    server: &ServerId,
) -> (
    FakeServer,
    RunningService<RoleClient, RootsClient>,
    mpsc::UnboundedReceiver<HandlerEvent>,
    Wire,
) {
    let (events_tx, events) = mpsc::unbounded_channel();
    let handler = RootsClient::new(h.store.subscribe(server).expect("subscribe"), events_tx);
    let (mut fake, (read, write)) = pipe();
    // On the session's transport, which answers `roots/list` and reports
    // the answers as they are written.
    let (transport, wire) = handler.transport(read, write);
    // `serve` returns only after the handshake, which needs the fake server
    // to answer, so the client side runs as its own task.
    let client = tokio::spawn(handler.serve(transport));
    let init = fake.recv().await;
    assert_eq!(init["method"], "initialize", "{init}");
    fake.send(initialize_result(&init["id"])).await;
    let initialized = fake.recv().await;
    assert_eq!(initialized["method"], "notifications/initialized");
    let client = tokio::time::timeout(READ, client)
        .await
        .expect("the handshake did not finish in time")
        .expect("the client task panicked")
        .expect("the handshake failed");
    (fake, client, events, wire)
}

/// The next event the handler reported.
async fn next_event(events: &mut mpsc::UnboundedReceiver<HandlerEvent>) -> HandlerEvent {
    tokio::time::timeout(READ, events.recv())
        .await
        .expect("the handler reported nothing in time")
        .expect("the event channel closed")
}

/// The `(uri, name)` pairs of a `roots/list` reply.
fn listed(reply: &Value) -> Vec<(String, String)> {
    reply["result"]["roots"]
        .as_array()
        .unwrap_or_else(|| panic!("not a roots/list result: {reply}"))
        .iter()
        .map(|r| {
            (
                r["uri"].as_str().expect("uri").to_owned(),
                r["name"].as_str().expect("name").to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn initialize_pins_the_protocol_and_declares_only_roots() {
    let h = Harness::new();
    let server = store_with_server(&h);
    let (events_tx, _events) = mpsc::unbounded_channel();
    let handler = RootsClient::new(h.store.subscribe(&server).unwrap(), events_tx);
    let (mut fake, transport) = pipe();
    let client = tokio::spawn(handler.serve(transport));

    let init = fake.recv().await;
    assert_eq!(init["jsonrpc"], "2.0");
    assert_eq!(init["method"], "initialize");
    assert!(
        init.get("id").is_some(),
        "initialize must be a request: {init}"
    );
    let params = &init["params"];
    assert_eq!(params["protocolVersion"], "2025-11-25");
    assert_eq!(params["capabilities"]["roots"]["listChanged"], true);
    // A client that declared sampling or elicitation would invite requests
    // Rootgate has no person behind to answer.
    let capabilities = params["capabilities"].as_object().unwrap();
    assert!(!capabilities.contains_key("sampling"), "{params}");
    assert!(!capabilities.contains_key("elicitation"), "{params}");
    assert_eq!(params["clientInfo"]["name"], "rootgate");

    // Nothing more is said until the server answers; then `initialized`.
    fake.send(initialize_result(&init["id"])).await;
    let initialized = fake.recv().await;
    assert_eq!(initialized["jsonrpc"], "2.0");
    assert_eq!(initialized["method"], "notifications/initialized");
    assert!(initialized.get("id").is_none(), "a notification has no id");
    let running = tokio::time::timeout(READ, client).await.unwrap().unwrap();
    assert!(running.is_ok(), "the handshake failed: {:?}", running.err());
}

#[tokio::test]
async fn roots_list_is_answered_with_the_current_granted_list() {
    let h = Harness::new();
    let server = store_with_server(&h);
    let (one, one_path) = h.folder("프로젝트 #1");
    h.store.grant(&server, &one).unwrap();
    let (mut fake, _client, mut events, _wire) = connect(&h, &server).await;

    let reply = fake.ask(0, "roots/list").await;
    assert!(reply.get("error").is_none(), "{reply}");
    let one_uri = path_to_uri(&one_path).unwrap().to_string();
    assert_eq!(
        listed(&reply),
        vec![(one_uri.clone(), "프로젝트 #1".into())]
    );
    let first_generation = h.store.shared_with(&server).unwrap().generation();
    match next_event(&mut events).await {
        HandlerEvent::Answered {
            request_id,
            generation,
            roots,
        } => {
            assert_eq!(request_id, "0");
            assert_eq!(generation, first_generation);
            assert_eq!(roots.len(), 1);
            assert_eq!(roots[0].uri, one_uri);
        }
        other => panic!("expected Answered, got {other:?}"),
    }

    // The handler reads the list when asked, not when it was built, so a
    // grant made since shows up in the very next answer.
    let (two, two_path) = h.folder("100% done?");
    h.store.grant(&server, &two).unwrap();
    let reply = fake.ask(1, "roots/list").await;
    let two_uri = path_to_uri(&two_path).unwrap().to_string();
    assert_eq!(
        listed(&reply),
        vec![
            (one_uri, "프로젝트 #1".into()),
            (two_uri, "100% done?".into())
        ]
    );
    let second_generation = h.store.shared_with(&server).unwrap().generation();
    assert!(second_generation > first_generation);
    match next_event(&mut events).await {
        HandlerEvent::Answered {
            request_id,
            generation,
            roots,
        } => {
            assert_eq!(request_id, "1");
            assert_eq!(generation, second_generation);
            assert_eq!(roots.len(), 2);
        }
        other => panic!("expected Answered, got {other:?}"),
    }
}

/// Sends `method` with valid `params`, checks it is refused as "method not
/// found" and reported, then checks a `roots/list` is still answered.
async fn refused_and_still_connected(method: &str, params: Value) {
    let h = Harness::new();
    let server = store_with_server(&h);
    let (mut fake, _client, mut events, _wire) = connect(&h, &server).await;

    fake.send(json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}))
        .await;
    let reply = fake.reply_to(7).await;
    assert!(reply.get("result").is_none(), "{reply}");
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    match next_event(&mut events).await {
        HandlerEvent::Refused { method: refused } => assert_eq!(refused, method),
        other => panic!("expected Refused, got {other:?}"),
    }

    // A refusal is an answer, not a failure: the connection carries on.
    let reply = fake.ask(8, "roots/list").await;
    assert_eq!(listed(&reply), Vec::new());
    assert!(matches!(
        next_event(&mut events).await,
        HandlerEvent::Answered { .. }
    ));
}

#[tokio::test]
async fn sampling_is_refused_as_method_not_found() {
    refused_and_still_connected(
        "sampling/createMessage",
        json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "hello"}}],
            "maxTokens": 16
        }),
    )
    .await;
}

#[tokio::test]
async fn elicitation_is_refused_as_method_not_found() {
    refused_and_still_connected(
        "elicitation/create",
        json!({
            "mode": "form",
            "message": "Your name?",
            "requestedSchema": {
                "type": "object",
                "properties": {"name": {"type": "string"}}
            }
        }),
    )
    .await;
}

#[tokio::test]
async fn list_changed_is_the_bare_notification() {
    let h = Harness::new();
    let server = store_with_server(&h);
    let (mut fake, _client, _events, wire) = connect(&h, &server).await;

    wire.notify_list_changed();
    let message = fake.recv().await;
    assert_eq!(message["jsonrpc"], "2.0");
    assert_eq!(message["method"], "notifications/roots/list_changed");
    assert!(
        message.get("id").is_none(),
        "a notification has no id: {message}"
    );
    // The spec gives this notification no params; an empty object is the
    // most any server should have to tolerate.
    match message.get("params") {
        None => {}
        Some(Value::Object(p)) => assert!(p.is_empty(), "{message}"),
        Some(other) => panic!("unexpected params {other}"),
    }
    let keys: Vec<&String> = message.as_object().unwrap().keys().collect();
    assert!(
        keys.iter()
            .all(|k| ["jsonrpc", "method", "params"].contains(&k.as_str())),
        "unexpected members in {message}"
    );
}

#[tokio::test]
async fn logging_messages_are_passed_on_after_the_answer_they_follow() {
    let h = Harness::new();
    let server = store_with_server(&h);
    let (mut fake, _client, mut events, _wire) = connect(&h, &server).await;

    // A bench server acknowledges each list it receives with a logging
    // notification; the answer must reach the actor before the message.
    fake.ask(0, "roots/list").await;
    let data = json!({"event": "roots_ack", "seq": 1, "count": 0, "first_uri": null});
    fake.send(json!({
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "info", "logger": "bench", "data": data}
    }))
    .await;
    assert!(matches!(
        next_event(&mut events).await,
        HandlerEvent::Answered { .. }
    ));
    match next_event(&mut events).await {
        HandlerEvent::Message(message) => {
            assert_eq!(message.level, "info");
            assert_eq!(message.logger.as_deref(), Some("bench"));
            assert_eq!(message.data, data);
        }
        other => panic!("expected Message, got {other:?}"),
    }

    // `data` may be any JSON value and `logger` may be missing.
    fake.send(json!({
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": {"level": "emergency", "data": "disk on fire"}
    }))
    .await;
    match next_event(&mut events).await {
        HandlerEvent::Message(message) => {
            assert_eq!(message.level, "emergency");
            assert_eq!(message.logger, None);
            assert_eq!(message.data, json!("disk on fire"));
        }
        other => panic!("expected Message, got {other:?}"),
    }
}

#[tokio::test]
async fn requests_before_the_initialize_answer_are_answered_by_the_transport() {
    let h = Harness::new();
    let server = store_with_server(&h);
    let (root, path) = h.folder("early");
    h.store.grant(&server, &root).unwrap();
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let handler = RootsClient::new(h.store.subscribe(&server).unwrap(), events_tx);
    let (mut fake, (read, write)) = pipe();
    // As the session does it: answers are reported as they are written,
    // early ones included.
    let (transport, _wire) = handler.transport(read, write);
    let client = tokio::spawn(handler.serve(transport));
    let init = fake.recv().await;
    assert_eq!(init["method"], "initialize");

    // The server asks before it answers `initialize` (and would wait).
    let reply = fake.ask(100, "roots/list").await;
    let uri = path_to_uri(&path).unwrap().to_string();
    assert_eq!(listed(&reply), vec![(uri.clone(), "early".into())]);
    match next_event(&mut events).await {
        HandlerEvent::Answered {
            request_id, roots, ..
        } => {
            assert_eq!(request_id, "100");
            assert_eq!(roots[0].uri, uri);
        }
        other => panic!("expected Answered, got {other:?}"),
    }
    fake.send(json!({
        "jsonrpc": "2.0", "id": 101, "method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 1}
    }))
    .await;
    let reply = fake.reply_to(101).await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    assert!(matches!(
        next_event(&mut events).await,
        HandlerEvent::Refused {
            method: "sampling/createMessage"
        }
    ));
    let reply = fake.ask(102, "rootgate/unknown").await;
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    // Pings are rmcp's to answer, as before.
    let reply = fake.ask(103, "ping").await;
    assert_eq!(reply["result"], json!({}), "{reply}");

    // Then the handshake finishes as usual, and later requests reach the
    // handler.
    fake.send(initialize_result(&init["id"])).await;
    assert_eq!(fake.recv().await["method"], "notifications/initialized");
    let _client = tokio::time::timeout(READ, client)
        .await
        .expect("the handshake did not finish in time")
        .expect("the client task panicked")
        .expect("the handshake failed");
    let reply = fake.ask(104, "roots/list").await;
    assert_eq!(listed(&reply), vec![(uri, "early".into())]);
}
