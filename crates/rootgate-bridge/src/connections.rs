//! Live connections of AI apps through bridges, as the window sees them.
//!
//! Each `rootgate connect` process reports to the window over a Unix
//! socket private to the user: the socket sits in a folder of mode 0700 in
//! `$XDG_RUNTIME_DIR` (or `/tmp/rootgate-UID`), is itself 0600, and every
//! peer's uid is checked on both sides. A bridge says who the app is,
//! which server it reaches, what happened on the connection (its timeline:
//! calls, what the server was told about roots, restarts), and the folders
//! the app itself works in. Nothing a bridge sends can change consent: the
//! window shows reports and turns the app's folders into consent prompts,
//! which only the person answers. A bridge started before the window
//! waits for the socket and reports everything it kept when the window
//! opens; a window that goes away costs the bridge nothing.
//!
//! This module holds the window's listener and registry ([`Connections`]);
//! the report format ([`Report`]) and the other words on the socket are
//! `words`, re-exported here. Where the socket is and the
//! checks of its folder and peers are `window_socket` (re-exported here);
//! the bridge's side is `bridge::link`.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::broadcast;

use rootgate_model::ids::{ConnectionId, ServerId, now_ms};
use rootgate_model::timeline::Entry;
use rootgate_session::Status;

pub(crate) use crate::window_socket::same_user;
pub use crate::window_socket::{private_dir, socket_path};
pub use words::*;

mod words;

/// How many timeline entries the window keeps per connection.
pub(crate) const ENTRIES_KEPT: usize = 2_000;
/// How many ended connections the window keeps showing.
pub(crate) const ENDED_KEPT: usize = 50;
/// The longest report line read; a longer one ends that bridge's reports.
const MAX_REPORT: usize = 4 * 1024 * 1024;

/// One connection, as the window shows it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionView {
    pub id: ConnectionId,
    /// The bridge's process.
    pub pid: u32,
    pub server: ServerId,
    pub server_name: String,
    pub app: Option<AppIdentity>,
    pub started_at_ms: u64,
    pub status: Status,
    /// False once the bridge has gone.
    pub live: bool,
    pub ended_at_ms: Option<u64>,
    /// How many app requests were answered.
    pub calls: u64,
    /// How many of those ended in an error (a refusal included; a
    /// cancellation by the app is not one).
    pub errors: u64,
    /// Their durations added up, for the mean the window shows.
    pub call_ms_total: u64,
    /// The longest of them.
    pub call_ms_max: u64,
    /// The app's own folders, as it listed them.
    pub app_roots: Vec<String>,
    /// The app's request that waits for the server now, if one does.
    pub waiting: Option<WaitingCall>,
    /// Which folders its server is given, and why, once the bridge said
    /// (boxed: most changes of a connection are not this one).
    pub sees: Option<Box<Sees>>,
    /// Its tool calls that wait for the person's answer.
    pub asks: Vec<ToolAsk>,
}

impl ConnectionView {
    /// A bridge that just said hello: starting, live, nothing counted yet.
    fn starting(
        id: ConnectionId,
        pid: u32,
        server: ServerId,
        server_name: String,
        started_at_ms: u64,
    ) -> ConnectionView {
        ConnectionView {
            id,
            pid,
            server,
            server_name,
            app: None,
            started_at_ms,
            status: Status::Starting,
            live: true,
            ended_at_ms: None,
            calls: 0,
            errors: 0,
            call_ms_total: 0,
            call_ms_max: 0,
            app_roots: Vec::new(),
            waiting: None,
            sees: None,
            asks: Vec::new(),
        }
    }
}

/// One answered call of `view`'s app, in its counts: an outcome other than
/// "ok" or a cancellation is an error.
fn count_call(view: &mut ConnectionView, duration_ms: u64, outcome: &str) {
    view.calls += 1;
    view.call_ms_total = view.call_ms_total.saturating_add(duration_ms);
    view.call_ms_max = view.call_ms_max.max(duration_ms);
    if outcome != "ok" && outcome != "cancelled" {
        view.errors += 1;
    }
}

