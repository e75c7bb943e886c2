//! The core's integration tests, as one test binary: one module per area
//! (the supervisor, sessions against real and in-memory servers, the
//! launcher, the store's durability, the AI apps' files, the fuzz corpus,
//! load). Their shared set-up is `rootgate-test-support`.
//!
//! One binary, not one per file: each integration-test file is a binary
//! of its own that links every dependency with its debug info, and linking
//! twenty-odd of them dominated the test command's build on a 2-core
//! machine. A test's name keeps its former file as its module
//! (`supervisor::…`), so nextest's filters by name still find it; tests that
//! run this binary again ask for themselves by that full name (see
//! `rootgate_test_support::test_name`). Not here: the crates' unit tests,
//! which stay beside their code.

mod app_configs_goose;
mod app_configs_json;
mod app_configs_more;
mod app_identity;
mod app_imports;
mod app_routes;
mod availability;
mod durability;
mod faults;
mod final_set;
mod first_try;
mod fuzz_corpus;
mod fuzz_findings;
mod held;
mod instance;
mod keyring;
mod launcher;
mod load;
mod offers;
mod paused;
mod pickup;
mod placeholders;
mod properties;
mod protocol_in_memory;
mod real_filesystem_server;
mod real_fixture_server;
mod real_modern_servers;
mod real_python_sdk_server;
mod restarts;
mod supervisor;
mod supervisor_offers;
mod uri_round_trip;
