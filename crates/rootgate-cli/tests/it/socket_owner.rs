//! The window's socket when it is not the person's window (#39): the real
//! `rootgate import --set TOKEN=-`, `rootgate FOLDER` (a second start) and
//! `rootgate add` against a socket in a folder open to others, in a folder
//! another user owns, and against a listener running as another user
//! (uid 65534, `nobody`). Each command refuses in words, and the listener
//! receives nothing: no connection at all when the folder is wrong (its
//! backlog is empty), and zero bytes when only the listener's uid is (the
//! command must connect to learn it, and closes without writing).
//!
//! Making a folder another user's and a process of another uid needs root,
//! which these tests run as; as anyone else they fail at once, saying so.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rootgate_core::connections::socket_path;
use rootgate_core::instance;
use rootgate_test_support::app::*;

const NOBODY: u32 = 65534;
const TYPED: &str = "typed-secret-MARKER";

fn needs_root() {
    assert!(
        nix::unistd::geteuid().is_root(),
        "this test makes a folder another user's and runs a listener as uid {NOBODY}: run it as root"
    );
}

/// The runtime folder the commands are given, and where in it the window's
/// socket of `rg`'s settings is (the same name `socket_path` gives).
fn socket_in(rg: &Rootgate) -> (PathBuf, PathBuf) {
    let runtime = rg.dir.path().join("run");
    std::fs::create_dir_all(&runtime).expect("runtime folder");
    let settings = rg.config_home.join("rootgate/settings.json");
    let name = socket_path(&settings)
        .file_name()
        .expect("a file name")
        .to_owned();
    (runtime.clone(), runtime.join("rootgate").join(name))
}

/// A Claude Desktop config with a server whose token is asked for.
fn config_asking_for_a_token(rg: &Rootgate) -> PathBuf {
    let dir = rg.config_home.join("Code/User");
    std::fs::create_dir_all(&dir).expect("dir");
    let path = dir.join("mcp.json");
    std::fs::write(
        &path,
        r#"{
  "inputs": [{ "type": "promptString", "id": "token", "password": true }],
  "servers": {
    "github": { "type": "stdio", "command": "github-mcp", "args": ["stdio"],
                "env": { "GITHUB_TOKEN": "${input:token}" } }
  }
}
"#,
    )
    .expect("write");
    path
}

/// Runs the real `rootgate` with `args`, the runtime folder `runtime`, and
/// `stdin` typed in.
fn rootgate(rg: &Rootgate, runtime: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(binary("rootgate"))
        .args(args)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_RUNTIME_DIR", runtime)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rootgate");
    let mut input = child.stdin.take().expect("stdin");
    // A command that refuses before reading may have closed its input.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    child.wait_with_output().expect("rootgate ended")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

const IMPORT: &[&str] = &["import", "vscode", "github", "--set", "${input:token}=-"];

/// Checks that `out` refused in words naming `why`, and that nothing was
/// imported behind the window's back either.
fn refused(rg: &Rootgate, out: &Output, why: &str) {
    let said = text(&out.stderr);
    assert!(!out.status.success(), "{said}");
    assert!(
        said.contains("nothing was sent to the Rootgate window"),
        "{said}"
    );
    assert!(said.contains(why), "{said}");
    assert!(!said.contains(TYPED) && !text(&out.stdout).contains(TYPED));
    rg.store.reload().expect("reload");
    assert!(
        rg.store.snapshot().servers.is_empty(),
        "nothing was imported"
    );
}

/// A listener at `socket`, in a process of its own (Python), as this user
/// or as uid 65534: bound as root, then the process becomes `nobody`
/// before it listens, so that the socket's peer credentials (taken at
/// `listen`) are nobody's. It prints `ready`, then `got N` for each
/// connection, N being the bytes it read up to a newline or the other
/// side's close; then it closes that connection, so that a command that
/// did send (an older `rootgate`) is not left waiting for an answer.
const LISTENER: &str = r#"
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
if sys.argv[2] == "nobody":
    os.setgroups([])
    os.setresgid(65534, 65534, 65534)
    os.setresuid(65534, 65534, 65534)
s.listen(8)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    got = b""
    while not got.endswith(b"\n"):
        b = c.recv(65536)
        if not b:
            break
        got += b
    print(f"got {len(got)}", flush=True)
    c.close()
"#;

struct Listener {
    child: std::process::Child,
    heard: std::io::Lines<BufReader<std::process::ChildStdout>>,
    socket: PathBuf,
}

