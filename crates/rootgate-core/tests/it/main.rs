//! The core's integration tests, as one test binary: the supervisor the
//! window runs, driven as the window drives it (folders that change under
//! it, restarts, a paused window, offers, one Rootgate per settings file,
//! a held server's network and secrets in a real keyring through it), and
//! the fuzz corpus, whose checks (shared with the cargo-fuzz targets) name
//! the layers through this crate. Their shared set-up is
//! `rootgate-test-support` with its `core` feature. The layers' own
//! integration tests are beside them: `rootgate-model`, `rootgate-session`
//! and `rootgate-apps` each have a `tests/it` of their own.
//!
//! One binary, not one per file: each integration-test file is a binary
//! of its own that links every dependency with its debug info, and linking
//! twenty-odd of them dominated the test command's build on a 2-core
//! machine. A test's name keeps its former file as its module
//! (`supervisor::…`), so nextest's filters by name still find it; tests that
//! run this binary again ask for themselves by that full name (see
//! `rootgate_test_support::test_name`). Not here: the crates' unit tests,
//! which stay beside their code.

mod availability;
mod connections_end;
mod fuzz_corpus;
mod held;
mod instance;
mod keyring;
mod paused;
mod restarts;
mod supervisor;
mod supervisor_offers;
