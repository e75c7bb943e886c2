//! Goose's `config.yaml` through `rootgate_apps`: which extensions are
//! read, how a route rewrites one and nothing else, how `restore` undoes it
//! byte for byte, and which errors bad files give (without their secrets).
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use rootgate_apps::{
    AppKind, ConfigError, RawEntry, RouteTo, Scope, Transport, parse, restore, rewrite,
};

const FILE: &str = "config.yaml";
const CONFIG: &str = include_str!("../fixtures/apps/goose/config.yaml");
const EMPTY: &str = include_str!("../fixtures/apps/goose/empty.yaml");
const NO_EXTENSIONS: &str = include_str!("../fixtures/apps/goose/no_extensions.yaml");
/// The `envs` value in the fixture that must never reach an error.
const SECRET: &str = "ghp_R00tgateTestSecret1234567890abcdef";
const ROOTGATE: &str = "/opt/rootgate/bin/rootgate";

fn entries(text: &str) -> Vec<RawEntry> {
    parse(AppKind::Goose, FILE, text).unwrap().entries
}

fn entry<'a>(entries: &'a [RawEntry], key: &str) -> &'a RawEntry {
    entries.iter().find(|e| e.key == key).unwrap()
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn stdio(command: &str, args: &[&str], vars: &[(&str, &str)], env_keys: &[&str]) -> Transport {
    Transport::Stdio {
        command: command.to_owned(),
        args: strings(args),
        env: env(vars),
        cwd: None,
        env_file: None,
        env_keys: strings(env_keys),
    }
}

fn route(key: &str, vars: &[(&str, &str)]) -> RouteTo {
    RouteTo {
        scope: Scope::Global,
        key: key.to_owned(),
        command: ROOTGATE.to_owned(),
        args: strings(&["connect", key]),
        env: env(vars),
    }
}

fn global(key: &str) -> (Scope, String) {
    (Scope::Global, key.to_owned())
}

/// The lines of `text` outside extension `key`'s block (its `  key:` line
/// and the deeper-indented or blank lines under it; blank lines come from
/// block scalars, as the fixture has none between extensions).
fn outside(text: &str, key: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let head = format!("  {key}:");
    let start = lines.iter().position(|l| *l == head).unwrap();
    let end = (start + 1..lines.len())
        .find(|&i| !lines[i].starts_with("   ") && !lines[i].trim().is_empty())
        .unwrap_or(lines.len());
    lines[..start]
        .iter()
        .chain(&lines[end..])
        .map(|l| (*l).to_owned())
        .collect()
}

/// Extension `key`'s block, as `outside` leaves it out.
fn block(text: &str, key: &str) -> Vec<String> {
    let all: Vec<String> = text.lines().map(str::to_owned).collect();
    let rest = outside(text, key);
    let start = all.iter().position(|l| *l == format!("  {key}:")).unwrap();
    all[start..start + all.len() - rest.len()].to_vec()
}

fn parse_error(text: &str) -> ConfigError {
    parse(AppKind::Goose, FILE, text).unwrap_err()
}

fn syntax_line(error: &ConfigError) -> usize {
    match error {
        ConfigError::Syntax {
            line,
            format: "YAML",
            ..
        } => *line,
        other => panic!("not a YAML syntax error: {other:?}"),
    }
}

fn shape_key(error: &ConfigError) -> &str {
    match error {
        ConfigError::Shape {
            key, app: "Goose", ..
        } => key,
        other => panic!("not a Goose shape error: {other:?}"),
    }
}

