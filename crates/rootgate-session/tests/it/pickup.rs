//! Servers that do not follow `list_changed`: one that asks for its folders
//! once and never again, and one that asks only on its own schedule. A
//! withdrawal must still reach them (by restart, within the pickup time),
//! an addition they do not pick up is shown as such, and the server's own
//! report (our fixture writes every list it receives to a file) is what
//! proves it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_model::timeline::Event;
use rootgate_session::delivery::FolderState;
use rootgate_session::{Following, Session};
use rootgate_test_support::harness::*;

async fn wait_reported(report: &Path, want: &[String]) {
    eventually("the server to report its folders", || async {
        match reported(report).last() {
            Some(last) if last == want => Ok(()),
            other => Err(format!("last reported {other:?}, want {want:?}")),
        }
    })
    .await;
}

fn folder_states(session: &Session) -> Vec<(String, FolderState)> {
    session
        .delivery()
        .folders()
        .into_iter()
        .map(|f| (f.name, f.state))
        .collect()
}

/// Our fixture as a server named `name`, run with `flags`, writing every
/// list it receives to the report file returned.
fn reporting_server(h: &Harness, name: &str, flags: &[&str]) -> (ServerSpec, PathBuf) {
    let report = h.dir.path().join("report.jsonl");
    let mut args: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    args.extend(["--report".to_owned(), report.display().to_string()]);
    let spec = h
        .store
        .add_server(ServerDraft {
            name: name.into(),
            command: fixture_server().display().to_string(),
            args,
            ..Default::default()
        })
        .expect("add the fixture server");
    (spec, report)
}

