//! One life of a server process, from launch to close: the process is
//! started (through the launcher, under Landlock when its roots are
//! enforced), its stderr is pumped into the log, the `initialize`
//! handshake is done, the running phase is served (`serve.rs`), and every
//! way the life can end goes through one [`Actor::close`]: the stdio
//! shutdown sequence, the exit recorded, the status set, and what the actor
//! does next.
//!
//! What is not here: the roots answers and notifications of the running
//! phase (`serve`), signalling process groups (`process`), and rmcp's
//! handler (`protocol`).

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::ServiceExt;
use rmcp::service::{ClientInitializeError, Peer, RoleClient, RunningServiceCancellationToken};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::actor::{Actor, Next};
use super::process::{self, DrainOnDrop, ExitWatch};
use super::protocol::RootsClient;
use super::wire::{self, HandlerEvent, QUEUE_FRAMES, Wire};
use super::{Command, RunningInfo, SUPPORTED_VERSIONS, Status, StderrLog};
use crate::bridge::relay::Relay;
use crate::consent::SharedRoots;
use crate::enforcement;
use crate::placeholders;
use crate::servers::ServerSpec;
use crate::timeline::Event;

/// The size of a bridged server's stdout pipe (see `grow_stdout_pipe`):
/// a quarter of a 1 MiB result a wake-up, at a quarter of a megabyte of the
/// user's pipe allowance per connection.
const RELAYED_STDOUT_PIPE: usize = 256 * 1024;

/// Why a life of the server is being ended.
pub(super) enum Ending {
    Stop(oneshot::Sender<()>),
    Quit(Option<oneshot::Sender<()>>),
    Restart(ServerSpec),
    Withdraw(String),
    /// An enforced server's list changed: its ruleset must be remade.
    Reenforce(String),
    /// The folders it takes as arguments changed: it starts again with them.
    Reargue(String),
    Removed,
    Exited,
    Closed,
    /// The handshake did not complete; the reason says how.
    NoHandshake(String),
    /// The server answered with a protocol version Rootgate does not speak.
    Unsupported(String),
}

/// The protocol side of a running connection.
pub(super) struct Link {
    pub(super) kind: LinkKind,
    /// Set once the server's output has ended (or rmcp's service was
    /// cancelled). A flag rather than a oneshot: both the running phase and
    /// the close wait for it, and either may see it first.
    pub(super) ended: watch::Receiver<bool>,
}

pub(super) enum LinkKind {
    /// Rootgate's own client, on rmcp.
    Own {
        peer: Peer<RoleClient>,
        cancel: RunningServiceCancellationToken,
    },
    /// A bridge's relay for an AI app.
    Relay {
        relay: Arc<Relay>,
        life: u64,
        reader: JoinHandle<()>,
    },
}

impl Link {
    /// The rmcp peer, for Rootgate's own calls (a bridge has none: the
    /// app makes the calls).
    pub(super) fn peer(&self) -> Option<Peer<RoleClient>> {
        match &self.kind {
            LinkKind::Own { peer, .. } => Some(peer.clone()),
            LinkKind::Relay { .. } => None,
        }
    }

    /// Ends the protocol side, so that the server's stdin can close.
    /// Rootgate's own: cancels the service and waits until it has ended,
    /// which stops the wire's writer even in the middle of a write blocked
    /// on a full pipe; the wait is bounded, so a service that does not end
    /// cannot hold the shutdown (it then goes on to SIGTERM). A relay: the
    /// app's requests waiting for this life get an error, and its output is
    /// no longer read (it is drained, see `process::DrainOnDrop`).
    async fn close(mut self, grace: Duration, why: &str) {
        match self.kind {
            LinkKind::Own { cancel, .. } => {
                cancel.cancel();
                let _ = tokio::time::timeout(grace, self.ended.wait_for(|ended| *ended)).await;
            }
            LinkKind::Relay {
                relay,
                life,
                reader,
            } => {
                relay.detach(life, why).await;
                reader.abort();
            }
        }
    }
}

/// Why a life of the server did not start.
enum Unlaunched {
    Failed(String),
    /// Its folders are passed as arguments and are not there yet.
    NeedsFolders(String),
}

