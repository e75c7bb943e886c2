//! What a published server offers before it is installed: an [`Offer`],
//! the one shape both sources (bundles and the registry) read their format
//! into, and filling its settings with the person's answers.
//!
//! An offer holds what the window and the terminal show (name, author,
//! version, what it runs, its tools, whether it fits this machine), a
//! server draft whose folders are already Rootgate's placeholders
//! (`${folders}`, `${folder}`), and the settings the person answers. A
//! setting stands in the draft as its [`Setting::token`] until
//! [`Offer::fill`] puts the answer in its place.
//!
//! What this module does not do: read a format (see the sources), keep
//! anything (see `installed`), or take a folder from an answer: a folder
//! setting is never filled with a typed path; its folders come from the
//! consent prompt, and a default that names a folder on this machine is
//! only offered ([`Offer::folders`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use rootgate_model::servers::ServerDraft;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A tool or prompt a publisher declares, as it declares it (the server
/// may offer others once it runs).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Named {
    pub name: String,
    pub description: String,
}

/// Whether the publisher signed what is installed.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Signature {
    /// The format has no signatures (a registry package).
    NotApplicable,
    Unsigned,
    /// A signature block is there; `by` is the signer the certificate
    /// names, when it could be read. `checked` says whether Rootgate
    /// verified it, so the window never says "verified" for one it did not.
    Signed {
        by: Option<String>,
        checked: bool,
    },
    /// A signature block is there and does not hold, in words.
    Invalid {
        reason: String,
    },
}

/// Where an offer comes from, as remembered after it is installed.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Source {
    /// An MCP bundle: its manifest's `name` and `version`, and the digest
    /// of the `.mcpb` file it was installed from.
    Bundle {
        name: String,
        version: String,
        sha256: String,
    },
    /// An entry of an MCP registry (`registry` is its address), the
    /// version the person chose, and which of its packages runs
    /// (`npm:@scope/name`, `pypi:name`, `mcpb:URL`).
    Registry {
        registry: String,
        name: String,
        version: String,
        package: String,
    },
}

impl Source {
    /// What an update matches on: the same bundle, or the same registry
    /// entry, whatever its version.
    pub fn key(&self) -> String {
        match self {
            Source::Bundle { name, .. } => format!("bundle:{name}"),
            Source::Registry { registry, name, .. } => format!("registry:{registry}:{name}"),
        }
    }

    pub fn version(&self) -> &str {
        match self {
            Source::Bundle { version, .. } | Source::Registry { version, .. } => version,
        }
    }
}

/// What is shown before anything is installed.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct About {
    /// The publisher's identifier (`filesystem`, `io.github.owner/name`).
    pub name: String,
    /// The name to show (`display_name`, `title`), else `name`.
    pub title: String,
    pub version: String,
    pub description: String,
    pub author: Option<String>,
    /// The project's page or repository, as text (never opened by itself).
    pub homepage: Option<String>,
    pub license: Option<String>,
    /// What it runs, in words ("node server/index.js, from the bundle").
    pub runs: String,
    pub tools: Vec<Named>,
    pub prompts: Vec<Named>,
    /// What it says it needs, in words ("Linux, macOS", "Node.js >=18").
    pub compatibility: Vec<String>,
    /// Why it cannot run here, when it cannot (another platform only, a
    /// remote server, a container image): shown, and never installed.
    pub unfit: Option<String>,
    pub signature: Signature,
}

/// What kind of answer a setting takes.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum SettingKind {
    Text,
    Number {
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    /// One of `choices`.
    Choice {
        choices: Vec<String>,
    },
    /// A file's path, passed to the server as data (Rootgate's consent is
    /// about folders; the file's folder is not shared by this).
    File,
    /// Folders, passed as `${folders}` (`multiple`) or `${folder}`: never
    /// answered here, shared through the consent prompt.
    Folder {
        multiple: bool,
    },
}

/// One thing the person answers before the server is added.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Setting {
    /// The publisher's key (`api_key`, `BRAVE_API_KEY`).
    pub key: String,
    /// What stands in the draft until it is filled (`${user_config.api_key}`).
    /// A folder setting has none left in the draft.
    pub token: String,
    pub title: String,
    pub description: String,
    pub kind: SettingKind,
    pub required: bool,
    /// The publisher's default, as text.
    pub default: Option<String>,
    /// Kept in the keyring, typed masked, approved by name and not value.
    pub secret: bool,
    /// Where it is used, in words ("environment variable API_KEY",
    /// "argument 2").
    pub used_in: Vec<String>,
}

