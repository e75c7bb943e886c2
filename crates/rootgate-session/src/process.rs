//! A server's process: spawned in its own process group with a small,
//! explicit environment, and ended the way the MCP stdio transport asks
//! (close stdin, wait, SIGTERM, wait, SIGKILL), applied to the whole group so
//! that `npx` and the `node` it starts end together.
//!
//! This module owns no protocol and no policy: it starts a command, reports
//! its exit, and ends it. Deciding when to stop is the session actor's job.

use std::collections::BTreeMap;
use std::io;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use thiserror::Error;
use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::sync::oneshot;

use rootgate_launcher::enforcement;
use rootgate_launcher::launcher;
use rootgate_launcher::procs::{describe, live_members};
use rootgate_model::secrets::SecretValues;
use rootgate_model::servers::ServerSpec;

/// Why a server could not be started.
#[derive(Debug, Error)]
pub enum SpawnError {
    #[error(
        "could not start `{command_line}`: the command was not found (is it installed and on PATH?)"
    )]
    NotFound { command_line: String },
    /// A command given by its path (`/opt/x/server`, `./run.sh`) that is not
    /// there: PATH has nothing to do with it.
    #[error("could not start `{command_line}`: there is no file at {path}")]
    NoSuchFile { command_line: String, path: String },
    #[error("could not start `{command_line}`: permission denied (is the file executable?)")]
    PermissionDenied { command_line: String },
    #[error("could not start `{command_line}` in \"{cwd}\": the working directory does not exist")]
    MissingCwd { command_line: String, cwd: String },
    #[error(
        "could not start `{command_line}` with enforced roots: Rootgate's launcher \
         (rootgate-launcher) is missing beside the app"
    )]
    NoLauncher { command_line: String },
    #[error("could not start `{command_line}`: {source}")]
    Other {
        command_line: String,
        #[source]
        source: io::Error,
    },
}

/// A running server process and its pipes.
pub struct Spawned {
    pub pid: u32,
    pub stdin: ChildStdin,
    pub stdout: DrainOnDrop,
    pub stderr: ChildStderr,
    pub exit: ExitWatch,
}

/// A server's stdout that is still read, and thrown away, after Rootgate
/// stops reading it. The session drops its reader when it closes the
/// server's stdin; a server that writes while it shuts down (the rest of a
/// burst, a last notification) would otherwise fail on a closed pipe and
/// exit with an error it never had. The drain ends when every process
/// holding the pipe's other end has exited, which the shutdown sequence
/// ensures, and reads into a small buffer, so it holds no memory of its own.
pub struct DrainOnDrop(Option<ChildStdout>);

impl tokio::io::AsyncRead for DrainOnDrop {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        match self.0.as_mut() {
            Some(stdout) => std::pin::Pin::new(stdout).poll_read(cx, buf),
            // Only `Drop` takes the pipe, so this is never read again.
            None => std::task::Poll::Ready(Ok(())),
        }
    }
}

impl Drop for DrainOnDrop {
    fn drop(&mut self) {
        if let (Some(mut stdout), Ok(runtime)) =
            (self.0.take(), tokio::runtime::Handle::try_current())
        {
            runtime.spawn(async move {
                let _ = tokio::io::copy(&mut stdout, &mut tokio::io::sink()).await;
            });
        }
    }
}

/// Resolves when the process exits; owns the child so nothing else can reap
/// it, and keeps its process group id for signals.
pub struct ExitWatch {
    pgid: Pid,
    /// The group's leader is our launcher, which must outlive the server
    /// to clear what the server leaves: shutdown signals go to the other
    /// members, and the launcher follows the server out by itself.
    leader_is_launcher: bool,
    rx: oneshot::Receiver<io::Result<ExitStatus>>,
    status: Option<Result<ExitStatus, String>>,
}

/// What the app gave the process that starts its server, when that
/// process is not the one the app started: a connection the resident gate
/// serves for a door. The server is started as the app's own child would
/// be: with the app's few inherited variables and in its working folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StartedBy {
    /// The variables of the door's `INHERITED_ENV` the app gave the door.
    pub env: BTreeMap<String, String>,
    /// Where the app started the door.
    pub working_folder: Option<std::path::PathBuf>,
}

