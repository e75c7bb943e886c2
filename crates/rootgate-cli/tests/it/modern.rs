//! `rootgate connect NAME` to servers on the 2.x SDKs (the Python SDK
//! server of tests/servers/py_modern_server.py, and the TypeScript SDK 2.x
//! one of tests/peers/servers/ts_modern_server.mjs), driven by real SDK
//! clients standing in for AI apps: the TypeScript SDK 1.32.2 client,
//! which speaks only the legacy era, the Python `mcp` 2.3.0 client, which
//! probes `server/discover` first and falls back, and the TypeScript SDK
//! 2.x client pinned to the modern era. Spoken to in the modern era (held
//! there, or modern only), a server's input rounds for roots are answered
//! inside each relayed call; a dual-era server left to Rootgate is spoken to
//! in the legacy era and gets its folders whichever way its code asks. What
//! the server was given is checked through its own tools.

use rootgate_test_support::app::*;
use serde_json::{Value, json};

/// The dual-era Python server, held to the modern era.
fn modern(rg: &Rootgate, name: &str) -> rootgate_core::servers::ServerSpec {
    let script = py_modern_server().display().to_string();
    rg.server_in_era(
        name,
        python().display().to_string(),
        &[&script],
        rootgate_core::servers::EraChoice::Modern,
    )
}

async fn lines(app: &mut App, tool: &str) -> Result<Vec<String>, String> {
    let answer = app.request(json!({"op": "callTool", "name": tool})).await;
    if let Some(error) = answer.get("error") {
        return Err(error.to_string());
    }
    let ok = &answer["ok"];
    if ok["isError"] == true {
        return Err(tool_text(ok));
    }
    Ok(tool_text(ok).lines().map(str::to_owned).collect())
}

