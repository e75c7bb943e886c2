//! Files of Rootgate's own that only the person's own user may open: the
//! folder they live in, made 0700 with the folders above it, and a lock
//! file, made 0600, that a process takes a `flock` on to be the one
//! writer (the settings' write lock, the window's instance lock, the route
//! ledger's, the installs record's).
//!
//! What is not here: which lock is taken on the file (waiting or not) and
//! what it guards, which is each caller's; replacing a file's bytes
//! (`durable`); and refusing a folder that someone else made or can enter
//! (the bridge's window socket checks that, since another user may make
//! its folder in `/tmp`).

use std::fs::{DirBuilder, File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

/// Creates `dir`, and the folders above it, when missing: a folder made
/// here is 0700; one there already is left as it is.
pub fn folder(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Opens the lock file `path`, creating it (0600) when missing and never
/// emptying it, for a `flock`. Open for writing only: a lock needs no
/// access at all, and the window's instance lock writes its process id in
/// it. Close-on-exec, as every file the standard library opens, so no
/// program started meanwhile inherits the lock.
pub fn lock_file(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_folder_and_the_lock_file_are_private_and_a_lock_file_is_never_emptied() {
        let dir = tempfile::tempdir().expect("dir");
        let inner = dir.path().join("a/b");
        folder(&inner).expect("folder");
        let mode = std::fs::metadata(&inner)
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700);
        // Made again, it is left as it is.
        folder(&inner).expect("folder again");

        let path = inner.join("x.lock");
        lock_file(&path)
            .expect("open")
            .write_all(b"42")
            .expect("write");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        drop(lock_file(&path).expect("open again"));
        let mut text = String::new();
        File::open(&path)
            .expect("read")
            .read_to_string(&mut text)
            .expect("text");
        assert_eq!(text, "42");
    }
}
