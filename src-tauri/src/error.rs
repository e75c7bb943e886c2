//! The one error every command returns: `{code, message}`, serialisable,
//! with a stable machine-readable code for the UI to branch on and a message
//! in plain words for the person.
//!
//! Arguments the webview sends that do not have the shape a command
//! expects (a number for an id, a missing field) become the same error,
//! through [`Arg`], instead of Tauri's bare string.
//!
//! This module only translates errors; it decides nothing.

use rootgate_core::apps::catalog::AppsError;
use rootgate_core::apps::import::ImportError;
use rootgate_core::apps::route::RouteError;
use rootgate_core::folders::FolderError;
use rootgate_core::secrets::SecretError;
use rootgate_core::session::SessionError;
use rootgate_core::sources::bundle::BundleError;
use rootgate_core::sources::installed::InstallError;
use rootgate_core::sources::registry::RegistryError;
use rootgate_core::store::StoreError;
use rootgate_core::supervisor::SupervisorError;
use serde::de::{Deserializer, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tauri::Runtime;
use tauri::ipc::{CommandArg, CommandItem, InvokeBody, InvokeError};

/// What kind of failure, for the UI to choose how to show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
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
    /// An AI app's config file could not be read or written as asked.
    AppConfig,
    /// No keyring is available to keep or read a secret (no session bus,
    /// no Secret Service, a locked keyring): the person chooses where it
    /// goes instead (`keep_secret`), or starts one.
    Keyring,
    /// A secret's value is not there (not stored, and Rootgate has started
    /// again since; or removed from the keyring): it must be given again.
    MissingSecret,
    /// The person cancelled what they had asked for (a tool call).
    Cancelled,
}

/// The code of a secret's failure.
fn secret_code(e: &SecretError) -> ErrorCode {
    match e {
        SecretError::NoKeyring { .. }
        | SecretError::CannotStore { .. }
        | SecretError::KeyringFailed { .. } => ErrorCode::Keyring,
        SecretError::NotHeld(_) | SecretError::NotInKeyring(_) => ErrorCode::MissingSecret,
        SecretError::NotSecret(_) => ErrorCode::Invalid,
    }
}

/// The code of a failed app action: a file the app changed since it was
/// read is stale (look again); a store refusal is as elsewhere.
fn apps_code(e: &AppsError) -> ErrorCode {
    match e {
        AppsError::Route(RouteError::Changed { .. }) => ErrorCode::Stale,
        AppsError::Store(StoreError::Spec(_)) => ErrorCode::Invalid,
        AppsError::Store(StoreError::Secret(e)) => secret_code(e),
        AppsError::Store(_) => ErrorCode::Settings,
        AppsError::Import(ImportError::Missing { .. } | ImportError::Unknown { .. }) => {
            ErrorCode::Invalid
        }
        _ => ErrorCode::AppConfig,
    }
}

/// The code of a failed install: answers the offer refuses are invalid; a
/// store refusal is as elsewhere; the record file is a settings problem.
fn install_code(e: &InstallError) -> ErrorCode {
    match e {
        InstallError::Offer(_) | InstallError::Unfit { .. } => ErrorCode::Invalid,
        InstallError::Store(StoreError::Spec(_)) => ErrorCode::Invalid,
        InstallError::Store(StoreError::Secret(e)) => secret_code(e),
        InstallError::Store(_) | InstallError::Record { .. } => ErrorCode::Settings,
    }
}

