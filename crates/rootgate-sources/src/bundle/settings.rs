//! A manifest's `user_config` read into the offer's settings: a
//! `directory` setting becomes a folder setting (its defaults offered as
//! folders to share when they are folders here), `file` a file's path,
//! `sensitive` a secret, and the rest text, numbers and switches with
//! their defaults and bounds; with a note where the person should know
//! more (a secret passed as an argument, several folder settings).
//!
//! What this module does not do: put anything in the draft (see `draft`).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use super::manifest::{Manifest, Run, UserConfig};
use super::variables::{Context, substitute, system};
use crate::offer::{Offer, Setting, SettingKind};

/// The publisher's default as text (a list's first item; all of them are
/// kept for a folder setting, see [`folder_defaults`]).
fn default_text(value: &Value, cx: &Context<'_>) -> Option<String> {
    let text = match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) => items.first()?.as_str()?.to_owned(),
        _ => return None,
    };
    Some(substitute(&text, &|n| system(n, cx), &mut BTreeSet::new()))
}

/// A folder setting's defaults: those that are folders here are offered
/// for sharing, the others said in a note.
fn folder_defaults(key: &str, config: &UserConfig, cx: &Context<'_>, offer: &mut Offer) {
    let items: Vec<&Value> = match &config.default {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(one) => vec![one],
        None => Vec::new(),
    };
    for item in items.into_iter().filter_map(Value::as_str) {
        let path = substitute(item, &|n| system(n, cx), &mut BTreeSet::new());
        match Path::new(&path).canonicalize() {
            Ok(real) if real.is_dir() => {
                if !offer.folders.contains(&real) {
                    offer.folders.push(real);
                }
            }
            _ => offer.notes.push(format!(
                "{} (`{key}`) suggests the folder {path}, which is not a folder here.",
                config.title
            )),
        }
    }
}

/// Where `token` is used in `run`, in words.
fn used_in(token: &str, run: &Run) -> Vec<String> {
    let mut out = Vec::new();
    if run.command.as_deref().is_some_and(|c| c.contains(token)) {
        out.push("the command".to_owned());
    }
    for (i, arg) in run.args.iter().flatten().enumerate() {
        if arg.contains(token) {
            out.push(format!("argument {}", i + 1));
        }
    }
    for (name, value) in run.env.iter().flatten() {
        if value.contains(token) {
            out.push(format!("environment variable {name}"));
        }
    }
    out
}

fn kind_of(config: &UserConfig) -> SettingKind {
    match config.kind.as_str() {
        "directory" => SettingKind::Folder {
            multiple: config.multiple,
        },
        "file" => SettingKind::File,
        "number" => SettingKind::Number {
            min: config.min,
            max: config.max,
        },
        "boolean" => SettingKind::Boolean,
        _ => SettingKind::Text,
    }
}

/// Reads `manifest`'s settings into `offer`, with notes where a person
/// should know more.
pub(super) fn settings(
    manifest: &Manifest,
    run: &Run,
    cx: &Context<'_>,
    offer: &mut Offer,
) -> Result<(), String> {
    for (key, config) in manifest.settings()? {
        let kind = kind_of(&config);
        let written = format!("${{user_config.{key}}}");
        let used = used_in(&written, run);
        let folder = matches!(kind, SettingKind::Folder { .. });
        if folder {
            folder_defaults(&key, &config, cx, offer);
        }
        if config.sensitive && used.iter().any(|u| !u.starts_with("environment")) {
            offer.notes.push(format!(
                "{} (`{key}`) is a secret, and the bundle passes it as {}: other programs you \
                 run can read a program's arguments, and the command line you approve shows it.",
                config.title,
                used.join(" and ")
            ));
        }
        if config.multiple && matches!(kind, SettingKind::File) {
            offer.notes.push(format!(
                "{} (`{key}`) takes several files in the bundle's format; Rootgate passes one.",
                config.title
            ));
        }
        offer.settings.push(Setting {
            token: if folder { String::new() } else { written },
            title: config.title.clone(),
            description: config.description.clone(),
            required: config.required,
            default: match folder {
                true => None,
                false => config.default.as_ref().and_then(|d| default_text(d, cx)),
            },
            secret: config.sensitive,
            used_in: used,
            kind,
            key,
        });
    }
    let folder_keys: Vec<&str> = offer
        .settings
        .iter()
        .filter(|s| matches!(s.kind, SettingKind::Folder { .. }))
        .map(|s| s.key.as_str())
        .collect();
    if folder_keys.len() > 1 {
        offer.notes.push(format!(
            "Its folder settings ({}) all take the folders shared with it.",
            folder_keys.join(", ")
        ));
    }
    Ok(())
}
