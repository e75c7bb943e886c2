//! Enforced roots on Linux: the Landlock ruleset a server runs under when
//! the person turns "enforce roots" on for it.
//!
//! Roots are advice: a server is told which folders it may use and trusted
//! to keep to them. With enforcement, the kernel keeps it to them. The
//! server may read and write inside the folders granted to it, may read
//! (and execute) only what it needs to run (the system's programs and
//! libraries, its own executable, interpreter and package folder, a few
//! configuration files), and nothing else: not the person's home, not other
//! folders, not other servers' folders.
//!
//! This module decides that ruleset ([`policy_for`]), tells whether the
//! running kernel can enforce it ([`support`]), and applies it to the
//! calling process ([`restrict_self`], used only by the launcher, just
//! before it starts the server). It does not start processes, and it does
//! not restrict the network (roots are about folders).

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetStatus, path_beneath_rules,
};
use serde::Serialize;

use rootgate_model::consent::SharedRoot;
use rootgate_model::servers::ServerSpec;

/// The newest Landlock ABI whose rights Rootgate asks for; on an older
/// kernel the crate's best-effort mode drops the rights the kernel does not
/// know, and the launcher says so.
const ABI_WANTED: ABI = ABI::V6;

/// What a server may touch under enforcement.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// The granted folders: read, write, create, delete, execute.
    pub read_write: Vec<PathBuf>,
    /// What the server needs to run: read and execute only.
    pub read_only: Vec<PathBuf>,
}

/// Whether this machine can enforce roots.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Support {
    /// Landlock is available.
    Available,
    /// It is not; `reason` says why, in words for the person.
    Unavailable { reason: String },
}

/// Asks the kernel whether Landlock works here, by creating (and dropping)
/// a ruleset that must be fully supported. Nothing is restricted.
pub fn support() -> Support {
    let created = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(ABI::V1))
        .and_then(|r| r.create());
    match created {
        Ok(_) => Support::Available,
        Err(e) => Support::Unavailable {
            reason: format!(
                "this Linux kernel does not provide Landlock ({e}); enforced roots need \
                 Linux 5.13 or later with Landlock enabled (the `lsm=` boot option)"
            ),
        },
    }
}

/// Applies `policy` to the calling thread and everything it starts later.
/// Returns a note for the server's log, or why it could not be applied.
/// A kernel without Landlock is an error, never a silent "not enforced".
pub fn restrict_self(policy: &Policy) -> Result<String, String> {
    let failed = |e: landlock::RulesetError| format!("could not enforce roots with Landlock: {e}");
    let status = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI_WANTED))
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
             place(s) the server needs to run",
            policy.read_only.len()
        )),
        RulesetStatus::PartiallyEnforced => Ok(format!(
            "roots enforced with Landlock, partially: this kernel's Landlock lacks some newer \
             rights (such as truncating files), which stay unrestricted; read-write in \
             {folders} folder(s)"
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

/// The ruleset for `spec` with `roots` granted: the roots read-write, and
/// read-only what it takes to run the command (see [`runtime_paths`]).
pub fn policy_for(spec: &ServerSpec, roots: &[SharedRoot], path_env: Option<&OsStr>) -> Policy {
    // A root's URI was made from its real path and round-trips exactly (the
    // property tests hold `uri` to that), so the path comes back from it.
    let mut read_write: Vec<PathBuf> = roots
        .iter()
        .filter_map(|r| rootgate_model::uri::uri_to_path(&r.uri).ok())
        .collect();
    read_write.extend(DEVICES_READ_WRITE.iter().map(PathBuf::from));
    read_write.extend(package_manager_caches(spec));
    Policy {
        read_write,
        read_only: runtime_paths(spec, path_env),
    }
}

/// What running `spec` needs to read: the system places, the working
/// folder, and for the command and every argument that names an existing
/// file, its "home": the project holding its `node_modules`, the Python
/// virtual environment holding it (and the installation that environment
/// was made from), or the installation prefix above its `bin` folder;
/// a shebang's interpreter likewise.
pub fn runtime_paths(spec: &ServerSpec, path_env: Option<&OsStr>) -> Vec<PathBuf> {
    let mut out: BTreeSet<PathBuf> = SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect();
    let cwd = spec.cwd.clone();
    if let Some(cwd) = &cwd {
        out.insert(cwd.clone());
    }
    let mut programs: Vec<PathBuf> = Vec::new();
    if let Some(exe) = resolve_command(&spec.command, path_env, cwd.as_deref()) {
        if let Some(interpreter) = shebang_interpreter(&exe, path_env) {
            programs.push(interpreter);
        }
        programs.push(exe);
    }
    for arg in &spec.args {
        let path = Path::new(arg);
        let path = match &cwd {
            Some(cwd) if path.is_relative() => cwd.join(path),
            _ => path.to_path_buf(),
        };
        if path.is_absolute() && path.exists() {
            programs.push(path);
        }
    }
    for program in programs {
        for home in homes_of(&program) {
            out.insert(home);
        }
    }
    out.into_iter().collect()
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
    // person's whole home or the whole disk.
    let parent = path.parent()?;
    if parent.file_name() == Some(OsStr::new("bin")) {
        let prefix = parent.parent()?;
        let home = std::env::var_os("HOME").map(PathBuf::from);
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
        let ro = runtime_paths(&spec("node", &[script.to_str().unwrap()]), None);
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
        let ro = runtime_paths(&spec(venv.join("bin/python").to_str().unwrap(), &[]), None);
        assert!(ro.contains(&venv), "{ro:?}");
        assert!(ro.contains(&base), "{ro:?}");
    }

    #[test]
    fn a_program_in_home_bin_does_not_open_the_whole_home() {
        let home = std::env::var_os("HOME").map(PathBuf::from).unwrap();
        let fake = home.join("bin/some-server");
        assert_eq!(home_of(&fake), None);
        assert_eq!(home_of(Path::new("/bin/sh")), None);
    }

    #[test]
    fn roots_are_read_write_and_only_they_and_devices() {
        let s = spec("sh", &[]);
        let policy = policy_for(&s, &[], None);
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
