//! One filesystem watcher for the whole process, shared by everything in it
//! that waits for a folder to change: the settings file's folder (a change
//! made in the window), the roots and the folders above them (`monitor`),
//! and the folder of the window's socket (a bridge's link).
//!
//! Why one: Linux gives each user 128 inotify instances by default, for
//! every program of theirs together (file managers, editors, the desktop's
//! own services). A bridge used to make three, so forty bridges (four AI
//! apps with ten servers each) took them all: other programs stopped seeing
//! changes, and later bridges could not watch the settings file, so a
//! folder withdrawn in the window did not reach them. Now a process makes
//! one instance and any number of watches inside it (the per-user limit on
//! watches is in the hundreds of thousands).
//!
//! Where no instance is left even so, a subscription that asked for it is
//! woken every [`POLL_EVERY`] with an event that names no path, which its
//! reader already takes as "something may have changed: look again" (the
//! same as events the kernel dropped). The `notify` crate's own polling
//! watcher was not used for that: it compares modification times in whole
//! seconds, so a second save within a second would be missed, and a missed
//! withdrawal is a consent hole.
//!
//! Not here: what a change means (the settings are re-read by the bridge,
//! a root re-checked by `monitor`). A watch never follows a folder's
//! contents recursively.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};
use tokio::sync::mpsc;

/// How often a subscription that cannot be told of changes is woken to
/// look for itself: the delay a withdrawal may take to reach it.
pub const POLL_EVERY: Duration = Duration::from_secs(1);

/// What a watch reports: changes to what a folder holds, or to the folder
/// itself. Opening and reading are not among them (see [`MASK`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub kind: ChangeKind,
    /// The entry that changed (or the folder itself); none for
    /// [`ChangeKind::LookAgain`].
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    Created,
    Removed,
    /// Moved in, moved out, or renamed over (a save's last step).
    Renamed,
    /// Written and closed, or written to.
    Written,
    /// Permissions, owner or times.
    Metadata,
    /// Nothing is known: events were lost, or nothing can be watched and
    /// it is time to look.
    LookAgain,
}

/// What the kernel is asked to report. Not opens, reads and closes after
/// reading: every bridge reads the settings file and lists its folders, and
/// with those in the mask each bridge's read woke every other bridge
/// watching the same folders, a thousand bridges a million wake-ups (the
/// `notify` crate, used before, always asks for opens).
const MASK: WatchMask = WatchMask::CREATE
    .union(WatchMask::DELETE)
    .union(WatchMask::CLOSE_WRITE)
    .union(WatchMask::MODIFY)
    .union(WatchMask::MOVED_FROM)
    .union(WatchMask::MOVED_TO)
    .union(WatchMask::ATTRIB)
    .union(WatchMask::DELETE_SELF)
    .union(WatchMask::MOVE_SELF)
    .union(WatchMask::ONLYDIR);

/// The process's watcher (see the module's doc).
pub struct Watches {
    /// `None` when the kernel gave no inotify instance.
    kernel: Mutex<Option<inotify::Watches>>,
    subs: Arc<Mutex<Subs>>,
    ticking: OnceLock<()>,
}

#[derive(Default)]
struct Subs {
    next: u64,
    by_id: HashMap<u64, Sub>,
    /// How many subscriptions watch each folder, and the kernel's watch of
    /// it: made for the first subscription and removed after the last.
    count: HashMap<PathBuf, (usize, Option<WatchDescriptor>)>,
    folder_of: HashMap<WatchDescriptor, PathBuf>,
}

