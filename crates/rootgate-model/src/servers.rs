//! What a server is: a typed, validated specification of the command that
//! starts it and how it takes roots.
//!
//! [`ServerDraft`] is what a person typed; [`ServerSpec`] is a draft that
//! passed validation and got an identifier. This module does not start
//! processes (that is `session`) and does not persist anything (that is
//! `settings` and `store`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::ids::ServerId;
use crate::names::{self, NameError};
use crate::tools::ToolRules;

mod secret_words;
pub use secret_words::{
    ArgSecret, SecretPlace, arg_secret_values, arg_secrets, fill_arg_secrets, looks_secret,
    mask_args,
};
pub(crate) use secret_words::{MASKED, lift_arg_secrets, name_secrets_in};

/// How a server learns that a folder was withdrawn.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
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
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EraChoice {
    /// Open with `initialize`, which legacy and dual-era servers accept,
    /// and speak the modern era to a server that refuses it; remember which.
    #[default]
    Auto,
    /// Always `initialize`: a server that refuses it does not start.
    Legacy,
    /// Always the modern era (`server/discover`, then stateless requests).
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

/// A server as a person describes it, before validation. Its `Debug`
/// hides the values of its secret variables.
#[derive(ts_rs::TS, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
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
    /// Held (enforced) servers reach the network only when this is on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_network: bool,
    /// Workspace: each connection through `rootgate connect` is given only
    /// the shared folders its AI app works in (see `workspace_only` on
    /// [`ServerSpec`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub workspace_only: bool,
    /// One process per app session (see `own_process` on [`ServerSpec`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own_process: bool,
    /// The protocol era to speak, or `Auto` to find out.
    pub era: EraChoice,
    /// The variables of `env` whose values are secrets: shown masked, kept
    /// out of the settings file (in the keyring), and approved by name, not
    /// value. Not given, it is every variable whose name looks secret (see
    /// [`looks_secret`]) or, for an edit, that was secret. A secret given an
    /// empty value keeps the value it has (the window never sees it).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub secret_env: Option<BTreeSet<String>>,
}

/// A validated server specification. Its `Debug` hides the values of its
/// secret variables.
#[derive(ts_rs::TS, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSpec {
    pub id: ServerId,
    pub name: String,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// The environment; a secret variable's value is here only when it is
    /// kept in the settings file, and is empty otherwise.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The secret variables of `env`, and where each value is kept.
    #[serde(default)]
    pub secrets: BTreeMap<String, SecretPlace>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub withdrawal: Withdrawal,
    /// Run the server under a Landlock ruleset that holds it to its roots.
    #[serde(default)]
    pub enforce_roots: bool,
    /// A held server (with `enforce_roots`) reaches the network only when
    /// the person allowed it; off unless said, also for settings files
    /// written before it existed. Servers that are not held always reach
    /// it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_network: bool,
    /// Workspace: "only the project the app is working in". Each AI app's
    /// connection through `rootgate connect` is given only the folders
    /// shared with this server that its app works in (its roots, or the
    /// folder it started the bridge in); an app that says nothing of its
    /// folders is given all of them. The window's own session, which has
    /// no app, is given all of them too.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub workspace_only: bool,
    /// One process per app session: each AI app session connected through
    /// the resident gate gets a process of this server of its own, for a
    /// server that keeps state per client (a browser, a REPL). Off, the
    /// sessions that see the same folders share one process.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own_process: bool,
    /// The exact command line the person approved to run, if any. A server
    /// whose command line differs from it (new, or edited) does not start
    /// until the person approves the new one. Secret variables are in it by
    /// name (`API_TOKEN=…`), so a new value needs no new approval.
    #[serde(default)]
    pub approved_command: Option<String>,
    /// Seen by Rootgate, not set by the person: the server did not ask for
    /// its folders after being told they changed, so withdrawals reach it by
    /// restart. Forgotten when its command changes.
    #[serde(default)]
    pub ignores_list_changed: bool,
    /// The protocol era to speak, or `Auto` to find out.
    #[serde(default)]
    pub era: EraChoice,
    /// Seen by Rootgate, not set by the person: the era a start found (a
    /// server that refused `initialize` is modern), so that later starts
    /// need not find out. Forgotten when its command changes, or when a
    /// start in that era fails (it is found out again).
    #[serde(default)]
    pub seen_era: Option<Era>,
    /// Seen by Rootgate: it kept failing and Rootgate gave up restarting it
    /// (or the person said to stop retrying). It waits for the person, also
    /// across launches of the app, until they start or edit it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gave_up: bool,
    /// What AI apps may do with each of the server's tools (allowed, asked
    /// or hidden), and what Rootgate last saw of them: see `tools`. The
    /// window's own tries see and run every tool (the person chose the
    /// rules, and may try a tool before deciding). Kept across edits of
    /// the command.
    #[serde(default, skip_serializing_if = "ToolRules::is_default")]
    #[ts(as = "Option<ToolRules>", optional)]
    pub tool_rules: ToolRules,
    /// The tools hidden from apps as the first version of tool rules wrote
    /// them (`hiddenTools`); read, moved into `tool_rules` on load (see
    /// `settings::upgrade`), never written.
    #[serde(default, rename = "hiddenTools", skip_serializing)]
    #[ts(skip)]
    pub hidden_tools_before_rules: BTreeSet<String>,
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
        mut self,
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
        // A secret written in an argument becomes a secret variable of its
        // own, kept where every secret is (see `secret_words`).
        let lifted = lift_arg_secrets(&mut self.args, &mut self.env);
        if let Some(names) = &mut self.secret_env {
            names.extend(lifted);
        }
        let secrets = self
            .secret_names(None)
            .into_iter()
            .filter(|name| self.env.contains_key(name))
            // Until the store keeps a value elsewhere, it is in the spec.
            .map(|name| (name, SecretPlace::File))
            .collect();
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
            secrets,
            cwd: self.cwd,
            enabled: self.enabled,
            withdrawal: self.withdrawal,
            enforce_roots: self.enforce_roots,
            allow_network: self.allow_network,
            workspace_only: self.workspace_only,
            own_process: self.own_process,
            approved_command: None,
            ignores_list_changed: false,
            era: self.era,
            seen_era: None,
            gave_up: false,
            tool_rules: ToolRules::default(),
            hidden_tools_before_rules: BTreeSet::new(),
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

