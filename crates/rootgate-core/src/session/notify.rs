//! When to send `notifications/roots/list_changed`: a pure state machine.
//!
//! Some servers apply overlapping `roots/list` answers in whatever order
//! their own checks finish (the npm filesystem server, answered 300 roots and
//! then 1, kept the stale 300). So after a notification the gate holds the
//! next one until the server has asked for the list, or until a short hold
//! has passed (a server that never asks must still hear of later changes).
//! A burst of changes therefore costs one notification, the answer a server
//! gets last is always the newest list, and a change the server already
//! picked up by asking costs none. The gate only decides; the actor sends.

use std::time::Duration;

use tokio::time::Instant;

/// What the actor should do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Send one `list_changed` now.
    Send,
    /// Do nothing now; call [`NotifyGate::on_deadline`] at this instant.
    HoldUntil(Instant),
    /// Nothing to do.
    Idle,
}

/// The notification state of one connection.
#[derive(Debug)]
pub struct NotifyGate {
    hold: Duration,
    /// Generation of the list the server was given last (answers are
    /// reported in the order the server receives them), which is the list
    /// it holds.
    answered: Option<u64>,
    /// Generation of the newest list the server was notified of, until the
    /// server was given that list or a newer one.
    notified: Option<u64>,
    /// Set while a notification (or the `initialized` notification, after
    /// which most servers ask at once) has not yet been followed by a
    /// `roots/list`.
    awaiting_since: Option<Instant>,
}

impl NotifyGate {
    /// A gate for a connection that has just sent `initialized`.
    pub fn after_initialized(hold: Duration, now: Instant) -> Self {
        NotifyGate {
            hold,
            answered: None,
            notified: None,
            awaiting_since: Some(now),
        }
    }

    pub fn answered(&self) -> Option<u64> {
        self.answered
    }

    /// True when the server holds generation `current` already. Generation
    /// 0 is the empty list a server starts with: a server that has never
    /// asked does not need to hear that nothing is shared.
    fn up_to_date(&self, current: u64) -> bool {
        match self.answered {
            Some(answered) => answered == current,
            None => current == 0,
        }
    }

    fn send(&mut self, current: u64, now: Instant) -> Decision {
        self.notified = Some(current);
        self.awaiting_since = Some(now);
        Decision::Send
    }

    fn holding(&self, now: Instant) -> Option<Instant> {
        self.awaiting_since
            .map(|since| since + self.hold)
            .filter(|until| now < *until)
    }

    /// The shared list changed to generation `current`.
    pub fn on_change(&mut self, current: u64, now: Instant) -> Decision {
        if self.up_to_date(current) {
            return Decision::Idle;
        }
        match self.holding(now) {
            Some(until) => Decision::HoldUntil(until),
            None => self.send(current, now),
        }
    }

    /// The server was answered with generation `given`; the list is now at
    /// generation `current`.
    pub fn on_answered(&mut self, given: u64, current: u64, now: Instant) -> Decision {
        // The last answer counts, not the newest: a server that asks twice
        // at once can be given the newer list first and the older one last,
        // and then holds the older one.
        self.answered = Some(given);
        if self.notified.is_some_and(|notified| given >= notified) {
            self.notified = None;
        }
        if self.up_to_date(current) {
            self.awaiting_since = None;
            return Decision::Idle;
        }
        if self.notified == Some(current) {
            // A notification for the newest list is out; the server's ask
            // for it is still to come.
            return Decision::Idle;
        }
        self.send(current, now)
    }

