//! A registry package's arguments and environment variables, read into a
//! draft's arguments and environment, the settings the person answers, and
//! Rootgate's folder placeholders.
//!
//! Which values are folders: an input whose `format` is `filepath`, or
//! whose name reads as a folder (`directory`, `dir`, `folder`, `root`,
//! `path`, `workspace`, and their plurals, in any of `target_dir`,
//! `--allowed-directories`, `vaultPath`, `ROOT_PATH`), unless the name says
//! it is a file (`file`, `db`, `config`, `log`, `cert`, `url`…): such a
//! path is a [`SettingKind::File`] setting, passed as data. A folder
//! becomes `${folders}` when the input repeats or its name is plural, and
//! `${folder}` otherwise; it is never a typed path, and a default that
//! names a folder here is only offered. Every other value the publisher
//! leaves open becomes a [`Setting`] whose token (`${registry.KEY}`)
//! stands where the answer goes; a `{variable}` inside a fixed value is
//! one too.
//!
//! What this module does not do: choose the package or its command (see
//! `mapping`), or fill anything (see `Offer::fill`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use rootgate_model::placeholders::{FOLDER, FOLDERS};

use super::server_json::{Argument, Input, KeyValue};
use crate::offer::{Setting, SettingKind};

/// Words that make a name a folder's.
const FOLDER_WORDS: &[&str] = &[
    "dir",
    "dirs",
    "directory",
    "directories",
    "folder",
    "folders",
    "root",
    "roots",
    "path",
    "paths",
    "workspace",
    "workspaces",
];
/// Of those, the plurals: many folders.
const PLURAL_WORDS: &[&str] = &[
    "dirs",
    "directories",
    "folders",
    "roots",
    "paths",
    "workspaces",
];
/// Words that make a path a file's, not a folder's.
const FILE_WORDS: &[&str] = &[
    "file", "files", "db", "database", "sqlite", "config", "cfg", "log", "logs", "cert", "key",
    "keys", "url", "uri", "json", "yaml", "yml", "toml", "csv", "socket", "pem", "binary", "exe",
];

/// What a name and format say a value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looks {
    Folder { multiple: bool },
    File,
    Other,
}

/// The lower-case words of a name: `--allowed-directories`, `vaultPath`
/// and `ROOT_PATH` are split at punctuation and at lower-to-upper turns.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut lower_before = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            lower_before = false;
            continue;
        }
        if c.is_uppercase() && lower_before && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        lower_before = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// What the value named `name` with `input`'s format is.
pub fn looks(name: &str, input: &Input, repeated: bool) -> Looks {
    let words = words(name);
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    let filepath = input.format.as_deref() == Some("filepath");
    if has(FILE_WORDS) {
        return if filepath || has(&["path", "paths", "file", "files"]) {
            Looks::File
        } else {
            Looks::Other
        };
    }
    if filepath || has(FOLDER_WORDS) {
        return Looks::Folder {
            multiple: repeated || has(PLURAL_WORDS),
        };
    }
    Looks::Other
}

/// The arguments, environment and settings made so far.
#[derive(Debug, Default)]
pub struct Inputs {
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub settings: Vec<Setting>,
    /// Defaults that name a folder here, to offer for sharing.
    pub folders: Vec<PathBuf>,
    pub notes: Vec<String>,
}

impl Inputs {
    /// Adds `arguments` (a package's or its runtime's) to the arguments.
    pub fn arguments(&mut self, arguments: &[Argument]) {
        for argument in arguments {
            self.argument(argument);
        }
    }

    fn argument(&mut self, argument: &Argument) {
        let place = format!("argument {}", self.args.len() + 1);
        let flag = match argument.kind.as_str() {
            "named" => match argument.name.as_deref().map(str::trim) {
                Some(flag) if !flag.is_empty() => Some(flag.to_owned()),
                _ => {
                    self.notes
                        .push("A named argument without a name was left out.".into());
                    return;
                }
            },
            _ => None,
        };
        let label = flag
            .as_deref()
            .map(|f| f.trim_start_matches('-').to_owned())
            .or_else(|| argument.value_hint.clone())
            .unwrap_or_else(|| place.clone());
        let input = &argument.input;
        let value = match looks(&label, input, argument.is_repeated) {
            Looks::Folder { multiple } if !has_variables(input) => {
                self.folder(&label, input, multiple, &place)
            }
            _ if input.value.is_some() => self.fixed(input, &place),
            looks => {
                let open = flag.is_none() || input.is_required || input.default.is_some();
                if !open {
                    self.notes.push(format!(
                        "The optional argument {} ({}) is left out; add it to the server's \
                         arguments in the window if you want it.",
                        flag.as_deref().unwrap_or(&label),
                        describe(input)
                    ));
                    return;
                }
                if input.is_secret {
                    self.notes.push(format!(
                        "{label} is a secret passed as an argument: other programs on this \
                         machine can read a process's arguments."
                    ));
                }
                self.setting(&label, input, looks, &place)
            }
        };
        // A flag whose value is the flag again (`--read-only` given as
        // both) is passed once.
        let flag_again = flag.is_some() && value.as_deref() == flag.as_deref();
        if let Some(flag) = flag {
            if value.as_deref() == Some(FOLDERS) {
                self.notes.push(format!(
                    "The folders are passed after one {flag}, as `{flag} A B`."
                ));
            }
            self.args.push(flag);
        }
        if let Some(value) = value.filter(|_| !flag_again) {
            self.args.push(value);
        }
    }

