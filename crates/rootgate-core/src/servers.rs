//! What a server is: a typed, validated specification of the command that
//! starts it and how it takes roots.
//!
//! [`ServerDraft`] is what a person typed; [`ServerSpec`] is a draft that
//! passed validation and got an identifier. This module does not start
//! processes (that is `session`) and does not persist anything (that is
//! `settings` and `store`).

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ids::ServerId;
use crate::names::{self, NameError};

/// How a server learns that a folder was withdrawn.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Withdrawal {
    /// Send `list_changed`; restart only when the server's last folder goes,
    /// because real servers keep their previous folders on an empty answer.
    #[default]
    Notify,
    /// Restart the server whenever a folder is withdrawn: for servers that
    /// are known not to drop folders on `list_changed`.
    Restart,
}

/// The protocol era a server is spoken to in (see `session::era`).
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: an `initialize` handshake; the server asks
    /// `roots/list` when it likes and is told of changes with `list_changed`.
    Legacy,
    /// 2026-07-28: stateless; the server asks for roots only inside an
    /// `InputRequiredResult` while it handles a request, and each request is
    /// answered from the folders shared at that moment.
    Modern,
}

/// Which era a person wants a server spoken to in.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EraChoice {
    /// Probe with `server/discover` and fall back to `initialize`, as the
    /// spec's stdio backward-compatibility rules say; remember what was found.
    #[default]
    Auto,
    /// Always `initialize`, without a probe: for a server that mishandles it.
    Legacy,
    /// Always the modern era, without a probe.
    Modern,
}

impl EraChoice {
    /// The era this choice forces, if it forces one.
    pub fn forced(self) -> Option<Era> {
        match self {
            EraChoice::Auto => None,
            EraChoice::Legacy => Some(Era::Legacy),
            EraChoice::Modern => Some(Era::Modern),
        }
    }
}

/// A server as a person describes it, before validation.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ServerDraft {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    pub enabled: bool,
    pub withdrawal: Withdrawal,
    /// Run the server under a Landlock ruleset that holds it to its roots
    /// (Linux only; see `enforcement`).
    pub enforce_roots: bool,
    /// The protocol era to speak, or `Auto` to probe.
    pub era: EraChoice,
}

/// A validated server specification.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSpec {
    pub id: ServerId,
    pub name: String,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub withdrawal: Withdrawal,
    /// Run the server under a Landlock ruleset that holds it to its roots.
    #[serde(default)]
    pub enforce_roots: bool,
    /// The exact command line the person approved to run, if any. A server
    /// whose command line differs from it (new, or edited) does not start
    /// until the person approves the new one.
    #[serde(default)]
    pub approved_command: Option<String>,
    /// Seen by Rootgate, not set by the person: the server did not ask for
    /// its folders after being told they changed, so withdrawals reach it by
    /// restart. Forgotten when its command changes.
    #[serde(default)]
    pub ignores_list_changed: bool,
    /// The protocol era to speak, or `Auto` to probe.
    #[serde(default)]
    pub era: EraChoice,
    /// Seen by Rootgate, not set by the person: the era the server's probe
    /// found, so that later starts skip the probe. Forgotten when its command
    /// changes, or when a start in that era fails (it is probed again).
    #[serde(default)]
    pub seen_era: Option<Era>,
    /// Seen by Rootgate: it kept failing and Rootgate gave up restarting it
    /// (or the person said to stop retrying). It waits for the person, also
    /// across launches of the app, until they start or edit it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gave_up: bool,
}

