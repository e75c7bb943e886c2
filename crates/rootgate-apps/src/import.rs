//! Turning an AI app's server entry into a Rootgate server draft, the
//! folders to offer for sharing, and the values the person must give.
//!
//! A server configured in an app carries its folders in its arguments (the
//! filesystem server's directories, a `--repository`), and sometimes
//! values only the app can fill (`${input:token}` in VS Code,
//! `${workspaceFolder}`, `${env:NAME}`, an `envFile`, Goose's keyring
//! keys). [`plan`] finds both: each argument that names a folder on this
//! machine becomes a folder placeholder (`${folders}`, `${folder}` or
//! `${folder:NAME}`, see `placeholders`) and an offer, and each value
//! Rootgate cannot carry over is listed as a [`Need`]. [`ImportPlan::fill`]
//! takes the person's answers.
//!
//! What this module does not do: share anything (an offer goes through the
//! consent prompt), approve anything (the draft is a new command the person
//! approves), or look inside a filled value for folders: a value the person
//! typed in the window is data for the server, and a path that reaches
//! consent must come from the person's picker, drop, command line or their
//! own config file, never from the webview.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

use super::{AppKind, InputDecl, RawEntry, Scope, Transport};
use rootgate_model::folders;
use rootgate_model::placeholders::{FOLDER, FOLDERS};
use rootgate_model::servers::ServerDraft;

mod fill;
mod tokens;

use fill::{env_name, put_in, relied_on};

/// A value in an entry that Rootgate cannot carry over as it is.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Need {
    /// The name the person gives the value under, in words they know it
    /// by: the variable's own name (`GEMINI_DATA_TOKEN`, whether the file
    /// writes `$GEMINI_DATA_TOKEN`, `${GEMINI_DATA_TOKEN}`, `${env:…}` or
    /// `{env:…}`), a Continue secret's name, a VS Code input's id
    /// (`token`), an app's own variable (`workspaceFolder`), or the name
    /// of a value kept elsewhere (Goose's keyring). Never the text with its
    /// `$` and braces, which is [`Need::forms`].
    pub token: String,
    /// Where it is used, in words ("environment variable GITHUB_TOKEN",
    /// "argument 3").
    pub used_in: Vec<String>,
    /// What the app says about it (a VS Code input's description), or what
    /// Rootgate knows of it.
    pub hint: String,
    /// Whether it should be typed masked: a VS Code password input, a
    /// keyring value, or a value of a variable whose name looks secret.
    pub secret: bool,
    /// Whether the server can be imported without it. An `envFile` is only
    /// shown: Rootgate does not read files an app names, and the person adds
    /// the variables the server needs in its settings.
    pub required: bool,
    /// What stands in the file for it (`$GEMINI_DATA_TOKEN`,
    /// `${input:token}`), each replaced by the value; empty for a value the
    /// file does not hold (a keyring's key, an `envFile`). Not sent to the
    /// window, which asks by [`Need::token`].
    #[serde(skip)]
    #[ts(skip)]
    pub forms: Vec<String>,
}

impl Need {
    /// Whether `given` names this need: its name, or what stands in the
    /// file for it (`--set '${input:token}=…'` still works).
    pub fn answers(&self, given: &str) -> bool {
        self.token == given || self.forms.iter().any(|f| f == given)
    }

    /// The first of its forms written in `value`, if any.
    pub(crate) fn written_in(&self, value: &str) -> Option<&str> {
        self.forms
            .iter()
            .find(|f| value.contains(f.as_str()))
            .map(String::as_str)
    }

    /// What kind of value it is, read from its first form (a need with no
    /// form is a value kept elsewhere, of no kind).
    fn kind(&self) -> Option<tokens::Kind> {
        self.forms.first().map(|f| tokens::name(f).1)
    }
}

