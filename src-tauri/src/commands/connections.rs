//! The AI apps' connections through bridges and the questions asked when
//! one needs a folder: each command one line into the `Bridges` or the
//! `Questions` service.
//!
//! What is not here: tool calls that wait (`tools`), and any logic.

use rootgate_core::connections::ConnectionView;
use rootgate_core::ids::ConnectionId;
use rootgate_core::questions::Answer;
use rootgate_core::supervisor::{ConsentPrompt, QuestionView};
use rootgate_core::timeline::Entry;
use tracing::instrument;

use super::{Result, Sup};
use crate::error::Arg;

/// Every AI app's connection through a bridge, live ones first.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_connections(sup: Sup<'_>) -> Result<Vec<ConnectionView>> {
    Ok(sup.bridges().list())
}

/// What happened on one AI app's connection, oldest first.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn connection_timeline(sup: Sup<'_>, id: Arg<ConnectionId>) -> Result<Vec<Entry>> {
    Ok(sup.bridges().connection_timeline(&id.0))
}

/// Every question asked when an AI app needed a folder, newest first.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_questions(sup: Sup<'_>) -> Result<Vec<QuestionView>> {
    Ok(sup.questions().question_views())
}

/// The person's answer to a question, by its number: the consent prompt
/// to show when a Share needs the folder's warnings read first.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn answer_question(
    sup: Sup<'_>,
    id: Arg<u64>,
    answer: Arg<Answer>,
) -> Result<Option<ConsentPrompt>> {
    Ok(sup.questions().answer_question(id.0, answer.0)?)
}