fn uri(path: &std::path::Path) -> String {
    rootgate_core::uri::path_to_uri(path)
        .expect("uri")
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_app_gets_a_modern_servers_calls_with_exactly_the_shared_folders() {
    let rg = Rootgate::new();
    let spec = modern(&rg, "modern");
    let (a, a_path) = rg.folder("shared a");
    let (b, b_path) = rg.folder("shared b");
    let (_, mine_path) = rg.folder("the app's own");
    rg.share(&spec.id, &a);
    // The app declares its own folder as a root; the server must never get it.
    let mut app = App::start(
        &rg,
        Sdk::TypeScript,
        &["--roots", &uri(&mine_path)],
        &rg.connect_command("modern"),
    )
    .await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    assert_eq!(app.connected["server"]["name"], "py-modern-server");
    // The server itself says the calls reach it in the modern era.
    assert_eq!(lines(&mut app, "protocol").await.unwrap(), ["2026-07-28"]);

    assert_eq!(lines(&mut app, "ask_roots").await.unwrap(), [uri(&a_path)]);
    // Changed in the window mid-session: once the bridge has read the
    // settings file again, the next call gets the new set, with nothing
    // sent to the server in between.
    rg.share(&spec.id, &b);
    rg.store.revoke(&spec.id, &a).unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let got = lines(&mut app, "ask_roots").await.unwrap();
        if got == [uri(&b_path)] {
            break;
        }
        assert!(
            got == [uri(&a_path)] || got == [uri(&a_path), uri(&b_path)],
            "only the old or the new set, never anything else: {got:?}"
        );
        assert!(tokio::time::Instant::now() < deadline, "still {got:?}");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }

    // Two rounds in one call, each with the server's own sealed state.
    let twice = lines(&mut app, "ask_twice").await.unwrap().join("\n");
    let report: Value = serde_json::from_str(&twice).expect(&twice);
    assert_eq!(report["first"], json!([uri(&b_path)]));
    assert_eq!(report["second"], json!([uri(&b_path)]));

    // The app did not declare elicitation: the call ends, in words.
    let refused = lines(&mut app, "ask_unoffered").await.unwrap_err();
    assert!(
        refused.contains("elicitation/create") && refused.contains("did not declare"),
        "{refused}"
    );
    // And the connection goes on.
    assert_eq!(lines(&mut app, "ask_roots").await.unwrap(), [uri(&b_path)]);
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_a_modern_server_asks_for_is_relayed_to_an_app_that_declared_it() {
    let rg = Rootgate::new();
    modern(&rg, "modern");
    let mut app = App::start(
        &rg,
        Sdk::TypeScript,
        &["--elicitation"],
        &rg.connect_command("modern"),
    )
    .await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    let answer = app
        .request(json!({"op": "callTool", "name": "ask_unoffered",
                        "elicit": {"name": "Ada"}}))
        .await;
    let text = tool_text(&answer["ok"]);
    assert!(text.starts_with("answered: "), "{answer}");
    let given: Value = serde_json::from_str(text.trim_start_matches("answered: ")).unwrap();
    assert_eq!(given["name"]["action"], "accept");
    assert_eq!(given["name"]["content"]["name"], "Ada");
    let asked = app.take_events("elicitation");
    assert_eq!(asked.len(), 1, "the app was asked once: {asked:?}");
    assert_eq!(asked[0]["params"]["message"], "Your name?");
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dual_era_app_that_probes_first_stays_modern_with_a_modern_server() {
    let rg = Rootgate::new();
    let spec = modern(&rg, "modern");
    let (a, a_path) = rg.folder("shared");
    rg.share(&spec.id, &a);
    let mut app = App::start(&rg, Sdk::Python, &[], &rg.connect_command("modern")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    // It probes, the bridge answers as a modern server does, and it stays
    // in the modern era end to end.
    assert_eq!(app.connected["protocolVersion"], "2026-07-28");
    assert_eq!(lines(&mut app, "protocol").await.unwrap(), ["2026-07-28"]);
    assert_eq!(lines(&mut app, "ask_roots").await.unwrap(), [uri(&a_path)]);
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typescript_sdk_2_server_through_the_bridge_gets_exactly_the_shared_folder() {
    let rg = Rootgate::new();
    let script = ts_modern_server().display().to_string();
    let spec = rg.server("ts modern", "node", &[&script, "--modern-only"]);
    let (a, a_path) = rg.folder("shared");
    rg.share(&spec.id, &a);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("ts modern")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    assert_eq!(app.connected["server"]["name"], "ts-modern-server");
    assert_eq!(lines(&mut app, "protocol").await.unwrap(), ["2026-07-28"]);
    assert_eq!(lines(&mut app, "ask_roots").await.unwrap(), [uri(&a_path)]);
    let state = lines(&mut app, "ask_state").await.unwrap().join("\n");
    let report: Value = serde_json::from_str(&state).expect(&state);
    assert_eq!(report["state"], "ts-state:\u{e9} \"q\"");
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

/// The TypeScript SDK 2.x client pinned to 2026-07-28: a modern-only app.
async fn modern_app(rg: &Rootgate, options: &[&str], name: &str) -> App {
    let mut all = vec!["--pin"];
    all.extend_from_slice(options);
    App::start(rg, Sdk::TypeScript2, &all, &rg.connect_command(name)).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_only_app_is_served_by_a_legacy_server() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (a, a_path) = rg.folder("shared");
    rg.share(&files.id, &a);
    let mut app = modern_app(&rg, &[], "files").await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    assert_eq!(app.connected["protocolVersion"], "2026-07-28");
    assert_eq!(app.connected["server"]["name"], "secure-filesystem-server");
    // The legacy server asks for its roots after the bridge's
    // `notifications/initialized` (the app never sends one), and reports them.
    let want = a_path.display().to_string();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let text = lines(&mut app, "list_allowed_directories")
            .await
            .unwrap()
            .join("\n");
        if text.contains(&want) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server allows: {text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_only_app_is_served_by_a_modern_server_and_asked_only_what_is_its_own() {
    let rg = Rootgate::new();
    let spec = modern(&rg, "modern");
    let (a, a_path) = rg.folder("shared");
    rg.share(&spec.id, &a);
    let mut app = modern_app(&rg, &["--elicitation"], "modern").await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    assert_eq!(app.connected["protocolVersion"], "2026-07-28");
    assert_eq!(app.connected["server"]["name"], "py-modern-server");
    // The app declared no roots; the server gets Rootgate's anyway.
    assert_eq!(lines(&mut app, "ask_roots").await.unwrap(), [uri(&a_path)]);
    // Roots and a name in one round: the app is asked only for the name,
    // and the bridge adds the roots when the server asks for them again.
    let answer = app
        .request(json!({"op": "callTool", "name": "ask_both", "elicit": {"name": "Ada"}}))
        .await;
    let text = tool_text(&answer["ok"]);
    let both: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {answer}"));
    assert_eq!(both["roots"], json!([uri(&a_path)]));
    assert_eq!(both["name"]["name"], "Ada");
    let asked = app.take_events("elicitation");
    assert!(!asked.is_empty(), "the app was asked for the name");
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

/// Calls `tool` until it reports exactly `want`, allowing only `old` (or an
/// error while the server restarts to withdraw) meanwhile.
async fn until_exactly(app: &mut App, tool: &str, old: &[String], want: &[String]) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match lines(app, tool).await {
            Ok(got) if got == want => return,
            Ok(got) => assert!(got == old, "{tool}: only the old or the new set: {got:?}"),
            Err(e) => assert!(
                e.contains("restart") || e.contains("stopped"),
                "{tool}: {e}"
            ),
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{tool}: never {want:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dual_era_servers_through_the_bridge_get_their_folders_whichever_way_they_ask() {
    // Both SDKs' servers in their default wiring, era left to Rootgate,
    // reached by a legacy app (TypeScript SDK 1.x), a dual-era one that
    // probes first (Python SDK 2.x) and a modern-only one (TypeScript SDK
    // 2.x pinned): `legacy_roots` asks the 1.x way, `ask_roots` with the
    // round helper, and each reports exactly what it was given.
    let rg = Rootgate::new();
    let py = py_modern_server().display().to_string();
    let ts = ts_modern_server().display().to_string();
    let servers = [
        rg.server("py dual", python().display().to_string(), &[&py]),
        rg.server("ts dual", "node", &[&ts]),
    ];
    for (sdk, options) in [
        (Sdk::TypeScript, &[][..]),
        (Sdk::Python, &[]),
        (Sdk::TypeScript2, &["--pin"]),
    ] {
        for spec in &servers {
            let said = format!("{sdk:?} app, {}", spec.name);
            let (a, a_path) = rg.folder(&format!("{said} a"));
            let (b, b_path) = rg.folder(&format!("{said} b"));
            rg.share(&spec.id, &a);
            let mut app = App::start(&rg, sdk, options, &rg.connect_command(&spec.name)).await;
            assert_eq!(
                app.connected["event"], "connected",
                "{said}: {}",
                app.connected
            );
            // Spoken to in the legacy era, whatever the app speaks: the
            // server says so itself (the Python SDK names the version, the
            // TypeScript server finds no modern envelope).
            let protocol = lines(&mut app, "protocol").await.unwrap();
            assert!(
                protocol == ["2025-11-25"] || protocol == ["legacy"],
                "{said}: {protocol:?}"
            );
            let old = [uri(&a_path)];
            for tool in ["legacy_roots", "ask_roots"] {
                assert_eq!(
                    lines(&mut app, tool).await,
                    Ok(old.to_vec()),
                    "{said} {tool}"
                );
            }
            // Swapped in the window, while connected: `a` withdrawn and `b`
            // shared in one change (two changes would make `a` and `b`
            // together a real state in between, which a loaded machine
            // shows).
            rg.store
                .set_server_roots(std::slice::from_ref(&spec.id), std::slice::from_ref(&b))
                .unwrap();
            let new = [uri(&b_path)];
            for tool in ["legacy_roots", "ask_roots"] {
                until_exactly(&mut app, tool, &old, &new).await;
            }
            rg.store.revoke(&spec.id, &b).unwrap();
            app.send(json!({"op": "close"})).await;
            let _ = app.child.wait().await;
        }
    }
}
