//! The Rootgate window as a process of its own, for tests that must
//! `kill -9` it or start a second one: a stand-in that does what the
//! desktop app's start does without a display (it takes the settings'
//! lock or hands over to the Rootgate that has it, opens the supervisor on
//! the settings, listens for bridges on the window's socket), and then
//! changes what a person changes in the window (share, withdraw, pause,
//! resume, Workspace, approve) on one JSON line each from its standard
//! input, answering each on one line once the supervisor returned, which
//! is when the window would show the change.
//!
//! It is the supervisor the app runs, not the app: no webview, no tray, no
//! notifications, and the servers are not started by it (the bridges run
//! them). The process is the test binary run again with [`WINDOW_ENV`]
//! set to the settings file (see [`WindowProcess::start`]); the test that
//! is run calls [`serve_if_asked`] first, which serves and returns `true`
//! in that process and does nothing in the test's own.
//!
//! Not here: any model of what the window should do, or checks; the tests
//! that drive it hold those.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use rootgate_bridge::instance::{self, Start};
use rootgate_core::supervisor::{RestartPolicy, Supervisor};
use rootgate_model::ids::{RootId, ServerId};
use rootgate_model::settings::SettingsFile;
use rootgate_session::SessionConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use crate::app::{WAIT, test_secrets};

/// Set to the settings file's path, it makes the test binary the window.
pub const WINDOW_ENV: &str = "ROOTGATE_TEST_WINDOW_SETTINGS";

/// What the stand-in's own lines start with: libtest writes lines of its
/// own on the same standard output.
const MARK: &str = "window-stand-in: ";

/// Serves as the window when this process was started as one, and says
/// so; the test calling it returns at once when it did.
pub async fn serve_if_asked() -> bool {
    let Some(settings) = std::env::var_os(WINDOW_ENV) else {
        return false;
    };
    serve(PathBuf::from(settings)).await;
    true
}

fn say(value: Value) {
    // One write per line, so a kill never leaves half of one.
    let line = format!("{MARK}{value}\n");
    let mut out = std::io::stdout().lock();
    let _ = std::io::Write::write_all(&mut out, line.as_bytes());
    let _ = std::io::Write::flush(&mut out);
}

async fn serve(settings: PathBuf) {
    let request = instance::request_for(&[]);
    let owner = match instance::start(&settings, &request, instance::PATIENCE) {
        Ok(Start::Own(owner)) => owner,
        Ok(Start::HandedOver(_)) => return say(json!({"handedOver": true})),
        Err(e) => return say(json!({"failed": e.to_string()})),
    };
    let supervisor = match Supervisor::open_with_secrets(
        SettingsFile::at(&settings),
        SessionConfig::default(),
        RestartPolicy::default(),
        test_secrets(),
    ) {
        Ok(supervisor) => supervisor,
        Err(e) => return say(json!({"failed": e.to_string()})),
    };
    // As the harness's own stores: the servers a test's gate shares stop
    // with their last connection, not ten minutes after the test.
    if let Err(e) = supervisor.preferences().set_unused_server_minutes(0) {
        return say(json!({"failed": e.to_string()}));
    }
    // A second start hands over here, as to the app (which raises its
    // window; there is none).
    supervisor.take_other_starts(Box::new(|_| {}));
    if let Err(e) = supervisor.listen_for_bridges().await {
        return say(json!({"failed": e.to_string()}));
    }
    say(json!({"ready": std::process::id()}));
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let answer = match serde_json::from_str::<Value>(&line) {
            Ok(request) => match change(&supervisor, &request).await {
                Ok(()) => json!({"ok": true}),
                Err(e) => json!({"error": e}),
            },
            Err(e) => json!({"error": format!("not JSON: {e}")}),
        };
        say(answer);
    }
    supervisor.shutdown().await;
    drop(owner);
}

fn server_id(sup: &Supervisor, name: &str) -> Result<ServerId, String> {
    sup.servers()
        .list()
        .into_iter()
        .find(|s| s.spec.name == name)
        .map(|s| s.spec.id)
        .ok_or_else(|| format!("no server named {name}"))
}

fn root_of(sup: &Supervisor, folder: &Path) -> Option<RootId> {
    sup.folders()
        .list()
        .into_iter()
        .find(|f| f.root.real_path == folder)
        .map(|f| f.root.id)
}

