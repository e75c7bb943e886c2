//! The example server's protocol state machine: one connection's state
//! ([`Server`]) and [`Server::handle`], which turns one input line into the
//! messages it causes and queues its side effects (stderr lines, report
//! lines) as [`Effect`]s for the loop to carry out, so unit tests drive it
//! without a process or a pipe. It answers `initialize` (in any of the
//! dated versions it knows), asks for `roots/list` when the client says
//! the list changed, and offers the `list_roots` and `ask_roots` tools.
//!
//! Not here: reading stdin, writing stdout and the report file, and the
//! threads (`run`); what a misbehaviour does to the output (`misbehave`,
//! which this only tells which protocol step a line completed, `Seen`).

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value, json};

use crate::cli::Config;
use crate::misbehave::{self, Seen};

/// The protocol version we answer with when the client asks for one we do not
/// know; the MCP lifecycle says the server then proposes its own latest version.
const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";

/// Every dated protocol version whose messages this server handles correctly.
/// The roots and tools messages we use have not changed shape across them;
/// older clients simply ignore `structuredContent` in tool results.
const SUPPORTED_PROTOCOL_VERSIONS: [&str; 4] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    LATEST_PROTOCOL_VERSION,
];

const INSTRUCTIONS: &str = "This server only reports the roots (folders) the client shares with it; \
it never reads or writes files. Call list_roots to see the roots it last received, \
or ask_roots to make it request a fresh list from the client.";

// Standard JSON-RPC 2.0 error codes; MCP uses them unchanged.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// The id prefix of the `roots/list` requests `--ask-every-ms` sends.
pub(crate) const POLL_ID_PREFIX: &str = "poll-";

/// One root as the client described it. Only `uri` and `name` are kept because
/// those are the only fields MCP defines for a root.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Root {
    uri: String,
    name: Option<String>,
}

impl Root {
    /// Serializes the root in MCP's own shape, which leaves `name` out rather
    /// than setting it to null when the client gave none.
    fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("uri".to_owned(), Value::String(self.uri.clone()));
        if let Some(name) = &self.name {
            object.insert("name".to_owned(), Value::String(name.clone()));
        }
        Value::Object(object)
    }
}

/// A side effect that handling a line asked for, apart from protocol output.
///
/// These are queued instead of performed so that [`Server::handle`] stays free
/// of I/O and tests can assert on them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Effect {
    /// A line for stderr, without the prefix.
    Diagnostic(String),
    /// A line for the report file; written only when `--report` was given.
    Report(Value),
}

/// The answers to a `roots-flood`, counted rather than reported one by one.
#[derive(Debug, Default)]
struct Flood {
    target: u64,
    answered: u64,
    errors: u64,
    /// Every distinct list the client answered with, as JSON text.
    lists: BTreeSet<String>,
}

/// The protocol state of one connection.
pub(crate) struct Server {
    name: String,
    roots_on_init: bool,
    ignore_list_changed: bool,
    /// Whether the client declared `capabilities.roots` in `initialize`.
    pub(crate) client_has_roots: bool,
    /// The id of the next request we send to the client.
    next_request_id: u64,
    /// Every `roots/list` we sent that the client has not answered yet, mapped
    /// to the id of the `tools/call` (an `ask_roots` call) that waits for it,
    /// or to `None` when nobody waits.
    outstanding: HashMap<u64, Option<Value>>,
    /// The roots from the last well-formed answer.
    roots: Vec<Root>,
    /// How many well-formed roots answers arrived, so tests can tell a fresh
    /// answer from an old one even when the roots themselves did not change.
    answers: u64,
    effects: Vec<Effect>,
    /// The protocol step the last input line completed, if any.
    seen: Option<Seen>,
    /// Whether answers to requests we did not make through
    /// [`Server::roots_list_request`] are reported (for misbehaviours that
    /// send made-up requests and must show what came back).
    report_replies: bool,
    /// The answers to a `roots-flood`, when one was asked for.
    flood: Option<Flood>,
}

impl Server {
    pub(crate) fn new(config: &Config) -> Self {
        Server {
            name: config.name.clone(),
            roots_on_init: config.roots_on_init,
            ignore_list_changed: config.ignore_list_changed,
            client_has_roots: false,
            next_request_id: 0,
            outstanding: HashMap::new(),
            roots: Vec::new(),
            answers: 0,
            effects: Vec::new(),
            seen: None,
            report_replies: config
                .misbehave
                .is_some_and(misbehave::Kind::reports_replies),
            flood: (config.misbehave == Some(misbehave::Kind::RootsFlood)).then(|| Flood {
                target: config.flood_requests,
                ..Flood::default()
            }),
        }
    }

    /// The protocol step the last handled line completed, if any.
    pub(crate) fn take_seen(&mut self) -> Option<Seen> {
        self.seen.take()
    }