impl ServerDraft {
    /// The variables of this draft that are secret: those it names, or by
    /// default those that were secret in `previous` (the server being
    /// edited) and, among the others, those whose names look secret.
    pub(crate) fn secret_names(&self, previous: Option<&ServerSpec>) -> BTreeSet<String> {
        if let Some(names) = &self.secret_env {
            return names.clone();
        }
        self.env
            .keys()
            .filter(|name| match previous {
                Some(p) if p.env.contains_key(*name) => p.secrets.contains_key(*name),
                _ => looks_secret(name),
            })
            .cloned()
            .collect()
    }
}

impl ServerSpec {
    /// The draft this spec came from, for editing. A secret kept outside
    /// the settings file has an empty value in it, which keeps its value.
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
            allow_network: self.allow_network,
            workspace_only: self.workspace_only,
            own_process: self.own_process,
            era: self.era,
            secret_env: Some(self.secrets.keys().cloned().collect()),
        }
    }

    /// This spec with no secret's value in it: what the window is shown.
    /// A value is revealed only when the person asks for it.
    pub fn without_secret_values(mut self) -> ServerSpec {
        for name in self.secrets.keys() {
            if let Some(value) = self.env.get_mut(name) {
                value.clear();
            }
        }
        self
    }

    /// The approval this spec keeps from `previous`, the same server before
    /// an edit: a command that stays the same once the variables secret now
    /// are named stays approved (marking a variable secret, or giving a
    /// secret a new value, needs no new approval); any other keeps the line
    /// last approved, to show what changed, with the values of what is
    /// secret now written out (or none, if it cannot be read).
    pub(crate) fn approval_from(&self, previous: &ServerSpec) -> Option<String> {
        let secret = |name: &str| self.secrets.contains_key(name);
        if previous.is_approved()
            && previous.command_line_with_secrets(secret) == self.command_line()
        {
            return Some(self.command_line());
        }
        let approved = previous.approved_command.clone()?;
        if self.secrets.is_empty() {
            Some(approved)
        } else {
            name_secrets_in(&approved, secret)
        }
    }

    /// Marks the variables whose names look secret as secrets whose values
    /// are still in the settings file, where a Rootgate from before secrets
    /// kept them: they move to the keyring at the first chance. An approval
    /// of the line with their values is one of the same command, so it
    /// covers the line with them named.
    pub(crate) fn mark_secrets_from_before(&mut self) {
        let previous = self.clone();
        let names: Vec<String> = self
            .env
            .keys()
            .filter(|k| looks_secret(k) && !self.secrets.contains_key(*k))
            .cloned()
            .collect();
        if names.is_empty() {
            return;
        }
        for name in names {
            self.secrets.insert(name, SecretPlace::FileUntilKeyring);
        }
        self.approved_command = self.approval_from(&previous);
    }

    /// The era to start in without finding out: the person's choice if they
    /// made one, else what an earlier start found; `None` means find out.
    pub fn known_era(&self) -> Option<Era> {
        self.era.forced().or(self.seen_era)
    }

    /// True when the person approved exactly the command line that would run.
    pub fn is_approved(&self) -> bool {
        self.approved_command.as_deref() == Some(self.command_line().as_str())
    }

    /// The command line as a person would type it in a POSIX shell, with
    /// environment assignments first: what an approval prompt shows and what
    /// an error names. A secret variable is there by name (`API_TOKEN=…`):
    /// the approval covers the variable, not its value, so a rotated key
    /// needs no new approval.
    pub fn command_line(&self) -> String {
        self.command_line_with_secrets(|name| self.secrets.contains_key(name))
    }

    /// [`ServerSpec::command_line`] as it would read if the variables for
    /// which `secret` is true were its secrets.
    pub(crate) fn command_line_with_secrets(&self, secret: impl Fn(&str) -> bool) -> String {
        // A secret still written in an argument (a file from before they
        // were lifted) is never shown.
        self.line_with(secret, &mask_args(&self.args))
    }

    /// The command line with `args` in place of the spec's own.
    fn line_with(&self, secret: impl Fn(&str) -> bool, args: &[String]) -> String {
        let mut parts: Vec<String> = self
            .env
            .iter()
            .map(|(k, v)| {
                if secret(k) {
                    format!("{k}=…")
                } else {
                    format!("{k}={}", shell_quote(v))
                }
            })
            .collect();
        parts.push(shell_quote(&self.command));
        parts.extend(args.iter().map(|a| shell_quote(a)));
        parts.join(" ")
    }

    /// Lifts the secrets still written in its arguments (a settings file
    /// from before they were lifted at validation: see `secret_words`) into
    /// secret variables whose values stay in the file until the keyring
    /// takes them, as [`ServerSpec::mark_secrets_from_before`] does for
    /// variables. An approval of the line as it was covers the line with
    /// the names; any other approval kept (to show what changed) has the
    /// values written out, so that none stays in the file.
    pub(crate) fn lift_arg_secrets_from_before(&mut self) {
        if arg_secrets(&self.args).is_empty() {
            return;
        }
        let values = arg_secret_values(&self.args);
        let as_it_was = self.line_with(|name| self.secrets.contains_key(name), &self.args);
        let approved = self.approved_command.as_deref() == Some(as_it_was.as_str());
        for name in lift_arg_secrets(&mut self.args, &mut self.env) {
            self.secrets.insert(name, SecretPlace::FileUntilKeyring);
        }
        self.approved_command = if approved {
            Some(self.command_line())
        } else {
            self.approved_command.take().map(|line| {
                values
                    .iter()
                    .fold(line, |line, value| line.replace(value.as_str(), MASKED))
            })
        };
    }

    /// The command line with environment values hidden, for places that
    /// keep or show it beyond the approval prompt (the timeline, the
    /// activity view): environment variables are where API keys live.
    pub fn masked_command_line(&self) -> String {
        let mut parts: Vec<String> = self.env.keys().map(|k| format!("{k}=…")).collect();
        parts.push(shell_quote(&self.command));
        // A secret still written in an argument (a file from before they
        // were lifted) is never shown.
        parts.extend(mask_args(&self.args).iter().map(|a| shell_quote(a)));
        parts.join(" ")
    }
}

