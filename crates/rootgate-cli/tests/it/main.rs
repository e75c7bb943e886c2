//! The command's integration tests, as one test binary: `rootgate connect`
//! between AI-app stand-ins on the official SDK clients and real servers,
//! the app commands, the way into the window, and the faults in between.
//! Their shared set-up is `rootgate_test_support::app`.
//!
//! One binary, not one per file: each integration-test file is a binary
//! of its own that links every dependency with its debug info, which
//! dominated the test command's build on a 2-core machine. A test's name
//! keeps its former file as its module (`connect::…`), so nextest's filters
//! by name still find it.

mod app_variables;
mod apps;
mod args_servers;
mod asked;
mod asked_window;
mod bundles;
mod calls_record;
mod connect;
mod faults;
mod first_request;
mod forged;
mod four_apps;
mod gate;
mod help;
mod hidden_tools;
mod model;
mod modern;
mod more_apps;
mod notes;
mod one_reading;
mod one_writer;
mod paused_words;
mod registry;
mod route_safety;
mod second_start;
mod secrets_in_args;
mod settings_followed;
mod shared_lives;
mod socket_owner;
mod suggestions;
mod tool_asks;
mod tray;
mod watches;
mod window;
mod window_back;
mod withdrawn_when_shown;
mod workspace;