/// What changed among the connections.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnectionChange {
    /// Boxed: a connection's view is many times the size of the other
    /// changes, which come far more often.
    Updated(Box<ConnectionView>),
    Entry {
        connection: ConnectionId,
        entry: Entry,
    },
    /// The tool calls of a connection that wait for the person now (all
    /// of them; see [`Report::Asks`]). An ended connection's calls stopped
    /// waiting with it: the window then hears `Updated` with none live.
    Asks {
        connection: ConnectionId,
        server: ServerId,
        server_name: String,
        app: Option<AppIdentity>,
        asks: Vec<ToolAsk>,
    },
    /// What a connection's server listed of its tools (see
    /// [`Report::ToolsSeen`]).
    ToolsSeen {
        server: ServerId,
        tools: std::collections::BTreeMap<String, rootgate_model::tools::ToolSeen>,
    },
    /// The app works in these folders: suggestions for the person.
    Suggested {
        connection: ConnectionId,
        server: ServerId,
        app: Option<AppIdentity>,
        uris: Vec<String>,
    },
}

struct Known {
    view: ConnectionView,
    entries: VecDeque<Entry>,
}

/// Every connection the window heard of.
pub struct Connections {
    inner: Mutex<HashMap<ConnectionId, Known>>,
    /// Where each live bridge is told things (see [`ToBridge`]).
    tellers: Mutex<HashMap<ConnectionId, tokio::sync::mpsc::UnboundedSender<ToBridge>>>,
    changes: broadcast::Sender<ConnectionChange>,
    importer: std::sync::OnceLock<Box<Importer>>,
    opener: std::sync::OnceLock<Box<Opener>>,
}

impl Default for Connections {
    fn default() -> Self {
        Connections {
            inner: Mutex::new(HashMap::new()),
            tellers: Mutex::new(HashMap::new()),
            changes: broadcast::Sender::new(1024),
            importer: std::sync::OnceLock::new(),
            opener: std::sync::OnceLock::new(),
        }
    }
}

impl Connections {
    fn lock(&self) -> MutexGuard<'_, HashMap<ConnectionId, Known>> {
        // Each critical section leaves the map whole.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets who answers `rootgate import`'s requests; the first one set
    /// stays.
    pub fn answer_imports_with(&self, importer: Box<Importer>) {
        let _ = self.importer.set(importer);
    }

    /// Sets who answers another start's folders (see [`Report::Open`]);
    /// the first one set stays.
    pub fn answer_opens_with(&self, opener: Box<Opener>) {
        let _ = self.opener.set(opener);
    }

    /// Tells the bridge of connection `id` something (see [`Told`]);
    /// false if it is not connected to this window.
    pub fn tell(&self, id: &ConnectionId, told: Told) -> bool {
        self.send(id, ToBridge::Folder(told))
    }

    /// Gives the bridge of connection `id` the person's answer about a
    /// tool call it holds; false if it is not connected to this window.
    pub fn answer(&self, id: &ConnectionId, answer: ToolAnswer) -> bool {
        self.send(id, ToBridge::Tool(answer))
    }

    fn send(&self, id: &ConnectionId, line: ToBridge) -> bool {
        let tellers = self.tellers.lock().unwrap_or_else(|p| p.into_inner());
        tellers.get(id).is_some_and(|t| t.send(line).is_ok())
    }

    pub fn subscribe(&self) -> broadcast::Receiver<ConnectionChange> {
        self.changes.subscribe()
    }

    /// Every connection, live ones first, newest first.
    pub fn list(&self) -> Vec<ConnectionView> {
        let mut views: Vec<ConnectionView> = self.lock().values().map(|k| k.view.clone()).collect();
        views.sort_by_key(|v| (!v.live, std::cmp::Reverse(v.started_at_ms)));
        views
    }

