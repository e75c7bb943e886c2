//! Fuzz target: any bytes as a server's stdout, read by the client side of
//! a session (`RootsClient` served by rmcp over an in-memory pipe). The
//! invariants are in `fuzz/checks/session_bytes.rs`, shared with the core's
//! corpus replay test; this file only wires them to libFuzzer.
#![no_main]

#[path = "../checks/session_bytes.rs"]
mod session_bytes;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn world() -> &'static session_bytes::SessionWorld {
    static WORLD: OnceLock<session_bytes::SessionWorld> = OnceLock::new();
    WORLD.get_or_init(session_bytes::SessionWorld::build)
}

fuzz_target!(|data: &[u8]| {
    session_bytes::check(world(), data);
});
