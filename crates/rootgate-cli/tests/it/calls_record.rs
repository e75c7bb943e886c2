//! The record of calls (#29's audit) through the real programs: AI apps on
//! the official TypeScript SDK client reach the npm filesystem server
//! through `rootgate connect`, two at once; every call they made is in the
//! record beside the settings when they are gone (who, which tool, how it
//! ended, who allowed it, bytes each way), found by the window's search,
//! and exported as JSON lines and CSV. No argument is kept.

use std::path::PathBuf;

use rootgate_core::calls::{CallQuery, ExportFormat};
use rootgate_core::tools::{ToolDefault, ToolSetting};
use rootgate_test_support::app::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_call_of_two_apps_at_once_is_recorded_found_and_exported() {
    let (rg, sup) = Rootgate::with_window();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (root, shared) = rg.folder("notes");
    rg.share(&files.id, &root);
    rg.store
        .set_tool_setting(&files.id, None, "write_file", Some(ToolSetting::Hidden))
        .expect("hide");
    rg.store
        .set_tool_default(&files.id, ToolDefault::ReadOnlyAllowed)
        .expect("default");
    let secret = "do-not-keep-this-argument";

    let command = rg.connect_command("files");
    let mut claude = App::start(&rg, Sdk::TypeScript, &["--name", "claude-code"], &command).await;
    let mut cursor = App::start(&rg, Sdk::TypeScript, &["--name", "cursor-vscode"], &command).await;
    for app in [&mut claude, &mut cursor] {
        app.request(json!({"op": "listTools"})).await;
        for _ in 0..25 {
            assert_eq!(allowed::<Vec<PathBuf>>(app).await, vec![shared.clone()]);
        }
        let refused = app
            .request(json!({"op": "callTool", "name": "write_file",
                            "arguments": {"path": shared.join("x").display().to_string(), "content": secret}}))
            .await;
        assert!(refused["error"].is_string(), "{refused}");
        app.send(json!({"op": "close"})).await;
    }
    let _ = claude.child.wait().await;
    let _ = cursor.child.wait().await;

    // Each bridge wrote its calls when its app went.
    let all = eventually("both apps' calls in the record", || async {
        let found = sup.calls().search_calls(&CallQuery::default());
        if found.matched >= 2 * 27 {
            Ok(found)
        } else {
            Err(format!("{} so far", found.matched))
        }
    })
    .await;
    assert_eq!(all.unreadable, 0, "a line was torn");
    let of = |app: &str, kind: &str, target: &str| {
        all.records
            .iter()
            .filter(|r| r.app == app && r.kind() == kind && r.target.as_deref() == Some(target))
            .count()
    };
    for app in ["claude-code", "cursor-vscode"] {
        assert_eq!(of(app, "ok", "list_allowed_directories"), 25, "{app}");
        assert_eq!(of(app, "refused", "write_file"), 1, "{app}");
    }
    let listed = all
        .records
        .iter()
        .find(|r| r.target.as_deref() == Some("list_allowed_directories"))
        .expect("a call");
    assert_eq!(listed.server_name, "files");
    assert_eq!(
        listed.consent.as_deref(),
        Some("allowed: it says it only reads")
    );
    assert!(listed.bytes_in > 50 && listed.bytes_out > 50, "{listed:?}");
    assert!(
        all.records.windows(2).all(|w| w[0].at_ms >= w[1].at_ms),
        "newest first"
    );

    // Searched as the window does.
    let refused = sup.calls().search_calls(&CallQuery {
        text: "cursor write".into(),
        kind: Some("refused".into()),
        limit: Some(10),
    });
    assert_eq!(refused.records.len(), 1);
    assert!(refused.records[0].outcome.contains("hidden in Rootgate"));

    // Exported: JSON lines that read back as the records, and CSV.
    let out = rg.dir.path().join("export");
    std::fs::create_dir_all(&out).expect("dir");
    let jsonl = out.join("calls.jsonl");
    let exported = sup
        .calls()
        .export_calls(&CallQuery::default(), ExportFormat::Jsonl, &jsonl)
        .expect("export");
    assert_eq!(exported.count, all.matched);
    let text = std::fs::read_to_string(&jsonl).expect("read");
    assert_eq!(text.lines().count(), all.matched);
    assert!(!text.contains(secret), "an argument was kept");
    let csv = out.join("calls.csv");
    sup.calls()
        .export_calls(
            &CallQuery {
                kind: Some("refused".into()),
                ..Default::default()
            },
            ExportFormat::Csv,
            &csv,
        )
        .expect("export");
    let table = std::fs::read_to_string(&csv).expect("read");
    assert_eq!(
        table.lines().count(),
        3,
        "a header and two refusals: {table}"
    );
    assert!(!out.join("calls.csv.partial").exists());
    // The record is private to the person.
    use std::os::unix::fs::PermissionsExt;
    let folder = sup.calls().calls_folder();
    assert_eq!(
        std::fs::metadata(&folder)
            .expect("folder")
            .permissions()
            .mode()
            & 0o777,
        0o700
    );
}

/// An app that ends its server with SIGTERM (the TypeScript SDK does, 2 s
/// after closing its input) loses no call from the record: the bridge
/// writes what waits in memory before it ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bridge_ended_by_sigterm_writes_its_calls_first() {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (root, shared) = rg.folder("notes");
    rg.share(&files.id, &root);
    let mut app = App::start(
        &rg,
        Sdk::TypeScript,
        &["--name", "claude-code"],
        &rg.connect_command("files"),
    )
    .await;
    for _ in 0..5 {
        assert_eq!(
            allowed::<Vec<PathBuf>>(&mut app).await,
            vec![shared.clone()]
        );
    }
    let pid = eventually("the bridge to report", || async {
        sup.bridges()
            .list()
            .first()
            .map(|c| c.pid)
            .ok_or_else(|| "none yet".to_owned())
    })
    .await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("SIGTERM");
    app.wait(|v| v["event"] == "closed").await;
    let found = sup.calls().search_calls(&CallQuery::default());
    let listed = found
        .records
        .iter()
        .filter(|r| r.target.as_deref() == Some("list_allowed_directories"))
        .count();
    assert_eq!(listed, 5, "{found:?}");
}
