//! The launcher: a small process that Rootgate starts in place of each
//! server, and that starts the server as its own child.
//!
//! It exists for two guarantees a plain `spawn` cannot give without
//! `unsafe` code between `fork` and `exec`:
//!
//! - **Nothing is left running.** The launcher is a child subreaper, so a
//!   server's descendants that daemonise (double fork, `setsid`) are
//!   re-parented to it rather than to init, and it ends them when the server
//!   exits. It also watches Rootgate itself through a pidfd: when Rootgate
//!   goes away, even by SIGKILL, the launcher ends the server and everything
//!   it started within the shutdown grace.
//! - **Enforced roots.** With enforcement asked for, the launcher starts
//!   the server held in a bubblewrap sandbox (see `sandbox`): bubblewrap
//!   runs this same program again inside (`--inside`), which applies the
//!   Landlock ruleset and its scopes (see `enforcement`) and then *becomes*
//!   the server (`exec`), so the server and all its descendants inherit
//!   both. The order is forced: a process under Landlock may not mount, so
//!   the ruleset can only be made once bubblewrap's mounts are done; and
//!   the watch on Rootgate and the subreaper stay outside, where they see
//!   every process of the sandbox (its PID namespace ends with it).
//!   Where bubblewrap cannot make its namespaces, the launcher applies the
//!   ruleset, the scopes and a seccomp filter itself before it starts the
//!   server, as before.
//!
//! Otherwise it is transparent: the server inherits its standard streams,
//! environment and working directory, and the launcher exits with the
//! server's own exit status (re-raising the signal that killed it), so
//! everything Rootgate shows about an exit is the server's.
//!
//! This module holds both sides: [`Request`], the command line Rootgate
//! builds, and [`run_if_requested`], the launcher's `main`. Every binary
//! that runs sessions calls [`run_if_requested`] first thing, so it can serve
//! as its own launcher; the workspace also builds a tiny `rootgate-launcher`
//! binary, which is preferred when it sits beside the program (it maps far
//! less than the desktop app). It deliberately knows nothing of MCP and never
//! reads or writes the server's streams.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, raise};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getpgrp, getpid, getppid};

use crate::{enforcement, sandbox};

/// The first argument that makes a program act as the launcher.
pub const FLAG: &str = "--rootgate-launcher";

/// The name of the small launcher binary the workspace builds.
pub(crate) const BINARY_NAME: &str = "rootgate-launcher";

/// The exit code of a launcher that could not start the server at all (the
/// server's own codes pass through unchanged). 125 is what `env`, `nice`
/// and `timeout` use for "the wrapper itself failed".
pub(crate) const LAUNCH_FAILED: u8 = 125;

static PROGRAM: OnceLock<Option<PathBuf>> = OnceLock::new();

/// Sets the launcher program for this process, if none was set or found
/// yet. Binaries that handle [`FLAG`] themselves pass their own path, to be
/// used when no `rootgate-launcher` sits beside them.
pub fn use_program_if_none_beside(fallback: PathBuf) {
    let _ = PROGRAM.set(find_beside_current_exe().or(Some(fallback)));
}

/// The launcher program servers are started through, if there is one.
/// Without one, servers are started directly, which loses the two
/// guarantees above (and enforcement refuses to start).
pub fn program() -> Option<&'static Path> {
    PROGRAM.get_or_init(find_beside_current_exe).as_deref()
}

/// `rootgate-launcher` in the current executable's folder or the one above
/// it (test binaries live in `target/debug/deps`, binaries in
/// `target/debug`).
fn find_beside_current_exe() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let dir = exe.parent()?;
    [Some(dir), dir.parent()]
        .into_iter()
        .flatten()
        .map(|d| d.join(BINARY_NAME))
        .find(|p| p.is_file())
}

