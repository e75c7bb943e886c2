//! Fuzz target: any bytes an AI app and its server write, interleaved, cut
//! into lines by the bridge's line reader and routed by its router. The
//! invariants are in `fuzz/checks/bridge_route.rs`, shared with the core's
//! corpus replay test; this file only wires them to libFuzzer.
#![no_main]

#[path = "../checks/bridge_route.rs"]
mod bridge_route;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    bridge_route::check(data);
});
