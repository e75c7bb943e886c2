//! Codex CLI's `config.toml` (`$CODEX_HOME/config.toml`, `~/.codex` by
//! default): reading its `[mcp_servers.NAME]` tables into [`RawEntry`]s,
//! pointing local ones at `rootgate connect`, and putting them back.
//!
//! Codex documents, per server: `command`, `args`, `env` (a table of
//! values), `env_vars` (names of variables Codex passes on from its own
//! environment), `cwd`, `enabled`, and for a streamable HTTP server `url`
//! (with `bearer_token_env_var`, headers and timeouts, which are Codex's
//! own and left alone). The file is read and edited with `toml_edit`,
//! which keeps comments, blank lines, key order and the rest of the file
//! byte for byte; a rewrite sets only the values that differ and reads its
//! result back before handing it over. `read` turns one table into an
//! entry; `edit` rewrites and restores.
//!
//! This module deliberately does not read or write files, expand anything
//! (Codex does not expand `${VAR}` in `env`; `env_vars` become values the
//! person gives, see `import`), or put a value it read in an error:
//! `toml_edit`'s own error text quotes the file's line, so only its
//! position and a wording that holds no file text are kept.

mod edit;
mod read;

pub(crate) use edit::{restore, rewrite};

use toml_edit::DocumentMut;

use super::{ConfigError, ParsedConfig};

/// The name errors give the syntax and the app.
const FORMAT: &str = "TOML";
const APP: &str = "Codex CLI";
/// The top-level table that holds the servers.
const SERVERS: &str = "mcp_servers";

/// Reads the servers of `text`, a Codex `config.toml`.
pub fn parse(file: &str, text: &str) -> Result<ParsedConfig, ConfigError> {
    let doc = load(file, text)?;
    Ok(ParsedConfig {
        entries: read::entries(file, &doc)?,
        ..ParsedConfig::default()
    })
}

/// Parses `text`, refusing what is not TOML.
fn load(file: &str, text: &str) -> Result<DocumentMut, ConfigError> {
    text.parse::<DocumentMut>().map_err(|err| {
        let at = err.span().map_or(0, |span| span.start);
        let before = text.get(..at).unwrap_or_default();
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        ConfigError::Syntax {
            file: file.to_owned(),
            format: FORMAT,
            line,
            column,
            reason: reason(err.message()),
        }
    })
}

/// The parser's reason when it quotes nothing from the file; a fixed
/// wording otherwise. A duplicate key's message names the key, which is
/// not a secret but is not needed either.
fn reason(message: &str) -> String {
    let first = message.lines().next().unwrap_or_default().trim();
    if first.contains("duplicate key") {
        return "a key is written twice in one table".to_owned();
    }
    if first.is_empty() || first.contains(['`', '"', '\'']) {
        return "the text here is not valid TOML".to_owned();
    }
    first.to_owned()
}

/// `key` (a dotted path such as `mcp_servers.github.args`) does not hold
/// what Codex writes there. `reason` never quotes a value.
fn shape(file: &str, key: &str, reason: &str) -> ConfigError {
    ConfigError::shape(file, APP, key, reason)
}

/// Where server `key`'s `field` is, as errors name it.
fn field_path(key: &str, field: &str) -> String {
    if field.is_empty() {
        format!("{SERVERS}.{key}")
    } else {
        format!("{SERVERS}.{key}.{field}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_never_quote_the_file() {
        let text = "[mcp_servers.x]\ncommand = \"npx\"\nenv = { TOKEN = \"sk-secret-value }\n";
        let err = parse("config.toml", text)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("line 3"), "{err}");
        assert!(!err.contains("sk-secret"), "{err}");
    }
}
