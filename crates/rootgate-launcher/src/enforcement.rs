//! Enforced roots on Linux: what a held server may touch, and the second
//! lock that keeps it to that inside its sandbox.
//!
//! Roots are advice: a server is told which folders it may use and trusted
//! to keep to them. With enforcement, the server is *held*: it runs in a
//! bubblewrap sandbox (see `sandbox`) that shows it only the system's
//! programs and libraries, its own command's files and its granted folders,
//! and inside that sandbox under a Landlock ruleset: read and write inside
//! the granted folders, read (and execute) only what it needs to run,
//! nothing else; no signals and no abstract Unix sockets outside itself.
//!
//! This module decides that policy ([`policy_for`], which also refuses in
//! words a working folder or folder argument that would widen it), tells
//! whether the running kernel can hold a server ([`support`]), and applies
//! the Landlock ruleset to the calling process ([`restrict_self`], used only
//! by the launcher, just before the server's program starts). It does not
//! start processes or build the sandbox's command line (`sandbox` does).
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus, Scope, path_beneath_rules,
};
use serde::Serialize;

use rootgate_model::consent::SharedRoot;
use rootgate_model::servers::ServerSpec;

/// The newest Landlock ABI whose rights Rootgate asks for; on an older
/// kernel the crate's best-effort mode drops the rights the kernel does not
/// know, and the launcher says so. ABI 6 brings the scopes: no signals to,
/// and no abstract Unix sockets of, processes outside the server's own.
const ABI_WANTED: ABI = ABI::V6;

pub use crate::policy::Policy;

/// Whether this machine can hold a server to its roots.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Support {
    /// bubblewrap makes its namespaces and Landlock works: servers with
    /// enforced roots are held.
    Available,
    /// Landlock works but bubblewrap cannot make its namespaces: enforced
    /// servers run under Landlock, its scopes and a seccomp filter, and are
    /// not held. `reason` says why, `not_stopped` what that leaves open.
    Partial { reason: String, not_stopped: String },
    /// Landlock is not there; `reason` says why, in words for the person.
    Unavailable { reason: String },
}

/// What a server under Landlock and seccomp alone can still do, in words.
pub const NOT_STOPPED_WITHOUT_SANDBOX: &str = "it still sees every process in /proc (their \
     command lines, and so other servers' folders), can read the system's files that its \
     program needs, can signal the launcher that started it, and reaches the network; it \
     cannot open Unix sockets (the session bus, the keyring, agents, Rootgate's window), signal \
     other processes, or read or write outside its folders";

/// Asks the kernel whether Landlock works here, by creating (and dropping)
/// a ruleset that must be fully supported, and whether bubblewrap can make
/// its namespaces. Nothing is restricted.
pub fn support() -> Support {
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))
        .and_then(|r| r.create());
    if let Err(e) = created {
        return Support::Unavailable {
            reason: format!(
                "this Linux kernel does not provide Landlock ({e}); enforced roots need \
                 Linux 5.13 or later with Landlock enabled (the `lsm=` boot option)"
            ),
        };
    }
    match crate::sandbox::probe() {
        Ok(_) => Support::Available,
        Err(reason) => Support::Partial {
            reason,
            not_stopped: NOT_STOPPED_WITHOUT_SANDBOX.into(),
        },
    }
}