impl Listener {
    fn start(socket: &Path, nobody: bool) -> Listener {
        let mut child = Command::new("python3")
            .args(["-c", LISTENER])
            .arg(socket)
            .arg(if nobody { "nobody" } else { "same" })
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3");
        let mut heard = BufReader::new(child.stdout.take().expect("stdout")).lines();
        assert_eq!(heard.next().expect("a line").expect("read"), "ready");
        Listener {
            child,
            heard,
            socket: socket.to_owned(),
        }
    }

    /// What the listener said of its next connection.
    fn next(&mut self) -> String {
        self.heard.next().expect("a line").expect("read")
    }

    /// Checks that nothing connected before now: a probe of the test's
    /// own (6 bytes) is the first connection the listener took.
    fn nothing_before_now(&mut self) {
        let mut probe = std::os::unix::net::UnixStream::connect(&self.socket).expect("probe");
        probe.write_all(b"probe\n").expect("probe");
        assert_eq!(
            self.next(),
            "got 6",
            "a command connected to a socket it should not trust"
        );
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_socket_in_a_folder_open_to_others_gets_nothing() {
    let rg = Rootgate::new();
    let (runtime, socket) = socket_in(&rg);
    let folder = socket.parent().expect("folder");
    std::fs::create_dir(folder).expect("folder");
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut listener = Listener::start(&socket, false);
    config_asking_for_a_token(&rg);

    let out = rootgate(&rg, &runtime, IMPORT, &format!("{TYPED}\n"));
    refused(&rg, &out, "mode 0755");
    let add = rootgate(&rg, &runtime, &["add", "io.example/files"], "");
    assert!(
        text(&add.stderr).contains("nothing was sent"),
        "{}",
        text(&add.stderr)
    );
    listener.nothing_before_now();
    assert_eq!(
        std::fs::metadata(folder)
            .expect("folder")
            .permissions()
            .mode()
            & 0o777,
        0o755,
        "the folder is refused, not taken over"
    );
}

#[test]
fn a_socket_in_another_users_folder_gets_nothing() {
    needs_root();
    let rg = Rootgate::new();
    let (runtime, socket) = socket_in(&rg);
    let folder = socket.parent().expect("folder");
    std::fs::create_dir(folder).expect("folder");
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let mut listener = Listener::start(&socket, false);
    std::os::unix::fs::chown(folder, Some(NOBODY), Some(NOBODY)).expect("chown");
    config_asking_for_a_token(&rg);

    let out = rootgate(&rg, &runtime, IMPORT, &format!("{TYPED}\n"));
    refused(
        &rg,
        &out,
        &format!("belongs to another user (uid {NOBODY})"),
    );

    // A second start, with a window holding the settings' lock, hands
    // its folders to nobody either.
    let settings = rg.config_home.join("rootgate/settings.json");
    let _owner = instance::claim(&settings).unwrap().expect("the lock");
    let shared = rg.dir.path().join("notes");
    std::fs::create_dir(&shared).expect("notes");
    let second = rootgate(&rg, &runtime, &[shared.to_str().expect("utf-8")], "");
    let said = text(&second.stderr);
    assert!(!second.status.success(), "{said}");
    assert!(said.contains("nothing was sent"), "{said}");
    assert!(
        said.contains("these folders were not handed over"),
        "{said}"
    );
    listener.nothing_before_now();
}

#[test]
fn a_listener_of_another_user_gets_no_byte() {
    needs_root();
    let rg = Rootgate::new();
    let (runtime, socket) = socket_in(&rg);
    let folder = socket.parent().expect("folder");
    std::fs::create_dir(folder).expect("folder");
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let mut nobody = Listener::start(&socket, true);
    config_asking_for_a_token(&rg);

    let out = rootgate(&rg, &runtime, IMPORT, &format!("{TYPED}\n"));
    refused(
        &rg,
        &out,
        &format!("is listened on by another user (uid {NOBODY})"),
    );
    // The command connected to learn who listens, and closed having
    // written nothing.
    assert_eq!(nobody.next(), "got 0");

    let settings = rg.config_home.join("rootgate/settings.json");
    let _owner = instance::claim(&settings).unwrap().expect("the lock");
    let shared = rg.dir.path().join("notes");
    std::fs::create_dir(&shared).expect("notes");
    let second = rootgate(&rg, &runtime, &[shared.to_str().expect("utf-8")], "");
    let said = text(&second.stderr);
    assert!(!second.status.success(), "{said}");
    assert!(said.contains("nothing was sent"), "{said}");
    assert_eq!(nobody.next(), "got 0");
}
