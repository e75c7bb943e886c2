//! When to send `notifications/roots/list_changed`, and when a server has
//! failed to pick a change up: a pure state machine over instants.
//!
//! The guarantee it serves: after any sequence of changes, at any speed, the
//! last list a server *applies* is the list it is granted now. "The last
//! answer written is the newest list" is not enough for that. The npm
//! filesystem server acknowledges an answer at once and checks its paths
//! afterwards, one at a time, so a large answer still being checked can land
//! after a small one given later (300 grants then 299 revokes left it with
//! 207–301 folders). So the gate does four things:
//!
//! - **Paces** notifications by the time the server is taken to need to
//!   apply what it was given: `apply_per_root` for each root of each answer,
//!   one answer after another, so a server is not given a new list while
//!   it is still checking the last (but never held longer than `hold` after
//!   an answer). While a notification has not been followed by a
//!   `roots/list`, the next also waits until `hold` has passed. A change
//!   after a quiet time, or after small answers, is sent at once; a burst of
//!   large lists costs a few dozen notifications, not one per change.
//! - **Confirms** after a burst: each answer is taken to be possibly still
//!   applying until `settle` after the server is taken to have applied it.
//!   An answer given while an answer with a *different* list may still be
//!   applying leaves the outcome uncertain (a server that checks answers
//!   concurrently may finish them in any order); once every such answer is
//!   past that time, one more `list_changed` is sent, and the server's ask
//!   is answered with the current list, which it then applies alone, after
//!   everything it was given before. A single change after a quiet time
//!   costs nothing extra.
//! - **Watches pickup**: a notification not followed by a `roots/list`
//!   within `pickup` is reported ([`Decision::NotPickedUp`]) so that the
//!   actor can restart a server that would otherwise keep a withdrawn
//!   folder, or show an addition as not picked up yet.
//! - Never notifies a server of a list it already holds.
//!
//! The gate only decides; the actor sends, restarts and records.

use std::time::Duration;

use tokio::time::Instant;

/// The timing of the gate.
#[derive(Debug, Clone, Copy)]
pub struct NotifyTiming {
    /// How long a notification that has not been followed by a
    /// `roots/list` holds the next one; also the most the time a server is
    /// taken to need to apply its answers holds the next notification.
    pub hold: Duration,
    /// How long a server is taken to need, per root, to apply an answer.
    /// Answers are taken to be applied one after another: a server that
    /// checks several at once shares its time between them.
    pub apply_per_root: Duration,
    /// How long after that an answer still counts as possibly applying: the
    /// margin for a server's own scheduling and a busy machine.
    pub settle: Duration,
    /// How long a server has to ask for the list after a notification
    /// before it is taken as not following changes.
    pub pickup: Duration,
}

impl Default for NotifyTiming {
    fn default() -> Self {
        NotifyTiming {
            hold: Duration::from_millis(500),
            // The npm filesystem server checked 300 folders in 17–75 ms
            // alone (0.06–0.25 ms a folder), and twenty overlapping answers
            // of 110 to 300 in 280 ms (0.07 ms a folder), on a busy 2-core
            // machine: 0.5 ms and a 500 ms margin leave room to spare.
            apply_per_root: Duration::from_micros(500),
            settle: Duration::from_millis(500),
            pickup: Duration::from_secs(3),
        }
    }
}

impl NotifyTiming {
    /// How long a server is taken to need to apply an answer of `roots`.
    pub fn apply_for(&self, roots: usize) -> Duration {
        self.apply_per_root
            .saturating_mul(u32::try_from(roots).unwrap_or(u32::MAX))
    }
}

/// A wait for a server to apply its answers shorter than this is not made:
/// it is within the noise of the server's own scheduling.
const MIN_PACE: Duration = Duration::from_millis(2);

/// The most a server is taken to need to apply what it was given, however
/// much that was: past it the estimate says nothing, and the confirmation
/// must come in bounded time.
const MAX_APPLY_WAIT: Duration = Duration::from_secs(5);

/// What the actor should do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Send one `list_changed` now.
    Send,
    /// A notification has gone unanswered for the pickup time while the
    /// server does not hold the current list.
    NotPickedUp,
    /// Nothing to do.
    Idle,
}

