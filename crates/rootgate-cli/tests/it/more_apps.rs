//! Three of the apps added after the first six, end to end from the
//! terminal: Windsurf (`mcpServers` JSON), Codex CLI (TOML) and opencode
//! (its own JSON shape) each run the npm filesystem server on a folder and
//! token of their own. Imported, routed and started exactly as each routed
//! file says (the official TypeScript SDK client stands in for the app;
//! Codex's file is read with a TOML parser of its own), each is told by
//! the server itself that it may see its folder and no other; `rootgate
//! unroute` then gives each file back byte for byte.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use rootgate_core::servers::SecretPlace;
use rootgate_test_support::app::*;

/// Each entry: its key (also the server's name), the app, its token.
const ENTRIES: &[(&str, &str, &str)] = &[
    ("surf-files", "windsurf", "windsurf-token-5555"),
    ("codex-files", "codex", "codex-token-6666"),
    ("opencode-files", "opencode", "opencode-token-7777"),
];

struct Configs {
    folders: BTreeMap<&'static str, PathBuf>,
    files: BTreeMap<&'static str, PathBuf>,
    originals: BTreeMap<&'static str, String>,
}

fn write_configs(rg: &Rootgate) -> Configs {
    let home = rg.home();
    let mut folders = BTreeMap::new();
    for (key, _, _) in ENTRIES {
        let folder = rg.dir.path().join("folders").join(key);
        std::fs::create_dir_all(&folder).expect("folder");
        folders.insert(*key, folder.canonicalize().expect("real path"));
    }
    let node = node();
    let fs = fs_server_js().display().to_string();
    let windsurf = format!(
        r#"{{
  "mcpServers": {{
    "surf-files": {{ "command": "{node}", "args": ["{fs}", "{folder}"], "env": {{ "API_TOKEN": "{token}" }} }},
    "remote": {{ "serverUrl": "https://example.com/mcp" }}
  }}
}}
"#,
        folder = folders["surf-files"].display(),
        token = ENTRIES[0].2,
    );
    let codex = format!(
        r#"# Codex's own settings.
model = "gpt-5-codex"

[mcp_servers.codex-files]
command = "{node}"
args = ["{fs}", "{folder}"] # the folder it may see
startup_timeout_sec = 20

[mcp_servers.codex-files.env]
API_TOKEN = "{token}"
"#,
        folder = folders["codex-files"].display(),
        token = ENTRIES[1].2,
    );
    let opencode = format!(
        r#"{{
  "$schema": "https://opencode.ai/config.json",
  // opencode's own settings.
  "mcp": {{
    "opencode-files": {{
      "type": "local",
      "command": ["{node}", "{fs}", "{folder}"],
      "enabled": true,
      "environment": {{ "API_TOKEN": "{token}" }}
    }}
  }}
}}
"#,
        folder = folders["opencode-files"].display(),
        token = ENTRIES[2].2,
    );
    let files = BTreeMap::from([
        ("surf-files", home.join(".codeium/windsurf/mcp_config.json")),
        ("codex-files", home.join(".codex/config.toml")),
        (
            "opencode-files",
            rg.config_home.join("opencode/opencode.json"),
        ),
    ]);
    let originals = BTreeMap::from([
        ("surf-files", windsurf),
        ("codex-files", codex),
        ("opencode-files", opencode),
    ]);
    for (key, path) in &files {
        std::fs::create_dir_all(path.parent().expect("dir")).expect("config dir");
        std::fs::write(path, &originals[key]).expect("write config");
    }
    Configs {
        folders,
        files,
        originals,
    }
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

/// Runs `rootgate` as the person does, with no window open: their home,
/// the settings in the default place, and none of the variables that move
/// an app's files.
async fn rootgate(rg: &Rootgate, args: &[&str]) -> Output {
    tokio::process::Command::new(binary("rootgate"))
        .args(args)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_RUNTIME_DIR", rg.dir.path().join("run"))
        .env_remove("CODEX_HOME")
        .env_remove("COPILOT_HOME")
        .env_remove("CONTINUE_GLOBAL_DIR")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("rootgate ran")
}

