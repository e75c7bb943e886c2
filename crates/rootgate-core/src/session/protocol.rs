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
//! [`RootsTransport`] answers every `roots/list` itself, beneath rmcp, and
//! one writer task owns the server's stdin: each answer is made from the
//! `watch` value as it is when the answer is written, and reported to the
//! session actor at that moment, so answers are reported in the order the
//! server reads them and the last one written is the newest list. Nothing
//! here waits on the actor. This module does not decide when to notify or
//! restart (that is the actor).
#![expect(
    deprecated,
    reason = "roots and logging are deprecated by SEP-2577 but remain the way \
              legacy-era servers learn their folders and report what they did; \
              every use of the deprecated rmcp API is kept in this one module"
)]

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Buf;
use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ClientJsonRpcMessage, CreateMessageRequestMethod,
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationCreateRequestMethod, ErrorCode, ErrorData, Implementation, JsonRpcMessage,
    JsonRpcRequest, LoggingLevel, LoggingMessageNotificationParam, ProtocolVersion, RequestId,
    RootsCapabilities, ServerJsonRpcMessage, ServerRequest,
};
use rmcp::service::{NotificationContext, Peer, RequestContext, RoleClient, ServiceError};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde::Serialize;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::{CancellationToken, PollSender};

use crate::consent::{SharedRoot, SharedRoots};

/// The protocol revision Rootgate asks for: the last one with `initialize`,
/// server-initiated `roots/list` and `list_changed`.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// How many frames (lines and answers) may wait for a session's writer.
/// When they are this many, the server is not read from until it has read
/// some of what it was sent: a server that asks without ever reading its
/// input is held at a few megabytes of waiting answers instead of growing
/// the queue without bound. The bound is high on purpose. A server that
/// reads and writes on one thread blocks on a full output pipe, and while
/// we do not read it, it does not read either; with a small bound, a burst
/// of a few thousand requests from a busy server locked both sides (the
/// roots-flood fault test found it at 256).
const QUEUE_FRAMES: usize = 65_536;

/// What the handler saw, for the actor to record and act on.
#[derive(Debug)]
pub enum HandlerEvent {
    /// The server asked `roots/list` and was answered with this list.
    /// Reported by the writer just before the answer is written, so answers
    /// are reported in the order the server receives them, and before
    /// anything the server sends in reply to one.
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

/// The rmcp client handler of one session: it declares roots and handles
/// what the server sends other than `roots/list` (which [`RootsTransport`]
/// answers before rmcp sees it).
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

    /// The transport to serve this handler on: messages from the server are
    /// read from `read` (its stdout), and everything for it is written to
    /// `write` (its stdin) by a task of its own, spawned here (so this must
    /// be called inside a tokio runtime). Serve the handler on nothing else:
    /// `roots/list` is answered, and its answers reported, only here.
    pub fn transport<R, W>(&self, read: R, write: W) -> RootsTransport<R>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        self.transport_queueing(read, write, QUEUE_FRAMES)
    }

    /// [`Self::transport`] with a queue of `frames` frames (tests use a
    /// small one).
    fn transport_queueing<R, W>(&self, read: R, write: W, frames: usize) -> RootsTransport<R>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (frames, queue) = mpsc::channel(frames);
        let closed = CancellationToken::new();
        tokio::spawn(
            Writer {
                out: write,
                roots: self.roots.clone(),
                events: self.events.clone(),
                prepared: None,
            }
            .run(queue, closed.clone()),
        );
        let lines = LineQueue {
            frames: PollSender::new(frames.clone()),
            partial: Vec::new(),
        };
        RootsTransport {
            inner: AsyncRwTransport::new_client(read, lines),
            client: self.clone(),
            frames,
            pending: None,
            closed,
            handshake_answered: false,
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
}

/// One piece of work for the [`Writer`], in the order the server will read
/// them.
enum Frame {
    /// Whole lines rmcp (or the transport) encoded.
    Lines(Vec<u8>),
    /// The answer to `roots/list` request `id`, made from the list as it is
    /// when the answer is written.
    Roots { id: RequestId },
}

