//! The withdrawal fence: an app request that could touch files never
//! reaches a server that may still hold a folder the person withdrew.
//!
//! The window saves a withdrawal and shows it at once; a bridge learns of
//! the save through its settings watch (inotify, then a 50 ms settle and a
//! re-read), and the server learns of it later still (`list_changed`, its
//! `roots/list`, its own time to apply the answer; or a restart). A bridged
//! npm filesystem server read a withdrawn folder 42–56 times, up to 96 ms
//! after the save. So before an app request that depends on folders is
//! written to the server, the fence looks at the settings file itself (one
//! `stat`: a save renames a new file over it) and reads it again if it
//! changed, so no request goes on with folders older than the last save;
//! then, if the server may still hold a folder no longer shared, the
//! request waits, with the app's reader behind it, until the server was
//! told and is taken to have applied the answer (the notify gate's apply
//! time and settle margin, the same notion the first request's hold uses),
//! or until the life that held the folder is gone (a restart starts the
//! server with the folders as they are now; then the new life's first
//! folders are waited for, as for any first request).
//!
//! What "may still hold" means, from what the session publishes
//! (`Delivery`): a folder in the list the server was last given (`given`),
//! or in the list the session last acted on (`granted`: not yet past it
//! when the change has not reached the session's actor), that the settings
//! just read no longer share with it. A modern server is given its folders
//! with each request: once the session has the new list, there is nothing
//! to wait for.
//!
//! What is not here: which requests depend on folders (`route::lines`),
//! the session's telling and restarting (`rootgate-session`), and the
//! settings watch itself (`bridge::watch_settings`), which still brings a
//! change to an idle connection.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use rootgate_model::consent::{SharedRoot, SharedRoots};
use rootgate_model::store::Store;
use rootgate_session::Delivery;
use rootgate_session::list_changed::NotifyTiming;

use super::Relay;

/// The most a request waits for a server to let go of a withdrawn folder.
/// A server that asks is told within milliseconds; one that does not is
/// restarted by its session once the pickup time (3 s) has passed. Past
/// this bound something is stuck, and the request is answered with an
/// error rather than sent to a server that may still read the folder.
pub(crate) const WITHDRAWAL_BOUND: Duration = Duration::from_secs(10);

/// The settings file as last read: a save renames a new file over it, so
/// its inode changes; a write in place changes its size or times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileKey {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileKey {
    fn of(path: &std::path::Path) -> Option<FileKey> {
        let m = std::fs::metadata(path).ok()?;
        Some(FileKey {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }
}

/// Where the server stands with the folders the settings share now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    /// It holds no folder that is not shared with it.
    Clear,
    /// It may still hold a withdrawn folder: it has not been told yet.
    Holds,
    /// It was told, and is taken to apply the answer until then.
    Applying(Instant),
}

/// What was looked at last, under one lock.
struct Looked {
    file: Option<FileKey>,
    delivery: watch::Receiver<Delivery>,
    /// The generation of the shared list last found clear, with the
    /// delivery as last borrowed: nothing to compare again until either
    /// moves.
    clear_at: Option<u64>,
    /// The list the server was given, as last seen.
    given: Option<Arc<[SharedRoot]>>,
    /// Until when the server is taken to apply a list that dropped a
    /// folder.
    applying: Option<Instant>,
    /// How many times the fence was moved to another life's delivery.
    followed: u64,
}

/// The fence of one connection.
pub(crate) struct Fence {
    store: Arc<Store>,
    file: PathBuf,
    /// The store's list for the server, before any Workspace narrowing: a
    /// folder withdrawn there is withdrawn from every part of it.
    shared: watch::Receiver<SharedRoots>,
    timing: NotifyTiming,
    looked: Mutex<Looked>,
}

impl Fence {
    /// A fence for the server whose store list is `shared` and whose
    /// session publishes `delivery`, told with `timing`.
    pub fn new(
        store: Arc<Store>,
        shared: watch::Receiver<SharedRoots>,
        delivery: watch::Receiver<Delivery>,
        timing: NotifyTiming,
    ) -> Arc<Fence> {
        let file = store.file().path().to_path_buf();
        let fence = Arc::new(Fence {
            store,
            file,
            shared,
            timing,
            looked: Mutex::new(Looked {
                file: None,
                delivery: delivery.clone(),
                clear_at: None,
                given: None,
                applying: None,
                followed: 0,
            }),
        });
        fence.observe(delivery, 0);
        fence
    }

