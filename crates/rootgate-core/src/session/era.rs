//! Which protocol era a server speaks, found the way the 2026-07-28 stdio
//! backward-compatibility rules say: Rootgate sends `server/discover` before
//! anything else; a `DiscoverResult`, or an error only a modern server
//! gives, means modern; any other error, or no answer within the probe's
//! bound, means legacy, and `initialize` follows on the same process.
//!
//! This module holds the probe's line and the classification of its answer,
//! as pure functions over JSON, so each outcome can be tested on its own.
//! It does not wait for the answer (the handshake does, with the session's
//! commands still served) and does not start rmcp's client in the era found
//! (the handshake does that too).

use serde_json::Value;

use crate::servers::Era;

/// The probe's request id: a string, so that it can never be mistaken for
/// one of rmcp's numeric ids, and an answer arriving after the probe gave up
/// is recognised and dropped (see `protocol::RootsTransport`).
pub const PROBE_ID: &str = "rootgate-discover";

/// The modern revision Rootgate speaks.
pub const MODERN_VERSION: &str = "2026-07-28";

/// `UnsupportedProtocolVersionError`: modern, but not this version.
const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// `MissingRequiredClientCapabilityError`: modern, and wants more of the
/// client than the probe declared.
const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

/// What the probe found, and how, in words for the timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub era: Era,
    pub how: String,
}

/// The `server/discover` request, as one line, with the `_meta` every modern
/// request carries: the version asked for, who asks, and the capabilities
/// (roots, which is what Rootgate offers).
pub fn probe_line() -> Vec<u8> {
    let request = serde_json::json!({
        "jsonrpc": "2.0",
        "id": PROBE_ID,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
                "io.modelcontextprotocol/clientInfo": {
                    "name": "rootgate",
                    "version": env!("CARGO_PKG_VERSION"),
                },
                "io.modelcontextprotocol/clientCapabilities": { "roots": {} },
            }
        }
    });
    let mut line = request.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Whether `message` (a JSON-RPC message from the server) answers the probe.
pub fn answers_probe(message: &Value) -> bool {
    message.get("id").and_then(Value::as_str) == Some(PROBE_ID)
        && (message.get("result").is_some() || message.get("error").is_some())
}

/// The era a server's answer to the probe shows. Never keyed to one error
/// code: every error that is not one only modern servers give means legacy.
pub fn classify(answer: &Value) -> Found {
    if let Some(result) = answer.get("result") {
        return classify_result(result);
    }
    let error = answer.get("error");
    let code = error.and_then(|e| e.get("code")).and_then(Value::as_i64);
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("");
    match code {
        Some(UNSUPPORTED_PROTOCOL_VERSION) => {
            let supported = strings(
                error
                    .and_then(|e| e.get("data"))
                    .and_then(|d| d.get("supported")),
            );
            // A server that lists only legacy versions here answers
            // `initialize`; one that lists a modern version Rootgate does
            // not speak cannot be spoken to at all, and the handshake says so.
            if supported.iter().any(|v| v.as_str() >= MODERN_VERSION) {
                Found {
                    era: Era::Modern,
                    how: format!(
                        "it answered server/discover (versions {})",
                        supported.join(", ")
                    ),
                }
            } else {
                Found {
                    era: Era::Legacy,
                    how: format!(
                        "it answered server/discover that it speaks only {}, so Rootgate uses initialize",
                        supported.join(", ")
                    ),
                }
            }
        }
        Some(MISSING_REQUIRED_CLIENT_CAPABILITY) => Found {
            era: Era::Modern,
            how: format!("it answered server/discover with a modern error (\"{message}\")"),
        },
        Some(code) => Found {
            era: Era::Legacy,
            how: format!(
                "it refused server/discover (JSON-RPC error {code}: \"{message}\"), so Rootgate \
                 uses initialize"
            ),
        },
        None => Found {
            era: Era::Legacy,
            how: "it answered server/discover with an error Rootgate cannot read, so Rootgate \
                  uses initialize"
                .into(),
        },
    }
}

