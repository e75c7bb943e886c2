//! The invariants of the `uri_paths` fuzz target: every way a string or a
//! path reaches `rootgate_model::uri` and `rootgate_model::folders::check`,
//! with what must hold for any input. The fuzz target
//! (`fuzz/fuzz_targets/uri_paths.rs`) feeds these functions libFuzzer's
//! inputs; `crates/rootgate-core/tests/it/fuzz_corpus.rs` replays the committed
//! corpus through the very same functions on stable Rust, so the corpus keeps
//! guarding the code in CI.
//!
//! One input is read four ways: as URI text for `uri_to_path` and
//! `windows_uri_to_path`, as raw path bytes for `path_to_uri`, as a Windows
//! path for `windows_path_to_uri`, and as a folder a person chose, inside a
//! small fixed tree of folders, files and symlinks ([`World`]), for
//! `folders::check`. Each check panics with the input and what went wrong
//! when an invariant breaks; returning means the input was fine. This file
//! deliberately holds no test and no fuzz entry point of its own.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rootgate_model::consent::{self, Grant};
use rootgate_model::folders::{self, FolderError, Warning};
use rootgate_model::ids::ServerId;
use rootgate_model::roots::Root;
use rootgate_model::uri::{self, UriError};

/// Inputs longer than this are skipped: every path rule is exercised well
/// below it, and longer inputs only slow the fuzzer down.
pub const MAX_INPUT: usize = 4096;

/// How many `..` segments a chosen path may hold. The world sits this many
/// folders deep inside its fence, so no chosen path can climb out of the
/// fence into the rest of the machine, whose files other programs change
/// while the fuzzer runs.
const MAX_UP: usize = 6;

/// Names that mark a folder as holding secrets (as `folders` has them).
const SECRET_DIRS: &[&str] = &[".ssh", ".gnupg", ".aws", ".kube", ".password-store"];

/// A small tree of folders, files and symlinks that chosen paths are
/// resolved in, built inside a fence of `MAX_UP` plain folders.
pub struct World {
    fence: PathBuf,
    /// The canonical path of the tree's top folder.
    top: PathBuf,
    /// Canonical folders that stand for roots that already exist.
    existing: Vec<PathBuf>,
    /// The folder that stands for the person's home.
    home: PathBuf,
}

impl World {
    /// Builds the tree under `fence` (which must exist), or reuses it when
    /// it is already there: several fuzzing processes may build the same
    /// tree at the same time.
    pub fn build(fence: &Path) -> World {
        let fence = fence.canonicalize().expect("the fence folder exists");
        let mut top = fence.clone();
        for level in 0..MAX_UP {
            top.push(format!("up{level}"));
        }
        top.push("world");
        let dirs = [
            "a/b/c",
            "a/My Project #1",
            "a/100% done?",
            "a/프로젝트",
            "a/caf\u{e9}",
            "a/%2e%2e",
            "a/..hidden",
            "a/.ssh/keys",
            "a/locked",
            "a/trailing ",
            "home/me/work",
        ];
        for dir in dirs {
            std::fs::create_dir_all(top.join(dir)).expect("create a world folder");
        }
        // A folder whose name is not UTF-8.
        std::fs::create_dir_all(top.join(OsStr::from_bytes(b"a/\xff\xfe name")))
            .expect("create the non-UTF-8 folder");
        std::fs::write(top.join("a/file"), "x").expect("create a world file");
        std::fs::write(top.join("a/.env"), "K=V").expect("create a world file");
        let links: [(&str, &str); 8] = [
            ("a/b/up", ".."),
            ("a/b/to-top", "../.."),
            // Out of the world, to the fence's innermost folder.
            ("a/b/escape", "../../.."),
            ("a/loop", "loop"),
            ("a/ping", "pong"),
            ("a/pong", "ping"),
            ("a/dangling", "nowhere"),
            ("a/to-file", "file"),
        ];
        for (link, target) in links {
            match std::os::unix::fs::symlink(target, top.join(link)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => panic!("create the symlink {link}: {e}"),
            }
        }
        let absolute = top.join("a/b/c");
        match std::os::unix::fs::symlink(&absolute, top.join("a/to-c")) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => panic!("create the symlink a/to-c: {e}"),
        }
        // Unreadable for anyone but root (who reads through mode bits).
        std::fs::set_permissions(
            top.join("a/locked"),
            std::os::unix::fs::PermissionsExt::from_mode(0o000),
        )
        .expect("lock the locked folder");
        let top = top.canonicalize().expect("the world exists");
        World {
            existing: vec![top.join("a/b"), top.join("home/me/work")],
            home: top.join("home/me"),
            fence,
            top,
        }
    }
}