/// An environment whose `Debug` shows the values of `secret` names as `…`.
struct ShownEnv<'a, F: Fn(&str) -> bool>(&'a BTreeMap<String, String>, F);

impl<F: Fn(&str) -> bool> fmt::Debug for ShownEnv<'_, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.0
                    .iter()
                    .map(|(k, v)| (k, if (self.1)(k) { "…" } else { v.as_str() })),
            )
            .finish()
    }
}

impl fmt::Debug for ServerDraft {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Hidden: the names marked secret, and any that looks secret (a
        // draft that unmarked one still does not print it in a log).
        let secret = |name: &str| {
            looks_secret(name) || self.secret_env.as_ref().is_some_and(|s| s.contains(name))
        };
        f.debug_struct("ServerDraft")
            .field("name", &self.name)
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &ShownEnv(&self.env, secret))
            .field("cwd", &self.cwd)
            .field("enabled", &self.enabled)
            .field("withdrawal", &self.withdrawal)
            .field("enforce_roots", &self.enforce_roots)
            .field("allow_network", &self.allow_network)
            .field("workspace_only", &self.workspace_only)
            .field("own_process", &self.own_process)
            .field("era", &self.era)
            .field("secret_env", &self.secret_env)
            .finish()
    }
}

impl fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secret = |name: &str| self.secrets.contains_key(name);
        f.debug_struct("ServerSpec")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &ShownEnv(&self.env, secret))
            .field("secrets", &self.secrets)
            .field("cwd", &self.cwd)
            .field("enabled", &self.enabled)
            .field("withdrawal", &self.withdrawal)
            .field("enforce_roots", &self.enforce_roots)
            .field("allow_network", &self.allow_network)
            .field("workspace_only", &self.workspace_only)
            .field("own_process", &self.own_process)
            .field("approved_command", &self.approved_command)
            .field("ignores_list_changed", &self.ignores_list_changed)
            .field("era", &self.era)
            .field("seen_era", &self.seen_era)
            .field("gave_up", &self.gave_up)
            .finish()
    }
}

