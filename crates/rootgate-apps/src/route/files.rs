//! Writing a file in place of another without losing anything: Rootgate's
//! own files (created 0600) and the AI apps' configs, through a synced
//! temporary file beside them and a rename. For an app's config the swap
//! compares the file with what the person was shown after everything is
//! synced, immediately before the rename, and checks again what the rename
//! displaced, so a write the app makes meanwhile is kept, not replaced.
//! It refuses, in words, a config the person has marked read-only or that
//! another user owns, and it names the leftovers an interrupted write of an
//! earlier version left beside a config.
//!
//! What is not here: what is written (the plans in `route`) and the record
//! of it (`ledger`).

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{AT_FDCWD, RenameFlags, renameat2};

use super::{RouteError, digest};
use rootgate_model::ids::now_ms;

/// The part of a temporary file's name after the config's own name.
const TEMP_MARK: &str = ".rootgate-";
/// The part of a backup's name after the config's own name.
const BACKUP_MARK: &str = ".before-rootgate-";

/// The file to write for `file`: a symlink's target (dotfile managers link
/// configs into place, and replacing the link would cut it from theirs).
pub(super) fn real_target(file: &Path) -> PathBuf {
    fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf())
}

fn name_of(target: &Path) -> String {
    target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Where the original of `target` is copied the first time it is routed.
pub(super) fn backup_path(target: &Path) -> PathBuf {
    target.with_file_name(format!("{}{BACKUP_MARK}{}", name_of(target), now_ms()))
}

/// The temporary file this process writes beside `target`.
pub(super) fn temp_path(target: &Path) -> PathBuf {
    target.with_file_name(format!(
        ".{}{TEMP_MARK}{}",
        name_of(target),
        std::process::id()
    ))
}

/// Refuses to replace `target` when the person cannot write it or does not
/// own it. The mode bits and the owner say what the person meant, whoever
/// runs Rootgate: a config made read-only was made so to keep it as it is,
/// and one owned by another user (root, after a `sudo` install) would come
/// back owned by this one. Root can write either, which is why the check is
/// not left to the system.
pub(super) fn check_replaceable(file: &str, target: &Path) -> Result<(), RouteError> {
    let meta = fs::metadata(target).map_err(|source| RouteError::Read {
        file: file.to_owned(),
        source,
    })?;
    let me = nix::unistd::geteuid().as_raw();
    if meta.uid() != me {
        return Err(RouteError::NotOwned {
            file: file.to_owned(),
            owner: owner_name(meta.uid()),
        });
    }
    if meta.permissions().mode() & 0o200 == 0 {
        return Err(RouteError::ReadOnly {
            file: file.to_owned(),
        });
    }
    Ok(())
}

fn owner_name(uid: u32) -> String {
    match nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)) {
        Ok(Some(user)) => format!("{} (uid {uid})", user.name),
        _ => format!("uid {uid}"),
    }
}

/// Creates `path` (it must not exist) with `bytes`, synced.
pub(super) fn write_new(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)?;
    // `mode` passes through the umask; the file must have it exactly (a
    // config keeps its own, a backup is 0600 whatever the umask).
    file.set_permissions(fs::Permissions::from_mode(mode))?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// The permissions `target` has, to give its replacement.
fn mode_of(target: &Path) -> u32 {
    fs::metadata(target)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o600)
}

fn sync_dir_of(target: &Path) -> io::Result<()> {
    fs::File::open(target.parent().unwrap_or_else(|| Path::new(".")))?.sync_all()
}

/// Replaces `target` with `bytes` through a temporary file beside it and a
/// rename, keeping its permissions, so a reader sees either the old file or
/// the new one, whole. For Rootgate's own files, which no one else writes.
pub(super) fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temp_path(target);
    let _ = fs::remove_file(&tmp);
    let written = write_new(&tmp, bytes, mode_of(target)).and_then(|()| fs::rename(&tmp, target));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written?;
    sync_dir_of(target)
}

/// Writes a file of Rootgate's own (0600) atomically, creating it if needed.
pub fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        rootgate_host::private_files::folder(dir)?;
    }
    if !path.exists() {
        write_new(path, b"", 0o600)?;
    }
    write_atomic(path, bytes)
}

/// Writes `bytes` to `temp`, synced, with `target`'s permissions: the first
/// half of [`swap_in`].
pub(super) fn write_temp(target: &Path, temp: &Path, bytes: &[u8]) -> io::Result<()> {
    let _ = fs::remove_file(temp);
    write_new(temp, bytes, mode_of(target))
}

/// Puts the synced `temp` in place of `target` when `target` is still
/// what was read (`expected`, a digest), and otherwise leaves `target` as
/// it is and says it changed. The comparison is made after every sync,
/// immediately before the rename; the rename exchanges the two files, so
/// what it displaced is compared too and put back when an app wrote it in
/// the instant between. Where the filesystem cannot exchange, a plain
/// rename follows the comparison.
pub(super) fn swap_in(
    file: &str,
    target: &Path,
    temp: &Path,
    expected: &str,
) -> Result<(), RouteError> {
    let changed = || RouteError::Changed {
        file: file.to_owned(),
    };
    let write_error = |source: io::Error| RouteError::Write {
        file: file.to_owned(),
        source,
    };
    let now = fs::read(target).map_err(|source| RouteError::Read {
        file: file.to_owned(),
        source,
    })?;
    if digest(&now) != expected {
        return Err(changed());
    }
    match renameat2(
        AT_FDCWD,
        temp,
        AT_FDCWD,
        target,
        RenameFlags::RENAME_EXCHANGE,
    ) {
        Ok(()) => {
            let displaced = fs::read(temp).map_err(write_error)?;
            if digest(&displaced) != expected {
                // The app wrote between the comparison and the exchange:
                // its version goes back in place, and ours is dropped.
                renameat2(
                    AT_FDCWD,
                    temp,
                    AT_FDCWD,
                    target,
                    RenameFlags::RENAME_EXCHANGE,
                )
                .map_err(|e| write_error(e.into()))?;
                let _ = fs::remove_file(temp);
                return Err(changed());
            }
            fs::remove_file(temp).map_err(write_error)?;
        }
        // Filesystems without the exchange (some network and FUSE ones).
        Err(Errno::EINVAL | Errno::ENOSYS | Errno::EOPNOTSUPP) => {
            fs::rename(temp, target).map_err(write_error)?;
        }
        Err(e) => return Err(write_error(e.into())),
    }
    sync_dir_of(target).map_err(write_error)
}

/// Files beside `target` that an interrupted write left: Rootgate's
/// temporary files for it, and backups of it that `known` (the backups
/// the ledger names) does not hold.
pub(super) fn leftovers(target: &Path, known: &[&Path]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let name = name_of(target);
    let temp_prefix = format!(".{name}{TEMP_MARK}");
    let backup_prefix = format!("{name}{BACKUP_MARK}");
    let dir = target.parent().unwrap_or_else(|| Path::new("."));
    let mut temps = Vec::new();
    let mut backups = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let found = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if found.starts_with(&temp_prefix) {
            temps.push(path);
        } else if found.starts_with(&backup_prefix) && !known.iter().any(|k| *k == path) {
            backups.push(path);
        }
    }
    temps.sort();
    backups.sort();
    (temps, backups)
}