/// One entry, ready to become a server once the person fills its needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportPlan {
    pub app: AppKind,
    pub file: PathBuf,
    pub scope: Scope,
    pub key: String,
    /// The server as it will be added: the entry's command, its folders
    /// replaced by placeholders, not enabled and not approved.
    pub draft: ServerDraft,
    /// Folders found in its arguments, in order, as real paths on this
    /// machine: offered for sharing, never shared by this.
    pub folders: Vec<PathBuf>,
    pub needs: Vec<Need>,
    /// Arguments that look like paths but are not folders here (a Windows
    /// path, a folder that is gone), kept as they are and shown.
    pub kept_paths: Vec<String>,
    /// Every placeholder as the file writes it (or a keyring's key), with
    /// where it is used, in the order found: what `identity::entry_digest`
    /// keeps of the needs, unchanged since needs were asked for by their
    /// names, so a link made before stays trusted.
    pub placeholders: Vec<(String, Vec<String>)>,
}

/// Why an entry cannot be imported.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum ImportError {
    #[error(
        "`{key}` is a remote server ({url}); Rootgate runs local servers over standard input and output"
    )]
    Remote { key: String, url: String },
    #[error("`{key}` already runs through Rootgate (`rootgate connect {name}`)")]
    AlreadyRouted { key: String, name: String },
    #[error("`{key}` needs a value for {token}{written} ({hint}); give it to import the server")]
    Missing {
        key: String,
        token: String,
        /// Where it stands in the file, in words (`, written `$X` in the
        /// app's config`), or nothing for a value kept elsewhere.
        written: String,
        hint: String,
    },
    #[error("{token} is not a value `{key}` needs")]
    Unknown { key: String, token: String },
}

/// The command line `rootgate connect NAME`, when `command` and `args` are
/// one: the entry already goes through Rootgate.
pub(crate) fn routed_name(command: &str, args: &[String]) -> Option<String> {
    let program = Path::new(command).file_name()?.to_str()?;
    match args {
        [connect, name] if program == "rootgate" && connect == "connect" => Some(name.clone()),
        _ => None,
    }
}

/// Plans the import of `entry`, read from `file` of `app`. `inputs` are the
/// file's VS Code input declarations; `home` expands a leading `~`.
pub fn plan(
    app: AppKind,
    file: &Path,
    entry: &RawEntry,
    inputs: &[InputDecl],
    home: Option<&Path>,
) -> Result<ImportPlan, ImportError> {
    let (command, args, env, cwd, env_keys) = match &entry.transport {
        Transport::Remote { url } => {
            return Err(ImportError::Remote {
                key: entry.key.clone(),
                url: url.clone(),
            });
        }
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
            env_keys,
            ..
        } => (command, args, env, cwd, env_keys),
    };
    if let Some(name) = routed_name(command, args) {
        return Err(ImportError::AlreadyRouted {
            key: entry.key.clone(),
            name,
        });
    }
    let found = find_folders(args, home);
    let needs = needs_of(app, &entry.transport, &found.args, inputs);
    // Secret: what the name says, what holds a value the app keeps out of
    // its file (its environment, its secrets, what it asks for masked),
    // and what it keeps in its own keyring.
    let secret_env: BTreeSet<String> = env
        .iter()
        .filter(|(name, value)| {
            looks_secret(name)
                || needs
                    .list
                    .iter()
                    .any(|n| n.secret && n.written_in(value).is_some())
        })
        .map(|(name, _)| name.clone())
        .chain(env_keys.iter().cloned())
        .collect();
    let draft = ServerDraft {
        name: entry.key.clone(),
        command: command.clone(),
        args: found.args,
        env: env.clone(),
        cwd: cwd.as_ref().map(PathBuf::from),
        enabled: false,
        secret_env: Some(secret_env),
        ..ServerDraft::default()
    };
    Ok(ImportPlan {
        app,
        file: file.to_path_buf(),
        scope: entry.scope.clone(),
        key: entry.key.clone(),
        draft,
        folders: found.folders,
        needs: needs.list,
        kept_paths: found.kept_paths,
        placeholders: needs.written,
    })
}

