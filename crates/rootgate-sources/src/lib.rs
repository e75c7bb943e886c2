//! Where servers are published, and how one becomes a Rootgate server:
//! MCP Bundles (`.mcpb` files, Claude Desktop's one-click format) and the
//! MCP Registry's `server.json` entries.
//!
//! Both describe what Rootgate asks a person for when they add a server:
//! the command, which of its settings are folders, which are secrets. Each
//! source reads its format into one [`offer::Offer`]: what to show before
//! anything is installed, a server draft with its folders as placeholders,
//! and the settings the person fills. [`installed`] turns an offer into a
//! server in the store and remembers where it came from, so that an update
//! keeps the person's answers and a removal takes the bundle's files.
//!
//! What this crate does not do: share a folder (a folder setting becomes a
//! placeholder, and the folders come from consent), approve a command (a
//! new or changed command waits for the person), or run anything. The
//! window's and the terminal's words around it are the core's and the
//! command's.

pub mod bundle;
pub mod installable;
pub mod installed;
pub mod offer;
pub mod registry;
