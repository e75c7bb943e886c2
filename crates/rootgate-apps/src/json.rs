//! The JSON-family apps' files: Claude Desktop's
//! `claude_desktop_config.json`, Claude Code's `~/.claude.json` and a
//! project's `.mcp.json`, Cursor's `mcp.json` (all plain JSON), VS Code's
//! `mcp.json` (comments allowed) and Zed's `settings.json` (comments and
//! trailing commas).
//!
//! Reading goes through `jsonc-parser`'s syntax tree with the file's ranges
//! (`read`); rewriting goes through its concrete syntax tree, which keeps
//! every comment, blank line, indentation, line ending and trailing comma
//! it does not touch (`edit`). A rewrite changes only the routed entries'
//! `command`, `args` and `env` (and drops the `envFile` and `cwd` Rootgate
//! took over); a restore copies each entry's text back from an earlier
//! version of the file, byte for byte.
//!
//! This module deliberately does not read files, write them, or decide what
//! to route: `locate` says where the files are and `route` plans, writes and
//! backs them up. It never expands variables such as `${input:token}`, and it
//! never puts a value it read into an error message, since these files hold
//! secrets; errors name keys, never values.

mod edit;
mod read;

use std::collections::BTreeMap;

use jsonc_parser::ParseOptions;
use jsonc_parser::ast::Value;
use jsonc_parser::cst::{CstInputValue, CstRootNode};
use jsonc_parser::errors::{ParseError, ParseErrorKind};
use jsonc_parser::{CollectOptions, ParseStringErrorKind, parse_to_ast};

use super::{AppKind, ConfigError, Format, ParsedConfig, RouteTo, Scope};

/// Reads the server entries of `text`, a file of `app` (see
/// [`super::parse`]). An empty file holds none.
pub fn parse(app: AppKind, file: &str, text: &str) -> Result<ParsedConfig, ConfigError> {
    let read = read::read(&Ctx { app, file }, text)?;
    Ok(ParsedConfig {
        entries: read
            .items
            .into_iter()
            .filter_map(|item| item.entry)
            .collect(),
        inputs: read.inputs,
        projects: read.projects,
    })
}

/// `text` with each entry named in `routes` rewritten to run the route's
/// command (see [`super::rewrite`]).
pub fn rewrite(
    app: AppKind,
    file: &str,
    text: &str,
    routes: &[RouteTo],
) -> Result<String, ConfigError> {
    edit::rewrite(&Ctx { app, file }, text, routes)
}

/// `current` with each entry in `entries` put back as `original` had it
/// (see [`super::restore`]).
pub fn restore(
    app: AppKind,
    file: &str,
    current: &str,
    original: &str,
    entries: &[(Scope, String)],
) -> Result<String, ConfigError> {
    edit::restore(&Ctx { app, file }, current, original, entries)
}

/// The app and file being read, which every error names.
#[derive(Clone, Copy)]
struct Ctx<'f> {
    app: AppKind,
    file: &'f str,
}

impl Ctx<'_> {
    /// What the app itself accepts. Claude Desktop, Claude Code and Cursor
    /// read their files with a strict JSON parser, so a comment there would
    /// break the app and is reported rather than accepted; VS Code and Zed
    /// allow comments and trailing commas, and nothing looser.
    fn options(self) -> ParseOptions {
        let lenient = self.app.format() == Format::Jsonc;
        ParseOptions {
            allow_comments: lenient,
            allow_trailing_commas: lenient,
            allow_loose_object_property_names: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: false,
        }
    }

    /// The file's value, or `None` when it holds only whitespace or
    /// comments (apps create such files before anything is configured).
    fn ast<'t>(self, text: &'t str) -> Result<Option<Value<'t>>, ConfigError> {
        parse_to_ast(text, &CollectOptions::default(), &self.options())
            .map(|parsed| parsed.value)
            .map_err(|err| self.syntax(&err))
    }

    /// The file's concrete syntax tree, for editing. It must be kept alive
    /// while any of its nodes is used: the nodes hold only weak references
    /// to their parents.
    fn cst(self, text: &str) -> Result<CstRootNode, ConfigError> {
        CstRootNode::parse(text, &self.options()).map_err(|err| self.syntax(&err))
    }

    fn syntax(self, err: &ParseError) -> ConfigError {
        ConfigError::Syntax {
            file: self.file.to_owned(),
            format: match self.app.format() {
                Format::Jsonc => "JSON with comments",
                _ => "JSON",
            },
            line: err.line_display(),
            column: err.column_display(),
            reason: syntax_reason(err.kind()),
        }
    }

    fn shape(self, key: &KeyPath, reason: impl Into<String>) -> ConfigError {
        ConfigError::Shape {
            file: self.file.to_owned(),
            app: self.app.title(),
            key: key.to_string(),
            reason: reason.into(),
        }
    }

    fn no_such(self, scope: &Scope, key: &str) -> ConfigError {
        ConfigError::NoSuchEntry {
            file: self.file.to_owned(),
            key: key.to_owned(),
            scope: match scope {
                Scope::Global => String::new(),
                Scope::Project(path) => format!(" in project {path}"),
            },
        }
    }

    /// The keys leading from the top of the file to `scope`'s server list,
    /// or `None` when this app's files have no such scope.
    fn list_path(self, scope: &Scope) -> Option<Vec<&str>> {
        let list = list_key(self.app)?;
        match scope {
            Scope::Global => Some(vec![list]),
            Scope::Project(path) if self.app == AppKind::ClaudeCode => {
                Some(vec!["projects", path.as_str(), list])
            }
            Scope::Project(_) => None,
        }
    }

    /// Where entry `key` of `scope` sits, for error messages.
    fn entry_path(self, scope: &Scope, key: &str) -> KeyPath {
        let list = self.list_path(scope).unwrap_or_default();
        list.iter()
            .fold(KeyPath::default(), |path, segment| path.key(segment))
            .key(key)
    }
}

