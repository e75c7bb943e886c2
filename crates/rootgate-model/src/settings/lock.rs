//! The lock that makes one process at a time change the settings file.
//!
//! Every process that changes the settings (the window, `rootgate import`,
//! `add`, `install`) takes an exclusive `flock` on `settings.json.write.lock`
//! beside the settings file, reads the file again under it, applies its
//! change to what it read, saves, and lets go (the store does this: see
//! `store`). A `flock` belongs to the open file, so the kernel lets it go
//! when its process ends, however it ends: a `rootgate` killed in the middle
//! of an import never keeps the window from saving. It is a different file
//! from `settings.json.lock`, which the window holds for as long as it runs
//! to be the one window of these settings (`instance`): that one says who
//! owns the settings, this one only who is writing them this instant.
//!
//! What it does not do: keep out a process that does not take it (an
//! editor, a Rootgate from before it, a person's `cp`). Saves are atomic
//! renames, so such a writer's file is whole, and under the lock it is read
//! and kept like any other writer's; only a change it makes between our
//! read and our rename is lost. Readers (bridges, `rootgate servers`) never
//! take it: every save is a rename, so they read the old file or the new
//! one, whole. Not here: reading, merging and saving (`store`, `settings`).

use std::fs::File;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use super::{SettingsError, SettingsFile, file_name, parent, private_dir};

/// The settings file's write lock, held for as long as the value lives.
/// Opened close-on-exec, so no program started meanwhile inherits it.
#[derive(Debug)]
pub struct WriteLock {
    /// None on a filesystem that has no locks (see [`SettingsFile::lock`]).
    _held: Option<Flock<File>>,
}

impl SettingsFile {
    /// The lock file: beside the file the settings are in (through a
    /// symbolic link, beside its target), so that two processes naming the
    /// same file by two paths still take one lock.
    pub(crate) fn write_lock_path(&self) -> PathBuf {
        lock_path(&self.target())
    }

    /// Waits until no other process is changing the settings, and holds
    /// the lock until the [`WriteLock`] is dropped (on a filesystem that
    /// has no locks, goes on without one, and says so in the log). Another process holds
    /// it only for the length of one change (a few milliseconds), or of one
    /// import, whose longest wait is the keyring's.
    pub fn lock(&self) -> Result<WriteLock, SettingsError> {
        let path = self.write_lock_path();
        let error = |source| SettingsError::Lock {
            path: path.clone(),
            source,
        };
        private_dir(parent(&path))?;
        let file = rootgate_host::private_files::lock_file(&path).map_err(error)?;
        match Flock::lock(file, FlockArg::LockExclusive) {
            Ok(held) => Ok(WriteLock { _held: Some(held) }),
            // A filesystem without locks (some FUSE and network ones): the
            // settings are still read again before each change and saved
            // by a rename, as they were before this lock, rather than never
            // saved at all.
            Err((_, Errno::ENOLCK | Errno::EOPNOTSUPP | Errno::ENOSYS)) => {
                tracing::warn!(path = %path.display(),
                    "the settings' folder cannot be locked; changes made by two Rootgate \
                     processes at the same moment may overwrite each other");
                Ok(WriteLock { _held: None })
            }
            Err((_, errno)) => Err(error(std::io::Error::from(errno))),
        }
    }
}

/// `settings.json.write.lock` beside `target`.
fn lock_path(target: &Path) -> PathBuf {
    parent(target).join(format!("{}.write.lock", file_name(target)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_is_not_the_windows_and_sits_beside_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = SettingsFile::at(dir.path().join("cfg/settings.json"));
        assert_eq!(
            file.write_lock_path(),
            dir.path().join("cfg/settings.json.write.lock")
        );
        // Through a link, the lock is the target's.
        std::fs::create_dir_all(dir.path().join("dotfiles")).unwrap();
        std::fs::create_dir_all(dir.path().join("cfg")).unwrap();
        std::os::unix::fs::symlink(
            "../dotfiles/rootgate.json",
            dir.path().join("cfg/settings.json"),
        )
        .unwrap();
        assert_eq!(
            file.write_lock_path(),
            dir.path()
                .canonicalize()
                .unwrap()
                .join("dotfiles/rootgate.json.write.lock")
        );
    }

    #[test]
    fn one_writer_at_a_time_even_within_one_process() {
        // Two stores of one process open the lock file apart, so they
        // exclude each other as two processes do.
        let dir = tempfile::tempdir().unwrap();
        let file = SettingsFile::at(dir.path().join("settings.json"));
        let try_other = || {
            let f = File::options()
                .read(true)
                .open(file.write_lock_path())
                .unwrap();
            Flock::lock(f, FlockArg::LockExclusiveNonblock).map_err(|(_, e)| e)
        };
        let first = file.lock().unwrap();
        assert_eq!(try_other().unwrap_err(), nix::errno::Errno::EWOULDBLOCK);
        drop(first);
        assert!(try_other().is_ok(), "dropping the lock lets it go");
    }
}
