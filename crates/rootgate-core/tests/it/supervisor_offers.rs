//! The window's tries, through the supervisor as its commands make them:
//! a numbered call whose progress reaches the window as changes and which
//! `cancel_call` ends; a list the server says changed, as a change; a
//! prompt's string arguments. The server is the npm everything server, as a
//! real process, approved and started as a person would.

use std::collections::BTreeMap;
use std::sync::Arc;

use rootgate_core::supervisor::{Change, Supervisor, SupervisorError};
use rootgate_model::servers::ServerDraft;
use rootgate_model::settings::SettingsFile;
use rootgate_session::notices::OfferKind;
use rootgate_session::{SessionConfig, SessionError};
use rootgate_test_support::harness::*;
use serde_json::json;
use tokio::sync::broadcast;

async fn everything(dir: &tempfile::TempDir) -> (Arc<Supervisor>, rootgate_model::ids::ServerId) {
    let sup = Supervisor::open(
        SettingsFile::at(dir.path().join("config/settings.json")),
        SessionConfig::default(),
    )
    .expect("open supervisor");
    let view = sup
        .servers()
        .add_server(ServerDraft {
            name: "everything".into(),
            command: node(),
            args: vec![everything_js().display().to_string(), "stdio".into()],
            enabled: true,
            ..Default::default()
        })
        .expect("add the server");
    sup.servers()
        .approve_command(&view.spec.id, &view.command_line)
        .expect("approve its command");
    sup.servers().start(&view.spec.id).expect("start it");
    running(
        &sup.servers()
            .session_of(&view.spec.id)
            .expect("its session"),
    )
    .await;
    (sup, view.spec.id)
}

/// The next change that `pick` takes, within the harness's wait.
async fn change<T>(
    changes: &mut broadcast::Receiver<Change>,
    pick: impl Fn(Change) -> Option<T>,
) -> T {
    tokio::time::timeout(WAIT, async {
        loop {
            match changes.recv().await {
                Ok(c) => {
                    if let Some(t) = pick(c) {
                        return t;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("changes ended: {e}"),
            }
        }
    })
    .await
    .expect("the change in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_numbered_call_reports_progress_to_the_window_and_is_cancelled_by_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let (sup, id) = everything(&dir).await;
    let mut changes = sup.subscribe();
    let call = tokio::spawn({
        let (sup, id) = (Arc::clone(&sup), id.clone());
        async move {
            let arguments = json!({ "duration": 60, "steps": 120 });
            let arguments = arguments.as_object().cloned().unwrap_or_default();
            sup.tries()
                .call_tool(&id, 7, "trigger-long-running-operation", arguments)
                .await
        }
    });
    let (progress, total) = change(&mut changes, |c| match c {
        Change::CallProgress {
            call: 7,
            progress,
            total,
            ..
        } => Some((progress, total)),
        _ => None,
    })
    .await;
    assert_eq!((progress, total), (1.0, Some(120.0)));
    // Another number cancels nothing.
    sup.tries().cancel_call(8);
    assert!(!call.is_finished());
    sup.tries().cancel_call(7);
    let ended = tokio::time::timeout(WAIT, call).await.unwrap().unwrap();
    assert!(
        matches!(
            ended,
            Err(SupervisorError::Session(SessionError::Cancelled))
        ),
        "{ended:?}"
    );
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_the_server_changed_reaches_the_window_and_prompts_take_strings() {
    let dir = tempfile::tempdir().unwrap();
    let (sup, id) = everything(&dir).await;
    let mut changes = sup.subscribe();
    let arguments = json!({ "name": "made.gz", "data": "data:text/plain;base64,aGVsbG8=" });
    let made = sup
        .tries()
        .call_tool(
            &id,
            1,
            "gzip-file-as-resource",
            arguments.as_object().cloned().unwrap_or_default(),
        )
        .await
        .unwrap();
    assert_ne!(made.result["isError"], true, "{}", made.result);
    let server = change(&mut changes, |c| match c {
        Change::OffersChanged {
            server,
            offer: OfferKind::Resources,
        } => Some(server),
        _ => None,
    })
    .await;
    assert_eq!(server, id);
    let offers = sup.tries().offers(&id).await.unwrap();
    assert!(
        offers
            .resources
            .items
            .iter()
            .any(|r| r["uri"] == "demo://resource/session/made.gz")
    );

    let mut arguments = BTreeMap::new();
    arguments.insert("city".to_owned(), "Lisbon".to_owned());
    let got = sup
        .tries()
        .get_prompt(&id, "args-prompt", arguments)
        .await
        .unwrap();
    let text = got.result["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("Lisbon"), "{}", got.result);
    sup.shutdown().await;
}
