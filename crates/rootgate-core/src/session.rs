//! One actor task per server: it starts the process, does the `initialize`
//! handshake, answers `roots/list` from the server's shared list, tells the
//! server when that list changes, and stops, restarts or reports failure.
//!
//! The actor owns the child process and the connection; the [`Session`]
//! handle is cheap to clone and talks to it over a channel. Status is
//! published on a `watch`, stderr goes to a bounded [`StderrLog`], every
//! protocol step to the shared [`Timeline`], and the server's logging
//! notifications to [`Session::subscribe_server_messages`] (they are not in
//! the timeline). Failures are seen when the process exits or the connection
//! closes, never by polling.
//!
//! What is not here: which roots a server may see (the store computes that
//! from consent and hands the actor a `watch::Receiver`), rmcp's deprecated
//! roots API (`protocol`), process-group signalling (`process`), and the
//! notification timing rules (`notify`).

pub mod delivery;
pub mod notify;
pub mod process;
pub mod protocol;
pub mod stderr_log;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{ClientInitializeError, Peer, RoleClient, ServiceExt};
use serde::Serialize;
use thiserror::Error;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::ChildStderr;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::Instant;

use crate::consent::{SharedRoot, SharedRoots};
use crate::enforcement;
use crate::ids::{ServerId, now_ms};
use crate::servers::{ServerSpec, Withdrawal};
use crate::timeline::{Event, Timeline};
use delivery::Restarted;
pub use delivery::{Delivery, DeliveryState, Following};
use notify::{Decision, NotifyGate, NotifyTiming};
use process::ExitWatch;
pub use protocol::ServerMessage;
use protocol::{HandlerEvent, RootsClient};
pub use stderr_log::{LogLine, StderrLog};

/// How many server messages a subscriber may fall behind before it is told
/// it lagged (and misses the oldest).
pub const SERVER_MESSAGE_BUFFER: usize = 256;

/// Protocol versions with the `initialize` lifecycle that Rootgate speaks.
/// A server answering with anything else is disconnected, as the lifecycle
/// says a client should.
pub const SUPPORTED_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// Timing of one session.
#[derive(Debug, Clone, Copy)]
pub struct SessionConfig {
    /// How long a server has to answer `initialize`.
    pub init_timeout: Duration,
    /// How long a request to the server (a tool call) may take.
    pub request_timeout: Duration,
    /// How long each step of the shutdown sequence waits for an exit.
    pub shutdown_grace: Duration,
    /// When to notify, confirm, and give up waiting for a server to ask
    /// (see `notify`).
    pub notify: NotifyTiming,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            init_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(30),
            shutdown_grace: Duration::from_secs(2),
            notify: NotifyTiming::default(),
        }
    }
}

/// What a running server told us about itself.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningInfo {
    pub pid: u32,
    pub protocol_version: String,
    pub server_name: String,
    pub server_version: String,
    pub capabilities: serde_json::Value,
}

/// A session's state, as the app shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Status {
    /// Not running; `last_exit` says how the last run ended, if there was one.
    Stopped {
        last_exit: Option<String>,
    },
    Starting,
    Running(RunningInfo),
    Stopping,
    /// Not running because something went wrong; `reason` says what a
    /// person can do about it.
    Failed {
        reason: String,
    },
}

impl Status {
    pub fn is_running(&self) -> bool {
        matches!(self, Status::Running(_))
    }
}

