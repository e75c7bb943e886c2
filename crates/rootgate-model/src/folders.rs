//! Checking a folder a person chose before it can become a root.
//!
//! A [`CheckedFolder`] is proof that a path was absolute, existed, was a
//! directory and could be listed at the moment it was checked, and it carries
//! both the path the person chose and its canonical real path (symlinks
//! resolved). [`warnings`] flags risky but legal choices: the filesystem root,
//! the home folder itself, folders that hold secrets, symlinks, and folders
//! nested in or around existing roots.
//!
//! This module never stores anything, never decides who may see a folder and
//! never watches the filesystem: that is `store`, `consent` and the
//! availability monitor.

use std::ffi::OsStr;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde::Serialize;
use thiserror::Error;

/// Why a chosen path cannot be a root. Each case has its own words, because
/// each needs a different fix from the person.
#[derive(Debug, Error)]
pub enum FolderError {
    #[error(
        "\"{}\" is not an absolute path; choose the folder with the folder picker",
        shown(.0)
    )]
    Relative(PathBuf),
    #[error("the path contains a NUL byte, which no real folder name can hold")]
    NulByte,
    #[error(
        "\"{}\" does not exist (was it moved, renamed or on a disk that is not mounted?)",
        shown(.0)
    )]
    Missing(PathBuf),
    #[error(
        "\"{}\" is a file, not a folder; choose the folder that contains it",
        shown(.0)
    )]
    NotADirectory(PathBuf),
    #[error(
        "\"{}\" cannot be read by you ({source}); check its permissions",
        shown(.path)
    )]
    Unreadable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "\"{}\" leads to a symlink loop or a path too long to resolve ({source})",
        shown(.path)
    )]
    Unresolvable {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("\"{}\" could not be checked: {source}", shown(.path))]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// A folder that passed every check when it was checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedFolder {
    chosen: PathBuf,
    real: PathBuf,
}

impl CheckedFolder {
    /// The path as the person chose it (it may run through symlinks).
    pub fn chosen(&self) -> &Path {
        &self.chosen
    }

    /// The canonical real path: the folder a server would actually see.
    pub fn real(&self) -> &Path {
        &self.real
    }

    /// True when the chosen path and the real path differ (a symlink, or a
    /// `..` segment, led somewhere else).
    pub fn is_redirected(&self) -> bool {
        self.chosen != self.real
    }

    /// True when a link on the chosen path led somewhere else than the path
    /// says: the chosen path, with `.` and `..` taken as written, is not the
    /// real one. A path merely written with `..` or a trailing slash is not.
    pub fn through_link(&self) -> bool {
        lexical(&self.chosen) != self.real
    }

    /// The name a root gets unless the person gives another: the last
    /// component of the path as chosen (a link named `work` that leads to
    /// `/srv/x/2026` is shared as "work", the name the person picked), or of
    /// the real path when the chosen one has none (`..`, `/`).
    pub fn default_name(&self) -> String {
        let chosen = self
            .chosen
            .file_name()
            .filter(|n| *n != std::ffi::OsStr::new(".."));
        match chosen {
            Some(_) => default_name(&self.chosen),
            None => default_name(&self.real),
        }
    }
}

/// The name a folder gets unless the person gives another: its last path
/// component, with any character that would hide or reorder text written
/// out (see `names::usable`), so the default is always a name the person
/// could have typed and servers are never sent a deceiving one.
pub fn default_name(path: &Path) -> String {
    let fallback = path.display().to_string();
    match path.file_name() {
        Some(name) => crate::names::usable(&name.to_string_lossy(), &fallback),
        None => fallback,
    }
}

/// Checks a chosen path and resolves it to its canonical real path.
pub fn check(chosen: &Path) -> Result<CheckedFolder, FolderError> {
    use std::os::unix::ffi::OsStrExt;
    if chosen.as_os_str().as_bytes().contains(&0) {
        return Err(FolderError::NulByte);
    }
    if !chosen.is_absolute() {
        return Err(FolderError::Relative(chosen.to_path_buf()));
    }
    let real = std::fs::canonicalize(chosen).map_err(|source| classify(chosen, source))?;
    let meta = std::fs::metadata(&real).map_err(|source| classify(chosen, source))?;
    if !meta.is_dir() {
        return Err(FolderError::NotADirectory(chosen.to_path_buf()));
    }
    // Listing the folder is the one check that proves a server running as
    // this user could work in it; mode bits alone miss ACLs and mounts.
    std::fs::read_dir(&real).map_err(|source| classify(chosen, source))?;
    Ok(CheckedFolder {
        chosen: chosen.to_path_buf(),
        real,
    })
}

