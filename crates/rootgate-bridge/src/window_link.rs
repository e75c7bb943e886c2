//! The bridge's side of the window link: what this connection reports to
//! the Rootgate window, when there is one.
//!
//! The bridge connects to the window's socket (see `connections`), checks
//! that the window runs as the same user, says who it is, and then reports
//! its timeline, the app's identity, the server's status and the app's own
//! folders as they change. When there is no window, or it goes away, the
//! bridge waits for the socket to appear again (watching its folder, not
//! polling) and then reports everything it kept. It notices the window
//! going away by the window's end closing, not at its next write, so a
//! window that starts again lists every live bridge at once. The window
//! may tell the bridge one thing back on the same socket: what it does
//! about a folder the app works in that is not shared ([`Told`]: asking
//! the person, answered, or not asked), which only says how long the
//! app's first request is held (`relay::asked`). Consent never comes this
//! way: a "Share" reaches the bridge through the settings file, as every
//! grant does.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::net::unix::OwnedWriteHalf;
use tokio::sync::{broadcast, mpsc, watch};

use super::relay::{Relay, Seen};
use crate::connections::{AppIdentity, Report, ToBridge, private_dir, same_user};
use crate::window_socket::check_private;
use rootgate_host::watch::{Watch, Watches};
use rootgate_model::ids::{ConnectionId, ServerId};
use rootgate_model::timeline::Timeline;
use rootgate_session::Status;

/// How often a bridge that cannot watch the socket's folder looks for the
/// window again while it has none (see [`Link::spawn`]).
const RETRY_UNWATCHED: std::time::Duration = std::time::Duration::from_secs(1);

/// What the link reports about.
pub struct Link {
    pub socket: PathBuf,
    pub connection: ConnectionId,
    pub server: ServerId,
    pub server_name: String,
    pub started_at_ms: u64,
    /// The process the app started: the bridge, or the gate's door.
    pub pid: u32,
    pub relay: Arc<Relay>,
    /// The server life the connection is served by, as it changes.
    pub serving: watch::Receiver<Serving>,
    /// The last status written to the window, so that a bridge about to
    /// end (its server failed) can let the window hear why first.
    pub reported: watch::Sender<Option<Status>>,
    /// Cancelled when the connection ends: the window's socket is closed,
    /// which is how the window hears it.
    pub ended: tokio_util::sync::CancellationToken,
}

/// The server life a connection is served by: its story and its status.
/// A connection of its own has one for its whole life; a Workspace
/// connection to a shared server moves to its project's life (`shared`).
#[derive(Clone)]
pub struct Serving {
    pub timeline: Arc<Timeline>,
    pub status: watch::Receiver<Status>,
}

impl Link {
    /// Starts reporting, for as long as the returned watch lives (it wakes
    /// the link when the window's socket appears).
    pub fn spawn(self) -> Option<Watch> {
        let dir = self.socket.parent()?.to_path_buf();
        if let Err(e) = private_dir(&dir) {
            eprintln!("rootgate: the window will not see this connection: {e}");
            return None;
        }
        let (mut watch, events) = Watches::process().subscribe(false);
        // Where the socket's folder cannot be watched (the user has no
        // inotify instance left: rootgate_host::watch), the link still
        // reports, looking for the window again every RETRY_UNWATCHED
        // while it has none, rather than never (`run`).
        let retry = (!watch.add(&dir)).then_some(RETRY_UNWATCHED);
        tokio::spawn(self.run(events, retry));
        Some(watch)
    }

    async fn run(
        mut self,
        mut wake: mpsc::UnboundedReceiver<rootgate_host::watch::Change>,
        retry: Option<std::time::Duration>,
    ) {
        loop {
            // The folder is looked at again before each connection: the
            // reports name the app's folders, for the person's window only.
            if self.private_folder()
                && let Ok(stream) = UnixStream::connect(&self.socket).await
                && same_user(&stream)
            {
                // Ends when the window goes away; while it runs, the
                // window is there to ask the person.
                let (read, write) = stream.into_split();
                let relay = Arc::clone(&self.relay);
                // The window's end closing ends the reports at once: a
                // bridge that waited to notice until it next had something
                // to write was missing from a restarted window until its
                // app's next call.
                let closed = tokio_util::sync::CancellationToken::new();
                let window_gone = closed.clone();
                let listen = tokio::spawn(async move {
                    relay.window_present(true);
                    let mut lines = tokio::io::BufReader::new(read).lines();
                    while let Ok(Some(line)) = lines.next_line().await {
                        match serde_json::from_str::<ToBridge>(&line) {
                            Ok(ToBridge::Folder(told)) => relay.told(told),
                            Ok(ToBridge::Tool(answer)) => relay.answer_tool(answer).await,
                            Err(_) => {}
                        }
                    }
                    // The window went away: nobody is asked any more, and
                    // a request held for an answer goes on at once.
                    relay.window_present(false);
                    window_gone.cancel();
                });
                let _ = self.report(write, &closed).await;
                listen.abort();
                self.relay.window_present(false);
            }
            // The connection ended: its end was the last report.
            if self.ended.is_cancelled() {
                return;
            }
            match retry {
                Some(every) => tokio::time::sleep(every).await,
                None => {
                    if wake.recv().await.is_none() {
                        return;
                    }
                }
            }
            while wake.try_recv().is_ok() {}
        }
    }