/// What an entry needs the person to fill: each of the app's placeholders
/// in its command, arguments, environment and working folder, each name
/// the app passes on or keeps in its keyring (`env_keys`), and the file
/// of variables Rootgate does not read (`env_file`). `args` are the
/// arguments as the draft has them, folders already placeholders.
fn needs_of(app: AppKind, transport: &Transport, args: &[String], inputs: &[InputDecl]) -> Needs {
    let mut needs = Needs {
        app: Some(app),
        ..Needs::default()
    };
    let Transport::Stdio {
        command,
        env,
        cwd,
        env_file,
        env_keys,
        ..
    } = transport
    else {
        return needs;
    };
    needs.scan(command, "the command", inputs, false);
    for (i, arg) in args.iter().enumerate() {
        needs.scan(arg, &format!("argument {}", i + 1), inputs, false);
    }
    for (name, value) in env {
        let place = format!("environment variable {name}");
        needs.scan(value, &place, inputs, looks_secret(name));
    }
    if let Some(cwd) = cwd {
        needs.scan(cwd, "the working folder", inputs, false);
    }
    for key in env_keys {
        needs.push(Need {
            forms: Vec::new(),
            token: key.clone(),
            used_in: vec![format!("environment variable {key}")],
            hint: match app {
                // Codex's `env_vars`: names it passes on from its own
                // environment, whose values the file does not hold.
                AppKind::Codex => format!("{} passes it on from its own environment", app.title()),
                _ => format!("{} keeps its value in its own keyring", app.title()),
            },
            secret: true,
            required: true,
        });
    }
    if let Some(env_file) = env_file {
        needs.push(Need {
            forms: Vec::new(),
            token: "envFile".into(),
            used_in: vec![format!("environment read from {env_file}")],
            hint: "Rootgate does not read files an app names; add the variables the server \
                   needs in its settings"
                .into(),
            secret: false,
            required: false,
        });
    }
    needs
}

impl ImportPlan {
    /// Puts the person's `values` (by [`Need::token`], or by what stands in
    /// the file) in place of what the app would have filled. Every required
    /// need must have a value; a value for a token the plan does not need
    /// is refused, so a typo is not lost.
    ///
    /// A value goes where its placeholder stood: into the environment
    /// variable whose value held it (`DATA_TOKEN`, for `"DATA_TOKEN":
    /// "$GEMINI_DATA_TOKEN"`), secret when the need is. In an argument a
    /// secret value is not written: the argument reads `${NAME}`, `NAME` a
    /// secret variable holding it (the variable's own name, or one that
    /// holds that value already), filled in only for the process at its
    /// start, as a secret lifted out of an argument is (`secret_words`).
    pub fn fill(&mut self, values: &BTreeMap<String, String>) -> Result<(), ImportError> {
        if let Some(token) = values
            .keys()
            .find(|t| !self.needs.iter().any(|n| n.answers(t)))
        {
            return Err(ImportError::Unknown {
                key: self.key.clone(),
                token: token.clone(),
            });
        }
        let mut given: Vec<(Need, String)> = Vec::new();
        for need in &self.needs {
            let value = values
                .get(&need.token)
                .or_else(|| need.forms.iter().find_map(|f| values.get(f)));
            match value {
                Some(value) => given.push((need.clone(), value.clone())),
                None if need.required => {
                    return Err(ImportError::Missing {
                        key: self.key.clone(),
                        token: need.token.clone(),
                        written: written_words(need),
                        hint: need.hint.clone(),
                    });
                }
                None => {}
            }
        }
        // The environment, command and working folder first, so that an
        // argument's secret can name a variable that holds it already.
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for (need, value) in &given {
            if need.forms.is_empty() {
                // A keyring's key: the variable itself gets the value.
                if need.token != "envFile" {
                    self.draft.env.insert(need.token.clone(), value.clone());
                }
                continue;
            }
            pairs.extend(need.forms.iter().map(|f| (f.as_str(), value.as_str())));
        }
        self.draft.command = put_in(&self.draft.command, &pairs);
        for v in self.draft.env.values_mut() {
            *v = put_in(v, &pairs);
        }
        if let Some(cwd) = &self.draft.cwd {
            let filled = put_in(&cwd.to_string_lossy(), &pairs);
            self.draft.cwd = Some(PathBuf::from(filled));
        }
        let mut in_args: Vec<(String, String)> = Vec::new();
        for (need, value) in &given {
            let used = self.draft.args.iter().any(|a| need.written_in(a).is_some());
            if !used {
                continue;
            }
            let put = if need.secret {
                format!("${{{}}}", self.secret_variable(need, value))
            } else {
                value.clone()
            };
            in_args.extend(need.forms.iter().map(|f| (f.clone(), put.clone())));
        }
        let pairs: Vec<(&str, &str)> = in_args
            .iter()
            .map(|(f, v)| (f.as_str(), v.as_str()))
            .collect();
        for arg in &mut self.draft.args {
            *arg = put_in(arg, &pairs);
        }
        Ok(())
    }

