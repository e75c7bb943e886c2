//! Servers of the 2026-07-28 era, and how Rootgate settles a server's era:
//! servers on the official Python SDK (`mcp` 2.3.0) and TypeScript SDK 2.x
//! (`@modelcontextprotocol/server` 2.4.0) speak both eras by default and
//! accept `initialize`, so they are spoken to in the legacy era, where they
//! get their folders whether their code asks the 1.x way or with the round
//! helper; a server wired modern-only refuses `initialize` and is started
//! again in the modern era, where it gets its folders in input rounds. The
//! servers' own tools report what they were given. Legacy servers (the npm
//! filesystem server, a TypeScript 2.x server wired the 1.x way, a server
//! that ends on anything before `initialize`) work as before.

use rootgate_model::servers::{Era, EraChoice, ServerDraft};
use rootgate_model::timeline::Event;
use rootgate_session::{Session, SessionError, Status};
use rootgate_test_support::harness::*;

fn modern_server(h: &Harness, era: EraChoice) -> (rootgate_model::servers::ServerSpec, Session) {
    h.server_from(ServerDraft {
        name: "modern".into(),
        command: python().to_str().expect("utf-8 path").into(),
        args: vec![py_modern_server().to_str().expect("utf-8 path").into()],
        enabled: true,
        era,
        ..Default::default()
    })
}

