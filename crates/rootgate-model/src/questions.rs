//! The questions Rootgate asked the person at the moment an AI app needed a
//! folder ("Claude Code is working in ~/code/app. Share it with files?"),
//! and the answers given, kept in `questions.json` beside the settings.
//!
//! A question is one (app, folder, server): a thousand connections of the
//! same app in the same folder to the same server are one question, and a
//! "Not now" stays the answer for that triple until the person changes it,
//! so nobody is asked twice. The record is the window process's alone (the
//! bridges never read it: the window tells each bridge what it asked), and
//! it is written as the settings are: a temporary file, fsync, rename.
//!
//! What is not here: what a "Share" does (it is an ordinary consent answer,
//! recorded in the settings by the store), how the person is asked (the
//! desktop's notifications, `rootgate-notify`), and when (the supervisor).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::ids::{ServerId, now_ms};

/// How the person answered a question.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Answer {
    /// The folder was shared with the server.
    Share,
    /// Not shared, and not to be asked again for this app, folder and
    /// server until the person changes the answer.
    NotNow,
}

/// One question and, once given, its answer.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asked {
    /// The question's number in this record, so the window can name it
    /// without naming its folder (a path never comes from the window).
    /// Records written before numbers existed are numbered when read.
    #[serde(default)]
    pub id: u64,
    /// The app as the person knows it ("Claude Code").
    pub app: String,
    /// The folder's real path.
    pub folder: PathBuf,
    pub server: ServerId,
    pub server_name: String,
    pub asked_at_ms: u64,
    pub answer: Option<Answer>,
    pub answered_at_ms: Option<u64>,
    /// Whether it was asked on the desktop (a notification); false when
    /// it could only wait in the window (no notification server, or a
    /// folder with a consent warning, which is never one click).
    #[serde(default = "on_desktop")]
    pub desktop: bool,
}

/// Questions recorded before `desktop` existed were all asked there.
fn on_desktop() -> bool {
    true
}

impl Asked {
    fn is(&self, app: &str, folder: &Path, server: &ServerId) -> bool {
        self.app == app && self.folder == folder && &self.server == server
    }
}

/// Why the record could not be written.
#[derive(Debug, thiserror::Error)]
#[error("the questions file {path} could not be written: {source}")]
pub struct QuestionsError {
    path: PathBuf,
    #[source]
    source: std::io::Error,
}

/// The questions asked, kept in a file; one per (app, folder, server).
pub struct Questions {
    path: Option<PathBuf>,
    asked: Mutex<Vec<Asked>>,
}

impl Questions {
    /// The record kept at `path`; a file that is missing or cannot be read
    /// is an empty record (nothing was asked yet, or the person will be
    /// asked again, which is the safe side).
    pub fn open(path: PathBuf) -> Questions {
        let mut asked: Vec<Asked> = fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_default();
        let mut next = asked.iter().map(|a| a.id).max().unwrap_or(0);
        for question in asked.iter_mut().filter(|a| a.id == 0) {
            next += 1;
            question.id = next;
        }
        Questions {
            path: Some(path),
            asked: Mutex::new(asked),
        }
    }

