//! The launcher's two guarantees, with real processes: nothing a server
//! started is left running (not even a daemon that left the server's
//! process group, and not when Rootgate itself is killed with SIGKILL), and
//! enforced roots (a Landlock ruleset) hold a server to exactly its granted
//! folders, with our own probe, the npm filesystem server and the Python
//! SDK server.
//!
//! "Rootgate killed" is played by this test binary itself: the test starts
//! a copy of itself in the `ROOTGATE_TEST_ROLE=app` role, which runs the
//! same store and session code the app runs, and then kills that copy.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rootgate_launcher::enforcement::{self, Support};
use rootgate_launcher::procs::proc_table;
use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_model::timeline::Event;
use rootgate_session::Session;
use rootgate_test_support::harness::*;

/// A shell line that starts, beside the server, a background child (in the
/// server's group) and a daemon (`setsid -f`: a new session and group, its
/// parent gone at once), writes their process ids and its own to `pids`,
/// and then becomes our fixture server.
fn forking_server_script(pids: &Path, fixture: &Path) -> String {
    format!(
        "setsid -f sh -c 'echo daemon $$ >> {pids}; exec sleep 3600'; \
         sleep 3600 & echo child $! >> {pids}; echo server $$ >> {pids}; exec {fixture}",
        pids = pids.display(),
        fixture = fixture.display()
    )
}

/// The process ids in `pids`, by role, once all three are written.
async fn read_pids(pids: &Path) -> Vec<(String, i32)> {
    eventually("the server to write its children's process ids", || async {
        let text = std::fs::read_to_string(pids).map_err(|e| e.to_string())?;
        let found: Vec<(String, i32)> = text
            .lines()
            .filter_map(|l| {
                let (role, pid) = l.split_once(' ')?;
                Some((role.to_owned(), pid.trim().parse().ok()?))
            })
            .collect();
        if found.len() == 3 {
            Ok(found)
        } else {
            Err(format!("{found:?}"))
        }
    })
    .await
}

fn alive(pid: i32) -> bool {
    proc_table().iter().any(|p| p.pid == pid && !p.zombie)
}

fn pgid_of(pid: i32) -> Option<i32> {
    proc_table().iter().find(|p| p.pid == pid).map(|p| p.pgid)
}

