//! A hostile or broken AI app, and a server that crashes, through the real
//! `rootgate connect`: each fault costs that connection at most, never
//! another one, and never a hang.

use std::process::Stdio;

use rootgate_test_support::app::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// `rootgate connect NAME` driven by hand, line by line.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
}

impl Raw {
    fn start(rg: &Rootgate, name: &str) -> Raw {
        let command = rg.connect_command(name);
        let mut child = Command::new(&command[0])
            .args(&command[1..])
            .env("XDG_CONFIG_HOME", &rg.config_home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start rootgate connect");
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Raw {
            child,
            stdin,
            lines,
        }
    }

    async fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(bytes).await.expect("write");
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.write(line.as_bytes()).await;
    }

    /// The next line the bridge wrote, as JSON.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(WAIT, self.lines.next_line())
            .await
            .expect("the bridge answered nothing in time")
            .expect("read")
            .expect("the bridge closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The next line with this id, skipping requests the bridge makes.
    async fn answer(&mut self, id: &Value) -> Value {
        loop {
            let v = self.next().await;
            if &v["id"] == id && v.get("method").is_none() {
                return v;
            }
        }
    }

    async fn initialize(&mut self) {
        self.send(json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}))
            .await;
        let answer = self.answer(&json!("init")).await;
        assert_eq!(
            answer["result"]["serverInfo"]["name"], "rootgate-fixture",
            "{answer}"
        );
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }

    /// The roots the fixture server holds, by its own tool.
    async fn roots(&mut self, id: Value) -> Vec<String> {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                         "params": {"name": "list_roots", "arguments": {}}}))
            .await;
        let answer = self.answer(&id).await;
        answer["result"]["structuredContent"]["roots"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|r| r["uri"].as_str().expect("a uri").to_owned())
            .collect()
    }
}

fn fixture_setup() -> (Rootgate, String) {
    let rg = Rootgate::new();
    let fixture = binary("rootgate-example-server").display().to_string();
    let spec = rg.server("fixture", &fixture, &[]);
    let (root, path) = rg.folder("the shared one");
    rg.share(&spec.id, &root);
    let uri = rootgate_core::uri::path_to_uri(&path)
        .expect("uri")
        .to_string();
    (rg, uri)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_from_the_app_gets_errors_and_costs_only_its_connection() {
    let (rg, shared) = fixture_setup();
    let mut calm = Raw::start(&rg, "fixture");
    calm.initialize().await;
    let mut hostile = Raw::start(&rg, "fixture");
    hostile.initialize().await;

    hostile.write(b"this is not json\n").await;
    assert_eq!(hostile.next().await["error"]["code"], -32700);
    hostile
        .write(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\xff\xfe\"}\n")
        .await;
    assert_eq!(hostile.next().await["error"]["code"], -32700);
    // 50 MB of garbage on one line.
    let mut huge = vec![b'x'; 50 * 1024 * 1024];
    huge.push(b'\n');
    hostile.write(&huge).await;
    assert_eq!(hostile.next().await["error"]["code"], -32700);
    // A line longer than any the bridge keeps.
    let mut longer = vec![b'['; 65 * 1024 * 1024];
    longer.push(b'\n');
    hostile.write(&longer).await;
    let refused = hostile.next().await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("longer than"),
        "{refused}"
    );

    // Ids that are the server's own: the app's "answer" to the server's
    // roots/list (id 0) reaches nobody, and its requests with id 0 work.
    hostile
        .send(json!({"jsonrpc": "2.0", "id": 0, "result": {"roots": [{"uri": "file:///", "name": "all"}]}}))
        .await;
    assert_eq!(hostile.roots(json!(0)).await, vec![shared.clone()]);

    // A flood: every request gets exactly one answer, some refused while
    // too many are in flight, and the connection goes on.
    const FLOOD: usize = 15_000;
    let mut flood = Vec::new();
    for i in 0..FLOOD {
        flood.extend_from_slice(
            json!({"jsonrpc": "2.0", "id": format!("f{i}"), "method": "ping"})
                .to_string()
                .as_bytes(),
        );
        flood.push(b'\n');
    }
    // Written from a task of its own: the bridge answers while the flood
    // is still being written, and a writer that does not read would stall
    // both sides (the bridge holds back when its answers are not read).
    let mut stdin = hostile.stdin.take().expect("stdin");
    let writer = tokio::spawn(async move {
        stdin.write_all(&flood).await.expect("write the flood");
        stdin
    });
    let mut answered = std::collections::HashSet::new();
    while answered.len() < FLOOD {
        let v = hostile.next().await;
        if let Some(id) = v["id"].as_str().filter(|id| id.starts_with('f')) {
            assert!(answered.insert(id.to_owned()), "answered twice: {v}");
        }
    }
    hostile.stdin = Some(writer.await.unwrap());
    assert_eq!(hostile.roots(json!("after")).await, vec![shared.clone()]);

    // The other connection never noticed.
    assert_eq!(calm.roots(json!("calm")).await, vec![shared]);
    drop(hostile.stdin.take());
    let status = tokio::time::timeout(WAIT, hostile.child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "a disconnect is a clean end: {status}");
}

