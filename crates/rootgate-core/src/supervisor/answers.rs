//! The answers to the questions Rootgate asked (`questions`), wherever
//! they are given, and what ends a question without one.
//!
//! - **In the window.** A question's suggestion prompt answered in the
//!   window answers the question: Share if its server was ticked, Not now
//!   if not; and the bridges waiting for it are told at once, so the app's
//!   held first request goes on with the folder the moment it is shared,
//!   as with the notification's Share. Cancelling that prompt is no answer
//!   (the question stays unanswered) but ends the wait.
//! - **The Questions view** ([`Questions::answer_question`]) changes any
//!   answer: Share goes through the consent prompt's warnings as any share
//!   does (a folder with a warning opens its full prompt; one without is
//!   shared as the notification's Share does); Not now on a folder that is
//!   shared withdraws it from that server, as a withdrawal does.
//! - **No answer.** A notification dismissed or expired, or a notification
//!   server that went away, is not an answer: the question stays unanswered
//!   in the record (the Questions view lists it, to be answered there), and
//!   the bridges waiting are let go at once, since nobody is there to
//!   answer on the desktop.
//!
//! What is not here: when a question is asked and how it is shown
//! (`questions`), the prompts and what an answer shares (`prompts`).

use rootgate_bridge::connections::QuestionState;
use rootgate_model::folders;
use rootgate_model::questions::{Answer, Asked};

use super::asking::{Key, Questions};
use super::prompts::PromptListener;
use super::{Change, ConsentPrompt, PromptId, Suggestion, SupervisorError, lock};

/// The notification was closed by a call of ours (the specification's
/// reason 3): the question was settled already.
const CLOSED_BY_US: u32 = 3;

impl Questions {
    /// A prompt was answered, sharing with `servers`: if it stands for a
    /// question, the question is answered too (Share if its server was
    /// ticked, Not now if not).
    pub(super) fn prompt_answered(
        &self,
        prompt: PromptId,
        servers: &[rootgate_model::ids::ServerId],
    ) {
        let Some(key) = lock(&self.asking.by_prompt).remove(&prompt) else {
            return;
        };
        let answer = if servers.contains(&key.2) {
            Answer::Share
        } else {
            Answer::NotNow
        };
        self.settle(&key, answer);
    }

    /// The person closed a prompt in the window without answering: if it
    /// stands for a question, the question stays unanswered, and nobody
    /// waits for it any more.
    pub(super) fn prompt_dismissed(&self, prompt: PromptId) {
        let Some(key) = lock(&self.asking.by_prompt).remove(&prompt) else {
            return;
        };
        let why = "the person closed the question in the Rootgate window without an answer; \
                   it waits in the Questions view"
            .to_owned();
        self.close_question(&key, QuestionState::NotAsked { why });
        self.questions_changed();
    }

    /// A notification went away: dismissed or expired, it is no answer.
    pub(super) fn on_closed(&self, id: u32, reason: u32) {
        if reason == CLOSED_BY_US {
            return;
        }
        let Some(key) = self.asked_by_notification(id) else {
            return;
        };
        let why = "the notification was dismissed without an answer; the question waits in the \
                   Rootgate window"
            .to_owned();
        self.close_question(&key, QuestionState::NotAsked { why });
        self.questions_changed();
    }

    /// The notification server left the bus: nobody can answer on the
    /// desktop, and nobody waits for an answer from there.
    pub(super) fn on_desktop_gone(&self) {
        let keys: Vec<Key> = lock(&self.asking.open).keys().cloned().collect();
        for key in &keys {
            let why = "the notification server went away; the question waits in the Rootgate \
                       window"
                .to_owned();
            self.close_question(key, QuestionState::NotAsked { why });
        }
        if !keys.is_empty() {
            self.questions_changed();
        }
    }

