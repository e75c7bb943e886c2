//! Goose's `config.yaml`: its `extensions`. STUB: to be written.

use super::{ConfigError, ParsedConfig, RouteTo, Scope};

pub fn parse(_file: &str, _text: &str) -> Result<ParsedConfig, ConfigError> {
    Ok(ParsedConfig::default())
}

pub fn rewrite(_file: &str, text: &str, _routes: &[RouteTo]) -> Result<String, ConfigError> {
    Ok(text.to_owned())
}

pub fn restore(
    _file: &str,
    current: &str,
    _original: &str,
    _entries: &[(Scope, String)],
) -> Result<String, ConfigError> {
    Ok(current.to_owned())
}
