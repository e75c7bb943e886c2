//! Replacing a small file so that a crash or a full disk leaves either the
//! old bytes or the new ones, never a mix: the new bytes go to a temporary
//! file beside it (made with the file's permissions), are synced, renamed
//! over the file, and the folder is synced so the rename itself lasts.
//!
//! What is not here: which permissions or folder a file gets, naming the
//! temporary file (each caller names its own, so a reader can tell its
//! leftovers), or locking against other writers (the settings' write lock,
//! the route ledger's).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Writes `bytes` to `tmp` with `mode`, then renames it over `path` and
/// syncs `path`'s folder. On any failure the temporary file is removed and
/// `path` is as it was.
pub fn replace(path: &Path, tmp: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let result = (|| {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(tmp, path)?;
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        File::open(dir.unwrap_or(Path::new(".")))?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_file_is_replaced_with_its_mode_and_no_temporary_is_left() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("f.json");
        std::fs::write(&path, "old").expect("write");
        let tmp = dir.path().join(".f.json.1");
        replace(&path, &tmp, b"new", 0o600).expect("replace");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(!tmp.exists());
    }

    #[test]
    fn a_failed_rename_leaves_the_file_as_it_was_and_no_temporary() {
        let dir = tempfile::tempdir().expect("dir");
        // A folder where the file should be: the rename fails.
        let path = dir.path().join("taken");
        std::fs::create_dir(&path).expect("mkdir");
        std::fs::write(path.join("inside"), "kept").expect("write");
        let tmp = dir.path().join(".taken.1");
        assert!(replace(&path, &tmp, b"new", 0o600).is_err());
        assert!(path.is_dir());
        assert!(!tmp.exists());
    }
}
