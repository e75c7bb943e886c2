//! The questions' state and what the rest of them stands on: the
//! [`Questions`] service itself (the questions open on the desktop, the
//! record of all asked, the prompts that stand for one), putting a question
//! on the desktop and ending it, settling one with an answer, and the
//! Questions view's list ([`QuestionView`]).
//!
//! Not here: when a question is asked (`questions`) and what answers or
//! ends one (`answers`), which both call what is here and nothing here calls
//! them; the prompts (`prompts`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use rootgate_bridge::connections::{Connections, QuestionState, Told};
use rootgate_model::ids::{ConnectionId, ServerId};
use rootgate_model::questions::{Answer, Asked, Questions as Record};
use rootgate_notify::{Desktop, Notification};
use serde::Serialize;

use super::folders::Folders;
use super::ground::{DesktopSlot, Ground};
use super::notes::Notes;
use super::preferences::Preferences;
use super::prompts::Consent;
use super::tool_asks::ToolConsent;
use super::{Change, PromptId, lock};

/// One question as the Questions view shows it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionView {
    #[serde(flatten)]
    pub asked: Asked,
    /// On the desktop now, the app's first request perhaps waiting for it.
    pub open: bool,
    /// Whether the folder is shared with the server now (it may have been
    /// shared or withdrawn elsewhere since the answer).
    pub shared: bool,
}

/// A question: (app, real path, server).
pub(super) type Key = (String, PathBuf, ServerId);

/// How long the notification server has to take a notification: it
/// answers a call in milliseconds, and one that hangs must not keep the
/// app's first request waiting for a question nobody sees.
const SHOW_WITHIN: std::time::Duration = std::time::Duration::from_secs(5);

/// A question asked on the desktop now.
pub(super) struct Open {
    pub(super) prompt: PromptId,
    pub(super) notification: Option<u32>,
    pub(super) folder_uri: String,
    /// The bridges waiting for the answer, with the folder as each app
    /// gave it.
    pub(super) waiting: Vec<(ConnectionId, String)>,
}

/// The questions open, and the record of all asked.
pub(super) struct Asking {
    pub(super) open: Mutex<HashMap<Key, Open>>,
    pub(super) record: Record,
    /// The prompts that stand for a question (its suggestion, or one the
    /// Questions view opened): answering one answers the question.
    pub(super) by_prompt: Mutex<HashMap<PromptId, Key>>,
    /// Why a question was not asked on the desktop and waits in the
    /// window, as its bridge was told: a bridge may report the same folder
    /// again (its link to the window starting over), and then hears the
    /// same reason, not that the question it raised was "suggested already".
    pub(super) waits_because: Mutex<HashMap<Key, &'static str>>,
    /// What "Open Rootgate" does: the shell shows its window.
    pub(super) on_open: OnceLock<Box<dyn Fn() + Send + Sync>>,
}

impl Asking {
    pub(super) fn beside(settings: &Path) -> Asking {
        Asking {
            open: Mutex::new(HashMap::new()),
            record: Record::open(Record::beside(settings)),
            by_prompt: Mutex::new(HashMap::new()),
            waits_because: Mutex::new(HashMap::new()),
            on_open: OnceLock::new(),
        }
    }
}

/// The questions asked when AI apps need a folder, and their answers.
pub struct Questions {
    pub(super) me: Weak<Questions>,
    pub(super) ground: Ground,
    pub(super) asking: Asking,
    pub(super) need: QuestionsNeed,
}

/// The services the questions need.
pub(super) struct QuestionsNeed {
    pub(super) desktop: DesktopSlot,
    pub(super) connections: Arc<Connections>,
    pub(super) consent: Arc<Consent>,
    pub(super) folders: Arc<Folders>,
    pub(super) preferences: Arc<Preferences>,
    pub(super) notes: Arc<Notes>,
    pub(super) tools: Arc<ToolConsent>,
}

impl Questions {
    pub(super) fn new(ground: Ground, need: QuestionsNeed) -> Arc<Questions> {
        let asking = Asking::beside(ground.settings_path());
        Arc::new_cyclic(|me| Questions {
            me: me.clone(),
            ground,
            asking,
            need,
        })
    }

    /// Every question asked, newest first.
    pub fn list(&self) -> Vec<Asked> {
        self.asking.record.list()
    }

    /// Whether the question `key` is asked on the desktop now.
    pub(super) fn is_open(&self, key: &Key) -> bool {
        lock(&self.asking.open).contains_key(key)
    }

    /// The question the desktop notification `id` asks, when one open
    /// now does.
    pub(super) fn asked_by_notification(&self, id: u32) -> Option<Key> {
        lock(&self.asking.open)
            .iter()
            .find(|(_, o)| o.notification == Some(id))
            .map(|(k, _)| k.clone())
    }

