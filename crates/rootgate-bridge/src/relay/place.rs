//! What ties a relay to the process that serves its connection: where its
//! notes go (this process's standard error, or the door's the gate was
//! handed), what the app gave the door (its variables and working folder),
//! and how many relays this process holds. A bridge of its own needs none of it; the gate, which serves every
//! connection in one long-lived process, needs all of it.
//!
//! What is not here: what the relay carries (`relay`), and the door and the
//! gate themselves (`rootgate_door`, `gate`).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::Relay;

/// How many relays exist in this process: one per connection, until it
/// has ended and nothing of it is held (see [`live_relays`]).
pub(super) static LIVE: AtomicUsize = AtomicUsize::new(0);

/// How many connections' relays this process holds now. A gate serves many
/// connections in one process, so one that ended must leave nothing; this
/// count is how a test (and the gate's log) can tell.
pub fn live_relays() -> usize {
    LIVE.load(Ordering::Relaxed)
}

impl Drop for Relay {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Relay {
    /// Writes this connection's notes to `notes` rather than to this
    /// process's standard error (a door's, in the gate). Set once, before
    /// the app's first line.
    pub(crate) fn write_notes_to(&self, notes: crate::notes::Notes) {
        let _ = self.notes_to.set(notes);
    }

    /// Starts the server as the app's own child would be (see
    /// `AppSide::started_by`). Set once, before the server starts.
    pub(crate) fn started_by_app(&self, started_by: rootgate_session::process::StartedBy) {
        let _ = self.started_by.set(started_by);
    }

    /// What the app gave the door, if a door handed the connection over.
    pub(crate) fn app_started_by(&self) -> Option<rootgate_session::process::StartedBy> {
        self.started_by.get().cloned()
    }

    /// Writes `note` on the connection's standard error, always (a reason
    /// the connection ends, a damaged settings file).
    pub(crate) fn say(&self, note: &str) {
        self.notes_to.get().cloned().unwrap_or_default().say(note);
    }
}
