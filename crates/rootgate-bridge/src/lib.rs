//! `rootgate-bridge`: what runs behind `rootgate connect NAME`, and the
//! window's side of it. It builds on sessions (`rootgate-session`), giving
//! each the relay as its app side; it is not the command line (the
//! `rootgate` binary), the window, or the supervisor.
//!
//! Modules: `relay` (the tasks that carry lines), `route` (the pure
//! decisions about each line), `window_link` (the bridge's reports to the
//! window), `app_side` (the relay as a session's app side), `connections`
//! (the window's list of bridges, over a local socket), `window_socket`
//! (where that socket is, and that both its ends are the person's),
//! `instance` (the one window per settings file), `gate` (the resident
//! gate that serves every door), `shared` (the server processes the gate's
//! connections share).
//!
//! The bridge: `rootgate connect NAME`, which an AI app runs in place of a
//! server, so that the server it reaches is Rootgate's and sees exactly the
//! folders the person shared with it.
//!
//! The bridge speaks MCP on its own stdin and stdout to the app, runs the
//! named server as a session of Rootgate's own (the same spawn, launcher,
//! approval check, consent-answered `roots/list`, notification rules,
//! Landlock enforcement and timeline as the window's sessions), and
//! carries everything else both ways through its relay (`relay`, `route`).
//! It reads the settings file and never writes it: only the window's
//! process does. A change made in the window reaches it through the file,
//! which it watches.
//!
//! What is not here: the routing decisions (`route`), the byte-level relay
//! (`relay`), and the command line (the `rootgate` binary).

pub mod app_io;
mod app_side;
pub mod connections;
pub mod gate;
pub mod instance;
pub mod notes;
pub mod relay;
pub mod route;
pub mod shared;
pub(crate) mod window_link;
pub mod window_socket;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rootgate_host::watch::{Change, ChangeKind, Watch, Watches};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, watch};

use relay::Relay;
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerSpec;
use rootgate_model::settings::SettingsFile;
use rootgate_model::store::Store;
use rootgate_model::timeline::Timeline;
use rootgate_session::process::StartedBy;
use rootgate_session::{Session, SessionConfig, Status};
pub(crate) use window_link::Serving;

/// How long changes to the settings file are gathered before it is read
/// again: an atomic save is a few events (the temporary file, the rename).
const SETTINGS_SETTLE: Duration = Duration::from_millis(50);

/// What `rootgate connect` was asked for.
pub struct Options {
    pub settings: SettingsFile,
    /// The configured server's name, as the app's config gives it.
    pub server: String,
    pub session: SessionConfig,
    /// What the app gave the door, for a connection the gate serves: the
    /// few variables a server inherits (`HOME` among them) and where the app
    /// started it (a Workspace server's project when the app names no
    /// roots). `None`: this process's own.
    pub started_by: Option<StartedBy>,
    /// Where the connection's notes go: the app's log of the server.
    pub notes: notes::Notes,
    /// The process the app started for this connection, as the window
    /// lists it: this one, or the door the gate serves.
    pub pid: u32,
    /// Cancelled when the app's side is gone without its input ending (a
    /// door killed while the gate holds the app's streams): the connection
    /// ends as when the app disconnects.
    pub hang_up: tokio_util::sync::CancellationToken,
    /// The resident gate's shared server lives and its one store of the
    /// settings; `None` for a connection in a process of its own.
    pub lives: Option<Arc<shared::Lives>>,
}

impl Options {
    /// A connection of this process's own: its working folder, home and
    /// standard error.
    pub fn here(settings: SettingsFile, server: String, session: SessionConfig) -> Options {
        Options {
            settings,
            server,
            session,
            started_by: None,
            notes: notes::Notes::stderr(),
            pid: std::process::id(),
            hang_up: tokio_util::sync::CancellationToken::new(),
            lives: None,
        }
    }
}

