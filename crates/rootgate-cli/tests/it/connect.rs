//! `rootgate connect NAME` as an AI app uses it: real SDK clients standing
//! in for the app, starting the real `rootgate` binary as their server,
//! which runs real servers (the npm filesystem server, the everything
//! server, our fixture). What each server saw is checked through the
//! server's own tools.

use std::collections::BTreeSet;
use std::path::PathBuf;

use rootgate_test_support::app::*;
use serde_json::{Value, json};

fn set(paths: &[&PathBuf]) -> BTreeSet<PathBuf> {
    paths.iter().map(|p| (*p).clone()).collect()
}

async fn read(app: &mut App, path: &std::path::Path) -> (bool, String) {
    let answer = app
        .request(json!({"op": "callTool", "name": "read_text_file",
                        "arguments": {"path": path.display().to_string()}}))
        .await;
    let ok = &answer["ok"];
    let denied = ok["isError"] == true || answer.get("error").is_some();
    (!denied, format!("{}{}", tool_text(ok), answer["error"]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filesystem_server_sees_exactly_the_folders_shared_with_it() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let other = rg.server("other", "node", &[&js]);
    let (a, a_path) = rg.folder("shared a");
    let (b, b_path) = rg.folder("shared b");
    let (_, mine_path) = rg.folder("only the app's");
    let (theirs, theirs_path) = rg.folder("another server's");
    for (folder, path) in [
        (&a_path, "a.txt"),
        (&b_path, "b.txt"),
        (&mine_path, "m.txt"),
        (&theirs_path, "t.txt"),
    ] {
        std::fs::write(folder.join(path), format!("inside {path}")).unwrap();
    }
    rg.share(&files.id, &a);
    rg.share(&files.id, &b);
    rg.share(&other.id, &theirs);
    // The app declares its own working folder as a root, as Claude Code and
    // VS Code do; it must never reach the server.
    let app_root = format!("file://{}", mine_path.display()).replace(' ', "%20");
    let mut app = App::start(
        &rg,
        Sdk::TypeScript,
        &["--roots", &app_root],
        &rg.connect_command("files"),
    )
    .await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    assert_eq!(app.connected["server"]["name"], "secure-filesystem-server");

    let want = set(&[&a_path, &b_path]);
    let deadline = tokio::time::Instant::now() + WAIT;
    let got = loop {
        let got: BTreeSet<PathBuf> = allowed(&mut app).await;
        if got == want {
            break got;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server holds {got:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert!(!got.contains(&mine_path) && !got.contains(&theirs_path));
    let (ok, text) = read(&mut app, &a_path.join("a.txt")).await;
    assert!(ok && text.contains("inside a.txt"), "{text}");
    for outside in [mine_path.join("m.txt"), theirs_path.join("t.txt")] {
        let (ok, text) = read(&mut app, &outside).await;
        assert!(
            !ok,
            "read {} outside its folders: {text}",
            outside.display()
        );
    }

    // Withdrawn in the window mid-session: the next calls are denied.
    rg.store.revoke(&files.id, &a).unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let (ok, text) = read(&mut app, &a_path.join("a.txt")).await;
        if !ok {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "still read: {text}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(allowed::<BTreeSet<_>>(&mut app).await, set(&[&b_path]));
    let (ok, _) = read(&mut app, &b_path.join("b.txt")).await;
    assert!(ok, "the folder still shared is still readable");
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

/// A file of two megabytes full of what JSON must escape (quotes,
/// backslashes, line breaks, tabs, control characters, the line separators
/// JavaScript treats apart) and of text of two, three and four bytes a
/// character reaches each SDK's client exactly as it is on disk: the real
/// server's own escaping, read by the bridge's envelope scanner and passed
/// on untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_file_full_of_escapes_reaches_the_app_exactly() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (a, a_path) = rg.folder("shared");
    rg.share(&files.id, &a);
    let piece = "\"quoted\" back\\slash\ttab\nline\r\n\u{1}\u{1f}\u{7f} é 日本 🙂 \u{2028}\u{2029} {\"result\":1}\n";
    let text = piece.repeat((2 << 20) / piece.len() + 1);
    let big = a_path.join("big.txt");
    std::fs::write(&big, &text).expect("write the file");
    for sdk in [Sdk::TypeScript, Sdk::Python] {
        let mut app = App::start(&rg, sdk, &[], &rg.connect_command("files")).await;
        assert_eq!(app.connected["event"], "connected", "{}", app.connected);
        let answer = app
            .request(json!({"op": "callTool", "name": "read_text_file",
                            "arguments": {"path": big.display().to_string()}}))
            .await;
        let got = tool_text(&answer["ok"]);
        assert_eq!(got.len(), text.len(), "{sdk:?}: {}", answer["error"]);
        assert!(got == text, "{sdk:?}: the text changed on the way");
        app.send(json!({"op": "close"})).await;
        let _ = app.child.wait().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configured_in_claude_desktops_config_file_as_a_person_would() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (a, a_path) = rg.folder("shared");
    rg.folder("kept, not shared");
    rg.share(&files.id, &a);
    // The entry a person writes (or Rootgate's import writes) in
    // ~/.config/Claude/claude_desktop_config.json, with the installed
    // command's full path as the docs advise.
    let config = rg.home().join(".config/Claude/claude_desktop_config.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    let entry = json!({"mcpServers": {"files": {
        "command": binary("rootgate").display().to_string(),
        "args": ["connect", "files"],
    }}});
    std::fs::write(&config, serde_json::to_string_pretty(&entry).unwrap()).unwrap();

    let mut app = App::start_from_config(&rg, &config, "files").await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    assert_eq!(app.connected["server"]["name"], "secure-filesystem-server");
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let got: BTreeSet<PathBuf> = allowed(&mut app).await;
        if got == set(&[&a_path]) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server holds {got:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_or_unapproved_server_is_refused_in_words() {
    let rg = Rootgate::new();
    let fixture = binary("rootgate-example-server").display().to_string();
    rg.server("known", &fixture, &[]);
    let app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("nope")).await;
    assert_eq!(app.connected["event"], "connectFailed");
    let error = app.connected["error"].as_str().unwrap();
    assert!(
        error.contains("there is no server named \"nope\""),
        "{error}"
    );
    assert!(
        error.contains("known"),
        "the configured ones are listed: {error}"
    );

    let spec = rg
        .store
        .add_server(rootgate_core::servers::ServerDraft {
            name: "unapproved".into(),
            command: fixture.clone(),
            ..Default::default()
        })
        .unwrap();
    assert!(!spec.is_approved());
    let app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("unapproved")).await;
    let error = app.connected["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("open Rootgate and approve its command"),
        "{error}"
    );

    rg.server("broken", "/nonexistent/mcp-server", &["--flag"]);
    let app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("broken")).await;
    let error = app.connected["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("/nonexistent/mcp-server --flag")
            && error.contains("there is no file at /nonexistent/mcp-server"),
        "{error}"
    );
}

/// A tool call through the bridge, with the everything server's echo.
async fn echo(app: &mut App, text: &str) -> String {
    tool_text(&app.call("echo", json!({"message": text})).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_apps_on_one_server_share_its_process_and_each_gets_its_own_answers() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    let marker = format!("{}-marker", std::process::id());
    let spec = rg.server("everything", "node", &[&js, "stdio", &marker]);
    let _ = spec;
    let mut one = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("everything")).await;
    let mut two = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("everything")).await;
    assert_eq!(one.connected["event"], "connected", "{}", one.connected);
    assert_eq!(two.connected["event"], "connected", "{}", two.connected);
    let servers = processes_with(&marker)
        .into_iter()
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            cmdline.starts_with(b"node\0")
        })
        .count();
    assert_eq!(servers, 1, "the two apps share the server's process");
    let (a, b) = tokio::join!(echo(&mut one, "from one"), echo(&mut two, "from two"));
    assert!(a.contains("from one") && !a.contains("from two"), "{a}");
    assert!(b.contains("from two") && !b.contains("from one"), "{b}");

    // An app killed outright: the other is still served by the process.
    let pid = one.child.id().unwrap() as i32;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let _ = one.child.wait().await;
    assert!(echo(&mut two, "still here").await.contains("still here"));
    two.send(json!({"op": "close"})).await;
    let _ = two.child.wait().await;
    eventually("every process to end", || async {
        let left = processes_with(&marker);
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("{left:?}"))
        }
    })
    .await;
}

