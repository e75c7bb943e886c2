//! `rootgate apps`, `import`, `route` and `unroute` as a person runs them in
//! a terminal, on a Claude Desktop config written the way Claude Desktop
//! writes it, and then that config used as Claude Desktop uses it: the
//! official TypeScript SDK client starts the command the route wrote, and
//! the npm filesystem server, reached through the bridge, reports exactly
//! the folder the person shared (its own `list_allowed_directories`).

use std::path::{Path, PathBuf};
use std::process::Output;

use rootgate_core::servers::SecretPlace;
use rootgate_core::servers::ServerSpec;
use rootgate_test_support::app::*;
use serde_json::{Value, json};

/// Runs the installed-style `rootgate` with the person's environment: their
/// home, the settings in its default place, no window open.
fn rootgate(rg: &Rootgate, args: &[&str]) -> Output {
    std::process::Command::new(binary("rootgate"))
        .args(args)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_RUNTIME_DIR", rg.dir.path().join("run"))
        .output()
        .expect("run rootgate")
}

/// [`rootgate`] where this test's window listens (the runtime folder of
/// this process, which the window's socket is in).
async fn rootgate_with_window(rg: &Rootgate, args: &[&str]) -> Output {
    tokio::process::Command::new(binary("rootgate"))
        .args(args)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .output()
        .await
        .expect("run rootgate")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

const SECRET: &str = "ghp_fixtureSECRETvalue123";
const TOKEN: &str = "GITHUB_PERSONAL_ACCESS_TOKEN";

/// A Claude Desktop config with the filesystem server given `folder`, a
/// server with a secret in its environment, and keys Claude Desktop keeps.
fn claude_config(rg: &Rootgate, folder: &Path) -> (PathBuf, String) {
    let dir = rg.config_home.join("Claude");
    std::fs::create_dir_all(&dir).expect("config dir");
    let original = format!(
        r#"{{
  "globalShortcut": "Ctrl+Alt+Space",
  "mcpServers": {{
    "files": {{
      "command": "{node}",
      "args": ["{fs}", "{folder}"],
      "env": {{ "GITHUB_PERSONAL_ACCESS_TOKEN": "{SECRET}" }}
    }}
  }},
  "preferences": {{ "menuBarEnabled": false }}
}}
"#,
        node = node(),
        fs = fs_server_js().display(),
        folder = folder.display(),
    );
    let path = dir.join("claude_desktop_config.json");
    std::fs::write(&path, &original).expect("write config");
    (path, original)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_route_connect_and_unroute_a_claude_desktop_config() {
    let rg = Rootgate::new();
    let shared = rg.dir.path().join("folders/project");
    std::fs::create_dir_all(&shared).expect("folder");
    let shared = shared.canonicalize().expect("real path");
    let (config, original) = claude_config(&rg, &shared);

    let listed = rootgate(&rg, &["apps", "--json"]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let apps: Value = serde_json::from_slice(&listed.stdout).expect("json");
    let files = &apps[0]["files"][0];
    assert_eq!(apps[0]["app"], "claude-desktop");
    assert_eq!(files["servers"][0]["key"], "files");
    assert_eq!(files["servers"][0]["folders"], json!([shared]));
    assert!(
        !text(&listed.stdout).contains(SECRET),
        "apps printed a secret"
    );

    let imported = rootgate(&rg, &["import", "claude-desktop"]);
    let said = text(&imported.stdout);
    assert!(
        imported.status.success(),
        "{said}{}",
        text(&imported.stderr)
    );
    assert!(said.contains("waits for your approval"), "{said}");
    assert!(!said.contains(SECRET), "import printed a secret: {said}");
    let again = rootgate(&rg, &["import", "claude-desktop"]);
    assert!(
        text(&again.stdout).contains("already in Rootgate"),
        "{}",
        text(&again.stdout)
    );

    // The command never approved or shared anything by itself.
    rg.store.reload().expect("reload");
    let servers = rg.store.snapshot().servers;
    assert_eq!(servers.len(), 1, "imported twice: {servers:#?}");
    let server = &servers[0];
    assert!(!server.is_approved());
    assert_eq!(
        server.args[1], "${folders}",
        "the folder became a placeholder"
    );
    kept_out_of_the_file(&rg, server, TOKEN, SECRET);
    if !has_test_keyring() {
        assert!(said.contains("was not stored"), "{said}");
    }
    assert!(rg.store.snapshot().grants.is_empty());

    // The app's SDK client starts the bridge below with no session bus (it
    // passes servers a few variables only), so the keyring is out of its
    // reach here: the person gives the token again and keeps it in the
    // settings file.
    let mut draft = server.to_draft();
    draft.env.insert(TOKEN.into(), SECRET.into());
    rg.store.update_server(&server.id, draft).expect("give it");
    rg.store
        .keep_secret(&server.id, TOKEN, SecretPlace::File)
        .expect("keep it in the file");

    // The person approves it and shares the folder in the window.
    rg.store
        .approve_command(&server.id, &server.command_line())
        .expect("approve");
    let checked = rootgate_core::folders::check(&shared).expect("check");
    let root = rg.store.add_root(&checked, None).expect("keep").root;
    rg.share(&server.id, &root.id);

    let routed = rootgate(&rg, &["route", "claude-desktop"]);
    let said = text(&routed.stdout);
    assert!(routed.status.success(), "{said}{}", text(&routed.stderr));
    assert!(said.contains("connect"), "the diff is shown: {said}");
    assert!(!said.contains(SECRET), "the diff showed a secret: {said}");
    let now = std::fs::read_to_string(&config).expect("read");
    let written: Value = serde_json::from_str(&now).expect("still JSON");
    assert_eq!(
        written["mcpServers"]["files"]["args"],
        json!(["connect", "files"])
    );
    assert_eq!(written["globalShortcut"], "Ctrl+Alt+Space");
    assert_eq!(written["preferences"], json!({"menuBarEnabled": false}));
    assert!(!now.contains(SECRET), "the secret stayed in the app's file");
    let backups: Vec<_> = std::fs::read_dir(config.parent().expect("dir"))
        .expect("list")
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .contains(".before-rootgate-")
        })
        .collect();
    assert_eq!(backups.len(), 1);
    assert_eq!(
        std::fs::read_to_string(backups[0].path()).expect("backup"),
        original
    );

    // Claude Desktop starts what its file now says, and the server behind
    // the bridge allows exactly the shared folder.
    let mut claude = App::start_from_config(&rg, &config, "files").await;
    assert_eq!(
        claude.connected["event"], "connected",
        "{:#?}",
        claude.connected
    );
    assert_eq!(allowed::<Vec<_>>(&mut claude).await, vec![shared.clone()]);
    drop(claude);

    let undone = rootgate(&rg, &["unroute", "claude-desktop"]);
    assert!(undone.status.success(), "{}", text(&undone.stderr));
    assert_eq!(std::fs::read_to_string(&config).expect("read"), original);
    assert!(
        !backups[0].path().exists(),
        "the backup is removed once restored"
    );
    let twice = rootgate(&rg, &["unroute", "claude-desktop"]);
    assert_eq!(twice.status.code(), Some(1), "nothing left to undo");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_changed_after_routing_is_undone_entry_by_entry() {
    let rg = Rootgate::new();
    let folder = rg.dir.path().join("folders/a");
    std::fs::create_dir_all(&folder).expect("folder");
    let (config, original) = claude_config(&rg, &folder);
    assert!(
        rootgate(&rg, &["import", "claude-desktop"])
            .status
            .success()
    );
    if !has_test_keyring() {
        // Without a keyring the token is stored nowhere, and route leaves
        // such an entry in the app's file (`route_safety`): the person
        // keeps it in the settings file, as the window would ask.
        rg.store.reload().expect("reload");
        let server = rg.store.snapshot().servers[0].clone();
        let mut draft = server.to_draft();
        draft.env.insert(TOKEN.into(), SECRET.into());
        rg.store.update_server(&server.id, draft).expect("give it");
        rg.store
            .keep_secret(&server.id, TOKEN, SecretPlace::File)
            .expect("keep it in the file");
    }
    assert!(rootgate(&rg, &["route", "claude-desktop"]).status.success());
    // Claude Desktop rewrites its file: a setting changes.
    let routed = std::fs::read_to_string(&config).expect("read");
    let changed = routed.replace("\"menuBarEnabled\": false", "\"menuBarEnabled\": true");
    assert_ne!(changed, routed);
    std::fs::write(&config, &changed).expect("app writes");
    let undone = rootgate(&rg, &["unroute", "claude-desktop"]);
    assert!(undone.status.success(), "{}", text(&undone.stderr));
    assert!(text(&undone.stdout).contains("only Rootgate's entries are put back"));
    let now = std::fs::read_to_string(&config).expect("read");
    assert_eq!(
        now,
        original.replace("\"menuBarEnabled\": false", "\"menuBarEnabled\": true"),
        "the server entry is back and the app's change stays"
    );
}

