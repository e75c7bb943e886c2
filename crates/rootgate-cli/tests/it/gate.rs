//! The resident gate (issue #42, its first part): every `rootgate connect`
//! is a door that hands the app's streams to one gate process per settings
//! file, which serves the connection. Checked with real programs: the
//! official TypeScript SDK client as the app, the npm filesystem and
//! everything servers, the real `rootgate` binary as door and gate, and
//! systemd's own `systemd-socket-activate` for socket activation. Each
//! test's settings are its own, so its gate is its own too.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use rootgate_test_support::app::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};

/// The gates serving `rg`'s settings: processes `rootgate gate --settings
/// FILE` for its file.
pub(crate) fn gates(rg: &Rootgate) -> Vec<i32> {
    let marker = format!("gate\0--settings\0{}", rg.store.file().path().display());
    // The program itself (not systemd's activator, whose command line
    // names it before it becomes it).
    processes_with(&marker)
        .into_iter()
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/exe"))
                .is_ok_and(|exe| exe.file_name().is_some_and(|n| n == "rootgate"))
        })
        .collect()
}

/// A door started as an AI app starts a server: pipes for its standard
/// streams, the settings found through `XDG_CONFIG_HOME`.
pub(crate) struct Door {
    pub(crate) child: Child,
    stdin: ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Door {
    pub(crate) fn start(program: &Path, rg: &Rootgate, name: &str) -> Door {
        let mut child = Command::new(program)
            .args(["connect", name])
            .env("XDG_CONFIG_HOME", &rg.config_home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start rootgate connect");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Door {
            child,
            stdin,
            lines,
        }
    }

    pub(crate) async fn ask(&mut self, request: Value) -> Value {
        self.ask_all(request)
            .await
            .pop()
            .expect("at least the answer")
    }

    /// Writes one message to the door, reading nothing.
    pub(crate) async fn send(&mut self, message: Value) {
        let mut line = serde_json::to_vec(&message).expect("a message as JSON");
        line.push(b'\n');
        self.stdin
            .write_all(&line)
            .await
            .expect("write to the door");
    }

    /// Sends `request` and reads up to its answer: every message the door
    /// wrote before it, then the answer.
    pub(crate) async fn ask_all(&mut self, request: Value) -> Vec<Value> {
        let id = request["id"].clone();
        self.send(request).await;
        self.read_until(&id).await
    }

    /// Reads up to the answer to request `id`: every message before it,
    /// then the answer.
    pub(crate) async fn read_until(&mut self, id: &Value) -> Vec<Value> {
        let mut read = Vec::new();
        loop {
            let line = tokio::time::timeout(WAIT, self.lines.next_line())
                .await
                .expect("an answer in time")
                .expect("read the door");
            let Some(line) = line else {
                // What the door said, for the failure to say why.
                let mut said = String::new();
                if let Some(mut stderr) = self.child.stderr.take() {
                    let _ = tokio::time::timeout(WAIT, stderr.read_to_string(&mut said)).await;
                }
                let status = tokio::time::timeout(WAIT, self.child.wait()).await;
                panic!(
                    "the door's output ended before the answer to {id}: {status:?}, it said: {said}"
                );
            };
            let message: Value = serde_json::from_str(&line).expect("JSON from the door");
            let done = message["id"] == *id && message.get("method").is_none();
            read.push(message);
            if done {
                return read;
            }
        }
    }

    pub(crate) async fn initialize(&mut self) -> Value {
        let answer = self
            .ask(
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "gate-test", "version": "1"}}}),
            )
            .await;
        let mut line =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .expect("JSON");
        line.push(b'\n');
        self.stdin
            .write_all(&line)
            .await
            .expect("write to the door");
        answer
    }

    /// Closes the app's side, as an app that is done does, and waits for
    /// the door to end.
    pub(crate) async fn close(self) -> (Option<i32>, String) {
        drop(self.stdin);
        ended(self.child).await
    }

    /// Waits for the door to end: its exit code and its standard error.
    pub(crate) async fn ended(self) -> (Option<i32>, String) {
        ended(self.child).await
    }
}

/// Waits for a door to end: its exit code and its standard error.
async fn ended(mut child: Child) -> (Option<i32>, String) {
    {
        let mut stderr = child.stderr.take().expect("stderr");
        let status = tokio::time::timeout(WAIT, child.wait())
            .await
            .expect("the door ends in time")
            .expect("wait for the door");
        let mut said = String::new();
        let _ = stderr.read_to_string(&mut said).await;
        (status.code(), said)
    }
}

