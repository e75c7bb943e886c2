//! Consent for actions: an AI app's tool call that the person's rules say
//! to ask about waits in its bridge (`rootgate-bridge`'s `relay::asks`),
//! and the window asks the person, on the desktop ("Cursor wants to run
//! write_file on files" with [Allow once] [Always for Cursor] [Deny]) and in
//! the window (every waiting call, with its arguments as the bridge masked
//! them). The first answer wins, from either place; "Always" also writes
//! the app's rule into the settings, so its later calls of the tool pass.
//!
//! Also here: the person's tool rules as the window sets them (a tool
//! allowed, asked or hidden, for every app or one; the server's default;
//! a changed tool looked at).
//!
//! What is not here: holding or refusing a call (the bridge), judging it
//! (`rootgate_model::tools`), the desktop's notification protocol
//! (`rootgate-notify`), the window's looks.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use rootgate_bridge::connections::{AppIdentity, AskAnswer, Connections, ToolAnswer, ToolAsk};
use rootgate_model::ids::{ConnectionId, ServerId};
use rootgate_model::tools::{ToolDefault, ToolSetting};
use rootgate_notify::{Desktop, Notification};
use serde::Serialize;

use super::ground::{DesktopSlot, Ground, TrayCue};
use super::servers::ServerHandle;
use super::{Change, ServerView, SupervisorError, app_title, lock};

/// One tool call that waits for the person, as the window shows it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolQuestion {
    pub connection: ConnectionId,
    pub server: ServerId,
    pub server_name: String,
    /// The app's name as it gave it (what a rule for it is kept under).
    pub app_name: String,
    /// The app's name as people know it ("Claude Code").
    pub app_title: String,
    pub ask: ToolAsk,
}

/// The tool calls that wait, and the notifications that ask about them.
#[derive(Default)]
struct ToolAsking {
    open: std::sync::Mutex<HashMap<(ConnectionId, String), Open>>,
}

struct Open {
    question: ToolQuestion,
    notification: Option<u32>,
}

/// The notification actions of a tool question, as `rootgate_notify`
/// hands them back. The daemon never sees these words alone: each
/// notification's buttons are sent with keys made for it, and only the
/// server that showed it is heard (see `rootgate_notify::Reply::Action`).
const ONCE: &str = "tool-once";
const ALWAYS: &str = "tool-always";
const DENY: &str = "tool-deny";

/// Tool consent: the calls that wait for the person, and the rules.
pub struct ToolConsent {
    me: Weak<ToolConsent>,
    ground: Ground,
    /// AI apps' tool calls that wait for the person's answer.
    tool_asking: ToolAsking,
    desktop: DesktopSlot,
    tray: TrayCue,
    connections: Arc<Connections>,
    servers: Arc<dyn ServerHandle>,
}

impl ToolConsent {
    pub(super) fn new(
        ground: Ground,
        desktop: DesktopSlot,
        tray: TrayCue,
        connections: Arc<Connections>,
        servers: Arc<dyn ServerHandle>,
    ) -> Arc<ToolConsent> {
        Arc::new_cyclic(|me| ToolConsent {
            me: me.clone(),
            ground,
            tool_asking: ToolAsking::default(),
            desktop,
            tray,
            connections,
            servers,
        })
    }

    /// Every tool call that waits for the person now, oldest first.
    pub fn tool_questions(&self) -> Vec<ToolQuestion> {
        let mut all: Vec<ToolQuestion> = lock(&self.tool_asking.open)
            .values()
            .map(|o| o.question.clone())
            .collect();
        all.sort_by_key(|q| (q.ask.since_ms, q.ask.key.clone()));
        all
    }

    /// A bridge said which of its calls wait now (all of them).
    pub(super) fn on_asks(
        &self,
        connection: ConnectionId,
        server: ServerId,
        server_name: String,
        app: Option<AppIdentity>,
        asks: Vec<ToolAsk>,
    ) {
        let app_name = app.map(|a| a.name).unwrap_or_default();
        let mut new = Vec::new();
        let gone: Vec<u32> = {
            let mut open = lock(&self.tool_asking.open);
            let keys: std::collections::HashSet<&str> =
                asks.iter().map(|a| a.key.as_str()).collect();
            let mut gone = Vec::new();
            open.retain(|(c, key), o| {
                let keep = c != &connection || keys.contains(key.as_str());
                if !keep && let Some(id) = o.notification {
                    gone.push(id);
                }
                keep
            });
            for ask in asks {
                let at = (connection.clone(), ask.key.clone());
                if open.contains_key(&at) {
                    continue;
                }
                let question = ToolQuestion {
                    connection: connection.clone(),
                    server: server.clone(),
                    server_name: server_name.clone(),
                    app_name: app_name.clone(),
                    app_title: app_title(&app_name),
                    ask,
                };
                new.push(question.clone());
                open.insert(
                    at,
                    Open {
                        question,
                        notification: None,
                    },
                );
            }
            gone
        };
        self.close_notifications(gone);
        if let Some(desktop) = self.desktop.get() {
            for question in new {
                self.notify_tool(Arc::clone(&desktop), question);
            }
        }
        self.tool_questions_changed();
    }

    /// The bridge of `connection` went away: its calls wait no more.
    pub(super) fn asks_ended(&self, connection: &ConnectionId) {
        let gone: Vec<u32> = {
            let mut open = lock(&self.tool_asking.open);
            let before = open.len();
            let mut gone = Vec::new();
            open.retain(|(c, _), o| {
                let keep = c != connection;
                if !keep && let Some(id) = o.notification {
                    gone.push(id);
                }
                keep
            });
            if open.len() == before {
                return;
            }
            gone
        };
        self.close_notifications(gone);
        self.tool_questions_changed();
    }

