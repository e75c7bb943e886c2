//! Workspace: "only the project the app is working in", a server's
//! setting (`ServerSpec::workspace_only`). With it on, the connection's
//! server is given only the folders shared with it that its AI app works
//! in, so two Claude Code windows in `~/code/a` and `~/code/b` through the
//! same server each see their own project.
//!
//! What counts as the app's folders, in this order:
//! - its roots, when it declares the capability and lists some (Claude
//!   Code, VS Code, Cursor list the project they have open);
//! - else the folder it started the bridge in (the bridge's working
//!   directory): apps that know a project start their servers there
//!   (Claude Code does), and one that does not starts them where it was
//!   itself started. `/`, the home folder and the folders above it say
//!   nothing about a project (a desktop app started from the menu runs in
//!   one of them), so they do not count;
//! - else nothing is known, and the connection is given everything shared
//!   with the server, as without the setting: an app that says nothing of
//!   its folders (Claude Desktop) is not cut off.
//!
//! A shared folder is given when it is one of the app's folders or lies
//! inside one: an app working in `~/code` is given `~/code/a` and
//! `~/code/b` if both are shared, but an app working in `~/code/a` is not
//! given a shared `~/code`, which is more than its project (the person is
//! asked about `~/code/a` itself instead). Until the app has said what it
//! works in (its roots come after `initialized`), the server is given
//! nothing, and the app's first request that could touch files waits for
//! the server to have the project ([`Relay::settle_workspace`]).
//!
//! A server given its folders as arguments (`${folders}`) cannot be
//! given nothing: it does not start without a folder, and it must start
//! before the app says what it works in (the app's roots come after the
//! server's `initialize` answer). It is started with a first guess: the
//! shared folders within the folder the app started the bridge in, when
//! that counts and holds any, else everything shared with it; once the app has said what
//! it works in, the list becomes that part, and the session starts the
//! server again with it (the app's first request waits for that start,
//! and is sent to it: see `route::resend`). The part may be empty (nothing
//! shared lies in the project): such a server then cannot start, and the
//! app's requests are answered at once with why ([`nothing_in_project`]),
//! until the person shares the project (then it starts with it).
//!
//! Every connection reports what it is given and why ([`Sees`]), with the
//! setting on or off, for the window's Connections view. The setting is
//! read when the connection starts: a change applies to the connections
//! made after it.
//!
//! What is not here: what is shared with the server (consent, in the
//! settings), the question about a folder the app works in that is not
//! shared (`folder_question`), and how the server is told (the session).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::{Relay, Seen};
use crate::connections::Sees;
use rootgate_model::consent::{SharedRoot, SharedRoots};
use rootgate_session::{Delivery, DeliveryState, ready::HOLD_BOUND};

/// How long the app has to answer the bridge's `roots/list` before what it
/// works in is taken from its working folder, or as unknown: SDK clients
/// answer in milliseconds.
const ROOTS_WITHIN: Duration = Duration::from_secs(1);

/// The most the app's first request waits for the app to say what it
/// works in, counted from the request: its `initialize` came before it,
/// and its roots are asked for right after `initialized`.
const KNOWN_WITHIN: Duration = Duration::from_secs(2);

/// What the app is known to work in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppFolders {
    /// Not known yet: the app has not sent `initialize`, or has not
    /// answered the bridge's `roots/list` yet.
    NotYet,
    /// Its roots, as it listed them.
    Roots(Vec<String>),
    /// The folder it started the bridge in, as a URI.
    WorkingFolder(String),
    /// Nothing: no roots, and a working folder that says nothing.
    Nothing,
}

impl AppFolders {
    /// The project a shared life's key takes it for: none while not said.
    pub(crate) fn project(&self) -> Project {
        match self {
            AppFolders::NotYet => None,
            said => Some(said.uris()),
        }
    }