/// The error of every command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error, ts_rs::TS)]
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
            SupervisorError::Store(StoreError::Settings(_) | StoreError::ReadOnly) => {
                ErrorCode::Settings
            }
            SupervisorError::Store(
                StoreError::Spec(_) | StoreError::EmptyName | StoreError::BadName(_),
            ) => ErrorCode::Invalid,
            SupervisorError::Store(StoreError::UnknownRoot(_) | StoreError::UnknownServer(_)) => {
                ErrorCode::NotFound
            }
            SupervisorError::Store(StoreError::StaleApproval { .. }) => ErrorCode::Stale,
            SupervisorError::Store(StoreError::Secret(e)) => secret_code(e),
            SupervisorError::UnknownPrompt => ErrorCode::NotFound,
            SupervisorError::FolderMoved { .. } => ErrorCode::Stale,
            SupervisorError::NeedsApproval { .. } => ErrorCode::NeedsApproval,
            SupervisorError::Session(SessionError::Cancelled) => ErrorCode::Cancelled,
            SupervisorError::Session(_) => ErrorCode::Server,
            SupervisorError::Apps(e) => apps_code(e),
            SupervisorError::UnknownPlan => ErrorCode::Stale,
            SupervisorError::Install(e) => install_code(e),
            SupervisorError::UnknownInstall => ErrorCode::NotFound,
            SupervisorError::Registry(RegistryError::Other(_)) => ErrorCode::Invalid,
            SupervisorError::Registry(_) => ErrorCode::Server,
            SupervisorError::Bundle(BundleError::Install(e)) => install_code(e),
            SupervisorError::Bundle(BundleError::Refused { .. }) => ErrorCode::Invalid,
            SupervisorError::Bundle(BundleError::Files(_)) => ErrorCode::Settings,
            SupervisorError::Export(_) | SupervisorError::Blocking(_) => ErrorCode::Settings,
            SupervisorError::UnknownQuestion | SupervisorError::UnknownToolQuestion => {
                ErrorCode::NotFound
            }
            SupervisorError::CommandMissing(_) | SupervisorError::Invalid(_) => ErrorCode::Invalid,
            SupervisorError::NoHome => ErrorCode::AppConfig,
            SupervisorError::Autostart(_) | SupervisorError::NoConfigFolder => ErrorCode::Settings,
        };
        CommandError::new(code, e.to_string())
    }
}

/// A command argument read from the webview's JSON like any other, except
/// that one of the wrong shape (missing, a number for a string, an object
/// for a list, a list for an object) is refused as an `invalid`
/// [`CommandError`] naming the argument and the command, like every other
/// refusal, rather than as Tauri's bare string.
#[derive(Debug)]
pub struct Arg<T>(pub T);

impl<'de, T: Deserialize<'de>, R: Runtime> CommandArg<'de, R> for Arg<T> {
    fn from_command(item: CommandItem<'de, R>) -> Result<Self, InvokeError> {
        let (command, key) = (item.name, item.key);
        let given = match item.message.payload() {
            InvokeBody::Json(Value::Object(args)) => args.get(key),
            _ => None,
        };
        // A value that is there is read through `ObjectsOnly`; a missing one
        // (or a body that is not an object) is left to Tauri, which knows
        // that a missing optional argument is `None`.
        let (read, why) = match given {
            Some(value) => (T::deserialize(ObjectsOnly(value)), "is not valid"),
            None => (T::deserialize(item), "is missing"),
        };
        read.map(Arg).map_err(|e| {
            let message = match given {
                Some(_) => format!("`{key}` given to `{command}` {why}: {e}"),
                None => format!("`{key}` {why}: `{command}` needs it as a named argument"),
            };
            CommandError::new(ErrorCode::Invalid, message).into()
        })
    }
}

/// Reads a JSON value as serde_json does, except that a struct is read only
/// from an object: serde would also fill one from an array, field by field
/// in declaration order, which no caller of ours means.
struct ObjectsOnly<'de>(&'de Value);

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
                self.0.$method($($arg,)* visitor)
            }
        )*
    };
}

impl<'de> Deserializer<'de> for ObjectsOnly<'de> {
    type Error = serde_json::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if !self.0.is_object() {
            return Err(serde::de::Error::invalid_type(
                unexpected(self.0),
                &"an object with named fields",
            ));
        }
        self.0.deserialize_struct(name, fields, visitor)
    }

    forward! {
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(),
        deserialize_i32(), deserialize_i64(), deserialize_i128(), deserialize_u8(),
        deserialize_u16(), deserialize_u32(), deserialize_u64(), deserialize_u128(),
        deserialize_f32(), deserialize_f64(), deserialize_char(), deserialize_str(),
        deserialize_string(), deserialize_bytes(), deserialize_byte_buf(),
        deserialize_option(), deserialize_unit(), deserialize_seq(), deserialize_map(),
        deserialize_identifier(), deserialize_ignored_any(),
        deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str),
        deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
    }
}

fn unexpected(value: &Value) -> serde::de::Unexpected<'_> {
    use serde::de::Unexpected;
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(_) => Unexpected::Other("a number"),
        Value::String(_) => Unexpected::Other("a string"),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
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