    /// Whether the socket's folder is still the user's own and closed.
    fn private_folder(&self) -> bool {
        self.socket
            .parent()
            .is_some_and(|dir| matches!(check_private(dir), Ok(Some(()))))
    }

    /// Reports to the window on `stream` until it goes away: a write
    /// fails, or its end closed (`closed`).
    async fn report(
        &mut self,
        stream: OwnedWriteHalf,
        closed: &tokio_util::sync::CancellationToken,
    ) -> std::io::Result<()> {
        let mut out = tokio::io::BufWriter::new(stream);
        let mut serving = self.serving.borrow_and_update().clone();
        // Subscribed before the entries so far are read, so none falls
        // between; those seen twice are skipped by their sequence number.
        let mut entries = serving.timeline.subscribe();
        let mut seen = self.relay.subscribe();
        let mut listed = self.relay.listed();
        let kept = serving.timeline.for_server(&self.server);
        let mut last_seq = kept.last().map_or(0, |e| e.seq);
        let mut lines = vec![Report::Hello {
            connection: self.connection.clone(),
            pid: self.pid,
            server: self.server.clone(),
            server_name: self.server_name.clone(),
            started_at_ms: self.started_at_ms,
        }];
        lines.extend(seen_reports(&seen.borrow_and_update()));
        lines.extend(listed_report(&listed.borrow_and_update()));
        let status = serving.status.borrow_and_update().clone();
        lines.push(Report::Status {
            status: status.clone(),
        });
        lines.extend(kept.into_iter().map(|entry| Report::Entry { entry }));
        write(&mut out, &lines).await?;
        self.reported.send_replace(Some(status));
        loop {
            let batch = tokio::select! {
                () = closed.cancelled() => return Ok(()),
                // A connection to a shared server ends while the server's
                // status and story go on: its end is said by this alone.
                () = self.ended.cancelled() => return Ok(()),
                entry = entries.recv() => match entry {
                    Ok(entry) if entry.seq > last_seq && entry.server == self.server => {
                        last_seq = entry.seq;
                        vec![Report::Entry { entry }]
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return Ok(()),
                },
                changed = seen.changed() => {
                    if changed.is_err() { return Ok(()); }
                    seen_reports(&seen.borrow_and_update())
                }
                changed = listed.changed() => {
                    if changed.is_err() { return Ok(()); }
                    listed_report(&listed.borrow_and_update()).into_iter().collect()
                }
                changed = serving.status.changed() => {
                    if changed.is_err() { return Ok(()); }
                    vec![Report::Status { status: serving.status.borrow_and_update().clone() }]
                }
                // Moved to another life: its status, and its story from
                // now on (the window keeps what it was told of the last).
                Ok(()) = self.serving.changed() => {
                    serving = self.serving.borrow_and_update().clone();
                    entries = serving.timeline.subscribe();
                    last_seq = serving.timeline.for_server(&self.server).last().map_or(0, |e| e.seq);
                    vec![Report::Status { status: serving.status.borrow_and_update().clone() }]
                }
            };
            write(&mut out, &batch).await?;
            if let Some(Report::Status { status }) = batch.last() {
                self.reported.send_replace(Some(status.clone()));
            }
        }
    }
}

type Listed = Option<Arc<std::collections::BTreeMap<String, rootgate_model::tools::ToolSeen>>>;

fn listed_report(listed: &Listed) -> Option<Report> {
    listed.as_ref().map(|tools| Report::ToolsSeen {
        tools: (**tools).clone(),
    })
}

fn seen_reports(seen: &Seen) -> Vec<Report> {
    let mut reports = Vec::new();
    if let Some(app) = &seen.app {
        reports.push(Report::App {
            app: AppIdentity {
                name: app.name.clone(),
                version: app.version.clone(),
                protocol_version: app.protocol_version.clone(),
            },
        });
    }
    let folders = seen.app_folders();
    if !folders.is_empty() {
        reports.push(Report::Suggest { uris: folders });
    }
    if let Some(sees) = &seen.sees {
        reports.push(Report::Sees { sees: sees.clone() });
    }
    // Always said, so that a call that stopped waiting is seen to.
    reports.push(Report::Waiting {
        call: seen.waiting.clone(),
    });
    reports.push(Report::Asks {
        asks: seen.asks.clone(),
    });
    reports
}

async fn write(
    out: &mut tokio::io::BufWriter<OwnedWriteHalf>,
    reports: &[Report],
) -> std::io::Result<()> {
    for report in reports {
        let mut line = serde_json::to_vec(report).map_err(std::io::Error::other)?;
        line.push(b'\n');
        out.write_all(&line).await?;
    }
    out.flush().await
}