pub(crate) fn kill(pid: i32) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill");
}

/// Node processes whose command line holds `marker`: the servers.
pub(crate) fn servers_with(marker: &str) -> usize {
    processes_with(marker)
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .unwrap_or_default()
                .starts_with(b"node\0")
        })
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_app_sessions_reach_one_gate_and_each_sees_exactly_its_folders() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (a, a_path) = rg.folder("shared");
    rg.share(&files.id, &a);
    let _ = rg.folder("not shared");
    let mut apps = Vec::new();
    for _ in 0..5 {
        apps.push(App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await);
    }
    for app in &mut apps {
        assert_eq!(app.connected["event"], "connected", "{}", app.connected);
        let seen: BTreeSet<PathBuf> = allowed(app).await;
        assert_eq!(seen, BTreeSet::from([a_path.clone()]));
    }
    // One gate serves all five; each app's own process is a door.
    assert_eq!(gates(&rg).len(), 1, "one gate for every session");
    // The doors: `rootgate connect files`, become `rootgate-door SETTINGS
    // files`, not the apps' node processes, whose command lines name it too;
    // only this test's (its settings file), not those of tests beside it.
    let marker = format!("{}\0files\0", rg.store.file().path().display());
    let doors = processes_with(&marker)
        .into_iter()
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/exe"))
                .is_ok_and(|exe| exe.file_name().is_some_and(|n| n == "rootgate-door"))
        })
        .count();
    assert_eq!(doors, 5, "a door per app session");
    for app in &mut apps {
        app.send(json!({"op": "close"})).await;
        let _ = app.child.wait().await;
    }
}