/// Aborts a task of the connection's when the connection ends: in the
/// gate, which outlives every connection, nothing of one may keep running.
struct EndsWith(tokio::task::JoinHandle<()>);

impl Drop for EndsWith {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// How the bridge ended, for its exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The app closed the connection.
    Disconnected,
    /// The server could not be reached or stopped; the reason was written
    /// to stderr and given to the app as the error of its request.
    Failed(String),
}

/// Why the named server cannot be served at all.
fn refusal(store: &Store, name: &str) -> Result<ServerSpec, String> {
    let servers = store.snapshot().servers;
    let wanted = name.trim();
    let Some(spec) = servers
        .iter()
        .find(|s| s.name.trim().eq_ignore_ascii_case(wanted))
    else {
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        return Err(if names.is_empty() {
            format!(
                "there is no server named \"{wanted}\" in Rootgate, and none is configured yet: \
                 open Rootgate and add it"
            )
        } else {
            format!(
                "there is no server named \"{wanted}\" in Rootgate; the configured ones are: {}",
                names.join(", ")
            )
        });
    };
    if !spec.is_approved() {
        return Err(format!(
            "the command of \"{}\" has not been approved to run yet: open Rootgate and approve \
             its command (`{}`)",
            spec.name,
            spec.masked_command_line()
        ));
    }
    Ok(spec.clone())
}

/// Runs the bridge for the app on `app_in`/`app_out` until the app closes
/// the connection or the server cannot go on.
pub async fn connect(
    options: Options,
    app_in: impl AsyncRead + Unpin + Send + 'static,
    app_out: impl AsyncWrite + Unpin + Send + 'static,
) -> Outcome {
    let (out_tx, out_rx) = mpsc::channel(1024);
    let done = tokio_util::sync::CancellationToken::new();
    let writer = tokio::spawn(relay::write_app(out_rx, app_out, done.clone()));
    let notes = options.notes.clone();
    // AI apps start the bridge without saying where the session bus is; the
    // window recorded it beside the settings (see `secrets::service`).
    if let Some(dir) = options.settings.path().parent() {
        rootgate_host::keyring::find_bus_in(dir);
    }
    // The gate reads the settings once for every connection.
    let opened = match &options.lives {
        Some(lives) => Ok((Arc::clone(lives.store()), None)),
        None => Store::open_read_only(options.settings.clone()).map(|(s, p)| (Arc::new(s), p)),
    };
    let (store, spec) = match opened {
        Ok((store, problem)) => {
            if let Some(problem) = problem {
                notes.say(&format!(
                    "the settings file {} is damaged ({problem}); using what could be read",
                    options.settings.path().display()
                ));
            }
            let spec = refusal(&store, &options.server);
            (Some(store), spec)
        }
        Err(e) => (None, Err(format!("the settings could not be read: {e}"))),
    };
    let server = spec
        .as_ref()
        .map(|s| s.id.clone())
        .unwrap_or_else(|_| ServerId::generate());
    // A connection that joins a shared server life tells its story in the
    // life's timeline from then on (`shared`); until then, in its own.
    let lives = options
        .lives
        .clone()
        .filter(|_| spec.as_ref().is_ok_and(shared::Lives::shares));
    let timeline = Arc::new(Timeline::default());
    let relay = Relay::new(server.clone(), Arc::clone(&timeline), out_tx);
    relay.write_notes_to(notes.clone());
    // In the gate, what its one settings watch finds wrong is said to each
    // app, as a connection of its own says it (once, and again only when it
    // is something else).
    let _problems = options.lives.as_ref().map(|lives| {
        let mut problems = lives.problems();
        let relay = Arc::downgrade(&relay);
        EndsWith(tokio::spawn(async move {
            loop {
                let now = problems.borrow_and_update().clone();
                if let (Some(words), Some(relay)) = (now, relay.upgrade()) {
                    relay.say(&words);
                }
                if problems.changed().await.is_err() {
                    return;
                }
            }
        }))
    });
    // The person's tool rules apply from the app's first line: set before
    // its lines are read, so the app is not told of a change.
    if let Ok(spec) = &spec {
        relay.set_tool_rules(spec.tool_rules.clone()).await;
        // Every call is kept in the record beside the settings.
        relay.record_calls_in(
            rootgate_model::calls::folder(options.settings.path()),
            spec.name.clone(),
        );
    }
    let (app_gone_tx, mut app_gone) = tokio::sync::oneshot::channel::<()>();
    let reader_relay = Arc::clone(&relay);
    let hang_up = options.hang_up.clone();
    let _reader = EndsWith(tokio::spawn(async move {
        tokio::select! {
            () = reader_relay.read_app(app_in) => {}
            () = hang_up.cancelled() => {}
        }
        let _ = app_gone_tx.send(());
    }));
    let place = match options.started_by {
        Some(started_by) => {
            let place = Place {
                working_folder: started_by.working_folder.clone(),
                home: started_by.env.get("HOME").map(PathBuf::from),
                pid: options.pid,
            };
            relay.started_by_app(started_by);
            place
        }
        None => Place {
            working_folder: std::env::current_dir().ok(),
            home: std::env::var_os("HOME").map(PathBuf::from),
            pid: options.pid,
        },
    };
    let wait = options.session.init_timeout;
    let outcome = match (store, spec) {
        (Some(store), Ok(spec)) => {
            let on = On {
                store,
                relay: &relay,
                config: options.session,
                place: &place,
            };
            match (lives, options.lives) {
                (Some(lives), _) => shared::serve::serve(on, spec, &lives, &mut app_gone).await,
                (None, gate) => serve(on, spec, timeline, gate.is_none(), &mut app_gone).await,
            }
        }
        (_, Err(why)) => {
            refuse(&relay, &why, wait, &mut app_gone).await;
            Outcome::Failed(why)
        }
        (None, Ok(_)) => Outcome::Failed("the settings could not be read".into()),
    };
    // The app's reader may still wait for its input; what is queued for
    // the app goes out, the calls not recorded yet are, and the bridge
    // ends.
    done.cancel();
    let _ = writer.await;
    relay.flush_calls();
    // The app's streams are closed here, whatever of the connection is
    // still let go of later: in the gate, nothing else would close them.
    notes.close();
    outcome
}

