//! The placeholders each app fills itself, found in an entry's values so
//! that import can ask the person for them: `${NAME}` and its forms for
//! every app (VS Code's `${input:…}`, Windsurf's `${env:NAME}` and
//! `${file:PATH}`, Claude Code's `${NAME:-default}`), and the forms only
//! some apps define: Continue's `${{ secrets.NAME }}` and
//! `${{ inputs.NAME }}`, Gemini CLI's bare `$NAME` (its docs take both
//! `$VAR_NAME` and `${VAR_NAME}`), and opencode's `{env:NAME}` and
//! `{file:PATH}`.
//!
//! Each is asked for by the name the person knows it by ([`name`]): the
//! variable's own name (`GEMINI_DATA_TOKEN` for `$GEMINI_DATA_TOKEN`,
//! `${GEMINI_DATA_TOKEN}`, `${env:GEMINI_DATA_TOKEN}` or
//! `{env:GEMINI_DATA_TOKEN}`, which are one variable), a Continue secret's
//! name, a VS Code input's id, never the text with its `$` and braces.
//! A value the app reads from its environment, its secrets or a file is
//! secret: whoever wrote the config kept it out of the file on purpose.
//!
//! It only finds, names and describes them; `import` decides what to ask,
//! and never expands one itself.

use crate::AppKind;

/// Every placeholder in `value` that `app` fills, in order.
pub(super) fn variables(app: Option<AppKind>, value: &str) -> Vec<String> {
    let mut found = Vec::new();
    if app == Some(AppKind::Continue) {
        let mut rest = value;
        while let Some(start) = rest.find("${{") {
            let Some(len) = rest[start..].find("}}") else {
                break;
            };
            found.push(rest[start..start + len + 2].to_owned());
            rest = &rest[start + len + 2..];
        }
        if !found.is_empty() {
            return found;
        }
    }
    found.extend(super::variables(value));
    match app {
        Some(AppKind::GeminiCli) => found.extend(bare(value)),
        Some(AppKind::Opencode) => found.extend(braced(value)),
        _ => {}
    }
    found
}

/// Gemini CLI's `$NAME` (not `${`, which `variables` finds).
fn bare(value: &str) -> Vec<String> {
    let mut found = Vec::new();
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'$' {
            let start = i + 1;
            let mut end = start;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            let leads = bytes
                .get(start)
                .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
            if end > start && leads {
                found.push(value[i..end].to_owned());
            }
            i = end.max(i + 1);
        } else {
            i += 1;
        }
    }
    found
}

/// opencode's `{env:NAME}` and `{file:PATH}`.
fn braced(value: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find('{') {
        let tail = &rest[start..];
        let Some(len) = tail.find('}') else {
            break;
        };
        let token = &tail[..=len];
        let opencode = token.starts_with("{env:") || token.starts_with("{file:");
        // `${env:…}` is the other form, found by `variables`.
        let dollar = start > 0 && rest.as_bytes()[start - 1] == b'$';
        if opencode && !dollar {
            found.push(token.to_owned());
        }
        rest = &rest[start + len + 1..];
    }
    found
}

/// What a placeholder stands for, so that two forms of one variable are
/// asked for once, and two variables of one name but of different kinds
/// (an input `token` and an environment variable `token`) are not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A variable of the app's environment: `$NAME`, `${NAME}`,
    /// `${NAME:-default}`, `${env:NAME}`, `{env:NAME}`.
    Env,
    /// A VS Code input: `${input:ID}`.
    Input,
    /// A Continue secret: `${{ secrets.NAME }}`.
    Secret,
    /// A Continue input: `${{ inputs.NAME }}`.
    ContinueInput,
    /// Anything else the app fills: `${workspaceFolder}`, `{file:PATH}`.
    App,
}

impl Kind {
    /// How a name of this kind is written when another kind has it too.
    pub(super) fn qualified(self, name: &str) -> String {
        match self {
            Kind::Env => format!("env:{name}"),
            Kind::Input => format!("input:{name}"),
            Kind::Secret => format!("secrets.{name}"),
            Kind::ContinueInput => format!("inputs.{name}"),
            Kind::App => name.to_owned(),
        }
    }
}

/// VS Code's and Cursor's predefined variables, which name the app's own
/// state rather than a variable of its environment.
const PREDEFINED: &[&str] = &[
    "workspaceFolder",
    "workspaceFolderBasename",
    "userHome",
    "pathSeparator",
    "/",
    "cwd",
    "file",
    "fileBasename",
    "fileDirname",
    "relativeFile",
    "lineNumber",
    "selectedText",
    "execPath",
];

