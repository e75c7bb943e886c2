//! `rootgate route` and `unroute` when things go wrong around them: the
//! command killed with SIGKILL after any one of its system calls, an app
//! writing its own file at any moment of the write, a file the person made
//! read-only or that another user owns, a config that is a symbolic link,
//! and a secret that no keyring holds.
//!
//! The killed and interleaved runs are made deterministic by `strace`, which
//! stops the real `rootgate` process (SIGSTOP, injected) after every system
//! call and tells this test on a pipe; the test then kills it, writes the
//! app's file as the app would, or lets it go on. No hook is compiled into
//! Rootgate for this, and no timing decides anything.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use rootgate_test_support::app::*;
use serde_json::Value;

/// What the people's session gives `rootgate` here: no keyring at all, so
/// every run stores secrets the same way whatever the suite runs under.
fn env(rg: &Rootgate) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("HOME", rg.home()),
        ("XDG_CONFIG_HOME", rg.config_home.clone()),
        ("XDG_RUNTIME_DIR", rg.dir.path().join("run")),
        (
            "DBUS_SESSION_BUS_ADDRESS",
            PathBuf::from("unix:path=/nonexistent/bus"),
        ),
    ]
}

/// The `rootgate` under test: the one built beside these tests, or the one
/// `ROOTGATE_UNDER_TEST` names (to see these tests fail on an older build).
fn program() -> PathBuf {
    std::env::var_os("ROOTGATE_UNDER_TEST")
        .map(PathBuf::from)
        .unwrap_or_else(|| binary("rootgate"))
}

fn rootgate(rg: &Rootgate, args: &[&str]) -> Output {
    Command::new(program())
        .args(args)
        .envs(env(rg))
        .output()
        .expect("run rootgate")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn config_dir(rg: &Rootgate) -> PathBuf {
    rg.config_home.join("Claude")
}

/// A Claude Desktop config with one server and no secret in it, imported.
fn imported_config(rg: &Rootgate) -> (PathBuf, String) {
    let dir = config_dir(rg);
    std::fs::create_dir_all(&dir).expect("config dir");
    let original = r#"{
  "globalShortcut": "Ctrl+Alt+Space",
  "mcpServers": {
    "notes": { "command": "uvx", "args": ["mcp-server-notes", "--verbose"] }
  }
}
"#
    .to_owned();
    let path = dir.join("claude_desktop_config.json");
    std::fs::write(&path, &original).expect("write config");
    let imported = rootgate(rg, &["import", "claude-desktop"]);
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    (path, original)
}

/// The names in the app's config folder.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn ledger(rg: &Rootgate) -> Value {
    match std::fs::read_to_string(rg.config_home.join("rootgate/apps.json")) {
        Ok(text) => serde_json::from_str(&text).expect("the ledger is JSON"),
        Err(_) => Value::Null,
    }
}

/// What the test does when the traced `rootgate` stops after a call.
enum Step {
    Go,
    Kill,
}

/// What a traced run did.
struct Traced {
    /// Stops after the first `flock` (the ledger's lock, taken before the
    /// app's file is touched).
    steps_after_lock: usize,
    killed: bool,
    out: String,
    err: String,
    success: bool,
}