/// Says why the server cannot be reached: to stderr at once (AI apps show
/// it in their logs), and to the app as the error of its `initialize`, which
/// may still be on its way (for at most `wait`).
pub(crate) async fn refuse(
    relay: &Arc<Relay>,
    why: &str,
    wait: Duration,
    app_gone: &mut tokio::sync::oneshot::Receiver<()>,
) {
    relay.say(why);
    let mut seen = relay.subscribe();
    let deadline = tokio::time::sleep(wait);
    tokio::pin!(deadline);
    while !relay.refuse(why).await {
        tokio::select! {
            _ = &mut *app_gone => return,
            _ = &mut deadline => return,
            changed = seen.changed() => if changed.is_err() { return },
        }
    }
}

/// How long a bridge whose server failed waits, at most, for its link to
/// tell the window why, when a window is there: the socket connects and
/// writes in milliseconds; the bound only keeps a stuck window from
/// keeping an app waiting for its error.
const LAST_REPORT_WITHIN: Duration = Duration::from_secs(2);

/// Where the app started the connection, and the process it started
/// (see `Options`).
pub(crate) struct Place {
    pub(crate) working_folder: Option<PathBuf>,
    pub(crate) home: Option<PathBuf>,
    pid: u32,
}

/// What a connection's server is served with.
pub(crate) struct On<'a> {
    pub(crate) store: Arc<Store>,
    pub(crate) relay: &'a Arc<Relay>,
    pub(crate) config: SessionConfig,
    pub(crate) place: &'a Place,
}

