//! The words on the window's socket: what a bridge (or the gate, for each
//! connection it serves) reports ([`Report`]: who the app is, which server,
//! its timeline, the app's folders, a held call), what the window answers
//! ([`ToBridge`]), and a command's requests to an open window
//! ([`OpenRequest`], [`ImportRequest`]) with their answers. Only data and
//! its JSON shape; the TypeScript declarations of what the webview shows
//! are derived here too.
//!
//! What is not here: the listener and the registry that read them
//! (`connections`), and the bridge's side that writes them (`window_link`).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use rootgate_model::ids::{ConnectionId, ServerId};
use rootgate_model::timeline::Entry;
use rootgate_session::Status;

/// Who the app is, as its `initialize` said.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppIdentity {
    pub name: String,
    pub version: String,
    pub protocol_version: String,
}

/// An app's request that waits in the bridge for the server: no life of
/// the server is ready to take it (it starts or restarts).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitingCall {
    pub method: String,
    /// The tool, prompt or resource it names, if any.
    pub target: Option<String>,
    /// When it began to wait, in milliseconds since the epoch.
    pub since_ms: u64,
}

/// What the window tells a bridge, one JSON object per line on the same
/// socket (the only thing that goes that way): what it does about a
/// folder the app works in that is not shared with the bridge's server.
/// It changes no consent (a "Share" reaches the bridge through the
/// settings file, as every grant does); it only says how long the bridge
/// holds the app's first request (see `relay::asked`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Told {
    /// The folder as the app gave it (one of its roots).
    pub uri: String,
    /// The folder's real path as a URI, as it would be shared.
    pub folder_uri: String,
    pub state: QuestionState,
}

/// A tool call that waits in its bridge for the person's answer (see
/// `relay::asks`): what the window shows and the notification says.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAsk {
    /// Which call of the connection: the app's request id, as JSON text.
    pub key: String,
    pub tool: String,
    /// The arguments as indented JSON, each value under a secret-looking
    /// name masked and each long string folded: never the values whole.
    pub arguments: String,
    /// What the tool's annotations claim of it, as the server last listed
    /// them (`None`: not listed, or not said).
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    /// Why it is asked, in words ("it does not say it only reads").
    pub why: String,
    /// When the call arrived, in milliseconds since the epoch.
    pub since_ms: u64,
    /// When the bridge stops waiting and refuses it, the same way.
    pub until_ms: u64,
}

/// The person's answer to a [`ToolAsk`].
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum AskAnswer {
    /// This call only.
    Once,
    /// This call, and every later call of the tool by this app (the window
    /// writes the rule into the settings).
    Always,
    /// Refused, with an error that says the person did.
    Deny,
}

/// What the window tells a bridge, one JSON object per line: about a
/// folder ([`Told`]) or a tool call it holds ([`ToolAnswer`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToBridge {
    Folder(Told),
    Tool(ToolAnswer),
}

/// The person answered the held call `key`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnswer {
    pub key: String,
    pub answer: AskAnswer,
    /// Who answered, in words for the timeline ("you, in the window").
    pub by: String,
}

/// Which folders a connection's server is given, and why: everything
/// shared with the server, or, for a server set to "Workspace: only the
/// project the app is working in", the shared folders its app works in
/// (see `relay::workspace`).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sees {
    /// The folders given, as `file://` URIs of their real paths.
    pub folders: Vec<String>,
    /// Whether the server gives each connection only its app's project.
    pub workspace: bool,
    /// What the app works in, as far as the bridge knows (its roots, or
    /// the folder it started the bridge in), as URIs.
    pub app_folders: Vec<String>,
    /// Why these, in words.
    pub why: String,
}

/// Where the window stands with a question about a folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum QuestionState {
    /// Asked on the desktop now; the answer follows.
    Asking,
    /// The person shared it.
    Shared,
    /// The person said not now (now or before).
    NotNow,
    /// Nobody is asked now, and why, in words.
    NotAsked { why: String },
}

