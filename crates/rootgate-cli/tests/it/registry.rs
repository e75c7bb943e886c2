//! `rootgate search` and `rootgate add` against a registry on this machine:
//! a small HTTP server in the test that answers the v0 API from the
//! snapshot of real entries in crates/rootgate-sources/tests/fixtures/registry
//! (never the network). The search pages through its cursor, answers from
//! the cache once the registry is gone, and says when there is neither;
//! `add` of the filesystem server's entry adds it unapproved, and, once the
//! person approves it and shares a folder, the official TypeScript SDK
//! client reaches it through `rootgate connect`, and the server's own
//! `list_allowed_directories` names exactly that folder.
//!
//! npx runs the version tests/peers has installed: the server starts in
//! tests/peers (where npx finds `@modelcontextprotocol/server-filesystem`
//! at the entry's version, 2026.8.31, in node_modules), and the person's
//! `.npmrc` says `offline=true`, so npm never asks its registry either.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use rootgate_test_support::app::*;
use serde_json::Value;

mod server;
use server::LocalRegistry;

/// `rootgate` as the person runs it, with this test's home, settings and
/// cache, and `stdin` on its standard input.
fn rootgate(rg: &Rootgate, cache: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = std::process::Command::new(binary("rootgate"))
        .args(args)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_CACHE_HOME", cache)
        .env("XDG_RUNTIME_DIR", rg.dir.path().join("run"))
        .env_remove("ROOTGATE_REGISTRY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rootgate");
    child
        .stdin
        .take()
        .expect("the test's own data")
        .write_all(stdin.as_bytes())
        .expect("the test's own data");
    child.wait_with_output().expect("rootgate's output")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn said(out: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// The names `search io.github` lists, ten at a time, through the
/// cursor to the end.
fn every_page(rg: &Rootgate, cache: &Path, at: &str) -> Vec<String> {
    let mut names = vec![];
    let mut cursor: Option<String> = None;
    loop {
        let mut args = vec![
            "search",
            "io.github",
            "--registry",
            at,
            "--limit",
            "10",
            "--json",
        ];
        if let Some(c) = &cursor {
            args.extend(["--cursor", c]);
        }
        let page = rootgate(rg, cache, &args, "");
        assert!(page.status.success(), "{}", said(&page));
        let page: Value = serde_json::from_slice(&page.stdout).expect("the test's own data");
        assert_eq!(page["fromCache"], Value::Null);
        let servers = page["servers"].as_array().expect("the test's own data");
        assert!(servers.len() <= 10);
        names.extend(
            servers
                .iter()
                .map(|s| s["name"].as_str().expect("the test's own data").to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    names
}

#[test]
fn search_pages_through_the_cursor_and_answers_from_the_cache_once_offline() {
    let rg = Rootgate::new();
    let cache = rg.dir.path().join("cache");
    let registry = LocalRegistry::start();
    let at = registry.address.clone();

    let found = rootgate(&rg, &cache, &["search", "airtable", "--registry", &at], "");
    let shown = text(&found.stdout);
    assert!(found.status.success(), "{}", said(&found));
    assert!(
        shown.contains("io.github.domdomegg/airtable-mcp-server 1.7.3"),
        "{shown}"
    );
    assert!(shown.contains("npm airtable-mcp-server 1.7.3"), "{shown}");
    assert!(
        shown.contains("(a container image: shown, not run)"),
        "{shown}"
    );
    assert!(
        shown.contains("rootgate add io.github.domdomegg/airtable-mcp-server@1.7.3"),
        "{shown}"
    );
    assert!(!shown.contains("1.7.2"), "only the latest version: {shown}");

    let names = every_page(&rg, &cache, &at);
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        names.len(),
        "a server listed twice: {names:?}"
    );
    assert!(names.len() > 20, "{names:?}");
    assert!(names.contains(&"io.github.modelcontextprotocol/filesystem".to_owned()));

    // The registry goes away: the same question, and one never asked, are
    // answered from what was kept, and say so.
    drop(registry);
    let again = rootgate(&rg, &cache, &["search", "airtable", "--registry", &at], "");
    let shown = text(&again.stdout);
    assert!(again.status.success(), "{}", said(&again));
    assert!(
        shown.contains("cannot be reached: this answer is from the cache of 20"),
        "{shown}"
    );
    assert!(
        shown.contains("io.github.domdomegg/airtable-mcp-server 1.7.3"),
        "{shown}"
    );
    let never = rootgate(&rg, &cache, &["search", "time", "--registry", &at], "");
    let shown = text(&never.stdout);
    assert!(shown.contains("from the cache of"), "{}", said(&never));
    assert!(
        shown.contains("io.github.domdomegg/time-mcp-pypi 1.0.6"),
        "{shown}"
    );

    // Neither network nor cache: said in words.
    let empty = rg.dir.path().join("empty-cache");
    let none = rootgate(&rg, &empty, &["search", "airtable", "--registry", &at], "");
    assert_eq!(none.status.code(), Some(1), "{}", said(&none));
    let why = text(&none.stderr);
    assert!(
        why.contains("no network") && why.contains("nothing from it is in the cache"),
        "{why}"
    );
}

/// The TypeScript SDK client, started in tests/peers with the person's
/// home, reaching the server `filesystem` through `rootgate connect`; npm
/// offline, so the version installed in tests/peers is what runs.
async fn connect_through_peers(rg: &Rootgate) -> App {
    std::fs::write(
        rg.home().join(".npmrc"),
        format!(
            "offline=true\nupdate-notifier=false\ncache={}\n",
            rg.dir.path().join("npm-cache").display()
        ),
    )
    .expect("the test's own data");
    let home = rg.home();
    let app = App::start_in(
        &rg.config_home,
        &peers(),
        &[("HOME", &home)],
        Sdk::TypeScript,
        &[],
        &rg.connect_command("filesystem"),
    )
    .await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    app
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn add_the_filesystem_server_then_connect_it_to_exactly_the_shared_folder() {
    let rg = Rootgate::new();
    let cache = rg.dir.path().join("cache");
    let registry = LocalRegistry::start();
    let at = registry.address.clone();
    let name = "io.github.modelcontextprotocol/filesystem";

    let added = rootgate(&rg, &cache, &["add", name, "--registry", &at], "");
    let shown = text(&added.stdout);
    assert!(added.status.success(), "{}", said(&added));
    assert!(
        shown.contains("Added filesystem from the registry"),
        "{shown}"
    );
    assert!(
        shown.contains("npx -y @modelcontextprotocol/server-filesystem@2026.8.31 ${folders}"),
        "{shown}"
    );
    assert!(shown.contains("Its folders are not shared yet"), "{shown}");

    // Nothing approved, nothing shared; pinned, with the folders from consent.
    rg.store.reload().expect("reload");
    let servers = rg.store.snapshot().servers;
    assert_eq!(servers.len(), 1, "{servers:#?}");
    let server = servers[0].clone();
    assert!(!server.is_approved());
    assert_eq!(server.command, "npx");
    assert_eq!(
        server.args,
        [
            "-y",
            "@modelcontextprotocol/server-filesystem@2026.8.31",
            "${folders}"
        ]
    );
    assert_eq!(server.env["LOG_LEVEL"], "info");
    assert!(rg.store.snapshot().grants.is_empty());
    let record = std::fs::read_to_string(rg.config_home.join("rootgate/installed.json"))
        .expect("the test's own data");
    assert!(
        record.contains(name) && record.contains("2026.8.31"),
        "{record}"
    );

    // Added again, the same server is updated, not doubled.
    let again = rootgate(
        &rg,
        &cache,
        &["add", &format!("{name}@2026.8.31"), "--registry", &at],
        "",
    );
    assert!(
        text(&again.stdout).contains("Updated filesystem"),
        "{}",
        said(&again)
    );
    rg.store.reload().expect("reload");
    assert_eq!(rg.store.snapshot().servers.len(), 1);

    // The person approves it in the window and shares one folder.
    rg.store
        .approve_command(&server.id, &server.command_line())
        .expect("approve");
    let (root, shared) = rg.folder("project");
    let (_, _not_shared) = rg.folder("elsewhere");
    rg.share(&server.id, &root);

    let mut app = connect_through_peers(&rg).await;
    let seen: Vec<PathBuf> = allowed(&mut app).await;
    assert_eq!(seen, [shared]);
}

#[test]
fn add_asks_for_what_only_the_person_can_give_and_refuses_what_cannot_run() {
    let rg = Rootgate::new();
    let cache = rg.dir.path().join("cache");
    let registry = LocalRegistry::start();
    let at = registry.address.clone();
    let airtable = "io.github.domdomegg/airtable-mcp-server@1.7.2";

    let missing = rootgate(&rg, &cache, &["add", airtable, "--registry", &at], "");
    assert_eq!(missing.status.code(), Some(3), "{}", said(&missing));
    assert!(
        text(&missing.stderr).contains("AIRTABLE_API_KEY"),
        "{}",
        said(&missing)
    );
    rg.store.reload().expect("reload");
    assert!(rg.store.snapshot().servers.is_empty());

    let secret = "pat123.fixtureSECRET";
    let given = rootgate(
        &rg,
        &cache,
        &[
            "add",
            airtable,
            "--registry",
            &at,
            "--set",
            "AIRTABLE_API_KEY=-",
        ],
        &format!("{secret}\n"),
    );
    assert!(given.status.success(), "{}", said(&given));
    assert!(!said(&given).contains(secret), "the secret was printed");
    assert!(
        text(&given.stdout).contains("airtable-mcp-server@1.7.2"),
        "{}",
        said(&given)
    );
    let settings = std::fs::read_to_string(rg.config_home.join("rootgate/settings.json"))
        .expect("the test's own data");
    assert!(
        !settings.contains(secret),
        "the secret is in the settings file"
    );

    for (entry, why) in [
        ("io.github.getcyphrex/cyphrex-mcp", "remote server"),
        ("io.github.domdomegg/time-mcp-nuget", "nuget package"),
    ] {
        let refused = rootgate(&rg, &cache, &["add", entry, "--registry", &at], "");
        assert_eq!(refused.status.code(), Some(1), "{}", said(&refused));
        assert!(text(&refused.stderr).contains(why), "{}", said(&refused));
    }
    let oci = rootgate(
        &rg,
        &cache,
        &[
            "add",
            "io.github.modelcontextprotocol/filesystem",
            "--package",
            "oci",
            "--registry",
            &at,
        ],
        "",
    );
    assert!(
        text(&oci.stderr).contains("container image"),
        "{}",
        said(&oci)
    );
    let unknown = rootgate(
        &rg,
        &cache,
        &["add", "io.github.nobody/nothing", "--registry", &at],
        "",
    );
    assert!(text(&unknown.stderr).contains("404"), "{}", said(&unknown));
    rg.store.reload().expect("reload");
    assert_eq!(rg.store.snapshot().servers.len(), 1);
}

/// The registry chosen in the window's Settings (kept in the settings file)
/// is the one `rootgate search` asks when no `--registry` is given.
#[test]
fn search_asks_the_registry_chosen_in_settings() {
    let rg = Rootgate::new();
    let cache = rg.dir.path().join("cache");
    let registry = LocalRegistry::start();
    rg.store
        .change_preferences(|p| p.registry = Some(registry.address.clone()))
        .expect("choose the registry");
    let found = rootgate(&rg, &cache, &["search", "airtable"], "");
    assert!(found.status.success(), "{}", said(&found));
    assert!(
        text(&found.stdout).contains("io.github.domdomegg/airtable-mcp-server 1.7.3"),
        "{}",
        said(&found)
    );
}