    /// Adds `variables` (a package's environment) to the environment.
    pub fn environment(&mut self, variables: &[KeyValue]) {
        for variable in variables {
            let place = format!("environment variable {}", variable.name);
            let input = &variable.input;
            let value = match looks(&variable.name, input, false) {
                Looks::Folder { multiple } if !has_variables(input) => {
                    self.folder(&variable.name, input, multiple, &place)
                }
                _ if input.value.is_some() => self.fixed(input, &place),
                looks => self.setting(&variable.name, input, looks, &place),
            };
            if let Some(value) = value {
                self.env.insert(variable.name.clone(), value);
            }
        }
    }

    /// A folder input: its placeholder, and its setting, which is answered
    /// through consent; a default naming a folder here is offered.
    fn folder(&mut self, key: &str, input: &Input, multiple: bool, place: &str) -> Option<String> {
        let token = if multiple { FOLDERS } else { FOLDER };
        for default in input.default.iter().chain(input.value.iter()) {
            let path = PathBuf::from(default);
            if path.is_absolute() && path.is_dir() {
                if !self.folders.contains(&path) {
                    self.folders.push(path);
                }
            } else {
                self.notes.push(format!(
                    "The publisher's example folder for {key}, {default}, is not a folder here; \
                     share your own."
                ));
            }
        }
        if let Some(setting) = self.settings.iter_mut().find(|s| s.token == token) {
            setting.used_in.push(place.to_owned());
            return Some(token.to_owned());
        }
        self.settings.push(Setting {
            key: self.free_key(key),
            token: token.to_owned(),
            title: title(key),
            description: describe(input),
            kind: SettingKind::Folder { multiple },
            required: input.is_required,
            default: None,
            secret: false,
            used_in: vec![place.to_owned()],
        });
        Some(token.to_owned())
    }

    /// A fixed value, each `{variable}` in it replaced by its folder
    /// placeholder or its setting's token.
    fn fixed(&mut self, input: &Input, place: &str) -> Option<String> {
        let mut value = input.value.clone().unwrap_or_default();
        for (name, variable) in &input.variables {
            let braced = format!("{{{name}}}");
            if !value.contains(&braced) {
                continue;
            }
            let with = match looks(name, variable, false) {
                Looks::Folder { multiple } => self.folder(name, variable, multiple, place),
                looks => self.setting(name, variable, looks, place),
            };
            value = value.replace(&braced, &with.unwrap_or_default());
        }
        Some(value)
    }

    /// A value the person answers: its setting, and its token.
    fn setting(&mut self, key: &str, input: &Input, looks: Looks, place: &str) -> Option<String> {
        let kind = if !input.choices.is_empty() {
            SettingKind::Choice {
                choices: input.choices.clone(),
            }
        } else {
            match (input.format.as_deref(), looks) {
                (Some("number"), _) => SettingKind::Number {
                    min: None,
                    max: None,
                },
                (Some("boolean"), _) => SettingKind::Boolean,
                (_, Looks::File) => SettingKind::File,
                _ => SettingKind::Text,
            }
        };
        let key = self.free_key(key);
        let token = format!("${{registry.{key}}}");
        self.settings.push(Setting {
            key: key.clone(),
            token: token.clone(),
            title: title(&key),
            description: describe(input),
            kind,
            required: input.is_required,
            default: input.default.clone(),
            secret: input.is_secret,
            used_in: vec![place.to_owned()],
        });
        Some(token)
    }

    /// `key`, or `key-2`, `key-3`… when a setting has it already.
    fn free_key(&self, key: &str) -> String {
        let taken = |k: &str| self.settings.iter().any(|s| s.key == k);
        if !taken(key) {
            return key.to_owned();
        }
        (2..)
            .map(|i| format!("{key}-{i}"))
            .find(|k| !taken(k))
            .unwrap_or_else(|| key.to_owned())
    }
}

fn has_variables(input: &Input) -> bool {
    input.value.is_some() && !input.variables.is_empty()
}

fn describe(input: &Input) -> String {
    input.description.clone().unwrap_or_default()
}

/// A setting's title from its key: `target_dir` → "Target dir".
fn title(key: &str) -> String {
    let spaced = words(key).join(" ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => key.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(name: &str, format: Option<&str>) -> Looks {
        let input = Input {
            format: format.map(str::to_owned),
            ..Input::default()
        };
        looks(name, &input, false)
    }

    #[test]
    fn folder_names_and_file_names_are_told_apart() {
        let many = Looks::Folder { multiple: true };
        let one = Looks::Folder { multiple: false };
        assert_eq!(named("target_dir", None), one);
        assert_eq!(named("--allowed-directories", None), many);
        assert_eq!(named("vaultPath", None), one);
        assert_eq!(named("WORKSPACE_ROOTS", None), many);
        assert_eq!(named("source", Some("filepath")), one);
        assert_eq!(named("DB_PATH", None), Looks::File);
        assert_eq!(named("config", Some("filepath")), Looks::File);
        assert_eq!(named("MEMORY_FILE_PATH", None), Looks::File);
        assert_eq!(named("LOG_LEVEL", None), Looks::Other);
        assert_eq!(named("AIRTABLE_API_KEY", None), Looks::Other);
        assert_eq!(named("--root-url", None), Looks::Other);
    }

    #[test]
    fn titles_read_as_words() {
        assert_eq!(title("target_dir"), "Target dir");
        assert_eq!(title("AIRTABLE_API_KEY"), "Airtable api key");
    }
}
