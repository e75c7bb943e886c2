//! The unit tests of one reading (`strict`): keys written twice found
//! wherever and however spelled, nesting counted, what is not JSON, the id
//! a refusal is answered under, and the router's answers both ways.

use super::*;

fn duplicate(text: &str) -> Option<(String, String)> {
    match check(text) {
        Err(Refusal::Duplicate { key, at }) => Some((key, at)),
        _ => None,
    }
}

#[test]
fn a_key_written_twice_anywhere_is_found_with_where_it_is() {
    let d = |key: &str, at: &str| Some((key.to_owned(), at.to_owned()));
    assert_eq!(
        duplicate(r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#),
        d("method", "")
    );
    assert_eq!(
        duplicate(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","name":"write_file"}}"#
        ),
        d("name", "params")
    );
    assert_eq!(
        duplicate(
            r#"{"id":1,"params":{"arguments":{"path":"/a","x":[{"q":1,"q":2}],"path":"/b"}}}"#
        ),
        d("q", "params.arguments.x[]")
    );
    // Spelled with escapes, it is the same key to every reader.
    assert_eq!(
        duplicate(r#"{"params":{"name":"a","na\u006de":"b"}}"#),
        d("name", "params")
    );
    assert_eq!(duplicate(r#"{"i\u0064":1,"id":2}"#), d("id", ""));
    assert_eq!(
        duplicate(r#"{"\ud83d\ude00":1,"😀":2}"#),
        d("😀", ""),
        "a surrogate pair is the character it encodes"
    );
    assert_eq!(duplicate(r#"{"\/":1,"/":2}"#), d("/", ""));
    // An unpaired surrogate is a key of its own, in either case.
    assert!(duplicate(r#"{"\ud800":1,"\uD800":2}"#).is_some());
    assert!(duplicate(r#"{"\ud800":1,"\udc00":2}"#).is_none());
}

#[test]
fn the_same_key_in_different_objects_is_no_duplicate() {
    for text in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"name":"y","id":2}}}"#,
        r#"{"a":[{"k":1},{"k":2}],"b":{"k":{"k":{"k":3}}}}"#,
        r#"{"name":1,"Name":2,"name ":3,"nam":4}"#,
        "{}",
        "[]",
        "1",
    ] {
        assert_eq!(check(text), Ok(()), "{text}");
    }
}

#[test]
fn nesting_is_counted_from_the_message_and_refused_past_the_limit() {
    let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert_eq!(check(&nested(MAX_DEPTH)), Ok(()));
    assert_eq!(check(&nested(MAX_DEPTH + 1)), Err(Refusal::TooDeep));
    let message = |depth: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"m","params":{}}}"#,
            nested(depth)
        )
    };
    assert_eq!(check(&message(MAX_DEPTH - 1)), Ok(()));
    assert_eq!(check(&message(MAX_DEPTH)), Err(Refusal::TooDeep));
    // Far deeper than any stack: refused at the limit, without recursion.
    assert_eq!(check(&message(1_000_000)), Err(Refusal::TooDeep));
    let objects = format!(
        "{}1{}",
        r#"{"a":"#.repeat(MAX_DEPTH + 1),
        "}".repeat(MAX_DEPTH + 1)
    );
    assert_eq!(check(&objects), Err(Refusal::TooDeep));
}

#[test]
fn what_is_not_json_is_not_json_here_either() {
    for text in [
        "",
        " ",
        "{",
        r#"{"a":1,}"#,
        r#"{"a" 1}"#,
        r#"{"a":1]"#,
        r#"[1 2]"#,
        r#"{"a":tru}"#,
        r#"{"a":01}"#,
        r#"{"a":"\x"}"#,
        "{\"a\":\"\t\"}",
        r#"{"a":1} x"#,
        r#"{1:2}"#,
    ] {
        assert_eq!(check(text), Err(Refusal::NotJson), "{text:?}");
    }
}

#[test]
fn the_id_is_answered_only_when_it_reads_one_way_on_a_request() {
    let cases = [
        (r#"{"jsonrpc":"2.0","id":7,"method":"a","method":"b"}"#, "7"),
        (
            r#"{"jsonrpc":"2.0","id":"x\"y","method":"a","params":{"n":1,"n":2}}"#,
            r#""x\"y""#,
        ),
        (r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"a"}"#, "null"),
        (
            r#"{"jsonrpc":"2.0","id":1,"i\u0064":2,"method":"a"}"#,
            "null",
        ),
        // An answer to the bridge's request: its id is not the app's.
        (
            r#"{"jsonrpc":"2.0","id":3,"result":{},"result":{}}"#,
            "null",
        ),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"a"}"#, "null"),
        (r#"{"jsonrpc":"2.0","id":null,"method":"a"}"#, "null"),
        (
            r#"{"jsonrpc":"2.0","method":"a","id":-4.5,"params":[[[]]]}"#,
            "-4.5",
        ),
        // Passed back as written, never through a float.
        (
            r#"{"jsonrpc":"2.0","id":23333333333333333333333333,"method":"a","method":"b"}"#,
            "23333333333333333333333333",
        ),
        ("not json", "null"),
    ];
    for (text, id) in cases {
        assert_eq!(answerable_id(text), id, "{text}");
    }
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"m","params":{}{}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    assert_eq!(answerable_id(&deep), "5");
}

/// A router as an app meets it, with `write_file` hidden.
fn router() -> crate::route::Router {
    router_for(serde_json::json!({}))
}

/// The same for an app that declared `capabilities`.
fn router_for(capabilities: serde_json::Value) -> crate::route::Router {
    use serde_json::{Value, json};
    let mut router = crate::route::Router::new();
    let now = tokio::time::Instant::now();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "app", "version": "1"}}});
    router.from_app(init.to_string().as_bytes(), now);
    let sent: Value = serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
    let answer = json!({"jsonrpc": "2.0", "id": sent["id"], "result": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
    router.from_server(answer.to_string().as_bytes(), now);
    let mut rules = rootgate_model::tools::ToolRules::default();
    rules.set(
        None,
        "write_file",
        Some(rootgate_model::tools::ToolSetting::Hidden),
    );
    router.set_tool_rules(rules);
    router
}

/// What the router wrote to the app and to the server for `line`.
fn routed(router: &mut crate::route::Router, line: &str) -> (Vec<serde_json::Value>, Vec<String>) {
    use crate::route::Out;
    let (mut app, mut server) = (Vec::new(), Vec::new());
    for out in router.from_app(line.as_bytes(), tokio::time::Instant::now()) {
        match out {
            Out::App(l) => app.push(serde_json::from_slice(&l).unwrap()),
            Out::Server(l) => server.push(String::from_utf8(l).unwrap()),
            _ => {}
        }
    }
    (app, server)
}

#[test]
fn the_router_answers_each_two_way_line_under_its_id_and_passes_none_on() {
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"read_text_file","arguments":{{"x":{}{}}}}}}}"#,
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let cases = [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_text_file","name":"write_file"}}"#,
            serde_json::json!(1),
            "written twice",
        ),
        (
            r#"{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"read_text_file","name":"write_file"}}"#,
            serde_json::json!("two"),
            "written twice",
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","method":"tools/call","params":{"name":"write_file"}}"#,
            serde_json::json!(3),
            "written twice",
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a"},"params":{"name":"write_file"}}"#,
            serde_json::json!(4),
            "written twice",
        ),
        (&deep, serde_json::json!(5), "levels deep"),
        (
            r#"{"jsonrpc":"2.0","id":6,"id":7,"method":"ping"}"#,
            serde_json::Value::Null,
            "written twice",
        ),
        // An answer (no method): its id is the bridge's, not the app's.
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{},"result":{"roots":[]}}"#,
            serde_json::Value::Null,
            "written twice",
        ),
        // A notification is passed on whole unless it reads one way.
        (
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1,"progress":2}}"#,
            serde_json::Value::Null,
            "written twice",
        ),
    ];
    for (line, id, words) in cases {
        let mut router = router();
        let (app, server) = routed(&mut router, line);
        assert!(server.is_empty(), "passed on: {line}");
        assert_eq!(app.len(), 1, "{line}: {app:?}");
        assert_eq!(app[0]["id"], id, "{line}");
        assert_eq!(app[0]["error"]["code"], -32600, "{line}");
        let said = app[0]["error"]["message"].as_str().unwrap();
        assert!(said.contains(words), "{line}: {said}");
    }
    // The same call written once goes on.
    let mut router = router();
    let (app, server) = routed(
        &mut router,
        r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"/a"}}}"#,
    );
    assert!(app.is_empty(), "{app:?}");
    assert_eq!(server.len(), 1);
}

