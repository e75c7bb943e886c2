//! Property tests for the two places a path is judged: folder checking and
//! URI conversion. Any input either yields a canonical root whose URI
//! round-trips exactly, or a typed error; never a panic, and never a root
//! other than the folder the chosen path resolves to. The fuzz targets
//! (fuzz/) push the same code with coverage guidance; these run in CI.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use rootgate_model::folders::{self, FolderError};
use rootgate_model::uri;

/// A path component: any characters but `/` and NUL, never `.` or `..`
/// (those are tested as separate segments).
fn component() -> impl Strategy<Value = String> {
    "[^/\u{0}]{1,24}".prop_filter("not a dot segment", |s| s != "." && s != "..")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_absolute_path_round_trips_through_its_uri(parts in prop::collection::vec(component(), 1..6)) {
        let path = PathBuf::from(format!("/{}", parts.join("/")));
        let u = uri::path_to_uri(&path).unwrap();
        prop_assert!(u.as_str().starts_with("file:///"));
        prop_assert!(u.as_str().is_ascii());
        for raw in [' ', '#', '?', '\n', '\\', '"'] {
            prop_assert!(!u.as_str()["file://".len()..].contains(raw), "{} holds {:?}", u, raw);
        }
        prop_assert_eq!(uri::uri_to_path(u.as_str()).unwrap(), path);
    }

    #[test]
    fn non_utf8_names_round_trip_too(bytes in prop::collection::vec(1u8..=255, 1..32)) {
        // `..` is the one name a path cannot hold and still have a URI.
        prop_assume!(!bytes.contains(&b'/') && bytes != b"..");
        let mut raw = b"/tmp/".to_vec();
        raw.extend_from_slice(&bytes);
        let path = PathBuf::from(OsString::from_vec(raw));
        let u = uri::path_to_uri(&path).unwrap();
        prop_assert_eq!(uri::uri_to_path(u.as_str()).unwrap(), path);
    }

    #[test]
    fn windows_paths_round_trip(
        drive in "[A-Za-z]",
        parts in prop::collection::vec(
            "[^\\\\/:*?\"<>|\u{0}-\u{1f}]{1,16}"
                .prop_filter("dot segments are not names", |s| s != "." && s != ".."),
            0..5,
        ),
    ) {
        let path = if parts.is_empty() {
            format!("{drive}:\\")
        } else {
            format!("{drive}:\\{}", parts.join("\\"))
        };
        let u = uri::windows_path_to_uri(&path).unwrap();
        prop_assert_eq!(uri::windows_uri_to_path(u.as_str()).unwrap(), path);
    }

    #[test]
    fn any_uri_text_is_a_path_or_a_typed_error(text in ".{0,80}") {
        // Never a panic; a path, when given, is absolute.
        if let Ok(path) = uri::uri_to_path(&text) {
            prop_assert!(path.is_absolute());
        }
    }

    #[test]
    fn checking_any_chosen_path_yields_exactly_where_it_leads(
        segments in prop::collection::vec(prop_oneof![
            Just("a".to_owned()), Just("b".to_owned()), Just("link".to_owned()),
            Just("loop".to_owned()), Just("file".to_owned()), Just("..".to_owned()),
            Just(".".to_owned()), Just("missing".to_owned()), component(),
        ], 0..6),
        relative in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        // A small world: folders, a file, a link to a folder, a link loop.
        std::fs::create_dir_all(base.join("a/b")).unwrap();
        std::fs::write(base.join("a/file"), "x").unwrap();
        std::os::unix::fs::symlink(base.join("a"), base.join("a/b/link")).unwrap();
        std::os::unix::fs::symlink(base.join("a/loop"), base.join("a/loop")).unwrap();
        let tail = segments.join("/");
        let chosen = if relative { PathBuf::from(&tail) } else { base.join("a").join(&tail) };
        match folders::check(&chosen) {
            Ok(folder) => {
                let real = folder.real();
                prop_assert!(real.is_absolute() && real.is_dir());
                prop_assert_eq!(std::fs::canonicalize(&chosen).unwrap(), real.to_path_buf());
                prop_assert_eq!(std::fs::canonicalize(real).unwrap(), real.to_path_buf());
                let u = uri::path_to_uri(real).unwrap();
                prop_assert_eq!(uri::uri_to_path(u.as_str()).unwrap(), real.to_path_buf());
            }
            Err(FolderError::Relative(p)) => prop_assert!(relative && p == chosen),
            Err(FolderError::Missing(_) | FolderError::NotADirectory(_)
                | FolderError::Unresolvable { .. } | FolderError::Unreadable { .. }
                | FolderError::Io { .. }) => prop_assert!(!relative),
            Err(FolderError::NulByte) => prop_assert!(false, "no NUL was generated"),
        }
    }
}

#[test]
fn a_nul_byte_is_its_own_error() {
    assert!(matches!(
        folders::check(Path::new("/tmp/a\0b")),
        Err(FolderError::NulByte)
    ));
}
