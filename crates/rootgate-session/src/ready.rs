//! Whether a server has its folders yet, and the hold that keeps the first
//! requests after a start from reaching it before it has.
//!
//! A server that asks for its roots does so after `initialized` and applies
//! the answer in the background: the npm filesystem server acknowledges
//! `roots/list` at once and checks each folder afterwards, so a tool call
//! sent right after `initialized` runs with no folder at all ("Access
//! denied" on a folder the person shared). Each life of a session publishes
//! a [`Readiness`] on a `watch`: pending until the server has been answered
//! with the current list, then the instant the notify gate takes that
//! answer as applied (its modelled apply time plus the settle margin, see
//! `list_changed`), or at once a reason no wait is needed (folders given as
//! arguments, nothing shared, a modern server, a server that does not ask).
//! [`hold`] waits on it, at most [`HOLD_BOUND`], and says in words how it
//! went ([`Held::words`]).
//!
//! What is not here: which requests wait (the bridge's router says which of
//! an app's requests depend on folders; every window try does), when the
//! actor publishes (`serve`), and the timing model itself (`list_changed`).

use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

/// The most a request is held for its server's folders. A server that asks
/// does so within milliseconds of `initialized` and is taken to have
/// applied its answer about half a second later (the notify gate's settle
/// margin); one that has not asked within [`ASK_WITHIN`] is let go by the
/// session sooner. The bound is the session's pickup time, after which a
/// server that has not asked counts as not following at all: past it, the
/// wait would only delay an app that nothing can help.
pub const HOLD_BOUND: Duration = Duration::from_secs(3);

/// How long after a start a server has to ask for its folders before the
/// session stops holding requests for it and remembers, for later lives,
/// that it does not ask. Servers that ask do so in their `initialized`
/// handler (the npm filesystem server within a few milliseconds, under load
/// within a hundred); a server that waits for a `list_changed` is sent one
/// after the notify gate's 500 ms hold. One second covers both and costs a
/// server that never asks at most that, once per session.
pub(crate) const ASK_WITHIN: Duration = Duration::from_secs(1);

/// Where one life of a server stands with its first folders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Readiness {
    /// The life is starting, or the server is expected to ask for its
    /// folders and has not been answered with the current list yet.
    Pending,
    /// The server was answered with the current list and is taken to have
    /// applied it by this instant.
    AppliedBy(Instant),
    /// Requests need not wait, and why.
    Ready(NoWait),
}

/// Why requests to a server need not wait for its folders.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoWait {
    /// It was told its folders as arguments (`${folders}`).
    Arguments,
    /// No folder is shared with it: there is nothing to wait for.
    NothingShared,
    /// A modern-era server is given its folders with each request.
    PerRequest,
    /// An earlier life did not ask for its folders.
    DoesNotAsk,
    /// This life did not ask within [`ASK_WITHIN`].
    DidNotAsk,
}

impl NoWait {
    fn words(self) -> &'static str {
        match self {
            NoWait::Arguments => "the server was given its folders as arguments",
            NoWait::NothingShared => "no folder is shared with the server",
            NoWait::PerRequest => "the server is given its folders with each request",
            NoWait::DoesNotAsk => "the server does not ask for its folders",
            NoWait::DidNotAsk => "the server did not ask for its folders within 1 s",
        }
    }
}

/// How a hold ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldEnd {
    /// The server is taken to have applied its folders.
    Applied,
    /// No wait was needed, or no more is: why.
    NoWait(NoWait),
    /// [`HOLD_BOUND`] passed first, or the session went away.
    Bound,
}

/// What a hold did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    pub waited: Duration,
    pub end: HoldEnd,
}

impl Held {
    /// What happened to `what` ("the app's first request (tools/call
    /// “read_file”)"), in a sentence for the timeline.
    pub fn words(&self, what: &str) -> String {
        let ms = self.waited.as_millis();
        match self.end {
            HoldEnd::Applied if ms == 0 => {
                format!("Did not hold {what}: the server had its folders already.")
            }
            HoldEnd::Applied => {
                format!("Held {what} {ms} ms until the server had its folders.")
            }
            HoldEnd::NoWait(why) if ms == 0 => format!("Did not hold {what}: {}.", why.words()),
            HoldEnd::NoWait(why) => {
                format!("Held {what} {ms} ms, then let it go: {}.", why.words())
            }
            HoldEnd::Bound => format!(
                "Held {what} {ms} ms, the most Rootgate waits, and let it go: the server had not \
                 applied its folders yet."
            ),
        }
    }
}