/// The writer rmcp is given: it passes each whole line on to the [`Writer`]
/// as a frame, so rmcp's messages and the transport's answers share one
/// ordered queue and never interleave. It waits only while the queue is
/// full (see [`QUEUE_FRAMES`]); a server that stops reading is the writer
/// task's to wait for, and the shutdown's to end.
struct LineQueue {
    frames: PollSender<Frame>,
    /// The start of a line rmcp has not finished writing.
    partial: Vec<u8>,
}

impl AsyncWrite for LineQueue {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        // Room is reserved before any byte is taken, so a write that has to
        // wait has taken nothing and can be repeated as it is.
        if std::task::ready!(this.frames.poll_reserve(cx)).is_err() {
            return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
        }
        this.partial.extend_from_slice(buf);
        match memchr::memrchr(b'\n', &this.partial) {
            Some(end) => {
                let rest = this.partial.split_off(end + 1);
                let lines = std::mem::replace(&mut this.partial, rest);
                if this.frames.send_item(Frame::Lines(lines)).is_err() {
                    return Poll::Ready(Err(io::ErrorKind::BrokenPipe.into()));
                }
            }
            None => {
                this.frames.abort_send();
            }
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// The task that owns the server's stdin and writes every frame to it, in
/// order. A `roots/list` answer is made here, just before it is written,
/// from the list as it is then, and reported to the actor at that moment:
/// so answers are reported in the order the server reads them, and the last
/// answer written is always the newest list.
struct Writer<W> {
    out: W,
    roots: watch::Receiver<SharedRoots>,
    events: mpsc::UnboundedSender<HandlerEvent>,
    /// The last list's answer, encoded once: a server may ask many times
    /// between changes, and 10,000 roots take about 1 ms to encode.
    prepared: Option<Prepared>,
}

/// The `result` of a `roots/list` answer for one generation of the list.
struct Prepared {
    generation: u64,
    result: Arc<[u8]>,
}

/// A `roots/list` result as the protocol spells it, borrowing the list.
#[derive(Serialize)]
struct ResultBody<'a> {
    roots: Vec<RootBody<'a>>,
}

#[derive(Serialize)]
struct RootBody<'a> {
    uri: &'a str,
    name: &'a str,
}

impl<W: AsyncWrite + Unpin> Writer<W> {
    async fn run(mut self, mut queue: mpsc::Receiver<Frame>, closed: CancellationToken) {
        loop {
            let written = tokio::select! {
                // Closing stdin is the server's signal to end; what is still
                // queued then is not for it to read.
                _ = closed.cancelled() => break,
                frame = queue.recv() => match frame {
                    Some(frame) => closed.run_until_cancelled(self.write(frame)).await,
                    None => break,
                },
            };
            match written {
                Some(Ok(())) => {}
                // The server is gone or has closed its input: drop what is
                // queued, and let rmcp's next write fail.
                Some(Err(_)) | None => break,
            }
        }
        // Dropping `self.out` here closes the server's stdin.
    }

    async fn write(&mut self, frame: Frame) -> io::Result<()> {
        match frame {
            Frame::Lines(lines) => self.out.write_all(&lines).await?,
            Frame::Roots { id } => {
                let snapshot = self.roots.borrow().clone();
                let result = self.result(&snapshot);
                // The actor may already be gone during shutdown; nothing to report then.
                let _ = self.events.send(HandlerEvent::Answered {
                    request_id: id.to_string(),
                    generation: snapshot.generation(),
                    roots: snapshot.shared(),
                });
                // The id as JSON text, so the number 1 and the string "1"
                // stay apart. Encoding a number or a string cannot fail.
                let id = serde_json::to_string(&id).unwrap_or_default();
                let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#);
                // One write (`writev`) for the whole line when the pipe has
                // room: a server woken by each piece would read the line in
                // three goes, which costs a Python server more than the
                // answer itself.
                let mut line = head.as_bytes().chain(&result[..]).chain(&b"}\n"[..]);
                self.out.write_all_buf(&mut line).await?;
            }
        }
        self.out.flush().await
    }

