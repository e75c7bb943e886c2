//! The store: the settings in memory, saved before every change takes
//! effect, and each server's shared roots published on a `watch` channel.
//!
//! Every change is made on a copy, saved atomically, and only then made
//! current and published; when saving fails, nothing changed and the error
//! says why. Other processes change the file too (`rootgate import`, `add`,
//! `install`): each change takes the settings' write lock, reads the file
//! again and is applied to what it holds (`writing.rs`), so no writer's
//! change is lost to another's. In memory, the lock is a plain mutex held
//! for the length of one change and never across an `.await`. Each server's list is recomputed from the grants
//! after each change and published only when it differs, with a generation
//! that grows, so sessions see exactly the changes that concern them.
//!
//! While the person has paused all sharing (`Preferences::sharing_paused`),
//! every server's published list is empty; the grants are kept, so resuming
//! publishes each list again. A bridge reads the same file, so the pause
//! reaches its server too.
//!
//! Saving a server puts the values of its secret variables where they are
//! kept (the keyring, most often; see `secrets` and this module's
//! `secrets.rs`) before the settings file that names them is saved.
//!
//! This file holds the store itself (opening, the one way to change the
//! settings, what is published); its changes are in `folders.rs` (folders
//! and grants), `servers.rs` (servers and their approval) and `secrets.rs`
//! (where secret values go), and how it shares the file with other writers
//! in `writing.rs`.
//!
//! The store does not run servers or talk to them (that is `session`), does
//! not ask the person anything, and does not watch the filesystem: it is told
//! when a root becomes unavailable.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::ThreadId;

use thiserror::Error;
use tokio::sync::watch;

use crate::consent::{ConsentIndex, RootUris, SharedRoots};
use crate::ids::{RootId, ServerId};
use crate::names::NameError;
use crate::preferences::Preferences;
use crate::roots::Root;
use crate::secrets::{SecretError, Secrets};
use crate::servers::{ServerSpec, SpecError};
use crate::settings::{Recovery, Settings, SettingsError, SettingsFile};

/// Why a change to the store was refused. Nothing changed when one is
/// returned.
#[derive(Debug, Error)]
pub enum StoreError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("there is no folder with id {0}; it may have been removed")]
    UnknownRoot(RootId),
    #[error("there is no server with id {0}; it may have been removed")]
    UnknownServer(ServerId),
    #[error("a folder needs a name")]
    EmptyName,
    #[error("the folder's name cannot be used: {0}")]
    BadName(NameError),
    #[error(
        "the command changed since it was shown (shown: `{shown}`, now: `{current}`); review it again"
    )]
    StaleApproval { shown: String, current: String },
    #[error("the settings are read here, not changed: change them in the Rootgate window")]
    ReadOnly,
    #[error(transparent)]
    Secret(#[from] SecretError),
}

mod folders;
mod secrets;
mod servers;
mod writing;

pub use writing::Held;
use writing::Seen;

/// The outcome of adding a folder: the root, and whether it was already
/// there (the same real path is never added twice).
#[derive(Debug, Clone)]
pub struct Added {
    pub root: Root,
    pub existed: bool,
}

struct Inner {
    settings: Settings,
    unavailable: HashSet<RootId>,
    publishers: HashMap<ServerId, watch::Sender<SharedRoots>>,
    /// Every root's URI, kept between changes (see [`RootUris`]).
    uris: RootUris,
    /// What this store last read or wrote of the file (see `writing.rs`).
    seen: Seen,
}

/// The settings in memory, their file, and the per-server publishers.
pub struct Store {
    file: SettingsFile,
    inner: Mutex<Inner>,
    revision: watch::Sender<u64>,
    /// Set in a process that only reads the settings (a bridge): nothing
    /// is ever saved, and changes are refused.
    read_only: bool,
    /// Where the values of secret variables are kept and read.
    secrets: Arc<Secrets>,
    /// The thread holding the settings' write lock through [`Store::hold`].
    holder: Mutex<Option<ThreadId>>,
}

impl Store {
    /// Opens the store on a settings file, recovering what it can from a
    /// damaged one (the [`Recovery`] says what happened).
    pub fn open(file: SettingsFile) -> Result<(Store, Option<Recovery>), StoreError> {
        Store::open_with_secrets(file, Secrets::system())
    }