/// An answer that may still be being applied, by generation.
#[derive(Debug, Clone, Copy)]
struct Applying {
    generation: u64,
    until: Instant,
}

/// The notification state of one connection.
#[derive(Debug)]
pub(crate) struct NotifyGate {
    timing: NotifyTiming,
    /// Generation of the list the server was given last (answers are
    /// reported in the order the server receives them).
    answered: Option<u64>,
    /// Generation of the newest list the server was notified of, until the
    /// server was given that list or a newer one.
    notified: Option<u64>,
    /// Set while a notification (or the `initialized` notification, after
    /// which most servers ask at once) has not yet been followed by a
    /// `roots/list`: the time it was sent.
    awaiting_since: Option<Instant>,
    /// When the last answer was given.
    last_answer: Option<Instant>,
    /// When the server is taken to have applied every answer it was given
    /// (see [`NotifyTiming::apply_per_root`]).
    busy_until: Option<Instant>,
    /// Answers that may still be being applied, at most one per generation.
    applying: Vec<Applying>,
    /// Set when the last answer was given while an answer with another list
    /// may still have been applying: a confirming notification is due.
    confirm: bool,
    /// Set when the pickup time of the current wait has passed and been
    /// reported; cleared by the next answer.
    not_picked_up: bool,
}

impl NotifyGate {
    /// A gate for a connection that has just sent `initialized`.
    pub(crate) fn after_initialized(timing: NotifyTiming, now: Instant) -> Self {
        NotifyGate {
            timing,
            answered: None,
            notified: None,
            awaiting_since: Some(now),
            last_answer: None,
            busy_until: None,
            applying: Vec::new(),
            confirm: false,
            not_picked_up: false,
        }
    }

    /// The generation of the list the server was given last.
    pub fn answered(&self) -> Option<u64> {
        self.answered
    }

    /// True while a notification has not been followed by an answer of
    /// its list or a newer one.
    pub(crate) fn notified_out(&self) -> bool {
        self.notified.is_some()
    }

    /// When the server is taken to have applied, beyond doubt, the answer
    /// of `generation` it was given: its modelled apply time plus `settle`,
    /// the same margin the confirmation waits for. The first requests after
    /// a start are held until then (see `ready`).
    pub fn applied_by(&self, generation: u64) -> Option<Instant> {
        self.applying
            .iter()
            .find(|a| a.generation == generation)
            .map(|a| a.until)
    }

    /// True once a wait has outlasted the pickup time, until the next answer.
    pub(crate) fn not_picked_up(&self) -> bool {
        self.not_picked_up
    }

    /// True while a confirming notification is due or out. Only the
    /// tests ask: the gate reads its own field (`pending`, `confirm_at`).
    #[cfg(test)]
    fn confirming(&self) -> bool {
        self.confirm
    }

    /// True when the server holds generation `current` already and nothing
    /// it was given can still land after it. Generation 0 is the empty list
    /// a server starts with: a server that has never asked does not need to
    /// hear that nothing is shared.
    pub fn settled(&self, current: u64) -> bool {
        self.up_to_date(current) && !self.confirm
    }

    fn up_to_date(&self, current: u64) -> bool {
        match self.answered {
            Some(answered) => answered == current,
            None => current == 0,
        }
    }

    /// True when the list changed since the server was last given it or
    /// notified of it.
    fn pending(&self, current: u64) -> bool {
        !self.up_to_date(current) && self.notified != Some(current)
    }

    /// The earliest instant a notification may be sent: once the server is
    /// taken to have applied what it was given (but no later than `hold`
    /// after the last answer), and while a notification has not been
    /// followed, `hold` after it.
    fn send_at(&self) -> Option<Instant> {
        let paced = match (self.last_answer, self.busy_until) {
            (Some(at), Some(busy)) if busy > at + MIN_PACE => Some(busy.min(at + self.timing.hold)),
            _ => None,
        };
        let held = self.awaiting_since.map(|t| t + self.timing.hold);
        paced.max(held)
    }

    /// When a confirming notification is due: once every answer with a list
    /// other than the last one given has had its settle time.
    fn confirm_at(&self) -> Option<Instant> {
        if !self.confirm {
            return None;
        }
        let last = self.answered?;
        Some(
            self.applying
                .iter()
                .filter(|a| a.generation != last)
                .map(|a| a.until)
                .max()
                .unwrap_or_else(|| self.send_at().unwrap_or_else(Instant::now)),
        )
    }

