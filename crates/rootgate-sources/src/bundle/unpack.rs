//! A bundle's zip, checked entry by entry before anything is written, and
//! unpacked into a private folder with the same limits held again while
//! the bytes come out.
//!
//! Refused, in words naming the entry: a path that would leave the folder
//! (`..`, an absolute path, a backslash or a drive letter), a symbolic
//! link, an encrypted entry, a compression `mcpb pack` does not write,
//! more entries than [`Limits::entries`], and files that would take more
//! than [`Limits::bytes`] unpacked, by what the zip declares and again by
//! what actually comes out (a zip bomb may declare little).
//!
//! What this module does not do: choose where the folder is or move it
//! into place (see `bundle`), or read the manifest's meaning.

use std::fs;
use std::io::{self, Cursor, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

use zip::ZipArchive;

/// How much a bundle may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub entries: usize,
    pub bytes: u64,
    /// The most `manifest.json` itself may take.
    pub manifest_bytes: u64,
}

/// Generous for a Node server with its `node_modules` (tens of thousands
/// of files, a few hundred megabytes), and far below what fills a disk.
pub(crate) const LIMITS: Limits = Limits {
    entries: 100_000,
    bytes: 1 << 30,
    manifest_bytes: 1 << 20,
};

/// A zip whose every entry was checked, and its manifest's bytes.
pub struct Checked<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    pub manifest: Vec<u8>,
    limits: Limits,
}

/// An entry's path inside the folder, or why it has none.
fn inside(name: &str) -> Result<PathBuf, String> {
    if name.contains('\0') {
        return Err("holds a NUL character".into());
    }
    if name.contains('\\') {
        return Err("has a backslash, which other systems read as a folder separator".into());
    }
    let path = Path::new(name);
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(p) => {
                if p.to_str().is_some_and(|p| p.len() == 2 && p.ends_with(':')) {
                    return Err("starts with a drive letter".into());
                }
                out.push(p);
            }
            Component::CurDir => {}
            Component::ParentDir => return Err("climbs out of the bundle's folder (`..`)".into()),
            Component::RootDir | Component::Prefix(_) => {
                return Err("is an absolute path".into());
            }
        }
    }
    if out.as_os_str().is_empty() {
        return Err("names no file".into());
    }
    Ok(out)
}

/// An entry's name as text, or why it has none.
fn entry_name(
    name: zip::result::ZipResult<std::borrow::Cow<'_, str>>,
    index: usize,
) -> Result<String, String> {
    name.map(|n| n.into_owned())
        .map_err(|e| format!("the name of its entry {} cannot be read ({e})", index + 1))
}

