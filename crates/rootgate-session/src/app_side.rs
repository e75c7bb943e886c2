//! The app side of a relayed session: what a session needs of the bridge
//! that relays an AI app's lines to and from its server, as a trait the
//! session layer owns and the bridge's `Relay` implements.
//!
//! The bridge is built on sessions (it starts one per app connection), so a
//! session cannot name the bridge's types without a circle. It names this
//! trait instead, the way Zed's `context_server` holds a transport as
//! `Custom(Arc<dyn Transport>)`: a session with an app side hands each
//! server life to it ([`AppSide::attach`]), tells it when the life answered
//! `initialize` ([`AppSide::ready`]) and when it ended
//! ([`AppSide::detach`]), and starts the handshake's clock when the app is
//! there ([`AppSide::app_arrived`]).
//!
//! What is not here: anything about lines, routing or the app's connection
//! (the bridge's), or a session's own client (rmcp, in `connection`).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use super::process::DrainOnDrop;
use super::ready::Readiness;
use super::wire::Wire;
use rootgate_model::consent::SharedRoots;
use rootgate_model::servers::Era;

/// A future an app side returns; boxed, so that the trait can be held as
/// `Arc<dyn AppSide>`.
pub type AppFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A server life attached to the app side.
pub struct AttachedLife {
    /// The life's number, counted by the app side from 1.
    pub life: u64,
    /// Resolves with the server's `initialize` result.
    pub initialized: oneshot::Receiver<Result<Value, String>>,
    /// Set when the server's output ended.
    pub ended: watch::Receiver<bool>,
    /// The task that reads the server's output for the app.
    pub reader: JoinHandle<()>,
}

/// The AI app's side of a relayed session (the bridge's relay).
pub trait AppSide: Send + Sync {
    /// Where the session publishes whether its server has its first
    /// folders, for the app's first request that depends on them.
    fn follow_readiness(&self, readiness: watch::Receiver<Readiness>);

    /// Whether the era of the next life to attach is a guess (see `era`).
    fn guess_era(&self, guessed: bool);

    /// Attaches a new server life: its output is read from `stdout`, and
    /// what is for it goes to `wire`.
    fn attach(
        self: Arc<Self>,
        stdout: DrainOnDrop,
        wire: &Wire,
        era: Era,
        roots: watch::Receiver<SharedRoots>,
    ) -> AttachedLife;

    /// The life `life` answered `initialize`; `replay` when the server
    /// must be told again what the app told an earlier life.
    fn ready(&self, life: u64, replay: bool) -> AppFuture<'_, ()>;

    /// The life `life` ended (or is being ended), because of `why`.
    fn detach<'a>(&'a self, life: u64, why: &'a str) -> AppFuture<'a, ()>;

    /// The life `life` is being ended by Rootgate to start the server
    /// again with other folders (a withdrawal, a new ruleset, new folder
    /// arguments): the app's requests that the next start can still serve
    /// wait for it rather than fail with `why` (the app side says which).
    /// Without that knowledge, as [`AppSide::detach`].
    fn restarting<'a>(&'a self, life: u64, why: &'a str) -> AppFuture<'a, ()> {
        self.detach(life, why)
    }

    /// What the app gave the process that starts its server, when that is
    /// not this process (a connection the resident gate serves for a door):
    /// the server is started with the app's variables and in its working
    /// folder. `None`, the default: this process's own.
    fn started_by(&self) -> Option<super::process::StartedBy> {
        None
    }

    /// Whether the app has sent its `initialize` yet.
    fn app_arrived(&self) -> bool;

    /// Resolves when the app has sent its `initialize`: true, or false if
    /// the app side is gone first.
    fn app_arrival(&self) -> AppFuture<'static, bool>;
}
