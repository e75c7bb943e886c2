//! Fuzz target: any line an AI app writes, routed by a fresh bridge and
//! judged against the real `JSON.parse` (Node) and `json.loads` (Python),
//! one long-lived process each. The checks are in
//! `fuzz/checks/one_reading.rs`, shared with the bridge's proptest; this
//! file only wires them to libFuzzer and to the bridge.
#![no_main]

#[path = "../checks/one_reading.rs"]
mod one_reading;

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use rootgate_bridge::route::{MAX_DEPTH, Out, Router};
use rootgate_model::tools::{ToolRules, ToolSetting};
use serde_json::{Value, json};

use one_reading::{Bridge, HIDDEN_TOOL, Oracles, Routed};

/// A bridge as an app meets it: initialized, with the hidden tool hidden.
struct Fresh;

impl Bridge for Fresh {
    fn route(&mut self, line: &str) -> Routed {
        let mut router = Router::new();
        let now = tokio::time::Instant::now();
        let init = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "app", "version": "1"}}});
        router.from_app(init.to_string().as_bytes(), now);
        let sent: Value = router
            .initialize_for_server()
            .and_then(|l| serde_json::from_slice(&l).ok())
            .expect("the server's initialize");
        let answer = json!({"jsonrpc": "2.0", "id": sent["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "s", "version": "1"}}});
        router.from_server(answer.to_string().as_bytes(), now);
        let mut rules = ToolRules::default();
        rules.set(None, HIDDEN_TOOL, Some(ToolSetting::Hidden));
        router.set_tool_rules(rules);
        let mut routed = Routed::default();
        for out in router.from_app(line.as_bytes(), now) {
            match out {
                Out::Server(l) => routed.to_server.push(text(&l)),
                Out::App(l) => routed.to_app.push(text(&l)),
                _ => {}
            }
        }
        routed
    }

    fn max_depth(&self) -> usize {
        MAX_DEPTH
    }
}

fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(line).trim_end().to_owned()
}

static ORACLES: OnceLock<Mutex<Oracles>> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    // One line, as the bridge's line reader hands it to the router.
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    if line.contains('\n') {
        return;
    }
    let mut oracles = ORACLES
        .get_or_init(|| Mutex::new(Oracles::start()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    oracles.check(&mut Fresh, line);
});
