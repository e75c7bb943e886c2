//! `rootgate-session`: Rootgate's MCP client, one session per server it
//! runs, on rmcp. It is the only crate that speaks the protocol to a
//! server; it is not the bridge (which relays an AI app's lines through a
//! session, as the [`app_side::AppSide`] this crate owns), nor the store or
//! consent (below it, in `rootgate-model`), nor the process launcher (below
//! it, in `rootgate-launcher`).
//!
//! Modules: `actor` (the task), `app_side` (the trait a relaying bridge
//! implements), `connection` (one life: launch, handshake, close), `serve`
//! (the running phase), `delivery` (whether the folders arrived), `era`
//! (legacy or modern), `listen` and `notices` (what a server says on its
//! own), `list_changed` (when to send `list_changed`), `offers` (tools,
//! resources, prompts, tried), `process` (the child), `protocol` (the rmcp
//! handler, with every use of its deprecated roots API), `ready` (first
//! folders), `rounds` (input rounds and the roots result), `stderr_log`,
//! `wire` (the bytes to the server).
//!
//! One actor task per server: it starts the process, finds the protocol
//! era the server speaks (`era`) and opens it in that era, answers
//! `roots/list` from the server's shared list, tells a legacy server when
//! that list changes (a modern one is answered per request, in input
//! rounds: `rounds`), and stops, restarts or reports failure.
//!
//! This file is the [`Session`] handle, cheap to clone, which talks to the
//! actor (`actor`) over a channel, and the types it shows: [`Status`],
//! [`SessionConfig`], [`SessionError`]. The actor owns the child process
//! and the connection; each life of the process runs in `connection`
//! (launch, handshake, one close) and `serve` (the running phase). Status is
//! published on a `watch`, stderr goes to a bounded [`StderrLog`], every
//! protocol step to the shared [`Timeline`], and the server's logging
//! notifications to [`Session::subscribe_server_messages`] (they are not in
//! the timeline). Failures are seen when the process exits or the connection
//! closes, never by polling.
//!
//! What is not here: which roots a server may see (the store computes that
//! from consent and hands the actor a `watch::Receiver`), rmcp's deprecated
//! roots API (`protocol`), the bytes on the wire (`wire`), process-group
//! signalling (`process`), and the notification timing rules (`list_changed`).

mod actor;
pub mod app_side;
mod connection;
pub mod delivery;
pub mod era;
pub mod list_changed;
pub(crate) mod listen;
pub mod notices;
pub mod offers;
pub mod process;
pub mod protocol;
pub mod ready;
pub mod rounds;
mod serve;
pub(crate) mod stderr_log;
pub mod wire;

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{Peer, RoleClient};
use serde::{Deserialize, Serialize};
use thiserror::Error;
use tokio::sync::{broadcast, mpsc, oneshot, watch};

use self::app_side::AppSide;
use actor::Actor;
pub use delivery::{Delivery, DeliveryState, Following};
use list_changed::NotifyTiming;
use rootgate_model::consent::SharedRoots;
use rootgate_model::ids::ServerId;
use rootgate_model::secrets::Secrets;
use rootgate_model::servers::{Era, ServerSpec};
use rootgate_model::timeline::Timeline;
pub use stderr_log::{LogLine, StderrLog};
pub use wire::ServerMessage;

/// How many server messages a subscriber may fall behind before it is told
/// it lagged (and misses the oldest).
pub(crate) const SERVER_MESSAGE_BUFFER: usize = 256;

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
    /// (see `list_changed`).
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
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningInfo {
    pub pid: u32,
    /// The era the server is spoken to in, which says how it learns its
    /// folders.
    pub era: Era,
    pub protocol_version: String,
    pub server_name: String,
    pub server_version: String,
    pub capabilities: serde_json::Value,
}

/// A session's state, as the app shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[derive(ts_rs::TS)]
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
    /// Not started yet: it takes its folders as arguments, and they are not
    /// there (`reason` says which). It starts as soon as they are.
    Waiting {
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
    #[error(
        "while handling {request} the server asked for `{asked}`, which Rootgate does not offer \
         (it offers only roots)"
    )]
    NotOffered { request: String, asked: String },
    #[error("the server asked for input {0} times without finishing; Rootgate gave up")]
    TooManyRounds(usize),
    #[error("the server answered {0} with a kind of result Rootgate does not handle")]
    UnexpectedResult(String),
    #[error("cancelled")]
    Cancelled,
}

