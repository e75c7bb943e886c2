//! The router's translation for a server of the 2026-07-28 era, spoken to
//! on behalf of an AI app of the legacy era (every app of the modern era
//! falls back to it too: the bridge answers `server/discover` as a legacy
//! server does).
//!
//! The app's `initialize` becomes `server/discover`, and its answer the
//! app's `initialize` result (the server's capabilities, identity and
//! instructions, on a legacy version the app asked for); every request the
//! app sends carries the `_meta` the revision requires (protocol version,
//! the app's identity, its capabilities with Rootgate's `roots: {}` in
//! place of its own, and the logging level the app set, as the revision has
//! no `logging/setLevel`). When the server answers a call with an
//! `InputRequiredResult`, the bridge drives the rounds itself: every
//! `roots/list` is answered from the consented list as it is then (the app
//! never sees it), elicitation and sampling go to the app as the legacy
//! requests it knows when it declared them, and the call is sent again with
//! the answers and the server's `requestState` echoed exactly. Anything the
//! bridge cannot get answered ends the app's call with an error that names
//! it. Nothing here does I/O.

use super::*;
use rootgate_model::consent::SharedRoots;
use rootgate_model::servers::Era;
use rootgate_session::SUPPORTED_VERSIONS;
use rootgate_session::era::MODERN_VERSION;
use rootgate_session::rounds::{self, MAX_ROUNDS};

/// What a modern call keeps so that it can be sent again with answers.
#[derive(Debug, Clone)]
pub(super) struct Retry {
    /// The call's params as sent (with `_meta`), without answers.
    params: Map<String, Value>,
    rounds: usize,
}

/// A round waiting for the app's answers to the input the server asked for.
pub(super) struct Round {
    pub(super) pending: Pending,
    retry: Retry,
    request_state: Option<String>,
    responses: Map<String, Value>,
    waiting: usize,
}

/// The methods whose results may ask for input (the MRTR spec's list).
fn may_ask_for_input(method: &str) -> bool {
    matches!(method, "tools/call" | "prompts/get" | "resources/read")
}

impl Router {
    /// Which era the server of the current life speaks: set by the session
    /// before the life's handshake.
    pub fn set_server_era(&mut self, era: Era) {
        self.era = era;
    }

    /// Whether the server era just set is a guess (the legacy era, for a
    /// server whose era is not known): then a refused opening is held for
    /// the next life, in which the server is spoken to in the modern era,
    /// and the app never sees the refusal (see `session::era`).
    pub fn guess_era(&mut self, guessed: bool) {
        self.era_guessed = guessed;
    }

    /// The server refused the opening of a life whose era was a guess:
    /// the app's opening is kept for the next life, and only the session
    /// is told. `None` for any other answer, which takes its usual way.
    pub(super) fn hold_refused_opening(
        &mut self,
        ours: u64,
        result: Option<Raw<'_>>,
        error: Option<Raw<'_>>,
    ) -> Option<Vec<Out>> {
        if !self.era_guessed
            || !matches!(
                self.to_server.get(&ours),
                Some(ToServer::FirstInitialize { .. } | ToServer::ImplicitOpen)
            )
        {
            return None;
        }
        let why = initialize_outcome(result, error).err()?;
        match self.to_server.remove(&ours) {
            Some(ToServer::FirstInitialize { app_id }) => {
                if let Init::Received { app_id: kept, .. } = &mut self.init {
                    *kept = Some(app_id);
                }
            }
            Some(ToServer::ImplicitOpen) => self.implicit_open = true,
            _ => {}
        }
        Some(vec![Out::ServerInitialized(Err(why))])
    }

    /// The consented list as it is now, for the input rounds of the lines
    /// that follow: the relay sets it before each server line.
    pub(crate) fn set_roots(&mut self, roots: SharedRoots) {
        self.roots = roots;
    }

    pub(super) fn modern(&self) -> bool {
        self.era == Era::Modern
    }