    /// The person answered the question numbered `id` in the Questions
    /// view. Share returns the consent prompt to show when the folder has a
    /// warning (its answer then settles the question); otherwise the
    /// answer is given at once and nothing is returned.
    pub fn answer_question(
        &self,
        id: u64,
        answer: Answer,
    ) -> Result<Option<ConsentPrompt>, SupervisorError> {
        let asked = self
            .asking
            .record
            .by_id(id)
            .ok_or(SupervisorError::UnknownQuestion)?;
        let key: Key = (
            asked.app.clone(),
            asked.folder.clone(),
            asked.server.clone(),
        );
        let shared = self.shared_root(&asked);
        match answer {
            Answer::Share if shared.is_some() => self.settle(&key, Answer::Share),
            Answer::Share => {
                let prompt = self.prompt_for_question(&key, &asked)?;
                if !prompt.warnings.is_empty() {
                    return Ok(Some(prompt));
                }
                // Settles the question (see `prompt_answered`).
                self.need.consent.answer_prompt(
                    prompt.id,
                    std::slice::from_ref(&asked.server),
                    None,
                )?;
            }
            Answer::NotNow => {
                if let Some(root) = shared {
                    self.need.folders.revoke(&asked.server, &root)?;
                }
                let prompts: Vec<PromptId> = {
                    let mut by_prompt = lock(&self.asking.by_prompt);
                    let of_it: Vec<PromptId> = by_prompt
                        .iter()
                        .filter(|(_, k)| **k == key)
                        .map(|(p, _)| *p)
                        .collect();
                    for p in &of_it {
                        by_prompt.remove(p);
                    }
                    of_it
                };
                for p in &prompts {
                    self.need.consent.close_prompt(*p);
                }
                self.settle(&key, Answer::NotNow);
                if !prompts.is_empty() {
                    self.prompts_closed(prompts);
                }
            }
        }
        Ok(None)
    }

    /// The kept folder of a question, if it is shared with its server now.
    fn shared_root(&self, asked: &Asked) -> Option<rootgate_model::ids::RootId> {
        let settings = self.ground.store.snapshot();
        let root = settings
            .roots
            .iter()
            .find(|r| r.real_path == asked.folder)?;
        settings
            .grants
            .iter()
            .any(|g| g.server == asked.server && g.root == root.id)
            .then(|| root.id.clone())
    }

    /// The prompt that stands for the question `key`: the one open for it,
    /// or a new one, checked as any folder is (its path comes from the
    /// record, which the app's bridge reported; never from the window).
    fn prompt_for_question(
        &self,
        key: &Key,
        asked: &Asked,
    ) -> Result<ConsentPrompt, SupervisorError> {
        let open = lock(&self.asking.by_prompt)
            .iter()
            .filter(|(_, k)| *k == key)
            .map(|(p, _)| *p)
            .collect::<Vec<_>>();
        for prompt in open {
            if let Some(shown) = self.need.consent.shown(prompt) {
                return Ok(shown);
            }
        }
        let folder = folders::check(&asked.folder)?;
        let settings = self.ground.store.snapshot();
        if !settings.servers.iter().any(|s| s.id == asked.server) {
            return Err(
                rootgate_model::store::StoreError::UnknownServer(asked.server.clone()).into(),
            );
        }
        let kept = settings
            .roots
            .iter()
            .find(|r| r.real_path == folder.real())
            .map(|r| r.id.clone());
        let suggestion = Suggestion {
            app: asked.app.clone(),
            server: asked.server.clone(),
            server_name: asked.server_name.clone(),
            imported: false,
        };
        let prompt = self
            .need
            .consent
            .open_prompt_with(folder, kept, Some(suggestion));
        lock(&self.asking.by_prompt).insert(prompt.id, key.clone());
        Ok(prompt)
    }

    /// Asks again on the desktop each question left unanswered when
    /// Rootgate last ran whose folder is still not shared (its window was
    /// closed or killed while it was open); each also waits in the window.
    pub(super) fn ask_again_unanswered(&self) {
        let Some(desktop) = self.need.desktop.get() else {
            return;
        };
        let mut prompts = Vec::new();
        for asked in self.asking.record.list() {
            let key: Key = (
                asked.app.clone(),
                asked.folder.clone(),
                asked.server.clone(),
            );
            if asked.answer.is_some()
                || self.is_open(&key)
                || self.shared_with(&asked.server, &asked.folder)
            {
                continue;
            }
            let Ok(prompt) = self.prompt_for_question(&key, &asked) else {
                continue;
            };
            self.need
                .consent
                .mark_suggested(&asked.server, &asked.folder);
            prompts.push(prompt.clone());
            if !prompt.warnings.is_empty() {
                continue;
            }
            let Ok(uri) = rootgate_model::uri::path_to_uri(&asked.folder) else {
                continue;
            };
            self.show(
                desktop.clone(),
                key,
                prompt.id,
                uri.as_str(),
                Vec::new(),
                &asked.server_name,
            );
        }
        if !prompts.is_empty() {
            let _ = self.ground.changes.send(Change::Prompts { prompts });
            self.questions_changed();
        }
    }
}

impl PromptListener for Questions {
    fn answered(&self, prompt: PromptId, servers: &[rootgate_model::ids::ServerId]) {
        self.prompt_answered(prompt, servers);
    }

    fn dismissed(&self, prompt: PromptId) {
        self.prompt_dismissed(prompt);
    }
}
