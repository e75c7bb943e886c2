//! The mux's promises, line by line: every member answered with the
//! server's own answers under its own ids, and nothing of one member's
//! reaching another.

use super::*;

fn v(line: &[u8]) -> Value {
    serde_json::from_slice(line).expect("a JSON line")
}

/// The lines for the server, decoded.
fn to_server(outs: &[MuxOut]) -> Vec<Value> {
    outs.iter()
        .filter_map(|o| match o {
            MuxOut::Server(line) => Some(v(line)),
            _ => None,
        })
        .collect()
}

/// The lines for members, decoded, with the member each is for.
fn to_members(outs: &[MuxOut]) -> Vec<(Member, Value)> {
    outs.iter()
        .filter_map(|o| match o {
            MuxOut::Member(m, line) => Some((*m, v(line))),
            _ => None,
        })
        .collect()
}

fn req(id: u64, method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

fn answer_of(id: &Value, result: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
        .to_string()
        .into_bytes()
}

/// A mux with members 1 and 2 whose server is initialized.
fn opened() -> Mux {
    let mut mux = Mux::new();
    mux.join(1);
    mux.join(2);
    let sent = to_server(&mux.member_line(1, &req(7, "initialize", json!({}))));
    mux.server_line(&answer_of(
        &sent[0]["id"],
        json!({"serverInfo": {"name": "s"}}),
    ));
    mux.member_line(2, &req(3, "initialize", json!({})));
    mux
}

#[test]
fn the_server_is_initialized_once_and_every_member_gets_its_own_answer() {
    let mut mux = Mux::new();
    mux.join(1);
    mux.join(2);
    mux.join(3);
    let first = mux.member_line(
        1,
        &req(7, "initialize", json!({"clientInfo": {"name": "a"}})),
    );
    let sent = to_server(&first);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["method"], "initialize");
    // A second member's, while the first waits, waits with it.
    assert!(
        mux.member_line(2, &req(9, "initialize", json!({})))
            .is_empty()
    );
    let result = json!({"protocolVersion": "2025-06-18", "serverInfo": {"name": "s"}});
    let answers = to_members(&mux.server_line(&answer_of(&sent[0]["id"], result.clone())));
    assert_eq!(
        answers,
        vec![
            (1, json!({"jsonrpc": "2.0", "id": 7, "result": result})),
            (2, json!({"jsonrpc": "2.0", "id": 9, "result": result})),
        ]
    );
    // A later one is answered at once, and the server hears nothing.
    let late = mux.member_line(3, &req(1, "initialize", json!({})));
    assert_eq!(
        to_members(&late),
        vec![(3, json!({"jsonrpc": "2.0", "id": 1, "result": result}))]
    );
    assert!(to_server(&late).is_empty());
    let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(to_server(&mux.member_line(1, initialized)).len(), 1);
    assert!(mux.member_line(2, initialized).is_empty());
}

#[test]
fn the_same_id_from_two_members_crosses_as_two_and_each_answer_goes_home() {
    let mut mux = opened();
    let a = to_server(&mux.member_line(1, &req(5, "tools/call", json!({"name": "a"}))));
    let b = to_server(&mux.member_line(2, &req(5, "tools/call", json!({"name": "b"}))));
    assert_ne!(a[0]["id"], b[0]["id"]);
    // Answered in the other order, each reaches the member that asked.
    let got_b = to_members(&mux.server_line(&answer_of(&b[0]["id"], json!({"for": "b"}))));
    let got_a = to_members(&mux.server_line(&answer_of(&a[0]["id"], json!({"for": "a"}))));
    assert_eq!(
        got_b,
        vec![(
            2,
            json!({"jsonrpc": "2.0", "id": 5, "result": {"for": "b"}})
        )]
    );
    assert_eq!(
        got_a,
        vec![(
            1,
            json!({"jsonrpc": "2.0", "id": 5, "result": {"for": "a"}})
        )]
    );
    // An answer to nothing sent is dropped with a note.
    let again = mux.server_line(&answer_of(&a[0]["id"], json!({})));
    assert!(matches!(again.as_slice(), [MuxOut::Note(_)]), "{again:?}");
}

#[test]
fn a_cancellation_names_the_request_as_the_server_knows_it() {
    let mut mux = opened();
    let sent = to_server(&mux.member_line(2, &req(4, "tools/call", json!({}))));
    let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"x"}}"#;
    let out = to_server(&mux.member_line(2, cancel));
    assert_eq!(out[0]["params"]["requestId"], sent[0]["id"]);
    assert_eq!(out[0]["params"]["reason"], "x");
    // Member 1 never sent a request 4: nothing is cancelled for it.
    assert!(mux.member_line(1, cancel).is_empty());
}

