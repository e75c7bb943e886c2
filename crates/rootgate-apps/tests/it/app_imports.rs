//! Every app format's fixture, put where that app keeps it under a
//! temporary home (`/home/me` in the fixtures is that home), surveyed and
//! imported as the window and `rootgate import` do: the right servers, the
//! folders in their arguments offered (and only folders that exist here),
//! Windows paths kept, values only the app fills asked for, nothing
//! duplicated, and no secret in any error or listing.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rootgate_apps::catalog::{self, AppView, EntryView, Joined};
use rootgate_apps::locate::{self, Places};
use rootgate_apps::route::Ledger;
use rootgate_apps::{AppKind, Scope};
use rootgate_model::secrets::{MemoryKeyring, Secrets};
use rootgate_model::settings::SettingsFile;
use rootgate_model::store::Store;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/apps");
const SECRETS: &[&str] = &[
    "ghp_R00tgateFixtureSecret7h1sIsN0tReal42",
    "sk_test_R00tgateFixtureSecret51Hx",
];

struct Home {
    _dir: tempfile::TempDir,
    places: Places,
    store: Store,
    ledger: Ledger,
}

/// A home holding every fixture where its app keeps it, and the folders
/// its arguments name.
fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let places = Places {
        home: home.clone(),
        xdg_config_home: Some(home.join(".config")),
        claude_config_dir: None,
        homes: Default::default(),
    };
    let put = |app: AppKind, fixture: &str| {
        let text = std::fs::read_to_string(Path::new(FIXTURES).join(fixture)).unwrap();
        let text = text.replace("/home/me", &home.display().to_string());
        let path = locate::main_file(app, &places).path;
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    put(AppKind::ClaudeDesktop, "claude_desktop_config.json");
    put(AppKind::ClaudeCode, "claude.json");
    put(AppKind::Cursor, "cursor_mcp.json");
    put(AppKind::VsCode, "vscode_mcp.json");
    put(AppKind::Zed, "zed_settings.json");
    put(AppKind::Goose, "goose/config.yaml");
    put(AppKind::Windsurf, "windsurf_mcp_config.json");
    put(AppKind::LmStudio, "lmstudio_mcp.json");
    put(AppKind::Kiro, "kiro_mcp.json");
    put(AppKind::AmazonQ, "amazonq_mcp.json");
    put(AppKind::CopilotCli, "copilot_mcp-config.json");
    put(AppKind::GeminiCli, "gemini_settings.json");
    put(AppKind::Cline, "cline_mcp_settings.json");
    put(AppKind::Codex, "codex_config.toml");
    put(AppKind::Continue, "continue/config.yaml");
    put(AppKind::Opencode, "opencode.json");
    // Continue's folder of block files, one YAML and one Claude-style JSON.
    let blocks = home.join(".continue/mcpServers");
    std::fs::create_dir_all(&blocks).unwrap();
    for (name, fixture) in [
        ("playwright-mcp.yaml", "continue/playwright-mcp.yaml"),
        ("mcp.json", "continue/mcp.json"),
    ] {
        let text = std::fs::read_to_string(Path::new(FIXTURES).join(fixture)).unwrap();
        std::fs::write(
            blocks.join(name),
            text.replace("/home/me", &home.display().to_string()),
        )
        .unwrap();
    }
    for folder in ["Documents", "Projects", "code", "notes"] {
        std::fs::create_dir_all(home.join(folder)).unwrap();
    }
    let settings = home.join(".config/rootgate/settings.json");
    // Secrets in a keyring of the test's own, never the person's.
    let secrets = Secrets::new(std::sync::Arc::new(MemoryKeyring::default()));
    let (store, _) = Store::open_with_secrets(SettingsFile::at(&settings), secrets).unwrap();
    Home {
        _dir: dir,
        ledger: Ledger::beside(&settings),
        places,
        store,
    }
}

fn survey(h: &Home) -> Vec<AppView> {
    catalog::survey(&h.places, &h.ledger.load().unwrap(), &h.store.snapshot())
}

