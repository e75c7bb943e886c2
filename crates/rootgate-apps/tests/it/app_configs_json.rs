//! The JSON-family apps' configs (Claude Desktop, Claude Code, Cursor, VS
//! Code, Zed), read from fixtures written the way those apps write them:
//! parsing finds exactly their servers, a rewrite changes only the routed
//! entries and keeps comments, unknown keys, indentation, line endings and
//! trailing commas, a restore gives the original bytes back, bad files fail
//! with errors that point at the problem and never quote a secret, and the
//! files are looked for where each app keeps them.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rootgate_apps::locate::{self, Places};
use rootgate_apps::{
    AppKind, ConfigError, ConfigFile, Format, InputDecl, RawEntry, RouteTo, Scope, Transport,
    parse, restore, rewrite,
};

const CLAUDE_DESKTOP: &str = include_str!("../fixtures/apps/claude_desktop_config.json");
const CLAUDE_CODE: &str = include_str!("../fixtures/apps/claude.json");
const PROJECT_MCP: &str = include_str!("../fixtures/apps/project.mcp.json");
const CURSOR: &str = include_str!("../fixtures/apps/cursor_mcp.json");
const VSCODE: &str = include_str!("../fixtures/apps/vscode_mcp.json");
const ZED: &str = include_str!("../fixtures/apps/zed_settings.json");
const CORRUPT_CLAUDE_DESKTOP: &str =
    include_str!("../fixtures/apps/corrupt_claude_desktop_config.json");
const CORRUPT_ZED: &str = include_str!("../fixtures/apps/corrupt_zed_settings.json");

/// Every secret value in the fixtures; no error may ever contain one.
const SECRETS: [&str; 6] = [
    "ghp_R00tgateFixtureSecret7h1sIsN0tReal42",
    "pg_R00tgateFixtureSecret_5f2b",
    "sk_test_R00tgateFixtureSecret51Hx",
    "zed_R00tgateFixtureSecret_9a7c",
    "ghp_R00tgateZedExtensionSecret0000",
    "R00tgate",
];

const ROOTGATE: &str = "/home/me/.local/bin/rootgate";

