//! Editing a JSON-family file in place: routing entries to `rootgate
//! connect`, and putting entries back as an earlier version had them.
//!
//! Edits go through `jsonc-parser`'s concrete syntax tree, which writes back
//! everything it was not asked to change exactly as it was read. A value is
//! replaced only when it differs from what is wanted, so routing a file that
//! is already routed gives the same bytes. Restoring copies each entry's
//! text from the earlier version by its range, so it comes back byte for
//! byte, comments inside it included.
//!
//! This module never routes an entry it could not read cleanly, a remote
//! entry, or one a Zed extension provides; and it checks what it wrote by
//! reading it again before handing it back.

use std::collections::BTreeMap;

use jsonc_parser::common::Ranged;
use jsonc_parser::cst::{
    CstInputValue, CstLeafNode, CstNode, CstObject, CstRootNode, TrailingCommaMode,
};

use super::read::{self, Item};
use super::{Ctx, KeyPath, env_object};
use crate::{AppKind, ConfigError, RawEntry, RouteTo, Scope, Transport};

/// `text` with every route applied (see [`crate::rewrite`]).
pub(super) fn rewrite(cx: &Ctx<'_>, text: &str, routes: &[RouteTo]) -> Result<String, ConfigError> {
    // The whole file must read cleanly first: an entry Rootgate cannot
    // understand is not one it should edit around.
    let read = read::read(cx, text)?;
    let root = cx.cst(text)?;
    for route in routes {
        let item = read
            .items
            .iter()
            .find(|item| item.scope == route.scope && item.key == route.key)
            .ok_or_else(|| cx.no_such(&route.scope, &route.key))?;
        route_entry(cx, &root, item, route)?;
    }
    let out = root.to_string();
    check_routed(cx, &out, routes)?;
    Ok(out)
}

/// What an entry runs now, as read.
struct Current<'r> {
    command: &'r str,
    args: &'r [String],
    env: &'r BTreeMap<String, String>,
}

fn route_entry(
    cx: &Ctx<'_>,
    root: &CstRootNode,
    item: &Item,
    route: &RouteTo,
) -> Result<(), ConfigError> {
    let path = cx.entry_path(&route.scope, &route.key);
    let current = match &item.entry {
        None => {
            return Err(cx.shape(
                &path,
                "has no command of its own to route (a server a Zed extension provides, or an \
                 opencode entry that only switches a server on or off)",
            ));
        }
        Some(RawEntry {
            transport: Transport::Remote { .. },
            ..
        }) => {
            return Err(cx.shape(
                &path,
                "is a remote server (`url`); Rootgate routes only servers it starts",
            ));
        }
        Some(RawEntry {
            transport: Transport::Stdio {
                command, args, env, ..
            },
            ..
        }) => Current { command, args, env },
    };
    let entry = server_list(cx, root, &route.scope)
        .and_then(|list| list.object_value(&route.key))
        .ok_or_else(|| cx.no_such(&route.scope, &route.key))?;
    if cx.app == AppKind::Opencode {
        super::read::opencode::route_entry(
            &entry,
            current.command,
            current.args,
            current.env,
            route,
        );
        return Ok(());
    }
    // Zed's older shape keeps the program in `command.path`; it is edited
    // in that shape, since a Zed that wrote it may read only it.
    let (target, program_key) = if item.nested {
        let nested = entry
            .object_value("command")
            .ok_or_else(|| cx.shape(&path.key("command"), "must be an object"))?;
        (nested, "path")
    } else {
        (entry.clone(), "command")
    };
    set_program(&target, program_key, &current, route);
    set_args(&target, program_key, &current, route);
    set_env(&target, program_key, &current, route);
    // Rootgate imported the environment file and working folder into the
    // server it runs, so the app no longer passes them on.
    for owned in ["envFile", "cwd"] {
        if let Some(prop) = entry.get(owned) {
            prop.remove();
        }
    }
    Ok(())
}

fn set_program(target: &CstObject, key: &str, current: &Current<'_>, route: &RouteTo) {
    if current.command == route.command {
        return;
    }
    let value = CstInputValue::String(route.command.clone());
    match target.get(key) {
        Some(prop) => prop.set_value(value),
        None => {
            target.insert(0, key, value);
        }
    }
}

fn set_args(target: &CstObject, program_key: &str, current: &Current<'_>, route: &RouteTo) {
    if current.args == route.args.as_slice() {
        return;
    }
    let value = CstInputValue::Array(
        route
            .args
            .iter()
            .map(|arg| CstInputValue::String(arg.clone()))
            .collect(),
    );
    match target.get("args") {
        Some(prop) => prop.set_value(value),
        None => insert_after(target, program_key, "args", value),
    }
}

/// Sets `env`, or removes it when the route needs none.
fn set_env(target: &CstObject, program_key: &str, current: &Current<'_>, route: &RouteTo) {
    if route.env.is_empty() {
        if let Some(prop) = target.get("env") {
            prop.remove();
        }
        return;
    }
    if target.object_value("env").is_some() && current.env == &route.env {
        return;
    }
    // A new object takes its trailing-comma style from what it replaces,
    // which may be short or missing; the entry around it says what the
    // person (or Zed) writes.
    let trailing = target.uses_trailing_commas();
    let value = env_object(&route.env);
    match target.get("env") {
        Some(prop) => prop.set_value(value),
        None => {
            let after = if target.get("args").is_some() {
                "args"
            } else {
                program_key
            };
            insert_after(target, after, "env", value);
        }
    }
    if trailing && let Some(env) = target.object_value("env") {
        env.set_trailing_commas(TrailingCommaMode::IfMultiline);
    }
}

