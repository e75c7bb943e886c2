//! One Goose extension's settings read into a [`RawEntry`]: its `type`,
//! `cmd`, `args`, `envs`, `env_keys`, `uri` and `enabled`. Other keys are
//! Goose's own (`name`, `timeout`, `bundled`, ...) and are not read.

use std::collections::BTreeMap;

use yaml_edit::{Mapping, YamlNode};

use super::{field_path, shape};
use crate::{ConfigError, RawEntry, Scope, Transport};

/// The extension `key` with settings `node`, or `None` when it is not a
/// server Rootgate could list: one of Goose's in-process kinds, a kind this
/// module does not know, or a legacy `sse` extension without a `uri`.
pub(super) fn entry(
    file: &str,
    key: &str,
    node: &YamlNode,
) -> Result<Option<RawEntry>, ConfigError> {
    let YamlNode::Mapping(settings) = node else {
        return Err(shape(
            file,
            &format!("extensions.{key}"),
            "is not a mapping of settings",
        ));
    };
    let field = Field {
        file,
        key,
        settings,
    };
    let Some(kind) = field.string("type")? else {
        return Err(shape(file, &field_path(key, "type"), "is missing"));
    };
    let transport = match kind.as_str() {
        "stdio" => Transport::Stdio {
            command: field
                .string("cmd")?
                .ok_or_else(|| shape(file, &field_path(key, "cmd"), "is missing"))?,
            args: field.strings("args")?,
            env: field.env("envs")?,
            cwd: None,
            env_file: None,
            env_keys: field.strings("env_keys")?,
        },
        // Goose no longer runs `sse` extensions but keeps reading them,
        // with `uri` optional; one without a `uri` reaches nothing.
        "sse" => match field.string("uri")? {
            Some(url) => Transport::Remote { url },
            None => return Ok(None),
        },
        "streamable_http" => Transport::Remote {
            url: field
                .string("uri")?
                .ok_or_else(|| shape(file, &field_path(key, "uri"), "is missing"))?,
        },
        _ => return Ok(None),
    };
    Ok(Some(RawEntry {
        scope: Scope::Global,
        key: key.to_owned(),
        transport,
        enabled: field.flag("enabled")?.unwrap_or(true),
    }))
}

/// The settings of one extension, with what errors need to name them.
struct Field<'a> {
    file: &'a str,
    key: &'a str,
    settings: &'a Mapping,
}

impl Field<'_> {
    /// The value of `name`; `None` when it is missing or `null`, which
    /// Goose treats alike.
    fn get(&self, name: &str) -> Option<YamlNode> {
        self.settings
            .get(name)
            .filter(|node| !matches!(node, YamlNode::Scalar(s) if s.is_null()))
    }

    fn error(&self, name: &str, reason: &str) -> ConfigError {
        shape(self.file, &field_path(self.key, name), reason)
    }

    /// `name` as a string. Goose reads these with serde, which takes any
    /// plain scalar (`300`, `true`) as the text it is written as.
    fn string(&self, name: &str) -> Result<Option<String>, ConfigError> {
        self.get(name)
            .map(|node| text(&node).ok_or_else(|| self.error(name, "is not a string")))
            .transpose()
    }

    /// `name` as a list of strings; an empty list when it is missing.
    fn strings(&self, name: &str) -> Result<Vec<String>, ConfigError> {
        let Some(node) = self.get(name) else {
            return Ok(Vec::new());
        };
        let YamlNode::Sequence(items) = node else {
            return Err(self.error(name, "is not a list of strings"));
        };
        items
            .values()
            .map(|item| text(&item).ok_or_else(|| self.error(name, "is not a list of strings")))
            .collect()
    }

    /// `name` as a mapping of environment variables to their values. An
    /// error names the variable, never its value.
    fn env(&self, name: &str) -> Result<BTreeMap<String, String>, ConfigError> {
        let Some(node) = self.get(name) else {
            return Ok(BTreeMap::new());
        };
        let YamlNode::Mapping(vars) = node else {
            return Err(self.error(name, "is not a mapping of environment variables"));
        };
        let mut env = BTreeMap::new();
        for (var, value) in vars.iter() {
            let Some(var) = text(&var) else {
                return Err(self.error(name, "has a variable name that is not a string"));
            };
            let Some(value) = text(&value) else {
                let path = format!("{name}.{var}");
                return Err(self.error(&path, "is not a string"));
            };
            env.insert(var, value);
        }
        Ok(env)
    }

    /// `name` as a boolean (`enabled`); `None` when it is missing.
    fn flag(&self, name: &str) -> Result<Option<bool>, ConfigError> {
        self.get(name)
            .map(|node| {
                node.as_scalar()
                    .and_then(|s| s.as_bool())
                    .ok_or_else(|| self.error(name, "is not true or false"))
            })
            .transpose()
    }
}

/// The text of a scalar that is not `null`: quoted strings unescaped, plain
/// scalars as written. `None` for collections, aliases, tagged values and
/// `null`, which Goose does not take as a string either.
fn text(node: &YamlNode) -> Option<String> {
    match node {
        YamlNode::Scalar(s) if !s.is_null() => Some(s.as_string()),
        _ => None,
    }
}