#[test]
fn a_corrupt_config_is_reported_and_left_alone() {
    let rg = Rootgate::new();
    let dir = rg.config_home.join("Claude");
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("claude_desktop_config.json");
    let corrupt = "{\n  \"mcpServers\": {\n    \"files\": { \"command\": \"npx\", \n";
    std::fs::write(&path, corrupt).expect("write");
    let out = rootgate(&rg, &["route", "claude-desktop"]);
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stderr);
    assert!(said.contains("not valid JSON"), "{said}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), corrupt);
    let listed = rootgate(&rg, &["apps"]);
    assert!(listed.status.success());
    assert!(
        text(&listed.stdout).contains("cannot be read"),
        "{}",
        text(&listed.stdout)
    );
}

#[test]
fn a_missing_value_is_asked_for_with_exit_status_3() {
    let rg = Rootgate::new();
    let dir = rg.config_home.join("Code/User");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(
        dir.join("mcp.json"),
        r#"{
  // VS Code asks for the token when it starts the server.
  "inputs": [{ "type": "promptString", "id": "token", "description": "GitHub token", "password": true }],
  "servers": {
    "github": { "type": "stdio", "command": "github-mcp", "args": ["stdio"],
                "env": { "GITHUB_TOKEN": "${input:token}" } }
  }
}
"#,
    )
    .expect("write");
    let out = rootgate(&rg, &["import", "vscode"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("${input:token}"),
        "{}",
        text(&out.stderr)
    );
    let given = rootgate(
        &rg,
        &[
            "import",
            "vscode",
            "github",
            "--set",
            "${input:token}=ghp_given",
        ],
    );
    assert!(given.status.success(), "{}", text(&given.stderr));
    rg.store.reload().expect("reload");
    let servers = rg.store.snapshot().servers;
    kept_out_of_the_file(&rg, &servers[0], "GITHUB_TOKEN", "ghp_given");
}

