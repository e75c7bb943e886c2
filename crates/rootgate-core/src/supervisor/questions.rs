//! Asked when it matters: a folder an AI app works in that is not shared
//! with the server it reached becomes a question on the person's desktop,
//! "Claude Code is working in ~/code/app. Share it with files?" with
//! [Share] [Not now] [Open Rootgate], while the app's first request waits
//! in its bridge (`rootgate-bridge`'s `relay::asked`) for the answer.
//!
//! Each question is also an ordinary suggestion prompt (`suggestions`), so
//! it waits in the window as suggestions always did, and "Share" answers
//! that prompt, recorded exactly as an answer given in the window. A folder
//! with a consent warning (the home folder, keys, the whole disk, hidden
//! characters) is never shared with one click: its full prompt waits in
//! the window. One question per (app, folder, server), however many
//! connections ask; "Not now" is kept (`rootgate_model::questions`) so the
//! same question is not asked again. Each bridge is told what happens to
//! its folders, so it knows how long to hold.
//!
//! Every question is recorded, asked on the desktop or only waiting in the
//! window (no notification server, a consent warning), so the window's
//! Questions view lists them all; a question still open when the window
//! process ends (killed, say) is unanswered in the record, and is asked
//! again when a desktop is found at the next start.
//!
//! What is not here: the questions' state, putting one on the desktop and
//! ending it (`asking`), answers given in the window and what ends a
//! question without one (`answers`), the desktop's notification protocol
//! (`rootgate-notify`), the prompts (`prompts`), the tray and the window
//! (the shell).

use std::path::Path;
use std::sync::Arc;

use rootgate_bridge::connections::{QuestionState, Told};
use rootgate_model::ids::{ConnectionId, ServerId};
use rootgate_model::questions::Answer;
use rootgate_notify::{Desktop, Reply};

use super::asking::{Key, Questions};
use super::suggestions::app_folder;
use super::{ConsentPrompt, app_title, lock};

impl Questions {
    /// Asks through `desktop` from now on, and takes its answers: only
    /// those the notification server that showed a question sent, for a
    /// button made for that question (`rootgate_notify` drops every other
    /// signal, whoever on the bus sends it). Called
    /// once, by the shell (or a test) that found a notification server;
    /// without one, questions wait in the window and bridges do not hold.
    pub fn ask_through(&self, desktop: Arc<Desktop>) {
        let mut replies = desktop.replies();
        if !self.need.desktop.set(desktop) {
            return;
        }
        let me = self.me.clone();
        self.ground.runtime.spawn(async move {
            loop {
                let reply = match replies.recv().await {
                    Ok(reply) => reply,
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                };
                let Some(questions) = me.upgrade() else {
                    return;
                };
                match reply {
                    Reply::Action { id, key } => questions.on_action(id, &key),
                    Reply::Closed { id, reason } => questions.on_closed(id, reason),
                    Reply::Gone => {
                        questions.on_desktop_gone();
                        questions.need.tools.tool_notifications_gone();
                    }
                }
            }
        });
        // Questions left unanswered when Rootgate last ran (its window
        // process was killed mid-question, say) are asked again.
        self.ask_again_unanswered();
    }

    /// What "Open Rootgate" on a question does (the shell shows its window).
    pub fn on_open_asked(&self, open: Box<dyn Fn() + Send + Sync>) {
        let _ = self.asking.on_open.set(open);
    }

    /// The folders `uris` that the app on `connection` works in: each not
    /// shared with `server` becomes a suggestion prompt (returned, for the
    /// window) and, where it can, a question on the desktop; the bridge is
    /// told about each.
    pub(super) fn ask_about(
        &self,
        connection: &ConnectionId,
        server: &ServerId,
        app: &str,
        uris: &[String],
    ) -> Vec<ConsentPrompt> {
        let title = app_title(app);
        let mut prompts = Vec::new();
        for uri in uris {
            let Some(real) = app_folder(uri).map(|f| f.real().to_path_buf()) else {
                continue;
            };
            let Some(folder_uri) = rootgate_model::uri::path_to_uri(&real)
                .ok()
                .map(|u| u.to_string())
            else {
                continue;
            };
            let tell = |state| {
                self.need.connections.tell(
                    connection,
                    Told {
                        uri: uri.clone(),
                        folder_uri: folder_uri.clone(),
                        state,
                    },
                );
            };
            let state = self.question_for(
                connection,
                uri,
                &folder_uri,
                server,
                &title,
                &real,
                &mut prompts,
            );
            tell(state);
        }
        prompts
    }

