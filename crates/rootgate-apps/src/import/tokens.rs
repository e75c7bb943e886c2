//! The placeholders each app fills itself, found in an entry's values so
//! that import can ask the person for them: `${NAME}` and its forms for
//! every app (VS Code's `${input:…}`, Windsurf's `${env:NAME}`), and the
//! forms only some apps define: Continue's `${{ secrets.NAME }}` and
//! `${{ inputs.NAME }}`, Gemini CLI's bare `$NAME` (its docs take both
//! `$VAR_NAME` and `${VAR_NAME}`), and opencode's `{env:NAME}` and
//! `{file:PATH}`.
//!
//! It only finds and describes them; `import` decides what to ask, and
//! never expands one itself.

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
        return Some((
            format!("the app's environment variable {name}"),
            rootgate_model::servers::looks_secret(name),
        ));
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
        return Some((
            format!("the app's environment variable {name}"),
            rootgate_model::servers::looks_secret(name),
        ));
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
        assert_eq!(describe("${input:x}"), None);
    }
}
