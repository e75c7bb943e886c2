//! One writer at a time: how a store changes the settings file when other
//! processes change it too.
//!
//! The window's store lives as long as the window; `rootgate import`,
//! `add` and `install` open stores of their own on the same file. Each
//! change therefore takes the settings' write lock (`settings::WriteLock`,
//! a `flock` every writing process takes), reads the file again under it,
//! adopts what another process saved since this store last read or wrote
//! it (publishing it as `reload` does), applies the change to that, saves,
//! and lets go. A file unchanged since (same length and hash as this store
//! last saw) is not parsed again, so a window with thousands of folders pays one
//! read of the file per change, not one parse.
//!
//! A sequence of reads and changes that must see no other writer between
//! them (an import decides the server's name from the servers there are,
//! then adds it) holds the lock for its length with [`Store::hold`].
//!
//! A store that lives on while other processes write (the window's) need
//! not wait for its next change to see what they saved: [`Store::follow`],
//! called when the file changed, adopts it as a change would, but never
//! writes: a file that is gone or damaged is left to the next change, so
//! following cannot move aside a file an editor is still writing, and a
//! store's own save, already seen, adopts nothing.
//!
//! Not here: the changes themselves (`folders.rs`, `servers.rs`,
//! `secrets.rs`), and the lock file (`settings::lock`). A read-only store
//! (a bridge) never takes the lock: it only reads, and every save is a
//! rename, so it reads the old file or the new one, whole.

use std::collections::HashSet;
use std::marker::PhantomData;
use std::thread::{self, ThreadId};

use super::{Inner, Store, StoreError};
use crate::ids::RootId;
use crate::settings::{Digest, Settings, SettingsError, SettingsFile, WriteLock, digest};

/// What a store last knew of the file's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Seen {
    /// Not compared yet (just opened): the file is read and parsed.
    Unknown,
    /// There was no file.
    Missing,
    /// The file held bytes of this digest.
    Bytes(Digest),
}

/// What the settings file holds, read now (see `Store::on_disk`).
enum OnDisk {
    /// There is no file.
    Missing,
    /// The very bytes this store last read or wrote.
    AsSeen,
    /// Other bytes, read whole as settings.
    Whole(Seen, Settings),
    /// Other bytes that do not read as settings, and why.
    Damaged(String),
}

/// The settings' write lock held by [`Store::hold`] for a sequence of
/// reads and changes; the store's changes on this thread take it from
/// here. Let go when dropped. It stays on the thread that took it (it is
/// not `Send`): a change on another thread waits for it, so a hold moved
/// to another thread, or kept across an `.await`, would wait for itself.
pub struct Held<'a> {
    store: &'a Store,
    /// None when this thread held it already (a nested hold).
    lock: Option<WriteLock>,
    _this_thread: PhantomData<*const ()>,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        if self.lock.is_some() {
            *self.store.holder() = None;
        }
    }
}

