//! The app's requests when Rootgate stops the server only to start it
//! again with other folders (a withdrawal, a new ruleset, new folder
//! arguments): which of them go to the new start instead of failing.
//!
//! Two kinds are sent again, and only these:
//! - a request not yet handed to the old life (held for its first folders
//!   or for the person's answer, or waiting for a life while the server
//!   restarts): the server never saw it, so sending it to the new start is
//!   always safe. The relay marks a request handed ([`Router::handed`])
//!   when it puts the line on a life's wire; the line itself stays with
//!   whoever holds it (the relay's hold, its wait for a ready life), which
//!   sends it to the next life;
//! - a request handed to the old life and not answered, when sending it
//!   twice cannot do twice what it does: the methods that only read
//!   (`ping`, the lists, `resources/read`, `prompts/get`,
//!   `completion/complete`) and a `tools/call` of a tool the server listed
//!   as read-only (`readOnlyHint`). Its line is kept from when it was
//!   routed, and sent after what the new start must be told again.
//!
//! Everything else handed to the old life fails as before ("the server
//! was stopped by Rootgate before it answered"): a tool that may write, or
//! one the server said nothing about, may have done its work before the
//! stop, and doing it again is not Rootgate's to decide. A read-only claim
//! is the server's own word; a server that lies about it only has its own
//! tool run twice.
//!
//! What is not here: when a restart happens (the session), how the relay
//! hands lines over (`relay`), and the hold itself.

use super::*;

/// The start of a request line the bridge writes under its own id
/// (`lines::request_line`): the id follows, then `,"method":`.
const REQUEST_HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;

