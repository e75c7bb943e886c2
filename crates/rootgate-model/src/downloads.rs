//! Whether a server's command downloads code when it starts, and whether
//! the version it downloads is pinned.
//!
//! `npx -y package` runs whatever the registry serves at that moment, so
//! approving it approves every future version too; `npx package@1.2.3` runs
//! that version only. The approval dialog says which, for the runners that
//! fetch packages at start: npx, `npm exec`, bunx, `pnpm dlx`, `yarn dlx`,
//! uvx (`uv tool run`) and `pipx run`.
//!
//! This module only reads a command line (pure); it does not look packages
//! up, and it cannot know what a script the command runs does later.

use std::path::Path;

use serde::Serialize;

/// A command that fetches a package when it starts.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Download {
    /// The runner, as a person would name it (`npx`, `uvx`, `pipx run`).
    pub tool: String,
    /// The package it fetches, as written (`@scope/name@1.2.3`, `pkg==2.0`).
    pub package: String,
    /// Whether the version is one exact version (`@1.2.3`, `==1.2.3`);
    /// false for no version, a range or a tag such as `latest`.
    pub pinned: bool,
}

/// How a runner names its package: a JavaScript-registry spec
/// (`name@version`) or a Python one (`name==version`, or uv's `name@version`).
#[derive(Clone, Copy)]
enum Registry {
    Npm,
    PyPi,
}

/// A runner's options: those whose value is the package, and those that
/// take some other value (which is not the package).
struct Options {
    package: &'static [&'static str],
    other: &'static [&'static str],
}

const NPM: Options = Options {
    package: &["-p", "--package"],
    other: &["-c", "--call"],
};
const UV: Options = Options {
    package: &["--from"],
    other: &["--with", "-w", "--python", "-p", "--index", "--index-url"],
};
const PIPX: Options = Options {
    package: &["--spec"],
    other: &["--python"],
};

/// The package `command args` fetches at start, if it is such a runner.
pub fn of(command: &str, args: &[String]) -> Option<Download> {
    let program = Path::new(command).file_name()?.to_str()?;
    let first = args.first().map(String::as_str);
    let second = args.get(1).map(String::as_str);
    let (tool, skip, registry, options) = match (program, first, second) {
        ("npx", ..) => ("npx", 0, Registry::Npm, &NPM),
        ("bunx", ..) => ("bunx", 0, Registry::Npm, &NPM),
        ("npm", Some("exec" | "x"), _) => ("npm exec", 1, Registry::Npm, &NPM),
        ("pnpm", Some("dlx"), _) => ("pnpm dlx", 1, Registry::Npm, &NPM),
        ("yarn", Some("dlx"), _) => ("yarn dlx", 1, Registry::Npm, &NPM),
        ("uvx", ..) => ("uvx", 0, Registry::PyPi, &UV),
        ("uv", Some("tool"), Some("run")) => ("uv tool run", 2, Registry::PyPi, &UV),
        ("pipx", Some("run"), _) => ("pipx run", 1, Registry::PyPi, &PIPX),
        _ => return None,
    };
    let package = package_arg(&args[skip..], options)?;
    Some(Download {
        tool: tool.to_owned(),
        pinned: pinned(&package, registry),
        package,
    })
}

/// The package: the value of the option that names it when there is one,
/// else the first word that is not an option or an option's value.
fn package_arg(args: &[String], options: &Options) -> Option<String> {
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "--" {
            return it.next().cloned();
        }
        if let Some((flag, value)) = arg.split_once('=')
            && flag.starts_with('-')
        {
            if options.package.contains(&flag) {
                return Some(value.to_owned());
            }
            continue;
        }
        if options.package.contains(&arg.as_str()) {
            return it.next().cloned();
        }
        if options.other.contains(&arg.as_str()) {
            it.next();
            continue;
        }
        if !arg.starts_with('-') {
            return Some(arg.clone());
        }
    }
    None
}

