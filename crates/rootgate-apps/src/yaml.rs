//! Loading the YAML files two apps keep their servers in (Goose's
//! `config.yaml`, Continue's `config.yaml` and block files): the parse,
//! the strict validator and the one-document rule they share, with errors
//! that never quote the file.
//!
//! The parser (`yaml-edit`) recovers from errors to keep an editor working,
//! so its strict validator is run too: a file the app itself would refuse
//! must not be read as something else. Also here: an entry's settings in
//! a YAML mapping, read as `fields` reads every app's ([`YamlFields`]).
//! Also the top-level mapping both apps keep their settings in
//! ([`load_mapping`]); which other documents count as holding no settings,
//! and where each app keeps its servers in the mapping, is the app's
//! module's.

use yaml_edit::validator::{Rule, Severity, Validator};
use yaml_edit::{Document, Mapping, ParseErrorKind, YamlFile, YamlNode};

use crate::ConfigError;
use crate::fields::{Fields, Found};

/// The name errors give the syntax.
const FORMAT: &str = "YAML";

/// `text`, the YAML file `file` of `app`, parsed and validated: the tree
/// that edits in place, and its one document (`None` when the file holds
/// none: it is empty or only comments).
pub(crate) fn load(
    file: &str,
    text: &str,
    app: &str,
) -> Result<(YamlFile, Option<Document>), ConfigError> {
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
        let reason = format!("the file holds more than one YAML document; {app} reads one");
        return Err(syntax(file, text, at, "", &reason));
    }
    let Some(document) = documents.into_iter().next() else {
        return Ok((tree, None));
    };
    let violations = Validator::new().validate(&document);
    if let Some(v) = violations.iter().find(|v| v.severity == Severity::Error) {
        let at = v
            .text_range
            .map_or(document.byte_range().start, |r| r.start);
        return Err(syntax(file, text, at, &v.message, rule_reason(v.rule)));
    }
    Ok((tree, Some(document)))
}

/// [`load`], and the top-level mapping of the document it found: `None`
/// when the file holds no document, or one that `blank` says holds no
/// settings (what counts as blank is the app's); an error saying
/// `not_mapping` about the top level for any other document that is not a
/// mapping.
pub(crate) fn load_mapping(
    file: &str,
    text: &str,
    app: &'static str,
    blank: impl Fn(&Document) -> bool,
    not_mapping: &str,
) -> Result<(YamlFile, Option<Mapping>), ConfigError> {
    let (tree, document) = load(file, text, app)?;
    let Some(document) = document else {
        return Ok((tree, None));
    };
    let root = match document.as_mapping() {
        Some(root) => Some(root),
        None if blank(&document) => None,
        None => return Err(ConfigError::shape(file, app, "(top level)", not_mapping)),
    };
    Ok((tree, root))
}

/// A syntax error at byte `at` of `text`. `message` is the parser's own
/// description; it is used only when none of its words comes from the
/// file, because the parser quotes the text it stumbled on and that text
/// may be a secret. `fallback` says what kind of error it is otherwise.
fn syntax(file: &str, text: &str, at: u32, message: &str, fallback: &str) -> ConfigError {
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
fn parse_reason(kind: &ParseErrorKind) -> &'static str {
    match kind {
        ParseErrorKind::UnclosedFlowSequence => "a `[` list is not closed",
        ParseErrorKind::UnclosedFlowMapping => "a `{` mapping is not closed",
        ParseErrorKind::UnterminatedString => "a quoted string is not closed",
        ParseErrorKind::Other => "the text here is not valid YAML",
    }
}

/// What a violation of `rule` means, in words that hold no file text.
fn rule_reason(rule: Rule) -> &'static str {
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

/// One entry's settings in a YAML mapping: `path` is where the entry sits
/// (`extensions.github`, `mcpServers[2]`), as errors name it, and `app`
/// the app whose file it is.
pub(crate) struct YamlFields<'a> {
    pub file: &'a str,
    pub app: &'static str,
    pub path: &'a str,
    pub settings: &'a Mapping,
}

impl YamlFields<'_> {
    /// The value of `name`; `None` when it is missing or `null`, which the
    /// apps treat alike.
    pub(crate) fn get(&self, name: &str) -> Option<YamlNode> {
        self.settings
            .get(name)
            .filter(|node| !matches!(node, YamlNode::Scalar(s) if s.is_null()))
    }
}

impl Fields for YamlFields<'_> {
    const MAPPING: &'static str = "mapping";

    /// The apps read these with serde, which takes any plain scalar
    /// (`300`, `true`) as the text it is written as.
    fn text(&self, name: &str) -> Found<String> {
        match self.get(name) {
            None => Found::Missing,
            Some(node) => text(&node).map_or(Found::Not, Found::Is),
        }
    }

    fn texts(&self, name: &str) -> Found<Vec<Option<String>>> {
        match self.get(name) {
            None => Found::Missing,
            Some(YamlNode::Sequence(items)) => {
                Found::Is(items.values().map(|i| text(&i)).collect())
            }
            Some(_) => Found::Not,
        }
    }

    fn pairs(&self, name: &str) -> Found<Vec<(Option<String>, Option<String>)>> {
        match self.get(name) {
            None => Found::Missing,
            Some(YamlNode::Mapping(vars)) => {
                Found::Is(vars.iter().map(|(k, v)| (text(&k), text(&v))).collect())
            }
            Some(_) => Found::Not,
        }
    }

    fn boolean(&self, name: &str) -> Found<bool> {
        match self.get(name) {
            None => Found::Missing,
            Some(node) => node
                .as_scalar()
                .and_then(|s| s.as_bool())
                .map_or(Found::Not, Found::Is),
        }
    }

    fn error(&self, name: &str, reason: &str) -> ConfigError {
        ConfigError::shape(
            self.file,
            self.app,
            &format!("{}.{name}", self.path),
            reason,
        )
    }
}

/// The text of a scalar that is not `null`: quoted strings unescaped, plain
/// scalars as written. `None` for collections, aliases, tagged values and
/// `null`, which the apps do not take as a string either.
pub(crate) fn text(node: &YamlNode) -> Option<String> {
    match node {
        YamlNode::Scalar(s) if !s.is_null() => Some(s.as_string()),
        _ => None,
    }
}
