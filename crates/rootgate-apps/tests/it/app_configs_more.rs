//! The ten apps added after the first six, each read from a fixture written
//! from the app's own documentation: what each file holds, where each app
//! is looked for, and the same guarantees as the first six. Routing
//! rewrites only the routed entry, to exactly what `rootgate connect NAME`
//! needs, and undoing it gives the original bytes back; undoing after the
//! app changed its file puts back only the entry; a corrupt file is refused
//! in words that quote none of it and is not written; a file changed
//! between the plan and the write is left as the app wrote it.

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rootgate_apps::locate::{self, AppHomes, Places};
use rootgate_apps::route::{self, Ledger, RouteError, Target};
use rootgate_apps::{AppKind, RawEntry, Transport, parse};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/apps");

/// One app's fixture: the entry every case routes, and a change the app
/// could make elsewhere in the file (text found outside that entry).
struct Case {
    app: AppKind,
    fixture: &'static str,
    routed: &'static str,
    change: (&'static str, &'static str),
}

const CASES: [Case; 11] = [
    Case {
        app: AppKind::Windsurf,
        fixture: "windsurf_mcp_config.json",
        routed: "filesystem",
        change: ("your-server-url", "changed-url"),
    },
    Case {
        app: AppKind::LmStudio,
        fixture: "lmstudio_mcp.json",
        routed: "filesystem",
        change: ("huggingface.co", "hf.example"),
    },
    Case {
        app: AppKind::Kiro,
        fixture: "kiro_mcp.json",
        routed: "filesystem",
        change: ("mcp-server-time", "mcp-server-clock"),
    },
    Case {
        app: AppKind::AmazonQ,
        fixture: "amazonq_mcp.json",
        routed: "filesystem",
        change: ("\"ERROR\"", "\"DEBUG\""),
    },
    Case {
        app: AppKind::CopilotCli,
        fixture: "copilot_mcp-config.json",
        routed: "filesystem",
        change: ("context7.com", "context8.com"),
    },
    Case {
        app: AppKind::GeminiCli,
        fixture: "gemini_settings.json",
        routed: "filesystem",
        change: ("\"GitHub\"", "\"Dracula\""),
    },
    Case {
        app: AppKind::Cline,
        fixture: "cline_mcp_settings.json",
        routed: "filesystem",
        change: ("mcp-server-time", "mcp-server-clock"),
    },
    Case {
        app: AppKind::Codex,
        fixture: "codex_config.toml",
        routed: "filesystem",
        change: ("mcp.figma.com", "mcp.figma.example"),
    },
    Case {
        app: AppKind::Continue,
        fixture: "continue/config.yaml",
        routed: "Filesystem",
        change: ("gpt-4o\n", "gpt-5\n"),
    },
    Case {
        app: AppKind::Continue,
        fixture: "continue/mcp.json",
        routed: "notes",
        change: ("{\n", "{\n  \"x\": 1,\n"),
    },
    Case {
        app: AppKind::Opencode,
        fixture: "opencode.json",
        routed: "filesystem",
        change: ("mcp.sentry.dev", "mcp.sentry.example"),
    },
];

fn fixture(name: &str) -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join(name)).unwrap()
}

fn target() -> Target {
    Target {
        program: PathBuf::from("/usr/bin/rootgate"),
        env: BTreeMap::new(),
    }
}

/// The case's file in a folder of its own, with the ledger beside it.
fn placed(case: &Case) -> (tempfile::TempDir, PathBuf, Ledger) {
    let dir = tempfile::tempdir().unwrap();
    let name = Path::new(case.fixture).file_name().unwrap();
    let file = dir.path().join(name);
    std::fs::write(&file, fixture(case.fixture)).unwrap();
    let ledger = Ledger::beside(&dir.path().join("rootgate/settings.json"));
    (dir, file, ledger)
}

fn plan(case: &Case, file: &Path) -> Result<route::Plan, RouteError> {
    route::plan_route(
        case.app,
        file,
        &[],
        |_, key| {
            (key == case.routed)
                .then(|| "files".to_owned())
                .ok_or_else(|| "not imported".to_owned())
        },
        &target(),
    )
}

fn entries(case: &Case, text: &str) -> Vec<RawEntry> {
    parse(case.app, case.fixture, text).unwrap().entries
}

