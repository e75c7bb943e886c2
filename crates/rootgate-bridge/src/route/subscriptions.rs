//! The resources an app subscribed to, kept to be subscribed again when the
//! server restarts (`Router::replay`). A subscription is kept only once the
//! server accepted it (its success answer, not the app's request), so a
//! restarted server is never told of one it refused; an unsubscribe the
//! server accepted forgets it. The table is bounded like the parked calls
//! ([`MAX_SUBSCRIPTIONS`] at a time, [`MAX_SUBSCRIPTION_BYTES`] of URIs in
//! all, the ones waiting for the server's answer counted), and a subscribe
//! past that is refused before it reaches the server.
//!
//! What is not here: the requests themselves (the router sends them) and
//! what a resource's URI names (the server's business).

use std::collections::{BTreeSet, HashMap};

/// The most subscriptions of one connection kept for a restart at once,
/// those the server has yet to answer counted; one more is refused at once.
/// An app that subscribes without end costs its own connection this much,
/// no more.
pub(crate) const MAX_SUBSCRIPTIONS: usize = 10_000;
/// The most bytes of subscribed URIs one connection keeps.
pub(crate) const MAX_SUBSCRIPTION_BYTES: usize = 4 * 1024 * 1024;

/// A subscribe or unsubscribe sent, waiting for the server's answer.
enum Asked {
    Subscribe(String),
    Unsubscribe(String),
}

#[derive(Default)]
pub(super) struct Subscriptions {
    kept: BTreeSet<String>,
    kept_bytes: usize,
    /// By the bridge's id of the request.
    asked: HashMap<u64, Asked>,
    /// The URIs of the subscribes in `asked`, in bytes, and how many.
    asked_bytes: usize,
    asked_subscribes: usize,
}

impl Subscriptions {
    /// Whether one more subscription to `uri` may be asked for; the refusal
    /// in words when not.
    pub(super) fn room_for(&self, uri: &str) -> Result<(), String> {
        if self.kept.contains(uri) {
            return Ok(());
        }
        let count = self.kept.len() + self.asked_subscribes;
        let bytes = self.kept_bytes + self.asked_bytes;
        if count >= MAX_SUBSCRIPTIONS || bytes + uri.len() > MAX_SUBSCRIPTION_BYTES {
            return Err(format!(
                "too many resource subscriptions on this connection ({count} kept, \
                 {bytes} bytes of URIs; at most {MAX_SUBSCRIPTIONS} or \
                 {MAX_SUBSCRIPTION_BYTES} bytes); unsubscribe from some first"
            ));
        }
        Ok(())
    }

    /// The app's `resources/subscribe` (or `unsubscribe`) of `uri` was sent
    /// to the server under the bridge's id `ours`.
    pub(super) fn sent(&mut self, ours: u64, subscribe: bool, uri: String) {
        let asked = if subscribe {
            self.asked_bytes += uri.len();
            self.asked_subscribes += 1;
            Asked::Subscribe(uri)
        } else {
            Asked::Unsubscribe(uri)
        };
        if let Some(before) = self.asked.insert(ours, asked) {
            self.drop_asked(before);
        }
    }

    /// The server answered the request `ours`: kept or forgotten when it
    /// accepted it.
    pub(super) fn answered(&mut self, ours: u64, accepted: bool) {
        let Some(asked) = self.asked.remove(&ours) else {
            return;
        };
        match (&asked, accepted) {
            (Asked::Subscribe(uri), true) if !self.kept.contains(uri) => {
                self.kept_bytes += uri.len();
                self.kept.insert(uri.clone());
            }
            (Asked::Unsubscribe(uri), true) if self.kept.remove(uri) => {
                self.kept_bytes -= uri.len();
            }
            _ => {}
        }
        self.drop_asked(asked);
    }

    /// The request `ours` will not be answered (cancelled by the app).
    pub(super) fn forget(&mut self, ours: u64) {
        if let Some(asked) = self.asked.remove(&ours) {
            self.drop_asked(asked);
        }
    }

    /// The server is gone: nothing it was asked will be answered.
    pub(super) fn server_gone(&mut self) {
        self.asked.clear();
        self.asked_bytes = 0;
        self.asked_subscribes = 0;
    }

    /// The URIs to subscribe a restarted server to.
    pub(super) fn kept(&self) -> Vec<String> {
        self.kept.iter().cloned().collect()
    }