/// A fixture, its app, and the entries a route can name.
struct Fixture {
    app: AppKind,
    file: &'static str,
    text: &'static str,
    entries: Vec<(Scope, &'static str)>,
}

fn fixture(
    app: AppKind,
    file: &'static str,
    text: &'static str,
    entries: Vec<(Scope, &'static str)>,
) -> Fixture {
    Fixture {
        app,
        file,
        text,
        entries,
    }
}

fn global(keys: &[&'static str]) -> Vec<(Scope, &'static str)> {
    keys.iter().map(|k| (Scope::Global, *k)).collect()
}

fn project(path: &str) -> Scope {
    Scope::Project(path.to_owned())
}

fn fixtures() -> Vec<Fixture> {
    vec![
        fixture(
            AppKind::ClaudeDesktop,
            "claude_desktop_config.json",
            CLAUDE_DESKTOP,
            global(&["filesystem", "github", "windows-notes"]),
        ),
        fixture(
            AppKind::ClaudeCode,
            "claude.json",
            CLAUDE_CODE,
            vec![
                (Scope::Global, "memory"),
                (project("/home/me/src/webapp"), "postgres"),
                (project("/home/me/notes"), "files"),
            ],
        ),
        fixture(
            AppKind::ClaudeCode,
            ".mcp.json",
            PROJECT_MCP,
            global(&["filesystem", "playwright"]),
        ),
        fixture(
            AppKind::Cursor,
            "mcp.json",
            CURSOR,
            global(&["brave-search", "notion", "stripe"]),
        ),
        fixture(
            AppKind::VsCode,
            "mcp.json",
            VSCODE,
            global(&["github", "workspace-files"]),
        ),
        fixture(
            AppKind::Zed,
            "settings.json",
            ZED,
            global(&["filesystem", "sqlite", "time"]),
        ),
    ]
}

fn route(scope: Scope, key: &str, env: &[(&str, &str)]) -> RouteTo {
    RouteTo {
        scope,
        key: key.to_owned(),
        command: ROOTGATE.to_owned(),
        args: vec!["connect".to_owned(), key.to_owned()],
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
    }
}

fn routes_for(entries: &[(Scope, &str)], env: &[(&str, &str)]) -> Vec<RouteTo> {
    entries
        .iter()
        .map(|(scope, key)| route(scope.clone(), key, env))
        .collect()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn stdio(command: &str, args: &[&str], env: &[(&str, &str)]) -> Transport {
    Transport::Stdio {
        command: command.to_owned(),
        args: strings(args),
        env: env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect(),
        cwd: None,
        env_file: None,
        env_keys: Vec::new(),
    }
}

fn entry(scope: Scope, key: &str, transport: Transport) -> RawEntry {
    RawEntry {
        scope,
        key: key.to_owned(),
        transport,
        enabled: true,
    }
}

fn find<'a>(entries: &'a [RawEntry], scope: &Scope, key: &str) -> &'a RawEntry {
    entries
        .iter()
        .find(|e| &e.scope == scope && e.key == key)
        .unwrap_or_else(|| panic!("no entry {key} in {scope:?}"))
}

fn assert_no_secret(err: &ConfigError) {
    let message = err.to_string();
    let debug = format!("{err:?}");
    for secret in SECRETS {
        assert!(!message.contains(secret), "{message}");
        assert!(!debug.contains(secret), "{debug}");
    }
}

fn shape_key(err: &ConfigError) -> &str {
    match err {
        ConfigError::Shape { key, .. } => key,
        other => panic!("expected a shape error, got {other:?}"),
    }
}

fn syntax_at(err: &ConfigError) -> (usize, usize) {
    match err {
        ConfigError::Syntax { line, column, .. } => (*line, *column),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

// ---- parsing ----

#[test]
fn claude_desktop_entries_are_read_exactly() {
    let parsed = parse(AppKind::ClaudeDesktop, "f", CLAUDE_DESKTOP).unwrap();
    let g = Scope::Global;
    assert_eq!(
        parsed.entries,
        vec![
            entry(
                g.clone(),
                "filesystem",
                stdio(
                    "npx",
                    &[
                        "-y",
                        "@modelcontextprotocol/server-filesystem",
                        "/home/me/Documents",
                        "/home/me/Projects"
                    ],
                    &[]
                )
            ),
            entry(
                g.clone(),
                "github",
                stdio(
                    "docker",
                    &[
                        "run",
                        "-i",
                        "--rm",
                        "-e",
                        "GITHUB_PERSONAL_ACCESS_TOKEN",
                        "ghcr.io/github/github-mcp-server"
                    ],
                    &[(
                        "GITHUB_PERSONAL_ACCESS_TOKEN",
                        "ghp_R00tgateFixtureSecret7h1sIsN0tReal42"
                    )]
                )
            ),
            entry(
                g,
                "windows-notes",
                stdio(
                    "node",
                    &[
                        r"C:\Users\me\AppData\Roaming\npm\node_modules\notes-mcp\dist\index.js",
                        r"C:\Users\me\Documents"
                    ],
                    &[]
                )
            ),
        ]
    );
    assert!(parsed.inputs.is_empty());
    assert!(parsed.projects.is_empty());
}

#[test]
fn claude_code_reads_the_user_list_and_every_project() {
    let parsed = parse(AppKind::ClaudeCode, "f", CLAUDE_CODE).unwrap();
    assert_eq!(
        parsed.projects,
        strings(&["/home/me/src/webapp", "/home/me/notes"])
    );
    let webapp = project("/home/me/src/webapp");
    let notes = project("/home/me/notes");
    assert_eq!(
        parsed.entries,
        vec![
            entry(
                Scope::Global,
                "memory",
                stdio("npx", &["-y", "@modelcontextprotocol/server-memory"], &[])
            ),
            entry(
                webapp.clone(),
                "postgres",
                stdio(
                    "npx",
                    &[
                        "-y",
                        "@modelcontextprotocol/server-postgres",
                        "postgresql://localhost/webapp"
                    ],
                    &[("PGPASSWORD", "pg_R00tgateFixtureSecret_5f2b")]
                )
            ),
            entry(
                webapp,
                "sentry",
                Transport::Remote {
                    url: "https://mcp.sentry.dev/mcp".to_owned()
                }
            ),
            entry(
                notes,
                "files",
                stdio(
                    "/home/me/.local/bin/files-mcp",
                    &["--root", "/home/me/notes"],
                    &[]
                )
            ),
        ]
    );
}

#[test]
fn a_project_mcp_json_is_one_global_list() {
    let parsed = parse(AppKind::ClaudeCode, ".mcp.json", PROJECT_MCP).unwrap();
    assert!(parsed.projects.is_empty());
    assert_eq!(
        parsed.entries,
        vec![
            entry(
                Scope::Global,
                "filesystem",
                stdio(
                    "npx",
                    &["-y", "@modelcontextprotocol/server-filesystem", "."],
                    &[]
                )
            ),
            entry(
                Scope::Global,
                "playwright",
                stdio("npx", &["@playwright/mcp@latest"], &[])
            ),
        ]
    );
}

#[test]
fn cursor_keeps_variables_and_env_files_as_written() {
    assert!(CURSOR.contains("\r\n"), "the Cursor fixture must be CRLF");
    let parsed = parse(AppKind::Cursor, "f", CURSOR).unwrap();
    let notion = Transport::Stdio {
        command: "node".to_owned(),
        args: strings(&["/home/me/tools/notion-mcp/build/index.js"]),
        env: BTreeMap::new(),
        cwd: None,
        env_file: Some("/home/me/tools/notion-mcp/.env".to_owned()),
        env_keys: Vec::new(),
    };
    assert_eq!(
        parsed.entries,
        vec![
            entry(
                Scope::Global,
                "brave-search",
                stdio(
                    "npx",
                    &["-y", "@modelcontextprotocol/server-brave-search"],
                    &[("BRAVE_API_KEY", "${env:API_KEY}")]
                )
            ),
            entry(Scope::Global, "notion", notion),
            entry(
                Scope::Global,
                "stripe",
                stdio(
                    "npx",
                    &["-y", "@stripe/mcp", "--tools=all"],
                    &[("STRIPE_SECRET_KEY", "sk_test_R00tgateFixtureSecret51Hx")]
                )
            ),
            entry(
                Scope::Global,
                "linear",
                Transport::Remote {
                    url: "https://mcp.linear.app/sse".to_owned()
                }
            ),
        ]
    );
}

#[test]
fn vscode_reads_servers_and_inputs() {
    let parsed = parse(AppKind::VsCode, "f", VSCODE).unwrap();
    let files = Transport::Stdio {
        command: "npx".to_owned(),
        args: strings(&[
            "-y",
            "@modelcontextprotocol/server-filesystem",
            "${workspaceFolder}",
        ]),
        env: BTreeMap::new(),
        cwd: Some("${workspaceFolder}".to_owned()),
        env_file: Some("${workspaceFolder}/.env".to_owned()),
        env_keys: Vec::new(),
    };
    assert_eq!(
        parsed.entries,
        vec![
            entry(
                Scope::Global,
                "github",
                stdio(
                    "docker",
                    &[
                        "run",
                        "-i",
                        "--rm",
                        "-e",
                        "GITHUB_PERSONAL_ACCESS_TOKEN",
                        "ghcr.io/github/github-mcp-server"
                    ],
                    &[("GITHUB_PERSONAL_ACCESS_TOKEN", "${input:token}")]
                )
            ),
            entry(Scope::Global, "workspace-files", files),
            entry(
                Scope::Global,
                "context7",
                Transport::Remote {
                    url: "https://mcp.context7.com/mcp".to_owned()
                }
            ),
        ]
    );
    assert_eq!(
        parsed.inputs,
        vec![
            InputDecl {
                id: "token".to_owned(),
                description: Some("GitHub Personal Access Token".to_owned()),
                password: true,
            },
            InputDecl {
                id: "region".to_owned(),
                description: None,
                password: false,
            },
        ]
    );
}

#[test]
fn zed_reads_both_shapes_and_skips_extension_servers() {
    let parsed = parse(AppKind::Zed, "f", ZED).unwrap();
    let mut time = entry(
        Scope::Global,
        "time",
        stdio(
            "uvx",
            &["mcp-server-time", "--local-timezone=Europe/Berlin"],
            &[],
        ),
    );
    time.enabled = false;
    assert_eq!(
        parsed.entries,
        vec![
            entry(
                Scope::Global,
                "filesystem",
                stdio(
                    "npx",
                    &[
                        "-y",
                        "@modelcontextprotocol/server-filesystem",
                        "/home/me/code"
                    ],
                    &[("NODE_OPTIONS", "--max-old-space-size=512")]
                )
            ),
            entry(
                Scope::Global,
                "sqlite",
                stdio(
                    "uvx",
                    &["mcp-server-sqlite", "--db-path", "/home/me/data/app.db"],
                    &[("SQLITE_KEY", "zed_R00tgateFixtureSecret_9a7c")]
                )
            ),
            time,
            entry(
                Scope::Global,
                "deepwiki",
                Transport::Remote {
                    url: "https://mcp.deepwiki.com/mcp".to_owned()
                }
            ),
        ]
    );
}

#[test]
fn empty_files_and_missing_lists_hold_no_entries() {
    for app in [
        AppKind::ClaudeDesktop,
        AppKind::ClaudeCode,
        AppKind::Cursor,
        AppKind::VsCode,
        AppKind::Zed,
    ] {
        for text in ["", "  \n\t\r\n", "{}", "{\"other\": {\"mcpServers\": 1}}"] {
            let parsed = parse(app, "f", text).unwrap();
            assert!(parsed.entries.is_empty(), "{app:?} {text:?}");
        }
    }
    // Zed's fresh settings file is only its header comment.
    let header = "// Zed settings\n//\n// See https://zed.dev/docs/configuring-zed\n";
    assert!(parse(AppKind::Zed, "f", header).unwrap().entries.is_empty());
    let no_servers = "{\n  \"vim_mode\": true, // on\n}\n";
    assert!(
        parse(AppKind::Zed, "f", no_servers)
            .unwrap()
            .entries
            .is_empty()
    );
}

// ---- rewriting and restoring ----

#[test]
fn rewrite_then_restore_gives_the_original_bytes_back() {
    for Fixture {
        app,
        file,
        text,
        entries,
    } in fixtures()
    {
        for env in [
            &[][..],
            &[("XDG_CONFIG_HOME", "/home/me/.rootgate-test")][..],
        ] {
            let routes = routes_for(&entries, env);
            let routed = rewrite(app, file, text, &routes).unwrap();
            assert_ne!(routed, text, "{app:?} {file}: nothing was routed");
            let keys: Vec<(Scope, String)> = entries
                .iter()
                .map(|(s, k)| (s.clone(), (*k).to_owned()))
                .collect();
            let back = restore(app, file, &routed, text, &keys).unwrap();
            assert_eq!(back, text, "{app:?} {file} with env {env:?}");
            // One entry at a time comes back too.
            for key in &keys {
                let one = restore(app, file, &routed, text, std::slice::from_ref(key)).unwrap();
                let parsed = parse(app, file, &one).unwrap().entries;
                let original = parse(app, file, text).unwrap().entries;
                assert_eq!(
                    find(&parsed, &key.0, &key.1),
                    find(&original, &key.0, &key.1)
                );
            }
        }
    }
}

#[test]
fn rewrite_routes_each_entry_and_drops_what_rootgate_took_over() {
    let env = [("XDG_CONFIG_HOME", "/home/me/.rootgate-test")];
    for Fixture {
        app,
        file,
        text,
        entries,
    } in fixtures()
    {
        let routes = routes_for(&entries, &env);
        let routed = rewrite(app, file, text, &routes).unwrap();
        let parsed = parse(app, file, &routed).unwrap();
        let before = parse(app, file, text).unwrap();
        for r in &routes {
            let got = find(&parsed.entries, &r.scope, &r.key);
            assert_eq!(
                got.transport,
                stdio(ROOTGATE, &["connect", &r.key], &env),
                "{app:?} {file}"
            );
            assert_eq!(got.enabled, find(&before.entries, &r.scope, &r.key).enabled);
        }
        // Entries that were not routed read exactly as before.
        for old in &before.entries {
            if !routes
                .iter()
                .any(|r| r.scope == old.scope && r.key == old.key)
            {
                assert_eq!(find(&parsed.entries, &old.scope, &old.key), old);
            }
        }
        assert_eq!(parsed.projects, before.projects);
        assert_eq!(parsed.inputs, before.inputs);
        assert!(!routed.contains("envFile"), "{app:?} {file}");
        assert!(!routed.contains("\"cwd\""), "{app:?} {file}");
    }
}

#[test]
fn routing_without_env_removes_the_env_key() {
    let routes = vec![route(Scope::Global, "github", &[])];
    let routed = rewrite(AppKind::ClaudeDesktop, "f", CLAUDE_DESKTOP, &routes).unwrap();
    assert!(!routed.contains("\"env\""), "{routed}");
    assert!(
        !routed.contains("ghp_"),
        "the routed entry still holds its token"
    );
    let parsed = parse(AppKind::ClaudeDesktop, "f", &routed).unwrap();
    assert_eq!(
        find(&parsed.entries, &Scope::Global, "github").transport,
        stdio(ROOTGATE, &["connect", "github"], &[])
    );
}

#[test]
fn rewrite_is_idempotent() {
    for env in [&[][..], &[("XDG_CONFIG_HOME", "/srv/rg")][..]] {
        for Fixture {
            app,
            file,
            text,
            entries,
        } in fixtures()
        {
            let routes = routes_for(&entries, env);
            let once = rewrite(app, file, text, &routes).unwrap();
            let twice = rewrite(app, file, &once, &routes).unwrap();
            assert_eq!(once, twice, "{app:?} {file}");
        }
    }
    // No routes: the same bytes.
    for Fixture {
        app, file, text, ..
    } in fixtures()
    {
        assert_eq!(rewrite(app, file, text, &[]).unwrap(), text);
    }
}

#[test]
fn rewrite_keeps_unknown_keys_of_claude_files() {
    let routes = vec![route(Scope::Global, "filesystem", &[])];
    let routed = rewrite(AppKind::ClaudeDesktop, "f", CLAUDE_DESKTOP, &routes).unwrap();
    for kept in [
        "\"globalShortcut\": \"Ctrl+Alt+Space\"",
        "\"isUsingBuiltInNodeForMcp\": true",
        "\"quickEntryShortcut\": \"off\"",
        r#""C:\\Users\\me\\Documents""#,
        "\"GITHUB_PERSONAL_ACCESS_TOKEN\": \"ghp_R00tgateFixtureSecret7h1sIsN0tReal42\"",
    ] {
        assert!(routed.contains(kept), "lost {kept}");
    }
    assert!(routed.contains(&format!("\"command\": \"{ROOTGATE}\"")));
    assert!(
        routed.contains("\"args\": [\"connect\", \"filesystem\"]"),
        "{routed}"
    );

    let routes = vec![route(project("/home/me/src/webapp"), "postgres", &[])];
    let routed = rewrite(AppKind::ClaudeCode, "f", CLAUDE_CODE, &routes).unwrap();
    for kept in [
        "\"numStartups\": 42",
        "\"memory-command\": 12",
        "\"lastCost\": 0.4521",
        "\"type\": \"stdio\"",
        "\"url\": \"https://mcp.sentry.dev/mcp\"",
        "\"lastOnboardingVersion\": \"1.0.51\"",
    ] {
        assert!(routed.contains(kept), "lost {kept}");
    }
    assert!(!routed.contains("pg_R00tgate"));
}

#[test]
fn rewrite_keeps_vscode_comments_and_inputs() {
    let routes = vec![
        route(Scope::Global, "github", &[]),
        route(Scope::Global, "workspace-files", &[]),
    ];
    let routed = rewrite(AppKind::VsCode, "f", VSCODE, &routes).unwrap();
    for kept in [
        "// Servers VS Code starts for Copilot's agent mode.",
        "/* A remote server: listed, never routed. */",
        "\"password\": true",
        "\"id\": \"region\"",
        "            \"type\": \"stdio\",\n            \"command\": \"/home/me/.local/bin/rootgate\",",
    ] {
        assert!(routed.contains(kept), "lost {kept:?}:\n{routed}");
    }
    assert!(!routed.contains("${workspaceFolder}"));
}

#[test]
fn rewrite_keeps_zed_comments_trailing_commas_and_shapes() {
    let env = [("XDG_CONFIG_HOME", "/srv/rg")];
    let routes = routes_for(
        &[
            (Scope::Global, "filesystem"),
            (Scope::Global, "sqlite"),
            (Scope::Global, "time"),
        ],
        &env,
    );
    let routed = rewrite(AppKind::Zed, "settings.json", ZED, &routes).unwrap();
    for kept in [
        "// Zed settings\n//\n// For information on how to configure Zed",
        "  \"vim_mode\": true,\n",
        "\"dark\": \"One Dark\",\n  },",
        "// MCP servers the agent panel may use.",
        "// Written by an older Zed, which nested the command.",
        "\"source\": \"extension\"",
        "\"github_personal_access_token\": \"ghp_R00tgateZedExtensionSecret0000\",",
        "\"enabled\": false, // paused for now",
        "\"url\": \"https://mcp.deepwiki.com/mcp\",\n    },\n  },",
        "\"tab_size\": 4,\n    },\n  },\n}\n",
        // The new env follows the file's trailing commas.
        "\"XDG_CONFIG_HOME\": \"/srv/rg\",\n",
    ] {
        assert!(routed.contains(kept), "lost {kept:?}:\n{routed}");
    }
    // The older shape is routed in place: `command.path`, and `settings` kept.
    let sqlite = "    \"sqlite\": {\n      \"command\": {\n        \"path\": \"/home/me/.local/bin/rootgate\",\n        \"args\": [\"connect\", \"sqlite\"],\n";
    assert!(routed.contains(sqlite), "{routed}");
    assert!(routed.contains("      \"settings\": {},\n    },"));
    assert!(!routed.contains("zed_R00tgate"));
}

#[test]
fn a_new_env_follows_zeds_trailing_commas_even_over_a_one_line_env() {
    let one_line = ZED.replace(
        "\"env\": {\n        \"NODE_OPTIONS\": \"--max-old-space-size=512\",\n      },",
        "\"env\": {\"NODE_OPTIONS\": \"--max-old-space-size=512\"},",
    );
    assert_ne!(one_line, ZED);
    let routes = [route(
        Scope::Global,
        "filesystem",
        &[("XDG_CONFIG_HOME", "/srv/rg")],
    )];
    let routed = rewrite(AppKind::Zed, "f", &one_line, &routes).unwrap();
    let env = "      \"env\": {\n        \"XDG_CONFIG_HOME\": \"/srv/rg\",\n      },\n      \"enabled\": true,";
    assert!(routed.contains(env), "{routed}");
}

#[test]
fn rewrite_keeps_crlf_and_four_space_indentation() {
    let routes = routes_for(
        &[(Scope::Global, "notion"), (Scope::Global, "brave-search")],
        &[("XDG_CONFIG_HOME", "/srv/rg")],
    );
    let routed = rewrite(AppKind::Cursor, "mcp.json", CURSOR, &routes).unwrap();
    assert_eq!(
        routed.matches('\n').count(),
        routed.matches("\r\n").count(),
        "a bare LF crept in:\n{routed:?}"
    );
    // `notion` had no env: it gains one, indented like its neighbours.
    let notion = "        \"notion\": {\r\n            \"command\": \"/home/me/.local/bin/rootgate\",\r\n            \"args\": [\"connect\", \"notion\"],\r\n            \"env\": {\r\n                \"XDG_CONFIG_HOME\": \"/srv/rg\"\r\n            }\r\n        },";
    assert!(routed.contains(notion), "{routed}");
    assert!(routed.contains("\"STRIPE_SECRET_KEY\": \"sk_test_R00tgateFixtureSecret51Hx\""));
}

#[test]
fn rewrite_adds_args_to_an_entry_without_them() {
    let text =
        "{\n  \"mcpServers\": {\n    \"bare\": {\"command\": \"bare-mcp\", \"extra\": 1}\n  }\n}\n";
    let routes = vec![route(Scope::Global, "bare", &[])];
    let routed = rewrite(AppKind::Cursor, "f", text, &routes).unwrap();
    let parsed = parse(AppKind::Cursor, "f", &routed).unwrap();
    assert_eq!(
        parsed.entries[0].transport,
        stdio(ROOTGATE, &["connect", "bare"], &[])
    );
    assert!(routed.contains("\"extra\": 1"));
    assert_eq!(
        restore(
            AppKind::Cursor,
            "f",
            &routed,
            text,
            &[(Scope::Global, "bare".to_owned())]
        )
        .unwrap(),
        text
    );
}

#[test]
fn rewrite_refuses_missing_remote_and_extension_entries() {
    let cases = [
        (
            AppKind::ClaudeDesktop,
            CLAUDE_DESKTOP,
            Scope::Global,
            "nope",
        ),
        (
            AppKind::ClaudeCode,
            CLAUDE_CODE,
            project("/home/me/elsewhere"),
            "postgres",
        ),
        (
            AppKind::ClaudeCode,
            CLAUDE_CODE,
            project("/home/me/notes"),
            "postgres",
        ),
        (
            AppKind::Cursor,
            CURSOR,
            project("/home/me/src/webapp"),
            "notion",
        ),
        (AppKind::Zed, "", Scope::Global, "filesystem"),
    ];
    for (app, text, scope, key) in cases {
        let err = rewrite(app, "f", text, &[route(scope.clone(), key, &[])]).unwrap_err();
        assert!(
            matches!(&err, ConfigError::NoSuchEntry { key: k, .. } if k == key),
            "{app:?} {scope:?} {key}: {err:?}"
        );
        assert_no_secret(&err);
    }
    let remote = [
        (
            AppKind::ClaudeCode,
            CLAUDE_CODE,
            project("/home/me/src/webapp"),
            "sentry",
        ),
        (AppKind::Cursor, CURSOR, Scope::Global, "linear"),
        (AppKind::VsCode, VSCODE, Scope::Global, "context7"),
        (AppKind::Zed, ZED, Scope::Global, "deepwiki"),
        (AppKind::Zed, ZED, Scope::Global, "mcp-server-github"),
    ];
    for (app, text, scope, key) in remote {
        let err = rewrite(app, "f", text, &[route(scope, key, &[])]).unwrap_err();
        assert!(shape_key(&err).ends_with(key), "{err}");
        assert_no_secret(&err);
    }
    let err = rewrite(
        AppKind::ClaudeCode,
        "f",
        CLAUDE_CODE,
        &[route(project("/home/me/notes"), "nope", &[])],
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("in project /home/me/notes"),
        "{err}"
    );
}

#[test]
fn restore_keeps_what_the_app_changed_since() {
    let webapp = project("/home/me/src/webapp");
    let routes = vec![
        route(Scope::Global, "memory", &[]),
        route(webapp.clone(), "postgres", &[]),
    ];
    let routed = rewrite(AppKind::ClaudeCode, "f", CLAUDE_CODE, &routes).unwrap();
    // Claude Code counts a start and the person adds a server meanwhile.
    let changed = routed.replace("\"numStartups\": 42", "\"numStartups\": 43").replace(
        "\"mcpServers\": {\n    \"memory\"",
        "\"mcpServers\": {\n    \"added\": {\n      \"command\": \"added-mcp\"\n    },\n    \"memory\"",
    );
    assert_ne!(changed, routed);
    let keys = vec![
        (Scope::Global, "memory".to_owned()),
        (webapp, "postgres".to_owned()),
    ];
    let back = restore(AppKind::ClaudeCode, "f", &changed, CLAUDE_CODE, &keys).unwrap();
    let expected = CLAUDE_CODE.replace("\"numStartups\": 42", "\"numStartups\": 43").replace(
        "\"mcpServers\": {\n    \"memory\"",
        "\"mcpServers\": {\n    \"added\": {\n      \"command\": \"added-mcp\"\n    },\n    \"memory\"",
    );
    assert_eq!(back, expected);
}

#[test]
fn restore_inserts_entries_the_app_removed_and_removes_ones_it_never_had() {
    let keys = vec![(Scope::Global, "sqlite".to_owned())];
    // Someone deleted `sqlite` from Zed's settings after the route.
    let routed = rewrite(
        AppKind::Zed,
        "f",
        ZED,
        &[route(Scope::Global, "sqlite", &[])],
    )
    .unwrap();
    let start = routed.find("    // Written by an older Zed").unwrap();
    let end = routed.find("    \"mcp-server-github\"").unwrap();
    let without = format!("{}{}", &routed[..start], &routed[end..]);
    assert!(
        parse(AppKind::Zed, "f", &without)
            .unwrap()
            .entries
            .iter()
            .all(|e| e.key != "sqlite")
    );
    let back = restore(AppKind::Zed, "f", &without, ZED, &keys).unwrap();
    let entries = parse(AppKind::Zed, "f", &back).unwrap().entries;
    let original = parse(AppKind::Zed, "f", ZED).unwrap().entries;
    assert_eq!(
        find(&entries, &Scope::Global, "sqlite"),
        find(&original, &Scope::Global, "sqlite")
    );
    assert!(back.contains("\"settings\": {},"), "{back}");

    // An entry the original never had is taken out again.
    let added = rewrite(AppKind::Zed, "f", ZED, &[]).unwrap().replace(
        "  \"context_servers\": {\n",
        "  \"context_servers\": {\n    \"later\": {\"command\": \"later-mcp\",},\n",
    );
    let back = restore(
        AppKind::Zed,
        "f",
        &added,
        ZED,
        &[(Scope::Global, "later".to_owned())],
    )
    .unwrap();
    assert_eq!(back, ZED);

    // Restoring into a file the app emptied recreates the list.
    let keys = vec![(Scope::Global, "github".to_owned())];
    let back = restore(AppKind::ClaudeDesktop, "f", "", CLAUDE_DESKTOP, &keys).unwrap();
    let entries = parse(AppKind::ClaudeDesktop, "f", &back).unwrap().entries;
    let original = parse(AppKind::ClaudeDesktop, "f", CLAUDE_DESKTOP)
        .unwrap()
        .entries;
    assert_eq!(
        entries,
        vec![find(&original, &Scope::Global, "github").clone()]
    );

    // A project Claude Code forgot comes back with its list.
    let webapp = project("/home/me/src/webapp");
    let keys = vec![(webapp.clone(), "postgres".to_owned())];
    let bare = "{\n  \"numStartups\": 50,\n  \"projects\": {}\n}\n";
    let back = restore(AppKind::ClaudeCode, "f", bare, CLAUDE_CODE, &keys).unwrap();
    let parsed = parse(AppKind::ClaudeCode, "f", &back).unwrap();
    let original = parse(AppKind::ClaudeCode, "f", CLAUDE_CODE)
        .unwrap()
        .entries;
    assert_eq!(
        parsed.entries,
        vec![find(&original, &webapp, "postgres").clone()]
    );
    assert!(back.contains("\"numStartups\": 50"));
}

// ---- errors ----

#[test]
fn syntax_errors_point_at_the_line() {
    let err = parse(
        AppKind::ClaudeDesktop,
        "claude_desktop_config.json",
        CORRUPT_CLAUDE_DESKTOP,
    )
    .unwrap_err();
    // The comma is missing right after the `env` object closes, on line 7.
    assert_eq!(syntax_at(&err), (7, 8), "{err}");
    assert!(
        err.to_string().starts_with(
            "claude_desktop_config.json: not valid JSON at line 7, column 8: expected comma"
        ),
        "{err}"
    );
    assert_no_secret(&err);

    let err = parse(AppKind::Zed, "settings.json", CORRUPT_ZED).unwrap_err();
    // The string opened on line 8 never closes.
    assert_eq!(syntax_at(&err).0, 8, "{err}");
    assert!(
        err.to_string().contains("not valid JSON with comments"),
        "{err}"
    );
    assert!(
        err.to_string().ends_with("a string has no closing quote"),
        "{err}"
    );
    assert_no_secret(&err);

    // The same errors stop a rewrite and a restore.
    let routes = [route(Scope::Global, "github", &[])];
    let err = rewrite(AppKind::ClaudeDesktop, "f", CORRUPT_CLAUDE_DESKTOP, &routes).unwrap_err();
    assert_eq!(syntax_at(&err).0, 7);
    let keys = [(Scope::Global, "github".to_owned())];
    let err = restore(
        AppKind::ClaudeDesktop,
        "f",
        CORRUPT_CLAUDE_DESKTOP,
        CLAUDE_DESKTOP,
        &keys,
    )
    .unwrap_err();
    assert_eq!(syntax_at(&err).0, 7);
}

#[test]
fn syntax_errors_count_crlf_lines_once() {
    // Break Cursor's file at `"stripe"` (line 15 of 26).
    let broken = CURSOR.replace("\"stripe\": {", "\"stripe\" {");
    let err = parse(AppKind::Cursor, "f", &broken).unwrap_err();
    assert_eq!(syntax_at(&err).0, 15, "{err}");
}

#[test]
fn strict_json_apps_refuse_comments_and_trailing_commas() {
    let commented = "{\n  // note\n  \"mcpServers\": {}\n}";
    let trailing = "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"},\n  }\n}";
    for app in [AppKind::ClaudeDesktop, AppKind::ClaudeCode, AppKind::Cursor] {
        assert_eq!(syntax_at(&parse(app, "f", commented).unwrap_err()), (2, 3));
        assert_eq!(syntax_at(&parse(app, "f", trailing).unwrap_err()).0, 3);
    }
    for app in [AppKind::VsCode, AppKind::Zed] {
        assert!(parse(app, "f", commented).is_ok());
    }
    assert_eq!(
        parse(
            AppKind::Zed,
            "f",
            &trailing.replace("mcpServers", "context_servers")
        )
        .unwrap()
        .entries
        .len(),
        1
    );
    // Looser JSON5 forms are refused even where comments are allowed.
    let single = "{'context_servers': {}}";
    assert!(matches!(
        parse(AppKind::Zed, "f", single),
        Err(ConfigError::Syntax { .. })
    ));
}

#[test]
fn bad_shapes_name_the_key_and_never_the_value() {
    let secret = "ghp_R00tgateFixtureSecret7h1sIsN0tReal42";
    let cases: Vec<(AppKind, String, &str)> = vec![
        (AppKind::ClaudeDesktop, "[]".to_owned(), "(top level)"),
        (
            AppKind::ClaudeDesktop,
            "{\"mcpServers\": []}".to_owned(),
            "mcpServers",
        ),
        (
            AppKind::ClaudeDesktop,
            CLAUDE_DESKTOP.replace("\"/home/me/Projects\"", "42"),
            "mcpServers.filesystem.args[3]",
        ),
        (
            AppKind::ClaudeDesktop,
            CLAUDE_DESKTOP.replace(&format!("\"{secret}\""), "12345"),
            "mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN",
        ),
        (
            AppKind::ClaudeDesktop,
            CLAUDE_DESKTOP.replace("\"command\": \"docker\",", ""),
            "mcpServers.github",
        ),
        (
            AppKind::ClaudeDesktop,
            CLAUDE_DESKTOP.replace("\"command\": \"node\"", "\"command\": \"\""),
            "mcpServers.windows-notes.command",
        ),
        (
            AppKind::ClaudeDesktop,
            CLAUDE_DESKTOP.replace("\"windows-notes\"", "\"github\""),
            "mcpServers.github",
        ),
        (
            AppKind::ClaudeCode,
            CLAUDE_CODE.replace("\"url\": \"https://mcp.sentry.dev/mcp\"", "\"link\": \"x\""),
            "projects[\"/home/me/src/webapp\"].mcpServers.sentry.url",
        ),
        (
            AppKind::ClaudeCode,
            CLAUDE_CODE
                .replace("\"/home/me/notes\": {", "\"/home/me/notes\": [{")
                .replace(
                    "\"projectOnboardingSeenCount\": 0\n    }",
                    "\"projectOnboardingSeenCount\": 0\n    }]",
                ),
            "projects[\"/home/me/notes\"]",
        ),
        (
            AppKind::Cursor,
            CURSOR.replace(
                "\"envFile\": \"/home/me/tools/notion-mcp/.env\"",
                "\"envFile\": [\"a\"]",
            ),
            "mcpServers.notion.envFile",
        ),
        (
            AppKind::VsCode,
            VSCODE.replace("\"id\": \"region\"", "\"name\": \"region\""),
            "inputs[1].id",
        ),
        (
            AppKind::VsCode,
            VSCODE.replace("\"password\": true", "\"password\": \"yes\""),
            "inputs[0].password",
        ),
        (
            AppKind::Zed,
            ZED.replace("\"enabled\": false", "\"enabled\": \"no\""),
            "context_servers.time.enabled",
        ),
        (
            AppKind::Zed,
            ZED.replace("\"path\": \"uvx\",", ""),
            "context_servers.sqlite.command.path",
        ),
        (
            AppKind::Zed,
            ZED.replace(
                "\"SQLITE_KEY\": \"zed_R00tgateFixtureSecret_9a7c\"",
                "\"SQLITE_KEY\": [\"zed_R00tgateFixtureSecret_9a7c\"]",
            ),
            "context_servers.sqlite.command.env.SQLITE_KEY",
        ),
    ];
    for (app, text, key) in cases {
        let err = parse(app, "f", &text).unwrap_err();
        assert_eq!(shape_key(&err), key, "{err}");
        assert!(err.to_string().contains(app.title()), "{err}");
        assert_no_secret(&err);
        // A file Rootgate cannot read is not rewritten either.
        let err = rewrite(app, "f", &text, &[route(Scope::Global, "filesystem", &[])]).unwrap_err();
        assert_eq!(shape_key(&err), key, "{err}");
    }
}

// ---- properties ----

proptest! {
    /// Whatever the route holds (quotes, backslashes, control characters,
    /// any script), the rewritten file reads back as exactly the route, and
    /// restoring gives the original bytes.
    #[test]
    fn any_route_round_trips(
        command in "/.{0,40}",
        args in proptest::collection::vec(any::<String>(), 0..4),
        env in proptest::collection::btree_map("[A-Z_]{1,8}", any::<String>(), 0..3),
        which in 0usize..6,
    ) {
        let Fixture { app, file, text, entries } = fixtures().swap_remove(which);
        let (scope, key) = entries[0].clone();
        let route = RouteTo { scope: scope.clone(), key: key.to_owned(), command, args, env };
        let routed = rewrite(app, file, text, std::slice::from_ref(&route)).unwrap();
        let parsed = parse(app, file, &routed).unwrap();
        let got = find(&parsed.entries, &scope, key);
        prop_assert_eq!(&got.transport, &Transport::Stdio {
            command: route.command.clone(),
            args: route.args.clone(),
            env: route.env.clone(),
            cwd: None,
            env_file: None,
            env_keys: Vec::new(),
        });
        prop_assert_eq!(rewrite(app, file, &routed, std::slice::from_ref(&route)).unwrap(), routed.clone());
        let back = restore(app, file, &routed, text, &[(scope, key.to_owned())]).unwrap();
        prop_assert_eq!(back, text);
    }
}

// ---- where the files are ----

fn places(home: &Path, xdg: Option<&Path>, claude: Option<&Path>) -> Places {
    Places {
        home: home.to_path_buf(),
        xdg_config_home: xdg.map(Path::to_path_buf),
        claude_config_dir: claude.map(Path::to_path_buf),
        homes: Default::default(),
    }
}

fn path_of(app: AppKind, places: &Places) -> PathBuf {
    locate::main_file(app, places).path
}

#[test]
fn main_files_follow_each_apps_rules() {
    let home = Path::new("/home/me");
    let plain = places(home, None, None);
    assert_eq!(
        path_of(AppKind::ClaudeDesktop, &plain),
        Path::new("/home/me/.config/Claude/claude_desktop_config.json")
    );
    assert_eq!(
        path_of(AppKind::ClaudeCode, &plain),
        Path::new("/home/me/.claude.json")
    );
    assert_eq!(
        path_of(AppKind::Cursor, &plain),
        Path::new("/home/me/.cursor/mcp.json")
    );
    assert_eq!(
        path_of(AppKind::VsCode, &plain),
        Path::new("/home/me/.config/Code/User/mcp.json")
    );
    assert_eq!(
        path_of(AppKind::Zed, &plain),
        Path::new("/home/me/.config/zed/settings.json")
    );
    assert_eq!(
        path_of(AppKind::Goose, &plain),
        Path::new("/home/me/.config/goose/config.yaml")
    );

    let xdg = places(home, Some(Path::new("/xdg")), Some(Path::new("/cc")));
    assert_eq!(
        path_of(AppKind::ClaudeDesktop, &xdg),
        Path::new("/xdg/Claude/claude_desktop_config.json")
    );
    assert_eq!(
        path_of(AppKind::VsCode, &xdg),
        Path::new("/xdg/Code/User/mcp.json")
    );
    assert_eq!(
        path_of(AppKind::Zed, &xdg),
        Path::new("/xdg/zed/settings.json")
    );
    assert_eq!(
        path_of(AppKind::Goose, &xdg),
        Path::new("/xdg/goose/config.yaml")
    );
    // Cursor ignores XDG_CONFIG_HOME; Claude Code follows CLAUDE_CONFIG_DIR.
    assert_eq!(
        path_of(AppKind::Cursor, &xdg),
        Path::new("/home/me/.cursor/mcp.json")
    );
    assert_eq!(
        path_of(AppKind::ClaudeCode, &xdg),
        Path::new("/cc/.claude.json")
    );

    // Relative values are not used.
    let relative = places(home, Some(Path::new("xdg")), Some(Path::new("cc")));
    assert_eq!(
        path_of(AppKind::Zed, &relative),
        Path::new("/home/me/.config/zed/settings.json")
    );
    assert_eq!(
        path_of(AppKind::ClaudeCode, &relative),
        Path::new("/home/me/.claude.json")
    );

    for app in AppKind::ALL {
        let file = locate::main_file(app, &plain);
        assert_eq!((file.app, file.format), (app, app.format()));
    }
}

#[test]
fn claude_code_prefers_a_legacy_config_json() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let plain = places(home, None, None);
    fs::create_dir_all(home.join(".claude")).unwrap();
    assert_eq!(
        path_of(AppKind::ClaudeCode, &plain),
        home.join(".claude.json")
    );
    fs::write(home.join(".claude/.config.json"), "{}").unwrap();
    assert_eq!(
        path_of(AppKind::ClaudeCode, &plain),
        home.join(".claude/.config.json")
    );