#[test]
fn progress_reaches_only_the_member_whose_token_it_is() {
    let mut mux = opened();
    let with_token = |id| {
        req(
            id,
            "tools/call",
            json!({"name": "t", "_meta": {"progressToken": "p"}}),
        )
    };
    let a = to_server(&mux.member_line(1, &with_token(1)));
    let b = to_server(&mux.member_line(2, &with_token(1)));
    let (ta, tb) = (
        a[0]["params"]["_meta"]["progressToken"].clone(),
        b[0]["params"]["_meta"]["progressToken"].clone(),
    );
    assert_ne!(ta, tb, "the two members' same token crosses as two");
    assert_eq!(
        a[0]["params"]["name"], "t",
        "the rest of the params is kept"
    );
    let progress = |token: &Value| {
        json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": 1}})
            .to_string()
            .into_bytes()
    };
    let got = to_members(&mux.server_line(&progress(&tb)));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, 2);
    assert_eq!(got[0].1["params"]["progressToken"], "p");
    assert_eq!(got[0].1["params"]["progress"], 1);
    // A token no call of the server's carries reaches nobody.
    assert!(mux.server_line(&progress(&json!("p"))).is_empty());
}

#[test]
fn subscriptions_are_counted_and_updates_reach_only_the_subscribed() {
    let mut mux = opened();
    let sub = |id, method| req(id, method, json!({"uri": "file:///a"}));
    let first = mux.member_line(1, &sub(1, "resources/subscribe"));
    let sent = to_server(&first);
    assert_eq!(sent[0]["method"], "resources/subscribe");
    to_members(&mux.server_line(&answer_of(&sent[0]["id"], json!({}))));
    // The second subscription is answered here; the server heard one.
    let second = mux.member_line(2, &sub(8, "resources/subscribe"));
    assert!(to_server(&second).is_empty());
    assert_eq!(
        to_members(&second),
        vec![(2, json!({"jsonrpc": "2.0", "id": 8, "result": {}}))]
    );
    let updated = |uri: &str| {
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": uri}})
            .to_string()
            .into_bytes()
    };
    let who: Vec<Member> = to_members(&mux.server_line(&updated("file:///a")))
        .into_iter()
        .map(|(m, _)| m)
        .collect();
    assert_eq!(who, vec![1, 2]);
    assert!(mux.server_line(&updated("file:///b")).is_empty());
    // The first unsubscription is answered here; the last reaches the server.
    assert!(to_server(&mux.member_line(1, &sub(2, "resources/unsubscribe"))).is_empty());
    let who: Vec<Member> = to_members(&mux.server_line(&updated("file:///a")))
        .into_iter()
        .map(|(m, _)| m)
        .collect();
    assert_eq!(who, vec![2]);
    let last = to_server(&mux.member_line(2, &sub(9, "resources/unsubscribe")));
    assert_eq!(last[0]["method"], "resources/unsubscribe");
}

#[test]
fn the_server_is_as_verbose_as_the_most_verbose_member_and_each_gets_its_own_level() {
    let mut mux = opened();
    let set = |id, level: &str| req(id, "logging/setLevel", json!({"level": level}));
    let sent = to_server(&mux.member_line(1, &set(1, "error")));
    assert_eq!(sent[0]["params"]["level"], "error");
    let sent = to_server(&mux.member_line(2, &set(1, "debug")));
    assert_eq!(sent[0]["params"]["level"], "debug");
    // Member 2 asks less; the server stays as verbose as member 1 needs.
    let sent = to_server(&mux.member_line(2, &set(2, "warning")));
    assert_eq!(sent[0]["params"]["level"], "warning", "{sent:?}");
    let message = |level: &str| {
        json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": level, "data": "x"}})
            .to_string()
            .into_bytes()
    };
    let who = |outs: Vec<MuxOut>| -> Vec<Member> {
        to_members(&outs).into_iter().map(|(m, _)| m).collect()
    };
    assert_eq!(who(mux.server_line(&message("warning"))), vec![2]);
    assert_eq!(who(mux.server_line(&message("error"))), vec![1, 2]);
    assert!(who(mux.server_line(&message("info"))).is_empty());
    // Member 2 leaves: the server is told the level member 1 asked for.
    // (Its two requests were never answered: they are cancelled first.)
    let left = to_server(&mux.leave(2));
    let methods: Vec<&str> = left
        .iter()
        .map(|l| l["method"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        methods,
        vec![
            "notifications/cancelled",
            "notifications/cancelled",
            "logging/setLevel"
        ]
    );
    assert_eq!(left[2]["params"]["level"], "error");
}

#[test]
fn a_server_request_goes_to_the_member_that_caused_it_or_is_refused_in_words() {
    let mut mux = opened();
    let call = to_server(&mux.member_line(2, &req(1, "tools/call", json!({"name": "sample"}))));
    let sampling = br#"{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}"#;
    let got = to_members(&mux.server_line(sampling));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, 2, "the one member with a call in flight");
    // Its answer goes to the server as it is.
    let answer = br#"{"jsonrpc":"2.0","id":"s1","result":{"content":{}}}"#;
    assert_eq!(to_server(&mux.member_line(2, answer))[0]["id"], "s1");

    // Both have a call in flight: which one caused it cannot be told.
    let other = to_server(&mux.member_line(1, &req(1, "tools/call", json!({"name": "slow"}))));
    let refused = mux
        .server_line(br#"{"jsonrpc":"2.0","id":"s2","method":"elicitation/create","params":{}}"#);
    let error = &to_server(&refused)[0];
    assert_eq!(error["id"], "s2");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2 AI apps share this server"),
        "{error}"
    );
    assert!(to_members(&refused).is_empty());

    // With a progress token of its call, it goes to that call's member.
    let with_token = to_server(&mux.member_line(
        1,
        &req(
            2,
            "tools/call",
            json!({"name": "t", "_meta": {"progressToken": 1}}),
        ),
    ));
    let token = &with_token[0]["params"]["_meta"]["progressToken"];
    let asked = json!({"jsonrpc": "2.0", "id": "s3", "method": "sampling/createMessage", "params": {"_meta": {"progressToken": token}}})
        .to_string()
        .into_bytes();
    assert_eq!(to_members(&mux.server_line(&asked))[0].0, 1);
    let _ = (call, other);
}