/// What Rootgate asks one launcher to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Rootgate's process id: when it goes, the server goes.
    pub parent: u32,
    /// How long the server and its leftovers get between signals.
    pub grace: Duration,
    /// The Landlock ruleset to apply before starting the server, if any,
    /// and the sandbox to hold it in.
    pub enforce: Option<enforcement::Policy>,
    /// This launcher runs inside the sandbox: it applies the ruleset and
    /// becomes the server, and watches nothing (the launcher outside does).
    pub inside: bool,
    pub command: OsString,
    pub args: Vec<OsString>,
}

impl Request {
    /// The launcher's arguments (after the program), in the form
    /// [`Request::parse`] reads. Paths travel as arguments, never through a
    /// text encoding, so any file name survives.
    pub fn to_args(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec![
            FLAG.into(),
            "--parent".into(),
            self.parent.to_string().into(),
            "--grace-ms".into(),
            self.grace.as_millis().to_string().into(),
        ];
        if let Some(policy) = &self.enforce {
            out.push("--enforce".into());
            for p in &policy.read_write {
                out.push("--rw".into());
                out.push(p.clone().into_os_string());
            }
            for p in &policy.read_only {
                out.push("--ro".into());
                out.push(p.clone().into_os_string());
            }
            if policy.network {
                out.push("--net".into());
            }
            if let Some(bwrap) = &policy.sandbox {
                out.push("--bwrap".into());
                out.push(bwrap.clone().into_os_string());
            }
            if let Some(cwd) = &policy.cwd {
                out.push("--cwd".into());
                out.push(cwd.clone().into_os_string());
            }
        }
        if self.inside {
            out.push("--inside".into());
        }
        out.push("--".into());
        out.push(self.command.clone());
        out.extend(self.args.iter().cloned());
        out
    }

    /// Reads the arguments after [`FLAG`].
    pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Request, String> {
        let mut args = args.into_iter();
        let mut parent = None;
        let mut grace = Duration::from_secs(2);
        let mut enforce: Option<enforcement::Policy> = None;
        let mut command = None;
        let mut inside = false;
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
            match arg.to_str() {
                Some("--parent") => {
                    parent = Some(number(&value("--parent")?, "--parent")? as u32);
                }
                Some("--grace-ms") => {
                    grace = Duration::from_millis(number(&value("--grace-ms")?, "--grace-ms")?);
                }
                Some("--enforce") => {
                    enforce.get_or_insert_with(Default::default);
                }
                Some("--rw") => enforce
                    .get_or_insert_with(Default::default)
                    .read_write
                    .push(value("--rw")?.into()),
                Some("--ro") => enforce
                    .get_or_insert_with(Default::default)
                    .read_only
                    .push(value("--ro")?.into()),
                Some("--net") => enforce.get_or_insert_with(Default::default).network = true,
                Some("--bwrap") => {
                    enforce.get_or_insert_with(Default::default).sandbox =
                        Some(value("--bwrap")?.into());
                }
                Some("--cwd") => {
                    enforce.get_or_insert_with(Default::default).cwd = Some(value("--cwd")?.into());
                }
                Some("--inside") => inside = true,
                Some("--") => {
                    command = args.next();
                    break;
                }
                _ => return Err(format!("unexpected argument {arg:?}")),
            }
        }
        Ok(Request {
            // Inside the sandbox there is no parent to watch (the launcher
            // outside does that); 0 stands for none.
            parent: match (parent, inside) {
                (Some(parent), _) => parent,
                (None, true) => 0,
                (None, false) => return Err("--parent is required".into()),
            },
            grace,
            enforce,
            inside,
            command: command.ok_or("the command to run is missing after --")?,
            args: args.collect(),
        })
    }
}

fn number(value: &OsStr, name: &str) -> Result<u64, String> {
    value
        .to_str()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{name} needs a number, not {value:?}"))
}