fn classify(path: &Path, source: io::Error) -> FolderError {
    let path = path.to_path_buf();
    match source.kind() {
        io::ErrorKind::NotFound => FolderError::Missing(path),
        io::ErrorKind::PermissionDenied => FolderError::Unreadable { path, source },
        io::ErrorKind::NotADirectory => FolderError::NotADirectory(path),
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidFilename => {
            FolderError::Unresolvable { path, source }
        }
        _ if source.raw_os_error() == Some(nix::libc::ELOOP)
            || source.raw_os_error() == Some(nix::libc::ENAMETOOLONG) =>
        {
            FolderError::Unresolvable { path, source }
        }
        _ => FolderError::Io { path, source },
    }
}

/// A risky but legal choice, shown to the person before they consent.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Warning {
    /// The whole filesystem.
    FilesystemRoot,
    /// The person's home folder itself, with everything in it.
    HomeFolder,
    /// The folder is, or is inside, a folder that holds secrets.
    InsideSecrets { secret: String },
    /// The folder directly holds secret folders or files (names listed).
    HoldsSecrets { names: Vec<String> },
    /// The chosen path led elsewhere through a symlink.
    Symlink { chosen: PathBuf, real: PathBuf },
    /// The folder is inside a folder that is already a root.
    NestedIn { root: PathBuf },
    /// The folder contains a folder that is already a root.
    Contains { root: PathBuf },
    /// A name on the folder's path starts or ends with white space or a
    /// quote, which some servers strip (the npm filesystem server trims
    /// each path it is given), so they would look for another folder.
    EdgeCharacters { name: String },
    /// A name on the folder's path holds characters that are invisible or
    /// reorder the text (see `names::is_hidden`), so the path may not be
    /// what it looks like. `shown` is the name with each such character
    /// written out as `<U+202E>`.
    HiddenCharacters { shown: String },
}

impl Warning {
    /// The warning in plain words, for the consent prompt.
    pub fn message(&self) -> String {
        match self {
            Warning::FilesystemRoot => {
                "This is the whole disk: a server would be told it may work anywhere.".into()
            }
            Warning::HomeFolder => {
                "This is your entire home folder, including documents, keys and settings.".into()
            }
            Warning::InsideSecrets { secret } => format!(
                "This folder is inside \"{}\", which holds secrets.",
                crate::names::written_out(secret)
            ),
            Warning::HoldsSecrets { names } => format!(
                "This folder holds secrets a server could read: {}.",
                crate::names::written_out(&names.join(", "))
            ),
            Warning::Symlink { chosen, real } => format!(
                "\"{}\" is a link; the folder shared is \"{}\".",
                shown(chosen),
                shown(real)
            ),
            Warning::NestedIn { root } => format!(
                "This folder is already inside the shared folder \"{}\".",
                shown(root)
            ),
            Warning::Contains { root } => format!(
                "This folder contains the shared folder \"{}\".",
                shown(root)
            ),
            Warning::EdgeCharacters { name } => format!(
                "\"{}\" starts or ends with a space or a quote; some servers (the npm \
                 filesystem server among them) drop those and will not find this folder.",
                crate::names::written_out(name)
            ),
            Warning::HiddenCharacters { shown } => format!(
                "A name on this path holds invisible characters, so the path may not be what it \
                 looks like. Written out, it is \"{shown}\"."
            ),
        }
    }
}

/// `path` with `.` dropped and each `..` taking away the name before it,
/// without asking the filesystem: where the path says it leads if no link
/// is on it.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// A path as a message shows it: invisible and reordering characters
/// written out (`<U+202E>`), so the words cannot be turned around.
fn shown(path: &Path) -> String {
    crate::names::written_out(&path.display().to_string())
}

