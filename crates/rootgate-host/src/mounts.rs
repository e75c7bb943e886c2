//! The mount table, as far as folder availability needs it: which mount
//! holds a folder, and a wake-up when the table changes.
//!
//! Filesystem events cannot see mounts. Unmounting a disk removes every
//! inotify watch on it without an event `notify` reports, and mounting over a
//! folder makes no event at all, so the monitor would neither withdraw a
//! folder on an unmounted disk nor offer it again when the disk returns. On
//! Linux the kernel signals a change of the mount table on
//! `/proc/self/mountinfo` with `POLLPRI`; `MountChanges` waits for that on the
//! tokio reactor, so nothing polls. Elsewhere it never fires, and folders are
//! watched through filesystem events alone.
//!
//! This module only reads the table; it decides nothing about roots (that is
//! the monitor's job) and never mounts or unmounts anything.

use std::path::{Path, PathBuf};

/// Where filesystems are mounted, as this process sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MountTable {
    points: Vec<PathBuf>,
}

impl MountTable {
    /// The current table. Where it cannot be read (no `/proc`, another
    /// platform) the table is empty, which makes every folder "held by no
    /// mount": availability then rests on the folder's own checks alone.
    pub fn read() -> MountTable {
        #[cfg(target_os = "linux")]
        if let Ok(text) = std::fs::read_to_string("/proc/self/mountinfo") {
            return MountTable::parse(&text);
        }
        MountTable::default()
    }

    /// Reads the mount points out of `mountinfo` text (the fifth field of
    /// each line, with the kernel's octal escapes for space, tab, newline
    /// and backslash undone). Lines that do not have the field are skipped.
    pub fn parse(text: &str) -> MountTable {
        let points = text
            .lines()
            .filter_map(|line| line.split(' ').nth(4))
            .map(unescape)
            .collect();
        MountTable { points }
    }

    /// The mount point of the filesystem that holds `path`: the longest
    /// mount point that is `path` or a folder above it. `path` is expected
    /// to be a real (canonical) path, as roots are.
    pub fn holding(&self, path: &Path) -> Option<&Path> {
        self.points
            .iter()
            .filter(|point| path.starts_with(point))
            .max_by_key(|point| point.components().count())
            .map(PathBuf::as_path)
    }
}

/// Undoes mountinfo's escapes: `\040` is a space, `\011` a tab, `\012` a
/// newline, `\134` a backslash. Anything else is kept as written.
fn unescape(field: &str) -> PathBuf {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(digits) => {
                let value = digits
                    .iter()
                    .fold(0u32, |acc, d| acc * 8 + u32::from(d - b'0'));
                match u8::try_from(value) {
                    Ok(byte) => out.push(byte),
                    Err(_) => out.extend_from_slice(&bytes[i..i + 4]),
                }
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(out))
}

/// Puts the table's file on the tokio reactor, waiting for `POLLPRI`.
#[cfg(target_os = "linux")]
#[expect(
    deprecated,
    reason = "AsyncFd's safe constructor is deprecated because an arbitrary AsRawFd type \
              could hand out another descriptor later; a File owned by the AsyncFd and never \
              given out cannot, and the replacement is an unsafe fn, which the workspace forbids"
)]
fn register(file: std::fs::File) -> std::io::Result<tokio::io::unix::AsyncFd<std::fs::File>> {
    tokio::io::unix::AsyncFd::with_interest(file, tokio::io::Interest::PRIORITY)
}

/// Wakes when the mount table changes. Created once per monitor.
pub struct MountChanges {
    #[cfg(target_os = "linux")]
    fd: Option<tokio::io::unix::AsyncFd<std::fs::File>>,
}

impl MountChanges {
    /// Starts listening on the current tokio runtime. Failing to open the
    /// table is not an error for the caller: the changes then never fire,
    /// and the monitor still sees everything filesystem events show.
    pub fn open() -> MountChanges {
        #[cfg(target_os = "linux")]
        {
            let fd = std::fs::File::open("/proc/self/mountinfo").and_then(register);
            match fd {
                Ok(fd) => MountChanges { fd: Some(fd) },
                Err(e) => {
                    tracing::warn!("mount changes will not be seen: {e}");
                    MountChanges { fd: None }
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        MountChanges {}
    }

    /// Resolves once the table has changed since the last call (or since
    /// `open`). Never resolves where changes cannot be seen.
    pub async fn changed(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.fd {
            match fd.ready(tokio::io::Interest::PRIORITY).await {
                Ok(mut guard) => {
                    guard.clear_ready();
                    return;
                }
                Err(e) => {
                    // An error here would repeat on every call; stop
                    // listening rather than spin.
                    tracing::warn!("mount changes will no longer be seen: {e}");
                    self.fd = None;
                }
            }
        }
        std::future::pending::<()>().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
23 22 0:21 / /proc rw,nosuid shared:2 - proc proc rw
40 22 0:35 / /media/me/My\\040Disk rw shared:20 - vfat /dev/sdb1 rw
41 22 0:36 / /mnt/back\\134slash rw shared:21 - tmpfs none rw
";

    #[test]
    fn the_longest_mount_point_above_a_folder_holds_it() {
        let table = MountTable::parse(SAMPLE);
        assert_eq!(
            table.holding(Path::new("/media/me/My Disk/photos")),
            Some(Path::new("/media/me/My Disk"))
        );
        assert_eq!(
            table.holding(Path::new("/media/me/My Disk")),
            Some(Path::new("/media/me/My Disk"))
        );
        // A sibling whose name starts the same is on the root filesystem.
        assert_eq!(
            table.holding(Path::new("/media/me/My Disk 2")),
            Some(Path::new("/"))
        );
        assert_eq!(
            table.holding(Path::new("/mnt/back\\slash/x")),
            Some(Path::new("/mnt/back\\slash"))
        );
        assert_eq!(MountTable::default().holding(Path::new("/x")), None);
    }

    #[test]
    fn escapes_that_are_not_octal_are_kept() {
        assert_eq!(unescape("a\\09b"), PathBuf::from("a\\09b"));
        assert_eq!(unescape("end\\04"), PathBuf::from("end\\04"));
        assert_eq!(unescape("tab\\011"), PathBuf::from("tab\t"));
        assert_eq!(unescape("big\\777"), PathBuf::from("big\\777"));
    }

    #[test]
    fn this_machine_has_a_root_mount() {
        // Every Linux system has a filesystem mounted at `/`, so anything
        // is held by some mount; the table is read, not defaulted.
        let table = MountTable::read();
        if cfg!(target_os = "linux") {
            assert_eq!(table.holding(Path::new("/")), Some(Path::new("/")));
        }
    }
}
