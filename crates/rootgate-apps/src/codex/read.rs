//! One Codex server table read into a [`RawEntry`] through the reading
//! every app shares (`fields`): the TOML side of the checks that each key
//! Rootgate relies on has the type Codex gives it.

use toml_edit::{DocumentMut, Item, TableLike};

use super::{SERVERS, field_path, shape};
use crate::fields::{Fields, Found, StdioKeys, program, stdio};
use crate::{ConfigError, RawEntry, Scope, Transport};

/// Every server of `doc`, in the file's order.
pub(super) fn entries(file: &str, doc: &DocumentMut) -> Result<Vec<RawEntry>, ConfigError> {
    let Some(servers) = servers(file, doc)? else {
        return Ok(Vec::new());
    };
    servers
        .iter()
        .map(|(key, item)| entry(file, key, item))
        .collect()
}

/// The `mcp_servers` table, when the file has one.
pub(super) fn servers<'d>(
    file: &str,
    doc: &'d DocumentMut,
) -> Result<Option<&'d dyn TableLike>, ConfigError> {
    match doc.get(SERVERS) {
        None => Ok(None),
        Some(item) => item
            .as_table_like()
            .map(Some)
            .ok_or_else(|| shape(file, SERVERS, "is not a table of servers")),
    }
}

/// Codex's keys for a local server: `env`, `env_vars` and `cwd`.
const KEYS: StdioKeys = StdioKeys {
    env: "env",
    env_keys: Some("env_vars"),
    cwd: true,
};

/// Server `key`, whose settings are `item`.
pub(super) fn entry(file: &str, key: &str, item: &Item) -> Result<RawEntry, ConfigError> {
    let table = item
        .as_table_like()
        .ok_or_else(|| shape(file, &field_path(key, ""), "is not a table of settings"))?;
    let field = TomlFields { file, key, table };
    let transport = match (field.string("command")?, field.string("url")?) {
        (Some(command), _) => stdio(&field, program(&field, command)?, &KEYS)?,
        (None, Some(url)) => Transport::Remote { url },
        (None, None) => {
            return Err(shape(
                file,
                &field_path(key, ""),
                "has neither a `command` nor a `url`",
            ));
        }
    };
    Ok(RawEntry {
        scope: Scope::Global,
        key: key.to_owned(),
        transport,
        enabled: field.flag("enabled")?.unwrap_or(true),
    })
}

/// One server's table, with what errors need to name it.
struct TomlFields<'a> {
    file: &'a str,
    key: &'a str,
    table: &'a dyn TableLike,
}

impl Fields for TomlFields<'_> {
    const MAPPING: &'static str = "table";

    fn text(&self, name: &str) -> Found<String> {
        match self.table.get(name) {
            None => Found::Missing,
            Some(item) => item
                .as_str()
                .map_or(Found::Not, |s| Found::Is(s.to_owned())),
        }
    }

    fn texts(&self, name: &str) -> Found<Vec<Option<String>>> {
        match self.table.get(name).map(Item::as_array) {
            None => Found::Missing,
            Some(Some(array)) => Found::Is(
                array
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect(),
            ),
            Some(None) => Found::Not,
        }
    }

    /// A table, inline or not: TOML's keys are always text.
    fn pairs(&self, name: &str) -> Found<Vec<(Option<String>, Option<String>)>> {
        match self.table.get(name).map(Item::as_table_like) {
            None => Found::Missing,
            Some(Some(vars)) => Found::Is(
                vars.iter()
                    .map(|(k, v)| (Some(k.to_owned()), v.as_str().map(str::to_owned)))
                    .collect(),
            ),
            Some(None) => Found::Not,
        }
    }

    fn boolean(&self, name: &str) -> Found<bool> {
        match self.table.get(name) {
            None => Found::Missing,
            Some(item) => item.as_bool().map_or(Found::Not, Found::Is),
        }
    }

    fn error(&self, name: &str, reason: &str) -> ConfigError {
        shape(self.file, &field_path(self.key, name), reason)
    }
}