fn size(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    if bytes >= MIB {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Checks every entry of `zip` against `limits` and reads its manifest.
pub fn check(zip: &[u8], limits: Limits) -> Result<Checked<'_>, String> {
    let mut archive = ZipArchive::new(Cursor::new(zip))
        .map_err(|e| format!("it is not a zip file, which an MCP bundle is ({e})"))?;
    if archive.len() > limits.entries {
        return Err(format!(
            "it holds {} entries, more than the {} Rootgate unpacks",
            archive.len(),
            limits.entries
        ));
    }
    let mut total: u64 = 0;
    for i in 0..archive.len() {
        let entry = archive
            .by_index_raw(i)
            .map_err(|e| format!("its entry {} cannot be read ({e})", i + 1))?;
        let name = entry_name(entry.name(), i)?;
        let shown = rootgate_model::names::written_out(&name);
        inside(&name).map_err(|why| format!("its entry `{shown}` {why}"))?;
        if entry.is_symlink() {
            return Err(format!(
                "its entry `{shown}` is a symbolic link; a bundle's entries must be files and folders"
            ));
        }
        if entry.encrypted() {
            return Err(format!("its entry `{shown}` is encrypted"));
        }
        let method = entry.compression();
        if !matches!(
            method,
            zip::CompressionMethod::Stored | zip::CompressionMethod::Deflated
        ) {
            return Err(format!(
                "its entry `{shown}` is compressed with {method}, which MCP bundles do not use"
            ));
        }
        total = total.saturating_add(entry.size());
        if total > limits.bytes {
            return Err(format!(
                "its files would take more than {} unpacked (at `{shown}`), more than Rootgate \
                 unpacks",
                size(limits.bytes)
            ));
        }
    }
    let manifest = read_manifest(&mut archive, limits)?;
    Ok(Checked {
        archive,
        manifest,
        limits,
    })
}

fn read_manifest(
    archive: &mut ZipArchive<Cursor<&[u8]>>,
    limits: Limits,
) -> Result<Vec<u8>, String> {
    let entry = match archive.by_name("manifest.json") {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => {
            return Err("it has no manifest.json at its top".into());
        }
        Err(e) => return Err(format!("its manifest.json cannot be read ({e})")),
    };
    let mut bytes = Vec::new();
    entry
        .take(limits.manifest_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("its manifest.json cannot be read ({e})"))?;
    if bytes.len() as u64 > limits.manifest_bytes {
        return Err(format!(
            "its manifest.json is larger than {}",
            size(limits.manifest_bytes)
        ));
    }
    Ok(bytes)
}

impl Checked<'_> {
    /// Unpacks every entry into `folder` (an empty, private folder),
    /// holding the limits again on the bytes that come out. Files keep
    /// their executable bit and nothing else of their recorded mode.
    pub(crate) fn unpack(&mut self, folder: &Path) -> Result<(), String> {
        let mut budget = self.limits.bytes;
        for i in 0..self.archive.len() {
            let mut entry = self
                .archive
                .by_index(i)
                .map_err(|e| format!("its entry {} cannot be read ({e})", i + 1))?;
            let name = entry_name(entry.name(), i)?;
            let shown = rootgate_model::names::written_out(&name);
            let path =
                folder.join(inside(&name).map_err(|why| format!("its entry `{shown}` {why}"))?);
            let failed = |e: io::Error| format!("its entry `{shown}` cannot be unpacked ({e})");
            if entry.is_dir() {
                mkdirs(&path).map_err(failed)?;
                continue;
            }
            if let Some(parent) = path.parent() {
                mkdirs(parent).map_err(failed)?;
            }
            let executable = entry.unix_mode().is_some_and(|m| m & 0o111 != 0);
            let mut out = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(if executable { 0o755 } else { 0o644 })
                .open(&path)
                .map_err(failed)?;
            let declared = entry.size();
            let written = io::copy(&mut (&mut entry).take(budget.min(declared) + 1), &mut out)
                .map_err(failed)?;
            if written > declared || written > budget {
                return Err(format!(
                    "its entry `{shown}` unpacks to more than it declares, as a zip bomb does"
                ));
            }
            budget -= written;
            out.flush().map_err(failed)?;
        }
        Ok(())
    }
}

fn mkdirs(path: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o755)
        .create(path)
}

#[cfg(test)]
mod tests {
    use zip::write::SimpleFileOptions;

    use super::*;

    const MANIFEST: &[u8] = b"{}";

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        for (name, bytes) in entries {
            out.start_file(*name, options).unwrap();
            out.write_all(bytes).unwrap();
        }
        out.finish().unwrap().into_inner()
    }

    #[test]
    fn paths_that_leave_the_folder_are_refused() {
        assert_eq!(
            inside("server/index.js").unwrap(),
            Path::new("server/index.js")
        );
        assert_eq!(inside("./a/./b").unwrap(), Path::new("a/b"));
        for (name, said) in [
            ("../evil", "`..`"),
            ("a/../../evil", "`..`"),
            ("/etc/passwd", "absolute"),
            ("a\\..\\b", "backslash"),
            ("C:/x", "drive letter"),
            ("", "names no file"),
        ] {
            assert!(inside(name).unwrap_err().contains(said), "{name}");
        }
    }

    #[test]
    fn a_small_limit_refuses_by_count_and_by_size_and_a_good_zip_unpacks() {
        let zip = zip_of(&[
            ("manifest.json", MANIFEST),
            ("bin/run", b"#!/bin/sh\n"),
            ("a/b.txt", b"hello"),
        ]);
        let few = Limits {
            entries: 2,
            ..LIMITS
        };
        assert!(check(&zip, few).err().unwrap().contains("3 entries"));
        let small = Limits {
            bytes: 10,
            ..LIMITS
        };
        assert!(
            check(&zip, small)
                .err()
                .unwrap()
                .contains("more than 10 bytes")
        );
        let dir = tempfile::tempdir().unwrap();
        let mut checked = check(&zip, LIMITS).unwrap();
        assert_eq!(checked.manifest, MANIFEST);
        checked.unpack(dir.path()).unwrap();
        assert_eq!(fs::read(dir.path().join("a/b.txt")).unwrap(), b"hello");
        let no_manifest = zip_of(&[("other.json", MANIFEST)]);
        assert!(
            check(&no_manifest, LIMITS)
                .err()
                .unwrap()
                .contains("no manifest.json")
        );
        assert!(
            check(b"not a zip", LIMITS)
                .err()
                .unwrap()
                .contains("not a zip file")
        );
    }
}
