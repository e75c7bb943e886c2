//! One life of a server process, from launch to close: the process is
//! started (through the launcher, under Landlock when its roots are
//! enforced), its stderr is pumped into the log, the `initialize`
//! handshake is done (`connection/handshake.rs`), the running phase is
//! served (`serve.rs`), and every way the life can end goes through one
//! [`Actor::close`]: the stdio shutdown sequence and the exit recorded. What
//! each way means is [`Ending`]'s to say, in its methods: the reason the
//! timeline gives, the status set, and what the actor does next.
//!
//! What is not here: the roots answers and notifications of the running
//! phase (`serve`), signalling process groups (`process`), and rmcp's
//! handler (`protocol`).

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{ClientInitializeError, Peer, RoleClient, RunningServiceCancellationToken};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{ChildStderr, ChildStdin};
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::JoinHandle;

mod handshake;

use super::actor::{Actor, Next};
use super::app_side::AppSide;
use super::process::{self, DrainOnDrop, ExitWatch};
use super::protocol::RootsClient;
use super::wire::{self, HandlerEvent, QUEUE_FRAMES, Wire};
use super::{Command, RunningInfo, SUPPORTED_VERSIONS, Status, StderrLog};
use rootgate_launcher::enforcement;
use rootgate_model::consent::SharedRoots;
use rootgate_model::placeholders;
use rootgate_model::secrets::{SecretValues, redact};
use rootgate_model::servers::ServerSpec;
use rootgate_model::timeline::Event;

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
    /// The server closed its connection before answering the request that
    /// opens it (`initialize` or `server/discover`): most often a command
    /// that is not an MCP server at all, and says so in its failure.
    ClosedBeforeAnswer(&'static str),
    /// The server answered with a protocol version Rootgate does not speak.
    Unsupported(String),
    /// The server refused `initialize` when its era was not known, as a
    /// server that speaks only the modern era does: it starts again with
    /// this spec, which holds it to the modern era.
    AgainInEra(ServerSpec),
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
        relay: Arc<dyn AppSide>,
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
    async fn close(mut self, grace: Duration, why: &str, restarting: bool) {
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
                if restarting {
                    relay.restarting(life, why).await;
                } else {
                    relay.detach(life, why).await;
                }
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
    era: rootgate_model::servers::Era,
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
    /// The list this life was started with (a server given its folders as
    /// arguments holds exactly these).
    pub(super) started_with: SharedRoots,
    /// The server's command line with its folders filled in, when it takes
    /// them as arguments.
    pub(super) expanded: Option<placeholders::Expanded>,
    /// The era the handshake settled on (legacy until it has).
    pub(super) era: rootgate_model::servers::Era,
    /// Whether the handshake completed.
    started: bool,
}

impl Actor {
    /// Runs one life of the server process, from spawn to exit.
    pub(super) async fn run_connection(&mut self, spec: &ServerSpec) -> Next {
        self.status.send_replace(Status::Starting);
        // A new life has no folders until it asks (see `ready`); what the
        // last life had says nothing of this one.
        self.ready.send_replace(super::ready::Readiness::Pending);
        let secrets = match self.read_secrets(spec).await {
            Ok(values) => values,
            Err(reason) => {
                self.fail(reason);
                return Next::Idle;
            }
        };
        let mut conn = match self.launch(spec, secrets) {
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

    /// The values of the server's secrets kept outside its spec, read on
    /// the runtime's blocking threads (the keyring may ask the person to
    /// unlock it). Why they cannot be had is a start's failure, in words
    /// that name the variable and never a value.
    async fn read_secrets(&self, spec: &ServerSpec) -> Result<SecretValues, String> {
        if spec.secrets.is_empty() {
            return Ok(SecretValues::default());
        }
        let secrets = Arc::clone(&self.secrets);
        let spec = spec.clone();
        tokio::task::spawn_blocking(move || secrets.values_for_start(&spec))
            .await
            .map_err(|e| format!("its secrets could not be read: {e}"))?
            .map_err(|e| e.to_string())
    }

    /// Starts the process and its stderr pump.
    fn launch(
        &mut self,
        spec: &ServerSpec,
        secrets: SecretValues,
    ) -> Result<Connection, Unlaunched> {
        // Mark the current list as seen: the server is about to ask for it,
        // and an enforced server runs under a ruleset made from it. Marking
        // it here, before the ruleset is made, means a change that lands
        // while the server starts is seen as a change (a notification, or a
        // restart under new rules for an enforced server; see `serve`).
        let at_start = self.roots.borrow_and_update().clone();
        // Folders passed as arguments are filled in from the list as it is
        // now; a list that changes later restarts the server (see `serve`).
        let (run, expanded) = with_folders_filled(spec, &at_start)?;
        let spec = &run;
        // The command line as it runs, folders filled in: what the person
        // reads in the timeline must be what the process was given.
        self.record(Event::Starting {
            command_line: spec.masked_command_line(),
        });
        let started_with = at_start.clone();
        let enforced = spec.enforce_roots.then_some(at_start);
        // What the server prints of its secrets is written out of its log,
        // and so of failures quoting it.
        let redactions = Arc::new(secrets.redactions_with(Some(spec)));
        let mut launch = process::Launch {
            grace: self.config.shutdown_grace,
            enforce: None,
            secrets,
            started_by: self.relay.as_ref().and_then(|r| r.started_by()),
        };
        if let Some(roots) = &enforced {
            launch.enforce = Some(enforcement_for(spec, roots, launch.started_by.as_ref())?);
        }
        let spawned =
            process::spawn(spec, &launch).map_err(|e| Unlaunched::Failed(e.to_string()))?;
        self.record(Event::Spawned { pid: spawned.pid });
        if let Some(policy) = &launch.enforce {
            self.record(enforced_event(policy));
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
            stderr_pump: tokio::spawn(pump_stderr(
                spawned.stderr,
                Arc::clone(&self.stderr),
                redactions,
            )),
            io: Some((spawned.stdout, spawned.stdin)),
            events_tx,
            events,
            wire: None,
            link: None,
            enforced,
            started_with,
            expanded,
            era: rootgate_model::servers::Era::Legacy,
            started: false,
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
        let reason = ending.stop_reason(started);
        if let Some(reason) = &reason {
            if started {
                self.status.send_replace(Status::Stopping);
            }
            self.record(Event::Stopping {
                reason: reason.clone(),
            });
        }
        let grace = self.config.shutdown_grace;
        let why = ending.why_link_closes();
        let restarting = ending.restarts_for_folders();
        let close_stdin = async move {
            if let Some(link) = link {
                link.close(grace, why, restarting).await;
            }
            if let Some(wire) = wire {
                wire.close();
            }
        };
        let ended = exit.shut_down(close_stdin, grace).await;
        let _ = stderr_pump.await;
        let expected =
            reason.is_some() || matches!(ending, Ending::Unsupported(_) | Ending::AgainInEra(_));
        self.record(Event::Exited {
            status: ended.describe(),
            expected,
        });
        ending.finish(self, spec, started, &ended, stderr_since)
    }
}

impl Ending {
    /// Why Rootgate is ending this life itself, for the timeline's
    /// `Stopping` entry; `None` when the server ended it (its exit, its
    /// output closing, a handshake that failed or asks for another era),
    /// which is told as a failure or a start again, not as a stop.
    fn stop_reason(&self, started: bool) -> Option<String> {
        match self {
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
            Ending::Exited
            | Ending::Closed
            | Ending::NoHandshake(_)
            | Ending::ClosedBeforeAnswer(_)
            | Ending::Unsupported(_)
            | Ending::AgainInEra(_) => None,
        }
    }

    /// What a relayed app's requests waiting for this life are told when
    /// the link closes: the server stopped, or Rootgate stopped it first.
    fn why_link_closes(&self) -> &'static str {
        match self {
            Ending::Exited | Ending::Closed => "the server stopped",
            _ => "the server was stopped by Rootgate before it answered",
        }
    }

    /// Whether Rootgate ends this life only to start the server again with
    /// other folders: the app's requests the old life had not been given
    /// (or that are safe to send twice) then go to the new start rather
    /// than fail (see the bridge's `relay::resend`).
    fn restarts_for_folders(&self) -> bool {
        matches!(
            self,
            Ending::Withdraw(_) | Ending::Reenforce(_) | Ending::Reargue(_)
        )
    }

    /// Once the process has ended (`ended`): the status the life leaves,
    /// what the timeline adds, and what the actor does next. A failure
    /// quotes the server's stderr from `stderr_since`, this life's first
    /// line.
    fn finish(
        self,
        actor: &Actor,
        spec: &ServerSpec,
        started: bool,
        ended: &process::Ended,
        stderr_since: u64,
    ) -> Next {
        let last_exit = Some(ended.describe());
        match self {
            Ending::Stop(done) => {
                actor.status.send_replace(Status::Stopped { last_exit });
                let _ = done.send(());
                Next::Idle
            }
            Ending::Removed => {
                actor.status.send_replace(Status::Stopped { last_exit });
                Next::Quit(None)
            }
            Ending::Quit(done) => {
                actor.status.send_replace(Status::Stopped { last_exit });
                Next::Quit(done)
            }
            Ending::Restart(spec) => {
                if !started {
                    actor.status.send_replace(Status::Stopped { last_exit });
                }
                Next::Start(spec)
            }
            Ending::AgainInEra(spec) => Next::Start(spec),
            Ending::Withdraw(why) => {
                actor.record(Event::RestartedToWithdraw { reason: why });
                Next::Start(spec.clone())
            }
            Ending::Reenforce(why) => {
                actor.record(Event::RestartedToEnforce { reason: why });
                Next::Start(spec.clone())
            }
            Ending::Reargue(why) => {
                actor.record(Event::RestartedForArguments { reason: why });
                Next::Start(spec.clone())
            }
            Ending::Exited | Ending::Closed => {
                let how = if matches!(self, Ending::Exited) {
                    "the process exited"
                } else {
                    "the server closed its output"
                };
                actor.fail(format!(
                    "the server stopped on its own ({how}, {}).{}",
                    ended.describe(),
                    actor.stderr_tail(stderr_since)
                ));
                Next::Idle
            }
            Ending::ClosedBeforeAnswer(first) => {
                actor.fail(closed_before_answer(
                    first,
                    ended,
                    &actor.stderr_tail(stderr_since),
                ));
                Next::Idle
            }
            Ending::NoHandshake(reason) => {
                actor.fail(format!(
                    "{reason}; the process ended with {}.{}",
                    ended.describe(),
                    actor.stderr_tail(stderr_since)
                ));
                Next::Idle
            }
            Ending::Unsupported(version) => {
                actor.fail(format!(
                    "the server answered with protocol version \"{version}\", which Rootgate \
                         does not speak (it speaks {})",
                    SUPPORTED_VERSIONS.join(", ")
                ));
                Next::Idle
            }
        }
    }
}

/// The failure of a server that closed its connection before answering
/// `first`, in the words a person needs: a process that ended by itself did
/// not speak MCP at all (`/bin/false`, a script that prints its usage), so
/// the question is whether it is an MCP server; one that had to be stopped
/// was still running and only closed its output.
fn closed_before_answer(first: &str, ended: &super::process::Ended, tail: &str) -> String {
    use super::process::Step;
    // A process that exits on its own may be seen exiting only once its
    // input is closed (the exit and the closed pipe race); either way it
    // ended without being made to.
    if matches!(ended.step, Step::AlreadyExited | Step::StdinClosed) {
        format!(
            "the command exited at once ({}) without speaking MCP: it closed its connection \
             before answering `{first}`. Is this an MCP server?{tail}",
            ended.status
        )
    } else {
        format!(
            "the server closed its connection before answering `{first}`; the process \
             ended with {}.{tail}",
            ended.describe()
        )
    }
}

/// A duration in seconds as a person reads it: "30 s", "1.5 s". (Whole
/// seconds alone would turn a 1.5 s timeout into "1 s", and 500 ms into "0 s".)
pub(super) fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// Copies a server's stderr into its log, line by line, holding at most one
/// line's worth of bytes however long the line is.
async fn pump_stderr(stderr: ChildStderr, log: Arc<StderrLog>, redactions: Arc<Vec<Vec<u8>>>) {
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
            log.push(&redact(text, &redactions), truncated);
            line.clear();
            truncated = false;
        }
    }
    if !line.is_empty() {
        log.push(&redact(&line, &redactions), truncated);
    }
}

/// `spec` as it runs, with folders passed as arguments filled in from the
/// list as it is now (`at_start`), and what the filling gave; a list that
/// changes later restarts the server (see `serve`).
fn with_folders_filled(
    spec: &ServerSpec,
    at_start: &SharedRoots,
) -> Result<(ServerSpec, Option<placeholders::Expanded>), Unlaunched> {
    if !placeholders::has_placeholders(spec) {
        return Ok((spec.clone(), None));
    }
    let expanded = placeholders::expand(spec, at_start.roots())
        .map_err(|e| Unlaunched::NeedsFolders(e.to_string()))?;
    let mut run = spec.clone();
    run.args = expanded.args.clone();
    run.env = expanded.env.clone();
    run.cwd = expanded.cwd.clone();
    Ok((run, Some(expanded)))
}

/// The ruleset a server under Enforce roots runs in, made from `roots`;
/// refused in words where this system cannot hold a server.
fn enforcement_for(
    spec: &ServerSpec,
    roots: &SharedRoots,
    started_by: Option<&process::StartedBy>,
) -> Result<enforcement::Policy, Unlaunched> {
    if let enforcement::Support::Unavailable { reason } = enforcement::support() {
        return Err(Unlaunched::Failed(format!(
            "enforced roots are on for this server, but {reason}. Turn \"Enforce roots\" \
             off to run it with roots as advice only."
        )));
    }
    let path_env =
        spec.env
            .get("PATH")
            .map(std::ffi::OsString::from)
            .or_else(|| match started_by {
                Some(started_by) => started_by.env.get("PATH").map(std::ffi::OsString::from),
                None => std::env::var_os("PATH"),
            });
    enforcement::policy_for(spec, roots.roots(), path_env.as_deref()).map_err(|why| {
        Unlaunched::Failed(format!(
            "\"Enforce roots\" is on for this server, but {why}. Nothing was started."
        ))
    })
}

/// What the timeline says of the ruleset a server was started in.
fn enforced_event(policy: &enforcement::Policy) -> Event {
    let shown = |paths: &[std::path::PathBuf]| -> Vec<String> {
        paths.iter().map(|p| p.display().to_string()).collect()
    };
    Event::Enforced {
        read_write: shown(&policy.read_write),
        read_only: shown(&policy.read_only),
        held: policy.sandbox.is_some(),
        network: policy.network,
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
}
