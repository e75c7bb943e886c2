//! opencode's server entries (`mcp` in `opencode.json`), which have a shape
//! of their own: `"type": "local"` with the program and its arguments in
//! one `command` list and the variables in `environment`, or `"type":
//! "remote"` with a `url`; `enabled` says whether opencode starts it.
//!
//! An entry without a `type` is not a server: opencode's docs use one
//! (`{"enabled": true}`) to switch on a server an organisation's defaults
//! provide, so it is listed as nothing to import or route. This module
//! reads one entry and rewrites one entry in place; the file around it is
//! `read`'s and `edit`'s. It sits under `read`, whose field readers both
//! halves use, so that `edit` reaches it through `read` as it reaches the
//! rest of what it reads. It never expands opencode's `{env:NAME}` or
//! `{file:PATH}` (`import` lists them as values the app fills).

use std::collections::BTreeMap;

use jsonc_parser::ast::Object;
use jsonc_parser::cst::{CstInputValue, CstObject};

use super::{Item, opt_bool, opt_string, string_map, strings};
use crate::json::{Ctx, KeyPath, env_object};
use crate::{ConfigError, RawEntry, RouteTo, Transport};

/// The entry of `item` read from `entry`, or `None` when it has no `type`.
pub(in crate::json) fn read_entry(
    cx: &Ctx<'_>,
    item: &Item,
    entry: &Object<'_>,
    path: &KeyPath,
) -> Result<Option<RawEntry>, ConfigError> {
    let enabled = opt_bool(cx, entry, "enabled", path)?.unwrap_or(true);
    let transport = match opt_string(cx, entry, "type", path)?.as_deref() {
        None => return Ok(None),
        Some("local") => {
            let mut command = strings(cx, entry, "command", path)?.into_iter();
            let program = command
                .next()
                .filter(|program| !program.trim().is_empty())
                .ok_or_else(|| {
                    cx.shape(
                        &path.key("command"),
                        "must list the program to run, then its arguments",
                    )
                })?;
            Transport::Stdio {
                command: program,
                args: command.collect(),
                env: string_map(cx, entry, "environment", path)?,
                cwd: None,
                env_file: None,
                env_keys: Vec::new(),
            }
        }
        Some("remote") => match opt_string(cx, entry, "url", path)? {
            Some(url) => Transport::Remote { url },
            None => return Err(cx.shape(&path.key("url"), "is missing")),
        },
        Some(_) => {
            return Err(cx.shape(
                &path.key("type"),
                "must be `local` or `remote`, as opencode reads it",
            ));
        }
    };
    Ok(Some(RawEntry {
        scope: item.scope.clone(),
        key: item.key.clone(),
        transport,
        enabled,
    }))
}

/// Sets `entry` to run `route`: `command` becomes the program followed by
/// its arguments, and `environment` the route's variables (removed when it
/// has none). Values that already read as wanted are left as written.
pub(in crate::json) fn route_entry(
    entry: &CstObject,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
    route: &RouteTo,
) {
    if command != route.command || args != route.args.as_slice() {
        let list = std::iter::once(&route.command)
            .chain(&route.args)
            .map(|part| CstInputValue::String(part.clone()))
            .collect();
        match entry.get("command") {
            Some(prop) => prop.set_value(CstInputValue::Array(list)),
            None => {
                entry.append("command", CstInputValue::Array(list));
            }
        }
    }
    if route.env.is_empty() {
        if let Some(prop) = entry.get("environment") {
            prop.remove();
        }
    } else if *env != route.env || entry.object_value("environment").is_none() {
        let value = env_object(&route.env);
        match entry.get("environment") {
            Some(prop) => prop.set_value(value),
            None => {
                entry.append("environment", value);
            }
        }
    }
}