    /// The person's answer to a waiting call (from the window, or a
    /// notification's action: `by` says which, for the record). "Always"
    /// writes the app's rule for the tool first, so that the app's next
    /// call passes whatever else waits.
    pub fn answer_tool_question(
        &self,
        connection: &ConnectionId,
        key: &str,
        answer: AskAnswer,
        by: &str,
    ) -> Result<(), SupervisorError> {
        let at = (connection.clone(), key.to_owned());
        let Some(question) = lock(&self.tool_asking.open)
            .get(&at)
            .map(|o| o.question.clone())
        else {
            return Err(SupervisorError::UnknownToolQuestion);
        };
        // The rule is written first: if it cannot be, the call still waits
        // and the person hears why, and may answer again.
        if answer == AskAnswer::Always && !question.app_name.is_empty() {
            self.ground.store.set_tool_setting(
                &question.server,
                Some(&question.app_name),
                &question.ask.tool,
                Some(ToolSetting::Allowed),
            )?;
        }
        // Answered from the window and the desktop at once: the first wins.
        let Some(open) = lock(&self.tool_asking.open).remove(&at) else {
            return Err(SupervisorError::UnknownToolQuestion);
        };
        self.connections.answer(
            connection,
            ToolAnswer {
                key: key.to_owned(),
                answer,
                by: by.to_owned(),
            },
        );
        self.close_notifications(open.notification.into_iter().collect());
        self.tool_questions_changed();
        Ok(())
    }

    /// A notification's action, if it is a tool question's: true when it
    /// was one (answered, or already gone).
    pub(super) fn on_tool_action(&self, id: u32, action: &str) -> bool {
        let answer = match action {
            ONCE => AskAnswer::Once,
            ALWAYS => AskAnswer::Always,
            DENY => AskAnswer::Deny,
            _ => return false,
        };
        let at = lock(&self.tool_asking.open)
            .iter()
            .find(|(_, o)| o.notification == Some(id))
            .map(|(at, _)| at.clone());
        if let Some((connection, key)) = at
            && let Err(e) =
                self.answer_tool_question(&connection, &key, answer, "you, on the desktop")
        {
            tracing::warn!(error = %e, "a tool question's answer could not be given");
        }
        true
    }

    /// Sets what AI apps may do with a server's tool, for every app or for
    /// one (`app`, by the name it gives); `None` takes the setting away.
    /// Live connections follow at once.
    pub fn set_tool_setting(
        &self,
        id: &ServerId,
        app: Option<&str>,
        tool: &str,
        setting: Option<ToolSetting>,
    ) -> Result<ServerView, SupervisorError> {
        self.ground.store.set_tool_setting(id, app, tool, setting)?;
        self.servers.server(id)
    }

    /// Sets what the server's tools without a setting of their own get.
    pub fn set_tool_default(
        &self,
        id: &ServerId,
        default: ToolDefault,
    ) -> Result<ServerView, SupervisorError> {
        self.ground.store.set_tool_default(id, default)?;
        self.servers.server(id)
    }

    /// The person looked at how a tool changed: its settings apply again.
    pub fn acknowledge_tool(
        &self,
        id: &ServerId,
        tool: &str,
    ) -> Result<ServerView, SupervisorError> {
        self.ground.store.acknowledge_tool(id, tool)?;
        self.servers.server(id)
    }

    fn notify_tool(&self, desktop: Arc<Desktop>, question: ToolQuestion) {
        let ask = &question.ask;
        let claim = match (ask.read_only, ask.destructive) {
            (Some(true), _) => "It says it only reads.",
            (_, Some(true)) => "It says it may destroy data.",
            _ => "It does not say it only reads.",
        };
        let notification = Notification {
            summary: format!(
                "{} wants to run {} on {}",
                question.app_title, ask.tool, question.server_name
            ),
            body: format!("{claim} Asked because {}.", ask.why),
            actions: vec![
                (ONCE.into(), "Allow once".into()),
                (ALWAYS.into(), format!("Always for {}", question.app_title)),
                (DENY.into(), "Deny".into()),
                ("open".into(), "Open Rootgate".into()),
            ],
            expire: None,
        };
        let me = self.me.clone();
        let at = (question.connection.clone(), ask.key.clone());
        self.ground.runtime.spawn(async move {
            let shown = tokio::time::timeout(
                std::time::Duration::from_secs(5),
                desktop.notify(&notification),
            )
            .await;
            let Some(tools) = me.upgrade() else {
                return;
            };
            if let Ok(Ok(id)) = shown {
                let mut open = lock(&tools.tool_asking.open);
                match open.get_mut(&at) {
                    Some(o) => o.notification = Some(id),
                    // Answered in the window while it was being shown.
                    None => {
                        drop(open);
                        tools.close_notifications(vec![id]);
                    }
                }
            }
        });
    }

    /// The notification server went away or was replaced: what it showed
    /// cannot be answered, and its ids mean nothing to the next server,
    /// which numbers its own from 1 again. The calls still wait, in the
    /// window.
    pub(super) fn tool_notifications_gone(&self) {
        for open in lock(&self.tool_asking.open).values_mut() {
            open.notification = None;
        }
    }

    fn close_notifications(&self, ids: Vec<u32>) {
        let Some(desktop) = self.desktop.get() else {
            return;
        };
        for id in ids {
            let desktop = Arc::clone(&desktop);
            self.ground
                .runtime
                .spawn(async move { desktop.close(id).await });
        }
    }

    fn tool_questions_changed(&self) {
        let _ = self.ground.changes.send(Change::ToolQuestions {
            questions: self.tool_questions(),
        });
        self.tray.grow();
    }
}
