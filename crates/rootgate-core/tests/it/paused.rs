//! Pause all sharing in the window's own session: the supervisor the app
//! runs, with the real npm filesystem server approved and started as a
//! person would. Paused, the server's own `list_allowed_directories`
//! reports no folder while the grant stays; resumed, the folder is back.
//! (The same through a bridge and the real app's tray:
//! `rootgate-cli`'s `tray` tests.)

use std::path::PathBuf;
use std::sync::Arc;

use rootgate_core::supervisor::Supervisor;
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerDraft;
use rootgate_model::settings::SettingsFile;
use rootgate_session::SessionConfig;
use rootgate_test_support::harness::*;

/// Asks the server, through the window's try, until it reports `want`.
/// A withdrawal restarts this server (it keeps folders on an empty list),
/// so a call may find it starting again: then it waits for it to run.
async fn reports(sup: &Arc<Supervisor>, id: &ServerId, want: &[PathBuf]) {
    let deadline = tokio::time::Instant::now() + WAIT;
    for call in 1.. {
        let outcome = match sup
            .tries()
            .call_tool(id, call, "list_allowed_directories", Default::default())
            .await
        {
            Ok(outcome) => outcome,
            Err(e) => {
                assert!(tokio::time::Instant::now() < deadline, "the tool: {e}");
                running(&sup.servers().session_of(id).expect("session")).await;
                continue;
            }
        };
        let now: Vec<PathBuf> = tool_text(&outcome.result)
            .lines()
            .filter(|l| l.starts_with('/'))
            .map(PathBuf::from)
            .collect();
        if now == want {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server still reports {now:?}, not {want:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pausing_tells_the_windows_own_server_no_folders_and_resuming_tells_it_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sup = Supervisor::open(
        SettingsFile::at(dir.path().join("config/rootgate/settings.json")),
        SessionConfig::default(),
    )
    .expect("open supervisor");
    let view = sup
        .servers()
        .add_server(ServerDraft {
            name: "files".into(),
            command: node(),
            args: vec![fs_server_js().display().to_string()],
            enabled: true,
            ..Default::default()
        })
        .expect("add the server");
    let id = view.spec.id.clone();
    sup.servers()
        .approve_command(&id, &view.command_line)
        .expect("approve its command");
    let folder = dir.path().join("shared");
    std::fs::create_dir(&folder).expect("mkdir");
    let folder = folder.canonicalize().expect("real path");
    let prompt = sup.consent().prompt_for_path(&folder).expect("prompt");
    sup.consent()
        .answer_prompt(prompt.id, std::slice::from_ref(&id), None)
        .expect("share");
    sup.servers().start(&id).expect("start");
    running(&sup.servers().session_of(&id).expect("session")).await;
    reports(&sup, &id, std::slice::from_ref(&folder)).await;

    sup.preferences().set_sharing_paused(true).expect("pause");
    assert!(sup.preferences().sharing_paused());
    reports(&sup, &id, &[]).await;
    // The person's choice is kept while paused.
    let folders = sup.folders().list();
    assert_eq!(folders.len(), 1);
    assert_eq!(folders[0].servers.len(), 1, "{folders:?}");

    sup.preferences().set_sharing_paused(false).expect("resume");
    reports(&sup, &id, std::slice::from_ref(&folder)).await;
}
