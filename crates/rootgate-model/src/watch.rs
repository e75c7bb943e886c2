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
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::mpsc;

/// How often a subscription that cannot be told of changes is woken to
/// look for itself: the delay a withdrawal may take to reach it.
pub const POLL_EVERY: Duration = Duration::from_secs(1);

/// The process's watcher (see the module's doc).
pub struct Watches {
    /// `None` when the kernel gave no inotify instance.
    watcher: Mutex<Option<RecommendedWatcher>>,
    subs: Arc<Mutex<Subs>>,
    ticking: OnceLock<()>,
}

#[derive(Default)]
struct Subs {
    next: u64,
    by_id: HashMap<u64, Sub>,
    /// How many subscriptions watch each folder: the kernel's watch is
    /// made for the first and removed after the last.
    count: HashMap<PathBuf, usize>,
}

struct Sub {
    dirs: HashSet<PathBuf>,
    tx: mpsc::UnboundedSender<Event>,
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

/// An event that names no path: "look again" (see the module's doc).
pub fn look_again() -> Event {
    Event::new(EventKind::Other)
}

impl Watches {
    /// The one for this process, made on first use.
    pub fn process() -> &'static Watches {
        static ONE: OnceLock<Watches> = OnceLock::new();
        ONE.get_or_init(Watches::new)
    }

    fn new() -> Watches {
        let subs: Arc<Mutex<Subs>> = Arc::default();
        let to = Arc::clone(&subs);
        let watcher = notify::recommended_watcher(move |event: notify::Result<Event>| {
            dispatch(&lock(&to), event);
        });
        let watcher = match watcher {
            Ok(w) => Some(w),
            Err(e) => {
                tracing::warn!(
                    error = %e,
                    "no filesystem watcher left for this user; changes are looked for every second"
                );
                None
            }
        };
        Watches {
            watcher: Mutex::new(watcher),
            subs,
            ticking: OnceLock::new(),
        }
    }

    /// A new subscription, with no folder yet, and where its events arrive.
    /// With `ticks`, it is woken every [`POLL_EVERY`] whenever one of its
    /// folders cannot be watched; without, it asks [`Watch::blind`] and
    /// looks for itself.
    pub fn subscribe(&'static self, ticks: bool) -> (Watch, mpsc::UnboundedReceiver<Event>) {
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

/// Hands `event` to each subscription watching a folder it names (an event
/// on a folder's entry names the entry; one on the folder itself, the
/// folder). An error, or an event naming nothing (the kernel dropped
/// events), reaches every subscription as "look again".
fn dispatch(subs: &Subs, event: notify::Result<Event>) {
    let event = match event {
        Ok(e) if !e.paths.is_empty() => e,
        _ => {
            for sub in subs.by_id.values() {
                let _ = sub.tx.send(look_again());
            }
            return;
        }
    };
    for sub in subs.by_id.values() {
        let concerns = event.paths.iter().any(|p| {
            sub.dirs.contains(p) || p.parent().is_some_and(|parent| sub.dirs.contains(parent))
        });
        if concerns {
            let _ = sub.tx.send(event.clone());
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
        // The watcher's lock first, and the subscriptions' only briefly: the
        // watcher's own thread takes the subscriptions' lock to hand events
        // over, and `watch` waits for that thread.
        let mut watcher = lock(&self.hub.watcher);
        let first = {
            let mut subs = lock(&self.hub.subs);
            let Some(sub) = subs.by_id.get_mut(&self.id) else {
                return false;
            };
            if !sub.dirs.insert(dir.to_path_buf()) {
                return !sub.blind;
            }
            let n = subs.count.entry(dir.to_path_buf()).or_insert(0);
            *n += 1;
            *n == 1
        };
        // A folder that is not there (gone since the caller looked) is no
        // blindness: the caller watches the folder above it too. Any other
        // failure (no watcher, no watch left) is.
        let (watched, blind) = match watcher.as_mut() {
            Some(w) if first => match w.watch(dir, RecursiveMode::NonRecursive) {
                Ok(()) => (true, false),
                Err(e) => (false, !is_not_found(&e)),
            },
            Some(_) => (true, false),
            None => (false, true),
        };
        drop(watcher);
        if !watched {
            let mut subs = lock(&self.hub.subs);
            if first {
                subs.count.remove(dir);
            }
            if let Some(sub) = subs.by_id.get_mut(&self.id) {
                sub.dirs.remove(dir);
                sub.blind |= blind;
            }
            drop(subs);
            if blind {
                self.hub.start_ticking();
            }
        }
        watched
    }

    /// Stops watching `dir` for this subscription.
    pub fn remove(&mut self, dir: &Path) {
        let mut watcher = lock(&self.hub.watcher);
        let last = {
            let mut subs = lock(&self.hub.subs);
            let removed = subs
                .by_id
                .get_mut(&self.id)
                .is_some_and(|sub| sub.dirs.remove(dir));
            removed && forget(&mut subs, dir)
        };
        if last && let Some(w) = watcher.as_mut() {
            let _ = w.unwatch(dir);
        }
    }

    /// Whether some folder of this subscription could not be watched:
    /// changes there must be looked for.
    pub fn blind(&self) -> bool {
        lock(&self.hub.subs)
            .by_id
            .get(&self.id)
            .is_none_or(|sub| sub.blind)
    }
}

fn is_not_found(e: &notify::Error) -> bool {
    match &e.kind {
        notify::ErrorKind::PathNotFound => true,
        notify::ErrorKind::Io(io) => io.kind() == std::io::ErrorKind::NotFound,
        _ => false,
    }
}

/// One subscription fewer on `dir`; whether it was the last.
fn forget(subs: &mut Subs, dir: &Path) -> bool {
    match subs.count.get_mut(dir) {
        Some(n) if *n > 1 => {
            *n -= 1;
            false
        }
        Some(_) => {
            subs.count.remove(dir);
            true
        }
        None => false,
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let mut watcher = lock(&self.hub.watcher);
        let last: Vec<PathBuf> = {
            let mut subs = lock(&self.hub.subs);
            let Some(sub) = subs.by_id.remove(&self.id) else {
                return;
            };
            sub.dirs
                .into_iter()
                .filter(|dir| forget(&mut subs, dir))
                .collect()
        };
        if let Some(w) = watcher.as_mut() {
            for dir in last {
                let _ = w.unwatch(&dir);
            }
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

    async fn next_naming(rx: &mut mpsc::UnboundedReceiver<Event>, path: &Path) -> Event {
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
            watcher: Mutex::new(None),
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