/// Runs `rootgate route claude-desktop`, held at the ledger's lock (this
/// test holds it) until strace is attached to it, then stopped by strace
/// after every system call from the lock on; `at(n)` is asked at the n-th
/// stop. Holding it at the lock keeps strace out of the process's start,
/// where stopping it at every call is slow and left it stopped for ever in
/// a few runs out of hundreds.
fn traced_route(rg: &Rootgate, mut at: impl FnMut(usize) -> Step) -> Traced {
    let out_file = rg.dir.path().join("route.out");
    let err_file = rg.dir.path().join("route.err");
    let lock_path = rg.config_home.join("rootgate/apps.lock");
    std::fs::create_dir_all(lock_path.parent().expect("dir")).expect("dir");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .expect("the ledger's lock file");
    let held = nix::fcntl::Flock::lock(lock, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| e)
        .expect("take the ledger's lock");
    let mut route = Command::new(program())
        .args(["route", "claude-desktop"])
        .envs(env(rg))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).expect("out"))
        .stderr(std::fs::File::create(&err_file).expect("err"))
        .spawn()
        .expect("run rootgate");
    let pid = route.id();
    // Waits until it waits for the lock (`flock` is call 73 on x86_64), or
    // has ended without taking it.
    let syscall = format!("/proc/{pid}/syscall");
    while !std::fs::read_to_string(&syscall).is_ok_and(|s| s.starts_with("73 ")) {
        if route.try_wait().expect("wait").is_some() {
            return ended_early(route, &out_file, &err_file);
        }
        std::thread::yield_now();
    }
    // The stop is injected at every call but `restart_syscall`: a stop
    // interrupts a call that waits, which the kernel then resumes through
    // `restart_syscall`; stopping that too would interrupt it again.
    let mut strace = Command::new("strace")
        .args(["-qq", "-o", "/dev/stderr", "-e", "trace=all"])
        .args(["-e", "inject=!restart_syscall:signal=SIGSTOP", "-p"])
        .arg(pid.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("strace is installed (scripts/setup.sh test)");
    let tracer = strace.id();
    let status = format!("/proc/{pid}/status");
    while !std::fs::read_to_string(&status)
        .is_ok_and(|s| s.contains(&format!("TracerPid:\t{tracer}\n")))
    {
        assert!(
            strace.try_wait().expect("wait").is_none(),
            "strace could not attach to rootgate"
        );
        std::thread::yield_now();
    }
    drop(held);
    let lines = BufReader::new(strace.stderr.take().expect("strace's output")).lines();
    let mut locked = false;
    let mut steps = 0;
    let mut killed = false;
    let mut last_call = String::new();
    let target = Pid::from_raw(i32::try_from(pid).expect("pid"));
    for line in lines.map_while(Result::ok) {
        if line.starts_with("flock(") && line.trim_end().ends_with("= 0") {
            locked = true;
        }
        if !line.starts_with("---") && !line.starts_with("+++") {
            last_call = line.chars().take(160).collect();
        }
        if !line.starts_with("--- stopped by SIGSTOP") {
            continue;
        }
        if locked && !killed {
            let step = at(steps);
            steps += 1;
            if let Step::Kill = step {
                kill(target, Signal::SIGKILL).expect("kill");
                eprintln!("killed after {last_call}");
                killed = true;
                continue;
            }
        }
        wait_listening(tracer);
        // The process may be gone already (killed); then nothing waits.
        let _ = kill(target, Signal::SIGCONT);
    }
    let _ = strace.wait();
    let status = route.wait().expect("rootgate ends");
    Traced {
        steps_after_lock: steps,
        killed,
        out: std::fs::read_to_string(&out_file).unwrap_or_default(),
        err: std::fs::read_to_string(&err_file).unwrap_or_default(),
        success: status.success() && !killed,
    }
}

/// A traced run that ended before it took the ledger's lock.
fn ended_early(mut route: std::process::Child, out: &Path, err: &Path) -> Traced {
    let status = route.wait().expect("rootgate ends");
    Traced {
        steps_after_lock: 0,
        killed: false,
        out: std::fs::read_to_string(out).unwrap_or_default(),
        err: std::fs::read_to_string(err).unwrap_or_default(),
        success: status.success(),
    }
}

/// Waits until strace, having said the process stopped, is waiting for
/// its next event: it has then told the kernel it listens for the SIGCONT
/// (`PTRACE_LISTEN`). A SIGCONT sent before that left the process stopped
/// for ever in about one run in a few hundred (strace missed it).
fn wait_listening(tracer: u32) {
    let wchan = format!("/proc/{tracer}/wchan");
    while std::fs::read_to_string(&wchan).is_ok_and(|w| w != "do_wait") {
        std::thread::yield_now();
    }
}

/// Whether the Apps listing says Rootgate routed the config.
fn listed_as_routed(rg: &Rootgate) -> bool {
    let listed = rootgate(rg, &["apps", "--json"]);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    let apps: Value = serde_json::from_slice(&listed.stdout).expect("json");
    apps.as_array()
        .expect("apps")
        .iter()
        .find(|a| a["app"] == "claude-desktop")
        .map(|a| a["files"][0]["routedByRootgate"] == Value::Bool(true))
        .expect("claude-desktop listed")
}