/// Names that mark a folder as holding secrets, when found directly inside
/// it or anywhere on its path.
const SECRET_DIRS: &[&str] = &[".ssh", ".gnupg", ".aws", ".kube", ".password-store"];

fn is_secret_file(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    name == ".env" || name.starts_with(".env.") || name == ".netrc" || name == ".pgpass"
}

/// Every warning that applies to `folder`, given the home folder and the
/// real paths of the roots that already exist.
pub fn warnings<'a>(
    folder: &CheckedFolder,
    home: Option<&Path>,
    existing: impl IntoIterator<Item = &'a Path>,
) -> Vec<Warning> {
    let real = folder.real();
    let mut out = Vec::new();
    if real.parent().is_none() {
        out.push(Warning::FilesystemRoot);
    }
    if let Some(home) = home {
        let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf());
        if real == home {
            out.push(Warning::HomeFolder);
        }
    }
    out.extend(secret_warnings(real));
    out.extend(name_warnings(folder));
    // A path written with `.`, `..` or a trailing slash that leads where it
    // says is no link; only a path that resolves elsewhere is.
    if folder.through_link() {
        out.push(Warning::Symlink {
            chosen: folder.chosen().to_path_buf(),
            real: real.to_path_buf(),
        });
    }
    out.extend(nesting_warnings(real, existing));
    out
}

/// Warnings about secrets: the folder is inside a folder of secrets, or
/// holds some.
fn secret_warnings(real: &Path) -> Vec<Warning> {
    let mut out = Vec::new();
    if let Some(secret) = real.components().find_map(|c| match c {
        Component::Normal(name) if SECRET_DIRS.iter().any(|s| OsStr::new(s) == name) => {
            Some(name.to_string_lossy().into_owned())
        }
        _ => None,
    }) {
        out.push(Warning::InsideSecrets { secret });
    }
    let mut names: Vec<String> = std::fs::read_dir(real)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.file_name())
        .filter(|name| SECRET_DIRS.iter().any(|s| OsStr::new(s) == name) || is_secret_file(name))
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    if !names.is_empty() {
        names.sort();
        out.push(Warning::HoldsSecrets { names });
    }
    out
}

/// Warnings about what is written in the path's names: spaces or quotes
/// at a name's edge, characters that do not show.
fn name_warnings(folder: &CheckedFolder) -> Vec<Warning> {
    let real = folder.real();
    let mut out = Vec::new();
    // The names on the path, as text, for the two checks of what is written
    // in them.
    let names = || {
        real.components().filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_string_lossy()),
            _ => None,
        })
    };
    let edge = |c: char| c.is_whitespace() || c == '"' || c == '\'';
    if let Some(name) = names().find(|text| text.starts_with(edge) || text.ends_with(edge)) {
        out.push(Warning::EdgeCharacters {
            name: name.into_owned(),
        });
    }
    // The chosen path's names too: a link with such a name leads to a
    // plainly named folder, and the link's name is the one shown.
    let chosen_names = folder.chosen().components().filter_map(|c| match c {
        Component::Normal(name) => Some(name.to_string_lossy()),
        _ => None,
    });
    if let Some(name) = chosen_names
        .chain(names())
        .find(|text| text.chars().any(crate::names::is_hidden))
    {
        out.push(Warning::HiddenCharacters {
            shown: crate::names::written_out(&name),
        });
    }
    out
}

