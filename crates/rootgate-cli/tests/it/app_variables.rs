//! Each AI app's own way of leaving a value to the app (#40): Gemini CLI's
//! `$NAME` and `${NAME}`, opencode's `{env:NAME}`, Continue's
//! `${{ secrets.NAME }}`, VS Code's `${input:ID}` and `${env:NAME}`, Kiro's
//! `${NAME}`, Claude Code's `${NAME:-default}`, Windsurf's `${env:NAME}`, in
//! config files written as each app's documentation shows them.
//! `rootgate import` asks for the value by the variable's name (never
//! a name with `$` or braces in it), puts what the person typed where the
//! placeholder stood, under the entry's own variable (`DATA_TOKEN` for
//! `"DATA_TOKEN": "$GEMINI_DATA_TOKEN"`), keeps it in this run's keyring and
//! out of the settings file and of every line shown; the server, started
//! through `rootgate connect`, gets it in its environment and, for a value
//! inside an argument, in its arguments (its own `env` and `argv` tools say
//! so).
//!
//! Needs this run's keyring (scripts/with-keyring.sh): without it a value
//! is not stored, and the server could not be started from another
//! process. The tests fail at once, saying so.

use std::path::{Path, PathBuf};
use std::process::Output;

use rootgate_core::servers::SecretPlace;
use rootgate_test_support::app::*;
use serde_json::{Value, json};

fn rootgate(rg: &Rootgate, args: &[&str]) -> Output {
    std::process::Command::new(binary("rootgate"))
        .args(args)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_RUNTIME_DIR", rg.dir.path().join("run"))
        .env_remove("CONTINUE_GLOBAL_DIR")
        .output()
        .expect("run rootgate")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn env_server() -> String {
    py_roots_server()
        .with_file_name("py_env_server.py")
        .display()
        .to_string()
}

fn py() -> String {
    python().display().to_string()
}

/// One app's config and what importing its entry `key` must give.
struct Case<'a> {
    /// The app's name on the command line.
    app: &'a str,
    /// Its config file, and what it holds.
    file: PathBuf,
    contents: String,
    key: &'a str,
    /// `--set` pairs, as the person gives them.
    set: &'a [(&'a str, &'a str)],
    /// The server's environment as it must start: each a secret variable
    /// kept in the keyring.
    env: &'a [(&'a str, &'a str)],
    /// Its arguments after the script, as it must start.
    argv: &'a [&'a str],
}