impl Drop for World {
    /// Unlocks the locked folder, so a temporary world can be removed by
    /// someone other than root.
    fn drop(&mut self) {
        let _ = std::fs::set_permissions(
            self.top.join("a/locked"),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        );
    }
}

/// Runs every check on one input. The first byte chooses whether the folder
/// check treats the rest as a path inside the world (even) or as a path on
/// its own, which is relative unless it starts with `/` (odd).
pub fn check(world: &World, input: &[u8]) {
    if input.len() > MAX_INPUT {
        return;
    }
    let Some((mode, data)) = input.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(data);
    check_uri_text(&text);
    check_path_to_uri(Path::new(OsStr::from_bytes(data)));
    check_windows_path(&text);
    check_windows_uri_text(&text);
    check_chosen(world, mode & 1 == 1, data);
}

/// The path as `Path::components` sees it: repeated and trailing slashes
/// and `.` segments gone, every other byte kept. This names the same folder
/// as the path itself. (The `url` crate decodes `file:///m:` as `/m:/`,
/// taking `m:` for a Windows drive; the slash it adds changes no folder.)
fn normalised(path: &Path) -> PathBuf {
    path.components().collect()
}

/// `uri_to_path` on any text: a typed error, or an absolute path with no
/// NUL whose own URI decodes to exactly the same bytes.
pub fn check_uri_text(text: &str) {
    let Ok(path) = uri::uri_to_path(text) else {
        return;
    };
    assert!(path.is_absolute(), "{text:?} decoded to {path:?}");
    assert!(
        !path.as_os_str().as_bytes().contains(&0),
        "{text:?} decoded to a path with a NUL byte: {path:?}"
    );
    assert!(
        !path.components().any(|c| c == Component::ParentDir),
        "{text:?} decoded to a path with a `..` segment: {path:?}"
    );
    let again = uri::path_to_uri(&path)
        .unwrap_or_else(|e| panic!("{text:?} decoded to {path:?}, which has no URI: {e}"));
    let back = uri::uri_to_path(again.as_str())
        .unwrap_or_else(|e| panic!("{again} (from {text:?}) does not decode: {e}"));
    assert_eq!(
        normalised(&back).as_os_str().as_bytes(),
        normalised(&path).as_os_str().as_bytes(),
        "{text:?} -> {path:?} -> {again} -> {back:?}"
    );
}

