//! Many servers and many folders at once, with real server processes (our
//! fixture server, which appends every roots answer it receives to a report
//! file) driven by real sessions on a real store.
//!
//! - `fifty_servers_and_a_thousand_folders`: 50 servers, 1,000 real
//!   folders, each folder shared with a random handful of servers (one
//!   server sees them all). Every server's answer must be exactly its
//!   granted set; a folder added and shared with some servers, and folders
//!   removed (one shared with several servers, one with none), must reach
//!   exactly the affected servers and leave every other one untouched (no
//!   new list published, no notification, no new answer).
//! - `random_grants_and_revokes_with_servers_asking_end_with_the_granted_set`:
//!   seeded random grants, revokes and "share with exactly these" changes
//!   on 30 servers and 60 folders, while tasks make servers ask
//!   `roots/list` on their own (the fixture's `ask_roots` tool): three make
//!   one busy server (which 40% of the changes concern) ask back to back,
//!   two make random servers ask now and then; every server also asks after
//!   each `list_changed`. Every answer must be a list the server was really
//!   granted at that generation; the timeline must list each server's
//!   answers in the order the server received them (rmcp writes concurrent
//!   answers in any order; see `session::protocol`); and in the end every
//!   server's last answer, as the server itself received it, must be
//!   exactly its final granted set (no lost or stale notification).
//!
//! The starting state of the first test is written as one settings file and
//! loaded by `Store::open`, as the app starts with folders it kept: adding
//! 1,000 roots one saved change at a time costs about half a minute of
//! fsyncs (see rootgate-bench's notes). The second test keeps its settings
//! on `/dev/shm` when there is one, for the same reason: it tests
//! notifications, and thousands of fsyncs would only slow it down. Each
//! server keeps one folder that is never withdrawn, because withdrawing a
//! server's last folder restarts it (tested in `real_filesystem_server.rs`).
//!
//! Size and seed come from the environment: `ROOTGATE_LOAD_OPS` (default
//! 500, for CI) sets the number of random changes, `ROOTGATE_LOAD_SEED`
//! replays the choices of a run (the seed is printed at the start and in
//! every failure; how the steps interleave still depends on scheduling),
//! e.g. `ROOTGATE_LOAD_OPS=10000 cargo nextest run -p rootgate-session --test it load::`.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rootgate_model::consent::Grant;
use rootgate_model::folders;
use rootgate_model::ids::{RootId, ServerId, now_ms};
use rootgate_model::roots::Root;
use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_model::settings::{Settings, SettingsFile};
use rootgate_model::store::Store;
use rootgate_model::timeline::{Event, Timeline};
use rootgate_session::{Session, SessionConfig};
use rootgate_test_support::harness::*;
use rootgate_test_support::rng::{Rng, count_from_env, seed_from_env};
use tokio::task::JoinSet;

/// A fleet of fixture servers on one store.
struct Fleet {
    h: Harness,
    specs: Vec<ServerSpec>,
    sessions: Vec<Session>,
    reports: Vec<PathBuf>,
    /// Each folder's id and URI, in the order the store lists roots.
    folders: Vec<(RootId, String)>,
}

/// Makes `count` real folders under `dir` and returns them checked.
fn make_folders(dir: &Path, count: usize) -> Vec<folders::CheckedFolder> {
    (0..count)
        .map(|i| {
            let path = dir.join(format!("dir-{i:04}"));
            std::fs::create_dir_all(&path).expect("create folder");
            folders::check(&path).expect("check folder")
        })
        .collect()
}

