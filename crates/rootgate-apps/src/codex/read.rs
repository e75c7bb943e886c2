//! One Codex server table read into a [`RawEntry`], and the checks that
//! each key Rootgate relies on has the type Codex gives it.

use std::collections::BTreeMap;

use toml_edit::{DocumentMut, Item, TableLike};

use super::{SERVERS, field_path, shape};
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

/// Server `key`, whose settings are `item`.
pub(super) fn entry(file: &str, key: &str, item: &Item) -> Result<RawEntry, ConfigError> {
    let table = item
        .as_table_like()
        .ok_or_else(|| shape(file, &field_path(key, ""), "is not a table of settings"))?;
    let field = Field { file, key, table };
    let transport = match (field.string("command")?, field.string("url")?) {
        (Some(command), _) => {
            if command.trim().is_empty() {
                return Err(field.error("command", "must name the program to run"));
            }
            Transport::Stdio {
                command,
                args: field.strings("args")?,
                env: field.env()?,
                cwd: field.string("cwd")?,
                env_file: None,
                env_keys: field.strings("env_vars")?,
            }
        }
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
struct Field<'a> {
    file: &'a str,
    key: &'a str,
    table: &'a dyn TableLike,
}

impl Field<'_> {
    fn error(&self, name: &str, reason: &str) -> ConfigError {
        shape(self.file, &field_path(self.key, name), reason)
    }

    fn string(&self, name: &str) -> Result<Option<String>, ConfigError> {
        match self.table.get(name) {
            None => Ok(None),
            Some(item) => item
                .as_str()
                .map(|s| Some(s.to_owned()))
                .ok_or_else(|| self.error(name, "is not a string")),
        }
    }

    fn strings(&self, name: &str) -> Result<Vec<String>, ConfigError> {
        let Some(item) = self.table.get(name) else {
            return Ok(Vec::new());
        };
        let array = item
            .as_array()
            .ok_or_else(|| self.error(name, "is not a list of strings"))?;
        array
            .iter()
            .map(|value| {
                value
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| self.error(name, "is not a list of strings"))
            })
            .collect()
    }

    /// `env`, a table (inline or not) of strings. An error names the
    /// variable, never its value.
    fn env(&self) -> Result<BTreeMap<String, String>, ConfigError> {
        let Some(item) = self.table.get("env") else {
            return Ok(BTreeMap::new());
        };
        let vars = item
            .as_table_like()
            .ok_or_else(|| self.error("env", "is not a table of environment variables"))?;
        vars.iter()
            .map(|(name, value)| {
                value
                    .as_str()
                    .map(|v| (name.to_owned(), v.to_owned()))
                    .ok_or_else(|| self.error(&format!("env.{name}"), "is not a string"))
            })
            .collect()
    }

    fn flag(&self, name: &str) -> Result<Option<bool>, ConfigError> {
        match self.table.get(name) {
            None => Ok(None),
            Some(item) => item
                .as_bool()
                .map(Some)
                .ok_or_else(|| self.error(name, "is not true or false")),
        }
    }
}
