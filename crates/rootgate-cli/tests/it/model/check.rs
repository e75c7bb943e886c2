//! The comparisons made after every step, each against the model and
//! each returning the difference in words: the settings file as read by
//! the real loader (servers, approval, Workspace, grants, the pause), the
//! keyring, every app's config file byte for byte with what lies beside
//! it, and what every live connection's npm filesystem server itself says
//! (`list_allowed_directories`) and lets the app read.
//!
//! What a server shows is checked twice: at once (nothing withdrawn may be
//! listed or read any more: a withdrawal is true when the window says it
//! is done), then until a bound (everything shared is listed and readable).
//!
//! Not here: choosing or taking steps (see `ops`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use rootgate_core::servers::SecretPlace;
use rootgate_core::settings::SettingsFile;
use rootgate_model::secrets::Secrets;
use rootgate_test_support::app::*;
use serde_json::{Value, json};

use super::state::{Model, NOTE, Routing};
use super::world::{World, call};

/// How long a shared folder may take to reach a running server.
const REACH: Duration = Duration::from_secs(15);

/// The settings as the real loader reads them, in the model's terms.
pub fn settings(world: &World, model: &Model) -> Result<(), String> {
    let (read, damage) = SettingsFile::at(&world.settings)
        .read()
        .map_err(|e| format!("the settings cannot be read: {e}"))?;
    if let Some(damage) = damage {
        return Err(format!("the settings file is damaged: {damage}"));
    }
    let mut names = BTreeMap::new();
    for spec in &read.servers {
        if names.insert(spec.id.clone(), spec.name.clone()).is_some() {
            return Err(format!("server id {} twice", spec.id));
        }
    }
    let found: BTreeSet<&str> = read.servers.iter().map(|s| s.name.as_str()).collect();
    let want: BTreeSet<&str> = model.servers.keys().map(String::as_str).collect();
    if found != want || found.len() != read.servers.len() {
        return Err(format!(
            "servers in the settings: {found:?} ({} entries); the model has {want:?}",
            read.servers.len()
        ));
    }
    for spec in &read.servers {
        let m = &model.servers[&spec.name];
        if spec.is_approved() != m.approved || spec.workspace_only != m.workspace {
            return Err(format!(
                "server {}: approved {} workspace {} in the settings; the model says {} and {}",
                spec.name,
                spec.is_approved(),
                spec.workspace_only,
                m.approved,
                m.workspace
            ));
        }
    }
    let folder_of: BTreeMap<_, _> = read
        .roots
        .iter()
        .map(|r| (r.id.clone(), r.real_path.clone()))
        .collect();
    let mut grants: BTreeSet<(String, PathBuf)> = BTreeSet::new();
    for g in &read.grants {
        let server = names.get(&g.server).cloned().unwrap_or_default();
        let folder = folder_of.get(&g.root).cloned().unwrap_or_default();
        grants.insert((server, folder));
    }
    let want: BTreeSet<(String, PathBuf)> = model
        .servers
        .iter()
        .flat_map(|(name, s)| {
            s.grants
                .iter()
                .map(move |f| (name.clone(), model.folders[*f].clone()))
        })
        .collect();
    if grants != want {
        return Err(format!(
            "grants in the settings: {grants:?}; the model has {want:?}"
        ));
    }
    if read.preferences.sharing_paused != model.paused {
        return Err(format!(
            "paused is {} in the settings; the model says {}",
            read.preferences.sharing_paused, model.paused
        ));
    }
    Ok(())
}

/// Whether the settings file grants `folder` to `server` (to settle a
/// change whose window was killed while making it).
pub fn granted(world: &World, model: &Model, server: &str, folder: usize) -> Result<bool, String> {
    let (read, _) = SettingsFile::at(&world.settings)
        .read()
        .map_err(|e| format!("the settings cannot be read: {e}"))?;
    let Some(spec) = read.servers.iter().find(|s| s.name == server) else {
        return Ok(false);
    };
    let Some(root) = read
        .roots
        .iter()
        .find(|r| r.real_path == model.folders[folder])
    else {
        return Ok(false);
    };
    Ok(read
        .grants
        .iter()
        .any(|g| g.server == spec.id && g.root == root.id))
}

