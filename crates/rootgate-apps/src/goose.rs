//! Goose's `~/.config/goose/config.yaml`: reading its `extensions` into
//! [`RawEntry`]s, pointing stdio extensions at `rootgate connect`, and
//! putting extensions back as an earlier text of the file had them.
//!
//! The file is a YAML mapping of Goose's settings (`GOOSE_PROVIDER`,
//! `GOOSE_MODEL`, ...) with `extensions`, a mapping from each extension's
//! key to its settings: `type` (`stdio`, `sse`, `streamable_http`, or one of
//! Goose's in-process kinds), `cmd`, `args`, `envs`, `env_keys`, `enabled`
//! and more. The file is read and edited with `yaml-edit`, a lossless YAML
//! syntax tree, so a rewrite changes only the values it sets: every other
//! key, extension, comment and the file's layout stay byte for byte. Its
//! parser recovers from errors, so its strict validator is run as well.
//! `read` turns one extension into an entry, `edit` rewrites, `restore`
//! puts extensions back; both edits read their result back before
//! returning it.
//!
//! This module deliberately does not expand anything (`envs` values and
//! `env_keys` are taken as written, and Goose's keyring is never read),
//! does not follow YAML aliases or tags inside an extension (Goose does not
//! write them, and rewriting an anchored value would change its aliases),
//! and never puts an `envs` value in an error: those are often secrets.
//! Goose's in-process extensions (`builtin`, `platform`, `frontend`,
//! `inline_python`) and kinds it may add later are not servers Rootgate
//! can run, so they are skipped rather than reported.

mod edit;
mod read;
mod restore;

use yaml_edit::validator::{Rule, Severity, Validator};
use yaml_edit::{Mapping, ParseErrorKind, YamlFile, YamlNode};

use super::{ConfigError, ParsedConfig, RouteTo, Scope};

/// The name errors give the syntax.
const FORMAT: &str = "YAML";
/// The name errors give the app.
const APP: &str = "Goose";
/// The top-level key that holds the extensions.
const EXTENSIONS: &str = "extensions";

/// Reads the extensions of `text`, a Goose `config.yaml`. An empty file, or
/// one without `extensions`, holds none.
pub fn parse(file: &str, text: &str) -> Result<ParsedConfig, ConfigError> {
    let doc = Loaded::new(file, text)?;
    let mut entries = Vec::new();
    for (key, node) in doc.extension_nodes()? {
        if let Some(entry) = read::entry(file, &key, &node)? {
            entries.push(entry);
        }
    }
    Ok(ParsedConfig {
        entries,
        ..ParsedConfig::default()
    })
}

/// `text` with each stdio extension named in `routes` set to run
/// `route.command route.args` with `route.env` as its `envs` and no
/// `env_keys`; every other byte is kept.
pub fn rewrite(file: &str, text: &str, routes: &[RouteTo]) -> Result<String, ConfigError> {
    edit::rewrite(file, text, routes)
}

/// `current` with each extension named in `entries` as `original` has it:
/// replaced, inserted when `current` lacks it, removed when `original` does.
pub fn restore(
    file: &str,
    current: &str,
    original: &str,
    entries: &[(Scope, String)],
) -> Result<String, ConfigError> {
    restore::restore(file, current, original, entries)
}

/// A Goose config file, checked and parsed into a tree that edits in place.
struct Loaded {
    file: String,
    tree: YamlFile,
    /// The top-level mapping; `None` when the file holds no document (it is
    /// empty or only comments) or a document that is just `null`.
    root: Option<Mapping>,
}

impl Loaded {
    /// Parses `text`, refusing what is not valid YAML or not a mapping at
    /// the top. The parser alone is lenient (it recovers from errors to
    /// keep an editor working), so its strict validator is run too: a file
    /// Goose itself would refuse must not be read as something else.
    fn new(file: &str, text: &str) -> Result<Loaded, ConfigError> {
        let parsed = YamlFile::parse(text);
        if let Some(error) = parsed.positioned_errors().first() {
            let reason = parse_reason(&error.kind);
            return Err(syntax(
                file,
                text,
                error.range.start,
                &error.message,
                reason,
            ));
        }
        let tree = parsed.tree();
        let documents: Vec<_> = tree.documents().collect();
        if let Some(second) = documents.get(1) {
            let at = second.byte_range().start;
            let reason = "the file holds more than one YAML document; Goose reads one";
            return Err(syntax(file, text, at, "", reason));
        }
        let Some(document) = documents.into_iter().next() else {
            return Ok(Loaded {
                file: file.to_owned(),
                tree,
                root: None,
            });
        };
        let violations = Validator::new().validate(&document);
        if let Some(v) = violations.iter().find(|v| v.severity == Severity::Error) {
            let at = v
                .text_range
                .map_or(document.byte_range().start, |r| r.start);
            return Err(syntax(file, text, at, &v.message, rule_reason(v.rule)));
        }
        // A document that is only `---`, or only `null`, holds no settings.
        let blank = match document.as_scalar() {
            Some(scalar) => scalar.is_null(),
            None => document.as_sequence().is_none() && document.as_tagged().is_none(),
        };
        let root = match document.as_mapping() {
            Some(root) => Some(root),
            None if blank => None,
            None => return Err(shape(file, "(top level)", "is not a mapping of settings")),
        };
        Ok(Loaded {
            file: file.to_owned(),
            tree,
            root,
        })
    }