/// A published server, read and checked, not yet installed.
#[derive(Debug, Clone, PartialEq)]
pub struct Offer {
    pub about: About,
    pub source: Source,
    /// The server as it will be added: not enabled, not approved, folders
    /// as placeholders, each setting's token where its answer goes.
    pub draft: ServerDraft,
    pub settings: Vec<Setting>,
    /// Folders the publisher's defaults name that exist here: offered for
    /// sharing once the server is added, never shared by this.
    pub folders: Vec<PathBuf>,
    /// Anything else the person should know, in words (a secret passed as
    /// an argument, a default that names no folder here).
    pub notes: Vec<String>,
}

/// Why the person's answers cannot make the server.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum OfferError {
    #[error("{title} (`{key}`) needs a value")]
    Missing { key: String, title: String },
    #[error("`{key}` is not one of this server's settings")]
    Unknown { key: String },
    #[error("{title} (`{key}`): {reason}")]
    Invalid {
        key: String,
        title: String,
        reason: String,
    },
    #[error(
        "{title} (`{key}`) is a folder setting: its folders are shared through the consent prompt, not typed"
    )]
    FolderTyped { key: String, title: String },
}

impl Offer {
    /// The draft with the person's `values` (by [`Setting::key`]) in place
    /// of the settings' tokens; a setting not answered takes its default.
    /// An optional setting with neither is left out: a whole argument that
    /// is only its token is dropped, elsewhere the token becomes empty. An
    /// environment variable whose whole value is a secret setting is marked
    /// secret, so its value goes to the keyring.
    pub fn fill(&self, values: &BTreeMap<String, String>) -> Result<ServerDraft, OfferError> {
        if let Some(key) = values
            .keys()
            .find(|k| !self.settings.iter().any(|s| &&s.key == k))
        {
            return Err(OfferError::Unknown { key: key.clone() });
        }
        let mut draft = self.draft.clone();
        let mut secret_env: BTreeSet<String> = draft.secret_env.take().unwrap_or_default();
        for setting in &self.settings {
            if let SettingKind::Folder { .. } = setting.kind {
                if values.contains_key(&setting.key) {
                    return Err(OfferError::FolderTyped {
                        key: setting.key.clone(),
                        title: setting.title.clone(),
                    });
                }
                continue;
            }
            let value = values
                .get(&setting.key)
                .filter(|v| !v.is_empty())
                .or(setting.default.as_ref())
                .cloned();
            let value = match value {
                Some(v) => Some(checked(setting, v)?),
                None if setting.required => {
                    return Err(OfferError::Missing {
                        key: setting.key.clone(),
                        title: setting.title.clone(),
                    });
                }
                None => None,
            };
            if setting.secret {
                secret_env.extend(
                    draft
                        .env
                        .iter()
                        .filter(|(_, v)| **v == setting.token)
                        .map(|(k, _)| k.clone()),
                );
            }
            put(&mut draft, &setting.token, value.as_deref());
        }
        if !secret_env.is_empty() {
            draft.secret_env = Some(secret_env);
        }
        Ok(draft)
    }
}

/// `value` as `setting` takes it, or why not.
fn checked(setting: &Setting, value: String) -> Result<String, OfferError> {
    let invalid = |reason: String| OfferError::Invalid {
        key: setting.key.clone(),
        title: setting.title.clone(),
        reason,
    };
    match &setting.kind {
        SettingKind::Number { min, max } => {
            let n: f64 = value
                .trim()
                .parse()
                .map_err(|_| invalid(format!("`{value}` is not a number")))?;
            if let Some(min) = min.filter(|m| n < *m) {
                return Err(invalid(format!("{value} is below the least, {min}")));
            }
            if let Some(max) = max.filter(|m| n > *m) {
                return Err(invalid(format!("{value} is above the most, {max}")));
            }
            Ok(value.trim().to_owned())
        }
        SettingKind::Boolean => match value.trim() {
            "true" | "false" => Ok(value.trim().to_owned()),
            other => Err(invalid(format!("`{other}` is neither true nor false"))),
        },
        SettingKind::Choice { choices } if !choices.contains(&value) => Err(invalid(format!(
            "`{value}` is not one of {}",
            choices.join(", ")
        ))),
        _ if value.contains('\0') => Err(invalid("it holds a NUL character".into())),
        _ => Ok(value),
    }
}