    fn uris(&self) -> Vec<String> {
        match self {
            AppFolders::Roots(uris) => uris.clone(),
            AppFolders::WorkingFolder(uri) => vec![uri.clone()],
            AppFolders::NotYet | AppFolders::Nothing => Vec::new(),
        }
    }
}

/// The bridge's working folder as a URI, when it counts as a project:
/// not `/`, not the home folder `home`, nor a folder above it.
pub(crate) fn working_folder(cwd: Option<&Path>, home: Option<&Path>) -> Option<String> {
    let cwd = std::fs::canonicalize(cwd?).ok()?;
    let home = home.and_then(|h| std::fs::canonicalize(h).ok());
    if cwd.parent().is_none() || home.is_some_and(|h| h.starts_with(&cwd)) {
        return None;
    }
    rootgate_model::uri::path_to_uri(&cwd)
        .ok()
        .map(|u| u.to_string())
}

/// What the app works in, from what the relay has seen; `overdue` once
/// the app has had [`ROOTS_WITHIN`] to answer for its roots.
pub fn app_folders(seen: &Seen, overdue: bool, working: Option<&str>) -> AppFolders {
    let Some(app) = &seen.app else {
        return AppFolders::NotYet;
    };
    if app.capabilities.roots && !seen.app_roots.is_empty() {
        return AppFolders::Roots(seen.app_roots.clone());
    }
    if app.capabilities.roots && !seen.app_roots_answered && !overdue {
        return AppFolders::NotYet;
    }
    match working {
        Some(uri) => AppFolders::WorkingFolder(uri.to_owned()),
        None => AppFolders::Nothing,
    }
}

impl Seen {
    /// The folders the app works in, for the window's suggestions and the
    /// question: its roots, or the working folder that stands for them.
    pub fn app_folders(&self) -> Vec<String> {
        if self.app_roots.is_empty() {
            self.working_folder.iter().cloned().collect()
        } else {
            self.app_roots.clone()
        }
    }
}

/// The real path of each folder URI that leads to a folder.
fn real_paths(uris: &[String]) -> Vec<PathBuf> {
    uris.iter()
        .filter_map(|uri| rootgate_model::uri::uri_to_path(uri).ok())
        .filter_map(|path| std::fs::canonicalize(path).ok())
        .collect()
}

/// Whether the shared folder `root` is one of `folders` or inside one.
fn within(root: &SharedRoot, folders: &[PathBuf]) -> bool {
    rootgate_model::uri::uri_to_path(&root.uri)
        .is_ok_and(|path| folders.iter().any(|f| path.starts_with(f)))
}