fn ok(answer: &Value) -> &Value {
    assert!(answer.get("ok").is_some(), "{answer}");
    &answer["ok"]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_the_everything_server_offers_passes_through() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let mut app = App::start(
        &rg,
        Sdk::TypeScript,
        &["--sampling", "--elicitation"],
        &rg.connect_command("everything"),
    )
    .await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    let info = app.request(json!({"op": "serverInfo"})).await;
    let info = ok(&info);
    assert!(
        info["instructions"].as_str().is_some_and(|i| !i.is_empty()),
        "instructions pass: {info}"
    );
    for kind in ["tools", "resources", "prompts", "logging", "completions"] {
        assert!(info["capabilities"].get(kind).is_some(), "{kind}: {info}");
    }

    let tools = app.request(json!({"op": "listTools"})).await;
    let names: Vec<&str> = ok(&tools)["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for name in [
        "echo",
        "get-sum",
        "trigger-long-running-operation",
        "trigger-sampling-request",
        "trigger-elicitation-request",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    assert!(
        echo(&mut app, "hello through rootgate")
            .await
            .contains("hello through rootgate")
    );
    let sum = app.call("get-sum", json!({"a": 2, "b": 40})).await;
    assert!(tool_text(&sum).contains("42"), "{sum}");

    // Progress, then the result.
    let long = app
        .request(
            json!({"op": "callTool", "name": "trigger-long-running-operation",
                        "arguments": {"duration": 1, "steps": 3}, "progress": true}),
        )
        .await;
    ok(&long);
    assert!(
        app.take_events("progress").len() >= 2,
        "progress notifications pass"
    );
    // Cancelled mid-call: the app's SDK gives up, the server is told.
    let cancelled = app
        .request(
            json!({"op": "callTool", "name": "trigger-long-running-operation",
                        "arguments": {"duration": 20, "steps": 10}, "cancelAfterMs": 300}),
        )
        .await;
    assert!(cancelled.get("error").is_some(), "{cancelled}");
    assert!(
        echo(&mut app, "after the cancel")
            .await
            .contains("after the cancel")
    );

    // Resources, templates, subscriptions.
    let resources = app.request(json!({"op": "listResources"})).await;
    let first = ok(&resources)["resources"][0]["uri"]
        .as_str()
        .unwrap()
        .to_owned();
    let read = app
        .request(json!({"op": "readResource", "uri": first}))
        .await;
    assert!(
        ok(&read)["contents"]
            .as_array()
            .is_some_and(|c| !c.is_empty())
    );
    let templates = app.request(json!({"op": "listResourceTemplates"})).await;
    assert!(
        ok(&templates)["resourceTemplates"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    let subscribed = app.request(json!({"op": "subscribe", "uri": first})).await;
    ok(&subscribed);
    let toggled = app.call("toggle-subscriber-updates", json!({})).await;
    assert!(!tool_text(&toggled).is_empty());
    let updated = app.wait(|v| v["event"] == "resourceUpdated").await;
    assert_eq!(updated["uri"], first);

    // Prompts with arguments, and completion.
    let prompts = app.request(json!({"op": "listPrompts"})).await;
    let prompt_names: Vec<&str> = ok(&prompts)["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert!(prompt_names.contains(&"args-prompt"), "{prompt_names:?}");
    let got = app.request(json!({"op": "getPrompt", "name": "args-prompt", "arguments": {"city": "Seoul", "state": "KR"}})).await;
    assert!(ok(&got)["messages"].to_string().contains("Seoul"), "{got}");
    let completed = app
        .request(json!({"op": "complete", "params": {"ref": {"type": "ref/prompt", "name": "completable-prompt"},
                        "argument": {"name": "department", "value": "E"}}}))
        .await;
    assert!(
        ok(&completed)["completion"]["values"]
            .as_array()
            .is_some_and(|v| !v.is_empty()),
        "{completed}"
    );

    // Logging level and messages.
    ok(&app
        .request(json!({"op": "setLevel", "level": "debug"}))
        .await);
    app.call("toggle-simulated-logging", json!({})).await;
    app.wait(|v| v["event"] == "log").await;

    // Sampling and elicitation reach the app, which answers them.
    let sampled = app
        .call(
            "trigger-sampling-request",
            json!({"prompt": "say hi", "maxTokens": 10}),
        )
        .await;
    assert!(
        sampled.to_string().contains("sampled by the stand-in"),
        "{sampled}"
    );
    assert!(!app.take_events("sampling").is_empty());
    let elicited = app
        .request(json!({"op": "callTool", "name": "trigger-elicitation-request", "arguments": {},
                        "elicit": {"name": "Ada", "check": true, "integer": 3, "email": "ada@example.org",
                                   "number": 1.5, "enum": "ok", "untitledSingleSelectEnum": "option1"}}))
        .await;
    assert!(app.take_events("elicitation").len() == 1, "{elicited}");
    ok(&app.request(json!({"op": "ping"})).await);
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}
