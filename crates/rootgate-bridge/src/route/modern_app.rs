//! The router's side for an AI app of the 2026-07-28 era, one that opens
//! with `server/discover` and cannot fall back (a dual-era app would, but
//! need not any more). Whatever era the server speaks, the app is served in
//! its own:
//!
//! - its `server/discover` stands for `initialize`: a modern server gets
//!   Rootgate's `server/discover` (the app's identity, Rootgate's roots) and
//!   the app its answer; a legacy server gets the `initialize` a legacy app
//!   would send (roots declared as Rootgate's) and `notifications/initialized`
//!   after it, and the app a `DiscoverResult` made from the answer;
//! - its requests go to a modern server with Rootgate's `roots: {}` put in
//!   their `_meta` (the rounds for roots are the bridge's, see `modern`); to
//!   a legacy server without the reserved `_meta` keys, which belong to the
//!   modern envelope;
//! - input a modern server asks of it (elicitation, sampling) reaches it as
//!   an `InputRequiredResult` without the roots requests; its retry is a new
//!   request, and the roots the server asks again for are the bridge's;
//! - a legacy server's sampling or elicitation cannot reach it (the modern
//!   era has no server-to-client requests) and is refused.
//!
//! What is not here: a modern app's roots as suggestions (it offers them
//! only inside rounds, and the bridge answers those itself).

use super::*;
use rootgate_session::era::MODERN_VERSION;

/// The reserved prefix of the modern per-request envelope.
const ENVELOPE: &str = "io.modelcontextprotocol/";

impl Router {
    /// A modern app's `server/discover`, before anything else: it stands
    /// for `initialize`.
    pub(super) fn app_discover(&mut self, id_text: &str, params: Option<Raw<'_>>) -> Vec<Out> {
        match self.open_modern(Some(id_text.into()), params) {
            Ok(()) => vec![Out::AppInitialized],
            Err(refusal) => vec![Out::App(refusal)],
        }
    }