/// Every imported secret is in the keyring with its value, or still in
/// the app's own file: never stored nowhere.
pub fn keyring(world: &World, model: &Model) -> Result<(), String> {
    let (read, _) = SettingsFile::at(&world.settings)
        .read()
        .map_err(|e| e.to_string())?;
    let secrets = Secrets::system();
    for file in model.files.iter().filter(|f| f.imported) {
        let Some((name, value)) = file.secret else {
            continue;
        };
        let Some(spec) = read.servers.iter().find(|s| s.name == file.entry) else {
            continue;
        };
        let in_keyring = spec.secrets.get(name) == Some(&SecretPlace::Keyring)
            && secrets.value(spec, name).ok().as_deref() == Some(value);
        let bytes = std::fs::read(&file.path).unwrap_or_default();
        let in_file = String::from_utf8_lossy(&bytes).contains(value);
        if !in_keyring && !in_file {
            return Err(format!(
                "{}'s {name} is stored nowhere: not in the keyring ({:?}), not in {}",
                file.entry,
                spec.secrets.get(name),
                file.path.display()
            ));
        }
    }
    Ok(())
}

/// Each app's file holds the bytes the model expects, and beside it only
/// what should be: one backup equal to the original while routed, none
/// otherwise. A file whose route was killed is settled here as what it
/// turned out to be (the original, or a routed file).
pub fn files(model: &mut Model) -> Result<(), String> {
    for file in &mut model.files {
        let bytes =
            std::fs::read(&file.path).map_err(|e| format!("{}: {e}", file.path.display()))?;
        match &file.routing {
            Routing::Original if bytes != file.original => {
                return Err(format!(
                    "{} changed without a route: {}",
                    file.path.display(),
                    String::from_utf8_lossy(&bytes)
                ));
            }
            Routing::Routed(routed) if &bytes != routed => {
                return Err(format!(
                    "{} is not as routed: {}",
                    file.path.display(),
                    String::from_utf8_lossy(&bytes)
                ));
            }
            Routing::Unsure if bytes == file.original => file.routing = Routing::Original,
            Routing::Unsure => {
                routed_entry(file.entry, &bytes)
                    .map_err(|e| format!("{} after a killed route: {e}", file.path.display()))?;
                file.routing = Routing::Routed(bytes.clone());
            }
            _ => {}
        }
        let dir = file.path.parent().ok_or("no folder")?;
        let name = file
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or("no name")?;
        let mut beside: Vec<String> = std::fs::read_dir(dir)
            .map_err(|e| e.to_string())?
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != name)
            .collect();
        beside.sort();
        if file.leftovers_allowed {
            continue;
        }
        let backups: Vec<&String> = beside
            .iter()
            .filter(|n| n.starts_with(&format!("{name}.before-rootgate-")))
            .collect();
        let routed = matches!(file.routing, Routing::Routed(_));
        let want_backups = usize::from(routed);
        if backups.len() != want_backups || beside.len() != want_backups {
            return Err(format!(
                "beside {} (routed: {routed}): {beside:?}",
                file.path.display()
            ));
        }
        if let Some(backup) = backups.first() {
            let kept = std::fs::read(dir.join(backup)).map_err(|e| e.to_string())?;
            if kept != file.original {
                return Err(format!("the backup {backup} is not the original"));
            }
        }
    }
    Ok(())
}

/// A routed file's entry runs `rootgate connect ENTRY`.
pub fn routed_entry(entry: &str, bytes: &[u8]) -> Result<(), String> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    let args = &value["mcpServers"][entry]["args"];
    if args != &json!(["connect", entry]) {
        return Err(format!("the entry {entry} runs {args}"));
    }
    Ok(())
}