    /// The encoded `result` for `snapshot`, made once per generation.
    fn result(&mut self, snapshot: &SharedRoots) -> Arc<[u8]> {
        match &self.prepared {
            Some(p) if p.generation == snapshot.generation() => Arc::clone(&p.result),
            _ => {
                let body = ResultBody {
                    roots: snapshot
                        .roots()
                        .iter()
                        .map(|r| RootBody {
                            uri: &r.uri,
                            name: &r.name,
                        })
                        .collect(),
                };
                // Strings and arrays of them always encode.
                let result: Arc<[u8]> = serde_json::to_vec(&body).unwrap_or_default().into();
                self.prepared = Some(Prepared {
                    generation: snapshot.generation(),
                    result: Arc::clone(&result),
                });
                result
            }
        }
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

/// A session's transport: rmcp's line-delimited stdio transport for reading,
/// with every `roots/list` answered here, and requests a server sends before
/// its `initialize` answer answered too.
///
/// `roots/list` is answered here, not by the handler, for two reasons. The
/// answer is queued in the order the request was read, and made as it is
/// written (see [`Writer`]); rmcp would answer each request from a task of
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
    frames: mpsc::Sender<Frame>,
    /// A `roots/list` answer read but not yet queued, because the queue was
    /// full. It is kept here, not in a local, because rmcp drops a
    /// `receive` in progress whenever it has something to send, and the
    /// answer must survive that.
    pending: Option<Frame>,
    /// Cancelled when the transport closes or is dropped: the writer then
    /// stops, and the server's stdin closes, even in the middle of a write
    /// to a server that stopped reading.
    closed: CancellationToken,
    handshake_answered: bool,
}

impl<R: AsyncRead> RootsTransport<R> {
    /// Puts the answer to `roots/list` request `id` in line for the queue.
    fn answer_roots(&mut self, id: RequestId) {
        self.pending = Some(Frame::Roots { id });
    }

