//! Shared set-up for the bridge's tests: a settings folder the tests write
//! as the window would (a real store), real servers, and AI-app stand-ins
//! on the official SDK clients that start `rootgate connect NAME` as their
//! server, as Claude Desktop or Cursor would. The command's tests
//! `use rootgate_test_support::app::*`; it holds no tests of its own, and
//! nothing of the core's in-process sessions (see `harness`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use rootgate_bridge::connections::ConnectionView;
use rootgate_core::supervisor::{Change, ConsentPrompt, Supervisor};
use rootgate_model::folders;
use rootgate_model::ids::{RootId, ServerId};
use rootgate_model::secrets::{MemoryKeyring, Secrets};
use rootgate_model::servers::{ServerDraft, ServerSpec};
use rootgate_model::settings::SettingsFile;
use rootgate_model::store::Store;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{broadcast, mpsc};

pub use crate::wait::{WAIT, eventually};

/// Whether this run has a keyring of its own (scripts/with-keyring.sh).
pub fn has_test_keyring() -> bool {
    std::env::var_os("ROOTGATE_TEST_KEYRING").is_some()
}

/// Where the stores of these tests keep secrets: in the run's own keyring
/// under scripts/with-keyring.sh; without it, in none (as on a desktop
/// without a keyring), and never in the person's own.
pub fn test_secrets() -> Arc<Secrets> {
    if has_test_keyring() {
        return Secrets::system();
    }
    let keyring = MemoryKeyring::default();
    keyring.set_unavailable(Some("this test run has no keyring"));
    Secrets::new(Arc::new(keyring))
}

/// The session bus given to the commands these tests run: the run's own
/// (inherited), or, without one, a bus that is not there.
pub fn bus_env() -> Option<(&'static str, &'static str)> {
    (!has_test_keyring()).then_some(("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus"))
}

pub use crate::peers::*;

/// Rootgate as the person set it up: the settings folder the bridges read,
/// written through a store, as the window writes it.
pub struct Rootgate {
    pub dir: tempfile::TempDir,
    pub config_home: PathBuf,
    pub store: Arc<Store>,
}

// No `Default`: each one makes a temporary folder and a store on disk,
// which a test should ask for by name, not get from `..Default::default()`.
#[allow(clippy::new_without_default)]
impl Rootgate {
    pub fn new() -> Rootgate {
        let dir = tempfile::tempdir().expect("tempdir");
        // Where a person's settings are: $HOME/.config, so that an app that
        // passes only HOME (as Claude Desktop does) finds them too.
        let config_home = dir.path().join("home/.config");
        let file = SettingsFile::at(config_home.join("rootgate/settings.json"));
        let (store, _) = Store::open_with_secrets(file, test_secrets()).expect("store");
        // A test's gate stops the servers its connections shared as soon as
        // the last one leaves, rather than keeping them for ten minutes
        // after the test (the tests of that keep set it back).
        store
            .change_preferences(|p| p.unused_server_minutes = Some(0))
            .expect("preferences");
        Rootgate {
            dir,
            config_home,
            store: Arc::new(store),
        }
    }

    /// Rootgate with its window's core running: the supervisor owns the
    /// settings (the store is its), as the desktop app does.
    pub fn with_window() -> (Rootgate, Arc<rootgate_core::supervisor::Supervisor>) {
        let dir = tempfile::tempdir().expect("tempdir");
        // Where a person's settings are: $HOME/.config, so that an app that
        // passes only HOME (as Claude Desktop does) finds them too.
        let config_home = dir.path().join("home/.config");
        let file = SettingsFile::at(config_home.join("rootgate/settings.json"));
        let supervisor = rootgate_core::supervisor::Supervisor::open_with_secrets(
            file,
            rootgate_session::SessionConfig::default(),
            rootgate_core::supervisor::RestartPolicy::default(),
            test_secrets(),
        )
        .expect("supervisor");
        // As `new`: the servers a test's gate shares stop with their last
        // connection.
        supervisor
            .store()
            .change_preferences(|p| p.unused_server_minutes = Some(0))
            .expect("preferences");
        let rootgate = Rootgate {
            dir,
            config_home,
            store: Arc::clone(supervisor.store()),
        };
        (rootgate, supervisor)
    }

    /// Adds a server and approves its command, as a person would.
    pub fn server(&self, name: &str, command: impl Into<String>, args: &[&str]) -> ServerSpec {
        self.server_in_era(name, command, args, Default::default())
    }

    /// Adds a server held to `era` (the person's per-server setting) and
    /// approves its command.
    pub fn server_in_era(
        &self,
        name: &str,
        command: impl Into<String>,
        args: &[&str],
        era: rootgate_model::servers::EraChoice,
    ) -> ServerSpec {
        let spec = self
            .store
            .add_server(ServerDraft {
                name: name.into(),
                command: command.into(),
                args: args.iter().map(|s| s.to_string()).collect(),
                era,
                ..Default::default()
            })
            .expect("add server");
        self.store
            .approve_command(&spec.id, &spec.command_line())
            .expect("approve")
    }

