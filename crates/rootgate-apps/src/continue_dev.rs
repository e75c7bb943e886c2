//! Continue's YAML configuration: `~/.continue/config.yaml` and the block
//! files of its `mcpServers` folder, both of which hold `mcpServers:`, a
//! list of servers each with a `name` and either `command`, `args`, `env`
//! and `cwd` (`type: stdio`, or no type) or a `url` (`type: sse` or
//! `streamable-http`). An entry's key is its `name`, which Continue shows.
//!
//! Continue's folder also takes Claude-style JSON files (`{"mcpServers":
//! {NAME: {...}}}`); [`is_json`] tells them apart by their first character
//! and `json` reads and edits those. A list item that only `uses` a block
//! from Continue's hub has no command here, so it is not listed.
//!
//! Files are read and edited with `yaml-edit`, as Goose's are: a rewrite
//! sets only the values that differ (`command`, `args`, `env`) and drops
//! `cwd`, and it is read back and refused unless the routed servers read
//! as asked and every other server and setting is written as before. A
//! restore puts a server back as the original's exact text where the
//! current file has it at the same column, and refuses otherwise rather
//! than guess a layout. This module never expands Continue's
//! `${{ secrets.NAME }}` or `${{ inputs.NAME }}` (`import` lists them as
//! values the app fills) and never puts a value in an error.

use yaml_edit::{Document, Mapping, Sequence, YamlFile, YamlNode, YamlValue, yaml_eq};

use super::fields::{Fields, StdioKeys, program, stdio};
use super::yaml::YamlFields;
use super::{ConfigError, ParsedConfig, RawEntry, RouteTo, Scope, Transport, yaml};

/// Continue's keys for a local server: `env` and `cwd`.
const KEYS: StdioKeys = StdioKeys {
    env: "env",
    env_keys: None,
    cwd: true,
};

const APP: &str = "Continue";
const SERVERS: &str = "mcpServers";

/// Whether `text` is one of the JSON files Continue's folder takes rather
/// than YAML: its first character that is not blank is `{`.
pub(crate) fn is_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// Reads the servers of `text`, a Continue YAML file.
pub fn parse(file: &str, text: &str) -> Result<ParsedConfig, ConfigError> {
    let doc = Loaded::new(file, text)?;
    Ok(ParsedConfig {
        entries: doc
            .items()?
            .iter()
            .filter_map(|(_, entry)| entry.clone())
            .collect(),
        ..ParsedConfig::default()
    })
}

/// A Continue YAML file, checked and parsed into a tree that edits in place.
struct Loaded {
    file: String,
    tree: YamlFile,
    root: Option<Mapping>,
}

impl Loaded {
    /// Parses `text`, refusing what is not valid YAML (`yaml::load`) or
    /// not a mapping.
    fn new(file: &str, text: &str) -> Result<Loaded, ConfigError> {
        let blank = |document: &Document| document.as_scalar().is_none_or(|s| s.is_null());
        let (tree, root) = yaml::load_mapping(file, text, APP, blank, "is not a mapping")?;
        Ok(Loaded {
            file: file.to_owned(),
            tree,
            root,
        })
    }

    /// The `mcpServers` list; `None` when the file has none.
    fn servers(&self) -> Result<Option<Sequence>, ConfigError> {
        match self.root.as_ref().and_then(|root| root.get(SERVERS)) {
            None => Ok(None),
            Some(YamlNode::Sequence(list)) => Ok(Some(list)),
            Some(YamlNode::Scalar(s)) if s.is_null() => Ok(None),
            Some(_) => Err(shape(&self.file, SERVERS, "is not a list of servers")),
        }
    }

    /// Each list item: its name, and the entry it is (`None` for an item
    /// that only `uses` a hub block). A name written twice is refused, since
    /// Rootgate names entries by it.
    fn items(&self) -> Result<Vec<(String, Option<RawEntry>)>, ConfigError> {
        let Some(list) = self.servers()? else {
            return Ok(Vec::new());
        };
        let mut items: Vec<(String, Option<RawEntry>)> = Vec::new();
        for (index, node) in list.values().enumerate() {
            let path = format!("{SERVERS}[{index}]");
            let YamlNode::Mapping(settings) = node else {
                return Err(shape(&self.file, &path, "is not a mapping of settings"));
            };
            let field = YamlFields {
                file: &self.file,
                app: APP,
                path: &path,
                settings: &settings,
            };
            let Some(name) = field.string("name")? else {
                if field.get("uses").is_some() {
                    continue;
                }
                return Err(field.error("name", "is missing"));
            };
            if items.iter().any(|(known, _)| *known == name) {
                return Err(field.error("name", "names a server already listed above"));
            }
            let entry = read_entry(&field, &name)?;
            items.push((name, entry));
        }
        Ok(items)
    }