/// What a server said of itself in its `initialize` answer.
struct Answered {
    protocol_version: String,
    server_name: String,
    server_version: String,
    capabilities: serde_json::Value,
}

/// One life of a server process.
pub(super) struct Connection {
    pub(super) pid: u32,
    pub(super) exit: ExitWatch,
    stderr_pump: JoinHandle<()>,
    stderr_since: u64,
    /// The server's stdout and stdin until the handshake takes them.
    io: Option<(DrainOnDrop, ChildStdin)>,
    /// Where the handler and the wire report what they see.
    events_tx: mpsc::UnboundedSender<HandlerEvent>,
    pub(super) events: mpsc::UnboundedReceiver<HandlerEvent>,
    pub(super) wire: Option<Wire>,
    pub(super) link: Option<Link>,
    /// The list an enforced server's ruleset was made from.
    pub(super) enforced: Option<SharedRoots>,
    /// The server's command line with its folders filled in, when it takes
    /// them as arguments.
    pub(super) expanded: Option<placeholders::Expanded>,
    /// Whether the handshake completed.
    started: bool,
}

impl Actor {
    /// Runs one life of the server process, from spawn to exit.
    pub(super) async fn run_connection(&mut self, spec: &ServerSpec) -> Next {
        self.status.send_replace(Status::Starting);
        let mut conn = match self.launch(spec) {
            Ok(conn) => conn,
            Err(Unlaunched::Failed(reason)) => {
                self.fail(reason);
                return Next::Idle;
            }
            Err(Unlaunched::NeedsFolders(reason)) => {
                self.record(Event::WaitingForFolders {
                    reason: reason.clone(),
                });
                self.status.send_replace(Status::Waiting { reason });
                return Next::WaitForFolders(spec.clone());
            }
        };
        let ending = match self.handshake(&mut conn, spec).await {
            Ok(()) => self.serve(spec, &mut conn).await,
            Err(ending) => ending,
        };
        self.close(conn, ending, spec).await
    }