/// Serves the connection with a server process of its own; `watch`: this
/// process watches the settings and folders for it (not in the gate, which
/// does once for all).
async fn serve(
    on: On<'_>,
    spec: ServerSpec,
    timeline: Arc<Timeline>,
    watch: bool,
    app_gone: &mut tokio::sync::oneshot::Receiver<()>,
) -> Outcome {
    let session = match relayed_session(&on.store, &spec, on.relay, timeline, on.config, on.place) {
        Ok(session) => session,
        Err(why) => return Outcome::Failed(why),
    };
    // The server starts first: the app's `initialize` waits for it, and
    // what follows (the watches and the window's link) is done while its
    // program loads, not before (BENCHMARKS.md: start-up). Neither misses
    // anything for starting later: the settings watch reads the file once
    // more when it is on, the folder watch begins from the availability
    // read before, and the link sends the timeline and status as they are.
    session.start(spec.clone());
    let _monitor = watch.then(|| EndsWith(rootgate_model::monitor::spawn(Arc::clone(&on.store))));
    let _watch = if watch {
        let relay = Arc::clone(on.relay);
        watch_settings(Arc::clone(&on.store), move |words| {
            if let Some(words) = words {
                relay.say(words);
            }
        })
    } else {
        None
    };
    let (_serving, serving) = watch::channel(serving_of(&session));
    let outcome = follow(&on, &spec, serving, app_gone).await;
    session.shutdown().await;
    outcome
}

/// A session's story and status, as a connection follows them.
fn serving_of(session: &Session) -> Serving {
    Serving {
        timeline: Arc::clone(session.timeline()),
        status: session.subscribe_status(),
    }
}

/// Follows the connection's server until the connection ends: the
/// person's tool rules, the window's link, the server's status.
pub(crate) async fn follow(
    on: &On<'_>,
    spec: &ServerSpec,
    serving: watch::Receiver<Serving>,
    app_gone: &mut tokio::sync::oneshot::Receiver<()>,
) -> Outcome {
    let (id, name) = (spec.id.clone(), spec.name.clone());
    let (store, relay) = (&on.store, on.relay);
    let _rules = EndsWith(follow_tool_rules(
        Arc::clone(store),
        id.clone(),
        Arc::clone(relay),
    ));
    // Reports to the window, when there is one; kept alive until the end.
    let socket = crate::connections::socket_path(store.file().path());
    let (reported_tx, reported) = tokio::sync::watch::channel(None);
    let ended = tokio_util::sync::CancellationToken::new();
    let _ended = ended.clone().drop_guard();
    let _link = window_link::Link {
        socket: socket.clone(),
        connection: rootgate_model::ids::ConnectionId::generate(),
        server: id.clone(),
        server_name: name.clone(),
        started_at_ms: rootgate_model::ids::now_ms(),
        pid: on.place.pid,
        relay: Arc::clone(relay),
        serving: serving.clone(),
        reported: reported_tx,
        ended,
    }
    .spawn();
    let life = Life {
        store,
        id: &id,
        name: &name,
        relay,
        socket: &socket,
        reported,
        config: on.config,
    };
    life.until_end(serving, app_gone).await
}

/// The server's session, made with the folders it may see now and
/// followed by the relay; not yet started.
fn relayed_session(
    store: &Arc<Store>,
    spec: &ServerSpec,
    relay: &Arc<Relay>,
    timeline: Arc<Timeline>,
    config: SessionConfig,
    place: &Place,
) -> Result<Session, String> {
    mark_available(store);
    let roots = store.subscribe(&spec.id).map_err(|e| e.to_string())?;
    // Where the app started the connection: for a server set to
    // Workspace, the project when the app gives no roots.
    let working =
        relay::workspace::working_folder(place.working_folder.as_deref(), place.home.as_deref());
    // A server given its folders as arguments is narrowed too: it starts
    // with the part its first guess of the project allows, and again once
    // the app has said what it works in (see `relay::workspace`).
    let arguments = rootgate_model::placeholders::has_placeholders(spec);
    let roots = relay::workspace::narrow(roots, relay, working, spec.workspace_only, arguments);
    let session =
        Session::spawn_relayed(spec.id.clone(), roots, timeline, config, Arc::clone(relay));
    fence(relay, store, &spec.id, &session, &config);
    Ok(session)
}

