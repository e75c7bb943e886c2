//! Watches the folders that are roots, so that a folder deleted, renamed,
//! unmounted or made unreadable is withdrawn from every server within about
//! a second, and offered again to the same servers when it comes back.
//!
//! The spec says clients MUST monitor root accessibility. This module does
//! it with filesystem events (inotify on Linux, through the process's one
//! watcher in `watch`; polling only where the user has no inotify instance
//! left): each root's folder and the nearest existing folder
//! above it are watched without recursion; an event on a root or on a
//! folder above it re-checks that root with `folders::check`, and the store
//! is told whether it is available. Filesystem events do not see mounts, so
//! a change of the mount table (see `mounts`) makes every watch anew and
//! re-checks every root. A root is also unavailable while the filesystem
//! that held it when it was shared is not mounted, even where an empty
//! folder is left at its path. Grants are kept while a root is unavailable.
//! Events inside a root (files changing in a project) are filtered out at
//! once.
//!
//! The monitor decides only availability; it never adds, removes or grants.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use crate::folders;
use crate::roots::Root;
use crate::store::Store;
use rootgate_host::mounts::{MountChanges, MountTable};
use rootgate_host::watch::{Change, Watch, Watches};

/// How long events are gathered before roots are re-checked: one deletion
/// of a big tree is thousands of events, and one re-check is enough.
const SETTLE: Duration = Duration::from_millis(100);

/// Whether a root is usable right now: it still resolves to the real path
/// it was granted for, that is a listable folder, and it is on the
/// filesystem it was on when it was shared (or on one mounted over it).
/// `mounts` is the current mount table; where it, or the root's own record
/// of its mount, is missing, the folder's checks alone decide.
pub fn is_available(root: &Root, mounts: &MountTable) -> bool {
    let resolves = folders::check(&root.real_path)
        .map(|f| f.real() == root.real_path)
        .unwrap_or(false);
    resolves
        && match (&root.mount, mounts.holding(&root.real_path)) {
            (Some(then), Some(now)) => now.starts_with(then),
            _ => true,
        }
}

/// Starts the monitor on the current tokio runtime. It runs until its task
/// is aborted (a connection of the gate's ends) or its watcher ends. A folder that cannot be watched is re-checked on events
/// above it, or every `watch::POLL_EVERY` when the process has no watcher.
pub fn spawn(store: Arc<Store>) -> tokio::task::JoinHandle<()> {
    let (watcher, events) = Watches::process().subscribe(true);
    tokio::spawn(run(store, watcher, events))
}

async fn run(store: Arc<Store>, mut watcher: Watch, mut events: mpsc::UnboundedReceiver<Change>) {
    let mut revisions = store.subscribe_revision();
    let mut mount_changes = MountChanges::open();
    let mut mounts = MountTable::read();
    let mut watched: HashSet<PathBuf> = HashSet::new();
    let mut roots = store.snapshot().roots;
    rewatch(&mut watcher, &roots, &mut watched);
    loop {
        let mut pending = Pending::default();
        tokio::select! {
            changed = revisions.changed() => {
                if changed.is_err() {
                    return;
                }
                revisions.borrow_and_update();
                let now = store.snapshot().roots;
                // Only roots added since the last look need a first check;
                // the others are current (availability is not saved).
                let known: HashSet<_> = roots.iter().map(|r| r.id.clone()).collect();
                for root in now.iter().filter(|r| !known.contains(&r.id)) {
                    let _ = store.set_available(&root.id, is_available(root, &mounts));
                }
                roots = now;
                rewatch(&mut watcher, &roots, &mut watched);
                continue;
            }
            event = events.recv() => match event {
                Some(event) => pending.event(event),
                None => return,
            },
            () = mount_changes.changed() => pending.mounts = true,
        }
        // Gather what follows in the next moment into one re-check.
        let settle = tokio::time::sleep(SETTLE);
        tokio::pin!(settle);
        loop {
            tokio::select! {
                _ = &mut settle => break,
                more = events.recv() => match more {
                    Some(more) => {
                        pending.event(more);
                    }
                    None => return,
                },
                () = mount_changes.changed() => pending.mounts = true,
            }
        }
        if pending.mounts {
            // Watches on an unmounted filesystem died without an event, and
            // a folder mounted over is another folder to inotify, so every
            // watch is made again before anything is checked.
            mounts = MountTable::read();
            for gone in watched.drain() {
                watcher.remove(&gone);
            }
            rewatch(&mut watcher, &roots, &mut watched);
        }
        for root in roots.iter().filter(|root| pending.affects(root)) {
            let _ = store.set_available(&root.id, is_available(root, &mounts));
        }
        rewatch(&mut watcher, &roots, &mut watched);
    }
}

/// What happened during one settling moment.
#[derive(Default)]
struct Pending {
    touched: Vec<PathBuf>,
    /// An event without paths (the watcher lost events) or a change of
    /// mounts: every root is checked.
    everything: bool,
    mounts: bool,
}

impl Pending {
    /// Takes one change in. "Look again" (events lost, or a tick where
    /// nothing can be watched) names no path, which makes every root be
    /// re-checked. Opens and reads are never reported (`watch`): the check
    /// itself lists each root's folder, and counting that made every check
    /// wake the next one, ten times a second for as long as a folder was
    /// shared.
    fn event(&mut self, change: Change) {
        self.everything |= change.paths.is_empty();
        self.touched.extend(change.paths);
    }

    fn affects(&self, root: &Root) -> bool {
        self.everything || self.mounts || self.touched.iter().any(|p| root.real_path.starts_with(p))
    }
}

/// Watches each root's folder and the nearest existing folder above it, and
/// stops watching what is no longer needed.
fn rewatch(watcher: &mut Watch, roots: &[Root], watched: &mut HashSet<PathBuf>) {
    let mut wanted: HashSet<PathBuf> = HashSet::new();
    for root in roots {
        if root.real_path.is_dir() {
            wanted.insert(root.real_path.clone());
        }
        if let Some(above) = nearest_existing_ancestor(&root.real_path) {
            wanted.insert(above);
        }
    }
    for gone in watched.difference(&wanted).cloned().collect::<Vec<_>>() {
        watcher.remove(&gone);
        watched.remove(&gone);
    }
    for path in wanted {
        if !watched.contains(&path) && watcher.add(&path) {
            watched.insert(path);
        }
    }
}

fn nearest_existing_ancestor(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .skip(1)
        .find(|p| p.is_dir())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_existing_folder_above_is_watched() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a/b/c");
        assert_eq!(
            nearest_existing_ancestor(&deep).as_deref(),
            Some(dir.path())
        );
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(
            nearest_existing_ancestor(&deep).as_deref(),
            Some(dir.path().join("a/b").as_path())
        );
    }
}
