//! Tools the person hides from AI apps (#29, its first part), through
//! `rootgate connect` as an app uses it: the official TypeScript SDK client
//! stands in for the app, the real npm filesystem server behind the real
//! bridge. What the app is offered is read from its own `tools/list`, and
//! what a call does from the server's own answers and files.

use rootgate_core::tools::ToolSetting;
use std::collections::BTreeSet;

use rootgate_test_support::app::*;
use serde_json::{Value, json};

fn names(listed: &Value) -> BTreeSet<String> {
    listed["ok"]["tools"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_tool_is_not_listed_and_not_run_and_showing_it_again_reaches_the_live_app() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (root, shared) = rg.folder("notes");
    rg.share(&files.id, &root);
    rg.store
        .set_tool_setting(&files.id, None, "write_file", Some(ToolSetting::Hidden))
        .expect("hide");

    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    let listed = names(&app.request(json!({"op": "listTools"})).await);
    assert!(
        !listed.contains("write_file"),
        "hidden, yet listed: {listed:?}"
    );
    assert!(
        listed.contains("read_text_file"),
        "the others stay: {listed:?}"
    );

    // Called by name anyway: refused in words, and the server never wrote.
    let target = shared.join("written.txt");
    let answer = app
        .request(json!({"op": "callTool", "name": "write_file",
                        "arguments": {"path": target.display().to_string(), "content": "x"}}))
        .await;
    let said = answer["error"].to_string();
    assert!(
        said.contains("“write_file” is not offered: it is hidden in Rootgate"),
        "{answer}"
    );
    assert!(!target.exists(), "a hidden tool reached the server");
    // A tool that is not hidden still runs.
    assert_eq!(
        allowed::<Vec<_>>(&mut app).await,
        std::slice::from_ref(&shared)
    );

    // Shown again while the app is connected: the app is told its list
    // changed, lists it, and the call now goes through.
    rg.store
        .set_tool_setting(&files.id, None, "write_file", None)
        .expect("show");
    app.wait(|v| v["event"] == "listChanged" && v["kind"] == "tools")
        .await;
    let listed = names(&app.request(json!({"op": "listTools"})).await);
    assert!(listed.contains("write_file"), "shown again: {listed:?}");
    app.call(
        "write_file",
        json!({"path": target.display().to_string(), "content": "written"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&target).expect("written"),
        "written"
    );

    // Hidden again live: gone from the list at once.
    rg.store
        .set_tool_setting(&files.id, None, "write_file", Some(ToolSetting::Hidden))
        .expect("hide again");
    app.wait(|v| v["event"] == "listChanged" && v["kind"] == "tools")
        .await;
    let listed = names(&app.request(json!({"op": "listTools"})).await);
    assert!(!listed.contains("write_file"), "{listed:?}");
    // The app closes, as an app that quits does: the bridge and the server
    // end with it.
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}
