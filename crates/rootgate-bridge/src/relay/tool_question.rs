//! Tool calls held for the person's answer: the router parks a call the
//! rules say to ask about (`route::tools`), and this module asks, through
//! the Rootgate window the bridge reports to (it shows the question in the
//! window and on the desktop), and brings the answer back. The other calls
//! of the app go on meanwhile: only the asked call waits.
//!
//! A call waits at most [`TOOL_ASK_BOUND`], then is refused in words. With
//! no window to ask, it is refused at once, saying so; a window that goes
//! away while calls wait refuses them too. A `notifications/cancelled`
//! from the app withdraws the question (the router's `cancel_asked`).
//!
//! Also here: what the server's `tools/list` answers showed is published
//! ([`Relay::listed`]) for the window to keep in the settings, so a tool
//! that changed is noticed at its next start; and the person's rules are
//! handed to the router as they change.
//!
//! What is not here: judging a call (the router and the model's
//! `ToolRules`), the question's looks (the window).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use rootgate_model::tools::{ToolRules, ToolSeen};
use tokio::time::Instant;

use super::Relay;
use crate::connections::{ToolAnswer, ToolAsk};

/// The longest a tool call waits for the person. Long enough to read the
/// arguments and decide; shorter than the request timeouts of the apps
/// that have one, so that the app hears the refusal in words rather than
/// a timeout of its own: the TypeScript SDK's default (Claude Desktop's,
/// Cursor's and VS Code's clients) is 60 s, and the call still needs its
/// own time at the server after the answer. ARCHITECTURE.md, "Consent for
/// actions".
pub(crate) const TOOL_ASK_BOUND: Duration = Duration::from_secs(45);

impl Relay {
    /// The person's rules for the server's tools now (see `route::tools`);
    /// a change of what is hidden is told to an app that is initialized.
    pub async fn set_tool_rules(&self, rules: ToolRules) {
        let outs = {
            let mut state = self.lock();
            state.router.set_tool_rules(rules)
        };
        self.perform(outs, None).await;
    }

    /// What the server's `tools/list` answers showed so far on this
    /// connection, for the window to keep (the bridge cannot: the window
    /// owns the settings); the link reports it.
    pub fn listed(&self) -> tokio::sync::watch::Receiver<Option<Arc<BTreeMap<String, ToolSeen>>>> {
        self.listed.subscribe()
    }

    pub(super) fn tools_were_seen(&self, tools: BTreeMap<String, ToolSeen>) {
        self.listed.send_modify(|listed| {
            // Pages of one list add up; a tool listed again replaces itself.
            let mut all = listed.as_deref().cloned().unwrap_or_default();
            all.extend(tools);
            *listed = Some(Arc::new(all));
        });
    }

    /// Asks the person about a parked call through the window; with no
    /// window to ask, returns its refusal (and that of any other call
    /// parked, though none can be: each was refused the same way).
    pub(super) fn ask_person(&self, mut ask: ToolAsk) -> Vec<crate::route::Out> {
        if !self.questions.borrow().window() {
            return self.lock_router_refuse(
                "it needs your answer in Rootgate, and Rootgate is not running to ask you; \
                 open Rootgate and try again",
            );
        }
        ask.until_ms = ask.since_ms + TOOL_ASK_BOUND.as_millis() as u64;
        let key = ask.key.clone();
        self.seen.send_modify(|s| s.asks.push(ask));
        let me = self.me.clone();
        tokio::spawn(async move {
            tokio::time::sleep(TOOL_ASK_BOUND).await;
            if let Some(relay) = me.upgrade() {
                let outs = {
                    let mut state = relay.lock();
                    state
                        .router
                        .ask_expired(&key, TOOL_ASK_BOUND, Instant::now())
                };
                relay.perform(outs, None).await;
            }
        });
        Vec::new()
    }

    /// The person answered a question of this connection.
    pub(crate) async fn answer_tool(&self, answer: ToolAnswer) {
        let outs = {
            let mut state = self.lock();
            state
                .router
                .answer_ask(&answer.key, answer.answer, &answer.by, Instant::now())
        };
        self.perform(outs, None).await;
    }

    fn lock_router_refuse(&self, why: &str) -> Vec<crate::route::Out> {
        let mut state = self.lock();
        state.router.refuse_asked(why, Instant::now())
    }

    /// The window went away: the calls that wait for it are refused.
    pub(super) fn window_gone_from_asks(&self) {
        let outs = self.lock_router_refuse(
            "Rootgate's window went away before you answered; open Rootgate and try again",
        );
        if outs.is_empty() {
            return;
        }
        let me = self.me.clone();
        tokio::spawn(async move {
            if let Some(relay) = me.upgrade() {
                relay.perform(outs, None).await;
            }
        });
    }
}
