//! What the window and the commands hold between showing a published
//! server and installing it: an offer from the registry, or a bundle read
//! and checked (which keeps its bytes, to unpack only once the person
//! says install).
//!
//! What this module does not do: read, unpack or record anything itself;
//! it sends each kind to the code that does (`bundle`, `installed`).

use std::collections::BTreeMap;

use rootgate_model::store::Store;

use crate::bundle::{BundleError, Opened};
use crate::installed::{self, Installed, Installs};
use crate::offer::Offer;

/// A published server shown and not yet installed.
pub enum Installable {
    /// A registry package run by a command (npm, PyPI): nothing to unpack.
    Offer(Box<Offer>),
    /// An MCP bundle, from a file or downloaded from the registry.
    Bundle(Box<Opened>),
}

impl Installable {
    /// What is shown of it.
    pub fn offer(&self) -> &Offer {
        match self {
            Installable::Offer(offer) => offer,
            Installable::Bundle(opened) => &opened.offer,
        }
    }

    /// Installs it with the person's `values`: a bundle is unpacked first,
    /// and nothing is left of it when that or the install fails.
    pub fn install(
        &self,
        store: &Store,
        installs: &Installs,
        values: &BTreeMap<String, String>,
    ) -> Result<Installed, BundleError> {
        match self {
            Installable::Offer(offer) => {
                Ok(installed::install(store, installs, offer, values, None)?)
            }
            Installable::Bundle(opened) => opened.install(store, installs, values),
        }
    }
}