/// Checks that an imported secret is not in the settings file: in this
/// run's keyring when it has one, else not stored (the command said so).
fn kept_out_of_the_file(rg: &Rootgate, server: &ServerSpec, name: &str, value: &str) {
    assert_eq!(server.env[name], "", "the value is not in the spec");
    let file = std::fs::read_to_string(rg.store.file().path()).expect("settings");
    assert!(!file.contains(value), "the settings file holds the value");
    if has_test_keyring() {
        assert_eq!(server.secrets[name], SecretPlace::Keyring);
        assert_eq!(
            rg.store
                .secret_value(&server.id, name)
                .expect("in the keyring"),
            value
        );
    } else {
        assert_eq!(server.secrets[name], SecretPlace::NotStored);
    }
}

#[test]
fn help_and_usage_errors() {
    let rg = Rootgate::new();
    for command in [
        "apps", "import", "route", "unroute", "servers", "folders", "connect",
    ] {
        let out = rootgate(&rg, &["help", command]);
        assert!(out.status.success());
        assert!(
            text(&out.stdout).starts_with(&format!("rootgate {command}")),
            "{command}"
        );
    }
    let out = rootgate(&rg, &["import", "notepad"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown app"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_window_open_import_is_handed_to_it_and_it_asks_about_the_folders() {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let mut changes = sup.subscribe();
    let folder = rg.dir.path().join("folders/w");
    std::fs::create_dir_all(&folder).expect("folder");
    let folder = folder.canonicalize().expect("real");
    claude_config(&rg, &folder);
    let out = rootgate_with_window(&rg, &["import", "claude-desktop", "files"]).await;
    let said = text(&out.stdout);
    assert!(out.status.success(), "{said}{}", text(&out.stderr));
    assert!(said.contains("approve it in the Rootgate window"), "{said}");
    // The window, which holds the settings, added it: no second writer.
    let servers = sup.servers().list();
    assert_eq!(servers.len(), 1);
    assert!(!servers[0].approved);
    // The window shows the server for approval, the folder asked about
    // after it (#40), as for its own import.
    let prompt = tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(rootgate_core::supervisor::Change::ApprovalWanted { server, prompts }) =
                changes.recv().await
                && let Some(prompt) = prompts.into_iter().next()
            {
                assert!(!server.approved);
                return prompt;
            }
        }
    })
    .await
    .expect("the window asks about the folder");
    assert_eq!(prompt.real_path, folder);
    let suggestion = prompt.suggestion.expect("a suggestion");
    assert!(suggestion.imported);
    assert_eq!(suggestion.server, servers[0].spec.id);
    assert!(
        sup.folders().list().is_empty(),
        "nothing shared until the person answers"
    );
    let again = rootgate_with_window(&rg, &["import", "claude-desktop", "files"]).await;
    assert!(
        text(&again.stdout).contains("already in Rootgate"),
        "{}",
        text(&again.stdout)
    );
    let missing = rootgate_with_window(&rg, &["import", "claude-desktop", "nope"]).await;
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        text(&missing.stderr).contains("no server `nope`"),
        "{}",
        text(&missing.stderr)
    );
}

