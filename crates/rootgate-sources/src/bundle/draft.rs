//! A checked manifest read into an [`Offer`]: what the bundle says about
//! itself, the server it runs as a draft whose folders are Rootgate's
//! placeholders, and its `user_config` as settings (read by `settings`).
//!
//! The format's variables are filled as MCPB defines them (see
//! `variables`): `${__dirname}`
//! is the folder the bundle is unpacked into, `${HOME}`, `${DESKTOP}`,
//! `${DOCUMENTS}` and `${DOWNLOADS}` the person's folders, `${/}` and
//! `${pathSeparator}` Linux's `/`; the Linux `platform_overrides` replace
//! the command, arguments or environment they give. A `directory` setting
//! becomes `${folders}` (`multiple`) or `${folder}`, so its folders come
//! from consent and are never typed; every other setting stays as its
//! `${user_config.KEY}` token until `Offer::fill` puts the answer there.
//! The server runs in its bundle's folder, as the format's relative paths
//! (`server/my-server`) expect; that is also what lets it read its own
//! files under enforced roots (the launcher grants read access to a
//! server's working folder).
//!
//! What this module does not do: read or unpack the zip, or check the
//! manifest against its schema (see `manifest`).

use std::collections::BTreeSet;
use std::path::Path;

use rootgate_model::placeholders::{FOLDER, FOLDERS};
use rootgate_model::servers::{ServerDraft, looks_secret};

use super::manifest::{Manifest, Run};
use super::settings::settings;
use super::variables::{Context, substitute, system};
use crate::offer::{About, Named, Offer, SettingKind, Source};

/// The run `mcp_config` gives on Linux: each of command, arguments and
/// environment from the `linux` override when it gives one.
fn linux_run(manifest: &Manifest) -> Option<Run> {
    let config = manifest.server.mcp_config.as_ref()?;
    let over = config.platform_overrides.get("linux");
    let pick = |o: Option<&Run>| o.cloned().unwrap_or_default();
    let over = pick(over);
    Some(Run {
        command: over.command.or_else(|| config.run.command.clone()),
        args: over.args.or_else(|| config.run.args.clone()),
        env: over.env.or_else(|| config.run.env.clone()),
    })
}

/// Why the bundle cannot run here, if it cannot.
fn unfit(manifest: &Manifest, run: Option<&Run>) -> Option<String> {
    if let Some(platforms) = &manifest.compatibility.platforms
        && !platforms.iter().any(|p| p == "linux")
    {
        let names: Vec<&str> = platforms.iter().map(|p| platform_name(p)).collect();
        return Some(format!(
            "it is made for {} only, not Linux",
            names.join(" and ")
        ));
    }
    if run.and_then(|r| r.command.as_ref()).is_none() {
        return Some(if manifest.server.kind == "uv" {
            "it is a `uv` bundle that leaves how to run it to the app, which Rootgate does not \
             do yet"
                .into()
        } else {
            "its manifest does not say what command runs it".into()
        });
    }
    None
}

fn platform_name(platform: &str) -> &str {
    match platform {
        "darwin" => "macOS",
        "win32" => "Windows",
        "linux" => "Linux",
        other => other,
    }
}

/// What the bundle says it needs, in words.
fn compatibility(manifest: &Manifest) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(platforms) = &manifest.compatibility.platforms {
        let names: Vec<&str> = platforms.iter().map(|p| platform_name(p)).collect();
        out.push(format!("Runs on {}", names.join(", ")));
    }
    for (runtime, version) in &manifest.compatibility.runtimes {
        let name = match runtime.as_str() {
            "node" => "Node.js",
            "python" => "Python",
            other => other,
        };
        out.push(format!("{name} {version}"));
    }
    out
}

/// The value a variable of `mcp_config` takes in the draft: the format's
/// own, a folder setting's placeholder, or another setting's token kept.
fn draft_value(name: &str, offer: &Offer, cx: &Context<'_>) -> Option<String> {
    if let Some(value) = system(name, cx) {
        return Some(value);
    }
    let key = name.strip_prefix("user_config.")?;
    let setting = offer.settings.iter().find(|s| s.key == key)?;
    Some(match setting.kind {
        SettingKind::Folder { multiple: true } => FOLDERS.to_owned(),
        SettingKind::Folder { multiple: false } => FOLDER.to_owned(),
        _ => setting.token.clone(),
    })
}