    fn pickup_at(&self) -> Option<Instant> {
        if self.not_picked_up {
            return None;
        }
        self.awaiting_since.map(|t| t + self.timing.pickup)
    }

    /// When the actor should call [`NotifyGate::on_deadline`] next, for the
    /// list at generation `current`.
    pub(crate) fn next_wake(&self, current: u64) -> Option<Instant> {
        let send = self.pending(current).then(|| self.send_at()).flatten();
        // A confirmation is paced like any notification.
        let confirm = (self.up_to_date(current) && self.notified.is_none())
            .then(|| self.confirm_at())
            .flatten()
            .map(|at| at.max(self.send_at().unwrap_or(at)));
        [send, confirm, self.pickup_at()]
            .into_iter()
            .flatten()
            .min()
    }

    fn send(&mut self, current: u64, now: Instant) -> Decision {
        self.notified = Some(current);
        if self.awaiting_since.is_none() {
            self.awaiting_since = Some(now);
            self.not_picked_up = false;
        }
        Decision::Send
    }

    fn may_send(&self, now: Instant) -> bool {
        self.send_at().is_none_or(|at| now >= at)
    }

    /// The shared list changed to generation `current`.
    pub(crate) fn on_change(&mut self, current: u64, now: Instant) -> Decision {
        if self.pending(current) && self.may_send(now) {
            self.send(current, now)
        } else {
            Decision::Idle
        }
    }

    /// The server was given generation `given`, a list of `roots` roots;
    /// the list is now at generation `current`.
    pub(crate) fn on_answered(
        &mut self,
        given: u64,
        roots: usize,
        current: u64,
        now: Instant,
    ) -> Decision {
        self.applying.retain(|a| a.until > now);
        let uncertain = self.applying.iter().any(|a| a.generation != given);
        // The same list given again changes nothing the server holds, so it
        // adds no work that matters; and what a server is taken to need is
        // bounded, so that one asking without pause (a tool that asks on
        // every call) is still confirmed in bounded time.
        let before = self.busy_until.map_or(now, |b| b.max(now));
        let busy = if self.answered == Some(given) {
            before
        } else {
            before + self.timing.apply_for(roots)
        };
        let busy = busy.min(now + MAX_APPLY_WAIT);
        self.busy_until = Some(busy);
        let until = busy + self.timing.settle;
        match self.applying.iter_mut().find(|a| a.generation == given) {
            Some(a) => a.until = a.until.max(until),
            None => self.applying.push(Applying {
                generation: given,
                until,
            }),
        }
        if uncertain {
            self.confirm = true;
        } else if given == current {
            // Given after everything before it had time to apply: this is
            // the list the server ends with.
            self.confirm = false;
        }
        // The last answer counts, not the newest: a server that asks twice
        // at once can be given the newer list first and the older one last,
        // and then holds the older one.
        self.answered = Some(given);
        self.last_answer = Some(now);
        self.not_picked_up = false;
        if self.notified.is_some_and(|notified| given >= notified) {
            self.notified = None;
        }
        if self.notified.is_none() {
            self.awaiting_since = None;
        }
        if self.pending(current) && self.may_send(now) {
            return self.send(current, now);
        }
        Decision::Idle
    }