/// Runs the launcher if `args` (the program's arguments without the program
/// name) start with [`FLAG`], and returns the exit code to end with.
pub fn run_if_requested(args: &[OsString]) -> Option<ExitCode> {
    if args.first().map(OsString::as_os_str) != Some(OsStr::new(FLAG)) {
        return None;
    }
    let request = match Request::parse(args.iter().skip(1).cloned()) {
        Ok(request) => request,
        Err(e) => {
            eprintln!("rootgate-launcher: {e}");
            return Some(ExitCode::from(LAUNCH_FAILED));
        }
    };
    Some(launch(request))
}

/// The launcher's whole life: restrict, start, watch, clean up, and end the
/// way the server ended.
fn launch(request: Request) -> ExitCode {
    let fail = |what: String| {
        eprintln!("rootgate-launcher: {what}");
        ExitCode::from(LAUNCH_FAILED)
    };
    if request.inside {
        return fail(become_held_server(&request));
    }
    let parent_fd = match watch_parent(request.parent) {
        Ok(fd) => fd,
        Err(e) => return fail(e),
    };
    // Orphaned descendants (daemons) come to us instead of to init.
    if let Err(e) = nix::sys::prctl::set_child_subreaper(true) {
        return fail(format!("cannot become the server's subreaper: {e}"));
    }
    let mut command = Command::new(&request.command);
    command.args(&request.args);
    if let Some(policy) = &request.enforce {
        let held = match &policy.sandbox {
            Some(bwrap) => held_command(&request, policy, bwrap),
            None => restrict_without_sandbox(policy).map(|()| command),
        };
        command = match held {
            Ok(command) => command,
            Err(e) => return fail(e),
        };
    }
    let server = match command.spawn() {
        Ok(child) => child,
        Err(e) => {
            return fail(format!(
                "could not start {:?}: {e}",
                request.command.to_string_lossy()
            ));
        }
    };
    let server_pid = Pid::from_raw(server.id() as i32);
    // The server holds its own ends of the pipes; ours would keep Rootgate
    // from seeing the server close its output, so they become /dev/null.
    if let Ok(null) = std::fs::File::options()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = nix::unistd::dup2_stdin(&null);
        let _ = nix::unistd::dup2_stdout(&null);
    }
    // `std::process::Child` is not used to wait: the loop below reaps every
    // child, the server included, with waitpid.
    drop(server);

    let orphaned = end_with_parent(parent_fd, request.grace);
    let status = wait_for(server_pid);
    // The server is gone; whatever it started goes too.
    clear_descendants(request.grace);
    if orphaned.load(Ordering::SeqCst) {
        eprintln!("rootgate-launcher: Rootgate exited, so the server was ended");
    }
    exit_like(status)
}

/// A handle on Rootgate's process (`parent`) that stays valid if its pid
/// is reused later; refused when Rootgate is already gone, since nobody
/// then wants the server.
fn watch_parent(parent: u32) -> Result<rustix::fd::OwnedFd, String> {
    if getppid() != Pid::from_raw(parent as i32) {
        return Err("Rootgate exited before the server could start".into());
    }
    rustix::process::Pid::from_raw(parent as i32)
        .ok_or_else(|| std::io::Error::other("pid 0"))
        .and_then(|pid| {
            rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty())
                .map_err(std::io::Error::from)
        })
        .map_err(|e| format!("cannot watch Rootgate's process: {e}"))
}

/// Ends the server and everything it started (after `grace`) when
/// Rootgate's process (`parent_fd`) ends; the flag says it did.
fn end_with_parent(
    parent_fd: rustix::fd::OwnedFd,
    grace: std::time::Duration,
) -> std::sync::Arc<AtomicBool> {
    let orphaned = std::sync::Arc::new(AtomicBool::new(false));
    let flag = std::sync::Arc::clone(&orphaned);
    std::thread::spawn(move || {
        let mut fds = [rustix::event::PollFd::new(
            &parent_fd,
            rustix::event::PollFlags::IN,
        )];
        // Blocks until Rootgate exits (the pidfd becomes readable); an
        // interrupted poll is simply retried.
        while !matches!(rustix::event::poll(&mut fds, None), Ok(n) if n > 0) {}
        flag.store(true, Ordering::SeqCst);
        end_everything(grace);
    });
    orphaned
}

