//! Folders that change under Rootgate: a shared folder that is deleted or
//! renamed is withdrawn from its server within moments (filesystem events,
//! no polling) while its grant is kept, and when it comes back at the same
//! real path it is offered to the same server again without a new prompt.
//! Unmounting and permission changes use the same path (an event on the
//! folder, then a re-check) but need privileges these tests do not assume.

#[path = "support/harness.rs"]
mod harness;

use std::sync::Arc;

use harness::*;
use rootgate_core::servers::ServerDraft;
use rootgate_core::session::SessionConfig;
use rootgate_core::settings::SettingsFile;
use rootgate_core::supervisor::Supervisor;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_folder_is_withdrawn_and_offered_again_when_it_returns() {
    let dir = tempfile::tempdir().unwrap();
    let sup: Arc<Supervisor> = Supervisor::open(
        SettingsFile::at(dir.path().join("config/settings.json")),
        SessionConfig::default(),
    )
    .unwrap();
    let view = sup
        .add_server(ServerDraft {
            name: "fixture".into(),
            command: fixture_server().to_str().unwrap().into(),
            ..Default::default()
        })
        .unwrap();
    let id = view.spec.id.clone();
    sup.approve_command(&id, &view.command_line).unwrap();
    let keep = dir.path().join("folders/keep");
    let flaky = dir.path().join("folders/flaky");
    for path in [&keep, &flaky] {
        std::fs::create_dir_all(path).unwrap();
        let prompt = sup.prompt_for_path(path).unwrap();
        sup.answer_prompt(prompt.id, std::slice::from_ref(&id), None)
            .unwrap();
    }
    sup.start(&id).unwrap();
    let session = sup.session_of(&id).unwrap();
    running(&session).await;
    let both = vec![
        uri(&keep.canonicalize().unwrap()),
        uri(&flaky.canonicalize().unwrap()),
    ];
    let only_keep = vec![both[0].clone()];
    let timeline = Arc::clone(sup.timeline());
    let wait = |from: u64, want: Vec<String>| {
        let (timeline, id) = (Arc::clone(&timeline), id.clone());
        async move { wait_timeline(&timeline, &id, from, answered_exactly(want)).await }
    };
    wait(0, both.clone()).await;

    // Deleted: withdrawn, grant kept, shown unavailable.
    let seq = sup.timeline().all().last().unwrap().seq;
    std::fs::remove_dir(&flaky).unwrap();
    wait(seq, only_keep.clone()).await;
    let folders = sup.folders();
    let gone = folders
        .iter()
        .find(|f| f.root.real_path.ends_with("flaky"))
        .unwrap();
    assert!(!gone.available);
    assert_eq!(gone.servers, vec![id.clone()], "the grant is kept");

    // Back at the same path: offered again without a prompt.
    let seq = sup.timeline().all().last().unwrap().seq;
    std::fs::create_dir(&flaky).unwrap();
    wait(seq, both.clone()).await;

    // Renamed away: withdrawn again.
    let seq = sup.timeline().all().last().unwrap().seq;
    std::fs::rename(&flaky, dir.path().join("folders/renamed")).unwrap();
    wait(seq, only_keep).await;
    sup.shutdown().await;
}