    /// The `_meta` of a modern request made for the app.
    fn request_meta(&self) -> Map<String, Value> {
        let app = match &self.init {
            Init::Received { params, .. } => Some(params),
            Init::Waiting => None,
        };
        let info = app
            .and_then(|p| p.get("clientInfo"))
            .filter(|i| i.is_object())
            .cloned()
            .unwrap_or_else(|| json!({"name": "rootgate", "version": env!("CARGO_PKG_VERSION")}));
        let declared = app.and_then(|p| p.get("capabilities"));
        // Roots are always Rootgate's; sampling and elicitation are the
        // app's to answer, so they are declared as the app declared them.
        let mut capabilities = Map::new();
        capabilities.insert("roots".into(), json!({}));
        for name in ["sampling", "elicitation"] {
            if let Some(cap) = declared.and_then(|c| c.get(name)).filter(|c| !c.is_null()) {
                capabilities.insert(name.into(), cap.clone());
            }
        }
        let mut meta = Map::new();
        meta.insert(
            "io.modelcontextprotocol/protocolVersion".into(),
            json!(MODERN_VERSION),
        );
        meta.insert("io.modelcontextprotocol/clientInfo".into(), info);
        meta.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            Value::Object(capabilities),
        );
        if let Some(level) = self
            .log_level
            .as_ref()
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
            .and_then(|p| p.get("level").cloned())
        {
            meta.insert("io.modelcontextprotocol/logLevel".into(), level);
        }
        meta
    }

    /// The app's params with the modern `_meta` merged in (its own `_meta`
    /// keys, such as a progress token, are kept).
    pub(super) fn modern_params(&self, params: Option<Raw<'_>>) -> Map<String, Value> {
        let mut params = params
            .and_then(|p| serde_json::from_str::<Map<String, Value>>(p.get()).ok())
            .unwrap_or_default();
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if !meta.is_object() {
            *meta = Value::Object(Map::new());
        }
        if let Value::Object(meta) = meta {
            meta.extend(self.request_meta());
        }
        params
    }

    /// The `server/discover` that stands for the app's `initialize`.
    pub(super) fn discover_line(&self, id: u64) -> Vec<u8> {
        let params = json!({ "_meta": self.request_meta() }).to_string();
        let raw = RawValue::from_string(params).ok();
        request_line(
            &id.to_string(),
            "server/discover",
            raw.as_deref().map(Raw::from),
        )
    }

    /// An app request to a modern server: `logging/setLevel` is kept by the
    /// bridge (and sent with every request); anything else goes on with its
    /// `_meta`, and calls that may ask for input keep their params for the
    /// rounds.
    pub(super) fn modern_request(
        &mut self,
        method: &str,
        id_text: &str,
        params: Option<Raw<'_>>,
        now: Instant,
    ) -> Vec<Out> {
        if method == "logging/setLevel" {
            self.log_level = params.map(|p| p.to_owned_raw());
            return vec![Out::App(result_line(id_text, "{}"))];
        }
        self.remember_for_replay(method, params);
        let params = self.modern_params(params);
        let retry = may_ask_for_input(method).then(|| Retry {
            params: params.clone(),
            rounds: 0,
        });
        let raw = RawValue::from_string(Value::Object(params).to_string()).ok();
        let pending = Pending {
            app_id: id_text.into(),
            method: method.to_owned(),
            target: target_of(method, raw.as_deref().map(Raw::from)),
            started: now,
            retry: retry.map(Box::new),
            consent: self.next_consent.take().map(String::into_boxed_str),
            bytes_in: self.in_bytes,
            bytes_out: 0,
        };
        let ours = self.send_for_app(pending);
        self.subscription_sent(ours, method, raw.as_deref().map(Raw::from));
        vec![Out::Server(request_line(
            &ours.to_string(),
            method,
            raw.as_deref().map(Raw::from),
        ))]
    }

    /// Registers a request sent for the app under a new id of the bridge's.
    fn send_for_app(&mut self, pending: Pending) -> u64 {
        let ours = self.next_server_id;
        self.next_server_id += 1;
        self.app_ids.insert(pending.app_id.clone(), ours);
        self.to_server.insert(ours, ToServer::App(pending));
        ours
    }

    /// The `initialize` result the app gets for the server's discover
    /// result, and what the session is told (the modern version).
    pub(super) fn discovered(&self, result: &Value) -> (Value, Value) {
        let asked = match &self.init {
            Init::Received { params, .. } => params
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or_default(),
            Init::Waiting => "",
        };
        let version = if SUPPORTED_VERSIONS.contains(&asked) {
            asked
        } else {
            rootgate_session::protocol::PROTOCOL_VERSION
        };
        let info = result
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
            .filter(|i| i.is_object())
            .cloned()
            .unwrap_or_else(|| json!({"name": "", "version": ""}));
        let capabilities = result
            .get("capabilities")
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
        let mut for_app = json!({
            "protocolVersion": version,
            "capabilities": capabilities,
            "serverInfo": info,
        });
        if let Some(instructions) = result.get("instructions").filter(|i| i.is_string()) {
            for_app["instructions"] = instructions.clone();
        }
        let mut for_session = for_app.clone();
        for_session["protocolVersion"] = json!(MODERN_VERSION);
        (for_app, for_session)
    }

    /// A modern server's answer to an app call: an `InputRequiredResult`
    /// starts a round; anything else is the app's answer. `None` when the
    /// answer is not asking for input.
    pub(super) fn input_round(
        &mut self,
        pending: Pending,
        result: Option<Raw<'_>>,
        now: Instant,
    ) -> Result<Vec<Out>, Pending> {
        // Only a request that may be retried can start a round: an answer
        // from a legacy server (no retry) is not looked into at all.
        if pending.retry.is_none() {
            return Err(pending);
        }
        let (Some(parsed), Some(mut retry)) = (asks_for_input(result), pending.retry.clone())
        else {
            return Err(pending);
        };
        retry.rounds += 1;
        if retry.rounds > MAX_ROUNDS {
            return Ok(self.fail(
                pending,
                &format!("the server asked for input {MAX_ROUNDS} times without finishing"),
                None,
                now,
            ));
        }
        let requests = parsed
            .get("inputRequests")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        // Every request must be answerable before anything is asked of the
        // app: a round either goes ahead whole or ends the call.
        if let Some((key, method, who)) = self.unanswerable(&requests) {
            let why = format!(
                "while handling {} the server asked for `{method}`, which {who}",
                pending.method
            );
            let note = Out::InputNotOffered {
                method: pending.method.clone(),
                target: pending.target.clone(),
                key,
                asked: method,
            };
            return Ok(self.fail(pending, &why, Some(note), now));
        }
        let asks_the_app = requests.values().any(|r| method_of(r) != "roots/list");
        if self.app_modern && asks_the_app {
            return Ok(self.input_for_modern_app(pending, &parsed, requests, now));
        }
        let round = Round {
            pending,
            retry: *retry,
            request_state: parsed
                .get("requestState")
                .and_then(Value::as_str)
                .map(str::to_owned),
            responses: Map::new(),
            waiting: 0,
        };
        Ok(self.start_round(round, requests))
    }

    /// The first input request of a round that cannot be answered: its
    /// key, its method, and who does not offer it.
    fn unanswerable(
        &self,
        requests: &Map<String, Value>,
    ) -> Option<(String, String, &'static str)> {
        requests.iter().find_map(|(key, request)| {
            let method = method_of(request);
            let who = match method {
                "roots/list" => return None,
                "elicitation/create" if self.app.capabilities.elicitation => return None,
                "sampling/createMessage" if self.app.capabilities.sampling => return None,
                "elicitation/create" | "sampling/createMessage" => "the app did not declare",
                _ => "Rootgate does not offer",
            };
            Some((key.clone(), method.to_owned(), who))
        })
    }

    /// Answers a round's roots from the list now and asks a legacy app for
    /// the rest; sends the call again at once when nothing is left to ask.
    fn start_round(&mut self, mut round: Round, requests: Map<String, Value>) -> Vec<Out> {
        let round_id = self.next_server_id;
        self.next_server_id += 1;
        let mut out = Vec::new();
        for (key, request) in requests {
            let method = method_of(&request);
            if method == "roots/list" {
                let roots = self.roots.shared();
                round
                    .responses
                    .insert(key.clone(), rounds::roots_result(&roots));
                out.push(Out::Round {
                    method: round.pending.method.clone(),
                    target: round.pending.target.clone(),
                    key,
                    generation: self.roots.generation(),
                    roots,
                });
                continue;
            }
            let ours = self.next_app_id;
            self.next_app_id += 1;
            let line = {
                let params = request
                    .get("params")
                    .and_then(|p| RawValue::from_string(p.to_string()).ok());
                request_line(&ours.to_string(), method, params.as_deref().map(Raw::from))
            };
            self.to_app.insert(
                ours,
                ToApp::Input {
                    round: round_id,
                    key,
                },
            );
            out.push(Out::App(line));
            round.waiting += 1;
        }
        if round.waiting == 0 {
            out.push(self.send_retry(round));
        } else {
            self.app_ids.insert(round.pending.app_id.clone(), round_id);
            self.rounds.insert(round_id, round);
        }
        out
    }

    /// The app answered input request `key` of round `round`.
    pub(super) fn input_answered(
        &mut self,
        round_id: u64,
        key: String,
        result: Option<Raw<'_>>,
        error: Option<Raw<'_>>,
        now: Instant,
    ) -> Vec<Out> {
        let Some(mut round) = self.rounds.remove(&round_id) else {
            return vec![Out::Note(
                "the app answered input for a call that has ended; dropped".into(),
            )];
        };
        if error.is_some() || result.is_none() {
            // The app refused what the server asked: the call ends with the
            // app's own error.
            self.app_ids.remove(&round.pending.app_id);
            let pending = round.pending;
            return vec![
                Out::App(response_line(&pending.app_id, None, error)),
                pending.ended(now, outcome(error)),
            ];
        }
        let value = result
            .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
            .unwrap_or(Value::Null);
        round.responses.insert(key, value);
        round.waiting = round.waiting.saturating_sub(1);
        if round.waiting > 0 {
            self.rounds.insert(round_id, round);
            return Vec::new();
        }
        vec![self.send_retry(round)]
    }

    /// The call again, with the round's answers and the server's state.
    fn send_retry(&mut self, round: Round) -> Out {
        let mut params = round.retry.params.clone();
        // Answers the call already carried (a modern app's own, to the
        // input it was asked for) stay; the bridge's are added to them.
        let mut responses = match params.remove("inputResponses") {
            Some(Value::Object(carried)) => carried,
            _ => Map::new(),
        };
        responses.extend(round.responses);
        if !responses.is_empty() {
            params.insert("inputResponses".into(), Value::Object(responses));
        }
        // Echoed exactly, and only when the server gave one.
        match round.request_state {
            Some(state) => params.insert("requestState".into(), Value::String(state)),
            None => params.remove("requestState"),
        };
        let method = round.pending.method.clone();
        let mut pending = round.pending;
        pending.retry = Some(Box::new(round.retry));
        let ours = self.send_for_app(pending);
        let raw = RawValue::from_string(Value::Object(params).to_string()).ok();
        Out::Server(request_line(
            &ours.to_string(),
            &method,
            raw.as_deref().map(Raw::from),
        ))
    }

    /// Ends an app call with an error of the bridge's.
    fn fail(&mut self, pending: Pending, why: &str, note: Option<Out>, now: Instant) -> Vec<Out> {
        self.app_ids.remove(&pending.app_id);
        let [error, call] = pending.failed(now, why);
        let mut out = vec![error];
        out.extend(note);
        out.push(call);
        out
    }
}

