//! The wait for the person's answer: when the app works in a folder that
//! is not shared with its server and the Rootgate window asks the person
//! about it on the desktop, the app's first request that depends on folders
//! waits for the answer, at most [`ASK_BOUND`].
//!
//! The bridge learns what the app works in from the app's roots (asked
//! after `initialized`, and answered while the request is held: see
//! `Relay::hold_reading`), and what the window does about each folder from
//! the window itself ([`Told`], on the link). "Share" reaches the bridge as
//! every grant does, through the settings file; the request then waits
//! until the server has been given the folder (the session's delivery says
//! so), at most [`HOLD_BOUND`] more. "Not now", no answer, a window that
//! goes away: the request goes on without the folder. With no window, or
//! nobody asked (no notification server, a folder with a consent warning
//! that waits in the window), nothing waits here. The timeline says which.
//!
//! What is not here: the first-folders hold that follows (`Relay::hold_first`,
//! `session::ready`), the question itself (the window's supervisor).

use std::collections::HashMap;
use std::time::Duration;

use tokio::time::Instant;

use super::Relay;
use crate::connections::{QuestionState, Told};
use rootgate_model::timeline::Event;
use rootgate_session::ready::HOLD_BOUND;

/// The most the app's first request waits for the person's answer. Long
/// enough to read one line and press a button (a person who is at the
/// machine, having just asked the app for something, answers within a few
/// seconds; 20 s leaves room for one who looks up first); short enough that
/// no AI app gives up: the TypeScript SDK's default request timeout is
/// 60 s (Claude Desktop's limit), long Claude Code tool calls are reported
/// failing after 30-60 s, the Python SDK has none by default, and the
/// request still needs its own time at the server after the wait. See
/// ARCHITECTURE.md, "Asked when it matters".
pub(crate) const ASK_BOUND: Duration = Duration::from_secs(20);

/// How long the app has to answer the bridge's `roots/list` (sent right
/// after `initialized`) before its first request goes on as if it had no
/// folders: SDK clients answer in milliseconds.
const ROOTS_WITHIN: Duration = Duration::from_secs(1);

/// How long the window has to say what it does about a folder: it decides
/// from memory and a desktop call, in milliseconds.
const WINDOW_WITHIN: Duration = Duration::from_secs(2);

/// What the window said, by the app's folder URI, while it is there.
#[derive(Debug, Clone, Default)]
pub(super) struct Questions {
    window: bool,
    told: HashMap<String, Told>,
}

/// How the wait for one folder ended.
enum Ended {
    Shared { given: bool },
    NotNow,
    NoAnswer,
    WindowGone,
    WindowSilent,
    NotAsked(String),
}

impl Questions {
    /// Whether a Rootgate window is there to ask the person.
    pub(super) fn window(&self) -> bool {
        self.window
    }
}

impl Relay {
    /// Whether a Rootgate window is there to ask the person (the link is
    /// connected); when it goes, what it said goes with it, and the tool
    /// calls that wait for its answer are refused (see `tool_question`).
    pub(crate) fn window_present(&self, present: bool) {
        self.questions.send_modify(|q| {
            q.window = present;
            if !present {
                q.told.clear();
            }
        });
        if !present {
            self.window_gone_from_asks();
        }
    }

    /// The window said what it does about one of the app's folders.
    pub fn told(&self, told: Told) {
        self.questions.send_modify(|q| {
            q.told.insert(told.uri.clone(), told);
        });
    }

    /// Where the session publishes what its server was given.
    pub(crate) fn follow_delivery(
        &self,
        delivery: tokio::sync::watch::Receiver<rootgate_session::Delivery>,
    ) {
        self.lock().delivery = Some(delivery);
    }

    /// The wait for the person's answer about the app's folders that are
    /// not shared (see the module's doc), said in the timeline when there
    /// was anything to wait for.
    pub(super) async fn ask_first(&self, what: &str) {
        if !self.questions.borrow().window {
            return;
        }
        let start = Instant::now();
        let unshared = self.unshared_app_roots(start + ROOTS_WITHIN).await;
        if unshared.is_empty() {
            return;
        }
        let (mut told, asked) = self.wait_for_answers(&unshared, start).await;
        for (uri, ended) in &mut told {
            if let Ended::Shared { given } = ended {
                *given = self
                    .wait_given_all(std::slice::from_ref(uri), Instant::now() + HOLD_BOUND)
                    .await;
            }
        }
        let waited = start.elapsed();
        let mut parts = Vec::new();
        for (uri, ended) in &told {
            let folder = rootgate_model::uri::uri_to_path(uri)
                .map_or_else(|_| uri.clone(), |p| p.display().to_string());
            parts.push(format!("{folder}: {}", ended.words()));
        }
        let said = if asked {
            format!(
                "Held {} {} ms for the person's answer about a folder the app works in that is \
                 not shared with the server ({}).",
                format_args!("the app's first request ({what})"),
                waited.as_millis(),
                parts.join("; ")
            )
        } else {
            format!(
                "Did not hold the app's first request ({what}) for a question about the folders \
                 it works in ({}; known in {} ms).",
                parts.join("; "),
                waited.as_millis()
            )
        };
        self.timeline().record(
            &self.server,
            Event::FirstRequest {
                held_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
                said,
            },
        );
    }

