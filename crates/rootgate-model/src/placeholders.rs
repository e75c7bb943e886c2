//! Folders passed as arguments: `${folders}`, `${folder}` and
//! `${folder:NAME}` in a server's arguments, working folder and
//! environment values, filled from the folders shared with that server.
//!
//! Most servers take their folders on the command line and never ask for
//! roots (the 2026-07-28 revision names this the migration path). With a
//! placeholder, the person approves the command *with* its placeholders,
//! and the folders come only from consent:
//!
//! - `${folders}` as a whole argument becomes one argument per folder
//!   shared with the server (its real path, in the order shared); inside a
//!   longer argument or an environment value, the paths joined with `:`
//!   (a path that holds `:` cannot be joined, and is refused);
//! - `${folder}` is the one folder shared with the server (the server
//!   starts only while exactly one is);
//! - `${folder:NAME}` is the shared folder whose name is NAME.
//!
//! This module only expands text; when to restart a server whose
//! expansion changed is the session's call, and approval stays on the
//! command line as written (`ServerSpec::command_line`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use thiserror::Error;

use crate::consent::SharedRoot;
use crate::servers::ServerSpec;

/// Every folder shared with the server.
pub const FOLDERS: &str = "${folders}";
/// The one folder shared with the server.
pub const FOLDER: &str = "${folder}";
const NAMED: &str = "${folder:";

/// Why a server's placeholders cannot be filled now, in words a person can
/// act on. The server does not start until they can.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum PlaceholderError {
    #[error(
        "it takes its folders as arguments (`${{folders}}`), and no folder is shared with it yet: share one"
    )]
    NoFolders,
    #[error(
        "it takes one folder as an argument (`${{folder}}`), and {0} are shared with it: share exactly one"
    )]
    NotOneFolder(usize),
    #[error(
        "it takes the folder named \"{0}\" as an argument (`${{folder:{0}}}`), and no folder of that name is shared with it"
    )]
    NoFolderNamed(String),
    #[error(
        "the folder \"{0}\" has a `:` in its path, so it cannot be passed inside a longer argument or a variable, where folders are joined with `:`; pass `${{folders}}` as an argument of its own"
    )]
    ColonInPath(PathBuf),
    #[error(
        "`{0}` is not a placeholder Rootgate knows (`${{folders}}`, `${{folder}}`, `${{folder:NAME}}`)"
    )]
    Unknown(String),
}

/// A server's command line with its placeholders filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    /// The folders the placeholders named, for enforcement.
    pub folders: Vec<PathBuf>,
}

/// True when `spec` has any placeholder, in its arguments, working folder
/// or environment.
pub fn has_placeholders(spec: &ServerSpec) -> bool {
    let any = |s: &str| s.contains("${folder");
    spec.args.iter().any(|a| any(a))
        || spec.env.values().any(|v| any(v))
        || spec.cwd.as_ref().is_some_and(|c| any(&c.to_string_lossy()))
}

/// The real paths of a server's shared folders, by name, in the order
/// shared.
fn folders_of(shared: &[SharedRoot]) -> Vec<(String, PathBuf)> {
    shared
        .iter()
        .filter_map(|r| {
            crate::uri::uri_to_path(&r.uri)
                .ok()
                .map(|p| (r.name.clone(), p))
        })
        .collect()
}

/// Fills `spec`'s placeholders from the folders shared with it.
pub fn expand(spec: &ServerSpec, shared: &[SharedRoot]) -> Result<Expanded, PlaceholderError> {
    let folders = folders_of(shared);
    let mut used: Vec<PathBuf> = Vec::new();
    let mut args = Vec::with_capacity(spec.args.len());
    for arg in &spec.args {
        if arg == FOLDERS {
            if folders.is_empty() {
                return Err(PlaceholderError::NoFolders);
            }
            for (_, path) in &folders {
                args.push(path.to_string_lossy().into_owned());
                used.push(path.clone());
            }
        } else {
            args.push(fill(arg, &folders, &mut used)?);
        }
    }
    let env = spec
        .env
        .iter()
        .map(|(k, v)| Ok((k.clone(), fill(v, &folders, &mut used)?)))
        .collect::<Result<_, PlaceholderError>>()?;
    let cwd = match &spec.cwd {
        Some(cwd) => Some(PathBuf::from(fill(
            &cwd.to_string_lossy(),
            &folders,
            &mut used,
        )?)),
        None => None,
    };
    used.dedup();
    Ok(Expanded {
        args,
        env,
        cwd,
        folders: used,
    })
}