#[test]
fn an_apps_answer_read_two_ways_leaves_the_server_told_not_waiting() {
    use crate::route::Out;
    let now = tokio::time::Instant::now();
    let mut router = router_for(serde_json::json!({"sampling": {}}));
    let outs = router.from_server(
        br#"{"jsonrpc":"2.0","id":"s7","method":"sampling/createMessage","params":{"maxTokens":5}}"#,
        now,
    );
    let Some(Out::App(asked)) = outs.first() else {
        panic!("{outs:?}")
    };
    let asked: serde_json::Value = serde_json::from_slice(asked).unwrap();
    let answer = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"role":"assistant"}},"result":{{"role":"user"}}}}"#,
        asked["id"]
    );
    let outs = router.from_app(answer.as_bytes(), now);
    let server: Vec<serde_json::Value> = outs
        .iter()
        .filter_map(|o| match o {
            Out::Server(l) => serde_json::from_slice(l).ok(),
            _ => None,
        })
        .collect();
    assert_eq!(server.len(), 1, "{outs:?}");
    assert_eq!(server[0]["id"], "s7");
    assert_eq!(server[0]["error"]["code"], -32603);
    assert!(
        server[0]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("written twice")
    );
    // And the app, whose answer it was, is told under no id of its own.
    let (app, _) = routed(
        &mut router,
        &format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{}},"result":{{}}}}"#,
            asked["id"]
        ),
    );
    assert_eq!(app[0]["id"], serde_json::Value::Null);
    // Answered once, it is not answered again.
    assert!(
        routed(&mut router, &answer).1.is_empty(),
        "the server was told twice"
    );
}

