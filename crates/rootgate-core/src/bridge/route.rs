//! The bridge's router: what to do with each line an AI app or its server
//! writes, as a pure state machine over bytes.
//!
//! Every request that crosses gets an id of the bridge's own on the far
//! side, and the answer is matched back by that id alone, so the two sides'
//! ids never meet: an app that reuses ids, picks ids the server uses, or
//! answers a request nobody sent cannot reach the server with it. In
//! particular an app can never answer the server's `roots/list`: those are
//! answered beneath the router by the session's wire, from consent, and the
//! app is never asked. The app's `initialize` is passed on with
//! `roots.listChanged: true` in place of whatever the app declared; its own
//! roots (and `notifications/roots/list_changed`) never reach the server and
//! become suggestions instead. Sampling and elicitation from the server go
//! to the app only when it declared them.
//!
//! Payloads (`params`, `result`, `error`) are kept as the raw JSON they came
//! as and copied, not decoded, so a megabyte result costs one scan and one
//! copy. Nothing here does I/O, waits, or knows about processes: the relay
//! (`bridge::relay`) reads and writes, and records what the router reports.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::time::Instant;

/// The most app requests that may wait for the server at once; more are
/// refused until some are answered, so a flood costs a bounded table.
pub const MAX_IN_FLIGHT: usize = 10_000;

/// A JSON-RPC message with its parts kept raw.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(default, borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    id: Option<&'a RawValue>,
    #[serde(default, borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default, borrow)]
    error: Option<&'a RawValue>,
}

/// What the app declared it can do, as far as the bridge needs to know.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppCapabilities {
    pub roots: bool,
    pub sampling: bool,
    pub elicitation: bool,
}

/// Who the app is, from its `initialize`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppInfo {
    pub name: String,
    pub version: String,
    pub protocol_version: String,
    pub capabilities: AppCapabilities,
}

/// What the relay should do, in order.
#[derive(Debug, PartialEq)]
pub enum Out {
    /// Write this line to the server.
    Server(Vec<u8>),
    /// The server asked `roots/list` (request id as JSON text): the wire
    /// answers it from consent; the app never sees it.
    RootsList(Box<str>),
    /// Write this line to the app.
    App(Vec<u8>),
    /// The app's `initialize` arrived: the server may be initialized now.
    AppInitialized,
    /// The server answered an `initialize` of the bridge's own (a restart's
    /// replay): its `result`, or the error.
    ServerInitialized(Result<Value, String>),
    /// The app's roots, as it listed them: suggestions for the person.
    AppRoots(Vec<String>),
    /// An app request was answered (or cancelled), for the timeline.
    Call(Call),
    /// The server asked for something the app did not declare; it got the
    /// JSON-RPC error.
    Refused(String),
    /// Something was dropped or refused, in words, for the log.
    Note(String),
}

/// One finished app request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    pub method: String,
    /// The tool, prompt or resource it named, if any.
    pub target: Option<String>,
    pub duration: Duration,
    /// "ok", "error -32602: ...", or "cancelled".
    pub outcome: String,
}

enum ToServer {
    /// An app request: its id as the app wrote it.
    App {
        app_id: Box<str>,
        method: String,
        target: Option<String>,
        started: Instant,
    },
    /// The `initialize` forwarded for the app (the first life): its answer
    /// goes to the app.
    FirstInitialize { app_id: Box<str> },
    /// An `initialize` of the bridge's own, after a restart.
    ReplayInitialize,
    /// Another request of the bridge's own (a replayed subscription or
    /// logging level): its answer is dropped.
    Own,
}

enum ToApp {
    /// A server request passed on: its id as the server wrote it.
    Server { server_id: Box<str> },
    /// The bridge's own `roots/list`, for suggestions.
    Roots,
}

enum Init {
    /// No `initialize` from the app yet.
    Waiting,
    /// The app's `initialize`: its id (until answered) and params.
    Received {
        app_id: Option<Box<str>>,
        params: Map<String, Value>,
    },
}

/// The router of one bridge connection.
pub struct Router {
    init: Init,
    app: AppInfo,
    to_server: HashMap<u64, ToServer>,
    /// App request ids in flight, to the bridge's id for them (for the
    /// app's cancellations).
    app_ids: HashMap<Box<str>, u64>,
    next_server_id: u64,
    to_app: HashMap<u64, ToApp>,
    /// Server request ids passed on to the app, to the bridge's id.
    server_ids: HashMap<Box<str>, u64>,
    next_app_id: u64,
    /// Replayed after a restart: the last logging level asked for, and the
    /// resources subscribed to.
    log_level: Option<Box<RawValue>>,
    subscriptions: BTreeSet<String>,
}

impl Default for Router {
    fn default() -> Self {
        Router::new()
    }
}