fn entry<'a>(apps: &'a [AppView], app: AppKind, key: &str) -> &'a EntryView {
    apps.iter()
        .find(|a| a.app == app)
        .unwrap_or_else(|| panic!("{app:?} not found"))
        .files
        .iter()
        .flat_map(|f| &f.servers)
        .find(|e| e.key == key)
        .unwrap_or_else(|| panic!("{app:?} has no {key}"))
}

#[test]
fn every_app_is_found_with_its_servers_and_offers() {
    let h = home();
    let apps = survey(&h);
    let found: Vec<AppKind> = apps.iter().map(|a| a.app).collect();
    assert_eq!(found, AppKind::ALL.to_vec());
    for app in &apps {
        for file in &app.files {
            assert!(file.problem.is_none(), "{}: {:?}", app.title, file.problem);
        }
    }
    let home = &h.places.home;
    let fs = entry(&apps, AppKind::ClaudeDesktop, "filesystem");
    assert_eq!(fs.folders, [home.join("Documents"), home.join("Projects")]);
    assert!(
        fs.import_command_line
            .as_deref()
            .unwrap()
            .ends_with("'${folders}'")
    );
    let windows = entry(&apps, AppKind::ClaudeDesktop, "windows-notes");
    assert!(windows.folders.is_empty());
    assert_eq!(windows.kept_paths.len(), 2, "{:?}", windows.kept_paths);
    let vscode = entry(&apps, AppKind::VsCode, "github");
    assert_eq!(vscode.needs.len(), 1);
    // Asked for by the input's id, never by the text with its `$`.
    assert_eq!(vscode.needs[0].token, "token");
    assert!(vscode.needs[0].secret);
    assert_eq!(vscode.needs[0].hint, "GitHub Personal Access Token");
    let workspace = entry(&apps, AppKind::VsCode, "workspace-files");
    let tokens: Vec<&str> = workspace.needs.iter().map(|n| n.token.as_str()).collect();
    assert_eq!(tokens, ["workspaceFolder", "envFile"]);
    assert!(entry(&apps, AppKind::VsCode, "context7").remote);
    let cursor = entry(&apps, AppKind::Cursor, "brave-search");
    assert_eq!(cursor.needs[0].token, "API_KEY");
    let zed = entry(&apps, AppKind::Zed, "filesystem");
    assert_eq!(zed.folders, [home.join("code")]);
    for (app, key, folder) in [
        (AppKind::Windsurf, "filesystem", "Documents"),
        (AppKind::LmStudio, "filesystem", "Projects"),
        (AppKind::Kiro, "filesystem", "code"),
        (AppKind::AmazonQ, "filesystem", "notes"),
        (AppKind::CopilotCli, "filesystem", "Projects"),
        (AppKind::GeminiCli, "filesystem", "Documents"),
        (AppKind::Cline, "filesystem", "code"),
        (AppKind::Codex, "filesystem", "Projects"),
        (AppKind::Continue, "Filesystem", "code"),
        (AppKind::Continue, "notes", "notes"),
        (AppKind::Opencode, "filesystem", "Projects"),
    ] {
        let found = entry(&apps, app, key);
        assert_eq!(found.folders, [home.join(folder)], "{app:?} {key}");
        assert!(
            found
                .import_command_line
                .as_deref()
                .unwrap()
                .contains("'${folder"),
            "{app:?}"
        );
    }
    // Each app's own placeholders are values the person gives.
    let need = |app, key, token: &str| {
        entry(&apps, app, key)
            .needs
            .iter()
            .find(|n| n.token == token)
            .cloned()
            .unwrap_or_else(|| panic!("{app:?} {key} does not need {token}"))
    };
    assert!(need(AppKind::Continue, "GitHub", "GITHUB_PERSONAL_ACCESS_TOKEN").secret);
    assert!(need(AppKind::GeminiCli, "pythonTools", "DB_CONNECTION_STRING").required);
    assert!(need(AppKind::GeminiCli, "pythonTools", "EXTERNAL_API_KEY").secret);
    assert!(need(AppKind::Opencode, "my-local-mcp-server", "MY_API_KEY").secret);
    assert!(need(AppKind::Windsurf, "github", "GITHUB_TOKEN").secret);
    let codex = need(AppKind::Codex, "github", "GITHUB_PERSONAL_ACCESS_TOKEN");
    assert!(
        codex.secret && codex.hint.contains("environment"),
        "{}",
        codex.hint
    );
    assert!(entry(&apps, AppKind::CopilotCli, "context7").remote);
    assert!(entry(&apps, AppKind::Codex, "figma").remote);
    let listing = format!("{apps:?}");
    for secret in SECRETS {
        assert!(!listing.contains(secret), "a listing holds a secret");
    }
}

