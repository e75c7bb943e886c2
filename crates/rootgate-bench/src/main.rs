//! `rootgate-bench-driver`: the roots client benchmark of `../shared/bench`
//! (its README.md, "Driver CLI") run through Rootgate's own code path, not a
//! fast path written for the bench.
//!
//! # How the contract maps onto the product
//!
//! * **Client.** Every server is a [`ServerSpec`] in a real [`Store`] and
//!   runs in a core [`Session`] actor: the core spawns it (own process group,
//!   environment cleared to `HOME LOGNAME PATH SHELL TERM USER LANG` plus the
//!   spec's `env`; `BENCH_ROOTS_ON_INIT=1` is in the spec for `spawn-roots`),
//!   does rmcp's `initialize` handshake, answers `roots/list` from the
//!   store's `watch` channel for that server, sends `list_changed` when the
//!   notify gate says so, and keeps the server's stderr in the session's
//!   bounded log (the bench's own drivers send it to /dev/null; the log is a
//!   cost the product really pays). The acks the bench servers send as
//!   logging notifications are read from
//!   [`Session::subscribe_server_messages`]; `roots_probe` is called with
//!   [`Session::call_tool`].
//! * **Roots.** Roots are real folders: before any clock starts the driver
//!   creates the directories it needs under `BENCH_ROOTS_BASE`
//!   (`roots/init/dir-00000`, `iter-<i>`, `roots/s<S>/dir-<00000..>`; they
//!   are kept for the next run), checks each with [`folders::check`], adds it
//!   with [`Store::add_root`] under the contract's name (`dir-0`, `iter-<i>`,
//!   `dir-<i>`) and shares it with [`Store::set_server_roots`] (for
//!   `rootsize`, through a settings file; see there). The URI the store
//!   publishes is that of the folder's canonical real path, so the driver
//!   fails unless it equals the contract's `file://BASE/...` (give a base
//!   without symlinks).
//! * **Settings file.** The store saves the whole settings file on every
//!   change, atomically and durably (temporary file, fsync, rename, fsync of
//!   the folder). That is part of the product's real cost, so it is inside
//!   the timed part of `propagate`. The file lives in a fresh temporary
//!   folder, removed at exit, made by default on the filesystem the app
//!   would use: `std::env::temp_dir()` when it is on the same device as the
//!   app's configuration folder (`$XDG_CONFIG_HOME`, `~/.config`), otherwise
//!   inside that folder. `--settings-dir DIR` puts it elsewhere (e.g.
//!   `/dev/shm`, to see what the fsyncs cost); every result line carries
//!   `settings_dir`.
//!
//! # The metrics
//!
//! * **`spawn`**: N sessions are made and their servers added to the store
//!   first; t0 is just before the first [`Session::start`], the N starts are
//!   sent back to back and run concurrently in their actors; t1 is when the
//!   last of the N status channels shows [`Status::Running`]. A session
//!   publishes `Running` after rmcp's `serve` returned, which is after the
//!   `initialize` response was received and `notifications/initialized` was
//!   written and flushed to the server's stdin (rmcp's legacy start-up sends
//!   it with `SinkExt::send`), and after the protocol version was checked and
//!   the timeline entry made: exactly the contract's t1 plus that small,
//!   real bookkeeping. Stopping between reps is not timed. The untimed
//!   warm-up uses a server of its own without `BENCH_ROOTS_ON_INIT`, as the
//!   reference driver does.
//! * **`spawn-roots`**: the same, with t1 when every server's `roots_ack`
//!   for the list it asked after `initialized` has reached the session's
//!   subscribers; each ack must name the single root `dir-0`.
//! * **`propagate`**: N servers running (not timed). Each iteration `i`
//!   swaps the one folder every server sees for a new one, as a person
//!   would: the folder `iter-<i>` is added as a root (not timed, shared with
//!   no one, so no server hears of it), then t0, then one store change,
//!   [`Store::set_server_roots`]`(all servers, [iter-i])`: one save, one
//!   publish, each server's list going straight from `[iter-(i-1)]` to
//!   `[iter-i]`. The session actors see the change on their watch channels
//!   and send `list_changed` through the notify gate; t1 is when an ack
//!   whose `first_uri` is `iter-<i>` and whose count is 1 has arrived from
//!   every server (each session's messages are read directly, with no task
//!   of the driver's in between). After t1 (not timed) the store is checked
//!   to share exactly `[iter-i]` and the previous folder, now shared with no
//!   one, is removed, so every iteration works on a store of the same size
//!   (two roots, N servers) however many iterations run; `settings_bytes`
//!   is the size of the file each change wrote. `store_change_ms` is the
//!   part of each iteration spent in the store call; `stale_acks` counts
//!   acks of any other list (there should be none). The notify gate holds a
//!   change for up to 500 ms while a server that was sent `initialized` has
//!   not yet asked `roots/list`; the bench servers do not ask on their own,
//!   so the first warm-up iteration pays that hold (with `--warmup 0` the
//!   first timed one would).
//! * **`rootsize`**: one server. For each size the list becomes S roots
//!   `roots/s<S>/dir-<00000..>` named `dir-<i>`, checked to be exactly those
//!   URIs in that order before any timing. Here the roots are not added one
//!   `add_root` and one `grant` at a time: every such change saves the whole
//!   settings file and recomputes every list, so the cost grows with the
//!   square of the number of roots (measured on the 2-core reference VM:
//!   1 000 roots took 33 s with the file on ext4 and 9 s on tmpfs, the next
//!   2 000 another 157 s and 127 s; 10 000 would take far longer than
//!   `run_all.sh`'s 900 s limit). Instead each size is what the app sees
//!   when it starts with those folders kept and shared: each folder is
//!   checked with [`folders::check`] and made a [`Root`] with a [`Grant`]
//!   for the server, the settings are written by [`SettingsFile::save`] and
//!   loaded by [`Store::open`], and a session on that store runs the server.
//!   So each size has its own store, session and server process (started
//!   untimed, after the list is in place), which the reference drivers keep
//!   across sizes; nothing timed depends on it. `tool_call_ms` is
//!   [`Session::call_tool`] (`roots_probe`) measured around the call;
//!   `server_roots_rtt_ms` is the server's `rtt_ns`; every probe must report
//!   `count == S` and the first URI.
//!
//! Any failure (a server that fails or stops, a count or URI that does not
//! match, a wait longer than 60 s) ends the run with a message on stderr and
//! a non-zero exit status; servers are shut down first.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rootgate_bench::cli::{self, Args, Metric};
use rootgate_bench::stats::{Stats, stats};
use rootgate_core::consent::Grant;
use rootgate_core::folders::{self, CheckedFolder};
use rootgate_core::ids::{RootId, ServerId, now_ms};
use rootgate_core::roots::Root;
use rootgate_core::servers::{EraChoice, ServerDraft, ServerSpec};

