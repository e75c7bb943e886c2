//! What a running server says on its own about what it offers: the kinds
//! of its offers ([`OfferKind`]) and its notices ([`Notice`]: progress, a
//! list that changed, a resource that was updated).
//!
//! A leaf: the protocol handler (`protocol`) that hears the notices, the
//! listeners that wait for them (`listen`) and the tries that follow them
//! (`offers`) all use these words, so they live below all three, and none
//! of the three needs another for them.

use rmcp::model::ProgressNotificationParam;
use serde::{Deserialize, Serialize};

/// The kinds of things a server offers.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum OfferKind {
    Tools,
    Resources,
    Templates,
    Prompts,
}

/// What the server said on its own about what it offers.
#[derive(Debug, Clone)]
pub enum Notice {
    /// `notifications/progress`, for whichever request carries the token.
    Progress(ProgressNotificationParam),
    /// `notifications/{tools,resources,prompts}/list_changed`.
    ListChanged(OfferKind),
    /// `notifications/resources/updated` for a resource followed.
    ResourceUpdated { uri: String },
}