#[test]
fn a_folder_name_with_hidden_characters_is_written_out_in_the_terminal() {
    let rg = Rootgate::new();
    // "invoice", U+202E, "fdp.exe" reads as "invoiceexe.pdf" once printed raw.
    let folder = rg.dir.path().join("folders/invoice\u{202E}fdp.exe");
    std::fs::create_dir_all(&folder).expect("folder");
    claude_config(&rg, &folder.canonicalize().expect("real"));
    for args in [&["apps"][..], &["import", "claude-desktop"][..]] {
        let out = rootgate(&rg, args);
        let said = text(&out.stdout);
        assert!(out.status.success(), "{said}{}", text(&out.stderr));
        assert!(
            !said.contains('\u{202E}'),
            "{args:?} printed it raw: {said}"
        );
        assert!(said.contains("invoice<U+202E>fdp.exe"), "{args:?}: {said}");
    }
}

/// A server's secret in the keyring reaches it through a bridge that an AI
/// app started the way apps start servers: with the SDK's reduced
/// environment, which says nothing of the session bus, on a desktop whose
/// bus is not at the usual place (this run's own bus, at a random address).
/// The window recorded where its bus is beside the settings, and the
/// bridge found the keyring there; the server's own `get-env` shows the
/// value arrived. Needs this run's keyring (scripts/with-keyring.sh) and
/// fails at once, saying so, without it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_told_nothing_of_the_session_reaches_the_keyring_the_window_recorded() {
    assert!(
        has_test_keyring(),
        "this test needs a keyring of its own: run it under scripts/with-keyring.sh"
    );
    let told = std::env::var("DBUS_SESSION_BUS_ADDRESS").expect("the run's bus");
    let uid = nix::unistd::getuid().as_raw();
    assert!(
        !told.contains(&format!("/run/user/{uid}/bus")),
        "the run's bus is at the usual place ({told}), where any process finds it"
    );
    let (rg, _window) = Rootgate::with_window();
    let recorded = rg
        .store
        .file()
        .path()
        .with_file_name(rootgate_host::keyring::BUS_FILE);
    assert_eq!(
        std::fs::read_to_string(&recorded)
            .expect("the window recorded its bus")
            .trim(),
        told
    );
    let js = everything_js().display().to_string();
    let spec = rg
        .store
        .add_server(rootgate_core::servers::ServerDraft {
            name: "everything".into(),
            command: "node".into(),
            args: vec![js, "stdio".into()],
            env: [(TOKEN.to_owned(), SECRET.to_owned())].into(),
            ..Default::default()
        })
        .expect("add");
    assert_eq!(spec.secrets[TOKEN], SecretPlace::Keyring);
    rg.store
        .approve_command(&spec.id, &spec.command_line())
        .expect("approve");

    // Claude Desktop's way: the SDK's default environment, HOME only.
    let dir = rg.config_home.join("Claude");
    std::fs::create_dir_all(&dir).expect("dir");
    let config = dir.join("claude_desktop_config.json");
    let entry = json!({"mcpServers": {"everything": {
        "command": binary("rootgate").display().to_string(),
        "args": ["connect", "everything"],
    }}});
    std::fs::write(&config, entry.to_string()).expect("write");
    let mut claude = App::start_from_config(&rg, &config, "everything").await;
    assert_eq!(
        claude.connected["event"], "connected",
        "{:#?}",
        claude.connected
    );
    let env = claude.call("get-env", json!({})).await;
    let env: Value = serde_json::from_str(&tool_text(&env)).expect("the server's environment");
    assert_eq!(env[TOKEN], SECRET, "the server got its secret");
    assert!(
        env.get("DBUS_SESSION_BUS_ADDRESS").is_none(),
        "the app told the bridge nothing of the bus"
    );
    claude.send(json!({"op": "close"})).await;
    let _ = claude.child.wait().await;
}