    /// A connection's entries kept, oldest first.
    pub fn entries(&self, id: &ConnectionId) -> Vec<Entry> {
        self.lock()
            .get(id)
            .map(|k| k.entries.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Binds the socket at `path` and takes bridges' reports from then on.
    /// A socket left by a window that is gone is replaced; one a live
    /// window answers on is not (that window owns the settings), and that
    /// is an error.
    pub async fn listen(self: &Arc<Self>, path: &Path) -> io::Result<()> {
        if let Some(dir) = path.parent() {
            private_dir(dir)?;
        }
        if UnixStream::connect(path).await.is_ok() {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                format!("another Rootgate window listens on {}", path.display()),
            ));
        }
        let _ = std::fs::remove_file(path);
        let listener = UnixListener::bind(path)?;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        let me = Arc::clone(self);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                if !same_user(&stream) {
                    continue;
                }
                tokio::spawn(Arc::clone(&me).read_reports(stream));
            }
        });
        Ok(())
    }

    async fn read_reports(self: Arc<Self>, stream: UnixStream) {
        let (read, write) = stream.into_split();
        let mut write = Some(write);
        let mut lines = BufReader::new(read);
        let mut line = Vec::new();
        let mut id: Option<ConnectionId> = None;
        loop {
            line.clear();
            match read_line(&mut lines, &mut line).await {
                Ok(true) => {}
                Ok(false) | Err(_) => break,
            }
            let Ok(report) = serde_json::from_slice::<Report>(&line) else {
                // A bridge of another version, or garbage: its reports end.
                break;
            };
            match (&id, report) {
                (
                    None,
                    Report::Hello {
                        connection,
                        pid,
                        server,
                        server_name,
                        started_at_ms,
                    },
                ) => {
                    id = Some(connection.clone());
                    if let Some(write) = write.take() {
                        self.teller(&connection, write);
                    }
                    self.hello(connection, pid, server, server_name, started_at_ms);
                }
                (None, Report::Import { request }) => {
                    if let Some(write) = write.take() {
                        self.answer_import(write, request).await;
                    }
                    return;
                }
                (None, Report::Open { request }) => {
                    if let Some(write) = write.take() {
                        self.answer_open(write, request).await;
                    }
                    return;
                }
                (Some(id), report) => self.apply(id, report),
                // Nothing before the hello counts.
                (None, _) => break,
            }
        }
        if let Some(id) = id {
            self.tellers
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            self.ended(&id);
        }
    }

    /// Keeps `write` as where the bridge of `id` is told things, written
    /// from a task of its own so a bridge that reads slowly delays nobody.
    fn teller(&self, id: &ConnectionId, write: tokio::net::unix::OwnedWriteHalf) {
        use tokio::io::AsyncWriteExt;
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ToBridge>();
        self.tellers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(id.clone(), tx);
        tokio::spawn(async move {
            let mut write = write;
            while let Some(told) = rx.recv().await {
                let Ok(mut line) = serde_json::to_vec(&told) else {
                    continue;
                };
                line.push(b'\n');
                if write.write_all(&line).await.is_err() {
                    return;
                }
            }
        });
    }

    /// Answers an import request on `stream`, off the runtime's threads:
    /// an import reads files and saves the settings.
    async fn answer_import(
        self: Arc<Self>,
        mut stream: tokio::net::unix::OwnedWriteHalf,
        request: ImportRequest,
    ) {
        use tokio::io::AsyncWriteExt;
        let me = Arc::clone(&self);
        let answer = tokio::task::spawn_blocking(move || match me.importer.get() {
            Some(importer) => importer(request),
            None => ImportAnswer {
                errors: vec!["this window does not take imports".into()],
                ..ImportAnswer::default()
            },
        })
        .await
        .unwrap_or_else(|e| ImportAnswer {
            errors: vec![format!("the window failed to import: {e}")],
            ..ImportAnswer::default()
        });
        if let Ok(mut line) = serde_json::to_vec(&answer) {
            line.push(b'\n');
            let _ = stream.write_all(&line).await;
        }
    }

    /// Answers another start's folders on `stream`, off the runtime's
    /// threads: checking a folder may wait on a slow disk.
    async fn answer_open(
        self: Arc<Self>,
        mut stream: tokio::net::unix::OwnedWriteHalf,
        request: OpenRequest,
    ) {
        use tokio::io::AsyncWriteExt;
        let me = Arc::clone(&self);
        let folders = request.folders.len();
        let answer = tokio::task::spawn_blocking(move || match me.opener.get() {
            Some(opener) => opener(request),
            None => OpenAnswer {
                notices: vec![
                    "this Rootgate window does not take folders from another start".into(),
                ],
                ..OpenAnswer::default()
            },
        })
        .await
        .unwrap_or_else(|e| OpenAnswer {
            notices: vec![format!(
                "the window failed to take {folders} folder(s): {e}"
            )],
            ..OpenAnswer::default()
        });
        if let Ok(mut line) = serde_json::to_vec(&answer) {
            line.push(b'\n');
            let _ = stream.write_all(&line).await;
        }
    }

    fn hello(
        &self,
        id: ConnectionId,
        pid: u32,
        server: ServerId,
        server_name: String,
        started_at_ms: u64,
    ) {
        let view = {
            let mut map = self.lock();
            let known = map.entry(id.clone()).or_insert_with(|| Known {
                view: ConnectionView::starting(id.clone(), pid, server, server_name, started_at_ms),
                entries: VecDeque::new(),
            });
            // A bridge that reconnects reports its whole timeline again.
            known.entries.clear();
            known.view.calls = 0;
            known.view.errors = 0;
            known.view.call_ms_total = 0;
            known.view.call_ms_max = 0;
            known.view.live = true;
            known.view.ended_at_ms = None;
            known.view.clone()
        };
        let _ = self.changes.send(ConnectionChange::Updated(Box::new(view)));
    }

    fn apply(&self, id: &ConnectionId, report: Report) {
        let mut changes = Vec::new();
        {
            let mut map = self.lock();
            let Some(known) = map.get_mut(id) else { return };
            match report {
                Report::Hello { .. } | Report::Import { .. } | Report::Open { .. } => return,
                Report::App { app } => known.view.app = Some(app),
                Report::Status { status } => known.view.status = status,
                Report::Waiting { call } => known.view.waiting = call,
                Report::Sees { sees } => known.view.sees = Some(Box::new(sees)),
                Report::ToolsSeen { tools } => {
                    changes.push(ConnectionChange::ToolsSeen {
                        server: known.view.server.clone(),
                        tools,
                    });
                }
                Report::Asks { asks } => {
                    changes.push(ConnectionChange::Asks {
                        connection: id.clone(),
                        server: known.view.server.clone(),
                        server_name: known.view.server_name.clone(),
                        app: known.view.app.clone(),
                        asks: asks.clone(),
                    });
                    known.view.asks = asks;
                }
                Report::Entry { entry } => {
                    if let rootgate_model::timeline::Event::Call {
                        duration_ms,
                        outcome,
                        ..
                    } = &entry.event
                    {
                        count_call(&mut known.view, *duration_ms, outcome);
                    }
                    if known.entries.len() == ENTRIES_KEPT {
                        known.entries.pop_front();
                    }
                    known.entries.push_back(entry.clone());
                    changes.push(ConnectionChange::Entry {
                        connection: id.clone(),
                        entry,
                    });
                }
                Report::Suggest { uris } => {
                    known.view.app_roots = uris.clone();
                    changes.push(ConnectionChange::Suggested {
                        connection: id.clone(),
                        server: known.view.server.clone(),
                        app: known.view.app.clone(),
                        uris,
                    });
                }
            }
            changes.insert(0, ConnectionChange::Updated(Box::new(known.view.clone())));
        }
        for change in changes {
            let _ = self.changes.send(change);
        }
    }

    fn ended(&self, id: &ConnectionId) {
        let view = {
            let mut map = self.lock();
            let Some(known) = map.get_mut(id) else { return };
            known.view.live = false;
            known.view.ended_at_ms = Some(now_ms());
            // Nothing waits in a bridge that is gone.
            known.view.waiting = None;
            // A bridge that went without saying its server stopped (it was
            // killed) leaves no server running: its launcher ends it.
            if matches!(
                known.view.status,
                Status::Running(_) | Status::Starting | Status::Stopping
            ) {
                known.view.status = Status::Stopped { last_exit: None };
            }
            let view = known.view.clone();
            // Ended connections beyond the newest few are forgotten.
            let mut ended: Vec<(u64, ConnectionId)> = map
                .values()
                .filter(|k| !k.view.live)
                .map(|k| (k.view.ended_at_ms.unwrap_or(0), k.view.id.clone()))
                .collect();
            if ended.len() > ENDED_KEPT {
                ended.sort();
                for (_, old) in &ended[..ended.len() - ENDED_KEPT] {
                    map.remove(old);
                }
            }
            view
        };
        let _ = self.changes.send(ConnectionChange::Updated(Box::new(view)));
    }
}