async fn all_gone(pids: &[(String, i32)]) {
    eventually("every process the server started to end", || async {
        let left: Vec<_> = pids.iter().filter(|(_, pid)| alive(*pid)).collect();
        if left.is_empty() {
            Ok(())
        } else {
            Err(format!("still running: {left:?}"))
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_the_server_started_ends_with_it() {
    let h = Harness::new();
    let pids = h.dir.path().join("pids");
    let script = forking_server_script(&pids, &fixture_server());
    let (_spec, session) = h.server("forks", "sh", &["-c", &script]);
    running(&session).await;
    let started = read_pids(&pids).await;
    let server = started.iter().find(|(r, _)| r == "server").unwrap().1;
    let daemon = started.iter().find(|(r, _)| r == "daemon").unwrap().1;
    assert!(started.iter().all(|(_, pid)| alive(*pid)), "{started:?}");
    // The daemon really left the server's process group, so signalling the
    // group alone could never reach it.
    assert_ne!(pgid_of(daemon), pgid_of(server));

    // A daemon that kept the server's stderr open would also keep the
    // stop waiting for the log to end, were it not ended.
    tokio::time::timeout(WAIT, session.stop())
        .await
        .expect("the stop finished");
    all_gone(&started).await;
}

/// The role this binary plays when a test starts a copy of it as "the app".
const ROLE: &str = "ROOTGATE_TEST_ROLE";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_rootgate_is_killed_its_servers_and_their_daemons_end() {
    if std::env::var(ROLE).as_deref() == Ok("app") {
        return play_the_app().await;
    }
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let mut app = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            // The binary holds every session test, each under its file's module.
            &rootgate_test_support::test_name(
                module_path!(),
                "when_rootgate_is_killed_its_servers_and_their_daemons_end",
            ),
            "--nocapture",
        ])
        .env(ROLE, "app")
        .env("ROOTGATE_TEST_PIDS", &pids)
        .spawn()
        .unwrap();
    let started = read_pids(&pids).await;
    assert!(started.iter().all(|(_, pid)| alive(*pid)), "{started:?}");
    app.kill().unwrap(); // SIGKILL: no shutdown code runs in the app.
    app.wait().unwrap();
    all_gone(&started).await;
}

/// Runs a forking server through a real session, then waits to be killed.
async fn play_the_app() {
    let pids =
        PathBuf::from(std::env::var_os("ROOTGATE_TEST_PIDS").expect("the pids file is given"));
    let h = Harness::new();
    let script = forking_server_script(&pids, &fixture_server());
    let (_spec, session) = h.server("forks", "sh", &["-c", &script]);
    running(&session).await;
    tokio::time::sleep(Duration::from_secs(600)).await;
}

/// Skips nothing: a machine without Landlock fails these tests with the
/// reason, because enforcement is a promise the app makes.
fn require_landlock() {
    if let Support::Unavailable { reason } = enforcement::support() {
        panic!("enforced roots cannot be tested here: {reason}");
    }
}

fn enforced_server(h: &Harness, name: &str, command: &str, args: &[&str]) -> (ServerSpec, Session) {
    h.server_from(ServerDraft {
        name: name.into(),
        command: command.into(),
        args: args.iter().map(|s| s.to_string()).collect(),
        enabled: true,
        enforce_roots: true,
        ..Default::default()
    })
}

/// A shell line that tries to read `secret` and write `written` in each
/// folder, reports each outcome on stderr, and then becomes the server
/// named by its first argument (our fixture server, passed as an argument
/// so that enforcement lets it run, as it does any program a server's
/// command line names).
fn probe_script(folders: &[&Path]) -> String {
    let mut script = String::new();
    for f in folders {
        let f = f.display();
        script.push_str(&format!(
            "if cat '{f}/secret' >/dev/null 2>&1; then echo 'probe read allowed {f}' >&2; \
             else echo 'probe read denied {f}' >&2; fi; \
             if echo x 2>/dev/null > '{f}/written'; then echo 'probe write allowed {f}' >&2; \
             else echo 'probe write denied {f}' >&2; fi; "
        ));
    }
    script.push_str("exec \"$1\"");
    script
}

async fn probe_lines(session: &Session, count: usize) -> Vec<String> {
    eventually("the probe to report", || async {
        let lines: Vec<String> = session
            .stderr()
            .lines()
            .into_iter()
            .map(|l| l.text)
            .filter(|t| t.starts_with("probe "))
            .collect();
        if lines.len() >= count {
            Ok(lines)
        } else {
            Err(format!("{lines:?}"))
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enforced_server_reads_and_writes_exactly_its_roots() {
    require_landlock();
    let h = Harness::new();
    let (inside, inside_path) = h.folder("granted");
    let (outside, outside_path) = h.folder("not granted");
    let elsewhere = h.dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    for dir in [&inside_path, &outside_path, &elsewhere] {
        std::fs::write(dir.join("secret"), "s").unwrap();
    }
    let script = probe_script(&[&inside_path, &outside_path, &elsewhere]);
    let fixture = fixture_server();
    let (spec, session) = enforced_server(
        &h,
        "probe",
        "sh",
        &["-c", &script, "probe", fixture.to_str().unwrap()],
    );
    h.store.grant(&spec.id, &inside).unwrap();
    running(&session).await;
    // The ruleset was made either before or after the grant reached the
    // session; wait for the run that was started with the grant.
    let enforced = h
        .wait_event(&spec.id, 0, |e| {
            matches!(e, Event::Enforced { read_write, .. } if read_write.iter().any(|p| Path::new(p) == inside_path))
        })
        .await;
    let Event::Enforced {
        read_write,
        read_only,
        ..
    } = enforced.event
    else {
        unreachable!()
    };
    assert!(!read_write.iter().any(|p| Path::new(p) == outside_path));
    assert!(
        !read_only
            .iter()
            .any(|p| Path::new(p).starts_with(h.dir.path()))
    );
    eventually("the probe of the run with the grant", || async {
        let lines = probe_lines(&session, 6).await;
        let tail = &lines[lines.len() - 6..];
        let want = [
            format!("probe read allowed {}", inside_path.display()),
            format!("probe write allowed {}", inside_path.display()),
            format!("probe read denied {}", outside_path.display()),
            format!("probe write denied {}", outside_path.display()),
            format!("probe read denied {}", elsewhere.display()),
            format!("probe write denied {}", elsewhere.display()),
        ];
        if tail == want {
            Ok(())
        } else {
            Err(format!("{tail:#?}"))
        }
    })
    .await;
    // What the filesystem holds, not only what the probe says.
    assert!(inside_path.join("written").exists());
    assert!(!outside_path.join("written").exists());
    assert!(!elsewhere.join("written").exists());

    // Granting the second folder restarts the server under a new ruleset.
    let seq = h.now_seq();
    h.store.grant(&spec.id, &outside).unwrap();
    h.wait_event(&spec.id, seq, |e| {
        matches!(e, Event::RestartedToEnforce { .. })
    })
    .await;
    let mut both = vec![uri(&inside_path), uri(&outside_path)];
    both.sort();
    h.wait_event(&spec.id, seq, |e| match e {
        Event::RootsAnswered { roots, .. } => {
            let mut got: Vec<String> = roots.iter().map(|r| r.uri.clone()).collect();
            got.sort();
            got == both
        }
        _ => false,
    })
    .await;
    // The new process ran its probe under the new ruleset before it
    // answered anything.
    assert!(outside_path.join("written").exists());
    assert!(!elsewhere.join("written").exists());
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_npm_filesystem_server_works_enforced() {
    require_landlock();
    let h = Harness::new();
    let js = fs_server_js();
    let (root, root_path) = h.folder("docs");
    std::fs::write(root_path.join("note.txt"), "hello from inside").unwrap();
    let (spec, session) = enforced_server(&h, "files", "node", &[js.to_str().unwrap()]);
    h.store.grant(&spec.id, &root).unwrap();
    running(&session).await;
    let text = eventually(
        "the enforced filesystem server to read inside its root",
        || async {
            let mut args = no_args();
            args.insert(
                "path".into(),
                root_path.join("note.txt").display().to_string().into(),
            );
            let result = session
                .call_tool("read_text_file", args)
                .await
                .map_err(|e| e.to_string())?;
            let text = tool_text(&result);
            if text.contains("hello from inside") {
                Ok(text)
            } else {
                Err(text)
            }
        },
    )
    .await;
    assert_eq!(text.trim(), "hello from inside");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_server_works_enforced() {
    require_landlock();
    let h = Harness::new();
    let python = python();
    // The modern-era server: Python, its SDK and the round it asks for roots
    // in all run under the ruleset.
    let script = py_modern_server();
    let (root, root_path) = h.folder("alpha");
    let (spec, session) = enforced_server(
        &h,
        "python",
        python.to_str().unwrap(),
        &[script.to_str().unwrap()],
    );
    h.store.grant(&spec.id, &root).unwrap();
    running(&session).await;
    let want = [uri(&root_path)];
    eventually("the enforced Python server to get its root", || async {
        let result = session
            .call_tool("ask_roots", no_args())
            .await
            .map_err(|e| e.to_string())?;
        let text = tool_text(&result);
        if text == want[0] { Ok(()) } else { Err(text) }
    })
    .await;
    assert!(
        h.timeline
            .for_server(&spec.id)
            .iter()
            .any(|e| matches!(&e.event, Event::Enforced { .. })),
        "the server ran enforced"
    );
    session.shutdown().await;
}
