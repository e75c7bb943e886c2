//! Fault injection: misbehaving MCP servers against the real session actor.
//!
//! Each test runs our fixture server with one `--misbehave KIND` next to a
//! second, healthy fixture server, and checks what matters to the person at
//! the machine: the status and the timeline say what happened in words they
//! can act on, the healthy server is unaffected (a folder granted to it
//! during the fault still reaches it with `list_changed` and a correct
//! `roots/list` answer), nothing the misbehaving server sent changed the
//! store, every answer it got held only what it was granted, and no process
//! of its group is left behind.
//!
//! Not here: a server that forks grandchildren or daemonises (process
//! clean-up is tested with the launcher), restarts after a crash
//! (`restarts.rs`), and timing (no test asserts how long anything took).
//!
//! Two cases scale with environment variables for longer local runs:
//! `ROOTGATE_FAULT_FLOOD_REQUESTS` (roots/list requests in the flood,
//! default 10,000) and `ROOTGATE_FAULT_STDERR_BYTES` (bytes written to
//! stderr, default 1 GiB).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rootgate_launcher::procs;
use rootgate_model::ids::ServerId;
use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_model::settings::Settings;
use rootgate_model::timeline::{DEFAULT_CAPACITY, Event};
use rootgate_session::{ServerMessage, Session, Status};
use rootgate_test_support::harness::*;

/// How long each step of the shutdown sequence waits here: short, so the
/// server that ignores everything costs about a second, not four.
const GRACE: Duration = Duration::from_millis(400);

fn env_count(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The events of one kind the fixture wrote to its report file.
fn report_events(report: &Path, event: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(report)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).expect("report line"))
        .filter(|v| v["event"] == event)
        .collect()
}

/// The URIs of a `roots` array as the client sent it.
fn uris_of(roots: &serde_json::Value) -> Vec<String> {
    roots
        .as_array()
        .expect("roots array")
        .iter()
        .map(|r| r["uri"].as_str().expect("uri").to_owned())
        .collect()
}

/// The lists the fixture received for its own `roots/list`, oldest first.
fn reported_lists(report: &Path) -> Vec<Vec<String>> {
    report_events(report, "roots")
        .iter()
        .map(|v| uris_of(&v["roots"]))
        .collect()
}

/// The fixture's report of what came back for the made-up request `id`.
async fn reply_to(report: &Path, id: &str) -> serde_json::Value {
    eventually(&format!("a reply to {id}"), || async {
        report_events(report, "reply")
            .into_iter()
            .map(|v| v["reply"].clone())
            .find(|r| r["id"] == id)
            .ok_or_else(|| format!("{:?}", report_events(report, "reply")))
    })
    .await
}

/// Our process' resident memory, in bytes.
fn rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS");
    kb * 1024
}

/// One fault: a misbehaving fixture server and a healthy one, each with a
/// folder granted before it started.
struct Fault {
    h: Harness,
    faulty: ServerSpec,
    session: Session,
    report: PathBuf,
    faulty_folder: String,
    healthy: ServerSpec,
    healthy_session: Session,
    healthy_report: PathBuf,
    healthy_folders: Vec<String>,
    /// The settings as they must stay: changed only by the test itself.
    expected: Option<Settings>,
}