/// The server's draft from `run`: not enabled, not approved, in the
/// bundle's folder.
fn draft(manifest: &Manifest, run: &Run, cx: &Context<'_>, offer: &mut Offer) -> ServerDraft {
    let mut unknown = BTreeSet::new();
    let mut fill = |text: &str| substitute(text, &|n| draft_value(n, offer, cx), &mut unknown);
    let mut command = fill(run.command.as_deref().unwrap_or_default());
    // A relative program path (`server/my-server`) is the bundle's own.
    if command.contains('/') && Path::new(&command).is_relative() {
        command = cx.folder.join(&command).display().to_string();
    }
    let args: Vec<String> = run.args.iter().flatten().map(|a| fill(a)).collect();
    let env: std::collections::BTreeMap<String, String> = run
        .env
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), fill(v)))
        .collect();
    // A variable holding a secret anywhere in its value (`Bearer ${...}`)
    // is kept in the keyring whole, as is one whose name looks secret.
    let secret_env: BTreeSet<String> = env
        .iter()
        .filter(|(name, value)| {
            looks_secret(name)
                || offer
                    .settings
                    .iter()
                    .any(|s| s.secret && !s.token.is_empty() && value.contains(&s.token))
        })
        .map(|(name, _)| name.clone())
        .collect();
    for name in unknown {
        offer.notes.push(format!(
            "It uses `${{{name}}}`, which is not one of the bundle format's variables nor one of \
             its settings; it is passed as written."
        ));
    }
    ServerDraft {
        name: rootgate_model::names::usable(&manifest.name, "bundle"),
        command,
        args,
        env,
        cwd: Some(cx.folder.to_path_buf()),
        enabled: false,
        secret_env: (!secret_env.is_empty()).then_some(secret_env),
        ..ServerDraft::default()
    }
}

/// What the bundle runs, in words: its kind and its command line as the
/// manifest writes it, the bundle's folder left out.
fn runs(manifest: &Manifest, run: Option<&Run>) -> String {
    let kind = match manifest.server.kind.as_str() {
        "node" => "A Node.js server",
        "python" => "A Python server",
        "binary" => "A program",
        "uv" => "A Python server run with uv",
        _ => "A server",
    };
    let Some(run) = run else {
        return format!("{kind} ({})", manifest.server.entry_point);
    };
    let words: Vec<String> = run
        .command
        .iter()
        .chain(run.args.iter().flatten())
        .map(|w| w.replace("${__dirname}/", "").replace("${__dirname}", "."))
        .collect();
    format!("{kind}, from the bundle's files: {}", words.join(" "))
}

/// The offer `manifest` makes, unpacked into `cx.folder`.
pub fn offer(manifest: &Manifest, cx: Context<'_>) -> Result<Offer, String> {
    let run = linux_run(manifest);
    let author = &manifest.author;
    let about = About {
        name: manifest.name.clone(),
        title: manifest
            .display_name
            .clone()
            .unwrap_or_else(|| manifest.name.clone()),
        version: manifest.version.clone(),
        description: manifest.description.clone(),
        author: Some(match &author.email {
            Some(email) => format!("{} <{email}>", author.name),
            None => author.name.clone(),
        }),
        homepage: manifest
            .homepage
            .clone()
            .or_else(|| manifest.repository.as_ref().map(|r| r.url.clone()))
            .or_else(|| author.url.clone()),
        license: manifest.license.clone(),
        runs: runs(manifest, run.as_ref()),
        tools: named(&manifest.tools),
        prompts: named(&manifest.prompts),
        compatibility: compatibility(manifest),
        unfit: unfit(manifest, run.as_ref()),
        signature: cx.signature.clone(),
    };
    let mut offer = Offer {
        about,
        source: Source::Bundle {
            name: manifest.name.clone(),
            version: manifest.version.clone(),
            sha256: cx.sha256.clone(),
        },
        draft: ServerDraft::default(),
        settings: Vec::new(),
        folders: Vec::new(),
        notes: Vec::new(),
    };
    let run = run.unwrap_or_default();
    settings(manifest, &run, &cx, &mut offer)?;
    offer.draft = draft(manifest, &run, &cx, &mut offer);
    Ok(offer)
}

