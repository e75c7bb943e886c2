//! The MCP side of Rootgate's own sessions: the client rmcp runs for one
//! server, which declares roots, has `roots/list` answered beneath it (on
//! the session's `wire`), and passes the server's `notifications/message`
//! (logging) notifications on to the actor.
//!
//! This is the one module that touches rmcp's roots and logging API, which
//! rmcp marks deprecated because the 2026-07-28 revision deprecates both
//! (SEP-2577), and its legacy `resources/subscribe` (`follow_resource`).
//! The handler also passes progress, lists changed and resources updated on
//! to whoever tries the server (`offers`).
//! The handler's protocol version is pinned to 2025-11-25 for the legacy
//! era, not left to rmcp's default, and set to 2026-07-28 with `roots: {}`
//! for a modern server (`RootsClient::modern`); which one a server gets is
//! the handshake's to settle (see `era`). The deprecation is expected in
//! this module alone.
//!
//! [`RootsTransport`] hands every `roots/list` to the wire's writer task,
//! beneath rmcp (see `wire`). Nothing here waits on the actor. This module
//! does not decide when to notify or restart (that is the actor), and does
//! not send `list_changed` (the wire does, as a line).
#![expect(
    deprecated,
    reason = "roots and logging are deprecated by SEP-2577 but remain the way \
              legacy-era servers learn their folders and report what they did; \
              every use of the deprecated rmcp API is kept in this one module"
)]

use std::io;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientJsonRpcMessage, CreateMessageRequestMethod,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationCreateRequestMethod, ErrorCode, ErrorData, Implementation, JsonRpcMessage,
    JsonRpcRequest, LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam,
    ProtocolVersion, RequestId, ResourceUpdatedNotificationParam, RootsCapabilities,
    ServerJsonRpcMessage, ServerRequest, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleClient};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{broadcast, mpsc, watch};

use super::notices::{Notice, OfferKind};
use super::wire::{Frame, HandlerEvent, LineQueue, QUEUE_FRAMES, ServerMessage, Wire};
use rootgate_model::consent::SharedRoots;

/// The protocol revision Rootgate asks for: the last one with `initialize`,
/// server-initiated `roots/list` and `list_changed`.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

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

/// The rmcp client handler of one session: it declares roots and handles
/// what the server sends other than `roots/list` (which [`RootsTransport`]
/// answers before rmcp sees it).
#[derive(Clone)]
pub struct RootsClient {
    roots: watch::Receiver<SharedRoots>,
    events: mpsc::UnboundedSender<HandlerEvent>,
    /// Progress, lists changed and resources updated, for whoever tries the
    /// server (see `offers`); not the actor's business, so not `events`.
    notices: broadcast::Sender<Notice>,
    /// How many `roots/list` the wire has answered (see `wire::Writer`).
    answered: Arc<AtomicU64>,
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
            notices: broadcast::Sender::new(1),
            answered: Arc::default(),
            info,
        }
    }

    /// The handler, its wire counting the `roots/list` it answers in
    /// `answered`.
    pub(crate) fn counting_answers(mut self, answered: Arc<AtomicU64>) -> Self {
        self.answered = answered;
        self
    }

    /// The handler, passing the server's notices to `notices`.
    pub(crate) fn with_notices(mut self, notices: broadcast::Sender<Notice>) -> Self {
        self.notices = notices;
        self
    }

    fn notice(&self, notice: Notice) {
        // Nobody trying the server is the usual case.
        let _ = self.notices.send(notice);
    }

    /// The handler for a modern-era server: the revision's roots capability
    /// is `roots: {}` (there is no `list_changed` to follow), and the
    /// protocol version is the modern one.
    pub fn modern(mut self) -> Self {
        let mut capabilities = ClientCapabilities::default();
        capabilities.roots = Some(RootsCapabilities::default());
        self.info = ClientConfig::new(capabilities, self.info.client_info.clone())
            .with_protocol_version(ProtocolVersion::V_2026_07_28);
        self
    }

    /// The transport to serve this handler on, and the wire beneath it:
    /// messages from the server are read from `read` (its stdout), and
    /// everything for it is written to `write` (its stdin) by the wire's
    /// writer task, spawned here (so this must be called inside a tokio
    /// runtime). Serve the handler on nothing else: `roots/list` is
    /// answered, and its answers reported, only here.
    pub fn transport<R, W>(&self, read: R, write: W) -> (RootsTransport<R>, Wire)
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.transport_queueing(read, write, QUEUE_FRAMES)
    }

    /// [`Self::transport`] with a queue of `frames` frames (tests use a
    /// small one).
    fn transport_queueing<R, W>(
        &self,
        read: R,
        write: W,
        frames: usize,
    ) -> (RootsTransport<R>, Wire)
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let wire = Wire::start(
            write,
            self.roots.clone(),
            self.events.clone(),
            Arc::clone(&self.answered),
            frames,
        );
        let transport = RootsTransport {
            inner: AsyncRwTransport::new_client(read, wire.line_queue()),
            client: self.clone(),
            wire: wire.clone(),
            pending: None,
            handshake_answered: false,
        };
        (transport, wire)
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

    // `list_roots` is not overridden: [`RootsTransport`] answers every
    // `roots/list` itself, so rmcp never calls it. Were the handler served
    // on another transport, rmcp's default (an empty list) would tell the
    // server nothing, which is the safe way to be wrong.

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

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notice(Notice::Progress(params));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.notice(Notice::ListChanged(OfferKind::Tools));
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.notice(Notice::ListChanged(OfferKind::Resources));
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.notice(Notice::ListChanged(OfferKind::Prompts));
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notice(Notice::ResourceUpdated { uri: params.uri });
    }
}

