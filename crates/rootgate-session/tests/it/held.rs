//! A held server is really held (issue #39): our hostile server
//! (`tests/servers/hostile_server.py`) tries every way out that Landlock
//! alone left open: a real session bus, a real ssh-agent, a listening Unix
//! socket where the window's would be, an abstract Unix socket, signals to
//! processes outside it, other processes' command lines in `/proc`, the
//! home folder's SSH key and the settings file, and a TCP listener on
//! 127.0.0.1. Held, every one fails; the same server not held reaches every
//! one, so the test fails for the right reason if the sandbox lets one
//! through. The working folder and a folder argument that would widen the
//! hold are refused in words, the real npm filesystem server still works
//! held, inside its folder only, and where bubblewrap cannot hold a server
//! the fallback (Landlock, its scopes, seccomp) refuses Unix sockets and
//! signals, and leaves open what the window says it leaves open. That
//! allowing a running held server the network restarts it is the
//! supervisor's, tested in the core's `tests/it/held.rs`.

use std::collections::BTreeMap;
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use rootgate_launcher::enforcement::{self, Support};
use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_session::{Session, Status};
use rootgate_test_support::harness::*;
use serde_json::Value;

/// A child process that is ended when the test ends, pass or fail.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Everything the hostile server aims at, made real for one test.
struct Targets {
    _bus: Running,
    _agent: Running,
    _victim: Running,
    _window: UnixListener,
    _abstract: UnixListener,
    _tcp: std::net::TcpListener,
    env: BTreeMap<String, String>,
    home: PathBuf,
}

async fn targets(h: &Harness) -> Targets {
    let run = h.dir.path().join("run");
    std::fs::create_dir_all(run.join("rootgate")).expect("a runtime folder");
    let bus_path = run.join("bus");
    let bus = Running(
        Command::new("dbus-daemon")
            .args(["--session", "--nofork", "--nopidfile"])
            .arg(format!("--address=unix:path={}", bus_path.display()))
            .stdout(Stdio::null())
            .spawn()
            .expect("dbus-daemon (dbus-daemon package) runs"),
    );
    let agent_path = run.join("ssh-agent.sock");
    let agent = Running(
        Command::new("ssh-agent")
            .arg("-D")
            .arg("-a")
            .arg(&agent_path)
            .stdout(Stdio::null())
            .spawn()
            .expect("ssh-agent (openssh-client package) runs"),
    );
    let marker = format!("rootgate-hostile-marker-{}", std::process::id());
    let victim = Running(
        // The marker stays on its command line (an `exec` would replace it).
        Command::new("python3")
            .args(["-c", "import time; time.sleep(3600)", &marker])
            .spawn()
            .expect("python3 runs"),
    );
    let window_path = run.join("rootgate/window.sock");
    let window = UnixListener::bind(&window_path).expect("a socket where the window's is");
    let abstract_name = format!("rootgate-hostile-{}", std::process::id());
    let abstract_sock = SocketAddr::from_abstract_name(&abstract_name)
        .and_then(|a| UnixListener::bind_addr(&a))
        .expect("an abstract socket");
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").expect("a TCP listener");
    let home = h.dir.path().join("home");
    std::fs::create_dir_all(home.join(".ssh")).expect("a home folder");
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE KEY").expect("a key file");
    for path in [&bus_path, &agent_path] {
        eventually("the bus and the agent to listen", || async {
            if path.exists() {
                Ok(())
            } else {
                Err(format!("{} is not there yet", path.display()))
            }
        })
        .await;
    }
    let env = BTreeMap::from([
        (
            "HOSTILE_BUS".to_owned(),
            format!("unix:path={}", bus_path.display()),
        ),
        ("HOSTILE_AGENT".into(), agent_path.display().to_string()),
        ("HOSTILE_WINDOW".into(), window_path.display().to_string()),
        ("HOSTILE_ABSTRACT".into(), abstract_name),
        ("HOSTILE_VICTIM".into(), victim.0.id().to_string()),
        ("HOSTILE_MARKER".into(), marker),
        (
            "HOSTILE_PORT".into(),
            tcp.local_addr().expect("its port").port().to_string(),
        ),
        (
            "HOSTILE_SETTINGS".into(),
            h.dir
                .path()
                .join("config/settings.json")
                .display()
                .to_string(),
        ),
        ("HOME".into(), home.display().to_string()),
    ]);
    Targets {
        _bus: bus,
        _agent: agent,
        _victim: victim,
        _window: window,
        _abstract: abstract_sock,
        _tcp: tcp,
        env,
        home,
    }
}