impl Fleet {
    /// Writes settings with `servers` fixture servers, `folders` folders and
    /// the grants `granted(server, folder)` says, opens a store on them
    /// (settings kept in `settings_dir`), and starts every server.
    fn start(
        settings_dir: &Path,
        servers: usize,
        folders: usize,
        granted: impl Fn(usize, usize) -> bool,
    ) -> Fleet {
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = fixture_server();
        let reports: Vec<PathBuf> = (0..servers)
            .map(|s| dir.path().join(format!("report-{s:02}.jsonl")))
            .collect();
        let mut settings = Settings::default();
        for (s, report) in reports.iter().enumerate() {
            let spec = ServerDraft {
                name: format!("fixture {s:02}"),
                command: bin.to_str().expect("utf-8 path").into(),
                args: vec![
                    "--report".into(),
                    report.to_str().expect("utf-8 path").into(),
                ],
                enabled: true,
                ..Default::default()
            }
            .validate(ServerId::generate(), [])
            .expect("valid server");
            settings.servers.push(spec);
        }
        for (f, folder) in make_folders(&dir.path().join("folders"), folders)
            .iter()
            .enumerate()
        {
            let root = Root::new(folder, None);
            for (s, spec) in settings.servers.iter().enumerate() {
                if granted(s, f) {
                    settings.grants.push(Grant {
                        server: spec.id.clone(),
                        root: root.id.clone(),
                        real_path: root.real_path.clone(),
                        granted_at_ms: now_ms(),
                    });
                }
            }
            settings.roots.push(root);
        }
        let file = SettingsFile::at(settings_dir.join("settings.json"));
        file.save(&settings).expect("save settings");
        let (store, recovery) = Store::open(file).expect("open store");
        assert!(recovery.is_none(), "{recovery:?}");
        let folders = settings
            .roots
            .iter()
            .map(|r| (r.id.clone(), uri(&r.real_path)))
            .collect();
        let h = Harness {
            dir,
            store: Arc::new(store),
            // Every entry is kept (the app keeps each server's newest
            // 20,000): the checks compare every answer with what the server
            // received, and a long run gives a busy server more than that.
            timeline: Arc::new(Timeline::with_capacity(usize::MAX)),
            config: SessionConfig::default(),
        };
        let sessions = settings.servers.iter().map(|s| h.session_for(s)).collect();
        Fleet {
            h,
            specs: settings.servers,
            sessions,
            reports,
            folders,
        }
    }

    fn id(&self, s: usize) -> &ServerId {
        &self.specs[s].id
    }

    /// The URIs server `s` may see now, as the store publishes them.
    fn published(&self, s: usize) -> Vec<String> {
        uris_of(&self.h.store, self.id(s))
    }

    /// Waits until server `s` itself reports having received exactly
    /// `want` as its last list, and the timeline's last answer to it is that
    /// list too (the session records an answer a moment after it is sent).
    async fn wait_received(&self, s: usize, want: &[String], context: &str) {
        let report = &self.reports[s];
        eventually(
            &format!("{context}: server {s} to receive its list"),
            || async {
                let timeline = self.h.last_answer(self.id(s));
                match reported(report).last() {
                    Some(last) if last == want && timeline.as_deref() == Some(want) => Ok(()),
                    Some(last) if last == want => Err(format!(
                        "the server has it, but the timeline's last answer is {timeline:?}"
                    )),
                    Some(last) => Err(format!(
                        "its last answer has {} roots, not {} (first difference: {:?})",
                        last.len(),
                        want.len(),
                        first_difference(last, want)
                    )),
                    None => Err("no answer yet".into()),
                }
            },
        )
        .await;
    }

    async fn shutdown(self) {
        let mut all = JoinSet::new();
        for session in self.sessions {
            all.spawn(async move { session.shutdown().await });
        }
        while all.join_next().await.is_some() {}
    }
}

/// The URIs of the folders a server's row of grants marks, in the order the
/// store lists roots: what that server must be told.
fn granted_uris(folders: &[(RootId, String)], row: &[bool]) -> Vec<String> {
    folders
        .iter()
        .zip(row)
        .filter(|(_, granted)| **granted)
        .map(|((_, uri), _)| uri.clone())
        .collect()
}

fn uris_of(store: &Store, server: &ServerId) -> Vec<String> {
    store
        .shared_with(server)
        .expect("known server")
        .roots()
        .iter()
        .map(|r| r.uri.clone())
        .collect()
}

fn first_difference(
    got: &[String],
    want: &[String],
) -> Option<(usize, Option<String>, Option<String>)> {
    (0..got.len().max(want.len()))
        .find(|&i| got.get(i) != want.get(i))
        .map(|i| (i, got.get(i).cloned(), want.get(i).cloned()))
}

fn count_events(
    timeline: &Timeline,
    server: &ServerId,
    from: u64,
    want: impl Fn(&Event) -> bool,
) -> usize {
    timeline
        .for_server(server)
        .iter()
        .filter(|e| e.seq >= from && want(&e.event))
        .count()
}

/// What every server was given before a change, to check afterwards that
/// the change reached exactly the servers it concerns.
struct Before {
    seq: u64,
    generations: Vec<u64>,
    answers: Vec<usize>,
}

