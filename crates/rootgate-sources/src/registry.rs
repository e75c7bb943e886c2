//! The MCP Registry (`registry.modelcontextprotocol.io`, or another at the
//! address the person sets): searching it, reading one server version, and
//! turning it into an [`Offer`](crate::offer::Offer) that
//! [`install`](crate::installed::install) adds as a server.
//!
//! The pieces: `server_json` (the API's answers as types), `client` (HTTPS
//! with timeouts and a size cap, and the answers kept in `cache` for when
//! there is no network), `mapping` (which package runs and as what exact
//! command) and `inputs` (arguments and environment variables as settings,
//! folders as placeholders). An MCP bundle package is downloaded, checked
//! against its digest, and handed to the bundle reader ([`bundle_offer`]).
//!
//! What this module does not do: install (see `installed`), approve a
//! command or share a folder, or print anything: the command's and the
//! window's words are theirs.

pub mod cache;
pub mod client;
pub mod inputs;
pub mod listing;
pub mod mapping;
pub mod server_json;
#[cfg(test)]
mod tests;

use thiserror::Error;

pub use client::{Client, Fetched, checked_address};
pub use mapping::{BundleRef, Chosen};

/// The official registry.
pub const DEFAULT_REGISTRY: &str = "https://registry.modelcontextprotocol.io";
/// The variable that names another registry.
pub const REGISTRY_ENV: &str = "ROOTGATE_REGISTRY";

/// The registry to ask: `given` (a `--registry` option, the window's
/// preference), else `$ROOTGATE_REGISTRY`, else the official one.
pub fn address(given: Option<&str>) -> String {
    given
        .map(str::to_owned)
        .or_else(|| {
            std::env::var(REGISTRY_ENV)
                .ok()
                .filter(|v| !v.trim().is_empty())
        })
        .unwrap_or_else(|| DEFAULT_REGISTRY.to_owned())
}

/// Why the registry could not answer, in words that name what was asked.
#[derive(Debug, Error)]
pub enum RegistryError {
    #[error("cannot reach the registry at {registry} ({reason})")]
    NoNetwork { registry: String, reason: String },
    #[error("the registry answered {status} {said} to {url}")]
    Http {
        url: String,
        status: u16,
        said: String,
    },
    #[error("the registry's answer to {url} is not JSON it can read: {reason}")]
    NotJson { url: String, reason: String },
    #[error("the answer to {url} is larger than the {cap} bytes Rootgate accepts")]
    TooLarge { url: String, cap: u64 },
    #[error(
        "{address} is not an HTTPS address (plain HTTP is used only to this machine, for a local mirror)"
    )]
    Insecure { address: String },
    #[error(
        "the MCP bundle at {url} has no SHA-256 digest to check it against, so it is not downloaded"
    )]
    NoDigest { url: String },
    #[error(
        "the MCP bundle downloaded from {url} is not the one published: its SHA-256 is {got}, not {expected}"
    )]
    Digest {
        url: String,
        expected: String,
        got: String,
    },
    #[error("cannot keep the download in {path}: {reason}")]
    Cache { path: String, reason: String },
    #[error("{0}")]
    Other(String),
}

/// The MCP bundle `bundle` points at: downloaded into the cache (or found
/// there), its digest checked, and read by the bundle reader (nothing is
/// unpacked until it is installed, under `bundles`' root), remembered as
/// the registry entry it came from, so that installing a later version of
/// the entry updates the server it made.
pub fn bundle_offer(
    client: &Client,
    bundle: &BundleRef,
    bundles: &crate::bundle::Bundles,
) -> Result<crate::bundle::Opened, RegistryError> {
    let sha256 = bundle
        .sha256
        .as_deref()
        .ok_or_else(|| RegistryError::NoDigest {
            url: bundle.url.clone(),
        })?;
    let file = client.bundle(&bundle.url, sha256)?;
    let mut opened = bundles
        .open(&file)
        .map_err(|e| RegistryError::Other(e.to_string()))?;
    opened.offer.source = bundle.source.clone();
    Ok(opened)
}