    /// Follows another server life's delivery from now on: a Workspace
    /// connection to a shared server moved to its project's life (see
    /// `shared`). What the connection's last life was given no longer
    /// counts; a withdrawal it was still applying does, until its time is
    /// up, since the app's requests may still have reached that life.
    pub(crate) fn follow(self: &Arc<Self>, delivery: watch::Receiver<Delivery>) {
        let generation = {
            let mut looked = self.lock();
            looked.delivery = delivery.clone();
            looked.given = None;
            looked.clear_at = None;
            looked.followed += 1;
            looked.followed
        };
        self.observe(delivery, generation);
    }

    /// The moment the server is given a list without a folder starts its
    /// apply time; an idle connection sees it too, so a request made soon
    /// after still waits out the rest. Ends when the fence follows another
    /// life (`generation` is no longer the followed one) or goes.
    fn observe(self: &Arc<Self>, mut delivery: watch::Receiver<Delivery>, generation: u64) {
        let weak = Arc::downgrade(self);
        tokio::spawn(async move {
            while delivery.changed().await.is_ok() {
                let Some(fence) = weak.upgrade() else { return };
                let now = delivery.borrow_and_update().given.clone();
                let mut looked = fence.lock();
                if looked.followed != generation {
                    return;
                }
                fence.observe_given(&mut looked, now, Instant::now());
            }
        });
    }

    fn lock(&self) -> MutexGuard<'_, Looked> {
        // Each critical section leaves `Looked` whole.
        self.looked.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Where the server stands, after reading the settings again if they
    /// were saved since they were last read. Cheap when nothing moved: one
    /// `stat`, two watch reads.
    pub(crate) fn standing(&self) -> Standing {
        let mut looked = self.lock();
        self.look_at_file(&mut looked);
        let generation = self.shared.borrow().generation();
        let moved = looked.delivery.has_changed().unwrap_or(false);
        if moved || looked.clear_at != Some(generation) {
            let delivery = looked.delivery.borrow_and_update().clone();
            self.observe_given(&mut looked, delivery.given.clone(), Instant::now());
            let holds = {
                let shared = self.shared.borrow();
                let now: HashSet<&str> = shared.roots().iter().map(|r| r.uri.as_str()).collect();
                delivery
                    .granted
                    .iter()
                    .chain(delivery.given.iter().flat_map(|g| g.iter()))
                    .any(|r| !now.contains(r.uri.as_str()))
            };
            if holds {
                looked.clear_at = None;
                return Standing::Holds;
            }
            looked.clear_at = Some(generation);
        }
        match looked.applying {
            Some(until) if until > Instant::now() => Standing::Applying(until),
            _ => Standing::Clear,
        }
    }

    /// Catches up with the settings file, as [`Fence::standing`] does
    /// first, and says the store's list for the server as it is then: its
    /// generation, and whether it holds any folder. A bridge about to say
    /// that its server cannot start asks this first (see
    /// `Relay::next_life`), so it never answers from settings older than
    /// the last save.
    pub(crate) fn caught_up(&self) -> (u64, bool) {
        self.look_at_file(&mut self.lock());
        self.shared_now()
    }

    /// The store's list for the server as last read: its generation, and
    /// whether it holds any folder.
    pub(crate) fn shared_now(&self) -> (u64, bool) {
        let shared = self.shared.borrow();
        (shared.generation(), !shared.roots().is_empty())
    }

    /// Reads the settings again if the file is not the one last read. The
    /// key is taken before the read: a save between the two is read now,
    /// and seen again (harmlessly) next time.
    fn look_at_file(&self, looked: &mut Looked) {
        let key = FileKey::of(&self.file);
        if key.is_none() || key == looked.file {
            return;
        }
        // A damaged file is said by the settings watch, and the list stays
        // what it was; it is not read again at every line while it lasts.
        let _ = self.store.reload();
        looked.file = key;
    }

