//! An AI app's suggestions as the person meets them: the prompt names the
//! app by its product's name (Claude Code's client says `claude-code`), a
//! suggestion the person cancelled can be asked for again from the
//! connection's page, and a prompt that would take a folder away from a
//! server says which app is connected to it now. The app is the official
//! TypeScript SDK client, starting the real `rootgate connect`; the window
//! is the supervisor the desktop app runs.

use rootgate_test_support::app::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_suggestion_is_asked_again_and_a_withdrawal_names_the_app_connected() {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let mut changes = sup.subscribe();
    let fixture = binary("rootgate-example-server").display().to_string();
    let files = rg.server("files", &fixture, &[]);
    let work = rg.dir.path().join("folders/project");
    std::fs::create_dir_all(&work).unwrap();
    let real = work.canonicalize().unwrap();
    let uri = rootgate_core::uri::path_to_uri(&real).unwrap().to_string();
    let mut app = App::start(
        &rg,
        Sdk::TypeScript,
        &["--roots", &uri, "--name", "claude-code"],
        &rg.connect_command("files"),
    )
    .await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);

    // The prompt names the product, not the client's own name.
    let first = suggested(&mut changes).await;
    let suggestion = first.suggestion.clone().unwrap();
    assert_eq!(suggestion.app, "Claude Code");
    assert_eq!(first.real_path, real);
    let live = connection(&sup, |c| {
        c.live && c.app.as_ref().is_some_and(|a| a.name == "claude-code")
    })
    .await;

    // Cancelled: nothing opens it again by itself...
    sup.consent().cancel_prompt(first.id);
    assert!(sup.consent().open_prompts().is_empty());
    // ...until the person asks from the connection's page.
    let again = sup.consent().suggest_again(&live.id);
    assert_eq!(again.len(), 1, "{again:#?}");
    assert_eq!(again[0].real_path, real);
    assert_eq!(again[0].suggestion.as_ref().unwrap().app, "Claude Code");
    assert!(
        again[0]
            .servers
            .iter()
            .any(|s| s.id == files.id && s.suggested)
    );
    // Asked while it is open, it is not asked twice.
    assert!(sup.consent().suggest_again(&live.id).is_empty());
    // A connection the window does not know has nothing to ask.
    assert!(
        sup.consent()
            .suggest_again(&rootgate_core::ids::ConnectionId::generate())
            .is_empty()
    );

    // Shared, then a prompt to change who sees it: the server it would be
    // taken from has Claude Code connected now, and says so.
    let root = sup
        .consent()
        .answer_prompt(again[0].id, std::slice::from_ref(&files.id), None)
        .unwrap();
    assert!(
        sup.consent().suggest_again(&live.id).is_empty(),
        "a folder shared with the server already is not suggested"
    );
    let change = sup.consent().prompt_for_root(&root.root.id).unwrap();
    let choice = change.servers.iter().find(|s| s.id == files.id).unwrap();
    assert!(choice.granted);
    assert_eq!(choice.connected, vec!["Claude Code".to_owned()]);

    app.send(serde_json::json!({"op": "close"})).await;
    let _ = app.child.wait().await;
    connection(&sup, |c| c.id == live.id && !c.live).await;
    // Once the app has gone, nobody is named.
    let after = sup.consent().prompt_for_root(&root.root.id).unwrap();
    assert!(
        after.servers.iter().all(|s| s.connected.is_empty()),
        "{after:#?}"
    );
    sup.shutdown().await;
}
