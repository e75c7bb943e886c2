//! The relay's side of a restart made to change the server's folders
//! (see `route::resend` for which requests go to the new start and why):
//! an app request is marked handed to a life at the moment its line is
//! put on that life's wire, under the state's lock, so a restart sees it
//! either before (not handed: kept, and its holder sends it to the next
//! life) or after (handed: failed, or sent again if it only reads), never
//! in between; and the restart itself ([`Relay::restarting`]).
//!
//! What is not here: which requests wait for a life and why (the hold, the
//! fence, `to_ready_server`), and the router's bookkeeping.

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Frame, Out, Relay};
use crate::route::request_id;

impl Relay {
    /// Puts `line` on the wire `frames`, if that is still the attached
    /// life's, marking the app request it carries as handed; gives the
    /// line back otherwise (the life ended under it), for the next life.
    pub(super) async fn hand_to(
        &self,
        frames: &mpsc::Sender<Frame>,
        line: Vec<u8>,
    ) -> Result<(), Vec<u8>> {
        let permit = match frames.try_reserve() {
            Ok(permit) => permit,
            Err(mpsc::error::TrySendError::Closed(())) => return Err(line),
            Err(mpsc::error::TrySendError::Full(())) => match frames.reserve().await {
                Ok(permit) => permit,
                Err(_) => return Err(line),
            },
        };
        let mut state = self.lock();
        if !state
            .attached
            .as_ref()
            .is_some_and(|attached| attached.same_channel(frames))
        {
            return Err(line);
        }
        if let Some(ours) = request_id(&line) {
            state.router.handed(ours);
        }
        permit.send(Frame::Lines(line));
        Ok(())
    }

    /// A line for the life whose output caused it (`frames`): on its wire
    /// while it is attached; an app request whose life ended under it goes
    /// to the next life instead, on a task of its own (the ended life's
    /// reader is about to be stopped); anything else was for that life
    /// only, and goes with it.
    pub(super) async fn to_life(&self, frames: &mpsc::Sender<Frame>, line: Vec<u8>) {
        let Err(line) = self.hand_to(frames, line).await else {
            return;
        };
        if request_id(&line).is_some()
            && let Some(relay) = self.me.upgrade()
        {
            tokio::spawn(async move { relay.to_ready_server(line).await });
        }
    }

    /// The life `life` is being stopped by Rootgate to start the server
    /// again with other folders: as [`Relay::detach`], except that the
    /// app's requests the next start can serve wait for it (see
    /// `route::resend`).
    pub async fn restarting(&self, life: u64, why: &str) {
        let outs = {
            let mut state = self.lock();
            if state.life != life || state.attached.is_none() {
                return;
            }
            state.attached = None;
            state.init_waiter = None;
            state.router.server_restarting(why, Instant::now())
        };
        self.ready.send_replace(None);
        self.perform(outs, None).await;
    }

    /// No life can start: the requests kept for one (see
    /// [`Relay::restarting`]) get `why` rather than wait for nothing.
    pub(super) fn fail_kept(&self, why: &str) -> Vec<Out> {
        self.lock().router.server_gone(why, Instant::now())
    }
}