fn stdio(entry: &RawEntry) -> (&str, Vec<&str>, &BTreeMap<String, String>) {
    match &entry.transport {
        Transport::Stdio {
            command, args, env, ..
        } => (command, args.iter().map(String::as_str).collect(), env),
        Transport::Remote { url } => panic!("{} is remote ({url})", entry.key),
    }
}

fn find<'e>(entries: &'e [RawEntry], key: &str) -> &'e RawEntry {
    entries
        .iter()
        .find(|e| e.key == key)
        .unwrap_or_else(|| panic!("no entry {key}"))
}

#[test]
fn each_app_reads_the_shape_its_docs_show() {
    let windsurf = entries(&CASES[0], &fixture("windsurf_mcp_config.json"));
    assert!(
        matches!(&find(&windsurf, "figma").transport, Transport::Remote { url } if url == "https://your-server-url/mcp")
    );
    assert_eq!(
        stdio(find(&windsurf, "github")).2["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "${env:GITHUB_TOKEN}"
    );

    let kiro = entries(&CASES[2], &fixture("kiro_mcp.json"));
    assert!(
        !find(&kiro, "switched-off").enabled,
        "Kiro's `disabled: true`"
    );
    assert!(find(&kiro, "fetch").enabled);
    assert!(matches!(
        find(&kiro, "api-server").transport,
        Transport::Remote { .. }
    ));

    let copilot = entries(&CASES[4], &fixture("copilot_mcp-config.json"));
    assert_eq!(
        stdio(find(&copilot, "playwright")).0,
        "npx",
        "`type: local` is a command"
    );
    assert!(matches!(
        find(&copilot, "context7").transport,
        Transport::Remote { .. }
    ));

    let gemini = entries(&CASES[5], &fixture("gemini_settings.json"));
    assert_eq!(
        gemini.len(),
        4,
        "the comment and the other settings are no servers"
    );
    assert!(
        matches!(&find(&gemini, "httpServer").transport, Transport::Remote { url } if url == "http://localhost:3000/mcp")
    );
    assert!(matches!(
        find(&gemini, "discoveredServer").transport,
        Transport::Remote { .. }
    ));

    let cline = entries(&CASES[6], &fixture("cline_mcp_settings.json"));
    assert_eq!(
        stdio(find(&cline, "time")).0,
        "uvx",
        "the legacy `transportType`"
    );
    assert!(!find(&cline, "time").enabled);
    assert!(matches!(
        find(&cline, "remote-server").transport,
        Transport::Remote { .. }
    ));

    let codex = entries(&CASES[7], &fixture("codex_config.toml"));
    let keys: Vec<&str> = codex.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["filesystem", "github", "docs", "figma"]);
    match &find(&codex, "github").transport {
        Transport::Stdio { env, env_keys, .. } => {
            assert_eq!(env["GITHUB_TOOLSETS"], "repos,issues", "an `[…env]` table");
            assert_eq!(env_keys, &["GITHUB_PERSONAL_ACCESS_TOKEN"], "`env_vars`");
        }
        other => panic!("{other:?}"),
    }
    match &find(&codex, "docs").transport {
        Transport::Stdio { env, cwd, .. } => {
            assert_eq!(env["API_KEY"], "value", "an inline `env`");
            assert_eq!(cwd.as_deref(), Some("/home/me/code"));
        }
        other => panic!("{other:?}"),
    }
    assert!(!find(&codex, "docs").enabled);
    assert!(matches!(
        find(&codex, "figma").transport,
        Transport::Remote { .. }
    ));

    let cont = entries(&CASES[8], &fixture("continue/config.yaml"));
    let keys: Vec<&str> = cont.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        ["Filesystem", "GitHub", "Name"],
        "the hub block (`uses`) is no server here"
    );
    let block = parse(
        AppKind::Continue,
        "b.yaml",
        &fixture("continue/playwright-mcp.yaml"),
    )
    .unwrap();
    assert_eq!(stdio(&block.entries[0]).1, ["@playwright/mcp@latest"]);
    let json = entries(&CASES[9], &fixture("continue/mcp.json"));
    assert_eq!(stdio(find(&json, "notes")).0, "npx");

    let opencode = entries(&CASES[10], &fixture("opencode.json"));
    let keys: Vec<&str> = opencode.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        ["filesystem", "my-local-mcp-server", "sentry"],
        "`jira` only switches a server on"
    );
    let (command, args, env) = stdio(find(&opencode, "my-local-mcp-server"));
    assert_eq!((command, args), ("npx", vec!["-y", "my-mcp-command"]));
    assert_eq!(env["API_KEY"], "{env:MY_API_KEY}");
}

