//! Bundles shown and not installed: a signed one in a dry run (its signer
//! named, never called verified), hostile ones (made with Python's
//! zipfile, tests/fixtures/bundles/hostile.py) refused in words with
//! nothing left behind, one made for another platform, and one handed to
//! the open window, which owns the settings, with nothing written.

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

/// With the window open, the window owns the settings: `rootgate install`
/// hands the file to it and returns, writing nothing itself (the window
/// shows the bundle and installs it when the person says so).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_window_open_the_bundle_is_handed_to_it() {
    let (rg, sup) = Rootgate::with_window();
    let settings = rg.config_home.join("rootgate/settings.json");
    let _owner = rootgate_core::instance::claim(&settings)
        .expect("claim")
        .expect("the window owns the settings");
    sup.take_other_starts(Box::new(|_| {}));
    sup.listen_for_bridges().await.expect("listen");
    let file = pack("hello", &rg.dir.path().join("hello.mcpb"), |_| {});
    // The runtime folder is this process's, where the window listens.
    let out = tokio::process::Command::new(binary("rootgate"))
        .args([
            "install",
            file.to_str().expect("utf-8"),
            "--set",
            "greeting=hi",
        ])
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_DATA_HOME", data_home(&rg))
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run rootgate");
    assert!(out.status.success(), "{}", said(&out));
    assert!(
        text(&out.stdout).starts_with("Rootgate is open already"),
        "{}",
        said(&out)
    );
    assert!(
        text(&out.stderr).contains("the --set values were not passed"),
        "{}",
        said(&out)
    );
    assert!(!bundles_root(&rg).exists(), "the command unpacked nothing");
    assert!(sup.servers().list().is_empty(), "the command added nothing");
}
