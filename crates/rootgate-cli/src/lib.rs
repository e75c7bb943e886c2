//! The commands of `rootgate` that people run in a terminal, shared by the
//! crate's two binaries.
//!
//! `rootgate` (src/main.rs) is what every AI app starts for each connection
//! (`rootgate connect NAME`), so it links only what the bridge and the app
//! commands need: `apps_cmd` and `listing` (the window's "Connect an app"
//! actions and lists) and `help`. `rootgate-installer` (src/bin) runs
//! `search`, `add` and `install`, which read the MCP Registry and MCP
//! bundles through the sources crate (HTTPS, zip, JSON Schema): code a
//! bridge never runs, yet whose relocations every process that links it
//! applies at start-up, about 0.8 MiB of resident memory and a few
//! milliseconds per connection (BENCHMARKS.md). `rootgate` hands those
//! three commands to it with `exec` (see `installer`), so people still type
//! `rootgate install`.
//!
//! What is not here: the bridge (`rootgate_core::bridge`) and reading the
//! command line of `rootgate` itself (src/main.rs).

pub mod apps_cmd;
pub mod help;
pub mod install_cmd;
pub mod installer;
pub mod listing;
pub mod registry_cmd;
