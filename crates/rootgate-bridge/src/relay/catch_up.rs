//! Catching up before saying no server can start: a bridge whose server
//! waits for folders (given as arguments, none shared or sharing paused)
//! answers app requests at once with why; before it does, it reads the
//! settings file again if it was saved since (the fence's own look,
//! `Fence::caught_up`), so an app that calls right after the person
//! resumed or shared is not answered from the settings before that save.
//! When the caught-up list holds folders the server did not have when it
//! said it cannot start, the request waits for the start this brings (the
//! session starts it again on any change of its list), at most
//! [`START_AFTER_CATCH_UP`], and is then sent to it like any request
//! waiting for a life.
//!
//! What is not here: the wait for a life itself (`Relay::next_life`), the
//! session's start (`rootgate-session`), and the fence's other work
//! (`fence`). Nothing here runs while a life is ready: only the
//! no-server path pays for the `stat`.

use std::time::Duration;

use tokio::time::Instant;

use super::Relay;

/// The most a request waits for the start a caught-up save brings before
/// it is answered with why no server can start: a start that follows a
/// change of folders is decided by the session at once; past this, the
/// change did not make the server startable (a Workspace connection whose
/// project holds none of the new folders) and the app hears why.
pub(crate) const START_AFTER_CATCH_UP: Duration = Duration::from_secs(3);

impl Relay {
    /// Records the store's list for the server as it is when the bridge
    /// is told that no life can start: only a list that moved since can
    /// make it start.
    pub(super) fn note_unstartable_list(&self) {
        if let Some(fence) = self.fence.get() {
            self.lock().unstartable_at = Some(fence.shared_now().0);
        }
    }

    /// Catches up with the settings file; returns until when a request
    /// should wait for the start the caught-up settings bring, or `None`
    /// if they bring none (nothing shared, or nothing changed since the
    /// server said it cannot start) and the request is answered now.
    pub(super) fn start_after_catch_up(&self) -> Option<Instant> {
        let fence = self.fence.get()?;
        let (generation, any) = fence.caught_up();
        let state = self.lock();
        (any && state.unstartable_at != Some(generation))
            .then(|| Instant::now() + START_AFTER_CATCH_UP)
    }

    /// The wait for a start ran out: the list as it is now brought none,
    /// and later requests are answered at once until it moves again.
    pub(super) fn no_start_came(&self) {
        self.note_unstartable_list();
    }
}
