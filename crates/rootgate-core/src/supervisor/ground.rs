//! What every service stands on: the store, the timeline, the changes the
//! window hears of, the runtime to spawn on and the person's home folder.
//! Each service keeps a copy (all of it is shared handles), so none needs
//! the root to reach them.
//!
//! Also the two small handles several services share: the tray's cue
//! ([`TrayCue`], grown when a consent prompt or a tool question comes or
//! goes) and the desktop the questions found ([`DesktopSlot`]), which the
//! other notifications go through too. Nothing here decides anything.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use rootgate_model::store::Store;
use rootgate_model::timeline::Timeline;
use rootgate_notify::Desktop;
use tokio::sync::broadcast;

use super::Change;

/// The shared ground of the services.
#[derive(Clone)]
pub(crate) struct Ground {
    pub(crate) store: Arc<Store>,
    pub(crate) timeline: Arc<Timeline>,
    pub(crate) changes: broadcast::Sender<Change>,
    /// The runtime the supervisor was opened on: sessions and timers are
    /// spawned there even when a method is called from a thread outside it
    /// (the app's synchronous commands run on the UI thread).
    pub(crate) runtime: tokio::runtime::Handle,
    pub(crate) home: Option<PathBuf>,
}

impl Ground {
    pub(crate) fn settings_path(&self) -> &Path {
        self.store.file().path()
    }

    /// Tells the window of `change`; nobody listening is no error.
    pub(crate) fn send(&self, change: Change) {
        let _ = self.changes.send(change);
    }
}

/// A counter that grows whenever a consent prompt opens or closes, or a
/// tool call starts or stops waiting: the tray's cue to list the
/// questions waiting again.
#[derive(Clone)]
pub(crate) struct TrayCue(Arc<tokio::sync::watch::Sender<u64>>);

impl TrayCue {
    pub(crate) fn new() -> TrayCue {
        TrayCue(Arc::new(tokio::sync::watch::Sender::new(0)))
    }

    pub(crate) fn grow(&self) {
        self.0.send_modify(|r| *r += 1);
    }

    pub(crate) fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.0.subscribe()
    }
}

/// The desktop's notification server, once the shell (or a test) found
/// one: the questions ask through it, and the other notifications and
/// the tool questions are sent through it too.
#[derive(Clone, Default)]
pub(crate) struct DesktopSlot(Arc<OnceLock<Arc<Desktop>>>);

impl DesktopSlot {
    /// Sets the desktop; false when one was set already.
    pub(crate) fn set(&self, desktop: Arc<Desktop>) -> bool {
        self.0.set(desktop).is_ok()
    }

    pub(crate) fn get(&self) -> Option<Arc<Desktop>> {
        self.0.get().cloned()
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section here leaves its map whole, so a poisoned lock
    // is safe to keep using.
    m.lock().unwrap_or_else(|p| p.into_inner())
}