/// Codex's routed entry, read with `toml_edit` as Codex reads its file.
fn codex_command(file: &Path) -> Vec<String> {
    let doc: toml_edit::DocumentMut = std::fs::read_to_string(file)
        .expect("read")
        .parse()
        .expect("TOML");
    let entry = &doc["mcp_servers"]["codex-files"];
    assert!(entry.get("env").is_none(), "no token left in the file");
    let mut command = vec![entry["command"].as_str().expect("command").to_owned()];
    let args = entry["args"].as_array().expect("args");
    command.extend(args.iter().map(|a| a.as_str().expect("string").to_owned()));
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windsurf_codex_and_opencode_each_reach_their_own_folder_through_rootgate() {
    let rg = Rootgate::new();
    let configs = write_configs(&rg);
    for (_, app, _) in ENTRIES {
        let out = rootgate(&rg, &["import", app]).await;
        let said = text(&out.stdout);
        assert!(out.status.success(), "{app}: {said}{}", text(&out.stderr));
        assert!(said.contains("Imported `"), "{said}");
        for (_, _, token) in ENTRIES {
            assert!(!said.contains(token), "import printed a token: {said}");
        }
    }
    rg.store.reload().expect("reload");
    let servers = rg.store.snapshot().servers;
    assert_eq!(servers.len(), 3, "{servers:#?}");
    for (key, _, token) in ENTRIES {
        let server = servers
            .iter()
            .find(|s| s.name == *key)
            .unwrap_or_else(|| panic!("no server {key}: {servers:#?}"));
        // The token goes to the settings file: the SDK client starts the
        // bridge without the session bus, out of the keyring's reach.
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
        let checked = rootgate_core::folders::check(&configs.folders[key]).expect("check");
        let root = rg.store.add_root(&checked, None).expect("keep").root;
        rg.share(&server.id, &root.id);
    }
    for (key, app, token) in ENTRIES {
        let out = rootgate(&rg, &["route", app]).await;
        let said = text(&out.stdout);
        assert!(out.status.success(), "{app}: {said}{}", text(&out.stderr));
        assert!(!said.contains(token), "the diff showed a token: {said}");
        let routed = std::fs::read_to_string(&configs.files[key]).expect("read");
        // Routing again leaves the file as it is (Windsurf's remote entry
        // is never routed, so it is not "already routed" as a whole).
        rootgate(&rg, &["route", app]).await;
        assert_eq!(
            std::fs::read_to_string(&configs.files[key]).expect("read"),
            routed
        );
        assert!(
            !routed.contains(token),
            "{app} still holds its token: {routed}"
        );
    }
    let codex_file = std::fs::read_to_string(&configs.files["codex-files"]).expect("read");
    assert!(
        codex_file.contains("# Codex's own settings."),
        "{codex_file}"
    );
    assert!(
        codex_file.contains("startup_timeout_sec = 20"),
        "{codex_file}"
    );
    let opencode_file = std::fs::read_to_string(&configs.files["opencode-files"]).expect("read");
    assert!(
        opencode_file.contains("// opencode's own settings."),
        "{opencode_file}"
    );
    for (key, _, _) in ENTRIES {
        let mut app = if *key == "codex-files" {
            let command = codex_command(&configs.files[key]);
            assert_eq!(command[1..], ["connect", "codex-files"]);
            App::start(&rg, Sdk::TypeScript, &[], &command).await
        } else {
            App::start_from_app_config(&rg, &configs.files[key], key, None).await
        };
        assert_eq!(
            app.connected["event"], "connected",
            "{key}: {:#?}",
            app.connected
        );
        assert_eq!(
            allowed::<Vec<_>>(&mut app).await,
            vec![configs.folders[key].clone()],
            "{key} sees its own folder, and no other"
        );
    }
    for (key, app, _) in ENTRIES {
        let out = rootgate(&rg, &["unroute", app]).await;
        assert!(
            out.status.success(),
            "{app}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        assert_eq!(
            std::fs::read_to_string(&configs.files[key]).expect("read"),
            configs.originals[key],
            "{app}: undone byte for byte"
        );
    }
}