/// How to start a server beyond its spec.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// Passed to the launcher, which uses it for the server's leftovers.
    pub grace: Duration,
    /// The Landlock ruleset to start the server under, if its roots are
    /// enforced.
    pub enforce: Option<enforcement::Policy>,
    /// The values of its secrets kept outside the spec (the keyring, or
    /// memory), read for this start; its `Debug` shows only their names.
    pub secrets: SecretValues,
    /// The app's variables and working folder, for a connection the gate
    /// serves; `None`: this process's own.
    pub started_by: Option<StartedBy>,
}

/// Starts the server described by `spec`: through the launcher when there
/// is one (see `launcher`), directly otherwise. Enforcement needs the
/// launcher and fails without it rather than starting unrestricted.
pub fn spawn(spec: &ServerSpec, launch: &Launch) -> Result<Spawned, SpawnError> {
    let env = server_env(spec, launch);
    // A secret lifted out of an argument (`${ARG_API_KEY}`) is given back
    // to the process only, here.
    let args = rootgate_model::servers::fill_arg_secrets(
        &spec.args,
        |n| spec.secrets.contains_key(n),
        &env,
    );
    let launcher = launcher::program();
    let mut cmd = command(spec, launch, launcher, &args, &env)?;
    cmd.env_clear()
        .envs(&env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group: signals reach `npx` and its `node` together, and a
        // Ctrl-C in Rootgate's terminal does not reach servers directly.
        .process_group(0)
        .kill_on_drop(false);
    // A server with no working folder of its own starts where the app
    // started its connection: this process's own, or the door's.
    let working = launch
        .started_by
        .as_ref()
        .and_then(|s| s.working_folder.as_ref());
    if let (None, Some(working)) = (&spec.cwd, working) {
        cmd.current_dir(working);
    }
    if let Some(cwd) = &spec.cwd {
        if !cwd.is_dir() {
            return Err(SpawnError::MissingCwd {
                command_line: spec.masked_command_line(),
                cwd: cwd.display().to_string(),
            });
        }
        cmd.current_dir(cwd);
    }
    let mut child = cmd.spawn().map_err(|source| spawn_error(spec, source))?;
    let missing = |what: &str| SpawnError::Other {
        command_line: spec.masked_command_line(),
        source: io::Error::other(format!("the child's {what} pipe was not set up")),
    };
    let pid = child.id().ok_or_else(|| missing("process id"))?;
    let stdin = child.stdin.take().ok_or_else(|| missing("stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| missing("stdout"))?;
    let stderr = child.stderr.take().ok_or_else(|| missing("stderr"))?;
    let (tx, rx) = oneshot::channel();
    tokio::spawn(async move {
        let _ = tx.send(child.wait().await);
    });
    Ok(Spawned {
        pid,
        stdin,
        stdout: DrainOnDrop(Some(stdout)),
        stderr,
        exit: ExitWatch {
            pgid: Pid::from_raw(pid as i32),
            leader_is_launcher: launcher.is_some(),
            rx,
            status: None,
        },
    })
}

/// What runs: the launcher with the request to start `spec` (and hold it,
/// when enforced), or the server's own program when there is no launcher
/// and nothing to enforce.
fn command(
    spec: &ServerSpec,
    launch: &Launch,
    launcher: Option<&std::path::Path>,
    args: &[String],
    env: &BTreeMap<String, String>,
) -> Result<Command, SpawnError> {
    match launcher {
        Some(program) => {
            // The launcher's own spawn would fail for a missing command
            // too, but only as an exit code; checking here gives the same
            // clear error a direct start gives.
            check_command(spec, env)?;
            let request = launcher::Request {
                parent: std::process::id(),
                grace: launch.grace,
                enforce: launch.enforce.clone(),
                inside: false,
                command: spec.command.clone().into(),
                args: args.iter().map(Into::into).collect(),
            };
            let mut cmd = Command::new(program);
            cmd.args(request.to_args());
            Ok(cmd)
        }
        None if launch.enforce.is_some() => Err(SpawnError::NoLauncher {
            command_line: spec.masked_command_line(),
        }),
        None => {
            let mut cmd = Command::new(&spec.command);
            cmd.args(args);
            Ok(cmd)
        }
    }
}

/// Why the program of `spec` could not be started, in words.
fn spawn_error(spec: &ServerSpec, source: io::Error) -> SpawnError {
    let command_line = spec.masked_command_line();
    match source.kind() {
        io::ErrorKind::NotFound => not_found(&spec.command, command_line),
        io::ErrorKind::PermissionDenied => SpawnError::PermissionDenied { command_line },
        _ => SpawnError::Other {
            command_line,
            source,
        },
    }
}

/// The environment a server gets: the inherited few, then its own, with
/// the values of its secrets kept outside the spec filled in.
fn server_env(spec: &ServerSpec, launch: &Launch) -> BTreeMap<String, String> {
    let secrets = &launch.secrets;
    let mut env = match &launch.started_by {
        Some(started_by) => started_by.env.clone(),
        None => inherited_env(),
    };
    env.extend(spec.env.iter().map(|(k, v)| (k.clone(), v.clone())));
    env.extend(secrets.0.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

/// A command that is not there: by its path, or not found on PATH.
fn not_found(command: &str, command_line: String) -> SpawnError {
    if command.contains('/') {
        SpawnError::NoSuchFile {
            command_line,
            path: command.to_owned(),
        }
    } else {
        SpawnError::NotFound { command_line }
    }
}

/// Finds the command the way `execvp` will, and says what a direct start
/// would have said if it cannot be run.
fn check_command(spec: &ServerSpec, env: &BTreeMap<String, String>) -> Result<(), SpawnError> {
    use std::os::unix::fs::PermissionsExt;
    let path_env = env.get("PATH").map(std::ffi::OsStr::new);
    let command_line = spec.masked_command_line();
    let Some(found) = enforcement::resolve_command(&spec.command, path_env, spec.cwd.as_deref())
    else {
        return Err(not_found(&spec.command, command_line));
    };
    match std::fs::metadata(&found) {
        Ok(meta) if meta.permissions().mode() & 0o111 != 0 => Ok(()),
        _ => Err(SpawnError::PermissionDenied { command_line }),
    }
}

/// The size of a new pipe on Linux, and the most an unprivileged process
/// may ask for by default (`/proc/sys/fs/pipe-max-size`).
const DEFAULT_PIPE_BYTES: usize = 64 * 1024;
const MAX_PIPE_BYTES: usize = 1024 * 1024;

/// Makes the pipe to a server's stdin large enough for an answer of
/// `answer_bytes` (up to 1 MiB), so that answer is written at once instead
/// of in 64 KiB pieces, each waiting until the server has read the one
/// before (10,000 roots are about 0.9 MB: fifteen waits). Returns the new
/// size, or `None` when the default is large enough or the kernel refused.
///
/// Only a server with a large list gets a larger pipe: the kernel counts
/// every pipe's size against a per-user limit (`pipe-user-pages-soft`,
/// 64 MiB), and past it gives every new pipe of that user, in any program,
/// just two pages. A refusal leaves the default, which works, only slower
/// for large answers, so it is not an error.
pub(crate) fn fit_stdin_pipe(stdin: &ChildStdin, answer_bytes: usize) -> Option<usize> {
    if answer_bytes <= DEFAULT_PIPE_BYTES {
        return None;
    }
    #[cfg(target_os = "linux")]
    {
        use nix::fcntl::{FcntlArg, fcntl};
        let want = answer_bytes.next_power_of_two().min(MAX_PIPE_BYTES);
        let want = i32::try_from(want).ok()?;
        match fcntl(stdin, FcntlArg::F_SETPIPE_SZ(want)) {
            Ok(size) => usize::try_from(size).ok(),
            Err(e) => {
                tracing::debug!(error = %e, "the stdin pipe keeps its default size");
                None
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = stdin;
        None
    }
}

/// Makes the pipe a server writes its output to `bytes` large (at most
/// 1 MiB), for a bridge, whose server's results can be large: a 1 MiB
/// result then crosses in a few pieces instead of sixteen, each a wake-up
/// of both sides. Returns the new size, or `None` when the kernel refused
/// (the default then works, only slower for large results). The per-user
/// limit of `fit_stdin_pipe` applies, so the size stays small.
pub(crate) fn grow_stdout_pipe(stdout: &DrainOnDrop, bytes: usize) -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        use nix::fcntl::{FcntlArg, fcntl};
        let pipe = stdout.0.as_ref()?;
        let want = i32::try_from(bytes.min(MAX_PIPE_BYTES)).ok()?;
        match fcntl(pipe, FcntlArg::F_SETPIPE_SZ(want)) {
            Ok(size) => usize::try_from(size).ok(),
            Err(e) => {
                tracing::debug!(error = %e, "the stdout pipe keeps its default size");
                None
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (stdout, bytes);
        None
    }
}

// Variables passed from Rootgate's own environment to every server; the
// official SDKs' default set plus the locale. Everything else a server
// needs is in its spec: Rootgate's environment may hold secrets that no
// server was meant to see, and some variables (`NODE_EXTRA_CA_CERTS`) slow
// every start. The list is the door's, which sends the app's to the gate.
pub use rootgate_door::hello::inherited_env;

impl ExitWatch {
    pub fn pgid(&self) -> i32 {
        self.pgid.as_raw()
    }

    /// Waits for the process to exit and returns its status in words.
    /// Calling it again after the exit returns the same status.
    pub async fn exited(&mut self) -> Result<ExitStatus, String> {
        if let Some(status) = &self.status {
            return status.clone();
        }
        let status = match (&mut self.rx).await {
            Ok(Ok(status)) => Ok(status),
            Ok(Err(e)) => Err(format!("could not wait for the process: {e}")),
            Err(_) => Err("the process watcher ended early".to_owned()),
        };
        self.status = Some(status.clone());
        status
    }

    /// True once the process has exited and its status was collected.
    pub(crate) fn has_exited(&self) -> bool {
        self.status.is_some()
    }

    async fn exited_within(&mut self, wait: Duration) -> Option<Result<ExitStatus, String>> {
        tokio::time::timeout(wait, self.exited()).await.ok()
    }

    /// Signals the whole group, or, under the launcher, every member but
    /// the launcher (which exits once the server has, after clearing its
    /// leftovers; see `launcher`).
    fn signal_group(&self, signal: Signal) -> bool {
        if self.leader_is_launcher && !self.has_exited() {
            let members = live_members(self.pgid.as_raw());
            for pid in members.iter().filter(|p| **p != self.pgid.as_raw()) {
                let _ = nix::sys::signal::kill(Pid::from_raw(*pid), signal);
            }
            return !members.is_empty();
        }
        // ESRCH means the group is already empty, which is what we want.
        killpg(self.pgid, signal).is_ok()
    }

    /// True while any process of the group is still running. A member that
    /// has exited but not yet been reaped by its new parent (a zombie)
    /// holds no resources and cannot be signalled away, so it does not
    /// count.
    fn group_alive(&self) -> bool {
        killpg(self.pgid, None).is_ok() && !live_members(self.pgid.as_raw()).is_empty()
    }

    /// Ends the process as the stdio transport asks: `close_stdin` (which
    /// must close the server's stdin), wait `grace`, SIGTERM to the group,
    /// wait `grace`, SIGKILL to the group. Then clears what is left of the
    /// group (children the server left behind). Returns how it ended, in
    /// words, and which step ended it.
    pub(crate) async fn shut_down(
        &mut self,
        close_stdin: impl std::future::Future<Output = ()>,
        grace: Duration,
    ) -> Ended {
        let mut step = Step::AlreadyExited;
        if !self.has_exited() {
            close_stdin.await;
            step = Step::StdinClosed;
            if self.exited_within(grace).await.is_none() {
                step = Step::Terminated;
                self.signal_group(Signal::SIGTERM);
                if self.exited_within(grace).await.is_none() {
                    step = Step::Killed;
                    self.signal_group(Signal::SIGKILL);
                    if self.leader_is_launcher && self.exited_within(grace).await.is_none() {
                        // The launcher itself did not follow: end it too.
                        let _ = killpg(self.pgid, Signal::SIGKILL);
                    }
                }
            }
        }
        let status = self.exited().await;
        self.clear_group(grace).await;
        Ended {
            status: match status {
                Ok(s) => describe(&s),
                Err(e) => e,
            },
            step,
        }
    }

    /// Ends whatever is left of the process group after its leader exited:
    /// SIGTERM, a short wait, SIGKILL. Servers that start helpers (`npx`
    /// starting `node`) must not leave them running.
    pub(crate) async fn clear_group(&self, grace: Duration) {
        if !self.group_alive() {
            return;
        }
        self.signal_group(Signal::SIGTERM);
        // A bounded wait at shutdown only, in small steps: there is no event
        // for "a process group became empty".
        let deadline = tokio::time::Instant::now() + grace;
        while self.group_alive() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if self.group_alive() {
            self.signal_group(Signal::SIGKILL);
        }
    }
}

/// The step of the shutdown sequence that ended the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    AlreadyExited,
    StdinClosed,
    Terminated,
    Killed,
}

/// How a process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    pub status: String,
    pub step: Step,
}

impl Ended {
    /// The status with the step that ended it, for the timeline.
    pub fn describe(&self) -> String {
        match self.step {
            Step::AlreadyExited | Step::StdinClosed => self.status.clone(),
            Step::Terminated => format!(
                "{} (did not exit when its input closed; sent SIGTERM)",
                self.status
            ),
            Step::Killed => format!("{} (ignored SIGTERM; sent SIGKILL)", self.status),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rootgate_door::hello::INHERITED_ENV;
    use rootgate_model::ids::ServerId;
    use rootgate_model::servers::ServerDraft;

    fn spawn_plain(spec: &ServerSpec) -> Result<Spawned, SpawnError> {
        spawn(
            spec,
            &Launch {
                grace: Duration::from_millis(500),
                enforce: None,
                secrets: SecretValues::default(),
                started_by: None,
            },
        )
    }

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

    #[tokio::test]
    async fn a_missing_command_is_named_in_the_error() {
        let err = spawn_plain(&spec("/no/such/server", &["--flag"]))
            .err()
            .unwrap();
        assert!(matches!(err, SpawnError::NoSuchFile { .. }));
        assert!(err.to_string().contains("/no/such/server --flag"), "{err}");
        assert!(
            err.to_string()
                .ends_with("there is no file at /no/such/server"),
            "a path is not blamed on PATH: {err}"
        );
        let err = spawn_plain(&spec("no-such-server-anywhere", &[]))
            .err()
            .unwrap();
        assert!(err.to_string().contains("on PATH"), "{err}");
    }

    #[tokio::test]
    async fn an_error_never_shows_an_environment_value() {
        let mut secret = spec("/no/such/server", &[]);
        secret
            .env
            .insert("API_TOKEN".into(), "sk-live-9f8e7d".into());
        let err = spawn_plain(&secret).err().unwrap();
        assert!(!err.to_string().contains("sk-live-9f8e7d"), "{err}");
        assert!(err.to_string().contains("API_TOKEN=…"), "{err}");
    }

    #[tokio::test]
    async fn the_stdin_pipe_grows_only_for_large_answers() {
        use nix::fcntl::{FcntlArg, fcntl};
        let mut p = spawn_plain(&spec("cat", &[])).unwrap();
        let size = |p: &Spawned| fcntl(&p.stdin, FcntlArg::F_GETPIPE_SZ).unwrap() as usize;
        assert_eq!(size(&p), DEFAULT_PIPE_BYTES);
        assert_eq!(fit_stdin_pipe(&p.stdin, 1_000), None);
        assert_eq!(
            size(&p),
            DEFAULT_PIPE_BYTES,
            "a small list keeps the default"
        );
        assert_eq!(fit_stdin_pipe(&p.stdin, 300_000), Some(512 * 1024));
        assert_eq!(size(&p), 512 * 1024);
        assert_eq!(fit_stdin_pipe(&p.stdin, 5_000_000), Some(MAX_PIPE_BYTES));
        drop(p.stdin);
        assert!(
            p.exit.exited().await.is_ok(),
            "cat ends when its input closes"
        );
    }

    #[tokio::test]
    async fn a_server_that_exits_on_eof_ends_at_the_first_step() {
        let mut p = spawn_plain(&spec("cat", &[])).unwrap();
        let stdin = p.stdin;
        let ended = p
            .exit
            .shut_down(async move { drop(stdin) }, Duration::from_secs(5))
            .await;
        assert_eq!(ended.step, Step::StdinClosed);
        assert_eq!(ended.status, "exit code 0");
    }

    #[tokio::test]
    async fn a_server_writing_as_it_shuts_down_is_not_cut_off() {
        // When its input closes, the server writes more than a pipe holds
        // (about 180 KB) and exits 0. Rootgate has stopped reading by then;
        // the drain lets the writes through, so the exit is the server's own.
        let script = "cat >/dev/null; i=0; while [ $i -lt 4000 ]; do \
                      echo 'a line a server writes while it shuts down'; i=$((i+1)); done";
        let mut p = spawn_plain(&spec("sh", &["-c", script])).unwrap();
        let (stdin, stdout) = (p.stdin, p.stdout);
        let ended = p
            .exit
            .shut_down(
                async move {
                    drop(stdout);
                    drop(stdin);
                },
                Duration::from_secs(5),
            )
            .await;
        assert_eq!(ended.status, "exit code 0");
        assert_eq!(ended.step, Step::StdinClosed);
    }

    #[tokio::test]
    async fn sigterm_then_sigkill_for_servers_that_ignore_their_input() {
        let mut p = spawn_plain(&spec("sh", &["-c", "exec sleep 30"])).unwrap();
        let stdin = p.stdin;
        let ended = p
            .exit
            .shut_down(async move { drop(stdin) }, Duration::from_millis(200))
            .await;
        assert_eq!(ended.step, Step::Terminated);
        assert_eq!(ended.status, "killed by SIGTERM");

        let mut p = spawn_plain(&spec(
            "sh",
            &["-c", "trap '' TERM; while :; do sleep 0.05; done"],
        ))
        .unwrap();
        let stdin = p.stdin;
        let ended = p
            .exit
            .shut_down(async move { drop(stdin) }, Duration::from_millis(300))
            .await;
        assert_eq!(ended.step, Step::Killed);
        assert_eq!(ended.status, "killed by SIGKILL");
        assert!(!p.exit.group_alive(), "the group is gone");
    }

    #[tokio::test]
    async fn children_left_behind_are_ended_with_the_group() {
        // The shell starts a background child and exits at once; the child
        // stays in the group until the launcher (or, without one, the
        // shutdown) clears it.
        let mut p = spawn_plain(&spec("sh", &["-c", "sleep 30 & echo started"])).unwrap();
        let stdin = p.stdin;
        let status = p.exit.exited().await.unwrap();
        assert_eq!(describe(&status), "exit code 0");
        if launcher::program().is_none() {
            assert!(p.exit.group_alive(), "the background child is still there");
        }
        let ended = p
            .exit
            .shut_down(async move { drop(stdin) }, Duration::from_millis(500))
            .await;
        assert_eq!(ended.step, Step::AlreadyExited);
        assert!(!p.exit.group_alive());
    }

    #[tokio::test]
    async fn only_the_listed_environment_reaches_a_server() {
        let mut s = spec("sh", &["-c", "env"]);
        s.env.insert("GIVEN".into(), "yes".into());
        let p = spawn_plain(&s).unwrap();
        let mut out = String::new();
        use tokio::io::AsyncReadExt;
        let mut stdout = p.stdout;
        stdout.read_to_string(&mut out).await.unwrap();
        assert!(out.lines().any(|l| l == "GIVEN=yes"));
        for line in out.lines() {
            let key = line.split('=').next().unwrap();
            assert!(
                key == "GIVEN"
                    || key == "PWD"
                    || key == "SHLVL"
                    || key == "_"
                    || INHERITED_ENV.contains(&key),
                "unexpected variable {key}"
            );
        }
    }

    #[tokio::test]
    async fn secret_values_kept_outside_the_spec_reach_the_server() {
        let mut s = spec("sh", &["-c", "printf '%s' \"$API_TOKEN\""]);
        s.env.insert("API_TOKEN".into(), String::new());
        s.secrets.insert(
            "API_TOKEN".into(),
            rootgate_model::servers::SecretPlace::Keyring,
        );
        let launch = Launch {
            grace: Duration::from_millis(500),
            enforce: None,
            secrets: SecretValues([("API_TOKEN".to_owned(), "from-keyring".to_owned())].into()),
            started_by: None,
        };
        assert!(!format!("{launch:?}").contains("from-keyring"));
        let p = spawn(&s, &launch).unwrap();
        let mut out = String::new();
        use tokio::io::AsyncReadExt;
        let mut stdout = p.stdout;
        stdout.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, "from-keyring");
    }

    /// A server the gate starts for a door is started as the app's own
    /// child would be: in the app's working folder, with the app's
    /// variables, not the gate's.
    #[tokio::test]
    async fn a_server_started_for_a_door_gets_the_apps_folder_and_variables() {
        let project = tempfile::tempdir().unwrap();
        let s = spec("sh", &["-c", "pwd; printf '%s|%s' \"$HOME\" \"$LANG\""]);
        let app_env = BTreeMap::from([
            ("PATH".to_owned(), std::env::var("PATH").unwrap()),
            ("HOME".to_owned(), "/home/the-apps-user".to_owned()),
        ]);
        let launch = Launch {
            grace: Duration::from_millis(500),
            enforce: None,
            secrets: SecretValues::default(),
            started_by: Some(StartedBy {
                env: app_env,
                working_folder: Some(project.path().to_path_buf()),
            }),
        };
        let p = spawn(&s, &launch).unwrap();
        let mut out = String::new();
        use tokio::io::AsyncReadExt;
        let mut stdout = p.stdout;
        stdout.read_to_string(&mut out).await.unwrap();
        let real = project.path().canonicalize().unwrap();
        // The app gave no LANG: the gate's own is not passed in its place.
        assert_eq!(out, format!("{}\n/home/the-apps-user|", real.display()));
    }
}