    /// The settings of the server named `name`.
    fn server(&self, name: &str) -> Option<Mapping> {
        self.servers().ok()??.values().find_map(|node| match node {
            YamlNode::Mapping(settings)
                if settings
                    .get("name")
                    .and_then(|n| n.as_scalar().map(|s| s.as_string()))
                    .as_deref()
                    == Some(name) =>
            {
                Some(settings)
            }
            _ => None,
        })
    }

    /// Every top-level setting but `mcpServers`, as written.
    fn others(&self) -> Vec<String> {
        self.root
            .iter()
            .flat_map(|root| root.iter())
            .filter(|(key, _)| key.as_scalar().map(|s| s.as_string()).as_deref() != Some(SERVERS))
            .map(|(key, value)| format!("{key}: {value}"))
            .collect()
    }

    /// Each server's settings as written, by name, but those in `except`.
    fn servers_text(&self, except: &[&str]) -> Vec<String> {
        self.servers()
            .ok()
            .flatten()
            .iter()
            .flat_map(|list| list.values())
            .filter(|node| {
                let name = match node {
                    YamlNode::Mapping(m) => m
                        .get("name")
                        .and_then(|n| n.as_scalar().map(|s| s.as_string())),
                    _ => None,
                };
                !name.is_some_and(|name| except.contains(&name.as_str()))
            })
            .map(|node| node.to_string())
            .collect()
    }
}

/// One server's entry, or `None` when it has neither command nor url but
/// `uses` a block.
fn read_entry(field: &YamlFields<'_>, name: &str) -> Result<Option<RawEntry>, ConfigError> {
    let kind = field.string("type")?;
    let command = field.string("command")?;
    let url = field.string("url")?;
    let transport = match (kind.as_deref(), command, url) {
        (Some("stdio") | None, Some(command), _) => stdio(field, program(field, command)?, &KEYS)?,
        (_, _, Some(url)) => Transport::Remote { url },
        (_, None, None) if field.get("uses").is_some() => return Ok(None),
        _ => {
            return Err(field.error(
                "command",
                "is missing: a server needs a `command` or a `url`",
            ));
        }
    };
    Ok(Some(RawEntry {
        scope: Scope::Global,
        key: name.to_owned(),
        transport,
        enabled: true,
    }))
}

fn shape(file: &str, key: &str, reason: &str) -> ConfigError {
    ConfigError::shape(file, APP, key, reason)
}

/// An edit that would not read back as intended: Rootgate's fault, not the
/// file's.
fn unwritable(file: &str, key: Option<&str>) -> ConfigError {
    let key = key.map_or_else(
        || SERVERS.to_owned(),
        |key| format!("{SERVERS}[name={key:?}]"),
    );
    ConfigError::unwritable(file, APP, &key)
}

/// `text` with each server named in `routes` set to run the route.
pub fn rewrite(file: &str, text: &str, routes: &[RouteTo]) -> Result<String, ConfigError> {
    let doc = Loaded::new(file, text)?;
    let items = doc.items()?;
    for route in routes {
        let missing = || route.not_in(file);
        if route.scope != Scope::Global {
            return Err(missing());
        }
        let entry = items
            .iter()
            .find(|(name, _)| *name == route.key)
            .ok_or_else(missing)?;
        let Some(RawEntry {
            transport: Transport::Stdio {
                command, args, env, ..
            },
            ..
        }) = &entry.1
        else {
            return Err(shape(
                file,
                &format!("{SERVERS}[name={:?}]", route.key),
                "is not a local (stdio) server, so it cannot be routed",
            ));
        };
        let settings = doc.server(&route.key).ok_or_else(missing)?;
        if *command != route.command {
            settings.set("command", route.command.as_str());
        }
        if *args != route.args {
            settings.set("args", YamlValue::from(route.args.clone()));
        }
        if route.env.is_empty() {
            settings.remove("env");
        } else if *env != route.env {
            settings.set("env", YamlValue::from(route.env.clone()));
        }
        // Rootgate runs the server in the folder it was imported with.
        settings.remove("cwd");
    }
    let out = doc.tree.to_string();
    check_rewrite(file, &doc_text_before(file, text)?, &out, routes)?;
    Ok(out)
}