/// Which folders are there now decides the first list a server is told,
/// so it is read before a server starts: one read of the mount table.
pub(crate) fn mark_available(store: &Store) {
    let mounts = rootgate_host::mounts::MountTable::read();
    for root in store.snapshot().roots {
        let _ = store.set_available(
            &root.id,
            rootgate_model::monitor::is_available(&root, &mounts),
        );
    }
}

/// Ties `relay` to the session serving it: what the server was given, and
/// the fence, so that no app request that could touch files goes on with
/// folders older than the last save, nor to a server that may still hold
/// one the person withdrew (relay/fence.rs).
pub(crate) fn fence(
    relay: &Relay,
    store: &Arc<Store>,
    server: &ServerId,
    session: &Session,
    config: &SessionConfig,
) {
    relay.follow_delivery(session.subscribe_delivery());
    // A connection that moves to another shared life keeps its fence, and
    // the fence follows the new life.
    if let Some(fence) = relay.fence() {
        fence.follow(session.subscribe_delivery());
        return;
    }
    if let Ok(shared) = store.subscribe(server) {
        relay.fence_withdrawals(relay::Fence::new(
            Arc::clone(store),
            shared,
            session.subscribe_delivery(),
            config.notify,
        ));
    }
}

/// What a bridge's running server is watched with until it ends.
struct Life<'a> {
    store: &'a Store,
    id: &'a ServerId,
    name: &'a str,
    relay: &'a Arc<Relay>,
    /// The window's socket, and what the link last reported through it.
    socket: &'a std::path::Path,
    reported: tokio::sync::watch::Receiver<Option<Status>>,
    config: SessionConfig,
}

impl Life<'_> {
    /// Follows the server's status until the app goes, the bridge is told
    /// to stop, or the server fails or is removed.
    async fn until_end(
        mut self,
        mut serving: watch::Receiver<Serving>,
        app_gone: &mut tokio::sync::oneshot::Receiver<()>,
    ) -> Outcome {
        let mut status = serving.borrow_and_update().status.clone();
        // An app that closes a server's input and does not see it end soon
        // sends SIGTERM (the TypeScript SDK after 2 s, SIGKILL 2 s later): the
        // calls not recorded yet are written at once, then the bridge ends as
        // when the app goes.
        let mut terminated = stop_signals();
        loop {
            tokio::select! {
                // A move is seen before the last life's status: that life
                // may be stopping, and is no longer this connection's.
                biased;
                _ = &mut *app_gone => return Outcome::Disconnected,
                Some(()) = terminated.recv() => {
                    self.relay.flush_calls();
                    return Outcome::Disconnected;
                }
                // Moved to another life (`shared`): its status from now on.
                // Its status now is not a change: a life just made reads
                // as stopped until its session starts it.
                Ok(()) = serving.changed() => {
                    status = serving.borrow_and_update().status.clone();
                    status.borrow_and_update();
                }
                changed = status.changed() => {
                    if changed.is_err() {
                        return Outcome::Failed("the server was removed from Rootgate".into());
                    }
                    let now = status.borrow_and_update().clone();
                    let Some(why) = self.ends_for(now).await else {
                        continue;
                    };
                    refuse(self.relay, &why, self.config.init_timeout, app_gone).await;
                    return Outcome::Failed(why);
                }
            }
        }
    }

    /// Why the bridge ends at status `now`, if it does.
    async fn ends_for(&mut self, now: Status) -> Option<String> {
        match now {
            // The server cannot start until the person shares a
            // folder: the app is answered at once meanwhile, and
            // stays connected for when they do.
            Status::Waiting { reason } => {
                let why = relay::workspace::nothing_in_project(&self.relay.seen(), self.name)
                    .unwrap_or_else(|| cannot_start(self.store, self.id, self.name, &reason));
                self.relay.cannot_start(&why).await;
                None
            }
            Status::Failed { reason } => {
                // The window (and the desktop notification it
                // sends) hears why before the bridge ends.
                if self.socket.exists() {
                    let failed = Status::Failed {
                        reason: reason.clone(),
                    };
                    let _ = tokio::time::timeout(
                        LAST_REPORT_WITHIN,
                        self.reported.wait_for(|r| r.as_ref() == Some(&failed)),
                    )
                    .await;
                }
                Some(reason)
            }
            Status::Stopped { .. } => Some("the server was removed from Rootgate".to_owned()),
            _ => None,
        }
    }
}