/// What a bridge reports, one JSON object per line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Report {
    /// The first line: which connection this is.
    Hello {
        connection: ConnectionId,
        pid: u32,
        server: ServerId,
        server_name: String,
        started_at_ms: u64,
    },
    /// The app's `initialize` arrived.
    App { app: AppIdentity },
    /// The server's status changed.
    Status { status: Status },
    /// Something happened on the connection.
    Entry { entry: Entry },
    /// The folders the app itself works in (its roots), as URIs.
    Suggest { uris: Vec<String> },
    /// The app's request that waits for the server, or none any more.
    Waiting { call: Option<WaitingCall> },
    /// Which folders the connection's server is given now, and why.
    Sees { sees: Sees },
    /// The tool calls that wait for the person's answer now (all of them:
    /// a call missing from the last list stopped waiting).
    Asks { asks: Vec<ToolAsk> },
    /// What the server's `tools/list` answers showed of its tools, for the
    /// window to keep in the settings (`ToolRules::saw`), where a tool that
    /// changed since it was last seen is marked.
    ToolsSeen {
        tools: std::collections::BTreeMap<String, rootgate_model::tools::ToolSeen>,
    },
    /// Not a bridge's: `rootgate import` asks the open window to import an
    /// AI app's servers, since the window holds the settings. The first and
    /// only line; the window answers with one [`ImportAnswer`] line.
    Import { request: ImportRequest },
    /// Not a bridge's: another start of Rootgate on the same settings
    /// (`rootgate FOLDER`, the app opened from the menu again) hands its
    /// folders to the window that owns them, and exits (see `instance`).
    /// The first and only line; the window answers with one [`OpenAnswer`]
    /// line.
    Open { request: OpenRequest },
}

/// What another start of Rootgate hands to the window that owns the
/// settings: the folders named on its command line, made absolute where
/// it was started (the window's working folder is another). None: the
/// person only wants the window.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenRequest {
    #[serde(with = "wire_paths")]
    pub folders: Vec<PathBuf>,
    /// MCP bundles (`.mcpb` files) named on the command line or opened
    /// from the file manager: the window shows each before installing it.
    #[serde(default, with = "wire_paths", skip_serializing_if = "Vec::is_empty")]
    pub bundles: Vec<PathBuf>,
}

/// The window's answer to an [`OpenRequest`]: how many consent prompts it
/// opened, and why each other folder cannot be shared, in words.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenAnswer {
    pub prompts: usize,
    /// How many bundles the window now shows for installing.
    #[serde(default)]
    pub bundles: usize,
    pub notices: Vec<String>,
}

/// Who answers another start's [`OpenRequest`]: the app, which opens the
/// prompts and raises its window.
pub type Opener = dyn Fn(OpenRequest) -> OpenAnswer + Send + Sync;

/// Paths on the link: as text when they are UTF-8, else as their bytes, so
/// that a folder whose name is not UTF-8 is handed over as it is rather
/// than lost (JSON strings cannot hold it).
mod wire_paths {
    use std::ffi::OsString;
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    use std::path::PathBuf;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum WirePath {
        Text(String),
        Bytes(Vec<u8>),
    }

    pub(crate) fn serialize<S: Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(paths.iter().map(|p| match p.to_str() {
            Some(text) => WirePath::Text(text.to_owned()),
            None => WirePath::Bytes(p.as_os_str().as_bytes().to_vec()),
        }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
        Ok(Vec::<WirePath>::deserialize(d)?
            .into_iter()
            .map(|p| match p {
                WirePath::Text(text) => PathBuf::from(text),
                WirePath::Bytes(bytes) => PathBuf::from(OsString::from_vec(bytes)),
            })
            .collect())
    }
}

/// What `rootgate import` asks of an open window: the servers `keys` (all
/// when empty) of `file`, an `app` config the person named on the command
/// line, with their `values` for what the app would fill in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportRequest {
    pub app: rootgate_model::app_kind::AppKind,
    pub file: PathBuf,
    pub keys: Vec<String>,
    pub values: std::collections::BTreeMap<String, String>,
    /// The server the person chose to import the one entry of `keys` into
    /// (`--into NAME`), instead of a server of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub existing: Option<String>,
}

/// The window's answer to an [`ImportRequest`]: a line per server, in words
/// for the terminal, and whether any needs a value the person must give.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportAnswer {
    pub lines: Vec<String>,
    pub errors: Vec<String>,
    pub needs_value: bool,
}

/// Who answers import requests: the supervisor, which holds the store.
pub type Importer = dyn Fn(ImportRequest) -> ImportAnswer + Send + Sync;