    /// [`Store::open`] with secrets kept by `secrets` (tests keep them in
    /// memory; the app, in the desktop's keyring).
    pub fn open_with_secrets(
        file: SettingsFile,
        secrets: Arc<Secrets>,
    ) -> Result<(Store, Option<Recovery>), StoreError> {
        // A damaged file is recovered (moved aside, what it held saved in
        // its place) by one process at a time.
        let lock = file.lock()?;
        let loaded = file.load()?;
        drop(lock);
        let store = Store::with(file, loaded.settings, false, secrets);
        Ok((store, loaded.recovery))
    }

    /// Opens the store on a settings file that another process (the app)
    /// owns: it is read, never written, and a damaged file is left as it is
    /// (the string says what could not be read). Changes are refused; what
    /// the file says is taken again with [`Store::reload`].
    pub fn open_read_only(file: SettingsFile) -> Result<(Store, Option<String>), StoreError> {
        let (settings, problem) = file.read()?;
        Ok((
            Store::with(file, settings, true, Secrets::system()),
            problem,
        ))
    }

    fn with(
        file: SettingsFile,
        settings: Settings,
        read_only: bool,
        secrets: Arc<Secrets>,
    ) -> Store {
        let store = Store {
            file,
            inner: Mutex::new(Inner {
                settings,
                unavailable: HashSet::new(),
                publishers: HashMap::new(),
                uris: RootUris::default(),
                seen: Seen::Unknown,
            }),
            revision: watch::Sender::new(0),
            read_only,
            secrets,
            holder: Mutex::new(None),
        };
        store.lock().republish();
        store
    }

    pub fn file(&self) -> &SettingsFile {
        &self.file
    }

    /// Where the values of secret variables are kept and read.
    pub fn secrets(&self) -> &Arc<Secrets> {
        &self.secrets
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the settings half
        // changed (changes are made on a copy), so a poisoned lock is safe
        // to keep using.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A copy of the current settings.
    pub fn snapshot(&self) -> Settings {
        self.lock().settings.clone()
    }

    /// A counter that grows after every saved change: the app's cue to
    /// refresh what it shows.
    pub fn subscribe_revision(&self) -> watch::Receiver<u64> {
        self.revision.subscribe()
    }

    /// The roots `server` may see, as they change. Fails for an unknown
    /// server; the channel closes when the server is removed.
    pub fn subscribe(&self, server: &ServerId) -> Result<watch::Receiver<SharedRoots>, StoreError> {
        self.lock()
            .publishers
            .get(server)
            .map(watch::Sender::subscribe)
            .ok_or_else(|| StoreError::UnknownServer(server.clone()))
    }

    /// The roots `server` may see right now.
    pub fn shared_with(&self, server: &ServerId) -> Result<SharedRoots, StoreError> {
        self.lock()
            .publishers
            .get(server)
            .map(|p| p.borrow().clone())
            .ok_or_else(|| StoreError::UnknownServer(server.clone()))
    }

    pub fn server(&self, id: &ServerId) -> Result<ServerSpec, StoreError> {
        self.lock()
            .settings
            .servers
            .iter()
            .find(|s| &s.id == id)
            .cloned()
            .ok_or_else(|| StoreError::UnknownServer(id.clone()))
    }

    pub fn is_available(&self, root: &RootId) -> bool {
        !self.lock().unavailable.contains(root)
    }

    /// The person's preferences (pause, notifications, the login offer).
    pub fn preferences(&self) -> Preferences {
        self.lock().settings.preferences.clone()
    }

    /// Changes the preferences in one saved change; pausing or resuming
    /// publishes every server's list (empty while paused).
    pub fn change_preferences(
        &self,
        change: impl FnOnce(&mut Preferences),
    ) -> Result<Preferences, StoreError> {
        self.change(|s| {
            change(&mut s.preferences);
            Ok(s.preferences.clone())
        })
    }

    /// Under the settings' write lock, catches up with what other
    /// processes saved, applies `change` to a copy of the result, saves the
    /// copy, and only then makes it current and publishes.
    fn change<T>(
        &self,
        change: impl FnOnce(&mut Settings) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        // Taken before the mutex, so that waiting for another process
        // never keeps this one's readers waiting too.
        let _lock = self.lock_for_a_change()?;
        let mut inner = self.lock();
        let adopted = self.catch_up(&mut inner)?;
        let mut next = inner.settings.clone();
        let out = match change(&mut next) {
            Ok(out) if next != inner.settings => match self.file.write(&next) {
                Ok(written) => {
                    inner.seen = Seen::Bytes(written);
                    inner.settings = next;
                    inner.republish();
                    Ok((out, true))
                }
                Err(e) => Err(e.into()),
            },
            other => other.map(|out| (out, false)),
        };
        drop(inner);
        // What was adopted is told even when this change failed.
        let saved = out.as_ref().is_ok_and(|(_, saved)| *saved);
        if adopted || saved {
            self.revision.send_modify(|r| *r += 1);
        }
        out.map(|(out, _)| out)
    }
}

fn find_root<'a>(s: &'a mut Settings, id: &RootId) -> Result<&'a mut Root, StoreError> {
    s.roots
        .iter_mut()
        .find(|r| &r.id == id)
        .ok_or_else(|| StoreError::UnknownRoot(id.clone()))
}

