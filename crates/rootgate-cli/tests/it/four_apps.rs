//! Issue #30 as the tester met it: Claude Code (at the top level and in a
//! project), VS Code (with an `${input:token}`) and Zed (comments, trailing
//! commas) each run the npm filesystem server on a folder and token of
//! their own. Imported and routed from the terminal, with and without the
//! window open, they are four servers, each app's file names its own, and
//! the official TypeScript SDK client, started exactly as each routed file
//! says, is told by the server itself (`list_allowed_directories`) that it
//! may see that app's folder and no other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use rootgate_core::servers::SecretPlace;
use rootgate_test_support::app::*;
use serde_json::{Value, json};

/// The four entries: key, app id, the token in the app's file (None: VS
/// Code asks for it), the token the person types for it.
const ENTRIES: &[(&str, &str, &str)] = &[
    ("files", "claude-code", "claude-token-1111"),
    ("webapp-files", "claude-code", "webapp-token-2222"),
    ("notes", "vscode", "notes-token-3333"),
    ("zed-files", "zed", "zed-token-4444"),
];

struct Apps {
    /// The folder each entry is given, by key (real paths).
    folders: BTreeMap<&'static str, PathBuf>,
    claude_code: PathBuf,
    vscode: PathBuf,
    zed: PathBuf,
}

impl Apps {
    fn file(&self, key: &str) -> &Path {
        match key {
            "files" | "webapp-files" => &self.claude_code,
            "notes" => &self.vscode,
            _ => &self.zed,
        }
    }
}

fn entry(folder: &Path, token: &str) -> String {
    format!(
        r#"{{ "command": "{node}", "args": ["{fs}", "{folder}"], "env": {{ "API_TOKEN": "{token}" }} }}"#,
        node = node(),
        fs = fs_server_js().display(),
        folder = folder.display(),
    )
}

/// The four configs, written where each app keeps them.
fn write_configs(rg: &Rootgate) -> Apps {
    let home = rg.home();
    let mut folders = BTreeMap::new();
    for (key, _, _) in ENTRIES {
        let folder = rg.dir.path().join("folders").join(key);
        std::fs::create_dir_all(&folder).expect("folder");
        folders.insert(*key, folder.canonicalize().expect("real path"));
    }
    let write = |path: &Path, text: String| {
        std::fs::create_dir_all(path.parent().expect("dir")).expect("config dir");
        std::fs::write(path, text).expect("write config");
    };
    let claude_code = home.join(".claude.json");
    write(
        &claude_code,
        format!(
            r#"{{
  "numStartups": 3,
  "mcpServers": {{ "files": {files} }},
  "projects": {{ "{webapp}": {{ "mcpServers": {{ "webapp-files": {webapp_files} }} }} }}
}}
"#,
            files = entry(&folders["files"], ENTRIES[0].2),
            webapp = folders["webapp-files"].display(),
            webapp_files = entry(&folders["webapp-files"], ENTRIES[1].2),
        ),
    );
    let vscode = rg.config_home.join("Code/User/mcp.json");
    write(
        &vscode,
        format!(
            r#"{{
  // VS Code asks for the token when it starts the server.
  "inputs": [{{ "type": "promptString", "id": "token", "description": "Notes token", "password": true }}],
  "servers": {{ "notes": {notes} }}
}}
"#,
            notes = entry(&folders["notes"], "${input:token}"),
        ),
    );
    let zed = rg.config_home.join("zed/settings.json");
    write(
        &zed,
        format!(
            r#"{{
  // Zed's own settings.
  "theme": "One Dark",
  "context_servers": {{
    "zed-files": {zed_files},
  }},
}}
"#,
            zed_files = entry(&folders["zed-files"], ENTRIES[3].2),
        ),
    );
    Apps {
        folders,
        claude_code,
        vscode,
        zed,
    }
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