    /// Starts the process and its stderr pump.
    fn launch(&mut self, spec: &ServerSpec) -> Result<Connection, Unlaunched> {
        // Mark the current list as seen: the server is about to ask for it,
        // and an enforced server runs under a ruleset made from it. Marking
        // it here, before the ruleset is made, means a change that lands
        // while the server starts is seen as a change (a notification, or a
        // restart under new rules for an enforced server; see `serve`).
        let at_start = self.roots.borrow_and_update().clone();
        // Folders passed as arguments are filled in from the list as it is
        // now; a list that changes later restarts the server (see `serve`).
        let expanded = if placeholders::has_placeholders(spec) {
            let e = placeholders::expand(spec, at_start.roots())
                .map_err(|e| Unlaunched::NeedsFolders(e.to_string()))?;
            Some(e)
        } else {
            None
        };
        let run = match &expanded {
            Some(e) => {
                let mut run = spec.clone();
                run.args = e.args.clone();
                run.env = e.env.clone();
                run.cwd = e.cwd.clone();
                run
            }
            None => spec.clone(),
        };
        let spec = &run;
        // The command line as it runs, folders filled in: what the person
        // reads in the timeline must be what the process was given.
        self.record(Event::Starting {
            command_line: spec.masked_command_line(),
        });
        let enforced = spec.enforce_roots.then_some(at_start);
        let mut launch = process::Launch {
            grace: self.config.shutdown_grace,
            enforce: None,
        };
        if let Some(roots) = &enforced {
            if let enforcement::Support::Unavailable { reason } = enforcement::support() {
                return Err(Unlaunched::Failed(format!(
                    "enforced roots are on for this server, but {reason}. Turn \"Enforce roots\" \
                     off to run it with roots as advice only."
                )));
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
        let spawned =
            process::spawn(spec, &launch).map_err(|e| Unlaunched::Failed(e.to_string()))?;
        self.record(Event::Spawned { pid: spawned.pid });
        if let Some(policy) = &launch.enforce {
            let shown = |paths: &[std::path::PathBuf]| -> Vec<String> {
                paths.iter().map(|p| p.display().to_string()).collect()
            };
            self.record(Event::Enforced {
                read_write: shown(&policy.read_write),
                read_only: shown(&policy.read_only),
            });
        }
        // A large list gets a stdin pipe it fits in (see `fit_stdin_pipe`);
        // the list was marked seen above, before the server started.
        let answer_bytes = wire::answer_size(self.roots.borrow().roots());
        process::fit_stdin_pipe(&spawned.stdin, answer_bytes);
        let (events_tx, events) = mpsc::unbounded_channel();
        Ok(Connection {
            pid: spawned.pid,
            exit: spawned.exit,
            stderr_since: self.stderr.next_seq(),
            stderr_pump: tokio::spawn(pump_stderr(spawned.stderr, Arc::clone(&self.stderr))),
            io: Some((spawned.stdout, spawned.stdin)),
            events_tx,
            events,
            wire: None,
            link: None,
            enforced,
            expanded,
            started: false,
        })
    }

    /// Does the `initialize` handshake, answering commands meanwhile, and
    /// publishes `Running`: as Rootgate's own client, or for the AI app a
    /// bridge relays.
    async fn handshake(&mut self, conn: &mut Connection, spec: &ServerSpec) -> Result<(), Ending> {
        let Some((stdout, stdin)) = conn.io.take() else {
            return Err(Ending::NoHandshake(
                "the server's pipes were already taken".into(),
            ));
        };
        let answered = match self.relay.clone() {
            Some(relay) => {
                self.relayed_handshake(conn, spec, relay, stdout, stdin)
                    .await?
            }
            None => self.own_handshake(conn, spec, stdout, stdin).await?,
        };
        conn.started = true;
        if !SUPPORTED_VERSIONS.contains(&answered.protocol_version.as_str()) {
            return Err(Ending::Unsupported(answered.protocol_version));
        }
        if let Some(LinkKind::Relay { relay, life, .. }) = conn.link.as_ref().map(|l| &l.kind) {
            relay.ready(*life, *life > 1).await;
        }
        self.record(Event::Initialized {
            protocol_version: answered.protocol_version.clone(),
            server_name: answered.server_name.clone(),
            server_version: answered.server_version.clone(),
        });
        self.status.send_replace(Status::Running(RunningInfo {
            pid: conn.pid,
            protocol_version: answered.protocol_version,
            server_name: answered.server_name,
            server_version: answered.server_version,
            capabilities: answered.capabilities,
        }));
        Ok(())
    }

    /// A command that came while the server was starting: whether it ends
    /// the start, and how.
    fn command_while_starting(
        &mut self,
        command: Option<Command>,
        spec: &ServerSpec,
    ) -> Option<Ending> {
        match command {
            Some(Command::Peer(reply)) => {
                let _ = reply.send(None);
                None
            }
            Some(Command::Start(_)) => None,
            Some(Command::Forget) => {
                self.forget();
                None
            }
            Some(Command::Restart(new)) => {
                let new = new.unwrap_or_else(|| spec.clone());
                self.adopt(&new);
                Some(Ending::Restart(new))
            }
            Some(Command::Stop(done)) => Some(Ending::Stop(done)),
            Some(Command::Shutdown(done)) => Some(Ending::Quit(Some(done))),
            None => Some(Ending::Quit(None)),
        }
    }

    fn no_answer(&self) -> Ending {
        Ending::NoHandshake(format!(
            "the server did not answer `initialize` within {}; it may not be an MCP server, or \
             it may be waiting for input of another kind",
            seconds(self.config.init_timeout)
        ))
    }

    /// The handshake as Rootgate's own client, on rmcp.
    async fn own_handshake(
        &mut self,
        conn: &mut Connection,
        spec: &ServerSpec,
        stdout: DrainOnDrop,
        stdin: ChildStdin,
    ) -> Result<Answered, Ending> {
        let handler = RootsClient::new(self.roots.clone(), conn.events_tx.clone());
        // `roots/list` is answered, and answers reported as they are
        // written, by this transport's wire (see `wire`).
        let (transport, wire) = handler.transport(stdout, stdin);
        conn.wire = Some(wire);
        let mut init = Box::pin(handler.serve(transport));
        let deadline = tokio::time::sleep(self.config.init_timeout);
        tokio::pin!(deadline);
        let running = loop {
            tokio::select! {
                result = &mut init => match result {
                    Ok(running) => break running,
                    Err(e) => return Err(Ending::NoHandshake(handshake_failure(&e))),
                },
                _ = &mut deadline => return Err(self.no_answer()),
                command = self.commands.recv() => {
                    if let Some(ending) = self.command_while_starting(command, spec) {
                        return Err(ending);
                    }
                }
            }
        };
        let peer = running.peer().clone();
        let info = peer.peer_info();
        let cancel = running.cancellation_token();
        let (ended_tx, ended) = watch::channel(false);
        tokio::spawn(async move {
            let _ = running.waiting().await;
            let _ = ended_tx.send(true);
        });
        conn.link = Some(Link {
            kind: LinkKind::Own { peer, cancel },
            ended,
        });
        let (server_name, server_version) = info
            .as_ref()
            .and_then(|i| i.server_info.as_ref())
            .map(|s| (s.name.clone(), s.version.clone()))
            .unwrap_or_default();
        Ok(Answered {
            protocol_version: info
                .as_ref()
                .map(|i| i.protocol_version.to_string())
                .unwrap_or_default(),
            server_name,
            server_version,
            capabilities: info
                .as_ref()
                .and_then(|i| serde_json::to_value(&i.capabilities).ok())
                .unwrap_or_default(),
        })
    }

    /// The handshake a bridge relays: the AI app's `initialize` (with
    /// Rootgate's roots declared), whose answer goes to the app; after a
    /// restart, the same again, answered inside the bridge. The time allowed
    /// runs from when the app's `initialize` is there.
    async fn relayed_handshake(
        &mut self,
        conn: &mut Connection,
        spec: &ServerSpec,
        relay: Arc<Relay>,
        stdout: DrainOnDrop,
        stdin: ChildStdin,
    ) -> Result<Answered, Ending> {
        // An AI app's results can be large (a file read, a search): a pipe
        // of a few hundred kilobytes carries them in few wake-ups.
        process::grow_stdout_pipe(&stdout, RELAYED_STDOUT_PIPE);
        let wire = Wire::start(
            stdin,
            self.roots.clone(),
            conn.events_tx.clone(),
            QUEUE_FRAMES,
        );
        let mut attached = relay.attach(stdout, &wire);
        conn.wire = Some(wire);
        let mut ended = attached.ended.clone();
        let mut seen = relay.subscribe();
        let mut app_arrived = seen.borrow().app.is_some();
        conn.link = Some(Link {
            kind: LinkKind::Relay {
                relay,
                life: attached.life,
                reader: attached.reader,
            },
            ended: attached.ended,
        });
        let deadline = tokio::time::sleep(self.config.init_timeout);
        tokio::pin!(deadline);
        let closed = || {
            Ending::NoHandshake(
                "the server closed its connection before answering `initialize`".into(),
            )
        };
        let result = loop {
            tokio::select! {
                result = &mut attached.initialized => match result {
                    Ok(Ok(result)) => break result,
                    Ok(Err(e)) => return Err(Ending::NoHandshake(format!(
                        "the server refused `initialize` ({e})"
                    ))),
                    Err(_) => return Err(closed()),
                },
                _ = &mut deadline, if app_arrived => return Err(self.no_answer()),
                changed = seen.changed(), if !app_arrived => {
                    if changed.is_err() {
                        return Err(Ending::Quit(None));
                    }
                    if seen.borrow_and_update().app.is_some() {
                        app_arrived = true;
                        deadline.as_mut().reset(tokio::time::Instant::now() + self.config.init_timeout);
                    }
                }
                _ = ended.wait_for(|ended| *ended) => return Err(closed()),
                command = self.commands.recv() => {
                    if let Some(ending) = self.command_while_starting(command, spec) {
                        return Err(ending);
                    }
                }
            }
        };
        let text = |v: Option<&serde_json::Value>| {
            v.and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let info = result.get("serverInfo");
        Ok(Answered {
            protocol_version: text(result.get("protocolVersion")),
            server_name: text(info.and_then(|i| i.get("name"))),
            server_version: text(info.and_then(|i| i.get("version"))),
            capabilities: result.get("capabilities").cloned().unwrap_or_default(),
        })
    }

    /// Ends a life of the server, whatever ended it: closes stdin, waits,
    /// SIGTERM, waits, SIGKILL (see `process`), records the exit, sets the
    /// status and says what comes next.
    async fn close(&mut self, conn: Connection, ending: Ending, spec: &ServerSpec) -> Next {
        let Connection {
            mut exit,
            stderr_pump,
            stderr_since,
            wire,
            link,
            started,
            ..
        } = conn;
        let reason = match &ending {
            Ending::Stop(_) | Ending::Restart(_) | Ending::Quit(_) if !started => {
                Some("stopped while starting".to_owned())
            }
            Ending::Stop(_) => Some("stopped".to_owned()),
            Ending::Quit(_) => Some("Rootgate is shutting down".to_owned()),
            Ending::Restart(_) => Some("restarting".to_owned()),
            Ending::Withdraw(why) => Some(format!("restarting to withdraw folders: {why}")),
            Ending::Reenforce(why) => Some(format!("restarting under new folder rules: {why}")),
            Ending::Reargue(why) => Some(format!("restarting with new folder arguments: {why}")),
            Ending::Removed => Some("the server was removed".to_owned()),
            Ending::Exited | Ending::Closed | Ending::NoHandshake(_) | Ending::Unsupported(_) => {
                None
            }
        };
        if let Some(reason) = &reason {
            if started {
                self.status.send_replace(Status::Stopping);
            }
            self.record(Event::Stopping {
                reason: reason.clone(),
            });
        }
        let grace = self.config.shutdown_grace;
        let why = match &ending {
            Ending::Exited | Ending::Closed => "the server stopped",
            _ => "the server was stopped by Rootgate before it answered",
        };
        let close_stdin = async move {
            if let Some(link) = link {
                link.close(grace, why).await;
            }
            if let Some(wire) = wire {
                wire.close();
            }
        };
        let ended = exit.shut_down(close_stdin, grace).await;
        let _ = stderr_pump.await;
        let expected = reason.is_some() || matches!(ending, Ending::Unsupported(_));
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
            Ending::Restart(spec) => {
                if !started {
                    self.status.send_replace(Status::Stopped { last_exit });
                }
                Next::Start(spec)
            }
            Ending::Withdraw(why) => {
                self.record(Event::RestartedToWithdraw { reason: why });
                Next::Start(spec.clone())
            }
            Ending::Reenforce(why) => {
                self.record(Event::RestartedToEnforce { reason: why });
                Next::Start(spec.clone())
            }
            Ending::Reargue(why) => {
                self.record(Event::RestartedForArguments { reason: why });
                Next::Start(spec.clone())
            }
            Ending::Exited | Ending::Closed => {
                let how = if matches!(ending, Ending::Exited) {
                    "the process exited"
                } else {
                    "the server closed its output"
                };
                self.fail(format!(
                    "the server stopped on its own ({how}, {}).{}",
                    ended.describe(),
                    self.stderr_tail(stderr_since)
                ));
                Next::Idle
            }
            Ending::NoHandshake(reason) => {
                self.fail(format!(
                    "{reason}; the process ended with {}.{}",
                    ended.describe(),
                    self.stderr_tail(stderr_since)
                ));
                Next::Idle
            }
            Ending::Unsupported(version) => {
                self.fail(format!(
                    "the server answered with protocol version \"{version}\", which Rootgate \
                     does not speak (it speaks {})",
                    SUPPORTED_VERSIONS.join(", ")
                ));
                Next::Idle
            }
        }
    }
}

/// A duration in seconds as a person reads it: "30 s", "1.5 s". (Whole
/// seconds alone would turn a 1.5 s timeout into "1 s", and 500 ms into "0 s".)
pub(super) fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// Why the `initialize` handshake failed, in words a person can act on.
/// rmcp's own messages name Rust types and transport internals ("Send
/// message error Transport [rmcp::transport::async_rw::AsyncRwTransport<…>]
/// error: Broken pipe"), and which of them a server that exits at once
/// causes depends on a race; to a person both mean the same thing.
pub(super) fn handshake_failure(e: &ClientInitializeError) -> String {
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
}