/// The bridge's id of a request line it wrote (`lines::request_line`),
/// read from its fixed head, without parsing the rest; `None` for any
/// other line (a notification, an answer to the server's request).
pub fn request_id(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(REQUEST_HEAD)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || !rest[digits..].starts_with(br#","method":"#) {
        return None;
    }
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// Whether a request written to a server and left unanswered may be sent
/// again to its next start: it only reads. `read_only` is what the server
/// listed of the tool a `tools/call` names.
pub(super) fn safe_to_repeat(method: &str, read_only: bool) -> bool {
    match method {
        "ping"
        | "tools/list"
        | "resources/list"
        | "resources/templates/list"
        | "resources/read"
        | "prompts/list"
        | "prompts/get"
        | "completion/complete" => true,
        "tools/call" => read_only,
        _ => false,
    }
}

impl Router {
    /// The legacy request `ours` (`method` on `target`, written as `line`)
    /// was routed now: it is not on a life's wire yet, and its line is kept
    /// when it only reads (see [`safe_to_repeat`]). What was answered or
    /// refused is forgotten here too, now and then, so both stay as small
    /// as what is in flight.
    pub(super) fn routed_for_server(
        &mut self,
        ours: u64,
        method: &str,
        target: Option<&str>,
        line: &[u8],
    ) {
        if self.unhanded.len() + self.again.len() > 2 * self.to_server.len() + 64 {
            let to_server = &self.to_server;
            self.unhanded.retain(|id| to_server.contains_key(id));
            self.again.retain(|id, _| to_server.contains_key(id));
        }
        self.unhanded.insert(ours);
        let read_only = method == "tools/call"
            && target.is_some_and(|tool| self.claims.get(tool).is_some_and(|c| c.says_read_only()));
        if safe_to_repeat(method, read_only) {
            self.again.insert(ours, line.to_vec());
        }
    }

    /// How many of the app's requests were put on the current life's wire
    /// and wait for its answer.
    pub(crate) fn handed_in_flight(&self) -> usize {
        self.to_server
            .iter()
            .filter(|(ours, pending)| {
                matches!(pending, ToServer::App(_)) && !self.unhanded.contains(ours)
            })
            .count()
    }

    /// The request `ours` was put on a life's wire.
    pub fn handed(&mut self, ours: u64) {
        self.unhanded.remove(&ours);
    }

    /// Whether the request `ours` still waits for its answer (it was not
    /// answered already, with an error, while its line waited for a life).
    pub(crate) fn awaits(&self, ours: u64) -> bool {
        self.to_server.contains_key(&ours)
    }

    /// Whether the app request `ours` waits for a life to be put on, as
    /// one kept across a restart (see [`Router::server_restarting`]).
    pub(crate) fn waits_for_a_life(&self, ours: u64) -> bool {
        self.unhanded.contains(&ours) && self.awaits(ours)
    }

    /// The server's current life is being stopped by Rootgate to start
    /// again with other folders: the app's requests not handed to it wait
    /// for the next (their holders send them), those handed to it that
    /// only read are sent again to the next ([`Router::take_resend`]), and
    /// the rest fail with `why`, as when a server goes
    /// ([`Router::server_gone`]).
    pub(crate) fn server_restarting(&mut self, why: &str, now: Instant) -> Vec<Out> {
        // Kept from an earlier restart whose next life never started.
        let mut resend = std::mem::take(&mut self.resend);
        let mut kept = Vec::new();
        let mut ours_all: Vec<u64> = self.to_server.keys().copied().collect();
        ours_all.sort_unstable();
        for ours in ours_all {
            let keep = match self.to_server.get(&ours) {
                Some(ToServer::App(_)) if self.unhanded.contains(&ours) => true,
                Some(ToServer::App(_)) if self.again.contains_key(&ours) => {
                    // Written to the old life: sent again, and handed once
                    // it is.
                    self.unhanded.insert(ours);
                    resend.push(ours);
                    true
                }
                _ => false,
            };
            if keep && let Some(pending) = self.to_server.remove(&ours) {
                kept.push((ours, pending));
            }
        }
        let out = self.server_gone(why, now);
        for (ours, pending) in kept {
            if let ToServer::App(p) = &pending {
                self.app_ids.insert(p.app_id.clone(), ours);
            }
            self.to_server.insert(ours, pending);
        }
        resend.sort_unstable();
        resend.dedup();
        self.resend = resend;
        out
    }

    /// The lines to send the next life after what it must be told again:
    /// the requests written to the old life that only read, in the order
    /// they were routed; each counts as handed from now.
    pub(crate) fn take_resend(&mut self) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        for ours in std::mem::take(&mut self.resend) {
            if let Some(line) = self.again.get(&ours)
                && self.to_server.contains_key(&ours)
            {
                self.unhanded.remove(&ours);
                lines.push(line.clone());
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // The server lists one tool that only reads and one that writes.
        let list = json!({"jsonrpc": "2.0", "id": 50, "method": "tools/list"});
        let outs = router.from_app(list.to_string().as_bytes(), now);
        let Out::Server(line) = &outs[0] else {
            panic!("{outs:?}")
        };
        let ours = request_id(line).expect("the bridge's id");
        router.handed(ours);
        let tools = json!({"jsonrpc": "2.0", "id": ours, "result": {"tools": [
            {"name": "list", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}},
            {"name": "write", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": false, "idempotentHint": true}}]}});
        router.from_server(tools.to_string().as_bytes(), now);
        router
    }

    /// Routes an app request; returns the line for the server and its id.
    fn request(router: &mut Router, id: u64, method: &str, params: Value) -> (Vec<u8>, u64) {
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let outs = router.from_app(line.to_string().as_bytes(), Instant::now());
        let line = outs
            .into_iter()
            .find_map(|o| match o {
                Out::Server(line) => Some(line),
                _ => None,
            })
            .expect("a line for the server");
        let ours = request_id(&line).expect("the bridge's id");
        (line, ours)
    }

    fn app_ids_in(outs: &[Out]) -> Vec<Value> {
        outs.iter()
            .filter_map(|o| match o {
                Out::App(line) => {
                    let v: Value = serde_json::from_slice(line).expect("JSON");
                    Some(v["id"].clone())
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_bridges_id_is_read_from_the_lines_it_writes_and_from_no_other() {
        let line = request_line("42", "tools/call", None);
        assert_eq!(request_id(&line), Some(42));
        // An answer to the server's request, with the server's number id.
        assert_eq!(request_id(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#), None);
        assert_eq!(
            request_id(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        assert_eq!(
            request_id(br#"{"jsonrpc":"2.0","id":"7","method":"x"}"#),
            None
        );
    }

    #[test]
    fn a_restart_for_folders_keeps_what_the_old_life_never_had_and_what_only_reads() {
        let mut router = ready();
        // Handed to the old life: a read-only tool, a writing one, a read.
        let (read_line, read) = request(&mut router, 1, "tools/call", json!({"name": "list"}));
        let (_, write) = request(&mut router, 2, "tools/call", json!({"name": "write"}));
        let (res_line, res) = request(
            &mut router,
            3,
            "resources/read",
            json!({"uri": "file:///a"}),
        );
        for ours in [read, write, res] {
            router.handed(ours);
        }
        // Held before it was written: never handed.
        let (_, held) = request(&mut router, 4, "tools/call", json!({"name": "write"}));

        let outs = router.server_restarting("the server was stopped by Rootgate", Instant::now());
        // Only the write the old life may have done fails.
        assert_eq!(app_ids_in(&outs), vec![json!(2)]);
        // The reads are sent again to the next start, in order; the held
        // request is its holder's to send.
        assert_eq!(router.take_resend(), vec![read_line, res_line]);
        assert!(router.take_resend().is_empty(), "sent once");
        router.handed(held);
        // Their answers reach the app under its own ids.
        for (ours, app) in [(read, 1), (res, 3), (held, 4)] {
            let answer = json!({"jsonrpc": "2.0", "id": ours, "result": {}});
            let outs = router.from_server(answer.to_string().as_bytes(), Instant::now());
            assert_eq!(app_ids_in(&outs), vec![json!(app)], "{outs:?}");
        }
        assert_eq!(router.in_flight(), 0);
    }

    #[test]
    fn a_server_that_goes_fails_every_request_as_before() {
        let mut router = ready();
        let (_, read) = request(&mut router, 1, "tools/call", json!({"name": "list"}));
        router.handed(read);
        request(&mut router, 2, "tools/call", json!({"name": "write"}));
        let outs = router.server_gone("the server stopped", Instant::now());
        assert_eq!(app_ids_in(&outs), vec![json!(1), json!(2)]);
        assert!(router.take_resend().is_empty());
    }
}