#[test]
fn parse_reads_the_stdio_and_remote_extensions_and_skips_goose_s_own() {
    let expected = vec![
        RawEntry {
            scope: Scope::Global,
            key: "github".to_owned(),
            transport: stdio(
                "npx",
                &["-y", "@modelcontextprotocol/server-github"],
                &[("GITHUB_TOKEN", SECRET)],
                &["GITHUB_API_URL"],
            ),
            enabled: true,
        },
        RawEntry {
            scope: Scope::Global,
            key: "filesystem".to_owned(),
            transport: stdio(
                "npx",
                &[
                    "-y",
                    "@modelcontextprotocol/server-filesystem",
                    "/home/me/code",
                    r"C:\Users\me\Documents",
                ],
                &[],
                &[],
            ),
            enabled: true,
        },
        RawEntry {
            scope: Scope::Global,
            key: "memory".to_owned(),
            transport: stdio(
                "/usr/local/bin/mcp-memory",
                &["--store", "/home/me/.local/share/memory.json"],
                // Goose takes plain scalars as their text.
                &[("MEMORY_LIMIT", "512"), ("VERBOSE", "true")],
                &[],
            ),
            enabled: false,
        },
        RawEntry {
            scope: Scope::Global,
            key: "remote-search".to_owned(),
            transport: Transport::Remote {
                url: "http://localhost:8931/sse".to_owned(),
            },
            enabled: true,
        },
        RawEntry {
            scope: Scope::Global,
            key: "notion".to_owned(),
            transport: Transport::Remote {
                url: "https://mcp.notion.com/mcp".to_owned(),
            },
            enabled: true,
        },
    ];
    let parsed = parse(AppKind::Goose, FILE, CONFIG).unwrap();
    assert_eq!(parsed.entries, expected);
    assert!(parsed.inputs.is_empty());
    assert!(parsed.projects.is_empty());
}

#[test]
fn files_without_extensions_hold_no_entries() {
    for text in [
        EMPTY,
        NO_EXTENSIONS,
        "# only a comment\n",
        "GOOSE_MODEL: x\nextensions:\n",
        "extensions: {}\n",
        "---\n",
    ] {
        assert_eq!(entries(text), Vec::new(), "{text:?}");
    }
}

#[test]
fn unknown_and_in_process_kinds_are_skipped_without_error() {
    let text = "extensions:\n  a:\n    type: frontend\n    tools: []\n  b:\n    type: inline_python\n    code: print(1)\n  c:\n    type: some_future_kind\n  d:\n    type: sse\n    name: d\n";
    assert_eq!(entries(text), Vec::new());
}

#[test]
fn rewrite_routes_one_extension_and_keeps_every_other_byte() {
    let out = rewrite(AppKind::Goose, FILE, CONFIG, &[route("github", &[])]).unwrap();

    assert_eq!(outside(&out, "github"), outside(CONFIG, "github"));
    let lines = block(&out, "github");
    for kept in [
        "    bundled: null",
        "    description: GitHub repositories and issues",
        "    enabled: true",
        "    name: github",
        "    timeout: 300",
        "    type: stdio",
        "    env_keys: []",
        "    envs: {}",
    ] {
        assert!(lines.iter().any(|l| l == kept), "{kept:?} in {lines:#?}");
    }
    assert!(!out.contains(SECRET));
    assert!(out.contains("# The GitHub server; the token below is a test value."));

    let after = entries(&out);
    assert_eq!(
        entry(&after, "github").transport,
        stdio(ROOTGATE, &["connect", "github"], &[], &[])
    );
    let before = entries(CONFIG);
    for other in ["filesystem", "memory", "remote-search", "notion"] {
        assert_eq!(entry(&after, other), entry(&before, other));
    }
}

#[test]
fn rewrite_quotes_strings_yaml_would_otherwise_misread() {
    let tricky = [
        "@scope/pkg",
        "key: value",
        "-x",
        "#not-a-comment",
        r"C:\Program Files\Rootgate\rootgate.exe",
        "true",
        "123",
        "null",
        "",
        " padded ",
        "it's \"quoted\"",
        "line\nbreak",
        "[not, a, list]",
        "{not: a map}",
        "*alias",
        "&anchor",
        "!tag",
        "%directive",
        "a, b",
        "ünïcödé ✓",
    ];
    let mut to = route("filesystem", &[("XDG_CONFIG_HOME", "/home/me/cfg: # odd")]);
    to.command = "C:\\Program Files\\Rootgate\\rootgate.exe".to_owned();
    to.args = strings(&tricky);
    let out = rewrite(AppKind::Goose, FILE, CONFIG, std::slice::from_ref(&to)).unwrap();
    assert_eq!(
        entry(&entries(&out), "filesystem").transport,
        Transport::Stdio {
            command: to.command.clone(),
            args: to.args.clone(),
            env: to.env.clone(),
            cwd: None,
            env_file: None,
            env_keys: Vec::new(),
        }
    );
    assert_eq!(outside(&out, "filesystem"), outside(CONFIG, "filesystem"));
    assert!(
        out.contains("'@scope/pkg'") || out.contains("\"@scope/pkg\""),
        "{out}"
    );
}