#[test]
fn routing_sets_only_the_entry_and_undo_gives_the_original_bytes_back() {
    for case in &CASES {
        let (_dir, file, ledger) = placed(case);
        let original = std::fs::read_to_string(&file).unwrap();
        let shown = plan(case, &file).unwrap();
        assert_eq!(shown.entries.len(), 1, "{}", case.fixture);
        route::apply_route(&shown, &ledger).unwrap();
        let routed = std::fs::read_to_string(&file).unwrap();
        let now = entries(case, &routed);
        // What `rootgate connect NAME` needs: the program, `connect`, the
        // server's name, and nothing of the entry's own.
        match &find(&now, case.routed).transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                env_file,
                env_keys,
            } => {
                assert_eq!(command, "/usr/bin/rootgate", "{}", case.fixture);
                assert_eq!(args, &["connect", "files"], "{}", case.fixture);
                assert!(
                    env.is_empty() && cwd.is_none() && env_file.is_none() && env_keys.is_empty()
                );
            }
            other => panic!("{}: {other:?}", case.fixture),
        }
        // Every other entry reads as before.
        let before = entries(case, &original);
        let others = |list: &[RawEntry]| -> Vec<RawEntry> {
            list.iter()
                .filter(|e| e.key != case.routed)
                .cloned()
                .collect()
        };
        assert_eq!(others(&now), others(&before), "{}", case.fixture);
        // Routing the entry again finds nothing left to do.
        let again = route::plan_route(
            case.app,
            &file,
            &[case.routed.to_owned()],
            |_, _| Ok("files".into()),
            &target(),
        );
        assert!(
            matches!(again, Err(RouteError::AlreadyRouted { .. })),
            "{}",
            case.fixture
        );
        let undo = route::plan_undo(case.app, &file, &ledger).unwrap();
        assert!(!undo.partial_undo);
        route::apply_undo(&undo, &ledger).unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            original,
            "{}",
            case.fixture
        );
    }
}

#[test]
fn undo_after_the_app_changed_its_file_puts_back_only_the_entry() {
    for case in &CASES {
        let (_dir, file, ledger) = placed(case);
        let original = std::fs::read_to_string(&file).unwrap();
        route::apply_route(&plan(case, &file).unwrap(), &ledger).unwrap();
        let routed = std::fs::read_to_string(&file).unwrap();
        let (from, to) = case.change;
        assert!(routed.contains(from), "{}: {from}", case.fixture);
        let changed = routed.replacen(from, to, 1);
        std::fs::write(&file, &changed).unwrap();
        let undo = route::plan_undo(case.app, &file, &ledger).unwrap();
        assert!(undo.partial_undo, "{}", case.fixture);
        route::apply_undo(&undo, &ledger).unwrap();
        let after = std::fs::read_to_string(&file).unwrap();
        assert!(
            after.contains(to),
            "{}: the app's change is kept",
            case.fixture
        );
        assert_eq!(
            find(&entries(case, &after), case.routed),
            find(&entries(case, &original), case.routed),
            "{}",
            case.fixture
        );
    }
}

#[test]
fn a_corrupt_file_is_refused_without_quoting_it_and_left_as_it_is() {
    for case in &CASES {
        let (_dir, file, ledger) = placed(case);
        let broken_tail = match case.app.format() {
            _ if case.fixture.ends_with(".json") => "\n\"sk-NotInErrors-7f3a",
            rootgate_apps::Format::Toml => "\nbad = \"sk-NotInErrors-7f3a\n",
            rootgate_apps::Format::Yaml => "\nbad: \"sk-NotInErrors-7f3a\n",
            _ => "\n\"sk-NotInErrors-7f3a",
        };
        let corrupt = format!("{}{broken_tail}", fixture(case.fixture));
        std::fs::write(&file, &corrupt).unwrap();
        let err = plan(case, &file).unwrap_err().to_string();
        assert!(err.contains("not valid"), "{}: {err}", case.fixture);
        assert!(!err.contains("NotInErrors"), "{}: {err}", case.fixture);
        assert!(matches!(
            route::plan_undo(case.app, &file, &ledger),
            Err(RouteError::NotRouted { .. })
        ));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), corrupt);
    }
}

