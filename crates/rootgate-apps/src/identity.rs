//! Whether an app's server entry is the same server as one in Rootgate,
//! and what differs when it is not.
//!
//! Two entries are one server only when what they run is the same: the
//! command, the arguments with their folders, the environment and the
//! working folder, once the app's own placeholders are filled. Arguments
//! alone are not enough: once folders become `${folders}`, the filesystem
//! server given `~/work` and the one given `~/notes` read alike, and
//! treating them as one would give every app routed to it the other's
//! folder and token. An entry whose values only the app fills (a VS Code
//! `${input:…}`, Claude Code's `${VAR}`) cannot be proven equal until the
//! person gives them.
//!
//! The proof is kept in the ledger as digests: [`entry_digest`], the entry
//! as read at import, so a link whose entry changed since is known, and
//! [`identity`], what it runs, so another entry running the same is
//! recognised. [`differences`] says, in words and without any value, how
//! an entry differs from a server, for the person who chooses to use that
//! server anyway. What is not here: the choice itself (`catalog`), and
//! reading a secret from the keyring to compare it (a listing must not
//! unlock the keyring): a value kept there is named as not compared.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::json;
use sha2::{Digest, Sha256};

use super::import::ImportPlan;
use rootgate_model::servers::{ServerSpec, shell_quote};
use rootgate_model::settings::Settings;

/// The digest of `plan` as read from the app's file, before the person
/// fills anything: it changes when the entry does.
pub(crate) fn entry_digest(plan: &ImportPlan) -> String {
    // The placeholders as written, as this digest always read them: a
    // link made before needs were asked for by name stays trusted.
    let needs: Vec<(&str, &[String])> = plan
        .placeholders
        .iter()
        .map(|(written, used_in)| (written.as_str(), used_in.as_slice()))
        .collect();
    digest(&json!({
        "command": plan.draft.command,
        "args": plan.draft.args,
        "env": plan.draft.env,
        "cwd": plan.draft.cwd,
        "folders": plan.folders,
        "needs": needs,
    }))
}

/// The digest of what `plan` runs. `filled` says whether the person's
/// values were put in (`ImportPlan::fill`); without them, an entry with a
/// value only the app fills has none, since it cannot be proven equal to
/// anything. A value the app reads from elsewhere (an `envFile`) stays in
/// it by where it is read from.
pub fn identity(plan: &ImportPlan, filled: bool) -> Option<String> {
    if !filled && plan.needs.iter().any(|n| n.required) {
        return None;
    }
    let unread: Vec<&[String]> = plan
        .needs
        .iter()
        .filter(|n| !n.required)
        .map(|n| n.used_in.as_slice())
        .collect();
    Some(digest(&json!({
        "command": plan.draft.command,
        "args": plan.draft.args,
        "env": plan.draft.env,
        "cwd": plan.draft.cwd,
        "folders": plan.folders,
        "unread": unread,
    })))
}

fn digest(value: &serde_json::Value) -> String {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The real paths of the folders shared with `server`.
pub(crate) fn shared_folders(settings: &Settings, server: &ServerSpec) -> Vec<PathBuf> {
    settings
        .grants
        .iter()
        .filter(|g| g.server == server.id)
        .map(|g| g.real_path.clone())
        .collect()
}

/// How the entry of `plan` differs from `server`, which shares `shared`:
/// one sentence each, naming variables but never their values. Empty when
/// nothing that can be compared differs; a value the app fills, or one
/// Rootgate keeps in the keyring, is named as not compared.
pub fn differences(plan: &ImportPlan, server: &ServerSpec, shared: &[PathBuf]) -> Vec<String> {
    let name = &server.name;
    let draft = &plan.draft;
    let mut said = Vec::new();
    if draft.command != server.command {
        said.push(format!(
            "it runs {}; `{name}` runs {}",
            shell_quote(&draft.command),
            shell_quote(&server.command)
        ));
    }
    if draft.args != server.args {
        let line = |args: &[String]| {
            let quoted: Vec<String> = args.iter().map(|a| shell_quote(a)).collect();
            quoted.join(" ")
        };
        said.push(format!(
            "its arguments are `{}`; `{name}`'s are `{}`",
            line(&draft.args),
            line(&server.args)
        ));
    }
    said.extend(folder_differences(&plan.folders, shared, name));
    said.extend(env_differences(plan, server));
    if draft.cwd != server.cwd {
        let place = |cwd: &Option<PathBuf>| match cwd {
            Some(dir) => dir.display().to_string(),
            None => "the folder it is started in".to_owned(),
        };
        said.push(format!(
            "it works in {}; `{name}` in {}",
            place(&draft.cwd),
            place(&server.cwd)
        ));
    }
    said
}

fn folder_differences(mine: &[PathBuf], shared: &[PathBuf], name: &str) -> Vec<String> {
    let mine: BTreeSet<&PathBuf> = mine.iter().collect();
    let theirs: BTreeSet<&PathBuf> = shared.iter().collect();
    let list = |set: Vec<&&PathBuf>| {
        let shown: Vec<String> = set
            .iter()
            .map(|p| rootgate_model::names::written_out(&p.display().to_string()))
            .collect();
        shown.join(", ")
    };
    let mut said = Vec::new();
    let only_mine: Vec<&&PathBuf> = mine.difference(&theirs).collect();
    if !only_mine.is_empty() {
        said.push(format!(
            "it is given {}, which `{name}` does not share; using `{name}` offers it there, \
             and every app routed to `{name}` would see it once you agree",
            list(only_mine)
        ));
    }
    let only_theirs: Vec<&&PathBuf> = theirs.difference(&mine).collect();
    if !only_theirs.is_empty() {
        said.push(format!(
            "`{name}` shares {}, which this entry is not given; this app would see it",
            list(only_theirs)
        ));
    }
    said
}

fn env_differences(plan: &ImportPlan, server: &ServerSpec) -> Vec<String> {
    let name = &server.name;
    let mine = &plan.draft.env;
    let mut said = Vec::new();
    for variable in mine.keys().filter(|k| !server.env.contains_key(*k)) {
        said.push(format!("it sets {variable}; `{name}` does not"));
    }
    for variable in server.env.keys().filter(|k| !mine.contains_key(*k)) {
        said.push(format!("`{name}` sets {variable}; this entry does not"));
    }
    for (variable, value) in mine {
        let Some(theirs) = server.env.get(variable) else {
            continue;
        };
        let filled_by_app = plan
            .needs
            .iter()
            .filter(|n| n.required)
            .find_map(|n| n.written_in(value));
        let kept_elsewhere = server
            .secrets
            .get(variable)
            .is_some_and(|place| !place.in_file());
        if let Some(written) = filled_by_app {
            said.push(format!(
                "{variable} is {written} here, a value the app fills, so it cannot be compared"
            ));
        } else if kept_elsewhere {
            said.push(format!(
                "`{name}` keeps {variable} outside its settings (in the keyring, or not \
                 stored), so its value was not compared"
            ));
        } else if value != theirs {
            said.push(format!("{variable} has another value in `{name}`"));
        }
    }
    said
}
