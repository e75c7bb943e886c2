//! One Goose extension's settings read into a [`RawEntry`]: its `type`,
//! `cmd`, `args`, `envs`, `env_keys`, `uri` and `enabled`, through the
//! reading every app shares (`fields`). Other keys are Goose's own
//! (`name`, `timeout`, `bundled`, ...) and are not read.

use yaml_edit::YamlNode;

use super::{APP, EXTENSIONS, shape};
use crate::fields::{Fields, StdioKeys, stdio};
use crate::yaml::YamlFields;
use crate::{ConfigError, RawEntry, Scope, Transport};

/// Goose's keys for a local extension: `envs` and `env_keys`, no `cwd`.
const KEYS: StdioKeys = StdioKeys {
    env: "envs",
    env_keys: Some("env_keys"),
    cwd: false,
};

/// The extension `key` with settings `node`, or `None` when it is not a
/// server Rootgate could list: one of Goose's in-process kinds, a kind this
/// module does not know, or a legacy `sse` extension without a `uri`.
pub(super) fn entry(
    file: &str,
    key: &str,
    node: &YamlNode,
) -> Result<Option<RawEntry>, ConfigError> {
    let path = format!("{EXTENSIONS}.{key}");
    let YamlNode::Mapping(settings) = node else {
        return Err(shape(file, &path, "is not a mapping of settings"));
    };
    let field = YamlFields {
        file,
        app: APP,
        path: &path,
        settings,
    };
    let Some(kind) = field.string("type")? else {
        return Err(field.error("type", "is missing"));
    };
    let transport = match kind.as_str() {
        "stdio" => {
            let command = field
                .string("cmd")?
                .ok_or_else(|| field.error("cmd", "is missing"))?;
            stdio(&field, command, &KEYS)?
        }
        // Goose no longer runs `sse` extensions but keeps reading them,
        // with `uri` optional; one without a `uri` reaches nothing.
        "sse" => match field.string("uri")? {
            Some(url) => Transport::Remote { url },
            None => return Ok(None),
        },
        "streamable_http" => Transport::Remote {
            url: field
                .string("uri")?
                .ok_or_else(|| field.error("uri", "is missing"))?,
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