impl Fault {
    /// Starts the healthy server and waits until it holds its folder, then
    /// starts the fixture with `--misbehave kind` and `extra` arguments.
    async fn start(kind: &str, extra: &[&str], tune: impl FnOnce(&mut Harness)) -> Fault {
        let mut h = Harness::new();
        h.config.shutdown_grace = GRACE;
        tune(&mut h);
        let bin = fixture_server();
        let bin = bin.to_str().expect("utf-8 path");

        let healthy_report = h.dir.path().join("healthy.jsonl");
        let healthy = add(&h, "healthy", bin, &["--report", path(&healthy_report)]);
        let (root, real) = h.folder("healthy folder");
        h.store.grant(&healthy.id, &root).expect("grant");
        let healthy_folders = vec![uri(&real)];
        let healthy_session = h.session_for(&healthy);
        running(&healthy_session).await;
        let want = healthy_folders.clone();
        eventually("the healthy server to hold its folder", || async {
            match reported_lists(&healthy_report).last() {
                Some(last) if *last == want => Ok(()),
                other => Err(format!("{other:?}")),
            }
        })
        .await;

        let report = h.dir.path().join("faulty.jsonl");
        let mut args = vec!["--misbehave", kind, "--report", path(&report)];
        args.extend_from_slice(extra);
        let faulty = add(&h, kind, bin, &args);
        let (root, real) = h.folder("faulty folder");
        h.store.grant(&faulty.id, &root).expect("grant");
        let session = h.session_for(&faulty);
        Fault {
            h,
            faulty,
            session,
            report,
            faulty_folder: uri(&real),
            healthy,
            healthy_session,
            healthy_report,
            healthy_folders,
            expected: None,
        }
    }

    fn timeline(&self) -> Vec<Event> {
        self.h
            .timeline
            .for_server(&self.faulty.id)
            .into_iter()
            .map(|e| e.event)
            .collect()
    }

    /// Waits until the misbehaving server finished its handshake.
    async fn initialized(&self) {
        self.h
            .wait_event(&self.faulty.id, 0, |e| {
                matches!(e, Event::Initialized { .. })
            })
            .await;
    }

    /// Waits until the misbehaving server was answered with its folder and
    /// has read that answer. (rmcp writes answers and requests from separate
    /// tasks, so a request made once the answer is recorded can still reach
    /// the server first.)
    async fn first_answer(&self) {
        let want = vec![self.faulty_folder.clone()];
        self.h
            .wait_event(&self.faulty.id, 0, answered_exactly(want.clone()))
            .await;
        eventually("the misbehaving server to read its folder", || async {
            match reported_lists(&self.report).first() {
                Some(first) if *first == want => Ok(()),
                other => Err(format!("{other:?}")),
            }
        })
        .await;
    }

    /// Grants a new folder to the healthy server (now, during the fault) and
    /// waits until it was told with `list_changed` and received the whole,
    /// correct list. Records the settings as they must stay from now on.
    async fn healthy_still_served(&mut self) {
        let n = self.healthy_folders.len();
        let (root, real) = self.h.folder(&format!("granted during the fault {n}"));
        let seq = self.h.now_seq();
        self.h.store.grant(&self.healthy.id, &root).expect("grant");
        self.healthy_folders.push(uri(&real));
        self.h
            .wait_event(&self.healthy.id, seq, |e| {
                matches!(e, Event::ListChangedSent { .. })
            })
            .await;
        let want = self.healthy_folders.clone();
        self.h
            .wait_event(&self.healthy.id, seq, answered_exactly(want.clone()))
            .await;
        let report = self.healthy_report.clone();
        eventually("the healthy server to report the new list", || async {
            match reported_lists(&report).last() {
                Some(last) if *last == want => Ok(()),
                other => Err(format!("{other:?}")),
            }
        })
        .await;
        assert!(self.healthy_session.status().is_running());
        self.expected = Some(self.h.store.snapshot());
    }

    /// Grants the misbehaving server a second folder and waits until the
    /// server itself reports holding both: its session still works.
    async fn faulty_still_served(&mut self) -> Vec<String> {
        let (root, real) = self.h.folder("faulty second folder");
        self.h.store.grant(&self.faulty.id, &root).expect("grant");
        let want = vec![self.faulty_folder.clone(), uri(&real)];
        let report = self.report.clone();
        let expect = want.clone();
        eventually("the misbehaving server to report its new list", || async {
            match reported_lists(&report).last() {
                Some(last) if *last == expect => Ok(()),
                other => Err(format!("{other:?}")),
            }
        })
        .await;
        self.expected = Some(self.h.store.snapshot());
        want
    }

    /// The reason the session failed with, once it has.
    async fn failed(&self) -> String {
        failure_reason(&self.session).await
    }