/// A server in sh: answers `initialize`, then dies on the first tool call.
const CRASHES_ON_CALL: &str = r#"
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$line" in
    *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"crasher","version":"0"}}}\n' "$id" ;;
    *'"tools/call"'*) echo 'crashing on purpose' >&2; exit 7 ;;
  esac
done
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_crashes_mid_call_gives_the_app_an_error_not_a_hang() {
    let rg = Rootgate::new();
    rg.server("crasher", "/bin/sh", &["-c", CRASHES_ON_CALL]);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("crasher")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    let answer = app
        .request(
            json!({"op": "callTool", "name": "anything", "arguments": {}, "timeoutMs": 60_000}),
        )
        .await;
    let error = answer["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(!error.is_empty());
    // And then the connection ends, as it would with the server alone.
    app.wait(|v| v["event"] == "closed").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_python_sdk_app_probing_server_discover_is_served_by_a_legacy_server() {
    let (rg, shared) = fixture_setup();
    let mut app = App::start(
        &rg,
        Sdk::Python,
        &["--roots", "file:///tmp/not-shared"],
        &rg.connect_command("fixture"),
    )
    .await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    // The bridge answers its probe as a modern server does, so it stays in
    // its own era; the bridge speaks `initialize` to the legacy server.
    assert_eq!(app.connected["protocolVersion"], "2026-07-28");
    let result = app.call("ask_roots", json!({})).await;
    let roots: Vec<&str> = result["structuredContent"]["roots"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert_eq!(
        roots,
        vec![shared.as_str()],
        "exactly the shared folder, never the app's"
    );
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

/// What the app is told while its server has no folder to start with.
const NO_FOLDER: &str =
    "files has no folder shared with it in Rootgate; share one in the Rootgate window";

/// The folders the filesystem server allows, by its own tool; the call's
/// error text when it has none to give.
async fn allowed_or_error(app: &mut App) -> Result<Vec<String>, Value> {
    // The app's own timeout is short: a call left waiting fails the test
    // with the SDK's timeout, not with the words it must get.
    let answer = app
        .request(json!({"op": "callTool", "name": "list_allowed_directories",
                        "arguments": {}, "timeoutMs": 5000}))
        .await;
    match answer.get("ok") {
        Some(ok) => Ok(tool_text(ok)
            .lines()
            .filter(|l| l.starts_with('/'))
            .map(str::to_owned)
            .collect()),
        None => Err(answer),
    }
}

/// The server takes its folders as arguments (`${folders}`, as an import
/// from Claude Desktop writes it): with its last folder withdrawn it cannot
/// start again, and the app's next call is answered at once with why,
/// not left to the app's own timeout; shared again, the same connection
/// goes on with the new folder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_folder_withdrawn_mid_session_is_answered_at_once() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js, "${folders}"]);
    let (a, a_path) = rg.folder("a");
    let (b, b_path) = rg.folder("b");
    rg.share(&files.id, &a);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    assert_eq!(
        allowed_or_error(&mut app).await,
        Ok(vec![a_path.display().to_string()])
    );

    rg.store.revoke(&files.id, &a).expect("withdraw");
    // The bridge sees the change when it re-reads the settings; until then
    // the running server may answer a call or two.
    let deadline = tokio::time::Instant::now() + WAIT;
    let refused = loop {
        match allowed_or_error(&mut app).await {
            Err(answer)
                if answer["error"]
                    .as_str()
                    .is_some_and(|e| e.contains(NO_FOLDER)) =>
            {
                break answer;
            }
            other => {
                assert!(
                    other
                        .as_ref()
                        .err()
                        .is_none_or(|e| e["code"] != -32001 && !e.to_string().contains("timed out")),
                    "the call was left waiting: {other:?}"
                );
                assert!(tokio::time::Instant::now() < deadline, "still: {other:?}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    };
    assert_eq!(refused["code"], -32603, "{refused}");
    // And so is every call after it, each at once.
    for _ in 0..3 {
        let again = allowed_or_error(&mut app).await.expect_err("no folder");
        assert!(
            again["error"]
                .as_str()
                .is_some_and(|e| e.contains(NO_FOLDER)),
            "{again}"
        );
    }

    // Shared again in the window: the server starts with it, on the same
    // connection.
    rg.share(&files.id, &b);
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match allowed_or_error(&mut app).await {
            Ok(now) => {
                assert_eq!(now, vec![b_path.display().to_string()]);
                break;
            }
            Err(answer) => {
                assert!(tokio::time::Instant::now() < deadline, "still: {answer}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
        }
    }
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}