#[test]
fn importing_twice_adds_one_server_and_a_missing_value_adds_none() {
    let h = home();
    let file = catalog::file_of(AppKind::ClaudeDesktop, 0, &h.places).unwrap();
    let import = |key: &str, values: &BTreeMap<String, String>| {
        catalog::import_entry(
            &h.store,
            &h.ledger,
            &h.places,
            &file,
            &Scope::Global,
            key,
            values,
            None,
        )
    };
    let done = import("filesystem", &BTreeMap::new()).unwrap();
    assert_eq!(done.folders.len(), 2);
    assert!(!done.server.is_approved() && !done.server.enabled);
    let again = import("filesystem", &BTreeMap::new()).unwrap_err();
    assert!(again.to_string().contains("already in Rootgate"), "{again}");
    let github = import("github", &BTreeMap::new()).unwrap();
    // The token is kept in the keyring, and the settings name it.
    assert_eq!(github.server.env["GITHUB_PERSONAL_ACCESS_TOKEN"], "");
    assert_eq!(
        h.store
            .secret_value(&github.server.id, "GITHUB_PERSONAL_ACCESS_TOKEN")
            .unwrap(),
        SECRETS[0]
    );
    let file = std::fs::read_to_string(h.store.file().path()).unwrap();
    assert!(
        !file.contains(SECRETS[0]),
        "the settings file holds the token"
    );
    assert_eq!(h.store.snapshot().servers.len(), 2);
    let apps = survey(&h);
    let listed = entry(&apps, AppKind::ClaudeDesktop, "filesystem");
    assert_eq!(listed.imported_as.as_ref().unwrap().name, "filesystem");

    // Zed runs the filesystem server too, on another folder: another
    // server, never Claude Desktop's with its folders. Before the import
    // the listing names Claude Desktop's as a server the person could
    // choose instead, and says how it differs.
    let zed_listed = survey(&h);
    let zed_entry = entry(&zed_listed, AppKind::Zed, "filesystem");
    assert!(zed_entry.imported_as.is_none() && zed_entry.same_as.is_none());
    assert_eq!(zed_entry.candidates.len(), 1, "{:?}", zed_entry.candidates);
    let differs = zed_entry.candidates[0].differences.join("\n");
    assert!(
        differs.contains(&h.places.home.join("code").display().to_string()),
        "{differs}"
    );
    let zed = catalog::file_of(AppKind::Zed, 0, &h.places).unwrap();
    let zed_import = |key: &str| {
        catalog::import_entry(
            &h.store,
            &h.ledger,
            &h.places,
            &zed,
            &Scope::Global,
            key,
            &BTreeMap::new(),
            None,
        )
    };
    let own = zed_import("filesystem").unwrap();
    assert_eq!(own.joined, Joined::New);
    assert_ne!(own.server.id, done.server.id);
    assert_eq!(own.server.name, "filesystem-2");
    assert_eq!(own.folders, [h.places.home.join("code")]);
    assert!(
        zed_import("filesystem")
            .unwrap_err()
            .to_string()
            .contains("already in Rootgate")
    );

    // VS Code's github runs the same docker command as Claude Desktop's,
    // but its token is one VS Code asks for: nothing is proven, so it is
    // not the same server until the person gives the value.
    let vscode = catalog::file_of(AppKind::VsCode, 0, &h.places).unwrap();
    let listed = survey(&h);
    let github_entry = entry(&listed, AppKind::VsCode, "github");
    assert!(github_entry.imported_as.is_none() && github_entry.same_as.is_none());
    let vscode_import = |key: &str, values: &BTreeMap<String, String>| {
        catalog::import_entry(
            &h.store,
            &h.ledger,
            &h.places,
            &vscode,
            &Scope::Global,
            key,
            values,
            None,
        )
    };
    let before_vscode = h.store.snapshot().servers.len();
    let missing = vscode_import("github", &BTreeMap::new()).unwrap_err();
    assert!(missing.to_string().contains("${input:token}"), "{missing}");
    assert_eq!(h.store.snapshot().servers.len(), before_vscode);
    // Given the same token, it runs exactly what Claude Desktop's runs.
    let same_token = BTreeMap::from([("${input:token}".to_owned(), SECRETS[0].to_owned())]);
    let github_again = vscode_import("github", &same_token).unwrap();
    assert_eq!(github_again.joined, Joined::Same);
    assert_eq!(github_again.server.id, github.server.id);
    let missing = vscode_import("workspace-files", &BTreeMap::new()).unwrap_err();
    assert!(
        missing.to_string().contains("${workspaceFolder}"),
        "{missing}"
    );
    assert_eq!(
        h.store.snapshot().servers.len(),
        before_vscode,
        "nothing added without the value"
    );
}

