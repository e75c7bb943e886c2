//! Reading a JSON-family file's server entries from its syntax tree, and
//! checking on the way that every key Rootgate relies on has the shape the
//! app writes.
//!
//! It reads only the keys that say how a server starts; everything else in
//! an entry (`timeout`, `headers`, `settings`, keys an app adds later) is
//! left alone, here and when rewriting. A `null` counts as not written, as
//! the apps treat it. It does not edit anything: that is `edit`.

pub(super) mod opencode;

use std::collections::{BTreeMap, HashSet};

use jsonc_parser::ast::{Object, ObjectProp, ObjectPropName, Value};

use super::{Ctx, KeyPath};
use crate::{AppKind, ConfigError, InputDecl, RawEntry, Scope, Transport};

/// One entry of a server list, whether or not Rootgate can run it.
#[derive(Debug)]
pub(super) struct Item {
    pub scope: Scope,
    pub key: String,
    /// `None` for a server a Zed extension provides: it has no command of
    /// its own, so there is nothing to import or route.
    pub entry: Option<RawEntry>,
    /// Whether the command sits in Zed's older nested shape
    /// (`"command": {"path", "args", "env"}`).
    pub nested: bool,
}

/// Everything read from one file.
#[derive(Debug, Default)]
pub(super) struct Read {
    pub items: Vec<Item>,
    pub inputs: Vec<InputDecl>,
    pub projects: Vec<String>,
}

/// Reads `text`. A file with no value (empty, or only comments) holds
/// nothing; a file whose server list is missing holds no entries.
pub(super) fn read(cx: &Ctx<'_>, text: &str) -> Result<Read, ConfigError> {
    let mut out = Read::default();
    let Some(value) = cx.ast(text)? else {
        return Ok(out);
    };
    let top = KeyPath::default();
    let root = object(cx, &value, &top)?;
    read_list(cx, root, Scope::Global, &top, &mut out.items)?;
    if cx.app == AppKind::ClaudeCode {
        read_projects(cx, root, &mut out)?;
    }
    if cx.app == AppKind::VsCode {
        out.inputs = read_inputs(cx, root)?;
    }
    Ok(out)
}

/// The value of entry `key` in the list at `list_path`, if the file has it.
/// Used to find an entry's text by its range.
pub(super) fn entry_value<'r, 't>(
    root: &'r Value<'t>,
    list_path: &[&str],
    key: &str,
) -> Option<&'r Value<'t>> {
    let mut object = root.as_object()?;
    for segment in list_path {
        object = object.get(segment)?.value.as_object()?;
    }
    object.get(key).map(|prop| &prop.value)
}

/// `projects` of `~/.claude.json`: one server list per project folder.
fn read_projects(cx: &Ctx<'_>, root: &Object<'_>, out: &mut Read) -> Result<(), ConfigError> {
    let Some(value) = field(root, "projects") else {
        return Ok(());
    };
    let path = KeyPath::default().key("projects");
    for prop in &object(cx, value, &path)?.properties {
        let name = prop_name(prop);
        let project_path = path.key(name);
        let project = object(cx, &prop.value, &project_path)?;
        out.projects.push(name.to_owned());
        let scope = Scope::Project(name.to_owned());
        read_list(cx, project, scope, &project_path, &mut out.items)?;
    }
    Ok(())
}

/// The server list held in `holder` (the file's top, or a project).
fn read_list(
    cx: &Ctx<'_>,
    holder: &Object<'_>,
    scope: Scope,
    holder_path: &KeyPath,
    items: &mut Vec<Item>,
) -> Result<(), ConfigError> {
    let Some(key) = super::list_key(cx.app) else {
        return Ok(());
    };
    let Some(value) = field(holder, key) else {
        return Ok(());
    };
    let path = holder_path.key(key);
    for prop in &object(cx, value, &path)?.properties {
        let name = prop_name(prop);
        items.push(read_entry(
            cx,
            scope.clone(),
            name,
            &prop.value,
            &path.key(name),
        )?);
    }
    Ok(())
}