#[test]
fn rewrite_sets_the_bridge_environment_and_empties_env_keys() {
    let vars = [("XDG_CONFIG_HOME", "/home/me/.config/rootgate-test")];
    let out = rewrite(AppKind::Goose, FILE, CONFIG, &[route("github", &vars)]).unwrap();
    let github = entry(&entries(&out), "github").clone();
    assert_eq!(
        github.transport,
        stdio(ROOTGATE, &["connect", "github"], &vars, &[])
    );
    assert!(github.enabled);
    assert!(!out.contains(SECRET));
    assert!(!out.contains("GITHUB_API_URL"));
}

#[test]
fn rewrite_of_several_extensions_including_a_disabled_one() {
    let routes = [
        route("github", &[]),
        route("memory", &[]),
        route("filesystem", &[]),
    ];
    let out = rewrite(AppKind::Goose, FILE, CONFIG, &routes).unwrap();
    let after = entries(&out);
    for key in ["github", "memory", "filesystem"] {
        assert_eq!(
            entry(&after, key).transport,
            stdio(ROOTGATE, &["connect", key], &[], &[])
        );
    }
    // Routing does not switch an extension on.
    assert!(!entry(&after, "memory").enabled);
    assert!(out.contains("    x_pinned_version: 1.4.2 # a key Rootgate does not know\n"));
}

#[test]
fn rewriting_applied_routes_changes_nothing() {
    let routes = [
        route("github", &[("XDG_CONFIG_HOME", "/tmp/x")]),
        route("filesystem", &[]),
    ];
    let once = rewrite(AppKind::Goose, FILE, CONFIG, &routes).unwrap();
    let twice = rewrite(AppKind::Goose, FILE, &once, &routes).unwrap();
    assert_eq!(twice, once);
    assert_eq!(rewrite(AppKind::Goose, FILE, CONFIG, &[]).unwrap(), CONFIG);
}

#[test]
fn restore_after_rewrite_gives_the_original_bytes() {
    let keys = ["github", "filesystem", "memory"];
    let routes: Vec<RouteTo> = keys.iter().map(|k| route(k, &[])).collect();
    let out = rewrite(AppKind::Goose, FILE, CONFIG, &routes).unwrap();
    assert_ne!(out, CONFIG);
    let scopes: Vec<_> = keys.iter().map(|k| global(k)).collect();
    let back = restore(AppKind::Goose, FILE, &out, CONFIG, &scopes).unwrap();
    assert_eq!(back, CONFIG);
}

#[test]
fn rewrite_and_restore_work_in_other_layouts_too() {
    // Hand-edited files: four-space indentation, flow style, quoted keys,
    // comments inside the extension, CRLF line ends, no final line break.
    let layouts = [
        "extensions:\n    gh:\n        args:\n            - a\n        cmd: npx\n        type: stdio\n    other:\n        type: builtin\n",
        "extensions:\n  gh: {cmd: npx, args: [a], type: stdio}\n  other: {type: builtin}\n",
        "{extensions: {gh: {cmd: npx, args: [a], type: stdio}}}\n",
        "extensions:\n  'gh':\n    cmd: npx\n    type: stdio\n  \"b\":\n    type: builtin\n",
        "extensions:\n  gh:\n    # before args\n    args: # after the key\n    - a # an item\n    cmd: npx # the runner\n    type: stdio\n  # before the next\n  nx:\n    type: builtin\n",
        "extensions:\r\n  gh:\r\n    args:\r\n    - a\r\n    cmd: npx\r\n    type: stdio\r\nX: 1\r\n",
        "X: 1\nextensions:\n  gh:\n    cmd: npx\n    type: stdio",
        "---\nextensions:\n  gh:\n    cmd: npx\n    args:\n    envs:\n    type: stdio\n...\n",
    ];
    let to = route("gh", &[("XDG_CONFIG_HOME", "/home/me/.config/rg")]);
    for text in layouts {
        let out = rewrite(AppKind::Goose, FILE, text, std::slice::from_ref(&to)).unwrap();
        assert_eq!(
            entries(&out)[0].transport,
            stdio(
                ROOTGATE,
                &["connect", "gh"],
                &[("XDG_CONFIG_HOME", "/home/me/.config/rg")],
                &[]
            ),
            "{out}"
        );
        assert_eq!(
            rewrite(AppKind::Goose, FILE, &out, std::slice::from_ref(&to)).unwrap(),
            out
        );
        let back = restore(AppKind::Goose, FILE, &out, text, &[global("gh")]).unwrap();
        assert_eq!(back, text);
    }
    let crlf = rewrite(AppKind::Goose, FILE, layouts[5], &[to]).unwrap();
    assert!(!crlf.replace("\r\n", "").contains('\n'), "{crlf:?}");
    let comments = rewrite(AppKind::Goose, FILE, layouts[4], &[route("gh", &[])]).unwrap();
    for kept in ["# before args", "# the runner", "# before the next"] {
        assert!(comments.contains(kept), "{comments}");
    }
}

