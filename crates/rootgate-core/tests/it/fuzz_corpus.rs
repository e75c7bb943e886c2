//! Replays the committed fuzz corpus (`fuzz/corpus/<target>/`) through the
//! same check functions the cargo-fuzz targets run (`fuzz/checks/`), on
//! stable Rust and without libFuzzer, so every input the fuzzer once found
//! interesting keeps guarding the URI and path code and the client side of a
//! session in CI. Finding new inputs is the fuzzer's job (see
//! `fuzz/README.md`); this file deliberately generates nothing.
//!
//! `FUZZ_CORPUS_DIR=/some/dir` replays every file in that folder instead (a
//! larger local corpus, or a crash artifact), through both targets' checks.

#[path = "../../../../fuzz/checks/uri_paths.rs"]
mod uri_paths;

#[path = "../../../../fuzz/checks/session_bytes.rs"]
mod session_bytes;

#[path = "../../../../fuzz/checks/bridge_route.rs"]
mod bridge_route;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

/// The inputs of one target's committed corpus, or of `FUZZ_CORPUS_DIR`.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = match std::env::var_os("FUZZ_CORPUS_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/corpus")
            .join(target),
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read the corpus {}: {e}", dir.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "the corpus {} is empty", dir.display());
    files
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).expect("read a corpus file");
            (path, bytes)
        })
        .collect()
}

/// Runs `check` on every input and names each input that broke an
/// invariant (the invariant's own message is printed by the panic hook).
fn replay(target: &str, check: impl Fn(&[u8])) {
    let inputs = inputs(target);
    let broken: Vec<String> = inputs
        .iter()
        .filter(|(_, bytes)| catch_unwind(AssertUnwindSafe(|| check(bytes))).is_err())
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert!(
        broken.is_empty(),
        "{} of {} inputs broke an invariant: {broken:#?}",
        broken.len(),
        inputs.len()
    );
}

#[test]
fn uri_paths_corpus_keeps_its_invariants() {
    let fence = tempfile::tempdir().expect("tempdir");
    let world = uri_paths::World::build(fence.path());
    replay("uri_paths", |bytes| uri_paths::check(&world, bytes));
}

#[test]
fn session_bytes_corpus_keeps_its_invariants() {
    let world = session_bytes::SessionWorld::build();
    replay("session_bytes", |bytes| session_bytes::check(&world, bytes));
}

#[test]
fn bridge_route_corpus_keeps_its_invariants() {
    replay("bridge_route", bridge_route::check);
}