impl Router {
    pub fn new() -> Router {
        Router {
            init: Init::Waiting,
            app: AppInfo::default(),
            to_server: HashMap::new(),
            app_ids: HashMap::new(),
            next_server_id: 1,
            to_app: HashMap::new(),
            server_ids: HashMap::new(),
            next_app_id: 1,
            log_level: None,
            subscriptions: BTreeSet::new(),
        }
    }

    /// Who the app is, once its `initialize` arrived.
    pub fn app(&self) -> Option<&AppInfo> {
        matches!(self.init, Init::Received { .. }).then_some(&self.app)
    }

    /// How many app requests wait for the server.
    pub fn in_flight(&self) -> usize {
        self.app_ids.len()
    }

    /// What to do with one line the app wrote (without its newline).
    pub fn from_app(&mut self, line: &[u8], now: Instant) -> Vec<Out> {
        // JSON is UTF-8, and what passes on unchanged must be too: serde
        // does not look inside the strings of fields it skips.
        if let Err(e) = std::str::from_utf8(line) {
            return vec![Out::App(error_line(
                "null",
                -32700,
                &format!("Parse error: the line is not UTF-8 ({e})"),
            ))];
        }
        let message: Message = match serde_json::from_slice(line) {
            Ok(m) => m,
            Err(e) => {
                return vec![Out::App(error_line(
                    "null",
                    -32700,
                    &format!("Parse error: {e}"),
                ))];
            }
        };
        if message.jsonrpc.as_deref() != Some("2.0") {
            // Not JSON-RPC 2.0: nothing passes on. A request is told so;
            // anything else has no one to tell.
            return match message.id {
                Some(id) if message.method.is_some() => vec![Out::App(error_line(
                    id.get(),
                    -32600,
                    "Invalid Request: \"jsonrpc\" must be \"2.0\"",
                ))],
                _ => vec![Out::Note(format!(
                    "the app wrote a message that is not JSON-RPC 2.0; dropped: {}",
                    excerpt(line)
                ))],
            };
        }
        match (&message.method, message.id) {
            (Some(method), Some(id)) => self.app_request(method, id, message.params, now),
            (Some(method), None) => self.app_notification(method, message.params, line, now),
            (None, Some(id)) => self.app_response(id, message.result, message.error),
            (None, None) => vec![Out::App(error_line(
                "null",
                -32600,
                "Invalid Request: neither a method nor an id",
            ))],
        }
    }

    fn app_request(
        &mut self,
        method: &str,
        id: &RawValue,
        params: Option<&RawValue>,
        now: Instant,
    ) -> Vec<Out> {
        let id_text = id.get();
        match (&self.init, method) {
            (Init::Waiting, "initialize") => {
                let params = params
                    .and_then(|p| serde_json::from_str::<Map<String, Value>>(p.get()).ok())
                    .unwrap_or_default();
                self.app = app_info(&params);
                self.init = Init::Received {
                    app_id: Some(id_text.into()),
                    params,
                };
                return vec![Out::AppInitialized];
            }
            (Init::Waiting, "ping") => return vec![Out::App(result_line(id_text, "{}"))],
            (Init::Waiting, _) => {
                return vec![Out::App(error_line(
                    id_text,
                    -32600,
                    "the connection is not initialized yet: send initialize first",
                ))];
            }
            (Init::Received { .. }, "initialize") => {
                return vec![Out::App(error_line(
                    id_text,
                    -32600,
                    "initialize was already received on this connection",
                ))];
            }
            _ => {}
        }
        if self.app_ids.contains_key(id_text) {
            return vec![Out::App(error_line(
                id_text,
                -32600,
                "a request with this id is still in flight; use a new id",
            ))];
        }
        if self.app_ids.len() >= MAX_IN_FLIGHT {
            return vec![Out::App(error_line(
                id_text,
                -32000,
                &format!(
                    "too many requests in flight ({MAX_IN_FLIGHT}); wait for some to be answered"
                ),
            ))];
        }
        self.remember_for_replay(method, params);
        let ours = self.next_server_id;
        self.next_server_id += 1;
        self.to_server.insert(
            ours,
            ToServer::App {
                app_id: id_text.into(),
                method: method.to_owned(),
                target: target_of(method, params),
                started: now,
            },
        );
        self.app_ids.insert(id_text.into(), ours);
        vec![Out::Server(request_line(&ours.to_string(), method, params))]
    }

    /// Keeps what a restarted server must be told again.
    fn remember_for_replay(&mut self, method: &str, params: Option<&RawValue>) {
        let uri = || {
            params
                .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                .and_then(|v| v.get("uri").and_then(Value::as_str).map(str::to_owned))
        };
        match method {
            "logging/setLevel" => self.log_level = params.map(|p| p.to_owned()),
            "resources/subscribe" => {
                if let Some(uri) = uri() {
                    self.subscriptions.insert(uri);
                }
            }
            "resources/unsubscribe" => {
                if let Some(uri) = uri() {
                    self.subscriptions.remove(&uri);
                }
            }
            _ => {}
        }
    }

