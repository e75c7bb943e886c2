//! The commands the webview may call, by the window's areas (a file each):
//! each one line into one service of the supervisor, traced with its
//! error. Their permissions are listed in `build.rs` and
//! granted in `capabilities/main.json`; none of them takes a path. Their
//! arguments are `Arg`s, so one of the wrong shape is refused with the same
//! `{code, message}` as every other error.
//!
//! What is not here: any logic. A command that needs more than one call
//! into the core is a sign that the core lacks a method.

mod apps;
mod connections;
mod folders;
mod installs;
mod preferences;
mod servers;
mod tools;
mod tries;

pub use apps::*;
pub use connections::*;
pub use folders::*;
pub use installs::*;
pub use preferences::*;
pub use servers::*;
pub use tools::*;
pub use tries::*;

use std::sync::Arc;

use rootgate_core::supervisor::Supervisor;
use rootgate_core::templates::ServerTemplate;
use tauri::State;
use tracing::instrument;

use crate::error::CommandError;
use crate::{AppInfo, Shell};

type Sup<'a> = State<'a, Arc<Supervisor>>;
type Result<T> = std::result::Result<T, CommandError>;

#[tauri::command]
#[instrument(skip_all, err)]
pub fn app_info(shell: State<'_, Shell>) -> Result<AppInfo> {
    Ok(shell.info())
}

#[tauri::command]
#[instrument(skip_all, err)]
pub fn templates(shell: State<'_, Shell>) -> Result<Vec<ServerTemplate>> {
    Ok(shell.templates())
}

/// The window shows its folders and servers: the enabled servers start now
/// (the first time only), not while the window is still drawing.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn window_shown(shell: State<'_, Shell>, sup: Sup<'_>) -> Result<()> {
    shell.start_servers(&sup);
    Ok(())
}
