//! One reading of a server entry's settings for the apps whose files are
//! not JSON (Goose's and Continue's YAML, Codex's TOML): the checks that
//! each setting has the type the app gives it, with the same words in
//! every error, and the local server's transport made from them.
//!
//! A format says what it holds under a name ([`Fields`]: a text, a list,
//! a mapping, a flag, or something else); this module turns that into a
//! value or an error naming the setting and never its value. Which keys an
//! app uses for what (`cmd` or `command`, `envs`, `env_keys` or
//! `env_vars`), what kind of server an entry is, and where the entries
//! sit in the file stay with each app's module. The JSON apps read their
//! entries with `json::read`, which has its own paths and formats.

use std::collections::BTreeMap;

use crate::{ConfigError, Transport};

/// What a format holds under a name.
pub(crate) enum Found<T> {
    /// Nothing, or a null the app takes for nothing.
    Missing,
    /// A value of the kind asked for.
    Is(T),
    /// A value of another kind.
    Not,
}

/// One entry's settings in a format, with what its errors need to name a
/// setting. Lists and mappings say which items are not text (`None`), so
/// the error is made here.
pub(crate) trait Fields {
    /// The format's word for a mapping ("mapping" in YAML, "table" in
    /// TOML), as errors say it.
    const MAPPING: &'static str;

    fn text(&self, name: &str) -> Found<String>;
    fn texts(&self, name: &str) -> Found<Vec<Option<String>>>;
    fn pairs(&self, name: &str) -> Found<Vec<(Option<String>, Option<String>)>>;
    fn boolean(&self, name: &str) -> Found<bool>;
    /// Setting `name` does not hold what the app writes there; `reason`
    /// never quotes a value.
    fn error(&self, name: &str, reason: &str) -> ConfigError;

    /// `name` as a string; `None` when it is missing.
    fn string(&self, name: &str) -> Result<Option<String>, ConfigError> {
        match self.text(name) {
            Found::Missing => Ok(None),
            Found::Is(text) => Ok(Some(text)),
            Found::Not => Err(self.error(name, "is not a string")),
        }
    }

    /// `name` as a list of strings; an empty list when it is missing.
    fn strings(&self, name: &str) -> Result<Vec<String>, ConfigError> {
        let wrong = || self.error(name, "is not a list of strings");
        match self.texts(name) {
            Found::Missing => Ok(Vec::new()),
            Found::Is(items) => items.into_iter().map(|i| i.ok_or_else(wrong)).collect(),
            Found::Not => Err(wrong()),
        }
    }

    /// `name` as a mapping of environment variables to their values; empty
    /// when it is missing. An error names the variable, never its value.
    fn env(&self, name: &str) -> Result<BTreeMap<String, String>, ConfigError> {
        let pairs = match self.pairs(name) {
            Found::Missing => return Ok(BTreeMap::new()),
            Found::Is(pairs) => pairs,
            Found::Not => {
                let reason = format!("is not a {} of environment variables", Self::MAPPING);
                return Err(self.error(name, &reason));
            }
        };
        let mut env = BTreeMap::new();
        for (var, value) in pairs {
            let Some(var) = var else {
                return Err(self.error(name, "has a variable name that is not a string"));
            };
            let Some(value) = value else {
                return Err(self.error(&format!("{name}.{var}"), "is not a string"));
            };
            env.insert(var, value);
        }
        Ok(env)
    }

    /// `name` as a boolean (`enabled`); `None` when it is missing.
    fn flag(&self, name: &str) -> Result<Option<bool>, ConfigError> {
        match self.boolean(name) {
            Found::Missing => Ok(None),
            Found::Is(flag) => Ok(Some(flag)),
            Found::Not => Err(self.error(name, "is not true or false")),
        }
    }
}

/// The keys an app gives a local server's settings besides `args`.
pub(crate) struct StdioKeys {
    /// The mapping of environment variables (`env`, Goose's `envs`).
    pub env: &'static str,
    /// The names of variables the app passes on from its own environment
    /// (Goose's `env_keys`, Codex's `env_vars`), where it has them.
    pub env_keys: Option<&'static str>,
    /// Whether the app takes a working folder (`cwd`).
    pub cwd: bool,
}

/// A local server running `command`, its other settings read in the order
/// the apps document them (`args`, the environment, `cwd`, the passed-on
/// names), so the first wrong one is the one an error names.
pub(crate) fn stdio(
    fields: &impl Fields,
    command: String,
    keys: &StdioKeys,
) -> Result<Transport, ConfigError> {
    let args = fields.strings("args")?;
    let env = fields.env(keys.env)?;
    let cwd = if keys.cwd {
        fields.string("cwd")?
    } else {
        None
    };
    let env_keys = match keys.env_keys {
        Some(name) => fields.strings(name)?,
        None => Vec::new(),
    };
    Ok(Transport::Stdio {
        command,
        args,
        env,
        cwd,
        env_file: None,
        env_keys,
    })
}

/// `command`, refused when blank: a local server must name its program.
pub(crate) fn program(fields: &impl Fields, command: String) -> Result<String, ConfigError> {
    if command.trim().is_empty() {
        return Err(fields.error("command", "must name the program to run"));
    }
    Ok(command)
}
