//! The invariants of the `session_bytes` fuzz target: arbitrary bytes as a
//! server's stdout, read by the client side of a session. The client is
//! `RootsClient`, the rmcp handler the session actor runs, served by rmcp
//! over one end of an in-memory `tokio::io::duplex` pipe exactly as the actor
//! serves it over a child's stdout and stdin; this harness plays the server
//! on the other end. The fuzz target (`fuzz/fuzz_targets/session_bytes.rs`)
//! feeds [`check`] libFuzzer's inputs, and
//! `crates/rootgate-core/tests/it/fuzz_corpus.rs` replays the committed corpus
//! through it on stable Rust.
//!
//! Whatever the server writes, the client must only ever answer `roots/list`
//! with the list the person granted to that server (never a root granted to
//! another server, never one not granted, never one that is unavailable);
//! must have reported every answer on the wire to the actor, with that same
//! list, and no answer it did not write; must only write well-formed JSON-RPC; must still answer a well-formed
//! `roots/list` after the garbage (once the handshake agreed on a version
//! the actor keeps); and must end when the server closes its output. Each input runs on its own current-thread runtime with a paused
//! clock, so a client that stops making progress is reported at once (the
//! clock jumps to the deadline when nothing can run), however loaded the
//! machine is. This file deliberately starts no process and no session actor,
//! and holds no test or fuzz entry point of its own.

use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::service::{RoleClient, RunningService};
use rootgate_model::consent::SharedRoots;
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerDraft;
use rootgate_model::settings::SettingsFile;
use rootgate_model::store::Store;
use rootgate_model::uri::path_to_uri;
use rootgate_session::SUPPORTED_VERSIONS;
use rootgate_session::protocol::RootsClient;
use rootgate_session::wire::HandlerEvent;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::{mpsc, watch};

/// Inputs longer than this are skipped. It is far above any message the
/// fuzzer needs and far below the pipe's buffer, so writing an input never
/// waits for the client to read.
pub const MAX_INPUT: usize = 16 * 1024;

/// The pipe's buffer in each direction.
const PIPE: usize = 256 * 1024;

/// How long (on the paused clock) the harness waits for anything. The clock
/// only moves when nothing can run, so reaching this means the client is
/// stuck, not slow.
const STUCK: Duration = Duration::from_secs(60);

/// The id of the harness's own `roots/list` request after the garbage.
const PROBE_ID: &str = "rootgate-fuzz-probe";

/// A store with three servers' worth of consent, of which one server's
/// shared list is what the client may answer with.
pub struct SessionWorld {
    /// Kept so the watch channel the client reads stays open.
    _store: Store,
    roots: watch::Receiver<SharedRoots>,
    /// The `roots` member of a correct `roots/list` answer, written out from
    /// the folders granted rather than read back from the store.
    expected: Value,
    /// The URIs of the roots the server must never be told about.
    withheld: Vec<String>,
}

