//! The window follows the settings file: what another process saved while
//! the window is open (`rootgate import`, `install` or `add` with no window
//! to hand it to, one that found none a moment before the window started,
//! a Rootgate of another version) is shown at once, not at the window's
//! own next change.
//!
//! The settings file's folder is watched (through the process's one
//! watcher, `rootgate_host::watch`); a change of the file makes the store
//! adopt what it holds (`Store::follow`, the catch-up every change makes
//! under the write lock, here without writing). Adopting grows the store's
//! revision, which reaches the window as `Change::Settings`, so it lists
//! everything again; the lists adopted are published, so the sessions of
//! the servers already there get their new folders. A server that is new
//! gets its session (idle: commands from elsewhere never approve one), one
//! removed elsewhere has its session ended, and a running one whose command
//! changed elsewhere keeps running the approved one until the person
//! approves the new one, as after an edit in the window.
//!
//! What this does not do: write (a damaged file is left as it is, and the
//! window keeps what it has until its next change recovers it), or refresh
//! for the window's own saves: the store knows the bytes it wrote, so
//! following them adopts nothing and grows nothing.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rootgate_host::watch::{ChangeKind, Watches};
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerSpec;
use rootgate_session::Status;

use super::lock;
use super::sessions::Servers;

/// The servers in the settings, by id.
type Specs = HashMap<ServerId, ServerSpec>;

/// How long the events of one save (its temporary file written, renamed
/// over the file) are gathered before the file is read: one read per
/// save, not one per event.
const SETTLE: Duration = Duration::from_millis(50);

impl Servers {
    /// Watches the settings file from now on (see the module's doc).
    /// Called once, when the root opens the services.
    pub(super) fn follow_settings(self: &Arc<Self>) {
        let path = self.ground.store.file().path().to_path_buf();
        let target = self.ground.store.file_target();
        // The file's own folder and, for a symbolic link, the folder of
        // the file it leads to, where saves rename their new file.
        let mut names: HashSet<OsString> = HashSet::new();
        let mut folders: HashSet<PathBuf> = HashSet::new();
        for file in [&path, &target] {
            if let (Some(dir), Some(name)) = (file.parent(), file.file_name()) {
                folders.insert(dir.to_path_buf());
                names.insert(name.to_owned());
            }
        }
        // Woken now and then where nothing can be watched, to look anyway.
        let (mut watch, mut events) = Watches::process().subscribe(true);
        for dir in &folders {
            watch.add(dir);
        }
        let me = self.me.clone();
        self.ground.runtime.spawn(async move {
            // Kept while the task runs: dropping it unwatches the folders.
            let _watch = watch;
            // Looked at once now that the watch is on: a save made between
            // opening the store and the watch has no event left to tell it.
            let mut said = None;
            let mut look = true;
            loop {
                if look {
                    let Some(servers) = me.upgrade() else {
                        return;
                    };
                    said = servers.catch_up_with_file(said).await;
                }
                let Some(event) = events.recv().await else {
                    return;
                };
                look = match event.kind {
                    ChangeKind::LookAgain => true,
                    ChangeKind::Metadata => false,
                    _ => event
                        .paths
                        .iter()
                        .any(|p| p.file_name().is_some_and(|n| names.contains(n))),
                };
                if look {
                    tokio::time::sleep(SETTLE).await;
                    while events.try_recv().is_ok() {}
                }
            }
        });
    }

    /// Adopts what another process saved, if anything, and gives the
    /// servers it added or removed their sessions or ends them. A problem
    /// is logged once while it lasts, not at every look; returns what was
    /// said.
    async fn catch_up_with_file(self: Arc<Self>, said: Option<String>) -> Option<String> {
        // The file is read on a thread that may wait (a disk, or this
        // store's own save in progress), not on the runtime's.
        let store = Arc::clone(&self.ground.store);
        let followed = tokio::task::spawn_blocking(move || {
            let specs = |store: &rootgate_model::store::Store| -> Specs {
                store
                    .snapshot()
                    .servers
                    .into_iter()
                    .map(|s| (s.id.clone(), s))
                    .collect()
            };
            let before = specs(&store);
            store
                .follow()
                .map(|adopted| adopted.then(|| (before, specs(&store))))
        })
        .await;
        match followed {
            Ok(Ok(Some((before, after)))) => {
                self.follow_servers(&before, &after).await;
                None
            }
            Ok(Ok(None)) => None,
            Ok(Err(e)) => {
                let now = e.to_string();
                if said.as_ref() != Some(&now) {
                    tracing::warn!(
                        "the settings file changed and cannot be read ({now}); the window keeps \
                         what it had, and its next change saves it again"
                    );
                }
                Some(now)
            }
            Err(e) => {
                tracing::warn!("the settings file could not be read again: {e}");
                said
            }
        }
    }

    /// A session for each server another process added, and none for one
    /// it removed, as the window's own adding and removing leave them.
    /// Only those that came or went with what was adopted: a server the
    /// window itself is adding or removing meanwhile is left to it. A
    /// running server whose command was changed elsewhere and waits for
    /// approval (an update installed from a terminal) keeps running the
    /// one approved until the person approves the new one, as after an
    /// edit in the window.
    async fn follow_servers(&self, before: &Specs, after: &Specs) {
        for (id, spec) in after {
            match before.get(id) {
                None => {
                    if let Err(e) = self.ensure_session(spec) {
                        tracing::warn!("could not follow the server {id} added elsewhere: {e}");
                    }
                }
                Some(was) if was.command_line() != spec.command_line() || was.cwd != spec.cwd => {
                    let running = lock(&self.sessions).get(id).is_some_and(|s| {
                        !matches!(s.status(), Status::Stopped { .. } | Status::Failed { .. })
                    });
                    if running && !spec.is_approved() {
                        lock(&self.awaiting_approval).insert(id.clone());
                    }
                }
                Some(_) => {}
            }
        }
        for id in before.keys().filter(|id| !after.contains_key(*id)) {
            self.restarting.forget_restarts(id);
            let session = lock(&self.sessions).remove(id);
            if let Some(session) = session {
                session.shutdown().await;
            }
            self.ground.timeline.forget(id);
            super::servers::forget_install(self.ground.settings_path(), id);
        }
    }
}