#[test]
fn restore_into_a_reindented_file_puts_the_settings_back() {
    let original = "extensions:\n  gh:\n    args:\n    - -y\n    - '@scope/gh'\n    cmd: npx\n    envs:\n      TOKEN: t0k3n\n    type: stdio\n";
    let current = "extensions:\n    gh:\n        cmd: /opt/rootgate/bin/rootgate\n        args: [connect, gh]\n        type: stdio\n    other:\n        cmd: x\n        type: stdio\n";
    let back = restore(AppKind::Goose, FILE, current, original, &[global("gh")]).unwrap();
    let after = entries(&back);
    assert_eq!(entry(&after, "gh"), entry(&entries(original), "gh"));
    assert_eq!(entry(&after, "other"), entry(&entries(current), "other"));
    assert!(
        back.ends_with("    other:\n        cmd: x\n        type: stdio\n"),
        "{back}"
    );
}

#[test]
fn restore_keeps_what_goose_changed_since() {
    let routed = rewrite(AppKind::Goose, FILE, CONFIG, &[route("github", &[])]).unwrap();
    // Goose changed the model and added an extension after the rewrite.
    let current = routed
        .replace(
            "GOOSE_MODEL: claude-sonnet-4-20250514",
            "GOOSE_MODEL: claude-opus-4",
        )
        .replace(
            "  todo:\n",
            "  fetch:\n    args: []\n    cmd: uvx\n    type: stdio\n  todo:\n",
        );
    let back = restore(AppKind::Goose, FILE, &current, CONFIG, &[global("github")]).unwrap();
    assert!(back.contains("GOOSE_MODEL: claude-opus-4\n"));
    assert!(back.contains("  fetch:\n    args: []\n    cmd: uvx\n"));
    assert_eq!(block(&back, "github"), block(CONFIG, "github"));
    let expected = CONFIG
        .replace(
            "GOOSE_MODEL: claude-sonnet-4-20250514",
            "GOOSE_MODEL: claude-opus-4",
        )
        .replace(
            "  todo:\n",
            "  fetch:\n    args: []\n    cmd: uvx\n    type: stdio\n  todo:\n",
        );
    assert_eq!(back, expected);
}

#[test]
fn restore_inserts_what_current_lost_and_removes_what_original_lacked() {
    let mut current = CONFIG.to_owned();
    let github = block(CONFIG, "github").join("\n") + "\n";
    current = current.replace(&github, "");
    current = current.replace(
        "  todo:\n",
        "  added:\n    args: []\n    cmd: added-server\n    type: stdio\n  todo:\n",
    );
    let back = restore(
        AppKind::Goose,
        FILE,
        &current,
        CONFIG,
        &[global("github"), global("added")],
    )
    .unwrap();
    let after = entries(&back);
    assert_eq!(entry(&after, "github"), entry(&entries(CONFIG), "github"));
    assert!(after.iter().all(|e| e.key != "added"));
    assert!(back.contains(SECRET));
    assert!(!back.contains("added-server"));
}

#[test]
fn restore_into_a_file_without_extensions() {
    for current in [EMPTY, NO_EXTENSIONS, "# emptied\n"] {
        let back = restore(AppKind::Goose, FILE, current, CONFIG, &[global("github")]).unwrap();
        assert_eq!(
            entries(&back),
            vec![entry(&entries(CONFIG), "github").clone()],
            "{back}"
        );
        assert!(back.starts_with(current), "{back}");
    }
}

#[test]
fn restore_of_a_project_scope_or_an_absent_key_changes_nothing() {
    let entries = [
        (
            Scope::Project("/home/me/code".to_owned()),
            "github".to_owned(),
        ),
        global("never-there"),
    ];
    let back = restore(AppKind::Goose, FILE, CONFIG, CONFIG, &entries).unwrap();
    assert_eq!(back, CONFIG);
}