    /// Stops the misbehaving server and returns how it ended.
    async fn stop(&self) -> Option<String> {
        tokio::time::timeout(WAIT, self.session.stop())
            .await
            .expect("stop() returned");
        match self.session.status() {
            Status::Stopped { last_exit } => last_exit,
            other => panic!("not stopped after stop(): {other:?}"),
        }
    }

    /// The checks every case ends with: the store holds only what the test
    /// did (in memory and on disk), every answer the misbehaving server got
    /// held only its own folders, and no process of any of its runs is left.
    async fn finish(self) {
        let expected = self
            .expected
            .clone()
            .expect("the test checked the healthy server during the fault");
        assert_eq!(self.h.store.snapshot(), expected, "the store changed");
        let file = std::fs::read_to_string(self.h.store.file().path()).expect("settings file");
        let on_disk: Settings = serde_json::from_str(&file).expect("settings parse");
        assert_eq!(on_disk, expected, "the settings file changed");

        let own: BTreeSet<String> = self
            .h
            .store
            .snapshot()
            .grants
            .iter()
            .filter(|g| g.server == self.faulty.id)
            .filter_map(|g| {
                let root = expected.roots.iter().find(|r| r.id == g.root)?;
                Some(uri(&root.real_path))
            })
            .collect();
        for event in self.timeline() {
            if let Event::RootsAnswered { roots, .. } = event {
                for root in roots.iter() {
                    assert!(
                        own.contains(&root.uri),
                        "the misbehaving server was given {} ({own:?})",
                        root.uri
                    );
                }
            }
        }

        self.session.shutdown().await;
        self.healthy_session.shutdown().await;
        for server in [&self.faulty.id, &self.healthy.id] {
            for pid in spawned_pids(&self.h, server) {
                let left = procs::live_members(pid as i32);
                assert!(left.is_empty(), "processes left in group {pid}: {left:?}");
            }
        }
    }
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn add(h: &Harness, name: &str, command: &str, args: &[&str]) -> ServerSpec {
    h.store
        .add_server(ServerDraft {
            name: name.into(),
            command: command.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            enabled: true,
            ..Default::default()
        })
        .expect("add server")
}

fn spawned_pids(h: &Harness, server: &ServerId) -> Vec<u32> {
    h.timeline
        .for_server(server)
        .into_iter()
        .filter_map(|e| match e.event {
            Event::Spawned { pid } => Some(pid),
            _ => None,
        })
        .collect()
}

/// The timeline's exits of the misbehaving server.
fn exits(events: &[Event]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Exited { status, expected } => Some((status.clone(), *expected)),
            _ => None,
        })
        .collect()
}

/// Server messages received so far, without waiting.
fn drain(messages: &mut tokio::sync::broadcast::Receiver<ServerMessage>) -> Vec<ServerMessage> {
    let mut got = Vec::new();
    while let Ok(m) = messages.try_recv() {
        got.push(m);
    }
    got
}

