//! The sandbox a held server runs in: bubblewrap's command line for a
//! [`Policy`], and whether bubblewrap can make its namespaces here.
//!
//! bubblewrap (`bwrap`, the engine Flatpak is built on) builds a private
//! mount namespace from an empty root: the system's programs and libraries
//! and a few files of `/etc` read-only, the server's own command's files
//! read-only, its granted folders (and a package runner's cache)
//! read-write, a private `/tmp`, an empty private home, a `/proc` of its
//! own PID namespace and a minimal `/dev`. Nothing else of the person's
//! files is there: not the home folder, not `$XDG_RUNTIME_DIR` (session
//! bus, keyring, agents, Rootgate's sockets), not `/tmp/.X11-unix`. Its own
//! IPC and UTS namespaces, a new session (no terminal to push input into),
//! and with the network off a network namespace of its own, which also
//! leaves it no abstract Unix socket of the machine.
//!
//! This module only builds arguments and runs one probe; the launcher
//! runs bubblewrap (see `launcher`), and the Landlock ruleset applied
//! inside it is `enforcement`'s.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use crate::policy::Policy;

/// Top-level system folders that are links into `/usr` on a merged-`/usr`
/// system: recreated as the same links, so paths resolve as outside.
const LINKED_TOP: &[&str] = &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// What every held server gets from bubblewrap, and what the probe tries:
/// its own PID, IPC, UTS and (where the kernel has them) cgroup namespaces,
/// ended with its parent, in a new session, with a `/proc` of its own PID
/// namespace and a minimal `/dev`. The network namespace is added unless
/// the person allowed the network.
const ISOLATION: [&str; 10] = [
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent",
    "--new-session",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
];

/// The bubblewrap program, if there is one that makes its namespaces here,
/// or why not. Probed once per process (a run of `bwrap` costs a few
/// milliseconds), by running `true` in the same namespaces a held server
/// gets.
pub fn probe() -> Result<PathBuf, String> {
    static PROBED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PROBED.get_or_init(probe_now).clone()
}