/// Asks a server to tell when a resource changes (`resources/subscribe`) or
/// to stop (`resources/unsubscribe`). rmcp marks both deprecated, as the
/// 2026-07-28 revision replaces them with listen streams; servers of the
/// earlier revisions, most of them, know only these.
pub async fn follow_resource(
    peer: &Peer<RoleClient>,
    uri: &str,
    follow: bool,
) -> Result<(), rmcp::service::ServiceError> {
    if follow {
        peer.subscribe(SubscribeRequestParams::new(uri)).await
    } else {
        peer.unsubscribe(UnsubscribeRequestParams::new(uri)).await
    }
}

/// A session's transport: rmcp's line-delimited stdio transport for reading,
/// with every `roots/list` answered here, and requests a server sends before
/// its `initialize` answer answered too.
///
/// `roots/list` is answered here, not by the handler, for two reasons. The
/// answer is queued in the order the request was read, and made as it is
/// written (see `wire::Writer`); rmcp would answer each request from a task of
/// its own, and its answers could reach the server in the other order. And
/// the list's encoding is kept from one answer to the next: through rmcp,
/// each answer copied every URI and name twice and encoded them anew.
///
/// rmcp's handshake waits for the `initialize` answer and drops every other
/// request but `ping`, so a server that asks for `roots/list` first would
/// never hear back, and one that waits for the answer before answering
/// `initialize` would hang the handshake until its timeout, which then blames
/// the wrong thing. The lifecycle says servers SHOULD NOT send such requests,
/// but JSON-RPC wants every request answered, so they are answered here:
/// `roots/list` as always, sampling and elicitation refused as the handler
/// refuses them, anything else "method not found". Pings are left to rmcp,
/// which answers them. From the first response on, requests other than
/// `roots/list` pass to rmcp untouched.
pub struct RootsTransport<R: AsyncRead> {
    inner: AsyncRwTransport<RoleClient, R, LineQueue>,
    client: RootsClient,
    wire: Wire,
    /// A `roots/list` answer read but not yet queued, because the queue was
    /// full. It is kept here, not in a local, because rmcp drops a
    /// `receive` in progress whenever it has something to send, and the
    /// answer must survive that.
    pending: Option<Frame>,
    handshake_answered: bool,
}

impl<R: AsyncRead> RootsTransport<R> {
    /// Puts the answer to `roots/list` request `id` in line for the queue.
    fn answer_roots(&mut self, id: RequestId) {
        // The id as JSON text, so the number 1 and the string "1" stay
        // apart. Encoding a number or a string cannot fail.
        let id = serde_json::to_string(&id).unwrap_or_default();
        self.pending = Some(Frame::Roots { id: id.into() });
    }

    /// Queues the answer put in line, waiting for room: until there is, the
    /// server is not read from. Safe to drop while waiting; the answer stays
    /// in line.
    async fn queue_pending(&mut self) {
        if self.pending.is_none() {
            return;
        }
        match self.wire.frames.reserve().await {
            Ok(permit) => {
                if let Some(frame) = self.pending.take() {
                    permit.send(frame);
                }
            }
            // The writer stopped: the server is gone or closed its input,
            // and nothing more reaches it.
            Err(_) => self.pending = None,
        }
    }