/// Applies `policy`'s Landlock ruleset, with the scopes that keep signals
/// and abstract Unix sockets inside the server's own processes, to the
/// calling thread and everything it starts later. Returns a note for the
/// server's log, or why it could not be applied. A kernel without Landlock
/// is an error, never a silent "not enforced".
pub(crate) fn restrict_self(policy: &Policy) -> Result<String, String> {
    let failed = |e: landlock::RulesetError| format!("could not enforce roots with Landlock: {e}");
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI_WANTED))
        .map_err(failed)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(failed)?
        .create()
        .map_err(failed)?
        .add_rules(path_beneath_rules(
            &policy.read_only,
            AccessFs::from_read(ABI_WANTED),
        ))
        .map_err(failed)?
        .add_rules(path_beneath_rules(
            &policy.read_write,
            AccessFs::from_all(ABI_WANTED),
        ))
        .map_err(failed)?
        .restrict_self()
        .map_err(failed)?;
    let folders = policy.read_write.len();
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(format!(
            "roots enforced with Landlock: read-write in {folders} folder(s), read-only in {} \
             place(s) the server needs to run; no signals or abstract sockets outside it",
            policy.read_only.len()
        )),
        RulesetStatus::PartiallyEnforced => Ok(format!(
            "roots enforced with Landlock, partially: this kernel's Landlock lacks some newer \
             rights (such as truncating files, or the scopes for signals and abstract \
             sockets), which stay unrestricted; read-write in {folders} folder(s)"
        )),
        RulesetStatus::NotEnforced => Err(
            "enforced roots were asked for, but this kernel does not enforce Landlock; the \
             server was not started"
                .into(),
        ),
    }
}

/// System places every program may need to read: programs, libraries,
/// the dynamic linker's cache, certificates, time zones, user and host
/// lookups, and `/proc` and parts of `/sys` that runtimes read about
/// themselves and the machine. Missing ones are skipped.
const SYSTEM_READ_ONLY: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/pki",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/mime.types",
    "/etc/alternatives",
    "/proc",
    "/sys/devices/system/cpu",
    "/sys/fs/cgroup",
    "/dev/urandom",
    "/dev/random",
    "/dev/zero",
];

/// Devices every program may write to.
const DEVICES_READ_WRITE: &[&str] = &["/dev/null", "/dev/full"];

/// The policy for `spec` with `roots` granted: the roots read-write, and
/// read-only what it takes to run the command (see [`runtime_paths`]); the
/// network as the person set it for the server, and bubblewrap where it
/// works. Refused in words when the working folder or a folder argument
/// would let the server read more than its folders and its own files.
pub fn policy_for(
    spec: &ServerSpec,
    roots: &[SharedRoot],
    path_env: Option<&OsStr>,
) -> Result<Policy, String> {
    // A root's URI was made from its real path and round-trips exactly (the
    // property tests hold `uri` to that), so the path comes back from it.
    let granted: Vec<PathBuf> = roots
        .iter()
        .filter_map(|r| rootgate_model::uri::uri_to_path(&r.uri).ok())
        .collect();
    let read_only = runtime_paths(spec, &granted, path_env)?;
    let mut read_write = granted;
    read_write.extend(DEVICES_READ_WRITE.iter().map(PathBuf::from));
    read_write.extend(package_manager_caches(spec));
    Ok(Policy {
        read_write,
        read_only,
        network: spec.allow_network,
        sandbox: crate::sandbox::probe().ok(),
        cwd: spec.cwd.clone(),
    })
}