#[test]
fn into_uses_an_existing_server_only_when_asked_and_says_how_it_differs() {
    let rg = Rootgate::new();
    let a = rg.dir.path().join("folders/a");
    let b = rg.dir.path().join("folders/b");
    std::fs::create_dir_all(&a).expect("a");
    std::fs::create_dir_all(&b).expect("b");
    let b = b.canonicalize().expect("real");
    claude_config(&rg, &a.canonicalize().expect("real"));
    assert!(
        rootgate(&rg, &["import", "claude-desktop"])
            .status
            .success()
    );
    // Cursor runs the same server on another folder.
    let cursor = rg.home().join(".cursor/mcp.json");
    std::fs::create_dir_all(cursor.parent().expect("dir")).expect("dir");
    std::fs::write(
        &cursor,
        format!(
            r#"{{ "mcpServers": {{ "fs": {{ "command": "{}", "args": ["{}", "{}"], "env": {{ "{TOKEN}": "{SECRET}" }} }} }} }}"#,
            node(),
            fs_server_js().display(),
            b.display()
        ),
    )
    .expect("cursor");
    let listed = text(&rootgate(&rg, &["apps"]).stdout);
    assert!(
        listed.contains("could use files instead (`rootgate import cursor fs --into files`)"),
        "{listed}"
    );
    assert!(listed.contains(&b.display().to_string()), "{listed}");
    let bad = rootgate(&rg, &["import", "cursor", "--into", "files"]);
    assert_eq!(bad.status.code(), Some(2), "--into needs one entry");
    let none = rootgate(&rg, &["import", "cursor", "fs", "--into", "nope"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(
        text(&none.stderr).contains("no server `nope`"),
        "{}",
        text(&none.stderr)
    );
    let chosen = rootgate(&rg, &["import", "cursor", "fs", "--into", "files"]);
    let said = text(&chosen.stdout);
    assert!(chosen.status.success(), "{said}{}", text(&chosen.stderr));
    assert!(
        said.contains("`fs` now uses files, as you chose."),
        "{said}"
    );
    assert!(said.contains("Differs: it is given"), "{said}");
    assert!(!said.contains(SECRET), "a value was printed: {said}");
    rg.store.reload().expect("reload");
    assert_eq!(rg.store.snapshot().servers.len(), 1);
}
