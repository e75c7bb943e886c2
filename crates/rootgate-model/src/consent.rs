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

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
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
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

    /// The part of this list that `keep` picks, as the next generation
    /// after `before` (the narrowed list published last), or `None` when
    /// it is what `before` holds already. A part of a consented list is
    /// still only what grants allow: this is how one AI app's connection
    /// is given only the folders it works in (a server's "Workspace"
    /// setting, see the bridge's `workspace`).
    pub fn narrowed(
        &self,
        before: &SharedRoots,
        keep: impl Fn(&SharedRoot) -> bool,
    ) -> Option<SharedRoots> {
        let part: Vec<SharedRoot> = self.roots.iter().filter(|r| keep(r)).cloned().collect();
        before.advance(part)
    }

    /// [`SharedRoots::advance`], for the tests of the crates above (the
    /// session's build the lists a store would publish, with no store). In
    /// the app a list with a path in it comes only from grants: this name
    /// may appear only in tests, which `scripts/check-layers.py` checks. It
    /// is not behind a feature that only the tests turn on, because such a
    /// feature makes this crate and every crate above it build twice on a
    /// clean machine (BENCHMARKS.md, "The test command's time").
    #[doc(hidden)]
    pub fn advance_for_tests(&self, roots: Vec<SharedRoot>) -> Option<SharedRoots> {
        self.advance(roots)
    }
}

/// The `file://` URI of each root's real path, kept from one change to the
/// next. Building a URI (percent-encoding every component) cost more than
/// the rest of recomputing every server's list, and a root's URI changes
/// only with its real path, so the store keeps them here.
#[derive(Debug, Default)]
pub struct RootUris {
    by_root: HashMap<RootId, CachedUri>,
}

#[derive(Debug)]
struct CachedUri {
    /// A hash of the real path the URI was built for: enough to notice a
    /// root that now resolves elsewhere, without a second copy of every
    /// path (with 10,000 roots that copy was 0.6 MB).
    path_hash: u64,
    uri: Option<String>,
}

fn uri_of(path: &Path) -> Option<String> {
    uri::path_to_uri(path).ok().map(String::from)
}

fn path_hash(path: &Path) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(path.as_os_str().as_encoded_bytes())
}

impl RootUris {
    /// Brings the cache up to date with `roots`: URIs for new roots and
    /// for roots whose real path changed, none for roots that are gone.
    pub fn refresh(&mut self, roots: &[Root]) {
        for root in roots {
            let hash = path_hash(&root.real_path);
            let current = self
                .by_root
                .get(&root.id)
                .is_some_and(|c| c.path_hash == hash);
            if !current {
                self.by_root.insert(
                    root.id.clone(),
                    CachedUri {
                        path_hash: hash,
                        uri: uri_of(&root.real_path),
                    },
                );
            }
        }
        if self.by_root.len() > roots.len() {
            let kept: HashSet<&RootId> = roots.iter().map(|r| &r.id).collect();
            self.by_root.retain(|id, _| kept.contains(id));
        }
    }

    /// The cached URI of `root`, if it was cached for its current real path.
    fn get(&self, root: &Root) -> Option<Option<&str>> {
        self.by_root
            .get(&root.id)
            .filter(|c| c.path_hash == path_hash(&root.real_path))
            .map(|c| c.uri.as_deref())
    }

    /// How many roots have a URI cached.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.by_root.len()
    }
}

/// Grants indexed for computing many servers' lists at once: the store
/// rebuilds every server's list on each change, so this keeps that linear in
/// the number of roots and grants.
pub struct ConsentIndex<'a> {
    roots: &'a [Root],
    uris: Vec<Option<Cow<'a, str>>>,
    /// Per server, the real path each granted root was granted for. Keyed
    /// by id only: hashing paths component by component cost more than
    /// everything else in a change with many roots.
    by_server: HashMap<&'a ServerId, HashMap<&'a RootId, &'a Path>>,
}

impl<'a> ConsentIndex<'a> {
    /// An index that builds every root's URI afresh.
    pub fn new(roots: &'a [Root], grants: &'a [Grant]) -> Self {
        let uris = roots
            .iter()
            .map(|root| uri_of(&root.real_path).map(Cow::Owned))
            .collect();
        Self::with(roots, grants, uris)
    }

    /// An index that takes the URIs from `cache` (refreshed for these
    /// roots), building only those it lacks.
    pub fn with_uris(roots: &'a [Root], grants: &'a [Grant], cache: &'a RootUris) -> Self {
        let uris = roots
            .iter()
            .map(|root| match cache.get(root) {
                Some(uri) => uri.map(Cow::Borrowed),
                None => uri_of(&root.real_path).map(Cow::Owned),
            })
            .collect();
        Self::with(roots, grants, uris)
    }

    fn with(roots: &'a [Root], grants: &'a [Grant], uris: Vec<Option<Cow<'a, str>>>) -> Self {
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
                    uri: uri.as_deref()?.to_owned(),
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
            mount: None,
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
    fn cached_uris_follow_real_paths_and_forget_removed_roots() {
        let a = ServerId::generate();
        let (mut one, two) = (root("/w/one"), root("/w/two"));
        let mut cache = RootUris::default();
        let grants = vec![grant(&a, &one), grant(&a, &two)];
        let roots = vec![one.clone(), two.clone()];
        cache.refresh(&roots);
        assert_eq!(cache.len(), 2);
        let uris = |roots: &[Root], grants: &[Grant], cache: &RootUris| -> Vec<String> {
            ConsentIndex::with_uris(roots, grants, cache)
                .shared_with(&a, |_| true)
                .into_iter()
                .map(|r| r.uri)
                .collect()
        };
        assert_eq!(
            uris(&roots, &grants, &cache),
            ["file:///w/one", "file:///w/two"]
        );
        // A root that now resolves elsewhere gets the URI of its new path
        // (here with a grant for that path), even before a refresh.
        one.real_path = "/w/moved here".into();
        let grants = vec![grant(&a, &one)];
        let roots = vec![one.clone()];
        assert_eq!(uris(&roots, &grants, &cache), ["file:///w/moved%20here"]);
        cache.refresh(&roots);
        assert_eq!(cache.len(), 1, "the removed root is forgotten");
        assert_eq!(uris(&roots, &grants, &cache), ["file:///w/moved%20here"]);
        // The cached and the fresh index agree.
        let fresh: Vec<String> = shared_with(&a, &roots, &grants, |_| true)
            .into_iter()
            .map(|r| r.uri)
            .collect();
        assert_eq!(uris(&roots, &grants, &cache), fresh);
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

    #[test]
    fn a_narrowed_list_is_a_part_of_the_consented_one_with_its_own_generations() {
        let a = ServerId::generate();
        let (one, two) = (root("/w/one"), root("/w/two"));
        let roots = vec![one.clone(), two.clone()];
        let all = SharedRoots::empty()
            .advance(shared_with(
                &a,
                &roots,
                &[grant(&a, &one), grant(&a, &two)],
                |_| true,
            ))
            .unwrap();
        let only_one = |r: &SharedRoot| r.root == one.id;
        let narrowed = all.narrowed(&SharedRoots::empty(), only_one).unwrap();
        assert_eq!(narrowed.generation(), 1);
        assert_eq!(narrowed.roots().len(), 1);
        assert_eq!(narrowed.roots()[0].root, one.id);
        // The same part again is no change; another part is the next one.
        assert!(all.narrowed(&narrowed, only_one).is_none());
        let none = all.narrowed(&narrowed, |_| false).unwrap();
        assert_eq!(none.generation(), 2);
        assert!(none.withdraws_from(narrowed.roots()));
    }
}