/// The era the driver speaks to the protocol's servers: the legacy one, as
/// every baseline client of the shared protocol does (the Python SDK's
/// `ClientSession.initialize`, the TypeScript SDK 2.x client's default
/// `legacy` negotiation), and as its servers need: `py_sdk_roots_server.py`
/// asks with `ctx.session.list_roots()`, which `mcp` 2.x refuses in the
/// modern era, and the metrics time `list_changed`, which that era has not.
/// Held here, not probed, so the columns compare the same protocol and no
/// column pays a probe the others do not.
const BENCH_ERA: EraChoice = EraChoice::Legacy;
use rootgate_core::session::{ServerMessage, Session, SessionConfig, Status};
use rootgate_core::settings::{Settings, SettingsFile};
use rootgate_core::store::Store;
use rootgate_core::timeline::Timeline;
use rootgate_core::uri;
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{broadcast, watch};
use tokio::task::JoinSet;

/// The `client` label of every result line.
const CLIENT: &str = concat!("rootgate-core-", env!("CARGO_PKG_VERSION"));

/// The longest any single wait may take before the run fails.
const WAIT: Duration = Duration::from_secs(60);

type Result<T, E = String> = std::result::Result<T, E>;

fn main() -> ExitCode {
    // The driver starts servers the way the app does, through the launcher;
    // it can act as its own when `rootgate-launcher` is not beside it.
    let raw: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if let Some(code) = rootgate_core::launcher::run_if_requested(&raw) {
        return code;
    }
    if let Ok(exe) = std::env::current_exe() {
        rootgate_core::launcher::use_program_if_none_beside(exe);
    }
    let args = match cli::parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("rootgate-bench-driver: {e}\n{}", cli::USAGE);
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("rootgate-bench-driver: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rootgate-bench-driver: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<()> {
    let bench = Bench::open(args)?;
    let result = match bench.args.metric {
        Metric::Spawn | Metric::SpawnRoots => bench.spawn().await,
        Metric::Propagate => bench.propagate().await,
        Metric::Rootsize => bench.rootsize().await,
    };
    bench.shutdown_all().await;
    result?;
    let (maxrss_kb, vmhwm_kb) = rootgate_bench::peak_memory_kb();
    emit(&RssLine {
        client: CLIENT,
        metric: "rss",
        maxrss_kb,
        vmhwm_kb,
        after: bench.args.metric.name(),
        n: bench.args.n,
    })?;
    Ok(())
}

// ----- output lines (field order as in the README) --------------------------

#[derive(Serialize)]
struct SpawnLine<'a> {
    client: &'a str,
    metric: &'a str,
    n: usize,
    reps: usize,
    ms: Stats,
    server: &'a str,
    settings_dir: &'a Path,
}

