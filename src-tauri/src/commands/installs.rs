//! Servers from where they are published: a bundle picked in the native
//! file picker, the MCP Registry searched, an offer installed or dropped;
//! each command one line into the `Installing` service.
//!
//! What is not here: reading a bundle or asking a registry (`rootgate-
//! sources`), and any logic.

use std::collections::BTreeMap;

use rootgate_core::sources::registry::listing::Found;
use rootgate_core::supervisor::{InstallOutcome, InstallView};
use tauri::{AppHandle, Runtime, WebviewWindow};
use tracing::instrument;

use super::{Result, Sup};
use crate::error::Arg;

/// Installs offer `id` (a bundle or a registry entry the window showed)
/// with the person's answers by setting key; they are not logged, and the
/// secret ones go to the keyring.
#[tauri::command]
#[instrument(skip(sup, values), err)]
pub fn install_offer(
    sup: Sup<'_>,
    id: Arg<u32>,
    values: Arg<BTreeMap<String, String>>,
) -> Result<InstallOutcome> {
    Ok(sup.installing().install(id.0, &values.0)?)
}

/// Opens the native file picker for an MCP bundle and reads it (nothing is
/// unpacked until it is installed); none when the picker was cancelled.
#[tauri::command]
#[instrument(skip_all, err)]
pub async fn pick_bundle<R: Runtime>(
    app: AppHandle<R>,
    window: WebviewWindow<R>,
    sup: Sup<'_>,
) -> Result<Option<InstallView>> {
    match crate::picker::pick_bundle(&app, &window).await? {
        Some(file) => Ok(Some(sup.installing().open_bundle(&file)?)),
        None => Ok(None),
    }
}

/// Searches the MCP Registry; its answer from the cache, saying so, when
/// the registry cannot be reached.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn registry_search(sup: Sup<'_>, words: Arg<String>) -> Result<Found> {
    Ok(sup.installing().registry_search(words.0).await?)
}

/// One registry entry's package, fetched and shown for installing.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn registry_offer(
    sup: Sup<'_>,
    name: Arg<String>,
    version: Arg<String>,
    package: Arg<u32>,
) -> Result<InstallView> {
    Ok(sup
        .installing()
        .registry_offer(name.0, version.0, package.0)
        .await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn drop_install(sup: Sup<'_>, id: Arg<u32>) -> Result<()> {
    sup.installing().drop_install(id.0);
    Ok(())
}
