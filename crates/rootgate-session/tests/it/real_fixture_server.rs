//! Our own fixture server as a real child process: it records every list it
//! receives, so these tests check exactly what reaches a server, when
//! notifications are sent and when they are not.

use std::time::Duration;

use rootgate_model::ids::ServerId;
use rootgate_model::timeline::Event;
use rootgate_test_support::harness::*;

fn notifications(h: &Harness, server: &ServerId) -> usize {
    h.timeline
        .for_server(server)
        .iter()
        .filter(|e| matches!(e.event, Event::ListChangedSent { .. }))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_receives_exactly_its_granted_set() {
    let h = Harness::new();
    let report = h.dir.path().join("report.jsonl");
    let bin = fixture_server();
    let (spec, session) = h.server(
        "fixture",
        bin.to_str().unwrap(),
        &["--report", report.to_str().unwrap()],
    );
    running(&session).await;
    // It asks right after `initialized` and is told nothing is shared.
    h.wait_event(&spec.id, 0, |e| matches!(e, Event::RootsAnswered { .. }))
        .await;
    let (one, one_path) = h.folder("프로젝트 #1");
    let (two, two_path) = h.folder("100% done?");
    h.store.grant(&spec.id, &one).unwrap();
    h.store.grant(&spec.id, &two).unwrap();
    let want = vec![uri(&one_path), uri(&two_path)];
    let got = eventually("the fixture to report both folders", || async {
        let lists = reported(&report);
        match lists.last() {
            Some(last) if *last == want => Ok(lists),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert_eq!(got[0], Vec::<String>::new(), "first answer: nothing shared");

    // Its own tool reports the same list, names included.
    let result = session.call_tool("list_roots", no_args()).await.unwrap();
    let roots = &result["structuredContent"]["roots"];
    assert_eq!(roots[0]["uri"], want[0]);
    assert_eq!(roots[0]["name"], "프로젝트 #1");
    assert_eq!(roots[1]["name"], "100% done?");

    // Renaming is a change the server is told about.
    let seq = h.now_seq();
    h.store.rename_root(&one, "Korean project").unwrap();
    h.wait_event(&spec.id, seq, |e| match e {
        Event::RootsAnswered { roots, .. } => roots.iter().any(|r| r.name == "Korean project"),
        _ => false,
    })
    .await;
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_notification_when_a_servers_own_set_is_unchanged() {
    let h = Harness::new();
    let bin = fixture_server();
    let (a, session_a) = h.server("a", bin.to_str().unwrap(), &[]);
    let (b, session_b) = h.server("b", bin.to_str().unwrap(), &[]);
    running(&session_a).await;
    running(&session_b).await;
    h.wait_event(&a.id, 0, |e| matches!(e, Event::RootsAnswered { .. }))
        .await;
    let (root, _) = h.folder("only-b");
    let seq = h.now_seq();
    h.store.grant(&b.id, &root).unwrap();
    h.wait_event(
        &b.id,
        seq,
        |e| matches!(e, Event::RootsAnswered { roots, .. } if roots.len() == 1),
    )
    .await;
    // Adding a folder shared with no one and renaming b's folder: a's list
    // never changed, so a is never notified.
    h.folder("shared with no one");
    h.store.rename_root(&root, "renamed").unwrap();
    h.wait_event(&b.id, seq, |e| matches!(e, Event::RootsAnswered { roots, .. } if roots.first().is_some_and(|r| r.name == "renamed")))
        .await;
    assert_eq!(notifications(&h, &a.id), 0);
    session_a.shutdown().await;
    session_b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_is_one_notification_and_the_last_answer_is_the_newest() {
    let mut h = Harness::new();
    // The server waits a second before asking, and the gate holds for two:
    // every change of the burst lands while the first notification is out.
    h.config.notify.hold = Duration::from_secs(2);
    let bin = fixture_server();
    let (spec, session) = h.server(
        "slow asker",
        bin.to_str().unwrap(),
        &["--ask-delay-ms", "1000"],
    );
    running(&session).await;
    h.wait_event(&spec.id, 0, |e| matches!(e, Event::RootsAnswered { .. }))
        .await;
    let folders: Vec<_> = (0..10).map(|i| h.folder(&format!("f{i}"))).collect();
    for (id, _) in &folders {
        h.store.grant(&spec.id, id).unwrap();
    }
    let want: Vec<String> = folders.iter().map(|(_, p)| uri(p)).collect();
    eventually("the newest list to be answered", || async {
        match h.last_answer(&spec.id) {
            Some(last) if last == want => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert_eq!(
        notifications(&h, &spec.id),
        1,
        "{:#?}",
        h.timeline.for_server(&spec.id)
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_command_fails_with_the_command_named() {
    let h = Harness::new();
    let (_, session) = h.server("ghost", "/nonexistent/mcp-server", &["--flag"]);
    let reason = failure_reason(&session).await;
    assert!(
        reason.contains("/nonexistent/mcp-server --flag"),
        "{reason}"
    );
    assert!(
        reason.contains("there is no file at /nonexistent/mcp-server"),
        "{reason}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_at_start_says_why_in_its_own_words() {
    let h = Harness::new();
    let (_, session) = h.server(
        "broken",
        "sh",
        &["-c", "echo 'Error: missing API key' >&2; exit 3"],
    );
    let reason = failure_reason(&session).await;
    assert!(reason.contains("exit code 3"), "{reason}");
    assert!(reason.contains("missing API key"), "{reason}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_asks_is_told_about_folders_shared_before_it_started() {
    let h = Harness::new();
    let report = h.dir.path().join("report.jsonl");
    let bin = fixture_server();
    let spec = h
        .store
        .add_server(rootgate_model::servers::ServerDraft {
            name: "quiet".into(),
            command: bin.to_str().unwrap().into(),
            args: vec![
                "--no-roots-on-init".into(),
                "--report".into(),
                report.to_str().unwrap().into(),
            ],
            ..Default::default()
        })
        .unwrap();
    let (root, path) = h.folder("shared before start");
    h.store.grant(&spec.id, &root).unwrap();
    let session = h.session_for(&spec);
    running(&session).await;
    h.wait_event(&spec.id, 0, |e| matches!(e, Event::ListChangedSent { .. }))
        .await;
    let want = vec![uri(&path)];
    eventually("the quiet server to report the folder", || async {
        match reported(&report).last() {
            Some(last) if *last == want => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    session.shutdown().await;
}
