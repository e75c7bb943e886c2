//! The bytes between Rootgate and a server: one writer task owns the
//! server's stdin and writes every frame to it in order, and a
//! `roots/list` answer is made there, just before it is written, from the
//! server's shared list as it is at that moment.
//!
//! Both kinds of session stand on this: Rootgate's own (rmcp reads the
//! server's output through `protocol::RootsTransport` and writes through a
//! [`LineQueue`]) and the bridge's relay (which passes an AI app's lines on
//! as frames). Answers are reported to the session actor as they are
//! written, so they are reported in the order the server reads them and the
//! last one written is always the newest list. This module knows no MCP
//! beyond the shape of a `roots/list` answer and of `list_changed`; it does
//! not read the server's output and decides nothing.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Buf;
use serde::Serialize;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::{CancellationToken, PollSender};

use rootgate_model::consent::{SharedRoot, SharedRoots};

/// How many frames (lines and answers) may wait for a session's writer.
/// When they are this many, the server is not read from until it has read
/// some of what it was sent: a server that asks without ever reading its
/// input is held at a few megabytes of waiting answers instead of growing
/// the queue without bound. The bound is high on purpose. A server that
/// reads and writes on one thread blocks on a full output pipe, and while
/// we do not read it, it does not read either; with a small bound, a burst
/// of a few thousand requests from a busy server locked both sides (the
/// roots-flood fault test found it at 256).
pub(crate) const QUEUE_FRAMES: usize = 65_536;

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

/// One piece of work for the [`Writer`], in the order the server will read
/// them.
pub enum Frame {
    /// Whole lines rmcp (or the transport) encoded.
    Lines(Vec<u8>),
    /// The answer to `roots/list` request `id` (its JSON text, `0` or
    /// `"a"`), made from the list as it is when the answer is written.
    Roots { id: Box<str> },
}

/// The writer rmcp is given: it passes each whole line on to the [`Writer`]
/// as a frame, so rmcp's messages and the transport's answers share one
/// ordered queue and never interleave. It waits only while the queue is
/// full (see [`QUEUE_FRAMES`]); a server that stops reading is the writer
/// task's to wait for, and the shutdown's to end.
pub(crate) struct LineQueue {
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
pub struct Writer<W> {
    out: W,
    roots: watch::Receiver<SharedRoots>,
    events: mpsc::UnboundedSender<HandlerEvent>,
    /// How many `roots/list` answers were written, counted before each is:
    /// a call that the server answers after asking has it counted already.
    answered: Arc<std::sync::atomic::AtomicU64>,
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
                    Some(frame) => closed.run_until_cancelled(self.write_queued(frame, &mut queue)).await,
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

    /// Writes `first` and whatever else is queued behind it right now, in
    /// order: consecutive lines go out together, in one write of up to
    /// [`BATCH_BYTES`], so a hundred requests in flight cost the server a
    /// few reads, not a hundred.
    async fn write_queued(
        &mut self,
        first: Frame,
        queue: &mut mpsc::Receiver<Frame>,
    ) -> io::Result<()> {
        let mut next = Some(first);
        while let Some(frame) = next.take() {
            match frame {
                Frame::Lines(mut lines) => {
                    while lines.len() < BATCH_BYTES {
                        match queue.try_recv() {
                            Ok(Frame::Lines(more)) => lines.extend_from_slice(&more),
                            Ok(other) => {
                                next = Some(other);
                                break;
                            }
                            Err(_) => break,
                        }
                    }
                    self.out.write_all(&lines).await?;
                }
                roots @ Frame::Roots { .. } => {
                    self.write(roots).await?;
                    next = queue.try_recv().ok();
                }
            }
        }
        self.out.flush().await
    }

    async fn write(&mut self, frame: Frame) -> io::Result<()> {
        match frame {
            Frame::Lines(lines) => self.out.write_all(&lines).await?,
            Frame::Roots { id } => {
                let snapshot = self.roots.borrow().clone();
                let result = self.result(&snapshot);
                self.answered
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                // The actor may already be gone during shutdown; nothing to report then.
                let _ = self.events.send(HandlerEvent::Answered {
                    request_id: display_id(&id),
                    generation: snapshot.generation(),
                    roots: snapshot.shared(),
                });
                // The id as the JSON text it came as, so the number 1 and
                // the string "1" stay apart.
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
pub(crate) fn answer_size(roots: &[SharedRoot]) -> usize {
    const ENVELOPE: usize = r#"{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}"#.len() + 8;
    const PER_ROOT: usize = r#"{"uri":"","name":""},"#.len();
    ENVELOPE
        + roots
            .iter()
            .map(|r| r.uri.len() + r.name.len() + PER_ROOT)
            .sum::<usize>()
}

/// The most bytes of queued lines gathered into one write.
const BATCH_BYTES: usize = 64 * 1024;

/// `notifications/roots/list_changed`, as a line.
pub(crate) const LIST_CHANGED: &[u8] =
    b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}\n";

/// The sending side of a server's wire: what the writer task takes, and
/// the token that stops it (closing the server's stdin).
#[derive(Clone)]
pub struct Wire {
    pub frames: mpsc::Sender<Frame>,
    pub closed: CancellationToken,
}

impl Wire {
    /// Starts the writer task over `out` (the server's stdin) with a queue
    /// of `frames` frames, answering `roots/list` from `roots` and reporting
    /// answers on `events`. Must be called inside a tokio runtime.
    pub fn start<W>(
        out: W,
        roots: watch::Receiver<SharedRoots>,
        events: mpsc::UnboundedSender<HandlerEvent>,
        answered: Arc<std::sync::atomic::AtomicU64>,
        frames: usize,
    ) -> Wire
    where
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let (tx, queue) = mpsc::channel(frames);
        let closed = CancellationToken::new();
        tokio::spawn(
            Writer {
                out,
                roots,
                events,
                answered,
                prepared: None,
            }
            .run(queue, closed.clone()),
        );
        Wire { frames: tx, closed }
    }

    /// A writer for rmcp that passes each whole line on as a frame.
    pub(crate) fn line_queue(&self) -> LineQueue {
        LineQueue {
            frames: PollSender::new(self.frames.clone()),
            partial: Vec::new(),
        }
    }

    /// Queues `notifications/roots/list_changed` from a task of its own: a
    /// server that stopped reading its input leaves the queue full, and the
    /// caller (the session actor) must not wait on it.
    pub fn notify_list_changed(&self) {
        let frames = self.frames.clone();
        tokio::spawn(async move {
            // A failed send means the connection is closing; the session
            // sees that from the process or the output.
            let _ = frames.send(Frame::Lines(LIST_CHANGED.to_vec())).await;
        });
    }

    /// Stops the writer: the server's stdin closes, even in the middle of a
    /// write to a server that stopped reading.
    pub fn close(&self) {
        self.closed.cancel();
    }
}

/// The id of a JSON-RPC request as a person reads it: a number as it is,
/// a string without its quotes.
pub fn display_id(json: &str) -> String {
    match serde_json::from_str::<String>(json) {
        Ok(text) => text,
        Err(_) => json.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_model::ids::RootId;
    use tokio::io::AsyncReadExt;

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
        Frame::Roots { id: id.into() }
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
                if let Some(next) = current.advance_for_tests(shared(list)) {
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
            answered: Arc::default(),
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
            answered: Arc::default(),
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