    fn drop_asked(&mut self, asked: Asked) {
        if let Asked::Subscribe(uri) = asked {
            self.asked_bytes -= uri.len();
            self.asked_subscribes -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::{Out, Router};
    use serde_json::{Value, json};
    use tokio::time::Instant;

    fn ready() -> Router {
        let mut router = Router::new();
        let now = Instant::now();
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "app", "version": "1"}}});
        router.from_app(init.to_string().as_bytes(), now);
        let sent: Value =
            serde_json::from_slice(&router.initialize_for_server().expect("initialize"))
                .expect("JSON");
        let answer = json!({"jsonrpc": "2.0", "id": sent["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
        router.from_server(answer.to_string().as_bytes(), now);
        router
    }

    /// The app's request (`method`, `uri`), and the server's answer to it
    /// (a success or an error): what the app got.
    fn asked(router: &mut Router, id: u64, method: &str, uri: &str, accept: bool) -> Value {
        let now = Instant::now();
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"uri": uri}});
        let out = router.from_app(request.to_string().as_bytes(), now);
        let sent = match out.first() {
            Some(Out::Server(line)) => serde_json::from_slice::<Value>(line).expect("JSON"),
            Some(Out::App(line)) => return serde_json::from_slice(line).expect("JSON"),
            other => panic!("{other:?}"),
        };
        let answer = if accept {
            json!({"jsonrpc": "2.0", "id": sent["id"], "result": {}})
        } else {
            json!({"jsonrpc": "2.0", "id": sent["id"], "error": {"code": -32602, "message": "no such resource"}})
        };
        match router
            .from_server(answer.to_string().as_bytes(), now)
            .first()
        {
            Some(Out::App(line)) => serde_json::from_slice(line).expect("JSON"),
            other => panic!("{other:?}"),
        }
    }

    fn replayed(router: &mut Router) -> Vec<String> {
        router
            .replay()
            .iter()
            .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
            .filter(|m| m["method"] == "resources/subscribe")
            .filter_map(|m| m["params"]["uri"].as_str().map(str::to_owned))
            .collect()
    }

    #[test]
    fn the_router_replays_what_the_server_accepted_and_not_what_it_refused_or_was_unsubscribed() {
        let mut router = ready();
        asked(&mut router, 1, "resources/subscribe", "file:///a", true);
        asked(&mut router, 2, "resources/subscribe", "file:///b", false);
        asked(&mut router, 3, "resources/subscribe", "file:///c", true);
        // Unsubscribed, but the server refused: still subscribed there.
        asked(&mut router, 4, "resources/unsubscribe", "file:///c", false);
        assert_eq!(replayed(&mut router), ["file:///a", "file:///c"]);
        asked(&mut router, 5, "resources/unsubscribe", "file:///a", true);
        assert_eq!(replayed(&mut router), ["file:///c"]);
        // Asked, and the server went before it answered: not kept.
        let now = Instant::now();
        router.from_app(
            br#"{"jsonrpc":"2.0","id":6,"method":"resources/subscribe","params":{"uri":"file:///d"}}"#,
            now,
        );
        router.server_gone("restarted", now);
        assert_eq!(replayed(&mut router), ["file:///c"]);
    }

    #[test]
    fn past_the_bound_the_apps_subscribe_gets_an_error_in_words_and_never_reaches_the_server() {
        let mut router = ready();
        for n in 0..MAX_SUBSCRIPTIONS as u64 {
            let answer = asked(
                &mut router,
                n + 1,
                "resources/subscribe",
                &format!("file:///{n}"),
                true,
            );
            assert!(answer.get("result").is_some(), "{answer}");
        }
        let answer = asked(
            &mut router,
            0,
            "resources/subscribe",
            "file:///one-more",
            true,
        );
        assert_eq!(answer["id"], 0);
        assert_eq!(answer["error"]["code"], -32000);
        let said = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(said.contains("too many resource subscriptions"), "{said}");
        assert_eq!(router.in_flight(), 0, "nothing went to the server");
        // Unsubscribing makes room.
        asked(&mut router, 1, "resources/unsubscribe", "file:///0", true);
        let answer = asked(
            &mut router,
            2,
            "resources/subscribe",
            "file:///one-more",
            true,
        );
        assert!(answer.get("result").is_some(), "{answer}");
        assert_eq!(replayed(&mut router).len(), MAX_SUBSCRIPTIONS);
    }

    #[test]
    fn kept_only_once_accepted_and_forgotten_once_unsubscribed() {
        let mut s = Subscriptions::default();
        s.sent(1, true, "file:///a".into());
        s.sent(2, true, "file:///b".into());
        assert!(s.kept().is_empty(), "kept before the server accepted");
        s.answered(1, true);
        s.answered(2, false);
        assert_eq!(s.kept(), ["file:///a"], "a refused subscribe is not kept");
        s.sent(3, false, "file:///a".into());
        assert_eq!(s.kept(), ["file:///a"]);
        s.answered(3, true);
        assert!(s.kept().is_empty());
        assert_eq!((s.kept_bytes, s.asked_bytes, s.asked_subscribes), (0, 0, 0));
    }

    #[test]
    fn the_bound_counts_what_is_kept_and_what_waits_and_a_uri_kept_is_free() {
        let mut s = Subscriptions::default();
        for n in 0..MAX_SUBSCRIPTIONS as u64 {
            let uri = format!("file:///{n}");
            assert_eq!(s.room_for(&uri), Ok(()));
            s.sent(n, true, uri);
            if n % 2 == 0 {
                s.answered(n, true);
            }
        }
        let refused = s.room_for("file:///more").expect_err("over the bound");
        assert!(
            refused.contains("too many resource subscriptions"),
            "{refused}"
        );
        assert_eq!(s.room_for("file:///0"), Ok(()), "already kept");
        // One that waited and is cancelled makes room again.
        s.forget(1);
        assert_eq!(s.room_for("file:///more"), Ok(()));
        // So does a server that is gone, for all that waited.
        s.server_gone();
        assert_eq!(s.kept().len(), MAX_SUBSCRIPTIONS / 2);
    }

    #[test]
    fn the_bound_in_bytes_holds_for_long_uris() {
        let mut s = Subscriptions::default();
        let long = |n: u64| format!("file:///{n}/{}", "x".repeat(1 << 20));
        let mut n = 0;
        while s.room_for(&long(n)).is_ok() {
            s.sent(n, true, long(n));
            s.answered(n, true);
            n += 1;
        }
        assert_eq!(n, 3, "three URIs of a megabyte and more fit in 4 MiB");
        assert!(s.kept_bytes <= MAX_SUBSCRIPTION_BYTES);
    }
}