    /// The answer to a request other than `roots/list` or `ping` that came
    /// before the `initialize` answer.
    fn early_answer(&self, request: ServerRequest, id: RequestId) -> ClientJsonRpcMessage {
        let error = match request {
            ServerRequest::CreateMessageRequest(_) => {
                self.client.refuse("sampling/createMessage");
                ErrorData::method_not_found::<CreateMessageRequestMethod>()
            }
            ServerRequest::ElicitRequest(_) => {
                self.client.refuse("elicitation/create");
                ErrorData::method_not_found::<ElicitationCreateRequestMethod>()
            }
            ServerRequest::CustomRequest(custom) => {
                ErrorData::new(ErrorCode::METHOD_NOT_FOUND, custom.method, None)
            }
            // rmcp may add kinds of request, which this client would not
            // offer either.
            _ => ErrorData::new(ErrorCode::METHOD_NOT_FOUND, "method not found", None),
        };
        ClientJsonRpcMessage::error(error, Some(id))
    }
}

impl<R: AsyncRead> Drop for RootsTransport<R> {
    fn drop(&mut self) {
        // Dropped or closed, the transport stops the writer: the server's
        // stdin closes, even in the middle of a write to a server that
        // stopped reading.
        self.wire.close();
    }
}

impl<R> Transport<RoleClient> for RootsTransport<R>
where
    R: AsyncRead + Send + Unpin + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            self.queue_pending().await;
            let message = self.inner.receive().await?;
            match message {
                JsonRpcMessage::Request(JsonRpcRequest {
                    request: ServerRequest::ListRootsRequest(_),
                    id,
                    ..
                }) => self.answer_roots(id),
                JsonRpcMessage::Request(JsonRpcRequest { request, id, .. })
                    if !self.handshake_answered
                        && !matches!(request, ServerRequest::PingRequest(_)) =>
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

    async fn close(&mut self) -> Result<(), Self::Error> {
        let closed = self.inner.close().await;
        self.wire.close();
        closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_model::consent::SharedRoot;
    use rootgate_model::ids::RootId;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

    fn shared(names: &[&str]) -> Vec<SharedRoot> {
        names
            .iter()
            .map(|name| SharedRoot {
                root: RootId::generate(),
                uri: format!("file:///srv/{}", name.replace('"', "%22")),
                name: (*name).to_owned(),
            })
            .collect()
    }

    #[tokio::test(start_paused = true)]
    async fn a_server_that_does_not_read_is_not_read_from_without_bound() {
        const ASKED: usize = 2000;
        let (mut server_out, client_read) = tokio::io::duplex(4096);
        let (client_write, server_in) = tokio::io::duplex(4096);
        let (publish, roots) = watch::channel(SharedRoots::empty());
        publish.send_modify(|current| {
            if let Some(next) = current.advance_for_tests(shared(&["a"])) {
                *current = next;
            }
        });
        let (events_tx, _events) = mpsc::unbounded_channel();
        let client = RootsClient::new(roots, events_tx);
        // A small queue, so that the test needs few requests.
        let (mut transport, _wire) = client.transport_queueing(client_read, client_write, 64);
        let reading = tokio::spawn(async move {
            while transport.receive().await.is_some() {}
            // Kept open until the answers have been read: dropping it closes
            // the server's input, and what is still queued is dropped.
            transport
        });
        let asking = tokio::spawn(async move {
            for id in 0..ASKED {
                let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"roots/list"}}"#);
                server_out.write_all(line.as_bytes()).await.unwrap();
                server_out.write_all(b"\n").await.unwrap();
            }
        });
        // The server reads nothing yet. Time only moves on here once every
        // task is waiting, so this is the state the transport settles in.
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        assert!(
            !asking.is_finished(),
            "all {ASKED} requests were read while none of the answers were"
        );
        // Now the server reads: every request is answered, in order.
        let mut answers = tokio::io::BufReader::new(server_in).lines();
        let mut ids = Vec::new();
        while ids.len() < ASKED {
            let line = answers.next_line().await.unwrap().expect("an answer");
            let answer: serde_json::Value = serde_json::from_str(&line).unwrap();
            assert_eq!(answer["result"]["roots"][0]["name"], "a");
            ids.push(answer["id"].as_u64().unwrap() as usize);
        }
        assert_eq!(ids, (0..ASKED).collect::<Vec<_>>());
        asking.await.unwrap();
        drop(reading.await.unwrap());
    }
}
