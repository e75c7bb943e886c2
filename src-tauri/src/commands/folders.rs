//! The folder list and folders' consent: each command one line into the
//! `Folders` or the `Consent` service.
//!
//! What is not here: the servers' own checklists of folders (`servers`),
//! and any logic.

use rootgate_core::ids::{ConnectionId, RootId, ServerId};
use rootgate_core::supervisor::{ConsentPrompt, FolderView, PromptId};
use tauri::{AppHandle, Runtime, WebviewWindow};
use tracing::instrument;

use super::{Result, Sup};
use crate::error::Arg;

#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_folders(sup: Sup<'_>) -> Result<Vec<FolderView>> {
    Ok(sup.folders().list())
}

/// Opens the native folder picker; returns one consent prompt per folder
/// chosen (none when the picker was cancelled).
#[tauri::command]
#[instrument(skip_all, err)]
pub async fn pick_folders<R: Runtime>(
    app: AppHandle<R>,
    window: WebviewWindow<R>,
    sup: Sup<'_>,
) -> Result<Vec<ConsentPrompt>> {
    Ok(sup
        .consent()
        .prompts_for_paths(crate::picker::pick(&app, &window).await?)
        .into_prompts()?)
}

#[tauri::command]
#[instrument(skip_all, err)]
pub fn open_prompts(sup: Sup<'_>) -> Result<Vec<ConsentPrompt>> {
    Ok(sup.consent().open_prompts())
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn answer_prompt(
    sup: Sup<'_>,
    prompt: Arg<PromptId>,
    servers: Arg<Vec<ServerId>>,
    name: Arg<Option<String>>,
) -> Result<FolderView> {
    Ok(sup.consent().answer_prompt(prompt.0, &servers.0, name.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn cancel_prompt(sup: Sup<'_>, prompt: Arg<PromptId>) -> Result<()> {
    sup.consent().cancel_prompt(prompt.0);
    Ok(())
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn change_access(sup: Sup<'_>, root: Arg<RootId>) -> Result<ConsentPrompt> {
    Ok(sup.consent().prompt_for_root(&root.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn rename_folder(sup: Sup<'_>, root: Arg<RootId>, name: Arg<String>) -> Result<FolderView> {
    Ok(sup.folders().rename_folder(&root.0, &name.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn remove_folder(sup: Sup<'_>, root: Arg<RootId>) -> Result<()> {
    Ok(sup.folders().remove_folder(&root.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn revoke(sup: Sup<'_>, server: Arg<ServerId>, root: Arg<RootId>) -> Result<()> {
    Ok(sup.folders().revoke(&server.0, &root.0)?)
}

/// Asks again about the folders an AI app's connection works in, even
/// those whose suggestion the person cancelled: the prompts it opens.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn suggest_again(sup: Sup<'_>, id: Arg<ConnectionId>) -> Result<Vec<ConsentPrompt>> {
    Ok(sup.consent().suggest_again(&id.0))
}