fn classify_result(result: &Value) -> Found {
    let versions = strings(result.get("supportedVersions"));
    let is_discover = result.get("supportedVersions").is_some_and(Value::is_array)
        && !versions.is_empty()
        && result.get("capabilities").is_some_and(Value::is_object);
    if !is_discover {
        return Found {
            era: Era::Legacy,
            how: "it answered server/discover with something that is not a discover result, so \
                  Rootgate uses initialize"
                .into(),
        };
    }
    if versions.iter().any(|v| v == MODERN_VERSION) {
        Found {
            era: Era::Modern,
            how: format!(
                "it answered server/discover (versions {})",
                versions.join(", ")
            ),
        }
    } else {
        // A discover result without the one modern version Rootgate speaks:
        // legacy versions listed there are reached through `initialize`.
        Found {
            era: Era::Legacy,
            how: format!(
                "it answered server/discover with versions {}, not {MODERN_VERSION}, so Rootgate \
                 uses initialize",
                versions.join(", ")
            ),
        }
    }
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn answer(body: Value) -> Value {
        let mut message = json!({ "jsonrpc": "2.0", "id": PROBE_ID });
        if let (Some(message), Some(body)) = (message.as_object_mut(), body.as_object()) {
            message.extend(body.clone());
        }
        message
    }

    #[test]
    fn the_probe_carries_the_meta_a_modern_request_needs() {
        let line = probe_line();
        assert_eq!(line.last(), Some(&b'\n'));
        let request: Value = serde_json::from_slice(&line).expect("JSON");
        let meta = &request["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            MODERN_VERSION
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "rootgate"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({ "roots": {} })
        );
        assert_eq!(request["method"], "server/discover");
        assert!(answers_probe(&answer(json!({ "result": {} }))));
        // rmcp's ids are numbers; a number 0 or another string is not ours.
        assert!(!answers_probe(
            &json!({ "jsonrpc": "2.0", "id": 0, "result": {} })
        ));
        assert!(!answers_probe(
            &json!({ "jsonrpc": "2.0", "id": PROBE_ID, "method": "x" })
        ));
    }

    #[test]
    fn a_discover_result_is_modern() {
        let found = classify(&answer(json!({ "result": {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": { "tools": {} },
        }})));
        assert_eq!(found.era, Era::Modern);
        assert!(found.how.contains("2026-07-28"), "{}", found.how);
    }

    #[test]
    fn a_modern_error_is_modern_and_any_other_error_is_legacy() {
        let unsupported = classify(&answer(json!({ "error": {
            "code": -32022, "message": "Unsupported protocol version",
            "data": { "supported": ["2026-07-28", "2025-11-25"], "requested": "2026-07-28" },
        }})));
        assert_eq!(unsupported.era, Era::Modern);
        let missing = classify(&answer(json!({ "error": {
            "code": -32021, "message": "needs sampling",
            "data": { "requiredCapabilities": { "sampling": {} } },
        }})));
        assert_eq!(missing.era, Era::Modern);
        // What real legacy servers answer (the npm filesystem server: -32601),
        // and codes nobody should key on.
        for code in [-32601, -32602, -32600, -32603, -32000, 1] {
            let found = classify(&answer(
                json!({ "error": { "code": code, "message": "no" } }),
            ));
            assert_eq!(found.era, Era::Legacy, "code {code}");
            assert!(found.how.contains(&code.to_string()), "{}", found.how);
        }
        let unreadable = classify(&answer(json!({ "error": "nope" })));
        assert_eq!(unreadable.era, Era::Legacy);
    }

    #[test]
    fn a_malformed_result_is_legacy() {
        for result in [
            json!({}),
            json!({ "supportedVersions": "2026-07-28", "capabilities": {} }),
            json!({ "supportedVersions": [], "capabilities": {} }),
            json!({ "supportedVersions": ["2026-07-28"] }),
            json!({ "protocolVersion": "2025-11-25", "capabilities": {} }),
            json!(null),
            json!([1, 2]),
        ] {
            let found = classify(&answer(json!({ "result": result })));
            assert_eq!(found.era, Era::Legacy, "{result}");
        }
    }

    #[test]
    fn a_server_that_speaks_only_other_versions_is_reached_by_initialize() {
        let legacy_only = classify(&answer(json!({ "error": {
            "code": -32022, "message": "Unsupported protocol version",
            "data": { "supported": ["2025-06-18"], "requested": "2026-07-28" },
        }})));
        assert_eq!(legacy_only.era, Era::Legacy);
        let other = classify(&answer(json!({ "result": {
            "supportedVersions": ["2025-11-25"], "capabilities": {},
        }})));
        assert_eq!(other.era, Era::Legacy);
    }
}