    let custom = home.join("custom");
    fs::create_dir_all(&custom).unwrap();
    let moved = places(home, None, Some(&custom));
    assert_eq!(
        path_of(AppKind::ClaudeCode, &moved),
        custom.join(".claude.json")
    );
}

#[test]
fn installed_means_the_file_or_the_apps_folder_exists() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let p = places(home, None, None);
    for app in AppKind::ALL {
        assert!(!locate::installed(app, &p), "{app:?} in an empty home");
    }
    fs::create_dir_all(home.join(".cursor")).unwrap();
    fs::create_dir_all(home.join(".config/Claude")).unwrap();
    fs::create_dir_all(home.join(".config/Code")).unwrap();
    fs::write(home.join(".claude.json"), "{}").unwrap();
    assert!(locate::installed(AppKind::Cursor, &p));
    assert!(locate::installed(AppKind::ClaudeDesktop, &p));
    assert!(locate::installed(AppKind::VsCode, &p));
    assert!(locate::installed(AppKind::ClaudeCode, &p));
    assert!(!locate::installed(AppKind::Zed, &p));
    assert!(!locate::installed(AppKind::Goose, &p));

    // Claude Code with only its folder.
    let other = tempfile::tempdir().unwrap();
    fs::create_dir_all(other.path().join(".claude")).unwrap();
    assert!(locate::installed(
        AppKind::ClaudeCode,
        &places(other.path(), None, None)
    ));

    // Zed under XDG_CONFIG_HOME, not under ~/.config.
    let xdg = home.join("xdg");
    fs::create_dir_all(xdg.join("zed")).unwrap();
    assert!(locate::installed(
        AppKind::Zed,
        &places(home, Some(&xdg), None)
    ));
    assert!(!locate::installed(
        AppKind::ClaudeDesktop,
        &places(home, Some(&xdg), None)
    ));
}

#[test]
fn project_files_are_the_existing_mcp_jsons() {
    let dir = tempfile::tempdir().unwrap();
    let with = dir.path().join("with");
    let without = dir.path().join("without");
    fs::create_dir_all(&with).unwrap();
    fs::create_dir_all(&without).unwrap();
    fs::write(with.join(".mcp.json"), PROJECT_MCP).unwrap();
    let projects = vec![
        with.to_string_lossy().into_owned(),
        without.to_string_lossy().into_owned(),
        dir.path().join("gone").to_string_lossy().into_owned(),
        "relative/project".to_owned(),
    ];
    assert_eq!(
        locate::project_files(&projects),
        vec![ConfigFile {
            app: AppKind::ClaudeCode,
            path: with.join(".mcp.json"),
            format: Format::Json,
        }]
    );
}