    /// The `extensions` mapping; `None` when the file has none or it is
    /// `null` (Goose writes `extensions:` with nothing under it that way).
    fn extensions(&self) -> Result<Option<Mapping>, ConfigError> {
        let Some(node) = self.root.as_ref().and_then(|root| root.get(EXTENSIONS)) else {
            return Ok(None);
        };
        match node {
            YamlNode::Mapping(extensions) => Ok(Some(extensions)),
            YamlNode::Scalar(s) if s.is_null() => Ok(None),
            _ => Err(shape(
                &self.file,
                EXTENSIONS,
                "is not a mapping from names to extensions",
            )),
        }
    }

    /// Each extension's key and its settings, in the file's order.
    fn extension_nodes(&self) -> Result<Vec<(String, YamlNode)>, ConfigError> {
        let Some(extensions) = self.extensions()? else {
            return Ok(Vec::new());
        };
        extensions
            .iter()
            .map(|(key, node)| match key {
                YamlNode::Scalar(key) => Ok((key.as_string(), node)),
                _ => Err(shape(
                    &self.file,
                    EXTENSIONS,
                    "has an extension whose name is not a plain string",
                )),
            })
            .collect()
    }
}

/// A syntax error at byte `at` of `text`. `message` is the parser's own
/// description; it is used only when none of its words comes from the
/// file, because the parser quotes the text it stumbled on and that text
/// may be a secret. `fallback` says what kind of error it is otherwise.
pub(super) fn syntax(
    file: &str,
    text: &str,
    at: u32,
    message: &str,
    fallback: &str,
) -> ConfigError {
    let position = yaml_edit::byte_offset_to_line_column(text, at as usize);
    let clause = message
        .split(['.', ':', '(', '"', '\'', '`'])
        .next()
        .unwrap_or_default()
        .trim();
    let from_file = clause
        .split_whitespace()
        .any(|word| word.chars().count() >= 3 && text.contains(word));
    let reason = if clause.is_empty() || from_file {
        fallback.to_owned()
    } else {
        clause.to_owned()
    };
    ConfigError::Syntax {
        file: file.to_owned(),
        format: FORMAT,
        line: position.line,
        column: position.column,
        reason,
    }
}

/// What a parse error of `kind` means, in words that hold no file text.
pub(super) fn parse_reason(kind: &ParseErrorKind) -> &'static str {
    match kind {
        ParseErrorKind::UnclosedFlowSequence => "a `[` list is not closed",
        ParseErrorKind::UnclosedFlowMapping => "a `{` mapping is not closed",
        ParseErrorKind::UnterminatedString => "a quoted string is not closed",
        ParseErrorKind::Other => "the text here is not valid YAML",
    }
}

/// What a violation of `rule` means, in words that hold no file text.
pub(super) fn rule_reason(rule: Rule) -> &'static str {
    match rule {
        Rule::InvalidIndentation => "the indentation does not line up",
        Rule::InvalidDocumentMarker => "a document marker (`---` or `...`) is misplaced",
        Rule::InvalidTabUsage => "a tab is used for indentation",
        Rule::MissingSyntax => "a piece of YAML syntax is missing",
        Rule::InvalidEscape => "a quoted string has an invalid escape",
        Rule::DuplicateKeys => "a key appears twice in one mapping",
        Rule::InvalidAnchor => "an anchor or alias is not valid",
        Rule::InvalidTag => "a tag is not valid",
        Rule::InvalidCharacter => "a character YAML does not allow",
        _ => "the text here is not valid YAML",
    }
}

/// `key` (a dotted path such as `extensions.github.args`) does not hold
/// what Goose writes there. `reason` must never quote a value.
fn shape(file: &str, key: &str, reason: &str) -> ConfigError {
    ConfigError::Shape {
        file: file.to_owned(),
        app: APP,
        key: key.to_owned(),
        reason: reason.to_owned(),
    }
}

/// The dotted path of `field` in extension `key`, as errors name it.
fn field_path(key: &str, field: &str) -> String {
    format!("{EXTENSIONS}.{key}.{field}")
}
