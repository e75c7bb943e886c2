//! A server written with the official Python SDK (PyPI `mcp`), as a real
//! child process, spoken to in the legacy era (the SDK speaks both; left
//! to probe, it is modern, see `real_modern_servers.rs`): it asks for roots
//! inside a tool call and after `list_changed`, and reports what it got.

use rootgate_model::servers::{Era, EraChoice, ServerDraft};
use rootgate_session::{Session, Status};
use rootgate_test_support::harness::*;

async fn roots_from(session: &Session, tool: &str) -> Result<Vec<String>, String> {
    let result = session
        .call_tool(tool, no_args())
        .await
        .map_err(|e| e.to_string())?;
    let text = tool_text(&result);
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{e}: {text}"))?;
    Ok(v["roots"]
        .as_array()
        .ok_or("no roots")?
        .iter()
        .filter_map(|r| r["uri"].as_str().map(str::to_owned))
        .collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_server_sees_grants_and_revokes() {
    let h = Harness::new();
    let python = python();
    let script = py_roots_server();
    let (spec, session) = h.server_from(ServerDraft {
        name: "python".into(),
        command: python.to_str().unwrap().into(),
        args: vec![script.to_str().unwrap().into()],
        enabled: true,
        era: EraChoice::Legacy,
        ..Default::default()
    });
    let Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    assert_eq!(info.era, Era::Legacy);
    assert_eq!(info.protocol_version, "2025-11-25");
    assert_eq!(info.server_name, "rootgate-test-py-roots");

    // Asked inside a tool call, before any grant: nothing.
    assert_eq!(
        roots_from(&session, "get_roots").await.unwrap(),
        Vec::<String>::new()
    );

    let (one, one_path) = h.folder("alpha");
    let (two, two_path) = h.folder("beta gamma");
    h.store.grant(&spec.id, &one).unwrap();
    assert_eq!(
        roots_from(&session, "get_roots").await.unwrap(),
        vec![uri(&one_path)]
    );

    // Told with list_changed, it fetches and caches on its own.
    h.store.grant(&spec.id, &two).unwrap();
    let both = vec![uri(&one_path), uri(&two_path)];
    eventually("the Python server to cache both folders", || async {
        let cached = roots_from(&session, "cached_roots").await?;
        if cached == both {
            Ok(())
        } else {
            Err(format!("{cached:?}"))
        }
    })
    .await;

    h.store.revoke(&spec.id, &one).unwrap();
    let just_two = vec![uri(&two_path)];
    eventually("the Python server to drop the revoked folder", || async {
        let cached = roots_from(&session, "cached_roots").await?;
        if cached == just_two {
            Ok(())
        } else {
            Err(format!("{cached:?}"))
        }
    })
    .await;
    assert_eq!(roots_from(&session, "get_roots").await.unwrap(), just_two);
    assert!(
        session
            .stderr()
            .lines()
            .iter()
            .any(|l| l.text.starts_with("py-roots: ")),
        "its stderr is captured"
    );
    session.shutdown().await;
}