    /// A new list given to the server: if it drops a folder of the one
    /// before, the server is taken to apply it for its modelled time plus
    /// the settle margin (the notify gate's `applied_by`).
    fn observe_given(&self, looked: &mut Looked, given: Option<Arc<[SharedRoot]>>, now: Instant) {
        let same = match (&looked.given, &given) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if same {
            return;
        }
        if let (Some(before), Some(after)) = (&looked.given, &given) {
            let kept: HashSet<&str> = after.iter().map(|r| r.uri.as_str()).collect();
            if before.iter().any(|r| !kept.contains(r.uri.as_str())) {
                let until = now + self.timing.apply_for(after.len()) + self.timing.settle;
                looked.applying = Some(looked.applying.map_or(until, |u| u.max(until)));
            }
        }
        looked.given = given;
    }

    /// The part of `list` the settings, as last read, still share with the
    /// server.
    pub(crate) fn still_shared(&self, list: SharedRoots) -> SharedRoots {
        let shared = self.shared.borrow();
        let now: HashSet<&str> = shared.roots().iter().map(|r| r.uri.as_str()).collect();
        list.narrowed(&list, |r| now.contains(r.uri.as_str()))
            .unwrap_or(list)
    }

    /// A receiver of the session's delivery, to wait for it to move.
    pub(crate) fn delivery(&self) -> watch::Receiver<Delivery> {
        self.lock().delivery.clone()
    }
}

/// How a request's wait at the fence ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fenced {
    /// The server was told and is taken to have applied the change.
    Told,
    /// The life that held the folder is gone; the next one starts without it.
    Restarted,
    /// No life can start (its folders are arguments, and none is left):
    /// the request goes on, to be answered with why.
    CannotStart,
    /// [`WITHDRAWAL_BOUND`] passed first.
    Bound,
}

