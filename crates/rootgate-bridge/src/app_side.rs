//! The relay as the app side of its session: the bridge's [`Relay`]
//! implementing the session layer's [`AppSide`] trait, so that a session
//! drives the relay without naming it.
//!
//! Each method is the relay's own, of the same name; the relay's `Seen`
//! (who the app is) becomes the one fact the session needs of it, whether
//! the app has arrived. What is not here: the relay's behaviour (`relay`).

use std::sync::Arc;

use tokio::sync::watch;

use super::relay::Relay;
use rootgate_model::consent::SharedRoots;
use rootgate_model::servers::Era;
use rootgate_session::app_side::{AppFuture, AppSide, AttachedLife};
use rootgate_session::process::DrainOnDrop;
use rootgate_session::ready::Readiness;
use rootgate_session::wire::Wire;

impl AppSide for Relay {
    fn started_by(&self) -> Option<rootgate_session::process::StartedBy> {
        self.app_started_by()
    }

    fn follow_readiness(&self, readiness: watch::Receiver<Readiness>) {
        Relay::follow_readiness(self, readiness);
    }

    fn guess_era(&self, guessed: bool) {
        Relay::guess_era(self, guessed);
    }

    fn attach(
        self: Arc<Self>,
        stdout: DrainOnDrop,
        wire: &Wire,
        era: Era,
        roots: watch::Receiver<SharedRoots>,
    ) -> AttachedLife {
        let attached = Relay::attach(&self, stdout, wire, era, roots);
        AttachedLife {
            life: attached.life,
            initialized: attached.initialized,
            ended: attached.ended,
            reader: attached.reader,
        }
    }

    fn ready(&self, life: u64, replay: bool) -> AppFuture<'_, ()> {
        Box::pin(Relay::ready(self, life, replay))
    }

    fn detach<'a>(&'a self, life: u64, why: &'a str) -> AppFuture<'a, ()> {
        Box::pin(Relay::detach(self, life, why))
    }

    fn restarting<'a>(&'a self, life: u64, why: &'a str) -> AppFuture<'a, ()> {
        Box::pin(Relay::restarting(self, life, why))
    }

    fn app_arrived(&self) -> bool {
        self.subscribe().borrow().app.is_some()
    }

    fn app_arrival(&self) -> AppFuture<'static, bool> {
        let mut seen = self.subscribe();
        Box::pin(async move { seen.wait_for(|seen| seen.app.is_some()).await.is_ok() })
    }
}