fn hostile_draft(
    name: &str,
    t: &Targets,
    held: bool,
    cwd: Option<&Path>,
    extra: &[&str],
) -> ServerDraft {
    let script = workspace_root().join("tests/servers/hostile_server.py");
    let mut args = vec![script.display().to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    ServerDraft {
        name: name.into(),
        command: "/usr/bin/python3".into(),
        args,
        env: t.env.clone(),
        cwd: cwd.map(Path::to_path_buf),
        enabled: true,
        enforce_roots: held,
        ..Default::default()
    }
}

/// What the hostile server reports, by escape.
async fn escapes(session: &Session) -> BTreeMap<String, (bool, String)> {
    let result = session
        .call_tool("escapes", no_args())
        .await
        .expect("the escapes tool answers");
    let report: BTreeMap<String, Value> =
        serde_json::from_str(&tool_text(&result)).expect("a JSON report");
    report
        .into_iter()
        .map(|(name, v)| {
            (
                name,
                (
                    v["reached"].as_bool().unwrap_or(true),
                    v["said"].as_str().unwrap_or_default().to_owned(),
                ),
            )
        })
        .collect()
}

fn require_held() {
    match enforcement::support() {
        Support::Available => {}
        other => panic!("held servers cannot be tested here: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_server_reaches_nothing_the_same_server_unheld_reaches() {
    require_held();
    let h = Harness::new();
    let t = targets(&h).await;

    // Not held, from the home folder, naming it: it reaches everything,
    // which is what makes the held run below mean something.
    let (_spec, free) = h.server_from(hostile_draft(
        "free",
        &t,
        false,
        Some(&t.home),
        &["--look", t.home.to_str().unwrap()],
    ));
    running(&free).await;
    let unheld = escapes(&free).await;
    free.shutdown().await;
    let missed: Vec<_> = unheld.iter().filter(|(_, (reached, _))| !reached).collect();
    assert!(
        missed.is_empty(),
        "not held, the hostile server should reach every target: {missed:#?}"
    );

    let (_spec, held) = h.server_from(hostile_draft("held", &t, true, None, &[]));
    running(&held).await;
    let report = escapes(&held).await;
    held.shutdown().await;
    assert_eq!(
        report.keys().collect::<Vec<_>>(),
        unheld.keys().collect::<Vec<_>>()
    );
    let reached: Vec<_> = report.iter().filter(|(_, (reached, _))| *reached).collect();
    assert!(reached.is_empty(), "held, it reached: {reached:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_network_allowed_it_still_reaches_no_socket_or_signal_outside() {
    require_held();
    let h = Harness::new();
    let t = targets(&h).await;
    let (_spec, held) = h.server_from(ServerDraft {
        allow_network: true,
        ..hostile_draft("networked", &t, true, None, &[])
    });
    running(&held).await;
    let report = escapes(&held).await;
    held.shutdown().await;
    // The one thing it may reach is what the person allowed.
    assert!(report["tcp_loopback"].0, "{:?}", report["tcp_loopback"]);
    // The abstract socket is the machine's again (the network namespace is
    // shared), and Landlock's scope is what refuses it.
    let reached: Vec<_> = report
        .iter()
        .filter(|(name, (reached, _))| *reached && name.as_str() != "tcp_loopback")
        .collect();
    assert!(
        reached.is_empty(),
        "held with the network, it reached: {reached:#?}"
    );
}

async fn refused(session: &Session) -> String {
    let status = session
        .wait_for(WAIT, |s| {
            matches!(s, Status::Running(_) | Status::Failed { .. })
        })
        .await;
    match status {
        Status::Failed { reason } => reason,
        other => panic!("the held server should not start: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_working_folder_or_folder_argument_that_widens_the_hold_is_refused_in_words() {
    require_held();
    let h = Harness::new();
    let t = targets(&h).await;
    let (_spec, at_home) = h.server_from(hostile_draft("cwd", &t, true, Some(&t.home), &[]));
    let why = refused(&at_home).await;
    assert!(why.contains("working folder"), "{why}");
    assert!(why.contains("outside the folders shared with it"), "{why}");
    let (_spec, naming) = h.server_from(hostile_draft(
        "arg",
        &t,
        true,
        None,
        &["--look", t.home.to_str().unwrap()],
    ));
    let why = refused(&naming).await;
    assert!(
        why.contains(&format!("argument {}", t.home.display())),
        "{why}"
    );
    let (_spec, root) = h.server_from(hostile_draft("root", &t, true, None, &["--look", "/"]));
    let why = refused(&root).await;
    assert!(why.contains("the whole disk, the home folder"), "{why}");
}

fn held_fs_server(h: &Harness) -> (ServerSpec, Session) {
    h.server_from(ServerDraft {
        name: "files".into(),
        command: "node".into(),
        args: vec![fs_server_js().display().to_string()],
        enabled: true,
        enforce_roots: true,
        ..Default::default()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_npm_filesystem_server_works_held_inside_its_folder_only() {
    require_held();
    let h = Harness::new();
    let (root, root_path) = h.folder("docs");
    std::fs::write(root_path.join("note.txt"), "hello from inside").unwrap();
    let outside = h.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("note.txt"), "never").unwrap();
    let (spec, session) = held_fs_server(&h);
    h.store.grant(&spec.id, &root).unwrap();
    running(&session).await;
    let read = |path: PathBuf| {
        let session = &session;
        async move {
            let mut args = no_args();
            args.insert("path".into(), path.display().to_string().into());
            session
                .call_tool("read_text_file", args)
                .await
                .map(|r| tool_text(&r))
                .map_err(|e| e.to_string())
        }
    };
    let allowed = eventually("the held server to list its folder", || async {
        let text = session
            .call_tool("list_allowed_directories", no_args())
            .await
            .map(|r| tool_text(&r))
            .map_err(|e| e.to_string())?;
        if text.contains(root_path.to_str().unwrap()) {
            Ok(text)
        } else {
            Err(text)
        }
    })
    .await;
    assert!(!allowed.contains(outside.to_str().unwrap()), "{allowed}");
    let inside = read(root_path.join("note.txt")).await;
    assert_eq!(
        inside.map(|t| t.trim().to_owned()),
        Ok("hello from inside".into())
    );
    let outside_read = read(outside.join("note.txt")).await;
    assert!(
        !format!("{outside_read:?}").contains("never"),
        "{outside_read:?}"
    );
    session.shutdown().await;
}

/// Talks to the hostile server through a launcher started by hand: one
/// `initialize`, one `escapes` call, and its report.
fn escapes_through(mut launcher: Child) -> BTreeMap<String, (bool, String)> {
    use std::io::{BufRead, BufReader, Write};
    let mut input = launcher.stdin.take().expect("its stdin");
    let mut output = BufReader::new(launcher.stdout.take().expect("its stdout"));
    let mut ask = |id: u32, method: &str, params: Value| -> Value {
        let line =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(input, "{line}").expect("the server reads");
        let mut answer = String::new();
        output.read_line(&mut answer).expect("the server answers");
        serde_json::from_str(&answer).unwrap_or(Value::Null)
    };
    ask(
        1,
        "initialize",
        serde_json::json!({"protocolVersion": "2025-11-25"}),
    );
    let called = ask(2, "tools/call", serde_json::json!({"name": "escapes"}));
    let text = called["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("{}");
    let report: BTreeMap<String, Value> = serde_json::from_str(text).expect("a JSON report");
    drop(launcher.stdin.take());
    let _ = launcher.kill();
    let _ = launcher.wait();
    report
        .into_iter()
        .map(|(k, v)| {
            let said = v["said"].as_str().unwrap_or_default().to_owned();
            (k, (v["reached"].as_bool().unwrap_or(true), said))
        })
        .collect()
}

/// Where bubblewrap cannot make its namespaces, the launcher falls back to
/// Landlock with its scopes and a seccomp filter. Started here as Rootgate
/// starts it, with the policy Rootgate makes, less the sandbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_bubblewrap_unix_sockets_and_signals_are_refused_and_the_rest_is_said() {
    require_held();
    let h = Harness::new();
    let t = targets(&h).await;
    let draft = hostile_draft("fallback", &t, true, None, &[]);
    let spec = h.store.add_server(draft).expect("add server");
    let path = std::env::var_os("PATH");
    let policy = enforcement::Policy {
        sandbox: None,
        ..enforcement::policy_for(&spec, &[], path.as_deref()).expect("a policy")
    };
    let request = rootgate_launcher::launcher::Request {
        parent: std::process::id(),
        grace: std::time::Duration::from_secs(1),
        enforce: Some(policy),
        inside: false,
        command: spec.command.clone().into(),
        args: spec.args.iter().map(Into::into).collect(),
    };
    let program = rootgate_launcher::launcher::program().expect("rootgate-launcher is built");
    let launcher = {
        use std::os::unix::process::CommandExt;
        Command::new(program)
            .args(request.to_args())
            .env_clear()
            .env("PATH", path.unwrap_or_default())
            .envs(&t.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            // Its own group, as Rootgate starts it: the launcher ends its
            // group's other members when the server exits.
            .process_group(0)
            .spawn()
            .expect("the launcher starts")
    };
    let report = tokio::task::spawn_blocking(move || escapes_through(launcher))
        .await
        .expect("the report");
    for refused in [
        "session_bus",
        "ssh_agent",
        "window_socket",
        "abstract_socket",
        "signal_other_process",
        "home_ssh_key",
        "settings_file",
    ] {
        assert!(!report[refused].0, "{refused}: {:?}", report[refused]);
    }
    // What the fallback does not stop, as the window says: other processes
    // in /proc and the network.
    assert!(report["other_processes_in_proc"].0, "{report:#?}");
    assert!(report["tcp_loopback"].0, "{report:#?}");
    assert!(
        enforcement::NOT_STOPPED_WITHOUT_SANDBOX.contains("/proc")
            && enforcement::NOT_STOPPED_WITHOUT_SANDBOX.contains("network")
    );
}
