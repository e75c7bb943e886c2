//! How a server stands with its folders: what it was last given, whether it
//! has picked up the newest change, and whether it follows changes at all.
//!
//! The session actor publishes a [`Delivery`] on a `watch` whenever any of
//! that moves; the app shows it per server and per folder ("told", "waiting
//! for the server", "not picked up yet", "restarted to apply"). This module
//! only describes; the actor decides (see `list_changed` for when a change counts
//! as not picked up) and the supervisor remembers what was learned.

use std::collections::HashSet;
use std::sync::Arc;

use serde::Serialize;

use rootgate_model::consent::SharedRoot;
use rootgate_model::ids::RootId;

/// Where the newest change to a server's folders stands.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum DeliveryState {
    /// The server is not running.
    NotRunning,
    /// The server holds the list it is granted now, and nothing it was given
    /// earlier can still land after it.
    UpToDate,
    /// The list changed; the server has been (or is about to be) told and
    /// has not asked for it yet.
    Waiting { since_ms: u64 },
    /// The server was given the current list while an older answer may
    /// still have been applying; one more notification confirms it.
    Confirming,
    /// The server was told and did not ask within the pickup time.
    NotPickedUp { since_ms: u64 },
    /// A modern-era server: it is never told of changes; each request it
    /// handles is answered from the folders shared at that moment, so a
    /// withdrawal takes effect with the next request.
    PerRequest,
}

/// What Rootgate has seen of a server's way with `list_changed`.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Following {
    /// Not seen yet (or the server never asked for its folders at all).
    #[default]
    Unknown,
    /// It asked for the list after being told of a change.
    Follows,
    /// It did not ask after being told: withdrawals reach it by restart.
    Ignores,
}

/// A restart made so that a change takes effect.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Restarted {
    pub at_ms: u64,
    pub reason: String,
    /// The folders the restart withdrew.
    pub withdrawn: Vec<SharedRoot>,
}

/// One server's delivery of its folders.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Delivery {
    pub state: DeliveryState,
    /// The list the server was given last in this run (what it holds, as
    /// far as Rootgate can know), or none if it has not asked.
    #[ts(as = "Option<Vec<SharedRoot>>")]
    pub given: Option<Arc<[SharedRoot]>>,
    /// The list it is granted now, and that list's generation.
    #[ts(as = "Vec<SharedRoot>")]
    pub granted: Arc<[SharedRoot]>,
    pub generation: u64,
    pub following: Following,
    /// The last restart made to apply a change, while its folders stay
    /// withdrawn.
    pub restarted: Option<Restarted>,
}

impl Default for Delivery {
    fn default() -> Self {
        Delivery {
            state: DeliveryState::NotRunning,
            given: None,
            granted: Arc::from([]),
            generation: 0,
            following: Following::Unknown,
            restarted: None,
        }
    }
}

/// Where one folder stands with one server.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum FolderState {
    /// The server asked since the change and was given this folder.
    Told,
    /// Shared; the server has not asked for the list since.
    Waiting,
    /// Shared; the server was told and did not ask within the pickup time.
    NotPickedUp,
    /// Withdrawn; the server has not asked since, so it may still use it.
    Withdrawing,
    /// Withdrawn by restarting the server, which did not pick the change up.
    RestartedToApply,
    /// Shared with a modern-era server: given whenever it asks while
    /// handling a request.
    OnRequest,
}

/// One folder of a server's delivery.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderDelivery {
    pub root: RootId,
    pub name: String,
    pub state: FolderState,
}

/// Counts of a delivery's folders by state, for a server's row.
#[derive(ts_rs::TS, Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeliverySummary {
    pub state: Option<DeliveryState>,
    pub following: Following,
    pub told: usize,
    pub waiting: usize,
    pub not_picked_up: usize,
    pub withdrawing: usize,
    pub restarted_to_apply: usize,
    pub on_request: usize,
    /// When and why the server was last restarted to apply a change.
    pub restarted: Option<RestartNote>,
}

/// The time and reason of a restart made to apply a change.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RestartNote {
    pub at_ms: u64,
    pub reason: String,
}

impl Delivery {
    /// True when the server holds exactly what it is granted and nothing it
    /// was given earlier can still land after it.
    pub fn settled(&self) -> bool {
        self.state == DeliveryState::UpToDate
    }