/// SIGTERM and SIGINT, as one stream; one that cannot be listened for
/// (no signal driver) never arrives.
pub(crate) fn stop_signals() -> tokio::sync::mpsc::Receiver<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    for kind in [SignalKind::terminate(), SignalKind::interrupt()] {
        if let Ok(mut stream) = signal(kind) {
            let tx = tx.clone();
            tokio::spawn(async move {
                while stream.recv().await.is_some() {
                    let _ = tx.try_send(());
                }
            });
        }
    }
    rx
}

/// Whether a change may mean that the settings file `name` now says
/// something else: it was written, created, renamed over or removed, or
/// the watch cannot say ("look again"). Metadata (a `chmod`, a `touch`)
/// does not change what it says. Opens and reads are not reported at all
/// (rootgate_host::watch): counting them made each re-read wake the next,
/// about 19 times a second for as long as the bridge lived.
fn may_change(change: &Change, name: &std::ffi::OsStr) -> bool {
    match change.kind {
        ChangeKind::LookAgain => true,
        ChangeKind::Metadata => false,
        _ => change.paths.iter().any(|p| p.file_name() == Some(name)),
    }
}

/// What the app is told while its server cannot start (`reason`, the
/// session's words for it): most often that it has no folder. The server
/// is named as it is now (`name` if it is gone).
fn cannot_start(store: &Store, id: &ServerId, name: &str, reason: &str) -> String {
    let available = store
        .shared_with(id)
        .map(|shared| shared.roots().len())
        .unwrap_or(0);
    let granted = store.snapshot().grants.iter().any(|g| &g.server == id);
    let name = store
        .server(id)
        .map_or_else(|_| name.to_owned(), |s| s.name);
    let paused = store.preferences().sharing_paused;
    match (granted, available) {
        (false, _) => format!(
            "{name} has no folder shared with it in Rootgate; share one in the Rootgate window"
        ),
        // A pause withdraws every folder and keeps the grants: the folders
        // are there, and saying otherwise sent people looking for them.
        (true, 0) if paused => format!(
            "{name} has no folder now because sharing is paused in Rootgate; press \
             “Resume sharing” in the Rootgate window to give it its folders again"
        ),
        (true, 0) => format!(
            "{name} has no folder it can be given in Rootgate: the folders shared with it are \
             not there now (moved, deleted or unmounted); share one in the Rootgate window"
        ),
        _ => format!(
            "{name} cannot start in Rootgate now: {reason}; change that in the Rootgate window"
        ),
    }
}