    /// Whether a first request opens a modern connection: the era needs no
    /// `server/discover`, only the envelope on every request. If it does,
    /// the server is opened for it, and the request follows.
    pub(super) fn implicit_modern_open(&mut self, params: Option<Raw<'_>>) -> Option<Out> {
        #[derive(Deserialize)]
        struct Envelope<'a> {
            #[serde(default, borrow, rename = "_meta")]
            meta: Option<HashMap<Cow<'a, str>, &'a RawValue>>,
        }
        let claims = params
            .and_then(|p| serde_json::from_str::<Envelope>(p.get()).ok())
            .and_then(|e| e.meta)
            .is_some_and(|m| m.contains_key("io.modelcontextprotocol/protocolVersion"));
        if !claims || self.open_modern(None, params).is_err() {
            return None;
        }
        self.implicit_open = true;
        Some(Out::AppInitialized)
    }

    /// Takes a modern app's envelope as its opening; the refusal line if it
    /// asks for a version Rootgate does not speak.
    fn open_modern(
        &mut self,
        app_id: Option<Box<str>>,
        params: Option<Raw<'_>>,
    ) -> Result<(), Vec<u8>> {
        let params: Map<String, Value> = params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or_default();
        let meta = params.get("_meta");
        let key = |name: &str| meta.and_then(|m| m.get(format!("{ENVELOPE}{name}")));
        let asked = key("protocolVersion").and_then(Value::as_str).unwrap_or("");
        if asked != MODERN_VERSION {
            let data = json!({"supported": [MODERN_VERSION], "requested": asked});
            let id = app_id.as_deref().unwrap_or("null");
            return Err(error_data_line(
                id,
                -32022,
                "Unsupported protocol version",
                &data,
            ));
        }
        // Kept as the `initialize` params a legacy app would have sent: a
        // legacy server gets them (with Rootgate's roots), a modern one the
        // identity and capabilities in `_meta`.
        let mut init = Map::new();
        init.insert(
            "protocolVersion".into(),
            json!(rootgate_session::protocol::PROTOCOL_VERSION),
        );
        init.insert(
            "capabilities".into(),
            key("clientCapabilities")
                .filter(|c| c.is_object())
                .cloned()
                .unwrap_or_else(|| json!({})),
        );
        if let Some(info) = key("clientInfo").filter(|i| i.is_object()) {
            init.insert("clientInfo".into(), info.clone());
        }
        self.app = app_info(&init);
        self.app.protocol_version = MODERN_VERSION.into();
        self.app_modern = true;
        self.init = Init::Received {
            app_id,
            params: init,
        };
        Ok(())
    }

    /// A modern app's request once connected.
    pub(super) fn modern_app_request(
        &mut self,
        method: &str,
        id_text: &str,
        params: Option<Raw<'_>>,
        now: Instant,
    ) -> Option<Vec<Out>> {
        if method == "server/discover" {
            return Some(vec![match &self.discovered {
                Some(result) => Out::App(result_line(id_text, &result.to_string())),
                None => Out::App(error_line(id_text, -32603, "the server is not ready yet")),
            }]);
        }
        if self.modern() {
            return Some(self.modern_request(method, id_text, params, now));
        }
        // A legacy server: the envelope is not its vocabulary.
        let params = params.map(strip_envelope);
        Some(self.legacy_request(method, id_text, params.as_deref().map(Raw::from), now))
    }

    /// What a modern app gets for the server's first answer: a modern
    /// server's discover result as it is, or one made from a legacy
    /// server's `initialize` result (which is then told the client is
    /// initialized, as the app never will).
    pub(super) fn first_answer_for_modern_app(
        &mut self,
        app_id: Option<&str>,
        result: Option<Raw<'_>>,
        error: Option<Raw<'_>>,
    ) -> Vec<Out> {
        let parsed = initialize_outcome(result, error);
        let Ok(answer) = parsed else {
            let mut out: Vec<Out> = app_id
                .map(|id| Out::App(response_line(id, result, error)))
                .into_iter()
                .collect();
            out.push(Out::ServerInitialized(parsed));
            return out;
        };
        if self.modern() {
            let for_session = self.discovered(&answer).1;
            self.discovered = Some(answer.clone());
            let mut out: Vec<Out> = app_id
                .map(|id| Out::App(result_line(id, &answer.to_string())))
                .into_iter()
                .collect();
            out.push(Out::ServerInitialized(Ok(for_session)));
            return out;
        }
        let info = answer
            .get("serverInfo")
            .filter(|i| i.is_object())
            .cloned()
            .unwrap_or_else(|| json!({"name": "", "version": ""}));
        let mut discovered = json!({
            "resultType": "complete",
            "supportedVersions": [MODERN_VERSION],
            "ttlMs": 0,
            "cacheScope": "private",
            "capabilities": answer.get("capabilities").filter(|c| c.is_object()).cloned().unwrap_or_else(|| json!({})),
            "_meta": { "io.modelcontextprotocol/serverInfo": info },
        });
        if let Some(instructions) = answer.get("instructions").filter(|i| i.is_string()) {
            discovered["instructions"] = instructions.clone();
        }
        self.discovered = Some(discovered.clone());
        let mut out = vec![Out::Server(notification_line(
            "notifications/initialized",
            &Value::Null,
        ))];
        out.extend(app_id.map(|id| Out::App(result_line(id, &discovered.to_string()))));
        out.push(Out::ServerInitialized(Ok(answer)));
        out
    }

    /// The request a modern app opened with, now that the server is open
    /// (`opening` says how the opening went): sent on, or refused with the
    /// opening's failure.
    pub(super) fn release_deferred(&mut self, opening: &[Out], now: Instant) -> Vec<Out> {
        let Some((id, method, params)) = self.deferred.take() else {
            return Vec::new();
        };
        let failed = opening.iter().find_map(|o| match o {
            Out::ServerInitialized(Err(why)) => Some(why.clone()),
            _ => None,
        });
        if let Some(why) = failed {
            return vec![Out::App(error_line(id.get(), -32603, &why))];
        }
        self.app_request(
            &method,
            Raw::from(&*id),
            params.as_deref().map(Raw::from),
            now,
        )
    }

    /// Input a modern server asks of a modern app: it gets the round as an
    /// `InputRequiredResult` without the roots (which are the bridge's), and
    /// its call ends there; its retry is a call of its own.
    pub(super) fn input_for_modern_app(
        &mut self,
        pending: Pending,
        parsed: &Value,
        requests: Map<String, Value>,
        now: Instant,
    ) -> Vec<Out> {
        let asked: Map<String, Value> = requests
            .into_iter()
            .filter(|(_, r)| r.get("method").and_then(Value::as_str) != Some("roots/list"))
            .collect();
        let mut result = json!({"resultType": "input_required", "inputRequests": asked});
        if let Some(state) = parsed.get("requestState").filter(|s| s.is_string()) {
            result["requestState"] = state.clone();
        }
        self.app_ids.remove(&pending.app_id);
        vec![
            Out::App(result_line(&pending.app_id, &result.to_string())),
            pending.ended(now, "input required".into()),
        ]
    }
}

