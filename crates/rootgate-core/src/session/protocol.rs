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
//!
//! [`EarlyAnswers`] wraps the stdio transport to answer the requests a server
//! sends before its `initialize` answer, which rmcp's handshake would drop.
#![expect(
    deprecated,
    reason = "roots and logging are deprecated by SEP-2577 but remain the way \
              legacy-era servers learn their folders and report what they did; \
              every use of the deprecated rmcp API is kept in this one module"
)]

use std::sync::Arc;

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientJsonRpcMessage, ClientResult,
    CreateMessageRequestMethod, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationCreateRequestMethod, ErrorCode, ErrorData,
    Implementation, JsonRpcMessage, JsonRpcRequest, ListRootsResult, LoggingLevel,
    LoggingMessageNotificationParam, ProtocolVersion, Root, RootsCapabilities,
    ServerJsonRpcMessage, ServerRequest,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleClient, ServiceError};
use rmcp::transport::Transport;
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
#[derive(Clone)]
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

    /// The shared list as it is now, as a `roots/list` result, reported to
    /// the actor as the answer to `request_id`.
    fn answer(&self, request_id: String) -> ListRootsResult {
        let snapshot = self.roots.borrow().clone();
        let roots = snapshot
            .roots()
            .iter()
            .map(|r| Root::new(r.uri.clone()).with_name(r.name.clone()))
            .collect();
        let _ = self.events.send(HandlerEvent::Answered {
            request_id,
            generation: snapshot.generation(),
            roots: snapshot.shared(),
        });
        ListRootsResult::new(roots)
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
        Ok(self.answer(context.id.to_string()))
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

/// Tells the server its roots changed.
pub async fn notify_list_changed(peer: &Peer<RoleClient>) -> Result<(), ServiceError> {
    peer.notify_roots_list_changed().await
}

/// A session's transport that answers the requests a server sends before
/// its `initialize` answer.
///
/// rmcp's handshake waits for that answer and drops every other request but
/// `ping`, so a server that asks for `roots/list` first never hears back, and
/// one that waits for the answer before answering `initialize` hangs the
/// handshake until its timeout, which then blames the wrong thing. The
/// lifecycle says servers SHOULD NOT send such requests, but JSON-RPC wants
/// every request answered, so they are answered here: `roots/list` with the
/// server's shared list (what the handler would give a moment later, and
/// reported to the actor the same way), sampling and elicitation refused as
/// the handler refuses them, anything else "method not found". Pings are left
/// to rmcp, which answers them. From the first response on, every message
/// passes through untouched.
pub struct EarlyAnswers<T> {
    inner: T,
    client: RootsClient,
    handshake_answered: bool,
}

impl<T> EarlyAnswers<T> {
    pub fn new(inner: T, client: RootsClient) -> Self {
        EarlyAnswers {
            inner,
            client,
            handshake_answered: false,
        }
    }

    /// The answer to a request that came before the `initialize` answer.
    fn early_answer(
        &self,
        request: ServerRequest,
        id: rmcp::model::RequestId,
    ) -> ClientJsonRpcMessage {
        match request {
            ServerRequest::ListRootsRequest(_) => ClientJsonRpcMessage::response(
                ClientResult::ListRootsResult(self.client.answer(id.to_string())),
                id,
            ),
            ServerRequest::CreateMessageRequest(_) => {
                self.client.refuse("sampling/createMessage");
                ClientJsonRpcMessage::error(
                    ErrorData::method_not_found::<CreateMessageRequestMethod>(),
                    Some(id),
                )
            }
            ServerRequest::ElicitRequest(_) => {
                self.client.refuse("elicitation/create");
                ClientJsonRpcMessage::error(
                    ErrorData::method_not_found::<ElicitationCreateRequestMethod>(),
                    Some(id),
                )
            }
            ServerRequest::CustomRequest(custom) => ClientJsonRpcMessage::error(
                ErrorData::new(ErrorCode::METHOD_NOT_FOUND, custom.method, None),
                Some(id),
            ),
            // Pings never come here (rmcp answers them); rmcp may add kinds
            // of request, which this client would not offer either.
            _ => ClientJsonRpcMessage::error(
                ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "method not found", None),
                Some(id),
            ),
        }
    }
}

impl<T> Transport<RoleClient> for EarlyAnswers<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            let message = self.inner.receive().await?;
            if self.handshake_answered {
                return Some(message);
            }
            match message {
                JsonRpcMessage::Request(JsonRpcRequest { request, id, .. })
                    if !matches!(request, ServerRequest::PingRequest(_)) =>
                {
                    let answer = self.early_answer(request, id);
                    // A failed send means the server is gone; the next
                    // receive sees its output end.
                    let _ = self.inner.send(answer).await;
                }
                other => {
                    if matches!(
                        other,
                        JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_)
                    ) {
                        self.handshake_answered = true;
                    }
                    return Some(other);
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