/// A harness whose servers have one second to ask after a notification.
fn quick_pickup() -> Harness {
    let mut h = Harness::new();
    h.config.notify.pickup = Duration::from_secs(1);
    h
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_asks_once_is_restarted_to_withdraw_and_remembered() {
    let h = quick_pickup();
    let (a, a_path) = h.folder("a");
    let (b, b_path) = h.folder("b");
    let (c, c_path) = h.folder("c");
    let (spec, report) = reporting_server(&h, "asks once", &["--ignore-list-changed"]);
    h.store.grant(&spec.id, &a).unwrap();
    let session = h.session_for(&spec);
    running(&session).await;
    wait_reported(&report, &[uri(&a_path)]).await;

    // An addition it does not pick up is shown as such, not assumed.
    let seq = h.now_seq();
    h.store.grant(&spec.id, &b).unwrap();
    h.wait_event(&spec.id, seq, |e| matches!(e, Event::NotPickedUp { .. }))
        .await;
    eventually("the addition to show as not picked up", || async {
        let states = folder_states(&session);
        if states.contains(&("b".to_owned(), FolderState::NotPickedUp)) {
            Ok(())
        } else {
            Err(format!("{states:?}"))
        }
    })
    .await;
    assert_eq!(session.delivery().following, Following::Ignores);
    assert_eq!(reported(&report).last(), Some(&vec![uri(&a_path)]));

    // From then on a withdrawal is applied by restart at once.
    let seq = h.now_seq();
    h.store.revoke(&spec.id, &a).unwrap();
    let restarted = h
        .wait_event(&spec.id, seq, |e| {
            matches!(e, Event::RestartedToWithdraw { .. })
        })
        .await;
    let Event::RestartedToWithdraw { reason } = restarted.event else {
        unreachable!()
    };
    assert!(reason.contains("does not pick up changes"), "{reason}");
    wait_reported(&report, &[uri(&b_path)]).await;
    assert_eq!(
        h.timeline
            .for_server(&spec.id)
            .iter()
            .filter(|e| e.seq >= seq && matches!(e.event, Event::ListChangedSent { .. }))
            .count(),
        0,
        "a server known to ignore changes is not told first"
    );
    let delivery = session.delivery();
    let restart = delivery.restarted.expect("the restart is shown");
    assert_eq!(restart.withdrawn.len(), 1);
    assert_eq!(restart.withdrawn[0].uri, uri(&a_path));
    eventually("the folders to show what the restart did", || async {
        let states = folder_states(&session);
        let want = vec![
            ("b".to_owned(), FolderState::Told),
            ("a".to_owned(), FolderState::RestartedToApply),
        ];
        if states == want {
            Ok(())
        } else {
            Err(format!("{states:?}"))
        }
    })
    .await;

    // The restart does not make it forget: adding c and withdrawing b is
    // again one restart, and the server ends with exactly c.
    h.store
        .set_server_roots(std::slice::from_ref(&spec.id), &[c])
        .unwrap();
    wait_reported(&report, &[uri(&c_path)]).await;
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdrawal_the_server_does_not_ask_for_is_applied_by_restart() {
    let h = quick_pickup();
    let (a, a_path) = h.folder("a");
    let (b, b_path) = h.folder("b");
    let (spec, report) = reporting_server(&h, "asks once", &["--ignore-list-changed"]);
    h.store.grant(&spec.id, &a).unwrap();
    h.store.grant(&spec.id, &b).unwrap();
    let session = h.session_for(&spec);
    running(&session).await;
    wait_reported(&report, &[uri(&a_path), uri(&b_path)]).await;
    assert_eq!(session.delivery().following, Following::Unknown);

    let seq = h.now_seq();
    h.store.revoke(&spec.id, &a).unwrap();
    // It is told first, and restarted when it does not ask in time.
    h.wait_event(&spec.id, seq, |e| {
        matches!(e, Event::ListChangedSent { .. })
    })
    .await;
    let restarted = h
        .wait_event(&spec.id, seq, |e| {
            matches!(e, Event::RestartedToWithdraw { .. })
        })
        .await;
    let Event::RestartedToWithdraw { reason } = restarted.event else {
        unreachable!()
    };
    assert_eq!(reason, "it did not pick up the change within 1 s");
    wait_reported(&report, &[uri(&b_path)]).await;
    assert_eq!(session.delivery().following, Following::Ignores);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_asks_every_few_seconds_is_restarted_within_the_bound() {
    let h = quick_pickup();
    let (a, a_path) = h.folder("a");
    let (b, b_path) = h.folder("b");
    // It asks every 30 s: far longer than the test waits.
    let (spec, report) = reporting_server(&h, "polls", &["--ask-every-ms", "30000"]);
    h.store.grant(&spec.id, &a).unwrap();
    h.store.grant(&spec.id, &b).unwrap();
    let session = h.session_for(&spec);
    running(&session).await;
    wait_reported(&report, &[uri(&a_path), uri(&b_path)]).await;
    let seq = h.now_seq();
    h.store.revoke(&spec.id, &b).unwrap();
    h.wait_event(&spec.id, seq, |e| {
        matches!(e, Event::RestartedToWithdraw { .. })
    })
    .await;
    wait_reported(&report, &[uri(&a_path)]).await;
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_follows_changes_is_never_restarted_for_one() {
    let h = quick_pickup();
    let report = h.dir.path().join("report.jsonl");
    let (a, a_path) = h.folder("a");
    let (b, b_path) = h.folder("b");
    let bin = fixture_server();
    let (spec, session) = h.server(
        "follows",
        bin.to_str().unwrap(),
        &["--report", report.to_str().unwrap()],
    );
    running(&session).await;
    h.store.grant(&spec.id, &a).unwrap();
    h.store.grant(&spec.id, &b).unwrap();
    wait_reported(&report, &[uri(&a_path), uri(&b_path)]).await;
    h.store.revoke(&spec.id, &a).unwrap();
    wait_reported(&report, &[uri(&b_path)]).await;
    eventually("the delivery to settle", || async {
        let d = session.delivery();
        if d.settled() && d.following == Following::Follows {
            Ok(())
        } else {
            Err(format!("{:?} {:?}", d.state, d.following))
        }
    })
    .await;
    assert_eq!(
        folder_states(&session),
        [("b".to_owned(), FolderState::Told)]
    );
    assert!(
        !h.timeline.for_server(&spec.id).iter().any(|e| matches!(
            e.event,
            Event::RestartedToWithdraw { .. } | Event::NotPickedUp { .. }
        )),
        "{:#?}",
        h.timeline.for_server(&spec.id)
    );
    session.shutdown().await;
}
