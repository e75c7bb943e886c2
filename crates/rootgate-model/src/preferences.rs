//! The person's preferences for Rootgate itself, kept in the settings file
//! beside the folders and servers: whether all sharing is paused, which
//! desktop notifications beyond the questions they want, and whether
//! "Start at login" was offered already, and the MCP Registry they chose.
//!
//! Pausing lives here, in the settings file, rather than in the window's
//! memory, because bridges (`rootgate connect`) read that file and nothing
//! else: a pause must reach every AI app's server, the window's own and
//! those it never started, and must survive a restart of the window. The
//! store applies it where it publishes each server's list (see `store`).
//!
//! A damaged settings file keeps every preference that can still be read,
//! one field at a time, and one whose pause cannot be read comes back
//! paused (`settings::tolerant`): they are the person's answers, and a
//! pause lost would show every app the folders it had withdrawn.
//!
//! What is not here: whether Rootgate starts at login (that is a file of
//! the desktop's, `autostart`, and its truth is the file itself), and when
//! a notification is sent (the supervisor).

use serde::{Deserialize, Serialize};

/// What the person chose about Rootgate itself. Every field has a default,
/// so a settings file written before a field existed reads as it did.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Preferences {
    /// While set, every server is told it has no folders, whatever it was
    /// granted; the grants stay, and resuming tells each its folders again.
    pub sharing_paused: bool,
    /// "Start at login" was offered once (after the first AI app was
    /// routed), whatever the answer: it is never offered again.
    pub start_at_login_offered: bool,
    /// Which desktop notifications to send besides the questions.
    pub notify: NotifyChoices,
    /// The MCP Registry to search and install from, when the person chose
    /// one (a company's mirror); none: `$ROOTGATE_REGISTRY`, else the
    /// official registry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
    /// How many minutes the resident gate keeps a server that no AI app
    /// session uses before it stops it; none: [`UNUSED_SERVER_MINUTES`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unused_server_minutes: Option<u32>,
}

/// How long a server no AI app session uses is kept, unless the person
/// chose otherwise: long enough that an app restarted, or a session opened
/// soon after another closed, finds its server running.
pub const UNUSED_SERVER_MINUTES: u32 = 10;

impl Preferences {
    /// How long the resident gate keeps a server no session uses.
    pub fn unused_server_stop(&self) -> std::time::Duration {
        let minutes = self.unused_server_minutes.unwrap_or(UNUSED_SERVER_MINUTES);
        std::time::Duration::from_secs(u64::from(minutes) * 60)
    }
}

/// The notifications a person may turn off, each on by default: each says
/// something an AI app's user would otherwise not see with the window
/// closed.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NotifyChoices {
    /// A server failed to start for an AI app routed through Rootgate (its
    /// reason in the notification).
    pub server_failed: bool,
    /// A server had to be restarted so that a withdrawal took effect (an AI
    /// app's call in flight may have been cut short).
    pub withdrawal_restarted: bool,
    /// A command imported from an AI app's file (`rootgate import`) waits
    /// for the person's approval before it runs.
    pub approval_waiting: bool,
}

impl Default for NotifyChoices {
    fn default() -> Self {
        NotifyChoices {
            server_failed: true,
            withdrawal_restarted: true,
            approval_waiting: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_preferences_reads_as_the_defaults() {
        let p: Preferences = serde_json::from_str("{}").expect("parse");
        assert_eq!(p, Preferences::default());
        assert!(!p.sharing_paused);
        assert!(
            p.notify.server_failed && p.notify.withdrawal_restarted && p.notify.approval_waiting
        );
        let p: Preferences =
            serde_json::from_str(r#"{"sharingPaused":true,"notify":{"serverFailed":false}}"#)
                .expect("parse");
        assert!(p.sharing_paused);
        assert!(!p.notify.server_failed);
        assert!(
            p.notify.approval_waiting,
            "a choice not written keeps its default"
        );
    }
}
