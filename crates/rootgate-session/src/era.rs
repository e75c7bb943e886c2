//! Which protocol era a server is spoken to in, when neither the person nor
//! an earlier start settled it: Rootgate opens with `initialize`, and a
//! server that accepts it (a legacy server, or a dual-era one) is spoken to
//! in the legacy era; one that refuses it speaks only the modern era, and is
//! started again with `server/discover`.
//!
//! Why `initialize` first, where the 2026-07-28 stdio rules say a dual-era
//! client should probe with `server/discover`: a dual-era server in the
//! legacy era gets its folders whichever way its code asks (the SDKs turn a
//! round asking for roots into `roots/list`), while in the modern era code
//! written for the 1.x SDKs (`ctx.session.list_roots()`, `listRoots()`) is
//! refused by its own SDK. A discover result cannot tell a dual-era server
//! from a modern-only one (both SDKs list only modern versions there), and
//! the Python SDK fixes a process's era on its first request, so a probe
//! would cost every dual-era server a second start.
//!
//! This module holds the decision and its words, as pure functions, so each
//! outcome can be tested on its own. It does not send or wait for anything
//! (the handshake does) and does not remember the era (the supervisor does).

use serde_json::Value;

use rootgate_model::servers::Era;

/// The modern revision Rootgate speaks.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The era settled, and how, in words for the timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub era: Era,
    pub how: String,
}

/// A server whose era was not known accepted `initialize` with `version`.
pub fn accepted(version: &str) -> Found {
    Found {
        era: Era::Legacy,
        how: format!(
            "it accepted initialize ({version}), so it is spoken to in the legacy era, where a \
             server that speaks both eras gets its folders whichever way its code asks for them"
        ),
    }
}

/// A server whose era was not known refused `initialize` with `error` (the
/// JSON-RPC error object, when there was one). Never keyed to one code: a
/// modern-only server refuses `initialize` with whatever error it likes
/// (the spec leaves it to the implementation), and one that is neither
/// modern nor legacy is told apart when `server/discover` fails too.
pub fn refused(error: Option<&Value>) -> Found {
    let code = error.and_then(|e| e.get("code")).and_then(Value::as_i64);
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let supported = strings(
        error
            .and_then(|e| e.get("data"))
            .and_then(|d| d.get("supported")),
    );
    let said = match code {
        Some(code) => format!("JSON-RPC error {code}: \"{message}\""),
        None => "an answer that is not its result".into(),
    };
    let versions = if supported.is_empty() {
        String::new()
    } else {
        format!(", naming versions {}", supported.join(", "))
    };
    Found {
        era: Era::Modern,
        how: format!(
            "it refused initialize ({said}{versions}), as a server that speaks only the modern \
             era does, so it is started again and spoken to with server/discover"
        ),
    }
}

/// The era of a server the person set, or an earlier start found.
pub fn known(era: Era, forced: bool) -> Found {
    Found {
        era,
        how: if forced {
            "set on this server, so it was not asked".into()
        } else {
            "found when it last started, so it was not asked again".into()
        },
    }
}

/// The error object of an `initialize` refusal the router reported as
/// text ("error CODE: MESSAGE"), for `refused`.
pub(crate) fn error_from_outcome(outcome: &str) -> Option<Value> {
    let rest = outcome.strip_prefix("error ")?;
    let (code, message) = rest.split_once(": ")?;
    let code: i64 = code.parse().ok()?;
    Some(serde_json::json!({ "code": code, "message": message }))
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

    #[test]
    fn accepting_initialize_is_the_legacy_era_and_says_why() {
        let found = accepted("2025-11-25");
        assert_eq!(found.era, Era::Legacy);
        assert!(found.how.contains("2025-11-25"), "{}", found.how);
        assert!(found.how.contains("both eras"), "{}", found.how);
    }

    #[test]
    fn any_refusal_of_initialize_is_the_modern_era() {
        // What the TypeScript SDK 2.x says when wired modern-only.
        let ts = refused(Some(&json!({
            "code": -32022,
            "message": "Unsupported protocol version: 2025-11-25",
            "data": { "supported": ["2026-07-28"], "requested": "2025-11-25" },
        })));
        assert_eq!(ts.era, Era::Modern);
        assert!(ts.how.contains("-32022"), "{}", ts.how);
        assert!(ts.how.contains("naming versions 2026-07-28"), "{}", ts.how);
        // Codes nobody should key on.
        for code in [-32601, -32602, -32600, -32603, -32000, 1] {
            let found = refused(Some(&json!({ "code": code, "message": "no" })));
            assert_eq!(found.era, Era::Modern, "code {code}");
            assert!(found.how.contains(&code.to_string()), "{}", found.how);
        }
        let unreadable = refused(None);
        assert_eq!(unreadable.era, Era::Modern);
        assert!(
            unreadable.how.contains("not its result"),
            "{}",
            unreadable.how
        );
    }

    #[test]
    fn a_known_era_says_who_settled_it() {
        assert!(known(Era::Legacy, true).how.contains("set on this server"));
        assert!(known(Era::Modern, false).how.contains("last started"));
    }

    #[test]
    fn the_routers_words_for_a_refusal_are_read_back() {
        assert_eq!(
            error_from_outcome("error -32022: Unsupported protocol version: x"),
            Some(json!({ "code": -32022, "message": "Unsupported protocol version: x" }))
        );
        assert_eq!(
            error_from_outcome("the answer holds neither a result nor an error"),
            None
        );
    }
}