/// An app request as the bridge wrote it for the server
/// (`route::lines::request_line`, whose head is fixed): its method, read
/// from that head without parsing the rest (a 1 MiB `write_file` is not
/// read again). A method written with escapes is returned as `""`, which
/// counts as depending on folders. `None` for any other line: an answer to
/// the server's request, a notification.
fn request_method(line: &[u8]) -> Option<&str> {
    let rest = line.strip_prefix(br#"{"jsonrpc":"2.0","id":"#)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = rest[digits..].strip_prefix(br#","method":""#)?;
    if digits == 0 {
        return None;
    }
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    if rest[end] == b'\\' {
        return Some("");
    }
    std::str::from_utf8(&rest[..end]).ok()
}

impl Relay {
    /// Sets the connection's fence (see the module's doc); once.
    pub(crate) fn fence_withdrawals(&self, fence: Arc<Fence>) {
        let _ = self.fence.set(fence);
    }

    /// The connection's fence, once set.
    pub(crate) fn fence(&self) -> Option<&Arc<Fence>> {
        self.fence.get()
    }

    /// Passes an app line for the server through the fence: at once when
    /// the server holds no withdrawn folder or the line cannot touch files;
    /// else after the wait. `None` when the request was answered instead
    /// (the wait reached its bound).
    pub(super) async fn fenced(&self, line: Vec<u8>) -> Option<Vec<u8>> {
        let Some(fence) = self.fence.get() else {
            return Some(line);
        };
        // Only a request that depends on folders is looked at; anything
        // else (an answer to the server, a notification, a list of tools)
        // cannot reach a folder and goes on.
        if !request_method(&line).is_some_and(crate::route::depends_on_folders) {
            return Some(line);
        }
        if fence.standing() == Standing::Clear {
            return Some(line);
        }
        let what = match super::waiting_call(&line) {
            Some(call) => {
                let words = match &call.target {
                    Some(target) => format!("{} “{target}”", call.method),
                    None => call.method.clone(),
                };
                self.seen.send_modify(|s| s.waiting = Some(call));
                words
            }
            None => request_method(&line).unwrap_or_default().to_owned(),
        };
        let start = Instant::now();
        let end = self.wait_at_fence(fence).await;
        self.seen.send_modify(|s| s.waiting = None);
        let held_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let said = match end {
            Fenced::CannotStart => return Some(line),
            Fenced::Told => format!(
                "Held {what} {held_ms} ms until the server was told a folder was withdrawn."
            ),
            Fenced::Restarted => format!(
                "Held {what} {held_ms} ms until the server was started again without a \
                 withdrawn folder."
            ),
            Fenced::Bound => format!(
                "Held {what} {held_ms} ms, the most Rootgate waits, and answered it with an \
                 error: the server had not let go of a withdrawn folder."
            ),
        };
        self.timeline().record(
            &self.server,
            rootgate_model::timeline::Event::FirstRequest { held_ms, said },
        );
        if end == Fenced::Bound {
            let why = "Rootgate could not make sure the server no longer uses a folder that \
                       was withdrawn, so this request was not sent; try again";
            let ours = crate::route::request_id(&line)?;
            let outs = self.lock().router.withhold(ours, why, Instant::now());
            self.perform_gone(outs).await;
            return None;
        }
        Some(line)
    }

    /// Carries out a withheld request's answer and record (nothing else
    /// comes of it).
    async fn perform_gone(&self, outs: Vec<super::Out>) {
        for out in outs {
            match out {
                super::Out::App(line) => {
                    let _ = self.app_out.send(line).await;
                }
                super::Out::Call(call) => self.record_call(call),
                _ => {}
            }
        }
    }

    /// The wait itself: until the server was told and applied the change,
    /// or the life that held the folder is gone (then the next one starts
    /// with the folders as they are now, and its first folders are waited
    /// for as for any first request), at most [`WITHDRAWAL_BOUND`]. While
    /// no life can start at all, the request goes on at once, to be
    /// answered with why (`Relay::cannot_start`).
    async fn wait_at_fence(&self, fence: &Fence) -> Fenced {
        let deadline = Instant::now() + WITHDRAWAL_BOUND;
        let mut delivery = fence.delivery();
        let mut ready = self.ready.subscribe();
        let mut unstartable = self.unstartable.subscribe();
        let mut restarted = false;
        loop {
            if Instant::now() >= deadline {
                return Fenced::Bound;
            }
            if ready.borrow_and_update().is_none() {
                restarted = true;
                if unstartable.borrow_and_update().is_some() {
                    return Fenced::CannotStart;
                }
                tokio::select! {
                    changed = ready.changed() => if changed.is_err() { return Fenced::Bound },
                    changed = unstartable.changed() => if changed.is_err() { return Fenced::Bound },
                    () = tokio::time::sleep_until(deadline) => {}
                }
                if ready.borrow().is_some() {
                    self.first_folders().await;
                }
                continue;
            }
            let until = match fence.standing() {
                Standing::Clear if restarted => return Fenced::Restarted,
                Standing::Clear => return Fenced::Told,
                Standing::Holds => deadline,
                Standing::Applying(until) => until.min(deadline),
            };
            tokio::select! {
                changed = delivery.changed() => if changed.is_err() { return Fenced::Bound },
                changed = ready.changed() => if changed.is_err() { return Fenced::Bound },
                () = tokio::time::sleep_until(until) => {}
            }
        }
    }

    /// A new life is ready: its first folders, as for any first request.
    async fn first_folders(&self) {
        let readiness = self.lock().readiness.clone();
        if let Some(mut readiness) = readiness {
            rootgate_session::ready::hold(&mut readiness, rootgate_session::ready::HOLD_BOUND)
                .await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_session::DeliveryState;

    /// The method is read from the head the bridge writes, and only there.
    #[test]
    fn a_requests_method_is_read_from_the_head_the_bridge_wrote() {
        let line = br#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"x"}}"#;
        assert_eq!(request_method(line), Some("tools/call"));
        let escaped = br#"{"jsonrpc":"2.0","id":1,"method":"tools\/call"}"#;
        assert_eq!(request_method(escaped), Some(""));
        assert!(crate::route::depends_on_folders(""));
        let answer = br#"{"jsonrpc":"2.0","id":3,"result":{}}"#;
        assert_eq!(request_method(answer), None);
        let notification = br#"{"jsonrpc":"2.0","method":"notifications/cancelled"}"#;
        assert_eq!(request_method(notification), None);
    }

    struct Setup {
        _dir: tempfile::TempDir,
        window: Store,
        fence: Arc<Fence>,
        delivery: watch::Sender<Delivery>,
        server: rootgate_model::ids::ServerId,
        roots: Vec<rootgate_model::ids::RootId>,
    }

    /// A window's store sharing two folders with a server, a bridge's
    /// read-only store of the same file, and a fence over the latter whose
    /// server was given both folders.
    fn setup() -> Setup {
        use rootgate_model::settings::SettingsFile;
        let dir = tempfile::tempdir().unwrap();
        let file = SettingsFile::at(dir.path().join("settings.json"));
        let secrets = rootgate_model::secrets::Secrets::new(Arc::new(
            rootgate_model::secrets::MemoryKeyring::default(),
        ));
        let (window, _) = Store::open_with_secrets(file.clone(), secrets).unwrap();
        let spec = window
            .add_server(rootgate_model::servers::ServerDraft {
                name: "files".into(),
                command: "true".into(),
                ..Default::default()
            })
            .unwrap();
        let mut roots = Vec::new();
        for name in ["a", "b"] {
            let path = dir.path().join(name);
            std::fs::create_dir_all(&path).unwrap();
            let checked = rootgate_model::folders::check(&path).unwrap();
            let root = window.add_root(&checked, None).unwrap().root.id;
            window.grant(&spec.id, &root).unwrap();
            roots.push(root);
        }
        let (bridge, _) = Store::open_read_only(file).unwrap();
        let bridge = Arc::new(bridge);
        let shared = bridge.subscribe(&spec.id).unwrap();
        let now = shared.borrow().clone();
        let delivery = watch::Sender::new(Delivery {
            state: DeliveryState::UpToDate,
            given: Some(now.shared()),
            granted: now.shared(),
            generation: now.generation(),
            ..Delivery::default()
        });
        let fence = Fence::new(
            bridge,
            shared,
            delivery.subscribe(),
            NotifyTiming::default(),
        );
        Setup {
            _dir: dir,
            window,
            fence,
            delivery,
            server: spec.id,
            roots,
        }
    }

    /// The moment the window's save returns, the fence sees the withdrawal
    /// (no settings watch runs here: only its own look at the file), and
    /// holds until the server was given a list without the folder and has
    /// had its time to apply it.
    #[tokio::test]
    async fn a_save_is_seen_at_the_next_request_and_held_until_told_and_applied() {
        let s = setup();
        assert_eq!(s.fence.standing(), Standing::Clear);
        s.window.revoke(&s.server, &s.roots[0]).unwrap();
        assert_eq!(s.fence.standing(), Standing::Holds, "seen without a watch");

        // The session acts on it (told, not answered yet): still held.
        let now = s.fence.shared.borrow().clone();
        s.delivery.send_modify(|d| {
            d.granted = now.shared();
            d.generation = now.generation();
            d.state = DeliveryState::Waiting { since_ms: 0 };
        });
        assert_eq!(s.fence.standing(), Standing::Holds, "not told yet");

        // Answered with the list without it: held while it applies.
        s.delivery.send_modify(|d| d.given = Some(now.shared()));
        match s.fence.standing() {
            Standing::Applying(until) => {
                let margin = until - Instant::now();
                assert!(margin <= NotifyTiming::default().settle + Duration::from_millis(1));
                assert!(margin > Duration::ZERO);
            }
            other => panic!("{other:?}"),
        }
    }

    /// A change that withdraws nothing (a folder shared) never holds.
    #[tokio::test]
    async fn sharing_more_holds_nothing() {
        let s = setup();
        s.window.revoke(&s.server, &s.roots[1]).unwrap();
        let now = s.fence.shared.borrow().clone();
        s.delivery.send_modify(|d| {
            d.granted = now.shared();
            d.given = Some(now.shared());
        });
        let _ = s.fence.standing();
        // Let the apply time of that withdrawal pass in the model.
        s.fence.lock().applying = None;
        s.window.grant(&s.server, &s.roots[1]).unwrap();
        assert_eq!(s.fence.standing(), Standing::Clear);
    }

    /// A server life of the test's own, attached to `relay` and ready:
    /// what the relay writes to it, and where the test writes as it.
    async fn ready_life(
        relay: &Arc<Relay>,
        app: &mut tokio::io::DuplexStream,
        out: &mut tokio::sync::mpsc::Receiver<Vec<u8>>,
    ) -> (
        tokio::sync::mpsc::Receiver<super::super::Frame>,
        tokio::io::DuplexStream,
    ) {
        use tokio::io::AsyncWriteExt;
        let (frames, mut written) = tokio::sync::mpsc::channel(16);
        let wire = rootgate_session::wire::Wire {
            frames,
            closed: tokio_util::sync::CancellationToken::new(),
        };
        let (mut output, stdout) = tokio::io::duplex(64 * 1024);
        let roots = watch::Sender::new(SharedRoots::empty());
        let attached = relay.attach(
            stdout,
            &wire,
            rootgate_model::servers::Era::Legacy,
            roots.subscribe(),
        );
        app.write_all(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n",
        )
        .await
        .unwrap();
        let Some(super::super::Frame::Lines(init)) = written.recv().await else {
            panic!("no initialize");
        };
        let init: serde_json::Value = serde_json::from_slice(&init).unwrap();
        let result = serde_json::json!({"jsonrpc": "2.0", "id": init["id"], "result": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
        output
            .write_all(format!("{result}\n").as_bytes())
            .await
            .unwrap();
        let answered: serde_json::Value =
            serde_json::from_slice(&out.recv().await.unwrap()).unwrap();
        assert_eq!(answered["id"], 1);
        relay.ready(attached.life, false).await;
        (written, output)
    }

    /// The next tools/call written to the life, skipping what else it got.
    async fn next_call(
        written: &mut tokio::sync::mpsc::Receiver<super::super::Frame>,
    ) -> Option<serde_json::Value> {
        while let Some(frame) = written.recv().await {
            if let super::super::Frame::Lines(line) = frame {
                let line: serde_json::Value = serde_json::from_slice(&line).unwrap();
                if line["method"] == "tools/call" {
                    return Some(line);
                }
            }
        }
        None
    }

    /// Through a relay: a read sent after the save waits until the server
    /// was given the list without the folder and had the settle margin to
    /// apply it, and only then is written; one that waits past the bound
    /// is answered with an error and never written.
    #[tokio::test(start_paused = true)]
    async fn a_read_waits_for_the_server_to_let_go_and_past_the_bound_is_answered_never_sent() {
        use tokio::io::AsyncWriteExt;
        let s = setup();
        let (out_tx, mut out) = tokio::sync::mpsc::channel(16);
        let timeline = Arc::new(rootgate_model::timeline::Timeline::default());
        let relay = Relay::new(s.server.clone(), Arc::clone(&timeline), out_tx);
        relay.fence_withdrawals(Arc::clone(&s.fence));
        let (mut app, app_in) = tokio::io::duplex(64 * 1024);
        let reader = Arc::clone(&relay);
        tokio::spawn(async move { reader.read_app(app_in).await });
        let (mut written, _output) = ready_life(&relay, &mut app, &mut out).await;

        s.window.revoke(&s.server, &s.roots[0]).unwrap();
        let sent = Instant::now();
        app.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"read_text_file\",\"arguments\":{}}}\n")
            .await
            .unwrap();
        let mut seen = relay.subscribe();
        seen.wait_for(|s| s.waiting.is_some()).await.unwrap();
        // Told: the session acts on it and the server is given the list.
        let now = s.fence.shared.borrow().clone();
        s.delivery.send_modify(|d| {
            d.granted = now.shared();
            d.given = Some(now.shared());
        });
        let call = next_call(&mut written).await.expect("written once told");
        assert_eq!(call["params"]["name"], "read_text_file");
        assert!(
            sent.elapsed() >= NotifyTiming::default().settle,
            "written {:?} after it was sent, before the settle margin",
            sent.elapsed()
        );

        // Withdrawn again, and the session never moves: past the bound the
        // app is answered, and the server is never written the call.
        s.window.revoke(&s.server, &s.roots[1]).unwrap();
        app.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"read_text_file\",\"arguments\":{}}}\n")
            .await
            .unwrap();
        let answer: serde_json::Value = serde_json::from_slice(&out.recv().await.unwrap()).unwrap();
        assert_eq!(answer["id"], 3, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("no longer uses a folder that was withdrawn")),
            "{answer}"
        );
        assert!(written.try_recv().is_err(), "nothing more was written");
        let said: Vec<String> = timeline
            .all()
            .into_iter()
            .filter_map(|e| match e.event {
                rootgate_model::timeline::Event::FirstRequest { said, .. } => Some(said),
                _ => None,
            })
            .collect();
        assert!(
            said.iter()
                .any(|s| s.contains("until the server was told a folder was withdrawn")),
            "{said:?}"
        );
        assert!(
            said.iter().any(|s| s.contains("the most Rootgate waits")),
            "{said:?}"
        );
    }
}
