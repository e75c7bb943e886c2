//! Ready-made server drafts the app offers on first run and in "Add
//! server": our built-in example server, the npm filesystem server, the Git
//! server from PyPI, and a Python server started with `uvx`. A template
//! only fills in a draft; the person still reviews and approves the exact
//! command before it runs. Packages fetched at start are pinned to the
//! version the template was written with, so an approval covers that
//! version, not whatever the registry serves next.
//!
//! This module knows nothing about whether the commands are installed.

use serde::Serialize;

use crate::servers::ServerDraft;

/// A server draft with words that explain it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ServerTemplate {
    pub id: String,
    pub title: String,
    pub description: String,
    pub draft: ServerDraft,
}

/// The templates, with the built-in example server run as `example_command`
/// with `example_args` (the app passes its own executable and the flag that
/// makes it act as the example server).
pub fn templates(example_command: &str, example_args: &[&str]) -> Vec<ServerTemplate> {
    vec![
        ServerTemplate {
            id: "example".into(),
            title: "Rootgate example server".into(),
            description: "Built in: needs no Node or Python. It shows exactly which folders \
                          it was told about, so you can watch sharing work."
                .into(),
            draft: ServerDraft {
                name: "Example server".into(),
                command: example_command.into(),
                args: example_args.iter().map(|a| (*a).to_owned()).collect(),
                enabled: true,
                ..Default::default()
            },
        },
        ServerTemplate {
            id: "filesystem".into(),
            title: "Filesystem server (npm)".into(),
            description: "@modelcontextprotocol/server-filesystem: reads and writes files in \
                          the folders you share with it, told both as roots and as its \
                          arguments. Needs Node.js."
                .into(),
            draft: ServerDraft {
                name: "Filesystem".into(),
                command: "npx".into(),
                args: vec![
                    "-y".into(),
                    "@modelcontextprotocol/server-filesystem@2026.8.31".into(),
                    crate::placeholders::FOLDERS.into(),
                ],
                enabled: true,
                ..Default::default()
            },
        },
        ServerTemplate {
            id: "git".into(),
            title: "Git server (uvx)".into(),
            description: "mcp-server-git: reads, searches and changes one Git repository, the \
                          one folder you share with it. Needs uv."
                .into(),
            draft: ServerDraft {
                name: "Git".into(),
                command: "uvx".into(),
                args: vec![
                    "mcp-server-git==2026.10.19".into(),
                    "--repository".into(),
                    crate::placeholders::FOLDER.into(),
                ],
                enabled: true,
                ..Default::default()
            },
        },
        ServerTemplate {
            id: "python-uvx".into(),
            title: "Python server (uvx)".into(),
            description: "A server published on PyPI, started with uv's uvx. Replace the \
                          package name and version with the server you want; with an exact \
                          version, approving it approves that version only. Needs uv."
                .into(),
            draft: ServerDraft {
                name: "Python server".into(),
                command: "uvx".into(),
                args: vec!["your-mcp-server==1.0.0".into()],
                enabled: true,
                ..Default::default()
            },
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::ServerId;

    #[test]
    fn every_template_is_a_valid_draft_and_names_differ() {
        let all = templates("/opt/rootgate", &["--example-server"]);
        let mut names = Vec::new();
        for t in all {
            let spec = t
                .draft
                .validate(ServerId::generate(), names.iter().map(String::as_str));
            let spec = spec.unwrap_or_else(|e| panic!("{}: {e}", t.id));
            assert!(!spec.is_approved(), "a template is never pre-approved");
            names.push(spec.name);
        }
        assert_eq!(names.len(), 4);
    }

    #[test]
    fn every_template_that_downloads_code_pins_its_version() {
        let mut downloading = 0;
        for t in templates("/opt/rootgate", &["--example-server"]) {
            if let Some(download) = crate::downloads::of(&t.draft.command, &t.draft.args) {
                downloading += 1;
                assert!(
                    download.pinned,
                    "{}: {} {} is not pinned, so approving it would approve every later version",
                    t.id, download.tool, download.package
                );
            }
        }
        assert!(
            downloading >= 2,
            "the npm and uvx templates download at start"
        );
    }
}
