//! The window's first try after a server starts, made the moment the
//! server runs: the npm filesystem server asks for its folders after
//! `initialized` and applies the answer in the background, so a try made
//! at once would see no folder; the session holds it until the answer is
//! taken as applied (`session::ready`), and says so in the timeline. Every
//! answer checked here is the server's own `list_allowed_directories`.

use rootgate_model::servers::ServerDraft;
use rootgate_model::timeline::Event;
use rootgate_session::offers::Watch;
use rootgate_test_support::harness::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_try_the_moment_the_server_runs_sees_the_shared_folder_in_every_life() {
    let h = Harness::new();
    let (shared, shared_path) = h.folder("shared");
    let js = fs_server_js();
    let spec = h
        .store
        .add_server(ServerDraft {
            name: "files".into(),
            command: node(),
            args: vec![js.display().to_string()],
            ..Default::default()
        })
        .expect("add server");
    h.store.grant(&spec.id, &shared).expect("grant");
    let session = h.session_for(&spec);
    for life in 1..=10 {
        running(&session).await;
        let tried = session
            .try_tool("list_allowed_directories", no_args(), Watch::default())
            .await
            .expect("try");
        let text = tool_text(&tried.result);
        let dirs: Vec<&str> = text.lines().filter(|l| l.starts_with('/')).collect();
        assert_eq!(dirs, [shared_path.to_str().unwrap()], "life {life}: {text}");
        session.stop().await;
        session.start(spec.clone());
    }
    let said: Vec<String> = h
        .timeline
        .for_server(&spec.id)
        .into_iter()
        .filter_map(|e| match e.event {
            Event::FirstRequest { said, .. } => Some(said),
            _ => None,
        })
        .collect();
    assert!(
        said.iter().all(
            |s| s.starts_with("Held the try of tools/call “list_allowed_directories”")
                && s.ends_with("until the server had its folders.")
        ),
        "{said:#?}"
    );
    assert!(!said.is_empty(), "a try made at once waits");
}