/// Which folders are given, and why, in words; `arguments` for a server
/// given its folders as arguments (started with a first guess).
fn sees(on: bool, arguments: bool, known: &AppFolders, given: &[SharedRoot]) -> Sees {
    let shown = |uri: &str| {
        rootgate_model::uri::uri_to_path(uri)
            .map_or_else(|_| uri.to_owned(), |p| p.display().to_string())
    };
    let why = match (on, known) {
        (false, _) => "everything shared with the server (its Workspace setting is off)".to_owned(),
        (true, AppFolders::NotYet) if arguments => "for now, the shared folders in the folder \
                                                    the app started in, or everything shared: \
                                                    Workspace is on, and the server takes its \
                                                    folders as arguments, so it starts before \
                                                    the app says which folders it works in; it \
                                                    starts again with those once it does"
            .to_owned(),
        (true, AppFolders::NotYet) => {
            "nothing yet: Workspace is on, and the app has not said which folders it works in"
                .to_owned()
        }
        (true, AppFolders::Nothing) => "everything shared with the server: Workspace is on, but \
                                        the app did not say which folders it works in"
            .to_owned(),
        (true, AppFolders::Roots(uris)) => format!(
            "Workspace: the shared folders the app works in (its roots: {})",
            uris.iter()
                .map(String::as_str)
                .map(shown)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (true, AppFolders::WorkingFolder(uri)) => format!(
            "Workspace: the shared folders the app works in (the folder it started in: {})",
            shown(uri)
        ),
    };
    Sees {
        folders: given.iter().map(|r| r.uri.clone()).collect(),
        workspace: on,
        app_folders: known.uris(),
        why,
    }
}

/// The list the connection's session is given: with `on` (the server's
/// Workspace setting), the part of `all` (what is shared with the server)
/// the app works in, kept up to date as either changes; otherwise `all`
/// itself. Either way the relay says what is given and why ([`Sees`]).
/// `working` is the bridge's working folder, if it counts (see
/// [`working_folder`]); `arguments` says the server is given its folders
/// as arguments (see the module's doc).
pub(crate) fn narrow(
    all: watch::Receiver<SharedRoots>,
    relay: &Arc<Relay>,
    working: Option<String>,
    on: bool,
    arguments: bool,
) -> watch::Receiver<SharedRoots> {
    let given = watch::Sender::new(SharedRoots::empty());
    let session = if on { given.subscribe() } else { all.clone() };
    let (tx, rx) = watch::channel(None);
    // Only a connection that is narrowed has anything to settle first.
    if on {
        relay.lock().workspace = Some(rx);
    }
    let (mut working, mode) = (Working::new(working), Mode { on, arguments });
    // The first list is made here, not left to the follower's first turn:
    // the session may start its server before that turn comes (under load
    // it did), and a server given its folders as arguments would find none
    // and be said to have no folder shared with it.
    if on {
        let list = all.borrow().clone();
        working.counts =
            working.uri.is_some() && list.roots().iter().any(|r| within(r, &working.paths));
        let keep = |r: &SharedRoot| keeps(r, mode, &AppFolders::NotYet, &[], &working);
        given.send_if_modified(|current| match list.narrowed(current, keep) {
            Some(next) => {
                *current = next;
                true
            }
            None => false,
        });
    }
    tokio::spawn(follow(all, Arc::downgrade(relay), working, mode, given, tx));
    session
}

/// The bridge's working folder, as a URI and as the real path it names;
/// `counts` while it is the first guess of a server given its folders as
/// arguments (it is not when nothing shared lies in it: a guess must not
/// keep the server from starting).
struct Working {
    uri: Option<String>,
    paths: Vec<PathBuf>,
    counts: bool,
}

impl Working {
    fn new(uri: Option<String>) -> Working {
        let paths = real_paths(uri.as_slice());
        let counts = uri.is_some();
        Working { uri, paths, counts }
    }
}

/// The server's Workspace setting, and whether it takes its folders as
/// arguments.
#[derive(Clone, Copy)]
struct Mode {
    on: bool,
    arguments: bool,
}

/// Whether the shared folder `r` is given while the app's folders are
/// `known` (their real paths `paths`).
fn keeps(
    r: &SharedRoot,
    mode: Mode,
    known: &AppFolders,
    paths: &[PathBuf],
    working: &Working,
) -> bool {
    match known {
        // A server given its folders as arguments starts before the app
        // says what it works in: with the first guess.
        AppFolders::NotYet if mode.arguments => !working.counts || within(r, &working.paths),
        AppFolders::NotYet => false,
        AppFolders::Nothing => true,
        AppFolders::Roots(_) | AppFolders::WorkingFolder(_) => within(r, paths),
    }
}

/// Keeps the narrowed list and what the relay says of it up to date,
/// until the connection ends.
async fn follow(
    mut all: watch::Receiver<SharedRoots>,
    relay: std::sync::Weak<Relay>,
    mut working: Working,
    mode: Mode,
    given: watch::Sender<SharedRoots>,
    known_tx: watch::Sender<Option<Sees>>,
) {
    let on = mode.on;
    // The relay is held only while it is told, never across the wait: the
    // task waits on the relay's own `seen`, so a strong hold would keep the
    // relay, and all of its connection, alive for ever (in the gate, which
    // outlives every connection). Once the relay goes, `seen` ends the task.
    let Some(mut seen) = relay.upgrade().map(|r| r.subscribe()) else {
        return;
    };
    let mut overdue_at: Option<Instant> = None;
    let mut known = AppFolders::NotYet;
    let mut paths: Vec<PathBuf> = Vec::new();
    loop {
        let now = {
            let s = seen.borrow_and_update();
            if s.app_roots_asked && !s.app_roots_answered && overdue_at.is_none() {
                overdue_at = Some(Instant::now() + ROOTS_WITHIN);
            }
            let overdue = overdue_at.is_some_and(|at| Instant::now() >= at);
            app_folders(&s, overdue, working.uri.as_deref())
        };
        if now != known {
            paths = real_paths(&now.uris());
            known = now;
        }
        let list = all.borrow_and_update().clone();
        working.counts =
            working.uri.is_some() && list.roots().iter().any(|r| within(r, &working.paths));
        let shown: Vec<SharedRoot> = if on {
            let keep = |r: &SharedRoot| keeps(r, mode, &known, &paths, &working);
            given.send_if_modified(|current| match list.narrowed(current, keep) {
                Some(next) => {
                    *current = next;
                    true
                }
                None => false,
            });
            given.borrow().roots().to_vec()
        } else {
            list.roots().to_vec()
        };
        let said = sees(on, mode.arguments, &known, &shown);
        let settled = on && known != AppFolders::NotYet;
        let working_now = match &known {
            AppFolders::WorkingFolder(uri) if on => Some(uri.clone()),
            _ => None,
        };
        let Some(relay) = relay.upgrade() else {
            return;
        };
        relay.seen.send_if_modified(|s| {
            let changed = s.sees.as_ref() != Some(&said) || s.working_folder != working_now;
            s.sees = Some(said.clone());
            s.working_folder = working_now.clone();
            changed
        });
        drop(relay);
        known_tx.send_replace(settled.then_some(said));
        let wake = overdue_at.filter(|at| *at > Instant::now());
        tokio::select! {
            changed = seen.changed() => if changed.is_err() { return },
            changed = all.changed() => if changed.is_err() { return },
            () = sleep_until(wake) => {}
        }
    }
}

/// What the app is told while its server, given its folders as arguments,
/// cannot start because Workspace leaves it none (`seen`: the
/// connection's): nothing shared with `name` lies in the project the app
/// works in. `None` when that is not why.
pub(crate) fn nothing_in_project(seen: &Seen, name: &str) -> Option<String> {
    let sees = seen.sees.as_ref()?;
    if !sees.workspace || !sees.folders.is_empty() {
        return None;
    }
    let project = seen
        .app_folders()
        .first()
        .or(sees.app_folders.first())
        .and_then(|uri| rootgate_model::uri::uri_to_path(uri).ok())
        .map_or_else(
            || "the folder it started in".to_owned(),
            |p| p.display().to_string(),
        );
    Some(format!(
        "{name} is set to Workspace in Rootgate, and none of the folders shared with it is in \
         the project this app works in ({project}); share that folder with {name} in the \
         Rootgate window"
    ))
}

/// The project a shared life of a Workspace server serves (`shared`): the
/// folders its connections work in, as their `Sees::app_folders` say
/// (empty: the apps say nothing, and everything shared is given), or
/// `None` for the lobby a connection waits in until its app says.
pub(crate) type Project = Option<Vec<String>>;

/// The list a shared life of a Workspace server is given: the part of
/// `all` (what is shared with the server) in `project`, kept up to date as
/// either changes, by the returned task. The first list is made here, as in
/// [`narrow`], before the life's server can start.
pub(crate) fn project_part(
    mut all: watch::Receiver<SharedRoots>,
    mut project: watch::Receiver<Project>,
) -> (watch::Receiver<SharedRoots>, tokio::task::JoinHandle<()>) {
    let given = watch::Sender::new(SharedRoots::empty());
    let part = given.subscribe();
    let update = move |all: &SharedRoots, project: &Project| {
        let paths = project.as_deref().map(real_paths).unwrap_or_default();
        let keep = |r: &SharedRoot| match project {
            None => false,
            Some(uris) if uris.is_empty() => true,
            Some(_) => within(r, &paths),
        };
        given.send_if_modified(|current| match all.narrowed(current, keep) {
            Some(next) => {
                *current = next;
                true
            }
            None => false,
        });
    };
    update(&all.borrow_and_update(), &project.borrow_and_update());
    let task = tokio::spawn(async move {
        loop {
            tokio::select! {
                changed = all.changed() => if changed.is_err() { return },
                changed = project.changed() => if changed.is_err() { return },
            }
            let list = all.borrow_and_update().clone();
            update(&list, &project.borrow_and_update());
        }
    });
    (part, task)
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

impl Relay {
    /// For a connection to a shared server (`shared`): takes what
    /// [`narrow`] publishes once the app has said what it works in, for the
    /// gate to move the connection to its project's life by, and makes the
    /// first request wait on `moved` instead, which the gate sets once the
    /// connection is there. `None` when the connection is not narrowed.
    pub(crate) fn settle_after_move(
        &self,
        moved: watch::Receiver<Option<Sees>>,
    ) -> Option<watch::Receiver<Option<Sees>>> {
        let mut state = self.lock();
        let known = state.workspace.take()?;
        state.workspace = Some(moved);
        Some(known)
    }

    /// For a server whose connections see only their app's project: the
    /// app's first request that could touch files (`what`) waits until the
    /// app has said what it works in and the server has been given that
    /// part of what is shared (the session's delivery says so), at most
    /// [`KNOWN_WITHIN`] and then [`HOLD_BOUND`]. The timeline says so.
    pub(super) async fn settle_workspace(&self, what: &str) {
        let Some(mut known) = self.lock().workspace.clone() else {
            return;
        };
        let start = Instant::now();
        let deadline = start + KNOWN_WITHIN;
        let sees = loop {
            if let Some(sees) = known.borrow_and_update().clone() {
                break Some(sees);
            }
            tokio::select! {
                changed = known.changed() => if changed.is_err() { break None },
                () = tokio::time::sleep_until(deadline) => break None,
            }
        };
        let said = match &sees {
            None => format!(
                "Held the app's first request ({what}) {} ms; the app did not say which folders \
                 it works in, and it goes on with none of them",
                start.elapsed().as_millis()
            ),
            Some(sees) if sees.folders.is_empty() => {
                self.wait_holds_none(Instant::now() + HOLD_BOUND).await;
                return;
            }
            Some(sees) => {
                let given = self
                    .wait_given_exactly(&sees.folders, Instant::now() + HOLD_BOUND)
                    .await;
                format!(
                    "Held the app's first request ({what}) {} ms until the server {} the app's \
                     project ({})",
                    start.elapsed().as_millis(),
                    if given {
                        "had"
                    } else {
                        "was told, but had not taken,"
                    },
                    sees.why
                )
            }
        };
        self.timeline().record(
            &self.server,
            rootgate_model::timeline::Event::FirstRequest {
                held_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
                said,
            },
        );
    }

    /// The app works in no folder shared with the server: waits until the
    /// ready life holds none, by `by`. A server given its folders as
    /// arguments was started with the first guess and cannot hold none: it
    /// is being stopped, and the request must not reach it first.
    async fn wait_holds_none(&self, by: Instant) {
        let Some(mut delivery) = self.lock().delivery.clone() else {
            return;
        };
        let mut ready = self.ready.subscribe();
        let Some(first) = ready.borrow_and_update().clone() else {
            return;
        };
        loop {
            let holds = {
                let d = delivery.borrow_and_update();
                d.state == DeliveryState::UpToDate
                    && d.given.as_ref().is_some_and(|g| !g.is_empty())
            };
            let same = ready
                .borrow_and_update()
                .as_ref()
                .is_some_and(|now| now.same_channel(&first));
            if !holds || !same {
                return;
            }
            tokio::select! {
                changed = delivery.changed() => if changed.is_err() { return },
                changed = ready.changed() => if changed.is_err() { return },
                () = tokio::time::sleep_until(by) => return,
            }
        }
    }

    /// Waits until the server has been given exactly `uris`, no more (or, a
    /// modern server, is given them with each request), by `by`: a server
    /// started with more (a server given its folders as arguments, before
    /// the app said what it works in) is not the one to send to.
    async fn wait_given_exactly(&self, uris: &[String], by: Instant) -> bool {
        self.wait_given(by, |list| list.len() == uris.len() && holds_all(list, uris))
            .await
    }

    /// Waits until the server has been given every one of `uris` (or, a
    /// modern server, is given them with each request), by `by`.
    pub(super) async fn wait_given_all(&self, uris: &[String], by: Instant) -> bool {
        self.wait_given(by, |list| holds_all(list, uris)).await
    }

    /// Waits until the list the server was given (or, a modern server, is
    /// given with each request) is one `wanted` accepts, by `by`; false
    /// when it is not by then, or the session has no delivery to follow.
    /// While a change is still on its way there is no such list.
    async fn wait_given(&self, by: Instant, wanted: impl Fn(&[SharedRoot]) -> bool) -> bool {
        let (delivery, own) = {
            let state = self.lock();
            (state.delivery.clone(), state.roots.clone())
        };
        let Some(mut delivery) = delivery else {
            return false;
        };
        // A modern server is given, with each request, the list its
        // connection answers rounds from: the session's for a connection of
        // its own, the connection's own part for one sharing a modern life
        // with other projects (`shared`).
        let mut own = own.unwrap_or_else(|| watch::Sender::new(SharedRoots::empty()).subscribe());
        let has = |d: &Delivery, own: &SharedRoots| {
            let list = match d.state {
                DeliveryState::PerRequest => Some(own.roots()),
                DeliveryState::UpToDate => d.given.as_deref(),
                _ => None,
            };
            list.is_some_and(&wanted)
        };
        loop {
            if has(&delivery.borrow_and_update(), &own.borrow_and_update()) {
                return true;
            }
            tokio::select! {
                changed = delivery.changed() => if changed.is_err() { return false },
                Ok(()) = own.changed() => {}
                () = tokio::time::sleep_until(by) => return false,
            }
        }
    }
}

/// Whether `list` holds a folder at each of `uris`.
fn holds_all(list: &[SharedRoot], uris: &[String]) -> bool {
    uris.iter().all(|u| list.iter().any(|r| &r.uri == u))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::{AppCapabilities, AppInfo};

    fn app(roots: bool) -> Option<AppInfo> {
        Some(AppInfo {
            name: "claude-code".into(),
            version: "2".into(),
            protocol_version: "2025-11-25".into(),
            capabilities: AppCapabilities {
                roots,
                ..AppCapabilities::default()
            },
        })
    }

    #[test]
    fn the_apps_folders_are_its_roots_then_its_working_folder_then_nothing() {
        let work = Some("file:///home/u/code/a");
        let mut seen = Seen::default();
        assert_eq!(app_folders(&seen, false, work), AppFolders::NotYet);
        // An app with roots: not known until it answers, or is overdue.
        seen.app = app(true);
        assert_eq!(app_folders(&seen, false, work), AppFolders::NotYet);
        assert_eq!(
            app_folders(&seen, true, work),
            AppFolders::WorkingFolder("file:///home/u/code/a".into())
        );
        seen.app_roots_answered = true;
        assert_eq!(app_folders(&seen, false, None), AppFolders::Nothing);
        seen.app_roots = vec!["file:///home/u/code/b".into()];
        assert_eq!(
            app_folders(&seen, false, work),
            AppFolders::Roots(vec!["file:///home/u/code/b".into()])
        );
        // An app without roots: its working folder at once, or nothing.
        let mut plain = Seen {
            app: app(false),
            ..Seen::default()
        };
        assert_eq!(
            app_folders(&plain, false, work),
            AppFolders::WorkingFolder("file:///home/u/code/a".into())
        );
        assert_eq!(app_folders(&plain, false, None), AppFolders::Nothing);
        plain.working_folder = work.map(str::to_owned);
        assert_eq!(
            plain.app_folders(),
            vec!["file:///home/u/code/a".to_owned()]
        );
    }

    #[test]
    fn the_root_of_the_disk_and_the_home_folder_and_above_it_are_no_project() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home/u");
        let project = home.join("code/a");
        std::fs::create_dir_all(&project).expect("mkdir");
        let home = Some(home.as_path());
        assert_eq!(working_folder(Some(Path::new("/")), home), None);
        assert_eq!(working_folder(home, home), None);
        assert_eq!(working_folder(Some(&dir.path().join("home")), home), None);
        let uri = working_folder(Some(&project), home).expect("a project");
        assert!(uri.ends_with("/home/u/code/a"), "{uri}");
        assert_eq!(working_folder(None, home), None);
    }

    /// A server given its folders as arguments is started with the first
    /// guess, which must be there before anything else runs: read here
    /// before the follower has had a turn (one thread, no wait yet), as a
    /// session that starts its server at once reads it.
    #[tokio::test(flavor = "current_thread")]
    async fn a_server_given_its_folders_as_arguments_has_its_first_guess_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = rootgate_model::settings::SettingsFile::at(dir.path().join("settings.json"));
        let secrets = rootgate_model::secrets::Secrets::new(Arc::new(
            rootgate_model::secrets::MemoryKeyring::default(),
        ));
        let (store, _) =
            rootgate_model::store::Store::open_with_secrets(file, secrets).expect("store");
        let spec = store
            .add_server(rootgate_model::servers::ServerDraft {
                name: "files".into(),
                command: "npx".into(),
                args: vec!["${folders}".into()],
                ..Default::default()
            })
            .expect("server");
        let project = dir.path().join("code/a");
        std::fs::create_dir_all(&project).expect("mkdir");
        let checked = rootgate_model::folders::check(&project).expect("folder");
        let root = store.add_root(&checked, None).expect("root").root.id;
        store.grant(&spec.id, &root).expect("grant");
        let all = store.subscribe(&spec.id).expect("list");
        let (out_tx, _out) = tokio::sync::mpsc::channel(1);
        let relay = Relay::new(
            spec.id.clone(),
            Arc::new(rootgate_model::timeline::Timeline::default()),
            out_tx,
        );
        let working = working_folder(Some(&project), Some(&dir.path().join("home")));
        assert!(working.is_some(), "the project counts");
        let given = narrow(all, &relay, working, true, true);
        assert_eq!(given.borrow().roots().len(), 1, "the first guess, at once");
    }

    #[test]
    fn a_shared_folder_is_given_when_it_is_the_apps_folder_or_inside_it() {
        let root = |uri: &str| SharedRoot {
            root: rootgate_model::ids::RootId::generate(),
            uri: uri.into(),
            name: "x".into(),
        };
        let folders = vec![PathBuf::from("/w/code/a")];
        assert!(within(&root("file:///w/code/a"), &folders));
        assert!(within(&root("file:///w/code/a/docs"), &folders));
        assert!(
            !within(&root("file:///w/code"), &folders),
            "more than the project"
        );
        assert!(!within(&root("file:///w/code/ab"), &folders), "a sibling");
        assert!(!within(&root("file:///w/code/b"), &folders));
    }
}