    /// The secret variable that gives `need`'s `value` to an argument: one
    /// of the draft's secrets holding that value already, else a new one
    /// named after the variable (`ARG_` before it when the server's own
    /// environment has that name, or it is one a process relies on).
    fn secret_variable(&mut self, need: &Need, value: &str) -> String {
        let secret = self.draft.secret_env.get_or_insert_with(BTreeSet::new);
        if let Some((name, _)) = self
            .draft
            .env
            .iter()
            .find(|(name, v)| v.as_str() == value && secret.contains(name.as_str()))
        {
            return name.clone();
        }
        let own = env_name(&need.token);
        let base = if relied_on(&own) || self.draft.env.contains_key(&own) {
            format!("ARG_{own}")
        } else {
            own
        };
        let mut name = base.clone();
        let mut n = 2;
        while self.draft.env.contains_key(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.draft.env.insert(name.clone(), value.to_owned());
        secret.insert(name.clone());
        name
    }
}

/// Where a need stands in the file, in words for an error: it names the
/// text the person sees in their config beside the name asked for.
fn written_words(need: &Need) -> String {
    if need.forms.is_empty() {
        return String::new();
    }
    let forms: Vec<String> = need.forms.iter().map(|f| format!("`{f}`")).collect();
    format!(", written {} in the app's config", forms.join(" and "))
}

/// Whether a variable's name says its value is a secret (kept here for
/// its callers; it lives with the rest of secrets' rules).
pub use rootgate_model::servers::looks_secret;

#[derive(Default)]
struct Needs {
    list: Vec<Need>,
    /// Every placeholder as written, with where it is used (see
    /// [`ImportPlan::placeholders`]).
    written: Vec<(String, Vec<String>)>,
    /// The app whose placeholders are looked for (see `tokens`).
    app: Option<AppKind>,
}

impl Needs {
    /// Adds `need`: the forms of one variable (`$X` and `${X}`) are one
    /// need; a name another kind of value has already (an input `token`
    /// beside an environment variable `token`) is qualified by its kind.
    fn push(&mut self, mut need: Need) {
        let as_written = need.forms.first().unwrap_or(&need.token).clone();
        match self.written.iter_mut().find(|(t, _)| *t == as_written) {
            Some((_, used)) => used.extend(need.used_in.iter().cloned()),
            None => self.written.push((as_written, need.used_in.clone())),
        }
        let kind = need.kind();
        if let Some(kind) = kind
            && self
                .list
                .iter()
                .any(|n| n.token == need.token && n.kind() != Some(kind))
        {
            need.token = kind.qualified(&need.token);
        }
        match self.list.iter_mut().find(|n| n.token == need.token) {
            Some(known) => {
                for place in need.used_in {
                    if !known.used_in.contains(&place) {
                        known.used_in.push(place);
                    }
                }
                for form in need.forms {
                    if !known.forms.contains(&form) {
                        known.forms.push(form);
                    }
                }
                known.secret |= need.secret;
            }
            None => self.list.push(need),
        }
    }