/// What the handle asks of the actor.
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
    /// Whether the current life has its first folders (see `ready`).
    ready: watch::Receiver<ready::Readiness>,
    stderr: Arc<StderrLog>,
    messages: broadcast::Sender<ServerMessage>,
    /// Progress, lists changed and resources updated (see `offers`).
    notices: broadcast::Sender<notices::Notice>,
    /// How many `roots/list` the server has been answered (the actor counts).
    answered: Arc<std::sync::atomic::AtomicU64>,
    /// A modern server's resources followed, each on a listen stream of its
    /// own (see `listen`), by URI.
    followed: Arc<std::sync::Mutex<std::collections::HashMap<String, listen::Listening>>>,
    config: SessionConfig,
    timeline: Arc<Timeline>,
    /// The server's shared list, for the roots a modern server asks for
    /// while it handles a request (see `rounds`).
    roots: watch::Receiver<SharedRoots>,
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
        Session::spawn_with(server, roots, timeline, config, None, Secrets::system())
    }

    /// [`Session::spawn`] with the values of secrets read from `secrets`
    /// (the app's, which holds those not stored; tests' in memory).
    pub fn spawn_with_secrets(
        server: ServerId,
        roots: watch::Receiver<SharedRoots>,
        timeline: Arc<Timeline>,
        config: SessionConfig,
        secrets: Arc<Secrets>,
    ) -> Session {
        Session::spawn_with(server, roots, timeline, config, None, secrets)
    }

    /// [`Session::spawn`] for a bridge: the server's handshake and
    /// everything but its roots go through `relay`, to and from an AI app.
    pub fn spawn_relayed<A: AppSide + 'static>(
        server: ServerId,
        roots: watch::Receiver<SharedRoots>,
        timeline: Arc<Timeline>,
        config: SessionConfig,
        relay: Arc<A>,
    ) -> Session {
        Session::spawn_with(
            server,
            roots,
            timeline,
            config,
            Some(relay),
            Secrets::system(),
        )
    }

    fn spawn_with(
        server: ServerId,
        roots: watch::Receiver<SharedRoots>,
        timeline: Arc<Timeline>,
        config: SessionConfig,
        relay: Option<Arc<dyn AppSide>>,
        secrets: Arc<Secrets>,
    ) -> Session {
        let (commands, rx) = mpsc::unbounded_channel();
        let (status_tx, status) = watch::channel(Status::Stopped { last_exit: None });
        let (delivery_tx, delivery) = watch::channel(Delivery::default());
        let (ready_tx, ready) = watch::channel(ready::Readiness::Pending);
        if let Some(relay) = &relay {
            relay.follow_readiness(ready.clone());
        }
        let stderr = Arc::new(StderrLog::default());
        let messages = broadcast::Sender::new(SERVER_MESSAGE_BUFFER);
        let notices = broadcast::Sender::new(offers::NOTICE_BUFFER);
        let answered = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let actor = Actor {
            server: server.clone(),
            commands: rx,
            status: status_tx,
            delivery: delivery_tx,
            ready: ready_tx,
            asks: None,
            following: Following::Unknown,
            restarted: None,
            roots: roots.clone(),
            timeline: Arc::clone(&timeline),
            stderr: Arc::clone(&stderr),
            messages: messages.clone(),
            notices: notices.clone(),
            answered: Arc::clone(&answered),
            config,
            relay,
            secrets,
        };
        tokio::spawn(actor.run());
        Session {
            server,
            commands,
            status,
            delivery,
            ready,
            stderr,
            messages,
            notices,
            answered,
            followed: Arc::default(),
            config,
            timeline,
            roots,
        }
    }

    pub fn server(&self) -> &ServerId {
        &self.server
    }

    /// The timeline this session records into.
    pub fn timeline(&self) -> &Arc<Timeline> {
        &self.timeline
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_model::timeline::Event;

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
        use rootgate_model::servers::ServerDraft;
        use rootgate_model::settings::SettingsFile;
        use rootgate_model::store::Store;

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
}