#[test]
fn roots_and_pings_from_the_server_never_reach_a_member() {
    let mut mux = opened();
    assert_eq!(
        mux.server_line(br#"{"jsonrpc":"2.0","id":4,"method":"roots/list"}"#),
        vec![MuxOut::RootsList("4".into())]
    );
    let ping = mux.server_line(br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#);
    assert_eq!(
        to_server(&ping),
        vec![json!({"jsonrpc": "2.0", "id": 5, "result": {}})]
    );
    assert!(to_members(&ping).is_empty());
    let changed = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    let who: Vec<Member> = to_members(&mux.server_line(changed))
        .into_iter()
        .map(|(m, _)| m)
        .collect();
    assert_eq!(who, vec![1, 2], "a list change reaches every member");
}

#[test]
fn a_member_that_leaves_has_its_calls_cancelled_and_its_subscriptions_dropped() {
    let mut mux = opened();
    let call = to_server(&mux.member_line(1, &req(1, "tools/call", json!({}))));
    let sub = to_server(&mux.member_line(1, &req(2, "resources/subscribe", json!({"uri": "u"}))));
    mux.server_line(&answer_of(&sub[0]["id"], json!({})));
    let sampling = br#"{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{}}"#;
    assert_eq!(to_members(&mux.server_line(sampling))[0].0, 1);
    let left = to_server(&mux.leave(1));
    let methods: Vec<&str> = left
        .iter()
        .map(|l| l["method"].as_str().unwrap_or("(answer)"))
        .collect();
    assert_eq!(
        methods,
        vec![
            "notifications/cancelled",
            "resources/unsubscribe",
            "(answer)"
        ]
    );
    assert_eq!(left[0]["params"]["requestId"], call[0]["id"]);
    assert_eq!(left[2]["id"], "s");
    assert!(
        left[2]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("disconnected")
    );
    // The late answer to its call reaches nobody.
    assert!(to_members(&mux.server_line(&answer_of(&call[0]["id"], json!({})))).is_empty());
    // And it hears no more notifications.
    let changed = br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    assert_eq!(to_members(&mux.server_line(changed)).len(), 1);
}

#[test]
fn an_answer_to_a_request_the_server_sent_another_member_is_dropped() {
    let mut mux = opened();
    mux.member_line(1, &req(1, "tools/call", json!({})));
    let sampling = br#"{"jsonrpc":"2.0","id":"s","method":"sampling/createMessage","params":{}}"#;
    assert_eq!(to_members(&mux.server_line(sampling))[0].0, 1);
    let answer = br#"{"jsonrpc":"2.0","id":"s","result":{"forged":true}}"#;
    let forged = mux.member_line(2, answer);
    assert!(to_server(&forged).is_empty(), "{forged:?}");
    assert_eq!(to_server(&mux.member_line(1, answer)).len(), 1);
    // Once answered, not again.
    assert!(to_server(&mux.member_line(1, answer)).is_empty());
}

#[test]
fn the_opener_leaving_before_the_answer_still_opens_the_life_for_the_others() {
    let mut mux = Mux::new();
    mux.join(1);
    mux.join(2);
    let sent = to_server(&mux.member_line(1, &req(7, "initialize", json!({}))));
    assert!(
        mux.member_line(2, &req(4, "initialize", json!({})))
            .is_empty()
    );
    let left = mux.leave(1);
    assert!(
        to_server(&left).is_empty(),
        "nothing of the opening is cancelled: {left:?}"
    );
    let result = json!({"serverInfo": {"name": "s"}});
    let answered = to_members(&mux.server_line(&answer_of(&sent[0]["id"], result.clone())));
    assert_eq!(
        answered,
        vec![(2, json!({"jsonrpc": "2.0", "id": 4, "result": result}))]
    );
    mux.join(3);
    let late = to_members(&mux.member_line(3, &req(1, "initialize", json!({}))));
    assert_eq!(
        late,
        vec![(3, json!({"jsonrpc": "2.0", "id": 1, "result": result}))]
    );
}