impl Store {
    /// Takes the settings' write lock and reads what other processes saved,
    /// so that what this store says until the [`Held`] is dropped is what
    /// the file says, and no other process changes it meanwhile. For a
    /// decision read from the settings and then saved into them (which
    /// name a new server takes, whether an entry was imported already).
    /// Other threads' changes wait; this thread's go through.
    pub fn hold(&self) -> Result<Held<'_>, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        if self.holds_the_lock() {
            return Ok(Held {
                store: self,
                lock: None,
                _this_thread: PhantomData,
            });
        }
        let lock = self.file.lock()?;
        let mut inner = self.lock();
        let adopted = self.catch_up(&mut inner)?;
        *self.holder() = Some(thread::current().id());
        drop(inner);
        if adopted {
            self.revision.send_modify(|r| *r += 1);
        }
        Ok(Held {
            store: self,
            lock: Some(lock),
            _this_thread: PhantomData,
        })
    }

    fn holder(&self) -> std::sync::MutexGuard<'_, Option<ThreadId>> {
        // Only an id is kept under it: a poisoned lock holds a whole one.
        self.holder.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn holds_the_lock(&self) -> bool {
        *self.holder() == Some(thread::current().id())
    }

    /// The write lock for one change: taken here, or none when this thread
    /// holds it already through [`Store::hold`].
    pub(super) fn lock_for_a_change(&self) -> Result<Option<WriteLock>, StoreError> {
        if self.holds_the_lock() {
            return Ok(None);
        }
        Ok(Some(self.file.lock()?))
    }

    /// Under the write lock: makes current what another process saved since
    /// this store last read or wrote the file, and publishes it. Returns
    /// whether anything was adopted. A file that is gone leaves this
    /// store's settings as they are (the change about to be made saves
    /// them again). A damaged one is moved aside, as at start, and this
    /// store's settings, the last it read whole, are saved in its place.
    pub(super) fn catch_up(&self, inner: &mut Inner) -> Result<bool, StoreError> {
        match self.on_disk(inner.seen)? {
            OnDisk::AsSeen => Ok(false),
            OnDisk::Missing => {
                inner.seen = Seen::Missing;
                Ok(false)
            }
            OnDisk::Damaged(_) => {
                let (moved_to, saved) = self.file.replace_damaged(&inner.settings)?;
                tracing::warn!(moved_to = %moved_to.display(),
                    "the settings file was damaged while Rootgate ran; it was moved aside and \
                     the settings this process last read whole were saved in its place");
                inner.seen = Seen::Bytes(saved);
                Ok(false)
            }
            OnDisk::Whole(seen, settings) => Ok(adopt_read(inner, seen, settings)),
        }
    }

    /// Makes current what another process saved since this store last
    /// read or wrote the file, and publishes it (the revision grows), as
    /// the next change would; returns whether anything was adopted. For a
    /// store that lives on while other processes write (the window), when
    /// the file changed. Nothing is written and the write lock is not
    /// taken: every save is a rename, so the file read is whole, and this
    /// store's own saves are made under its mutex, which this holds too,
    /// so what it reads is never older than what this store saved. A file
    /// that is gone changes nothing (the next change writes it again); a
    /// damaged one changes nothing either and is not moved aside (another
    /// process may be writing it in place; the next change recovers it, as
    /// `catch_up` does), and the error says why.
    pub fn follow(&self) -> Result<bool, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        let mut inner = self.lock();
        let adopted = match self.on_disk(inner.seen)? {
            OnDisk::AsSeen | OnDisk::Missing => false,
            OnDisk::Damaged(reason) => return Err(self.unreadable(reason)),
            OnDisk::Whole(seen, settings) => adopt_read(&mut inner, seen, settings),
        };
        drop(inner);
        if adopted {
            self.revision.send_modify(|r| *r += 1);
        }
        Ok(adopted)
    }

    /// The file itself, at the end of its symbolic links: where saves
    /// rename their new file, so the folder to watch for them.
    pub fn file_target(&self) -> std::path::PathBuf {
        self.file.target()
    }

    /// The error of `follow` and `reload`, which leave a damaged file to
    /// the next change rather than move it aside: the file, and `reason`,
    /// why it does not read as settings.
    fn unreadable(&self, reason: String) -> StoreError {
        StoreError::Settings(SettingsError::Unreadable {
            path: self.file.path().to_path_buf(),
            reason,
        })
    }

    /// What the file holds now, next to `seen`, what this store last read
    /// or wrote of it.
    fn on_disk(&self, seen: Seen) -> Result<OnDisk, StoreError> {
        let Some(bytes) = self.file.read_bytes()? else {
            return Ok(OnDisk::Missing);
        };
        let now = Seen::Bytes(digest(&bytes));
        if now == seen {
            return Ok(OnDisk::AsSeen);
        }
        let parsed = SettingsFile::parse(&bytes);
        drop(bytes);
        Ok(match parsed.problem {
            Some(problem) => OnDisk::Damaged(problem),
            None => OnDisk::Whole(now, parsed.settings),
        })
    }

    /// Reads the settings file again and makes what it says current,
    /// publishing each server's list that changed. A file that cannot be
    /// read whole changes nothing (the app is writing it, or recovering
    /// it; the next change of the file is read again) and says why.
    pub fn reload(&self) -> Result<(), StoreError> {
        // Read with the store locked, so that a change saved by this store
        // meanwhile is never replaced by the file as it was before it.
        let mut inner = self.lock();
        // Compared with nothing: every reload parses the file again.
        let changed = match self.on_disk(Seen::Unknown)? {
            OnDisk::Missing => {
                inner.seen = Seen::Missing;
                adopt(&mut inner, Settings::default())
            }
            OnDisk::Damaged(reason) => return Err(self.unreadable(reason)),
            OnDisk::Whole(seen, settings) => adopt_read(&mut inner, seen, settings),
            // Never, compared with nothing.
            OnDisk::AsSeen => false,
        };
        drop(inner);
        if changed {
            self.revision.send_modify(|r| *r += 1);
        }
        Ok(())
    }
}

/// Notes `seen` as the bytes this store last read, whose `settings` were
/// read whole, and adopts them (see [`adopt`]); returns whether they
/// differed. Every way of reading the file again ends so when it finds
/// other bytes that are sound.
fn adopt_read(inner: &mut Inner, seen: Seen, settings: Settings) -> bool {
    inner.seen = seen;
    adopt(inner, settings)
}

/// Makes `settings` current when they differ, forgetting what is known of
/// folders no longer there, and publishes; returns whether they differed.
fn adopt(inner: &mut Inner, settings: Settings) -> bool {
    if inner.settings == settings {
        return false;
    }
    inner.settings = settings;
    let roots: HashSet<RootId> = inner.settings.roots.iter().map(|r| r.id.clone()).collect();
    inner.unavailable.retain(|r| roots.contains(r));
    inner.republish();
    true
}

#[cfg(test)]
#[path = "follow_tests.rs"]
mod follow_tests;