/// The command that starts the server held: bubblewrap, running this
/// program inside the sandbox with `--inside`.
fn held_command(
    request: &Request,
    policy: &enforcement::Policy,
    bwrap: &Path,
) -> Result<Command, String> {
    let me = std::env::current_exe()
        .map_err(|e| format!("cannot find the launcher's own program to hold the server: {e}"))?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let inside = Request {
        parent: 0,
        grace: request.grace,
        enforce: Some(enforcement::Policy {
            sandbox: None,
            ..policy.clone()
        }),
        inside: true,
        command: request.command.clone(),
        args: request.args.clone(),
    };
    let mut command = Command::new(bwrap);
    if !policy.network {
        command.envs(enforcement::offline_env(&request.command).iter().copied());
    }
    command
        .args(sandbox::bwrap_args(policy, &me, home.as_deref()))
        .arg("--")
        .arg(&me)
        .args(inside.to_args());
    eprintln!(
        "rootgate-launcher: held in a bubblewrap sandbox: its folders, its own files and the \
         system's programs, {}",
        if policy.network {
            "with the network"
        } else {
            "without the network"
        }
    );
    Ok(command)
}

/// Inside the sandbox: applies the Landlock ruleset and its scopes, then
/// becomes the server. Returns only if that failed, saying why.
fn become_held_server(request: &Request) -> String {
    use std::os::unix::process::CommandExt;
    let Some(policy) = &request.enforce else {
        return "a held server needs its ruleset".into();
    };
    match enforcement::restrict_self(policy) {
        Ok(note) => eprintln!("rootgate-launcher: {note}"),
        Err(e) => return e,
    }
    let e = Command::new(&request.command).args(&request.args).exec();
    format!(
        "could not start {:?}: {e}",
        request.command.to_string_lossy()
    )
}

/// Where bubblewrap cannot hold the server: the Landlock ruleset with its
/// scopes, and a seccomp filter, on the launcher itself before it starts
/// the server, which inherits both. Not called held.
fn restrict_without_sandbox(policy: &enforcement::Policy) -> Result<(), String> {
    let note = enforcement::restrict_self(policy)?;
    eprintln!("rootgate-launcher: {note}");
    crate::seccomp::refuse_unix_sockets()?;
    eprintln!(
        "rootgate-launcher: not held in a sandbox (bubblewrap cannot make its namespaces \
         here): {}",
        enforcement::NOT_STOPPED_WITHOUT_SANDBOX
    );
    Ok(())
}

/// Reaps children until the server itself exits, and returns how it ended.
/// Other children (re-parented orphans) that exit meanwhile are reaped and
/// forgotten.
fn wait_for(server: Pid) -> ExitStatus {
    loop {
        match waitpid(None, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == server => {
                return ExitStatus::from_raw((code & 0xff) << 8);
            }
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == server => {
                return ExitStatus::from_raw(signal as i32);
            }
            Ok(_) | Err(Errno::EINTR) => {}
            // No children at all: the server was reaped already, which
            // cannot happen here; report it as a plain failure.
            Err(_) => return ExitStatus::from_raw(1 << 8),
        }
    }
}

/// Rootgate went away: do what its shutdown would have done. The server's
/// input has already closed (Rootgate held the other end), so most servers
/// are on their way out; the rest get SIGTERM, then SIGKILL.
fn end_everything(grace: Duration) {
    if wait_until_no_descendants(grace) {
        return;
    }
    signal_descendants(Signal::SIGTERM);
    if wait_until_no_descendants(grace) {
        return;
    }
    signal_descendants(Signal::SIGKILL);
}