    /// The questions on the desktop now, as their prompts (for the tray).
    pub fn open_questions(&self) -> Vec<PromptId> {
        lock(&self.asking.open).values().map(|o| o.prompt).collect()
    }

    /// Puts the question `key` on the desktop, with `waiting` the bridges
    /// that wait for its answer.
    pub(super) fn show(
        &self,
        desktop: Arc<Desktop>,
        key: Key,
        prompt: PromptId,
        folder_uri: &str,
        waiting: Vec<(ConnectionId, String)>,
        server_name: &str,
    ) {
        let (title, real) = (&key.0, &key.1);
        lock(&self.asking.open).insert(
            key.clone(),
            Open {
                prompt,
                notification: None,
                folder_uri: folder_uri.to_owned(),
                waiting,
            },
        );
        let notification = Notification {
            summary: format!("{title} is working in {}", self.shown(real)),
            body: format!("Share it with {server_name}?"),
            actions: vec![
                ("share".into(), "Share".into()),
                ("not-now".into(), "Not now".into()),
                ("open".into(), "Open Rootgate".into()),
            ],
            expire: None,
        };
        let me = self.me.clone();
        self.ground.runtime.spawn(async move {
            let shown = tokio::time::timeout(SHOW_WITHIN, desktop.notify(&notification))
                .await
                .unwrap_or(Err(rootgate_notify::DesktopError::Silent(SHOW_WITHIN)));
            let Some(questions) = me.upgrade() else {
                return;
            };
            questions.shown_as(&key, shown);
        });
    }

    /// The notification for `key` is on the desktop as `shown`, or could
    /// not be shown: then nobody waits for it.
    fn shown_as(&self, key: &Key, shown: Result<u32, rootgate_notify::DesktopError>) {
        match shown {
            Ok(id) => {
                if let Some(open) = lock(&self.asking.open).get_mut(key) {
                    open.notification = Some(id);
                }
            }
            Err(e) => {
                let why = format!("{e}; the question waits in the Rootgate window");
                self.close_question(key, QuestionState::NotAsked { why });
            }
        }
    }

    /// Ends the question `key`: each bridge waiting is told `state`.
    pub(super) fn close_question(&self, key: &Key, state: QuestionState) {
        let Some(open) = lock(&self.asking.open).remove(key) else {
            return;
        };
        // Answered: the notification goes (into the daemon's history).
        if let (Some(id), Some(desktop)) = (open.notification, self.need.desktop.get()) {
            self.ground
                .runtime
                .spawn(async move { desktop.close(id).await });
        }
        for (connection, uri) in open.waiting {
            self.need.connections.tell(
                &connection,
                Told {
                    uri,
                    folder_uri: open.folder_uri.clone(),
                    state: state.clone(),
                },
            );
        }
    }

    pub(super) fn shared_with(&self, server: &ServerId, real: &Path) -> bool {
        let settings = self.ground.store.snapshot();
        settings.roots.iter().any(|r| {
            r.real_path == real
                && settings
                    .grants
                    .iter()
                    .any(|g| &g.server == server && g.root == r.id)
        })
    }

    /// A folder as a person reads it: under their home folder as `~/…`.
    fn shown(&self, real: &Path) -> String {
        match self
            .ground
            .home
            .as_deref()
            .and_then(|h| real.strip_prefix(h).ok())
        {
            Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
            _ => real.display().to_string(),
        }
    }

    /// Every question asked, newest first, as the Questions view shows it.
    pub fn question_views(&self) -> Vec<QuestionView> {
        self.asking
            .record
            .list()
            .into_iter()
            .map(|asked| {
                let key = (
                    asked.app.clone(),
                    asked.folder.clone(),
                    asked.server.clone(),
                );
                QuestionView {
                    open: self.is_open(&key),
                    shared: self.shared_with(&asked.server, &asked.folder),
                    asked,
                }
            })
            .collect()
    }

    /// The window is told the questions changed.
    pub(super) fn questions_changed(&self) {
        let _ = self.ground.changes.send(Change::Questions {
            questions: self.question_views(),
        });
    }

    /// The window is told these prompts closed (answered on the desktop),
    /// so that none waits there to be answered twice.
    pub(super) fn prompts_closed(&self, prompts: Vec<PromptId>) {
        let _ = self.ground.changes.send(Change::PromptsClosed { prompts });
    }

    /// Records `answer` to the question `key` and ends it: the bridges
    /// waiting are told.
    pub(super) fn settle(&self, key: &Key, answer: Answer) {
        let (app, folder, server) = key;
        if let Err(e) = self.asking.record.answer(app, folder, server, answer) {
            tracing::warn!(error = %e, "the answer could not be recorded");
        }
        lock(&self.asking.waits_because).remove(key);
        let state = match answer {
            Answer::Share => QuestionState::Shared,
            Answer::NotNow => QuestionState::NotNow,
        };
        self.close_question(key, state);
        self.questions_changed();
    }
}