    /// Records every placeholder `value` holds, used in `place`.
    fn scan(&mut self, value: &str, place: &str, inputs: &[InputDecl], secret: bool) {
        for token in tokens::variables(self.app, value) {
            // Rootgate's own placeholders, put there by `find_folders`.
            if token == FOLDERS || token == FOLDER || token.starts_with("${folder:") {
                continue;
            }
            let (hint, input_secret) =
                tokens::describe(&token).unwrap_or_else(|| describe(&token, inputs));
            self.push(Need {
                token: tokens::name(&token).0,
                used_in: vec![place.to_owned()],
                hint,
                secret: secret || input_secret,
                required: true,
                forms: vec![token],
            });
        }
    }
}

/// Every `${…}` in `value`, in order; not Continue's `${{ … }}`, which
/// only Continue fills (see `tokens`).
pub(super) fn variables(value: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        if rest[start + 2..].starts_with('{') {
            rest = &rest[start + 3..];
            continue;
        }
        let Some(len) = rest[start..].find('}') else {
            break;
        };
        found.push(rest[start..start + len + 1].to_owned());
        rest = &rest[start + len + 1..];
    }
    found
}

/// What a variable is, in words, and whether the app masks it.
fn describe(token: &str, inputs: &[InputDecl]) -> (String, bool) {
    let inner = &token[2..token.len() - 1];
    if let Some(id) = inner.strip_prefix("input:") {
        let input = inputs.iter().find(|i| i.id == id);
        let hint = input
            .and_then(|i| i.description.clone())
            .unwrap_or_else(|| format!("a value the app asks for when it starts (input `{id}`)"));
        return (hint, input.is_some_and(|i| i.password));
    }
    if let Some(name) = inner.strip_prefix("env:") {
        return (format!("the app's environment variable {name}"), true);
    }
    let hint = match inner {
        "workspaceFolder" => "the folder open in the app".to_owned(),
        "workspaceFolderBasename" => "the name of the folder open in the app".to_owned(),
        "userHome" => "your home folder".to_owned(),
        "pathSeparator" | "/" => "the path separator (/ on Linux)".to_owned(),
        other => {
            // Claude Code expands `${VAR}` and `${VAR:-default}` from its
            // environment: a value kept out of the file, so secret.
            let (name, kind) = tokens::name(token);
            if kind != tokens::Kind::Env {
                return (format!("a value the app fills (`{other}`)"), false);
            }
            return (format!("the app's environment variable {name}"), true);
        }
    };
    (hint, false)
}

struct Found {
    args: Vec<String>,
    folders: Vec<PathBuf>,
    kept_paths: Vec<String>,
}

/// Where a folder stands in the arguments.
enum Place {
    /// The whole argument (`/home/me/code`).
    Whole(usize),
    /// After `=` in an option (`--repository=/home/me/code`).
    Option(usize, usize),
}

/// Finds the arguments that name folders on this machine and replaces them
/// with placeholders: a run of whole-argument folders with nothing else
/// between them becomes `${folders}`, a single folder elsewhere `${folder}`,
/// and several scattered ones `${folder:NAME}` each.
fn find_folders(args: &[String], home: Option<&Path>) -> Found {
    let mut places = Vec::new();
    let mut folders = Vec::new();
    let mut kept_paths = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let (place, candidate) = match arg.split_once('=') {
            Some((option, value)) if option.starts_with('-') => {
                (Place::Option(i, option.len() + 1), value)
            }
            _ => (Place::Whole(i), arg.as_str()),
        };
        if !looks_like_path(candidate) {
            continue;
        }
        match local_folder(candidate, home) {
            Some(real) => {
                places.push(place);
                folders.push(real);
            }
            // A file that is there (the server's own script) is simply an
            // argument; a path that is not (a Windows path, a folder that is
            // gone) is shown, so the person knows it was not offered.
            None if !exists_here(candidate, home) => kept_paths.push(arg.clone()),
            None => {}
        }
    }
    let mut out = args.to_vec();
    let wholes: Vec<usize> = places
        .iter()
        .filter_map(|p| match p {
            Place::Whole(i) => Some(*i),
            Place::Option(..) => None,
        })
        .collect();
    let contiguous = wholes.len() == places.len()
        && !wholes.is_empty()
        && wholes.windows(2).all(|w| w[1] == w[0] + 1);
    if contiguous {
        let first = wholes[0];
        out.splice(first..first + wholes.len(), [FOLDERS.to_owned()]);
    } else {
        for (place, folder) in places.iter().zip(&folders) {
            let placeholder = if places.len() == 1 {
                FOLDER.to_owned()
            } else {
                format!("${{folder:{}}}", folders::default_name(folder))
            };
            match *place {
                Place::Whole(i) => out[i] = placeholder,
                Place::Option(i, at) => out[i] = format!("{}{placeholder}", &args[i][..at]),
            }
        }
    }
    Found {
        args: out,
        folders,
        kept_paths,
    }
}