    /// Queues the answer put in line, waiting for room: until there is, the
    /// server is not read from. Safe to drop while waiting; the answer stays
    /// in line.
    async fn queue_pending(&mut self) {
        if self.pending.is_none() {
            return;
        }
        match self.frames.reserve().await {
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
        self.closed.cancel();
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
        self.closed.cancel();
        closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::RootId;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};

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

    /// The frame answering request `id`, given as JSON text.
    fn roots_frame(id: &str) -> Frame {
        Frame::Roots {
            id: serde_json::from_str(id).unwrap(),
        }
    }

    /// Runs a writer over `frames` into a trickling writer, publishing the
    /// lists in `lists` (one per generation) before it starts, and returns
    /// what it wrote and the generations it reported.
    async fn write_all(
        frames: Vec<Frame>,
        lists: &[&[&str]],
        chunk: usize,
    ) -> (Vec<serde_json::Value>, Vec<u64>) {
        let (publish, roots) = watch::channel(SharedRoots::empty());
        for list in lists {
            publish.send_modify(|current| {
                if let Some(next) = current.advance(shared(list)) {
                    *current = next;
                }
            });
        }
        let (events_tx, mut events) = mpsc::unbounded_channel();
        let (queue_tx, mut queue) = mpsc::unbounded_channel();
        for frame in frames {
            queue_tx.send(frame).unwrap();
        }
        drop(queue_tx);
        let mut writer = Writer {
            out: Trickle {
                chunk,
                bytes: Vec::new(),
            },
            roots,
            events: events_tx,
            prepared: None,
        };
        while let Ok(frame) = queue.try_recv() {
            writer.write(frame).await.unwrap();
        }
        let lines = writer
            .out
            .bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        let reported = std::iter::from_fn(|| events.try_recv().ok())
            .map(|e| match e {
                HandlerEvent::Answered { generation, .. } => generation,
                other => panic!("{other:?}"),
            })
            .collect();
        (lines, reported)
    }

    #[tokio::test]
    async fn an_answer_is_made_from_the_list_as_it_is_when_written() {
        // Both requests were queued while the list was older; each answer
        // carries the list of the moment it goes out, and the ids keep
        // their JSON types.
        let frames = vec![roots_frame("1"), roots_frame("\"1\"")];
        let (lines, reported) = write_all(frames, &[&["old"], &["new", "other"]], 7).await;
        assert_eq!(reported, [2, 2]);
        assert_eq!(lines[0]["id"], 1);
        assert_eq!(lines[1]["id"], "1");
        for line in &lines {
            assert_eq!(line["jsonrpc"], "2.0");
            assert_eq!(
                line["result"],
                serde_json::json!({"roots": [
                    {"uri": "file:///srv/new", "name": "new"},
                    {"uri": "file:///srv/other", "name": "other"},
                ]})
            );
        }
    }

    #[tokio::test]
    async fn lines_and_answers_go_out_in_the_order_they_were_queued() {
        let frames = vec![
            Frame::Lines(b"{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\n".to_vec()),
            roots_frame("7"),
            Frame::Lines(
                b"{\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"c\"}\n"
                    .to_vec(),
            ),
            roots_frame("8"),
        ];
        let (lines, reported) = write_all(frames, &[&["a \"quoted\" \u{202e} name"]], 1).await;
        assert_eq!(reported, [1, 1]);
        let order: Vec<String> = lines
            .iter()
            .map(|l| match l.get("method") {
                Some(m) => m.as_str().unwrap().to_owned(),
                None => format!("answer {}", l["id"]),
            })
            .collect();
        assert_eq!(order, ["a", "answer 7", "b", "c", "answer 8"]);
        assert_eq!(
            lines[1]["result"]["roots"][0]["name"],
            "a \"quoted\" \u{202e} name"
        );
    }

    #[tokio::test]
    async fn the_line_queue_passes_on_whole_lines_only() {
        let (frames, mut queue) = mpsc::channel(8);
        let mut lines = LineQueue {
            frames: PollSender::new(frames),
            partial: Vec::new(),
        };
        lines.write_all(b"{\"a\":1}\n{\"b\"").await.unwrap();
        lines.write_all(b":2}\n").await.unwrap();
        let mut got = Vec::new();
        while let Ok(Frame::Lines(bytes)) = queue.try_recv() {
            got.push(String::from_utf8(bytes).unwrap());
        }
        assert_eq!(got, ["{\"a\":1}\n", "{\"b\":2}\n"]);
        drop(queue);
        assert!(
            lines.write_all(b"{}\n").await.is_err(),
            "the writer is gone"
        );
    }

    #[tokio::test]
    async fn closing_ends_a_write_to_a_server_that_stopped_reading() {
        // A pipe of 64 bytes that nobody reads: the first big write blocks.
        let (client_end, mut server_end) = tokio::io::duplex(64);
        let (events_tx, _events) = mpsc::unbounded_channel();
        let (queue_tx, queue) = mpsc::channel(4);
        let closed = CancellationToken::new();
        let writer = Writer {
            out: client_end,
            roots: watch::channel(SharedRoots::empty()).1,
            events: events_tx,
            prepared: None,
        };
        let task = tokio::spawn(writer.run(queue, closed.clone()));
        queue_tx.send(Frame::Lines(vec![b'x'; 4096])).await.unwrap();
        tokio::task::yield_now().await;
        assert!(!task.is_finished());
        closed.cancel();
        tokio::time::timeout(std::time::Duration::from_secs(5), task)
            .await
            .expect("the writer did not stop")
            .unwrap();
        // The writer dropped its end: the server reads what got through,
        // then the end of its input.
        let mut seen = Vec::new();
        server_end.read_to_end(&mut seen).await.unwrap();
        assert_eq!(seen.len(), 64);
    }

    #[tokio::test(start_paused = true)]
    async fn a_server_that_does_not_read_is_not_read_from_without_bound() {
        const ASKED: usize = 2000;
        let (mut server_out, client_read) = tokio::io::duplex(4096);
        let (client_write, server_in) = tokio::io::duplex(4096);
        let (publish, roots) = watch::channel(SharedRoots::empty());
        publish.send_modify(|current| {
            if let Some(next) = current.advance(shared(&["a"])) {
                *current = next;
            }
        });
        let (events_tx, _events) = mpsc::unbounded_channel();
        let client = RootsClient::new(roots, events_tx);
        // A small queue, so that the test needs few requests.
        let mut transport = client.transport_queueing(client_read, client_write, 64);
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