/// Whether `spec` names one exact version.
fn pinned(spec: &str, registry: Registry) -> bool {
    let version = match registry {
        // `@scope/name@1.2.3`: the version follows the last `@` that is not
        // the scope's.
        Registry::Npm => spec
            .get(1..)
            .and_then(|rest| rest.rfind('@').map(|i| &rest[i + 1..])),
        Registry::PyPi => spec
            .split_once("==")
            .map(|(_, v)| v)
            .or_else(|| spec.rsplit_once('@').map(|(_, v)| v)),
    };
    version.is_some_and(exact)
}

/// `1.2.3`, `2026.8.31`, `1.0.0-beta.2`, `0.6`: digits and dots first, no
/// range operators, wildcards or tags.
fn exact(version: &str) -> bool {
    let core = version.split(['-', '+']).next().unwrap_or("");
    !core.is_empty()
        && core.starts_with(|c: char| c.is_ascii_digit())
        && core.chars().all(|c| c.is_ascii_digit() || c == '.')
        && !core.ends_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> (String, Vec<String>) {
        let mut parts = line.split_whitespace().map(str::to_owned);
        let command = parts.next().unwrap_or_default();
        (command, parts.collect())
    }

    fn download(line: &str) -> Option<(String, String, bool)> {
        let (command, args) = words(line);
        of(&command, &args).map(|d| (d.tool, d.package, d.pinned))
    }

    fn says(line: &str, tool: &str, package: &str, pinned: bool) {
        assert_eq!(
            download(line),
            Some((tool.to_owned(), package.to_owned(), pinned)),
            "{line}"
        );
    }

    #[test]
    fn npm_runners_are_pinned_only_to_an_exact_version() {
        says(
            "npx -y @modelcontextprotocol/server-filesystem /tmp",
            "npx",
            "@modelcontextprotocol/server-filesystem",
            false,
        );
        says(
            "npx -y @modelcontextprotocol/server-filesystem@2026.8.31 ${folders}",
            "npx",
            "@modelcontextprotocol/server-filesystem@2026.8.31",
            true,
        );
        says(
            "npx --yes mcp-server@latest",
            "npx",
            "mcp-server@latest",
            false,
        );
        says("npx mcp-server@^1.2.0", "npx", "mcp-server@^1.2.0", false);
        says("/usr/bin/npx -p pkg@1.0.0 tool", "npx", "pkg@1.0.0", true);
        says(
            "npx --package=pkg@1.0.0-beta.1 tool",
            "npx",
            "pkg@1.0.0-beta.1",
            true,
        );
        says("npm exec -y -- srv@3.1.4", "npm exec", "srv@3.1.4", true);
        says("bunx srv", "bunx", "srv", false);
        says("pnpm dlx srv@2.0.0", "pnpm dlx", "srv@2.0.0", true);
    }

    #[test]
    fn python_runners_read_their_own_spellings() {
        says(
            "uvx mcp-server-git --repository ${folder}",
            "uvx",
            "mcp-server-git",
            false,
        );
        says(
            "uvx mcp-server-git==2025.11.25 --repository /r",
            "uvx",
            "mcp-server-git==2025.11.25",
            true,
        );
        says(
            "uvx --from mcp-server-git@1.2.0 mcp-server-git",
            "uvx",
            "mcp-server-git@1.2.0",
            true,
        );
        says(
            "uvx --python 3.12 mcp-server-time",
            "uvx",
            "mcp-server-time",
            false,
        );
        says(
            "uv tool run mcp-server-fetch>=1.0",
            "uv tool run",
            "mcp-server-fetch>=1.0",
            false,
        );
        says("pipx run --spec srv==0.6 srv", "pipx run", "srv==0.6", true);
    }

    #[test]
    fn other_commands_download_nothing() {
        assert_eq!(download("node /opt/server/index.js"), None);
        assert_eq!(download("npm start"), None);
        assert_eq!(download("uv run server.py"), None);
        assert_eq!(download("docker run -i --rm image"), None);
        assert_eq!(download("npx"), None);
    }
}
