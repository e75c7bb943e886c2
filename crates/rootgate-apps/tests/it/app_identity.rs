//! When two app entries are one Rootgate server (issue #30): four apps
//! each run the filesystem server on a folder and token of their own, the
//! way a person writes them (Claude Code at the top level and in a
//! project, VS Code with an `${input:token}`, Zed with comments and
//! trailing commas). Each becomes a server of its own and is routed to it;
//! an entry running exactly what another runs is that server; using a
//! server that differs is the person's choice, shown how it differs; and
//! links made by the earlier Rootgate, which took any entry running the
//! same program for one server, are not trusted.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rootgate_apps::catalog::{self, AppView, EntryView, Joined};
use rootgate_apps::locate::{self, Places};
use rootgate_apps::route::{self, ImportRecord, Ledger, Target};
use rootgate_apps::{AppKind, ConfigFile, Scope};
use rootgate_model::ids::now_ms;
use rootgate_model::secrets::{MemoryKeyring, Secrets};
use rootgate_model::settings::SettingsFile;
use rootgate_model::store::Store;

const PACKAGE: &str = "@modelcontextprotocol/server-filesystem";

struct Home {
    _dir: tempfile::TempDir,
    places: Places,
    store: Store,
    ledger: Ledger,
    /// The folders, by the entry that is given it.
    folders: BTreeMap<&'static str, PathBuf>,
}

fn fs_entry(folder: &Path, env: &str) -> String {
    format!(
        r#"{{ "command": "npx", "args": ["-y", "{PACKAGE}", "{}"], "env": {{ {env} }} }}"#,
        folder.display()
    )
}

/// The tester's four configs, under a temporary home.
fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let places = Places {
        home: home.clone(),
        xdg_config_home: Some(home.join(".config")),
        claude_config_dir: None,
        homes: Default::default(),
    };
    let mut folders = BTreeMap::new();
    for (key, name) in [
        ("files", "work"),
        ("webapp-files", "webapp"),
        ("notes", "notes"),
        ("zed-files", "zed"),
    ] {
        let folder = home.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        folders.insert(key, folder);
    }
    let put = |app: AppKind, text: String| {
        let path = locate::main_file(app, &places).path;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    put(
        AppKind::ClaudeCode,
        format!(
            r#"{{
  "numStartups": 12,
  "mcpServers": {{ "files": {files} }},
  "projects": {{
    "{webapp}": {{ "mcpServers": {{ "webapp-files": {webapp_files} }} }}
  }}
}}
"#,
            files = fs_entry(&folders["files"], r#""API_TOKEN": "claude-token-1111""#),
            webapp = folders["webapp-files"].display(),
            webapp_files = fs_entry(
                &folders["webapp-files"],
                r#""API_TOKEN": "webapp-token-2222""#
            ),
        ),
    );
    put(
        AppKind::VsCode,
        format!(
            r#"{{
  "inputs": [{{ "type": "promptString", "id": "token", "description": "Notes token", "password": true }}],
  "servers": {{ "notes": {notes} }}
}}
"#,
            notes = fs_entry(&folders["notes"], r#""API_TOKEN": "${input:token}""#),
        ),
    );
    put(
        AppKind::Zed,
        format!(
            r#"{{
  // Zed's own settings stay as they are.
  "theme": "One Dark",
  "context_servers": {{
    "zed-files": {zed},
  }},
}}
"#,
            zed = fs_entry(&folders["zed-files"], r#""API_TOKEN": "zed-token-4444""#),
        ),
    );
    let settings = home.join(".config/rootgate/settings.json");
    let secrets = Secrets::new(std::sync::Arc::new(MemoryKeyring::default()));
    let (store, _) = Store::open_with_secrets(SettingsFile::at(&settings), secrets).unwrap();
    Home {
        _dir: dir,
        ledger: Ledger::beside(&settings),
        places,
        store,
        folders,
    }
}

/// Where each of the four entries is: the app, its file and its scope.
fn place(h: &Home, key: &str) -> (ConfigFile, Scope) {
    let app = match key {
        "files" | "webapp-files" => AppKind::ClaudeCode,
        "notes" => AppKind::VsCode,
        _ => AppKind::Zed,
    };
    let scope = match key {
        "webapp-files" => Scope::Project(h.folders["webapp-files"].display().to_string()),
        _ => Scope::Global,
    };
    (catalog::file_of(app, 0, &h.places).unwrap(), scope)
}

fn import(
    h: &Home,
    key: &str,
    values: &[(&str, &str)],
    existing: Option<&str>,
) -> Result<catalog::Imported, catalog::AppsError> {
    let (file, scope) = place(h, key);
    let values = values
        .iter()
        .map(|(t, v)| (t.to_string(), v.to_string()))
        .collect();
    let existing = existing.map(|name| catalog::server_named(&h.store, key, name).unwrap());
    catalog::import_entry(
        &h.store,
        &h.ledger,
        &h.places,
        &file,
        &scope,
        key,
        &values,
        existing.as_ref(),
    )
}