/// Two doors on the everything server, both initialized, its processes
/// marked with `tag` (and this test process's id) to be counted by.
async fn two_doors(tag: &str) -> (Rootgate, String, [Door; 2]) {
    let rg = Rootgate::new();
    let marker = format!("{}-{tag}", std::process::id());
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio", &marker]);
    let rootgate = binary("rootgate");
    let mut doors = [
        Door::start(&rootgate, &rg, "everything"),
        Door::start(&rootgate, &rg, "everything"),
    ];
    for door in &mut doors {
        let answer = door.initialize().await;
        assert!(answer.get("result").is_some(), "{answer}");
    }
    (rg, marker, doors)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_gate_ends_every_door_in_words_and_the_next_connection_starts_a_new_one() {
    let (rg, marker, [one, two]) = two_doors("gate-killed").await;
    let rootgate = binary("rootgate");
    let gate = gates(&rg);
    assert_eq!(gate.len(), 1, "{gate:?}");
    kill(gate[0]);
    for door in [one, two] {
        let (code, said) = door.ended().await;
        assert_eq!(code, Some(1), "{said}");
        assert!(
            said.contains("the Rootgate gate ended before this connection did"),
            "{said}"
        );
    }
    // The servers it ran end with it (their launcher watches the gate).
    eventually("the killed gate's servers to end", || async {
        match servers_with(&marker) {
            0 => Ok(()),
            n => Err(format!("{n} servers")),
        }
    })
    .await;
    let mut next = Door::start(&rootgate, &rg, "everything");
    let answer = next.initialize().await;
    assert!(answer.get("result").is_some(), "{answer}");
    let now = gates(&rg);
    assert_eq!(now.len(), 1);
    assert_ne!(now[0], gate[0], "a new gate");
    let (code, said) = next.close().await;
    assert_eq!(code, Some(0), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_door_ends_its_connection_and_leaves_the_others_working() {
    let (_rg, marker, [one, mut two]) = two_doors("door-killed").await;
    assert_eq!(
        servers_with(&marker),
        1,
        "the two connections share a server"
    );
    kill(one.child.id().expect("pid") as i32);
    // The other connection's calls still reach the server they shared.
    let echoed = two
        .ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"message": "still here"}}}))
        .await;
    assert!(echoed.to_string().contains("still here"), "{echoed}");
    assert_eq!(servers_with(&marker), 1, "the shared server goes on");
    let (code, said) = two.close().await;
    assert_eq!(code, Some(0), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gate_of_another_build_steps_aside_for_the_door_of_this_one() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    // Another build of the program: a copy, as an upgrade leaves one
    // (another file, another time), with its launcher beside it.
    let older = rg.dir.path().join("older");
    std::fs::create_dir_all(&older).unwrap();
    for name in ["rootgate", "rootgate-launcher"] {
        std::fs::copy(binary(name), older.join(name)).unwrap();
    }
    let mut old = Door::start(&older.join("rootgate"), &rg, "everything");
    assert!(old.initialize().await.get("result").is_some());
    let first = gates(&rg);
    assert_eq!(first.len(), 1);
    let mut new = Door::start(&binary("rootgate"), &rg, "everything");
    assert!(new.initialize().await.get("result").is_some());
    let both = gates(&rg);
    assert_eq!(
        both.len(),
        2,
        "the old gate serves its connection to its end"
    );
    // The old connection still works, then ends; its gate ends with it.
    let pong = old
        .ask(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await;
    assert!(pong.get("result").is_some(), "{pong}");
    let (code, said) = old.close().await;
    assert_eq!(code, Some(0), "{said}");
    eventually("the old gate to end", || async {
        if gates(&rg).contains(&first[0]) {
            Err("still running".to_string())
        } else {
            Ok(())
        }
    })
    .await;
    let pong = new
        .ask(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    assert!(pong.get("result").is_some(), "{pong}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn systemd_socket_activation_starts_the_gate_on_the_first_connection() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let socket = rootgate_bridge::gate::gate_socket_path(rg.store.file().path());
    rootgate_bridge::window_socket::private_dir(socket.parent().unwrap()).unwrap();
    let settings = rg.store.file().path().display().to_string();
    // systemd's own tool: listens, and on the first connection starts the
    // gate with the socket as LISTEN_FDS says, as the user unit does.
    let mut activator = Command::new("systemd-socket-activate")
        .arg("-l")
        .arg(&socket)
        .args([binary("rootgate").display().to_string(), "gate".into()])
        .args(["--settings", &settings])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("systemd-socket-activate (the systemd package)");
    eventually("the activator to listen", || async {
        if socket.exists() {
            Ok(())
        } else {
            Err("no socket yet".to_string())
        }
    })
    .await;
    assert!(
        gates(&rg).is_empty(),
        "nothing runs before the first connection"
    );
    let mut door = Door::start(&binary("rootgate"), &rg, "everything");
    let answer = door.initialize().await;
    assert!(answer.get("result").is_some(), "{answer}");
    let gate = gates(&rg);
    assert_eq!(gate.len(), 1);
    // The gate is the activator's own process, told of the socket: the
    // door started none.
    assert_eq!(gate[0], activator.id().expect("pid") as i32);
    let (code, said) = door.close().await;
    assert_eq!(code, Some(0), "{said}");
    let _ = activator.kill().await;
}

/// A program of the person's own that is not a door: garbage instead of a
/// hello, a hello with no streams, one with four, one that never ends. Each
/// is closed without being served, and the gate goes on serving doors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_program_that_is_not_a_door_is_closed_unserved_and_the_gate_goes_on() {
    use std::io::{IoSlice, Read, Write};
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let rootgate = binary("rootgate");
    let mut door = Door::start(&rootgate, &rg, "everything");
    assert!(door.initialize().await.get("result").is_some());
    let socket = rootgate_bridge::gate::gate_socket_path(rg.store.file().path());
    let hello = format!(
        "{{\"build\":\"x\",\"settings\":{:?},\"server\":\"everything\",\"working_folder\":null,\"env\":{{}}}}\n",
        rg.store.file().path()
    );
    // Each is answered by the gate closing the socket, with no reply.
    let closed_unanswered = |mut stream: UnixStream| {
        stream.set_read_timeout(Some(WAIT)).expect("a read timeout");
        let mut answer = Vec::new();
        stream
            .read_to_end(&mut answer)
            .expect("the gate closes the socket");
        assert!(answer.is_empty(), "{}", String::from_utf8_lossy(&answer));
    };
    let mut garbage = UnixStream::connect(&socket).expect("connect");
    garbage.write_all(b"\x00\xffnot a hello\n").expect("write");
    closed_unanswered(garbage);
    let mut bare = UnixStream::connect(&socket).expect("connect");
    bare.write_all(hello.as_bytes()).expect("write");
    closed_unanswered(bare);
    let four = UnixStream::connect(&socket).expect("connect");
    let (a, b) = (std::io::stdin(), std::io::stdout());
    let fds = [a.as_fd(), b.as_fd(), a.as_fd(), b.as_fd()];
    let mut space = [std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(4))];
    let mut rights = rustix::net::SendAncillaryBuffer::new(&mut space);
    assert!(rights.push(rustix::net::SendAncillaryMessage::ScmRights(&fds)));
    rustix::net::sendmsg(
        &four,
        &[IoSlice::new(hello.as_bytes())],
        &mut rights,
        rustix::net::SendFlags::empty(),
    )
    .expect("sendmsg");
    closed_unanswered(four);
    // One that connects and says nothing is let go after the hello's time.
    closed_unanswered(UnixStream::connect(&socket).expect("connect"));
    let pong = door
        .ask(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await;
    assert!(pong.get("result").is_some(), "{pong}");
    let mut another = Door::start(&rootgate, &rg, "everything");
    assert!(another.initialize().await.get("result").is_some());
    assert_eq!(gates(&rg).len(), 1, "the same gate serves on");
}

/// Another user cannot reach the gate: its folder is the person's own and
/// closed to others, so a program running as `nobody` cannot even connect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_user_cannot_reach_the_gate() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let mut door = Door::start(&binary("rootgate"), &rg, "everything");
    assert!(door.initialize().await.get("result").is_some());
    let socket = rootgate_bridge::gate::gate_socket_path(rg.store.file().path());
    let probe = format!(
        "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect({:?})\n print('connected')\nexcept OSError as e:\n print(type(e).__name__)\n",
        socket.display().to_string()
    );
    let out = std::process::Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "/usr/bin/python3",
            "-c",
            &probe,
        ])
        .output()
        .expect("setpriv (util-linux)");
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        said.trim(),
        "PermissionError",
        "{said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Without a gate that can be reached or started, the door says why on the