/// Runs `rootgate` as the person does: their home, the settings in the
/// default place, `stdin` as standard input; `window` says whether this
/// test's window is reachable (its runtime folder) or not.
async fn rootgate(rg: &Rootgate, window: bool, args: &[&str], stdin: &str) -> Output {
    use tokio::io::AsyncWriteExt;
    let mut cmd = tokio::process::Command::new(binary("rootgate"));
    cmd.args(args)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if !window {
        cmd.env("XDG_RUNTIME_DIR", rg.dir.path().join("run"));
    }
    let mut child = cmd.spawn().expect("run rootgate");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).await.expect("stdin");
    drop(input);
    child.wait_with_output().await.expect("rootgate ran")
}

/// The four imports, as the person runs them: VS Code's without its
/// token first (refused, exit status 3), then with the token read from
/// standard input rather than put on the command line.
async fn import_all(rg: &Rootgate, window: bool) -> String {
    let mut said = String::new();
    for app in ["claude-code", "zed"] {
        let out = rootgate(rg, window, &["import", app], "").await;
        said += &text(&out.stdout);
        assert!(out.status.success(), "{said}{}", text(&out.stderr));
    }
    let refused = rootgate(rg, window, &["import", "vscode"], "").await;
    assert_eq!(refused.status.code(), Some(3), "{}", text(&refused.stderr));
    assert!(text(&refused.stderr).contains("${input:token}"));
    let given = rootgate(
        rg,
        window,
        &["import", "vscode", "notes", "--set", "${input:token}=-"],
        &format!("{}\n", ENTRIES[2].2),
    )
    .await;
    said += &text(&given.stdout);
    assert!(given.status.success(), "{said}{}", text(&given.stderr));
    for (_, _, token) in ENTRIES {
        assert!(!said.contains(token), "import printed a token: {said}");
    }
    said
}

/// Each server was imported from its own entry, with that entry's token:
/// in the run's keyring when it has one (else the import said it was not
/// stored). The person then gives each token for the settings file (the
/// SDK client starts bridges without the session bus, so out of the
/// keyring's reach), approves each command, and shares each folder.
fn servers_by_entry(rg: &Rootgate) -> BTreeMap<&'static str, rootgate_core::servers::ServerSpec> {
    rg.store.reload().expect("reload");
    let servers = rg.store.snapshot().servers;
    assert_eq!(servers.len(), 4, "{servers:#?}");
    ENTRIES
        .iter()
        .map(|(key, _, token)| {
            let server = servers
                .iter()
                .find(|s| s.name == *key)
                .unwrap_or_else(|| panic!("no server {key}: {servers:#?}"));
            if has_test_keyring() {
                assert_eq!(
                    rg.store
                        .secret_value(&server.id, "API_TOKEN")
                        .expect("kept"),
                    *token,
                    "{key} keeps its own token"
                );
            }
            (*key, server.clone())
        })
        .collect()
}

