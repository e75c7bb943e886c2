//! The router's small pure pieces: JSON-RPC lines made from raw parts,
//! excerpts of a line for a note, and what is read out of `initialize` and
//! `notifications/cancelled`. Nothing here keeps state.

use super::*;

/// A line as it came, with the newline it was read without.
pub(super) fn with_newline(line: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len() + 1);
    out.extend_from_slice(line);
    out.push(b'\n');
    out
}

/// The start of a line, for a note about it.
pub(super) fn excerpt(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(&line[..line.len().min(200)]).into_owned();
    if line.len() > 200 {
        format!("{text}…")
    } else {
        text
    }
}

/// The bridge's own number for `id`, the id of an answer from `side` (`the
/// app` or `the server`), or the note that drops the answer: the bridge
/// sends each request under a number it counts, so an answer under any
/// other id answers nothing it sent.
pub(super) fn answered_id(side: &str, id: Raw<'_>) -> Result<u64, Vec<Out>> {
    id.get()
        .parse::<u64>()
        .map_err(|_| never_sent(side, id.get()))
}

/// The note that drops an answer from `side` to request `id`, which the
/// bridge never sent there (or has forgotten, having had its answer).
pub(super) fn never_sent(side: &str, id: impl std::fmt::Display) -> Vec<Out> {
    vec![Out::Note(format!(
        "{side} answered request {id}, which was never sent to it; dropped"
    ))]
}

/// What the app's `initialize` says about it.
pub(super) fn app_info(params: &Map<String, Value>) -> AppInfo {
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

/// Whether an app request may depend on the server's folders, and so waits
/// for a new server life to have them. Lifecycle, `ping`, and the lists
/// whose items a server declares whatever its folders are exempt;
/// `resources/list` is not, as a server's resources are often its files.
pub(crate) fn depends_on_folders(method: &str) -> bool {
    !matches!(
        method,
        "initialize" | "ping" | "tools/list" | "prompts/list" | "resources/templates/list"
    )
}

/// The tool, prompt or resource a request names, for the timeline.
pub(super) fn target_of(method: &str, params: Option<Raw<'_>>) -> Option<String> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => "uri",
        _ => return None,
    };
    // Only the one field is read; the arguments are passed over by the
    // envelope's scanner (see `envelope`), so a tool call carrying a
    // file's contents is not skipped by serde twice, once here and once
    // for the tool's rules.
    let [found] = envelope::fields(params?, [key])?;
    serde_json::from_str(found?.get()).ok()
}

/// The `uri` of a `resources/subscribe` or `unsubscribe`, exactly as the
/// server reads it (kept to subscribe a restarted server again).
pub(super) fn subscribed_uri(params: Option<Raw<'_>>) -> Option<String> {
    let [uri] = envelope::fields(params?, ["uri"])?;
    serde_json::from_str(uri?.get()).ok()
}

pub(super) fn outcome(error: Option<Raw<'_>>) -> String {
    let Some(error) = error else {
        return "ok".into();
    };
    let error: Value = serde_json::from_str(error.get()).unwrap_or(Value::Null);
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    format!("error {code}: {message}")
}

pub(super) fn initialize_outcome(
    result: Option<Raw<'_>>,
    error: Option<Raw<'_>>,
) -> Result<Value, String> {
    match (result, error) {
        (Some(result), None) => serde_json::from_str(result.get()).map_err(|e| e.to_string()),
        (_, Some(error)) => Err(outcome(Some(error))),
        (None, None) => Err("the answer holds neither a result nor an error".into()),
    }
}

/// The params of a `notifications/cancelled` and the request id it names,
/// as JSON text.
pub(super) fn cancelled_request(params: Option<Raw<'_>>) -> Option<(Map<String, Value>, String)> {
    let params: Map<String, Value> = serde_json::from_str(params?.get()).ok()?;
    let request = params.get("requestId")?.to_string();
    Some((params, request))
}

pub(super) fn request_line(id: &str, method: &str, params: Option<Raw<'_>>) -> Vec<u8> {
    let method = Value::String(method.to_owned()).to_string();
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":{method}"#);
    // Sized at once: growing it would copy a large `params` again.
    let mut line = Vec::with_capacity(head.len() + params.map_or(0, |p| p.get().len()) + 12);
    line.extend_from_slice(head.as_bytes());
    if let Some(params) = params {
        line.extend_from_slice(br#","params":"#);
        line.extend_from_slice(params.get().as_bytes());
    }
    line.extend_from_slice(b"}\n");
    line
}

pub(super) fn notification_line(method: &str, params: &Value) -> Vec<u8> {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if !params.is_null() {
        message["params"] = params.clone();
    }
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

pub(super) fn response_line(id: &str, result: Option<Raw<'_>>, error: Option<Raw<'_>>) -> Vec<u8> {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"#);
    // Sized at once: growing it would copy a megabyte result again (and
    // map twice its size) for the closing brace.
    let body = error.or(result).map_or(2, |raw| raw.get().len());
    let mut line = Vec::with_capacity(head.len() + body + 12);
    line.extend_from_slice(head.as_bytes());
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

pub(super) fn result_line(id: &str, result: &str) -> Vec<u8> {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{result}}}\n").into_bytes()
}

pub(super) fn error_line(id: &str, code: i64, message: &str) -> Vec<u8> {
    let message = Value::String(message.to_owned()).to_string();
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"error\":{{\"code\":{code},\"message\":{message}}}}}\n"
    )
    .into_bytes()
}

/// An error line with `data`.
pub(super) fn error_data_line(id: &str, code: i64, message: &str, data: &Value) -> Vec<u8> {
    let mut line =
        json!({"jsonrpc": "2.0", "error": {"code": code, "message": message, "data": data}})
            .to_string();
    // The id is JSON text as the app wrote it; put it in as it is.
    line.insert_str(1, &format!("\"id\":{id},"));
    line.push('\n');
    line.into_bytes()
}