fn probe_now() -> Result<PathBuf, String> {
    let Some(bwrap) = find_bwrap() else {
        return Err(
            "bubblewrap (`bwrap`) is not installed, so the server cannot be held in a \
             sandbox of its own (install the `bubblewrap` package)"
                .into(),
        );
    };
    // The whole system read-only as its root (its own `/proc` and `/dev`
    // over it), and the same namespaces a held server gets, the network's
    // among them, so that what the probe shows working is what a start
    // asks for.
    let mut args: Vec<OsString> = ["--ro-bind", "/", "/"]
        .iter()
        .chain(&ISOLATION)
        .chain(&["--unshare-net"])
        .map(OsString::from)
        .collect();
    args.push("true".into());
    let out = Command::new(&bwrap)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output();
    match out {
        Ok(o) if o.status.success() => Ok(bwrap),
        Ok(o) => Err(format!(
            "bubblewrap cannot make its namespaces here ({}); user namespaces may be off or \
             restricted on this system",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("bubblewrap could not be run: {e}")),
    }
}

/// `bwrap` in the usual places. Not the server's `PATH`: which program
/// holds a server is not the server's to choose.
fn find_bwrap() -> Option<PathBuf> {
    ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

/// One step of the sandbox's making, in the order bubblewrap runs them.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mount {
    ReadOnly(PathBuf),
    ReadWrite(PathBuf),
    Tmpfs(PathBuf),
    Link { target: PathBuf, at: PathBuf },
}

impl Mount {
    fn at(&self) -> &Path {
        match self {
            Mount::ReadOnly(p) | Mount::ReadWrite(p) | Mount::Tmpfs(p) => p,
            Mount::Link { at, .. } => at,
        }
    }
}

/// bubblewrap's arguments (before its `--` and the program to run) for a
/// server held to `policy`, with `launcher` (the program that applies the
/// Landlock ruleset inside and then becomes the server) made visible.
/// `home` is the person's home folder, made an empty private folder.
pub(crate) fn bwrap_args(policy: &Policy, launcher: &Path, home: Option<&Path>) -> Vec<OsString> {
    let mut args: Vec<OsString> = ISOLATION.iter().map(OsString::from).collect();
    if !policy.network {
        args.push("--unshare-net".into());
    }
    for mount in mounts(policy, launcher, home) {
        match mount {
            Mount::ReadOnly(p) => {
                args.extend(["--ro-bind-try".into(), p.clone().into(), p.into()]);
            }
            Mount::ReadWrite(p) => {
                args.extend(["--bind-try".into(), p.clone().into(), p.into()]);
            }
            Mount::Tmpfs(p) => args.extend(["--tmpfs".into(), p.into()]),
            Mount::Link { target, at } => {
                args.extend(["--symlink".into(), target.into(), at.into()]);
            }
        }
    }
    args.push("--chdir".into());
    args.push(
        policy
            .cwd
            .clone()
            .unwrap_or_else(|| home.map_or_else(|| "/".into(), Path::to_path_buf))
            .into(),
    );
    args
}

/// Every mount of the sandbox, parents before what lies inside them (a
/// later mount of a parent would hide an earlier one inside it).
fn mounts(policy: &Policy, launcher: &Path, home: Option<&Path>) -> Vec<Mount> {
    let mut out: Vec<Mount> = vec![Mount::Tmpfs("/tmp".into())];
    // The home folder is an empty private folder, so programs that keep
    // something there find a place to; not when a granted folder holds it,
    // which the person shared whole.
    if let Some(home) = home
        && home != Path::new("/")
        && !policy.read_write.iter().any(|p| home.starts_with(p))
    {
        out.push(Mount::Tmpfs(home.to_path_buf()));
    }
    for p in &policy.read_only {
        // `/proc` and `/dev` are the sandbox's own (above).
        if p.starts_with("/proc") || p.starts_with("/dev") {
            continue;
        }
        match std::fs::read_link(p) {
            Ok(target) if LINKED_TOP.iter().any(|t| Path::new(t) == p) => {
                out.push(Mount::Link {
                    target,
                    at: p.clone(),
                });
            }
            _ => out.push(Mount::ReadOnly(p.clone())),
        }
    }
    out.push(Mount::ReadOnly(launcher.to_path_buf()));
    for p in &policy.read_write {
        if p.starts_with("/dev") {
            continue;
        }
        out.push(Mount::ReadWrite(p.clone()));
    }
    // Stable: at one depth, the order above (a tmpfs before a bind at the
    // same place).
    out.sort_by_key(|m| m.at().components().count());
    // A place already shown by a bind of a folder around it is there as
    // it is; binding it again would need a mount point inside a read-only
    // bind (and a link, such as a venv's `python`, would be followed).
    let mut kept: Vec<Mount> = Vec::new();
    for m in out {
        let covered = kept.iter().any(|k| match (k, &m) {
            (Mount::ReadWrite(outer), Mount::ReadOnly(p) | Mount::ReadWrite(p))
            | (Mount::ReadOnly(outer), Mount::ReadOnly(p)) => p.starts_with(outer),
            _ => false,
        });
        if !covered {
            kept.push(m);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        Policy {
            read_write: vec!["/home/p/docs".into(), "/dev/null".into()],
            read_only: vec!["/usr".into(), "/proc".into(), "/home/p/.nvm/node".into()],
            network: false,
            sandbox: Some("/usr/bin/bwrap".into()),
            cwd: None,
        }
    }

    #[test]
    fn parents_come_before_what_is_inside_them() {
        let m = mounts(
            &policy(),
            Path::new("/opt/rg/launcher"),
            Some(Path::new("/home/p")),
        );
        let at: Vec<&Path> = m.iter().map(Mount::at).collect();
        let home = at.iter().position(|p| *p == Path::new("/home/p")).unwrap();
        let docs = at
            .iter()
            .position(|p| *p == Path::new("/home/p/docs"))
            .unwrap();
        assert!(home < docs, "{at:?}");
        assert!(m.contains(&Mount::Tmpfs("/home/p".into())));
        assert!(m.contains(&Mount::ReadWrite("/home/p/docs".into())));
        assert!(!at.contains(&Path::new("/proc")));
        assert!(!at.contains(&Path::new("/dev/null")));
    }

    #[test]
    fn a_place_inside_a_bound_folder_is_not_bound_again() {
        let p = Policy {
            read_only: vec!["/venv".into(), "/venv/bin/python".into()],
            read_write: vec!["/venv/data".into()],
            ..policy()
        };
        let m = mounts(&p, Path::new("/venv/bin/launcher"), None);
        assert!(m.contains(&Mount::ReadOnly("/venv".into())));
        assert!(!m.contains(&Mount::ReadOnly("/venv/bin/python".into())));
        assert!(!m.contains(&Mount::ReadOnly("/venv/bin/launcher".into())));
        // Writable inside read-only stays a bind of its own.
        assert!(m.contains(&Mount::ReadWrite("/venv/data".into())));
    }

    #[test]
    fn the_network_is_off_unless_allowed() {
        let off = bwrap_args(&policy(), Path::new("/l"), None);
        assert!(off.contains(&OsString::from("--unshare-net")));
        let on = bwrap_args(
            &Policy {
                network: true,
                ..policy()
            },
            Path::new("/l"),
            None,
        );
        assert!(!on.contains(&OsString::from("--unshare-net")));
        assert!(on.contains(&OsString::from("--unshare-pid")));
    }

    #[test]
    fn a_shared_home_is_not_hidden_under_an_empty_one() {
        let p = Policy {
            read_write: vec!["/home/p".into()],
            ..policy()
        };
        let m = mounts(&p, Path::new("/l"), Some(Path::new("/home/p")));
        assert!(!m.contains(&Mount::Tmpfs("/home/p".into())));
    }
}