/// Why a server draft was refused.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum SpecError {
    #[error("the server needs a name")]
    EmptyName,
    #[error("the server's name cannot be used: {0}")]
    BadName(NameError),
    #[error("a server named \"{0}\" already exists; choose another name")]
    DuplicateName(String),
    #[error("the server needs a command to run")]
    EmptyCommand,
    #[error("the command contains a NUL byte")]
    NulInCommand,
    #[error("argument {0} contains a NUL byte")]
    NulInArgument(usize),
    #[error("environment variable name \"{key}\" is not valid: {reason}")]
    BadEnvKey { key: String, reason: &'static str },
    #[error("the value of environment variable \"{0}\" contains a NUL byte")]
    BadEnvValue(String),
    #[error("the working directory \"{0}\" must be an absolute path")]
    RelativeCwd(PathBuf),
    #[error("the working directory contains a NUL byte")]
    NulInCwd,
}

impl ServerDraft {
    /// Validates the draft against the names already taken (excluding the
    /// server being edited, if any) and returns a spec with the given id.
    pub fn validate<'a>(
        self,
        id: ServerId,
        taken_names: impl IntoIterator<Item = &'a str>,
    ) -> Result<ServerSpec, SpecError> {
        let name = match names::check(&self.name) {
            Ok(name) => name.to_owned(),
            Err(NameError::Empty) => return Err(SpecError::EmptyName),
            Err(e) => return Err(SpecError::BadName(e)),
        };
        if taken_names
            .into_iter()
            .any(|taken| taken.trim().eq_ignore_ascii_case(&name))
        {
            return Err(SpecError::DuplicateName(name));
        }
        let command = self.command.trim().to_owned();
        if command.is_empty() {
            return Err(SpecError::EmptyCommand);
        }
        if command.contains('\0') {
            return Err(SpecError::NulInCommand);
        }
        if let Some(i) = self.args.iter().position(|a| a.contains('\0')) {
            return Err(SpecError::NulInArgument(i + 1));
        }
        for (key, value) in &self.env {
            check_env_key(key)?;
            if value.contains('\0') {
                return Err(SpecError::BadEnvValue(key.clone()));
            }
        }
        if let Some(cwd) = &self.cwd {
            if cwd.as_os_str().as_bytes().contains(&0) {
                return Err(SpecError::NulInCwd);
            }
            if !cwd.is_absolute() {
                return Err(SpecError::RelativeCwd(cwd.clone()));
            }
        }
        Ok(ServerSpec {
            id,
            name,
            command,
            args: self.args,
            env: self.env,
            cwd: self.cwd,
            enabled: self.enabled,
            withdrawal: self.withdrawal,
            enforce_roots: self.enforce_roots,
            approved_command: None,
            ignores_list_changed: false,
            era: self.era,
            seen_era: None,
            gave_up: false,
        })
    }
}

fn check_env_key(key: &str) -> Result<(), SpecError> {
    let bad = |reason| SpecError::BadEnvKey {
        key: key.to_owned(),
        reason,
    };
    if key.is_empty() {
        return Err(bad("it is empty"));
    }
    if key.contains('=') {
        return Err(bad("it contains '='"));
    }
    if key.contains('\0') {
        return Err(bad("it contains a NUL byte"));
    }
    if key.chars().any(char::is_whitespace) {
        return Err(bad("it contains white space"));
    }
    if key.as_bytes()[0].is_ascii_digit() {
        return Err(bad("it starts with a digit"));
    }
    Ok(())
}

impl ServerSpec {
    /// The draft this spec came from, for editing.
    pub fn to_draft(&self) -> ServerDraft {
        ServerDraft {
            name: self.name.clone(),
            command: self.command.clone(),
            args: self.args.clone(),
            env: self.env.clone(),
            cwd: self.cwd.clone(),
            enabled: self.enabled,
            withdrawal: self.withdrawal,
            enforce_roots: self.enforce_roots,
            era: self.era,
        }
    }

    /// The era to start in without probing: the person's choice if they made
    /// one, else what an earlier probe found; `None` means probe.
    pub fn known_era(&self) -> Option<Era> {
        self.era.forced().or(self.seen_era)
    }

    /// True when the person approved exactly the command line that would run.
    pub fn is_approved(&self) -> bool {
        self.approved_command.as_deref() == Some(self.command_line().as_str())
    }