/// What running `spec` needs to read: the system places, and for the
/// command and every argument that names an existing file, its "home": the
/// project holding its `node_modules`, the Python virtual environment
/// holding it (and the installation that environment was made from), or
/// the installation prefix above its `bin` folder; a shebang's interpreter
/// likewise.
///
/// The working folder and folder arguments are never added silently: one
/// inside a `granted` folder or the command's own files is fine (nothing
/// more to add), one that holds the program it runs (a project started
/// from its own folder) is that program's files; any other is refused in
/// words, and `/`, the home folder or a folder above it always is.
pub(crate) fn runtime_paths(
    spec: &ServerSpec,
    granted: &[PathBuf],
    path_env: Option<&OsStr>,
) -> Result<Vec<PathBuf>, String> {
    let mut out: BTreeSet<PathBuf> = SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect();
    let cwd = spec.cwd.clone();
    let mut programs: Vec<PathBuf> = Vec::new();
    if let Some(exe) = resolve_command(&spec.command, path_env, cwd.as_deref()) {
        if let Some(interpreter) = shebang_interpreter(&exe, path_env) {
            programs.push(interpreter);
        }
        programs.push(exe);
    }
    let mut folders: Vec<(&str, PathBuf)> = Vec::new();
    if let Some(cwd) = &cwd {
        folders.push(("working folder", cwd.clone()));
    }
    for arg in &spec.args {
        let path = Path::new(arg);
        let path = match &cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path.to_path_buf(),
        };
        if path.is_absolute() && path.is_dir() {
            folders.push(("argument", path));
        } else if path.is_absolute() && path.exists() {
            programs.push(path);
        }
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut own: BTreeSet<PathBuf> = BTreeSet::new();
    for program in &programs {
        for place in homes_of(program) {
            if !too_wide(&place, home.as_deref()) {
                own.insert(place);
            }
        }
    }
    for (what, folder) in folders {
        let real = folder.canonicalize().unwrap_or_else(|_| folder.clone());
        if too_wide(&real, home.as_deref()) {
            return Err(format!(
                "its {what} {} is the whole disk, the home folder or a folder above it, which \
                 a held server never reads; give it a folder of its own, or share what it \
                 needs with it",
                folder.display()
            ));
        }
        let within = |p: &PathBuf| real.starts_with(p) || folder.starts_with(p);
        if granted.iter().any(within) || own.iter().any(within) {
            continue;
        }
        if programs
            .iter()
            .any(|p| p.starts_with(&folder) || p.starts_with(&real))
        {
            own.insert(folder);
            continue;
        }
        return Err(format!(
            "its {what} {} is outside the folders shared with it and its own program's files, \
             and a held server reads nothing else; share that folder with it, or change its \
             command",
            folder.display()
        ));
    }
    out.extend(own);
    Ok(out.into_iter().collect())
}

/// Whether `place` is `/`, the home folder or a folder above it: never
/// given to a held server as a whole.
fn too_wide(place: &Path, home: Option<&Path>) -> bool {
    place == Path::new("/") || home.is_some_and(|h| h.starts_with(place))
}

/// `command` as the launcher's `execvp` will find it.
pub fn resolve_command(
    command: &str,
    path_env: Option<&OsStr>,
    cwd: Option<&Path>,
) -> Option<PathBuf> {
    let command = Path::new(command);
    if command.components().count() > 1 {
        let path = match cwd {
            Some(cwd) if command.is_relative() => cwd.join(command),
            _ => command.to_path_buf(),
        };
        return path.is_file().then_some(path);
    }
    std::env::split_paths(path_env?)
        .map(|dir| dir.join(command))
        .find(|p| p.is_file())
}

/// The interpreter named on a script's `#!` line (resolving `env NAME`).
fn shebang_interpreter(exe: &Path, path_env: Option<&OsStr>) -> Option<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(exe).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = &line[..line.iter().position(|b| *b == b'\n').unwrap_or(line.len())];
    let line = std::str::from_utf8(line).ok()?;
    let mut words = line.split_whitespace();
    let interpreter = PathBuf::from(words.next()?);
    if interpreter.file_name() == Some(OsStr::new("env")) {
        let name = words.find(|w| !w.starts_with('-'))?;
        return resolve_command(name, path_env, None);
    }
    Some(interpreter)
}

/// The folders a program needs besides itself, for both the path as given
/// and its real path (a venv's `python` is a link into the installation it
/// was made from).
fn homes_of(program: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let real = program.canonicalize().ok();
    for path in std::iter::once(program.to_path_buf()).chain(real) {
        out.push(path.clone());
        if let Some(home) = home_of(&path) {
            if let Some(base) = venv_base(&home) {
                out.push(base);
            }
            out.push(home);
        }
    }
    out
}

fn home_of(path: &Path) -> Option<PathBuf> {
    // The project around the outermost node_modules: packages need their
    // dependencies, which sit beside them.
    let ancestors: Vec<&Path> = path.ancestors().collect();
    if let Some(nm) = ancestors
        .iter()
        .rev()
        .find(|a| a.file_name() == Some(OsStr::new("node_modules")))
    {
        return nm.parent().map(Path::to_path_buf);
    }
    if let Some(venv) = ancestors.iter().find(|a| a.join("pyvenv.cfg").is_file()) {
        return Some(venv.to_path_buf());
    }
    // An installation prefix (`…/bin/node` → `…`), unless that would be a
    // person's whole home or the whole disk. `~/.local` is a prefix shared
    // with the person's own data (`~/.local/share` holds keyrings and
    // browsers' files): a program installed there gets its libraries only.
    let parent = path.parent()?;
    if parent.file_name() == Some(OsStr::new("bin")) {
        let prefix = parent.parent()?;
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if let Some(home) = &home
            && prefix == home.join(".local")
        {
            return Some(prefix.join("lib"));
        }
        if prefix != Path::new("/") && Some(prefix) != home.as_deref() {
            return Some(prefix.to_path_buf());
        }
    }
    None
}

