//! The MCP side of a session: the client rmcp runs for one server, which
//! declares roots, answers `roots/list` from the server's shared list, and
//! sends `notifications/roots/list_changed`.
//!
//! This is the one module that touches rmcp's roots API, which rmcp marks
//! deprecated because the 2026-07-28 revision deprecates roots (SEP-2577).
//! Rootgate speaks the legacy lifecycle on purpose: almost every server in
//! the wild does, and roots stay in force until at least mid-2027. So the
//! protocol version is pinned to 2025-11-25 here, not left to rmcp's default
//! (the modern, stateless revision), and the deprecation is expected in this
//! module alone.
//!
//! The handler never waits on anything: it answers from the `watch` value as
//! it is at that moment and reports what it answered to the session actor.
//! It does not decide when to notify or restart (that is the actor).
#![expect(
    deprecated,
    reason = "roots are deprecated by SEP-2577 but remain the way legacy-era \
              servers learn their folders; every use of the deprecated rmcp API \
              is kept in this one module"
)]

use std::sync::Arc;

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestMethod, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationCreateRequestMethod,
    ErrorData, Implementation, ListRootsResult, ProtocolVersion, Root, RootsCapabilities,
};
use rmcp::service::{Peer, RequestContext, RoleClient, ServiceError};
use tokio::sync::{mpsc, watch};

use crate::consent::{SharedRoot, SharedRoots};

/// The protocol revision Rootgate asks for: the last one with `initialize`,
/// server-initiated `roots/list` and `list_changed`.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// What the handler saw, for the actor to record and act on.
#[derive(Debug)]
pub enum HandlerEvent {
    /// The server asked `roots/list` and was answered with this list.
    Answered {
        request_id: String,
        generation: u64,
        roots: Arc<[SharedRoot]>,
    },
    /// The server sent a request this client does not offer; it got the
    /// JSON-RPC "method not found" error.
    Refused { method: &'static str },
}

/// The rmcp client handler of one session.
pub struct RootsClient {
    roots: watch::Receiver<SharedRoots>,
    events: mpsc::UnboundedSender<HandlerEvent>,
    info: ClientConfig,
}

impl RootsClient {
    pub fn new(
        roots: watch::Receiver<SharedRoots>,
        events: mpsc::UnboundedSender<HandlerEvent>,
    ) -> Self {
        let mut roots_capability = RootsCapabilities::default();
        roots_capability.list_changed = Some(true);
        let mut capabilities = ClientCapabilities::default();
        capabilities.roots = Some(roots_capability);
        let info = ClientConfig::new(
            capabilities,
            Implementation::new("rootgate", env!("CARGO_PKG_VERSION")).with_title("Rootgate"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25);
        RootsClient {
            roots,
            events,
            info,
        }
    }

    fn refuse(&self, method: &'static str) {
        // The actor may already be gone during shutdown; nothing to report then.
        let _ = self.events.send(HandlerEvent::Refused { method });
    }
}

impl ClientHandler for RootsClient {
    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let snapshot = self.roots.borrow().clone();
        let roots = snapshot
            .roots()
            .iter()
            .map(|r| Root::new(r.uri.clone()).with_name(r.name.clone()))
            .collect();
        let _ = self.events.send(HandlerEvent::Answered {
            request_id: context.id.to_string(),
            generation: snapshot.generation(),
            roots: snapshot.shared(),
        });
        Ok(ListRootsResult::new(roots))
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.refuse("sampling/createMessage");
        Err(ErrorData::method_not_found::<CreateMessageRequestMethod>())
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        // rmcp's default declines politely, as if a person had said no; no
        // person was asked, so the honest answer is that we do not offer it.
        self.refuse("elicitation/create");
        Err(ErrorData::method_not_found::<ElicitationCreateRequestMethod>())
    }
}

/// Tells the server its roots changed.
pub async fn notify_list_changed(peer: &Peer<RoleClient>) -> Result<(), ServiceError> {
    peer.notify_roots_list_changed().await
}