impl SessionWorld {
    /// Creates folders and a store in a temporary folder, shares two folders
    /// with the server under test, and shares, withholds or disables the
    /// others. The folder and settings file are removed again before this
    /// returns: the store keeps everything in memory and nothing changes it.
    pub fn build() -> SessionWorld {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, recovery) =
            Store::open(SettingsFile::at(dir.path().join("settings.json"))).expect("store");
        assert!(recovery.is_none());
        let server = |name: &str| {
            store
                .add_server(ServerDraft {
                    name: name.into(),
                    command: "fake-server".into(),
                    enabled: true,
                    ..Default::default()
                })
                .expect("add server")
                .id
        };
        let (under_test, other): (ServerId, ServerId) = (server("under test"), server("other"));
        let folder = |name: &str, display: Option<&str>| {
            let path = dir.path().join("folders").join(name);
            std::fs::create_dir_all(&path).expect("create folder");
            let checked = rootgate_model::folders::check(&path).expect("check folder");
            let root = store
                .add_root(&checked, display.map(str::to_owned))
                .expect("add root")
                .root;
            let uri = path_to_uri(checked.real()).expect("uri").to_string();
            (root.id, uri, root.name)
        };
        let one = folder("프로젝트 #1", None);
        let two = folder("100% done?", Some("a \"quoted\" name"));
        let theirs = folder("granted to another server", None);
        let nobody = folder("granted to no one", None);
        let offline = folder("granted but unavailable", None);
        store.grant(&under_test, &one.0).expect("grant");
        store.grant(&under_test, &two.0).expect("grant");
        store.grant(&other, &theirs.0).expect("grant");
        store.grant(&under_test, &offline.0).expect("grant");
        store
            .set_available(&offline.0, false)
            .expect("set unavailable");
        let expected = json!([
            {"uri": one.1, "name": one.2},
            {"uri": two.1, "name": two.2},
        ]);
        let roots = store.subscribe(&under_test).expect("subscribe");
        let published: Vec<(String, String)> = roots
            .borrow()
            .roots()
            .iter()
            .map(|r| (r.uri.clone(), r.name.clone()))
            .collect();
        assert_eq!(
            published,
            vec![
                (one.1.clone(), one.2.clone()),
                (two.1.clone(), two.2.clone())
            ],
            "the store does not share what was granted"
        );
        drop(dir);
        SessionWorld {
            _store: store,
            roots,
            expected,
            withheld: vec![theirs.1, nobody.1, offline.1],
        }
    }
}

/// How the harness plays one input, from its first byte.
#[derive(Debug, Clone, Copy)]
struct Plan {
    /// The harness answers `initialize` itself, so the garbage arrives in a
    /// running session; otherwise the garbage is all the server ever says
    /// until the probe, and must hold the handshake itself to get further.
    handshake: bool,
    /// The size of each write, so lines arrive split at every point.
    chunk: usize,
}

impl Plan {
    fn from(byte: u8) -> Plan {
        const CHUNKS: [usize; 8] = [usize::MAX, 1, 2, 3, 7, 16, 100, 1000];
        Plan {
            handshake: byte & 1 == 0,
            chunk: CHUNKS[usize::from((byte >> 1) & 7)],
        }
    }
}

/// Waits for `future` on the paused clock; panics when the client is stuck.
async fn within<F: Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(STUCK, future)
        .await
        .unwrap_or_else(|_| panic!("stuck: {what}"))
}

/// Runs one input: the first byte is the [`Plan`], the rest is what the
/// server writes.
pub fn check(world: &SessionWorld, input: &[u8]) {
    if input.len() > MAX_INPUT {
        return;
    }
    let Some((plan, garbage)) = input.split_first() else {
        return;
    };
    let plan = Plan::from(*plan);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
    runtime.block_on(run(world, plan, garbage));
}

/// Writes `bytes` in chunks of `chunk`, letting the client run between
/// them. False when the client had closed the pipe.
async fn write(writer: &mut WriteHalf<DuplexStream>, bytes: &[u8], chunk: usize) -> bool {
    for piece in bytes.chunks(chunk.max(1)) {
        if writer.write_all(piece).await.is_err() {
            return false;
        }
        tokio::task::yield_now().await;
    }
    true
}

/// Reads every line the client writes until it closes the pipe, parses each
/// as JSON and passes it on.
async fn read_client(read: ReadHalf<DuplexStream>, lines: mpsc::UnboundedSender<Value>) {
    let mut read = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = read
            .read_until(b'\n', &mut line)
            .await
            .expect("reading the pipe");
        if n == 0 {
            return;
        }
        assert_eq!(
            line.last(),
            Some(&b'\n'),
            "the client wrote an unterminated line: {:?}",
            String::from_utf8_lossy(&line)
        );
        let message: Value = serde_json::from_slice(&line).unwrap_or_else(|e| {
            panic!(
                "the client wrote a line that is not JSON ({e}): {:?}",
                String::from_utf8_lossy(&line)
            )
        });
        let _ = lines.send(message);
    }
}

/// Everything the client wrote, as it is read.
struct Seen {
    lines: mpsc::UnboundedReceiver<Value>,
    all: Vec<Value>,
}