    /// The hold set by an earlier decision has passed.
    pub fn on_deadline(&mut self, current: u64, now: Instant) -> Decision {
        if let Some(until) = self.holding(now) {
            return Decision::HoldUntil(until);
        }
        self.awaiting_since = None;
        if self.up_to_date(current) || self.notified == Some(current) {
            Decision::Idle
        } else {
            self.send(current, now)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOLD: Duration = Duration::from_millis(500);

    #[test]
    fn first_change_after_a_quiet_time_is_sent_at_once() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(HOLD, t0);
        assert_eq!(gate.on_answered(0, 0, t0), Decision::Idle);
        assert_eq!(gate.on_change(1, t0), Decision::Send);
    }

    #[test]
    fn a_burst_costs_one_notification_and_the_server_gets_the_newest() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(HOLD, t0);
        gate.on_answered(0, 0, t0);
        assert_eq!(gate.on_change(1, t0), Decision::Send);
        for g in 2..10 {
            assert_eq!(gate.on_change(g, t0), Decision::HoldUntil(t0 + HOLD));
        }
        // The server asks after the burst and is given generation 9, the
        // newest: nothing more to send.
        assert_eq!(gate.on_answered(9, 9, t0), Decision::Idle);
    }

    #[test]
    fn a_change_during_an_answer_is_sent_after_it() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(HOLD, t0);
        gate.on_answered(0, 0, t0);
        assert_eq!(gate.on_change(1, t0), Decision::Send);
        assert!(matches!(gate.on_change(2, t0), Decision::HoldUntil(_)));
        // The server asked between the two changes and got generation 1.
        assert_eq!(gate.on_answered(1, 2, t0), Decision::Send);
        assert_eq!(gate.on_answered(2, 2, t0), Decision::Idle);
    }

    #[test]
    fn an_older_list_received_last_is_corrected() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(HOLD, t0);
        gate.on_answered(0, 0, t0);
        assert_eq!(gate.on_change(1, t0), Decision::Send);
        assert!(matches!(gate.on_change(2, t0), Decision::HoldUntil(_)));
        assert_eq!(gate.on_answered(1, 2, t0), Decision::Send);
        // The server asked twice around the change: the answer with the
        // newest list went out first, the one with the older list last.
        assert_eq!(gate.on_answered(2, 2, t0), Decision::Idle);
        assert_eq!(gate.on_answered(1, 2, t0), Decision::Send);
        assert_eq!(gate.on_answered(2, 2, t0), Decision::Idle);
    }

    #[test]
    fn an_older_answer_before_the_notified_one_waits_for_it() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(HOLD, t0);
        gate.on_answered(0, 0, t0);
        assert_eq!(gate.on_change(1, t0), Decision::Send);
        // The server asked on its own just before the change; the ask the
        // notification causes is still to come.
        assert_eq!(gate.on_answered(0, 1, t0), Decision::Idle);
        assert_eq!(gate.on_answered(1, 1, t0), Decision::Idle);
    }

    #[test]
    fn a_server_that_never_asks_still_hears_later_changes() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(HOLD, t0);
        assert_eq!(gate.on_change(1, t0), Decision::HoldUntil(t0 + HOLD));
        assert_eq!(gate.on_deadline(1, t0 + HOLD), Decision::Send);
        assert!(matches!(
            gate.on_change(2, t0 + HOLD),
            Decision::HoldUntil(_)
        ));
        let later = t0 + HOLD * 3;
        assert_eq!(gate.on_deadline(2, later), Decision::Send);
        // After the hold, with nothing new, the deadline does nothing.
        assert_eq!(gate.on_deadline(2, later + HOLD), Decision::Idle);
        assert_eq!(gate.on_change(3, later + HOLD * 2), Decision::Send);
    }

    #[test]
    fn a_change_the_server_already_asked_for_costs_nothing() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(HOLD, t0);
        gate.on_answered(0, 0, t0);
        // The server asked on its own (e.g. inside a tool call) just after
        // the change and before the actor saw it.
        gate.on_answered(1, 1, t0);
        assert_eq!(gate.on_change(1, t0), Decision::Idle);
    }

    #[test]
    fn nothing_is_sent_for_an_empty_list_never_given() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(HOLD, t0);
        assert_eq!(gate.on_deadline(0, t0 + HOLD), Decision::Idle);
        assert_eq!(gate.on_change(0, t0 + HOLD), Decision::Idle);
    }
}
