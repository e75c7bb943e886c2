//! A pause said as a pause: while the person has paused all sharing, an
//! app whose server cannot start without a folder (folders given as
//! arguments) is told that sharing is paused and how to resume, through
//! the real `rootgate connect`, not that its folders were moved, deleted
//! or unmounted; resumed, the same connection reads its folder again.
//! And the call an app makes right after Resume or Share is answered by
//! the server started with the folder, not with the words of before: the
//! bridge catches up with the settings file before it says that no server
//! can start (it used to answer from what its watcher had seen so far).

use rootgate_test_support::app::*;
use serde_json::{Value, json};

async fn list(app: &mut App) -> Value {
    app.request(json!({"op": "callTool", "name": "list_allowed_directories",
                       "arguments": {}, "timeoutMs": 5000}))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_server_tells_the_app_sharing_is_paused_and_how_to_resume() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js, "${folders}"]);
    let (notes, notes_path) = rg.folder("notes");
    rg.share(&files.id, &notes);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    let first = list(&mut app).await;
    assert!(
        tool_text(&first["ok"]).contains(&notes_path.display().to_string()),
        "{first}"
    );

    rg.store
        .change_preferences(|p| p.sharing_paused = true)
        .expect("pause");
    let said = until_refused(&mut app).await;
    assert!(said.contains("sharing is paused"), "{said}");
    assert!(said.contains("Resume sharing"), "{said}");
    assert!(!said.contains("moved, deleted or unmounted"), "{said}");

    rg.store
        .change_preferences(|p| p.sharing_paused = false)
        .expect("resume");
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let answer = list(&mut app).await;
        if tool_text(&answer["ok"]).contains(&notes_path.display().to_string()) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not resumed: {answer}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

/// How many times the folder goes and comes back in the catch-up test.
const ROUNDS: usize = 12;

/// Asks until the app is told why no server can start, and returns it.
async fn until_refused(app: &mut App) -> String {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let answer = list(app).await;
        if let Some(error) = answer["error"].as_str() {
            return error.to_owned();
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still answered: {answer}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// Right after Resume, and right after the folder is shared again, the
/// app's very next call lists the folder, round after round: the call is
/// sent at once after the save returns, before the bridge's own watcher
/// can have seen it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_call_after_resume_or_share_sees_the_folder() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js, "${folders}"]);
    let (notes, notes_path) = rg.folder("notes");
    rg.share(&files.id, &notes);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    let shown = notes_path.display().to_string();
    let mut missed = Vec::new();
    for round in 0..ROUNDS {
        let by_pause = round % 2 == 0;
        if by_pause {
            rg.store
                .change_preferences(|p| p.sharing_paused = true)
                .expect("pause");
        } else {
            rg.store.revoke(&files.id, &notes).expect("withdraw");
        }
        let said = until_refused(&mut app).await;
        if by_pause {
            rg.store
                .change_preferences(|p| p.sharing_paused = false)
                .expect("resume");
        } else {
            rg.share(&files.id, &notes);
        }
        let answer = list(&mut app).await;
        if !tool_text(&answer["ok"]).contains(&shown) {
            let how = if by_pause { "Resume" } else { "Share" };
            missed.push(format!(
                "round {round}, after {how} (before: {said}): {answer}"
            ));
        }
    }
    assert!(
        missed.is_empty(),
        "{} of {ROUNDS} first calls did not see the folder: {missed:#?}",
        missed.len()
    );
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}
