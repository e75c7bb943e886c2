//! One registry entry read into what Rootgate shows and installs: which of
//! its packages runs here, the exact command (versions pinned, never a
//! floating `@latest`), and an [`Offer`] built from it.
//!
//! An npm package runs as `npx -y NAME@VERSION` (or with `bunx`/`pnpx`
//! when its `runtimeHint` says so), a PyPI package as `uvx NAME==VERSION`.
//! A container image (`oci`), another package registry (`nuget`…), a
//! package served over HTTP, and a remote-only server are shown with the
//! reason they do not run here ([`About::unfit`]). An MCP bundle (`mcpb`)
//! is handed back as a [`BundleRef`]: the caller downloads it and the
//! bundle reader makes its offer.
//!
//! What this module does not do: fetch anything, or read arguments and
//! environment variables (see `inputs`).

use rootgate_model::servers::ServerDraft;

use super::inputs::Inputs;
use super::server_json::{Package, ServerDetail, ServerResponse};
use crate::offer::{About, Offer, Signature, Source};

/// The package kinds Rootgate installs, in the order it prefers them.
const PREFERRED: &[&str] = &["npm", "pypi", "mcpb"];

/// What an entry becomes with one of its packages chosen.
#[derive(Debug, Clone, PartialEq)]
pub enum Chosen {
    Offer(Box<Offer>),
    /// An MCP bundle to download (to `url`, whose SHA-256 must be
    /// `sha256`) and read; `source` is what to remember it as.
    Bundle(BundleRef),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRef {
    pub url: String,
    pub sha256: Option<String>,
    pub source: Source,
}

/// The package of `entry` to use: the one of kind `wanted`, else the first
/// Rootgate installs, else the first; none for a remote-only entry.
pub fn choose<'a>(
    entry: &'a ServerDetail,
    wanted: Option<&str>,
) -> Result<Option<&'a Package>, String> {
    if let Some(kind) = wanted {
        return entry
            .packages
            .iter()
            .find(|p| p.registry_type.eq_ignore_ascii_case(kind))
            .map(Some)
            .ok_or_else(|| {
                let kinds: Vec<&str> = entry
                    .packages
                    .iter()
                    .map(|p| p.registry_type.as_str())
                    .collect();
                format!(
                    "{} {} has no {kind} package (it has: {})",
                    entry.name,
                    entry.version,
                    if kinds.is_empty() {
                        "none".into()
                    } else {
                        kinds.join(", ")
                    }
                )
            });
    }
    Ok(PREFERRED
        .iter()
        .find_map(|kind| entry.packages.iter().find(|p| p.registry_type == *kind))
        .or_else(|| entry.packages.first()))
}

/// `answer` from `registry` with `package` (see [`choose`]) as Rootgate
/// would add it.
pub fn chosen(registry: &str, answer: &ServerResponse, package: Option<&Package>) -> Chosen {
    let entry = &answer.server;
    let source = Source::Registry {
        registry: registry.to_owned(),
        name: entry.name.clone(),
        version: entry.version.clone(),
        package: package.map(package_key).unwrap_or_else(|| "remote".into()),
    };
    if let Some(p) = package.filter(|p| p.registry_type == "mcpb") {
        return Chosen::Bundle(BundleRef {
            url: p.identifier.clone(),
            sha256: p.file_sha256.clone(),
            source,
        });
    }
    let mut inputs = Inputs::default();
    let run = package.map(|p| command(p, &mut inputs));
    let (command, args, runs) = match &run {
        Some(Ok(run)) => (run.command.clone(), inputs.args.clone(), run.words.clone()),
        Some(Err(why)) => (String::new(), vec![], why.clone()),
        None => (String::new(), vec![], remote_words(entry)),
    };
    let mut unfit = match (&run, package) {
        (Some(Err(why)), _) => Some(why.clone()),
        (None, _) => Some(remote_words(entry)),
        (Some(Ok(_)), Some(p)) => not_stdio(p),
        _ => None,
    };
    let status = answer
        .meta
        .official
        .as_ref()
        .and_then(|o| o.status.as_deref());
    if status == Some("deleted") {
        unfit = Some("the registry marks this version deleted".into());
    } else if status == Some("deprecated") {
        inputs
            .notes
            .push("The registry marks this version deprecated.".into());
    }
    let compatibility = match package.map(|p| p.registry_type.as_str()) {
        Some("npm") => vec!["Node.js (npx)".to_owned()],
        Some("pypi") => vec!["uv (uvx)".to_owned()],
        _ => vec![],
    };
    let draft = ServerDraft {
        name: short_name(&entry.name),
        command,
        args,
        env: inputs.env,
        enabled: false,
        ..ServerDraft::default()
    };
    Chosen::Offer(Box::new(Offer {
        about: about(entry, runs, compatibility, unfit),
        source,
        draft,
        settings: inputs.settings,
        folders: inputs.folders,
        notes: inputs.notes,
    }))
}

fn about(
    entry: &ServerDetail,
    runs: String,
    compatibility: Vec<String>,
    unfit: Option<String>,
) -> About {
    About {
        name: entry.name.clone(),
        title: entry
            .title
            .clone()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| entry.name.clone()),
        version: entry.version.clone(),
        description: entry.description.clone(),
        author: None,
        homepage: entry
            .website_url
            .clone()
            .or_else(|| entry.repository.as_ref().map(|r| r.url.clone()))
            .filter(|u| !u.is_empty()),
        license: None,
        runs,
        tools: vec![],
        prompts: vec![],
        compatibility,
        unfit,
        signature: Signature::NotApplicable,
    }
}