/// After a killed route: the file is whole and either as it was or routed,
/// the listing says which, an undo brings back the original byte for byte,
/// and nothing is left beside it.
fn check_after_kill(rg: &Rootgate, config: &Path, original: &str, routed: &str, at: usize) -> bool {
    let now = std::fs::read_to_string(config).expect("the config is there");
    let is_routed = now == routed;
    assert!(
        is_routed || now == original,
        "killed after step {at}: the file is neither as it was nor routed:\n{now}"
    );
    assert_eq!(
        listed_as_routed(rg),
        is_routed,
        "killed after step {at}: the listing disagrees with the file"
    );
    let undone = rootgate(rg, &["unroute", "claude-desktop"]);
    if is_routed {
        assert!(
            undone.status.success(),
            "killed after step {at}: the route cannot be undone: {}",
            text(&undone.stderr)
        );
    } else {
        assert!(
            text(&undone.stderr).contains("nothing to undo"),
            "killed after step {at}: {}{}",
            text(&undone.stdout),
            text(&undone.stderr)
        );
    }
    assert_eq!(
        std::fs::read_to_string(config).expect("read"),
        original,
        "killed after step {at}: not back byte for byte"
    );
    assert_eq!(
        names_in(&config_dir(rg)),
        vec!["claude_desktop_config.json"],
        "killed after step {at}: temporary files or backups left"
    );
    assert!(
        !names_in(&rg.config_home.join("rootgate"))
            .iter()
            .any(|n| n.starts_with(".apps.json.")),
        "killed after step {at}: the ledger's temporary file is left"
    );
    let ledger = ledger(rg);
    assert!(
        ledger["routes"].as_array().is_none_or(Vec::is_empty) && ledger.get("pending").is_none(),
        "killed after step {at}: {ledger:#}"
    );
    is_routed
}

#[test]
fn a_route_killed_after_any_step_leaves_the_file_as_it_was_or_routed_and_undoable() {
    let rg = Rootgate::new();
    let (config, original) = imported_config(&rg);
    let whole = traced_route(&rg, |_| Step::Go);
    assert!(whole.success, "{}{}", whole.out, whole.err);
    let routed = std::fs::read_to_string(&config).expect("routed");
    assert!(routed.contains("\"connect\""), "{routed}");
    assert!(
        rootgate(&rg, &["unroute", "claude-desktop"])
            .status
            .success()
    );
    assert_eq!(std::fs::read_to_string(&config).expect("read"), original);

    // Every step from the ledger's lock to the end: the lock is the first
    // thing the write does, and nothing before it touches a file. The
    // count of calls varies by a few between runs (a folder listed, a
    // folder made), so the sweep goes on until a run ends before its kill.
    let (mut as_was, mut as_routed) = (0, 0);
    for at in 0.. {
        let run = traced_route(&rg, |n| if n == at { Step::Kill } else { Step::Go });
        let routed_now = check_after_kill(&rg, &config, &original, &routed, at);
        if !run.killed {
            assert!(
                routed_now,
                "a route that ran to its end routed: {}",
                run.err
            );
            assert!(
                at + 20 > whole.steps_after_lock,
                "the route ended after {at} steps of {}",
                whole.steps_after_lock
            );
            eprintln!("{at} kill points: {as_was} left the file as it was, {as_routed} routed");
            break;
        }
        if routed_now {
            as_routed += 1;
        } else {
            as_was += 1;
        }
    }
    assert!(as_was > 0 && as_routed > 0, "both outcomes were reached");
}

/// Whether Rootgate's temporary file for the config is beside it.
fn temp_beside(config: &Path) -> bool {
    names_in(config.parent().expect("dir"))
        .iter()
        .any(|n| n.starts_with(".claude_desktop_config.json.rootgate-"))
}

#[test]
fn an_app_writing_its_file_while_it_is_routed_keeps_its_write() {
    // Claude Desktop writes its file in place (open, truncate, write), as
    // Electron's writeFile does, after the n-th step of the route from the
    // moment Rootgate's temporary file exists until it is gone: after the
    // temporary file is made, written, synced, after the file is compared
    // and after the rename. Each n is a fresh run.
    let mut sweep = 0;
    loop {
        let rg = Rootgate::new();
        let (config, original) = imported_config(&rg);
        let by_app = original.replace("Ctrl+Alt+Space", "Ctrl+Shift+K");
        let mut seen = 0;
        let mut wrote = false;
        let run = traced_route(&rg, |_| {
            if !wrote && temp_beside(&config) {
                if seen == sweep {
                    std::fs::write(&config, &by_app).expect("the app writes");
                    wrote = true;
                }
                seen += 1;
            }
            Step::Go
        });
        if !wrote {
            break;
        }
        let now = std::fs::read_to_string(&config).expect("read");
        assert_eq!(
            now, by_app,
            "the app's write after step {sweep} of the write was lost (route said: {}{})",
            run.out, run.err
        );
        if !run.success {
            assert!(
                run.err.contains("changed since Rootgate read it"),
                "{}",
                run.err
            );
            assert_eq!(
                names_in(&config_dir(&rg)),
                vec!["claude_desktop_config.json"],
                "nothing is left beside the file"
            );
        }
        sweep += 1;
    }
    assert!(sweep >= 3, "the write was reached at {sweep} steps only");
}