fn find_server<'a>(s: &'a mut Settings, id: &ServerId) -> Result<&'a mut ServerSpec, StoreError> {
    s.servers
        .iter_mut()
        .find(|srv| &srv.id == id)
        .ok_or_else(|| StoreError::UnknownServer(id.clone()))
}

impl Inner {
    /// Recomputes every server's list and publishes those that changed;
    /// drops the publishers of removed servers, which closes their channels.
    fn republish(&mut self) {
        self.uris.refresh(&self.settings.roots);
        let index =
            ConsentIndex::with_uris(&self.settings.roots, &self.settings.grants, &self.uris);
        let unavailable = &self.unavailable;
        // Paused: every server is told it has no folders; the grants stay,
        // so resuming publishes each list as it was.
        let paused = self.settings.preferences.sharing_paused;
        for server in &self.settings.servers {
            let roots = if paused {
                Vec::new()
            } else {
                index.shared_with(&server.id, |r| !unavailable.contains(r))
            };
            let publisher = self
                .publishers
                .entry(server.id.clone())
                .or_insert_with(|| watch::Sender::new(SharedRoots::empty()));
            publisher.send_if_modified(|current| match current.advance(roots) {
                Some(next) => {
                    *current = next;
                    true
                }
                None => false,
            });
        }
        let servers = &self.settings.servers;
        self.publishers
            .retain(|id, _| servers.iter().any(|s| &s.id == id));
    }
}

