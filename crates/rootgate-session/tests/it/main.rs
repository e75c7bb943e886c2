//! The session's integration tests, as one test binary: sessions against
//! real servers (our fixture, the npm filesystem and everything servers,
//! the Python and TypeScript SDKs of both eras) and against a fake one in
//! memory, misbehaving servers, servers that take their folders as
//! arguments or do not follow `list_changed`, the launcher's guarantees
//! and the held server's sandbox under a session, and load. Their shared
//! set-up is `rootgate_test_support::harness` (its `session` feature): a
//! store in a temporary folder, a timeline and sessions, nothing of the
//! supervisor's.
//!
//! One binary, not one per file, for the link time (see the core's
//! `tests/it/main.rs`). A test's name keeps its file as its module
//! (`pickup::…`), so nextest's filters by name find it, and a test that
//! runs this binary again asks for itself by that name (see
//! `rootgate_test_support::test_name`). Not here: the session's unit
//! tests, which stay beside their code.

mod faults;
mod final_set;
mod first_try;
mod held;
mod launcher;
mod load;
mod offers;
mod pickup;
mod placeholders;
mod protocol_in_memory;
mod real_filesystem_server;
mod real_fixture_server;
mod real_modern_servers;
mod real_python_sdk_server;