    /// The command line as a person would type it in a POSIX shell, with
    /// environment assignments first: what an approval prompt shows and what
    /// an error names.
    pub fn command_line(&self) -> String {
        let mut parts: Vec<String> = self
            .env
            .iter()
            .map(|(k, v)| format!("{k}={}", shell_quote(v)))
            .collect();
        parts.push(shell_quote(&self.command));
        parts.extend(self.args.iter().map(|a| shell_quote(a)));
        parts.join(" ")
    }

    /// The command line with environment values hidden, for places that
    /// keep or show it beyond the approval prompt (the timeline, the
    /// activity view): environment variables are where API keys live.
    pub fn masked_command_line(&self) -> String {
        let mut parts: Vec<String> = self.env.keys().map(|k| format!("{k}=…")).collect();
        parts.push(shell_quote(&self.command));
        parts.extend(self.args.iter().map(|a| shell_quote(a)));
        parts.join(" ")
    }
}

/// Quotes a word for a POSIX shell only when it needs it.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draft() -> ServerDraft {
        ServerDraft {
            name: "files".into(),
            command: "node".into(),
            args: vec!["server.js".into(), "/my dir".into()],
            ..Default::default()
        }
    }

    #[test]
    fn a_good_draft_validates() {
        let spec = draft().validate(ServerId::generate(), []).unwrap();
        assert_eq!(spec.name, "files");
        assert_eq!(spec.command_line(), "node server.js '/my dir'");
        assert_eq!(spec.to_draft(), draft());
        assert!(!spec.is_approved(), "a new server is not approved");
    }

    #[test]
    fn each_mistake_has_its_own_error() {
        let id = ServerId::generate;
        let mut d = draft();
        d.name = "  ".into();
        assert_eq!(d.validate(id(), []), Err(SpecError::EmptyName));
        assert_eq!(
            draft().validate(id(), ["Files"]),
            Err(SpecError::DuplicateName("files".into()))
        );
        let mut d = draft();
        d.command = "".into();
        assert_eq!(d.validate(id(), []), Err(SpecError::EmptyCommand));
        let mut d = draft();
        d.args.push("a\0b".into());
        assert_eq!(d.validate(id(), []), Err(SpecError::NulInArgument(3)));
        for key in ["", "A=B", "1ABC", "A B"] {
            let mut d = draft();
            d.env.insert(key.into(), "v".into());
            assert!(
                matches!(d.validate(id(), []), Err(SpecError::BadEnvKey { .. })),
                "{key:?} was accepted"
            );
        }
        let mut d = draft();
        d.cwd = Some("relative".into());
        assert_eq!(
            d.validate(id(), []),
            Err(SpecError::RelativeCwd("relative".into()))
        );
        let mut d = draft();
        d.cwd = Some("/tmp/a\0b".into());
        assert_eq!(d.validate(id(), []), Err(SpecError::NulInCwd));
        let mut d = draft();
        d.name = "files\0".into();
        assert_eq!(
            d.validate(id(), []),
            Err(SpecError::BadName(NameError::Control))
        );
        let mut d = draft();
        d.name = "x".repeat(256);
        assert_eq!(
            d.validate(id(), []).map_err(|e| e.to_string()),
            Err("the server's name cannot be used: it is 256 characters long, and at most 255 are allowed".into())
        );
    }

    #[test]
    fn shell_quoting_shows_what_runs() {
        assert_eq!(shell_quote("plain-word_1.2"), "plain-word_1.2");
        assert_eq!(shell_quote(""), "''");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        let mut spec = draft().validate(ServerId::generate(), []).unwrap();
        spec.env.insert("TOKEN".into(), "a b".into());
        assert_eq!(spec.command_line(), "TOKEN='a b' node server.js '/my dir'");
        assert_eq!(
            spec.masked_command_line(),
            "TOKEN=… node server.js '/my dir'"
        );
    }
}