/// Checks that `route` refuses `config`, saying `why`, and leaves it and
/// its folder as they were.
fn refused(rg: &Rootgate, config: &Path, original: &str, why: &str) {
    let out = rootgate(rg, &["route", "claude-desktop"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains(why), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(config).expect("read"), original);
    assert_eq!(
        names_in(&config_dir(rg)),
        vec!["claude_desktop_config.json"],
        "no backup, no temporary file"
    );
    assert!(text(&rootgate(rg, &["unroute", "claude-desktop"]).stderr).contains("nothing to undo"));
}

#[test]
fn a_read_only_config_is_not_replaced() {
    use std::os::unix::fs::PermissionsExt;
    let rg = Rootgate::new();
    let (config, original) = imported_config(&rg);
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    // The tests run as root, who may write any file: what is checked is
    // what the person said with the mode, not what the system allows.
    refused(&rg, &config, &original, "is read-only");
    let mode = std::fs::metadata(&config)
        .expect("stat")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o444);
}

#[test]
fn a_config_another_user_owns_is_not_replaced() {
    use std::os::unix::fs::MetadataExt;
    let rg = Rootgate::new();
    let (config, original) = imported_config(&rg);
    // Only root can give a file away; the suite runs as root (as CI does).
    assert!(
        nix::unistd::geteuid().is_root(),
        "this test makes a file another user owns, which needs root"
    );
    let other = 4242;
    std::os::unix::fs::chown(&config, Some(other), None).expect("chown");
    refused(&rg, &config, &original, &format!("belongs to uid {other}"));
    assert_eq!(std::fs::metadata(&config).expect("stat").uid(), other);
}

#[test]
fn a_symlinked_config_is_routed_through_the_link() {
    let rg = Rootgate::new();
    let (config, original) = imported_config(&rg);
    // A dotfile manager keeps the real file elsewhere and links it.
    let real = rg.dir.path().join("dotfiles/claude.json");
    std::fs::create_dir_all(real.parent().expect("dir")).expect("dir");
    std::fs::rename(&config, &real).expect("move");
    std::os::unix::fs::symlink(&real, &config).expect("link");
    let routed = rootgate(&rg, &["route", "claude-desktop"]);
    assert!(routed.status.success(), "{}", text(&routed.stderr));
    assert!(
        config
            .symlink_metadata()
            .expect("lstat")
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .expect("read")
            .contains("\"connect\"")
    );
    let undone = rootgate(&rg, &["unroute", "claude-desktop"]);
    assert!(undone.status.success(), "{}", text(&undone.stderr));
    assert!(
        config
            .symlink_metadata()
            .expect("lstat")
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&real).expect("read"), original);
    assert_eq!(names_in(real.parent().expect("dir")), vec!["claude.json"]);
}

#[test]
fn an_entry_whose_secret_no_keyring_holds_is_left_in_the_app_file() {
    let rg = Rootgate::new();
    let dir = config_dir(&rg);
    std::fs::create_dir_all(&dir).expect("dir");
    let secret = "ghp_onlyCopyOfThisToken42";
    let original = format!(
        r#"{{
  "mcpServers": {{
    "github": {{ "command": "github-mcp", "args": ["stdio"], "env": {{ "GITHUB_TOKEN": "{secret}" }} }},
    "notes": {{ "command": "uvx", "args": ["mcp-server-notes"] }}
  }}
}}
"#
    );
    let config = dir.join("claude_desktop_config.json");
    std::fs::write(&config, &original).expect("write");
    let imported = rootgate(&rg, &["import", "claude-desktop"]);
    assert!(imported.status.success(), "{}", text(&imported.stderr));
    assert!(
        text(&imported.stdout).contains("was not stored"),
        "{}",
        text(&imported.stdout)
    );

    let routed = rootgate(&rg, &["route", "claude-desktop"]);
    let said = text(&routed.stdout);
    assert!(routed.status.success(), "{said}{}", text(&routed.stderr));
    assert!(
        said.contains("left as it is: `github`: GITHUB_TOKEN is not stored anywhere in Rootgate"),
        "{said}"
    );
    assert!(!said.contains(secret), "{said}");
    let now: Value =
        serde_json::from_str(&std::fs::read_to_string(&config).expect("read")).expect("JSON");
    assert_eq!(now["mcpServers"]["github"]["env"]["GITHUB_TOKEN"], secret);
    assert_eq!(now["mcpServers"]["github"]["command"], "github-mcp");
    assert_eq!(now["mcpServers"]["notes"]["args"][0], "connect");

    // Routing only that entry says why, and writes nothing.
    let only = rootgate(&rg, &["route", "claude-desktop", "github"]);
    assert_eq!(only.status.code(), Some(1));
    assert!(
        text(&only.stderr).contains("not stored anywhere"),
        "{}",
        text(&only.stderr)
    );
}
