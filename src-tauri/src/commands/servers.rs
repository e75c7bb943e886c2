//! The servers: the list, a person's acts on one (add, edit, approve,
//! start, stop, remove), what the window reads of one, its folders' checklist
//! and its secrets; each command one line into the `Servers` service.
//!
//! What is not here: trying a running server (`tries`), and any logic.

use rootgate_core::ids::{RootId, ServerId};
use rootgate_core::servers::{SecretPlace, ServerDraft};
use rootgate_core::session::LogLine;
use rootgate_core::session::delivery::FolderDelivery;
use rootgate_core::supervisor::{FolderChoice, ServerView};
use rootgate_core::timeline::{Entry, Page};
use tracing::instrument;

use super::{Result, Sup};
use crate::error::Arg;

#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_servers(sup: Sup<'_>) -> Result<Vec<ServerView>> {
    Ok(sup.servers().list())
}

// The draft is not traced: it may hold the values of secrets.
#[tauri::command]
#[instrument(skip(sup, draft), err)]
pub fn add_server(sup: Sup<'_>, draft: Arg<ServerDraft>) -> Result<ServerView> {
    Ok(sup.servers().add_server(draft.0)?)
}

#[tauri::command]
#[instrument(skip(sup, draft), err)]
pub async fn update_server(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    draft: Arg<ServerDraft>,
) -> Result<ServerView> {
    Ok(sup.servers().update_server(&id.0, draft.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn remove_server(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.servers().remove_server(&id.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn approve_command(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    command_line: Arg<String>,
) -> Result<ServerView> {
    Ok(sup.servers().approve_command(&id.0, &command_line.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn start_server(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.servers().start(&id.0)?)
}

/// Every kept folder, as the server's own checklist shows it.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn folder_choices(sup: Sup<'_>, id: Arg<ServerId>) -> Result<Vec<FolderChoice>> {
    Ok(sup.servers().folder_choices(&id.0)?)
}

/// The server may see exactly these kept folders (ids, never paths).
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_server_folders(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    roots: Arg<Vec<RootId>>,
) -> Result<ServerView> {
    Ok(sup.servers().set_server_folders(&id.0, &roots.0)?)
}

/// Cancels a restart scheduled after a failure; the server waits for the
/// person, also at the next launch.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn stop_retrying(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.servers().stop_retrying(&id.0)?)
}

/// The value of a server's secret variable, which the person asked to see.
/// The answer is not traced.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn reveal_secret(sup: Sup<'_>, id: Arg<ServerId>, name: Arg<String>) -> Result<String> {
    Ok(sup.servers().reveal_secret(&id.0, &name.0).await?)
}

/// Keeps a secret where the person chose (`file`, `notStored`, or
/// `keyring` to try it again) when no keyring was available.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn keep_secret(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    name: Arg<String>,
    place: Arg<SecretPlace>,
) -> Result<ServerView> {
    Ok(sup.servers().keep_secret(&id.0, &name.0, place.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn stop_server(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.servers().stop(&id.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn restart_server(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.servers().restart(&id.0)?)
}

/// A server's newest `limit` entries older than `before` (the newest of
/// all without it): the window loads a long timeline a page at a time, so
/// opening one never waits for all of it.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn server_timeline(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    before: Arg<Option<u64>>,
    limit: Arg<usize>,
) -> Result<Page> {
    Ok(sup.servers().timeline_page(&id.0, before.0, limit.0))
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn server_log(sup: Sup<'_>, id: Arg<ServerId>) -> Result<Vec<LogLine>> {
    Ok(sup.servers().log_of(&id.0)?)
}

/// Each folder a server is granted or may still hold, and whether the
/// server has picked it up.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn server_folders(sup: Sup<'_>, id: Arg<ServerId>) -> Result<Vec<FolderDelivery>> {
    Ok(sup.servers().server_folders(&id.0)?)
}

/// Forgets that a server was seen not to follow changes.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn forget_following(sup: Sup<'_>, id: Arg<ServerId>) -> Result<ServerView> {
    Ok(sup.servers().forget_following(&id.0)?)
}

#[tauri::command]
#[instrument(skip_all, err)]
pub fn activity(sup: Sup<'_>) -> Result<Vec<Entry>> {
    Ok(sup.servers().activity())
}
