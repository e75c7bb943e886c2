//! The one error every command returns: `{code, message}`, serialisable,
//! with a stable machine-readable code for the UI to branch on and a message
//! in plain words for the person.
//!
//! This module only translates core errors; it decides nothing.

use rootgate_core::folders::FolderError;
use rootgate_core::store::StoreError;
use rootgate_core::supervisor::SupervisorError;
use serde::Serialize;

/// What kind of failure, for the UI to choose how to show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum ErrorCode {
    /// The chosen folder cannot be shared (missing, a file, unreadable...).
    Folder,
    /// The folder, server or prompt no longer exists.
    NotFound,
    /// What was typed is not valid (server name, command, env key...).
    Invalid,
    /// The server's command line must be approved before it runs.
    NeedsApproval,
    /// What the person saw is out of date (a moved folder, an edited command).
    Stale,
    /// The settings file could not be written.
    Settings,
    /// Talking to a server failed.
    Server,
    /// The native folder picker could not be shown.
    Picker,
}

/// The error of every command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[error("{message}")]
pub struct CommandError {
    pub code: ErrorCode,
    pub message: String,
}

impl CommandError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CommandError {
            code,
            message: message.into(),
        }
    }
}

impl From<SupervisorError> for CommandError {
    fn from(e: SupervisorError) -> Self {
        let code = match &e {
            SupervisorError::Folder(FolderError::Missing(_)) => ErrorCode::Folder,
            SupervisorError::Folder(_) => ErrorCode::Folder,
            SupervisorError::Store(StoreError::Settings(_)) => ErrorCode::Settings,
            SupervisorError::Store(
                StoreError::Spec(_) | StoreError::EmptyName | StoreError::BadName(_),
            ) => ErrorCode::Invalid,
            SupervisorError::Store(StoreError::UnknownRoot(_) | StoreError::UnknownServer(_)) => {
                ErrorCode::NotFound
            }
            SupervisorError::Store(StoreError::StaleApproval { .. }) => ErrorCode::Stale,
            SupervisorError::UnknownPrompt => ErrorCode::NotFound,
            SupervisorError::FolderMoved { .. } => ErrorCode::Stale,
            SupervisorError::NeedsApproval { .. } => ErrorCode::NeedsApproval,
            SupervisorError::Session(_) => ErrorCode::Server,
        };
        CommandError::new(code, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_core::ids::RootId;
    use serde_json::json;

    #[test]
    fn json_shape_is_pinned() {
        let e = CommandError::new(ErrorCode::NeedsApproval, "approve it");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"code": "needsApproval", "message": "approve it"})
        );
    }

    #[test]
    fn core_errors_keep_their_words_and_get_a_code() {
        let e: CommandError = SupervisorError::Folder(FolderError::Missing("/gone".into())).into();
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({
                "code": "folder",
                "message": "\"/gone\" does not exist (was it moved, renamed or on a disk that is not mounted?)"
            })
        );
        let e: CommandError =
            SupervisorError::Store(StoreError::UnknownRoot(RootId::from_string("root-1"))).into();
        assert_eq!(e.code, ErrorCode::NotFound);
        assert!(e.message.contains("root-1"));
        let e: CommandError = SupervisorError::UnknownPrompt.into();
        assert_eq!(serde_json::to_value(&e).unwrap()["code"], "notFound");
    }
}