/// Why a request through a session failed.
#[derive(Debug, Error)]
pub enum SessionError {
    #[error("the server is not running")]
    NotRunning,
    #[error("the server did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the server answered with an error: {0}")]
    Service(#[from] rmcp::service::ServiceError),
    #[error("the server's answer could not be read: {0}")]
    Answer(#[from] serde_json::Error),
}

enum Command {
    Start(ServerSpec),
    Restart(Option<ServerSpec>),
    Stop(oneshot::Sender<()>),
    Shutdown(oneshot::Sender<()>),
    Peer(oneshot::Sender<Option<Peer<RoleClient>>>),
    /// Forget that the server was seen not to follow changes.
    Forget,
}

/// A handle to one server's session actor. Dropping every handle shuts the
/// server down.
#[derive(Clone)]
pub struct Session {
    server: ServerId,
    commands: mpsc::UnboundedSender<Command>,
    status: watch::Receiver<Status>,
    delivery: watch::Receiver<Delivery>,
    stderr: Arc<StderrLog>,
    messages: broadcast::Sender<ServerMessage>,
    config: SessionConfig,
}

impl Session {
    /// Starts the actor for `server` (the server itself starts on
    /// [`Session::start`]). `roots` is the server's shared list from the
    /// store: the only list this session can ever answer with.
    pub fn spawn(
        server: ServerId,
        roots: watch::Receiver<SharedRoots>,
        timeline: Arc<Timeline>,
        config: SessionConfig,
    ) -> Session {
        let (commands, rx) = mpsc::unbounded_channel();
        let (status_tx, status) = watch::channel(Status::Stopped { last_exit: None });
        let (delivery_tx, delivery) = watch::channel(Delivery::default());
        let stderr = Arc::new(StderrLog::default());
        let messages = broadcast::Sender::new(SERVER_MESSAGE_BUFFER);
        let actor = Actor {
            server: server.clone(),
            commands: rx,
            status: status_tx,
            delivery: delivery_tx,
            following: Following::Unknown,
            restarted: None,
            roots,
            timeline,
            stderr: Arc::clone(&stderr),
            messages: messages.clone(),
            config,
        };
        tokio::spawn(actor.run());
        Session {
            server,
            commands,
            status,
            delivery,
            stderr,
            messages,
            config,
        }
    }

    pub fn server(&self) -> &ServerId {
        &self.server
    }

    /// Starts the server with `spec`; does nothing if it is already running.
    pub fn start(&self, spec: ServerSpec) {
        let _ = self.commands.send(Command::Start(spec));
    }

    /// Stops the server if it runs and starts it again, with `spec` if given
    /// (an edited server) or the spec it last ran with.
    pub fn restart(&self, spec: Option<ServerSpec>) {
        let _ = self.commands.send(Command::Restart(spec));
    }

    /// Stops the server and waits until it has exited.
    pub async fn stop(&self) {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Stop(tx)).is_ok() {
            let _ = rx.await;
        }
    }

    /// Stops the server, waits until it has exited, and ends the actor.
    pub async fn shutdown(&self) {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::Shutdown(tx)).is_ok() {
            let _ = rx.await;
        }
    }

    pub fn status(&self) -> Status {
        self.status.borrow().clone()
    }

    pub fn subscribe_status(&self) -> watch::Receiver<Status> {
        self.status.clone()
    }

    /// Waits until the status satisfies `want` or `timeout` passes, and
    /// returns the status that satisfied it (or, after the timeout, the
    /// status then).
    pub async fn wait_for(&self, timeout: Duration, want: impl Fn(&Status) -> bool) -> Status {
        let mut rx = self.status.clone();
        // The status that satisfied `want`, not the one after it: a server
        // that started and is already being restarted was still running.
        let found = match tokio::time::timeout(timeout, rx.wait_for(|s| want(s))).await {
            Ok(Ok(status)) => Some(status.clone()),
            _ => None,
        };
        found.unwrap_or_else(|| rx.borrow().clone())
    }

    /// Where the server stands with its folders now.
    pub fn delivery(&self) -> Delivery {
        self.delivery.borrow().clone()
    }

    pub fn subscribe_delivery(&self) -> watch::Receiver<Delivery> {
        self.delivery.clone()
    }

    /// Forgets that the server was seen not to follow changes: withdrawals
    /// are told again rather than applied by restart, until it is seen
    /// again.
    pub fn forget_following(&self) {
        let _ = self.commands.send(Command::Forget);
    }

    pub fn stderr(&self) -> &Arc<StderrLog> {
        &self.stderr
    }

    /// The server's `notifications/message` (logging) notifications from
    /// now on, across restarts, in the order the server sent them. A message
    /// the server sent after receiving a `roots/list` answer arrives after
    /// the actor has taken note of that answer. A subscriber more than
    /// [`SERVER_MESSAGE_BUFFER`] messages behind gets `Lagged`.
    pub fn subscribe_server_messages(&self) -> broadcast::Receiver<ServerMessage> {
        self.messages.subscribe()
    }

    /// The rmcp peer of the running server, to make requests to it.
    pub async fn peer(&self) -> Option<Peer<RoleClient>> {
        let (tx, rx) = oneshot::channel();
        self.commands.send(Command::Peer(tx)).ok()?;
        rx.await.ok().flatten()
    }

    /// Calls a tool on the running server and returns its result as JSON,
    /// within the session's request timeout.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<serde_json::Value, SessionError> {
        let peer = self.peer().await.ok_or(SessionError::NotRunning)?;
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        let timeout = self.config.request_timeout;
        let result = tokio::time::timeout(timeout, peer.call_tool(params))
            .await
            .map_err(|_| SessionError::Timeout(timeout))??;
        Ok(serde_json::to_value(result)?)
    }
}

/// How a connection ended, and what the actor does next.
enum Next {
    Idle,
    Start(ServerSpec),
    Quit(Option<oneshot::Sender<()>>),
}

/// Why a running connection is being ended.
enum Ending {
    Stop(oneshot::Sender<()>),
    Quit(Option<oneshot::Sender<()>>),
    Restart(ServerSpec),
    Withdraw(String),
    /// An enforced server's list changed: its ruleset must be remade.
    Reenforce(String),
    Removed,
    Exited,
    Closed,
}