// ---------------------------------------------------------------------------
// The process ends on its own.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_at_once_fails_with_its_exit_code_and_words() {
    let mut f = Fault::start("exit-at-once", &[], |_| {}).await;
    let reason = f.failed().await;
    assert!(reason.contains("exit code 3"), "{reason}");
    assert!(
        reason.contains("exiting with code 3 before reading anything"),
        "the server's own words: {reason}"
    );
    assert!(
        reason.contains("closed its connection before answering `initialize`"),
        "says when: {reason}"
    );
    assert!(
        reason.starts_with("the command exited at once (exit code 3) without speaking MCP"),
        "says it in a person's words: {reason}"
    );
    assert!(reason.contains("Is this an MCP server?"), "{reason}");
    let events = f.timeline();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::Initialized { .. }))
    );
    // Opened with `initialize`, it is started once: an exit is not taken
    // for a refusal of the legacy era.
    assert!(!events.iter().any(|e| matches!(e, Event::EraFound { .. })));
    assert_eq!(exits(&events), [("exit code 3".to_owned(), false)]);
    f.healthy_still_served().await;
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_crashes_mid_session_fails_with_its_panic_message() {
    let mut f = Fault::start("crash-after-init", &[], |_| {}).await;
    f.initialized().await;
    let reason = f.failed().await;
    assert!(reason.contains("stopped on its own"), "{reason}");
    assert!(reason.contains("exit code 101"), "{reason}");
    assert!(reason.contains("crashed on purpose"), "{reason}");
    let events = f.timeline();
    let answered = events
        .iter()
        .position(|e| matches!(e, Event::RootsAnswered { .. }))
        .expect("it was answered before it crashed");
    let failed = events
        .iter()
        .position(|e| matches!(e, Event::Failed { .. }))
        .expect("failed");
    assert!(answered < failed);
    assert_eq!(exits(&events), [("exit code 101".to_owned(), false)]);
    f.healthy_still_served().await;
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_when_told_the_roots_changed_fails_with_its_exit_code() {
    let mut f = Fault::start("exit-on-list-changed", &[], |_| {}).await;
    running(&f.session).await;
    f.first_answer().await;
    let seq = f.h.now_seq();
    let (root, _) = f.h.folder("the change it cannot bear");
    f.h.store.grant(&f.faulty.id, &root).expect("grant");
    f.h.wait_event(&f.faulty.id, seq, |e| {
        matches!(e, Event::ListChangedSent { .. })
    })
    .await;
    let reason = f.failed().await;
    assert!(reason.contains("exit code 4"), "{reason}");
    assert!(reason.contains("told the roots changed"), "{reason}");
    f.healthy_still_served().await;
    f.finish().await;
}

// ---------------------------------------------------------------------------
// The handshake never finishes.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_initialize_fails_after_the_timeout_saying_so() {
    let mut f = Fault::start("no-initialize-answer", &[], |h| {
        h.config.init_timeout = Duration::from_millis(1500);
    })
    .await;
    let reason = f.failed().await;
    assert!(
        reason.contains("did not answer `initialize` within 1.5 s"),
        "{reason}"
    );
    // It exits when its input closes: the first step of the shutdown.
    assert!(reason.contains("exit code 0"), "{reason}");
    assert!(reason.contains("not answering initialize"), "{reason}");
    let events = f.timeline();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::Initialized { .. }))
    );
    f.healthy_still_served().await;
    f.finish().await;
}

// ---------------------------------------------------------------------------
// What a server writes on stdout.