impl Seen {
    /// The next message, or `None` once the client closed the pipe.
    async fn next(&mut self, what: &str) -> Option<Value> {
        let message = within(what, self.lines.recv()).await?;
        self.all.push(message.clone());
        Some(message)
    }
}

async fn run(world: &SessionWorld, plan: Plan, garbage: &[u8]) {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let handler = RootsClient::new(world.roots.clone(), events_tx);
    let (client_end, server_end) = tokio::io::duplex(PIPE);
    let (server_read, mut server_write) = tokio::io::split(server_end);
    // As the session does it: `roots/list` is answered by the session's
    // transport, which reports answers as they are written.
    let (client_read, client_write) = tokio::io::split(client_end);
    let (transport, _wire) = handler.transport(client_read, client_write);
    let client = tokio::spawn(handler.serve(transport));
    let (lines_tx, lines) = mpsc::unbounded_channel();
    let reader = tokio::spawn(read_client(server_read, lines_tx));
    let mut seen = Seen {
        lines,
        all: Vec::new(),
    };

    let init = seen
        .next("the client sent no initialize")
        .await
        .expect("the client closed the pipe before initialize");
    assert_eq!(init["method"], "initialize", "{init}");
    let running: Option<RunningService<RoleClient, RootsClient>> = if plan.handshake {
        let answer = json!({
            "jsonrpc": "2.0",
            "id": init["id"],
            "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "fuzz", "version": "0"}
            }
        });
        assert!(
            write(
                &mut server_write,
                format!("{answer}\n").as_bytes(),
                usize::MAX
            )
            .await,
            "the client closed the pipe during the handshake"
        );
        let initialized = seen
            .next("no initialized notification")
            .await
            .expect("the client closed the pipe after a valid initialize answer");
        assert_eq!(initialized["method"], "notifications/initialized");
        let running = within("the handshake", client)
            .await
            .expect("the client task panicked")
            .expect("a valid handshake failed");
        assert!(
            write(&mut server_write, garbage, plan.chunk).await,
            "the client closed the pipe on garbage in a running session"
        );
        Some(running)
    } else {
        // The client closes the pipe when the garbage fails the handshake (an
        // error answer, say), so the rest of it may not be written.
        write(&mut server_write, garbage, plan.chunk).await;
        // Until the garbage holds an answer to `initialize`, the client waits
        // for one; the session actor ends that wait with its own timeout, so
        // a client still waiting here is not stuck.
        match tokio::time::timeout(STUCK, client).await {
            Err(_) => None,
            Ok(joined) => joined.expect("the client task panicked").ok(),
        }
    };

    // The session actor disconnects a server that agreed on a protocol
    // version it does not speak, before it would ever ask anything.
    let speaks = |running: &RunningService<RoleClient, RootsClient>| {
        let version = running
            .peer()
            .peer_info()
            .map(|info| info.protocol_version.to_string())
            .unwrap_or_default();
        SUPPORTED_VERSIONS.contains(&version.as_str())
    };
    if let Some(running) = running.as_ref().filter(|r| speaks(r)) {
        // A newline first ends whatever unterminated line the garbage left.
        let probe = json!({"jsonrpc": "2.0", "id": PROBE_ID, "method": "roots/list"});
        assert!(
            write(
                &mut server_write,
                format!("\n{probe}\n").as_bytes(),
                usize::MAX
            )
            .await,
            "the client closed the pipe on garbage in a running session"
        );
        loop {
            let Some(message) = seen.next("the probe was not answered").await else {
                panic!("the client closed the pipe instead of answering the probe");
            };
            if message["id"] == PROBE_ID && message.get("result").is_some() {
                assert_eq!(
                    message["result"]["roots"], world.expected,
                    "the probe was answered with another list: {message}"
                );
                break;
            }
            if message["id"] == PROBE_ID && message.get("error").is_some() {
                // The garbage may hold a request of its own with the probe's
                // id (a ping, or a method the client refuses); the answer to
                // the probe itself is still to come.
                continue;
            }
        }
        assert!(!running.is_closed(), "the session ended on garbage");
    }

    // The server closes its output: the client must end, and close the pipe.
    // (Dropping a split half would not close a duplex pipe; shutting down
    // its write side does, as a child's exit closes its stdout.)
    // A client that already closed the pipe cannot be told again.
    let _ = server_write.shutdown().await;
    if let Some(running) = running {
        within("the client did not end at EOF", running.waiting())
            .await
            .expect("the client's task panicked");
    }
    while seen
        .next("the client did not close the pipe")
        .await
        .is_some()
    {}
    within("the reader", reader)
        .await
        .expect("the client wrote something that is not JSON-RPC");

    check_messages(world, &seen.all, &mut events);
}