    /// What is done about one folder, and its prompt if one opened.
    #[allow(clippy::too_many_arguments)]
    fn question_for(
        &self,
        connection: &ConnectionId,
        uri: &str,
        folder_uri: &str,
        server: &ServerId,
        title: &str,
        real: &Path,
        prompts: &mut Vec<ConsentPrompt>,
    ) -> QuestionState {
        let key = (title.to_owned(), real.to_path_buf(), server.clone());
        if self.shared_with(server, real) {
            return QuestionState::Shared;
        }
        // Paused, a Share would reach no server: nobody is asked or held.
        if self.need.preferences.sharing_paused() {
            return QuestionState::NotAsked {
                why: "all sharing is paused in Rootgate".into(),
            };
        }
        if let Some(asked) = self.asking.record.find(title, real, server)
            && asked.answer == Some(Answer::NotNow)
        {
            return QuestionState::NotNow;
        }
        if let Some(open) = lock(&self.asking.open).get_mut(&key) {
            open.waiting.push((connection.clone(), uri.to_owned()));
            return QuestionState::Asking;
        }
        let Some(prompt) = self.need.consent.prompt_for_suggestion(uri, server, title) else {
            let why = lock(&self.asking.waits_because)
                .get(&key)
                .copied()
                .unwrap_or("it was suggested already and waits in the Rootgate window");
            return QuestionState::NotAsked { why: why.into() };
        };
        prompts.push(prompt.clone());
        lock(&self.asking.by_prompt).insert(prompt.id, key.clone());
        let server_name = prompt
            .suggestion
            .as_ref()
            .map_or_else(String::new, |s| s.server_name.clone());
        let desktop = self.need.desktop.get();
        let state = if !prompt.warnings.is_empty() {
            Some("it has a consent warning; the full prompt waits in the Rootgate window")
        } else if desktop.is_none() {
            Some("no notification server; the question waits in the Rootgate window")
        } else {
            None
        };
        let asked_there = state.is_none();
        if let Err(e) = self
            .asking
            .record
            .ask(title, real, server, &server_name, asked_there)
        {
            tracing::warn!(error = %e, "the question could not be recorded");
        }
        self.questions_changed();
        if let Some(why) = state {
            lock(&self.asking.waits_because).insert(key, why);
            return QuestionState::NotAsked { why: why.into() };
        }
        let Some(desktop) = desktop else {
            return QuestionState::NotAsked {
                why: "no notification server".into(),
            };
        };
        let waiting = vec![(connection.clone(), uri.to_owned())];
        self.show(desktop, key, prompt.id, folder_uri, waiting, &server_name);
        QuestionState::Asking
    }

    fn on_action(&self, id: u32, action: &str) {
        // "Open Rootgate" on any of Rootgate's notifications (a question,
        // or one of `notes`) shows the window.
        if action == "open" {
            // An approval's notification opens that approval too (`notes`).
            self.need.notes.note_opened(id);
            if let Some(open) = self.asking.on_open.get() {
                open();
            }
            return;
        }
        if self.need.tools.on_tool_action(id, action) {
            return;
        }
        let Some(key) = self.asked_by_notification(id) else {
            return;
        };
        match action {
            "share" => self.answer_asked(&key, Answer::Share),
            "not-now" => self.answer_asked(&key, Answer::NotNow),
            _ => {}
        }
    }

    /// The person answered the question `key` on the desktop: as an answer
    /// in the window would (see `answers`), and the window's prompt for it
    /// goes.
    fn answer_asked(&self, key: &Key, answer: Answer) {
        let Some(prompt) = lock(&self.asking.open).get(key).map(|o| o.prompt) else {
            return;
        };
        let server = &key.2;
        match answer {
            // Settles the question as the window's answer does.
            Answer::Share => {
                if let Err(e) =
                    self.need
                        .consent
                        .answer_prompt(prompt, std::slice::from_ref(server), None)
                {
                    let why = format!("sharing failed: {e}");
                    self.close_question(key, QuestionState::NotAsked { why });
                }
            }
            Answer::NotNow => {
                self.need.consent.close_prompt(prompt);
                lock(&self.asking.by_prompt).remove(&prompt);
                self.settle(key, Answer::NotNow);
            }
        }
        self.prompts_closed(vec![prompt]);
    }
}