/// The installation a Python virtual environment was made from: the
/// parent of `home` in its `pyvenv.cfg`.
fn venv_base(venv: &Path) -> Option<PathBuf> {
    let cfg = std::fs::read_to_string(venv.join("pyvenv.cfg")).ok()?;
    let home = cfg.lines().find_map(|l| {
        let (key, value) = l.split_once('=')?;
        (key.trim() == "home").then(|| PathBuf::from(value.trim()))
    })?;
    let base = if home.file_name() == Some(OsStr::new("bin")) {
        home.parent()?.to_path_buf()
    } else {
        home
    };
    (base != Path::new("/")).then_some(base)
}

/// What tells a package runner to use only its cache, for a held server
/// without the network: it cannot reach its registry, and `npx` would
/// otherwise retry for over a minute before it runs what it has (measured:
/// 71 s, against 0.7 s told). A package not in the cache then fails at
/// once, in the runner's words.
pub(crate) fn offline_env(command: &OsStr) -> &'static [(&'static str, &'static str)] {
    let name = Path::new(command)
        .file_name()
        .and_then(OsStr::to_str)
        .unwrap_or_default();
    match name {
        "npx" | "npm" => &[("npm_config_offline", "true")],
        "uvx" | "uv" => &[("UV_OFFLINE", "1")],
        _ => &[],
    }
}