fn survey(h: &Home) -> Vec<AppView> {
    catalog::survey(&h.places, &h.ledger.load().unwrap(), &h.store.snapshot())
}

fn entry(apps: &[AppView], key: &str) -> EntryView {
    apps.iter()
        .flat_map(|a| &a.files)
        .flat_map(|f| &f.servers)
        .find(|e| e.key == key)
        .unwrap_or_else(|| panic!("no entry {key}"))
        .clone()
}

/// The names route would write for `file`'s entries, or why not.
fn routes(h: &Home, file: &ConfigFile) -> BTreeMap<String, Result<String, String>> {
    catalog::server_names(
        file,
        &h.places,
        &h.ledger.load().unwrap(),
        &h.store.snapshot(),
    )
    .into_iter()
    .map(|((_, key), to)| (key, to))
    .collect()
}

#[test]
fn four_entries_on_their_own_folders_and_tokens_are_four_servers_each_routed_to_its_own() {
    let h = home();
    let first = import(&h, "files", &[], None).unwrap();
    assert_eq!(first.joined, Joined::New);

    // After Claude Code's `files` is imported, the other three are not
    // "imported as files": each says how it differs from it.
    let apps = survey(&h);
    for key in ["webapp-files", "notes", "zed-files"] {
        let e = entry(&apps, key);
        assert_eq!(e.imported_as, None, "{key}");
        assert_eq!(e.same_as, None, "{key}");
        assert_eq!(e.candidates.len(), 1, "{key}: {:?}", e.candidates);
        let differs = e.candidates[0].differences.join("\n");
        assert!(
            differs.contains(&h.folders[key].display().to_string()),
            "{key}: {differs}"
        );
    }
    let notes = entry(&apps, "notes");
    assert!(
        notes.candidates[0]
            .differences
            .iter()
            .any(|d| d.contains("${input:token}") && d.contains("cannot be compared")),
        "{:?}",
        notes.candidates[0].differences
    );
    assert_eq!(notes.needs[0].token, "token", "the token is asked for");
    let listing = format!("{apps:?}");
    for token in ["claude-token-1111", "webapp-token-2222", "zed-token-4444"] {
        assert!(!listing.contains(token), "a listing holds a token");
    }

    // VS Code's token is asked for, not taken from Claude Code's server.
    let missing = import(&h, "notes", &[], None).err().unwrap();
    assert!(missing.to_string().contains("${input:token}"), "{missing}");
    let webapp = import(&h, "webapp-files", &[], None).unwrap();
    let notes = import(&h, "notes", &[("${input:token}", "notes-token-3333")], None).unwrap();
    let zed = import(&h, "zed-files", &[], None).unwrap();
    let all = [&first, &webapp, &notes, &zed];
    for (done, key) in all
        .iter()
        .zip(["files", "webapp-files", "notes", "zed-files"])
    {
        assert_eq!(done.joined, Joined::New, "{key}");
        assert_eq!(
            done.folders,
            [h.folders[key].clone()],
            "{key} offers its own folder"
        );
    }
    let servers = h.store.snapshot().servers;
    assert_eq!(servers.len(), 4, "{servers:#?}");
    let mut ids: Vec<_> = all.iter().map(|d| d.server.id.clone()).collect();
    ids.dedup();
    assert_eq!(ids.len(), 4);
    for (done, token) in all.iter().zip([
        "claude-token-1111",
        "webapp-token-2222",
        "notes-token-3333",
        "zed-token-4444",
    ]) {
        assert_eq!(
            h.store.secret_value(&done.server.id, "API_TOKEN").unwrap(),
            token,
            "{} keeps its own token",
            done.server.name
        );
    }

    // Route sends each entry to its own server.
    let (claude, _) = place(&h, "files");
    let (vscode, _) = place(&h, "notes");
    let (zed_file, _) = place(&h, "zed-files");
    let claude_routes = routes(&h, &claude);
    assert_eq!(claude_routes["files"], Ok(first.server.name.clone()));
    assert_eq!(
        claude_routes["webapp-files"],
        Ok(webapp.server.name.clone())
    );
    assert_eq!(routes(&h, &vscode)["notes"], Ok(notes.server.name.clone()));
    assert_eq!(
        routes(&h, &zed_file)["zed-files"],
        Ok(zed.server.name.clone())
    );
    let target = Target {
        program: PathBuf::from("/usr/bin/rootgate"),
        env: BTreeMap::new(),
    };
    let names = routes(&h, &zed_file);
    let plan = route::plan_route(
        AppKind::Zed,
        &zed_file.path,
        &[],
        |_, key| names[key].clone(),
        &target,
    )
    .unwrap();
    assert_eq!(plan.entries[0].server, "zed-files");
    assert!(
        plan.after
            .contains("// Zed's own settings stay as they are.")
    );
}