/// Lines that are not messages are skipped; the session keeps working.
async fn unreadable_lines_are_skipped(kind: &str) {
    let mut f = Fault::start(kind, &[], |_| {}).await;
    let mut messages = f.session.subscribe_server_messages();
    running(&f.session).await;
    f.first_answer().await;
    f.healthy_still_served().await;
    // The garbage follows every answer, so this change is read between two
    // helpings of it.
    f.faulty_still_served().await;
    assert!(f.session.status().is_running());
    // Nothing that was not a whole, valid message reached subscribers.
    for m in drain(&mut messages) {
        let text = m.data.to_string();
        assert!(!text.contains("bad"), "a broken message got through: {m:?}");
    }
    assert_eq!(f.stop().await.as_deref(), Some("exit code 0"));
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_json_lines_on_stdout_are_skipped() {
    unreadable_lines_are_skipped("stdout-non-json").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_utf8_on_stdout_is_skipped() {
    unreadable_lines_are_skipped("stdout-invalid-utf8").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_50_mb_line_is_dropped_without_holding_it_in_memory() {
    let before = rss();
    let mut f = Fault::start("stdout-huge-line", &[], |_| {}).await;
    let mut messages = f.session.subscribe_server_messages();
    running(&f.session).await;
    let after_huge = tokio::time::timeout(WAIT, async {
        loop {
            let m = messages.recv().await.expect("server messages");
            assert!(
                m.data.to_string().len() < 1 << 20,
                "the 50 MB message was delivered"
            );
            if m.data == "after the huge line" {
                return m;
            }
        }
    })
    .await
    .expect("the message after the huge line arrived");
    assert_eq!(after_huge.logger.as_deref(), Some("huge"));
    let grown = rss().saturating_sub(before);
    // rmcp drops a line once it passes 16 MiB (about 21 MiB of growth was
    // measured, the line buffer included); buffering the whole 50 MB line
    // would cost a 64 MiB buffer alone, before any parsing.
    assert!(
        grown < 60 << 20,
        "memory grew by {} MiB reading one line",
        grown >> 20
    );
    f.healthy_still_served().await;
    f.faulty_still_served().await;
    assert_eq!(f.stop().await.as_deref(), Some("exit code 0"));
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_last_line_without_newline_is_not_delivered_and_the_exit_is_reported() {
    let mut f = Fault::start("stdout-no-newline", &[], |_| {}).await;
    let mut messages = f.session.subscribe_server_messages();
    f.initialized().await;
    let reason = f.failed().await;
    assert!(reason.contains("stopped on its own"), "{reason}");
    assert!(reason.contains("exit code 0"), "{reason}");
    assert!(
        reason.contains("writing a message without its newline"),
        "{reason}"
    );
    assert!(
        drain(&mut messages).is_empty(),
        "an unterminated line was delivered"
    );
    f.healthy_still_served().await;
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_rpc_with_wrong_types_gets_errors_and_the_session_continues() {
    let mut f = Fault::start("stdout-wrong-types", &[], |_| {}).await;
    running(&f.session).await;
    f.first_answer().await;
    // The valid request after the broken ones is answered with exactly the
    // server's folder.
    let valid = reply_to(&f.report, "wt-valid").await;
    assert_eq!(
        uris_of(&valid["result"]["roots"]),
        [f.faulty_folder.clone()]
    );
    let unknown = reply_to(&f.report, "wt-unknown-method").await;
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    // Every other reply is a JSON-RPC error or the same, correct list.
    for reply in report_events(&f.report, "reply") {
        let reply = &reply["reply"];
        match reply["error"]["code"].as_i64() {
            Some(code) => assert!([-32700, -32600, -32601, -32602].contains(&code), "{reply}"),
            None => assert_eq!(
                uris_of(&reply["result"]["roots"]),
                [f.faulty_folder.clone()],
                "{reply}"
            ),
        }
    }
    f.healthy_still_served().await;
    f.faulty_still_served().await;
    assert!(f.session.status().is_running());
    assert_eq!(f.stop().await.as_deref(), Some("exit code 0"));
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn responses_to_requests_never_made_are_ignored() {
    let mut f = Fault::start("stdout-unknown-ids", &[], |_| {}).await;
    running(&f.session).await;
    f.first_answer().await;
    // Each call's answer comes after a forged answer to the next call's id:
    // every call still gets its own, real answer.
    for _ in 0..3 {
        let result = f
            .session
            .call_tool("list_roots", no_args())
            .await
            .expect("list_roots");
        assert_eq!(
            uris_of(&result["structuredContent"]["roots"]),
            [f.faulty_folder.clone()],
            "{result}"
        );
    }
    f.healthy_still_served().await;
    assert!(f.session.status().is_running());
    assert_eq!(f.stop().await.as_deref(), Some("exit code 0"));
    f.finish().await;
}

// ---------------------------------------------------------------------------
// Requests at the wrong time, or too many.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roots_asked_before_initialized_are_answered_with_the_granted_list() {
    // The server waits for its first roots/list answer before it answers
    // `initialize`. A short timeout makes a regression fail fast.
    let mut f = Fault::start("roots-before-initialized", &[], |h| {
        h.config.init_timeout = Duration::from_secs(8);
    })
    .await;
    running(&f.session).await;
    for id in ["early-before-initialize-answer", "early-before-initialized"] {
        let early = reply_to(&f.report, id).await;
        assert_eq!(
            uris_of(&early["result"]["roots"]),
            [f.faulty_folder.clone()],
            "{id}: {early}"
        );
        f.h.wait_event(
            &f.faulty.id,
            0,
            |e| matches!(e, Event::RootsAnswered { request_id, .. } if request_id == id),
        )
        .await;
    }
    f.healthy_still_served().await;
    f.faulty_still_served().await;
    assert!(f.session.status().is_running());
    assert_eq!(f.stop().await.as_deref(), Some("exit code 0"));
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_roots_list_is_answered_and_does_not_starve_anyone() {
    let count = env_count("ROOTGATE_FAULT_FLOOD_REQUESTS", 10_000);
    let count_arg = count.to_string();
    let mut f = Fault::start("roots-flood", &["--flood-requests", &count_arg], |_| {}).await;
    running(&f.session).await;
    // While the flood goes on, a folder reaches both the healthy server and
    // the flooding one.
    f.healthy_still_served().await;
    let both = f.faulty_still_served().await;
    let flood = eventually("every flood request to be answered", || async {
        report_events(&f.report, "flood")
            .pop()
            .ok_or_else(|| "not yet".to_owned())
    })
    .await;
    assert_eq!(flood["answered"], count);
    assert_eq!(flood["errors"], 0);
    let one = vec![f.faulty_folder.clone()];
    for list in flood["lists"].as_array().expect("lists") {
        let list = uris_of(list);
        assert!(list == one || list == both, "answered {list:?}");
    }
    let answered = f
        .timeline()
        .iter()
        .filter(|e| matches!(e, Event::RootsAnswered { .. }))
        .count();
    // Every answer is in the timeline, up to the timeline's bound.
    let room = DEFAULT_CAPACITY as u64 - 20;
    assert!(
        answered as u64 >= count.min(room),
        "{answered} answers recorded"
    );
    assert!(f.session.status().is_running());
    assert_eq!(f.stop().await.as_deref(), Some("exit code 0"));
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undeclared_requests_get_method_not_found_and_the_session_continues() {
    let mut f = Fault::start("undeclared-requests", &[], |_| {}).await;
    running(&f.session).await;
    for (id, method) in [
        ("sampling", "sampling/createMessage"),
        ("elicitation", "elicitation/create"),
    ] {
        let reply = reply_to(&f.report, id).await;
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
        assert!(reply.get("result").is_none(), "{reply}");
        f.h.wait_event(
            &f.faulty.id,
            0,
            |e| matches!(e, Event::RequestRefused { method: m } if m == method),
        )
        .await;
    }
    f.healthy_still_served().await;
    f.faulty_still_served().await;
    assert!(f.session.status().is_running());
    assert_eq!(f.stop().await.as_deref(), Some("exit code 0"));
    f.finish().await;
}

// ---------------------------------------------------------------------------
// A server that will not end.

/// Stops the server while the healthy one is given a folder, and returns
/// how the timeline says it ended.
async fn stop_a_server_that_will_not_end(kind: &str) -> (Option<String>, Vec<Event>, Fault) {
    let mut f = Fault::start(kind, &[], |_| {}).await;
    running(&f.session).await;
    f.first_answer().await;
    let session = f.session.clone();
    let stopping = tokio::spawn(async move { tokio::time::timeout(WAIT, session.stop()).await });
    f.healthy_still_served().await;
    stopping.await.expect("stop").expect("stop() returned");
    let last_exit = match f.session.status() {
        Status::Stopped { last_exit } => last_exit,
        other => panic!("not stopped: {other:?}"),
    };
    let events = f.timeline();
    (last_exit, events, f)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_ignores_its_input_closing_is_ended_with_sigterm() {
    let (last_exit, events, f) = stop_a_server_that_will_not_end("ignore-stdin-close").await;
    let said = "killed by SIGTERM (did not exit when its input closed; sent SIGTERM)";
    assert_eq!(last_exit.as_deref(), Some(said));
    assert_eq!(exits(&events), [(said.to_owned(), true)]);
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_ignores_its_input_closing_and_sigterm_is_ended_with_sigkill() {
    let (last_exit, events, f) =
        stop_a_server_that_will_not_end("ignore-stdin-close-and-sigterm").await;
    let said = "killed by SIGKILL (ignored SIGTERM; sent SIGKILL)";
    assert_eq!(last_exit.as_deref(), Some(said));
    assert_eq!(exits(&events), [(said.to_owned(), true)]);
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Stopping { reason } if reason == "stopped")),
        "{events:#?}"
    );
    f.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stops_reading_its_input_can_still_be_stopped() {
    let mut f = Fault::start("stop-reading-input", &["--flood-requests", "3000"], |_| {}).await;
    running(&f.session).await;
    f.first_answer().await;
    // Answers are recorded as they are written. Three thousand answers of
    // over a hundred bytes each are far more than a pipe holds, so the
    // writes stop at a few hundred and stay blocked.
    let answered = |f: &Fault| {
        f.timeline()
            .iter()
            .filter(|e| matches!(e, Event::RootsAnswered { .. }))
            .count()
    };
    eventually("answers to pile up", || async {
        let n = answered(&f);
        if n >= 300 {
            Ok(())
        } else {
            Err(format!("{n}"))
        }
    })
    .await;
    // A change for it means one more write that cannot go through.
    let seq = f.h.now_seq();
    let (root, _) = f.h.folder("never read");
    f.h.store.grant(&f.faulty.id, &root).expect("grant");
    f.h.wait_event(&f.faulty.id, seq, |e| {
        matches!(e, Event::ListChangedSent { .. })
    })
    .await;
    f.healthy_still_served().await;
    let written = answered(&f);
    assert!(
        written < 3_000,
        "the writes were blocked ({written} answers written)"
    );
    assert_eq!(
        f.stop().await.as_deref(),
        Some("killed by SIGTERM (did not exit when its input closed; sent SIGTERM)")
    );
    f.finish().await;
}

// ---------------------------------------------------------------------------
// stderr.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gigabyte_on_stderr_keeps_memory_bounded_and_the_newest_lines() {
    let bytes = env_count("ROOTGATE_FAULT_STDERR_BYTES", 1 << 30);
    let bytes_arg = bytes.to_string();
    let before = rss();
    let mut f = Fault::start("stderr-flood", &["--flood-bytes", &bytes_arg], |_| {}).await;
    running(&f.session).await;
    // During the flood, both servers still get their folders.
    f.healthy_still_served().await;
    f.faulty_still_served().await;
    let log = f.session.stderr().clone();
    let (written, last_number) = eventually("the flood's last line to reach the log", || async {
        log.lines()
            .iter()
            .rev()
            .find_map(|l| {
                let rest = l
                    .text
                    .strip_prefix("rootgate-fixture: stderr flood done after ")?;
                let (written, last) = rest.split_once(" bytes; last line ")?;
                Some((written.parse::<u64>().ok()?, last.parse::<u64>().ok()?))
            })
            .ok_or_else(|| format!("{} lines so far", log.next_seq()))
    })
    .await;
    assert!(written >= bytes, "{written} bytes written");
    let grown = rss().saturating_sub(before);
    assert!(
        grown < 100 << 20,
        "memory grew by {} MiB for {written} bytes of stderr",
        grown >> 20
    );

    let lines = log.lines();
    let kept: usize = lines.iter().map(|l| l.text.len()).sum();
    assert!(lines.len() <= 5_000, "{} lines kept", lines.len());
    assert!(kept <= 2 << 20, "{kept} bytes kept");
    assert!(log.dropped() > 0, "older lines were dropped");
    assert!(lines.windows(2).all(|w| w[1].seq == w[0].seq + 1), "no gap");
    // The newest lines: the numbered lines kept end with the very last one
    // written, without a gap (the long lines between them are unnumbered).
    let numbered: Vec<u64> = lines
        .iter()
        .filter_map(|l| l.text.strip_prefix("flood line ")?.parse().ok())
        .collect();
    assert_eq!(numbered.last(), Some(&last_number));
    assert!(numbered.len() > 100, "{} short lines kept", numbered.len());
    assert!(numbered.windows(2).all(|w| w[1] == w[0] + 1));
    let long: Vec<_> = lines
        .iter()
        .filter(|l| l.text.starts_with("long line:"))
        .collect();
    assert!(!long.is_empty());
    for line in long {
        assert!(line.text.ends_with("[line cut]"), "a 64 KiB line is cut");
        assert!(line.text.len() <= log.max_line_bytes() + 20);
    }
    assert!(f.session.status().is_running());
    assert_eq!(f.stop().await.as_deref(), Some("exit code 0"));
    f.finish().await;
}