/// Reads the settings file again whenever it changes, so a change made in
/// the window reaches this connection. The watch lives as long as the
/// value returned. Where the process cannot watch, it is woken every
/// `watch::POLL_EVERY` to read again, so a withdrawal still arrives.
/// `say` is told each new problem reading it, and `None` once it reads
/// well again.
pub(crate) fn watch_settings(
    store: Arc<Store>,
    say: impl Fn(Option<&str>) + Send + 'static,
) -> Option<Watch> {
    let path: PathBuf = store.file().path().to_path_buf();
    let dir = path.parent()?.to_path_buf();
    let name = path.file_name()?.to_owned();
    let (mut watch, mut events) = Watches::process().subscribe(true);
    // The folder, not the file: a save renames a new file over the old one.
    watch.add(&dir);
    tokio::spawn(async move {
        // Read once more now that the watch is on: a save made between the
        // first read and the watch has no event left to announce it (the
        // reads the watcher used to count as changes hid this).
        let mut said = reload(&store, &say, None);
        while let Some(event) = events.recv().await {
            if !may_change(&event, &name) {
                continue;
            }
            tokio::time::sleep(SETTINGS_SETTLE).await;
            while events.try_recv().is_ok() {}
            said = reload(&store, &say, said);
        }
    });
    Some(watch)
}

/// Hands the relay the person's tool rules each time the settings change,
/// so a tool hidden, asked or allowed in the window reaches a live
/// connection at once (the app is told when its list changed).
fn follow_tool_rules(
    store: Arc<Store>,
    id: ServerId,
    relay: Arc<Relay>,
) -> tokio::task::JoinHandle<()> {
    let mut revision = store.subscribe_revision();
    tokio::spawn(async move {
        while revision.changed().await.is_ok() {
            if let Ok(spec) = store.server(&id) {
                relay.set_tool_rules(spec.tool_rules).await;
            }
        }
    })
}

/// Reads the settings again; a problem is said on stderr once, not again
/// at every look while it lasts. Returns what was said.
fn reload(store: &Store, say: &impl Fn(Option<&str>), said: Option<String>) -> Option<String> {
    match store.reload() {
        Ok(()) => {
            // The problem said before is over.
            if said.is_some() {
                say(None);
            }
            None
        }
        Err(e) => {
            let now = e.to_string();
            if said.as_ref() != Some(&now) {
                say(Some(&now));
            }
            Some(now)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reading the settings file (as every re-read does) is not reported
    /// at all; a save that renames a new file over it is, and counts.
    /// Changes come in order, so the first that counts has to be the
    /// save's, after every read.
    #[tokio::test]
    async fn reading_the_settings_is_no_change_and_a_save_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, b"{}").unwrap();
        let (mut watch, mut changes) = Watches::process().subscribe(false);
        assert!(watch.add(dir.path()));
        for _ in 0..5 {
            std::fs::read(&path).unwrap();
        }
        let tmp = dir.path().join(".settings.json.tmp-1");
        std::fs::write(&tmp, b"{\"version\": 2}").unwrap();
        std::fs::rename(&tmp, &path).unwrap();

        let name = path.file_name().unwrap().to_owned();
        let mut before = Vec::new();
        let first = loop {
            let change = tokio::time::timeout(Duration::from_secs(10), changes.recv())
                .await
                .expect("the save was reported")
                .expect("open");
            if may_change(&change, &name) {
                break change;
            }
            before.push(change);
        };
        assert_eq!(
            (first.kind, first.paths.as_slice()),
            (ChangeKind::Renamed, std::slice::from_ref(&path)),
            "the first change is the save's rename"
        );
        // What came before is the temporary file's, none the reads'.
        assert!(
            before.iter().all(|c| c.paths == [tmp.clone()]),
            "{before:?}"
        );
    }
}

#[cfg(test)]
mod paused_tests {
    use super::*;

