//! A held server through the supervisor the window runs (issue #39):
//! allowing a running held server the network restarts it, since its
//! network is its sandbox's, made at start. What a held server can and
//! cannot reach is tested under a session, beside the session
//! (`rootgate-session`'s `tests/it/held.rs`).

use rootgate_launcher::enforcement::{self, Support};
use rootgate_model::servers::ServerDraft;
use rootgate_session::Status;
use rootgate_test_support::harness::*;

fn require_held() {
    match enforcement::support() {
        Support::Available => {}
        other => panic!("held servers cannot be tested here: {other:?}"),
    }
}

/// A held server's network is its sandbox's, made at start: allowing it
/// restarts a running server, as a change of its command would.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowing_a_running_held_server_the_network_restarts_it() {
    use rootgate_core::supervisor::Supervisor;
    use rootgate_model::settings::SettingsFile;
    require_held();
    let dir = tempfile::tempdir().expect("a folder");
    let sup = Supervisor::open(
        SettingsFile::at(dir.path().join("config/settings.json")),
        rootgate_session::SessionConfig::default(),
    )
    .expect("open supervisor");
    let view = sup
        .servers()
        .add_server(ServerDraft {
            name: "held".into(),
            command: fixture_server().display().to_string(),
            enabled: true,
            enforce_roots: true,
            ..Default::default()
        })
        .expect("add server");
    let id = view.spec.id.clone();
    sup.servers()
        .approve_command(&id, &view.command_line)
        .expect("approve");
    sup.servers().start(&id).expect("start");
    let session = sup.servers().session_of(&id).expect("its session");
    let pid_of = |status: &Status| match status {
        Status::Running(info) => info.pid,
        other => panic!("not running: {other:?}"),
    };
    let before = pid_of(&running(&session).await);
    let mut draft = view.spec.to_draft();
    draft.allow_network = true;
    let edited = sup
        .servers()
        .update_server(&id, draft)
        .await
        .expect("update");
    assert!(edited.approved, "the network is not the command");
    assert!(edited.spec.allow_network);
    let after = session
        .wait_for(WAIT, |s| matches!(s, Status::Running(i) if i.pid != before))
        .await;
    assert!(
        matches!(&after, Status::Running(i) if i.pid != before),
        "{after:?}"
    );
    sup.shutdown().await;
}