    fn app_notification(
        &mut self,
        method: &str,
        params: Option<&RawValue>,
        line: &[u8],
        now: Instant,
    ) -> Vec<Out> {
        match method {
            // The app's own roots are never the server's: they are asked for,
            // as suggestions, when the app says they changed.
            "notifications/roots/list_changed" => self.ask_app_roots().into_iter().collect(),
            // Only the bridge initializes the server, with Rootgate's roots;
            // an `initialize` without an id is no request, and must not
            // reach a server that might take its capabilities anyway.
            "initialize" => vec![Out::Note(
                "the app sent initialize as a notification; dropped".into(),
            )],
            "notifications/initialized" => {
                let mut out = vec![Out::Server(with_newline(line))];
                // Now the app may be asked what it works in.
                out.extend(self.ask_app_roots());
                out
            }
            "notifications/cancelled" => {
                let Some((mut params, request)) = cancelled_request(params) else {
                    return vec![Out::Note(
                        "a cancellation without a requestId was dropped".into(),
                    )];
                };
                let Some(ours) = self.app_ids.remove(request.as_str()) else {
                    return vec![Out::Note(format!(
                        "a cancellation of request {request}, which is not in flight, was dropped"
                    ))];
                };
                let mut out = Vec::new();
                if let Some(ToServer::App {
                    method,
                    target,
                    started,
                    ..
                }) = self.to_server.remove(&ours)
                {
                    out.push(Out::Call(Call {
                        method,
                        target,
                        duration: now.saturating_duration_since(started),
                        outcome: "cancelled".into(),
                    }));
                }
                params.insert("requestId".into(), json!(ours));
                out.insert(
                    0,
                    Out::Server(notification_line(
                        "notifications/cancelled",
                        &Value::Object(params),
                    )),
                );
                out
            }
            _ => vec![Out::Server(with_newline(line))],
        }
    }

    /// A `roots/list` of the bridge's own to the app, if it has roots.
    fn ask_app_roots(&mut self) -> Option<Out> {
        if !self.app.capabilities.roots {
            return None;
        }
        let ours = self.next_app_id;
        self.next_app_id += 1;
        self.to_app.insert(ours, ToApp::Roots);
        Some(Out::App(request_line(
            &ours.to_string(),
            "roots/list",
            None,
        )))
    }