fn insert_after(target: &CstObject, after: &str, key: &str, value: CstInputValue) {
    let index = target
        .get(after)
        .map_or(target.properties().len(), |prop| prop.property_index() + 1);
    target.insert(index, key, value);
}

/// Reads `out` again and confirms each route reads back as asked, so a
/// surprise in the editing never reaches the app's file.
fn check_routed(cx: &Ctx<'_>, out: &str, routes: &[RouteTo]) -> Result<(), ConfigError> {
    let read = read::read(cx, out).ok();
    for route in routes {
        let routed = read.iter().flat_map(|read| &read.items).any(|item| {
            item.scope == route.scope && item.key == route.key && runs(item.entry.as_ref(), route)
        });
        if !routed {
            return Err(cx.shape(
                &cx.entry_path(&route.scope, &route.key),
                "could not be rewritten cleanly, so the file was not changed",
            ));
        }
    }
    Ok(())
}

/// Whether `entry` runs exactly what `route` says, and nothing of its own.
fn runs(entry: Option<&RawEntry>, route: &RouteTo) -> bool {
    let Some(RawEntry {
        transport:
            Transport::Stdio {
                command,
                args,
                env,
                cwd: None,
                env_file: None,
                ..
            },
        ..
    }) = entry
    else {
        return false;
    };
    *command == route.command && *args == route.args && *env == route.env
}

/// `current` with `entries` put back as `original` had them (see
/// [`crate::restore`]).
///
/// First the tree of `current` gains a placeholder for each entry it lacks
/// and loses each entry `original` lacks; then each remaining entry's text
/// is replaced by the original's, found by its range in both texts.
pub(super) fn restore(
    cx: &Ctx<'_>,
    current: &str,
    original: &str,
    entries: &[(Scope, String)],
) -> Result<String, ConfigError> {
    let before = cx.ast(original)?;
    let root = cx.cst(current)?;
    let mut copies = Vec::new();
    for (scope, key) in entries {
        let list_path = cx.list_path(scope).ok_or_else(|| cx.no_such(scope, key))?;
        let was = before
            .as_ref()
            .and_then(|value| read::entry_value(value, &list_path, key))
            .map(|value| &original[value.start()..value.end()]);
        let now = server_list(cx, &root, scope).and_then(|list| list.get(key));
        match (was, now) {
            (Some(text), now) => {
                if now.is_none() {
                    create_list(cx, &root, &list_path)?.append(key, CstInputValue::Null);
                }
                copies.push(Copied { scope, key, text });
            }
            (None, Some(prop)) => prop.remove(),
            (None, None) => {}
        }
    }
    let edited = root.to_string();
    if copies.is_empty() {
        return Ok(edited);
    }
    splice(cx, &edited, &copies)
}

/// An entry's text in the original, to be put back.
struct Copied<'e, 't> {
    scope: &'e Scope,
    key: &'e str,
    text: &'t str,
}

/// `edited` with each entry's value replaced by the text copied for it.
fn splice(cx: &Ctx<'_>, edited: &str, copies: &[Copied<'_, '_>]) -> Result<String, ConfigError> {
    let after = cx.ast(edited)?;
    let mut ranges = Vec::new();
    for copied in copies {
        let list_path = cx.list_path(copied.scope).unwrap_or_default();
        let range = after
            .as_ref()
            .and_then(|value| read::entry_value(value, &list_path, copied.key))
            .map(|value| value.start()..value.end())
            .ok_or_else(|| {
                cx.shape(
                    &cx.entry_path(copied.scope, copied.key),
                    "could not be put back",
                )
            })?;
        ranges.push((range, copied.text));
    }
    // From the end backwards, so each range is still where it was found.
    ranges.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut out = edited.to_owned();
    for (range, text) in ranges {
        out.replace_range(range, text);
    }
    // The entries came from a file of the same format, so this holds; it is
    // checked so that a surprise never reaches the app's file.
    cx.ast(&out)?;
    Ok(out)
}

/// The server list of `scope` in `root`, if the file has one.
fn server_list(cx: &Ctx<'_>, root: &CstRootNode, scope: &Scope) -> Option<CstObject> {
    let mut object = root.object_value()?;
    for segment in cx.list_path(scope)? {
        object = object.object_value(segment)?;
    }
    Some(object)
}

/// The server list at `list_path`, created (with the objects leading to it)
/// where the file lacks it; a `null` in the way counts as missing.
fn create_list(
    cx: &Ctx<'_>,
    root: &CstRootNode,
    list_path: &[&str],
) -> Result<CstObject, ConfigError> {
    let mut path = KeyPath::default();
    let mut object = root
        .object_value_or_create()
        .ok_or_else(|| cx.shape(&path, "must be an object"))?;
    for segment in list_path {
        path = path.key(segment);
        let is_null = object
            .get(segment)
            .and_then(|prop| prop.value())
            .is_some_and(|value| matches!(value, CstNode::Leaf(CstLeafNode::NullKeyword(_))));
        object = if is_null {
            object.object_value_or_set(segment)
        } else {
            object
                .object_value_or_create(segment)
                .ok_or_else(|| cx.shape(&path, "must be an object"))?
        };
    }
    Ok(object)
}
