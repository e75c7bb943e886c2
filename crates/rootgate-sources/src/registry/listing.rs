//! A registry search as the window lists it: each server found, with each
//! of its packages and whether Rootgate can run it (and why not, in words),
//! and whether the answer came from the cache.
//!
//! What this module does not do: ask the registry (see `client`) or build
//! the offer of a package the person chooses (see `mapping`); it reuses
//! `mapping` to say whether a package can run, so the list and the install
//! dialog never disagree.

use serde::Serialize;

use super::Fetched;
use super::mapping::{self, Chosen};
use super::server_json::{ServerList, ServerResponse};

/// One package of a server found, as a choice.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "RegistryPackage")]
pub struct PackageChoice {
    /// Its place among the entry's packages: what the window chooses by.
    pub index: u32,
    /// `npm`, `pypi`, `mcpb`, `oci`…
    pub kind: String,
    pub identifier: String,
    pub version: Option<String>,
    pub runnable: bool,
    /// Why Rootgate does not run it, when it does not.
    pub why_not: Option<String>,
}

/// One server found.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "RegistryListing")]
pub struct Listing {
    pub name: String,
    pub title: String,
    pub description: String,
    pub version: String,
    pub packages: Vec<PackageChoice>,
    /// It is only reached over the network: listed, not installed.
    pub remote: bool,
}

/// A search's answer for the window.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[ts(rename = "RegistryFound")]
pub struct Found {
    /// The registry asked.
    pub registry: String,
    pub servers: Vec<Listing>,
    /// When the answer was kept, if it came from the cache because the
    /// registry could not be reached (ms since the epoch).
    pub from_cache: Option<u64>,
}

/// `fetched` from `registry` as the window lists it.
pub fn found(registry: &str, fetched: &Fetched<ServerList>) -> Found {
    Found {
        registry: registry.to_owned(),
        servers: fetched
            .value
            .servers
            .iter()
            .map(|answer| listing(registry, answer))
            .collect(),
        from_cache: fetched.cached_at,
    }
}

/// One server of a search, each package judged as `mapping` would add it.
pub fn listing(registry: &str, answer: &ServerResponse) -> Listing {
    let entry = &answer.server;
    let packages = entry
        .packages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let why_not = match mapping::chosen(registry, answer, Some(p)) {
                Chosen::Offer(offer) => offer.about.unfit,
                // A bundle is judged once it is downloaded and read.
                Chosen::Bundle(_) => None,
            };
            PackageChoice {
                index: u32::try_from(i).unwrap_or(u32::MAX),
                kind: p.registry_type.clone(),
                identifier: p.identifier.clone(),
                version: p.version.clone(),
                runnable: why_not.is_none(),
                why_not,
            }
        })
        .collect();
    Listing {
        name: entry.name.clone(),
        title: entry.title.clone().unwrap_or_else(|| entry.name.clone()),
        description: entry.description.clone(),
        version: entry.version.clone(),
        packages,
        remote: entry.packages.is_empty() && !entry.remotes.is_empty(),
    }
}