/// Package runners keep what they download in a cache they must write to:
/// `npx` in `~/.npm`, `uvx` in `~/.cache/uv` and `~/.local/share/uv`.
/// Enforcement grants exactly those, and only to servers started by them.
fn package_manager_caches(spec: &ServerSpec) -> Vec<PathBuf> {
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return Vec::new();
    };
    let name = Path::new(&spec.command)
        .file_name()
        .and_then(OsStr::to_str)
        .unwrap_or_default();
    match name {
        "npx" | "npm" | "pnpm" | "yarn" => vec![home.join(".npm")],
        "uvx" | "uv" => vec![home.join(".cache/uv"), home.join(".local/share/uv")],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_model::ids::ServerId;
    use rootgate_model::servers::ServerDraft;

    fn spec(command: &str, args: &[&str]) -> ServerSpec {
        ServerDraft {
            name: "t".into(),
            command: command.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
        .validate(ServerId::generate(), [])
        .unwrap()
    }

    #[test]
    fn a_node_package_gets_its_project_and_nothing_above_it() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("proj");
        let script = project.join("node_modules/@scope/pkg/dist/index.js");
        std::fs::create_dir_all(script.parent().unwrap()).unwrap();
        std::fs::write(&script, "").unwrap();
        let ro = runtime_paths(&spec("node", &[script.to_str().unwrap()]), &[], None).unwrap();
        assert!(ro.contains(&project), "{ro:?}");
        assert!(!ro.contains(&dir.path().to_path_buf()), "{ro:?}");
    }

    #[test]
    fn a_venv_python_gets_the_venv_and_its_base_installation() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("base");
        std::fs::create_dir_all(base.join("bin")).unwrap();
        std::fs::write(base.join("bin/python3"), "").unwrap();
        let venv = dir.path().join("venv");
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::write(
            venv.join("pyvenv.cfg"),
            format!("home = {}\n", base.join("bin").display()),
        )
        .unwrap();
        std::os::unix::fs::symlink(base.join("bin/python3"), venv.join("bin/python")).unwrap();
        let ro = runtime_paths(
            &spec(venv.join("bin/python").to_str().unwrap(), &[]),
            &[],
            None,
        )
        .unwrap();
        assert!(ro.contains(&venv), "{ro:?}");
        assert!(ro.contains(&base), "{ro:?}");
    }

    #[test]
    fn a_program_in_home_bin_does_not_open_the_whole_home() {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap();
        let fake = home.join("bin/some-server");
        assert_eq!(home_of(&fake), None);
        assert_eq!(home_of(Path::new("/bin/sh")), None);
        // `~/.local` holds the person's data beside programs: only its
        // libraries come with a program installed there.
        assert_eq!(
            home_of(&home.join(".local/bin/uvx")),
            Some(home.join(".local/lib"))
        );
    }

    fn spec_in(cwd: Option<&Path>, command: &str, args: &[&str]) -> ServerSpec {
        ServerSpec {
            cwd: cwd.map(Path::to_path_buf),
            ..spec(command, args)
        }
    }

    #[test]
    fn the_whole_disk_or_the_home_folder_is_never_read_through_cwd_or_an_argument() {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap();
        let at_home = runtime_paths(&spec_in(Some(&home), "sh", &[]), &[], None).unwrap_err();
        assert!(at_home.contains("working folder"), "{at_home}");
        assert!(at_home.contains("home folder"), "{at_home}");
        let root = runtime_paths(&spec("sh", &["/"]), &[], None).unwrap_err();
        assert!(root.contains("argument /"), "{root}");
        // Even when the person shared it: a folder above the home is never
        // read through the command line.
        let above = home.parent().unwrap().to_path_buf();
        let shared = runtime_paths(&spec("sh", &[above.to_str().unwrap()]), &[above], None);
        assert!(shared.is_err(), "{shared:?}");
    }

    #[test]
    fn a_folder_outside_the_shared_ones_and_the_program_is_refused_in_words() {
        let dir = tempfile::tempdir().unwrap();
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        let why = runtime_paths(&spec_in(Some(&other), "sh", &[]), &[], None).unwrap_err();
        assert!(why.contains("outside the folders shared with it"), "{why}");
        let why = runtime_paths(&spec("sh", &[other.to_str().unwrap()]), &[], None).unwrap_err();
        assert!(
            why.contains(&format!("argument {}", other.display())),
            "{why}"
        );
        // Shared, it is fine, and adds nothing to what is read-only.
        let ro = runtime_paths(
            &spec_in(Some(&other), "sh", &[]),
            std::slice::from_ref(&other),
            None,
        )
        .unwrap();
        assert!(!ro.contains(&other), "{ro:?}");
    }

    #[test]
    fn a_project_started_from_its_own_folder_reads_that_folder() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("proj");
        std::fs::create_dir_all(project.join("dist")).unwrap();
        std::fs::write(project.join("dist/index.js"), "").unwrap();
        let ro = runtime_paths(
            &spec_in(Some(&project), "node", &["dist/index.js"]),
            &[],
            None,
        )
        .unwrap();
        assert!(ro.contains(&project), "{ro:?}");
    }

    #[test]
    fn package_runners_are_told_to_use_their_cache_and_nothing_else_is() {
        assert_eq!(
            offline_env(OsStr::new("/usr/bin/npx")),
            &[("npm_config_offline", "true")]
        );
        assert_eq!(offline_env(OsStr::new("uvx")), &[("UV_OFFLINE", "1")]);
        assert!(offline_env(OsStr::new("node")).is_empty());
    }

    #[test]
    fn roots_are_read_write_and_only_they_and_devices() {
        let s = spec("sh", &[]);
        let policy = policy_for(&s, &[], None).unwrap();
        assert_eq!(
            policy.read_write,
            DEVICES_READ_WRITE
                .iter()
                .map(PathBuf::from)
                .collect::<Vec<_>>()
        );
        assert!(!policy.read_only.iter().any(|p| p == Path::new("/")));
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap();
        assert!(!policy.read_only.contains(&home));
        assert!(!policy.read_only.contains(&PathBuf::from("/etc")));
    }
}