struct Sub {
    dirs: HashSet<PathBuf>,
    tx: mpsc::UnboundedSender<Change>,
    /// Woken every POLL_EVERY when it cannot be told of a change.
    wants_ticks: bool,
    /// Some folder of it could not be watched.
    blind: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every change under these locks is a whole insert or remove, so a
    // panic elsewhere cannot leave them half done.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A change that names no path: "look again" (see the module's doc).
pub(crate) fn look_again() -> Change {
    Change {
        kind: ChangeKind::LookAgain,
        paths: Vec::new(),
    }
}

impl Watches {
    /// The one for this process, made on first use.
    pub fn process() -> &'static Watches {
        static ONE: OnceLock<Watches> = OnceLock::new();
        ONE.get_or_init(Watches::new)
    }

    fn new() -> Watches {
        let subs: Arc<Mutex<Subs>> = Arc::default();
        let kernel = match Inotify::init() {
            Ok(inotify) => {
                let watches = inotify.watches();
                let to = Arc::clone(&subs);
                let reader = std::thread::Builder::new()
                    .name("rootgate-watch".into())
                    .spawn(move || read(inotify, &to));
                match reader {
                    Ok(_) => Some(watches),
                    Err(e) => {
                        tracing::warn!(error = %e, "no thread to read filesystem events");
                        None
                    }
                }
            }
            Err(e) => {
                tracing::warn!(
                    error = %e,
                    "no filesystem watcher left for this user; changes are looked for every second"
                );
                None
            }
        };
        Watches {
            kernel: Mutex::new(kernel),
            subs,
            ticking: OnceLock::new(),
        }
    }

    /// A new subscription, with no folder yet, and where its changes
    /// arrive. With `ticks`, it is woken every [`POLL_EVERY`] whenever one
    /// of its folders cannot be watched; without, it is not.
    pub fn subscribe(&'static self, ticks: bool) -> (Watch, mpsc::UnboundedReceiver<Change>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut subs = lock(&self.subs);
        subs.next += 1;
        let id = subs.next;
        subs.by_id.insert(
            id,
            Sub {
                dirs: HashSet::new(),
                tx,
                wants_ticks: ticks,
                blind: false,
            },
        );
        (Watch { id, hub: self }, rx)
    }

    fn start_ticking(&'static self) {
        self.ticking.get_or_init(|| {
            let spawned = std::thread::Builder::new()
                .name("rootgate-look-again".into())
                .spawn(move || {
                    loop {
                        std::thread::sleep(POLL_EVERY);
                        let subs = lock(&self.subs);
                        for sub in subs.by_id.values() {
                            if sub.blind && sub.wants_ticks {
                                let _ = sub.tx.send(look_again());
                            }
                        }
                    }
                });
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "changes cannot be looked for: no thread");
            }
        });
    }
}

/// The reader: hands each of the kernel's events to the subscriptions
/// watching the folder it is about, for as long as the process runs.
fn read(mut inotify: Inotify, subs: &Mutex<Subs>) {
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let events = match inotify.read_events_blocking(&mut buffer) {
            Ok(events) => events,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::warn!(error = %e, "filesystem events can no longer be read");
                return;
            }
        };
        let mut subs = lock(subs);
        for event in events {
            if event.mask.contains(EventMask::Q_OVERFLOW) {
                dispatch(&subs, &look_again());
                continue;
            }
            let Some(dir) = subs.folder_of.get(&event.wd).cloned() else {
                continue;
            };
            if event.mask.contains(EventMask::IGNORED) {
                // The kernel dropped the watch (the folder was deleted or
                // its filesystem unmounted): the folder itself changed.
                subs.folder_of.remove(&event.wd);
                if let Some((_, wd)) = subs.count.get_mut(&dir) {
                    *wd = None;
                }
            }
            let change = Change {
                kind: kind_of(event.mask),
                paths: vec![
                    event
                        .name
                        .map_or_else(|| dir.clone(), |n: &OsStr| dir.join(n)),
                ],
            };
            dispatch(&subs, &change);
        }
    }
}

