//! The store's folders and grants: keeping a folder as a root, renaming and
//! removing it, sharing it with servers and withdrawing it, and whether it
//! is there now. Each change goes through the store's one way to change
//! the settings (`Store::change`), which saves before it publishes.
//!
//! What is not here: the servers themselves (`servers.rs`), their secrets
//! (`secrets.rs`), and which folders a server sees, worked out from the
//! grants after each change (`Inner::republish`, in `store.rs`).

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use super::{Added, Store, StoreError, find_root, find_server};
use crate::consent::Grant;
use crate::folders::CheckedFolder;
use crate::ids::{RootId, ServerId, now_ms};
use crate::names::{self, NameError};
use crate::roots::Root;
use crate::settings::Settings;

impl Store {
    /// Adds a checked folder as a root, or returns the root that already has
    /// its real path. Adding shares it with no one. A name that is given
    /// must be a valid one; none (or a blank one) means the folder's own.
    pub fn add_root(
        &self,
        folder: &CheckedFolder,
        name: Option<String>,
    ) -> Result<Added, StoreError> {
        let name = given_name(name)?;
        self.change(|s| Ok(add_root_in(s, folder, name)))
    }

    pub fn rename_root(&self, id: &RootId, name: &str) -> Result<Root, StoreError> {
        let name = folder_name(name)?;
        self.change(|s| {
            let root = find_root(s, id)?;
            root.name = name.to_owned();
            Ok(root.clone())
        })
    }

    /// A person's answer to a consent prompt, as one change: keeps the
    /// folder (as the new root for its real path, or as the kept root
    /// `root`, renamed when a name is given) and shares it with exactly
    /// `servers`. Nothing is kept when any part is refused (a server that
    /// does not exist, a name that cannot be used), so a refused answer
    /// never leaves a folder behind.
    pub fn keep_and_share(
        &self,
        folder: &CheckedFolder,
        root: Option<&RootId>,
        name: Option<String>,
        servers: &[ServerId],
    ) -> Result<RootId, StoreError> {
        let name = given_name(name)?;
        self.change(|s| {
            let id = match root {
                Some(id) => {
                    let kept = find_root(s, id)?;
                    if let Some(name) = name {
                        kept.name = name;
                    }
                    id.clone()
                }
                None => add_root_in(s, folder, name).root.id,
            };
            set_grants_in(s, &id, servers)?;
            Ok(id)
        })
    }

    /// Removes a root and every grant of it: it is withdrawn from every
    /// server at once.
    pub fn remove_root(&self, id: &RootId) -> Result<(), StoreError> {
        self.change(|s| {
            let before = s.roots.len();
            s.roots.retain(|r| &r.id != id);
            if s.roots.len() == before {
                return Err(StoreError::UnknownRoot(id.clone()));
            }
            s.grants.retain(|g| &g.root != id);
            Ok(())
        })?;
        self.lock().unavailable.remove(id);
        Ok(())
    }

    /// Records the person's consent to share `root` with `server`, for the
    /// root's current real path. Granting twice keeps the first grant.
    pub fn grant(&self, server: &ServerId, root: &RootId) -> Result<Grant, StoreError> {
        self.change(|s| grant_in(s, server, root))
    }

    /// Sets exactly which servers see `root`: grants the listed ones that
    /// lack a grant and revokes every other. The consent prompt's "Share".
    pub fn set_grants(&self, root: &RootId, servers: &[ServerId]) -> Result<(), StoreError> {
        self.change(|s| set_grants_in(s, root, servers))
    }