impl Fleet {
    /// Waits until every server holds its current list with nothing left
    /// to tell it (a burst ends with a confirming notification), then notes
    /// what each was given: so that what follows is caused by the next
    /// change alone.
    async fn before(&self) -> Before {
        for (s, session) in self.sessions.iter().enumerate() {
            eventually("every server to settle before the next change", || async {
                let d = session.delivery();
                let current = self.h.store.shared_with(self.id(s)).expect("server");
                // Given everything, and done with it: the fixture writes a
                // report line per answer after it read the answer, so an
                // answer just given is not counted until then.
                let given = count_events(&self.h.timeline, self.id(s), 0, |e| {
                    matches!(e, Event::RootsAnswered { .. })
                });
                let reported = reported(&self.reports[s]).len();
                if d.settled() && d.generation == current.generation() && reported == given {
                    Ok(())
                } else {
                    Err(format!(
                        "server {s}: {:?} at {}, {reported} of {given} answers reported",
                        d.state, d.generation
                    ))
                }
            })
            .await;
        }
        Before {
            seq: self.h.now_seq(),
            generations: (0..self.specs.len())
                .map(|s| {
                    self.h
                        .store
                        .shared_with(self.id(s))
                        .expect("server")
                        .generation()
                })
                .collect(),
            answers: self.reports.iter().map(|r| reported(r).len()).collect(),
        }
    }

