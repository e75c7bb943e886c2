//! Consent: which server may be told about which root, and the only way to
//! build the list a server is told.
//!
//! A [`Grant`] records that the person agreed to share one root with one
//! server, when, and for which real path. [`SharedRoots`] is the list a
//! server's session answers `roots/list` with; it has no public constructor
//! other than [`SharedRoots::empty`], so the only way to put a path in it is
//! [`shared_with`], which requires a grant for that exact (server, root, real
//! path). A grant recorded for one real path never covers another: a root
//! whose folder now resolves elsewhere needs a new grant.
//!
//! This module does not persist grants (that is `settings`) and does not ask
//! the person anything (that is the app's consent prompt).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::ids::{RootId, ServerId};
use crate::roots::Root;
use crate::uri;

/// The person's agreement to share one root with one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    pub server: ServerId,
    pub root: RootId,
    /// The real path the person saw when they agreed.
    pub real_path: PathBuf,
    pub granted_at_ms: u64,
}

/// One root as a server receives it.
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedRoot {
    pub root: RootId,
    /// The RFC 8089 `file://` URI of the real path.
    pub uri: String,
    pub name: String,
}

/// The roots one server may be told about right now, with a generation that
/// grows each time the list changes, so a session can tell which version of
/// the list a server was last given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedRoots {
    generation: u64,
    roots: Arc<[SharedRoot]>,
}

impl SharedRoots {
    /// The empty list: shares nothing, so anyone may build it.
    pub fn empty() -> Self {
        SharedRoots {
            generation: 0,
            roots: Arc::from([]),
        }
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn roots(&self) -> &[SharedRoot] {
        &self.roots
    }

    /// The list itself, shared rather than copied (the timeline keeps it).
    pub fn shared(&self) -> Arc<[SharedRoot]> {
        Arc::clone(&self.roots)
    }

    pub fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// True when `self` lacks a root that `earlier` had: the server must be
    /// told to forget something.
    pub fn withdraws_from(&self, earlier: &[SharedRoot]) -> bool {
        earlier
            .iter()
            .any(|old| !self.roots.iter().any(|new| new.uri == old.uri))
    }

    /// The next generation of this list, or `None` when the new list is the
    /// same as this one (so no server is told about a change that is none).
    pub(crate) fn advance(&self, roots: Vec<SharedRoot>) -> Option<SharedRoots> {
        if *self.roots == *roots {
            return None;
        }
        Some(SharedRoots {
            generation: self.generation + 1,
            roots: Arc::from(roots),
        })
    }
}

/// Grants indexed for computing many servers' lists at once: the store
/// rebuilds every server's list on each change, so this keeps that linear in
/// the number of roots and grants.
pub struct ConsentIndex<'a> {
    roots: &'a [Root],
    uris: Vec<Option<String>>,
    /// Per server, the real path each granted root was granted for. Keyed
    /// by id only: hashing paths component by component cost more than
    /// everything else in a change with many roots.
    by_server: HashMap<&'a ServerId, HashMap<&'a RootId, &'a Path>>,
}

impl<'a> ConsentIndex<'a> {
    pub fn new(roots: &'a [Root], grants: &'a [Grant]) -> Self {
        let uris = roots
            .iter()
            .map(|root| uri::path_to_uri(&root.real_path).ok().map(String::from))
            .collect();
        let mut by_server: HashMap<&ServerId, HashMap<&RootId, &Path>> = HashMap::new();
        for g in grants {
            by_server
                .entry(&g.server)
                .or_default()
                .insert(&g.root, g.real_path.as_path());
        }
        ConsentIndex {
            roots,
            uris,
            by_server,
        }
    }

    /// The roots `server` may see: each root with a grant to `server`
    /// recorded for the root's current real path, that is available right
    /// now, in the order the roots were added.
    pub fn shared_with(
        &self,
        server: &ServerId,
        is_available: impl Fn(&RootId) -> bool,
    ) -> Vec<SharedRoot> {
        let Some(granted) = self.by_server.get(server) else {
            return Vec::new();
        };
        self.roots
            .iter()
            .zip(&self.uris)
            .filter(|(root, _)| granted.get(&root.id) == Some(&root.real_path.as_path()))
            .filter(|(root, _)| is_available(&root.id))
            .filter_map(|(root, uri)| {
                Some(SharedRoot {
                    root: root.id.clone(),
                    uri: uri.clone()?,
                    name: root.name.clone(),
                })
            })
            .collect()
    }
}

/// The roots `server` may see given these roots and grants (see
/// [`ConsentIndex::shared_with`]).
pub fn shared_with(
    server: &ServerId,
    roots: &[Root],
    grants: &[Grant],
    is_available: impl Fn(&RootId) -> bool,
) -> Vec<SharedRoot> {
    ConsentIndex::new(roots, grants).shared_with(server, is_available)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(path: &str) -> Root {
        Root {
            id: RootId::generate(),
            name: path.rsplit('/').next().unwrap_or(path).into(),
            chosen_path: path.into(),
            real_path: path.into(),
            added_at_ms: 0,
        }
    }

    fn grant(server: &ServerId, root: &Root) -> Grant {
        Grant {
            server: server.clone(),
            root: root.id.clone(),
            real_path: root.real_path.clone(),
            granted_at_ms: 1,
        }
    }

    #[test]
    fn only_granted_pairs_are_shared() {
        let (a, b) = (ServerId::generate(), ServerId::generate());
        let (r1, r2) = (root("/w/one"), root("/w/two"));
        let grants = vec![grant(&a, &r1), grant(&b, &r2)];
        let roots = vec![r1.clone(), r2.clone()];
        let for_a = shared_with(&a, &roots, &grants, |_| true);
        assert_eq!(for_a.len(), 1);
        assert_eq!(for_a[0].uri, "file:///w/one");
        assert_eq!(for_a[0].name, "one");
        let for_c = shared_with(&ServerId::generate(), &roots, &grants, |_| true);
        assert!(for_c.is_empty());
    }

    #[test]
    fn a_grant_for_another_real_path_does_not_count() {
        let a = ServerId::generate();
        let mut r = root("/w/one");
        let grants = vec![grant(&a, &r)];
        r.real_path = "/elsewhere".into();
        assert!(shared_with(&a, &[r], &grants, |_| true).is_empty());
    }

    #[test]
    fn unavailable_roots_are_withheld() {
        let a = ServerId::generate();
        let r = root("/w/one");
        let grants = vec![grant(&a, &r)];
        assert!(shared_with(&a, std::slice::from_ref(&r), &grants, |_| false).is_empty());
    }

    #[test]
    fn generations_advance_only_on_change() {
        let a = ServerId::generate();
        let r = root("/w/one");
        let list = shared_with(&a, std::slice::from_ref(&r), &[grant(&a, &r)], |_| true);
        let first = SharedRoots::empty().advance(list.clone()).unwrap();
        assert_eq!(first.generation(), 1);
        assert!(first.advance(list).is_none());
        let second = first.advance(vec![]).unwrap();
        assert_eq!(second.generation(), 2);
        assert!(second.withdraws_from(first.roots()));
        assert!(!first.withdraws_from(second.roots()));
    }
}
