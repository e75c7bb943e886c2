//! The JSON-family apps' files: Claude Desktop, Claude Code, Cursor and VS
//! Code (JSON; VS Code's allows comments) and Zed (JSON with comments and
//! trailing commas). STUB: to be written.

use super::{AppKind, ConfigError, ParsedConfig, RouteTo, Scope};

pub fn parse(_app: AppKind, _file: &str, _text: &str) -> Result<ParsedConfig, ConfigError> {
    Ok(ParsedConfig::default())
}

pub fn rewrite(
    _app: AppKind,
    _file: &str,
    text: &str,
    _routes: &[RouteTo],
) -> Result<String, ConfigError> {
    Ok(text.to_owned())
}

pub fn restore(
    _app: AppKind,
    _file: &str,
    current: &str,
    _original: &str,
    _entries: &[(Scope, String)],
) -> Result<String, ConfigError> {
    Ok(current.to_owned())
}