    /// The file beside the settings file `settings`.
    pub fn beside(settings: &Path) -> PathBuf {
        settings.with_file_name("questions.json")
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Asked>> {
        // Each critical section leaves the list whole.
        self.asked.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every question, newest first.
    pub fn list(&self) -> Vec<Asked> {
        let mut all = self.lock().clone();
        all.sort_by_key(|a| std::cmp::Reverse(a.asked_at_ms));
        all
    }

    /// The question numbered `id`, if there is one.
    pub fn by_id(&self, id: u64) -> Option<Asked> {
        self.lock().iter().find(|a| a.id == id).cloned()
    }

    /// The question for this app, folder and server, if it was asked.
    pub fn find(&self, app: &str, folder: &Path, server: &ServerId) -> Option<Asked> {
        self.lock()
            .iter()
            .find(|a| a.is(app, folder, server))
            .cloned()
    }

    /// Notes that the question is being asked now, on the desktop or only
    /// in the window (again, if it was asked before: its old answer is
    /// forgotten, its number kept).
    pub fn ask(
        &self,
        app: &str,
        folder: &Path,
        server: &ServerId,
        server_name: &str,
        desktop: bool,
    ) -> Result<(), QuestionsError> {
        let mut asked = self.lock();
        let id = match asked.iter().find(|a| a.is(app, folder, server)) {
            Some(before) => before.id,
            None => asked.iter().map(|a| a.id).max().unwrap_or(0) + 1,
        };
        asked.retain(|a| !a.is(app, folder, server));
        asked.push(Asked {
            id,
            desktop,
            app: app.to_owned(),
            folder: folder.to_path_buf(),
            server: server.clone(),
            server_name: server_name.to_owned(),
            asked_at_ms: now_ms(),
            answer: None,
            answered_at_ms: None,
        });
        self.save(&asked)
    }

    /// Records the person's answer; false if that question was never asked.
    pub fn answer(
        &self,
        app: &str,
        folder: &Path,
        server: &ServerId,
        answer: Answer,
    ) -> Result<bool, QuestionsError> {
        let mut asked = self.lock();
        let Some(question) = asked.iter_mut().find(|a| a.is(app, folder, server)) else {
            return Ok(false);
        };
        question.answer = Some(answer);
        question.answered_at_ms = Some(now_ms());
        self.save(&asked)?;
        Ok(true)
    }

    /// Writes the record atomically (temporary file of mode 0600, fsync,
    /// rename, fsync of the folder), as the settings are written.
    fn save(&self, asked: &[Asked]) -> Result<(), QuestionsError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let fail = |source| QuestionsError {
            path: path.clone(),
            source,
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        rootgate_host::private_files::folder(dir).map_err(fail)?;
        let mut json = serde_json::to_vec_pretty(asked).map_err(|e| fail(e.into()))?;
        json.push(b'\n');
        let tmp = path.with_file_name(format!(".questions.json.{}", std::process::id()));
        crate::durable::replace(path, &tmp, &json, 0o600).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_kept_per_app_folder_and_server_across_opens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = Questions::beside(&dir.path().join("settings.json"));
        let files = ServerId::generate();
        let git = ServerId::generate();
        let app = Path::new("/home/u/code/app");
        let questions = Questions::open(path.clone());
        questions
            .ask("Claude Code", app, &files, "files", true)
            .expect("ask");
        questions
            .ask("Claude Code", app, &git, "git", false)
            .expect("ask");
        assert!(
            questions
                .answer("Claude Code", app, &files, Answer::NotNow)
                .expect("answer")
        );
        assert!(
            !questions
                .answer("Cursor", app, &files, Answer::NotNow)
                .expect("answer"),
            "Cursor was never asked"
        );

        let again = Questions::open(path);
        let kept = again.find("Claude Code", app, &files).expect("kept");
        assert_eq!(kept.answer, Some(Answer::NotNow));
        assert!(kept.answered_at_ms.is_some());
        assert_eq!(
            again.find("Claude Code", app, &git).expect("kept").answer,
            None
        );
        assert!(again.find("Cursor", app, &files).is_none());
        assert_eq!(again.list().len(), 2);
        // Each has its own number, kept across opens, for the window.
        let files_id = again.find("Claude Code", app, &files).expect("kept").id;
        assert_ne!(
            files_id,
            again.find("Claude Code", app, &git).expect("kept").id
        );
        assert_eq!(
            again.by_id(files_id).map(|a| a.server_name),
            Some("files".to_owned())
        );
        assert!(!again.find("Claude Code", app, &git).expect("kept").desktop);
        // Asked again, the old answer is gone and there is still one.
        again
            .ask("Claude Code", app, &files, "files", true)
            .expect("ask");
        assert_eq!(
            again.find("Claude Code", app, &files).expect("kept").id,
            files_id
        );
        assert_eq!(again.list().len(), 2);
        assert_eq!(
            again.find("Claude Code", app, &files).expect("kept").answer,
            None
        );
    }
}

#[cfg(test)]
mod older_records {
    use super::*;

    /// A record written before questions had numbers (and a place they
    /// were asked) is numbered when read, and counts as asked on the
    /// desktop, where every such question was.
    #[test]
    fn a_record_without_numbers_is_numbered_when_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = Questions::beside(&dir.path().join("settings.json"));
        let server = ServerId::generate();
        let old = serde_json::json!([
            {"app": "Claude Code", "folder": "/a", "server": server, "serverName": "files",
             "askedAtMs": 1, "answer": null, "answeredAtMs": null},
            {"app": "Claude Code", "folder": "/b", "server": server, "serverName": "files",
             "askedAtMs": 2, "answer": "notNow", "answeredAtMs": 3}
        ]);
        std::fs::write(&path, old.to_string()).expect("write");
        let questions = Questions::open(path);
        let mut ids: Vec<u64> = questions.list().iter().map(|a| a.id).collect();
        ids.sort_unstable();
        assert_eq!(ids, vec![1, 2]);
        assert!(questions.list().iter().all(|a| a.desktop));
    }
}
