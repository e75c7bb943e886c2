//! Shared set-up for the session's and the core's integration tests: a
//! store in a temporary folder, a timeline, sessions for real server
//! processes, and the paths of the real servers the tests run (our
//! fixture binary, the npm filesystem server, the Python SDK server),
//! re-exported from [`crate::peers`]. The session's and the core's tests
//! `use rootgate_test_support::harness::*` (the `session` feature); it
//! holds no tests of its own, and nothing of the supervisor's or the
//! command's tests (see `app`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rootgate_model::folders;
use rootgate_model::ids::{RootId, ServerId};
use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_model::settings::SettingsFile;
use rootgate_model::store::Store;
use rootgate_model::timeline::{Entry, Event, Timeline};
use rootgate_session::{Session, SessionConfig, Status};

pub const WAIT: Duration = Duration::from_secs(20);

pub use crate::peers::*;
pub use crate::report::reported;

/// Runs `probe` until it returns `Ok`, failing after this suite's [`WAIT`]
/// (see [`crate::peers::eventually_within`]).
pub async fn eventually<T, F, Fut>(what: &str, probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    eventually_within(WAIT, what, probe).await
}

pub struct Harness {
    pub dir: tempfile::TempDir,
    pub store: Arc<Store>,
    pub timeline: Arc<Timeline>,
    pub config: SessionConfig,
}

// No `Default`: each one makes a temporary folder and a store on disk,
// which a test should ask for by name, not get from `..Default::default()`.
#[allow(clippy::new_without_default)]
impl Harness {
    pub fn new() -> Harness {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, recovery) =
            Store::open(SettingsFile::at(dir.path().join("config/settings.json"))).expect("store");
        assert!(recovery.is_none());
        Harness {
            dir,
            store: Arc::new(store),
            timeline: Arc::new(Timeline::default()),
            config: SessionConfig {
                shutdown_grace: Duration::from_secs(2),
                ..SessionConfig::default()
            },
        }
    }

    /// Adds a server to the store and starts its session.
    pub fn server(
        &self,
        name: &str,
        command: impl Into<String>,
        args: &[&str],
    ) -> (ServerSpec, Session) {
        self.server_from(ServerDraft {
            name: name.into(),
            command: command.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            enabled: true,
            ..Default::default()
        })
    }

    /// Adds a server from a whole draft and starts its session.
    pub fn server_from(&self, draft: ServerDraft) -> (ServerSpec, Session) {
        let spec = self.store.add_server(draft).expect("add server");
        let session = self.session_for(&spec);
        (spec, session)
    }

    pub fn session_for(&self, spec: &ServerSpec) -> Session {
        let session = Session::spawn(
            spec.id.clone(),
            self.store.subscribe(&spec.id).expect("subscribe"),
            Arc::clone(&self.timeline),
            self.config,
        );
        session.start(spec.clone());
        session
    }

    /// Creates a folder under the harness's temporary folder and adds it as
    /// a root (shared with no one yet). Returns its id and real path.
    pub fn folder(&self, name: &str) -> (RootId, PathBuf) {
        let path = self.dir.path().join("folders").join(name);
        std::fs::create_dir_all(&path).expect("create folder");
        let checked = folders::check(&path).expect("check folder");
        let added = self.store.add_root(&checked, None).expect("add root");
        (added.root.id, checked.real().to_path_buf())
    }

    /// Waits for a timeline entry of `server`, at or after sequence `from`,
    /// that satisfies `want`.
    pub async fn wait_event(
        &self,
        server: &ServerId,
        from: u64,
        want: impl Fn(&Event) -> bool,
    ) -> Entry {
        wait_timeline(&self.timeline, server, from, want).await
    }

    /// The sequence number the next timeline entry will get.
    pub fn now_seq(&self) -> u64 {
        self.timeline.all().last().map_or(1, |e| e.seq + 1)
    }

    /// The URIs of the newest `roots/list` answer given to `server`.
    pub fn last_answer(&self, server: &ServerId) -> Option<Vec<String>> {
        self.timeline
            .for_server(server)
            .into_iter()
            .rev()
            .find_map(|e| match e.event {
                Event::RootsAnswered { roots, .. } => {
                    Some(roots.iter().map(|r| r.uri.clone()).collect())
                }
                _ => None,
            })
    }
}

/// Waits for a timeline entry of `server`, at or after sequence `from`,
/// that satisfies `want`; fails with the server's timeline printed.
pub async fn wait_timeline(
    timeline: &Timeline,
    server: &ServerId,
    from: u64,
    want: impl Fn(&Event) -> bool,
) -> Entry {
    let mut live = timeline.subscribe();
    let found = |e: &Entry| &e.server == server && e.seq >= from && want(&e.event);
    if let Some(e) = timeline.for_server(server).into_iter().find(|e| found(e)) {
        return e;
    }
    let wait = async {
        loop {
            match live.recv().await {
                Ok(e) if found(&e) => return e,
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                    if let Some(e) = timeline.for_server(server).into_iter().find(|e| found(e)) {
                        return e;
                    }
                }
                Err(e) => panic!("timeline closed: {e}"),
            }
        }
    };
    match tokio::time::timeout(WAIT, wait).await {
        Ok(e) => e,
        Err(_) => panic!(
            "no matching timeline event for {server} within {WAIT:?}; timeline: {:#?}",
            timeline.for_server(server)
        ),
    }
}

/// A predicate: a `roots/list` answer with exactly these URIs.
pub fn answered_exactly(want: Vec<String>) -> impl Fn(&Event) -> bool {
    move |e| match e {
        Event::RootsAnswered { roots, .. } => {
            roots.iter().map(|r| r.uri.clone()).collect::<Vec<_>>() == want
        }
        _ => false,
    }
}

pub async fn running(session: &Session) -> Status {
    let status = session
        .wait_for(WAIT, |s| {
            matches!(s, Status::Running(_) | Status::Failed { .. })
        })
        .await;
    assert!(status.is_running(), "server did not start: {status:?}");
    status
}

/// Waits until the session has failed and returns the reason it gives.
pub async fn failure_reason(session: &Session) -> String {
    let status = session
        .wait_for(WAIT, |s| matches!(s, Status::Failed { .. }))
        .await;
    match status {
        Status::Failed { reason } => reason,
        other => panic!("not failed: {other:?}"),
    }
}

pub fn no_args() -> serde_json::Map<String, serde_json::Value> {
    serde_json::Map::new()
}

pub fn uri(path: &Path) -> String {
    rootgate_model::uri::path_to_uri(path)
        .expect("uri")
        .to_string()
}