    fn app_response(
        &mut self,
        id: &RawValue,
        result: Option<&RawValue>,
        error: Option<&RawValue>,
    ) -> Vec<Out> {
        let Some(ours) = id.get().parse::<u64>().ok() else {
            return vec![Out::Note(format!(
                "the app answered request {}, which was never sent to it; dropped",
                id.get()
            ))];
        };
        match self.to_app.remove(&ours) {
            Some(ToApp::Server { server_id }) => {
                self.server_ids.remove(&server_id);
                vec![Out::Server(response_line(&server_id, result, error))]
            }
            Some(ToApp::Roots) => {
                let uris = result
                    .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                    .and_then(|r| r.get("roots").and_then(Value::as_array).cloned())
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|r| r.get("uri").and_then(Value::as_str).map(str::to_owned))
                    .collect();
                vec![Out::AppRoots(uris)]
            }
            None => vec![Out::Note(format!(
                "the app answered request {ours}, which was never sent to it; dropped"
            ))],
        }
    }

    /// The `initialize` to send the server: the app's, with roots declared
    /// as Rootgate's (`listChanged: true`) and the app's own id kept aside,
    /// or, after a restart, the same as a request of the bridge's own.
    /// `None` until the app's `initialize` arrived.
    pub fn initialize_for_server(&mut self) -> Option<Vec<u8>> {
        let Init::Received { app_id, params } = &mut self.init else {
            return None;
        };
        let mut params = params.clone();
        let capabilities = params
            .entry("capabilities")
            .or_insert_with(|| Value::Object(Map::new()));
        if !capabilities.is_object() {
            *capabilities = Value::Object(Map::new());
        }
        if let Value::Object(caps) = capabilities {
            caps.insert("roots".into(), json!({"listChanged": true}));
        }
        let purpose = match app_id.take() {
            Some(app_id) => ToServer::FirstInitialize { app_id },
            None => ToServer::ReplayInitialize,
        };
        let ours = self.next_server_id;
        self.next_server_id += 1;
        self.to_server.insert(ours, purpose);
        let params = Value::Object(params).to_string();
        let raw = RawValue::from_string(params).ok()?;
        Some(request_line(&ours.to_string(), "initialize", Some(&raw)))
    }

    /// What a restarted server is told after its `initialize`: that the
    /// client is initialized, the logging level, and the subscriptions.
    pub fn replay(&mut self) -> Vec<Vec<u8>> {
        let mut lines = vec![notification_line("notifications/initialized", &Value::Null)];
        if let Some(level) = self.log_level.clone() {
            lines.push(self.own_request("logging/setLevel", Some(&level)));
        }
        for uri in self.subscriptions.clone() {
            let params = json!({"uri": uri}).to_string();
            if let Ok(raw) = RawValue::from_string(params) {
                lines.push(self.own_request("resources/subscribe", Some(&raw)));
            }
        }
        lines
    }

    fn own_request(&mut self, method: &str, params: Option<&RawValue>) -> Vec<u8> {
        let ours = self.next_server_id;
        self.next_server_id += 1;
        self.to_server.insert(ours, ToServer::Own);
        request_line(&ours.to_string(), method, params)
    }

    /// What to do with one line the server wrote (without its newline).
    /// A `roots/list` is handed back as [`Out::RootsList`], for the wire to
    /// answer.
    pub fn from_server(&mut self, line: &[u8], now: Instant) -> Vec<Out> {
        if std::str::from_utf8(line).is_err() {
            return vec![Out::Note(
                "the server wrote a line that is not UTF-8; dropped".into(),
            )];
        }
        let message: Message = match serde_json::from_slice(line) {
            Ok(m) => m,
            Err(e) => {
                return vec![Out::Note(format!(
                    "the server wrote a line that is not JSON ({e}); dropped"
                ))];
            }
        };
        if message.jsonrpc.as_deref() != Some("2.0") {
            return vec![Out::Note(format!(
                "the server wrote a message that is not JSON-RPC 2.0; dropped: {}",
                excerpt(line)
            ))];
        }
        match (&message.method, message.id) {
            (Some(method), Some(id)) => self.server_request(method, id, message.params),
            (Some(method), None) => self.server_notification(method, message.params, line),
            (None, Some(id)) => self.server_response(id, message.result, message.error, now),
            (None, None) => vec![Out::Note(format!(
                "the server wrote a message with neither a method nor an id; dropped: {}",
                excerpt(line)
            ))],
        }
    }

    fn server_request(
        &mut self,
        method: &str,
        id: &RawValue,
        params: Option<&RawValue>,
    ) -> Vec<Out> {
        let id_text = id.get();
        let declared = match method {
            "roots/list" => return vec![Out::RootsList(id_text.into())],
            "ping" => return vec![Out::Server(result_line(id_text, "{}"))],
            "sampling/createMessage" => self.app.capabilities.sampling,
            "elicitation/create" => self.app.capabilities.elicitation,
            _ => true,
        };
        if !declared {
            return vec![
                Out::Server(error_line(
                    id_text,
                    -32601,
                    &format!("Method not found: {method} (the client did not declare it)"),
                )),
                Out::Refused(method.to_owned()),
            ];
        }
        if self.server_ids.contains_key(id_text) {
            return vec![Out::Server(error_line(
                id_text,
                -32600,
                "a request with this id is still in flight; use a new id",
            ))];
        }
        let ours = self.next_app_id;
        self.next_app_id += 1;
        self.to_app.insert(
            ours,
            ToApp::Server {
                server_id: id_text.into(),
            },
        );
        self.server_ids.insert(id_text.into(), ours);
        vec![Out::App(request_line(&ours.to_string(), method, params))]
    }

    fn server_notification(
        &mut self,
        method: &str,
        params: Option<&RawValue>,
        line: &[u8],
    ) -> Vec<Out> {
        if method != "notifications/cancelled" {
            return vec![Out::App(with_newline(line))];
        }
        let Some((mut params, request)) = cancelled_request(params) else {
            return vec![Out::Note(
                "a cancellation without a requestId was dropped".into(),
            )];
        };
        let Some(ours) = self.server_ids.remove(request.as_str()) else {
            return vec![Out::Note(format!(
                "the server cancelled request {request}, which the app was not asked; dropped"
            ))];
        };
        self.to_app.remove(&ours);
        params.insert("requestId".into(), json!(ours));
        vec![Out::App(notification_line(
            "notifications/cancelled",
            &Value::Object(params),
        ))]
    }

    fn server_response(
        &mut self,
        id: &RawValue,
        result: Option<&RawValue>,
        error: Option<&RawValue>,
        now: Instant,
    ) -> Vec<Out> {
        let Some(ours) = id.get().parse::<u64>().ok() else {
            return vec![Out::Note(format!(
                "the server answered request {}, which was never sent to it; dropped",
                id.get()
            ))];
        };
        match self.to_server.remove(&ours) {
            Some(ToServer::App {
                app_id,
                method,
                target,
                started,
            }) => {
                self.app_ids.remove(&app_id);
                vec![
                    Out::App(response_line(&app_id, result, error)),
                    Out::Call(Call {
                        method,
                        target,
                        duration: now.saturating_duration_since(started),
                        outcome: outcome(error),
                    }),
                ]
            }
            Some(ToServer::FirstInitialize { app_id }) => {
                let parsed = initialize_outcome(result, error);
                vec![
                    Out::App(response_line(&app_id, result, error)),
                    Out::ServerInitialized(parsed),
                ]
            }
            Some(ToServer::ReplayInitialize) => {
                vec![Out::ServerInitialized(initialize_outcome(result, error))]
            }
            Some(ToServer::Own) => Vec::new(),
            None => vec![Out::Note(format!(
                "the server answered request {ours}, which was never sent to it; dropped"
            ))],
        }
    }

    /// The server is gone: every app request waiting for it gets an error
    /// now (none would be answered), and requests it had passed on to the
    /// app are forgotten.
    pub fn server_gone(&mut self, why: &str, now: Instant) -> Vec<Out> {
        let mut out = Vec::new();
        let mut waiting: Vec<(u64, ToServer)> = self.to_server.drain().collect();
        waiting.sort_by_key(|(ours, _)| *ours);
        for (_, pending) in waiting {
            match pending {
                ToServer::App {
                    app_id,
                    method,
                    target,
                    started,
                } => {
                    out.push(Out::App(error_line(&app_id, -32603, why)));
                    out.push(Out::Call(Call {
                        method,
                        target,
                        duration: now.saturating_duration_since(started),
                        outcome: format!("error -32603: {why}"),
                    }));
                }
                ToServer::FirstInitialize { app_id } => {
                    out.push(Out::App(error_line(&app_id, -32603, why)));
                }
                ToServer::ReplayInitialize | ToServer::Own => {}
            }
        }
        self.app_ids.clear();
        self.to_app
            .retain(|_, pending| matches!(pending, ToApp::Roots));
        self.server_ids.clear();
        out
    }

    /// An error answer to the app's `initialize`, when the server cannot
    /// be reached at all (unknown, not approved, failed to start). `None`
    /// while the app's `initialize` has not arrived; `Some(None)` when it
    /// was passed on already (its answer, or the error of a server gone,
    /// reached the app).
    pub fn refuse_initialize(&mut self, code: i64, why: &str) -> Option<Option<Vec<u8>>> {
        match &mut self.init {
            Init::Received { app_id, .. } => {
                Some(app_id.take().map(|id| error_line(&id, code, why)))
            }
            Init::Waiting => None,
        }
    }
}