fn named(declared: &[super::manifest::Declared]) -> Vec<Named> {
    declared
        .iter()
        .map(|d| Named {
            name: d.name.clone(),
            description: d.description.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::{Value, json};

    use super::super::variables::Places;
    use super::*;
    use crate::offer::{SettingKind, Signature};

    fn places(home: &Path) -> Places {
        Places {
            home: home.to_path_buf(),
            desktop: home.join("Desktop"),
            documents: home.join("Documents"),
            downloads: home.join("Downloads"),
        }
    }

    fn manifest(extra: Value) -> Manifest {
        let mut value = json!({
            "manifest_version": "0.3",
            "name": "files",
            "version": "1.2.0",
            "description": "Files",
            "author": {"name": "Ann", "email": "ann@example.com"},
            "server": {
                "type": "node",
                "entry_point": "server/index.js",
                "mcp_config": {
                    "command": "node",
                    "args": ["${__dirname}/server/index.js", "${user_config.dirs}",
                             "--limit=${user_config.limit}", "${user_config.token}"],
                    "env": {"API_KEY": "${user_config.token}", "AUTH": "Bearer ${user_config.token}",
                            "DATA": "${DOCUMENTS}${/}x", "ODD": "${nope}"},
                    "platform_overrides": {"win32": {"command": "node.exe"},
                                           "linux": {"env": {"AUTH": "Bearer ${user_config.token}",
                                                             "HOME_AT": "${HOME}"}}}
                }
            },
            "user_config": {
                "dirs": {"type": "directory", "title": "Folders", "description": "d",
                         "multiple": true, "default": ["${HOME}/real", "${HOME}/missing"]},
                "limit": {"type": "number", "title": "Limit", "description": "l",
                          "default": 10, "min": 1, "max": 100},
                "token": {"type": "string", "title": "Token", "description": "t",
                          "sensitive": true, "required": true}
            }
        });
        for (k, v) in extra.as_object().into_iter().flatten() {
            value[k] = v.clone();
        }
        super::super::manifest::read(value.to_string().as_bytes()).unwrap()
    }

    fn make(m: &Manifest, home: &Path) -> Offer {
        let places = places(home);
        offer(
            m,
            Context {
                folder: Path::new("/data/bundles/files/1.2.0"),
                sha256: "ab".into(),
                signature: Signature::Unsigned,
                places: &places,
            },
        )
        .unwrap()
    }

    #[test]
    fn variables_folders_settings_and_the_linux_override_are_filled() {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir(home.path().join("real")).unwrap();
        let o = make(&manifest(json!({})), home.path());
        assert_eq!(
            o.draft.args,
            [
                "/data/bundles/files/1.2.0/server/index.js",
                "${folders}",
                "--limit=${user_config.limit}",
                "${user_config.token}"
            ]
        );
        // The Linux override replaces the whole environment.
        let env: BTreeMap<&str, &str> = o
            .draft
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            env,
            BTreeMap::from([
                ("AUTH", "Bearer ${user_config.token}"),
                ("HOME_AT", home.path().to_str().unwrap())
            ])
        );
        assert_eq!(
            o.draft.secret_env,
            Some(BTreeSet::from(["AUTH".to_string()]))
        );
        assert_eq!(
            o.draft.cwd.as_deref(),
            Some(Path::new("/data/bundles/files/1.2.0"))
        );
        assert!(!o.draft.enabled);
        assert_eq!(
            o.folders,
            [home.path().join("real").canonicalize().unwrap()]
        );
        assert!(
            o.notes
                .iter()
                .any(|n| n.contains("missing") && n.contains("not a folder here"))
        );
        assert!(
            o.notes
                .iter()
                .any(|n| n.contains("Token") && n.contains("argument 4"))
        );
        let kinds: Vec<(&str, &SettingKind, &str)> = o
            .settings
            .iter()
            .map(|s| (s.key.as_str(), &s.kind, s.token.as_str()))
            .collect();
        assert_eq!(
            kinds[0],
            ("dirs", &SettingKind::Folder { multiple: true }, "")
        );
        assert_eq!(
            kinds[1],
            (
                "limit",
                &SettingKind::Number {
                    min: Some(1.0),
                    max: Some(100.0)
                },
                "${user_config.limit}"
            )
        );
        assert_eq!(o.settings[1].default.as_deref(), Some("10"));
        assert!(o.settings[2].secret && o.settings[2].required);
        assert_eq!(o.about.author.as_deref(), Some("Ann <ann@example.com>"));
        assert_eq!(
            o.about.runs,
            "A Node.js server, from the bundle's files: node server/index.js \
             ${user_config.dirs} --limit=${user_config.limit} ${user_config.token}"
        );
        let filled = o
            .fill(&BTreeMap::from([("token".to_string(), "s3".to_string())]))
            .unwrap();
        assert_eq!(filled.args[2], "--limit=10");
        assert_eq!(filled.env["AUTH"], "Bearer s3");
    }

    #[test]
    fn a_bundle_for_other_platforms_is_unfit_in_words() {
        let home = tempfile::tempdir().unwrap();
        let m = manifest(json!({"compatibility": {"platforms": ["darwin", "win32"],
                                                  "runtimes": {"node": ">=18"}}}));
        let o = make(&m, home.path());
        assert_eq!(
            o.about.unfit.as_deref(),
            Some("it is made for macOS and Windows only, not Linux")
        );
        assert_eq!(
            o.about.compatibility,
            ["Runs on macOS, Windows", "Node.js >=18"]
        );
    }

    #[test]
    fn a_single_folder_and_an_unknown_variable() {
        let home = tempfile::tempdir().unwrap();
        let m = manifest(json!({
            "server": {"type": "binary", "entry_point": "server/run",
                       "mcp_config": {"command": "server/run", "args": ["--root=${user_config.d}", "${nope}"]}},
            "user_config": {"d": {"type": "directory", "title": "D", "description": "d"}}
        }));
        let o = make(&m, home.path());
        assert_eq!(o.draft.command, "/data/bundles/files/1.2.0/server/run");
        assert_eq!(o.draft.args, ["--root=${folder}", "${nope}"]);
        assert!(
            o.notes.iter().any(|n| n.contains("${nope}")),
            "{:?}",
            o.notes
        );
    }
}