#[derive(Serialize)]
struct PropagateLine<'a> {
    client: &'a str,
    metric: &'a str,
    n: usize,
    iters: usize,
    ms: Stats,
    server: &'a str,
    settings_dir: &'a Path,
    store_changes_per_iter: usize,
    /// The time the store change of a timed iteration took (save and
    /// publish included): the part of `ms` spent in the store.
    store_change_ms: Stats,
    /// The size of the settings file each change wrote.
    settings_bytes: u64,
    stale_acks: usize,
}

#[derive(Serialize)]
struct RootsizeLine<'a> {
    client: &'a str,
    metric: &'a str,
    size: usize,
    iters: usize,
    tool_call_ms: Stats,
    server_roots_rtt_ms: Stats,
    server: &'a str,
    settings_dir: &'a Path,
    setup_s: f64,
}

#[derive(Serialize)]
struct RssLine<'a> {
    client: &'a str,
    metric: &'a str,
    maxrss_kb: Option<u64>,
    vmhwm_kb: Option<u64>,
    after: &'a str,
    n: usize,
}

/// Writes one result line. stdout is line-buffered, so each line reaches
/// the results file at once.
fn emit(line: &impl Serialize) -> Result<()> {
    use std::io::Write;
    let json = serde_json::to_string(line).map_err(|e| format!("cannot encode a result: {e}"))?;
    writeln!(std::io::stdout().lock(), "{json}").map_err(|e| format!("cannot write a result: {e}"))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn summary(samples: &[f64]) -> Result<Stats> {
    stats(samples).ok_or_else(|| "no samples were taken".to_owned())
}

// ----- the bench servers' acks -----------------------------------------------

/// A bench server's `roots_ack`: what it was told in its last `roots/list`.
#[derive(Debug)]
struct Ack {
    count: Option<u64>,
    first_uri: Option<String>,
}

fn ack_of(message: &ServerMessage) -> Option<Ack> {
    let data = message.data.as_object()?;
    if data.get("event")?.as_str()? != "roots_ack" {
        return None;
    }
    Some(Ack {
        count: data.get("count").and_then(Value::as_u64),
        first_uri: data
            .get("first_uri")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// What the driver hears from one running server during `propagate`: its
/// messages and its status, read directly (no task in between, so the
/// driver adds no hop of its own to the path an ack takes).
struct Listener {
    messages: broadcast::Receiver<ServerMessage>,
    status: watch::Receiver<Status>,
}

impl Listener {
    fn new(session: &Session) -> Self {
        Listener {
            messages: session.subscribe_server_messages(),
            status: session.subscribe_status(),
        }
    }

    /// Waits for this server's next ack that names `want` first, counting
    /// acks of another list in `stale`; fails when the server stops or
    /// fails, when messages were lost, or at `deadline`.
    async fn ack_of(
        &mut self,
        want: &str,
        deadline: tokio::time::Instant,
        stale: &mut usize,
    ) -> Result<Ack> {
        let wait = async {
            loop {
                tokio::select! {
                    message = self.messages.recv() => {
                        let message = message.map_err(|e| format!("server messages: {e}"))?;
                        if let Some(ack) = ack_of(&message) {
                            if ack.first_uri.as_deref() == Some(want) {
                                return Ok(ack);
                            }
                            *stale += 1;
                        }
                    }
                    changed = self.status.changed() => {
                        changed.map_err(|_| "the session ended".to_owned())?;
                        match &*self.status.borrow_and_update() {
                            Status::Starting | Status::Running(_) => {}
                            Status::Failed { reason } => return Err(format!("the server failed: {reason}")),
                            Status::Stopped { last_exit } => return Err(format!("the server stopped ({last_exit:?})")),
                            Status::Stopping => return Err("the server is stopping".to_owned()),
                            Status::Waiting { reason } => return Err(format!("the server waits: {reason}")),
                        }
                    }
                }
            }
        };
        tokio::time::timeout_at(deadline, wait)
            .await
            .map_err(|_| format!("no acknowledgement of {want} within {WAIT:?}"))?
    }
}

/// Waits until `status` shows `Running`; fails on `Failed`.
async fn until_running(mut status: watch::Receiver<Status>) -> Result<Instant> {
    let waited = tokio::time::timeout(
        WAIT,
        status.wait_for(|s| matches!(s, Status::Running(_) | Status::Failed { .. })),
    )
    .await;
    match waited {
        Err(_) => Err(format!("a server was not running after {WAIT:?}")),
        Ok(Err(_)) => Err("a session ended while starting".into()),
        Ok(Ok(s)) => match &*s {
            Status::Failed { reason } => Err(format!("a server failed to start: {reason}")),
            _ => Ok(Instant::now()),
        },
    }
}

/// Waits for a server's first `roots_ack`, which must name exactly `want`.
async fn until_ack(
    mut messages: broadcast::Receiver<ServerMessage>,
    mut status: watch::Receiver<Status>,
    want: String,
) -> Result<Instant> {
    let wait = async {
        loop {
            tokio::select! {
                message = messages.recv() => {
                    let message = message.map_err(|e| format!("server messages: {e}"))?;
                    if let Some(ack) = ack_of(&message) {
                        let at = Instant::now();
                        if ack.count != Some(1) || ack.first_uri.as_deref() != Some(want.as_str()) {
                            return Err(format!("a server acknowledged {ack:?}, not the one root {want}"));
                        }
                        return Ok(at);
                    }
                }
                changed = status.changed() => {
                    changed.map_err(|_| "a session ended".to_owned())?;
                    if let Status::Failed { reason } = &*status.borrow_and_update() {
                        return Err(format!("a server failed: {reason}"));
                    }
                }
            }
        }
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .map_err(|_| format!("no roots_ack within {WAIT:?}"))?
}

/// Waits for every task and returns the latest instant any of them reported.
async fn latest(mut tasks: JoinSet<Result<Instant>>) -> Result<Instant> {
    let mut last: Option<Instant> = None;
    while let Some(done) = tasks.join_next().await {
        let at = done.map_err(|e| format!("a waiting task failed: {e}"))??;
        last = Some(last.map_or(at, |l| l.max(at)));
    }
    last.ok_or_else(|| "nothing to wait for".to_owned())
}

// ----- the bench ------------------------------------------------------------

struct Bench {
    args: Args,
    /// `BENCH_ROOTS_BASE` without a trailing slash.
    base: String,
    server_line: String,
    store: Arc<Store>,
    timeline: Arc<Timeline>,
    config: SessionConfig,
    settings_dir: tempfile::TempDir,
    sessions: std::sync::Mutex<Vec<Session>>,
}

/// Where the temporary settings folder is made (see the module docs).
fn settings_parent(args: &Args) -> PathBuf {
    if let Some(dir) = &args.settings_dir {
        return dir.clone();
    }
    let tmp = std::env::temp_dir();
    let Some(config) = directories::BaseDirs::new().map(|d| d.config_dir().to_path_buf()) else {
        return tmp;
    };
    let device = |p: &Path| std::fs::metadata(p).ok().map(|m| m.dev());
    let anchor = config
        .ancestors()
        .find(|p| p.is_dir())
        .map(Path::to_path_buf)
        .unwrap_or(config);
    if device(&tmp).is_some() && device(&tmp) == device(&anchor) {
        tmp
    } else {
        anchor
    }
}

fn roots_base() -> Result<String> {
    let base = match std::env::var("BENCH_ROOTS_BASE") {
        Ok(b) if !b.is_empty() => b,
        _ => {
            let home = std::env::var("BENCH_HOME")
                .ok()
                .filter(|h| !h.is_empty())
                .or_else(|| {
                    std::env::var("HOME")
                        .ok()
                        .map(|h| format!("{h}/.cache/rootgate-bench"))
                })
                .ok_or("neither BENCH_ROOTS_BASE, BENCH_HOME nor HOME is set")?;
            format!("{home}/fixtures")
        }
    };
    let base = base.trim_end_matches('/').to_owned();
    if !base.starts_with('/') {
        return Err(format!("BENCH_ROOTS_BASE must be an absolute path: {base}"));
    }
    Ok(base)
}

impl Bench {
    fn open(args: Args) -> Result<Bench> {
        let base = roots_base()?;
        let parent = settings_parent(&args);
        let settings_dir = tempfile::Builder::new()
            .prefix("rootgate-bench-")
            .tempdir_in(&parent)
            .map_err(|e| format!("cannot make a settings folder in {}: {e}", parent.display()))?;
        let file = SettingsFile::at(settings_dir.path().join("rootgate/settings.json"));
        let (store, _) = Store::open(file).map_err(|e| e.to_string())?;
        Ok(Bench {
            server_line: args.server.join(" "),
            args,
            base,
            store: Arc::new(store),
            timeline: Arc::new(Timeline::default()),
            // The app gives a server 30 s to answer `initialize`; the
            // benchmark measures how long start-up takes, however long,
            // so it waits as long as the harness lets a run last (its
            // `timeout 900`). 50 Python SDK servers started at once on two
            // cores take longer than 30 s, and the baselines wait for them.
            config: SessionConfig {
                init_timeout: std::time::Duration::from_secs(600),
                ..SessionConfig::default()
            },
            settings_dir,
            sessions: std::sync::Mutex::new(Vec::new()),
        })
    }

    fn settings_dir(&self) -> &Path {
        self.settings_dir.path()
    }

    /// The contract's URI of a folder `rel` under the base.
    fn uri(&self, rel: &str) -> String {
        format!("file://{}/{rel}", self.base)
    }

    /// Creates the folder `rel` under the base if needed and checks it.
    /// Returns it with its URI, which must be the contract's.
    fn folder(&self, rel: &str) -> Result<(CheckedFolder, String)> {
        let path = PathBuf::from(format!("{}/{rel}", self.base));
        std::fs::create_dir_all(&path)
            .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let folder = folders::check(&path).map_err(|e| e.to_string())?;
        let want = self.uri(rel);
        let published = uri::path_to_uri(folder.real())
            .map_err(|e| e.to_string())?
            .to_string();
        if published != want {
            return Err(format!(
                "the folder {} is shared as {published}, not {want}: give BENCH_ROOTS_BASE as a \
                 canonical path (no symlinks, URI-safe characters)",
                path.display()
            ));
        }
        Ok((folder, want))
    }

    /// The folder `rel` (see [`Bench::folder`]) added to the store as a root
    /// named `name`. Returns its id and URI.
    fn root(&self, rel: &str, name: &str) -> Result<(RootId, String)> {
        let (folder, want) = self.folder(rel)?;
        let added = self
            .store
            .add_root(&folder, Some(name.to_owned()))
            .map_err(|e| e.to_string())?;
        if added.existed {
            return Err(format!("{want} was added twice"));
        }
        Ok((added.root.id, want))
    }

    /// Adds `count` servers running the bench's server command with `env`.
    fn servers(&self, tag: &str, count: usize, env: &[(&str, &str)]) -> Result<Vec<ServerSpec>> {
        let (command, args) = self.args.server.split_first().ok_or("no server command")?;
        let env: BTreeMap<String, String> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        (0..count)
            .map(|k| {
                self.store
                    .add_server(ServerDraft {
                        name: format!("{tag}-{k}"),
                        command: command.clone(),
                        args: args.to_vec(),
                        env: env.clone(),
                        enabled: true,
                        era: BENCH_ERA,
                        enforce_roots: self.args.held,
                        ..Default::default()
                    })
                    .map_err(|e| e.to_string())
            })
            .collect()
    }

    /// A session for `spec` on the bench's store (idle until started), shut
    /// down at the end.
    fn session(&self, spec: &ServerSpec) -> Result<Session> {
        self.session_on(&self.store, spec)
    }

    fn session_on(&self, store: &Store, spec: &ServerSpec) -> Result<Session> {
        let roots = store.subscribe(&spec.id).map_err(|e| e.to_string())?;
        let session = Session::spawn(
            spec.id.clone(),
            roots,
            Arc::clone(&self.timeline),
            self.config,
        );
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(session.clone());
        Ok(session)
    }

    async fn shutdown_all(&self) {
        let sessions: Vec<Session> = self
            .sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        stop_all(&sessions, true).await;
    }

    fn ids(specs: &[ServerSpec]) -> Vec<ServerId> {
        specs.iter().map(|s| s.id.clone()).collect()
    }

    /// Starts every session and waits until all run (not timed).
    async fn connect(&self, sessions: &[(ServerSpec, Session)]) -> Result<()> {
        let mut waits = JoinSet::new();
        for (spec, session) in sessions {
            waits.spawn(until_running(session.subscribe_status()));
            session.start(spec.clone());
        }
        latest(waits).await.map(|_| ())
    }

    // ----- spawn, spawn-roots ------------------------------------------------

    async fn spawn(&self) -> Result<()> {
        let a = &self.args;
        let with_roots = a.metric == Metric::SpawnRoots;
        let (init, init_uri) = self.root("roots/init/dir-00000", "dir-0")?;
        let env: &[(&str, &str)] = if with_roots {
            &[("BENCH_ROOTS_ON_INIT", "1")]
        } else {
            &[]
        };
        let warm = self.servers("warm-up", 1, &[])?;
        let specs = self.servers("server", a.n, env)?;
        let mut everyone = Self::ids(&warm);
        everyone.extend(Self::ids(&specs));
        self.store
            .set_grants(&init, &everyone)
            .map_err(|e| e.to_string())?;

        let warm_session = self.session(&warm[0])?;
        for _ in 0..a.spawn_warmup {
            let pair = [(warm[0].clone(), warm_session.clone())];
            self.connect(&pair).await?;
            stop_all(std::slice::from_ref(&warm_session), false).await;
        }

        let sessions: Vec<Session> = specs
            .iter()
            .map(|s| self.session(s))
            .collect::<Result<_>>()?;
        let mut times = Vec::with_capacity(a.reps);
        for _ in 0..a.reps {
            let mut waits = JoinSet::new();
            for session in &sessions {
                let status = session.subscribe_status();
                if with_roots {
                    let messages = session.subscribe_server_messages();
                    waits.spawn(until_ack(messages, status, init_uri.clone()));
                } else {
                    waits.spawn(until_running(status));
                }
            }
            let t0 = Instant::now();
            for (spec, session) in specs.iter().zip(&sessions) {
                session.start(spec.clone());
            }
            let t1 = latest(waits).await?;
            times.push(ms(t1 - t0));
            stop_all(&sessions, false).await;
        }
        emit(&SpawnLine {
            client: CLIENT,
            metric: a.metric.name(),
            n: a.n,
            reps: a.reps,
            ms: summary(&times)?,
            server: &self.server_line,
            settings_dir: self.settings_dir(),
        })?;
        Ok(())
    }

    // ----- propagate ---------------------------------------------------------

    async fn propagate(&self) -> Result<()> {
        let a = &self.args;
        let (init, _) = self.root("roots/init/dir-00000", "dir-0")?;
        let specs = self.servers("server", a.n, &[])?;
        let ids = Self::ids(&specs);
        self.store
            .set_server_roots(&ids, std::slice::from_ref(&init))
            .map_err(|e| e.to_string())?;
        let sessions: Vec<(ServerSpec, Session)> = specs
            .iter()
            .map(|s| self.session(s).map(|session| (s.clone(), session)))
            .collect::<Result<_>>()?;
        let mut listeners: Vec<Listener> = sessions.iter().map(|(_, s)| Listener::new(s)).collect();
        self.connect(&sessions).await?;

        let mut times = Vec::with_capacity(a.iters);
        let mut store_times = Vec::with_capacity(a.iters);
        let mut settings_bytes = 0;
        let mut stale_acks = 0;
        let mut previous = init;
        for i in -(a.warmup as i64)..a.iters as i64 {
            // Not timed: the folder of this iteration becomes a root,
            // shared with no one yet (the person adding a folder).
            let name = format!("iter-{i}");
            let (root, want) = self.root(&name, &name)?;
            let mut stale = 0;
            let t0 = Instant::now();
            self.store
                .set_server_roots(&ids, std::slice::from_ref(&root))
                .map_err(|e| e.to_string())?;
            let changed = Instant::now();
            let deadline = tokio::time::Instant::now() + WAIT;
            // Acks that arrive while an earlier server is awaited wait in
            // their own buffers, so t1 is when the last of them arrived (or
            // a few microseconds after).
            for (k, listener) in listeners.iter_mut().enumerate() {
                let ack = listener
                    .ack_of(&want, deadline, &mut stale)
                    .await
                    .map_err(|e| format!("iteration {i}, server {k}: {e}"))?;
                if ack.count != Some(1) {
                    return Err(format!(
                        "iteration {i}: server {k} was given {:?} roots starting with {want}, not exactly [{want}]",
                        ack.count
                    ));
                }
            }
            let t1 = Instant::now();
            if i >= 0 {
                times.push(ms(t1 - t0));
                store_times.push(ms(changed - t0));
                stale_acks += stale;
            }
            // Not timed: what the store publishes is exactly [iter-i].
            for id in &ids {
                let shared = self.store.shared_with(id).map_err(|e| e.to_string())?;
                let uris: Vec<&str> = shared.roots().iter().map(|r| r.uri.as_str()).collect();
                if uris != [want.as_str()] {
                    return Err(format!(
                        "iteration {i}: the store shares {uris:?}, not [{want}]"
                    ));
                }
            }
            settings_bytes = std::fs::metadata(self.store.file().path()).map_or(0, |m| m.len());
            // Not timed: the previous folder, now shared with no one, is
            // removed, so every iteration starts from a store of the same
            // size (two roots and the N servers) however many run.
            self.store
                .remove_root(&previous)
                .map_err(|e| e.to_string())?;
            previous = root;
        }
        emit(&PropagateLine {
            client: CLIENT,
            metric: "propagate",
            n: a.n,
            iters: a.iters,
            ms: summary(&times)?,
            server: &self.server_line,
            settings_dir: self.settings_dir(),
            store_changes_per_iter: 1,
            store_change_ms: summary(&store_times)?,
            settings_bytes,
            stale_acks,
        })?;
        Ok(())
    }

    // ----- rootsize ----------------------------------------------------------

    async fn rootsize(&self) -> Result<()> {
        let a = &self.args;
        let (command, args) = self.args.server.split_first().ok_or("no server command")?;
        for &size in &a.sizes {
            let setup = Instant::now();
            // The app starting with S folders kept and shared with the one
            // server: the roots and grants are written as one settings file
            // and loaded by `Store::open` (see the module docs for why not
            // one `add_root` and `grant` at a time).
            let spec = ServerDraft {
                name: "server".into(),
                command: command.clone(),
                args: args.to_vec(),
                enabled: true,
                era: BENCH_ERA,
                ..Default::default()
            }
            .validate(ServerId::generate(), [])
            .map_err(|e| e.to_string())?;
            let mut settings = Settings::default();
            let mut uris = Vec::with_capacity(size);
            for i in 0..size {
                let (folder, uri) = self.folder(&format!("roots/s{size}/dir-{i:05}"))?;
                let root = Root::new(&folder, Some(format!("dir-{i}")));
                settings.grants.push(Grant {
                    server: spec.id.clone(),
                    root: root.id.clone(),
                    real_path: root.real_path.clone(),
                    granted_at_ms: now_ms(),
                });
                settings.roots.push(root);
                uris.push(uri);
            }
            settings.servers.push(spec.clone());
            let file = SettingsFile::at(
                self.settings_dir()
                    .join(format!("rootsize-{size}/settings.json")),
            );
            file.save(&settings).map_err(|e| e.to_string())?;
            // The app starting up has no copy of its own beside the store's.
            drop(settings);
            let (store, recovery) = Store::open(file).map_err(|e| e.to_string())?;
            if let Some(r) = recovery {
                return Err(format!(
                    "size {size}: the settings file was recovered: {}",
                    r.message()
                ));
            }
            let shared = store.shared_with(&spec.id).map_err(|e| e.to_string())?;
            let exact = shared.roots().len() == size
                && shared
                    .roots()
                    .iter()
                    .zip(&uris)
                    .all(|(s, want)| &s.uri == want);
            if !exact {
                return Err(format!(
                    "size {size}: the store shares {} roots, not exactly roots/s{size}/dir-00000.. in order",
                    shared.roots().len()
                ));
            }
            let first_uri = uris[0].clone();
            // The driver's own copy is not the product's memory: it goes
            // before the server starts, so the peak RSS is the app's.
            drop(uris);
            drop(shared);
            // The session must not outlive its store: dropping the store
            // closes the roots channel, which the session takes as the
            // server being removed.
            let session = self.session_on(&store, &spec)?;
            self.connect(&[(spec.clone(), session.clone())]).await?;
            let setup_s = setup.elapsed().as_secs_f64();

            let iters = if size >= 10_000 {
                a.iters.min(50)
            } else {
                a.iters
            };
            let mut call_ms = Vec::with_capacity(iters);
            let mut rtt_ms = Vec::with_capacity(iters);
            for i in -(a.warmup as i64)..iters as i64 {
                let t0 = Instant::now();
                let result = session
                    .call_tool("roots_probe", serde_json::Map::new())
                    .await
                    .map_err(|e| format!("size {size}: roots_probe: {e}"))?;
                let t1 = Instant::now();
                let info = &result["structuredContent"];
                let count = info["count"].as_u64();
                if count != Some(size as u64) || info["first_uri"].as_str() != Some(&first_uri) {
                    return Err(format!(
                        "size {size}: roots_probe reported count {count:?} and first_uri {}, not {size} and {first_uri}",
                        info["first_uri"]
                    ));
                }
                let rtt_ns = info["rtt_ns"]
                    .as_f64()
                    .ok_or_else(|| format!("size {size}: roots_probe gave no rtt_ns: {info}"))?;
                if i >= 0 {
                    call_ms.push(ms(t1 - t0));
                    rtt_ms.push(rtt_ns / 1e6);
                }
            }
            stop_all(&[session], true).await;
            drop(store);
            emit(&RootsizeLine {
                client: CLIENT,
                metric: "rootsize",
                size,
                iters,
                tool_call_ms: summary(&call_ms)?,
                server_roots_rtt_ms: summary(&rtt_ms)?,
                server: &self.server_line,
                settings_dir: self.settings_dir(),
                setup_s,
            })?;
        }
        Ok(())
    }
}

/// Stops (or shuts down) every session at once and waits for all.
async fn stop_all(sessions: &[Session], shutdown: bool) {
    let mut stops = JoinSet::new();
    for session in sessions {
        let session = session.clone();
        stops.spawn(async move {
            if shutdown {
                session.shutdown().await;
            } else {
                session.stop().await;
            }
        });
    }
    while stops.join_next().await.is_some() {}
}