/// `path_to_uri` on any path bytes: an absolute path without `..` or NUL
/// gets an ASCII `file:///` URI in canonical form that decodes to the same
/// folder (byte for byte once `.` and repeated slashes are gone); anything
/// else the typed error that says why.
pub fn check_path_to_uri(path: &Path) {
    let has_parent = path.components().any(|c| c == Component::ParentDir);
    let has_nul = path.as_os_str().as_bytes().contains(&0);
    let uri = match uri::path_to_uri(path) {
        Ok(uri) => uri,
        Err(UriError::NotAbsolute(_)) => {
            assert!(!path.is_absolute(), "{path:?} was called relative");
            return;
        }
        Err(UriError::ParentSegment(_)) => {
            assert!(has_parent, "{path:?} was said to hold `..`");
            return;
        }
        Err(UriError::NotLocal(_)) => {
            assert!(has_nul, "{path:?} was said to be impossible");
            return;
        }
        Err(other) => panic!("{path:?}: unexpected error {other:?}"),
    };
    assert!(path.is_absolute(), "the relative {path:?} got {uri}");
    assert!(!has_parent, "{path:?} holds `..` but got {uri}");
    assert!(!has_nul, "{path:?} holds a NUL byte but got {uri}");
    let s = uri.as_str();
    assert!(s.starts_with("file:///"), "{path:?} -> {s}");
    assert!(s.is_ascii(), "{path:?} -> {s}");
    // Characters that would end or split a path in some URI parser must
    // never appear raw. (`[` and `]` stay raw, as the WHATWG parser leaves
    // them; Node and Python decode them, see tests/it/uri_round_trip.rs.)
    for raw in [' ', '#', '?', '\\', '"', '\n', '\r', '\t'] {
        assert!(!s.contains(raw), "{path:?} -> {s} holds a raw {raw:?}");
    }
    let reparsed = url::Url::parse(s).unwrap_or_else(|e| panic!("{s} does not parse: {e}"));
    assert_eq!(reparsed.as_str(), s, "{path:?}: the URI is not canonical");
    let back = uri::uri_to_path(s).unwrap_or_else(|e| panic!("{s} does not decode: {e}"));
    assert_eq!(
        normalised(&back).as_os_str().as_bytes(),
        normalised(path).as_os_str().as_bytes(),
        "{path:?} -> {s} -> {back:?}"
    );
}

/// A drive path in the form `windows_uri_to_path` gives back: forward
/// slashes as backslashes, empty and `.` segments gone, `X:\` for a bare
/// drive. `None` for anything that is not a plain drive path.
fn windows_drive_normalised(path: &str) -> Option<String> {
    let path = path.replace('/', "\\");
    let bytes = path.as_bytes();
    if bytes.len() < 3 || !bytes[0].is_ascii_alphabetic() || bytes[1] != b':' || bytes[2] != b'\\' {
        return None;
    }
    let segments: Vec<&str> = path
        .split('\\')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    Some(if segments.len() == 1 {
        format!("{}\\", segments[0])
    } else {
        segments.join("\\")
    })
}

/// `windows_path_to_uri` on any text: a typed error, or a URI that decodes
/// to a path whose URI is the same again (a fixed point after one round),
/// and for a drive path exactly the path given, normalised.
pub fn check_windows_path(text: &str) {
    let uri = match uri::windows_path_to_uri(text) {
        Ok(uri) => uri,
        Err(UriError::ParentSegment(_)) => {
            assert!(
                text.replace('/', "\\").split('\\').any(|s| s == ".."),
                "{text:?} was said to hold `..`"
            );
            return;
        }
        Err(_) => return,
    };
    let s = uri.as_str();
    assert!(s.starts_with("file://") && s.is_ascii(), "{text:?} -> {s}");
    let back = uri::windows_uri_to_path(s)
        .unwrap_or_else(|e| panic!("{text:?} -> {s}, which does not decode: {e}"));
    if let Some(want) = windows_drive_normalised(text) {
        assert_eq!(back, want, "{text:?} -> {s} -> {back:?}");
    }
    let again = uri::windows_path_to_uri(&back)
        .unwrap_or_else(|e| panic!("{text:?} -> {s} -> {back:?}, which has no URI: {e}"));
    assert_eq!(again.as_str(), s, "{text:?} -> {s} -> {back:?} -> {again}");
}

/// `windows_uri_to_path` on any text: a typed error, or a drive path or a
/// UNC path.
pub fn check_windows_uri_text(text: &str) {
    let Ok(path) = uri::windows_uri_to_path(text) else {
        return;
    };
    let bytes = path.as_bytes();
    let drive =
        bytes.len() >= 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes[2] == b'\\';
    assert!(
        drive || path.starts_with("\\\\"),
        "{text:?} decoded to {path:?}, neither a drive nor a UNC path"
    );
}