fn read_entry(
    cx: &Ctx<'_>,
    scope: Scope,
    key: &str,
    value: &Value<'_>,
    path: &KeyPath,
) -> Result<Item, ConfigError> {
    let entry = object(cx, value, path)?;
    let mut item = Item {
        scope,
        key: key.to_owned(),
        entry: None,
        nested: false,
    };
    let zed = cx.app == AppKind::Zed;
    if zed && opt_string(cx, entry, "source", path)?.as_deref() == Some("extension") {
        return Ok(item);
    }
    if cx.app == AppKind::Opencode {
        item.entry = opencode::read_entry(cx, &item, entry, path)?;
        return Ok(item);
    }
    // Zed writes whether a server runs as `enabled`; Kiro, Cline and Amazon
    // Q Developer document `disabled`. For the others a server listed is a
    // server started.
    let enabled = match cx.app {
        AppKind::Zed => opt_bool(cx, entry, "enabled", path)?.unwrap_or(true),
        AppKind::Kiro | AppKind::Cline | AppKind::AmazonQ => {
            !opt_bool(cx, entry, "disabled", path)?.unwrap_or(false)
        }
        _ => true,
    };
    let (transport, nested) = transport(cx, entry, path)?;
    item.nested = nested;
    item.entry = Some(RawEntry {
        scope: item.scope.clone(),
        key: item.key.clone(),
        transport,
        enabled,
    });
    Ok(item)
}

/// How an entry starts its server, and whether its command is nested.
///
/// An entry is remote when its `type` says anything but `stdio`, or when it
/// has a `url` and no `command`; otherwise it must have a command.
fn transport(
    cx: &Ctx<'_>,
    entry: &Object<'_>,
    path: &KeyPath,
) -> Result<(Transport, bool), ConfigError> {
    let kind = opt_string(cx, entry, "type", path)?;
    let command = field(entry, "command");
    let url_key = url_keys(cx.app)
        .iter()
        .copied()
        .find(|key| field(entry, key).is_some());
    let remote = match kind.as_deref() {
        Some("stdio") => false,
        // GitHub Copilot CLI writes `local` for a server it starts, and
        // takes `stdio` as the same.
        Some("local") if cx.app == AppKind::CopilotCli => false,
        Some(_) => true,
        None => command.is_none() && url_key.is_some(),
    };
    if remote {
        let url_key = url_key.unwrap_or("url");
        return match opt_string(cx, entry, url_key, path)? {
            Some(url) => Ok((Transport::Remote { url }, false)),
            None => Err(cx.shape(
                &path.key("url"),
                "is missing: a server that is not `stdio` is reached at a `url`",
            )),
        };
    }
    let Some(command) = command else {
        return Err(cx.shape(path, "has neither a `command` nor a `url`"));
    };
    // Zed's older shape nests the program and its arguments in `command`.
    let nested = cx.app == AppKind::Zed && matches!(command, Value::Object(_));
    let (holder, holder_path, program_key) = if nested {
        let holder_path = path.key("command");
        (object(cx, command, &holder_path)?, holder_path, "path")
    } else {
        (entry, path.clone(), "command")
    };
    let program = opt_string(cx, holder, program_key, &holder_path)?
        .filter(|program| !program.trim().is_empty())
        .ok_or_else(|| {
            cx.shape(
                &holder_path.key(program_key),
                "must name the program to run",
            )
        })?;
    let transport = Transport::Stdio {
        command: program,
        args: strings(cx, holder, "args", &holder_path)?,
        env: string_map(cx, holder, "env", &holder_path)?,
        cwd: opt_string(cx, entry, "cwd", path)?,
        env_file: opt_string(cx, entry, "envFile", path)?,
        env_keys: Vec::new(),
    };
    Ok((transport, nested))
}

/// The keys an app reads a remote server's address from: Windsurf's is
/// `serverUrl` (its docs say a Cursor-style `url` does not connect, but it
/// is still a remote entry, never a command), Gemini CLI's streamable HTTP
/// servers use `httpUrl` and its SSE servers `url`.
fn url_keys(app: AppKind) -> &'static [&'static str] {
    match app {
        AppKind::Windsurf => &["serverUrl", "url"],
        AppKind::GeminiCli => &["httpUrl", "url"],
        _ => &["url"],
    }
}

/// VS Code's `inputs`: values it asks for when a server names them.
fn read_inputs(cx: &Ctx<'_>, root: &Object<'_>) -> Result<Vec<InputDecl>, ConfigError> {
    let Some(value) = field(root, "inputs") else {
        return Ok(Vec::new());
    };
    let path = KeyPath::default().key("inputs");
    let Value::Array(array) = value else {
        return Err(cx.shape(&path, format!("must be a list, not {}", kind(value))));
    };
    let mut inputs = Vec::new();
    for (index, value) in array.elements.iter().enumerate() {
        let path = path.index(index);
        let input = object(cx, value, &path)?;
        let id = opt_string(cx, input, "id", &path)?
            .ok_or_else(|| cx.shape(&path.key("id"), "is missing"))?;
        inputs.push(InputDecl {
            id,
            description: opt_string(cx, input, "description", &path)?,
            password: opt_bool(cx, input, "password", &path)?.unwrap_or(false),
        });
    }
    Ok(inputs)
}

