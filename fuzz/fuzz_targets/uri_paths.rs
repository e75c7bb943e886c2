//! Fuzz target: any bytes as a URI, a path, a Windows path and a chosen
//! folder, through `rootgate_model::uri` and `rootgate_model::folders::check`.
//! The invariants are in `fuzz/checks/uri_paths.rs`, shared with the core's
//! corpus replay test; this file only wires them to libFuzzer.
#![no_main]

#[path = "../checks/uri_paths.rs"]
mod uri_paths;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// The folder tree chosen paths resolve in. It lives at a fixed place in
/// the temporary folder so that every fuzzing process (libFuzzer's `-jobs`
/// and `-fork` start many) shares one tree instead of leaving one each.
fn world() -> &'static uri_paths::World {
    static WORLD: OnceLock<uri_paths::World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let fence = std::env::temp_dir().join("rootgate-fuzz-uri-paths");
        std::fs::create_dir_all(&fence).expect("create the fence folder");
        uri_paths::World::build(&fence)
    })
}

fuzz_target!(|data: &[u8]| {
    uri_paths::check(world(), data);
});