/// Fills the placeholders inside one piece of text.
fn fill(
    text: &str,
    folders: &[(String, PathBuf)],
    used: &mut Vec<PathBuf>,
) -> Result<String, PlaceholderError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${folder") {
        out.push_str(&rest[..start]);
        let tail = &rest[start..];
        let Some(end) = tail.find('}') else {
            return Err(PlaceholderError::Unknown(tail.to_owned()));
        };
        let placeholder = &tail[..=end];
        if placeholder == FOLDERS {
            if folders.is_empty() {
                return Err(PlaceholderError::NoFolders);
            }
            let mut joined = Vec::new();
            for (_, path) in folders {
                let text = path.to_string_lossy();
                if text.contains(':') {
                    return Err(PlaceholderError::ColonInPath(path.clone()));
                }
                joined.push(text.into_owned());
                used.push(path.clone());
            }
            out.push_str(&joined.join(":"));
        } else if placeholder == FOLDER {
            let [(_, path)] = folders else {
                return Err(PlaceholderError::NotOneFolder(folders.len()));
            };
            out.push_str(&path.to_string_lossy());
            used.push(path.clone());
        } else if let Some(name) = placeholder
            .strip_prefix(NAMED)
            .and_then(|n| n.strip_suffix('}'))
        {
            let Some((_, path)) = folders.iter().find(|(n, _)| n == name) else {
                return Err(PlaceholderError::NoFolderNamed(name.to_owned()));
            };
            out.push_str(&path.to_string_lossy());
            used.push(path.clone());
        } else {
            return Err(PlaceholderError::Unknown(placeholder.to_owned()));
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{RootId, ServerId};
    use crate::servers::ServerDraft;

    fn spec(args: &[&str], env: &[(&str, &str)]) -> ServerSpec {
        ServerDraft {
            name: "s".into(),
            command: "srv".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }
        .validate(ServerId::generate(), [])
        .unwrap()
    }

    fn shared(paths: &[(&str, &str)]) -> Vec<SharedRoot> {
        paths
            .iter()
            .map(|(name, path)| SharedRoot {
                root: RootId::generate(),
                uri: crate::uri::path_to_uri(std::path::Path::new(path))
                    .unwrap()
                    .to_string(),
                name: (*name).to_owned(),
            })
            .collect()
    }

    #[test]
    fn folders_as_a_whole_argument_is_one_argument_each_with_spaces_and_non_ascii() {
        let s = spec(&["--dirs", "${folders}", "--x"], &[]);
        let e = expand(
            &s,
            &shared(&[("a", "/srv/my projects"), ("b", "/srv/프로젝트")]),
        )
        .unwrap();
        assert_eq!(
            e.args,
            ["--dirs", "/srv/my projects", "/srv/프로젝트", "--x"]
        );
        assert_eq!(e.folders.len(), 2);
    }

    #[test]
    fn folders_inside_text_or_a_variable_are_joined_with_colons() {
        let s = spec(
            &["--roots=${folders}"],
            &[("ROOTS", "${folders}"), ("HOME_DIR", "x-${folder:b}-y")],
        );
        let e = expand(&s, &shared(&[("a", "/a"), ("b", "/b")])).unwrap();
        assert_eq!(e.args, ["--roots=/a:/b"]);
        assert_eq!(e.env["ROOTS"], "/a:/b");
        assert_eq!(e.env["HOME_DIR"], "x-/b-y");
    }

    #[test]
    fn a_path_with_a_colon_cannot_be_joined_but_can_stand_alone() {
        let folders = shared(&[("c", "/srv/a:b")]);
        assert_eq!(
            expand(&spec(&["--r=${folders}"], &[]), &folders),
            Err(PlaceholderError::ColonInPath("/srv/a:b".into()))
        );
        let e = expand(&spec(&["${folders}"], &[]), &folders).unwrap();
        assert_eq!(e.args, ["/srv/a:b"]);
    }

    #[test]
    fn each_missing_folder_says_what_to_do() {
        assert_eq!(
            expand(&spec(&["${folders}"], &[]), &[]),
            Err(PlaceholderError::NoFolders)
        );
        let two = shared(&[("a", "/a"), ("b", "/b")]);
        assert_eq!(
            expand(&spec(&["--repository", "${folder}"], &[]), &two),
            Err(PlaceholderError::NotOneFolder(2))
        );
        let e = expand(&spec(&["--repository", "${folder}"], &[]), &two[..1]).unwrap();
        assert_eq!(e.args, ["--repository", "/a"]);
        let err = expand(&spec(&["${folder:repo}"], &[]), &two).unwrap_err();
        assert_eq!(err, PlaceholderError::NoFolderNamed("repo".into()));
        assert!(
            err.to_string().contains("no folder of that name is shared"),
            "{err}"
        );
        assert_eq!(
            expand(&spec(&["${folderz}"], &[]), &two),
            Err(PlaceholderError::Unknown("${folderz}".into()))
        );
    }

    #[test]
    fn a_server_without_placeholders_is_left_as_it_is() {
        let s = spec(&["--port", "1"], &[("A", "b")]);
        assert!(!has_placeholders(&s));
        let e = expand(&s, &[]).unwrap();
        assert_eq!(e.args, ["--port", "1"]);
        assert!(e.folders.is_empty());
        assert!(has_placeholders(&spec(&["x${folder:n}"], &[])));
    }
}
