//! The window's Settings: pausing all sharing, the desktop notifications a
//! person chose, and Start at login with its one offer.
//!
//! Pausing is a preference saved in the settings file (see
//! `rootgate_model::preferences`): the store then publishes an empty list
//! to every server, the window's sessions and every bridge's alike, and
//! keeps the grants, so resuming tells each server its folders again. Start
//! at login is the desktop's autostart entry (`rootgate_model::autostart`),
//! beside the settings' configuration folder; it is offered once, after the
//! first AI app was routed through Rootgate, and never again.
//!
//! Not here: the tray's menu (the shell), what each notification says and
//! when it is sent (`notes`), and the desktop's questions (`questions`).

use std::path::Path;

use serde::Serialize;

use rootgate_apps::route::Ledger;
use rootgate_model::autostart::{Autostart, LoginStart};
use rootgate_model::preferences::NotifyChoices;

use super::SupervisorError;
use super::ground::Ground;

/// The Settings view, as the window shows it.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreferencesView {
    /// Every server is told no folders until the person resumes.
    pub sharing_paused: bool,
    pub notify: NotifyChoices,
    pub start_at_login: LoginStart,
    /// Offer Start at login now: an AI app was routed through Rootgate,
    /// the offer was never made, and Rootgate does not start at login yet.
    pub offer_start_at_login: bool,
    /// The MCP Registry the person chose, if any.
    pub registry: Option<String>,
    /// The registry asked when they chose none (`$ROOTGATE_REGISTRY`, else
    /// the official one).
    pub registry_default: String,
    /// How many minutes the resident gate keeps a server no AI app session
    /// uses before it stops it (0: at once).
    pub unused_server_minutes: u32,
}

/// The longest a person may keep an unused server: a day. Longer is a
/// server that never stops, which "One process per app session" or
/// quitting says more honestly.
pub const MOST_UNUSED_SERVER_MINUTES: u32 = 24 * 60;

/// The window's Settings.
pub struct Preferences {
    ground: Ground,
}

impl Preferences {
    pub(super) fn new(ground: Ground) -> Preferences {
        Preferences { ground }
    }

    fn autostart(&self) -> Result<Autostart, SupervisorError> {
        Autostart::for_settings(self.ground.settings_path()).ok_or(SupervisorError::NoConfigFolder)
    }

    /// The person's preferences, with Start at login as the autostart
    /// entry for `program` (the app's binary) says now.
    pub fn view(&self, program: &Path) -> Result<PreferencesView, SupervisorError> {
        let kept = self.ground.store.preferences();
        let start_at_login = self.autostart()?.state(program);
        let routed = || {
            Ledger::beside(self.ground.settings_path())
                .load()
                .is_ok_and(|l| !l.routes.is_empty())
        };
        Ok(PreferencesView {
            sharing_paused: kept.sharing_paused,
            notify: kept.notify,
            offer_start_at_login: !kept.start_at_login_offered && !start_at_login.on && routed(),
            start_at_login,
            registry: kept.registry,
            registry_default: rootgate_sources::registry::address(None),
            unused_server_minutes: kept
                .unused_server_minutes
                .unwrap_or(rootgate_model::preferences::UNUSED_SERVER_MINUTES),
        })
    }

    /// Whether all sharing is paused now.
    pub fn sharing_paused(&self) -> bool {
        self.ground.store.preferences().sharing_paused
    }

    /// Pauses all sharing (every server and bridge is told no folders) or
    /// resumes it (each is told its folders again).
    pub fn set_sharing_paused(&self, paused: bool) -> Result<(), SupervisorError> {
        self.ground
            .store
            .change_preferences(|p| p.sharing_paused = paused)?;
        Ok(())
    }

    /// The MCP Registry to search and install from (checked: HTTPS, or
    /// HTTP to this machine); none goes back to the default.
    pub fn set_registry(&self, address: Option<&str>) -> Result<(), SupervisorError> {
        let address = address
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .map(rootgate_sources::registry::checked_address)
            .transpose()?;
        self.ground
            .store
            .change_preferences(|p| p.registry = address)?;
        Ok(())
    }

    /// How many minutes a server no AI app session uses is kept running
    /// for the next (0: stopped at once), at most a day.
    pub fn set_unused_server_minutes(&self, minutes: u32) -> Result<(), SupervisorError> {
        if minutes > MOST_UNUSED_SERVER_MINUTES {
            return Err(SupervisorError::Invalid(format!(
                "an unused server can be kept for at most {MOST_UNUSED_SERVER_MINUTES} minutes                  (a day), not {minutes}"
            )));
        }
        self.ground
            .store
            .change_preferences(|p| p.unused_server_minutes = Some(minutes))?;
        Ok(())
    }

    /// Which desktop notifications to send besides the questions.
    pub fn set_notify_choices(&self, choices: NotifyChoices) -> Result<(), SupervisorError> {
        self.ground
            .store
            .change_preferences(|p| p.notify = choices)?;
        Ok(())
    }

    /// Starts Rootgate (`program`, hidden in the tray) at login, or stops
    /// doing so. Either answer also counts as the offer answered.
    pub fn set_start_at_login(
        &self,
        on: bool,
        program: &Path,
    ) -> Result<LoginStart, SupervisorError> {
        let autostart = self.autostart()?;
        let state = if on {
            autostart.enable(program)?
        } else {
            autostart.disable(program)?
        };
        self.start_at_login_offered()?;
        Ok(state)
    }

    /// The offer of Start at login was made (and answered, or put away):
    /// it is not made again.
    pub fn start_at_login_offered(&self) -> Result<(), SupervisorError> {
        self.ground
            .store
            .change_preferences(|p| p.start_at_login_offered = true)?;
        Ok(())
    }
}