/// `params` without the reserved envelope keys in its `_meta` (and without
/// a `_meta` left empty by that).
fn strip_envelope(params: Raw<'_>) -> Box<RawValue> {
    let Ok(mut map) = serde_json::from_str::<Map<String, Value>>(params.get()) else {
        return params.to_owned_raw();
    };
    if let Some(Value::Object(meta)) = map.get_mut("_meta") {
        meta.retain(|k, _| !k.starts_with(ENVELOPE));
        if meta.is_empty() {
            map.remove("_meta");
        }
    }
    RawValue::from_string(Value::Object(map).to_string()).unwrap_or_else(|_| params.to_owned_raw())
}

/// A legacy server's result as the modern era writes it: with
/// `resultType: "complete"`, and for the results the revision caches
/// (lists, reads) `ttlMs: 0` and `cacheScope: "private"`: a legacy server's
/// lists change whenever it says so, so nothing may be kept. The result is
/// not re-encoded: missing fields are put in front of the others.
pub(super) fn typed_result(result: Raw<'_>, method: &str) -> Box<RawValue> {
    let text = result.get();
    let Some(body) = text.trim_start().strip_prefix('{') else {
        return result.to_owned_raw();
    };
    let Some([result_type, ttl_ms, cache_scope]) =
        envelope::fields(result, ["resultType", "ttlMs", "cacheScope"])
    else {
        return result.to_owned_raw();
    };
    let cacheable = matches!(
        method,
        "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    );
    let mut missing = Vec::new();
    if result_type.is_none() {
        missing.push(r#""resultType":"complete""#);
    }
    if cacheable && ttl_ms.is_none() {
        missing.push(r#""ttlMs":0"#);
    }
    if cacheable && cache_scope.is_none() {
        missing.push(r#""cacheScope":"private""#);
    }
    if missing.is_empty() {
        return result.to_owned_raw();
    }
    let body = body.trim_start();
    let joined = if body.starts_with('}') {
        format!("{{{}{body}", missing.join(","))
    } else {
        format!("{{{},{body}", missing.join(","))
    };
    RawValue::from_string(joined).unwrap_or_else(|_| result.to_owned_raw())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_model::servers::Era;

    fn json_of(out: &Out) -> Value {
        match out {
            Out::Server(line) | Out::App(line) => serde_json::from_slice(line).expect("a line"),
            other => panic!("not a line: {other:?}"),
        }
    }

    fn envelope() -> Value {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "Modern App", "version": "3"},
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        })
    }

    #[test]
    fn a_modern_apps_discover_opens_a_legacy_server_with_initialize_and_gets_a_discover_result() {
        let mut router = Router::new();
        let now = Instant::now();
        let discover = json!({"jsonrpc": "2.0", "id": "d", "method": "server/discover",
                              "params": {"_meta": envelope()}});
        assert_eq!(
            router.from_app(discover.to_string().as_bytes(), now),
            vec![Out::AppInitialized]
        );
        assert_eq!(router.app().map(|a| a.name.as_str()), Some("Modern App"));
        let init: Value = serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
        assert_eq!(init["method"], "initialize");
        assert_eq!(
            init["params"]["capabilities"]["roots"],
            json!({"listChanged": true})
        );
        assert_eq!(init["params"]["clientInfo"]["name"], "Modern App");
        let answer = json!({"jsonrpc": "2.0", "id": init["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "old", "version": "1"}, "instructions": "hi"}});
        let outs = router.from_server(answer.to_string().as_bytes(), now);
        assert_eq!(json_of(&outs[0])["method"], "notifications/initialized");
        let found = json_of(&outs[1]);
        assert_eq!(found["id"], "d");
        assert_eq!(found["result"]["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(found["result"]["capabilities"], json!({"tools": {}}));
        assert_eq!(
            found["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "old"
        );
        assert_eq!(found["result"]["instructions"], "hi");
        assert!(matches!(outs[2], Out::ServerInitialized(Ok(_))));
        // Its requests lose the envelope; their results gain a type.
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                          "params": {"name": "t", "_meta": {"progressToken": 5,
                          "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        let sent = json_of(&router.from_app(call.to_string().as_bytes(), now)[0]);
        assert_eq!(sent["params"]["_meta"], json!({"progressToken": 5}));
        let done = json!({"jsonrpc": "2.0", "id": sent["id"], "result": {"content": []}});
        let outs = router.from_server(done.to_string().as_bytes(), now);
        assert_eq!(
            json_of(&outs[0])["result"],
            json!({"resultType": "complete", "content": []})
        );
        // A legacy server's elicitation cannot reach a modern app.
        let outs = router.from_server(
            br#"{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{}}"#,
            now,
        );
        assert_eq!(json_of(&outs[0])["error"]["code"], -32601);
        // Asked again, it gets the same discover result.
        let again = router.from_app(
            br#"{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{}}"#,
            now,
        );
        assert_eq!(json_of(&again[0])["result"], found["result"]);
    }

    #[test]
    fn a_modern_app_that_opens_with_a_request_is_held_until_the_server_is_open() {
        let mut router = Router::new();
        let now = Instant::now();
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                          "params": {"name": "t", "_meta": envelope()}});
        assert_eq!(
            router.from_app(call.to_string().as_bytes(), now),
            vec![Out::AppInitialized],
            "nothing is sent before the server's era is known"
        );
        router.set_server_era(Era::Modern);
        let discover: Value =
            serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
        assert_eq!(discover["method"], "server/discover");
        let answer = json!({"jsonrpc": "2.0", "id": discover["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {}}});
        let outs = router.from_server(answer.to_string().as_bytes(), now);
        assert!(matches!(outs[0], Out::ServerInitialized(Ok(_))), "{outs:?}");
        let sent = json_of(&outs[1]);
        assert_eq!(sent["method"], "tools/call");
        assert_eq!(
            sent["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["roots"],
            json!({}),
            "Rootgate's roots, whatever the app declared"
        );
        assert!(
            outs.iter().all(|o| !matches!(o, Out::App(_))),
            "the opening answers nobody"
        );
    }

    #[test]
    fn a_modern_app_is_asked_only_for_its_own_input_and_never_for_roots() {
        let mut router = Router::new();
        let now = Instant::now();
        let discover = json!({"jsonrpc": "2.0", "id": "d", "method": "server/discover",
                              "params": {"_meta": envelope()}});
        router.from_app(discover.to_string().as_bytes(), now);
        router.set_server_era(Era::Modern);
        let opening: Value =
            serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
        let answer = json!({"jsonrpc": "2.0", "id": opening["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"], "capabilities": {}}});
        router.from_server(answer.to_string().as_bytes(), now);
        let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                          "params": {"name": "t", "_meta": envelope()}});
        let sent = json_of(&router.from_app(call.to_string().as_bytes(), now)[0]);
        let ask = json!({"jsonrpc": "2.0", "id": sent["id"], "result": {
            "resultType": "input_required", "requestState": "s",
            "inputRequests": {"r": {"method": "roots/list"},
                              "n": {"method": "elicitation/create", "params": {}}}}});
        let outs = router.from_server(ask.to_string().as_bytes(), now);
        let to_app = json_of(&outs[0]);
        assert_eq!(to_app["id"], 3);
        assert_eq!(to_app["result"]["requestState"], "s");
        assert!(
            to_app["result"]["inputRequests"].get("r").is_none(),
            "roots are never the app's"
        );
        assert!(to_app["result"]["inputRequests"].get("n").is_some());
    }

    #[test]
    fn a_modern_app_asking_for_another_version_is_told_which_is_spoken() {
        let mut router = Router::new();
        let mut meta = envelope();
        meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
        let discover = json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover",
                              "params": {"_meta": meta}});
        let outs = router.from_app(discover.to_string().as_bytes(), Instant::now());
        let refused = json_of(&outs[0]);
        assert_eq!(refused["id"], 4);
        assert_eq!(refused["error"]["code"], -32022);
        assert_eq!(refused["error"]["data"]["supported"], json!(["2026-07-28"]));
        assert!(router.app().is_none());
    }

    #[test]
    fn typing_a_result_keeps_it_whole() {
        let raw = |s: &str| RawValue::from_string(s.to_owned()).unwrap();
        let call = "tools/call";
        assert_eq!(
            typed_result(Raw::from(&*raw("{}")), call).get(),
            r#"{"resultType":"complete"}"#
        );
        assert_eq!(
            typed_result(Raw::from(&*raw(r#"{"content":[1]}"#)), call).get(),
            r#"{"resultType":"complete","content":[1]}"#
        );
        let typed = r#"{"resultType":"input_required","requestState":"x"}"#;
        assert_eq!(typed_result(Raw::from(&*raw(typed)), call).get(), typed);
        assert_eq!(typed_result(Raw::from(&*raw("[1]")), call).get(), "[1]");
        // Lists and reads are cacheable in the revision: never cached here.
        let listed: Value = serde_json::from_str(
            typed_result(Raw::from(&*raw(r#"{"tools":[]}"#)), "tools/list").get(),
        )
        .unwrap();
        assert_eq!(
            listed,
            json!({"resultType": "complete", "ttlMs": 0, "cacheScope": "private", "tools": []})
        );
        let kept = r#"{"ttlMs":5,"cacheScope":"public","contents":[]}"#;
        let read: Value =
            serde_json::from_str(typed_result(Raw::from(&*raw(kept)), "resources/read").get())
                .unwrap();
        assert_eq!(read["ttlMs"], 5);
        assert_eq!(read["cacheScope"], "public");
    }
}