/// Waits until the server behind `ready` has its folders, no wait is
/// needed, or `bound` has passed.
pub async fn hold(ready: &mut watch::Receiver<Readiness>, bound: Duration) -> Held {
    let start = Instant::now();
    let deadline = start + bound;
    let end = loop {
        let state = ready.borrow_and_update().clone();
        let now = Instant::now();
        let until = match state {
            Readiness::Ready(why) => break HoldEnd::NoWait(why),
            Readiness::AppliedBy(at) if at <= now => break HoldEnd::Applied,
            Readiness::AppliedBy(at) => at.min(deadline),
            Readiness::Pending => deadline,
        };
        if now >= deadline {
            break HoldEnd::Bound;
        }
        tokio::select! {
            changed = ready.changed() => {
                if changed.is_err() {
                    break HoldEnd::Bound;
                }
            }
            _ = tokio::time::sleep_until(until) => {}
        }
    };
    Held {
        waited: start.elapsed(),
        end,
    }
}

/// The actor's side: what a life publishes, from its start until the
/// server has its folders or no wait is needed.
#[derive(Debug)]
pub(super) struct FirstFolders {
    /// Until when the server may still ask before it is taken as not
    /// asking; `None` once it asked, or once nothing is waited for.
    ask_by: Option<Instant>,
    /// Set once the life's readiness is final (applied or no wait).
    done: bool,
    /// The life began with nothing shared and nobody waiting; its first
    /// folders may come later (see [`FirstFolders::on_first_share`]).
    began_empty: bool,
    /// Set once it waits for those first folders.
    rearmed: bool,
}

impl FirstFolders {
    /// A life that starts now: its first readiness, from what is known.
    pub(super) fn start(known: Option<NoWait>, now: Instant) -> (FirstFolders, Readiness) {
        match known {
            Some(why) => (
                FirstFolders {
                    ask_by: None,
                    done: true,
                    began_empty: why == NoWait::NothingShared,
                    rearmed: false,
                },
                Readiness::Ready(why),
            ),
            None => (
                FirstFolders {
                    ask_by: Some(now + ASK_WITHIN),
                    done: false,
                    began_empty: false,
                    rearmed: false,
                },
                Readiness::Pending,
            ),
        }
    }

    /// When [`FirstFolders::on_deadline`] is due.
    pub(super) fn next_wake(&self) -> Option<Instant> {
        self.ask_by.filter(|_| !self.done)
    }

    /// The server was answered with generation `given` while the list is at
    /// `current`; the gate takes it as applied by `applied_by`.
    pub(super) fn on_answered(
        &mut self,
        given: u64,
        current: u64,
        applied_by: Option<Instant>,
    ) -> Option<Readiness> {
        self.ask_by = None;
        if self.done || given != current {
            return None;
        }
        applied_by.map(Readiness::AppliedBy)
    }

    /// The list became non-empty during a life that began with nothing
    /// shared: the life waits for these first folders as one that began
    /// with them would (pending, until the server is answered and has
    /// applied them, or has not asked within [`ASK_WITHIN`]). A bridge's
    /// connection whose server is given only its app's project starts so:
    /// the project is known only once the app has answered for its roots.
    pub(super) fn on_first_share(&mut self, now: Instant) -> Option<Readiness> {
        if !self.began_empty || self.rearmed {
            return None;
        }
        self.rearmed = true;
        self.done = false;
        self.ask_by = Some(now + ASK_WITHIN);
        Some(Readiness::Pending)
    }

    /// Whether the life waits for folders shared after it began: a server
    /// that does not ask for those within the time has still asked at its
    /// start, and is not remembered as one that does not ask.
    pub(super) fn rearmed(&self) -> bool {
        self.rearmed
    }

