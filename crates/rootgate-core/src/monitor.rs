//! Watches the folders that are roots, so that a folder deleted, renamed,
//! unmounted or made unreadable is withdrawn from every server within about
//! a second, and offered again to the same servers when it comes back.
//!
//! The spec says clients MUST monitor root accessibility. This module does
//! it with filesystem events (inotify on Linux, through the `notify` crate),
//! never by polling: each root's folder and the nearest existing folder
//! above it are watched without recursion; an event on a root or on a
//! folder above it re-checks that root with `folders::check`, and the store
//! is told whether it is available. Grants are kept while a root is
//! unavailable. Events inside a root (files changing in a project) are
//! filtered out at once.
//!
//! The monitor decides only availability; it never adds, removes or grants.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;

use crate::folders;
use crate::roots::Root;
use crate::store::Store;

/// How long events are gathered before roots are re-checked: one deletion
/// of a big tree is thousands of events, and one re-check is enough.
const SETTLE: Duration = Duration::from_millis(100);

/// Whether a root is usable right now: it still resolves to the real path
/// it was granted for, and that is a listable folder.
pub fn is_available(root: &Root) -> bool {
    folders::check(&root.real_path)
        .map(|f| f.real() == root.real_path)
        .unwrap_or(false)
}

/// Starts the monitor on the current tokio runtime. It runs until the store
/// is dropped. Returns an error only when the platform's watcher cannot be
/// created; a folder that cannot be watched is simply re-checked on events
/// above it.
pub fn spawn(store: Arc<Store>) -> notify::Result<()> {
    let (tx, rx) = mpsc::unbounded_channel();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        // The receiver is gone only when the monitor stopped.
        let _ = tx.send(event);
    })?;
    tokio::spawn(run(store, watcher, rx));
    Ok(())
}

async fn run(
    store: Arc<Store>,
    mut watcher: RecommendedWatcher,
    mut events: mpsc::UnboundedReceiver<notify::Result<notify::Event>>,
) {
    let mut revisions = store.subscribe_revision();
    let mut watched: HashSet<PathBuf> = HashSet::new();
    let mut roots = store.snapshot().roots;
    rewatch(&mut watcher, &roots, &mut watched);
    loop {
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
                    let _ = store.set_available(&root.id, is_available(root));
                }
                roots = now;
                rewatch(&mut watcher, &roots, &mut watched);
            }
            event = events.recv() => {
                let Some(event) = event else { return };
                let mut touched: Vec<PathBuf> = paths_of(event);
                // Gather what follows in the next moment into one re-check.
                let settle = tokio::time::sleep(SETTLE);
                tokio::pin!(settle);
                loop {
                    tokio::select! {
                        _ = &mut settle => break,
                        more = events.recv() => match more {
                            Some(more) => touched.extend(paths_of(more)),
                            None => return,
                        },
                    }
                }
                let rescan = touched.is_empty();
                for root in &roots {
                    let affected = rescan
                        || touched.iter().any(|p| root.real_path.starts_with(p));
                    if affected {
                        let _ = store.set_available(&root.id, is_available(root));
                    }
                }
                rewatch(&mut watcher, &roots, &mut watched);
            }
        }
    }
}

/// The paths an event names; an error from the watcher (events lost)
/// names none, which makes every root be re-checked.
fn paths_of(event: notify::Result<notify::Event>) -> Vec<PathBuf> {
    event.map(|e| e.paths).unwrap_or_default()
}

/// Watches each root's folder and the nearest existing folder above it, and
/// stops watching what is no longer needed.
fn rewatch(watcher: &mut RecommendedWatcher, roots: &[Root], watched: &mut HashSet<PathBuf>) {
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
        let _ = watcher.unwatch(&gone);
        watched.remove(&gone);
    }
    for path in wanted {
        if !watched.contains(&path) && watcher.watch(&path, RecursiveMode::NonRecursive).is_ok() {
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