/// Ends the descendants left after the server exited: SIGTERM, a grace,
/// SIGKILL, repeated until none is left, since ending one may re-parent its
/// own children to us.
fn clear_descendants(grace: Duration) {
    for _ in 0..16 {
        reap_exited();
        if descendants().is_empty() {
            return;
        }
        signal_descendants(Signal::SIGTERM);
        if wait_until_no_descendants(grace) {
            return;
        }
        signal_descendants(Signal::SIGKILL);
        wait_until_no_descendants(grace);
    }
}

fn signal_descendants(signal: Signal) {
    for pid in descendants() {
        let _ = kill(pid, signal);
    }
}

/// Waits up to `grace` for every descendant to exit, reaping as it goes.
/// Returns whether none is left. This polls in small steps: there is no
/// event for "a set of processes ended", and it runs only while ending.
fn wait_until_no_descendants(grace: Duration) -> bool {
    let deadline = Instant::now() + grace;
    loop {
        reap_exited();
        if descendants().is_empty() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn reap_exited() {
    while let Ok(status) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
        if status == WaitStatus::StillAlive {
            break;
        }
    }
}

/// Every live process that descends from the launcher: its children (the
/// server, and orphans re-parented to it), their children, and so on, plus
/// any member of the launcher's process group. Read from `/proc`.
fn descendants() -> Vec<Pid> {
    let me = getpid().as_raw();
    let group = getpgrp().as_raw();
    let procs = crate::procs::proc_table();
    let mut found: Vec<i32> = Vec::new();
    let mut frontier = vec![me];
    while let Some(parent) = frontier.pop() {
        for p in procs.iter().filter(|p| p.ppid == parent && !p.zombie) {
            if !found.contains(&p.pid) {
                found.push(p.pid);
                frontier.push(p.pid);
            }
        }
    }
    for p in procs
        .iter()
        .filter(|p| p.pgid == group && p.pid != me && !p.zombie)
    {
        if !found.contains(&p.pid) {
            found.push(p.pid);
        }
    }
    found.into_iter().map(Pid::from_raw).collect()
}

/// Ends the launcher the way the server ended: the same exit code, or the
/// same signal.
fn exit_like(status: ExitStatus) -> ExitCode {
    if let Some(code) = status.code() {
        return ExitCode::from((code & 0xff) as u8);
    }
    if let Some(signal) = status.signal().and_then(|s| Signal::try_from(s).ok()) {
        // The launcher never changes signal dispositions, so the default
        // action (termination) applies; if it somehow returns, fall back to
        // the shell's convention.
        let _ = raise(signal);
        return ExitCode::from(128u8.wrapping_add(signal as u8));
    }
    ExitCode::FAILURE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_survives_its_own_command_line() {
        let request = Request {
            parent: 42,
            grace: Duration::from_millis(1500),
            enforce: Some(enforcement::Policy {
                read_write: vec!["/tmp/a b".into(), "/tmp/--".into()],
                read_only: vec!["/usr".into()],
                network: true,
                sandbox: Some("/usr/bin/bwrap".into()),
                cwd: Some("/tmp/a b".into()),
            }),
            inside: false,
            command: "node".into(),
            args: vec!["--".into(), "--rw".into(), "x".into()],
        };
        let args = request.to_args();
        assert_eq!(args[0], FLAG);
        assert_eq!(Request::parse(args.into_iter().skip(1)), Ok(request));
    }

    #[test]
    fn without_enforcement_no_policy_is_read() {
        let request = Request {
            parent: 1,
            grace: Duration::from_secs(2),
            enforce: None,
            inside: false,
            command: "cat".into(),
            args: vec![],
        };
        let parsed = Request::parse(request.to_args().into_iter().skip(1)).unwrap();
        assert_eq!(parsed.enforce, None);
    }

    #[test]
    fn bad_arguments_are_named() {
        let err = Request::parse(["--parent".into(), "x".into()]).unwrap_err();
        assert!(err.contains("--parent needs a number"), "{err}");
        let err = Request::parse(["--parent".into(), "7".into()]).unwrap_err();
        assert!(err.contains("command to run is missing"), "{err}");
    }
}