    /// Handles one input line and returns the messages to send, in order.
    ///
    /// The line may still carry its trailing newline. Side effects are queued
    /// and must be collected with [`Server::take_effects`].
    pub(crate) fn handle(&mut self, line: &[u8]) -> Vec<Value> {
        self.seen = None;
        // Blank lines carry no message; answering them with parse errors would
        // only confuse a client that pads its output.
        if line.iter().all(u8::is_ascii_whitespace) {
            return Vec::new();
        }
        // `from_slice` rejects invalid UTF-8 as well as invalid JSON, which is
        // exactly the set of lines that deserve a parse error.
        let message: Value = match serde_json::from_slice(line) {
            Ok(message) => message,
            Err(err) => {
                self.diagnose(format!("cannot parse an input line as JSON: {err}"));
                return vec![error_response(
                    Value::Null,
                    PARSE_ERROR,
                    format!("Parse error: {err}"),
                )];
            }
        };
        let mut out = Vec::new();
        self.dispatch(message, &mut out);
        out
    }

    /// Hands over the side effects queued since the last call.
    pub(crate) fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    fn diagnose(&mut self, line: String) {
        self.effects.push(Effect::Diagnostic(line));
    }

    /// Sorts a parsed message into request, notification or response.
    fn dispatch(&mut self, message: Value, out: &mut Vec<Value>) {
        let Value::Object(mut object) = message else {
            // MCP removed JSON-RPC batches in 2025-06-18 and no client we test
            // against sends them, so an array is as invalid as a bare string.
            out.push(error_response(
                Value::Null,
                INVALID_REQUEST,
                "Invalid Request: expected a JSON-RPC message object".to_owned(),
            ));
            return;
        };
        let id = object.remove("id");
        // JSON-RPC only allows strings and numbers as ids (and MCP rules out
        // null), so any other id cannot be echoed back as if it were valid.
        let usable_id = id.clone().filter(|id| id.is_string() || id.is_number());
        let version_ok = object.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
        let params = object.remove("params").unwrap_or(Value::Null);

        match object.remove("method") {
            Some(Value::String(method)) if version_ok => match (id, usable_id) {
                (None, _) => self.notification(&method, &params, out),
                (Some(_), Some(id)) => self.request(id, &method, &params, out),
                (Some(_), None) => out.push(error_response(
                    Value::Null,
                    INVALID_REQUEST,
                    "Invalid Request: id must be a string or a number".to_owned(),
                )),
            },
            None if object.contains_key("result") || object.contains_key("error") => {
                self.response(id.as_ref(), &object, out);
            }
            _ => {
                // A notification cannot be answered, so a broken one is only
                // logged; anything that looks like a request gets an error.
                if id.is_some() {
                    out.push(error_response(
                        usable_id.unwrap_or(Value::Null),
                        INVALID_REQUEST,
                        "Invalid Request: expected jsonrpc \"2.0\" and a string method".to_owned(),
                    ));
                } else {
                    self.diagnose("ignoring a message that is not valid JSON-RPC 2.0".to_owned());
                }
            }
        }
    }

    fn request(&mut self, id: Value, method: &str, params: &Value, out: &mut Vec<Value>) {
        match method {
            "initialize" => {
                let result = self.initialize(params);
                out.push(result_response(id, result));
                self.seen = Some(Seen::Initialize);
            }
            "ping" => out.push(result_response(id, json!({}))),
            "tools/list" => out.push(result_response(id, tools_list())),
            "tools/call" => self.tools_call(id, params, out),
            _ => out.push(error_response(
                id,
                METHOD_NOT_FOUND,
                format!("Method not found: {method}"),
            )),
        }
    }

    fn notification(&mut self, method: &str, params: &Value, out: &mut Vec<Value>) {
        self.seen = match method {
            "notifications/initialized" => Some(Seen::Initialized),
            "notifications/roots/list_changed" => Some(Seen::ListChanged),
            _ => None,
        };
        match method {
            // Asking is only allowed once the client declared roots, and
            // `--no-roots-on-init` lets tests see what happens when we wait.
            "notifications/initialized" if self.client_has_roots && self.roots_on_init => {
                out.push(self.roots_list_request(None));
            }
            "notifications/roots/list_changed" if self.ignore_list_changed => {
                self.diagnose("told the roots changed; not asking (--ignore-list-changed)".into());
            }
            // The client only sends this if it supports roots, so there is no
            // need to check the declared capability first.
            "notifications/roots/list_changed" => out.push(self.roots_list_request(None)),
            "notifications/cancelled" => self.cancel(params),
            // JSON-RPC says unknown notifications are ignored, and MCP adds new
            // ones over time (progress, message, and so on).
            _ => {}
        }
    }

