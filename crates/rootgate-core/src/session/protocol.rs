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
//! it is at that moment. What it answered is reported to the session actor
//! by [`AnswerTap`], the writer to the server's stdin, as each answer goes
//! out, in the order the server will read them: rmcp handles requests
//! concurrently and writes their responses from tasks of their own, so two
//! answers can reach the server in the other order than they were made (an
//! older list last, and the server left with it). This module does not
//! decide when to notify or restart (that is the actor).
//!
//! [`EarlyAnswers`] wraps the stdio transport to answer the requests a server
//! sends before its `initialize` answer, which rmcp's handshake would drop.
#![expect(
    deprecated,
    reason = "roots and logging are deprecated by SEP-2577 but remain the way \
              legacy-era servers learn their folders and report what they did; \
              every use of the deprecated rmcp API is kept in this one module"
)]

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

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
use tokio::io::AsyncWrite;
use tokio::sync::{mpsc, watch};

use crate::consent::{SharedRoot, SharedRoots};

/// The protocol revision Rootgate asks for: the last one with `initialize`,
/// server-initiated `roots/list` and `list_changed`.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// What the handler saw, for the actor to record and act on.
#[derive(Debug)]
pub enum HandlerEvent {
    /// The server asked `roots/list` and was answered with this list.
    /// Reported by [`AnswerTap`] just before the answer is written, so
    /// answers are reported in the order the server receives them, and
    /// before anything the server sends in reply to one.
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

/// An answer the handler made and [`AnswerTap`] has not yet seen go out.
#[derive(Debug)]
struct Unwritten {
    request_id: String,
    generation: u64,
    roots: Arc<[SharedRoot]>,
}

/// Answers made and not yet written, by the request id as JSON text (so
/// the number 1 and the string "1" stay apart). An answer rmcp drops (its
/// request was cancelled) stays here until the connection ends.
#[derive(Debug, Clone, Default)]
struct Outgoing(Arc<Mutex<HashMap<String, Unwritten>>>);

impl Outgoing {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Unwritten>> {
        // Entries are inserted and removed whole; a poisoned map is intact.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The rmcp client handler of one session.
#[derive(Clone)]
pub struct RootsClient {
    roots: watch::Receiver<SharedRoots>,
    events: mpsc::UnboundedSender<HandlerEvent>,
    info: ClientConfig,
    outgoing: Outgoing,
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
            outgoing: Outgoing::default(),
        }
    }

    /// Wraps the writer to the server (its stdin) so that this handler's
    /// answers are reported as they are written. Give rmcp the tapped
    /// writer; answers written through any other are never reported.
    pub fn tap<W: AsyncWrite + Unpin>(&self, writer: W) -> AnswerTap<W> {
        AnswerTap {
            inner: writer,
            outgoing: self.outgoing.clone(),
            events: self.events.clone(),
            written: 0,
            scanned_to: 0,
            line_start: true,
        }
    }

    fn refuse(&self, method: &'static str) {
        // The actor may already be gone during shutdown; nothing to report then.
        let _ = self.events.send(HandlerEvent::Refused { method });
    }

