//! The MCP side of a session: the client rmcp runs for one server, which
//! declares roots, answers `roots/list` from the server's shared list,
//! sends `notifications/roots/list_changed`, and passes the server's
//! `notifications/message` (logging) notifications on to the actor.
//!
//! This is the one module that touches rmcp's roots and logging API, which
//! rmcp marks deprecated because the 2026-07-28 revision deprecates both
//! (SEP-2577).
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
    reason = "roots and logging are deprecated by SEP-2577 but remain the way \
              legacy-era servers learn their folders and report what they did; \
              every use of the deprecated rmcp API is kept in this one module"
)]

use std::sync::Arc;

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestMethod, CreateMessageRequestParams,
    CreateMessageResult, ElicitRequestParams, ElicitResult, ElicitationCreateRequestMethod,
    ErrorData, Implementation, ListRootsResult, LoggingLevel, LoggingMessageNotificationParam,
    ProtocolVersion, Root, RootsCapabilities,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleClient, ServiceError};
use serde::Serialize;
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
    /// The server sent a `notifications/message` (logging) notification.
    Message(ServerMessage),
}

/// A `notifications/message` (logging) notification from a server, without
/// rmcp's types: what the session hands its subscribers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerMessage {
    /// The severity as the protocol spells it: "debug", "info", "notice",
    /// "warning", "error", "critical", "alert" or "emergency".
    pub level: &'static str,
    /// The logger name the server gave, if any.
    pub logger: Option<String>,
    /// The message's `data`, as the server sent it (any JSON value).
    pub data: serde_json::Value,
}

impl From<LoggingMessageNotificationParam> for ServerMessage {
    fn from(params: LoggingMessageNotificationParam) -> Self {
        let level = match params.level {
            LoggingLevel::Debug => "debug",
            LoggingLevel::Info => "info",
            LoggingLevel::Notice => "notice",
            LoggingLevel::Warning => "warning",
            LoggingLevel::Error => "error",
            LoggingLevel::Critical => "critical",
            LoggingLevel::Alert => "alert",
            LoggingLevel::Emergency => "emergency",
        };
        ServerMessage {
            level,
            logger: params.logger,
            data: params.data,
        }
    }
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

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // Passed on through the same channel as the answers, so a message a
        // server sends after receiving an answer reaches the actor after it.
        let _ = self.events.send(HandlerEvent::Message(params.into()));
    }
}

/// About how many bytes the `roots/list` answer for `roots` takes on the
/// wire (each root's URI and name plus the JSON around them; escaping may
/// add a little). A size hint, not a promise.
pub fn answer_size(roots: &[SharedRoot]) -> usize {
    const ENVELOPE: usize = r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}"#.len() + 8;
    const PER_ROOT: usize = r#"{"uri":"","name":""},"#.len();
    ENVELOPE
        + roots
            .iter()
            .map(|r| r.uri.len() + r.name.len() + PER_ROOT)
            .sum::<usize>()
}

/// Tells the server its roots changed.
pub async fn notify_list_changed(peer: &Peer<RoleClient>) -> Result<(), ServiceError> {
    peer.notify_roots_list_changed().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::RootId;

    #[test]
    fn the_answer_size_is_a_close_upper_estimate() {
        let roots: Vec<SharedRoot> = (0..1000)
            .map(|i| SharedRoot {
                root: RootId::generate(),
                uri: format!("file:///home/someone/projects/dir-{i:05}"),
                name: format!("dir-{i}"),
            })
            .collect();
        let answer = |roots: &[SharedRoot]| {
            let list: Vec<_> = roots
                .iter()
                .map(|r| serde_json::json!({"uri": r.uri, "name": r.name}))
                .collect();
            serde_json::json!({"jsonrpc": "2.0", "id": 12, "result": {"roots": list}})
                .to_string()
                .len()
        };
        for n in [0, 1, 1000] {
            let (estimate, actual) = (answer_size(&roots[..n]), answer(&roots[..n]));
            assert!(
                estimate >= actual && estimate <= actual + actual / 50 + 16,
                "{n} roots: estimated {estimate}, actual {actual}"
            );
        }
    }
}
