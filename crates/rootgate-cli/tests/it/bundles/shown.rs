//! Bundles shown and not installed: a signed one in a dry run (its signer
//! named, never called verified), hostile ones (made with Python's
//! zipfile, tests/fixtures/bundles/hostile.py) refused in words with
//! nothing left behind, and one made for another platform.

use std::path::Path;
use std::process::Stdio;

use rootgate_test_support::app::*;
use serde_json::json;

use super::*;

/// A bundle signed by `mcpb sign` is shown as signed by the name its
/// certificate gives, and never as verified; a dry run unpacks nothing.
#[test]
fn a_signed_bundle_names_its_signer_and_is_not_called_verified() {
    let rg = Rootgate::new();
    let file = pack("hello", &rg.dir.path().join("signed/hello.mcpb"), |_| {});
    let signed = std::process::Command::new(mcpb())
        .args(["sign", "--self-signed"])
        .arg(&file)
        .current_dir(file.parent().expect("folder"))
        .stdin(Stdio::null())
        .output()
        .expect("run mcpb sign");
    assert!(signed.status.success(), "mcpb sign: {}", said(&signed));
    let out = rootgate(
        &rg,
        &["install", file.to_str().expect("utf-8"), "--dry-run"],
        "",
    );
    let shown = said(&out);
    assert!(out.status.success(), "{shown}");
    assert!(
        shown.contains("Signature: signed by \"MCPB Self-Signed Certificate\"; not verified"),
        "{shown}"
    );
    assert!(!shown.contains(", verified"), "{shown}");
    assert!(shown.contains("greet: Says the greeting"), "{shown}");
    assert!(shown.contains("dry run: nothing unpacked"), "{shown}");
    assert!(!bundles_root(&rg).exists(), "a dry run writes nothing");
    assert!(rg.store.snapshot().servers.is_empty());
}

/// Each hostile bundle is refused, in words naming what is wrong, and
/// nothing is left in the bundles' root or outside it.
#[test]
fn hostile_bundles_are_refused_in_words_and_leave_nothing() {
    let rg = Rootgate::new();
    let cases = [
        (
            "dotdot",
            "its entry `../evil.txt` climbs out of the bundle's folder",
        ),
        (
            "absolute",
            "its entry `/tmp/rootgate-evil.txt` is an absolute path",
        ),
        ("symlink", "its entry `server/passwd` is a symbolic link"),
        (
            "no-author",
            "does not follow the MCPB 0.3 format: at /: \"author\" is a required property",
        ),
        ("not-zip", "it is not a zip file"),
        ("huge", "its files would take more than 1024 MiB unpacked"),
    ];
    for (kind, words) in cases {
        let file = rg.dir.path().join(format!("{kind}.mcpb"));
        let made = std::process::Command::new("python3")
            .arg(fixtures().join("hostile.py"))
            .arg(kind)
            .arg(&file)
            .output()
            .expect("run python3");
        assert!(made.status.success(), "{kind}: {}", said(&made));
        let out = rootgate(&rg, &["install", file.to_str().expect("utf-8")], "");
        assert_eq!(out.status.code(), Some(1), "{kind}: {}", said(&out));
        assert!(text(&out.stderr).contains(words), "{kind}: {}", said(&out));
        assert!(
            text(&out.stderr).contains("cannot be installed"),
            "{kind}: {}",
            said(&out)
        );
        assert!(
            !bundles_root(&rg).exists(),
            "{kind}: something was unpacked"
        );
    }
    assert!(!rg.dir.path().join("evil.txt").exists() && !data_home(&rg).join("evil.txt").exists());
    assert!(!Path::new("/tmp/rootgate-evil.txt").exists());
    assert!(rg.store.snapshot().servers.is_empty());
    assert!(!rg.config_home.join("rootgate/installed.json").exists());
}

/// A bundle made for macOS only is shown, and not installed.
#[test]
fn a_bundle_for_another_platform_is_shown_and_not_installed() {
    let rg = Rootgate::new();
    let file = pack("hello", &rg.dir.path().join("mac.mcpb"), |m| {
        m["compatibility"] = json!({"platforms": ["darwin"]});
    });
    let out = rootgate(
        &rg,
        &[
            "install",
            file.to_str().expect("utf-8"),
            "--set",
            "greeting=hi",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(
        text(&out.stdout).contains("hello 1.0.0 (hello)"),
        "shown: {}",
        said(&out)
    );
    assert!(
        text(&out.stderr).contains("hello is not installed: it is made for macOS only, not Linux"),
        "{}",
        said(&out)
    );
    assert!(!bundles_root(&rg).exists());
    assert!(rg.store.snapshot().servers.is_empty());
}
