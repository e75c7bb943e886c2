//! Rewriting Goose stdio extensions in place to run `rootgate connect`.
//!
//! The rewrite edits the lossless tree, so what it does not set stays byte
//! for byte, and it reads its result back before returning it: a rewrite
//! that would not read as the routes say, or that touched another
//! extension or setting, is refused rather than written.

use std::collections::BTreeMap;

use yaml_edit::{Mapping, YamlNode, YamlValue};

use super::{APP, EXTENSIONS, Loaded, read, shape};
use crate::{ConfigError, RouteTo, Scope, Transport};

/// `text` with each stdio extension named in `routes` set to run
/// `route.command route.args` with `route.env` as its `envs` and no
/// `env_keys`; every other byte is kept.
pub(crate) fn rewrite(file: &str, text: &str, routes: &[RouteTo]) -> Result<String, ConfigError> {
    let doc = Loaded::new(file, text)?;
    let extensions = doc.extensions()?;
    for route in routes {
        let (settings, current) = stdio_extension(file, extensions.as_ref(), route)?;
        apply(&settings, &current, route);
    }
    let out = doc.tree.to_string();
    check_rewrite(file, text, &out, routes)?;
    Ok(out)
}

/// The settings of the stdio extension `route` names, and how it reads now.
fn stdio_extension(
    file: &str,
    extensions: Option<&Mapping>,
    route: &RouteTo,
) -> Result<(Mapping, Stdio), ConfigError> {
    let missing = || ConfigError::NoSuchEntry {
        file: file.to_owned(),
        key: route.key.clone(),
        scope: scope_label(&route.scope),
    };
    // Goose has one list of extensions: a route into a project's list
    // names nothing here.
    if route.scope != Scope::Global {
        return Err(missing());
    }
    let node = extensions
        .and_then(|e| e.get(route.key.as_str()))
        .ok_or_else(missing)?;
    let entry = read::entry(file, &route.key, &node)?;
    match (node, entry.map(|e| e.transport)) {
        (
            YamlNode::Mapping(settings),
            Some(Transport::Stdio {
                command,
                args,
                env,
                env_keys,
                ..
            }),
        ) => Ok((
            settings,
            Stdio {
                command,
                args,
                env,
                env_keys,
            },
        )),
        _ => Err(shape(
            file,
            &format!("{EXTENSIONS}.{}", route.key),
            "is not a local (stdio) extension, so it cannot be routed",
        )),
    }
}

/// The parts of a stdio extension that a route sets.
struct Stdio {
    command: String,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    env_keys: Vec<String>,
}

/// Sets in `settings` what differs from `route`. A value that already
/// reads as the route says is left as written, so rewriting an applied
/// route changes nothing, and a missing `envs` or `env_keys` that would be
/// empty is not added. `env_keys` is emptied because Rootgate now holds
/// those variables and Goose must not add them from its keyring.
fn apply(settings: &Mapping, current: &Stdio, route: &RouteTo) {
    if current.command != route.command {
        settings.set("cmd", route.command.as_str());
    }
    if current.args != route.args {
        settings.set("args", YamlValue::from(route.args.clone()));
    }
    if current.env != route.env {
        settings.set("envs", YamlValue::from(route.env.clone()));
    }
    if !current.env_keys.is_empty() {
        settings.set("env_keys", YamlValue::Sequence(Vec::new()));
    }
}

/// Refuses `out` unless it reads back with every route applied, and with
/// every other extension and top-level setting of `text` written as it was.
fn check_rewrite(file: &str, text: &str, out: &str, routes: &[RouteTo]) -> Result<(), ConfigError> {
    let before = Loaded::new(file, text)?;
    let after = Loaded::new(file, out).map_err(|_| unwritable(file, None))?;
    let routed: Vec<&str> = routes.iter().map(|r| r.key.as_str()).collect();
    let kept = others_kept(&settings_text(&before)?, &settings_text(&after)?, &routed);
    if !kept || root_text(&before) != root_text(&after) {
        return Err(unwritable(file, None));
    }
    let entries = super::parse(file, out)
        .map_err(|_| unwritable(file, None))?
        .entries;
    for route in routes {
        let now = entries
            .iter()
            .find(|e| e.key == route.key)
            .map(|e| &e.transport);
        let wanted = route.as_written();
        // With one key routed twice, the last route is the one that holds.
        let last = routes.iter().rev().find(|r| r.key == route.key);
        if last == Some(route) && now != Some(&wanted) {
            return Err(unwritable(file, Some(&route.key)));
        }
    }
    Ok(())
}

/// Each extension's settings as the file writes them.
pub(super) fn settings_text(doc: &Loaded) -> Result<BTreeMap<String, String>, ConfigError> {
    Ok(doc
        .extension_nodes()?
        .into_iter()
        .map(|(key, node)| (key, node.to_string()))
        .collect())
}

/// Whether every extension of `before` but those named in `except` is
/// written in `after` exactly as in `before`, and `after` has no other.
pub(super) fn others_kept(
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
    except: &[&str],
) -> bool {
    let others = |settings: &BTreeMap<String, String>| -> Vec<(String, String)> {
        settings
            .iter()
            .filter(|(key, _)| !except.contains(&key.as_str()))
            .map(|(key, text)| (key.clone(), text.clone()))
            .collect()
    };
    others(before) == others(after)
}

/// Every top-level setting but `extensions`, as the file writes it.
pub(super) fn root_text(doc: &Loaded) -> Vec<(String, String)> {
    let Some(root) = doc.root.as_ref() else {
        return Vec::new();
    };
    root.iter()
        .map(|(key, value)| {
            let key = match &key {
                YamlNode::Scalar(key) => key.as_string(),
                _ => key.to_string(),
            };
            (key, value.to_string())
        })
        .filter(|(key, _)| key != EXTENSIONS)
        .collect()
}

/// An edit (of extension `key`, or of the file) that would not read back
/// as intended: the fault is this module's, not the file's.
pub(super) fn unwritable(file: &str, key: Option<&str>) -> ConfigError {
    let key = key.map_or_else(
        || EXTENSIONS.to_owned(),
        |key| format!("{EXTENSIONS}.{key}"),
    );
    ConfigError::unwritable(file, APP, &key)
}

/// How a [`ConfigError::NoSuchEntry`] names the list it looked in.
fn scope_label(scope: &Scope) -> String {
    match scope {
        Scope::Global => String::new(),
        Scope::Project(path) => format!(" in project `{path}`"),
    }
}
