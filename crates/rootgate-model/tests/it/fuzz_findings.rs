//! Regression tests for what the `uri_paths` fuzz target (`fuzz/`) found in
//! `rootgate_model::uri`: a URI that names another folder than the path it
//! was made from. Each test holds the minimised input the fuzzer reported
//! (quoted in a comment) and the behaviour the fix gives it. The corpus
//! replay (`fuzz_corpus.rs`) keeps the fuzzer's other inputs; this file
//! deliberately tests only the findings, with readable inputs.

use std::path::{Path, PathBuf};

use rootgate_model::consent::{self, Grant};
use rootgate_model::ids::{RootId, ServerId};
use rootgate_model::roots::Root;
use rootgate_model::uri::{
    UriError, path_to_uri, uri_to_path, windows_path_to_uri, windows_uri_to_path,
};

#[test]
fn a_path_with_a_parent_segment_gets_no_uri() {
    // Found: "/.." -> file:///.. (and "/a/../b" -> file:///a/../b, which
    // every URI parser reads as /b).
    for path in ["/..", "/a/../b", "/a/b/.."] {
        assert_eq!(
            path_to_uri(Path::new(path)),
            Err(UriError::ParentSegment(path.into())),
            "{path}"
        );
    }
    // `.` segments and repeated slashes name the same folder and still
    // get its URI.
    assert_eq!(
        path_to_uri(Path::new("/a/./b//c/")).unwrap().as_str(),
        "file:///a/b/c"
    );
    assert_eq!(
        path_to_uri(Path::new("relative/..")),
        Err(UriError::NotAbsolute("relative/..".into()))
    );
}

#[test]
fn a_root_recorded_through_a_symlink_and_back_up_is_not_shared() {
    // Why the finding matters: in `link/..` the filesystem follows the
    // symlink first, a URI parser just drops both segments. A root whose
    // recorded real path had this form (a hand-edited settings file) was
    // told to servers as the folder above the link.
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(base.join("real/inner")).unwrap();
    std::os::unix::fs::symlink(base.join("real/inner"), base.join("link")).unwrap();
    let recorded = base.join("link/..");
    assert_eq!(recorded.canonicalize().unwrap(), base.join("real"));

    let server = ServerId::generate();
    let root = Root {
        id: RootId::generate(),
        name: "recorded".into(),
        chosen_path: recorded.clone(),
        real_path: recorded.clone(),
        added_at_ms: 0,
        mount: None,
    };
    let grant = Grant {
        server: server.clone(),
        root: root.id.clone(),
        real_path: recorded,
        granted_at_ms: 0,
    };
    // Before the fix this shared `file://<base>`: the parent of both the
    // link and the folder the person saw.
    assert!(consent::shared_with(&server, &[root], &[grant], |_| true).is_empty());
}

#[test]
fn encoded_separators_and_nul_bytes_name_no_local_path() {
    // `%2F` decoded into a `/` let a single URI segment carry `..` past the
    // parser: file:///a%2F..%2Fb decoded to /a/../b.
    for uri in ["file:///a%2F..%2Fb", "file:///a%2fb", "file:///a%00b"] {
        assert_eq!(
            uri_to_path(uri),
            Err(UriError::NotLocal(uri.into())),
            "{uri}"
        );
    }
    assert_eq!(
        uri_to_path("file:///a%20b/100%25").unwrap(),
        PathBuf::from("/a b/100%")
    );
}

#[test]
fn a_uri_that_does_not_parse_back_to_itself_names_no_path() {
    // Found: "\u{4}file:/C:\t../=/a\0" decoded to "/C:/../=/a". The `url`
    // crate ignores the tab and the control characters at the ends, but
    // splits `C:..` into `C:` and `..`, and writes `file:///C:/../=/a`,
    // which every parser (itself included) then reads as `/C:/=/a`.
    for uri in ["\u{4}file:/C:\t../=/a\0", "file:/C:\t../x"] {
        assert_eq!(
            uri_to_path(uri),
            Err(UriError::NotLocal(uri.into())),
            "{uri:?}"
        );
    }
    // Without the tab, `C:..` is an ordinary name.
    assert_eq!(
        uri_to_path("file:///C:../x").unwrap(),
        PathBuf::from("/C:../x")
    );
}

#[test]
fn windows_dot_segments_and_control_characters() {
    // Found: "m:\\./" -> file:///m:, which names the current folder of
    // drive M rather than its root.
    assert_eq!(
        windows_path_to_uri("m:\\./").unwrap().as_str(),
        "file:///m:/"
    );
    assert_eq!(
        windows_path_to_uri(r"C:\a\.\b").unwrap().as_str(),
        "file:///C:/a/b"
    );
    // Found: "h:/.." -> file:///h: (the URL library drops `..` segments, so
    // C:\a\..\b became C:\a\b, not C:\b).
    for path in ["h:/..", r"C:\a\..\b"] {
        assert_eq!(
            windows_path_to_uri(path),
            Err(UriError::ParentSegment(path.into())),
            "{path}"
        );
    }
    // Found: "U:\\\t`" -> file:///U:/%60: the tab was silently dropped.
    assert_eq!(
        windows_path_to_uri("U:\\\t`"),
        Err(UriError::NotLocal("U:\\\t`".into()))
    );
    // Found: "\\\\a\\." -> file://a/, a share with no name.
    assert_eq!(
        windows_path_to_uri(r"\\a\."),
        Err(UriError::NotAbsolute(r"\\a\.".into()))
    );
    // Ordinary paths are unchanged.
    let uri = windows_path_to_uri(r"\\server\share\My Docs").unwrap();
    assert_eq!(
        windows_uri_to_path(uri.as_str()).unwrap(),
        r"\\server\share\My Docs"
    );
}