#[cfg(test)]
mod writing_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consent::Grant;
    use crate::folders::{self, CheckedFolder};
    use crate::servers::ServerDraft;

    struct Fixture {
        dir: tempfile::TempDir,
        store: Store,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let (store, recovery) =
            Store::open(SettingsFile::at(dir.path().join("cfg/settings.json"))).unwrap();
        assert!(recovery.is_none());
        Fixture { dir, store }
    }

    fn server(store: &Store, name: &str) -> ServerSpec {
        store
            .add_server(ServerDraft {
                name: name.into(),
                command: "true".into(),
                ..Default::default()
            })
            .unwrap()
    }

    fn folder(fx: &Fixture, name: &str) -> CheckedFolder {
        let path = fx.dir.path().join(name);
        std::fs::create_dir_all(&path).unwrap();
        folders::check(&path).unwrap()
    }

    #[test]
    fn a_root_reaches_only_the_servers_it_was_granted_to() {
        let fx = fixture();
        let (a, b) = (server(&fx.store, "a"), server(&fx.store, "b"));
        let mut rx_a = fx.store.subscribe(&a.id).unwrap();
        let rx_b = fx.store.subscribe(&b.id).unwrap();
        let root = fx.store.add_root(&folder(&fx, "proj"), None).unwrap().root;
        assert!(!rx_a.has_changed().unwrap(), "adding shares with no one");
        fx.store.grant(&a.id, &root.id).unwrap();
        assert!(rx_a.has_changed().unwrap());
        let shared = rx_a.borrow_and_update().clone();
        assert_eq!(shared.roots().len(), 1);
        assert!(shared.roots()[0].uri.ends_with("/proj"));
        assert!(!rx_b.has_changed().unwrap());
        assert!(rx_b.borrow().is_empty());
        fx.store.revoke(&a.id, &root.id).unwrap();
        assert!(rx_a.borrow().is_empty(), "revoking is immediate");
    }

    #[test]
    fn changes_survive_a_reopen_and_duplicates_are_merged() {
        let fx = fixture();
        let a = server(&fx.store, "a");
        let f = folder(&fx, "proj");
        let first = fx.store.add_root(&f, Some("Project".into())).unwrap();
        let again = fx.store.add_root(&f, None).unwrap();
        assert!(!first.existed && again.existed);
        assert_eq!(first.root.id, again.root.id);
        fx.store.grant(&a.id, &first.root.id).unwrap();
        let (reopened, _) = Store::open(fx.store.file().clone()).unwrap();
        assert_eq!(reopened.snapshot(), fx.store.snapshot());
        assert_eq!(
            reopened.shared_with(&a.id).unwrap().roots()[0].name,
            "Project"
        );
    }

    #[test]
    fn set_grants_is_exact() {
        let fx = fixture();
        let (a, b, c) = (
            server(&fx.store, "a"),
            server(&fx.store, "b"),
            server(&fx.store, "c"),
        );
        let root = fx.store.add_root(&folder(&fx, "p"), None).unwrap().root;
        fx.store
            .set_grants(&root.id, &[a.id.clone(), b.id.clone()])
            .unwrap();
        fx.store
            .set_grants(&root.id, &[b.id.clone(), c.id.clone()])
            .unwrap();
        let granted: Vec<_> = fx
            .store
            .snapshot()
            .grants
            .into_iter()
            .map(|g| g.server)
            .collect();
        assert_eq!(granted, vec![b.id, c.id]);
    }

    /// The roots a server's grants name, in the order of the grants.
    fn granted_roots(settings: &Settings, server: &ServerId) -> Vec<RootId> {
        settings
            .grants
            .iter()
            .filter(|g| &g.server == server)
            .map(|g| g.root.clone())
            .collect()
    }

    #[test]
    fn set_server_roots_is_one_change_told_only_to_the_servers_it_affects() {
        let fx = fixture();
        let (a, b, c) = (
            server(&fx.store, "a"),
            server(&fx.store, "b"),
            server(&fx.store, "c"),
        );
        let r1 = fx.store.add_root(&folder(&fx, "one"), None).unwrap().root;
        let r2 = fx.store.add_root(&folder(&fx, "two"), None).unwrap().root;
        let r3 = fx.store.add_root(&folder(&fx, "three"), None).unwrap().root;
        fx.store.grant(&a.id, &r1.id).unwrap();
        fx.store.grant(&b.id, &r2.id).unwrap();
        fx.store.grant(&b.id, &r3.id).unwrap();
        fx.store.grant(&c.id, &r1.id).unwrap();
        let b_grants_before = fx.store.snapshot().grants;
        let mut rx_a = fx.store.subscribe(&a.id).unwrap();
        let rx_b = fx.store.subscribe(&b.id).unwrap();
        let rx_c = fx.store.subscribe(&c.id).unwrap();
        let revision = fx.store.subscribe_revision();
        let (rev_before, gen_a) = (*revision.borrow(), rx_a.borrow_and_update().generation());

        // a swaps r1 for [r2, r3]; b already has exactly that; c is not listed.
        fx.store
            .set_server_roots(
                &[a.id.clone(), b.id.clone()],
                &[r2.id.clone(), r3.id.clone()],
            )
            .unwrap();

        // One saved change (the revision grows once per save) and one
        // publish to a: its list went straight to the new one.
        assert_eq!(*revision.borrow(), rev_before + 1);
        assert!(rx_a.has_changed().unwrap());
        let shared = rx_a.borrow_and_update().clone();
        assert_eq!(shared.generation(), gen_a + 1, "no list in between");
        let uris: Vec<&str> = shared.roots().iter().map(|r| r.uri.as_str()).collect();
        assert!(
            uris.len() == 2 && uris[0].ends_with("/two") && uris[1].ends_with("/three"),
            "{uris:?}"
        );
        // b's list did not change and c was not listed: neither is told.
        assert!(!rx_b.has_changed().unwrap());
        assert!(!rx_c.has_changed().unwrap());
        assert_eq!(rx_c.borrow().roots()[0].root, r1.id);

        // The saved file holds exactly the result, and b's grants are the
        // very ones it had (same time), not new ones.
        let saved = fx.store.file().load().unwrap();
        assert!(saved.recovery.is_none());
        assert_eq!(saved.settings, fx.store.snapshot());
        assert_eq!(
            granted_roots(&saved.settings, &a.id),
            vec![r2.id.clone(), r3.id.clone()]
        );
        assert_eq!(granted_roots(&saved.settings, &c.id), vec![r1.id.clone()]);
        let b_grants = |grants: &[Grant]| -> Vec<Grant> {
            grants
                .iter()
                .filter(|g| g.server == b.id)
                .cloned()
                .collect()
        };
        assert_eq!(b_grants(&saved.settings.grants), b_grants(&b_grants_before));

        // Asking again changes nothing, so nothing is saved: the file, once
        // removed, stays away, and the revision stays.
        std::fs::remove_file(fx.store.file().path()).unwrap();
        fx.store
            .set_server_roots(std::slice::from_ref(&a.id), &[r2.id.clone(), r3.id.clone()])
            .unwrap();
        assert!(!fx.store.file().path().exists());
        assert_eq!(*revision.borrow(), rev_before + 1);

        // An empty list withdraws everything from the listed server only.
        fx.store
            .set_server_roots(std::slice::from_ref(&a.id), &[])
            .unwrap();
        assert!(rx_a.borrow().is_empty());
        assert_eq!(rx_c.borrow().roots().len(), 1);
    }

    #[test]
    fn set_server_roots_refuses_unknown_ids_and_changes_nothing() {
        let fx = fixture();
        let a = server(&fx.store, "a");
        let r1 = fx.store.add_root(&folder(&fx, "one"), None).unwrap().root;
        fx.store.grant(&a.id, &r1.id).unwrap();
        let before = fx.store.snapshot();
        let revision = fx.store.subscribe_revision();
        let rev_before = *revision.borrow();
        assert!(matches!(
            fx.store
                .set_server_roots(std::slice::from_ref(&a.id), &[RootId::generate()]),
            Err(StoreError::UnknownRoot(_))
        ));
        assert!(matches!(
            fx.store
                .set_server_roots(&[a.id.clone(), ServerId::generate()], &[]),
            Err(StoreError::UnknownServer(_))
        ));
        assert_eq!(fx.store.snapshot(), before);
        assert_eq!(fx.store.file().load().unwrap().settings, before);
        assert_eq!(*revision.borrow(), rev_before);
        assert_eq!(fx.store.shared_with(&a.id).unwrap().roots().len(), 1);
    }

    #[test]
    fn set_server_roots_replaces_a_grant_for_an_older_real_path() {
        // A grant recorded for a path the root no longer resolves to shares
        // nothing; setting the root again records it for the current path.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("now")).unwrap();
        let root = Root::new(&folders::check(&dir.path().join("now")).unwrap(), None);
        let spec = ServerDraft {
            name: "a".into(),
            command: "true".into(),
            ..Default::default()
        }
        .validate(ServerId::generate(), [])
        .unwrap();
        let settings = Settings {
            grants: vec![Grant {
                server: spec.id.clone(),
                root: root.id.clone(),
                real_path: dir.path().join("before"),
                granted_at_ms: 1,
            }],
            roots: vec![root.clone()],
            servers: vec![spec.clone()],
            ..Settings::default()
        };
        let file = SettingsFile::at(dir.path().join("cfg/settings.json"));
        file.save(&settings).unwrap();
        let (store, _) = Store::open(file).unwrap();
        assert!(store.shared_with(&spec.id).unwrap().is_empty());
        store
            .set_server_roots(
                std::slice::from_ref(&spec.id),
                std::slice::from_ref(&root.id),
            )
            .unwrap();
        let grants = store.snapshot().grants;
        assert_eq!(grants.len(), 1, "replaced, not kept beside: {grants:?}");
        assert_eq!(grants[0].real_path, root.real_path);
        assert_eq!(store.shared_with(&spec.id).unwrap().roots().len(), 1);
    }

    #[test]
    fn removing_a_root_or_server_drops_its_grants() {
        let fx = fixture();
        let a = server(&fx.store, "a");
        let r1 = fx.store.add_root(&folder(&fx, "one"), None).unwrap().root;
        let r2 = fx.store.add_root(&folder(&fx, "two"), None).unwrap().root;
        fx.store.grant(&a.id, &r1.id).unwrap();
        fx.store.grant(&a.id, &r2.id).unwrap();
        fx.store.remove_root(&r1.id).unwrap();
        assert_eq!(fx.store.shared_with(&a.id).unwrap().roots().len(), 1);
        let mut rx = fx.store.subscribe(&a.id).unwrap();
        fx.store.remove_server(&a.id).unwrap();
        assert!(fx.store.snapshot().grants.is_empty());
        assert!(rx.changed().now_or_never_closed());
    }

    /// A tiny helper so a test can ask whether a watch channel has closed
    /// without a runtime.
    trait ClosedNow {
        fn now_or_never_closed(self) -> bool;
    }
    impl<F: std::future::Future<Output = Result<(), watch::error::RecvError>>> ClosedNow for F {
        fn now_or_never_closed(self) -> bool {
            let waker = std::task::Waker::noop();
            let mut cx = std::task::Context::from_waker(waker);
            let mut fut = std::pin::pin!(self);
            matches!(fut.as_mut().poll(&mut cx), std::task::Poll::Ready(Err(_)))
        }
    }

    #[test]
    fn unavailable_roots_are_withheld_and_come_back() {
        let fx = fixture();
        let a = server(&fx.store, "a");
        let root = fx.store.add_root(&folder(&fx, "p"), None).unwrap().root;
        fx.store.grant(&a.id, &root.id).unwrap();
        let rx = fx.store.subscribe(&a.id).unwrap();
        fx.store.set_available(&root.id, false).unwrap();
        assert!(rx.borrow().is_empty());
        assert_eq!(fx.store.snapshot().grants.len(), 1, "the grant is kept");
        fx.store.set_available(&root.id, true).unwrap();
        assert_eq!(rx.borrow().roots().len(), 1);
    }

    #[test]
    fn pausing_tells_every_server_no_folders_and_resuming_tells_them_again() {
        let fx = fixture();
        let a = server(&fx.store, "a");
        let b = server(&fx.store, "b");
        let root = fx.store.add_root(&folder(&fx, "p"), None).unwrap().root;
        fx.store.grant(&a.id, &root.id).unwrap();
        fx.store.grant(&b.id, &root.id).unwrap();
        let (ra, rb) = (
            fx.store.subscribe(&a.id).unwrap(),
            fx.store.subscribe(&b.id).unwrap(),
        );
        fx.store
            .change_preferences(|p| p.sharing_paused = true)
            .unwrap();
        assert!(ra.borrow().is_empty() && rb.borrow().is_empty());
        assert_eq!(fx.store.snapshot().grants.len(), 2, "the grants are kept");
        // A process that reads the file (a bridge) sees the pause too.
        let (reader, _) = Store::open_read_only(fx.store.file().clone()).unwrap();
        assert!(reader.shared_with(&a.id).unwrap().is_empty());
        fx.store
            .change_preferences(|p| p.sharing_paused = false)
            .unwrap();
        assert_eq!(ra.borrow().roots().len(), 1);
        assert_eq!(rb.borrow().roots().len(), 1);
        reader.reload().unwrap();
        assert_eq!(reader.shared_with(&a.id).unwrap().roots().len(), 1);
    }

    #[test]
    fn a_failed_save_changes_nothing() {
        let fx = fixture();
        let a = server(&fx.store, "a");
        let root = fx.store.add_root(&folder(&fx, "p"), None).unwrap().root;
        let rx = fx.store.subscribe(&a.id).unwrap();
        // Replace the settings folder with a file so the next save fails.
        let cfg = fx.store.file().path().parent().unwrap().to_path_buf();
        std::fs::remove_dir_all(&cfg).unwrap();
        std::fs::write(&cfg, "in the way").unwrap();
        let err = fx.store.grant(&a.id, &root.id).unwrap_err();
        assert!(err.to_string().contains("could not"), "{err}");
        assert!(fx.store.snapshot().grants.is_empty());
        assert!(rx.borrow().is_empty());
    }

    #[test]
    fn approval_covers_one_exact_command_line() {
        let fx = fixture();
        let a = server(&fx.store, "a");
        assert!(!a.is_approved());
        assert!(matches!(
            fx.store.approve_command(&a.id, "something else"),
            Err(StoreError::StaleApproval { .. })
        ));
        let approved = fx.store.approve_command(&a.id, &a.command_line()).unwrap();
        assert!(approved.is_approved());
        // Renaming keeps the approval; changing the arguments drops it.
        let mut draft = approved.to_draft();
        draft.name = "renamed".into();
        assert!(
            fx.store
                .update_server(&a.id, draft.clone())
                .unwrap()
                .is_approved()
        );
        draft.args.push("--more".into());
        assert!(!fx.store.update_server(&a.id, draft).unwrap().is_approved());
    }

    #[test]
    fn unknown_ids_and_bad_names_are_refused() {
        let fx = fixture();
        let a = server(&fx.store, "a");
        let ghost = RootId::generate();
        assert!(matches!(
            fx.store.grant(&a.id, &ghost),
            Err(StoreError::UnknownRoot(_))
        ));
        assert!(matches!(
            fx.store.subscribe(&ServerId::generate()),
            Err(StoreError::UnknownServer(_))
        ));
        let root = fx.store.add_root(&folder(&fx, "p"), None).unwrap().root;
        assert!(matches!(
            fx.store.rename_root(&root.id, "  "),
            Err(StoreError::EmptyName)
        ));
        for bad in ["a\0b", "two\nlines", &"x".repeat(100 * 1024)] {
            assert!(
                matches!(
                    fx.store.rename_root(&root.id, bad),
                    Err(StoreError::BadName(_))
                ),
                "{:.20} was accepted",
                bad
            );
            assert!(matches!(
                fx.store.add_root(&folder(&fx, "q"), Some(bad.into())),
                Err(StoreError::BadName(_))
            ));
        }
        assert_eq!(fx.store.snapshot().roots, vec![root.clone()]);
        assert!(matches!(
            fx.store.add_server(ServerDraft {
                name: "A".into(),
                command: "x".into(),
                ..Default::default()
            }),
            Err(StoreError::Spec(SpecError::DuplicateName(_)))
        ));
    }

    #[test]
    fn a_refused_answer_keeps_no_folder_and_changes_no_grant() {
        let fx = fixture();
        let a = server(&fx.store, "a");
        let kept = fx.store.add_root(&folder(&fx, "kept"), None).unwrap().root;
        fx.store.grant(&a.id, &kept.id).unwrap();
        let before = fx.store.snapshot();
        let ghost = ServerId::generate();
        let new = folder(&fx, "new");
        assert!(matches!(
            fx.store
                .keep_and_share(&new, None, None, &[a.id.clone(), ghost.clone()]),
            Err(StoreError::UnknownServer(_))
        ));
        assert!(matches!(
            fx.store
                .keep_and_share(&new, None, Some("a\0b".into()), std::slice::from_ref(&a.id)),
            Err(StoreError::BadName(_))
        ));
        assert!(matches!(
            fx.store
                .keep_and_share(&new, Some(&kept.id), Some("Renamed".into()), &[ghost]),
            Err(StoreError::UnknownServer(_))
        ));
        assert!(matches!(
            fx.store
                .keep_and_share(&new, Some(&RootId::generate()), None, &[]),
            Err(StoreError::UnknownRoot(_))
        ));
        assert_eq!(fx.store.snapshot(), before, "nothing changed");
        assert_eq!(fx.store.file().load().unwrap().settings, before);

        let id = fx
            .store
            .keep_and_share(
                &new,
                None,
                Some(" New one ".into()),
                std::slice::from_ref(&a.id),
            )
            .unwrap();
        let after = fx.store.snapshot();
        let root = after.roots.iter().find(|r| r.id == id).unwrap();
        assert_eq!(root.name, "New one");
        assert_eq!(root.real_path, new.real());
        assert!(
            after
                .grants
                .iter()
                .any(|g| g.root == id && g.server == a.id)
        );
        fx.store
            .keep_and_share(
                &folder(&fx, "kept"),
                Some(&kept.id),
                Some("Kept".into()),
                &[],
            )
            .unwrap();
        let after = fx.store.snapshot();
        assert_eq!(after.roots[0].name, "Kept");
        assert!(!after.grants.iter().any(|g| g.root == kept.id));
    }
}