    /// While sharing is paused, an app whose server cannot start is told
    /// so, and how to resume, in words: not that its folders were moved,
    /// deleted or unmounted, which they were not.
    #[test]
    fn a_pause_is_said_as_a_pause_with_how_to_resume() {
        let dir = tempfile::tempdir().unwrap();
        let file = SettingsFile::at(dir.path().join("settings.json"));
        let secrets = rootgate_model::secrets::Secrets::new(Arc::new(
            rootgate_model::secrets::MemoryKeyring::default(),
        ));
        let (store, _) = Store::open_with_secrets(file, secrets).unwrap();
        let spec = store
            .add_server(rootgate_model::servers::ServerDraft {
                name: "files".into(),
                command: "npx".into(),
                args: vec!["-y".into(), "server".into(), "${folders}".into()],
                ..Default::default()
            })
            .unwrap();
        let path = dir.path().join("notes");
        std::fs::create_dir_all(&path).unwrap();
        let checked = rootgate_model::folders::check(&path).unwrap();
        let root = store.add_root(&checked, None).unwrap().root.id;
        store.grant(&spec.id, &root).unwrap();
        store
            .change_preferences(|p| p.sharing_paused = true)
            .unwrap();

        let said = cannot_start(&store, &spec.id, "files", "no folders");
        assert!(said.contains("sharing is paused"), "{said}");
        assert!(said.contains("Resume sharing"), "{said}");
        assert!(!said.contains("moved, deleted or unmounted"), "{said}");

        // A folder that is really gone is still said as gone.
        store
            .change_preferences(|p| p.sharing_paused = false)
            .unwrap();
        std::fs::remove_dir(&path).unwrap();
        store.set_available(&root, false).unwrap();
        let said = cannot_start(&store, &spec.id, "files", "no folders");
        assert!(said.contains("moved, deleted or unmounted"), "{said}");
    }
}

#[cfg(test)]
mod waiting_tests {
    use super::*;
    use serde_json::Value;
    use tokio::io::AsyncWriteExt;

    fn answer(line: Option<Vec<u8>>) -> Value {
        serde_json::from_slice(&line.expect("an answer for the app")).expect("JSON")
    }

    /// With no server life ready, the app's request waits and is shown as
    /// waiting; once no life can start, it is answered at once with why,
    /// as is the app's `initialize` still waiting and every later request.
    #[tokio::test]
    async fn a_request_waits_in_view_and_is_answered_once_no_server_can_start() {
        let (out_tx, mut out_rx) = mpsc::channel(16);
        let timeline = Arc::new(Timeline::default());
        let relay = Relay::new(ServerId::generate(), Arc::clone(&timeline), out_tx);
        let (mut app, app_in) = tokio::io::duplex(64 * 1024);
        let reader = Arc::clone(&relay);
        tokio::spawn(async move { reader.read_app(app_in).await });
        let mut seen = relay.subscribe();
        app.write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n\
              {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"read_text_file\",\"arguments\":{}}}\n",
        )
        .await
        .unwrap();
        let waiting = seen
            .wait_for(|s| s.waiting.is_some())
            .await
            .unwrap()
            .waiting
            .clone()
            .unwrap();
        assert_eq!(waiting.method, "tools/call");
        assert_eq!(waiting.target.as_deref(), Some("read_text_file"));

        let why =
            "files has no folder shared with it in Rootgate; share one in the Rootgate window";
        relay.cannot_start(why).await;
        let mut answers = [answer(out_rx.recv().await), answer(out_rx.recv().await)];
        answers.sort_by_key(|a| a["id"].as_i64());
        for (answer, id) in answers.iter().zip([1, 2]) {
            assert_eq!(answer["id"], id, "{answer}");
            assert_eq!(answer["error"]["message"], why, "{answer}");
        }
        seen.wait_for(|s| s.waiting.is_none()).await.unwrap();

        app.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n")
            .await
            .unwrap();
        let later = answer(out_rx.recv().await);
        assert_eq!(later["id"], 3, "{later}");
        assert_eq!(later["error"]["message"], why, "{later}");
        let calls: Vec<String> = timeline
            .all()
            .into_iter()
            .filter_map(|e| match e.event {
                rootgate_model::timeline::Event::Call {
                    method, outcome, ..
                } => Some(format!("{method}: {outcome}")),
                _ => None,
            })
            .collect();
        assert_eq!(
            calls,
            vec![
                format!("tools/call: error -32603 (Rootgate): {why}"),
                format!("tools/list: error -32603 (Rootgate): {why}"),
            ]
        );
    }
}