/// What a server listed, or why nothing could be listed.
fn listed(result: &Result<Value, Value>) -> Result<BTreeSet<PathBuf>, String> {
    match result {
        Ok(ok) if ok["isError"] == true => Err(tool_text(ok)),
        Ok(ok) => Ok(tool_text(ok)
            .lines()
            .filter(|l| l.starts_with('/'))
            .map(PathBuf::from)
            .collect()),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether reading `folder`'s note through the connection gave its text.
async fn reads(world: &mut World, conn: usize, model: &Model, folder: usize) -> bool {
    let path = model.folders[folder].join(NOTE);
    let answer = call(
        &mut world.conns[conn].app,
        "read_text_file",
        json!({"path": path}),
    )
    .await;
    matches!(answer, Ok(ok) if ok["isError"] != true && tool_text(&ok).contains(&model.note_text(folder)))
}

/// A connection as a failure names it.
fn named(world: &World, conn: usize) -> String {
    let c = &world.conns[conn];
    format!(
        "{} (connection {conn}: app folder {:?}, Workspace at its start {}{})",
        c.server,
        c.roots,
        c.workspace,
        if c.via_file.is_some() {
            ", started from the app's file"
        } else {
            ""
        }
    )
}

/// Whether `ROOTGATE_MODEL_LOOK_PAST` (a comma list, never set in CI)
/// names `class`: a known failure to look past while looking for others.
/// `withdrawals`: a withdrawal may take as long as a share to reach a
/// server; `call-errors`: a call may fail while a share reaches it.
pub fn look_past(class: &str) -> bool {
    std::env::var("ROOTGATE_MODEL_LOOK_PAST").is_ok_and(|v| v.split(',').any(|c| c.trim() == class))
}

/// At once: no live connection lists or reads a folder it must not see
/// (or, looking past `withdrawals`, within [`REACH`]).
pub async fn nothing_withdrawn_seen(world: &mut World, model: &Model) -> Result<(), String> {
    let patient = look_past("withdrawals");
    let deadline = tokio::time::Instant::now() + REACH;
    loop {
        match withdrawn_seen(world, model).await {
            Err(_) if patient && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            done => return done,
        }
    }
}

async fn withdrawn_seen(world: &mut World, model: &Model) -> Result<(), String> {
    for conn in 0..world.conns.len() {
        let c = &world.conns[conn];
        let want = model.expected(&c.server, c.roots, c.workspace);
        let want_paths: BTreeSet<PathBuf> =
            want.iter().map(|f| model.folders[*f].clone()).collect();
        let answer = call(
            &mut world.conns[conn].app,
            "list_allowed_directories",
            json!({}),
        )
        .await;
        if let Ok(found) = listed(&answer) {
            let extra: Vec<_> = found.difference(&want_paths).collect();
            if !extra.is_empty() {
                return Err(format!(
                    "{} still lists {extra:?}; it may see only {want_paths:?}",
                    named(world, conn)
                ));
            }
        }
        for folder in 0..model.folders.len() {
            if !want.contains(&folder) && reads(world, conn, model, folder).await {
                return Err(format!(
                    "{} read folder {folder}, which it may not see (it may see {want:?})",
                    named(world, conn)
                ));
            }
        }
    }
    Ok(())
}

/// Within [`REACH`]: every live connection lists exactly what it may see
/// and reads each of those folders. A connection with nothing to see may
/// also be answered with an error (a server given its folders as
/// arguments waits for one).
pub async fn everything_shared_seen(world: &mut World, model: &Model) -> Result<(), String> {
    for conn in 0..world.conns.len() {
        let c = &world.conns[conn];
        let want = model.expected(&c.server, c.roots, c.workspace);
        let want_paths: BTreeSet<PathBuf> =
            want.iter().map(|f| model.folders[*f].clone()).collect();
        let deadline = tokio::time::Instant::now() + REACH;
        let mut last;
        loop {
            let answer = call(
                &mut world.conns[conn].app,
                "list_allowed_directories",
                json!({}),
            )
            .await;
            last = match listed(&answer) {
                Ok(found) if found == want_paths => break,
                Err(_) if want.is_empty() => break,
                Ok(found) => format!("lists {found:?}"),
                Err(e) if look_past("call-errors") => format!("fails: {e}"),
                // The app's call must wait for the folders, whatever the
                // server (a restart for its arguments included), not fail.
                Err(e) => {
                    return Err(format!(
                        "{} failed a call while it may see {want_paths:?}: {e}",
                        named(world, conn)
                    ));
                }
            };
            if tokio::time::Instant::now() > deadline {
                return Err(format!(
                    "{} {last}; it should list {want_paths:?} within {REACH:?}",
                    named(world, conn)
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        for folder in want {
            if !reads(world, conn, model, folder).await {
                return Err(format!(
                    "{} lists folder {folder} but cannot read its note",
                    named(world, conn)
                ));
            }
        }
    }
    Ok(())
}