/// `name`, or `name-2`, `name-3`… when one of `servers` has it already
/// (names compare without case): the name a server added from elsewhere
/// (an AI app's entry, a bundle, a registry entry) gets.
pub fn free_name(name: &str, servers: &[ServerSpec]) -> String {
    let taken = |n: &str| servers.iter().any(|s| s.name.eq_ignore_ascii_case(n));
    if !taken(name) {
        return name.to_owned();
    }
    (2..)
        .map(|i| format!("{name}-{i}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| name.to_owned())
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
        assert_eq!(
            spec.to_draft(),
            ServerDraft {
                secret_env: Some(BTreeSet::new()),
                ..draft()
            },
            "an edit says which are secret: none"
        );
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

    #[test]
    fn secrets_are_marked_by_default_approved_by_name_and_never_printed() {
        let mut d = draft();
        d.env.insert("API_TOKEN".into(), "s3cr3t-value".into());
        d.env.insert("DEBUG".into(), "1".into());
        let spec = d.clone().validate(ServerId::generate(), []).unwrap();
        assert_eq!(
            spec.secrets,
            BTreeMap::from([("API_TOKEN".into(), SecretPlace::File)])
        );
        assert_eq!(
            spec.command_line(),
            "API_TOKEN=… DEBUG=1 node server.js '/my dir'"
        );
        for shown in [format!("{spec:?}"), format!("{d:?}")] {
            assert!(!shown.contains("s3cr3t"), "{shown}");
            assert!(shown.contains("DEBUG"), "{shown}");
        }
        assert_eq!(spec.clone().without_secret_values().env["API_TOKEN"], "");
        assert_eq!(
            spec.to_draft().secret_names(None),
            BTreeSet::from(["API_TOKEN".into()])
        );

        // The person says which are secret: none here, or DEBUG only.
        d.secret_env = Some(BTreeSet::from(["DEBUG".into()]));
        let spec = d.clone().validate(ServerId::generate(), []).unwrap();
        assert_eq!(
            spec.command_line(),
            "API_TOKEN=s3cr3t-value DEBUG=… node server.js '/my dir'"
        );
        // An edit that does not say keeps what was secret, and marks new
        // names that look secret.
        d.secret_env = None;
        d.env.insert("NEW_KEY".into(), "k".into());
        assert_eq!(
            d.secret_names(Some(&spec)),
            BTreeSet::from(["DEBUG".into(), "NEW_KEY".into()])
        );
    }

    #[test]
    fn a_secret_left_in_an_argument_is_lifted_and_stays_approved() {
        let key = "sk-proj-abcdefghijklmnop1234";
        let mut spec = ServerDraft {
            name: "s".into(),
            command: "srv".into(),
            ..Default::default()
        }
        .validate(ServerId::generate(), [])
        .unwrap();
        // As a Rootgate from before wrote it: the key in the arguments, and
        // the approval of that line.
        spec.args = vec!["--api-key".into(), key.into()];
        spec.approved_command = Some(format!("srv --api-key {key}"));
        assert_eq!(spec.command_line(), "srv --api-key '…'", "never shown");
        spec.lift_arg_secrets_from_before();
        assert_eq!(spec.args, ["--api-key", "${ARG_API_KEY}"]);
        assert_eq!(spec.env["ARG_API_KEY"], key);
        assert_eq!(spec.secrets["ARG_API_KEY"], SecretPlace::FileUntilKeyring);
        assert!(spec.is_approved(), "{:?}", spec.approved_command);
        assert!(!spec.approved_command.as_deref().unwrap().contains(key));

        let mut other = spec.clone();
        other.args = vec!["--token".into(), key.into()];
        other.approved_command = Some(format!("srv --verbose --token {key}"));
        other.lift_arg_secrets_from_before();
        assert!(!other.is_approved());
        assert_eq!(
            other.approved_command.as_deref(),
            Some("srv --verbose --token …"),
            "an approval of another line keeps no value"
        );
    }
}