/// `folders::check` on a chosen path: either a folder whose real path is
/// canonical, where the chosen path leads, and whose URI round-trips to it
/// exactly; or the one typed error that fits what the filesystem says.
pub fn check_chosen(world: &World, on_its_own: bool, data: &[u8]) {
    let ups = data
        .split(|b| *b == b'/')
        .filter(|segment| *segment == b"..")
        .count();
    if ups > MAX_UP {
        return;
    }
    let chosen = if on_its_own {
        PathBuf::from(OsStr::from_bytes(data))
    } else {
        let mut bytes = world.top.as_os_str().as_bytes().to_vec();
        bytes.push(b'/');
        bytes.extend_from_slice(data);
        PathBuf::from(OsStr::from_bytes(&bytes))
    };
    if on_its_own && chosen.is_absolute() {
        // An absolute path on its own names anything on this machine, which
        // other programs change while the fuzzer runs; only the rules that
        // do not touch the filesystem are checked for it.
        if data.contains(&0) {
            assert!(matches!(folders::check(&chosen), Err(FolderError::NulByte)));
        }
        return;
    }
    let result = folders::check(&chosen);
    let has_nul = data.contains(&0);
    let folder = match result {
        Ok(folder) => folder,
        Err(FolderError::NulByte) => {
            assert!(has_nul, "{chosen:?} was said to hold a NUL byte");
            return;
        }
        Err(FolderError::Relative(p)) => {
            assert!(!has_nul, "{chosen:?} holds a NUL but was called relative");
            assert!(
                on_its_own && !chosen.is_absolute(),
                "{chosen:?} called relative"
            );
            assert_eq!(p.as_os_str(), chosen.as_os_str());
            return;
        }
        Err(e) => {
            assert!(!has_nul && chosen.is_absolute(), "{chosen:?}: {e:?}");
            check_refusal(&chosen, &e);
            return;
        }
    };
    assert!(!has_nul && chosen.is_absolute(), "{chosen:?} was accepted");
    assert_eq!(folder.chosen().as_os_str(), chosen.as_os_str());
    let real = folder.real();
    assert!(real.is_absolute(), "{chosen:?} -> {real:?}");
    assert!(
        real.starts_with(&world.fence),
        "{chosen:?} led out of the fence to {real:?}"
    );
    let canonical = std::fs::canonicalize(&chosen).expect("an accepted path resolves");
    assert_eq!(real, canonical, "{chosen:?} is not where it leads");
    assert_eq!(
        std::fs::canonicalize(real).expect("the real path resolves"),
        real,
        "{real:?} is not canonical"
    );
    assert!(real.is_dir(), "{real:?} is not a folder");
    assert!(
        !real
            .components()
            .any(|c| matches!(c, Component::ParentDir | Component::CurDir)),
        "{real:?} has dot segments"
    );
    assert_eq!(
        folder.is_redirected(),
        chosen != real,
        "{chosen:?} -> {real:?}"
    );

    // Its URI names exactly this folder, and consent shares exactly that URI.
    let uri = uri::path_to_uri(real).unwrap_or_else(|e| panic!("{real:?} has no URI: {e}"));
    let back = uri::uri_to_path(uri.as_str()).expect("the URI decodes");
    assert_eq!(
        back.as_os_str().as_bytes(),
        real.as_os_str().as_bytes(),
        "{real:?} -> {uri} -> {back:?}"
    );
    let root = Root::new(&folder, None);
    assert_eq!(root.real_path, real);
    assert_eq!(root.name, folder.default_name());
    assert!(!root.name.is_empty(), "{real:?} has an empty name");
    let server = ServerId::from_string("fuzz-server");
    let grant = Grant {
        server: server.clone(),
        root: root.id.clone(),
        real_path: real.to_path_buf(),
        granted_at_ms: 0,
    };
    let shared = consent::shared_with(&server, std::slice::from_ref(&root), &[grant], |_| true);
    assert_eq!(shared.len(), 1, "{real:?} was not shared");
    assert_eq!(shared[0].uri, uri.as_str());
    if folder.is_redirected() {
        // A grant for the path as chosen is a grant for another path: it
        // must not share the folder the symlink leads to.
        let stale = Grant {
            server: server.clone(),
            root: root.id.clone(),
            real_path: chosen.clone(),
            granted_at_ms: 0,
        };
        assert!(
            consent::shared_with(&server, std::slice::from_ref(&root), &[stale], |_| true)
                .is_empty(),
            "a grant for {chosen:?} shared {real:?}"
        );
    }

    check_warnings(world, &folder);
}