    /// Every folder the server is granted or may still hold, with where it
    /// stands: granted ones in the granted order, then withdrawn ones.
    pub fn folders(&self) -> Vec<FolderDelivery> {
        let given: HashSet<&str> = self
            .given
            .iter()
            .flat_map(|g| g.iter())
            .map(|r| r.uri.as_str())
            .collect();
        let granted: HashSet<&str> = self.granted.iter().map(|r| r.uri.as_str()).collect();
        let pending = match self.state {
            DeliveryState::NotPickedUp { .. } => FolderState::NotPickedUp,
            DeliveryState::PerRequest => FolderState::OnRequest,
            _ => FolderState::Waiting,
        };
        let entry = |r: &SharedRoot, state| FolderDelivery {
            root: r.root.clone(),
            name: r.name.clone(),
            state,
        };
        let mut out: Vec<FolderDelivery> = self
            .granted
            .iter()
            .map(|r| {
                let state = if pending != FolderState::OnRequest && given.contains(r.uri.as_str()) {
                    FolderState::Told
                } else {
                    pending
                };
                entry(r, state)
            })
            .collect();
        let mut withdrawn_seen: HashSet<&str> = HashSet::new();
        for r in self.given.iter().flat_map(|g| g.iter()) {
            if !granted.contains(r.uri.as_str()) && withdrawn_seen.insert(&r.uri) {
                out.push(entry(r, FolderState::Withdrawing));
            }
        }
        for r in self.restarted.iter().flat_map(|x| x.withdrawn.iter()) {
            if !granted.contains(r.uri.as_str()) && withdrawn_seen.insert(&r.uri) {
                out.push(entry(r, FolderState::RestartedToApply));
            }
        }
        out
    }

    /// The counts of [`Delivery::folders`].
    pub fn summary(&self) -> DeliverySummary {
        let mut summary = DeliverySummary {
            state: Some(self.state.clone()),
            following: self.following,
            restarted: self.restarted.as_ref().map(|r| RestartNote {
                at_ms: r.at_ms,
                reason: r.reason.clone(),
            }),
            ..DeliverySummary::default()
        };
        for folder in self.folders() {
            match folder.state {
                FolderState::Told => summary.told += 1,
                FolderState::Waiting => summary.waiting += 1,
                FolderState::NotPickedUp => summary.not_picked_up += 1,
                FolderState::Withdrawing => summary.withdrawing += 1,
                FolderState::RestartedToApply => summary.restarted_to_apply += 1,
                FolderState::OnRequest => summary.on_request += 1,
            }
        }
        summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(names: &[&str]) -> Vec<SharedRoot> {
        names
            .iter()
            .map(|n| SharedRoot {
                root: RootId::generate(),
                uri: format!("file:///srv/{n}"),
                name: (*n).to_owned(),
            })
            .collect()
    }

    fn states(d: &Delivery) -> Vec<(String, FolderState)> {
        d.folders().into_iter().map(|f| (f.name, f.state)).collect()
    }

    #[test]
    fn each_folder_says_whether_the_server_has_it() {
        let all = roots(&["a", "b", "c"]);
        let d = Delivery {
            state: DeliveryState::Waiting { since_ms: 1 },
            given: Some(Arc::from(vec![all[0].clone(), all[1].clone()])),
            granted: Arc::from(vec![all[1].clone(), all[2].clone()]),
            generation: 2,
            following: Following::Follows,
            restarted: None,
        };
        assert_eq!(
            states(&d),
            [
                ("b".to_owned(), FolderState::Told),
                ("c".to_owned(), FolderState::Waiting),
                ("a".to_owned(), FolderState::Withdrawing),
            ]
        );
        let d = Delivery {
            state: DeliveryState::NotPickedUp { since_ms: 1 },
            ..d
        };
        assert_eq!(states(&d)[1].1, FolderState::NotPickedUp);
        let summary = d.summary();
        assert_eq!(
            (summary.told, summary.not_picked_up, summary.withdrawing),
            (1, 1, 1)
        );
        assert!(!d.settled());
    }

    #[test]
    fn a_restart_shows_what_it_withdrew_until_the_folder_is_shared_again() {
        let all = roots(&["a", "b"]);
        let mut d = Delivery {
            state: DeliveryState::UpToDate,
            given: Some(Arc::from(vec![all[1].clone()])),
            granted: Arc::from(vec![all[1].clone()]),
            generation: 3,
            following: Following::Ignores,
            restarted: Some(Restarted {
                at_ms: 1,
                reason: "did not pick up the change".into(),
                withdrawn: vec![all[0].clone()],
            }),
        };
        assert_eq!(
            states(&d),
            [
                ("b".to_owned(), FolderState::Told),
                ("a".to_owned(), FolderState::RestartedToApply),
            ]
        );
        assert!(d.settled());
        d.granted = Arc::from(all.clone());
        d.state = DeliveryState::Waiting { since_ms: 2 };
        assert_eq!(states(&d)[0].1, FolderState::Waiting);
        assert_eq!(d.folders().len(), 2, "a shared folder is listed once");
    }
}