/// A line as it came, with the newline it was read without.
fn with_newline(line: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len() + 1);
    out.extend_from_slice(line);
    out.push(b'\n');
    out
}

/// The start of a line, for a note about it.
fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
    if line.len() > 200 {
        format!("{text}…")
    } else {
        text
    }
}

/// What the app's `initialize` says about it.
fn app_info(params: &Map<String, Value>) -> AppInfo {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_owned();
    let client = params.get("clientInfo");
    let caps = params.get("capabilities");
    let has = |name: &str| caps.and_then(|c| c.get(name)).is_some_and(|v| !v.is_null());
    AppInfo {
        name: text(client.and_then(|c| c.get("name"))),
        version: text(client.and_then(|c| c.get("version"))),
        protocol_version: text(params.get("protocolVersion")),
        capabilities: AppCapabilities {
            roots: has("roots"),
            sampling: has("sampling"),
            elicitation: has("elicitation"),
        },
    }
}

/// The tool, prompt or resource a request names, for the timeline.
fn target_of(method: &str, params: Option<&RawValue>) -> Option<String> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    let params: Value = serde_json::from_str(params?.get()).ok()?;
    params.get(key)?.as_str().map(str::to_owned)
}

fn outcome(error: Option<&RawValue>) -> String {
    let Some(error) = error else {
        return "ok".into();
    };
    let error: Value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    format!("error {code}: {message}")
}

fn initialize_outcome(
    result: Option<&RawValue>,
    error: Option<&RawValue>,
) -> Result<Value, String> {
    match (result, error) {
        (Some(result), None) => serde_json::from_str(result.get()).map_err(|e| e.to_string()),
        (_, Some(error)) => Err(outcome(Some(error))),
        (None, None) => Err("the answer holds neither a result nor an error".into()),
    }
}

/// The params of a `notifications/cancelled` and the request id it names,
/// as JSON text.
fn cancelled_request(params: Option<&RawValue>) -> Option<(Map<String, Value>, String)> {
    let params: Map<String, Value> = serde_json::from_str(params?.get()).ok()?;
    let request = params.get("requestId")?.to_string();
    Some((params, request))
}

