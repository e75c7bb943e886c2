//! Tool consent and the record of calls: the tool rules, the calls that
//! wait for the person, and the record searched and exported; each one line
//! into the `ToolConsent` or `CallRecord` service (an export goes to a
//! file the native save dialog picked).
//!
//! What is not here: the bridges that hold the calls (`rootgate-bridge`),
//! and any logic.

use rootgate_core::calls::{CallQuery, CallsFound, ExportFormat};
use rootgate_core::connections::AskAnswer;
use rootgate_core::ids::{ConnectionId, ServerId};
use rootgate_core::supervisor::{Exported, ServerView, ToolQuestion};
use rootgate_core::tools::{ToolDefault, ToolSetting};
use tauri::{AppHandle, Runtime, WebviewWindow};
use tracing::instrument;

use super::{Result, Sup};
use crate::error::Arg;

/// The record of AI apps' calls that match `query`, newest first.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn search_calls(sup: Sup<'_>, query: Arg<CallQuery>) -> Result<CallsFound> {
    Ok(sup.calls().search_off_thread(query.0).await?)
}

/// Exports the record's calls that match `query` to a file the person
/// picks in the native save dialog; none when they cancelled.
#[tauri::command]
#[instrument(skip(app, window, sup), err)]
pub async fn export_calls<R: Runtime>(
    app: AppHandle<R>,
    window: WebviewWindow<R>,
    sup: Sup<'_>,
    query: Arg<CallQuery>,
    format: Arg<ExportFormat>,
) -> Result<Option<Exported>> {
    let name = format!(
        "rootgate-calls-{}.{}",
        rootgate_core::calls::day(rootgate_core::ids::now_ms()),
        format.0.extension()
    );
    let Some(to) = crate::picker::pick_save(&app, &window, &name).await? else {
        return Ok(None);
    };
    Ok(Some(
        sup.calls().export_off_thread(query.0, format.0, to).await?,
    ))
}

/// Sets what AI apps may do with one of a server's tools (allowed, ask,
/// hidden), for every app or for one (`app`, the name it gives); no
/// setting takes it away.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_tool_setting(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    app: Arg<Option<String>>,
    tool: Arg<String>,
    setting: Arg<Option<ToolSetting>>,
) -> Result<ServerView> {
    Ok(sup
        .tools()
        .set_tool_setting(&id.0, app.0.as_deref(), &tool.0, setting.0)?)
}

/// Sets what a server's tools without a setting of their own get.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_tool_default(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    default: Arg<ToolDefault>,
) -> Result<ServerView> {
    Ok(sup.tools().set_tool_default(&id.0, default.0)?)
}

/// The person looked at how a tool changed: its settings apply again.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn acknowledge_tool(sup: Sup<'_>, id: Arg<ServerId>, tool: Arg<String>) -> Result<ServerView> {
    Ok(sup.tools().acknowledge_tool(&id.0, &tool.0)?)
}

/// The AI apps' tool calls that wait for the person's answer.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn tool_questions(sup: Sup<'_>) -> Result<Vec<ToolQuestion>> {
    Ok(sup.tools().tool_questions())
}

/// The person's answer to a waiting tool call.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn answer_tool_question(
    sup: Sup<'_>,
    connection: Arg<ConnectionId>,
    key: Arg<String>,
    answer: Arg<AskAnswer>,
) -> Result<()> {
    Ok(sup
        .tools()
        .answer_tool_question(&connection.0, &key.0, answer.0, "you, in the window")?)
}
