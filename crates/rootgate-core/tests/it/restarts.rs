//! An enabled server that stops unexpectedly is started again with
//! exponential backoff; a crash loop stops after a bound and says so; a
//! manual start resets the count; a server that is not enabled is left
//! stopped. Delays are shortened here; the default policy is 1 s doubling
//! to 30 s, five attempts.

use std::sync::Arc;
use std::time::Duration;

use rootgate_core::supervisor::{RestartPolicy, Supervisor};
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerDraft;
use rootgate_model::settings::SettingsFile;
use rootgate_model::timeline::Event;
use rootgate_session::{SessionConfig, Status};
use rootgate_test_support::harness::*;

fn open(dir: &tempfile::TempDir) -> Arc<Supervisor> {
    Supervisor::open_with(
        SettingsFile::at(dir.path().join("config/settings.json")),
        SessionConfig::default(),
        RestartPolicy {
            first_delay: Duration::from_millis(20),
            max_delay: Duration::from_millis(100),
            max_attempts: 3,
            stable_after: Duration::from_secs(60),
        },
    )
    .expect("open supervisor")
}

fn approved(sup: &Supervisor, draft: ServerDraft) -> ServerId {
    let view = sup.servers().add_server(draft).expect("add server");
    sup.servers()
        .approve_command(&view.spec.id, &view.command_line)
        .expect("approve");
    view.spec.id
}

fn crasher(enabled: bool) -> ServerDraft {
    ServerDraft {
        name: "crasher".into(),
        command: "sh".into(),
        args: vec!["-c".into(), "echo 'boom' >&2; exit 1".into()],
        enabled,
        ..Default::default()
    }
}

fn count(sup: &Supervisor, id: &ServerId, from: u64, f: impl Fn(&Event) -> bool) -> usize {
    sup.servers()
        .timeline_of(id)
        .iter()
        .filter(|e| e.seq >= from && f(&e.event))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_loop_stops_after_the_bound_and_a_manual_start_resets_it() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let id = approved(&sup, crasher(true));
    sup.servers().start(&id).unwrap();
    wait_timeline(sup.timeline(), &id, 0, |e| {
        matches!(e, Event::GaveUp { attempts: 3 })
    })
    .await;
    let scheduled = |e: &Event| matches!(e, Event::RestartScheduled { .. });
    assert_eq!(count(&sup, &id, 0, scheduled), 3);
    let delays: Vec<u64> = sup
        .servers()
        .timeline_of(&id)
        .iter()
        .filter_map(|e| match e.event {
            Event::RestartScheduled { delay_ms, .. } => Some(delay_ms),
            _ => None,
        })
        .collect();
    assert!(
        delays.windows(2).all(|w| w[1] >= w[0]),
        "backoff grows: {delays:?}"
    );
    let status = sup.servers().session_of(&id).unwrap().status();
    let Status::Failed { reason } = status else {
        panic!("{status:?}")
    };
    assert!(reason.contains("boom"), "{reason}");

    // The person starts it again: a fresh budget of attempts.
    let seq = sup.timeline().all().last().unwrap().seq + 1;
    sup.servers().start(&id).unwrap();
    wait_timeline(sup.timeline(), &id, seq, |e| {
        matches!(e, Event::GaveUp { .. })
    })
    .await;
    assert_eq!(count(&sup, &id, seq, scheduled), 3);
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_session_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let id = approved(
        &sup,
        ServerDraft {
            name: "fixture".into(),
            command: fixture_server().to_str().unwrap().into(),
            enabled: true,
            ..Default::default()
        },
    );
    sup.servers().start(&id).unwrap();
    let session = sup.servers().session_of(&id).unwrap();
    let Status::Running(first) = running(&session).await else {
        unreachable!()
    };
    let seq = sup.timeline().all().last().unwrap().seq + 1;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(first.pid as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_timeline(sup.timeline(), &id, seq, |e| {
        matches!(e, Event::RestartScheduled { attempt: 1, .. })
    })
    .await;
    let second = wait_timeline(sup.timeline(), &id, seq, |e| {
        matches!(e, Event::Initialized { .. })
    })
    .await;
    assert!(second.seq > seq);
    let Status::Running(now) = running(&session).await else {
        unreachable!()
    };
    assert_ne!(now.pid, first.pid);
    let exited = sup
        .servers()
        .timeline_of(&id)
        .into_iter()
        .find_map(|e| match e.event {
            Event::Exited {
                status,
                expected: false,
            } => Some(status),
            _ => None,
        });
    assert_eq!(exited.as_deref(), Some("killed by SIGKILL"));
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_not_enabled_is_not_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let id = approved(&sup, crasher(false));
    sup.servers().start(&id).unwrap();
    let session = sup.servers().session_of(&id).unwrap();
    session
        .wait_for(WAIT, |s| matches!(s, Status::Failed { .. }))
        .await;
    // Give a wrongly scheduled restart the time it would need to show.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        count(&sup, &id, 0, |e| matches!(
            e,
            Event::RestartScheduled { .. }
        )),
        0
    );
    // One attempt, one start: a server that ends at once is not started
    // again in another era (only a refused `initialize` is, see `era`).
    assert_eq!(
        count(&sup, &id, 0, |e| matches!(e, Event::Starting { .. })),
        1
    );
}

