//! Input rounds (the 2026-07-28 multi round-trip requests): a modern server
//! that needs its roots while it handles a request answers with an
//! `InputRequiredResult`, and the request is sent again with the answers and
//! the server's `requestState`, echoed exactly.
//!
//! Rootgate fulfils `roots/list` and nothing else: each one is answered from
//! the server's consented list *as it is when the round is answered*, so a
//! withdrawal takes effect with the next request and needs no notification.
//! A server that asks for something Rootgate does not offer (elicitation,
//! sampling, or a method it does not know) ends the request with an error
//! that names it; the spec wants no answer sent to the server then, as it
//! keeps no state between rounds. Each round lands in the timeline.
//!
//! Requests are made here on rmcp's `*_once` calls, which send one request
//! and return what came back, rather than rmcp's own round driver: that
//! driver answers roots through the client handler's deprecated roots API,
//! which would put a second, untimed source of roots answers beside the
//! wire's, and it records nothing. What is not here: making the requests'
//! `_meta` (rmcp does, from the era the handshake chose).

use std::sync::Arc;

use rmcp::model::{InputRequests, InputResponses};
use serde_json::Value;

use rootgate_model::consent::{SharedRoot, SharedRoots};

/// How many rounds a request may take before Rootgate gives up: a server
/// that asks again and again without completing is not waited on forever.
pub const MAX_ROUNDS: usize = 8;

/// What one round asked for and how it was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Round {
    /// Every input request was for roots; here is the retry's content and
    /// the list each key was given.
    Answered {
        responses: InputResponses,
        given: Vec<(String, Arc<[SharedRoot]>)>,
    },
    /// The server asked for `method` (under `key`), which Rootgate does not
    /// offer.
    NotOffered { key: String, method: String },
}

/// Answers a round's input requests from `roots`, the list as it is now.
pub fn answer(requests: &InputRequests, roots: &SharedRoots) -> Round {
    let mut responses = InputResponses::new();
    let mut given = Vec::new();
    for (key, request) in requests {
        let method = serde_json::to_value(request)
            .ok()
            .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        if method != "roots/list" {
            return Round::NotOffered {
                key: key.clone(),
                method,
            };
        }
        let list = roots.shared();
        responses.insert(key.clone(), roots_result(&list));
        given.push((key.clone(), list));
    }
    Round::Answered { responses, given }
}

/// A `ListRootsResult` for `roots`.
pub fn roots_result(roots: &[SharedRoot]) -> Value {
    let roots: Vec<Value> = roots
        .iter()
        .map(|r| serde_json::json!({ "uri": r.uri, "name": r.name }))
        .collect();
    serde_json::json!({ "roots": roots })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_model::ids::RootId;

    fn list(uris: &[&str]) -> SharedRoots {
        let roots = uris
            .iter()
            .map(|u| SharedRoot {
                root: RootId::generate(),
                uri: (*u).to_owned(),
                name: u.rsplit('/').next().unwrap_or_default().to_owned(),
            })
            .collect();
        SharedRoots::empty()
            .advance_for_tests(roots)
            .expect("a new list")
    }

    fn requests(json: Value) -> InputRequests {
        serde_json::from_value(json).expect("input requests")
    }

    #[test]
    fn every_roots_request_gets_the_list_as_it_is_now() {
        let now = list(&["file:///srv/a", "file:///srv/b"]);
        let asked = requests(serde_json::json!({
            "first": { "method": "roots/list" },
            "again": { "method": "roots/list", "params": {} },
        }));
        let Round::Answered { responses, given } = answer(&asked, &now) else {
            panic!("roots are offered");
        };
        assert_eq!(responses.len(), 2);
        assert_eq!(
            responses["first"],
            serde_json::json!({ "roots": [
                { "uri": "file:///srv/a", "name": "a" },
                { "uri": "file:///srv/b", "name": "b" },
            ]})
        );
        assert_eq!(responses["again"], responses["first"]);
        assert_eq!(given.len(), 2);
        let empty = answer(&asked, &SharedRoots::empty());
        let Round::Answered { responses, .. } = empty else {
            panic!("roots are offered");
        };
        assert_eq!(responses["first"], serde_json::json!({ "roots": [] }));
    }

    #[test]
    fn anything_but_roots_is_not_offered() {
        let now = list(&["file:///srv/a"]);
        let asked = requests(serde_json::json!({
            "name": { "method": "elicitation/create", "params": {
                "mode": "form", "message": "Your name?",
                "requestedSchema": { "type": "object", "properties": {} },
            }},
        }));
        assert_eq!(
            answer(&asked, &now),
            Round::NotOffered {
                key: "name".into(),
                method: "elicitation/create".into()
            }
        );
    }
}
