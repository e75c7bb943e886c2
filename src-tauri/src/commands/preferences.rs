//! The window's Settings: pause, notifications, the registry, Start at
//! login; each command one line into the `Preferences` service.
//!
//! What is not here: the tray's menu (`tray`), and any logic.

use rootgate_core::autostart::LoginStart;
use rootgate_core::preferences::NotifyChoices;
use rootgate_core::supervisor::PreferencesView;
use tracing::instrument;

use super::{Result, Sup};
use crate::error::Arg;

/// The Settings view: pause, notifications, Start at login (for this
/// program, the app's binary).
#[tauri::command]
#[instrument(skip_all, err)]
pub fn preferences(sup: Sup<'_>) -> Result<PreferencesView> {
    Ok(sup.preferences().view(&crate::program()?)?)
}

/// Pauses all sharing (every server and bridge is told no folders) or
/// resumes it.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_sharing_paused(sup: Sup<'_>, paused: Arg<bool>) -> Result<()> {
    Ok(sup.preferences().set_sharing_paused(paused.0)?)
}

/// The MCP Registry to search and install from; an empty address: the
/// default. (Not an optional argument: a body that is not an object would
/// then read as "none" and reset the choice.)
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_registry(sup: Sup<'_>, address: Arg<String>) -> Result<()> {
    Ok(sup.preferences().set_registry(Some(&address.0))?)
}

/// How many minutes a server no AI app session uses is kept running.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_unused_server_minutes(sup: Sup<'_>, minutes: Arg<u32>) -> Result<()> {
    Ok(sup.preferences().set_unused_server_minutes(minutes.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_notify_choices(sup: Sup<'_>, choices: Arg<NotifyChoices>) -> Result<()> {
    Ok(sup.preferences().set_notify_choices(choices.0)?)
}

/// Starts this program hidden in the tray at login (the autostart entry),
/// or stops doing so. The path written is the running program's, never
/// one from the webview.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_start_at_login(sup: Sup<'_>, on: Arg<bool>) -> Result<LoginStart> {
    Ok(sup
        .preferences()
        .set_start_at_login(on.0, &crate::program()?)?)
}

/// The offer of Start at login was put away: it is not made again.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn dismiss_start_at_login(sup: Sup<'_>) -> Result<()> {
    Ok(sup.preferences().start_at_login_offered()?)
}
