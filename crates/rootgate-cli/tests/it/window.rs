//! The window and the bridges: every AI app's connection shows in the
//! window (who the app is, which server, its calls, what the server was
//! told), also when the window opens after the connection started, and the
//! folders an app works in come up as consent prompts whose answer reaches
//! the server. The window here is the supervisor the desktop app runs.

use rootgate_core::timeline::Event;
use rootgate_test_support::app::*;
use serde_json::json;

fn roots_of(result: &serde_json::Value) -> Vec<String> {
    result["structuredContent"]["roots"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["uri"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_shows_live_and_the_apps_folder_is_a_suggestion_the_person_answers() {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let mut changes = sup.subscribe();
    let fixture = binary("rootgate-example-server").display().to_string();
    let files = rg.server("files", &fixture, &[]);
    let app_folder = rg.dir.path().join("folders/the app works here");
    std::fs::create_dir_all(&app_folder).unwrap();
    let app_uri = rootgate_core::uri::path_to_uri(&app_folder.canonicalize().unwrap())
        .unwrap()
        .to_string();
    let mut app = App::start(
        &rg,
        Sdk::TypeScript,
        &["--roots", &app_uri, "--name", "Claude Code"],
        &rg.connect_command("files"),
    )
    .await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);

    // Nothing is shared with the server by the app saying where it works.
    assert_eq!(
        roots_of(&app.call("ask_roots", json!({})).await),
        Vec::<String>::new()
    );
    let prompt = suggested(&mut changes).await;
    let suggestion = prompt.suggestion.clone().unwrap();
    assert_eq!(suggestion.app, "Claude Code");
    assert_eq!(suggestion.server, files.id);
    assert_eq!(prompt.real_path, app_folder.canonicalize().unwrap());
    let ticked: Vec<_> = prompt
        .servers
        .iter()
        .filter(|s| s.suggested)
        .map(|s| &s.id)
        .collect();
    assert_eq!(
        ticked,
        vec![&files.id],
        "the app's server is suggested, the person decides"
    );
    assert!(prompt.servers.iter().all(|s| !s.granted));

    let live = connection(&sup, |c| {
        c.live && c.app.as_ref().is_some_and(|a| a.name == "Claude Code")
    })
    .await;
    assert_eq!(live.server, files.id);
    assert_eq!(live.server_name, "files");
    assert_eq!(live.app_roots, vec![app_uri.clone()]);

    // The person shares it: the server, asked again, is told.
    sup.consent()
        .answer_prompt(prompt.id, std::slice::from_ref(&files.id), None)
        .unwrap();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if roots_of(&app.call("ask_roots", json!({})).await) == vec![app_uri.clone()] {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the shared folder never reached the server"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // The calls and what the server was told are on the connection, once
    // its reports have reached the window (waited for: under load the
    // window heard two calls before the answer that told the folder).
    let told = |entries: &[rootgate_core::timeline::Entry]| {
        let called = entries.iter().any(|e| {
            matches!(&e.event, Event::Call { method, target, outcome, .. }
        if method == "tools/call" && target.as_deref() == Some("ask_roots") && outcome == "ok")
        });
        let answered = entries.iter().any(|e| matches!(&e.event, Event::RootsAnswered { roots, .. } if roots.iter().any(|r| r.uri == app_uri)));
        called && answered
    };
    rootgate_test_support::wait::eventually("the calls and the answer on the connection", || {
        let entries = sup.bridges().connection_timeline(&live.id);
        let ok = told(&entries);
        async move {
            if ok {
                Ok(())
            } else {
                Err(format!("{entries:#?}"))
            }
        }
    })
    .await;
    // A second connection does not suggest the same folder again.
    let mut again = App::start(
        &rg,
        Sdk::TypeScript,
        &["--roots", &app_uri],
        &rg.connect_command("files"),
    )
    .await;
    connection(&sup, |c| c.live && c.id != live.id).await;
    assert!(
        sup.consent()
            .open_prompts()
            .iter()
            .all(|p| p.suggestion.is_none()),
        "{:#?}",
        sup.consent().open_prompts()
    );

    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
    connection(&sup, |c| {
        c.id == live.id && !c.live && c.ended_at_ms.is_some()
    })
    .await;
    again.send(json!({"op": "close"})).await;
    let _ = again.child.wait().await;
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_window_opened_mid_session_shows_the_connection_and_what_happened_before() {
    let (rg, sup) = Rootgate::with_window();
    let fixture = binary("rootgate-example-server").display().to_string();
    let files = rg.server("files", &fixture, &[]);
    let (root, _) = rg.folder("shared");
    rg.share(&files.id, &root);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    app.call("list_roots", json!({})).await;
    assert!(sup.bridges().list().is_empty(), "no window listened yet");

    // The window opens now.
    sup.listen_for_bridges().await.expect("listen");
    let shown = connection(&sup, |c| c.live && c.calls >= 1).await;
    assert_eq!(shown.server, files.id);
    let entries = sup.bridges().connection_timeline(&shown.id);
    assert!(
        entries
            .iter()
            .any(|e| matches!(e.event, Event::Initialized { .. })),
        "{entries:#?}"
    );
    assert!(entries.iter().any(|e| matches!(&e.event, Event::Call { target, .. } if target.as_deref() == Some("list_roots"))));
    assert!(shown.status.is_running(), "{:?}", shown.status);
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_era_a_bridge_found_is_remembered_by_the_window_for_the_next_one() {
    use rootgate_model::servers::Era;
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    // Modern only: the bridge finds it refuses `initialize`.
    let script = ts_modern_server().display().to_string();
    let modern = rg.server("modern", "node", &[&script, "--modern-only"]);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("modern")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    // The bridge reads the settings and never writes them; the window does.
    eventually(
        "the window to remember the era the bridge found",
        || async {
            match sup
                .servers()
                .server(&modern.id)
                .map_err(|e| e.to_string())?
                .spec
                .seen_era
            {
                Some(Era::Modern) => Ok(()),
                other => Err(format!("{other:?}")),
            }
        },
    )
    .await;
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
    // The next bridge starts the server in that era without asking.
    let mut again = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("modern")).await;
    assert_eq!(again.connected["event"], "connected", "{}", again.connected);
    let second = connection(&sup, |c| c.live && c.server == modern.id).await;
    let entries = eventually("the second bridge's era entry", || async {
        let entries = sup.bridges().connection_timeline(&second.id);
        if entries
            .iter()
            .any(|e| matches!(e.event, Event::EraFound { .. }))
        {
            Ok(entries)
        } else {
            Err(format!("{entries:#?}"))
        }
    })
    .await;
    let how = entries
        .iter()
        .find_map(|e| match &e.event {
            Event::EraFound { era, how } => Some((*era, how.clone())),
            _ => None,
        })
        .expect("an era entry");
    assert_eq!(how.0, Era::Modern);
    assert!(how.1.contains("not asked again"), "{}", how.1);
    again.send(json!({"op": "close"})).await;
    let _ = again.child.wait().await;
}