    /// The app's roots that are not shared with the server, as the app
    /// gave them, once the app answered (or by `by`).
    async fn unshared_app_roots(&self, by: Instant) -> Vec<String> {
        let mut seen = self.seen.subscribe();
        loop {
            let waiting = self.lock().router.awaiting_app_roots();
            if !waiting || !seen.borrow_and_update().app_roots.is_empty() {
                break;
            }
            tokio::select! {
                changed = seen.changed() => if changed.is_err() { break },
                () = tokio::time::sleep_until(by) => break,
            }
        }
        // Its roots, or the folder it started in for a Workspace server.
        let app_roots = seen.borrow().app_folders();
        let shared: Vec<String> = {
            let state = self.lock();
            state.roots.as_ref().map_or_else(Vec::new, |r| {
                r.borrow().roots().iter().map(|s| s.uri.clone()).collect()
            })
        };
        app_roots
            .into_iter()
            .filter(|uri| canonical_uri(uri).is_some_and(|real| !shared.contains(&real)))
            .collect()
    }

    /// Waits until the window has said what it does about each of `uris`
    /// and every question it asks is answered, within the bounds.
    /// Also says whether the person was asked (a question was open).
    async fn wait_for_answers(
        &self,
        uris: &[String],
        start: Instant,
    ) -> (Vec<(String, Ended)>, bool) {
        let mut questions = self.questions.subscribe();
        let (window_by, answer_by) = (start + WINDOW_WITHIN, start + ASK_BOUND);
        let mut asked = false;
        loop {
            let now = Instant::now();
            let deadline = {
                let q = questions.borrow_and_update();
                let states: Vec<Option<&QuestionState>> = uris
                    .iter()
                    .map(|u| q.told.get(u).map(|t| &t.state))
                    .collect();
                asked |= states.contains(&Some(&QuestionState::Asking));
                if !q.window {
                    None
                } else if states.iter().any(Option::is_none) && now < window_by {
                    Some(window_by)
                } else if states.contains(&Some(&QuestionState::Asking)) && now < answer_by {
                    Some(answer_by)
                } else {
                    None
                }
            };
            let Some(deadline) = deadline else { break };
            tokio::select! {
                changed = questions.changed() => if changed.is_err() { break },
                () = tokio::time::sleep_until(deadline) => {}
            }
        }
        let q = questions.borrow();
        let ended = uris
            .iter()
            .map(|uri| {
                let ended = match q.told.get(uri).map(|t| &t.state) {
                    _ if !q.window => Ended::WindowGone,
                    None => Ended::WindowSilent,
                    Some(QuestionState::Asking) => Ended::NoAnswer,
                    Some(QuestionState::Shared) => Ended::Shared { given: false },
                    Some(QuestionState::NotNow) => Ended::NotNow,
                    Some(QuestionState::NotAsked { why }) => Ended::NotAsked(why.clone()),
                };
                let key = q
                    .told
                    .get(uri)
                    .map_or_else(|| uri.clone(), |t| t.folder_uri.clone());
                (key, ended)
            })
            .collect();
        (ended, asked)
    }
}

impl Ended {
    fn words(&self) -> String {
        match self {
            Ended::Shared { given: true } => "shared, and the server has it".into(),
            Ended::Shared { given: false } => format!(
                "shared, but the server did not take it within {} s; it goes on as it is",
                HOLD_BOUND.as_secs()
            ),
            Ended::NotNow => "the person said not now; it goes on without the folder".into(),
            Ended::NoAnswer => format!(
                "no answer within {} s; it goes on without the folder, and the question waits \
                 in the Rootgate window",
                ASK_BOUND.as_secs()
            ),
            Ended::WindowGone => {
                "the Rootgate window went away; it goes on without the folder".into()
            }
            Ended::WindowSilent => {
                "the Rootgate window did not say whether it asks; it goes on without the folder"
                    .into()
            }
            Ended::NotAsked(why) => format!("not asked now ({why}); it goes on without it"),
        }
    }
}

/// The real path of a folder URI, as the URI it would be shared as.
fn canonical_uri(uri: &str) -> Option<String> {
    let path = rootgate_model::uri::uri_to_path(uri).ok()?;
    let real = std::fs::canonicalize(path).ok()?;
    rootgate_model::uri::path_to_uri(&real)
        .ok()
        .map(|u| u.to_string())
}
