//! `rootgate-launcher`: the process between Rootgate and each server it
//! runs. It puts the server in its own process group, ends it when Rootgate
//! goes, and applies the Landlock rules of enforced roots before the
//! server's program starts. Its foreign stack is the kernel's: nix, rustix
//! and landlock.
//!
//! It is not the session (which starts a launcher and speaks MCP to what
//! it runs) and holds no settings; it reads a server's specification and
//! its shared folders from `rootgate-model`. Its small binary,
//! `rootgate-launcher` (`src/main.rs`), links only this crate and the model.
//!
//! Modules: `launcher` (the launcher's own side: arguments, the watch on
//! the parent, the exec), `enforcement` (what a held server may touch, and the Landlock
//! ruleset), `policy` (what a held server may touch, as data), `sandbox` (bubblewrap's command line), `procs`
//! (words about process exits and signals).

pub mod enforcement;
pub mod launcher;
pub mod policy;
pub mod procs;
pub mod sandbox;
pub mod seccomp;