/// One change, as the window's controls make it.
async fn change(sup: &Arc<Supervisor>, request: &Value) -> Result<(), String> {
    let text = |key: &str| request[key].as_str().unwrap_or_default().to_owned();
    let e = |e: rootgate_core::supervisor::SupervisorError| e.to_string();
    match request["op"].as_str().unwrap_or_default() {
        // The consent prompt of a folder (kept already or not), answered
        // with the servers that see it now and this one.
        "share" => {
            let server = server_id(sup, &text("server"))?;
            let folder = PathBuf::from(text("folder"));
            let (prompt, mut servers) = match root_of(sup, &folder) {
                Some(root) => {
                    let seen = sup
                        .folders()
                        .list()
                        .into_iter()
                        .find(|f| f.root.id == root)
                        .map(|f| f.servers)
                        .unwrap_or_default();
                    (sup.consent().prompt_for_root(&root).map_err(e)?, seen)
                }
                None => (
                    sup.consent().prompt_for_path(&folder).map_err(e)?,
                    Vec::new(),
                ),
            };
            if !servers.contains(&server) {
                servers.push(server);
            }
            sup.consent()
                .answer_prompt(prompt.id, &servers, None)
                .map_err(e)?;
            Ok(())
        }
        "withdraw" => {
            let server = server_id(sup, &text("server"))?;
            let folder = PathBuf::from(text("folder"));
            let root = root_of(sup, &folder).ok_or("the folder is not kept")?;
            sup.folders().revoke(&server, &root).map_err(e)
        }
        "pause" => sup.preferences().set_sharing_paused(true).map_err(e),
        "resume" => sup.preferences().set_sharing_paused(false).map_err(e),
        "workspace" => {
            let id = server_id(sup, &text("server"))?;
            let mut draft = sup.servers().server(&id).map_err(e)?.spec.to_draft();
            draft.workspace_only = request["on"].as_bool().unwrap_or_default();
            sup.servers().update_server(&id, draft).await.map_err(e)?;
            Ok(())
        }
        "approve" => {
            let id = server_id(sup, &text("server"))?;
            let line = sup.servers().server(&id).map_err(e)?.spec.command_line();
            sup.servers().approve_command(&id, &line).map_err(e)?;
            Ok(())
        }
        other => Err(format!("no change {other:?}")),
    }
}

/// This test binary, hard-linked (else copied) into `dir`, for starting
/// it again as the window: a build that replaces the binary while a long
/// run goes on (on a machine shared with other builds) would otherwise take
/// it away from under the next start.
pub fn pinned_test_binary(dir: &Path) -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let pinned = dir.join("window-stand-in");
    if std::fs::hard_link(&exe, &pinned).is_err() {
        std::fs::copy(&exe, &pinned).map_err(|e| format!("copy {}: {e}", exe.display()))?;
    }
    Ok(pinned)
}

/// How a start of the stand-in ended up.
pub enum Started {
    /// It owns the settings and listens: the window.
    Window(Box<WindowProcess>),
    /// Another window had the settings; it handed over and ended.
    HandedOver,
}

/// The parent's side of a window stand-in.
pub struct WindowProcess {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::UnboundedReceiver<Value>,
    pub pid: u32,
}

impl WindowProcess {
    /// Runs `test` of the test binary `exe` (see [`pinned_test_binary`])
    /// again as the window on `settings`, with `env` added (where the
    /// person's home and settings are), and waits until it listens or
    /// handed over.
    pub async fn start(
        exe: &Path,
        test: &str,
        settings: &Path,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Result<Started, String> {
        let mut cmd = Command::new(exe);
        cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
            .env(WINDOW_ENV, settings)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        for (name, value) in env {
            cmd.env(name, value);
        }
        let mut child = cmd.spawn().map_err(|e| e.to_string())?;
        let pid = child.id().ok_or("the window ended at once")?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                // libtest's "test NAME ... " has no newline of its own,
                // so the first line of the stand-in follows it.
                if let Some((_, said)) = line.split_once(MARK)
                    && let Ok(value) = serde_json::from_str::<Value>(said)
                    && tx.send(value).is_err()
                {
                    return;
                }
            }
        });
        let mut window = WindowProcess {
            child,
            stdin,
            lines,
            pid,
        };
        let first = window.next().await?;
        if first.get("ready").is_some() {
            Ok(Started::Window(Box::new(window)))
        } else if first.get("handedOver").is_some() {
            let _ = tokio::time::timeout(WAIT, window.child.wait()).await;
            Ok(Started::HandedOver)
        } else {
            Err(format!("the window stand-in said {first}"))
        }
    }

    async fn next(&mut self) -> Result<Value, String> {
        match tokio::time::timeout(WAIT, self.lines.recv()).await {
            Ok(Some(value)) => Ok(value),
            Ok(None) => Err("the window stand-in ended".into()),
            Err(_) => Err(format!("the window stand-in said nothing within {WAIT:?}")),
        }
    }

    /// Asks for one change without waiting for it (to kill the window
    /// while it makes it).
    pub async fn send(&mut self, request: Value) -> Result<(), String> {
        let mut line = request.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .await
            .map_err(|e| format!("the window stand-in is gone: {e}"))
    }

    /// One change; `Ok` once the window made it (saved it and would show
    /// it), `Err` with the window's words otherwise.
    pub async fn change(&mut self, request: Value) -> Result<(), String> {
        self.send(request).await?;
        let answer = self.next().await?;
        match answer.get("error") {
            Some(error) => Err(error.as_str().unwrap_or_default().to_owned()),
            None => Ok(()),
        }
    }

    /// `kill -9`, and waits until it is gone (its lock with it).
    pub async fn kill(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(WAIT, self.child.wait()).await;
    }
}