/// The name a person gives a value for `token` under, and its kind.
pub(super) fn name(token: &str) -> (String, Kind) {
    if let Some(inner) = token.strip_prefix("${{").and_then(|t| t.strip_suffix("}}")) {
        let inner = inner.trim();
        if let Some(name) = inner.strip_prefix("secrets.") {
            return (name.trim().to_owned(), Kind::Secret);
        }
        if let Some(name) = inner.strip_prefix("inputs.") {
            return (name.trim().to_owned(), Kind::ContinueInput);
        }
        return (inner.to_owned(), Kind::App);
    }
    if let Some(name) = token
        .strip_prefix("{env:")
        .and_then(|t| t.strip_suffix('}'))
    {
        return (name.to_owned(), Kind::Env);
    }
    if let Some(path) = token
        .strip_prefix("{file:")
        .and_then(|t| t.strip_suffix('}'))
    {
        return (format!("file:{path}"), Kind::App);
    }
    if let Some(inner) = token.strip_prefix("${").and_then(|t| t.strip_suffix('}')) {
        if let Some(name) = inner.strip_prefix("env:") {
            return (name.to_owned(), Kind::Env);
        }
        if let Some(id) = inner.strip_prefix("input:") {
            return (id.to_owned(), Kind::Input);
        }
        if PREDEFINED.contains(&inner) || (inner.contains(':') && !inner.contains(":-")) {
            // `${workspaceFolder}`, `${config:…}`, `${command:…}`.
            return (inner.to_owned(), Kind::App);
        }
        // Claude Code's `${VAR:-default}`, and `${VAR}` everywhere.
        let name = inner.split(":-").next().unwrap_or(inner);
        return (name.to_owned(), Kind::Env);
    }
    match token.strip_prefix('$') {
        Some(name) => (name.to_owned(), Kind::Env),
        None => (token.to_owned(), Kind::App),
    }
}

/// What a placeholder of one app's own form is, and whether it is secret;
/// `None` for the `${…}` forms `import` describes.
pub(super) fn describe(token: &str) -> Option<(String, bool)> {
    if let Some(inner) = token.strip_prefix("${{").and_then(|t| t.strip_suffix("}}")) {
        let inner = inner.trim();
        if let Some(name) = inner.strip_prefix("secrets.") {
            return Some((format!("the Continue secret {name}"), true));
        }
        if let Some(name) = inner.strip_prefix("inputs.") {
            return Some((
                format!("the value Continue fills for input {name}"),
                rootgate_model::servers::looks_secret(name),
            ));
        }
        return Some((format!("a value Continue fills ({inner})"), false));
    }
    if let Some(name) = token
        .strip_prefix("{env:")
        .and_then(|t| t.strip_suffix('}'))
    {
        return Some((format!("the app's environment variable {name}"), true));
    }
    if let Some(path) = token
        .strip_prefix("${file:")
        .and_then(|t| t.strip_suffix('}'))
    {
        // Windsurf's form of the same: the file's contents, read by the app.
        return Some((format!("the contents of {path}, which the app reads"), true));
    }
    if let Some(path) = token
        .strip_prefix("{file:")
        .and_then(|t| t.strip_suffix('}'))
    {
        // A file opencode reads into the value usually holds a key.
        return Some((
            format!("the contents of {path}, which opencode reads"),
            true,
        ));
    }
    if let Some(name) = token.strip_prefix('$').filter(|t| !t.starts_with('{')) {
        return Some((format!("the app's environment variable {name}"), true));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_app_finds_its_own_forms() {
        let continue_tokens = variables(Some(AppKind::Continue), "${{ secrets.TOKEN }}");
        assert_eq!(continue_tokens, ["${{ secrets.TOKEN }}"]);
        let gemini = variables(Some(AppKind::GeminiCli), "$DB_URL and ${API_KEY} cost $5");
        assert_eq!(gemini, ["${API_KEY}", "$DB_URL"]);
        let opencode = variables(
            Some(AppKind::Opencode),
            "{env:TOKEN}/{file:~/.key} ${env:X}",
        );
        assert_eq!(opencode, ["${env:X}", "{env:TOKEN}", "{file:~/.key}"]);
        // Another app's form is an ordinary value elsewhere.
        assert!(variables(Some(AppKind::Cursor), "$HOME {env:X}").is_empty());
    }

    #[test]
    fn secrets_are_described_as_secret() {
        assert_eq!(describe("${{ secrets.GH }}").map(|d| d.1), Some(true));
        assert_eq!(describe("{file:key.txt}").map(|d| d.1), Some(true));
        assert_eq!(describe("${file:/run/key}").map(|d| d.1), Some(true));
        assert_eq!(name("${file:/run/key}").0, "file:/run/key");
        assert_eq!(
            name("${workspaceFolder}"),
            ("workspaceFolder".into(), Kind::App)
        );
        assert_eq!(name("${VAR:-x}"), ("VAR".into(), Kind::Env));
        assert_eq!(name("${{ secrets.GH }}"), ("GH".into(), Kind::Secret));
        assert_eq!(describe("${input:x}"), None);
    }
}