#[test]
fn a_file_changed_after_the_plan_is_not_overwritten() {
    for case in &CASES {
        let (dir, file, ledger) = placed(case);
        let shown = plan(case, &file).unwrap();
        let (from, to) = case.change;
        let by_app = fixture(case.fixture).replacen(from, to, 1);
        std::fs::write(&file, &by_app).unwrap();
        let err = route::apply_route(&shown, &ledger).unwrap_err();
        assert!(
            matches!(err, RouteError::Changed { .. }),
            "{}: {err}",
            case.fixture
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), by_app);
        let backups = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains("before-rootgate")
            })
            .count();
        assert_eq!(backups, 0, "{}", case.fixture);
    }
}

#[test]
fn remote_entries_are_listed_and_never_routed() {
    for (case, key) in [
        (&CASES[0], "figma"),
        (&CASES[7], "figma"),
        (&CASES[8], "Name"),
        (&CASES[10], "sentry"),
    ] {
        let (_dir, file, _ledger) = placed(case);
        let err = route::plan_route(
            case.app,
            &file,
            &[key.to_owned()],
            |_, _| Ok("x".into()),
            &target(),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("remote"), "{}: {err}", case.fixture);
    }
}

fn places(home: &Path, homes: AppHomes) -> Places {
    Places {
        home: home.to_path_buf(),
        xdg_config_home: None,
        claude_config_dir: None,
        homes,
    }
}

#[test]
fn each_app_is_looked_for_where_its_docs_say() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let at = |app: AppKind, p: &Places| locate::main_file(app, p).path;
    let plain = places(home, AppHomes::default());
    let expected = [
        (AppKind::Windsurf, ".codeium/windsurf/mcp_config.json"),
        (AppKind::LmStudio, ".lmstudio/mcp.json"),
        (AppKind::Kiro, ".kiro/settings/mcp.json"),
        (AppKind::AmazonQ, ".aws/amazonq/mcp.json"),
        (AppKind::CopilotCli, ".copilot/mcp-config.json"),
        (AppKind::GeminiCli, ".gemini/settings.json"),
        (
            AppKind::Cline,
            ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
        ),
        (AppKind::Codex, ".codex/config.toml"),
        (AppKind::Continue, ".continue/config.yaml"),
        (AppKind::Opencode, ".config/opencode/opencode.json"),
    ];
    for (app, path) in expected {
        assert_eq!(at(app, &plain), home.join(path), "{app:?}");
        assert!(!locate::installed(app, &plain), "{app:?}");
    }
    let moved = places(
        home,
        AppHomes {
            codex_home: Some(PathBuf::from("/opt/codex")),
            copilot_home: Some(PathBuf::from("/opt/copilot")),
            continue_global_dir: Some(PathBuf::from("/opt/continue")),
        },
    );
    assert_eq!(
        at(AppKind::Codex, &moved),
        Path::new("/opt/codex/config.toml")
    );
    assert_eq!(
        at(AppKind::CopilotCli, &moved),
        Path::new("/opt/copilot/mcp-config.json")
    );
    assert_eq!(
        at(AppKind::Continue, &moved),
        Path::new("/opt/continue/config.yaml")
    );
    // Windsurf's older page names `~/.codeium/mcp_config.json`, and Cline
    // lives under whichever editor holds it: the file there is read.
    let older = home.join(".codeium/mcp_config.json");
    std::fs::create_dir_all(older.parent().unwrap()).unwrap();
    std::fs::write(&older, "{}").unwrap();
    assert_eq!(at(AppKind::Windsurf, &plain), older);
    let codium = home.join(
        ".config/VSCodium/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
    );
    std::fs::create_dir_all(codium.parent().unwrap()).unwrap();
    std::fs::write(&codium, "{}").unwrap();
    assert_eq!(at(AppKind::Cline, &plain), codium);
    assert!(locate::installed(AppKind::Cline, &plain));
    // Continue's folder of block files is read beside its config.yaml.
    let blocks = home.join(".continue/mcpServers");
    std::fs::create_dir_all(&blocks).unwrap();
    std::fs::write(
        blocks.join("a.yaml"),
        fixture("continue/playwright-mcp.yaml"),
    )
    .unwrap();
    std::fs::write(blocks.join("b.json"), fixture("continue/mcp.json")).unwrap();
    std::fs::write(blocks.join("notes.txt"), "not a block").unwrap();
    let extra: Vec<PathBuf> = locate::extra_files(AppKind::Continue, &plain)
        .into_iter()
        .map(|f| f.path)
        .collect();
    assert_eq!(extra, [blocks.join("a.yaml"), blocks.join("b.json")]);
}
