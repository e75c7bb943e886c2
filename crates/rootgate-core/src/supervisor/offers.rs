//! The window's tries on its servers: what each offers, a tool called with
//! its progress shown and a way to cancel it, a resource read or followed, a
//! prompt got. Each is one call into the server's session (`session::offers`),
//! so the window and the tests share one path.
//!
//! The window names each call with a number of its own choosing, which its
//! progress changes carry and [`Tries::cancel_call`] takes. Nothing here
//! looks into a tool's arguments: they are data for the server, never
//! folders for Rootgate, which shares only what consent says.
//!
//! What is not here: the requests themselves and their timeline entries
//! (`session::offers`), and anything about how results look.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::ground::Ground;
use super::servers::ServerHandle;
use super::{Change, SupervisorError, lock};
use rootgate_model::ids::ServerId;
use rootgate_session::offers::{Offers, Progress, TryOutcome, Watch};

/// The window's tries on its running servers.
pub struct Tries {
    ground: Ground,
    /// The servers whose sessions the calls go to.
    servers: Arc<dyn ServerHandle>,
    /// The window's calls in flight, by the number it gave each, to cancel.
    calls: Mutex<HashMap<u32, CancellationToken>>,
}

impl Tries {
    pub(super) fn new(ground: Ground, servers: Arc<dyn ServerHandle>) -> Tries {
        Tries {
            ground,
            servers,
            calls: Mutex::new(HashMap::new()),
        }
    }

    /// Everything a running server offers.
    pub async fn offers(&self, id: &ServerId) -> Result<Offers, SupervisorError> {
        Ok(self.servers.session(id)?.offers().await?)
    }

    /// Calls a tool of a running server as call number `call`, its progress
    /// sent to the window as [`Change::CallProgress`], until it ends or
    /// [`Tries::cancel_call`] cancels it.
    pub async fn call_tool(
        &self,
        id: &ServerId,
        call: u32,
        name: &str,
        arguments: Map<String, Value>,
    ) -> Result<TryOutcome, SupervisorError> {
        let session = self.servers.session(id)?;
        let watch = self.watch(call);
        let outcome = session.try_tool(name, arguments, watch).await;
        lock(&self.calls).remove(&call);
        Ok(outcome?)
    }

    /// Reads a resource of a running server.
    pub async fn read_resource(
        &self,
        id: &ServerId,
        uri: &str,
    ) -> Result<TryOutcome, SupervisorError> {
        let session = self.servers.session(id)?;
        Ok(session.read_resource(uri, Watch::default()).await?)
    }

    /// Asks a running server to tell when a resource changes, or to stop;
    /// each change reaches the window as [`Change::ResourceUpdated`].
    pub async fn follow_resource(
        &self,
        id: &ServerId,
        uri: &str,
        follow: bool,
    ) -> Result<(), SupervisorError> {
        Ok(self
            .servers
            .session(id)?
            .follow_resource(uri, follow)
            .await?)
    }

    /// Gets a prompt of a running server, its arguments filled in.
    pub async fn get_prompt(
        &self,
        id: &ServerId,
        name: &str,
        arguments: BTreeMap<String, String>,
    ) -> Result<TryOutcome, SupervisorError> {
        let session = self.servers.session(id)?;
        let arguments = arguments
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        Ok(session
            .get_prompt(name, arguments, Watch::default())
            .await?)
    }

    /// Cancels call number `call`, if it is still running: the server is
    /// told, and the call ends as cancelled.
    pub fn cancel_call(&self, call: u32) {
        if let Some(cancel) = lock(&self.calls).remove(&call) {
            cancel.cancel();
        }
    }

    /// A new call's watch: its cancel handle kept under its number, its
    /// progress passed to the window.
    fn watch(&self, call: u32) -> Watch {
        let cancel = CancellationToken::new();
        lock(&self.calls).insert(call, cancel.clone());
        let (progress, mut reports) = mpsc::unbounded_channel::<Progress>();
        let changes = self.ground.changes.clone();
        tokio::spawn(async move {
            // Ends when the call drops its sender.
            while let Some(p) = reports.recv().await {
                let _ = changes.send(Change::CallProgress {
                    call,
                    progress: p.progress,
                    total: p.total,
                    message: p.message,
                });
            }
        });
        Watch {
            progress: Some(progress),
            cancel,
        }
    }
}
