//! Restarts: how an enabled, approved server that stops unexpectedly is
//! started again ([`RestartPolicy`]: backoff doubling to a cap, jitter, a
//! bound on attempts), and each server's bookkeeping (attempts so far, when
//! its current run began, the restart scheduled), kept up to date from
//! every status change the supervisor forwards.
//!
//! Not here: starting and stopping a server (its session, driven from
//! `supervisor.rs`) and whether a server may run at all (its approval, kept
//! by the store). A person's start, stop, restart or removal only tells
//! this module to forget what it counted ([`Supervisor::take_over`]).

use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{Supervisor, lock};
use crate::ids::ServerId;
use crate::session::Status;
use crate::timeline::Event;

/// How an enabled server that stops unexpectedly is started again:
/// exponential backoff with jitter, up to a bound, after which Rootgate
/// gives up and says so. A manual start resets the count, and so does a run
/// that lasted `stable_after`.
#[derive(Debug, Clone, Copy)]
pub struct RestartPolicy {
    pub first_delay: Duration,
    pub max_delay: Duration,
    pub max_attempts: u32,
    pub stable_after: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        RestartPolicy {
            first_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            max_attempts: 5,
            stable_after: Duration::from_secs(60),
        }
    }
}

impl RestartPolicy {
    /// The delay before attempt `attempt` (1-based): doubling from
    /// `first_delay`, capped, then spread by ±20% so servers that crashed
    /// together do not restart in lockstep.
    pub fn delay(&self, attempt: u32, jitter: f64) -> Duration {
        let doubled = self
            .first_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        let capped = doubled.min(self.max_delay);
        capped.mul_f64(0.8 + 0.4 * jitter.clamp(0.0, 1.0))
    }
}

/// The restart bookkeeping of one server.
#[derive(Default)]
pub(super) struct Restarts {
    attempts: u32,
    running_since: Option<Instant>,
    pending: Option<CancellationToken>,
}

impl Restarts {
    /// Forgets past crashes and cancels a scheduled restart: the person
    /// took over (start, stop, restart, remove).
    fn reset(&mut self) {
        self.attempts = 0;
        if let Some(pending) = self.pending.take() {
            pending.cancel();
        }
    }
}

impl Supervisor {
    /// Restart bookkeeping on every status change: note when a run began,
    /// and schedule a restart of an enabled, approved server that failed.
    pub(super) fn on_status(&self, id: &ServerId, status: &Status) {
        let _runtime = self.runtime.enter();
        let mut restarts = lock(&self.restarts);
        let entry = restarts.entry(id.clone()).or_default();
        match status {
            Status::Running(_) => entry.running_since = Some(Instant::now()),
            Status::Failed { .. } => self.after_failure(id, entry),
            Status::Stopped { .. }
            | Status::Starting
            | Status::Stopping
            | Status::Waiting { .. } => {}
        }
    }

    /// A server failed: unless it is not to run or has used up its
    /// attempts (then the timeline says Rootgate gave up), schedule the
    /// next attempt, replacing one already scheduled.
    fn after_failure(&self, id: &ServerId, entry: &mut Restarts) {
        let policy = self.restart_policy;
        if entry
            .running_since
            .take()
            .is_some_and(|since| since.elapsed() >= policy.stable_after)
        {
            entry.attempts = 0;
        }
        let Ok(spec) = self.store.server(id) else {
            return;
        };
        if !(spec.enabled && spec.is_approved()) {
            return;
        }
        if entry.attempts >= policy.max_attempts {
            self.timeline.record(
                id,
                Event::GaveUp {
                    attempts: entry.attempts,
                },
            );
            return;
        }
        entry.attempts += 1;
        let delay = policy.delay(entry.attempts, jitter());
        self.timeline.record(
            id,
            Event::RestartScheduled {
                attempt: entry.attempts,
                of: policy.max_attempts,
                delay_ms: delay.as_millis() as u64,
            },
        );
        let token = CancellationToken::new();
        if let Some(old) = entry.pending.replace(token.clone()) {
            old.cancel();
        }
        self.restart_after(id.clone(), delay, token);
    }

    /// Starts the server again after `delay`, unless `token` is cancelled
    /// first or the supervisor is gone.
    fn restart_after(&self, id: ServerId, delay: Duration, token: CancellationToken) {
        let me = self.me.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = token.cancelled() => {}
                _ = tokio::time::sleep(delay) => {
                    let Some(supervisor) = me.upgrade() else { return };
                    // The spec may have changed while waiting; run
                    // only what is still enabled and approved.
                    if let Ok(spec) = supervisor.store.server(&id)
                        && spec.enabled
                        && spec.is_approved()
                        && let Ok(session) = supervisor.session(&id)
                    {
                        session.start(spec);
                    }
                }
            }
        });
    }

    /// The person took over a server: forget its crashes, cancel a
    /// scheduled restart.
    pub(super) fn take_over(&self, id: &ServerId) {
        if let Some(restarts) = lock(&self.restarts).get_mut(id) {
            restarts.reset();
        }
    }

    /// A server was removed: take over, and forget it altogether.
    pub(super) fn forget_restarts(&self, id: &ServerId) {
        self.take_over(id);
        lock(&self.restarts).remove(id);
    }

    /// Rootgate is shutting down: no server is started again.
    pub(super) fn cancel_restarts(&self) {
        for restarts in lock(&self.restarts).values_mut() {
            restarts.reset();
        }
    }
}

/// A uniform number in [0, 1) for backoff jitter.
fn jitter() -> f64 {
    let mut bytes = [0u8; 4];
    if getrandom::fill(&mut bytes).is_err() {
        return 0.5;
    }
    f64::from(u32::from_le_bytes(bytes)) / (f64::from(u32::MAX) + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_caps_and_spreads() {
        let p = RestartPolicy {
            first_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(10),
            max_attempts: 5,
            stable_after: Duration::from_secs(60),
        };
        assert_eq!(p.delay(1, 0.5), Duration::from_secs(1));
        assert_eq!(p.delay(2, 0.5), Duration::from_secs(2));
        assert_eq!(p.delay(3, 0.5), Duration::from_secs(4));
        assert_eq!(p.delay(9, 0.5), Duration::from_secs(10));
        assert_eq!(p.delay(1, 0.0), Duration::from_millis(800));
        assert_eq!(p.delay(1, 1.0), Duration::from_millis(1200));
        assert!((0..100).map(|_| jitter()).all(|j| (0.0..1.0).contains(&j)));
    }
}
