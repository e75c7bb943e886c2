//! The npm `@modelcontextprotocol/server-filesystem` as a real child
//! process: what it is told is what it allows, per server, including the
//! withdrawal of its last folder (which it ignores as a notification, so
//! Rootgate restarts it).

use std::path::PathBuf;

use rootgate_model::timeline::Event;
use rootgate_session::Session;
use rootgate_test_support::harness::*;

/// The folders the server says it allows, via its own tool.
async fn allowed(session: &Session) -> Result<Vec<PathBuf>, String> {
    let result = session
        .call_tool("list_allowed_directories", no_args())
        .await
        .map_err(|e| e.to_string())?;
    Ok(tool_text(&result)
        .lines()
        .filter(|l| l.starts_with('/'))
        .map(PathBuf::from)
        .collect())
}

async fn wait_allowed(session: &Session, want: &[&PathBuf]) {
    eventually("the filesystem server's allowed list to match", || async {
        let got = allowed(session).await?;
        let mut got_sorted = got.clone();
        got_sorted.sort();
        let mut want_sorted: Vec<PathBuf> = want.iter().map(|p| (*p).clone()).collect();
        want_sorted.sort();
        if got_sorted == want_sorted {
            Ok(())
        } else {
            Err(format!("allowed {got:?}, want {want_sorted:?}"))
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grants_and_revokes_reach_the_filesystem_server() {
    let h = Harness::new();
    let js = fs_server_js();
    let (spec, session) = h.server("files", node(), &[js.to_str().unwrap()]);
    let status = running(&session).await;
    let rootgate_session::Status::Running(info) = status else {
        unreachable!()
    };
    assert_eq!(info.protocol_version, "2025-11-25");
    assert_eq!(info.server_name, "secure-filesystem-server");

    let (one, one_path) = h.folder("one");
    let (two, two_path) = h.folder("two with space");
    wait_allowed(&session, &[]).await;

    h.store.grant(&spec.id, &one).unwrap();
    h.store.grant(&spec.id, &two).unwrap();
    wait_allowed(&session, &[&one_path, &two_path]).await;

    // Withdrawing one of two folders is told with list_changed.
    let seq = h.now_seq();
    h.store.revoke(&spec.id, &one).unwrap();
    wait_allowed(&session, &[&two_path]).await;
    h.wait_event(&spec.id, seq, |e| {
        matches!(e, Event::ListChangedSent { .. })
    })
    .await;

    // Withdrawing the last one needs a restart: the server keeps its old
    // folders when told the list is empty.
    let seq = h.now_seq();
    h.store.revoke(&spec.id, &two).unwrap();
    h.wait_event(&spec.id, seq, |e| {
        matches!(e, Event::RestartedToWithdraw { .. })
    })
    .await;
    running(&session).await;
    wait_allowed(&session, &[]).await;
    // And it does not get it back by asking.
    assert_eq!(h.last_answer(&spec.id), Some(vec![]));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_granted_to_another_server_never_appears() {
    let h = Harness::new();
    let js = fs_server_js();
    let (a, session_a) = h.server("a", node(), &[js.to_str().unwrap()]);
    let (b, session_b) = h.server("b", node(), &[js.to_str().unwrap()]);
    running(&session_a).await;
    running(&session_b).await;
    let (for_a, path_a) = h.folder("for-a");
    let (for_b, path_b) = h.folder("for-b");
    h.store.grant(&a.id, &for_a).unwrap();
    h.store.grant(&b.id, &for_b).unwrap();
    wait_allowed(&session_a, &[&path_a]).await;
    wait_allowed(&session_b, &[&path_b]).await;
    // Every answer either server ever got held only its own folder.
    for (server, own) in [(&a.id, uri(&path_a)), (&b.id, uri(&path_b))] {
        for entry in h.timeline.for_server(server) {
            if let Event::RootsAnswered { roots, .. } = entry.event {
                assert!(roots.iter().all(|r| r.uri == own), "{server} got {roots:?}");
            }
        }
    }
    session_a.shutdown().await;
    session_b.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn npx_and_its_node_are_gone_after_shutdown() {
    let h = Harness::new();
    let marker = h.dir.path().join("npx-marker-folder");
    std::fs::create_dir_all(&marker).unwrap();
    let mut draft = rootgate_model::servers::ServerDraft {
        name: "via npx".into(),
        command: "npx".into(),
        args: vec![
            "--offline".into(),
            "--no-install".into(),
            "mcp-server-filesystem".into(),
            marker.to_str().unwrap().into(),
        ],
        cwd: Some(peers()),
        enabled: true,
        ..Default::default()
    };
    draft
        .env
        .insert("npm_config_update_notifier".into(), "false".into());
    let spec = h.store.add_server(draft).unwrap();
    let session = h.session_for(&spec);
    let rootgate_session::Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    let marker_text = marker.to_str().unwrap().to_owned();
    let with_marker = || -> Vec<i32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .map(|c| String::from_utf8_lossy(&c).contains(&marker_text))
                    .unwrap_or(false)
            })
            .collect()
    };
    // npx runs the server in a node process of its own: two processes.
    let before = with_marker();
    assert!(before.len() >= 2, "expected npx and node, found {before:?}");
    session.shutdown().await;
    let left: Vec<i32> = with_marker()
        .into_iter()
        .filter(|pid| {
            // A zombie waiting for its parent to reap it is not running.
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| {
                    !s.rsplit_once(')')
                        .map(|(_, r)| r.trim_start().starts_with('Z'))
                        .unwrap_or(false)
                })
                .unwrap_or(false)
        })
        .collect();
    assert!(left.is_empty(), "left running: {left:?}");
    assert!(rootgate_launcher::procs::live_members(info.pid as i32).is_empty());
}
