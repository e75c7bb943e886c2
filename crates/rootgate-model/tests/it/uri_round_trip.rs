//! Round trips of our `file://` URIs through the parsers real servers use:
//! Node's `url.fileURLToPath` (the npm filesystem server and every other
//! TypeScript server) and Python's `urllib.parse.urlparse` with
//! `urllib.request.url2pathname` and `pathlib.PurePosixPath` (servers built
//! on the Python SDK). Each tricky path is turned into a URI by
//! `rootgate_model::uri::path_to_uri`, decoded by the other side, and must come
//! back byte for byte. Windows drive paths and UNC shares from
//! `windows_path_to_uri` go through Node's Windows mode and Python's
//! `nturl2path` (the module `url2pathname` is on Windows). One test also
//! creates the folders and resolves them the way the npm filesystem server
//! does.
//!
//! These tests deliberately do not run any MCP server or session, and do not
//! test our own decoder (`uri.rs` has unit tests for that). All URIs go to
//! one Node process and one Python process per test, as a JSON array on
//! stdin, so the whole file costs a handful of process starts.

use rootgate_test_support::peers;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rootgate_model::folders;
use rootgate_model::uri::{path_to_uri, windows_path_to_uri};
use serde_json::{Value, json};

/// Folder names that have broken `file://` URIs somewhere: URI delimiters,
/// percent signs that look like escapes, characters the WHATWG parser strips
/// or treats as separators, Unicode in both normal forms, and names that are
/// only odd at their ends.
fn tricky_names() -> Vec<String> {
    let mut names: Vec<String> = [
        "My Project",
        "100%",
        "100%20done",
        "%2e%2e",
        "%zz not an escape",
        "%E2%82%AC",
        "issue #12",
        "why?",
        "a;b",
        "salt & pepper",
        "c++",
        "x=1",
        "me@host",
        "[draft]",
        "back\\slash",
        "quote\"d",
        "it's",
        "`tick`",
        "{braces}",
        "a|b^c~d",
        "tab\there",
        "line\nbreak",
        "carriage\rreturn",
        "del\u{7f}char",
        "프로젝트",
        // "é" composed (NFC) and as "e" plus a combining acute (NFD).
        "caf\u{e9}",
        "cafe\u{301}",
        // "한글" as two precomposed syllables (NFC) and as six jamo (NFD, as
        // macOS's old HFS+ stored it).
        "\u{d55c}\u{ae00}",
        "\u{1112}\u{1161}\u{11ab}\u{1100}\u{1173}\u{11af}",
        "rocket \u{1f680}",
        // A ZWJ sequence: woman, zero-width joiner, laptop.
        "\u{1f469}\u{200d}\u{1f4bb}",
        "no\u{a0}break",
        "zero\u{200b}width",
        "\u{feff}bom",
        "...",
        "..hidden",
        "trailing space ",
        " leading space",
        "C:",
        "localhost",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    // 200 bytes: long, but under the 255-byte limit of common filesystems,
    // so the same name also works as a real folder below.
    names.push(format!("long-{}", "x".repeat(195)));
    names
}

/// Absolute paths built from the tricky names, plus a few with several odd
/// components and the filesystem root.
fn tricky_paths() -> Vec<PathBuf> {
    let mut paths = vec![
        PathBuf::from("/"),
        PathBuf::from("/srv/프로젝트/My Project/#1"),
        PathBuf::from("/a b/c%20d/e?f/g#h"),
    ];
    paths.extend(
        tricky_names()
            .iter()
            .map(|name| Path::new("/home/me").join(name)),
    );
    paths
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("the tricky paths are all UTF-8")
}

/// Runs `program args...`, writes `input` as JSON to its stdin and parses
/// its stdout as JSON. The writer runs on its own thread so a child that
/// answers early cannot deadlock against us.
fn run_json(program: &Path, args: &[&str], input: &Value) -> Value {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let mut stdin = child.stdin.take().expect("child stdin");
    let body = serde_json::to_vec(input).expect("serialise input");
    let writer = std::thread::spawn(move || stdin.write_all(&body));
    let output = child.wait_with_output().expect("child output");
    writer
        .join()
        .expect("stdin writer panicked")
        .expect("writing to the child's stdin failed");
    assert!(
        output.status.success(),
        "{} failed: {}\n{}",
        program.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{} wrote no JSON ({e}): {}",
            program.display(),
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// Node's `fileURLToPath` of each URI, or `{"error": code}` where it throws.
/// `options` is passed through, so `{"windows": true}` selects Windows mode
/// (available since Node 20.13).
fn node_file_url_to_path(uris: &[String], options: Value) -> Vec<Value> {
    const SCRIPT: &str = r#"
        const { fileURLToPath } = require("node:url");
        const { uris, options } = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
        const out = uris.map((u) => {
            try { return { path: fileURLToPath(u, options) }; }
            catch (e) { return { error: String(e.code || e.message) }; }
        });
        process.stdout.write(JSON.stringify(out));
    "#;
    let input = json!({"uris": uris, "options": options});
    let out = run_json(Path::new(&peers::node()), &["-e", SCRIPT], &input);
    out.as_array().expect("node answered an array").clone()
}

/// What a Python SDK server does with each URI: `urlparse`, then
/// `url2pathname` of the path, then `PurePosixPath`. The parse parts are
/// returned too, so a delimiter that leaked into the query or fragment
/// shows up as such.
fn python_url2pathname(uris: &[String]) -> Vec<Value> {
    const SCRIPT: &str = r#"
import json, sys
from pathlib import PurePosixPath
from urllib.parse import urlparse
from urllib.request import url2pathname
out = []
for u in json.load(sys.stdin):
    p = urlparse(u)
    path = url2pathname(p.path)
    out.append({"scheme": p.scheme, "netloc": p.netloc, "params": p.params,
                "query": p.query, "fragment": p.fragment,
                "path": path, "pure": str(PurePosixPath(path))})
json.dump(out, sys.stdout)
"#;
    let out = run_json(&peers::python(), &["-c", SCRIPT], &json!(uris));
    out.as_array().expect("python answered an array").clone()
}

/// Python's Windows decoding, `nturl2path.url2pathname`, which is what
/// `urllib.request.url2pathname` is on Windows; the module is pure Python and
/// imports on any platform. Python 3.11 takes only the part after `file:`,
/// so a UNC host is put back in front of the path as `//host`.
fn python_nt_url2pathname(uris: &[String]) -> Vec<Value> {
    const SCRIPT: &str = r#"
import json, sys, nturl2path
from urllib.parse import urlparse
out = []
for u in json.load(sys.stdin):
    p = urlparse(u)
    rest = "//" + p.netloc + p.path if p.netloc else p.path
    try:
        out.append({"path": nturl2path.url2pathname(rest)})
    except OSError as e:
        out.append({"error": str(e)})
json.dump(out, sys.stdout)
"#;
    let out = run_json(&peers::python(), &["-c", SCRIPT], &json!(uris));
    out.as_array().expect("python answered an array").clone()
}

fn uris_of(paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .map(|p| {
            path_to_uri(p)
                .unwrap_or_else(|e| panic!("{p:?}: {e}"))
                .to_string()
        })
        .collect()
}

/// Collects every mismatch instead of stopping at the first, so one run
/// shows the whole extent of a disagreement.
fn assert_all_round_trip(who: &str, pairs: impl IntoIterator<Item = (String, String, Value)>) {
    let failures: Vec<String> = pairs
        .into_iter()
        .filter(|(want, _, got)| got.as_str() != Some(want.as_str()))
        .map(|(want, uri, got)| format!("{want:?} -> {uri} -> {got}"))
        .collect();
    assert!(
        failures.is_empty(),
        "{who} decoded {} URI(s) to another path:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn uris_are_lowercase_file_and_escape_delimiters() {
    let paths = tricky_paths();
    for (path, uri) in paths.iter().zip(uris_of(&paths)) {
        // The npm filesystem server tests `startsWith('file://')` and
        // rejects the whole `roots/list` answer when any root fails it.
        assert!(uri.starts_with("file:///"), "{path:?} -> {uri}");
        let rest = &uri["file://".len()..];
        for raw in [' ', '#', '?', '\t', '\n', '\r', '\\', '"'] {
            assert!(!rest.contains(raw), "{path:?} -> {uri} holds a raw {raw:?}");
        }
        assert!(uri.is_ascii(), "{path:?} -> {uri} is not ASCII");
    }
}

#[test]
fn unicode_normal_forms_are_kept_apart() {
    // NFC and NFD spellings are different names on Linux, so they must stay
    // different URIs: normalising would point a server at another folder.
    let nfc = path_to_uri(Path::new("/w/caf\u{e9}")).unwrap();
    let nfd = path_to_uri(Path::new("/w/cafe\u{301}")).unwrap();
    assert_eq!(nfc.as_str(), "file:///w/caf%C3%A9");
    assert_eq!(nfd.as_str(), "file:///w/cafe%CC%81");
}

#[test]
fn node_file_url_to_path_gives_back_every_path() {
    let paths = tricky_paths();
    let uris = uris_of(&paths);
    let decoded = node_file_url_to_path(&uris, json!({}));
    assert_eq!(decoded.len(), uris.len());
    assert_all_round_trip(
        "Node's fileURLToPath",
        paths
            .iter()
            .zip(uris.iter().zip(decoded))
            .map(|(p, (u, d))| (path_str(p).to_owned(), u.clone(), d["path"].clone())),
    );
}

#[test]
fn python_url2pathname_gives_back_every_path() {
    let paths = tricky_paths();
    let uris = uris_of(&paths);
    let decoded = python_url2pathname(&uris);
    assert_eq!(decoded.len(), uris.len());
    for (uri, d) in uris.iter().zip(&decoded) {
        // A delimiter that leaked would move part of the path into another
        // component, where url2pathname never sees it.
        assert_eq!(d["scheme"], "file", "{uri}: {d}");
        for part in ["netloc", "params", "query", "fragment"] {
            assert_eq!(d[part], "", "{uri} has a {part}: {d}");
        }
    }
    let expected = || paths.iter().map(|p| path_str(p).to_owned());
    assert_all_round_trip(
        "Python's url2pathname",
        expected()
            .zip(uris.iter().zip(&decoded))
            .map(|(p, (u, d))| (p, u.clone(), d["path"].clone())),
    );
    assert_all_round_trip(
        "Python's PurePosixPath",
        expected()
            .zip(uris.iter().zip(&decoded))
            .map(|(p, (u, d))| (p, u.clone(), d["pure"].clone())),
    );
}

/// Windows paths a person could really choose: Windows forbids `<>:"/\|?*`
/// and control characters in names, so those are absent here.
fn windows_paths() -> Vec<&'static str> {
    vec![
        r"C:\Users\Me\My Project",
        r"C:\작업\프로젝트#1",
        r"\\fileserver\team share\docs",
        r"D:\100% done\issue #12; a&b+c=d@e [draft] it's {x} ~^",
        "C:\\caf\u{e9}\\cafe\u{301}\\\u{1f680}",
        r"\\fileserver\프로젝트 공유\%20 literal",
        r"E:\...\trailing dots...",
    ]
}

fn windows_uris(paths: &[&str]) -> Vec<String> {
    paths
        .iter()
        .map(|p| {
            windows_path_to_uri(p)
                .unwrap_or_else(|e| panic!("{p:?}: {e}"))
                .to_string()
        })
        .collect()
}

#[test]
fn windows_paths_round_trip_through_node() {
    let paths = windows_paths();
    let uris = windows_uris(&paths);
    let decoded = node_file_url_to_path(&uris, json!({"windows": true}));
    assert_all_round_trip(
        "Node's fileURLToPath (windows)",
        paths
            .iter()
            .zip(uris.iter().zip(decoded))
            .map(|(p, (u, d))| (p.to_string(), u.clone(), d["path"].clone())),
    );
}

#[test]
fn windows_paths_round_trip_through_python_nturl2path() {
    let paths = windows_paths();
    let uris = windows_uris(&paths);
    let decoded = python_nt_url2pathname(&uris);
    assert_all_round_trip(
        "Python's nturl2path",
        paths
            .iter()
            .zip(uris.iter().zip(decoded))
            .map(|(p, (u, d))| (p.to_string(), u.clone(), d["path"].clone())),
    );
}

#[test]
fn windows_drive_root_round_trips() {
    // "D:" alone means "the current folder on drive D", not the drive's
    // root, so a server told "D:" would work somewhere else entirely.
    let paths = vec![r"D:\"];
    let uris = windows_uris(&paths);
    let node = node_file_url_to_path(&uris, json!({"windows": true}));
    let python = python_nt_url2pathname(&uris);
    assert_all_round_trip(
        "Node's fileURLToPath (windows)",
        [(
            paths[0].to_string(),
            uris[0].clone(),
            node[0]["path"].clone(),
        )],
    );
    assert_all_round_trip(
        "Python's nturl2path",
        [(
            paths[0].to_string(),
            uris[0].clone(),
            python[0]["path"].clone(),
        )],
    );
}

#[test]
fn real_folders_resolve_in_node_as_the_filesystem_server_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut real_paths = Vec::new();
    for (i, name) in tricky_names().iter().enumerate() {
        // A name holding '/' would be two components and one holding NUL
        // cannot be passed to the kernel at all; the list has neither, but
        // the guard keeps the test honest if one is added.
        if name.contains('/') || name.contains('\0') {
            continue;
        }
        // Each folder gets its own parent, so that names a filesystem treats
        // as equal (NFC and NFD on macOS) do not collide.
        let path = dir.path().join(format!("{i:02}")).join(name);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("create {path:?}: {e}"));
        let checked = folders::check(&path).unwrap_or_else(|e| panic!("check {path:?}: {e}"));
        real_paths.push(checked.real().to_path_buf());
    }
    let uris = uris_of(&real_paths);

    // The npm filesystem server's `parseRootUri`: `fileURLToPath`, then
    // `fs.promises.realpath` (the native realpath(3)), then a stat that must
    // say "directory".
    const SCRIPT: &str = r#"
        const fs = require("node:fs");
        const { fileURLToPath } = require("node:url");
        const uris = JSON.parse(fs.readFileSync(0, "utf8"));
        (async () => {
            const out = [];
            for (const u of uris) {
                try {
                    const real = await fs.promises.realpath(fileURLToPath(u));
                    const isDir = (await fs.promises.stat(real)).isDirectory();
                    out.push(isDir ? { path: real } : { error: "not a directory" });
                } catch (e) {
                    out.push({ error: String(e.code || e.message) });
                }
            }
            process.stdout.write(JSON.stringify(out));
        })();
    "#;
    let node = peers::node();
    let resolved = run_json(Path::new(&node), &["-e", SCRIPT], &json!(uris));
    let resolved = resolved.as_array().expect("node answered an array");
    assert_eq!(resolved.len(), uris.len());
    assert_all_round_trip(
        "Node's realpath(fileURLToPath)",
        real_paths
            .iter()
            .zip(uris.iter().zip(resolved))
            .map(|(p, (u, d))| (path_str(p).to_owned(), u.clone(), d["path"].clone())),
    );
}
