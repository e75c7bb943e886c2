//! The model's integration tests, as one test binary: the store's
//! durability under SIGKILL, the paths and URIs a folder is judged and
//! named by (property tests, the fuzzer's findings, and the round trip
//! through other languages' URI decoders). Their shared set-up is
//! `rootgate-test-support` without its features: nothing above the model.
//! Not here: the keyring's test, whose other tests start servers through
//! the supervisor with the same helpers (the core's `tests/it/keyring.rs`).
//!
//! One binary, not one per file, for the link time (see the core's
//! `tests/it/main.rs`). A test's name keeps its file as its module
//! (`durability::…`), so nextest's filters by name find it, and a test
//! that runs this binary again asks for itself by that name (see
//! `rootgate_test_support::test_name`). Not here: the model's unit tests,
//! which stay beside their code.

mod durability;
mod fuzz_findings;
mod properties;
mod uri_round_trip;