    /// A folder under the temporary folder, kept as a root (shared with no one).
    pub fn folder(&self, name: &str) -> (RootId, PathBuf) {
        let path = self.dir.path().join("folders").join(name);
        std::fs::create_dir_all(&path).expect("create folder");
        let checked = folders::check(&path).expect("check folder");
        let added = self.store.add_root(&checked, None).expect("add root");
        (added.root.id, checked.real().to_path_buf())
    }

    pub fn share(&self, server: &ServerId, root: &RootId) {
        self.store.grant(server, root).expect("grant");
    }

    /// The person's home folder, holding `.config/rootgate`.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The command an AI app's config names: `rootgate connect NAME`.
    pub fn connect_command(&self, name: &str) -> Vec<String> {
        vec![
            binary("rootgate").display().to_string(),
            "connect".into(),
            name.into(),
        ]
    }
}

/// An AI app stand-in, driven one request at a time.
pub struct App {
    pub child: Child,
    stdin: ChildStdin,
    lines: mpsc::UnboundedReceiver<Value>,
    /// Lines read but not yet asked for.
    seen: Vec<Value>,
    next_tag: u64,
    pub connected: Value,
}

fn stand_in(sdk: Sdk) -> Command {
    let (program, script) = match sdk {
        Sdk::TypeScript => (PathBuf::from("node"), "apps/ts_app.mjs"),
        Sdk::Python => (python(), "apps/py_app.py"),
        Sdk::TypeScript2 => (PathBuf::from("node"), "apps/ts2_app.mjs"),
    };
    let mut cmd = Command::new(program);
    cmd.arg(peers().join(script));
    cmd
}

/// Which official SDK client stands in for the app.
#[derive(Debug, Clone, Copy)]
pub enum Sdk {
    TypeScript,
    Python,
    /// The TypeScript SDK 2.x client (tests/peers/apps/ts2_app.mjs).
    TypeScript2,
}

impl App {
    /// Starts the stand-in on `sdk` with `options` (see the scripts), its
    /// server being `server_command`, and waits until it is connected (or
    /// failed to connect: then `connected` holds the error event).
    pub async fn start(
        rootgate: &Rootgate,
        sdk: Sdk,
        options: &[&str],
        server_command: &[String],
    ) -> App {
        let mut cmd = stand_in(sdk);
        cmd.args(options)
            .arg("--")
            .args(server_command)
            .env("XDG_CONFIG_HOME", &rootgate.config_home);
        App::spawn(cmd).await
    }

    /// [`App::start`] with only the settings' place (`XDG_CONFIG_HOME`),
    /// for a task that cannot borrow the [`Rootgate`].
    pub async fn start_with_config_home(
        config_home: &Path,
        sdk: Sdk,
        options: &[&str],
        server_command: &[String],
    ) -> App {
        let mut cmd = stand_in(sdk);
        cmd.args(options)
            .arg("--")
            .args(server_command)
            .env("XDG_CONFIG_HOME", config_home);
        App::spawn(cmd).await
    }

    /// [`App::start_with_config_home`] with the stand-in, and so the bridge
    /// it starts, working in `cwd` (as an app started in a project starts
    /// its servers there), and the variables `env` set.
    pub async fn start_in(
        config_home: &Path,
        cwd: &Path,
        env: &[(&str, &Path)],
        sdk: Sdk,
        options: &[&str],
        server_command: &[String],
    ) -> App {
        let mut cmd = stand_in(sdk);
        cmd.args(options)
            .arg("--")
            .args(server_command)
            .current_dir(cwd)
            .env("XDG_CONFIG_HOME", config_home);
        for (name, value) in env {
            cmd.env(name, value);
        }
        App::spawn(cmd).await
    }

    /// Starts the TypeScript stand-in as Claude Desktop starts a server:
    /// from `mcpServers.NAME` of a `claude_desktop_config.json`, with only
    /// the SDK's default environment (so HOME, not XDG_CONFIG_HOME, tells
    /// the bridge where the settings are).
    pub async fn start_from_config(rootgate: &Rootgate, config: &Path, name: &str) -> App {
        App::start_from_app_config(rootgate, config, name, None).await
    }

    /// [`App::start_from_config`] for any app's file (see ts_app.mjs), and
    /// for Claude Code a server of the project `project`.
    pub async fn start_from_app_config(
        rootgate: &Rootgate,
        config: &Path,
        name: &str,
        project: Option<&Path>,
    ) -> App {
        let mut cmd = stand_in(Sdk::TypeScript);
        if let Some(project) = project {
            cmd.arg("--project").arg(project);
        }
        cmd.arg("--config")
            .arg(config)
            .args(["--server", name])
            .env("HOME", rootgate.home())
            .env_remove("XDG_CONFIG_HOME");
        App::spawn(cmd).await
    }