    /// Checks that `change` reached every server in `affected` (each
    /// receives exactly `expected(s)`) and no other server: their lists
    /// were not republished, they were not notified and did not ask.
    async fn check_reach(
        &self,
        change: &str,
        before: &Before,
        affected: &BTreeSet<usize>,
        expected: impl Fn(usize) -> Vec<String>,
    ) {
        for &s in affected {
            let want = expected(s);
            assert_eq!(
                self.published(s),
                want,
                "{change}: server {s}'s published list"
            );
            self.wait_received(s, &want, change).await;
            assert!(
                reported(&self.reports[s]).len() > before.answers[s],
                "{change}: server {s} was not asked again"
            );
            assert_eq!(
                count_events(&self.h.timeline, self.id(s), before.seq, |e| {
                    matches!(e, Event::RestartedToWithdraw { .. } | Event::Exited { .. })
                }),
                0,
                "{change}: server {s} was restarted"
            );
        }
        for s in (0..self.specs.len()).filter(|s| !affected.contains(s)) {
            let generation = self
                .h
                .store
                .shared_with(self.id(s))
                .expect("server")
                .generation();
            assert_eq!(
                generation, before.generations[s],
                "{change}: server {s}'s list was republished though the change does not concern it"
            );
            assert_eq!(
                count_events(&self.h.timeline, self.id(s), before.seq, |_| true),
                0,
                "{change}: server {s} was told or asked something: {:#?}",
                self.h.timeline.for_server(self.id(s))
            );
            assert_eq!(
                reported(&self.reports[s]).len(),
                before.answers[s],
                "{change}: server {s} received a new list"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_servers_and_a_thousand_folders() {
    const SERVERS: usize = 50;
    const FOLDERS: usize = 1_000;
    let seed = seed_from_env("ROOTGATE_LOAD_SEED");
    eprintln!("load: seed {seed} (ROOTGATE_LOAD_SEED={seed} replays it)");
    let started = Instant::now();
    // Server 0 sees every folder; each other server sees each folder with
    // a 1-in-10 chance (about 100 folders each, 5,900 grants in all).
    let mut rng = Rng::new(seed);
    let grants: Vec<Vec<bool>> = (0..SERVERS)
        .map(|s| (0..FOLDERS).map(|_| s == 0 || rng.percent(10)).collect())
        .collect();
    let settings_dir = tempfile::tempdir().expect("tempdir");
    let fleet = Fleet::start(settings_dir.path(), SERVERS, FOLDERS, |s, f| grants[s][f]);
    let granted = |s: usize, grants: &[Vec<bool>], folders: &[(RootId, String)]| {
        granted_uris(folders, &grants[s])
    };
    for (s, session) in fleet.sessions.iter().enumerate() {
        running(session).await;
        let want = granted(s, &grants, &fleet.folders);
        assert_eq!(
            fleet.published(s),
            want,
            "seed {seed}: server {s}'s published list"
        );
        fleet
            .wait_received(s, &want, &format!("seed {seed}, start"))
            .await;
    }
    let all_running = started.elapsed();

    // A new folder, shared with server 0 and nine others chosen at random.
    let mut affected = BTreeSet::from([0]);
    while affected.len() < 10 {
        affected.insert(1 + rng.below(SERVERS - 1));
    }
    let mut folders = fleet.folders.clone();
    let mut grants = grants;
    let path = fleet.h.dir.path().join("folders/added later");
    std::fs::create_dir_all(&path).expect("create folder");
    let checked = folders::check(&path).expect("check folder");
    let before = fleet.before().await;
    let added = fleet.h.store.add_root(&checked, None).expect("add root");
    let ids: Vec<ServerId> = affected.iter().map(|&s| fleet.id(s).clone()).collect();
    fleet
        .h
        .store
        .set_grants(&added.root.id, &ids)
        .expect("share the new folder");
    folders.push((added.root.id.clone(), uri(checked.real())));
    for (s, row) in grants.iter_mut().enumerate() {
        row.push(affected.contains(&s));
    }
    let change = format!("seed {seed}, a folder added and shared with {affected:?}");
    fleet
        .check_reach(&change, &before, &affected, |s| {
            granted(s, &grants, &folders)
        })
        .await;

    // A folder shared with several servers (besides server 0) is removed.
    let shared_by = |f: usize, grants: &[Vec<bool>]| -> BTreeSet<usize> {
        (0..SERVERS).filter(|&s| grants[s][f]).collect()
    };
    let f = (0..FOLDERS)
        .max_by_key(|&f| shared_by(f, &grants).len())
        .expect("a folder");
    let affected = shared_by(f, &grants);
    assert!(
        affected.len() >= 5,
        "seed {seed}: the most shared folder has {affected:?}"
    );
    let before = fleet.before().await;
    fleet
        .h
        .store
        .remove_root(&folders[f].0)
        .expect("remove root");
    folders.remove(f);
    for row in grants.iter_mut() {
        row.remove(f);
    }
    let change = format!("seed {seed}, a folder shared with {affected:?} removed");
    fleet
        .check_reach(&change, &before, &affected, |s| {
            granted(s, &grants, &folders)
        })
        .await;

    // A folder shared with no one is removed: nobody hears of it. (With
    // the new folder above, there is always one: server 0 sees all, so
    // take server 0's grant away first, which server 0 alone hears.)
    let f = (0..folders.len())
        .min_by_key(|&f| shared_by(f, &grants).len())
        .expect("a folder");
    let before = fleet.before().await;
    fleet
        .h
        .store
        .revoke(fleet.id(0), &folders[f].0)
        .expect("revoke");
    grants[0][f] = false;
    let affected = BTreeSet::from([0]);
    let change = format!("seed {seed}, a folder revoked from server 0");
    fleet
        .check_reach(&change, &before, &affected, |s| {
            granted(s, &grants, &folders)
        })
        .await;
    for (s, row) in grants.iter_mut().enumerate().skip(1) {
        if row[f] {
            fleet
                .h
                .store
                .revoke(fleet.id(s), &folders[f].0)
                .expect("revoke");
            row[f] = false;
        }
    }
    let before = fleet.before().await;
    fleet
        .h
        .store
        .remove_root(&folders[f].0)
        .expect("remove root");
    folders.remove(f);
    for row in grants.iter_mut() {
        row.remove(f);
    }
    let change = format!("seed {seed}, a folder shared with no one removed");
    fleet
        .check_reach(&change, &before, &BTreeSet::new(), |s| {
            granted(s, &grants, &folders)
        })
        .await;
    for s in 0..SERVERS {
        fleet
            .wait_received(
                s,
                &granted(s, &grants, &folders),
                &format!("seed {seed}, end"),
            )
            .await;
    }
    fleet.shutdown().await;
    eprintln!(
        "load: {SERVERS} servers and {FOLDERS} folders running and answered in {:.1} s; \
         whole test, with shutdown, {:.1} s",
        all_running.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
}

/// Where the second test keeps its settings: tmpfs when there is one.
fn fast_settings_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir()
        && let Ok(dir) = tempfile::tempdir_in(shm)
    {
        return dir;
    }
    tempfile::tempdir().expect("tempdir")
}

/// Every list each server was published, by generation, recorded by the one
/// task that changes the store.
type Published = HashMap<(usize, u64), Vec<String>>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_grants_and_revokes_with_servers_asking_end_with_the_granted_set() {
    const SERVERS: usize = 30;
    const FOLDERS: usize = 60;
    /// The server most changes concern and most asks come from.
    const BUSY: usize = 0;
    /// Tasks making the busy server ask, back to back.
    const BUSY_ASKERS: usize = 3;
    /// Tasks making a random server ask, now and then.
    const RANDOM_ASKERS: usize = 2;
    let seed = seed_from_env("ROOTGATE_LOAD_SEED");
    let ops = count_from_env("ROOTGATE_LOAD_OPS", 500);
    eprintln!("load: seed {seed} (ROOTGATE_LOAD_SEED={seed} replays it), {ops} changes");
    let started = Instant::now();
    let mut rng = Rng::new(seed);
    // Server s always keeps folder s (see the module docs); other folders
    // start shared with a 1-in-4 chance.
    let start_grants: Vec<Vec<bool>> = (0..SERVERS)
        .map(|s| (0..FOLDERS).map(|f| f == s || rng.percent(25)).collect())
        .collect();
    let settings_dir = fast_settings_dir();
    let fleet = Arc::new(Fleet::start(
        settings_dir.path(),
        SERVERS,
        FOLDERS,
        |s, f| start_grants[s][f],
    ));
    for session in &fleet.sessions {
        running(session).await;
    }
    let mut published: Published = HashMap::new();
    for s in 0..SERVERS {
        let shared = fleet.h.store.shared_with(fleet.id(s)).expect("server");
        published.insert((s, shared.generation()), fleet.published(s));
    }

    // The changes, on a thread of their own: store calls are synchronous
    // and must not hold up the session actors.
    let done = Arc::new(AtomicBool::new(false));
    let changer = {
        let fleet = Arc::clone(&fleet);
        let done = Arc::clone(&done);
        let mut rng = Rng::new(rng.next_u64());
        let mut grants = start_grants.clone();
        let mut published = published.clone();
        tokio::task::spawn_blocking(move || {
            let store = &fleet.h.store;
            for op in 0..ops {
                let context = format!("seed {seed}, change {op}");
                let f = rng.below(FOLDERS);
                if rng.percent(10) {
                    // Share folder f with exactly a random set of servers.
                    let servers: Vec<usize> = (0..SERVERS)
                        .filter(|&s| s == f || rng.percent(25))
                        .collect();
                    let ids: Vec<ServerId> = servers.iter().map(|&s| fleet.id(s).clone()).collect();
                    store.set_grants(&fleet.folders[f].0, &ids).expect(&context);
                    for (s, row) in grants.iter_mut().enumerate() {
                        row[f] = servers.contains(&s);
                    }
                } else {
                    let s = if rng.percent(40) {
                        BUSY
                    } else {
                        rng.below(SERVERS)
                    };
                    if s == f {
                        continue;
                    }
                    if grants[s][f] {
                        store
                            .revoke(fleet.id(s), &fleet.folders[f].0)
                            .expect(&context);
                    } else {
                        store
                            .grant(fleet.id(s), &fleet.folders[f].0)
                            .expect(&context);
                    }
                    grants[s][f] = !grants[s][f];
                }
                for (s, row) in grants.iter().enumerate() {
                    let shared = store.shared_with(fleet.id(s)).expect("server");
                    let uris: Vec<String> = shared.roots().iter().map(|r| r.uri.clone()).collect();
                    let want = granted_uris(&fleet.folders, row);
                    assert_eq!(uris, want, "{context}: server {s}'s published list");
                    published.entry((s, shared.generation())).or_insert(uris);
                }
                // Mostly back to back; now and then a pause, so changes
                // land in every state of a server's notify gate.
                match rng.below(100) {
                    0..=59 => {}
                    60..=94 => std::thread::sleep(Duration::from_micros(rng.below(1_000) as u64)),
                    _ => std::thread::sleep(Duration::from_millis(1 + rng.below(20) as u64)),
                }
            }
            done.store(true, Ordering::SeqCst);
            (grants, published)
        })
    };

    // Servers asking on their own, all through the changes: some tasks
    // make the busy server ask again and again, so its asks overlap each
    // other and the asks its notifications cause; the others make random
    // servers ask now and then.
    let mut askers = JoinSet::new();
    for a in 0..BUSY_ASKERS + RANDOM_ASKERS {
        let busy = a < BUSY_ASKERS;
        let fleet = Arc::clone(&fleet);
        let done = Arc::clone(&done);
        let mut rng = Rng::new(rng.next_u64());
        askers.spawn(async move {
            let mut answers: Vec<(usize, Vec<String>)> = Vec::new();
            while !done.load(Ordering::SeqCst) {
                let s = if busy { BUSY } else { rng.below(SERVERS) };
                let result = fleet.sessions[s]
                    .call_tool("ask_roots", serde_json::Map::new())
                    .await
                    .unwrap_or_else(|e| panic!("seed {seed}: server {s}'s ask_roots failed: {e}"));
                assert_eq!(result["isError"], false, "seed {seed}: {result}");
                let uris = result["structuredContent"]["roots"]
                    .as_array()
                    .expect("roots")
                    .iter()
                    .map(|r| r["uri"].as_str().expect("uri").to_owned())
                    .collect();
                answers.push((s, uris));
                if !busy && rng.percent(50) {
                    tokio::time::sleep(Duration::from_micros(rng.below(3_000) as u64)).await;
                }
            }
            answers
        });
    }
    let (grants, published) = changer.await.expect("the changes ran");
    let changes_done = started.elapsed();
    let mut asked = Vec::new();
    while let Some(answers) = askers.join_next().await {
        asked.extend(answers.expect("an asker"));
    }

    // In the end, every server holds exactly its final granted set, as it
    // received it itself, and its last answer in the timeline says so.
    for (s, row) in grants.iter().enumerate() {
        let want = granted_uris(&fleet.folders, row);
        fleet
            .wait_received(s, &want, &format!("seed {seed}, the end"))
            .await;
    }
    // And nothing more is on its way: the sessions have nothing left to
    // tell (a burst ends with a confirming notification), and each server
    // has read every answer it was given.
    fleet.before().await;

    // Every answer along the way was a list the server was published: the
    // one of the generation the timeline names, and one of the server's
    // lists for what the server itself received.
    let mut lists_of: HashMap<usize, HashSet<&Vec<String>>> = HashMap::new();
    for ((s, _), uris) in &published {
        lists_of.entry(*s).or_default().insert(uris);
    }
    let (mut answered, mut notified, mut received) = (0, 0, 0);
    for s in 0..SERVERS {
        for entry in fleet.h.timeline.for_server(fleet.id(s)) {
            match &entry.event {
                Event::RootsAnswered {
                    generation, roots, ..
                } => {
                    answered += 1;
                    let uris: Vec<String> = roots.iter().map(|r| r.uri.clone()).collect();
                    assert_eq!(
                        Some(&uris),
                        published.get(&(s, *generation)),
                        "seed {seed}: server {s} was answered a list that is not generation \
                         {generation}'s"
                    );
                }
                Event::ListChangedSent { .. } => notified += 1,
                Event::RestartedToWithdraw { .. } | Event::Failed { .. } => {
                    panic!("seed {seed}: server {s}: {:?}", entry.event)
                }
                _ => {}
            }
        }
        for list in reported(&fleet.reports[s]) {
            received += 1;
            assert!(
                lists_of[&s].contains(&list),
                "seed {seed}: server {s} received a list it was never published: {list:?}"
            );
        }
    }
    // The timeline lists the answers in the order the server received
    // them: what the session believes a server holds is what it holds.
    for s in 0..SERVERS {
        let given: Vec<Vec<String>> = fleet
            .h
            .timeline
            .for_server(fleet.id(s))
            .iter()
            .filter_map(|e| match &e.event {
                Event::RootsAnswered { roots, .. } => {
                    Some(roots.iter().map(|r| r.uri.clone()).collect())
                }
                _ => None,
            })
            .collect();
        let received = reported(&fleet.reports[s]);
        assert!(
            given == received,
            "seed {seed}: server {s} received its answers in another order than the timeline \
             lists them (first difference at answer {:?} of {})",
            (0..given.len().max(received.len())).find(|&i| given.get(i) != received.get(i)),
            given.len()
        );
    }
    for (s, list) in &asked {
        assert!(
            lists_of[s].contains(list),
            "seed {seed}: server {s}'s ask_roots returned a list it was never published"
        );
    }
    eprintln!(
        "load: {ops} changes on {SERVERS} servers x {FOLDERS} folders in {:.1} s, with {} \
         ask_roots calls; {answered} roots/list answered, {received} received, {notified} \
         list_changed sent; whole test {:.1} s",
        changes_done.as_secs_f64(),
        asked.len(),
        started.elapsed().as_secs_f64()
    );
    match Arc::try_unwrap(fleet) {
        Ok(fleet) => fleet.shutdown().await,
        Err(_) => panic!("the fleet is still shared"),
    }
}