    /// Answers `initialize` and records what the client can do.
    ///
    /// Missing or malformed params are tolerated rather than rejected, because
    /// this server exists to be easy to talk to while debugging a client.
    fn initialize(&mut self, params: &Value) -> Value {
        let protocol_version = params
            .get("protocolVersion")
            .and_then(Value::as_str)
            .filter(|requested| SUPPORTED_PROTOCOL_VERSIONS.contains(requested))
            .unwrap_or(LATEST_PROTOCOL_VERSION);
        self.client_has_roots = params
            .get("capabilities")
            .and_then(|capabilities| capabilities.get("roots"))
            .is_some_and(|roots| !roots.is_null());
        json!({
            "protocolVersion": protocol_version,
            "capabilities": { "tools": {} },
            "serverInfo": { "name": self.name, "version": env!("CARGO_PKG_VERSION") },
            "instructions": INSTRUCTIONS,
        })
    }

    fn tools_call(&mut self, id: Value, params: &Value, out: &mut Vec<Value>) {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            out.push(error_response(
                id,
                INVALID_PARAMS,
                "Invalid params: tools/call needs a string \"name\"".to_owned(),
            ));
            return;
        };
        match name {
            "list_roots" => out.push(result_response(id, self.roots_tool_result())),
            // The answer to this call is sent later, from `response`, once the
            // client has answered the roots/list request sent here.
            "ask_roots" => out.push(self.roots_list_request(Some(id))),
            unknown => out.push(error_response(
                id,
                INVALID_PARAMS,
                format!("Unknown tool: {unknown}"),
            )),
        }
    }

    /// Builds a `roots/list` request to the client and remembers who waits for it.
    fn roots_list_request(&mut self, waiting_call: Option<Value>) -> Value {
        let id = self.next_request_id;
        self.next_request_id += 1;
        self.outstanding.insert(id, waiting_call);
        json!({ "jsonrpc": "2.0", "id": id, "method": "roots/list" })
    }

    /// Drops the pending `ask_roots` call the client cancelled.
    ///
    /// MCP says a cancelled request gets no response. The roots/list request
    /// stays outstanding so that its answer, if it still comes, is recorded.
    fn cancel(&mut self, params: &Value) {
        let Some(request_id) = params.get("requestId") else {
            return;
        };
        let mut cancelled = false;
        for waiting in self.outstanding.values_mut() {
            if waiting.as_ref() == Some(request_id) {
                *waiting = None;
                cancelled = true;
            }
        }
        if cancelled {
            self.diagnose(format!(
                "the client cancelled tools/call {request_id}; it will not be answered"
            ));
        }
    }

    /// Handles the client's answer to one of our requests.
    ///
    /// Every request we send is a `roots/list`, so the only question is whether
    /// the id is one we are still waiting for.
    fn response(&mut self, id: Option<&Value>, object: &Map<String, Value>, out: &mut Vec<Value>) {
        if self.made_up_reply(id, object) {
            return;
        }
        let Some(request_id) = id.and_then(Value::as_u64) else {
            self.diagnose(format!(
                "ignoring a response with id {} that we never sent",
                display_id(id)
            ));
            return;
        };
        let Some(waiting_call) = self.outstanding.remove(&request_id) else {
            self.diagnose(format!(
                "ignoring a response to request {request_id}, which is not outstanding"
            ));
            return;
        };
        let outcome = match object.get("error") {
            Some(error) => Err(format!(
                "the client answered roots/list request {request_id} with an error: {error}"
            )),
            None => parse_roots(object.get("result")).map_err(|why| {
                format!(
                    "the client's answer to roots/list request {request_id} is malformed: {why}"
                )
            }),
        };
        match outcome {
            Ok(roots) => {
                self.accept_roots(roots);
                self.seen = Some(Seen::RootsAccepted);
                if let Some(call) = waiting_call {
                    out.push(result_response(call, self.roots_tool_result()));
                }
            }
            Err(why) => {
                self.diagnose(format!("{why}; keeping the previous roots"));
                // A failed lookup is a tool execution error, which MCP reports
                // inside the result so the model can see it, not as a JSON-RPC error.
                if let Some(call) = waiting_call {
                    out.push(result_response(call, tool_error(&why)));
                }
            }
        }
    }

    /// Takes the answer to a request a misbehaviour made up (a flood's
    /// `roots/list`, a probe with a string id), if this is one: counts it or
    /// reports it whole. Returns false for everything else.
    fn made_up_reply(&mut self, id: Option<&Value>, object: &Map<String, Value>) -> bool {
        let text_id = id.and_then(Value::as_str);
        if text_id.is_some_and(|id| id.starts_with(POLL_ID_PREFIX)) {
            match parse_roots(object.get("result")) {
                Ok(roots) if !object.contains_key("error") => {
                    self.accept_roots(roots);
                    self.seen = Some(Seen::RootsAccepted);
                }
                Ok(_) | Err(_) => self.diagnose(format!(
                    "the answer to {} is an error or malformed; keeping the previous roots",
                    display_id(id)
                )),
            }
            return true;
        }
        if let Some(flood) = self.flood.as_mut()
            && text_id.is_some_and(|id| id.starts_with(misbehave::FLOOD_ID_PREFIX))
        {
            flood.answered += 1;
            match object.get("result").and_then(|r| r.get("roots")) {
                Some(roots) if !object.contains_key("error") => {
                    flood.lists.insert(roots.to_string());
                }
                _ => flood.errors += 1,
            }
            if flood.answered == flood.target {
                let lists: Vec<Value> = flood
                    .lists
                    .iter()
                    .filter_map(|text| serde_json::from_str(text).ok())
                    .collect();
                let summary = json!({
                    "event": "flood",
                    "answered": flood.answered,
                    "errors": flood.errors,
                    "lists": lists,
                });
                self.diagnose(format!("roots-flood: every request answered: {summary}"));
                self.effects.push(Effect::Report(summary));
            }
            return true;
        }
        // Our own roots/list requests have number ids; anything else (a
        // string id, no id, a null id) answers a made-up request, or is a
        // client's reply to a line it could not read.
        if !self.report_replies || id.and_then(Value::as_u64).is_some() {
            return false;
        }
        let mut reply = object.clone();
        reply.insert("id".to_owned(), id.cloned().unwrap_or(Value::Null));
        let reply = Value::Object(reply);
        self.diagnose(format!("reply to a made-up request: {reply}"));
        self.effects
            .push(Effect::Report(json!({ "event": "reply", "reply": reply })));
        self.seen = Some(Seen::Reply);
        true
    }

    fn accept_roots(&mut self, roots: Vec<Root>) {
        self.roots = roots;
        self.answers += 1;
        let uris: String = self
            .roots
            .iter()
            .map(|root| format!(" {}", root.uri))
            .collect();
        self.diagnose(format!("received {} roots:{uris}", self.roots.len()));
        self.effects.push(Effect::Report(json!({
            "event": "roots",
            "count": self.roots.len(),
            "roots": self.roots_json(),
            "answers": self.answers,
        })));
    }

    fn roots_json(&self) -> Vec<Value> {
        self.roots.iter().map(Root::to_json).collect()
    }

    /// The result of `list_roots` and of a successful `ask_roots`.
    fn roots_tool_result(&self) -> Value {
        let structured = json!({ "roots": self.roots_json(), "answers": self.answers });
        json!({
            "content": [{ "type": "text", "text": structured.to_string() }],
            "structuredContent": structured,
            "isError": false,
        })
    }
}