struct Actor {
    server: ServerId,
    commands: mpsc::UnboundedReceiver<Command>,
    status: watch::Sender<Status>,
    delivery: watch::Sender<Delivery>,
    /// What was seen of the server's way with `list_changed`, across runs.
    following: Following,
    /// The last restart made to apply a change.
    restarted: Option<Restarted>,
    roots: watch::Receiver<SharedRoots>,
    timeline: Arc<Timeline>,
    stderr: Arc<StderrLog>,
    messages: broadcast::Sender<ServerMessage>,
    config: SessionConfig,
}

impl Actor {
    async fn run(mut self) {
        let mut last_spec: Option<ServerSpec> = None;
        let mut next: Option<ServerSpec> = None;
        loop {
            let spec = match next.take() {
                Some(spec) => spec,
                None => match self.commands.recv().await {
                    None => return,
                    Some(Command::Start(spec)) => {
                        self.adopt(&spec);
                        spec
                    }
                    Some(Command::Restart(spec)) => match spec.or_else(|| last_spec.clone()) {
                        Some(spec) => {
                            self.adopt(&spec);
                            spec
                        }
                        None => continue,
                    },
                    Some(Command::Forget) => {
                        self.forget();
                        continue;
                    }
                    Some(Command::Stop(done)) => {
                        let _ = done.send(());
                        continue;
                    }
                    Some(Command::Shutdown(done)) => {
                        let _ = done.send(());
                        return;
                    }
                    Some(Command::Peer(reply)) => {
                        let _ = reply.send(None);
                        continue;
                    }
                },
            };
            last_spec = Some(spec.clone());
            match self.run_connection(&spec).await {
                Next::Idle => {}
                Next::Start(spec) => next = Some(spec),
                Next::Quit(done) => {
                    if let Some(done) = done {
                        let _ = done.send(());
                    }
                    return;
                }
            }
        }
    }

    fn record(&self, event: Event) {
        self.timeline.record(&self.server, event);
    }

    /// Takes what the person's settings say about the server's way with
    /// changes, at a start or restart they asked for. (Restarts the actor
    /// makes itself keep what it saw, which the settings may not hold yet.)
    fn adopt(&mut self, spec: &ServerSpec) {
        if spec.ignores_list_changed {
            self.following = Following::Ignores;
        } else if self.following == Following::Ignores {
            self.following = Following::Unknown;
        }
    }

    fn forget(&mut self) {
        if self.following == Following::Ignores {
            self.following = Following::Unknown;
            self.delivery
                .send_modify(|d| d.following = Following::Unknown);
        }
    }