    /// The shared list as it is now, as a `roots/list` result for request
    /// `id`. It is reported to the actor by [`AnswerTap`] when it is written.
    fn answer(&self, id: &rmcp::model::RequestId) -> ListRootsResult {
        let snapshot = self.roots.borrow().clone();
        let roots = snapshot
            .roots()
            .iter()
            .map(|r| Root::new(r.uri.clone()).with_name(r.name.clone()))
            .collect();
        // Encoding a request id (a number or a string) cannot fail.
        let key = serde_json::to_string(id).unwrap_or_default();
        self.outgoing.lock().insert(
            key,
            Unwritten {
                request_id: id.to_string(),
                generation: snapshot.generation(),
                roots: snapshot.shared(),
            },
        );
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
        Ok(self.answer(&context.id))
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

/// How rmcp (pinned) begins every response line it writes.
const RESPONSE_HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;

/// The writer to a server's stdin, reporting each `roots/list` answer of its
/// [`RootsClient`] just before the answer's first byte is written.
///
/// rmcp writes one newline-terminated JSON message at a time, under a lock,
/// so the order in which lines begin here is the order the server reads
/// them. A line that begins a response to a request the handler answered is
/// that answer. A write may take only part of what it is offered; the rest
/// is offered again, so the tap remembers how far it has looked.
pub struct AnswerTap<W> {
    inner: W,
    outgoing: Outgoing,
    events: mpsc::UnboundedSender<HandlerEvent>,
    /// Bytes written so far.
    written: u64,
    /// Bytes (counted like `written`) already looked at for line starts.
    scanned_to: u64,
    /// True when the last byte written ended a line (or none was written).
    line_start: bool,
}

impl<W> AnswerTap<W> {
    /// Reports every answer that begins in `buf` and was not reported yet.
    fn announce_lines_in(&mut self, buf: &[u8]) {
        let seen = usize::try_from(self.scanned_to - self.written)
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let mut at = seen;
        let starts_line = |at: usize| {
            if at == 0 {
                self.line_start
            } else {
                buf[at - 1] == b'\n'
            }
        };
        if at < buf.len() && starts_line(at) {
            self.announce(&buf[at..]);
        }
        while let Some(newline) = buf[at..].iter().position(|b| *b == b'\n') {
            at += newline + 1;
            if at < buf.len() {
                self.announce(&buf[at..]);
            }
        }
        self.scanned_to = self.written + buf.len() as u64;
    }

    /// Reports the answer `line` begins, if it is one of the handler's.
    fn announce(&self, line: &[u8]) {
        let Some(rest) = line.strip_prefix(RESPONSE_HEAD) else {
            return;
        };
        // Only the id and what follows it are read. A request of ours
        // begins the same way, with an id from our own count, and so does
        // the answer to another request of the server's that reuses the id
        // (a ping, say, while rmcp drops the roots answer it replaced): the
        // roots answer alone goes on with `"result":{"roots":`. The line was
        // offered whole when its write began.
        let mut values =
            serde_json::Deserializer::from_slice(rest).into_iter::<serde_json::Value>();
        let Some(Ok(id)) = values.next() else {
            return;
        };
        if !rest[values.byte_offset()..].starts_with(br#","result":{"roots":"#) {
            return;
        }
        let Some(answer) = self.outgoing.lock().remove(&id.to_string()) else {
            return;
        };
        // The actor may already be gone during shutdown; nothing to report then.
        let _ = self.events.send(HandlerEvent::Answered {
            request_id: answer.request_id,
            generation: answer.generation,
            roots: answer.roots,
        });
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for AnswerTap<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        this.announce_lines_in(buf);
        let result = Pin::new(&mut this.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = result
            && n > 0
        {
            this.line_start = buf[n - 1] == b'\n';
            this.written += n as u64;
        }
        result
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
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
                ClientResult::ListRootsResult(self.client.answer(&id)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::RootId;
    use tokio::io::AsyncWriteExt;

    /// A writer that takes at most `chunk` bytes per write, as a full pipe
    /// does.
    struct Trickle {
        chunk: usize,
        bytes: Vec<u8>,
    }

    impl AsyncWrite for Trickle {
        fn poll_write(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            let this = self.get_mut();
            let n = buf.len().min(this.chunk);
            this.bytes.extend_from_slice(&buf[..n]);
            Poll::Ready(Ok(n))
        }

        fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    /// A tap on a trickling writer, with unwritten answers of generations
    /// 10, 11 and 12 to requests 1, "1" and 7.
    fn tapped(chunk: usize) -> (AnswerTap<Trickle>, mpsc::UnboundedReceiver<HandlerEvent>) {
        let (events_tx, events) = mpsc::unbounded_channel();
        let client = RootsClient::new(watch::channel(SharedRoots::empty()).1, events_tx);
        for (key, generation) in [("1", 10), ("\"1\"", 11), ("7", 12)] {
            client.outgoing.lock().insert(
                key.to_owned(),
                Unwritten {
                    request_id: key.to_owned(),
                    generation,
                    roots: Arc::from([]),
                },
            );
        }
        let tap = client.tap(Trickle {
            chunk,
            bytes: Vec::new(),
        });
        (tap, events)
    }

    const LINES: [&str; 5] = [
        r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
        // Our own request with id 1 is not the answer to the server's 1.
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
        r#"{"jsonrpc":"2.0","id":7,"result":{"roots":[{"uri":"file:///a","name":"a"}]}}"#,
        r#"{"jsonrpc":"2.0","id":"1","result":{"roots":[]}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}"#,
    ];

    fn reported(events: &mut mpsc::UnboundedReceiver<HandlerEvent>) -> Vec<u64> {
        std::iter::from_fn(|| events.try_recv().ok())
            .map(|e| match e {
                HandlerEvent::Answered { generation, .. } => generation,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[tokio::test]
    async fn answers_are_reported_once_in_the_order_they_are_written() {
        let all: String = LINES.iter().map(|l| format!("{l}\n")).collect();
        for chunk in [1, 7, 64, 4096] {
            // Line by line, as rmcp writes, and all at once.
            let (mut tap, mut events) = tapped(chunk);
            for line in LINES {
                tap.write_all(format!("{line}\n").as_bytes()).await.unwrap();
            }
            assert_eq!(reported(&mut events), [12, 11, 10], "chunk {chunk}");
            assert_eq!(tap.inner.bytes, all.as_bytes());

            let (mut tap, mut events) = tapped(chunk);
            tap.write_all(all.as_bytes()).await.unwrap();
            assert_eq!(reported(&mut events), [12, 11, 10], "chunk {chunk}");
            assert_eq!(tap.inner.bytes, all.as_bytes());
        }
    }

    #[tokio::test]
    async fn an_answer_is_reported_before_its_first_byte_is_written() {
        let (mut tap, mut events) = tapped(3);
        let line = format!("{}\n", LINES[2]);
        // One write call: the tap has seen the line; the pipe took 3 bytes.
        let n = std::future::poll_fn(|cx| Pin::new(&mut tap).poll_write(cx, line.as_bytes()))
            .await
            .unwrap();
        assert_eq!(n, 3);
        assert_eq!(reported(&mut events), [12]);
        tap.write_all(&line.as_bytes()[n..]).await.unwrap();
        assert_eq!(reported(&mut events), Vec::<u64>::new());
    }

    #[tokio::test]
    async fn another_answer_with_the_same_id_is_not_the_roots_answer() {
        // The server sent a ping with id 7 while its roots/list 7 was in
        // flight, and rmcp wrote only the ping's answer: nothing was told.
        // Found by the session fuzzer.
        let (mut tap, mut events) = tapped(4096);
        let ping = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n";
        tap.write_all(ping.as_bytes()).await.unwrap();
        assert_eq!(reported(&mut events), Vec::<u64>::new());
        tap.write_all(format!("{}\n", LINES[2]).as_bytes())
            .await
            .unwrap();
        assert_eq!(reported(&mut events), [12]);
    }

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