#[test]
fn a_call_sent_without_an_id_never_reaches_the_server() {
    // Found by the fuzz target: a `tools/call` as a notification was passed
    // on unchanged, around the rules for tools.
    let mut router = router();
    for line in [
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","i{":"a","method":"tools/call","params":{"lame":"x","na\u006de":"write_file"}}"#,
        r#"{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"file:///etc/passwd"}}"#,
    ] {
        let (app, server) = routed(&mut router, line);
        assert!(server.is_empty(), "passed on: {line}");
        assert!(app.is_empty(), "a notification is not answered: {app:?}");
    }
    // Notifications proper still pass, whole.
    let line = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}}"#;
    assert_eq!(routed(&mut router, line).1, [format!("{line}\n")]);
}

#[test]
fn a_key_naming_a_lone_surrogate_does_not_hide_the_tools_name_from_the_rules() {
    // Found by the fuzz target: serde could not decode the first key, the
    // tool's name read as absent, and the call went on unjudged.
    let mut router = router();
    for line in [
        r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"la\ud66d\ude00d":"x","na\u006de":"write_file"}}"#,
        r#"{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"\ud800":1,"name":"write_file"}}"#,
    ] {
        let (app, server) = routed(&mut router, line);
        assert!(server.is_empty(), "passed on: {line}");
        assert_eq!(app[0]["error"]["code"], -32602, "{app:?}");
        let said = app[0]["error"]["message"].as_str().unwrap();
        assert!(said.contains("“write_file” is not offered"), "{said}");
    }
    // A name Rootgate cannot read at all is refused, not let through.
    for line in [
        r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"write_fil\ud800"}}"#,
        r#"{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":["write_file"]}}"#,
        r#"{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":"f","method":"tools/call"}"#,
    ] {
        let (app, server) = routed(&mut router, line);
        assert!(server.is_empty(), "passed on: {line}");
        let said = app[0]["error"]["message"].as_str().unwrap();
        assert!(said.contains("names no tool Rootgate can read"), "{said}");
    }
}

#[test]
fn a_servers_response_with_its_id_twice_is_dropped_not_read_either_way() {
    use crate::route::Out;
    let now = tokio::time::Instant::now();
    let mut router = router();
    for id in [1, 2] {
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
        router.from_app(line.as_bytes(), now);
    }
    for line in [
        r#"{"jsonrpc":"2.0","id":2,"id":3,"result":{"tools":[]}}"#,
        r#"{"jsonrpc":"2.0","id":2,"id":3,"result":{"tools":[]}}"#,
    ] {
        let out = router.from_server(line.as_bytes(), now);
        assert!(
            out.iter().all(|o| matches!(o, Out::Note(_))),
            "{line}: {out:?}"
        );
    }
    assert_eq!(
        router.in_flight(),
        2,
        "neither request was taken as answered"
    );
}

#[test]
fn the_words_name_the_key_and_the_place() {
    let words = check(r#"{"params":{"name":"a","name":"b"}}"#)
        .expect_err("refused")
        .words();
    assert!(
        words.contains(r#"the key "name" is written twice in “params”"#),
        "{words}"
    );
    assert!(Refusal::TooDeep.words().contains("more than 64 levels"));
}