/// Pulls the roots out of a `roots/list` result.
///
/// A malformed entry rejects the whole answer rather than being skipped, so a
/// test that sends a broken answer sees it refused instead of half-applied.
fn parse_roots(result: Option<&Value>) -> Result<Vec<Root>, String> {
    let Some(entries) = result
        .and_then(|result| result.get("roots"))
        .and_then(Value::as_array)
    else {
        return Err("result.roots is not an array".to_owned());
    };
    entries
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            let uri = entry
                .get("uri")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("root {index} has no string uri"))?;
            let name = match entry.get("name") {
                None | Some(Value::Null) => None,
                Some(Value::String(name)) => Some(name.clone()),
                Some(_) => return Err(format!("root {index} has a name that is not a string")),
            };
            Ok(Root {
                uri: uri.to_owned(),
                name,
            })
        })
        .collect()
}

fn tools_list() -> Value {
    // Both tools only report state, so they carry the read-only hint; clients
    // that predate tool annotations ignore the field.
    let annotations = json!({ "readOnlyHint": true, "openWorldHint": false });
    json!({
        "tools": [
            {
                "name": "list_roots",
                "description": "Returns the roots (folders) this server last received from the client, \
    without asking the client again, and how many roots answers it has received.",
                "inputSchema": { "type": "object", "properties": {} },
                "annotations": annotations,
            },
            {
                "name": "ask_roots",
                "description": "Asks the client for its current roots with a fresh roots/list request \
    and returns them once the client answers.",
                "inputSchema": { "type": "object", "properties": {} },
                "annotations": annotations,
            },
        ]
    })
}

fn tool_error(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}