#[test]
fn claude_codes_project_servers_are_in_their_own_scope() {
    let h = home();
    let apps = survey(&h);
    let code = apps.iter().find(|a| a.app == AppKind::ClaudeCode).unwrap();
    let scopes: Vec<&Scope> = code.files[0].servers.iter().map(|e| &e.scope).collect();
    assert!(scopes.contains(&&Scope::Global));
    assert!(
        scopes
            .iter()
            .any(|s| matches!(s, Scope::Project(p) if PathBuf::from(p).ends_with("notes"))),
        "{scopes:?}"
    );
}

/// The window's import (#40): it asks for each need by its name and sends
/// the values so; Gemini CLI's `$DB_CONNECTION_STRING` and
/// `${EXTERNAL_API_KEY}` become the entry's own DATABASE_URL and API_KEY,
/// secret, in the keyring, never a variable named with a `$`, and never in
/// the settings file or a line shown.
#[test]
fn the_windows_values_fill_gemini_variables_under_the_entrys_names() {
    let h = home();
    let apps = survey(&h);
    let listed = entry(&apps, AppKind::GeminiCli, "pythonTools");
    let asked: Vec<&str> = listed.needs.iter().map(|n| n.token.as_str()).collect();
    assert_eq!(asked, ["EXTERNAL_API_KEY", "DB_CONNECTION_STRING"]);
    assert!(listed.needs.iter().all(|n| n.secret && n.required));
    let file = catalog::file_of(AppKind::GeminiCli, 0, &h.places).unwrap();
    let values = BTreeMap::from([
        ("DB_CONNECTION_STRING".to_owned(), SECRETS[0].to_owned()),
        ("EXTERNAL_API_KEY".to_owned(), SECRETS[1].to_owned()),
    ]);
    let done = catalog::import_entry(
        &h.store,
        &h.ledger,
        &h.places,
        &file,
        &Scope::Global,
        "pythonTools",
        &values,
        None,
    )
    .unwrap();
    let server = &done.server;
    let names: Vec<&String> = server.env.keys().collect();
    assert_eq!(
        names,
        ["API_KEY", "DATABASE_URL"],
        "no variable named with a `$`"
    );
    for (name, value) in [("DATABASE_URL", SECRETS[0]), ("API_KEY", SECRETS[1])] {
        assert_eq!(server.env[name], "", "{name}'s value is not in the spec");
        assert_eq!(h.store.secret_value(&server.id, name).unwrap(), value);
    }
    let settings = std::fs::read_to_string(h.store.file().path()).unwrap();
    let shown = [server.command_line(), server.masked_command_line()];
    for secret in SECRETS {
        assert!(!settings.contains(secret), "the settings file holds it");
        assert!(!shown.iter().any(|l| l.contains(secret)), "{shown:?}");
    }
}