/// Whether an argument is written like a path of some system: absolute, in
/// the home folder, or a Windows drive path.
fn looks_like_path(arg: &str) -> bool {
    let bytes = arg.as_bytes();
    let windows = bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && (bytes[2] == b'\\' || bytes[2] == b'/');
    arg.starts_with('/') || arg.starts_with("~/") || arg == "~" || windows
}

/// Whether `arg` names something that exists on this machine.
fn exists_here(arg: &str, home: Option<&Path>) -> bool {
    match arg.strip_prefix('~') {
        Some(rest) => home.is_some_and(|h| h.join(rest.trim_start_matches('/')).exists()),
        None => Path::new(arg).exists(),
    }
}

/// The real path of `arg` when it is a folder on this machine.
fn local_folder(arg: &str, home: Option<&Path>) -> Option<PathBuf> {
    let path = match arg.strip_prefix('~') {
        Some(rest) => home?.join(rest.trim_start_matches('/')),
        None => PathBuf::from(arg),
    };
    if !path.is_absolute() {
        return None;
    }
    let checked = folders::check(&path).ok()?;
    Some(checked.real().to_path_buf())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn stdio(key: &str, command: &str, args: &[&str], env: &[(&str, &str)]) -> RawEntry {
        RawEntry {
            scope: Scope::Global,
            key: key.into(),
            transport: Transport::Stdio {
                command: command.into(),
                args: args.iter().map(|a| a.to_string()).collect(),
                env: env
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                cwd: None,
                env_file: None,
                env_keys: Vec::new(),
            },
            enabled: true,
        }
    }

    fn plan_of(entry: &RawEntry) -> ImportPlan {
        plan(
            AppKind::ClaudeDesktop,
            Path::new("/x.json"),
            entry,
            &[],
            None,
        )
        .unwrap()
    }

    #[test]
    fn trailing_folders_become_one_placeholder_and_offers() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let (pa, pb) = (a.path().to_str().unwrap(), b.path().to_str().unwrap());
        let entry = stdio(
            "fs",
            "npx",
            &["-y", "@modelcontextprotocol/server-filesystem", pa, pb],
            &[],
        );
        let plan = plan_of(&entry);
        assert_eq!(
            plan.draft.args,
            [
                "-y",
                "@modelcontextprotocol/server-filesystem",
                "${folders}"
            ]
        );
        assert_eq!(
            plan.folders,
            [
                a.path().canonicalize().unwrap(),
                b.path().canonicalize().unwrap()
            ]
        );
        assert!(
            !plan.draft.enabled,
            "an imported server waits for the person"
        );
    }

    #[test]
    fn an_option_folder_becomes_folder_and_others_are_kept() {
        let repo = tempfile::tempdir().unwrap();
        let arg = format!("--repository={}", repo.path().display());
        let script = repo.path().join("index.js");
        std::fs::write(&script, "").unwrap();
        let script = script.to_str().unwrap();
        let entry = stdio(
            "git",
            "uvx",
            &[script, &arg, "C:\\Users\\me\\Documents", "/gone/away"],
            &[],
        );
        let plan = plan_of(&entry);
        assert_eq!(
            plan.draft.args,
            [
                script,
                "--repository=${folder}",
                "C:\\Users\\me\\Documents",
                "/gone/away"
            ]
        );
        // The script is there: an argument like any other, not a kept path.
        assert_eq!(plan.kept_paths, ["C:\\Users\\me\\Documents", "/gone/away"]);
    }

    #[test]
    fn scattered_folders_are_named() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("code")).unwrap();
        std::fs::create_dir(root.path().join("notes")).unwrap();
        let code = root.path().join("code");
        let notes = format!("--notes={}", root.path().join("notes").display());
        let entry = stdio("x", "srv", &[code.to_str().unwrap(), "--flag", &notes], &[]);
        let plan = plan_of(&entry);
        assert_eq!(
            plan.draft.args,
            ["${folder:code}", "--flag", "--notes=${folder:notes}"]
        );
    }

    #[test]
    fn app_variables_are_needs_and_filling_replaces_them() {
        let mut entry = stdio(
            "gh",
            "npx",
            &["server", "${workspaceFolder}"],
            &[("GITHUB_TOKEN", "${input:token}"), ("MODE", "fast")],
        );
        if let Transport::Stdio { env_file, .. } = &mut entry.transport {
            *env_file = Some("${workspaceFolder}/.env".into());
        }
        let inputs = [InputDecl {
            id: "token".into(),
            description: Some("GitHub token".into()),
            password: true,
        }];
        let mut plan = plan(AppKind::VsCode, Path::new("/m.json"), &entry, &inputs, None).unwrap();
        let tokens: Vec<&str> = plan.needs.iter().map(|n| n.token.as_str()).collect();
        assert_eq!(tokens, ["workspaceFolder", "token", "envFile"]);
        assert!(plan.needs[1].secret);
        assert_eq!(plan.needs[1].hint, "GitHub token");
        assert!(!plan.needs[2].required);
        let missing = plan.fill(&BTreeMap::new()).unwrap_err();
        assert!(matches!(missing, ImportError::Missing { .. }), "{missing}");
        assert!(
            missing.to_string().contains("`${workspaceFolder}`"),
            "{missing}"
        );
        // Given by name, or by what stands in the file (as before).
        let values = BTreeMap::from([
            ("workspaceFolder".to_owned(), "/w".to_owned()),
            ("${input:token}".to_owned(), "s3cret".to_owned()),
        ]);
        plan.fill(&values).unwrap();
        assert_eq!(plan.draft.args, ["server", "/w"]);
        assert_eq!(plan.draft.env["GITHUB_TOKEN"], "s3cret");
        let typo = BTreeMap::from([("${input:tokn}".to_owned(), "x".to_owned())]);
        assert!(matches!(
            plan.fill(&typo).unwrap_err(),
            ImportError::Unknown { .. }
        ));
    }

    fn names(plan: &ImportPlan) -> Vec<&str> {
        plan.needs.iter().map(|n| n.token.as_str()).collect()
    }

    #[test]
    fn a_gemini_variable_is_asked_by_its_name_and_filled_under_the_entrys_own() {
        let entry = stdio(
            "data",
            "python",
            &["server.py"],
            &[
                ("DATA_TOKEN", "$GEMINI_DATA_TOKEN"),
                ("AUTH", "Bearer ${GEMINI_DATA_TOKEN}"),
                ("MODE", "fast"),
            ],
        );
        let mut plan = plan(AppKind::GeminiCli, Path::new("/g"), &entry, &[], None).unwrap();
        assert_eq!(
            names(&plan),
            ["GEMINI_DATA_TOKEN"],
            "two forms, one variable"
        );
        assert!(plan.needs[0].secret);
        let mut forms = plan.needs[0].forms.clone();
        forms.sort();
        assert_eq!(forms, ["$GEMINI_DATA_TOKEN", "${GEMINI_DATA_TOKEN}"]);
        let values = BTreeMap::from([("GEMINI_DATA_TOKEN".to_owned(), "tok-1".to_owned())]);
        plan.fill(&values).unwrap();
        let env = &plan.draft.env;
        assert_eq!(env["DATA_TOKEN"], "tok-1");
        assert_eq!(env["AUTH"], "Bearer tok-1");
        assert!(env.keys().all(|k| !k.contains(['$', '{'])), "{env:?}");
        let secret = plan.draft.secret_env.as_ref().unwrap();
        assert!(
            secret.contains("DATA_TOKEN") && secret.contains("AUTH"),
            "{secret:?}"
        );
        assert!(!secret.contains("MODE"));
    }

    #[test]
    fn a_secret_in_an_argument_is_a_variable_the_argument_names() {
        let entry = stdio(
            "gh",
            "npx",
            &[
                "--header",
                "Authorization: Bearer ${env:GH_TOKEN}",
                "--key=${input:key}",
                "--home=${env:HOME}",
                "--where",
                "${workspaceFolder}",
            ],
            &[("GITHUB_TOKEN", "${env:GH_TOKEN}")],
        );
        let inputs = [InputDecl {
            id: "key".into(),
            description: None,
            password: true,
        }];
        let mut plan = plan(AppKind::VsCode, Path::new("/v"), &entry, &inputs, None).unwrap();
        assert_eq!(names(&plan), ["GH_TOKEN", "key", "HOME", "workspaceFolder"]);
        let values = BTreeMap::from([
            ("GH_TOKEN".to_owned(), "ghp-1".to_owned()),
            ("key".to_owned(), "k-2".to_owned()),
            ("HOME".to_owned(), "/home/me".to_owned()),
            ("workspaceFolder".to_owned(), "/w".to_owned()),
        ]);
        plan.fill(&values).unwrap();
        assert_eq!(
            plan.draft.args,
            [
                "--header",
                "Authorization: Bearer ${GITHUB_TOKEN}",
                "--key=${KEY}",
                "--home=${ARG_HOME}",
                "--where",
                "/w"
            ],
            "a variable holding the value already is named; HOME is the process's own"
        );
        let env = &plan.draft.env;
        assert_eq!(
            (env["KEY"].as_str(), env["ARG_HOME"].as_str()),
            ("k-2", "/home/me")
        );
        assert!(!env.contains_key("HOME"));
        let secret = plan.draft.secret_env.as_ref().unwrap();
        for name in ["GITHUB_TOKEN", "KEY", "ARG_HOME"] {
            assert!(secret.contains(name), "{name} {secret:?}");
        }
    }

    #[test]
    fn each_apps_forms_are_named_without_their_marks() {
        let entry = stdio(
            "x",
            "srv",
            &[],
            &[
                ("A", "${{ secrets.SUPA_TOKEN }}"),
                ("B", "{env:MY_API_KEY}"),
                ("C", "${input:tok}"),
                ("D", "${env:tok}"),
                ("E", "${LEVEL:-info}"),
            ],
        );
        let continue_plan = plan(AppKind::Continue, Path::new("/c"), &entry, &[], None).unwrap();
        assert!(names(&continue_plan).contains(&"SUPA_TOKEN"));
        let opencode = plan(AppKind::Opencode, Path::new("/o"), &entry, &[], None).unwrap();
        let named = names(&opencode);
        assert!(named.contains(&"MY_API_KEY"), "{named:?}");
        // An input and a variable of one name are two values.
        assert!(
            named.contains(&"tok") && named.contains(&"env:tok"),
            "{named:?}"
        );
        assert!(named.contains(&"LEVEL"), "{named:?}");
        for plan in [continue_plan, opencode] {
            for need in &plan.needs {
                assert!(!need.token.contains(['$', '{', '}']), "{need:?}");
            }
        }
    }

    #[test]
    fn remote_and_routed_entries_are_refused_in_words() {
        let remote = RawEntry {
            transport: Transport::Remote {
                url: "https://x.example/mcp".into(),
            },
            ..stdio("r", "", &[], &[])
        };
        let e = plan(AppKind::Cursor, Path::new("/c"), &remote, &[], None).unwrap_err();
        assert!(e.to_string().contains("remote server"), "{e}");
        let routed = stdio("f", "/usr/bin/rootgate", &["connect", "files"], &[]);
        let e = plan(AppKind::Cursor, Path::new("/c"), &routed, &[], None).unwrap_err();
        assert_eq!(
            e,
            ImportError::AlreadyRouted {
                key: "f".into(),
                name: "files".into()
            }
        );
    }

    #[test]
    fn secret_names_are_recognised() {
        assert!(looks_secret("GITHUB_PERSONAL_ACCESS_TOKEN"));
        assert!(looks_secret("api_key"));
        assert!(!looks_secret("MODE"));
    }
}