fn request_line(id: &str, method: &str, params: Option<&RawValue>) -> Vec<u8> {
    let method = Value::String(method.to_owned()).to_string();
    let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{method}"#).into_bytes();
    if let Some(params) = params {
        line.extend_from_slice(br#","params":"#);
        line.extend_from_slice(params.get().as_bytes());
    }
    line.extend_from_slice(b"}\n");
    line
}

fn notification_line(method: &str, params: &Value) -> Vec<u8> {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if !params.is_null() {
        message["params"] = params.clone();
    }
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

fn response_line(id: &str, result: Option<&RawValue>, error: Option<&RawValue>) -> Vec<u8> {
    let mut line = format!(r#"{{"jsonrpc":"2.0","id":{id},"#).into_bytes();
    match (result, error) {
        (_, Some(error)) => {
            line.extend_from_slice(br#""error":"#);
            line.extend_from_slice(error.get().as_bytes());
        }
        (Some(result), None) => {
            line.extend_from_slice(br#""result":"#);
            line.extend_from_slice(result.get().as_bytes());
        }
        // A response with neither is malformed; passing on an empty result
        // keeps the other side from waiting forever.
        (None, None) => line.extend_from_slice(br#""result":{}"#),
    }
    line.extend_from_slice(b"}\n");
    line
}

fn result_line(id: &str, result: &str) -> Vec<u8> {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}\n").into_bytes()
}

fn error_line(id: &str, code: i64, message: &str) -> Vec<u8> {
    let message = Value::String(message.to_owned()).to_string();
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":{code},\"message\":{message}}}}}\n"
    )
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(out: &Out) -> String {
        match out {
            Out::Server(line) | Out::App(line) => {
                String::from_utf8_lossy(line).trim_end().to_owned()
            }
            other => format!("{other:?}"),
        }
    }

    fn json_of(out: &Out) -> Value {
        match out {
            Out::Server(line) | Out::App(line) => serde_json::from_slice(line).unwrap(),
            other => panic!("not a line: {other:?}"),
        }
    }

    fn initialized(router: &mut Router, capabilities: Value) {
        let now = Instant::now();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": {"name": "app", "version": "9"}}});
        assert_eq!(
            router.from_app(init.to_string().as_bytes(), now),
            vec![Out::AppInitialized]
        );
        let sent = router.initialize_for_server().unwrap();
        let sent: Value = serde_json::from_slice(&sent).unwrap();
        let answer = json!({"jsonrpc": "2.0", "id": sent["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
        let outs = router.from_server(answer.to_string().as_bytes(), now);
        assert_eq!(json_of(&outs[0])["id"], 0, "the app's own id: {outs:?}");
        assert!(matches!(outs[1], Out::ServerInitialized(Ok(_))));
    }

    #[test]
    fn a_request_crosses_with_an_id_of_the_bridge_and_its_answer_comes_back_with_the_apps() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        let outs = router.from_app(
            br#"{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"grep","arguments":{"q":1}}}"#,
            now,
        );
        let sent = json_of(&outs[0]);
        assert!(matches!(outs[0], Out::Server(_)));
        assert_ne!(sent["id"], "abc");
        assert_eq!(sent["params"]["arguments"]["q"], 1);
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"content":[]}}}}"#,
            sent["id"]
        );
        let outs = router.from_server(answer.as_bytes(), now + Duration::from_millis(7));
        assert_eq!(
            text(&outs[0]),
            r#"{"jsonrpc":"2.0","id":"abc","result":{"content":[]}}"#
        );
        let Out::Call(call) = &outs[1] else {
            panic!("{outs:?}")
        };
        assert_eq!(
            (call.method.as_str(), call.target.as_deref()),
            ("tools/call", Some("grep"))
        );
        assert_eq!(call.duration, Duration::from_millis(7));
        assert_eq!(call.outcome, "ok");
        assert_eq!(router.in_flight(), 0);
    }

    #[test]
    fn the_apps_initialize_goes_on_with_rootgates_roots_and_its_own_kept_from_the_server() {
        let mut router = Router::new();
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":false},"sampling":{}},"clientInfo":{"name":"Claude Code","version":"2.1"}}}"#;
        assert_eq!(
            router.from_app(init, Instant::now()),
            vec![Out::AppInitialized]
        );
        let app = router.app().unwrap();
        assert_eq!(
            (app.name.as_str(), app.version.as_str()),
            ("Claude Code", "2.1")
        );
        assert!(
            app.capabilities.roots && app.capabilities.sampling && !app.capabilities.elicitation
        );
        let sent: Value = serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
        assert_eq!(sent["method"], "initialize");
        assert_eq!(
            sent["params"]["capabilities"]["roots"],
            json!({"listChanged": true})
        );
        assert_eq!(sent["params"]["capabilities"]["sampling"], json!({}));
        assert_eq!(sent["params"]["protocolVersion"], "2025-06-18");
        // Claude Desktop declares no capabilities at all: roots are still Rootgate's.
        let mut router = Router::new();
        router.from_app(
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
            Instant::now(),
        );
        let sent: Value = serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
        assert_eq!(
            sent["params"]["capabilities"]["roots"],
            json!({"listChanged": true})
        );
    }

    #[test]
    fn notifications_pass_unchanged_as_whole_lines() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let progress = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#;
        assert_eq!(
            router.from_server(progress, Instant::now()),
            vec![Out::App([progress.as_slice(), b"\n"].concat())]
        );
        let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert_eq!(
            router.from_app(initialized, Instant::now())[0],
            Out::Server([initialized.as_slice(), b"\n"].concat())
        );
    }

    #[test]
    fn the_servers_roots_list_never_reaches_the_app() {
        let mut router = Router::new();
        initialized(&mut router, json!({"roots": {"listChanged": true}}));
        let outs = router.from_server(
            br#"{"jsonrpc":"2.0","id":0,"method":"roots/list"}"#,
            Instant::now(),
        );
        assert_eq!(outs, vec![Out::RootsList("0".into())]);
    }

    #[test]
    fn an_app_cannot_answer_a_request_it_was_never_sent() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        // The server's roots/list has id 0; an app that answers "id 0" with
        // roots of its own reaches nobody.
        for forged in [
            br#"{"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///"}]}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":"0","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":99,"error":{"code":1,"message":"x"}}"#,
        ] {
            let outs = router.from_app(forged, Instant::now());
            assert!(outs.iter().all(|o| matches!(o, Out::Note(_))), "{outs:?}");
        }
    }

    #[test]
    fn the_apps_roots_become_suggestions_and_its_list_changed_stays_with_the_bridge() {
        let mut router = Router::new();
        initialized(&mut router, json!({"roots": {"listChanged": true}}));
        let outs = router.from_app(
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            Instant::now(),
        );
        assert!(matches!(outs[0], Out::Server(_)));
        let ask = json_of(&outs[1]);
        assert_eq!(ask["method"], "roots/list");
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"roots":[{{"uri":"file:///home/me/app","name":"app"}}]}}}}"#,
            ask["id"]
        );
        assert_eq!(
            router.from_app(answer.as_bytes(), Instant::now()),
            vec![Out::AppRoots(vec!["file:///home/me/app".into()])]
        );
        let outs = router.from_app(
            br#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#,
            Instant::now(),
        );
        assert_eq!(outs.len(), 1);
        assert_eq!(
            json_of(&outs[0])["method"],
            "roots/list",
            "asked again, not passed on"
        );
    }

    #[test]
    fn sampling_goes_to_the_app_only_when_it_declared_it() {
        let mut router = Router::new();
        initialized(&mut router, json!({"sampling": {}}));
        let outs = router.from_server(
            br#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"maxTokens":5}}"#,
            Instant::now(),
        );
        let asked = json_of(&outs[0]);
        assert!(matches!(outs[0], Out::App(_)));
        assert_eq!(asked["params"]["maxTokens"], 5);
        let answer = format!(
            r#"{{"jsonrpc":"2.0","id":{},"result":{{"role":"assistant"}}}}"#,
            asked["id"]
        );
        let outs = router.from_app(answer.as_bytes(), Instant::now());
        assert_eq!(
            text(&outs[0]),
            r#"{"jsonrpc":"2.0","id":7,"result":{"role":"assistant"}}"#
        );
        // Elicitation was not declared: the server gets "method not found".
        let outs = router.from_server(
            br#"{"jsonrpc":"2.0","id":8,"method":"elicitation/create","params":{}}"#,
            Instant::now(),
        );
        assert!(matches!(&outs[0], Out::Server(_)));
        assert_eq!(json_of(&outs[0])["error"]["code"], -32601);
        assert_eq!(outs[1], Out::Refused("elicitation/create".into()));
    }

    #[test]
    fn cancellation_is_passed_on_with_the_bridges_id_and_ends_the_call() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        let sent = json_of(
            &router.from_app(
                br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow"}}"#,
                now,
            )[0],
        );
        let outs = router.from_app(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user"}}"#,
            now,
        );
        let cancel = json_of(&outs[0]);
        assert_eq!(cancel["params"]["requestId"], sent["id"]);
        assert_eq!(cancel["params"]["reason"], "user");
        assert!(matches!(&outs[1], Out::Call(c) if c.outcome == "cancelled"));
        // A late answer is dropped, and the id may be used again.
        let late = format!(r#"{{"jsonrpc":"2.0","id":{},"result":{{}}}}"#, sent["id"]);
        assert!(matches!(
            router.from_server(late.as_bytes(), now)[0],
            Out::Note(_)
        ));
        assert!(matches!(
            router.from_app(br#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#, now)[0],
            Out::Server(_)
        ));
    }

    #[test]
    fn garbage_and_misuse_get_errors_and_cost_nothing() {
        let mut router = Router::new();
        let now = Instant::now();
        for (line, code) in [
            (b"not json".as_slice(), -32700),
            (b"\xff\xfe{}", -32700),
            (br#"{"jsonrpc":"2.0"}"#, -32600),
            (br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, -32600),
        ] {
            let outs = router.from_app(line, now);
            assert_eq!(
                json_of(&outs[0])["error"]["code"],
                code,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(
            json_of(&router.from_app(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, now)[0])["result"],
            json!({})
        );
        initialized(&mut router, json!({}));
        let again = router.from_app(
            br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}"#,
            now,
        );
        assert_eq!(json_of(&again[0])["error"]["code"], -32600);
        // The same id twice while the first is in flight.
        router.from_app(br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#, now);
        let twice = router.from_app(br#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#, now);
        assert_eq!(json_of(&twice[0])["error"]["code"], -32600);
        assert_eq!(router.in_flight(), 1);
    }

    #[test]
    fn only_json_rpc_2_0_passes_either_way() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        let request = router.from_app(br#"{"jsonrpc":"1.0","id":4,"method":"tools/list"}"#, now);
        assert_eq!(json_of(&request[0])["error"]["code"], -32600);
        assert_eq!(json_of(&request[0])["id"], 4);
        let sneaky = br#"{"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{}}}"#;
        assert!(matches!(router.from_app(sneaky, now)[..], [Out::Note(_)]));
        for line in [
            br#"{"jnporsc":"2.0","method":"notifications/cancelled"}"#.as_slice(),
            br#"{"method":"notifications/initialized"}"#,
        ] {
            assert!(matches!(router.from_app(line, now)[..], [Out::Note(_)]));
            assert!(matches!(router.from_server(line, now)[..], [Out::Note(_)]));
        }
    }

    #[test]
    fn a_line_that_is_not_utf_8_never_passes_on() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        // serde skips the unknown field without looking at its bytes.
        let line = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"junk\":\"\xf2\xf2\"}";
        assert!(matches!(router.from_server(line, now)[..], [Out::Note(_)]));
        assert_eq!(
            json_of(&router.from_app(line, now)[0])["error"]["code"],
            -32700
        );
    }

    #[test]
    fn a_flood_of_requests_is_bounded() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        for i in 0..MAX_IN_FLIGHT {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/list"}}"#);
            assert!(matches!(
                router.from_app(line.as_bytes(), now)[0],
                Out::Server(_)
            ));
        }
        let over = router.from_app(
            br#"{"jsonrpc":"2.0","id":"over","method":"tools/list"}"#,
            now,
        );
        assert_eq!(json_of(&over[0])["error"]["code"], -32000);
        assert_eq!(router.in_flight(), MAX_IN_FLIGHT);
    }

    #[test]
    fn when_the_server_goes_every_waiting_request_gets_an_error_and_a_restart_is_replayed() {
        let mut router = Router::new();
        initialized(&mut router, json!({}));
        let now = Instant::now();
        router.from_app(
            br#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}"#,
            now,
        );
        router.from_app(br#"{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"file:///a"}}"#, now);
        router.from_app(
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}}"#,
            now,
        );
        let outs = router.server_gone("restarted", now);
        let errors: Vec<Value> = outs
            .iter()
            .filter(|o| matches!(o, Out::App(_)))
            .map(json_of)
            .collect();
        assert_eq!(
            errors.iter().map(|e| e["id"].clone()).collect::<Vec<_>>(),
            [json!(1), json!(2), json!(3)]
        );
        assert!(errors.iter().all(|e| e["error"]["message"] == "restarted"));
        assert_eq!(router.in_flight(), 0);
        // The next life gets the app's initialize again, as the bridge's own.
        let init: Value = serde_json::from_slice(&router.initialize_for_server().unwrap()).unwrap();
        let answer = json!({"jsonrpc": "2.0", "id": init["id"], "result": {"protocolVersion": "2025-11-25"}});
        let outs = router.from_server(answer.to_string().as_bytes(), now);
        assert_eq!(outs.len(), 1, "nothing for the app: {outs:?}");
        let replay: Vec<Value> = router
            .replay()
            .iter()
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        let methods: Vec<&str> = replay
            .iter()
            .map(|m| m["method"].as_str().unwrap())
            .collect();
        assert_eq!(
            methods,
            [
                "notifications/initialized",
                "logging/setLevel",
                "resources/subscribe"
            ]
        );
        assert_eq!(replay[2]["params"]["uri"], "file:///a");
    }
}