fn result_response(id: Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn error_response(id: Value, code: i64, message: String) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn display_id(id: Option<&Value>) -> String {
    id.map_or_else(|| "(none)".to_owned(), Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Server {
        Server::new(&Config::default())
    }

    fn send(server: &mut Server, message: Value) -> Vec<Value> {
        server.handle(format!("{message}\n").as_bytes())
    }

    fn initialize(server: &mut Server, version: &str, roots: bool) -> Value {
        let capabilities = if roots {
            json!({ "roots": { "listChanged": true } })
        } else {
            json!({})
        };
        let out = send(
            server,
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": capabilities,
                    "clientInfo": { "name": "test", "version": "0" },
                },
            }),
        );
        assert_eq!(out.len(), 1);
        out[0].clone()
    }

    fn initialized(server: &mut Server) -> Vec<Value> {
        send(
            server,
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        )
    }

    fn list_changed(server: &mut Server) -> Vec<Value> {
        send(
            server,
            json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }),
        )
    }

    fn roots_answer(id: &Value, uris: &[(&str, &str)]) -> Value {
        let roots: Vec<Value> = uris
            .iter()
            .map(|(uri, name)| json!({ "uri": uri, "name": name }))
            .collect();
        json!({ "jsonrpc": "2.0", "id": id, "result": { "roots": roots } })
    }

    fn call_tool(server: &mut Server, id: Value, name: &str) -> Vec<Value> {
        send(
            server,
            json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": {} } }),
        )
    }

    fn assert_roots_request(message: &Value, id: u64) {
        assert_eq!(
            message,
            &json!({ "jsonrpc": "2.0", "id": id, "method": "roots/list" })
        );
    }

    #[test]
    fn initialize_echoes_every_supported_version() {
        for version in SUPPORTED_PROTOCOL_VERSIONS {
            let mut server = server();
            let reply = initialize(&mut server, version, false);
            assert_eq!(reply["id"], 1);
            assert_eq!(reply["result"]["protocolVersion"], version);
        }
    }

    #[test]
    fn initialize_falls_back_for_unknown_or_missing_versions() {
        let mut server = server();
        let reply = initialize(&mut server, "1999-01-01", false);
        assert_eq!(reply["result"]["protocolVersion"], LATEST_PROTOCOL_VERSION);

        let out = send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": 2, "method": "initialize" }),
        );
        assert_eq!(out[0]["result"]["protocolVersion"], LATEST_PROTOCOL_VERSION);
    }

    #[test]
    fn initialize_reports_tools_server_info_and_instructions() {
        let mut server = Server::new(&Config {
            name: "custom".to_owned(),
            ..Config::default()
        });
        let result = initialize(&mut server, "2025-11-25", true)["result"].clone();
        assert_eq!(result["capabilities"], json!({ "tools": {} }));
        assert_eq!(
            result["serverInfo"],
            json!({ "name": "custom", "version": env!("CARGO_PKG_VERSION") })
        );
        assert!(
            result["instructions"]
                .as_str()
                .is_some_and(|text| !text.is_empty())
        );
    }

    #[test]
    fn initialized_asks_for_roots_only_when_the_client_declared_them() {
        let mut with_roots = server();
        initialize(&mut with_roots, "2025-11-25", true);
        let out = initialized(&mut with_roots);
        assert_eq!(out.len(), 1);
        assert_roots_request(&out[0], 0);

        let mut without_roots = server();
        initialize(&mut without_roots, "2025-11-25", false);
        assert!(initialized(&mut without_roots).is_empty());

        let mut opted_out = Server::new(&Config {
            roots_on_init: false,
            ..Config::default()
        });
        initialize(&mut opted_out, "2025-11-25", true);
        assert!(initialized(&mut opted_out).is_empty());
    }

    #[test]
    fn list_changed_asks_for_roots_with_increasing_ids() {
        let mut server = server();
        initialize(&mut server, "2025-11-25", true);
        assert_roots_request(&initialized(&mut server)[0], 0);
        for expected in 1..4 {
            let out = list_changed(&mut server);
            assert_eq!(out.len(), 1);
            assert_roots_request(&out[0], expected);
        }
    }

    #[test]
    fn roots_answer_is_stored_logged_reported_and_listed() {
        let mut server = server();
        initialize(&mut server, "2025-11-25", true);
        let request = initialized(&mut server).remove(0);
        server.take_effects();

        let out = send(
            &mut server,
            roots_answer(&request["id"], &[("file:///a", "A"), ("file:///b", "B")]),
        );
        assert!(out.is_empty(), "a roots answer needs no reply: {out:?}");
        let expected_roots =
            json!([{ "uri": "file:///a", "name": "A" }, { "uri": "file:///b", "name": "B" }]);
        assert_eq!(
            server.take_effects(),
            vec![
                Effect::Diagnostic("received 2 roots: file:///a file:///b".to_owned()),
                Effect::Report(
                    json!({ "event": "roots", "count": 2, "roots": expected_roots, "answers": 1 })
                ),
            ]
        );

        let out = call_tool(&mut server, json!("call-1"), "list_roots");
        assert_eq!(out.len(), 1, "list_roots must not ask the client: {out:?}");
        let result = &out[0]["result"];
        assert_eq!(out[0]["id"], "call-1");
        let structured = json!({ "roots": expected_roots, "answers": 1 });
        assert_eq!(result["structuredContent"], structured);
        assert_eq!(result["isError"], false);
        assert_eq!(result["content"][0]["type"], "text");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert_eq!(serde_json::from_str::<Value>(text).unwrap(), structured);
    }

    #[test]
    fn list_roots_before_any_answer_is_empty() {
        let mut server = server();
        let out = call_tool(&mut server, json!(5), "list_roots");
        assert_eq!(
            out[0]["result"]["structuredContent"],
            json!({ "roots": [], "answers": 0 })
        );
    }

    #[test]
    fn roots_without_a_name_leave_it_out() {
        let mut server = server();
        let request = list_changed(&mut server).remove(0);
        send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": request["id"], "result": { "roots": [{ "uri": "file:///x" }] } }),
        );
        let out = call_tool(&mut server, json!(1), "list_roots");
        assert_eq!(
            out[0]["result"]["structuredContent"]["roots"],
            json!([{ "uri": "file:///x" }])
        );
    }

    #[test]
    fn error_and_malformed_answers_keep_the_previous_roots() {
        let mut server = server();
        let first = list_changed(&mut server).remove(0);
        send(
            &mut server,
            roots_answer(&first["id"], &[("file:///kept", "kept")]),
        );
        server.take_effects();

        let second = list_changed(&mut server).remove(0);
        let out = send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": second["id"], "error": { "code": -32601, "message": "nope" } }),
        );
        assert!(out.is_empty());
        let third = list_changed(&mut server).remove(0);
        send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": third["id"], "result": { "roots": "not a list" } }),
        );
        let fourth = list_changed(&mut server).remove(0);
        send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": fourth["id"], "result": { "roots": [{ "name": "no uri" }] } }),
        );

        let effects = server.take_effects();
        assert_eq!(effects.len(), 3, "{effects:?}");
        assert!(effects.iter().all(|effect| matches!(effect, Effect::Diagnostic(text) if text.contains("keeping the previous roots"))));

        let out = call_tool(&mut server, json!(1), "list_roots");
        assert_eq!(
            out[0]["result"]["structuredContent"],
            json!({ "roots": [{ "uri": "file:///kept", "name": "kept" }], "answers": 1 })
        );
    }

    #[test]
    fn ask_roots_answers_only_after_the_roots_response() {
        let mut server = server();
        initialize(&mut server, "2025-11-25", true);
        let init_request = initialized(&mut server).remove(0);

        let out = call_tool(&mut server, json!("ask"), "ask_roots");
        assert_eq!(out.len(), 1, "ask_roots must not answer yet: {out:?}");
        assert_roots_request(&out[0], 1);

        // Other traffic keeps flowing while the tool call waits.
        let out = send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": 7, "method": "ping" }),
        );
        assert_eq!(
            out,
            vec![json!({ "jsonrpc": "2.0", "id": 7, "result": {} })]
        );
        // The answer to the earlier, unrelated request does not release the call.
        let out = send(
            &mut server,
            roots_answer(&init_request["id"], &[("file:///old", "old")]),
        );
        assert!(out.is_empty(), "{out:?}");

        let out = send(
            &mut server,
            roots_answer(&json!(1), &[("file:///new", "new")]),
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["id"], "ask");
        assert_eq!(
            out[0]["result"]["structuredContent"],
            json!({ "roots": [{ "uri": "file:///new", "name": "new" }], "answers": 2 })
        );
        assert_eq!(out[0]["result"]["isError"], false);

        // A repeated answer for the same id is no longer outstanding.
        let out = send(
            &mut server,
            roots_answer(&json!(1), &[("file:///again", "again")]),
        );
        assert!(out.is_empty());
    }

    #[test]
    fn ask_roots_reports_a_client_error_as_a_tool_error() {
        let mut server = server();
        let request = call_tool(&mut server, json!(3), "ask_roots").remove(0);
        let out = send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": request["id"], "error": { "code": -32601, "message": "no roots" } }),
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0]["id"], 3);
        assert_eq!(out[0]["result"]["isError"], true);
        assert!(
            out[0]["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("no roots")
        );
    }

    #[test]
    fn cancelled_ask_roots_is_not_answered_but_roots_are_still_stored() {
        let mut server = server();
        let request = call_tool(&mut server, json!(4), "ask_roots").remove(0);
        send(
            &mut server,
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 4 } }),
        );
        let out = send(
            &mut server,
            roots_answer(&request["id"], &[("file:///c", "c")]),
        );
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(server.answers, 1);
    }

    #[test]
    fn tools_list_offers_both_tools_with_schemas() {
        let mut server = server();
        let out = send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }),
        );
        let tools = out[0]["result"]["tools"].as_array().unwrap();
        let names: Vec<&str> = tools
            .iter()
            .filter_map(|tool| tool["name"].as_str())
            .collect();
        assert_eq!(names, ["list_roots", "ask_roots"]);
        for tool in tools {
            assert_eq!(
                tool["inputSchema"],
                json!({ "type": "object", "properties": {} })
            );
            assert!(
                tool["description"]
                    .as_str()
                    .is_some_and(|text| !text.is_empty())
            );
        }
    }

    #[test]
    fn unknown_tool_is_invalid_params_naming_it() {
        let mut server = server();
        let out = call_tool(&mut server, json!(9), "delete_everything");
        assert_eq!(out[0]["id"], 9);
        assert_eq!(out[0]["error"]["code"], INVALID_PARAMS);
        assert!(
            out[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("delete_everything")
        );
    }

    #[test]
    fn garbage_yields_a_parse_error_with_null_id() {
        let mut server = server();
        for line in [
            &b"this is not json\n"[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\xffng\"}\n",
            b"\xc3\x28\n",
        ] {
            let out = server.handle(line);
            assert_eq!(out.len(), 1);
            assert_eq!(out[0]["id"], Value::Null);
            assert_eq!(out[0]["error"]["code"], PARSE_ERROR);
        }
        // The server keeps working afterwards.
        let out = send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }),
        );
        assert_eq!(out[0]["result"], json!({}));
    }

    #[test]
    fn blank_lines_are_skipped() {
        let mut server = server();
        assert!(server.handle(b"\n").is_empty());
        assert!(server.handle(b"  \r\n").is_empty());
    }

    #[test]
    fn unknown_method_is_method_not_found_and_unknown_notification_is_ignored() {
        let mut server = server();
        let out = send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": "x", "method": "resources/list" }),
        );
        assert_eq!(
            out,
            vec![json!({
                "jsonrpc": "2.0", "id": "x",
                "error": { "code": METHOD_NOT_FOUND, "message": "Method not found: resources/list" },
            })]
        );
        assert!(
            send(
                &mut server,
                json!({ "jsonrpc": "2.0", "method": "notifications/whatever" })
            )
            .is_empty()
        );
    }

    #[test]
    fn invalid_messages_get_invalid_request() {
        let mut server = server();
        let out = send(
            &mut server,
            json!([{ "jsonrpc": "2.0", "id": 1, "method": "ping" }]),
        );
        assert_eq!(out[0]["error"]["code"], INVALID_REQUEST);
        let out = send(
            &mut server,
            json!({ "jsonrpc": "1.0", "id": 1, "method": "ping" }),
        );
        assert_eq!(out[0]["id"], 1);
        assert_eq!(out[0]["error"]["code"], INVALID_REQUEST);
        let out = send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": null, "method": "ping" }),
        );
        assert_eq!(out[0]["id"], Value::Null);
        assert_eq!(out[0]["error"]["code"], INVALID_REQUEST);
    }

    #[test]
    fn responses_to_unknown_ids_are_ignored() {
        let mut server = server();
        assert!(send(&mut server, roots_answer(&json!(42), &[("file:///z", "z")])).is_empty());
        assert!(
            send(
                &mut server,
                roots_answer(&json!("abc"), &[("file:///z", "z")])
            )
            .is_empty()
        );
        assert_eq!(server.answers, 0);
    }

    fn misbehaving(kind: misbehave::Kind) -> Server {
        Server::new(&Config {
            misbehave: Some(kind),
            flood_requests: 2,
            ..Config::default()
        })
    }

    #[test]
    fn the_step_a_line_completed_is_seen_once() {
        let mut server = server();
        initialize(&mut server, "2025-11-25", true);
        assert_eq!(server.take_seen(), Some(Seen::Initialize));
        assert_eq!(server.take_seen(), None);
        let request = initialized(&mut server).remove(0);
        assert_eq!(server.take_seen(), Some(Seen::Initialized));
        send(
            &mut server,
            roots_answer(&request["id"], &[("file:///a", "a")]),
        );
        assert_eq!(server.take_seen(), Some(Seen::RootsAccepted));
        list_changed(&mut server);
        assert_eq!(server.take_seen(), Some(Seen::ListChanged));
        send(
            &mut server,
            json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }),
        );
        assert_eq!(server.take_seen(), None);
    }

    #[test]
    fn replies_to_made_up_requests_are_reported_only_when_misbehaving() {
        let reply = json!({ "jsonrpc": "2.0", "id": "sampling", "error": { "code": -32601, "message": "no" } });
        let mut plain = server();
        send(&mut plain, reply.clone());
        assert!(
            !plain
                .take_effects()
                .iter()
                .any(|e| matches!(e, Effect::Report(_)))
        );

        let mut probing = misbehaving(misbehave::Kind::UndeclaredRequests);
        send(&mut probing, reply.clone());
        let reports: Vec<Value> = probing
            .take_effects()
            .into_iter()
            .filter_map(|e| match e {
                Effect::Report(v) => Some(v),
                Effect::Diagnostic(_) => None,
            })
            .collect();
        assert_eq!(reports, vec![json!({ "event": "reply", "reply": reply })]);
        // Answers to its own roots/list still count as roots.
        let request = list_changed(&mut probing).remove(0);
        send(
            &mut probing,
            roots_answer(&request["id"], &[("file:///a", "a")]),
        );
        assert_eq!(probing.answers, 1);
    }

    #[test]
    fn a_flood_is_summed_up_once_every_request_was_answered() {
        let mut server = misbehaving(misbehave::Kind::RootsFlood);
        let answer = |id: &str, uri: &str| json!({ "jsonrpc": "2.0", "id": id, "result": { "roots": [{ "uri": uri }] } });
        send(&mut server, answer("flood-0", "file:///a"));
        assert!(server.take_effects().is_empty(), "nothing until the last");
        send(&mut server, answer("flood-1", "file:///b"));
        let effects = server.take_effects();
        let Some(Effect::Report(summary)) = effects.last() else {
            panic!("{effects:?}")
        };
        assert_eq!(summary["answered"], 2);
        assert_eq!(summary["errors"], 0);
        assert_eq!(
            summary["lists"],
            json!([[{ "uri": "file:///a" }], [{ "uri": "file:///b" }]])
        );
        assert_eq!(
            server.answers, 0,
            "flood answers are not the server's roots"
        );
    }

    fn plan(
        kind: misbehave::Kind,
        seen: Option<Seen>,
        messages: &mut Vec<Value>,
    ) -> misbehave::Plan {
        kind.plan(
            seen,
            messages,
            &mut misbehave::State::default(),
            (0, 0),
            |_| {},
        )
    }

    #[test]
    fn misbehaviours_act_at_their_moment() {
        use misbehave::{Kind, Then};
        let answer = json!({ "jsonrpc": "2.0", "id": 0, "result": {} });

        let mut out = vec![answer.clone()];
        plan(Kind::NoInitializeAnswer, Some(Seen::Initialize), &mut out);
        assert!(out.is_empty(), "initialize is not answered");

        let mut out = vec![json!({ "jsonrpc": "2.0", "id": 3, "method": "roots/list" })];
        let p = plan(Kind::ExitOnListChanged, Some(Seen::ListChanged), &mut out);
        assert!(matches!(p.then, Then::Exit(4)));
        assert!(out.is_empty(), "it exits instead of asking");

        let p = plan(
            Kind::ExitOnListChanged,
            Some(Seen::Initialized),
            &mut vec![],
        );
        assert!(matches!(p.then, Then::Continue));

        // Forged answers come only after the handshake.
        let mut out = vec![answer.clone()];
        let p = plan(Kind::StdoutUnknownIds, Some(Seen::Initialize), &mut out);
        assert!(p.before.is_empty() && p.after.is_empty());
        let mut out = vec![answer.clone()];
        let p = plan(Kind::StdoutUnknownIds, None, &mut out);
        assert_eq!(p.before.len(), 1, "a forged answer to the next id first");
        assert_eq!(p.after.len(), 1, "and a duplicate after");

        // The initialize answer is held until the early roots/list is answered.
        let mut state = misbehave::State::default();
        let mut out = vec![answer.clone()];
        let kind = Kind::RootsBeforeInitialized;
        let p = kind.plan(Some(Seen::Initialize), &mut out, &mut state, (0, 0), |_| {});
        assert!(out.is_empty(), "held back");
        assert_eq!(p.before.len(), 1, "the early roots/list");
        let mut out = vec![];
        let p = kind.plan(Some(Seen::Reply), &mut out, &mut state, (0, 0), |_| {});
        assert_eq!(out, vec![answer.clone()], "released");
        assert_eq!(p.after.len(), 1, "one more before initialized");

        // One-shot misbehaviours fire at the first roots answer only.
        let mut state = misbehave::State::default();
        let first = Kind::CrashAfterInit.plan(
            Some(Seen::RootsAccepted),
            &mut vec![],
            &mut state,
            (0, 0),
            |_| {},
        );
        assert!(matches!(first.then, Then::Crash));
        let second = Kind::CrashAfterInit.plan(
            Some(Seen::RootsAccepted),
            &mut vec![],
            &mut state,
            (0, 0),
            |_| {},
        );
        assert!(matches!(second.then, Then::Continue));
    }
}