/// Puts `value` where `token` stands in `draft`; with no value, a whole
/// argument that is the token is dropped and the token elsewhere emptied.
fn put(draft: &mut ServerDraft, token: &str, value: Option<&str>) {
    let text = value.unwrap_or("");
    if value.is_none() {
        draft.args.retain(|a| a != token);
    }
    draft.command = draft.command.replace(token, text);
    for arg in &mut draft.args {
        *arg = arg.replace(token, text);
    }
    for v in draft.env.values_mut() {
        *v = v.replace(token, text);
    }
    if value.is_none() {
        draft.env.retain(|_, v| !v.is_empty());
    }
    if let Some(cwd) = &draft.cwd {
        let filled = cwd.to_string_lossy().replace(token, text);
        draft.cwd = Some(PathBuf::from(filled));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(key: &str, kind: SettingKind, required: bool, secret: bool) -> Setting {
        Setting {
            key: key.into(),
            token: format!("${{user_config.{key}}}"),
            title: key.to_uppercase(),
            description: String::new(),
            kind,
            required,
            default: None,
            secret,
            used_in: vec![],
        }
    }

    fn offer() -> Offer {
        let mut draft = ServerDraft {
            name: "x".into(),
            command: "node".into(),
            args: vec![
                "/b/server.js".into(),
                "${folders}".into(),
                "--depth=${user_config.depth}".into(),
                "${user_config.verbose}".into(),
            ],
            ..ServerDraft::default()
        };
        draft
            .env
            .insert("API_KEY".into(), "${user_config.key}".into());
        draft
            .env
            .insert("NOTE".into(), "${user_config.note}".into());
        Offer {
            about: About {
                name: "x".into(),
                title: "X".into(),
                version: "1.0.0".into(),
                description: String::new(),
                author: None,
                homepage: None,
                license: None,
                runs: String::new(),
                tools: vec![],
                prompts: vec![],
                compatibility: vec![],
                unfit: None,
                signature: Signature::Unsigned,
            },
            source: Source::Bundle {
                name: "x".into(),
                version: "1.0.0".into(),
                sha256: String::new(),
            },
            draft,
            settings: vec![
                setting(
                    "depth",
                    SettingKind::Number {
                        min: Some(1.0),
                        max: Some(5.0),
                    },
                    false,
                    false,
                ),
                setting("verbose", SettingKind::Boolean, false, false),
                setting("key", SettingKind::Text, true, true),
                setting("note", SettingKind::Text, false, false),
                setting("dirs", SettingKind::Folder { multiple: true }, true, false),
            ],
            folders: vec![],
            notes: vec![],
        }
    }

    fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn answers_go_where_their_tokens_stand_and_secrets_are_marked() {
        let mut o = offer();
        o.settings[0].default = Some("2".into());
        let draft = o
            .fill(&values(&[("key", "s3cret"), ("verbose", "true")]))
            .unwrap();
        assert_eq!(
            draft.args,
            ["/b/server.js", "${folders}", "--depth=2", "true"]
        );
        assert_eq!(draft.env["API_KEY"], "s3cret");
        assert!(!draft.env.contains_key("NOTE"), "{:?}", draft.env.keys());
        assert_eq!(
            draft.secret_env,
            Some(BTreeSet::from(["API_KEY".to_string()]))
        );
    }

    #[test]
    fn an_optional_whole_argument_without_a_value_is_dropped() {
        let draft = offer().fill(&values(&[("key", "k")])).unwrap();
        assert_eq!(draft.args, ["/b/server.js", "${folders}", "--depth="]);
    }

    #[test]
    fn wrong_answers_are_refused_in_words() {
        let o = offer();
        let err = |pairs: &[(&str, &str)]| o.fill(&values(pairs)).unwrap_err().to_string();
        assert_eq!(err(&[]), "KEY (`key`) needs a value");
        assert_eq!(
            err(&[("key", "k"), ("depth", "9")]),
            "DEPTH (`depth`): 9 is above the most, 5"
        );
        assert_eq!(
            err(&[("key", "k"), ("depth", "deep")]),
            "DEPTH (`depth`): `deep` is not a number"
        );
        assert_eq!(
            err(&[("key", "k"), ("verbose", "yes")]),
            "VERBOSE (`verbose`): `yes` is neither true nor false"
        );
        assert_eq!(
            err(&[("key", "k"), ("colour", "red")]),
            "`colour` is not one of this server's settings"
        );
        assert!(err(&[("key", "k"), ("dirs", "/etc")]).contains("consent prompt"));
    }
}