    async fn spawn(mut cmd: Command) -> App {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("start the app stand-in");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                match serde_json::from_str::<Value>(&line) {
                    Ok(v) => {
                        if tx.send(v).is_err() {
                            return;
                        }
                    }
                    Err(_) => eprintln!("app stand-in wrote: {line}"),
                }
            }
        });
        let mut app = App {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            next_tag: 1,
            connected: Value::Null,
        };
        app.connected = app
            .wait(|v| matches!(v["event"].as_str(), Some("connected" | "connectFailed")))
            .await;
        app
    }

    /// Waits for a line that satisfies `want`, keeping the others.
    pub async fn wait(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&want) {
            return self.seen.remove(i);
        }
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            match tokio::time::timeout_at(deadline, self.lines.recv()).await {
                Ok(Some(v)) if want(&v) => return v,
                Ok(Some(v)) => self.seen.push(v),
                Ok(None) => panic!("the app stand-in ended; it had written {:#?}", self.seen),
                Err(_) => panic!("nothing matching within {WAIT:?}; seen {:#?}", self.seen),
            }
        }
    }

    /// Events of one kind seen so far (and taken).
    pub fn take_events(&mut self, kind: &str) -> Vec<Value> {
        let (taken, kept) = std::mem::take(&mut self.seen)
            .into_iter()
            .partition(|v| v["event"] == kind);
        self.seen = kept;
        taken
    }

    /// Sends a request (without waiting) and returns its tag.
    pub async fn send(&mut self, mut request: Value) -> u64 {
        let tag = self.next_tag;
        self.next_tag += 1;
        request["tag"] = json!(tag);
        let mut line = request.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("write to the stand-in");
        tag
    }

    /// Sends a request and returns its answer: `{"ok": ...}` or `{"error": ...}`.
    pub async fn request(&mut self, request: Value) -> Value {
        let tag = self.send(request).await;
        self.wait(|v| v["tag"] == tag).await
    }

    /// A tool call's result, failing the test on a JSON-RPC error.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Value {
        let answer = self
            .request(json!({"op": "callTool", "name": name, "arguments": arguments}))
            .await;
        match answer.get("ok") {
            Some(ok) => ok.clone(),
            None => panic!("tools/call {name} failed: {answer}"),
        }
    }
}

/// The processes whose command line holds `marker`, that are not zombies.
pub fn processes_with(marker: &str) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let zombie = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    s.rsplit_once(')')
                        .map(|(_, r)| r.trim_start().starts_with('Z'))
                })
                .unwrap_or(true);
            !zombie && String::from_utf8_lossy(&cmdline).contains(marker)
        })
        .collect()
}

/// The folders the npm filesystem server says it allows, through its own
/// `list_allowed_directories` tool, collected as the caller wants them.
pub async fn allowed<C: FromIterator<PathBuf>>(app: &mut App) -> C {
    let result = app.call("list_allowed_directories", json!({})).await;
    folders_in(&result)
}

/// The same, or the error the app got instead, for tests that expect one
/// while Rootgate changes the server.
pub async fn allowed_or_error(app: &mut App) -> Result<Vec<PathBuf>, Value> {
    let answer = app
        .request(json!({"op": "callTool", "name": "list_allowed_directories", "arguments": {}}))
        .await;
    match answer.get("ok") {
        Some(ok) => Ok(folders_in(ok)),
        None => Err(answer),
    }
}

/// The folders a `list_allowed_directories` result names, one per line.
pub fn folders_in<C: FromIterator<PathBuf>>(result: &Value) -> C {
    tool_text(result)
        .lines()
        .filter(|l| l.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

/// The connection the window lists that `want` picks, waited for.
pub async fn connection(
    sup: &Arc<Supervisor>,
    want: impl Fn(&ConnectionView) -> bool,
) -> ConnectionView {
    eventually("the connection to show in the window", || async {
        let all = sup.bridges().list();
        all.iter()
            .find(|c| want(c))
            .cloned()
            .ok_or_else(|| format!("{all:#?}"))
    })
    .await
}

/// The next consent prompt made from an AI app's suggestion, waited for.
pub async fn suggested(changes: &mut broadcast::Receiver<Change>) -> ConsentPrompt {
    let wait = async {
        loop {
            if let Ok(Change::Prompts { prompts }) = changes.recv().await
                && let Some(prompt) = prompts.into_iter().find(|p| p.suggestion.is_some())
            {
                return prompt;
            }
        }
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .expect("no suggestion prompt came")
}