fn kind_of(mask: EventMask) -> ChangeKind {
    if mask.intersects(EventMask::CREATE) {
        ChangeKind::Created
    } else if mask.intersects(EventMask::DELETE | EventMask::DELETE_SELF | EventMask::IGNORED) {
        ChangeKind::Removed
    } else if mask.intersects(EventMask::MOVED_FROM | EventMask::MOVED_TO | EventMask::MOVE_SELF) {
        ChangeKind::Renamed
    } else if mask.intersects(EventMask::ATTRIB) {
        ChangeKind::Metadata
    } else {
        ChangeKind::Written
    }
}

/// Hands `change` to each subscription watching a folder it names (a
/// change of a folder's entry names the entry; one of the folder itself,
/// the folder). "Look again" reaches every subscription.
fn dispatch(subs: &Subs, change: &Change) {
    for sub in subs.by_id.values() {
        let concerns = change.paths.is_empty()
            || change.paths.iter().any(|p| {
                sub.dirs.contains(p) || p.parent().is_some_and(|parent| sub.dirs.contains(parent))
            });
        if concerns {
            let _ = sub.tx.send(change.clone());
        }
    }
}

/// One subscription's folders; they are unwatched when it is dropped.
pub struct Watch {
    id: u64,
    hub: &'static Watches,
}

impl Watch {
    /// Watches `dir` (not recursively) for this subscription, and returns
    /// whether it is watched. A folder that is not there is simply not
    /// watched; any other failure makes the subscription blind from now on
    /// (woken to look again, if it asked).
    pub fn add(&mut self, dir: &Path) -> bool {
        // The kernel's lock first, then the subscriptions' briefly, in that
        // order everywhere.
        let mut kernel = lock(&self.hub.kernel);
        let mut subs = lock(&self.hub.subs);
        let Some(sub) = subs.by_id.get_mut(&self.id) else {
            return false;
        };
        if sub.dirs.contains(dir) {
            return true;
        }
        let watched = match subs.count.get_mut(dir) {
            Some((n, Some(_))) => {
                *n += 1;
                Ok(())
            }
            _ => match kernel.as_mut() {
                Some(k) => k.add(dir, MASK).map(|wd| {
                    let n = subs.count.get(dir).map_or(0, |(n, _)| *n);
                    subs.count
                        .insert(dir.to_path_buf(), (n + 1, Some(wd.clone())));
                    subs.folder_of.insert(wd, dir.to_path_buf());
                }),
                None => Err(std::io::Error::other("no inotify instance")),
            },
        };
        drop(kernel);
        let Some(sub) = subs.by_id.get_mut(&self.id) else {
            return false;
        };
        match watched {
            Ok(()) => {
                sub.dirs.insert(dir.to_path_buf());
                true
            }
            Err(e) => {
                // A folder that is not there (gone since the caller looked)
                // is no blindness: the caller watches the folder above it
                // too. Any other failure (no instance, no watch left) is.
                if e.kind() != std::io::ErrorKind::NotFound {
                    sub.blind = true;
                    drop(subs);
                    self.hub.start_ticking();
                }
                false
            }
        }
    }

    /// Stops watching `dir` for this subscription.
    pub fn remove(&mut self, dir: &Path) {
        let mut kernel = lock(&self.hub.kernel);
        let mut subs = lock(&self.hub.subs);
        let removed = subs
            .by_id
            .get_mut(&self.id)
            .is_some_and(|sub| sub.dirs.remove(dir));
        if removed {
            forget(&mut subs, kernel.as_mut(), dir);
        }
    }

    /// Whether some folder of this subscription could not be watched:
    /// changes there must be looked for. Only the tests ask today: every
    /// subscriber that must look again takes ticks instead.
    #[cfg(test)]
    fn blind(&self) -> bool {
        lock(&self.hub.subs)
            .by_id
            .get(&self.id)
            .is_none_or(|sub| sub.blind)
    }
}