/// The dual-era test servers on both SDKs, by name, as drafts held to
/// `era`: the Python `mcp` 2.x server and the TypeScript SDK 2.x server,
/// each with a tool that asks the 1.x way and one that uses the round
/// helper.
fn dual_era_sdk_servers(era: EraChoice) -> [(&'static str, ServerDraft); 2] {
    let draft = |name: &str, command: String, args: Vec<String>| ServerDraft {
        name: name.into(),
        command,
        args,
        enabled: true,
        era,
        ..Default::default()
    };
    [
        (
            "py",
            draft(
                "py",
                python().display().to_string(),
                vec![py_modern_server().display().to_string()],
            ),
        ),
        (
            "ts",
            draft("ts", node(), vec![ts_modern_server().display().to_string()]),
        ),
    ]
}

async fn lines(session: &Session, tool: &str) -> Result<Vec<String>, SessionError> {
    let result = session.call_tool(tool, no_args()).await?;
    Ok(tool_text(&result).lines().map(str::to_owned).collect())
}

fn era_found(h: &Harness, server: &rootgate_model::ids::ServerId) -> Vec<(Era, String)> {
    h.timeline
        .for_server(server)
        .into_iter()
        .filter_map(|e| match e.event {
            Event::EraFound { era, how } => Some((era, how)),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_server_gets_the_folders_shared_at_each_call() {
    let h = Harness::new();
    // The dual-era Python server, held to the modern era by the person.
    let (spec, session) = modern_server(&h, EraChoice::Modern);
    let Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    assert_eq!(info.era, Era::Modern);
    assert_eq!(info.protocol_version, "2026-07-28");
    assert_eq!(info.server_name, "py-modern-server");
    let found = era_found(&h, &spec.id);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("set on this server"), "{found:?}");

    assert_eq!(lines(&session, "protocol").await.unwrap(), ["2026-07-28"]);
    // Every request declares roots as the revision writes them.
    let caps = lines(&session, "client_capabilities")
        .await
        .unwrap()
        .join("");
    let caps: serde_json::Value = serde_json::from_str(&caps).expect(&caps);
    assert_eq!(caps, serde_json::json!({"roots": {}}));
    // Nothing shared yet: the server itself says it was given nothing.
    assert_eq!(lines(&session, "ask_roots").await.unwrap(), ["(no roots)"]);

    let (a, a_path) = h.folder("alpha");
    let (b, b_path) = h.folder("beta gamma");
    h.store.grant(&spec.id, &a).unwrap();
    assert_eq!(lines(&session, "ask_roots").await.unwrap(), [uri(&a_path)]);
    h.store.grant(&spec.id, &b).unwrap();
    h.store.revoke(&spec.id, &a).unwrap();
    // The very next call gets the new set: no notification, no restart.
    let from = h.now_seq();
    assert_eq!(lines(&session, "ask_roots").await.unwrap(), [uri(&b_path)]);
    let Status::Running(still) = session.status() else {
        panic!("the server stopped");
    };
    assert_eq!(still.pid, info.pid, "the server was not restarted");
    let timeline = h.timeline.for_server(&spec.id);
    assert!(
        !timeline
            .iter()
            .any(|e| matches!(e.event, Event::ListChangedSent { .. })),
        "a modern server is never sent list_changed"
    );
    // The round is in the timeline, with the call it was part of.
    let round = timeline
        .iter()
        .filter(|e| e.seq >= from)
        .find_map(|e| match &e.event {
            Event::RootsAskedInRound {
                method,
                target,
                roots,
                ..
            } => Some((method.clone(), target.clone(), roots.clone())),
            _ => None,
        })
        .expect("a round in the timeline");
    assert_eq!(round.0, "tools/call");
    assert_eq!(round.1.as_deref(), Some("ask_roots"));
    assert_eq!(
        round.2.iter().map(|r| r.uri.clone()).collect::<Vec<_>>(),
        [uri(&b_path)]
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_state_is_echoed_and_a_server_may_ask_twice() {
    let h = Harness::new();
    let (spec, session) = modern_server(&h, EraChoice::Modern);
    running(&session).await;
    let (a, a_path) = h.folder("alpha");
    h.store.grant(&spec.id, &a).unwrap();
    let from = h.now_seq();
    // The server seals its own `requestState` (the SDK's AEAD envelope): it
    // finishes only if both rounds' states came back exactly as sent.
    let result = session.call_tool("ask_twice", no_args()).await.unwrap();
    let report: serde_json::Value = serde_json::from_str(&tool_text(&result)).unwrap();
    assert_eq!(report["first"], serde_json::json!([uri(&a_path)]));
    assert_eq!(report["second"], serde_json::json!([uri(&a_path)]));
    let rounds = h
        .timeline
        .for_server(&spec.id)
        .into_iter()
        .filter(|e| e.seq >= from && matches!(e.event, Event::RootsAskedInRound { .. }))
        .count();
    assert_eq!(rounds, 2);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_for_input_rootgate_does_not_offer_ends_the_call_in_words() {
    let h = Harness::new();
    let (spec, session) = modern_server(&h, EraChoice::Modern);
    running(&session).await;
    let error = session
        .call_tool("ask_unoffered", no_args())
        .await
        .expect_err("elicitation is not offered");
    assert!(
        matches!(&error, SessionError::NotOffered { asked, .. } if asked == "elicitation/create"),
        "{error:?}"
    );
    assert!(error.to_string().contains("does not offer"), "{error}");
    h.wait_event(&spec.id, 0, |e| {
        matches!(e, Event::InputNotOffered { asked, target, .. }
            if asked == "elicitation/create" && target.as_deref() == Some("ask_unoffered"))
    })
    .await;
    // The server is unharmed: the next call works.
    assert_eq!(lines(&session, "ask_roots").await.unwrap(), ["(no roots)"]);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_era_is_not_probed() {
    let h = Harness::new();
    // The same dual-era server, held to the legacy era by the person.
    let (spec, session) = modern_server(&h, EraChoice::Legacy);
    let Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    assert_eq!(info.era, Era::Legacy);
    assert_eq!(info.protocol_version, "2025-11-25");
    let found = era_found(&h, &spec.id);
    assert!(found[0].1.contains("not asked"), "{found:?}");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_npm_filesystem_server_is_legacy_and_works_as_before() {
    let h = Harness::new();
    let (a, a_path) = h.folder("alpha");
    let (spec, session) = h.server("fs", node(), &[fs_server_js().to_str().unwrap()]);
    h.store.grant(&spec.id, &a).unwrap();
    let Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    assert_eq!(info.era, Era::Legacy);
    let found = era_found(&h, &spec.id);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("accepted initialize"), "{found:?}");
    // It asks for its roots after `initialized`, as before, and applies the
    // answer on its own time.
    let want = a_path.to_str().unwrap().to_owned();
    eventually(
        "the filesystem server to allow the shared folder",
        || async {
            let result = session
                .call_tool("list_allowed_directories", no_args())
                .await
                .map_err(|e| e.to_string())?;
            let text = tool_text(&result);
            if text.contains(&want) {
                Ok(())
            } else {
                Err(text)
            }
        },
    )
    .await;
    session.shutdown().await;
}

fn ts_server(
    h: &Harness,
    name: &str,
    wiring: &[&str],
) -> (rootgate_model::servers::ServerSpec, Session) {
    let script = ts_modern_server().display().to_string();
    let mut args = vec![script.as_str()];
    args.extend_from_slice(wiring);
    h.server(name, node(), &args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_typescript_sdk_2_server_gets_its_folders_per_call_and_its_state_back_exactly() {
    let h = Harness::new();
    // Wired modern-only, it refuses `initialize` and is spoken to in rounds.
    let (spec, session) = ts_server(&h, "ts", &["--modern-only"]);
    let Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    assert_eq!(info.era, Era::Modern);
    assert_eq!(info.server_name, "ts-modern-server");
    assert_eq!(lines(&session, "protocol").await.unwrap(), ["2026-07-28"]);
    let (a, a_path) = h.folder("alpha");
    let (b, b_path) = h.folder("béta: two");
    h.store.grant(&spec.id, &a).unwrap();
    assert_eq!(lines(&session, "ask_roots").await.unwrap(), [uri(&a_path)]);
    h.store.grant(&spec.id, &b).unwrap();
    h.store.revoke(&spec.id, &a).unwrap();
    assert_eq!(lines(&session, "ask_roots").await.unwrap(), [uri(&b_path)]);
    // Its state, with a non-ASCII character and quotes, comes back as sent.
    let result = session.call_tool("ask_state", no_args()).await.unwrap();
    let report: serde_json::Value = serde_json::from_str(&tool_text(&result)).unwrap();
    assert_eq!(report["state"], "ts-state:\u{e9} \"q\"");
    assert_eq!(report["roots"], serde_json::json!([uri(&b_path)]));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_a_typescript_sdk_2_server_is_wired_decides_its_era() {
    let h = Harness::new();
    // Wired the 1.x way, or both eras (the SDK's default), it accepts
    // initialize and is spoken to in the legacy era, in one start.
    for (name, wiring) in [("hand wired", &["--hand-wired"][..]), ("both eras", &[])] {
        let (spec, session) = ts_server(&h, name, wiring);
        let Status::Running(info) = running(&session).await else {
            unreachable!()
        };
        assert_eq!(info.era, Era::Legacy, "{name}");
        assert_eq!(info.protocol_version, "2025-11-25", "{name}");
        let found = era_found(&h, &spec.id);
        assert_eq!(found.len(), 1, "{name}: {found:?}");
        assert!(
            found[0].1.contains("accepted initialize"),
            "{name}: {found:?}"
        );
        assert_eq!(
            lines(&session, "protocol").await.unwrap(),
            ["legacy"],
            "{name}"
        );
        session.shutdown().await;
    }
    // Modern only, it refuses initialize in its own words, is started again
    // in the modern era (not asked again), and served.
    let (spec, session) = ts_server(&h, "modern only", &["--modern-only"]);
    let Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    assert_eq!(info.era, Era::Modern);
    let found = era_found(&h, &spec.id);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, Era::Modern, "{found:?}");
    assert!(
        found[0].1.contains("refused initialize") && found[0].1.contains("-32022"),
        "{found:?}"
    );
    assert!(found[1].1.contains("not asked again"), "{found:?}");
    let lives = h
        .timeline
        .for_server(&spec.id)
        .iter()
        .filter(|e| matches!(e.event, Event::Spawned { .. }))
        .count();
    assert_eq!(lives, 2, "one start refused initialize, the next is served");
    assert_eq!(lines(&session, "protocol").await.unwrap(), ["2026-07-28"]);
    assert_eq!(lines(&session, "ask_roots").await.unwrap(), ["(no roots)"]);
    session.shutdown().await;
    // Held to the legacy era, a modern-only server cannot start, and says
    // why in its own words.
    let (_, session) = h.server_from(ServerDraft {
        name: "forced legacy".into(),
        command: node(),
        args: vec![
            ts_modern_server().display().to_string(),
            "--modern-only".into(),
        ],
        enabled: true,
        era: EraChoice::Legacy,
        ..Default::default()
    });
    let reason = failure_reason(&session).await;
    assert!(
        reason.contains("refused `initialize`") && reason.contains("-32022"),
        "{reason}"
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_to_the_legacy_era_sdk_servers_still_get_their_roots_in_rounds() {
    // What the per-server setting gives: both SDKs turn a round asking for
    // roots into the legacy `roots/list` request, which Rootgate answers.
    let h = Harness::new();
    let (a, a_path) = h.folder("alpha");
    for (name, draft) in dual_era_sdk_servers(EraChoice::Legacy) {
        let (spec, session) = h.server_from(draft);
        h.store.grant(&spec.id, &a).unwrap();
        let Status::Running(info) = running(&session).await else {
            unreachable!()
        };
        assert_eq!(info.era, Era::Legacy, "{name}");
        assert_eq!(
            lines(&session, "ask_roots").await.unwrap(),
            [uri(&a_path)],
            "{name}"
        );
        session.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dual_era_servers_get_exactly_their_folders_whichever_way_their_code_asks() {
    // Servers on both SDKs' 2.x, in their default (dual-era) wiring, with
    // their era left to Rootgate: `legacy_roots` asks the 1.x way
    // (`ctx.session.list_roots()`, `server.server.listRoots()`), `ask_roots`
    // with the SDK's round helper. Each reports what it was given.
    let h = Harness::new();
    let (a, a_path) = h.folder("alpha");
    let (b, b_path) = h.folder("béta two");
    for (name, draft) in dual_era_sdk_servers(EraChoice::Auto) {
        let (spec, session) = h.server_from(draft);
        h.store.grant(&spec.id, &a).unwrap();
        let Status::Running(info) = running(&session).await else {
            unreachable!()
        };
        assert_eq!(info.era, Era::Legacy, "{name}");
        let found = era_found(&h, &spec.id);
        assert!(found[0].1.contains("both eras"), "{name}: {found:?}");
        for tool in ["legacy_roots", "ask_roots"] {
            assert_eq!(
                lines(&session, tool).await.unwrap(),
                [uri(&a_path)],
                "{name} {tool}"
            );
        }
        // A withdrawal: the next ask, either way, gets exactly the new set.
        h.store.grant(&spec.id, &b).unwrap();
        h.store.revoke(&spec.id, &a).unwrap();
        for tool in ["legacy_roots", "ask_roots"] {
            assert_eq!(
                lines(&session, tool).await.unwrap(),
                [uri(&b_path)],
                "{name} {tool}"
            );
        }
        session.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_modern_era_the_1x_roots_call_is_refused_by_its_own_sdk() {
    // Why dual-era servers are spoken to in the legacy era: held to the
    // modern era, the same servers' 1.x call fails in their SDKs.
    let h = Harness::new();
    let (a, _) = h.folder("alpha");
    for (name, draft) in dual_era_sdk_servers(EraChoice::Modern) {
        let (spec, session) = h.server_from(draft);
        h.store.grant(&spec.id, &a).unwrap();
        running(&session).await;
        let said = match session.call_tool("legacy_roots", no_args()).await {
            Ok(result) => tool_text(&result),
            Err(e) => e.to_string(),
        };
        assert!(!said.contains("alpha"), "{name}: {said}");
        assert!(
            said.contains("back-channel")
                || said.contains("inputRequired")
                || said.contains("2026-07-28"),
            "{name}: {said}"
        );
        session.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_ends_on_anything_before_initialize_starts_once() {
    // Some servers end on any request before `initialize`: opening with it,
    // Rootgate costs them nothing.
    let h = Harness::new();
    let script = r#"IFS= read -r line
case "$line" in
  *'"initialize"'*) ;;
  *) echo "not initialize first: bye" >&2; exit 1 ;;
esac
id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"strict","version":"0"}}}\n' "$id"
while IFS= read -r _; do :; done
"#;
    let (spec, session) = h.server("strict", "sh", &["-c", script]);
    let Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    assert_eq!(info.era, Era::Legacy);
    assert_eq!(info.server_name, "strict");
    let found = era_found(&h, &spec.id);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].1.contains("accepted initialize"), "{found:?}");
    let lives = h
        .timeline
        .for_server(&spec.id)
        .iter()
        .filter(|e| matches!(e.event, Event::Spawned { .. }))
        .count();
    assert_eq!(lives, 1);
    session.shutdown().await;
}
