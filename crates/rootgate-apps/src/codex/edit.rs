//! Rewriting Codex server tables in place to run `rootgate connect`, and
//! putting them back as an earlier text of the file had them.
//!
//! Only values that differ are set, and a value set keeps the spacing and
//! comments around the one it replaces, so routing a routed file changes
//! nothing. Both edits read their result back and refuse it unless the
//! servers read as intended and every other server and setting is written
//! exactly as before.

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, TableLike, Value};

use super::{APP, SERVERS, field_path, load, read, shape};
use crate::{ConfigError, RawEntry, RouteTo, Scope, Transport};

/// `text` with each server named in `routes` set to run the route.
pub(crate) fn rewrite(file: &str, text: &str, routes: &[RouteTo]) -> Result<String, ConfigError> {
    let mut doc = load(file, text)?;
    // The whole file must read cleanly first: a server Rootgate cannot
    // understand is not one it should edit around.
    let entries = read::entries(file, &doc)?;
    for route in routes {
        let missing = || route.not_in(file);
        if route.scope != Scope::Global {
            return Err(missing());
        }
        let entry = entries
            .iter()
            .find(|e| e.key == route.key)
            .ok_or_else(missing)?;
        let table = server_mut(&mut doc, &route.key).ok_or_else(missing)?;
        apply(file, table, entry, route)?;
    }
    let out = doc.to_string();
    check_rewrite(file, text, &out, routes)?;
    Ok(out)
}

/// The settings table of server `key`, for editing.
fn server_mut<'d>(doc: &'d mut DocumentMut, key: &str) -> Option<&'d mut dyn TableLike> {
    doc.get_mut(SERVERS)?
        .as_table_like_mut()?
        .get_mut(key)?
        .as_table_like_mut()
}

/// Sets in `table` what differs from `route`, and drops `cwd` and
/// `env_vars`: Rootgate runs the server in the folder and with the
/// variables it was imported with, so Codex no longer passes them on.
fn apply(
    file: &str,
    table: &mut dyn TableLike,
    entry: &RawEntry,
    route: &RouteTo,
) -> Result<(), ConfigError> {
    let Transport::Stdio {
        command, args, env, ..
    } = &entry.transport
    else {
        return Err(shape(
            file,
            &field_path(&route.key, ""),
            "is a remote server (`url`); Rootgate routes only servers it starts",
        ));
    };
    if *command != route.command {
        set(table, "command", Value::from(route.command.as_str()));
    }
    if *args != route.args {
        let list: Array = route.args.iter().map(String::as_str).collect();
        set(table, "args", Value::Array(list));
    }
    if route.env.is_empty() {
        table.remove("env");
    } else if *env != route.env {
        let vars: InlineTable = route
            .env
            .iter()
            .map(|(name, value)| (name.as_str(), Value::from(value.as_str())))
            .collect();
        table.insert("env", Item::Value(Value::InlineTable(vars)));
    }
    table.remove("cwd");
    table.remove("env_vars");
    Ok(())
}

/// Sets `key` to `value`, keeping the spacing and comments written around
/// the value it replaces.
fn set(table: &mut dyn TableLike, key: &str, mut value: Value) {
    match table.get_mut(key) {
        Some(Item::Value(old)) => {
            *value.decor_mut() = old.decor().clone();
            *old = value;
        }
        _ => {
            table.insert(key, Item::Value(value));
        }
    }
}

/// Refuses `out` unless each route reads back as asked and the rest of the
/// file is written as in `text`.
fn check_rewrite(file: &str, text: &str, out: &str, routes: &[RouteTo]) -> Result<(), ConfigError> {
    let keys: Vec<&str> = routes.iter().map(|r| r.key.as_str()).collect();
    if without(file, text, &keys)?
        != without(file, out, &keys).map_err(|_| unwritable(file, None))?
    {
        return Err(unwritable(file, None));
    }
    let after = load(file, out).map_err(|_| unwritable(file, None))?;
    let entries = read::entries(file, &after).map_err(|_| unwritable(file, None))?;
    for route in routes {
        let wanted = route.as_written();
        let now = entries.iter().find(|e| e.key == route.key);
        if now.map(|e| &e.transport) != Some(&wanted) {
            return Err(unwritable(file, Some(&route.key)));
        }
    }
    Ok(())
}

/// `text` as written without the servers named in `keys`: what must not
/// change when only those are edited.
fn without(file: &str, text: &str, keys: &[&str]) -> Result<String, ConfigError> {
    let mut doc = load(file, text)?;
    if let Some(servers) = doc.get_mut(SERVERS).and_then(Item::as_table_like_mut) {
        for key in keys {
            servers.remove(key);
        }
    }
    Ok(doc.to_string())
}

/// `current` with each server in `entries` as `original` has it. Each server is put back as the original's item,
/// comments and layout included, where the current file has it (or at
/// the end of the servers when it does not); a server the original lacks is
/// removed.
pub(crate) fn restore(
    file: &str,
    current: &str,
    original: &str,
    entries: &[(Scope, String)],
) -> Result<String, ConfigError> {
    let before = load(file, original)?;
    let mut doc = load(file, current)?;
    read::entries(file, &doc)?;
    let keys: Vec<&str> = entries
        .iter()
        .filter(|(scope, _)| *scope == Scope::Global)
        .map(|(_, key)| key.as_str())
        .collect();
    for key in &keys {
        let wanted = read::servers(file, &before)?
            .and_then(|s| s.get(key))
            .cloned();
        if doc.get(SERVERS).is_none() && wanted.is_some() {
            let mut table = Table::new();
            table.set_implicit(true);
            doc.insert(SERVERS, Item::Table(table));
        }
        let Some(servers) = doc.get_mut(SERVERS).and_then(Item::as_table_like_mut) else {
            continue;
        };
        match wanted {
            Some(mut item) => {
                // A table keeps the place the current file gives it, so
                // the tables around it do not move.
                let place = match servers.get(key) {
                    Some(Item::Table(now)) => now.position(),
                    _ => None,
                };
                if let Item::Table(table) = &mut item {
                    table.set_position(place);
                }
                servers.insert(key, item);
            }
            None => {
                servers.remove(key);
            }
        }
    }
    let out = doc.to_string();
    check_restore(file, current, original, &out, &keys)?;
    Ok(out)
}

/// Refuses `out` unless each restored server reads as in `original` (or
/// is absent as there) and everything else is written as in `current`.
fn check_restore(
    file: &str,
    current: &str,
    original: &str,
    out: &str,
    keys: &[&str],
) -> Result<(), ConfigError> {
    if without(file, current, keys)?
        != without(file, out, keys).map_err(|_| unwritable(file, None))?
    {
        return Err(unwritable(file, None));
    }
    let after = load(file, out).map_err(|_| unwritable(file, None))?;
    let now = read::entries(file, &after).map_err(|_| unwritable(file, None))?;
    let was = read::entries(file, &load(file, original)?)?;
    for key in keys {
        let find = |list: &[RawEntry]| list.iter().find(|e| e.key == *key).cloned();
        if find(&now) != find(&was) {
            return Err(unwritable(file, Some(key)));
        }
    }
    Ok(())
}

/// An edit that would not read back as intended: the fault is Rootgate's,
/// not the file's.
fn unwritable(file: &str, key: Option<&str>) -> ConfigError {
    let key = key.map_or_else(|| SERVERS.to_owned(), |key| field_path(key, ""));
    ConfigError::unwritable(file, APP, &key)
}
