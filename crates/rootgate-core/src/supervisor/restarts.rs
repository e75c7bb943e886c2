//! Restarts: how an enabled, approved server that stops unexpectedly is
//! started again ([`RestartPolicy`]: backoff doubling to a cap, jitter, a
//! bound on attempts), and each server's bookkeeping (attempts so far, when
//! its current run began, the restart scheduled), kept up to date from
//! every status change the sessions forward.
//!
//! Not here: starting and stopping a server (its session, driven from
//! `sessions`) and whether a server may run at all (its approval, kept
//! by the store). A person's start, stop, restart or removal only tells
//! this module to forget what it counted ([`Restarting::take_over`]).

use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::ground::Ground;
use super::lock;
use rootgate_model::ids::ServerId;
use rootgate_model::timeline::Event;
use rootgate_session::Status;

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
    /// The restart scheduled, as the window shows it.
    scheduled: Option<Retry>,
}

/// A restart scheduled after a failure: when, and which attempt of how
/// many. The window shows it on the server's row ("retrying in 6 s · 4 of
/// 5") rather than a plain failure.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    /// When it starts again, in milliseconds since the Unix epoch.
    pub at_ms: u64,
    pub attempt: u32,
    pub of: u32,
}

impl Restarts {
    /// Forgets past crashes and cancels a scheduled restart: the person
    /// took over (start, stop, restart, remove).
    fn reset(&mut self) {
        self.attempts = 0;
        self.scheduled = None;
        if let Some(pending) = self.pending.take() {
            pending.cancel();
        }
    }
}

/// What starts a server again once its delay is over (if it is still
/// enabled and approved): the servers, which own the sessions, hand it
/// over, so that restarts name nothing above them.
pub(super) type StartAgain = Arc<dyn Fn(&ServerId) + Send + Sync>;

/// The servers' restarts after a failure: the policy, and each server's
/// bookkeeping under one lock.
pub(super) struct Restarting {
    ground: Ground,
    restart_policy: RestartPolicy,
    restarts: Mutex<HashMap<ServerId, Restarts>>,
    /// Who starts a server again (the servers, while they are there).
    again: StartAgain,
}

impl Restarting {
    pub(super) fn new(
        ground: Ground,
        restart_policy: RestartPolicy,
        again: StartAgain,
    ) -> Restarting {
        Restarting {
            ground,
            restart_policy,
            restarts: Mutex::new(HashMap::new()),
            again,
        }
    }

    /// Restart bookkeeping on every status change: note when a run began,
    /// and schedule a restart of an enabled, approved server that failed.
    pub(super) fn on_status(&self, id: &ServerId, status: &Status) {
        let _runtime = self.ground.runtime.enter();
        let mut restarts = lock(&self.restarts);
        let entry = restarts.entry(id.clone()).or_default();
        if !matches!(status, Status::Failed { .. }) && entry.scheduled.take().is_some() {
            self.send_retry(id, None);
        }
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
        let Ok(spec) = self.ground.store.server(id) else {
            return;
        };
        if !(spec.enabled && spec.is_approved()) {
            return;
        }
        if entry.attempts >= policy.max_attempts {
            self.ground.timeline.record(
                id,
                Event::GaveUp {
                    attempts: entry.attempts,
                },
            );
            // It waits for the person, also at the next launch: starting a
            // server that failed this often at every launch only repeats it.
            if let Err(e) = self.ground.store.set_gave_up(id, true) {
                tracing::warn!("could not record that a server gave up: {e}");
            }
            return;
        }
        entry.attempts += 1;
        let delay = policy.delay(entry.attempts, jitter());
        self.ground.timeline.record(
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
        let retry = Retry {
            at_ms: rootgate_model::ids::now_ms() + delay.as_millis() as u64,
            attempt: entry.attempts,
            of: policy.max_attempts,
        };
        entry.scheduled = Some(retry);
        self.send_retry(id, Some(retry));
        self.restart_after(id.clone(), delay, token);
    }

    /// Starts the server again after `delay`, unless `token` is cancelled
    /// first or the servers are gone.
    fn restart_after(&self, id: ServerId, delay: Duration, token: CancellationToken) {
        let again = Arc::clone(&self.again);
        tokio::spawn(async move {
            tokio::select! {
                _ = token.cancelled() => {}
                _ = tokio::time::sleep(delay) => {
                    again(&id);
                }
            }
        });
    }

    /// The person took over a server: forget its crashes, cancel a
    /// scheduled restart.
    pub(super) fn take_over(&self, id: &ServerId) {
        let had = lock(&self.restarts)
            .get_mut(id)
            .map(|restarts| {
                let had = restarts.scheduled.is_some();
                restarts.reset();
                had
            })
            .unwrap_or(false);
        if had {
            self.send_retry(id, None);
        }
    }

    /// The restart scheduled for a server, if one is.
    pub(super) fn retry_of(&self, id: &ServerId) -> Option<Retry> {
        lock(&self.restarts).get(id).and_then(|r| r.scheduled)
    }

    fn send_retry(&self, id: &ServerId, retry: Option<Retry>) {
        let _ = self.ground.changes.send(super::Change::Retry {
            server: id.clone(),
            retry,
        });
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