/// The key that holds an app's server list. Continue's JSON files are the
/// Claude-style ones its `mcpServers` folder takes.
fn list_key(app: AppKind) -> Option<&'static str> {
    match app {
        AppKind::VsCode => Some("servers"),
        AppKind::Zed => Some("context_servers"),
        AppKind::Opencode => Some("mcp"),
        AppKind::Goose | AppKind::Codex => None,
        _ => Some("mcpServers"),
    }
}

/// The parser's reason in our words. Its message for a bad `\u` escape
/// quotes the escape's digits, which come from the file and may be part of
/// a secret, so string errors get a fixed wording.
fn syntax_reason(kind: &ParseErrorKind) -> String {
    match kind {
        ParseErrorKind::String(ParseStringErrorKind::UnterminatedStringLiteral) => {
            "a string has no closing quote".to_owned()
        }
        ParseErrorKind::String(_) => "a string holds an escape that is not valid".to_owned(),
        other => {
            let text = other.to_string();
            let mut chars = text.chars();
            match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => text,
            }
        }
    }
}

/// An entry's variables as the JSON object to write: each name with its
/// value as a string. Both entry shapes that hold them (`env`, and
/// opencode's `environment`) write them so.
fn env_object(env: &BTreeMap<String, String>) -> CstInputValue {
    CstInputValue::Object(
        env.iter()
            .map(|(name, value)| (name.clone(), CstInputValue::String(value.clone())))
            .collect(),
    )
}

/// A key's place in the file, as errors show it:
/// `projects["/home/me/app"].mcpServers.github.args[1]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct KeyPath(String);

impl KeyPath {
    fn key(&self, key: &str) -> KeyPath {
        let plain = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let mut path = self.0.clone();
        if plain {
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(key);
        } else {
            // Debug quoting escapes quotes and control characters, so a
            // strange key cannot make the message misleading.
            path.push_str(&format!("[{key:?}]"));
        }
        KeyPath(path)
    }

    fn index(&self, index: usize) -> KeyPath {
        KeyPath(format!("{}[{index}]", self.0))
    }
}

impl std::fmt::Display for KeyPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            f.write_str("(top level)")
        } else {
            f.write_str(&self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_paths_quote_keys_that_are_not_plain_words() {
        let path = KeyPath::default()
            .key("projects")
            .key("/home/me/app")
            .key("mcpServers")
            .key("github")
            .key("args")
            .index(1);
        assert_eq!(
            path.to_string(),
            r#"projects["/home/me/app"].mcpServers.github.args[1]"#
        );
        assert_eq!(KeyPath::default().to_string(), "(top level)");
    }

    #[test]
    fn string_errors_never_quote_the_file() {
        let cx = Ctx {
            app: AppKind::Cursor,
            file: "mcp.json",
        };
        let err = cx
            .ast(r#"{"env": {"K": "sec\uZZZZret"}}"#)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("escape"), "{err}");
        assert!(!err.contains("ZZZZ"), "{err}");
    }

    #[test]
    fn only_claude_code_has_project_scopes() {
        let project = Scope::Project("/p".to_owned());
        let code = Ctx {
            app: AppKind::ClaudeCode,
            file: "f",
        };
        let cursor = Ctx {
            app: AppKind::Cursor,
            file: "f",
        };
        assert_eq!(
            code.list_path(&project),
            Some(vec!["projects", "/p", "mcpServers"])
        );
        assert_eq!(cursor.list_path(&project), None);
    }
}
