//! `rootgate-core`: the façade. The desktop shell (`src-tauri`) and the
//! command (`crates/rootgate-cli`) depend on this crate alone, and call the
//! services of [`supervisor::Supervisor`] (folders, consent, servers,
//! questions, tool consent, apps, installs, connections, preferences), or,
//! from a command with no window, [`headless::Headless`].
//!
//! The layers it is built on are their own crates, lowest first (see
//! ARCHITECTURE.md, "Layers"): `rootgate-model` (folders, consent, servers,
//! settings, store, timeline, secrets), `rootgate-launcher` (the process
//! each server runs under, Landlock), `rootgate-session` (MCP, one session
//! per server), `rootgate-apps` (the AI apps' config files) and
//! `rootgate-bridge` (`rootgate connect`, and the connections the window
//! lists). They are re-exported here under the module names they had when
//! they were one crate, so a caller names one crate, and so that the
//! shell's and the command's paths did not change with the split.
//!
//! What is not here: any GUI dependency, and any decision of the layers
//! below; this crate only puts them together. Its modules of its own are
//! `supervisor` (the window's services and the root that wires them),
//! `headless` (the command's, without a window) and `connecting` (the one
//! import of an AI app's servers, and the one plan of a route, both run).

pub use rootgate_apps as apps;
pub use rootgate_bridge as bridge;
pub use rootgate_bridge::{connections, instance};
pub use rootgate_launcher::{enforcement, launcher, procs};
pub use rootgate_model::{
    autostart, calls, consent, downloads, folders, ids, monitor, mounts, names, placeholders,
    preferences, questions, roots, secrets, servers, settings, store, templates, timeline, tools,
    uri,
};
pub use rootgate_notify as desktop;
pub use rootgate_session as session;
pub use rootgate_sources as sources;

pub mod connecting;
pub mod headless;
pub mod supervisor;