#[test]
fn routes_to_missing_or_non_stdio_extensions_are_refused() {
    let missing = rewrite(AppKind::Goose, FILE, CONFIG, &[route("nope", &[])]).unwrap_err();
    assert!(matches!(missing, ConfigError::NoSuchEntry { ref key, .. } if key == "nope"));
    let mut project = route("github", &[]);
    project.scope = Scope::Project("/home/me/code".to_owned());
    let in_project = rewrite(AppKind::Goose, FILE, CONFIG, &[project]).unwrap_err();
    assert!(matches!(in_project, ConfigError::NoSuchEntry { .. }));
    let none = rewrite(AppKind::Goose, FILE, NO_EXTENSIONS, &[route("github", &[])]);
    assert!(matches!(none, Err(ConfigError::NoSuchEntry { .. })));

    for key in ["remote-search", "notion", "developer", "todo"] {
        let error = rewrite(AppKind::Goose, FILE, CONFIG, &[route(key, &[])]).unwrap_err();
        assert_eq!(shape_key(&error), format!("extensions.{key}"));
    }
}

#[test]
fn syntax_errors_give_the_line_they_are_on() {
    let cases = [
        (
            "GOOSE_MODEL: x\nextensions:\n  a:\n    args: [one, two\n",
            5,
        ),
        ("GOOSE_MODEL: x\nextensions:\n  a:\n    cmd: 'npx\n", 4),
        (
            "GOOSE_MODEL: x\nextensions:\n  a:\n    cmd: npx\n   args: []\n",
            5,
        ),
        ("GOOSE_MODEL: x\nextensions:\n  a:\n\tcmd: npx\n", 4),
        (
            "extensions:\n  a:\n    type: stdio\n  a:\n    type: stdio\n",
            4,
        ),
        ("GOOSE_MODEL: a: b\n", 1),
        ("GOOSE_MODEL: x\n---\nextensions: {}\n", 2),
    ];
    for (text, line) in cases {
        let error = parse_error(text);
        assert_eq!(syntax_line(&error), line, "{text:?}: {error}");
        assert!(
            error
                .to_string()
                .starts_with("config.yaml: not valid YAML at line")
        );
    }
}

#[test]
fn corrupt_fixture_is_a_syntax_error_at_the_broken_line() {
    let broken = CONFIG.replace(
        "    cmd: /usr/local/bin/mcp-memory\n",
        "    cmd: [/usr/local/bin/mcp-memory\n",
    );
    let line = broken
        .lines()
        .position(|l| l.contains("[/usr/local/bin/mcp-memory"))
        .unwrap()
        + 1;
    let error = parse_error(&broken);
    // The unclosed `[` runs on; the error is at or after where it opens.
    assert!(syntax_line(&error) >= line, "{error}");
    assert!(matches!(
        rewrite(AppKind::Goose, FILE, &broken, &[route("github", &[])]),
        Err(ConfigError::Syntax { .. })
    ));
    assert!(matches!(
        restore(AppKind::Goose, FILE, &broken, CONFIG, &[global("github")]),
        Err(ConfigError::Syntax { .. })
    ));
}

#[test]
fn shape_errors_name_the_key() {
    let cases = [
        ("extensions: [a, b]\n", "extensions"),
        ("- GOOSE_MODEL\n", "(top level)"),
        ("extensions:\n  a: stdio\n", "extensions.a"),
        ("extensions:\n  a:\n    cmd: npx\n", "extensions.a.type"),
        (
            "extensions:\n  a:\n    type: stdio\n    args: []\n",
            "extensions.a.cmd",
        ),
        (
            "extensions:\n  a:\n    type: stdio\n    cmd: npx\n    args: -y\n",
            "extensions.a.args",
        ),
        (
            "extensions:\n  a:\n    type: stdio\n    cmd: npx\n    args: [[nested]]\n",
            "extensions.a.args",
        ),
        (
            "extensions:\n  a:\n    type: stdio\n    cmd: [npx]\n",
            "extensions.a.cmd",
        ),
        (
            "extensions:\n  a:\n    type: stdio\n    cmd: npx\n    envs: [A]\n",
            "extensions.a.envs",
        ),
        (
            "extensions:\n  a:\n    type: stdio\n    cmd: npx\n    envs:\n      TOKEN: {nested: value}\n",
            "extensions.a.envs.TOKEN",
        ),
        (
            "extensions:\n  a:\n    type: stdio\n    cmd: npx\n    env_keys: TOKEN\n",
            "extensions.a.env_keys",
        ),
        (
            "extensions:\n  a:\n    type: stdio\n    cmd: npx\n    enabled: maybe\n",
            "extensions.a.enabled",
        ),
        (
            "extensions:\n  a:\n    type: streamable_http\n",
            "extensions.a.uri",
        ),
    ];
    for (text, key) in cases {
        let error = parse_error(text);
        assert_eq!(shape_key(&error), key, "{text:?}: {error}");
    }
}