/// Reads one line of at most [`MAX_REPORT`] bytes into `line` (without its
/// newline); false at the end of the stream.
async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
) -> io::Result<bool> {
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(false);
        }
        let (chunk, newline) = match memchr::memchr(b'\n', buf) {
            Some(i) => (&buf[..i], true),
            None => (buf, false),
        };
        if line.len() + chunk.len() > MAX_REPORT {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "report too long",
            ));
        }
        line.extend_from_slice(chunk);
        let used = chunk.len() + usize::from(newline);
        reader.consume(used);
        if newline {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn calls_are_counted_with_their_errors_and_durations_and_a_cancel_is_no_error() {
        let mut view = ConnectionView::starting(
            ConnectionId::generate(),
            1,
            ServerId::generate(),
            "files".into(),
            0,
        );
        for (ms, outcome) in [
            (4, "ok"),
            (30, "error -32602: unknown tool"),
            (2, "cancelled"),
            (
                0,
                "refused: the tool “write_file” is not offered: it is hidden in Rootgate",
            ),
        ] {
            count_call(&mut view, ms, outcome);
        }
        assert_eq!(
            (
                view.calls,
                view.errors,
                view.call_ms_total,
                view.call_ms_max
            ),
            (4, 2, 36, 30)
        );
    }

    #[test]
    fn reports_round_trip_as_lines() {
        let report = Report::Hello {
            connection: ConnectionId::generate(),
            pid: 7,
            server: ServerId::generate(),
            server_name: "files".into(),
            started_at_ms: 1,
        };
        let line = serde_json::to_string(&report).unwrap();
        assert!(line.contains("\"kind\":\"hello\""), "{line}");
        assert_eq!(serde_json::from_str::<Report>(&line).unwrap(), report);
    }

    #[test]
    fn a_folder_whose_name_is_not_utf8_is_handed_over_as_it_is() {
        use std::os::unix::ffi::OsStringExt;
        let odd = PathBuf::from(std::ffi::OsString::from_vec(b"/tmp/caf\xe9".to_vec()));
        let report = Report::Open {
            request: OpenRequest {
                folders: vec![PathBuf::from("/home/a/projects"), odd],
                bundles: vec![],
            },
        };
        let line = serde_json::to_string(&report).unwrap();
        assert!(line.contains("\"kind\":\"open\""), "{line}");
        assert!(line.contains("\"/home/a/projects\""), "{line}");
        assert_eq!(serde_json::from_str::<Report>(&line).unwrap(), report);
    }

    /// A peer of another uid is dropped unread, even where the folder and
    /// the socket let it connect (they never should): uid 65534, run with
    /// `setpriv`, says hello and is closed on; the same hello from this
    /// user is a connection. Making a process of another uid needs root,
    /// which these tests run as.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_listener_drops_a_peer_of_another_uid() {
        use std::os::unix::fs::PermissionsExt;
        assert!(
            nix::unistd::geteuid().is_root(),
            "this test runs a client as uid 65534: run it as root"
        );
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("rootgate");
        let socket = folder.join("window.sock");
        let connections = Arc::new(Connections::default());
        connections.listen(&socket).await.unwrap();
        let open = |path: &Path, mode| {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
        };
        open(dir.path(), 0o711);
        open(&folder, 0o711);
        open(&socket, 0o666);
        let hello = |name: &str| {
            let mut line = serde_json::to_string(&Report::Hello {
                connection: ConnectionId::generate(),
                pid: 7,
                server: ServerId::generate(),
                server_name: name.into(),
                started_at_ms: 1,
            })
            .unwrap();
            line.push('\n');
            line
        };
        // The client waits for the listener's close (which may come before
        // its hello is even written); one that kept the connection would
        // leave it waiting, so it gives up after a while and says so, for
        // the failure's words only.
        const CLIENT: &str = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(60)
try:
    s.sendall(sys.argv[2].encode())
    print("closed" if s.recv(1) == b"" else "answered")
except (BrokenPipeError, ConnectionResetError):
    print("closed")
except socket.timeout:
    print("kept")
"#;
        let out = tokio::process::Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "/usr/bin/python3",
                "-c",
                CLIENT,
            ])
            .arg(&socket)
            .arg(hello("from-nobody"))
            .output()
            .await
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "closed",
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            connections.list().is_empty(),
            "nobody's hello was not taken"
        );

        let mut changes = connections.subscribe();
        let mut ours = UnixStream::connect(&socket).await.unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut ours, hello("ours").as_bytes())
            .await
            .unwrap();
        changes.recv().await.unwrap();
        let listed = connections.list();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].server_name, "ours");
    }
}
