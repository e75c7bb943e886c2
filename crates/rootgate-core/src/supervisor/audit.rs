//! The record of AI apps' calls, as the window reads it: searched (by
//! words, by how a call ended), and exported to a file the person chose,
//! as JSON lines or CSV. Bridges write it (`rootgate-bridge`'s
//! `relay::audit`); the window removes days older than the model's
//! `calls::KEPT_DAYS` when it opens.
//!
//! What is not here: the format and the files (`rootgate_model::calls`),
//! the save dialog (the shell).

use std::path::{Path, PathBuf};

use rootgate_model::calls::{self, CallQuery, CallsFound, ExportFormat};

use super::SupervisorError;

/// Where an export went and how many calls it holds.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exported {
    pub path: String,
    pub count: usize,
}

/// The record of AI apps' calls beside the settings.
pub struct CallRecord {
    settings: PathBuf,
}

impl CallRecord {
    pub(super) fn beside(settings: &Path) -> CallRecord {
        CallRecord {
            settings: settings.to_path_buf(),
        }
    }

    /// Where the record of calls is, beside the settings.
    pub fn calls_folder(&self) -> PathBuf {
        calls::folder(&self.settings)
    }

    /// The calls that match `query`, newest first. Reads files: call it
    /// off the UI thread.
    pub fn search_calls(&self, query: &CallQuery) -> CallsFound {
        calls::search(&self.calls_folder(), query)
    }

    /// Writes every call that matches `query` (no limit) to `to`, in
    /// `format`; returns how many were written. The file is written whole
    /// beside its place and renamed, so a failed export leaves nothing
    /// half-written.
    pub fn export_calls(
        &self,
        query: &CallQuery,
        format: ExportFormat,
        to: &Path,
    ) -> Result<Exported, SupervisorError> {
        let all = CallQuery {
            limit: None,
            ..query.clone()
        };
        let found = calls::search(&self.calls_folder(), &all);
        let text = format.render(&found.records);
        let partial = to.with_extension(format!("{}.partial", format.extension()));
        std::fs::write(&partial, text)
            .and_then(|()| std::fs::rename(&partial, to))
            .map_err(|e| {
                let _ = std::fs::remove_file(&partial);
                SupervisorError::Export(format!("{}: {e}", to.display()))
            })?;
        Ok(Exported {
            path: to.display().to_string(),
            count: found.records.len(),
        })
    }

    /// [`CallRecord::search_calls`] on a blocking thread, for the window
    /// (its commands must not read files on its thread or the runtime's).
    pub async fn search_off_thread(&self, query: CallQuery) -> Result<CallsFound, SupervisorError> {
        let folder = self.calls_folder();
        tokio::task::spawn_blocking(move || calls::search(&folder, &query))
            .await
            .map_err(|e| SupervisorError::Blocking(e.to_string()))
    }

    /// [`CallRecord::export_calls`] on a blocking thread, for the window.
    pub async fn export_off_thread(
        &self,
        query: CallQuery,
        format: ExportFormat,
        to: PathBuf,
    ) -> Result<Exported, SupervisorError> {
        let record = CallRecord {
            settings: self.settings.clone(),
        };
        tokio::task::spawn_blocking(move || record.export_calls(&query, format, &to))
            .await
            .map_err(|e| SupervisorError::Blocking(e.to_string()))?
    }

    /// Removes the record's days older than it keeps.
    pub(super) fn prune(&self) {
        calls::prune(&self.calls_folder(), rootgate_model::ids::now_ms());
    }
}