/// A policy whose first retry waits long enough to be seen and stopped.
fn open_slow(dir: &tempfile::TempDir) -> Arc<Supervisor> {
    Supervisor::open_with(
        SettingsFile::at(dir.path().join("config/settings.json")),
        SessionConfig::default(),
        RestartPolicy {
            first_delay: Duration::from_secs(30),
            max_delay: Duration::from_secs(30),
            max_attempts: 5,
            stable_after: Duration::from_secs(60),
        },
    )
    .expect("open supervisor")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_retry_shows_on_the_server_and_stop_retrying_makes_it_wait_across_launches() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open_slow(&dir);
    let mut changes = sup.subscribe();
    let id = approved(&sup, crasher(true));
    sup.servers().start(&id).unwrap();
    let retry = tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(rootgate_core::supervisor::Change::Retry {
                server,
                retry: Some(retry),
            }) = changes.recv().await
                && server == id
            {
                return retry;
            }
        }
    })
    .await
    .expect("a retry is announced");
    assert_eq!((retry.attempt, retry.of), (1, 5));
    let view = sup.servers().server(&id).unwrap();
    assert!(matches!(view.status, Status::Failed { .. }));
    assert_eq!(
        view.retry,
        Some(retry),
        "the row can say when it starts again"
    );

    sup.servers().stop_retrying(&id).unwrap();
    let view = sup.servers().server(&id).unwrap();
    assert_eq!(view.retry, None);
    assert!(view.spec.gave_up);
    let mut control = crasher(true);
    control.name = "control".into();
    let control = approved(&sup, control);
    sup.shutdown().await;
    drop(sup);

    // At the next launch it is not started: it waits for the person. The
    // control, started by the same call just after it, has run and failed
    // by the time this is looked at.
    let sup = open_slow(&dir);
    sup.servers().start_enabled();
    let ran = sup
        .servers()
        .session_of(&control)
        .unwrap()
        .wait_for(WAIT, |s| matches!(s, Status::Failed { .. }))
        .await;
    assert!(matches!(ran, Status::Failed { .. }), "{ran:?}");
    assert!(matches!(
        sup.servers().server(&id).unwrap().status,
        Status::Stopped { .. }
    ));
    // The person starts it: the giving up is over.
    sup.servers().start(&id).unwrap();
    assert!(!sup.servers().server(&id).unwrap().spec.gave_up);
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_gave_up_by_itself_waits_for_the_person_at_the_next_launch() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let id = approved(&sup, crasher(true));
    sup.servers().start(&id).unwrap();
    wait_timeline(sup.timeline(), &id, 0, |e| {
        matches!(e, Event::GaveUp { attempts: 3 })
    })
    .await;
    // The giving up is saved just after it is recorded.
    eventually("giving up to be kept in the settings", || async {
        if sup
            .servers()
            .server(&id)
            .map_err(|e| e.to_string())?
            .spec
            .gave_up
        {
            Ok(())
        } else {
            Err("not kept yet".to_owned())
        }
    })
    .await;
    let mut control = crasher(true);
    control.name = "control".into();
    let control = approved(&sup, control);
    sup.shutdown().await;
    drop(sup);

    // Launched again, the enabled control is started and fails; the server
    // that gave up is left stopped, not tried five more times.
    let sup = open(&dir);
    let from = sup.timeline().all().last().map_or(0, |e| e.seq + 1);
    sup.servers().start_enabled();
    wait_timeline(sup.timeline(), &control, from, |e| {
        matches!(e, Event::GaveUp { .. })
    })
    .await;
    assert_eq!(
        count(&sup, &id, from, |e| matches!(e, Event::Starting { .. })),
        0
    );
    assert!(matches!(
        sup.servers().server(&id).unwrap().status,
        Status::Stopped { .. }
    ));
    sup.shutdown().await;
}