    /// Publishes where the server stands with its folders, if that moved.
    fn publish_delivery(&self, state: DeliveryState, given: Option<&Arc<[SharedRoot]>>) {
        let (granted, generation) = {
            let roots = self.roots.borrow();
            (roots.shared(), roots.generation())
        };
        let following = self.following;
        let restarted = &self.restarted;
        self.delivery.send_if_modified(|d| {
            let same_list =
                |a: Option<&Arc<[SharedRoot]>>, b: Option<&Arc<[SharedRoot]>>| match (a, b) {
                    (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                    (None, None) => true,
                    _ => false,
                };
            if d.state == state
                && d.following == following
                && d.restarted == *restarted
                && d.generation == generation
                && Arc::ptr_eq(&d.granted, &granted)
                && same_list(d.given.as_ref(), given)
            {
                return false;
            }
            *d = Delivery {
                state,
                given: given.cloned(),
                granted,
                generation,
                following,
                restarted: restarted.clone(),
            };
            true
        });
    }

    fn fail(&self, reason: String) {
        self.record(Event::Failed {
            reason: reason.clone(),
        });
        self.status.send_replace(Status::Failed { reason });
    }

    /// The last few stderr lines written since `since`, to explain a
    /// failure in the server's own words.
    fn stderr_tail(&self, since: u64) -> String {
        let lines = self.stderr.lines_since(since);
        let tail: Vec<&str> = lines
            .iter()
            .rev()
            .filter(|l| !l.text.trim().is_empty())
            .take(3)
            .map(|l| l.text.trim())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if tail.is_empty() {
            String::new()
        } else {
            format!(" It said: \"{}\"", tail.join(" / "))
        }
    }

    /// Runs one life of the server process, from spawn to exit.
    async fn run_connection(&mut self, spec: &ServerSpec) -> Next {
        self.status.send_replace(Status::Starting);
        self.record(Event::Starting {
            command_line: spec.masked_command_line(),
        });
        // Mark the current list as seen: the server is about to ask for it,
        // and an enforced server runs under a ruleset made from it. Marking
        // it here, before the ruleset is made, means a change that lands
        // while the server starts is seen as a change (a notification, or a
        // restart under new rules for an enforced server; see `serve`).
        let at_start = self.roots.borrow_and_update().clone();
        let enforced = spec.enforce_roots.then_some(at_start);
        let mut launch = process::Launch {
            grace: self.config.shutdown_grace,
            enforce: None,
        };
        if let Some(roots) = &enforced {
            if let enforcement::Support::Unavailable { reason } = enforcement::support() {
                self.fail(format!(
                    "enforced roots are on for this server, but {reason}. Turn \"Enforce roots\" \
                     off to run it with roots as advice only."
                ));
                return Next::Idle;
            }
            let path_env = spec
                .env
                .get("PATH")
                .map(std::ffi::OsString::from)
                .or_else(|| std::env::var_os("PATH"));
            launch.enforce = Some(enforcement::policy_for(
                spec,
                roots.roots(),
                path_env.as_deref(),
            ));
        }
        let spawned = match process::spawn(spec, &launch) {
            Ok(spawned) => spawned,
            Err(e) => {
                self.fail(e.to_string());
                return Next::Idle;
            }
        };
        let pid = spawned.pid;
        self.record(Event::Spawned { pid });
        if let Some(policy) = &launch.enforce {
            let shown = |paths: &[std::path::PathBuf]| -> Vec<String> {
                paths.iter().map(|p| p.display().to_string()).collect()
            };
            self.record(Event::Enforced {
                read_write: shown(&policy.read_write),
                read_only: shown(&policy.read_only),
            });
        }
        let stderr_since = self.stderr.next_seq();
        let stderr_pump = tokio::spawn(pump_stderr(spawned.stderr, Arc::clone(&self.stderr)));
        let mut exit = spawned.exit;
        let (events_tx, mut events) = mpsc::unbounded_channel();
        // A large list gets a stdin pipe it fits in (see `fit_stdin_pipe`);
        // the list was marked seen above, before the server started.
        let answer_bytes = protocol::answer_size(self.roots.borrow().roots());
        process::fit_stdin_pipe(&spawned.stdin, answer_bytes);
        let handler = RootsClient::new(self.roots.clone(), events_tx);
        // `roots/list` is answered, and answers reported as they are
        // written, by this transport (see `protocol`).
        let transport = handler.transport(spawned.stdout, spawned.stdin);
        let mut init = Box::pin(handler.serve(transport));
        let deadline = tokio::time::sleep(self.config.init_timeout);
        tokio::pin!(deadline);

        let grace = self.config.shutdown_grace;
        let handshake = loop {
            tokio::select! {
                result = &mut init => break Ok(result),
                _ = &mut deadline => break Err(format!(
                    "the server did not answer `initialize` within {}; it may not be an MCP \
                     server, or it may be waiting for input of another kind",
                    seconds(self.config.init_timeout)
                )),
                command = self.commands.recv() => match command {
                    Some(Command::Peer(reply)) => { let _ = reply.send(None); }
                    Some(Command::Start(_)) => {}
                    other => {
                        drop(init);
                        self.record(Event::Stopping { reason: "stopped while starting".into() });
                        let ended = exit.shut_down(async {}, grace).await;
                        self.record(Event::Exited { status: ended.describe(), expected: true });
                        let _ = stderr_pump.await;
                        self.status.send_replace(Status::Stopped { last_exit: Some(ended.describe()) });
                        return match other {
                            Some(Command::Restart(s)) => Next::Start(s.unwrap_or_else(|| spec.clone())),
                            Some(Command::Stop(done)) => { let _ = done.send(()); Next::Idle }
                            Some(Command::Shutdown(done)) => Next::Quit(Some(done)),
                            _ => Next::Quit(None),
                        };
                    }
                },
            }
        };
        let handshake = match handshake {
            Ok(Ok(running)) => Ok(running),
            Ok(Err(e)) => Err(handshake_failure(&e)),
            Err(reason) => Err(reason),
        };
        let running = match handshake {
            Ok(running) => running,
            Err(reason) => {
                drop(init);
                let ended = exit.shut_down(async {}, grace).await;
                let _ = stderr_pump.await;
                self.record(Event::Exited {
                    status: ended.describe(),
                    expected: false,
                });
                self.fail(format!(
                    "{reason}; the process ended with {}.{}",
                    ended.describe(),
                    self.stderr_tail(stderr_since)
                ));
                return Next::Idle;
            }
        };
        drop(init);

        let peer = running.peer().clone();
        let info = peer.peer_info();
        let protocol_version = info
            .as_ref()
            .map(|i| i.protocol_version.to_string())
            .unwrap_or_default();
        let cancel = running.cancellation_token();
        // A flag rather than a oneshot: both the running phase and the
        // shutdown wait for the service to end, and either may see it first.
        let (quit_tx, mut quit) = watch::channel(false);
        tokio::spawn(async move {
            let _ = running.waiting().await;
            let _ = quit_tx.send(true);
        });
        // Closing stdin is cancelling the service and waiting until it has
        // ended: closing its transport stops the writer task, which drops
        // the server's stdin even in the middle of a write blocked on a full
        // pipe (see `protocol`). The wait is bounded all the same, so a
        // service that does not end cannot hold the shutdown: it then goes
        // on to SIGTERM.
        let close_stdin = |cancel: rmcp::service::RunningServiceCancellationToken,
                           mut quit: watch::Receiver<bool>| async move {
            cancel.cancel();
            let _ = tokio::time::timeout(grace, quit.wait_for(|ended| *ended)).await;
        };

        if !SUPPORTED_VERSIONS.contains(&protocol_version.as_str()) {
            let ended = exit.shut_down(close_stdin(cancel, quit), grace).await;
            let _ = stderr_pump.await;
            self.record(Event::Exited {
                status: ended.describe(),
                expected: true,
            });
            self.fail(format!(
                "the server answered with protocol version \"{protocol_version}\", which Rootgate \
                 does not speak (it speaks {})",
                SUPPORTED_VERSIONS.join(", ")
            ));
            return Next::Idle;
        }
        let (server_name, server_version) = info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(|s| (s.name.clone(), s.version.clone()))
            .unwrap_or_default();
        self.record(Event::Initialized {
            protocol_version: protocol_version.clone(),
            server_name: server_name.clone(),
            server_version: server_version.clone(),
        });
        self.status.send_replace(Status::Running(RunningInfo {
            pid,
            protocol_version,
            server_name,
            server_version,
            capabilities: info
                .as_ref()
                .and_then(|i| serde_json::to_value(&i.capabilities).ok())
                .unwrap_or_default(),
        }));

        let ending = self
            .serve(
                spec,
                enforced.as_ref(),
                &peer,
                &mut events,
                &mut exit,
                &mut quit,
            )
            .await;
        drop(peer);
        self.publish_delivery(DeliveryState::NotRunning, None);

        let (reason, expected) = match &ending {
            Ending::Stop(_) => ("stopped".to_owned(), true),
            Ending::Quit(_) => ("Rootgate is shutting down".to_owned(), true),
            Ending::Restart(_) => ("restarting".to_owned(), true),
            Ending::Withdraw(why) => (format!("restarting to withdraw folders: {why}"), true),
            Ending::Reenforce(why) => (format!("restarting under new folder rules: {why}"), true),
            Ending::Removed => ("the server was removed".to_owned(), true),
            Ending::Exited => ("the process exited".to_owned(), false),
            Ending::Closed => ("the server closed its output".to_owned(), false),
        };
        if expected {
            self.status.send_replace(Status::Stopping);
            self.record(Event::Stopping {
                reason: reason.clone(),
            });
        }
        let ended = exit.shut_down(close_stdin(cancel, quit), grace).await;
        let _ = stderr_pump.await;
        self.record(Event::Exited {
            status: ended.describe(),
            expected,
        });
        let last_exit = Some(ended.describe());
        match ending {
            Ending::Stop(done) => {
                self.status.send_replace(Status::Stopped { last_exit });
                let _ = done.send(());
                Next::Idle
            }
            Ending::Removed => {
                self.status.send_replace(Status::Stopped { last_exit });
                Next::Quit(None)
            }
            Ending::Quit(done) => {
                self.status.send_replace(Status::Stopped { last_exit });
                Next::Quit(done)
            }
            Ending::Restart(spec) => Next::Start(spec),
            Ending::Withdraw(why) => {
                self.record(Event::RestartedToWithdraw { reason: why });
                Next::Start(spec.clone())
            }
            Ending::Reenforce(why) => {
                self.record(Event::RestartedToEnforce { reason: why });
                Next::Start(spec.clone())
            }
            Ending::Exited | Ending::Closed => {
                self.fail(format!(
                    "the server stopped on its own ({reason}, {}).{}",
                    ended.describe(),
                    self.stderr_tail(stderr_since)
                ));
                Next::Idle
            }
        }
    }

    /// The running phase: answers, notifies and watches until something
    /// ends the connection.
    async fn serve(
        &mut self,
        spec: &ServerSpec,
        enforced: Option<&SharedRoots>,
        peer: &Peer<RoleClient>,
        events: &mut mpsc::UnboundedReceiver<HandlerEvent>,
        exit: &mut ExitWatch,
        quit: &mut watch::Receiver<bool>,
    ) -> Ending {
        // Most servers ask for roots right after `initialized`; one that
        // does not is told with `list_changed` once the hold has passed, so
        // folders shared before it started still reach it.
        let mut gate = NotifyGate::after_initialized(self.config.notify, Instant::now());
        let mut last_given: Option<Arc<[SharedRoot]>> = None;
        let mut waiting = Waiting::default();
        let state = waiting.state(&gate, self.roots.borrow().generation());
        self.publish_delivery(state, None);
        loop {
            let wake = gate.next_wake(self.roots.borrow().generation());
            // Biased, in this order: the person's commands are never starved,
            // and everything the server said before it went away (answers,
            // messages) is recorded before its exit or closed output is.
            let decision = tokio::select! {
                biased;
                command = self.commands.recv() => match command {
                    None => return Ending::Quit(None),
                    Some(Command::Shutdown(done)) => return Ending::Quit(Some(done)),
                    Some(Command::Stop(done)) => return Ending::Stop(done),
                    Some(Command::Restart(new)) => {
                        let new = new.unwrap_or_else(|| spec.clone());
                        self.adopt(&new);
                        return Ending::Restart(new);
                    }
                    Some(Command::Start(_)) => Decision::Idle,
                    Some(Command::Peer(reply)) => {
                        let _ = reply.send(Some(peer.clone()));
                        Decision::Idle
                    }
                    Some(Command::Forget) => {
                        self.forget();
                        Decision::Idle
                    }
                },
                changed = self.roots.changed() => {
                    if changed.is_err() {
                        return Ending::Removed;
                    }
                    let current = self.roots.borrow_and_update().clone();
                    if let Some(at_start) = enforced
                        && !same_folders(at_start.roots(), current.roots())
                    {
                        return Ending::Reenforce(
                            "its roots are enforced, and a new list takes effect under a new \
                             ruleset"
                                .into(),
                        );
                    }
                    let ignores = self.following == Following::Ignores;
                    if let Some(why) = must_restart(spec.withdrawal, ignores, last_given.as_deref(), &current) {
                        return self.withdraw(why, last_given.as_deref(), &current);
                    }
                    gate.on_change(current.generation(), Instant::now())
                }
                Some(event) = events.recv() => match event {
                    HandlerEvent::Answered { request_id, generation, roots } => {
                        self.record(Event::RootsAnswered {
                            request_id,
                            generation,
                            roots: Arc::clone(&roots),
                        });
                        // Asking while told of a change is following it.
                        if gate.notified_out() && self.following == Following::Unknown {
                            self.following = Following::Follows;
                        }
                        let len = roots.len();
                        last_given = Some(roots);
                        let current = self.roots.borrow().generation();
                        gate.on_answered(generation, len, current, Instant::now())
                    }
                    HandlerEvent::Refused { method } => {
                        self.record(Event::RequestRefused { method: method.to_owned() });
                        Decision::Idle
                    }
                    HandlerEvent::Message(message) => {
                        // Nobody listening is normal (the app does not show
                        // these yet).
                        let _ = self.messages.send(message);
                        Decision::Idle
                    }
                },
                _ = sleep_until(wake), if wake.is_some() => {
                    let current = self.roots.borrow().generation();
                    gate.on_deadline(current, Instant::now())
                }
                _ = exit.exited() => return Ending::Exited,
                _ = quit.wait_for(|ended| *ended) => return Ending::Closed,
            };
            match decision {
                Decision::Send if !peer.is_transport_closed() => {
                    let generation = self.roots.borrow().generation();
                    // Sent from a task of its own: a server that stopped
                    // reading its input leaves the write blocked on a full
                    // pipe, and awaiting it here would block every command
                    // too, stop included. It is recorded as it is handed to
                    // the connection, so it precedes the `roots/list` it
                    // prompts in the timeline. A failed send means the
                    // connection is closing; the exit or close branch
                    // reports that.
                    self.record(Event::ListChangedSent { generation });
                    let peer = peer.clone();
                    tokio::spawn(async move {
                        let _ = protocol::notify_list_changed(&peer).await;
                    });
                }
                Decision::Send | Decision::Idle => {}
                Decision::NotPickedUp => {
                    let current = self.roots.borrow().clone();
                    if let Some(given) = last_given.as_deref() {
                        // It asked before, and not after being told: it does
                        // not follow changes.
                        self.following = Following::Ignores;
                        if current.withdraws_from(given) {
                            let why = format!(
                                "it did not pick up the change within {}",
                                seconds(self.config.notify.pickup)
                            );
                            return self.withdraw(why, Some(given), &current);
                        }
                    }
                    let waited = self.config.notify.pickup;
                    self.record(Event::NotPickedUp {
                        generation: current.generation(),
                        waited_ms: waited.as_millis() as u64,
                    });
                }
            }
            let state = waiting.state(&gate, self.roots.borrow().generation());
            self.publish_delivery(state, last_given.as_ref());
        }
    }

    /// Ends the connection to restart the server so that a withdrawal takes
    /// effect, noting what the restart withdraws.
    fn withdraw(
        &mut self,
        why: String,
        given: Option<&[SharedRoot]>,
        current: &SharedRoots,
    ) -> Ending {
        let withdrawn: Vec<SharedRoot> = given
            .unwrap_or_default()
            .iter()
            .filter(|old| !current.roots().iter().any(|new| new.uri == old.uri))
            .cloned()
            .collect();
        self.restarted = Some(Restarted {
            at_ms: now_ms(),
            reason: why.clone(),
            withdrawn,
        });
        Ending::Withdraw(why)
    }
}

/// When the current wait for the server began, so the state the app shows
/// keeps its time while it lasts.
#[derive(Default)]
struct Waiting {
    since_ms: Option<u64>,
    not_picked_up_ms: Option<u64>,
}

impl Waiting {
    fn state(&mut self, gate: &NotifyGate, current: u64) -> DeliveryState {
        if gate.settled(current) {
            *self = Waiting::default();
            return DeliveryState::UpToDate;
        }
        if gate.answered() == Some(current) {
            self.since_ms = None;
            self.not_picked_up_ms = None;
            return DeliveryState::Confirming;
        }
        if gate.not_picked_up() {
            let since_ms = *self.not_picked_up_ms.get_or_insert_with(now_ms);
            return DeliveryState::NotPickedUp { since_ms };
        }
        self.not_picked_up_ms = None;
        DeliveryState::Waiting {
            since_ms: *self.since_ms.get_or_insert_with(now_ms),
        }
    }
}

/// A duration in seconds as a person reads it: "30 s", "1.5 s". (Whole
/// seconds alone would turn a 1.5 s timeout into "1 s", and 500 ms into "0 s".)
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// Why the `initialize` handshake failed, in words a person can act on.
/// rmcp's own messages name Rust types and transport internals ("Send
/// message error Transport [rmcp::transport::async_rw::AsyncRwTransport<…>]
/// error: Broken pipe"), and which of them a server that exits at once
/// causes depends on a race; to a person both mean the same thing.
fn handshake_failure(e: &ClientInitializeError) -> String {
    match e {
        ClientInitializeError::ConnectionClosed(_)
        | ClientInitializeError::TransportError { .. } => {
            "the server closed its connection before answering `initialize`".to_owned()
        }
        ClientInitializeError::JsonRpcError(error) => format!(
            "the server refused `initialize` with JSON-RPC error {}: \"{}\"",
            error.code.0, error.message
        ),
        ClientInitializeError::ConflictInitResponseId(_, got)
        | ClientInitializeError::UncorrelatedErrorResponse { received: got, .. } => format!(
            "the server answered a request Rootgate never made (id {got}) instead of `initialize`"
        ),
        ClientInitializeError::ExpectedInitResponse(_)
        | ClientInitializeError::ExpectedInitResult(_) => {
            "the server answered `initialize` with something that is not an `initialize` result"
                .to_owned()
        }
        other => format!("the MCP handshake failed ({other})"),
    }
}

async fn sleep_until(until: Option<Instant>) {
    match until {
        Some(until) => tokio::time::sleep_until(until).await,
        None => std::future::pending().await,
    }
}

/// Whether two lists name the same folders (names aside: a rename changes
/// what a server is told, not what it may touch).
fn same_folders(a: &[SharedRoot], b: &[SharedRoot]) -> bool {
    fn uris(list: &[SharedRoot]) -> Vec<&str> {
        let mut uris: Vec<&str> = list.iter().map(|r| r.uri.as_str()).collect();
        uris.sort_unstable();
        uris
    }
    uris(a) == uris(b)
}

/// Whether the change from `given` (what the server last received) to
/// `current` can only take effect by restarting the server, and why.
fn must_restart(
    policy: Withdrawal,
    ignores_changes: bool,
    given: Option<&[SharedRoot]>,
    current: &SharedRoots,
) -> Option<String> {
    let given = given?;
    if !current.withdraws_from(given) {
        return None;
    }
    if current.is_empty() {
        // Real servers (the npm filesystem server among them) keep their
        // previous folders when told the list is empty.
        return Some("its last folder was withdrawn, and servers ignore an empty list".into());
    }
    if ignores_changes {
        return Some(
            "it does not pick up changes, so a withdrawal takes effect by restarting it".into(),
        );
    }
    match policy {
        Withdrawal::Restart => {
            Some("this server is set to restart when a folder is withdrawn".into())
        }
        Withdrawal::Notify => None,
    }
}

/// Copies a server's stderr into its log, line by line, holding at most one
/// line's worth of bytes however long the line is.
async fn pump_stderr(stderr: ChildStderr, log: Arc<StderrLog>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stderr);
    let limit = log.max_line_bytes();
    let mut line: Vec<u8> = Vec::with_capacity(256);
    let mut truncated = false;
    loop {
        let buf = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(buf) => buf,
        };
        let (chunk, newline) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        let room = limit.saturating_sub(line.len());
        if chunk.len() > room {
            truncated = true;
        }
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = chunk.len() + usize::from(newline);
        reader.consume(used);
        if newline {
            let text = line.strip_suffix(b"\r").unwrap_or(&line);
            log.push(text, truncated);
            line.clear();
            truncated = false;
        }
    }
    if !line.is_empty() {
        log.push(&line, truncated);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(uris: &[&str]) -> Vec<SharedRoot> {
        uris.iter()
            .map(|u| SharedRoot {
                root: crate::ids::RootId::generate(),
                uri: (*u).into(),
                name: "n".into(),
            })
            .collect()
    }

    /// A stdio "server" in plain sh: answers `initialize`, asks
    /// `roots/list`, and once answered sends one logging notification.
    const SH_LOGGING_SERVER: &str = r#"
IFS= read -r line
id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{}},"serverInfo":{"name":"sh","version":"0"}}}\n' "$id"
IFS= read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":0,"method":"roots/list"}'
IFS= read -r line
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"sh","data":{"event":"ack","n":1}}}'
exec cat >/dev/null
"#;

    #[tokio::test]
    async fn server_messages_reach_subscribers_after_the_answer_they_follow() {
        use crate::servers::ServerDraft;
        use crate::settings::SettingsFile;
        use crate::store::Store;

        let dir = tempfile::tempdir().unwrap();
        let (store, _) = Store::open(SettingsFile::at(dir.path().join("settings.json"))).unwrap();
        let spec = store
            .add_server(ServerDraft {
                name: "sh".into(),
                command: "/bin/sh".into(),
                args: vec!["-c".into(), SH_LOGGING_SERVER.into()],
                ..Default::default()
            })
            .unwrap();
        let timeline = Arc::new(Timeline::default());
        let session = Session::spawn(
            spec.id.clone(),
            store.subscribe(&spec.id).unwrap(),
            Arc::clone(&timeline),
            SessionConfig::default(),
        );
        let mut messages = session.subscribe_server_messages();
        session.start(spec.clone());
        let message = tokio::time::timeout(Duration::from_secs(20), messages.recv())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "no server message in time: {:#?}",
                    timeline.for_server(&spec.id)
                )
            })
            .unwrap();
        assert_eq!(message.level, "warning");
        assert_eq!(message.logger.as_deref(), Some("sh"));
        assert_eq!(message.data, serde_json::json!({"event": "ack", "n": 1}));
        assert!(session.status().is_running());
        assert!(
            timeline
                .for_server(&spec.id)
                .iter()
                .any(|e| matches!(e.event, Event::RootsAnswered { .. })),
            "the answer the message follows is recorded first"
        );
        session.shutdown().await;
    }

    #[test]
    fn timeouts_are_said_in_seconds_with_their_fraction() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(seconds(Duration::from_millis(250)), "0.25 s");
    }

    #[test]
    fn handshake_failures_are_said_without_rust_internals() {
        let closed = handshake_failure(&ClientInitializeError::ConnectionClosed(
            "initialize response".into(),
        ));
        assert_eq!(
            closed,
            "the server closed its connection before answering `initialize`"
        );
        let refused = handshake_failure(&ClientInitializeError::JsonRpcError(
            rmcp::model::ErrorData::invalid_params("unsupported client", None),
        ));
        assert!(refused.contains("refused `initialize`"), "{refused}");
        assert!(refused.contains("-32602"), "{refused}");
        assert!(refused.contains("unsupported client"), "{refused}");
    }

    #[test]
    fn restart_only_when_a_withdrawal_cannot_be_told() {
        let given = shared(&["file:///a", "file:///b"]);
        let just_a = SharedRoots::empty().advance(given[..1].to_vec()).unwrap();
        let none = just_a.advance(vec![]).unwrap();
        let more = just_a.advance(given.clone()).unwrap();
        assert_eq!(
            must_restart(Withdrawal::Notify, false, Some(&given), &just_a),
            None
        );
        assert!(must_restart(Withdrawal::Restart, false, Some(&given), &just_a).is_some());
        assert!(must_restart(Withdrawal::Notify, false, Some(&given), &none).is_some());
        assert_eq!(
            must_restart(Withdrawal::Restart, false, Some(&given[..1]), &more),
            None
        );
        // A server seen not to follow changes is restarted for any
        // withdrawal, and for nothing else.
        assert!(must_restart(Withdrawal::Notify, true, Some(&given), &just_a).is_some());
        assert_eq!(
            must_restart(Withdrawal::Notify, true, Some(&given[..1]), &more),
            None
        );
        // A server that was never given anything has nothing to forget.
        assert_eq!(must_restart(Withdrawal::Restart, true, None, &none), None);
    }
}