/// Warnings about the roots kept already (`existing`): the folder is
/// inside one, or holds one.
fn nesting_warnings<'a>(real: &Path, existing: impl IntoIterator<Item = &'a Path>) -> Vec<Warning> {
    let mut out = Vec::new();
    for other in existing {
        if other == real {
            continue;
        }
        if real.starts_with(other) {
            out.push(Warning::NestedIn {
                root: other.to_path_buf(),
            });
        } else if other.starts_with(real) {
            out.push(Warning::Contains {
                root: other.to_path_buf(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn a_plain_folder_is_accepted_and_canonical() {
        let dir = tmp();
        let sub = dir.path().join("proj");
        std::fs::create_dir(&sub).unwrap();
        let checked = check(&dir.path().join("proj/../proj")).unwrap();
        assert_eq!(checked.real(), std::fs::canonicalize(&sub).unwrap());
        assert_eq!(checked.default_name(), "proj");
        assert!(checked.is_redirected());
    }

    #[test]
    fn relative_missing_file_and_nul_each_have_their_own_error() {
        let dir = tmp();
        let file = dir.path().join("notes.txt");
        std::fs::write(&file, "x").unwrap();
        assert!(matches!(
            check(Path::new("proj")),
            Err(FolderError::Relative(_))
        ));
        assert!(matches!(
            check(&dir.path().join("gone")),
            Err(FolderError::Missing(_))
        ));
        assert!(matches!(check(&file), Err(FolderError::NotADirectory(_))));
        assert!(matches!(
            check(Path::new("/tmp/a\0b")),
            Err(FolderError::NulByte)
        ));
    }

    #[test]
    fn symlink_loops_are_unresolvable() {
        let dir = tmp();
        symlink(dir.path().join("b"), dir.path().join("a")).unwrap();
        symlink(dir.path().join("a"), dir.path().join("b")).unwrap();
        assert!(matches!(
            check(&dir.path().join("a")),
            Err(FolderError::Unresolvable { .. })
        ));
    }

    #[test]
    fn unreadable_folder_is_refused_when_permissions_apply() {
        let dir = tmp();
        let locked = dir.path().join("locked");
        std::fs::create_dir(&locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        let result = check(&locked);
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
        // Root reads through mode bits, so as root the folder is readable and
        // the check must accept it; as anyone else it must refuse it.
        if nix::unistd::geteuid().is_root() {
            assert!(result.is_ok());
        } else {
            assert!(matches!(result, Err(FolderError::Unreadable { .. })));
        }
    }

    #[test]
    fn symlink_keeps_both_paths_and_warns() {
        let dir = tmp();
        let target = dir.path().join("real");
        std::fs::create_dir(&target).unwrap();
        let link = dir.path().join("link");
        symlink(&target, &link).unwrap();
        let checked = check(&link).unwrap();
        assert_eq!(checked.chosen(), link);
        assert_eq!(checked.real(), std::fs::canonicalize(&target).unwrap());
        assert_eq!(checked.default_name(), "link", "the name the person picked");
        let w = warnings(&checked, None, []);
        assert!(
            w.iter().any(|w| matches!(w, Warning::Symlink { .. })),
            "{w:?}"
        );
    }

    #[test]
    fn risky_choices_are_flagged() {
        let root = check(Path::new("/")).unwrap();
        assert!(warnings(&root, None, []).contains(&Warning::FilesystemRoot));

        let home = tmp();
        let checked = check(home.path()).unwrap();
        assert!(warnings(&checked, Some(home.path()), []).contains(&Warning::HomeFolder));

        std::fs::create_dir(home.path().join(".ssh")).unwrap();
        std::fs::write(home.path().join(".env.local"), "K=V").unwrap();
        let w = warnings(&checked, None, []);
        assert!(
            w.contains(&Warning::HoldsSecrets {
                names: vec![".env.local".into(), ".ssh".into()]
            }),
            "{w:?}"
        );
        let inside = check(&home.path().join(".ssh")).unwrap();
        assert!(
            warnings(&inside, None, []).contains(&Warning::InsideSecrets {
                secret: ".ssh".into()
            })
        );
    }

    #[test]
    fn nesting_is_flagged_both_ways() {
        let dir = tmp();
        let outer = check(dir.path()).unwrap();
        let inner_path = dir.path().join("inner");
        std::fs::create_dir(&inner_path).unwrap();
        let inner = check(&inner_path).unwrap();
        assert_eq!(
            warnings(&inner, None, [outer.real()]),
            vec![Warning::NestedIn {
                root: outer.real().to_path_buf()
            }]
        );
        assert_eq!(
            warnings(&outer, None, [inner.real()]),
            vec![Warning::Contains {
                root: inner.real().to_path_buf()
            }]
        );
        // A folder is not nested in itself.
        assert!(warnings(&inner, None, [inner.real()]).is_empty());
    }

    #[test]
    fn invisible_and_reordering_characters_are_written_out() {
        let dir = tempfile::tempdir().unwrap();
        let sly = dir.path().join("invoice\u{202E}fdp.exe");
        std::fs::create_dir(&sly).unwrap();
        let w = warnings(&check(&sly).unwrap(), None, []);
        assert!(
            w.contains(&Warning::HiddenCharacters {
                shown: "invoice<U+202E>fdp.exe".into()
            }),
            "{w:?}"
        );
        // Its default name says what is there, and is one a person could
        // type, so servers are never sent the deceiving character.
        let name = check(&sly).unwrap().default_name();
        assert_eq!(name, "invoice<U+202E>fdp.exe");
        assert!(crate::names::check(&name).is_ok());
        let zw = dir.path().join("a\u{200B}b");
        std::fs::create_dir(&zw).unwrap();
        let w = warnings(&check(&zw).unwrap(), None, []);
        assert!(w.contains(&Warning::HiddenCharacters {
            shown: "a<U+200B>b".into()
        }));
        // Persian written with its zero-width non-joiner is not hidden text.
        let fa = dir.path().join("می\u{200C}خواهم");
        std::fs::create_dir(&fa).unwrap();
        let w = warnings(&check(&fa).unwrap(), None, []);
        assert!(
            !w.iter()
                .any(|w| matches!(w, Warning::HiddenCharacters { .. })),
            "{w:?}"
        );
    }

    #[test]
    fn a_link_with_a_hidden_character_is_pointed_out_and_messages_write_it_out() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::create_dir(&plain).unwrap();
        let sly = dir.path().join("report\u{202E}fdp.exe");
        symlink(&plain, &sly).unwrap();
        let checked = check(&sly).unwrap();
        let w = warnings(&checked, None, []);
        assert!(
            w.contains(&Warning::HiddenCharacters {
                shown: "report<U+202E>fdp.exe".into()
            }),
            "the link's name is the one shown, so it is checked too: {w:?}"
        );
        let link = w
            .iter()
            .find(|w| matches!(w, Warning::Symlink { .. }))
            .expect("a link");
        assert!(
            link.message().contains("report<U+202E>fdp.exe"),
            "{}",
            link.message()
        );
        assert!(!link.message().contains('\u{202E}'));
        let nested = Warning::NestedIn {
            root: dir.path().join("x\u{202E}y"),
        };
        assert!(nested.message().contains("x<U+202E>y"));
        assert!(!nested.message().contains('\u{202E}'));
    }

    #[test]
    fn a_path_written_with_dots_is_no_link() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::fs::create_dir_all(a.join("b")).unwrap();
        let real = std::fs::canonicalize(&a).unwrap();
        for written in [
            real.join("b/.."),
            real.join("./b/../."),
            real.join("b").join(".."),
        ] {
            let checked = check(&written).unwrap();
            assert_eq!(checked.real(), real);
            let w = warnings(&checked, None, []);
            assert!(
                !w.iter().any(|w| matches!(w, Warning::Symlink { .. })),
                "{written:?}: {w:?}"
            );
        }
        // Through a link and back out with `..`, the path leads elsewhere
        // than it says: that is pointed out.
        let link = dir.path().join("hop");
        symlink(a.join("b"), &link).unwrap();
        let checked = check(&link.join("..")).unwrap();
        assert_eq!(checked.real(), real);
        let w = warnings(&checked, None, []);
        assert!(
            w.iter().any(|w| matches!(w, Warning::Symlink { .. })),
            "{w:?}"
        );
    }

    #[test]
    fn names_a_server_would_trim_are_pointed_out() {
        let dir = tempfile::tempdir().unwrap();
        for name in [" lead", "trail ", "'quoted'", "\"dq"] {
            let path = dir.path().join(name);
            std::fs::create_dir(&path).unwrap();
            let checked = check(&path).unwrap();
            assert!(
                warnings(&checked, None, [])
                    .contains(&Warning::EdgeCharacters { name: name.into() }),
                "{name:?}"
            );
        }
        let plain = dir.path().join("in side");
        std::fs::create_dir(&plain).unwrap();
        let checked = check(&plain).unwrap();
        assert!(
            !warnings(&checked, None, [])
                .iter()
                .any(|w| matches!(w, Warning::EdgeCharacters { .. }))
        );
    }
}
