//! Secrets written in a server's arguments (#39), through the real
//! programs: a Claude Desktop config starts a server on the Python SDK with
//! `--api-key sk-…` and `--header "Authorization: Bearer …"`; `rootgate
//! import` keeps both values in this run's keyring, not in the settings
//! file, and neither the import's words, `rootgate servers`, the route's
//! diff nor the approval's command line shows them; the server, started
//! through `rootgate connect`, still gets them in its arguments (its own
//! `argv` tool says so). Its error for a resource it does not have quotes
//! the URI, `file:///x?token=MARKER`: the record of calls keeps neither
//! that message nor the query.
//!
//! Needs this run's keyring (scripts/with-keyring.sh): without it a value
//! is not stored, and the server could not be started from another
//! process. The test fails at once, saying so.

use std::path::PathBuf;
use std::process::Output;

use rootgate_core::servers::SecretPlace;
use rootgate_test_support::app::*;
use serde_json::{Value, json};

const KEY: &str = "sk-proj-argSECRETkey0123456789";
const BEARER: &str = "bearerSECRETtoken42";
const MARKER: &str = "MARKERinQUERY";

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

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn shows_no_secret(what: &str, said: &str) {
    for secret in [KEY, BEARER] {
        assert!(!said.contains(secret), "{what} shows {secret}:\n{said}");
    }
}

fn argv_server() -> PathBuf {
    py_roots_server().with_file_name("py_argv_server.py")
}

fn the_args() -> Vec<String> {
    vec![
        argv_server().display().to_string(),
        "--api-key".into(),
        KEY.into(),
        "--header".into(),
        format!("Authorization: Bearer {BEARER}"),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_arguments_secret_is_kept_in_the_keyring_shown_masked_and_given_to_the_server() {
    assert!(
        has_test_keyring(),
        "this test needs a keyring of its own: run it under scripts/with-keyring.sh"
    );
    let rg = Rootgate::new();
    let dir = rg.config_home.join("Claude");
    std::fs::create_dir_all(&dir).expect("dir");
    let config = dir.join("claude_desktop_config.json");
    let entry = json!({"mcpServers": {"keyed": {
        "command": python().display().to_string(),
        "args": the_args(),
    }}});
    std::fs::write(&config, serde_json::to_string_pretty(&entry).expect("json")).expect("write");

    let apps = rootgate(&rg, &["apps"]);
    let apps = text(&apps.stdout);
    assert!(apps.contains("--api-key"), "{apps}");
    shows_no_secret("rootgate apps", &apps);

    let imported = rootgate(&rg, &["import", "claude-desktop"]);
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    shows_no_secret("the import", &text(&imported.stdout));
    shows_no_secret("the import", &text(&imported.stderr));

    let listed = rootgate(&rg, &["servers"]);
    let listed = text(&listed.stdout);
    shows_no_secret("rootgate servers", &listed);
    assert!(listed.contains("${ARG_API_KEY}"), "{listed}");

    let file = std::fs::read_to_string(rg.store.file().path()).expect("settings");
    shows_no_secret("the settings file", &file);
    rg.store.reload().expect("reload");
    let spec = rg.store.snapshot().servers[0].clone();
    for (name, value) in [("ARG_API_KEY", KEY), ("ARG_AUTHORIZATION", BEARER)] {
        assert_eq!(spec.secrets[name], SecretPlace::Keyring, "{name}");
        assert_eq!(
            rg.store
                .secret_value(&spec.id, name)
                .expect("in the keyring"),
            value
        );
    }
    // What the window's approval shows (`ServerView::command_line`).
    let approval = spec.command_line();
    shows_no_secret("the approval", &approval);
    assert!(approval.contains("ARG_API_KEY=…"), "{approval}");

    let route = rootgate(&rg, &["route", "claude-desktop", "--dry-run"]);
    assert!(route.status.success(), "{}", text(&route.stderr));
    let diff = text(&route.stdout);
    assert!(diff.contains("--api-key"), "{diff}");
    shows_no_secret("the route's diff", &diff);

    rg.store
        .approve_command(&spec.id, &approval)
        .expect("approve");
    let command = rg.connect_command("keyed");
    let mut app = App::start(&rg, Sdk::TypeScript, &["--name", "claude-code"], &command).await;
    assert_eq!(app.connected["event"], "connected", "{:#?}", app.connected);
    let argv = app.call("argv", json!({})).await;
    let argv: Vec<String> = serde_json::from_str(&tool_text(&argv)).expect("argv");
    assert_eq!(
        argv,
        the_args()[1..],
        "the server got its arguments as written"
    );

    let uri = format!("file:///x?token={MARKER}#{MARKER}");
    let read = app.request(json!({"op": "readResource", "uri": uri})).await;
    let error = read["error"].to_string();
    assert!(
        error.contains(MARKER),
        "the server's error quotes it: {read}"
    );
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;

    let folder = rg.config_home.join("rootgate/calls");
    let record = eventually("the read in the record of calls", || async {
        let mut all = String::new();
        for file in std::fs::read_dir(&folder).map_err(|e| e.to_string())? {
            let path = file.map_err(|e| e.to_string())?.path();
            all.push_str(&std::fs::read_to_string(path).map_err(|e| e.to_string())?);
        }
        if all.contains("resources/read") {
            Ok(all)
        } else {
            Err(format!("not yet: {all}"))
        }
    })
    .await;
    assert!(!record.contains(MARKER), "{record}");
    shows_no_secret("the record of calls", &record);
    let read: Value = record
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|r| r["method"] == "resources/read")
        .expect("the read");
    assert_eq!(read["target"], "file:///x");
    assert!(
        read["outcome"]
            .as_str()
            .is_some_and(|o| o.starts_with("error ") && !o.contains(':')),
        "{read}"
    );
}