/// `value` as an object whose keys are each written once. A key written
/// twice is refused: JavaScript apps use the last, while an edit would
/// find the first, so Rootgate could read one and rewrite the other.
fn object<'r, 't>(
    cx: &Ctx<'_>,
    value: &'r Value<'t>,
    path: &KeyPath,
) -> Result<&'r Object<'t>, ConfigError> {
    let Value::Object(object) = value else {
        return Err(cx.shape(path, format!("must be an object, not {}", kind(value))));
    };
    let mut seen = HashSet::new();
    for prop in &object.properties {
        let name = prop_name(prop);
        if !seen.insert(name) {
            return Err(cx.shape(&path.key(name), "is written twice"));
        }
    }
    Ok(object)
}

/// The value of `key`, unless it is missing or `null`.
fn field<'r, 't>(object: &'r Object<'t>, key: &str) -> Option<&'r Value<'t>> {
    object
        .get(key)
        .map(|prop| &prop.value)
        .filter(|value| !matches!(value, Value::NullKeyword(_)))
}

fn prop_name<'r>(prop: &'r ObjectProp<'_>) -> &'r str {
    match &prop.name {
        ObjectPropName::String(name) => name.value.as_ref(),
        ObjectPropName::Word(name) => name.value,
    }
}

/// What kind of value `value` is, for an error message: never the value
/// itself, which may be a secret.
fn kind(value: &Value<'_>) -> &'static str {
    match value {
        Value::StringLit(_) => "a string",
        Value::NumberLit(_) => "a number",
        Value::BooleanLit(_) => "true or false",
        Value::Object(_) => "an object",
        Value::Array(_) => "a list",
        Value::NullKeyword(_) => "null",
    }
}

fn string(cx: &Ctx<'_>, value: &Value<'_>, path: &KeyPath) -> Result<String, ConfigError> {
    match value {
        Value::StringLit(text) => Ok(text.value.clone().into_owned()),
        other => Err(cx.shape(path, format!("must be a string, not {}", kind(other)))),
    }
}

pub(super) fn opt_string(
    cx: &Ctx<'_>,
    object: &Object<'_>,
    key: &str,
    path: &KeyPath,
) -> Result<Option<String>, ConfigError> {
    field(object, key)
        .map(|value| string(cx, value, &path.key(key)))
        .transpose()
}

pub(super) fn opt_bool(
    cx: &Ctx<'_>,
    object: &Object<'_>,
    key: &str,
    path: &KeyPath,
) -> Result<Option<bool>, ConfigError> {
    match field(object, key) {
        None => Ok(None),
        Some(Value::BooleanLit(flag)) => Ok(Some(flag.value)),
        Some(other) => Err(cx.shape(
            &path.key(key),
            format!("must be true or false, not {}", kind(other)),
        )),
    }
}

/// A list of strings (`args`); missing means empty.
pub(super) fn strings(
    cx: &Ctx<'_>,
    object: &Object<'_>,
    key: &str,
    path: &KeyPath,
) -> Result<Vec<String>, ConfigError> {
    let path = path.key(key);
    match field(object, key) {
        None => Ok(Vec::new()),
        Some(Value::Array(array)) => array
            .elements
            .iter()
            .enumerate()
            .map(|(index, value)| string(cx, value, &path.index(index)))
            .collect(),
        Some(other) => Err(cx.shape(&path, format!("must be a list, not {}", kind(other)))),
    }
}

/// An object of strings (`env`); missing means empty.
pub(super) fn string_map(
    cx: &Ctx<'_>,
    object: &Object<'_>,
    key: &str,
    path: &KeyPath,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let path = path.key(key);
    let Some(value) = field(object, key) else {
        return Ok(BTreeMap::new());
    };
    let map = self::object(cx, value, &path)?;
    map.properties
        .iter()
        .map(|prop| {
            let name = prop_name(prop);
            Ok((name.to_owned(), string(cx, &prop.value, &path.key(name))?))
        })
        .collect()
}