    /// The instant given by [`NotifyGate::next_wake`] has come.
    pub(crate) fn on_deadline(&mut self, current: u64, now: Instant) -> Decision {
        if self.pickup_at().is_some_and(|at| now >= at) {
            self.not_picked_up = true;
            // Later changes are sent as they come: a server that
            // does not ask is not held back by the wait it did not end.
            self.awaiting_since = None;
            if !self.up_to_date(current) {
                return Decision::NotPickedUp;
            }
            // Only a confirmation was out, and the server did not ask for
            // it: asking again and again would not change that.
            self.notified = None;
            self.confirm = false;
        }
        if self.pending(current) && self.may_send(now) {
            return self.send(current, now);
        }
        if self.up_to_date(current)
            && self.notified.is_none()
            && self.confirm_at().is_some_and(|at| now >= at)
            && self.may_send(now)
        {
            // The confirming notification: the server's ask is answered
            // with the current list, given after every other has settled.
            return self.send(current, now);
        }
        Decision::Idle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing() -> NotifyTiming {
        NotifyTiming {
            hold: Duration::from_millis(500),
            apply_per_root: Duration::from_millis(1),
            settle: Duration::from_millis(1000),
            pickup: Duration::from_secs(3),
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A gate whose server asked at start and was given generation 0.
    fn quiet(t0: Instant) -> NotifyGate {
        let mut gate = NotifyGate::after_initialized(timing(), t0);
        assert_eq!(gate.on_answered(0, 0, 0, t0), Decision::Idle);
        gate
    }

    #[test]
    fn first_change_after_a_quiet_time_is_sent_at_once_and_needs_no_confirm() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let t1 = t0 + ms(5000);
        assert_eq!(gate.on_change(1, t1), Decision::Send);
        assert_eq!(gate.on_answered(1, 1, 1, t1 + ms(2)), Decision::Idle);
        assert!(gate.settled(1));
        assert_eq!(gate.next_wake(1), None);
    }

    #[test]
    fn a_burst_is_paced_and_ends_with_a_confirming_notification() {
        const ROOTS: usize = 100;
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        assert_eq!(gate.on_change(1, start), Decision::Send);
        // The server asks at once, every time; changes come every 10 ms,
        // and each answer of 100 roots holds the next notification 100 ms.
        assert_eq!(gate.on_answered(1, ROOTS, 1, start + ms(1)), Decision::Idle);
        let mut sent = 1;
        let mut now = start;
        for generation in 2..=50 {
            now += ms(10);
            if gate.on_change(generation, now) == Decision::Send {
                sent += 1;
                gate.on_answered(generation, ROOTS, generation, now + ms(1));
            }
            while let Some(at) = gate.next_wake(generation).filter(|at| *at <= now) {
                if gate.on_deadline(generation, at) == Decision::Send {
                    sent += 1;
                    gate.on_answered(generation, ROOTS, generation, at + ms(1));
                }
            }
        }
        assert!(
            sent <= 6,
            "a 500 ms burst paced by 100 ms: {sent} notifications"
        );
        // The last change is 50; it is sent once the pace allows.
        let at = gate.next_wake(50).expect("the last change is due");
        assert!(at <= now + ms(100));
        assert_eq!(gate.on_deadline(50, at), Decision::Send);
        assert_eq!(gate.on_answered(50, ROOTS, 50, at + ms(1)), Decision::Idle);
        assert!(!gate.settled(50), "answers of other lists may still apply");
        // Once the others have had their settle time (1.1 s for 100 roots),
        // one more goes out.
        let confirm = gate.next_wake(50).expect("a confirmation is due");
        assert!(confirm >= at + ms(900), "{:?}", confirm - at);
        assert_eq!(gate.on_deadline(50, confirm), Decision::Send);
        assert_eq!(
            gate.on_answered(50, ROOTS, 50, confirm + ms(1)),
            Decision::Idle
        );
        assert!(gate.settled(50));
        assert_eq!(gate.next_wake(50), None);
    }

    #[test]
    fn small_answers_are_not_held_back() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let mut now = t0 + ms(5000);
        // One change after another, each made once the last was answered:
        // every one is sent at once.
        for generation in 1..=20 {
            assert_eq!(gate.on_change(generation, now), Decision::Send);
            now += ms(1);
            assert_eq!(
                gate.on_answered(generation, 0, generation, now),
                Decision::Idle
            );
        }
    }

    #[test]
    fn the_confirmation_waits_for_the_longest_list_to_settle() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        assert_eq!(gate.on_change(1, start), Decision::Send);
        gate.on_answered(1, 3_000, 1, start);
        // The pace of so long a list is the hold, 500 ms.
        assert_eq!(gate.on_change(2, start + ms(200)), Decision::Idle);
        assert_eq!(gate.next_wake(2), Some(start + ms(500)));
        let later = start + ms(600);
        assert_eq!(gate.on_change(2, later), Decision::Send);
        gate.on_answered(2, 1, 2, later);
        // 3,000 roots settle 1 s + 3 s after they were given.
        assert_eq!(gate.next_wake(2), Some(start + ms(4_000)));
        // 10,000 would be 10 s: that is more than the bound, 5 s.
        let mut gate = quiet(t0);
        gate.on_change(1, start);
        gate.on_answered(1, 10_000, 1, start);
        gate.on_change(2, later);
        gate.on_answered(2, 1, 2, later);
        assert_eq!(gate.next_wake(2), Some(start + MAX_APPLY_WAIT + ms(1_000)));
    }