/// One subscription fewer on `dir`; the kernel's watch goes with the last.
fn forget(subs: &mut Subs, kernel: Option<&mut inotify::Watches>, dir: &Path) {
    let Some((n, wd)) = subs.count.get_mut(dir) else {
        return;
    };
    if *n > 1 {
        *n -= 1;
        return;
    }
    let wd = wd.take();
    subs.count.remove(dir);
    if let Some(wd) = wd {
        subs.folder_of.remove(&wd);
        if let Some(k) = kernel {
            // Gone already if the folder was deleted: nothing to undo.
            let _ = k.remove(wd);
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut kernel = lock(&self.hub.kernel);
        let mut subs = lock(&self.hub.subs);
        let Some(sub) = subs.by_id.remove(&self.id) else {
            return;
        };
        for dir in sub.dirs {
            forget(&mut subs, kernel.as_mut(), &dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub() -> &'static Watches {
        // A hub of the test's own, so that the counts are only its.
        Box::leak(Box::new(Watches::new()))
    }

    async fn next_naming(rx: &mut mpsc::UnboundedReceiver<Change>, path: &Path) -> Change {
        loop {
            let event = tokio::time::timeout(Duration::from_secs(10), rx.recv())
                .await
                .expect("an event within 10 s")
                .expect("the channel is open");
            if event.paths.iter().any(|p| p == path) {
                return event;
            }
        }
    }

    /// Two subscriptions on one folder share the kernel's watch: each hears
    /// of a change there, dropping one leaves the other hearing, and a
    /// subscription on another folder hears nothing of it.
    #[tokio::test]
    async fn subscriptions_share_a_folder_and_hear_only_their_own() {
        let hub = hub();
        let dir = tempfile::tempdir().unwrap();
        let (a_dir, b_dir) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a_dir).unwrap();
        std::fs::create_dir_all(&b_dir).unwrap();
        let (mut one, mut one_rx) = hub.subscribe(true);
        let (mut two, mut two_rx) = hub.subscribe(true);
        let (mut other, mut other_rx) = hub.subscribe(true);
        assert!(one.add(&a_dir) && two.add(&a_dir) && other.add(&b_dir));

        let file = a_dir.join("settings.json");
        std::fs::write(&file, b"{}").unwrap();
        next_naming(&mut one_rx, &file).await;
        next_naming(&mut two_rx, &file).await;

        drop(one);
        let second = a_dir.join("second");
        std::fs::write(&second, b"").unwrap();
        next_naming(&mut two_rx, &second).await;
        // The other folder's subscription heard neither: a write in its
        // own folder is the first thing it gets.
        let mine = b_dir.join("mine");
        std::fs::write(&mine, b"").unwrap();
        let first = next_naming(&mut other_rx, &mine).await;
        assert!(first.paths.iter().all(|p| p.starts_with(&b_dir)));
        while let Ok(e) = other_rx.try_recv() {
            assert!(e.paths.iter().all(|p| p.starts_with(&b_dir)), "{e:?}");
        }
        two.remove(&a_dir);
        assert!(!two.blind() && !other.blind());
    }

    /// With no watcher (no inotify instance left), a subscription is blind
    /// and, if it asked, woken to look again.
    #[tokio::test]
    async fn without_a_watcher_a_subscription_is_woken_to_look_again() {
        let hub: &'static Watches = Box::leak(Box::new(Watches {
            kernel: Mutex::new(None),
            subs: Arc::default(),
            ticking: OnceLock::new(),
        }));
        let dir = tempfile::tempdir().unwrap();
        let (mut ticked, mut rx) = hub.subscribe(true);
        let (mut unticked, _unticked_rx) = hub.subscribe(false);
        assert!(!ticked.add(dir.path()));
        assert!(!unticked.add(dir.path()));
        assert!(ticked.blind() && unticked.blind());
        let woken = tokio::time::timeout(POLL_EVERY * 10, rx.recv())
            .await
            .expect("woken")
            .expect("open");
        assert!(woken.paths.is_empty(), "{woken:?}");
    }
}
