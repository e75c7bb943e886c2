//! Rootgate's core: which folders each local MCP server may see, and the
//! sessions that tell them.
//!
//! The crate holds folders and their checks (`folders`, `roots`, `uri`, `names`),
//! consent (`consent`), server specifications (`servers`), the settings file
//! (`settings`), secret environment values and the keyring (`secrets`), the
//! store that saves and publishes (`store`), and one actor
//! per running server (`session`), with its timeline and stderr log, and the
//! processes below them (`launcher`, `procs`). It has no
//! GUI dependency and builds and tests headless; the desktop app is a thin
//! shell over it. It deliberately holds no UI text beyond error and warning
//! messages, and never takes a path from anywhere but a caller that got it
//! from the person at the machine.

pub mod apps;
pub mod bridge;
pub mod connections;
pub mod consent;
pub mod downloads;
pub mod enforcement;
pub mod folders;
pub mod ids;
pub mod instance;
pub mod launcher;
pub mod monitor;
pub mod mounts;
pub mod names;
pub mod placeholders;
pub mod procs;
pub mod roots;
pub mod secrets;
pub mod servers;
pub mod session;
pub mod settings;
pub mod store;
pub mod supervisor;
pub mod templates;
pub mod timeline;
pub mod uri;