    #[test]
    fn an_answer_given_after_the_others_settled_ends_the_uncertainty() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        gate.on_change(1, start);
        gate.on_answered(1, 300, 1, start);
        gate.on_change(2, start + ms(100));
        gate.on_answered(2, 2, 2, start + ms(100));
        assert!(gate.confirming());
        // The server asks on its own long after: that answer lands last.
        gate.on_answered(2, 2, 2, start + ms(5000));
        assert!(gate.settled(2));
    }

    #[test]
    fn repeated_answers_of_one_list_need_no_confirmation() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        gate.on_change(1, start);
        for i in 0..20 {
            gate.on_answered(1, 300, 1, start + ms(i));
        }
        assert!(gate.settled(1));
    }

    #[test]
    fn while_a_notification_is_unanswered_the_next_is_held() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        assert_eq!(gate.on_change(1, start), Decision::Send);
        assert_eq!(gate.on_change(2, start + ms(150)), Decision::Idle);
        assert_eq!(gate.next_wake(2), Some(start + ms(500)));
        assert_eq!(gate.on_deadline(2, start + ms(500)), Decision::Send);
    }

    #[test]
    fn a_change_during_an_answer_is_sent_after_it() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        assert_eq!(gate.on_change(1, start), Decision::Send);
        assert_eq!(gate.on_change(2, start + ms(120)), Decision::Idle);
        // The server asked between the two changes and got generation 1.
        assert_eq!(gate.on_answered(1, 0, 2, start + ms(130)), Decision::Send);
        assert_eq!(gate.on_answered(2, 0, 2, start + ms(131)), Decision::Idle);
    }

    #[test]
    fn an_older_list_received_last_is_corrected() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        assert_eq!(gate.on_change(1, start), Decision::Send);
        gate.on_change(2, start + ms(120));
        assert_eq!(gate.on_answered(1, 0, 2, start + ms(130)), Decision::Send);
        // The server asked twice around the change: the answer with the
        // newest list went out first, the one with the older list last.
        assert_eq!(gate.on_answered(2, 0, 2, start + ms(131)), Decision::Idle);
        assert_eq!(gate.on_answered(1, 20, 2, start + ms(132)), Decision::Idle);
        // The correction waits out the pace of that 20-root answer.
        assert_eq!(gate.next_wake(2), Some(start + ms(152)));
        assert_eq!(gate.on_deadline(2, start + ms(152)), Decision::Send);
        assert_eq!(gate.on_answered(2, 0, 2, start + ms(153)), Decision::Idle);
    }

    #[test]
    fn an_older_answer_before_the_notified_one_waits_for_it() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        assert_eq!(gate.on_change(1, start), Decision::Send);
        // The server asked on its own just before the change; the ask the
        // notification causes is still to come.
        assert_eq!(gate.on_answered(0, 0, 1, start + ms(1)), Decision::Idle);
        assert_eq!(gate.on_answered(1, 1, 1, start + ms(2)), Decision::Idle);
    }

    #[test]
    fn a_server_that_never_asks_is_reported_and_still_hears_later_changes() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(timing(), t0);
        // Something was shared before it started; it does not ask.
        assert_eq!(gate.on_change(1, t0), Decision::Idle);
        assert_eq!(gate.next_wake(1), Some(t0 + ms(500)));
        assert_eq!(gate.on_deadline(1, t0 + ms(500)), Decision::Send);
        assert_eq!(gate.next_wake(1), Some(t0 + ms(3000)));
        assert_eq!(gate.on_deadline(1, t0 + ms(3000)), Decision::NotPickedUp);
        assert!(gate.not_picked_up());
        // A later change is sent at once, and its wait is watched anew.
        assert_eq!(gate.on_change(2, t0 + ms(4000)), Decision::Send);
        assert!(!gate.not_picked_up());
        assert_eq!(gate.next_wake(2), Some(t0 + ms(7000)));
        assert_eq!(gate.on_deadline(2, t0 + ms(7000)), Decision::NotPickedUp);
    }

    #[test]
    fn a_server_that_asks_once_is_reported_after_the_pickup_time() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        assert_eq!(gate.on_change(1, start), Decision::Send);
        assert_eq!(gate.on_change(2, start + ms(200)), Decision::Idle);
        assert_eq!(gate.on_deadline(2, start + ms(500)), Decision::Send);
        // The pickup time runs from the first notification not followed.
        assert_eq!(gate.next_wake(2), Some(start + ms(3000)));
        assert_eq!(gate.on_deadline(2, start + ms(3000)), Decision::NotPickedUp);
        // It asks after all: the report is over.
        gate.on_answered(2, 1, 2, start + ms(4000));
        assert!(!gate.not_picked_up());
        assert!(gate.settled(2));
    }

    #[test]
    fn an_unanswered_wait_with_nothing_new_is_not_a_failure() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(timing(), t0);
        // Nothing is shared and the server never asks: nothing to report.
        assert_eq!(gate.next_wake(0), Some(t0 + ms(3000)));
        assert_eq!(gate.on_deadline(0, t0 + ms(3000)), Decision::Idle);
        assert_eq!(gate.next_wake(0), None);
    }

    #[test]
    fn a_change_the_server_already_asked_for_costs_nothing() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        // The server asked on its own (e.g. inside a tool call) just after
        // the change and before the actor saw it.
        gate.on_answered(1, 1, 1, t0 + ms(5000));
        assert_eq!(gate.on_change(1, t0 + ms(5000)), Decision::Idle);
    }

    #[test]
    fn nothing_is_sent_for_an_empty_list_never_given() {
        let t0 = Instant::now();
        let mut gate = NotifyGate::after_initialized(timing(), t0);
        assert_eq!(gate.on_deadline(0, t0 + ms(500)), Decision::Idle);
        assert_eq!(gate.on_change(0, t0 + ms(500)), Decision::Idle);
    }

    #[test]
    fn apply_time_grows_with_the_list_and_saturates() {
        let t = timing();
        assert_eq!(t.apply_for(0), ms(0));
        assert_eq!(t.apply_for(300), ms(300));
        assert!(t.apply_for(usize::MAX) >= Duration::from_secs(1_000_000));
    }

    #[test]
    fn a_server_asking_without_pause_is_confirmed_in_bounded_time() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let mut now = t0 + ms(5000);
        // Thousands of asks of 1,000 roots while the list changes now and
        // then: the modelled work would be minutes, and is bounded.
        for i in 0..5_000u64 {
            now += ms(1);
            let generation = 1 + i / 100;
            gate.on_change(generation, now);
            gate.on_answered(generation, 1_000, generation, now);
        }
        assert!(gate.confirming());
        let at = gate.next_wake(50).expect("a confirmation is due");
        assert!(
            at <= now + MAX_APPLY_WAIT + ms(1000),
            "{:?} after the last answer",
            at - now
        );
    }

    #[test]
    fn the_same_list_given_again_adds_no_work() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        gate.on_change(1, start);
        for _ in 0..10 {
            gate.on_answered(1, 300, 1, start);
        }
        assert_eq!(gate.busy_until, Some(start + ms(300)));
    }

    #[test]
    fn answers_given_close_together_add_up() {
        let t0 = Instant::now();
        let mut gate = quiet(t0);
        let start = t0 + ms(5000);
        // Three lists of 300 roots given at once (the server asked around
        // two changes) are taken to need 900 ms together.
        gate.on_change(1, start);
        gate.on_answered(1, 300, 3, start);
        gate.on_answered(2, 300, 3, start);
        gate.on_answered(3, 300, 3, start);
        assert_eq!(gate.busy_until, Some(start + ms(900)));
        // The next notification waits, but no longer than the hold.
        assert_eq!(gate.on_change(2, start + ms(100)), Decision::Idle);
        assert_eq!(gate.next_wake(2), Some(start + ms(500)));
    }
}
