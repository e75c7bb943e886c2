//! An AI app's first request, sent the moment the connection is open, as
//! agents do (they read a file as their first step): through the real
//! `rootgate connect`, the npm filesystem server answers it with exactly
//! the folder the person shared, never with none. The server asks for its
//! folders after `initialized` and applies the answer in the background;
//! the bridge holds the app's first request that depends on folders until
//! the session takes the answer as applied, and says so in the timeline. A
//! server that does not need the wait is not held, and the timeline says
//! why.

use std::path::PathBuf;
use std::process::Stdio;

use rootgate_core::timeline::Event;
use rootgate_test_support::app::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

/// The folders the filesystem server said it allows, from its tool result.
fn allowed(result: &Value) -> Vec<PathBuf> {
    tool_text(result)
        .lines()
        .filter(|l| l.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

/// The filesystem server named "files" with one folder shared with it.
fn files_with_a_folder(rg: &Rootgate) -> PathBuf {
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (shared, path) = rg.folder("shared");
    rg.share(&files.id, &shared);
    path
}

/// One connection by hand: `initialize`, then `initialized` and the first
/// `tools/call` in one write, so that nothing of the app's comes between
/// them; the call's answer.
async fn first_call_raw(rg: &Rootgate, tool: &str) -> Value {
    let command = rg.connect_command("files");
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start rootgate connect");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut answer = async |id: u64| loop {
        let line = tokio::time::timeout(WAIT, lines.next_line())
            .await
            .expect("the bridge answered in time")
            .expect("read")
            .expect("the bridge closed its output");
        let v: Value = serde_json::from_str(&line).expect("JSON");
        if v["id"] == id && v.get("method").is_none() {
            return v;
        }
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw agent", "version": "0"}}});
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .expect("write");
    assert!(answer(1).await.get("result").is_some());
    let at_once = format!(
        "{}\n{}\n",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": tool, "arguments": {}}}),
    );
    stdin.write_all(at_once.as_bytes()).await.expect("write");
    let result = answer(2).await;
    drop(stdin);
    let _ = tokio::time::timeout(WAIT, child.wait()).await;
    result["result"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_call_right_after_initialized_sees_the_shared_folder_50_times_in_a_row() {
    let rg = Rootgate::new();
    let folder = files_with_a_folder(&rg);
    for run in 1..=50 {
        let result = first_call_raw(&rg, "list_allowed_directories").await;
        assert_eq!(
            allowed(&result),
            std::slice::from_ref(&folder),
            "run {run}: {result}"
        );
    }
}

/// The first call made by an SDK client as the next thing after connecting.
async fn first_call_sdk(rg: &Rootgate, sdk: Sdk, options: &[&str]) -> Value {
    let mut options = options.to_vec();
    options.extend(["--first-call", "list_allowed_directories"]);
    let app = App::start(rg, sdk, &options, &rg.connect_command("files")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    app.connected["first"]["ok"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_typescript_sdk_clients_first_call_sees_the_shared_folder() {
    let rg = Rootgate::new();
    let folder = files_with_a_folder(&rg);
    let clients: [(&str, Sdk, &[&str]); 4] = [
        ("SDK 1.x", Sdk::TypeScript, &[]),
        ("SDK 2.x legacy", Sdk::TypeScript2, &[]),
        ("SDK 2.x auto", Sdk::TypeScript2, &["--auto"]),
        ("SDK 2.x pinned modern", Sdk::TypeScript2, &["--pin"]),
    ];
    for (name, sdk, options) in clients {
        for run in 1..=5 {
            let result = first_call_sdk(&rg, sdk, options).await;
            assert_eq!(
                allowed(&result),
                std::slice::from_ref(&folder),
                "{name}, run {run}: {result}"
            );
        }
    }
}

/// The sentence the connection's timeline says of its first request.
async fn first_request_said(sup: &std::sync::Arc<rootgate_core::supervisor::Supervisor>) -> String {
    eventually("the first request in the connection's timeline", || async {
        let connections = sup.bridges().list();
        let said = connections.iter().find_map(|c| {
            sup.bridges()
                .connection_timeline(&c.id)
                .into_iter()
                .find_map(|e| match e.event {
                    Event::FirstRequest { said, .. } => Some(said),
                    _ => None,
                })
        });
        said.ok_or_else(|| format!("{connections:#?}"))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeline_says_how_long_the_first_request_was_held_and_why() {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let folder = files_with_a_folder(&rg);
    let result = first_call_raw(&rg, "list_allowed_directories").await;
    assert_eq!(allowed(&result), [folder]);
    let said = first_request_said(&sup).await;
    assert!(
        said.starts_with("Held the app's first request (tools/call “list_allowed_directories”)")
            && said.ends_with("until the server had its folders."),
        "{said}"
    );
}

/// A server given its folders as arguments has them from its start: the
/// first request goes at once, and the timeline says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_given_its_folders_as_arguments_is_not_held() {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js, "${folders}"]);
    let (shared, path) = rg.folder("shared");
    rg.share(&files.id, &shared);
    let result = first_call_raw(&rg, "list_allowed_directories").await;
    assert_eq!(allowed(&result), [path]);
    // Said as "Did not hold …: …" (or, on a loaded machine, "Held … 1 ms,
    // then let it go: …", the moment the session takes to publish it).
    let said = first_request_said(&sup).await;
    assert!(
        said.contains("the app's first request (tools/call “list_allowed_directories”)")
            && said.ends_with(": the server was given its folders as arguments."),
        "{said}"
    );
}

/// A server that never asks for its folders is let go once it has had its
/// time to ask, and the timeline says so; the request is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_asks_is_let_go_and_the_timeline_says_why() {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let fixture = binary("rootgate-example-server").display().to_string();
    let files = rg.server(
        "files",
        &fixture,
        &["--no-roots-on-init", "--ignore-list-changed"],
    );
    let (shared, _) = rg.folder("shared");
    rg.share(&files.id, &shared);
    let result = first_call_raw(&rg, "list_roots").await;
    assert!(result.get("content").is_some(), "{result}");
    let said = first_request_said(&sup).await;
    assert!(
        said.starts_with("Held the app's first request (tools/call “list_roots”)")
            && said.ends_with("then let it go: the server did not ask for its folders within 1 s."),
        "{said}"
    );
}
