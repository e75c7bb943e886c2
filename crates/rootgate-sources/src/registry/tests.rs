//! The mapping of the real entries in the registry snapshot
//! (tests/fixtures/registry, see its README): each one's package, exact
//! command, settings and folders, and why the ones that do not run here do
//! not. No network: the answers are read from the files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::*;
use crate::offer::{Offer, SettingKind, Source};
use server_json::ServerResponse;

const REGISTRY: &str = "https://registry.modelcontextprotocol.io";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/registry")
}

fn answer(name: &str, version: &str) -> ServerResponse {
    let folder = name.replace('/', "%2F");
    let path = fixtures().join(format!("versions/{folder}/{version}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn chosen(name: &str, version: &str, wanted: Option<&str>) -> Chosen {
    let answer = answer(name, version);
    let package = mapping::choose(&answer.server, wanted).unwrap();
    mapping::chosen(REGISTRY, &answer, package)
}

fn offer(name: &str, version: &str, wanted: Option<&str>) -> Offer {
    match chosen(name, version, wanted) {
        Chosen::Offer(offer) => *offer,
        Chosen::Bundle(b) => panic!("a bundle: {b:?}"),
    }
}

fn every_answer() -> Vec<ServerResponse> {
    let mut out = vec![];
    for dir in std::fs::read_dir(fixtures().join("versions")).unwrap() {
        for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
            out.push(serde_json::from_str(&text).unwrap());
        }
    }
    out
}

#[test]
fn the_filesystem_server_takes_its_folders_from_consent_at_its_pinned_version() {
    let o = offer("io.github.modelcontextprotocol/filesystem", "latest", None);
    assert_eq!(o.about.unfit, None);
    assert_eq!(o.about.title, "Filesystem");
    assert_eq!(o.draft.name, "filesystem");
    assert_eq!(o.draft.command, "npx");
    assert_eq!(
        o.draft.args,
        [
            "-y",
            "@modelcontextprotocol/server-filesystem@2026.8.31",
            "${folders}"
        ]
    );
    assert_eq!(
        o.source,
        Source::Registry {
            registry: REGISTRY.into(),
            name: "io.github.modelcontextprotocol/filesystem".into(),
            version: "2026.8.31".into(),
            package: "npm:@modelcontextprotocol/server-filesystem".into(),
        }
    );
    let folders = &o.settings[0];
    assert_eq!(folders.key, "target_dir");
    assert_eq!(folders.kind, SettingKind::Folder { multiple: true });
    // The publisher's example folder is not this machine's: only said.
    assert!(o.folders.is_empty());
    assert!(
        o.notes
            .iter()
            .any(|n| n.contains("/Users/username/Desktop")),
        "{:?}",
        o.notes
    );
    let level = &o.settings[1];
    assert_eq!(
        (level.key.as_str(), level.default.as_deref()),
        ("LOG_LEVEL", Some("info"))
    );
    let draft = o.fill(&BTreeMap::new()).unwrap();
    assert_eq!(draft.env["LOG_LEVEL"], "info");
    assert_eq!(draft.args[2], "${folders}");
    assert!(!draft.enabled);
}

#[test]
fn its_container_image_is_shown_and_not_run() {
    let o = offer(
        "io.github.modelcontextprotocol/filesystem",
        "latest",
        Some("oci"),
    );
    let why = o.about.unfit.unwrap();
    assert!(
        why.contains("container image (docker.io/mcp/filesystem:2026.8.31)"),
        "{why}"
    );
    assert!(o.draft.command.is_empty());
}

#[test]
fn a_secret_goes_to_the_keyring_and_the_version_is_the_one_chosen() {
    let o = offer("io.github.domdomegg/airtable-mcp-server", "1.7.2", None);
    assert_eq!(o.draft.args, ["-y", "airtable-mcp-server@1.7.2"]);
    let key = &o.settings[0];
    assert!(key.secret && key.required, "{key:?}");
    assert_eq!(key.key, "AIRTABLE_API_KEY");
    let err = o.fill(&BTreeMap::new()).unwrap_err().to_string();
    assert!(err.contains("needs a value"), "{err}");
    let values = BTreeMap::from([("AIRTABLE_API_KEY".to_string(), "pat123.abc".to_string())]);
    let draft = o.fill(&values).unwrap();
    assert_eq!(draft.env["AIRTABLE_API_KEY"], "pat123.abc");
    assert!(draft.secret_env.unwrap().contains("AIRTABLE_API_KEY"));
    let latest = offer("io.github.domdomegg/airtable-mcp-server", "latest", None);
    assert_eq!(latest.about.version, "1.7.3");
    assert_eq!(latest.draft.args[1], "airtable-mcp-server@1.7.3");
}

#[test]
fn a_bundle_package_is_handed_back_with_its_digest() {
    match chosen(
        "io.github.domdomegg/airtable-mcp-server",
        "1.7.3",
        Some("mcpb"),
    ) {
        Chosen::Bundle(b) => {
            assert!(b.url.ends_with("/v1.7.3/airtable-mcp-server.mcpb"));
            assert_eq!(
                b.sha256.as_deref(),
                Some("0f28a9129cfebd262dfb77854c872355d21401bb3e056575b3027081f5d570ca")
            );
        }
        other => panic!("not a bundle: {other:?}"),
    }
    let err = mapping::choose(
        &answer("io.github.domdomegg/time-mcp-pypi", "latest").server,
        Some("npm"),
    )
    .unwrap_err();
    assert!(err.contains("has no npm package (it has: pypi)"), "{err}");
}

#[test]
fn a_downloaded_bundle_is_read_by_the_bundle_reader_which_refuses_a_file_that_is_not_one() {
    let cache = tempfile::tempdir().unwrap();
    let client = Client::new(REGISTRY, cache.path()).unwrap();
    let bytes = b"not really a bundle";
    let sha = cache::hex(&Sha256::digest(bytes));
    let kept = cache::Cache::of(cache.path(), REGISTRY).bundles();
    std::fs::create_dir_all(&kept).unwrap();
    std::fs::write(kept.join(format!("{sha}.mcpb")), bytes).unwrap();
    let bundle = BundleRef {
        // Never fetched: the file is in the cache with the right digest.
        url: "https://example.invalid/x.mcpb".into(),
        sha256: Some(sha.clone()),
        source: Source::Bundle {
            name: "x".into(),
            version: "1".into(),
            sha256: sha.clone(),
        },
    };
    let bundles = crate::bundle::Bundles::at(cache.path().join("bundles"));
    let err = match bundle_offer(&client, &bundle, &bundles) {
        Ok(_) => panic!("a file that is not a zip was read as a bundle"),
        Err(e) => e.to_string(),
    };
    assert!(err.contains(&format!("{sha}.mcpb")), "{err}");
    assert!(err.contains("cannot be installed"), "{err}");
    assert!(!cache.path().join("bundles").exists(), "nothing unpacked");
}

#[test]
fn python_packages_run_with_uvx_at_their_version() {
    let o = offer("io.github.domdomegg/time-mcp-pypi", "latest", None);
    assert_eq!(o.draft.command, "uvx");
    assert_eq!(o.draft.args, ["time-mcp-pypi==1.0.6"]);
    assert!(
        o.notes.iter().any(|n| n.contains("`python`")),
        "{:?}",
        o.notes
    );
}

#[test]
fn remote_and_other_registries_say_why_they_do_not_run() {
    let remote = offer("io.github.getcyphrex/cyphrex-mcp", "latest", None);
    let why = remote.about.unfit.unwrap();
    assert!(
        why.contains("remote server (streamable-http at https://mcp.cyphrex.io/mcp)"),
        "{why}"
    );
    let nuget = offer("io.github.domdomegg/time-mcp-nuget", "latest", None);
    assert!(
        nuget
            .about
            .unfit
            .unwrap()
            .contains("nuget package (TimeMcpServer)")
    );
    let unversioned = offer("io.github.mark3labs/mcp-filesystem-server", "latest", None);
    assert!(unversioned.about.unfit.unwrap().contains("container image"));
}

#[test]
fn named_arguments_with_choices_become_settings() {
    let o = offer("io.snyk/cli-mcp", "latest", None);
    assert_eq!(
        o.draft.args,
        ["-y", "snyk@1.1298.0", "mcp", "-t", "${registry.t}"]
    );
    let t = &o.settings[0];
    assert_eq!(
        t.kind,
        SettingKind::Choice {
            choices: vec!["stdio".into(), "sse".into()]
        }
    );
    assert_eq!(o.fill(&BTreeMap::new()).unwrap().args[4], "stdio");
}

#[test]
fn every_entry_maps_pinned_and_without_a_typed_folder() {
    let all = every_answer();
    assert!(all.len() >= 25, "{}", all.len());
    for answer in all {
        for package in &answer.server.packages {
            let Chosen::Offer(o) = mapping::chosen(REGISTRY, &answer, Some(package)) else {
                continue;
            };
            let name = &answer.server.name;
            assert!(
                !o.draft.args.iter().any(|a| a.contains("@latest")),
                "{name}: {:?}",
                o.draft.args
            );
            if o.about.unfit.is_none() {
                let version = package.version.as_deref().unwrap();
                assert!(
                    o.draft.args.iter().any(|a| a.ends_with(version)),
                    "{name}: {:?}",
                    o.draft.args
                );
                assert!(
                    !o.draft.args.iter().any(|a| a.starts_with('/')),
                    "{name}: {:?}",
                    o.draft.args
                );
            }
        }
    }
}