/// The method of an input request.
fn method_of(request: &Value) -> &str {
    request.get("method").and_then(Value::as_str).unwrap_or("")
}

/// A result asking for input (an `InputRequiredResult`), parsed; `None`
/// for any other result, which is only scanned, never decoded.
fn asks_for_input(result: Option<Raw<'_>>) -> Option<Value> {
    // Only `resultType` is read, so a large result is not decoded to learn
    // that it is complete.
    let result = result?;
    let [kind] = envelope::fields(result, ["resultType"])?;
    let kind = serde_json::from_str::<Cow<str>>(kind?.get()).ok()?;
    if kind != "input_required" {
        return None;
    }
    Some(serde_json::from_str(result.get()).unwrap_or(Value::Null))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_model::consent::SharedRoot;
    use rootgate_model::ids::RootId;

    fn json_of(out: &Out) -> Value {
        match out {
            Out::Server(line) | Out::App(line) => serde_json::from_slice(line).expect("a line"),
            other => panic!("not a line: {other:?}"),
        }
    }

    fn roots(uris: &[&str]) -> SharedRoots {
        let list = uris
            .iter()
            .map(|u| SharedRoot {
                root: RootId::generate(),
                uri: (*u).into(),
                name: "n".into(),
            })
            .collect();
        SharedRoots::empty()
            .advance_for_tests(list)
            .expect("a list")
    }

    /// A router whose app declared `capabilities`, connected to a modern
    /// server that answered `server/discover`.
    fn connected(capabilities: Value) -> Router {
        let mut router = Router::new();
        router.set_server_era(Era::Modern);
        let now = Instant::now();
        let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": capabilities,
            "clientInfo": {"name": "Claude Code", "version": "2.1"}}});
        assert_eq!(
            router.from_app(init.to_string().as_bytes(), now),
            vec![Out::AppInitialized]
        );
        let discover: Value =
            serde_json::from_slice(&router.initialize_for_server().expect("a line")).unwrap();
        assert_eq!(discover["method"], "server/discover");
        let meta = &discover["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "Claude Code"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"]["roots"],
            json!({})
        );
        let answer = json!({"jsonrpc": "2.0", "id": discover["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}}, "instructions": "be kind",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "3"}}}});
        let outs = router.from_server(answer.to_string().as_bytes(), now);
        let for_app = json_of(&outs[0]);
        assert_eq!(for_app["id"], "init");
        assert_eq!(for_app["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(for_app["result"]["serverInfo"]["name"], "modern");
        assert_eq!(for_app["result"]["capabilities"], json!({"tools": {}}));
        assert_eq!(for_app["result"]["instructions"], "be kind");
        let Out::ServerInitialized(Ok(session)) = &outs[1] else {
            panic!("{outs:?}")
        };
        assert_eq!(session["protocolVersion"], "2026-07-28");
        router
    }

    #[test]
    fn a_refused_opening_of_a_guessed_era_is_held_for_the_modern_life() {
        // The era is not known: the first life is spoken to in the legacy
        // era, and the server (modern only) refuses the app's `initialize`.
        let mut router = Router::new();
        router.set_server_era(Era::Legacy);
        router.guess_era(true);
        let now = Instant::now();
        let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "Claude Code", "version": "2.1"}}});
        router.from_app(init.to_string().as_bytes(), now);
        let sent: Value =
            serde_json::from_slice(&router.initialize_for_server().expect("a line")).unwrap();
        assert_eq!(sent["method"], "initialize");
        let refusal = json!({"jsonrpc": "2.0", "id": sent["id"], "error": {
            "code": -32022, "message": "Unsupported protocol version: 2025-06-18",
            "data": {"supported": ["2026-07-28"], "requested": "2025-06-18"}}});
        let outs = router.from_server(refusal.to_string().as_bytes(), now);
        // Only the session hears of it; the app is not answered yet.
        assert_eq!(outs.len(), 1, "{outs:?}");
        let Out::ServerInitialized(Err(why)) = &outs[0] else {
            panic!("{outs:?}")
        };
        assert!(why.contains("-32022"), "{why}");
        // The life ends (nothing waits in it for the app), and the next,
        // modern, answers the app's opening.
        assert!(router.server_gone("restarting", now).is_empty());
        router.set_server_era(Era::Modern);
        router.guess_era(false);
        let discover: Value =
            serde_json::from_slice(&router.initialize_for_server().expect("a line")).unwrap();
        assert_eq!(discover["method"], "server/discover");
        let answer = json!({"jsonrpc": "2.0", "id": discover["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "modern", "version": "3"}}}});
        let outs = router.from_server(answer.to_string().as_bytes(), now);
        let for_app = json_of(&outs[0]);
        assert_eq!(for_app["id"], "init");
        assert_eq!(for_app["result"]["serverInfo"]["name"], "modern");
        assert!(matches!(outs[1], Out::ServerInitialized(Ok(_))), "{outs:?}");
    }

    #[test]
    fn a_refused_opening_of_a_known_era_reaches_the_app() {
        let mut router = Router::new();
        router.set_server_era(Era::Legacy);
        router.guess_era(false);
        let now = Instant::now();
        let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "x", "version": "1"}}});
        router.from_app(init.to_string().as_bytes(), now);
        let sent: Value =
            serde_json::from_slice(&router.initialize_for_server().expect("a line")).unwrap();
        let refusal = json!({"jsonrpc": "2.0", "id": sent["id"],
            "error": {"code": -32602, "message": "no"}});
        let outs = router.from_server(refusal.to_string().as_bytes(), now);
        let for_app = json_of(&outs[0]);
        assert_eq!(for_app["id"], "init");
        assert_eq!(for_app["error"]["code"], -32602);
        assert!(
            matches!(outs[1], Out::ServerInitialized(Err(_))),
            "{outs:?}"
        );
    }

    fn call(router: &mut Router, id: u64, tool: &str) -> Value {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "_meta": {"progressToken": "p"}}});
        let outs = router.from_app(line.to_string().as_bytes(), Instant::now());
        json_of(&outs[0])
    }

    fn answer(router: &mut Router, to: &Value, result: Value) -> Vec<Out> {
        let line = json!({"jsonrpc": "2.0", "id": to["id"], "result": result});
        router.from_server(line.to_string().as_bytes(), Instant::now())
    }

    #[test]
    fn requests_carry_the_modern_meta_and_the_logging_level_stays_with_the_bridge() {
        let mut router = connected(json!({"sampling": {}, "roots": {"listChanged": true}}));
        let now = Instant::now();
        let initialized = router.from_app(
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            now,
        );
        assert!(
            initialized.iter().all(|o| !matches!(o, Out::Server(_))),
            "a modern server has no handshake to finish: {initialized:?}"
        );
        let level = router.from_app(
            br#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}"#,
            now,
        );
        assert_eq!(json_of(&level[0])["result"], json!({}));
        let sent = call(&mut router, 3, "grep");
        let meta = &sent["params"]["_meta"];
        assert_eq!(meta["progressToken"], "p", "the app's own _meta is kept");
        assert_eq!(meta["io.modelcontextprotocol/logLevel"], "debug");
        let caps = &meta["io.modelcontextprotocol/clientCapabilities"];
        assert_eq!(
            caps["roots"],
            json!({}),
            "roots are Rootgate's, not the app's"
        );
        assert_eq!(caps["sampling"], json!({}));
        assert!(caps.get("elicitation").is_none());
    }

    #[test]
    fn a_roots_round_is_answered_from_the_list_now_and_sent_again_with_the_state() {
        let mut router = connected(json!({}));
        router.set_roots(roots(&["file:///srv/a"]));
        let sent = call(&mut router, 7, "grep");
        let outs = answer(
            &mut router,
            &sent,
            json!({"resultType": "input_required", "requestState": "sealed:1",
                   "inputRequests": {"r": {"method": "roots/list"}}}),
        );
        assert!(matches!(&outs[0], Out::Round { key, target, .. }
            if key == "r" && target.as_deref() == Some("grep")));
        let retry = json_of(&outs[1]);
        assert!(matches!(outs[1], Out::Server(_)));
        assert_ne!(retry["id"], sent["id"], "a retry is a new request");
        assert_eq!(retry["params"]["requestState"], "sealed:1");
        assert_eq!(
            retry["params"]["inputResponses"]["r"],
            json!({"roots": [{"uri": "file:///srv/a", "name": "n"}]})
        );
        assert_eq!(retry["params"]["name"], "grep");
        assert_eq!(retry["params"]["_meta"]["progressToken"], "p");
        // The list changes before the next round: that round gets the new one,
        // and a round without state sends none back.
        router.set_roots(roots(&["file:///srv/b"]));
        let outs = answer(
            &mut router,
            &retry,
            json!({"resultType": "input_required", "inputRequests": {"again": {"method": "roots/list"}}}),
        );
        let again = json_of(&outs[1]);
        assert!(again["params"].get("requestState").is_none());
        assert_eq!(
            again["params"]["inputResponses"]["again"]["roots"][0]["uri"],
            "file:///srv/b"
        );
        let outs = answer(
            &mut router,
            &again,
            json!({"content": [], "resultType": "complete"}),
        );
        let done = json_of(&outs[0]);
        assert_eq!(done["id"], 7, "the app gets its answer under its own id");
        assert!(matches!(&outs[1], Out::Call(c) if c.outcome == "ok"));
        assert_eq!(router.in_flight(), 0);
    }

    #[test]
    fn a_server_that_keeps_asking_is_given_up_on() {
        let mut router = connected(json!({}));
        let mut sent = call(&mut router, 1, "loop");
        for _ in 0..MAX_ROUNDS {
            let outs = answer(
                &mut router,
                &sent,
                json!({"resultType": "input_required", "inputRequests": {"r": {"method": "roots/list"}}}),
            );
            sent = json_of(&outs[1]);
            assert!(matches!(outs[1], Out::Server(_)));
        }
        let outs = answer(
            &mut router,
            &sent,
            json!({"resultType": "input_required", "requestState": "x"}),
        );
        let failed = json_of(&outs[0]);
        assert_eq!(failed["id"], 1);
        assert!(
            failed["error"]["message"]
                .as_str()
                .unwrap()
                .contains("8 times"),
            "{failed}"
        );
        assert_eq!(router.in_flight(), 0);
    }

    #[test]
    fn input_the_app_did_not_declare_or_nobody_offers_ends_the_call_in_words() {
        let mut router = connected(json!({}));
        for (asked, words) in [
            ("elicitation/create", "the app did not declare"),
            ("tasks/magic", "Rootgate does not offer"),
        ] {
            let sent = call(&mut router, 4, "ask");
            let outs = answer(
                &mut router,
                &sent,
                json!({"resultType": "input_required", "inputRequests": {
                    "r": {"method": "roots/list"}, "k": {"method": asked, "params": {}}}}),
            );
            let failed = json_of(&outs[0]);
            let message = failed["error"]["message"].as_str().unwrap().to_owned();
            assert!(
                message.contains(asked) && message.contains(words),
                "{message}"
            );
            assert!(matches!(&outs[1], Out::InputNotOffered { asked: a, .. } if a == asked));
            assert!(
                outs.iter().all(|o| !matches!(o, Out::Server(_))),
                "nothing is sent again: {outs:?}"
            );
        }
    }

    #[test]
    fn elicitation_goes_to_an_app_that_declared_it_and_its_answer_rides_the_retry() {
        let mut router = connected(json!({"elicitation": {}}));
        router.set_roots(roots(&["file:///srv/a"]));
        let sent = call(&mut router, 9, "ask");
        let outs = answer(
            &mut router,
            &sent,
            json!({"resultType": "input_required", "requestState": "s",
                   "inputRequests": {"r": {"method": "roots/list"},
                                     "who": {"method": "elicitation/create", "params": {"message": "Name?"}}}}),
        );
        let asked = outs
            .iter()
            .find(|o| matches!(o, Out::App(_)))
            .map(json_of)
            .expect("the app is asked");
        assert_eq!(asked["method"], "elicitation/create");
        assert_eq!(asked["params"]["message"], "Name?");
        assert!(
            outs.iter().all(|o| !matches!(o, Out::Server(_))),
            "waits for the app"
        );
        let reply = json!({"jsonrpc": "2.0", "id": asked["id"],
                           "result": {"action": "accept", "content": {"name": "Ada"}}});
        let outs = router.from_app(reply.to_string().as_bytes(), Instant::now());
        let retry = json_of(&outs[0]);
        assert_eq!(retry["params"]["requestState"], "s");
        assert_eq!(
            retry["params"]["inputResponses"]["who"]["content"]["name"],
            "Ada"
        );
        assert_eq!(
            retry["params"]["inputResponses"]["r"]["roots"][0]["uri"],
            "file:///srv/a"
        );
    }

    #[test]
    fn a_call_waiting_for_the_app_ends_when_cancelled_or_when_the_server_goes() {
        let mut router = connected(json!({"elicitation": {}}));
        let ask = json!({"resultType": "input_required",
                         "inputRequests": {"who": {"method": "elicitation/create", "params": {}}}});
        let sent = call(&mut router, 1, "ask");
        answer(&mut router, &sent, ask.clone());
        let outs = router.from_app(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
            Instant::now(),
        );
        assert!(
            outs.iter()
                .any(|o| matches!(o, Out::Call(c) if c.outcome == "cancelled"))
        );
        assert_eq!(router.in_flight(), 0);

        let sent = call(&mut router, 2, "ask");
        answer(&mut router, &sent, ask);
        let outs = router.server_gone("the server stopped", Instant::now());
        let failed = json_of(&outs[0]);
        assert_eq!(failed["id"], 2);
        assert_eq!(failed["error"]["message"], "the server stopped");
        assert_eq!(router.in_flight(), 0);
    }
}