/// Routes the three apps from the terminal and starts each routed entry
/// as its app would: each sees its own folder, and only it.
async fn route_and_check(rg: &Rootgate, window: bool, apps: &Apps) {
    for app in ["claude-code", "vscode", "zed"] {
        let out = rootgate(rg, window, &["route", app], "").await;
        let said = text(&out.stdout);
        assert!(out.status.success(), "{said}{}", text(&out.stderr));
        for (_, _, token) in ENTRIES {
            assert!(!said.contains(token), "the diff showed a token: {said}");
        }
        // This test's `rootgate` is in Cargo's build folder: route says so.
        assert!(
            text(&out.stderr).contains("in the build folder"),
            "{}",
            text(&out.stderr)
        );
        let again = rootgate(rg, window, &["route", app], "").await;
        assert!(again.status.success(), "{}", text(&again.stderr));
        assert!(
            text(&again.stdout).contains("already routed"),
            "{}",
            text(&again.stdout)
        );
    }
    let zed = std::fs::read_to_string(&apps.zed).expect("zed");
    assert!(zed.contains("// Zed's own settings."), "{zed}");
    for (key, _, _) in ENTRIES {
        let project = (*key == "webapp-files").then(|| apps.folders[key].as_path());
        let mut app = App::start_from_app_config(rg, apps.file(key), key, project).await;
        assert_eq!(
            app.connected["event"], "connected",
            "{key}: {:#?}",
            app.connected
        );
        assert_eq!(
            allowed::<Vec<_>>(&mut app).await,
            vec![apps.folders[key].clone()],
            "{key} sees its own folder, and no other"
        );
    }
    let routed: Value =
        serde_json::from_str(&std::fs::read_to_string(&apps.claude_code).expect("read"))
            .expect("JSON");
    let project = apps.folders["webapp-files"].display().to_string();
    assert_eq!(
        routed["projects"][&project]["mcpServers"]["webapp-files"]["args"],
        json!(["connect", "webapp-files"])
    );
    assert_eq!(
        routed["mcpServers"]["files"]["args"],
        json!(["connect", "files"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_apps_on_their_own_folders_are_four_servers_from_the_terminal() {
    let rg = Rootgate::new();
    let apps = write_configs(&rg);
    let said = import_all(&rg, false).await;
    assert_eq!(said.matches("Imported `").count(), 4, "{said}");
    let servers = servers_by_entry(&rg);
    for (key, _, token) in ENTRIES {
        let server = &servers[key];
        let mut draft = server.to_draft();
        draft.env.insert("API_TOKEN".into(), (*token).into());
        rg.store.update_server(&server.id, draft).expect("give it");
        rg.store
            .keep_secret(&server.id, "API_TOKEN", SecretPlace::File)
            .expect("keep it in the file");
        let server = rg.store.server(&server.id).expect("server");
        rg.store
            .approve_command(&server.id, &server.command_line())
            .expect("approve");
        let checked = rootgate_core::folders::check(&apps.folders[key]).expect("check");
        let root = rg.store.add_root(&checked, None).expect("keep").root;
        rg.share(&server.id, &root.id);
    }
    route_and_check(&rg, false, &apps).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_apps_on_their_own_folders_are_four_servers_through_the_window() {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let mut changes = sup.subscribe();
    let apps = write_configs(&rg);
    import_all(&rg, true).await;
    let servers = servers_by_entry(&rg);
    // The window asks about each folder, suggesting the server whose entry
    // was given it; the person agrees to each.
    let mut answered = 0;
    while answered < 4 {
        let prompts = tokio::time::timeout(WAIT, async {
            loop {
                // A server waiting for approval brings its folders'
                // prompts with its approval (#40); others come alone.
                match changes.recv().await {
                    Ok(rootgate_core::supervisor::Change::Prompts { prompts })
                    | Ok(rootgate_core::supervisor::Change::ApprovalWanted { prompts, .. }) => {
                        return prompts;
                    }
                    _ => {}
                }
            }
        })
        .await
        .expect("the window asks about the folders");
        for prompt in prompts {
            let suggestion = prompt.suggestion.expect("a suggestion");
            let (key, _) = servers
                .iter()
                .find(|(_, s)| s.id == suggestion.server)
                .expect("a server of ours");
            assert_eq!(prompt.real_path, apps.folders[key], "{key}'s folder");
            sup.consent()
                .answer_prompt(prompt.id, &[suggestion.server], None)
                .expect("agree");
            answered += 1;
        }
    }
    for (key, _, token) in ENTRIES {
        let server = &servers[key];
        let mut draft = server.to_draft();
        draft.env.insert("API_TOKEN".into(), (*token).into());
        sup.servers()
            .update_server(&server.id, draft)
            .await
            .expect("give it");
        sup.servers()
            .keep_secret(&server.id, "API_TOKEN", SecretPlace::File)
            .await
            .expect("keep it in the file");
        let view = sup.servers().approve_command(
            &server.id,
            &rg.store.server(&server.id).expect("s").command_line(),
        );
        assert!(view.expect("approve").approved);
    }
    route_and_check(&rg, true, &apps).await;
}
