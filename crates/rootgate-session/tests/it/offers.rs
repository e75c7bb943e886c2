//! What real servers offer, and trying it through a session, as the window
//! does (`Session::offers`, `try_tool`, `read_resource`, `get_prompt`,
//! `follow_resource`): the npm filesystem server's tools report exactly
//! the shared folder and deny the rest; the npm everything server's tools,
//! resources, templates and prompts, its progress, a cancelled call, an
//! image, structured content and resource updates; the Python SDK's modern
//! server asking for roots while it handles a call. Every answer checked
//! here is the server's own.

use std::time::Duration;

use rootgate_model::timeline::{Event, TryResult};
use rootgate_session::notices::{Notice, OfferKind};
use rootgate_session::offers::{Offers, Watch};
use rootgate_session::{Session, SessionError, Status};
use rootgate_test_support::harness::*;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("arguments must be an object, not {other}"),
    }
}

fn names(list: &[Value]) -> Vec<&str> {
    list.iter().filter_map(|t| t["name"].as_str()).collect()
}

fn item<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` among {:?}", names(list)))
}

async fn offers_of(session: &Session) -> Offers {
    session.offers().await.expect("offers")
}

/// The last `Tried` entry of the timeline.
fn last_try(h: &Harness, session: &Session) -> Event {
    h.timeline
        .for_server(session.server())
        .into_iter()
        .rev()
        .map(|e| e.event)
        .find(|e| matches!(e, Event::Tried { .. }))
        .expect("a tried entry")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filesystem_servers_tools_see_only_the_shared_folder() {
    let h = Harness::new();
    let (shared, shared_path) = h.folder("shared");
    let (_, outside_path) = h.folder("outside");
    std::fs::write(shared_path.join("note.txt"), "inside the shared folder\n").unwrap();
    std::fs::write(outside_path.join("secret.txt"), "must not be read\n").unwrap();
    // A large tree: 20 folders of 100 files.
    for d in 0..20 {
        let dir = shared_path.join(format!("d{d:02}"));
        std::fs::create_dir(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f:03}.txt")), "x").unwrap();
        }
    }
    let js = fs_server_js();
    let (spec, session) = h.server("files", node(), &[js.to_str().unwrap()]);
    h.store.grant(&spec.id, &shared).unwrap();
    running(&session).await;

    let offers = offers_of(&session).await;
    assert!(
        offers.tools.offered && offers.tools.error.is_none(),
        "{offers:?}"
    );
    for tool in [
        "list_allowed_directories",
        "read_text_file",
        "directory_tree",
    ] {
        assert!(names(&offers.tools.items).contains(&tool), "{tool} offered");
    }
    let read = item(&offers.tools.items, "read_text_file");
    assert_eq!(read["inputSchema"]["type"], "object");
    assert!(read["inputSchema"]["properties"]["path"].is_object());
    assert!(
        !offers.prompts.offered,
        "the filesystem server offers no prompts"
    );

    let listed = eventually("the server to allow the shared folder", || async {
        let out = session
            .try_tool("list_allowed_directories", no_args(), Watch::default())
            .await
            .map_err(|e| e.to_string())?;
        let text = tool_text(&out.result);
        let dirs: Vec<&str> = text.lines().filter(|l| l.starts_with('/')).collect();
        if dirs == [shared_path.to_str().unwrap()] {
            Ok(out)
        } else {
            Err(format!("allowed {dirs:?}"))
        }
    })
    .await;
    assert_eq!(listed.roots_asked, 0, "a legacy server asks outside calls");

    let inside = session
        .try_tool(
            "read_text_file",
            args(json!({ "path": shared_path.join("note.txt") })),
            Watch::default(),
        )
        .await
        .unwrap();
    assert_eq!(tool_text(&inside.result), "inside the shared folder\n");
    assert!(matches!(
        last_try(&h, &session),
        Event::Tried { outcome: TryResult::Ok, ref target, .. } if target == "read_text_file"
    ));

    let outside = session
        .try_tool(
            "read_text_file",
            args(json!({ "path": outside_path.join("secret.txt") })),
            Watch::default(),
        )
        .await
        .expect("a denial is a result, not a failed request");
    assert_eq!(outside.result["isError"], true, "{}", outside.result);
    let denial = tool_text(&outside.result);
    assert!(denial.contains("Access denied"), "{denial}");
    assert!(!denial.contains("must not be read"));
    match last_try(&h, &session) {
        Event::Tried {
            outcome, detail, ..
        } => {
            assert_eq!(outcome, TryResult::ToolError);
            assert!(detail.unwrap_or_default().contains("Access denied"));
        }
        other => panic!("{other:?}"),
    }

    let tree = session
        .try_tool(
            "directory_tree",
            args(json!({ "path": shared_path })),
            Watch::default(),
        )
        .await
        .unwrap();
    let text = tool_text(&tree.result);
    let files = text.matches("\"file\"").count();
    assert_eq!(files, 2001, "every file of the tree, and note.txt");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_servers_offers_are_listed_whole() {
    let h = Harness::new();
    let js = everything_js();
    let (_, session) = h.server("everything", node(), &[js.to_str().unwrap(), "stdio"]);
    running(&session).await;
    let offers = offers_of(&session).await;
    for list in [
        &offers.tools,
        &offers.resources,
        &offers.templates,
        &offers.prompts,
    ] {
        assert!(list.offered && list.error.is_none(), "{list:?}");
        assert!(!list.items.is_empty(), "{list:?}");
    }
    let tools = &offers.tools.items;
    let long = item(tools, "trigger-long-running-operation");
    assert_eq!(long["annotations"]["readOnlyHint"], true);
    assert_eq!(
        long["inputSchema"]["properties"]["duration"]["type"],
        "number"
    );
    assert_eq!(long["inputSchema"]["properties"]["duration"]["default"], 10);
    let structured = item(tools, "get-structured-content");
    assert!(structured["outputSchema"]["properties"]["temperature"].is_object());
    let prompt = item(&offers.prompts.items, "args-prompt");
    let arguments = prompt["arguments"].as_array().unwrap();
    let city = arguments.iter().find(|a| a["name"] == "city").unwrap();
    assert_eq!(city["required"], true);
    assert!(
        offers.templates.items.iter().any(|t| t["uriTemplate"]
            .as_str()
            .is_some_and(|u| u.starts_with("demo://resource/dynamic/text/"))),
        "{:?}",
        offers.templates.items
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_call_reports_progress_and_can_be_cancelled() {
    let h = Harness::new();
    let js = everything_js();
    let (_, session) = h.server("everything", node(), &[js.to_str().unwrap(), "stdio"]);
    running(&session).await;

    let (tx, mut rx) = mpsc::unbounded_channel();
    let watch = Watch {
        progress: Some(tx),
        ..Watch::default()
    };
    let done = session
        .try_tool(
            "trigger-long-running-operation",
            args(json!({ "duration": 0.4, "steps": 4 })),
            watch,
        )
        .await
        .unwrap();
    assert!(tool_text(&done.result).contains("Steps: 4"));
    let mut seen = vec![];
    while let Ok(p) = rx.try_recv() {
        seen.push((p.progress, p.total));
    }
    // In order, each with its total. The last step's notification and the
    // answer leave the server together, and rmcp may hand over the answer
    // first; the first three came a step (100 ms) before it.
    let all = [
        (1.0, Some(4.0)),
        (2.0, Some(4.0)),
        (3.0, Some(4.0)),
        (4.0, Some(4.0)),
    ];
    assert!(seen.len() >= 3 && all.starts_with(&seen), "{seen:?}");

    // A call of a minute, cancelled after its first step.
    let (tx, mut rx) = mpsc::unbounded_channel();
    let watch = Watch {
        progress: Some(tx),
        ..Watch::default()
    };
    let cancel = watch.cancel.clone();
    let call = tokio::spawn({
        let session = session.clone();
        async move {
            session
                .try_tool(
                    "trigger-long-running-operation",
                    args(json!({ "duration": 60, "steps": 120 })),
                    watch,
                )
                .await
        }
    });
    let first = tokio::time::timeout(WAIT, rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.progress, 1.0);
    cancel.cancel();
    let ended = tokio::time::timeout(WAIT, call).await.unwrap().unwrap();
    assert!(matches!(ended, Err(SessionError::Cancelled)), "{ended:?}");
    assert!(matches!(
        last_try(&h, &session),
        Event::Tried {
            outcome: TryResult::Cancelled,
            ..
        }
    ));
    // The server is still there and answers the next call.
    let echo = session
        .try_tool(
            "echo",
            args(json!({ "message": "still here" })),
            Watch::default(),
        )
        .await
        .unwrap();
    assert!(tool_text(&echo.result).contains("still here"));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn images_structured_content_resources_and_prompts_come_as_sent() {
    let h = Harness::new();
    let js = everything_js();
    let (_, session) = h.server("everything", node(), &[js.to_str().unwrap(), "stdio"]);
    running(&session).await;

    let image = session
        .try_tool("get-tiny-image", no_args(), Watch::default())
        .await
        .unwrap();
    let content = image.result["content"].as_array().unwrap();
    let png = content.iter().find(|c| c["type"] == "image").unwrap();
    assert_eq!(png["mimeType"], "image/png");
    assert!(png["data"].as_str().unwrap().len() > 100);

    let weather = session
        .try_tool(
            "get-structured-content",
            args(json!({ "location": "New York" })),
            Watch::default(),
        )
        .await
        .unwrap();
    assert!(weather.result["structuredContent"]["temperature"].is_number());

    let text = session
        .read_resource("demo://resource/dynamic/text/1", Watch::default())
        .await
        .unwrap();
    let first = &text.result["contents"][0];
    assert_eq!(first["uri"], "demo://resource/dynamic/text/1");
    assert!(first["text"].is_string(), "{first}");
    let blob = session
        .read_resource("demo://resource/dynamic/blob/1", Watch::default())
        .await
        .unwrap();
    assert!(blob.result["contents"][0]["blob"].is_string());
    assert!(matches!(
        last_try(&h, &session),
        Event::Tried { ref method, ref arguments, outcome: TryResult::Ok, .. }
            if method == "resources/read" && arguments.is_none()
    ));

    let prompt = session
        .get_prompt(
            "args-prompt",
            args(json!({ "city": "Paris" })),
            Watch::default(),
        )
        .await
        .unwrap();
    let said = prompt.result["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(said.contains("Paris"), "{said}");
    let missing = session
        .get_prompt("args-prompt", no_args(), Watch::default())
        .await;
    assert!(missing.is_err(), "a required argument left out is refused");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_followed_resource_says_when_it_changes() {
    let h = Harness::new();
    let js = everything_js();
    let (_, session) = h.server("everything", node(), &[js.to_str().unwrap(), "stdio"]);
    running(&session).await;
    let uri = "demo://resource/dynamic/text/1";
    let mut notices = session.subscribe_notices();
    session.follow_resource(uri, true).await.unwrap();
    session
        .try_tool("toggle-subscriber-updates", no_args(), Watch::default())
        .await
        .unwrap();
    let updated = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let Ok(Notice::ResourceUpdated { uri: got }) = notices.recv().await {
                return got;
            }
        }
    })
    .await
    .expect("an update within 30 s");
    assert_eq!(updated, uri);
    session.follow_resource(uri, false).await.unwrap();
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_says_when_its_resources_change() {
    let h = Harness::new();
    let js = everything_js();
    let (_, session) = h.server("everything", node(), &[js.to_str().unwrap(), "stdio"]);
    running(&session).await;
    let mut notices = session.subscribe_notices();
    // The tool registers a resource of the session's own, which changes
    // the server's list.
    let made = session
        .try_tool(
            "gzip-file-as-resource",
            args(json!({ "name": "hello.txt.gz", "data": "data:text/plain;base64,aGVsbG8=" })),
            Watch::default(),
        )
        .await
        .unwrap();
    assert_ne!(made.result["isError"], true, "{}", made.result);
    // The server may also say its tools changed (it registers some once it
    // knows the client's capabilities); the resources' change is the one
    // this call makes.
    tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(Notice::ListChanged(OfferKind::Resources)) = notices.recv().await {
                return;
            }
        }
    })
    .await
    .expect("the resources' list to change");
    let offers = offers_of(&session).await;
    assert!(
        offers
            .resources
            .items
            .iter()
            .any(|r| r["uri"] == "demo://resource/session/hello.txt.gz"),
        "the new resource is listed"
    );
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_server_asks_for_its_roots_during_a_call_and_it_is_counted() {
    let h = Harness::new();
    let (root, path) = h.folder("project");
    let (spec, session) = h.server_from(rootgate_model::servers::ServerDraft {
        name: "modern".into(),
        command: python().to_str().unwrap().into(),
        args: vec![py_modern_server().to_str().unwrap().into()],
        enabled: true,
        // Dual-era, it would be spoken to in the legacy era on its own.
        era: rootgate_model::servers::EraChoice::Modern,
        ..Default::default()
    });
    h.store.grant(&spec.id, &root).unwrap();
    running(&session).await;
    let offers = offers_of(&session).await;
    assert!(names(&offers.tools.items).contains(&"ask_roots"));
    let out = session
        .try_tool("ask_roots", no_args(), Watch::default())
        .await
        .unwrap();
    assert_eq!(tool_text(&out.result).trim(), uri(&path));
    assert_eq!(out.roots_asked, 1);
    assert!(matches!(
        last_try(&h, &session),
        Event::Tried {
            roots_asked: 1,
            outcome: TryResult::Ok,
            ..
        }
    ));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_server_is_listed_whole_and_a_long_result_comes_intact() {
    let h = Harness::new();
    let server = workspace_root().join("tests/servers/py_big_server.py");
    let (_, session) = h.server_from(rootgate_model::servers::ServerDraft {
        name: "big".into(),
        command: python().to_str().unwrap().into(),
        args: vec![
            server.to_str().unwrap().into(),
            "--tools".into(),
            "300".into(),
            "--resources".into(),
            "3000".into(),
            "--result-bytes".into(),
            "3000000".into(),
        ],
        enabled: true,
        ..Default::default()
    });
    running(&session).await;
    let offers = offers_of(&session).await;
    assert_eq!(offers.tools.items.len(), 301, "300 tools and large_result");
    assert_eq!(offers.resources.items.len(), 3000);
    assert_eq!(offers.resources.items[2999]["uri"], "big://item/2999");
    let long = session
        .try_tool("large_result", no_args(), Watch::default())
        .await
        .unwrap();
    let text = tool_text(&long.result);
    assert_eq!(text.len(), 3_000_000);
    assert!(text.starts_with("0123456789abcdefghijklmnopqrstuvwxyz"));
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_server_says_on_its_listen_streams_what_changed() {
    let h = Harness::new();
    let (_, session) = h.server_from(rootgate_model::servers::ServerDraft {
        name: "modern".into(),
        command: python().to_str().unwrap().into(),
        args: vec![py_modern_server().to_str().unwrap().into()],
        enabled: true,
        // Dual-era, it would be spoken to in the legacy era on its own.
        era: rootgate_model::servers::EraChoice::Modern,
        ..Default::default()
    });
    let Status::Running(info) = running(&session).await else {
        unreachable!("running")
    };
    assert_eq!(info.era, rootgate_model::servers::Era::Modern);
    let notices = session.subscribe_notices();
    // The lists' stream opens as the server starts; the first change may
    // race it, so a new tool is added until the change is heard.
    let mut n = 0;
    let heard = eventually("the tool list's change on the listen stream", || {
        n += 1;
        let name = format!("added_{n}");
        let session = session.clone();
        let mut notices = notices.resubscribe();
        async move {
            session
                .try_tool("add_tool", args(json!({ "name": name })), Watch::default())
                .await
                .map_err(|e| e.to_string())?;
            match tokio::time::timeout(Duration::from_secs(2), async {
                loop {
                    if let Ok(Notice::ListChanged(OfferKind::Tools)) = notices.recv().await {
                        return;
                    }
                }
            })
            .await
            {
                Ok(()) => Ok(name),
                Err(_) => Err("no change heard".to_owned()),
            }
        }
    })
    .await;
    let offers = offers_of(&session).await;
    assert!(names(&offers.tools.items).contains(&heard.as_str()));

    let uri = "file:///followed/note.txt";
    session.follow_resource(uri, true).await.unwrap();
    let updated = eventually("the followed resource's update", || {
        let session = session.clone();
        let mut notices = notices.resubscribe();
        async move {
            session
                .try_tool("touch", args(json!({ "uri": uri })), Watch::default())
                .await
                .map_err(|e| e.to_string())?;
            tokio::time::timeout(Duration::from_secs(2), async {
                loop {
                    if let Ok(Notice::ResourceUpdated { uri }) = notices.recv().await {
                        return uri;
                    }
                }
            })
            .await
            .map_err(|_| "no update heard".to_owned())
        }
    })
    .await;
    assert_eq!(updated, uri);
    session.shutdown().await;
}

/// A legacy server in a few lines of Python that offers resources but does
/// not know `resources/templates/list`, as some hand-written servers do.
const NO_TEMPLATES_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    method, i = m["method"], m["id"]
    if method == "initialize":
        r = {"result": {"protocolVersion": "2025-11-25", "capabilities": {"resources": {}},
                        "serverInfo": {"name": "no-templates", "version": "0"}}}
    elif method == "resources/list":
        r = {"result": {"resources": [{"uri": "mem://one", "name": "one"}]}}
    else:
        r = {"error": {"code": -32601, "message": "Method not found: " + method}}
    print(json.dumps({"jsonrpc": "2.0", "id": i, **r}), flush=True)
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_templates_has_an_empty_list_not_a_failure() {
    let h = Harness::new();
    let (_, session) = h.server_from(rootgate_model::servers::ServerDraft {
        name: "no templates".into(),
        command: python().to_str().unwrap().into(),
        args: vec!["-c".into(), NO_TEMPLATES_SERVER.into()],
        enabled: true,
        era: rootgate_model::servers::EraChoice::Legacy,
        ..Default::default()
    });
    running(&session).await;
    let offers = offers_of(&session).await;
    assert_eq!(offers.resources.items.len(), 1);
    assert!(offers.templates.offered);
    assert!(offers.templates.items.is_empty());
    assert_eq!(
        offers.templates.error, None,
        "method not found is no failure"
    );
    assert!(!offers.tools.offered && !offers.prompts.offered);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_legacy_server_asking_roots_list_during_a_call_is_counted_too() {
    let h = Harness::new();
    let (root, _) = h.folder("project");
    let (spec, session) = h.server_from(rootgate_model::servers::ServerDraft {
        name: "python".into(),
        command: python().to_str().unwrap().into(),
        args: vec![py_roots_server().to_str().unwrap().into()],
        enabled: true,
        era: rootgate_model::servers::EraChoice::Legacy,
        ..Default::default()
    });
    h.store.grant(&spec.id, &root).unwrap();
    running(&session).await;
    // `get_roots` asks `roots/list` while it runs; `cached_roots` does not.
    let asked = session
        .try_tool("get_roots", no_args(), Watch::default())
        .await
        .unwrap();
    assert_eq!(asked.roots_asked, 1, "{}", asked.result);
    let cached = session
        .try_tool("cached_roots", no_args(), Watch::default())
        .await
        .unwrap();
    assert_eq!(cached.roots_asked, 0, "{}", cached.result);
    session.shutdown().await;
}