/// app's standard error and exits 1, the app's input unread: here the
/// runtime folder the gate's socket would be in is another user's
/// (a folder this user does not own), which no door trusts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_door_that_can_reach_no_gate_says_why_and_exits_1() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let runtime = rg.dir.path().join("run");
    let theirs = runtime.join("rootgate");
    std::fs::create_dir_all(&theirs).expect("the runtime folder");
    std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).expect("chown to nobody");
    let out = tokio::process::Command::new(binary("rootgate"))
        .args(["connect", "everything"])
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_RUNTIME_DIR", &runtime)
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run rootgate connect");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("the Rootgate gate's socket cannot be trusted")
            && said.contains("belongs to another user"),
        "{said}"
    );
    assert!(out.stdout.is_empty());
    assert!(gates(&rg).is_empty(), "no gate was started");
}

/// A hello that names other settings than the gate's (a door whose
/// environment names others, a forged one) is refused in words on the
/// stderr it handed over, with exit 1, and nothing of either settings file
/// is served: the app's output stays empty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hello_naming_other_settings_is_refused_in_words_and_served_nothing() {
    use std::io::{IoSlice, Read};
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let mut door = Door::start(&binary("rootgate"), &rg, "everything");
    assert!(door.initialize().await.get("result").is_some());
    let socket = rootgate_bridge::gate::gate_socket_path(rg.store.file().path());
    let hello = serde_json::to_vec(&json!({
        "build": rootgate_bridge::gate::door::build_of(&binary("rootgate")),
        "settings": rg.dir.path().join("elsewhere/settings.json"),
        "server": "everything",
        "working_folder": null,
        "env": {},
    }))
    .expect("JSON");
    let (app_in, _app_in_writer) = std::io::pipe().expect("a pipe");
    let (mut app_out_reader, app_out) = std::io::pipe().expect("a pipe");
    let (mut err_reader, err) = std::io::pipe().expect("a pipe");
    let stream = UnixStream::connect(&socket).expect("connect");
    let fds = [app_in.as_fd(), app_out.as_fd(), err.as_fd()];
    let mut space = [std::mem::MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(3))];
    let mut rights = rustix::net::SendAncillaryBuffer::new(&mut space);
    assert!(rights.push(rustix::net::SendAncillaryMessage::ScmRights(&fds)));
    rustix::net::sendmsg(
        &stream,
        &[IoSlice::new(&hello), IoSlice::new(b"\n")],
        &mut rights,
        rustix::net::SendFlags::empty(),
    )
    .expect("sendmsg");
    drop((app_in, app_out, err));
    stream.set_read_timeout(Some(WAIT)).expect("a timeout");
    let mut reply = String::new();
    (&stream)
        .read_to_string(&mut reply)
        .expect("the gate's reply");
    assert_eq!(reply.trim(), r#"{"exit":1}"#);
    let mut said = String::new();
    err_reader.read_to_string(&mut said).expect("the words");
    assert!(
        said.contains("serves the settings") && said.contains("nothing was started"),
        "{said}"
    );
    let mut served = Vec::new();
    app_out_reader
        .read_to_end(&mut served)
        .expect("the app's output");
    assert!(served.is_empty(), "{}", String::from_utf8_lossy(&served));
}