/// What a package is remembered as: `npm:@scope/name`, `pypi:name`,
/// `mcpb:URL`, `oci:IMAGE`.
pub(crate) fn package_key(package: &Package) -> String {
    format!("{}:{}", package.registry_type, package.identifier)
}

/// The command a package runs as, in words too.
struct Run {
    command: String,
    words: String,
}

/// The command `package` runs as, its arguments added to `inputs`; or why
/// it does not run here.
fn command(package: &Package, inputs: &mut Inputs) -> Result<Run, String> {
    let id = &package.identifier;
    let kind = package.registry_type.as_str();
    let (program, head, spec) = match kind {
        "npm" | "pypi" => {
            let version = pinned(package)?;
            if !plain(id) {
                return Err(format!(
                    "its package name `{id}` is not one Rootgate will run"
                ));
            }
            let hint = package.runtime_hint.as_deref();
            if kind == "npm" {
                let program = hint
                    .filter(|h| matches!(*h, "bunx" | "pnpx"))
                    .unwrap_or("npx");
                hinted(hint, program, inputs);
                let head = if program == "npx" {
                    vec!["-y".to_owned()]
                } else {
                    vec![]
                };
                (program, head, format!("{id}@{version}"))
            } else {
                hinted(hint, "uvx", inputs);
                ("uvx", vec![], format!("{id}=={version}"))
            }
        }
        "oci" => {
            return Err(format!(
                "it is a container image ({id}), which Rootgate shows but does not run: \
                 a container sees the folders mounted into it, not the ones you share"
            ));
        }
        other => {
            return Err(format!(
                "it is published as a {other} package ({id}), which Rootgate does not run"
            ));
        }
    };
    inputs.args.extend(head);
    inputs.arguments(&package.runtime_arguments);
    inputs.args.push(spec);
    inputs.arguments(&package.package_arguments);
    inputs.environment(&package.environment_variables);
    let source = if kind == "npm" { "npm" } else { "PyPI" };
    let line = std::iter::once(program.to_owned())
        .chain(inputs.args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Run {
        command: program.to_owned(),
        words: format!("{line}, from {source}"),
    })
}

/// Notes that a runtime hint is not the program it runs with.
fn hinted(hint: Option<&str>, program: &str, inputs: &mut Inputs) {
    if let Some(hint) = hint.filter(|h| *h != program) {
        inputs.notes.push(format!(
            "Its publisher suggests running it with `{hint}`; Rootgate runs it with `{program}`."
        ));
    }
}

/// The package's exact version, or why there is none: a missing version,
/// `latest` or a range would let what runs change under an approval.
fn pinned(package: &Package) -> Result<&str, String> {
    let version = package.version.as_deref().map(str::trim).unwrap_or("");
    let floating = version.is_empty()
        || version.eq_ignore_ascii_case("latest")
        || version.contains(['^', '~', '>', '<', '*', ' ', '|'])
        || version
            .split('.')
            .any(|part| part.eq_ignore_ascii_case("x"));
    if floating || !plain(version) {
        return Err(format!(
            "its package {} names no exact version ({}), and Rootgate runs only a pinned one",
            package.identifier,
            if version.is_empty() { "none" } else { version }
        ));
    }
    Ok(version)
}

/// A package name or version that cannot be read as an option or split
/// into more than one argument.
fn plain(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with('-')
        && !text.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn not_stdio(package: &Package) -> Option<String> {
    let transport = package.transport.as_ref()?;
    (transport.kind != "stdio").then(|| {
        format!(
            "its package serves MCP over {}, not over standard input and output, which is how \
             Rootgate runs a server",
            transport.kind
        )
    })
}

/// Why a server with no package does not run here, in words.
fn remote_words(entry: &ServerDetail) -> String {
    match entry.remotes.first() {
        Some(remote) => format!(
            "it is a remote server ({} at {}): nothing of it runs on this machine, so there is \
             nothing for Rootgate to run or give your folders to",
            remote.kind, remote.url
        ),
        None => "it publishes no package to run (see its website)".into(),
    }
}

/// The server's name in Rootgate: the part of `io.github.owner/name`
/// after the slash.
fn short_name(name: &str) -> String {
    let short = name.rsplit('/').next().unwrap_or(name).trim();
    if short.is_empty() {
        name.to_owned()
    } else {
        short.to_owned()
    }
}

/// One entry as a search lists it: each package in a few words.
pub fn packages_in_words(entry: &ServerDetail) -> Vec<String> {
    let mut out: Vec<String> = entry
        .packages
        .iter()
        .map(|p| {
            let version = p
                .version
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            let how = match p.registry_type.as_str() {
                "npm" | "pypi" | "mcpb" => "",
                "oci" => " (a container image: shown, not run)",
                _ => " (not run by Rootgate)",
            };
            format!("{} {}{version}{how}", p.registry_type, p.identifier)
        })
        .collect();
    out.extend(
        entry
            .remotes
            .iter()
            .map(|r| format!("remote {} {} (not run here)", r.kind, r.url)),
    );
    out
}