    /// The ask time has come: a server that has not asked yet is let go.
    pub(super) fn on_deadline(&mut self, now: Instant) -> Option<Readiness> {
        match self.ask_by {
            Some(at) if !self.done && now >= at => {
                self.ask_by = None;
                self.done = true;
                Some(Readiness::Ready(NoWait::DidNotAsk))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[tokio::test(start_paused = true)]
    async fn a_hold_ends_when_the_answer_is_taken_as_applied() {
        let (tx, mut rx) = watch::channel(Readiness::Pending);
        let start = Instant::now();
        tokio::spawn(async move {
            tokio::time::sleep(ms(5)).await;
            let _ = tx.send(Readiness::AppliedBy(Instant::now() + ms(500)));
            // Kept until the hold is over.
            tokio::time::sleep(ms(10_000)).await;
        });
        let held = hold(&mut rx, HOLD_BOUND).await;
        assert_eq!(held.end, HoldEnd::Applied);
        assert_eq!(start.elapsed(), ms(505));
        assert_eq!(
            held.words("the app's first request (tools/call “read_file”)"),
            "Held the app's first request (tools/call “read_file”) 505 ms until the server had its folders."
        );
    }

    #[tokio::test(start_paused = true)]
    async fn no_wait_is_said_with_its_reason_and_the_bound_holds() {
        let (_tx, mut rx) = watch::channel(Readiness::Ready(NoWait::DoesNotAsk));
        let held = hold(&mut rx, HOLD_BOUND).await;
        assert_eq!(held.waited, Duration::ZERO);
        assert_eq!(
            held.words("the app's first request"),
            "Did not hold the app's first request: the server does not ask for its folders."
        );
        let (_tx, mut rx) = watch::channel(Readiness::Pending);
        let held = hold(&mut rx, HOLD_BOUND).await;
        assert_eq!((held.end, held.waited), (HoldEnd::Bound, HOLD_BOUND));
    }

    #[test]
    fn a_life_waits_for_the_current_list_and_lets_a_silent_server_go() {
        let t0 = Instant::now();
        let (mut first, readiness) = FirstFolders::start(None, t0);
        assert_eq!(readiness, Readiness::Pending);
        assert_eq!(first.next_wake(), Some(t0 + ASK_WITHIN));
        // An answer of a list that changed since is not the one to wait for.
        assert_eq!(first.on_answered(1, 2, Some(t0 + ms(500))), None);
        assert_eq!(
            first.on_answered(2, 2, Some(t0 + ms(600))),
            Some(Readiness::AppliedBy(t0 + ms(600)))
        );
        assert_eq!(first.next_wake(), None, "it asked");
        let (mut silent, _) = FirstFolders::start(None, t0);
        assert_eq!(silent.on_deadline(t0 + ms(10)), None);
        assert_eq!(
            silent.on_deadline(t0 + ASK_WITHIN),
            Some(Readiness::Ready(NoWait::DidNotAsk))
        );
        let (known, readiness) = FirstFolders::start(Some(NoWait::Arguments), t0);
        assert_eq!(readiness, Readiness::Ready(NoWait::Arguments));
        assert_eq!(known.next_wake(), None);
    }

    #[test]
    fn a_life_that_began_with_nothing_waits_for_its_first_folders_once() {
        let t0 = Instant::now();
        let (mut empty, readiness) = FirstFolders::start(Some(NoWait::NothingShared), t0);
        assert_eq!(readiness, Readiness::Ready(NoWait::NothingShared));
        assert_eq!(empty.on_first_share(t0 + ms(5)), Some(Readiness::Pending));
        assert!(empty.rearmed());
        assert_eq!(empty.next_wake(), Some(t0 + ms(5) + ASK_WITHIN));
        assert_eq!(
            empty.on_answered(1, 1, Some(t0 + ms(600))),
            Some(Readiness::AppliedBy(t0 + ms(600)))
        );
        assert_eq!(empty.on_first_share(t0 + ms(700)), None, "once a life");
        // A life that began with folders, or given them as arguments, does
        // not wait again.
        let (mut full, _) = FirstFolders::start(None, t0);
        assert_eq!(full.on_first_share(t0), None);
        let (mut arguments, _) = FirstFolders::start(Some(NoWait::Arguments), t0);
        assert_eq!(arguments.on_first_share(t0), None);
    }
}