/// A fresh parse of `text`, since the edits above change `doc` in place.
fn doc_text_before(file: &str, text: &str) -> Result<Loaded, ConfigError> {
    Loaded::new(file, text)
}

fn check_rewrite(
    file: &str,
    before: &Loaded,
    out: &str,
    routes: &[RouteTo],
) -> Result<(), ConfigError> {
    let after = Loaded::new(file, out).map_err(|_| unwritable(file, None))?;
    let keys: Vec<&str> = routes.iter().map(|r| r.key.as_str()).collect();
    if before.others() != after.others() || before.servers_text(&keys) != after.servers_text(&keys)
    {
        return Err(unwritable(file, None));
    }
    let items = after.items().map_err(|_| unwritable(file, None))?;
    for route in routes {
        let wanted = route.as_written();
        let now = items
            .iter()
            .find(|(name, _)| *name == route.key)
            .and_then(|(_, entry)| entry.as_ref().map(|e| &e.transport));
        if now != Some(&wanted) {
            return Err(unwritable(file, Some(&route.key)));
        }
    }
    Ok(())
}

/// `current` with each server in `entries` put back as `original` has it:
/// its exact text where both files hold it at the same column, removed
/// where the original lacks it. A server the current file lacks, or holds
/// at another indentation, is refused: the person's changes are theirs to
/// merge, and the backup keeps the original.
pub fn restore(
    file: &str,
    current: &str,
    original: &str,
    entries: &[(Scope, String)],
) -> Result<String, ConfigError> {
    let was = Loaded::new(file, original)?;
    Loaded::new(file, current)?.items()?;
    let mut text = current.to_owned();
    for (_, key) in entries.iter().filter(|(scope, _)| *scope == Scope::Global) {
        let now = Loaded::new(file, &text)?;
        text = match (was.server(key), now.server(key)) {
            (Some(wanted), Some(here)) => {
                let spliced = splice(&text, original, &here, &wanted)
                    .ok_or_else(|| unwritable(file, Some(key)))?;
                let check = Loaded::new(file, &spliced).map_err(|_| unwritable(file, Some(key)))?;
                let same = check.server(key).is_some_and(|m| {
                    yaml_eq(&YamlNode::Mapping(m), &YamlNode::Mapping(wanted.clone()))
                });
                if !same
                    || check.others() != now.others()
                    || check.servers_text(&[key]) != now.servers_text(&[key])
                {
                    return Err(unwritable(file, Some(key)));
                }
                spliced
            }
            (None, Some(_)) => {
                let list = now.servers()?.ok_or_else(|| unwritable(file, Some(key)))?;
                let index = list
                    .values()
                    .position(|node| matches!(&node, YamlNode::Mapping(m) if m.get("name").and_then(|n| n.as_scalar().map(|s| s.as_string())).as_deref() == Some(key.as_str())))
                    .ok_or_else(|| unwritable(file, Some(key)))?;
                list.remove(index);
                now.tree.to_string()
            }
            (None, None) => text,
            (Some(_), None) => return Err(unwritable(file, Some(key))),
        };
    }
    Ok(text)
}

/// `text` with the mapping `here` replaced by the exact text of `wanted` in
/// `original`, when both start at the same column.
fn splice(text: &str, original: &str, here: &Mapping, wanted: &Mapping) -> Option<String> {
    let now = YamlNode::Mapping(here.clone()).byte_range();
    let was = YamlNode::Mapping(wanted.clone()).byte_range();
    let (from, to) = (now.start as usize, now.end as usize);
    let (was_from, was_to) = (was.start as usize, was.end as usize);
    let column = |t: &str, at: usize| t.get(..at).map(|b| at - b.rfind('\n').map_or(0, |i| i + 1));
    if column(text, from)? != column(original, was_from)? {
        return None;
    }
    let old = text.get(from..to)?;
    let mut piece = original.get(was_from..was_to)?.to_owned();
    // Keep the line ending of the text replaced, as Goose's restore does.
    piece.truncate(piece.trim_end_matches(['\r', '\n']).len());
    piece.push_str(&old[old.trim_end_matches(['\r', '\n']).len()..]);
    Some(format!("{}{piece}{}", &text[..from], &text[to..]))
}