#[test]
fn errors_never_hold_a_secret() {
    let texts = [
        // Syntax errors on the secret's own line.
        CONFIG.replace(
            &format!("GITHUB_TOKEN: {SECRET}"),
            &format!("GITHUB_TOKEN: {SECRET}: more"),
        ),
        CONFIG.replace(
            &format!("GITHUB_TOKEN: {SECRET}"),
            &format!("GITHUB_TOKEN: \"{SECRET}"),
        ),
        CONFIG.replace(
            &format!("GITHUB_TOKEN: {SECRET}"),
            &format!("GITHUB_TOKEN: *{SECRET}"),
        ),
        CONFIG.replace(
            &format!("GITHUB_TOKEN: {SECRET}"),
            &format!("GITHUB_TOKEN: [{SECRET}"),
        ),
        CONFIG.replace(
            &format!("GITHUB_TOKEN: {SECRET}"),
            &format!("GITHUB_TOKEN: {SECRET}\n   {SECRET}: x"),
        ),
        // Shape errors in the extension that holds it.
        CONFIG.replace(
            &format!("GITHUB_TOKEN: {SECRET}"),
            &format!("GITHUB_TOKEN: [{SECRET}]"),
        ),
        CONFIG.replace(
            "    cmd: npx\n    description: GitHub",
            "    cmd: {a: b}\n    description: GitHub",
        ),
    ];
    for text in &texts {
        let error = parse_error(text);
        let shown = format!("{error} {error:?}");
        assert!(!shown.contains(SECRET), "{shown}");
        assert!(!shown.contains("ghp_"), "{shown}");
    }
}

#[test]
fn env_keys_and_enabled_are_read_as_written() {
    let text = "extensions:\n  a:\n    cmd: uvx\n    args: [mcp-server-fetch]\n    enabled: false\n    env_keys: [API_KEY, OTHER]\n    type: stdio\n";
    assert_eq!(
        entries(text),
        vec![RawEntry {
            scope: Scope::Global,
            key: "a".to_owned(),
            transport: stdio("uvx", &["mcp-server-fetch"], &[], &["API_KEY", "OTHER"]),
            enabled: false,
        }]
    );
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    /// Strings of any characters, weighted towards the ones YAML treats
    /// specially at the start of a scalar or after a space.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            "[-?:,\\[\\]{}#&*!|>'\"%@` ~a-z0-9\\\\/.=\\t\\n]{0,12}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn any_route_reads_back_and_restores_byte_for_byte(
            command in text(),
            args in prop::collection::vec(text(), 0..5),
            vars in prop::collection::btree_map("[A-Z_][A-Z0-9_]{0,8}", text(), 0..3),
        ) {
            let to = RouteTo {
                scope: Scope::Global,
                key: "github".to_owned(),
                command,
                args,
                env: vars,
            };
            let out = rewrite(AppKind::Goose, FILE, CONFIG, std::slice::from_ref(&to)).unwrap();
            let github = entry(&entries(&out), "github").clone();
            prop_assert_eq!(
                github.transport,
                Transport::Stdio {
                    command: to.command.clone(),
                    args: to.args.clone(),
                    env: to.env.clone(),
                    cwd: None,
                    env_file: None,
                    env_keys: Vec::new(),
                }
            );
            prop_assert_eq!(outside(&out, "github"), outside(CONFIG, "github"));
            prop_assert_eq!(rewrite(AppKind::Goose, FILE, &out, &[to]).unwrap(), out.clone());
            let back = restore(AppKind::Goose, FILE, &out, CONFIG, &[global("github")]).unwrap();
            prop_assert_eq!(back, CONFIG);
        }
    }
}
