//! The window's tries on a running server: its offers, a tool called (with
//! progress and cancel), a resource read or followed, a prompt got; each
//! command one line into the `Tries` service.
//!
//! What is not here: anything about how results look (the webview), and any
//! logic.

use std::collections::BTreeMap;

use rootgate_core::ids::ServerId;
use rootgate_core::session::offers::{Offers, TryOutcome};
use serde_json::{Map, Value};
use tracing::instrument;

use super::{Result, Sup};
use crate::error::Arg;

/// Everything a running server offers: tools, resources, templates, prompts.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn server_offers(sup: Sup<'_>, id: Arg<ServerId>) -> Result<Offers> {
    Ok(sup.tries().offers(&id.0).await?)
}

/// Calls a tool as call number `call` (the window's own numbering, for its
/// progress and `cancel_call`). The arguments are data for the server, not
/// folders for Rootgate, and are not traced: they may hold secrets.
#[tauri::command]
#[instrument(skip_all, fields(call = call.0, name = %name.0), err)]
pub async fn call_tool(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    call: Arg<u32>,
    name: Arg<String>,
    arguments: Arg<Map<String, Value>>,
) -> Result<TryOutcome> {
    Ok(sup
        .tries()
        .call_tool(&id.0, call.0, &name.0, arguments.0)
        .await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn cancel_call(sup: Sup<'_>, call: Arg<u32>) -> Result<()> {
    sup.tries().cancel_call(call.0);
    Ok(())
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn read_resource(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    uri: Arg<String>,
) -> Result<TryOutcome> {
    Ok(sup.tries().read_resource(&id.0, &uri.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn subscribe_resource(sup: Sup<'_>, id: Arg<ServerId>, uri: Arg<String>) -> Result<()> {
    Ok(sup.tries().follow_resource(&id.0, &uri.0, true).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn unsubscribe_resource(sup: Sup<'_>, id: Arg<ServerId>, uri: Arg<String>) -> Result<()> {
    Ok(sup.tries().follow_resource(&id.0, &uri.0, false).await?)
}

/// Gets a prompt; its arguments are not traced, as a tool's are not.
#[tauri::command]
#[instrument(skip_all, fields(name = %name.0), err)]
pub async fn get_prompt(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    name: Arg<String>,
    arguments: Arg<BTreeMap<String, String>>,
) -> Result<TryOutcome> {
    Ok(sup.tries().get_prompt(&id.0, &name.0, arguments.0).await?)
}