/// The warnings of an accepted folder match what the world holds.
fn check_warnings(world: &World, folder: &folders::CheckedFolder) {
    let real = folder.real();
    let warnings = folders::warnings(
        folder,
        Some(&world.home),
        world.existing.iter().map(PathBuf::as_path),
    );
    let has = |want: &dyn Fn(&Warning) -> bool| warnings.iter().any(want);
    // A link followed is pointed out; a path written with `.` or `..`
    // that leads where it says is not a link.
    assert_eq!(
        has(&|w| matches!(w, Warning::Symlink { .. })),
        folder.through_link(),
        "{real:?}: {warnings:?}"
    );
    assert!(
        !folder.through_link() || folder.is_redirected(),
        "{real:?}: a link followed changes the path"
    );
    assert!(
        !has(&|w| matches!(w, Warning::FilesystemRoot)),
        "{warnings:?}"
    );
    assert_eq!(
        has(&|w| matches!(w, Warning::HomeFolder)),
        real == world.home,
        "{real:?}: {warnings:?}"
    );
    let inside_secrets = real.components().any(|c| match c {
        Component::Normal(name) => SECRET_DIRS.iter().any(|s| OsStr::new(s) == name),
        _ => false,
    });
    assert_eq!(
        has(&|w| matches!(w, Warning::InsideSecrets { .. })),
        inside_secrets,
        "{real:?}: {warnings:?}"
    );
    for existing in &world.existing {
        let nested = real != existing && real.starts_with(existing);
        let contains = real != existing && existing.starts_with(real);
        assert_eq!(
            has(&|w| matches!(w, Warning::NestedIn { root } if root == existing)),
            nested,
            "{real:?} and {existing:?}: {warnings:?}"
        );
        assert_eq!(
            has(&|w| matches!(w, Warning::Contains { root } if root == existing)),
            contains,
            "{real:?} and {existing:?}: {warnings:?}"
        );
    }
}

/// A refused absolute path was refused for the reason the filesystem gives
/// when asked again.
fn check_refusal(chosen: &Path, error: &FolderError) {
    let resolved = std::fs::canonicalize(chosen);
    match error {
        FolderError::Missing(p) => {
            assert_eq!(p, chosen);
            let e = resolved.expect_err("a missing path resolved");
            assert_eq!(e.kind(), std::io::ErrorKind::NotFound, "{chosen:?}: {e}");
        }
        FolderError::NotADirectory(p) => {
            assert_eq!(p, chosen);
            match resolved {
                Ok(real) => assert!(!real.is_dir(), "{chosen:?} -> the folder {real:?}"),
                Err(e) => assert_eq!(
                    e.kind(),
                    std::io::ErrorKind::NotADirectory,
                    "{chosen:?}: {e}"
                ),
            }
        }
        FolderError::Unresolvable { path, source } => {
            assert_eq!(path, chosen);
            let code = source.raw_os_error();
            assert!(
                code == Some(nix::libc::ELOOP)
                    || code == Some(nix::libc::ENAMETOOLONG)
                    || matches!(
                        source.kind(),
                        std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidFilename
                    ),
                "{chosen:?}: unresolvable for an unexpected reason: {source}"
            );
            assert!(resolved.is_err(), "{chosen:?} resolves after all");
        }
        FolderError::Unreadable { path, source } => {
            assert_eq!(path, chosen);
            assert_eq!(
                source.kind(),
                std::io::ErrorKind::PermissionDenied,
                "{chosen:?}: {source}"
            );
        }
        FolderError::Io { path, source } => {
            panic!("{path:?} got the catch-all error, with no advice for a person: {source}")
        }
        FolderError::NulByte | FolderError::Relative(_) => {
            unreachable!("handled by the caller")
        }
    }
}
