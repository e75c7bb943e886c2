//! Suggestions: the folders an AI app works in (its roots, reported by its
//! bridge) offered for sharing with the server it reached, once each, and
//! again when the person asks from the connection's page; and the
//! suggestions still waiting, in one line each, for
//! the tray's menu.
//!
//! Each becomes an ordinary consent prompt (`prompts`); nothing here shares
//! anything, and the app never learns what the person answered. Not here:
//! the prompts themselves and their answers (`prompts`), the bridge's
//! reports and the folders another start hands over (`connections`).

use super::app_names::app_title;
use super::prompts::Consent;
use super::{ConsentPrompt, PromptId, Suggestion, lock};
use rootgate_model::folders::{self, CheckedFolder};
use rootgate_model::ids::{ConnectionId, ServerId};

impl Consent {
    /// A prompt for a folder an AI app works in, as its bridge reported
    /// (`uri`, one of the app's roots), suggesting it for `server`; none
    /// when the folder is not a local folder that can be shared, is shared
    /// with that server already, or was suggested for it before. Nothing is
    /// shared until the person answers, and the app never learns whether
    /// they did.
    pub fn prompt_for_suggestion(
        &self,
        uri: &str,
        server: &ServerId,
        app: &str,
    ) -> Option<ConsentPrompt> {
        let folder = app_folder(uri)?;
        let settings = self.ground.store.snapshot();
        let spec = settings.servers.iter().find(|s| &s.id == server)?;
        let kept = settings.roots.iter().find(|r| r.real_path == folder.real());
        if let Some(kept) = kept
            && settings
                .grants
                .iter()
                .any(|g| &g.server == server && g.root == kept.id)
        {
            return None;
        }
        let key = (server.clone(), folder.real().to_path_buf());
        if !lock(&self.prompts).suggested.insert(key) {
            return None;
        }
        let suggestion = Suggestion {
            app: app_title(app),
            server: server.clone(),
            server_name: spec.name.clone(),
            imported: false,
        };
        Some(self.open_prompt_with(folder, kept.map(|r| r.id.clone()), Some(suggestion)))
    }

    /// Opens again the suggestions of the AI app on connection `id`: a
    /// prompt for each folder the app works in that is not shared with
    /// its server yet, even one whose prompt the person cancelled before
    /// (asked for from the connection's page). Folders with a suggestion
    /// prompt still open are not asked twice. None for a connection the
    /// window does not know.
    pub fn suggest_again(&self, id: &ConnectionId) -> Vec<ConsentPrompt> {
        let Some(connection) = self.connections.list().into_iter().find(|c| &c.id == id) else {
            return Vec::new();
        };
        let app = connection.app.map(|a| a.name).unwrap_or_default();
        let mut prompts = Vec::new();
        for uri in &connection.app_roots {
            let Some(real) = app_folder(uri).map(|f| f.real().to_path_buf()) else {
                continue;
            };
            {
                let mut open = lock(&self.prompts);
                let asking = open.open.values().any(|p| {
                    p.folder.real() == real
                        && p.shown
                            .suggestion
                            .as_ref()
                            .is_some_and(|s| s.server == connection.server)
                });
                if asking {
                    continue;
                }
                open.suggested.remove(&(connection.server.clone(), real));
            }
            prompts.extend(self.prompt_for_suggestion(uri, &connection.server, &app));
        }
        prompts
    }

    /// The AI apps' folders waiting for the person's answer (asked on the
    /// desktop or not, as with no notification server), oldest first, each
    /// in one line for a menu: "Claude Code: share ~/code/app with files?".
    /// Names and paths have their hidden characters written out.
    pub fn waiting_questions(&self) -> Vec<WaitingQuestion> {
        self.open_prompts()
            .into_iter()
            .filter_map(|p| {
                let s = p.suggestion.as_ref().filter(|s| !s.imported)?;
                let folder = match self
                    .ground
                    .home
                    .as_deref()
                    .map(|h| p.real_path.strip_prefix(h))
                {
                    Some(Ok(rest)) if !rest.as_os_str().is_empty() => {
                        format!("~/{}", rest.display())
                    }
                    _ => p.real_path.display().to_string(),
                };
                let line = format!("{}: share {folder} with {}?", s.app, s.server_name);
                Some(WaitingQuestion {
                    prompt: p.id,
                    line: rootgate_model::names::written_out(&line),
                })
            })
            .collect()
    }
}

/// The folder an AI app names by `uri` (one of its roots, a `file://`
/// URI), checked as a folder the person chooses is; `None` when the URI
/// names no local path or the folder fails a check, for a folder an app
/// names that cannot be shared is passed over, never refused to the app.
/// What is checked here is only offered to the person, never shared.
pub(super) fn app_folder(uri: &str) -> Option<CheckedFolder> {
    let path = rootgate_model::uri::uri_to_path(uri).ok()?;
    folders::check(&path).ok()
}

/// A question waiting for the person, as the tray lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitingQuestion {
    pub prompt: PromptId,
    pub line: String,
}