/// What the client wrote and reported, checked as a whole.
fn check_messages(
    world: &SessionWorld,
    all: &[Value],
    events: &mut mpsc::UnboundedReceiver<HandlerEvent>,
) {
    // The ids of the `roots/list` answers on the wire, as the handler
    // reports them (`RequestId`'s display: a number, or the string itself).
    let mut on_the_wire: Vec<String> = Vec::new();
    for (n, message) in all.iter().enumerate() {
        assert_eq!(message["jsonrpc"], "2.0", "{message}");
        let object = message
            .as_object()
            .expect("a JSON-RPC message is an object");
        if let Some(method) = object.get("method") {
            // The client's own requests and notifications: `initialize`
            // first, then `initialized`; nothing else unprompted.
            let allowed = if n == 0 {
                "initialize"
            } else {
                "notifications/initialized"
            };
            assert_eq!(method, allowed, "message {n}: {message}");
            continue;
        }
        if let Some(result) = object.get("result") {
            let result = result.as_object().expect("a result is an object");
            if result.is_empty() {
                continue; // the answer to a ping
            }
            assert_eq!(
                result.keys().collect::<Vec<_>>(),
                vec!["roots"],
                "a result that is neither a ping's nor a roots/list's: {message}"
            );
            assert_eq!(
                result["roots"], world.expected,
                "roots/list was answered with another list: {message}"
            );
            on_the_wire.push(match &message["id"] {
                Value::String(id) => id.clone(),
                other => other.to_string(),
            });
            continue;
        }
        let error = object
            .get("error")
            .unwrap_or_else(|| panic!("neither request, result nor error: {message}"));
        assert!(error["code"].is_i64(), "{message}");
    }
    for uri in &world.withheld {
        // An id the server chose is echoed back, so a withheld URI could
        // appear inside one; it can never appear in a result.
        for message in all {
            if let Some(result) = message.get("result") {
                assert!(
                    !result.to_string().contains(uri.as_str()),
                    "{uri} was disclosed: {message}"
                );
            }
        }
    }

    // Every answer on the wire was reported to the actor (which records it
    // in the timeline), with the list it gave, and nothing else was: rmcp
    // drops an answer the server cancelled, or one whose id another request
    // in flight reuses, and such an answer must not be reported (the
    // fuzzer found the handler doing so; answers are now made and reported
    // by the transport's writer as they are written, see fuzz/README.md).
    let mut reported: Vec<String> = Vec::new();
    while let Ok(event) = events.try_recv() {
        match event {
            HandlerEvent::Answered {
                request_id, roots, ..
            } => {
                let listed: Vec<Value> = roots
                    .iter()
                    .map(|r| json!({"uri": r.uri, "name": r.name}))
                    .collect();
                assert_eq!(Value::Array(listed), world.expected);
                reported.push(request_id);
            }
            HandlerEvent::Refused { .. } | HandlerEvent::Message(_) => {}
        }
    }
    for id in on_the_wire.iter().chain(&reported) {
        let sent = on_the_wire.iter().filter(|i| *i == id).count();
        let told = reported.iter().filter(|i| *i == id).count();
        assert_eq!(
            sent, told,
            "roots/list {id} was answered {sent} times but reported {told} times \
             (all answers: {on_the_wire:?}, reported: {reported:?})"
        );
    }
}