    /// Sets exactly which roots each of `servers` is granted, in one
    /// change: every listed server keeps (or gains) a grant for each root in
    /// `roots` and loses every other grant it had; servers not listed are
    /// untouched. Existing grants are kept as they were (their time and
    /// real path), so only what differs changes.
    ///
    /// Swapping one folder for another this way is one save and one
    /// publish: each affected server's list goes straight from the old set
    /// to the new one, with no list in between (granting first would show
    /// both, revoking first an empty list, which makes a session restart its
    /// server). Nothing changes when any id is unknown.
    pub fn set_server_roots(
        &self,
        servers: &[ServerId],
        roots: &[RootId],
    ) -> Result<(), StoreError> {
        self.change(|s| {
            // Linear in roots + servers + grants (+ the pairs asked for), so
            // one change over many servers or roots stays cheap.
            let real_paths: HashMap<&RootId, &PathBuf> =
                s.roots.iter().map(|r| (&r.id, &r.real_path)).collect();
            let wanted: Vec<(&RootId, PathBuf)> = roots
                .iter()
                .map(|id| {
                    real_paths
                        .get(id)
                        .map(|p| (id, (*p).clone()))
                        .ok_or_else(|| StoreError::UnknownRoot(id.clone()))
                })
                .collect::<Result<_, _>>()?;
            let known: HashSet<&ServerId> = s.servers.iter().map(|srv| &srv.id).collect();
            if let Some(unknown) = servers.iter().find(|id| !known.contains(id)) {
                return Err(StoreError::UnknownServer(unknown.clone()));
            }
            let listed: HashSet<&ServerId> = servers.iter().collect();
            let current: HashMap<&RootId, &PathBuf> =
                wanted.iter().map(|(id, p)| (*id, p)).collect();
            // A listed server keeps a grant only for a wanted root, and only
            // when it was recorded for the root's current real path (an
            // older one is replaced below, as `grant` does).
            s.grants.retain(|g| {
                !listed.contains(&g.server) || current.get(&g.root) == Some(&&g.real_path)
            });
            let mut have: HashSet<(ServerId, RootId)> = s
                .grants
                .iter()
                .filter(|g| listed.contains(&g.server))
                .map(|g| (g.server.clone(), g.root.clone()))
                .collect();
            let now = now_ms();
            for server in servers {
                for (root, real_path) in &wanted {
                    if have.insert((server.clone(), (*root).clone())) {
                        s.grants.push(Grant {
                            server: server.clone(),
                            root: (*root).clone(),
                            real_path: real_path.clone(),
                            granted_at_ms: now,
                        });
                    }
                }
            }
            Ok(())
        })
    }

    /// Withdraws `root` from `server` at once.
    pub fn revoke(&self, server: &ServerId, root: &RootId) -> Result<(), StoreError> {
        self.change(|s| {
            find_root(s, root)?;
            find_server(s, server)?;
            s.grants
                .retain(|g| !(&g.server == server && &g.root == root));
            Ok(())
        })
    }

    /// Marks a root available or not. An unavailable root is withdrawn from
    /// every server but its grants are kept, so it comes back to the same
    /// servers without a new prompt. Availability is not saved: it is
    /// checked afresh at every start.
    pub fn set_available(&self, root: &RootId, available: bool) -> Result<(), StoreError> {
        let mut inner = self.lock();
        if !inner.settings.roots.iter().any(|r| &r.id == root) {
            return Err(StoreError::UnknownRoot(root.clone()));
        }
        let changed = if available {
            inner.unavailable.remove(root)
        } else {
            inner.unavailable.insert(root.clone())
        };
        if changed {
            inner.republish();
            drop(inner);
            self.revision.send_modify(|r| *r += 1);
        }
        Ok(())
    }
}

/// A folder name a person typed, checked and trimmed.
fn folder_name(name: &str) -> Result<&str, StoreError> {
    names::check(name).map_err(|e| match e {
        NameError::Empty => StoreError::EmptyName,
        e => StoreError::BadName(e),
    })
}

/// A name given with a new folder: a blank one means the folder's own.
fn given_name(name: Option<String>) -> Result<Option<String>, StoreError> {
    match name {
        Some(n) if !n.trim().is_empty() => Ok(Some(folder_name(&n)?.to_owned())),
        _ => Ok(None),
    }
}

fn add_root_in(s: &mut Settings, folder: &CheckedFolder, name: Option<String>) -> Added {
    if let Some(existing) = s.roots.iter().find(|r| r.real_path == folder.real()) {
        return Added {
            root: existing.clone(),
            existed: true,
        };
    }
    let root = Root::new(folder, name);
    s.roots.push(root.clone());
    Added {
        root,
        existed: false,
    }
}

fn set_grants_in(s: &mut Settings, root: &RootId, servers: &[ServerId]) -> Result<(), StoreError> {
    find_root(s, root)?;
    for server in servers {
        grant_in(s, server, root)?;
    }
    s.grants
        .retain(|g| &g.root != root || servers.contains(&g.server));
    Ok(())
}

fn grant_in(s: &mut Settings, server: &ServerId, root: &RootId) -> Result<Grant, StoreError> {
    find_server(s, server)?;
    let real_path = find_root(s, root)?.real_path.clone();
    if let Some(existing) = s
        .grants
        .iter()
        .find(|g| &g.server == server && &g.root == root && g.real_path == real_path)
    {
        return Ok(existing.clone());
    }
    // A grant for an older real path of this root is replaced, not kept
    // beside the new one.
    s.grants
        .retain(|g| !(&g.server == server && &g.root == root));
    let grant = Grant {
        server: server.clone(),
        root: root.clone(),
        real_path,
        granted_at_ms: now_ms(),
    };
    s.grants.push(grant.clone());
    Ok(grant)
}