#[test]
fn an_entry_running_exactly_the_same_is_that_server_and_any_other_is_the_persons_choice() {
    let h = home();
    let first = import(&h, "files", &[], None).unwrap();
    // Cursor runs exactly what Claude Code's `files` runs.
    let cursor = locate::main_file(AppKind::Cursor, &h.places).path;
    std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    std::fs::write(
        &cursor,
        format!(
            r#"{{ "mcpServers": {{ "fs": {} }} }}"#,
            fs_entry(&h.folders["files"], r#""API_TOKEN": "claude-token-1111""#)
        ),
    )
    .unwrap();
    let apps = survey(&h);
    let fs = entry(&apps, "fs");
    assert_eq!(
        fs.same_as.as_ref().map(|s| &s.name),
        Some(&first.server.name)
    );
    let file = catalog::file_of(AppKind::Cursor, 0, &h.places).unwrap();
    let same = catalog::import_entry(
        &h.store,
        &h.ledger,
        &h.places,
        &file,
        &Scope::Global,
        "fs",
        &BTreeMap::new(),
        None,
    )
    .unwrap();
    assert_eq!(same.joined, Joined::Same);
    assert_eq!(same.server.id, first.server.id);
    assert_eq!(h.store.snapshot().servers.len(), 1);

    // The person chooses to use `files` for Zed's entry, which differs:
    // the choice is kept, and the import says how the two differ.
    let chosen = import(&h, "zed-files", &[], Some("files")).unwrap();
    assert_eq!(chosen.server.id, first.server.id);
    let Joined::Chosen { differences } = &chosen.joined else {
        panic!("{:?}", chosen.joined)
    };
    let said = differences.join("\n");
    assert!(
        said.contains(&h.folders["zed-files"].display().to_string()),
        "{said}"
    );
    assert!(
        !said.contains("zed-token-4444"),
        "a value was shown: {said}"
    );
    assert_eq!(chosen.folders, [h.folders["zed-files"].clone()]);
    let (zed_file, _) = place(&h, "zed-files");
    assert_eq!(routes(&h, &zed_file)["zed-files"], Ok("files".to_owned()));
    assert_eq!(h.store.snapshot().servers.len(), 1);
}

#[test]
fn links_the_earlier_rootgate_made_are_not_trusted_and_a_changed_entry_is_shown() {
    let h = home();
    let first = import(&h, "files", &[], None).unwrap();
    // The earlier Rootgate linked Zed's entry to `files` with no digest.
    let (zed_file, zed_scope) = place(&h, "zed-files");
    h.ledger
        .change(|data| {
            data.imports.push(ImportRecord {
                app: AppKind::Zed,
                file: zed_file.path.clone(),
                scope: zed_scope.clone(),
                key: "zed-files".into(),
                server: first.server.id.clone(),
                at: now_ms(),
                entry: None,
                identity: None,
            });
            Ok(())
        })
        .unwrap();
    let zed = entry(&survey(&h), "zed-files");
    assert_eq!(zed.imported_as, None);
    let link = zed.doubtful_link.expect("the old link is shown");
    assert_eq!(link.server.id, first.server.id);
    assert!(link.reason.contains("without comparing"), "{}", link.reason);
    assert!(
        zed.candidates
            .iter()
            .any(|c| c.server.id == first.server.id),
        "the linked server is offered as a choice, with its differences"
    );
    let reason = routes(&h, &zed_file)["zed-files"].clone().unwrap_err();
    assert!(reason.contains("not trusted"), "{reason}");
    // Importing it again makes its own server and replaces the old link.
    let own = import(&h, "zed-files", &[], None).unwrap();
    assert_eq!(own.joined, Joined::New);
    assert_eq!(
        routes(&h, &zed_file)["zed-files"],
        Ok(own.server.name.clone())
    );
    let records = h.ledger.load().unwrap().imports;
    assert_eq!(records.iter().filter(|r| r.key == "zed-files").count(), 1);

    // Claude Code's `files` then changes folder: its link is doubted.
    let (claude, _) = place(&h, "files");
    let text = std::fs::read_to_string(&claude.path).unwrap();
    let moved = text.replacen(
        &h.folders["files"].display().to_string(),
        &h.folders["notes"].display().to_string(),
        1,
    );
    std::fs::write(&claude.path, moved).unwrap();
    let files = entry(&survey(&h), "files");
    assert_eq!(files.imported_as, None);
    let link = files.doubtful_link.expect("a changed entry is shown");
    assert!(
        link.reason.contains("changed in Claude Code"),
        "{}",
        link.reason
    );
    assert!(routes(&h, &claude)["files"].is_err());
}