/// Imports `case` with `rootgate import`, checks what is kept and shown,
/// approves it and starts it through `rootgate connect`: it returns the
/// server's own account of its environment.
async fn import_and_start(case: &Case<'_>) {
    assert!(
        has_test_keyring(),
        "this test needs a keyring of its own: run it under scripts/with-keyring.sh"
    );
    let rg = Rootgate::new();
    let file = rg.home().join(&case.file);
    std::fs::create_dir_all(file.parent().expect("folder")).expect("config folder");
    std::fs::write(&file, &case.contents).expect("write the app's config");
    let typed: Vec<&str> = case.set.iter().map(|(_, v)| *v).collect();
    let shows_none = |what: &str, said: &str| {
        for value in &typed {
            assert!(!said.contains(value), "{what} shows {value}:\n{said}");
        }
    };

    // Asked for by name: no `$` or braces in what the person is to give.
    let listed = rootgate(&rg, &["apps"]);
    let listed = text(&listed.stdout);
    for (name, _) in case.set.iter().filter(|(n, _)| !n.contains(['$', '{'])) {
        assert!(listed.contains(&format!("needs {name} (")), "{listed}");
    }
    assert!(!listed.contains("needs $"), "{listed}");
    assert!(!listed.contains("needs {"), "{listed}");
    let missing = rootgate(&rg, &["import", case.app, case.key]);
    assert_eq!(missing.status.code(), Some(3), "{}", text(&missing.stderr));

    let mut args = vec!["import", case.app, case.key];
    let pairs: Vec<String> = case.set.iter().map(|(n, v)| format!("{n}={v}")).collect();
    for pair in &pairs {
        args.extend(["--set", pair.as_str()]);
    }
    let imported = rootgate(&rg, &args);
    assert!(
        imported.status.success(),
        "{}{}",
        text(&imported.stdout),
        text(&imported.stderr)
    );
    shows_none("the import", &text(&imported.stdout));
    shows_none("the import", &text(&imported.stderr));
    shows_none(
        "rootgate servers",
        &text(&rootgate(&rg, &["servers"]).stdout),
    );
    let settings = std::fs::read_to_string(rg.store.file().path()).expect("settings");
    shows_none("the settings file", &settings);

    rg.store.reload().expect("reload");
    let spec = rg.store.snapshot().servers[0].clone();
    for name in spec.env.keys() {
        assert!(
            !name.contains(['$', '{', '}']),
            "a variable named {name:?} was stored: {:?}",
            spec.env.keys().collect::<Vec<_>>()
        );
    }
    for (name, value) in case.env {
        assert_eq!(
            spec.secrets.get(*name),
            Some(&SecretPlace::Keyring),
            "{name}"
        );
        assert_eq!(
            rg.store
                .secret_value(&spec.id, name)
                .expect("in the keyring"),
            *value,
            "{name} in the keyring"
        );
    }
    // What the window's approval and server row show.
    let approval = spec.command_line();
    shows_none("the approval", &approval);
    shows_none("the server row", &spec.masked_command_line());

    rg.store
        .approve_command(&spec.id, &approval)
        .expect("approve");
    let command = rg.connect_command(&spec.name);
    let mut app = App::start(&rg, Sdk::TypeScript, &["--name", "claude-code"], &command).await;
    assert_eq!(app.connected["event"], "connected", "{:#?}", app.connected);
    let env = app.call("env", json!({})).await;
    let env: Value = serde_json::from_str(&tool_text(&env)).expect("env");
    for (name, value) in case.env {
        assert_eq!(env[name], *value, "the server's {name}");
    }
    let argv = app.call("argv", json!({})).await;
    let argv: Vec<String> = serde_json::from_str(&tool_text(&argv)).expect("argv");
    assert_eq!(argv, case.argv, "the server's arguments");
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_clis_dollar_variables_reach_the_server_under_the_entrys_names() {
    // As Gemini CLI's docs write it: `$VAR_NAME` and `${VAR_NAME}`.
    let contents = json!({"mcpServers": {"data": {
        "command": py(),
        "args": [env_server(), "--header", "Authorization: Bearer $GEMINI_DATA_TOKEN"],
        "env": {
            "DATA_TOKEN": "$GEMINI_DATA_TOKEN",
            "API_KEY": "${EXTERNAL_API_KEY}",
        },
        "timeout": 15000,
    }}});
    import_and_start(&Case {
        app: "gemini-cli",
        file: Path::new(".gemini/settings.json").into(),
        contents: serde_json::to_string_pretty(&contents).expect("json"),
        key: "data",
        // One as the person reads it, one as the file writes it.
        set: &[
            ("GEMINI_DATA_TOKEN", "gemTOKENvalue1"),
            ("${EXTERNAL_API_KEY}", "extKEYvalue2"),
        ],
        env: &[
            ("DATA_TOKEN", "gemTOKENvalue1"),
            ("API_KEY", "extKEYvalue2"),
        ],
        argv: &["--header", "Authorization: Bearer gemTOKENvalue1"],
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_clis_variable_given_as_written_is_not_a_variable_of_that_name() {
    // The finding exactly: the value given for `$GEMINI_DATA_TOKEN` as the
    // file writes it.
    let contents = json!({"mcpServers": {"data": {
        "command": py(),
        "args": [env_server()],
        "env": {"DATA_TOKEN": "$GEMINI_DATA_TOKEN"},
    }}});
    import_and_start(&Case {
        app: "gemini-cli",
        file: Path::new(".gemini/settings.json").into(),
        contents: serde_json::to_string_pretty(&contents).expect("json"),
        key: "data",
        set: &[("$GEMINI_DATA_TOKEN", "gemTOKENvalue3")],
        env: &[("DATA_TOKEN", "gemTOKENvalue3")],
        argv: &[],
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencodes_env_variable_reaches_the_server() {
    // As opencode's docs write a local server: the command as one list,
    // its variables under `environment`, `{env:NAME}` for the app's own.
    let contents = json!({
        "$schema": "https://opencode.ai/config.json",
        "mcp": {"data": {
            "type": "local",
            "command": [py(), env_server(), "--key={env:MY_API_KEY}"],
            "enabled": true,
            "environment": {"API_KEY": "{env:MY_API_KEY}", "MY_ENV_VAR": "plain"},
        }},
    });
    import_and_start(&Case {
        app: "opencode",
        file: Path::new(".config/opencode/opencode.json").into(),
        contents: serde_json::to_string_pretty(&contents).expect("json"),
        key: "data",
        set: &[("MY_API_KEY", "openKEYvalue4")],
        env: &[("API_KEY", "openKEYvalue4")],
        argv: &["--key=openKEYvalue4"],
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continues_secret_reaches_the_server() {
    // As Continue's docs configure a secret: `${{ secrets.NAME }}`.
    let contents = format!(
        "name: My Config\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: Supabase\n    \
         command: {py}\n    args:\n      - {server}\n    env:\n      \
         SUPABASE_ACCESS_TOKEN: ${{{{ secrets.SUPABASE_ACCESS_TOKEN }}}}\n",
        py = py(),
        server = env_server(),
    );
    import_and_start(&Case {
        app: "continue",
        file: Path::new(".continue/config.yaml").into(),
        contents,
        key: "Supabase",
        set: &[("SUPABASE_ACCESS_TOKEN", "supaTOKENvalue5")],
        env: &[("SUPABASE_ACCESS_TOKEN", "supaTOKENvalue5")],
        argv: &[],
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vs_codes_input_and_env_variables_reach_the_server() {
    // As VS Code's docs write it: an input the app prompts for, used in the
    // environment and inside an argument, and `${env:NAME}`.
    let contents = format!(
        r#"{{
  // VS Code prompts for the key when it first starts the server.
  "inputs": [
    {{ "type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true }}
  ],
  "servers": {{
    "data": {{
      "type": "stdio",
      "command": "{py}",
      "args": ["{server}", "--header", "Authorization: Bearer ${{input:perplexity-key}}"],
      "env": {{
        "PERPLEXITY_API_KEY": "${{input:perplexity-key}}",
        "GH_TOKEN": "${{env:GITHUB_TOKEN}}"
      }}
    }}
  }}
}}
"#,
        py = py(),
        server = env_server(),
    );
    import_and_start(&Case {
        app: "vscode",
        file: Path::new(".config/Code/User/mcp.json").into(),
        contents,
        key: "data",
        set: &[
            ("perplexity-key", "pplxKEYvalue6"),
            ("GITHUB_TOKEN", "ghTOKENvalue7"),
        ],
        env: &[
            ("PERPLEXITY_API_KEY", "pplxKEYvalue6"),
            ("GH_TOKEN", "ghTOKENvalue7"),
        ],
        argv: &["--header", "Authorization: Bearer pplxKEYvalue6"],
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kiros_expanded_variable_reaches_the_server() {
    // As Kiro's docs write it: `${EXPANDED_VARIABLE}` beside a value
    // written out.
    let contents = json!({"mcpServers": {"data": {
        "command": py(),
        "args": [env_server()],
        "env": {"ENV_VAR1": "hard-coded-variable", "ENV_VAR2": "${EXPANDED_VARIABLE}"},
        "disabled": false,
    }}});
    import_and_start(&Case {
        app: "kiro",
        file: Path::new(".kiro/settings/mcp.json").into(),
        contents: serde_json::to_string_pretty(&contents).expect("json"),
        key: "data",
        set: &[("EXPANDED_VARIABLE", "kiroVALUE8")],
        env: &[("ENV_VAR2", "kiroVALUE8")],
        argv: &[],
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_codes_variable_with_a_default_reaches_the_server() {
    // As Claude Code's docs write it: `${VAR}` and `${VAR:-default}`, in
    // `env` and inside an argument.
    let contents = json!({
        "numStartups": 3,
        "mcpServers": {"data": {
            "type": "stdio",
            "command": py(),
            "args": [env_server(), "--url=https://api.example.com/?key=${API_KEY}"],
            "env": {"API_KEY": "${API_KEY}", "BASE_URL": "${SERVICE_URL:-https://example.com}"},
        }},
    });
    import_and_start(&Case {
        app: "claude-code",
        file: Path::new(".claude.json").into(),
        contents: serde_json::to_string_pretty(&contents).expect("json"),
        key: "data",
        set: &[
            ("API_KEY", "claudeKEYvalue9"),
            ("SERVICE_URL", "https://svc.example.com/tenantSECRET10"),
        ],
        env: &[
            ("API_KEY", "claudeKEYvalue9"),
            ("BASE_URL", "https://svc.example.com/tenantSECRET10"),
        ],
        argv: &["--url=https://api.example.com/?key=claudeKEYvalue9"],
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windsurfs_env_variable_reaches_the_server() {
    // As Windsurf's docs write it: `${env:NAME}`.
    let contents = json!({"mcpServers": {"data": {
        "command": py(),
        "args": [env_server()],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_TOKEN}"},
    }}});
    import_and_start(&Case {
        app: "windsurf",
        file: Path::new(".codeium/windsurf/mcp_config.json").into(),
        contents: serde_json::to_string_pretty(&contents).expect("json"),
        key: "data",
        set: &[("GITHUB_TOKEN", "windTOKENvalue11")],
        env: &[("GITHUB_PERSONAL_ACCESS_TOKEN", "windTOKENvalue11")],
        argv: &[],
    })
    .await;
}
