//! Whatever the person does, and however fast, every server ends up holding
//! exactly the folders it is granted now, as the server itself reports it.
//!
//! The npm filesystem server acknowledges a `roots/list` answer at once and
//! checks its paths afterwards, so a large answer still being checked can
//! land after a small one given later. These tests run bursts of grants and
//! revokes against it and check the end state through its own tool, once
//! it has applied every answer it was given (it writes one stderr line per
//! answer it applies), so nothing it was told can still land afterwards.

use rootgate_test_support::rng;

use std::collections::BTreeSet;
use std::path::PathBuf;

use rootgate_model::ids::{RootId, ServerId};
use rootgate_model::timeline::Event;
use rootgate_session::Session;
use rootgate_test_support::harness::*;

/// The folders the server says it allows, via its own tool.
async fn allowed(session: &Session) -> Result<BTreeSet<PathBuf>, String> {
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

/// How many answers the server has applied, by its own stderr: it writes
/// one of these lines at the end of checking each answer.
fn applied(session: &Session) -> usize {
    session
        .stderr()
        .lines()
        .iter()
        .filter(|l| {
            l.text
                .contains("Updated allowed directories from MCP roots")
                || l.text
                    .contains("No valid root directories provided by client")
        })
        .count()
}

fn answers(h: &Harness, server: &ServerId) -> usize {
    h.timeline
        .for_server(server)
        .iter()
        .filter(|e| matches!(e.event, Event::RootsAnswered { .. }))
        .count()
}

fn notifications(h: &Harness, server: &ServerId) -> usize {
    h.timeline
        .for_server(server)
        .iter()
        .filter(|e| matches!(e.event, Event::ListChangedSent { .. }))
        .count()
}

/// Waits until Rootgate has nothing more to tell the server and the server
/// has applied every answer it was given, then returns what the server
/// reports it allows.
async fn settled_allowed(h: &Harness, server: &ServerId, session: &Session) -> BTreeSet<PathBuf> {
    eventually("the server to settle on its final folders", || async {
        let delivery = session.delivery();
        let current = h.store.shared_with(server).expect("server").generation();
        if !delivery.settled() || delivery.generation != current {
            return Err(format!(
                "delivery not settled on generation {current} yet: {:?} at {}",
                delivery.state, delivery.generation
            ));
        }
        let (given, done) = (answers(h, server), applied(session));
        if given != done {
            return Err(format!("{done} of {given} answers applied"));
        }
        allowed(session).await
    })
    .await
}

struct Setup {
    h: Harness,
    server: ServerId,
    session: Session,
    folders: Vec<(RootId, PathBuf)>,
}

async fn setup(count: usize) -> Setup {
    setup_with(count, Harness::new()).await
}

async fn setup_with(count: usize, h: Harness) -> Setup {
    let js = fs_server_js();
    let (spec, session) = h.server("files", node(), &[js.to_str().expect("utf-8 path")]);
    running(&session).await;
    let folders = (0..count)
        .map(|i| h.folder(&format!("dir-{i:03}")))
        .collect();
    Setup {
        server: spec.id,
        h,
        session,
        folders,
    }
}

fn paths(folders: &[(RootId, PathBuf)]) -> BTreeSet<PathBuf> {
    folders.iter().map(|(_, p)| p.clone()).collect()
}

/// Checks the end state twice: once settled, and once more after the
/// server has been asked again through its tool a number of times (any
/// answer still being checked would have landed by then; the count check
/// in `settled_allowed` is what proves none is).
async fn check_final(s: &Setup, want: &BTreeSet<PathBuf>, case: &str) {
    let got = settled_allowed(&s.h, &s.server, &s.session).await;
    assert_eq!(
        &got,
        want,
        "{case}: the server holds {} folders, {} granted",
        got.len(),
        want.len()
    );
    let again = allowed(&s.session).await.expect("the tool answers");
    assert_eq!(&again, want, "{case}: changed after settling");
    println!(
        "{case}: the server reports {} folders (want {}); {} notifications, {} answers, {} applied",
        again.len(),
        want.len(),
        notifications(&s.h, &s.server),
        answers(&s.h, &s.server),
        applied(&s.session)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_grants_then_all_but_two_withdrawn() {
    let s = setup(300).await;
    for (root, _) in &s.folders {
        s.h.store.grant(&s.server, root).unwrap();
    }
    for (root, _) in &s.folders[2..] {
        s.h.store.revoke(&s.server, root).unwrap();
    }
    check_final(&s, &paths(&s.folders[..2]), "300 up, 298 down").await;
    s.session.shutdown().await;
}

/// Pacing spaces answers by the time a server may take to apply them, but
/// that is an estimate; the confirming notification is what guarantees the
/// end state. With no pacing and no hold at all, answers overlap as they
/// did before (the server was left with 207 to 301 of 300 folders), and the
/// confirmation alone must still leave it with exactly the granted two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_confirmation_alone_corrects_a_burst_of_overlapping_answers() {
    let mut h = Harness::new();
    h.config.notify.hold = std::time::Duration::ZERO;
    let s = setup_with(120, h).await;
    for (root, _) in &s.folders {
        s.h.store.grant(&s.server, root).unwrap();
    }
    for (root, _) in &s.folders[2..] {
        s.h.store.revoke(&s.server, root).unwrap();
    }
    check_final(&s, &paths(&s.folders[..2]), "unpaced: 120 up, 118 down").await;
    s.session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_folder_then_three_hundred_then_back_to_one() {
    let s = setup(301).await;
    s.h.store.grant(&s.server, &s.folders[0].0).unwrap();
    check_final(&s, &paths(&s.folders[..1]), "one").await;
    for (root, _) in &s.folders[1..] {
        s.h.store.grant(&s.server, root).unwrap();
    }
    for (root, _) in s.folders[1..].iter().rev() {
        s.h.store.revoke(&s.server, root).unwrap();
    }
    check_final(&s, &paths(&s.folders[..1]), "1, +300, -300").await;
    s.session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_grants_and_revokes_end_with_the_granted_set() {
    let s = setup(60).await;
    let seed = rng::seed_from_env("ROOTGATE_FINAL_SET_SEED");
    println!("seed {seed:#x} (ROOTGATE_FINAL_SET_SEED replays it)");
    let mut rng = rng::Rng::new(seed);
    let ops = rng::count_from_env("ROOTGATE_FINAL_SET_OPS", 400);
    let mut granted: BTreeSet<usize> = BTreeSet::new();
    for _ in 0..ops {
        // Now and then a pause, so that changes land at every stage of the
        // server's handling of the one before: while it is told, while it
        // asks, and while it checks an answer.
        if rng.percent(10) {
            let pause = std::time::Duration::from_millis(rng.below(40) as u64);
            tokio::time::sleep(pause).await;
        }
        let i = rng.below(s.folders.len());
        if granted.contains(&i) {
            s.h.store.revoke(&s.server, &s.folders[i].0).unwrap();
            granted.remove(&i);
        } else {
            s.h.store.grant(&s.server, &s.folders[i].0).unwrap();
            granted.insert(i);
        }
    }
    // The server keeps its old folders when told the list is empty, which
    // Rootgate answers with a restart; end with at least one folder so the
    // case is about notifications alone.
    if granted.is_empty() {
        s.h.store.grant(&s.server, &s.folders[0].0).unwrap();
        granted.insert(0);
    }
    let want: BTreeSet<PathBuf> = granted.iter().map(|&i| s.folders[i].1.clone()).collect();
    check_final(&s, &want, &format!("{ops} random operations")).await;
    s.session.shutdown().await;
}
