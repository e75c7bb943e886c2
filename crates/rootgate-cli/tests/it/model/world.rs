//! The real things the model test drives: a home folder with AI apps'
//! config files, the settings, the window (the supervisor as a process of
//! its own, `rootgate_test_support::window_process`), the `rootgate`
//! command, and AI-app stand-ins on the official TypeScript SDK client,
//! each running `rootgate connect NAME` (itself, or through its config
//! file once routed) in front of the npm filesystem server.
//!
//! Not here: what any of them should show (see `state` and `check`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use rootgate_core::servers::ServerDraft;
use rootgate_core::settings::SettingsFile;
use rootgate_core::store::Store;
use rootgate_test_support::app::*;
use rootgate_test_support::window_process::{Started, WindowProcess, pinned_test_binary};
use serde_json::Value;

use super::state::{AppFile, Model, NOTE, Routing, Server};

/// The secret in Claude Desktop's entry, which import keeps in the keyring.
pub const TOKEN: (&str, &str) = ("DOCS_TOKEN", "docs-secret-9b1f3e");

/// One AI app's connection: a stand-in whose server is `rootgate connect`.
pub struct Conn {
    pub server: String,
    /// The folder the app declares as its root (it works there), if any.
    pub roots: Option<usize>,
    /// The server's Workspace setting when the connection started (a
    /// bridge reads it once).
    pub workspace: bool,
    /// Started from this app file's routed entry, as the app would.
    pub via_file: Option<usize>,
    pub app: App,
}

pub struct World {
    /// Everything on disk, removed when the run ends.
    _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub config_home: PathBuf,
    pub settings: PathBuf,
    /// This test binary and this test's name, to run it again as the
    /// window.
    pub exe: PathBuf,
    pub test: String,
    pub window: Option<Box<WindowProcess>>,
    pub conns: Vec<Conn>,
}

pub fn uri(path: &Path) -> String {
    rootgate_core::uri::path_to_uri(path)
        .expect("uri")
        .to_string()
}

impl World {
    /// A home with `folders` folders, the roots-following npm filesystem
    /// server `files` added and approved, and two apps' configs each with
    /// the npm filesystem server given a folder as an argument (Claude
    /// Desktop's with a secret in its environment); no window yet.
    pub fn new(test: String, folders: usize) -> (World, Model) {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path().join("home");
        let config_home = home.join(".config");
        let settings = config_home.join("rootgate/settings.json");
        let mut model = Model::default();
        for i in 0..folders {
            let path = dir.path().join(format!("folders/f{i}"));
            std::fs::create_dir_all(&path).expect("folder");
            let real = path.canonicalize().expect("real");
            std::fs::write(real.join(NOTE), model.note_text(i)).expect("note");
            model.folders.push(real);
        }
        {
            let (store, _) = Store::open_with_secrets(SettingsFile::at(&settings), test_secrets())
                .expect("store");
            let spec = store
                .add_server(ServerDraft {
                    name: "files".into(),
                    command: node(),
                    args: vec![fs_server_js().display().to_string()],
                    ..Default::default()
                })
                .expect("add files");
            store
                .approve_command(&spec.id, &spec.command_line())
                .expect("approve files");
        }
        model.servers.insert(
            "files".into(),
            Server {
                approved: true,
                workspace: false,
                grants: Default::default(),
            },
        );
        let js = fs_server_js().display().to_string();
        let claude = config_home.join("Claude/claude_desktop_config.json");
        let claude_text = format!(
            "{{\n  \"globalShortcut\": \"Ctrl+Alt+Space\",\n  \"mcpServers\": {{\n    \"docs\": {{\n      \"command\": \"{node}\",\n      \"args\": [\"{js}\", \"{f0}\"],\n      \"env\": {{ \"{name}\": \"{value}\" }}\n    }}\n  }}\n}}\n",
            node = node(),
            f0 = model.folders[0].display(),
            name = TOKEN.0,
            value = TOKEN.1,
        );
        let cursor = home.join(".cursor/mcp.json");
        let cursor_text = format!(
            "{{ \"mcpServers\": {{ \"code\": {{ \"command\": \"{node}\", \"args\": [\"{js}\", \"{f1}\"] }} }} }}\n",
            node = node(),
            f1 = model.folders[1 % folders].display(),
        );
        for (app, entry, path, text, secret) in [
            ("claude-desktop", "docs", claude, claude_text, Some(TOKEN)),
            ("cursor", "code", cursor, cursor_text, None),
        ] {
            std::fs::create_dir_all(path.parent().expect("dir")).expect("config dir");
            std::fs::write(&path, &text).expect("config");
            model.files.push(AppFile {
                app,
                entry,
                path,
                original: text.into_bytes(),
                routing: Routing::Original,
                imported: false,
                secret,
                leftovers_allowed: false,
            });
        }
        let exe = pinned_test_binary(dir.path()).expect("the test binary");
        let world = World {
            exe,
            _dir: dir,
            home,
            config_home,
            settings,
            test,
            window: None,
            conns: Vec::new(),
        };
        (world, model)
    }

    fn env(&self) -> Vec<(&'static str, &OsStr)> {
        let mut env = vec![
            ("HOME", self.home.as_os_str()),
            ("XDG_CONFIG_HOME", self.config_home.as_os_str()),
        ];
        if let Some((name, value)) = bus_env() {
            env.push((name, OsStr::new(value)));
        }
        env
    }

    /// Starts a window stand-in: the window when none is open, else a
    /// second start that hands over.
    pub async fn start_window(&self) -> Result<Started, String> {
        WindowProcess::start(&self.exe, &self.test, &self.settings, &self.env()).await
    }

    /// The window, started first if it is not open.
    pub async fn window(&mut self) -> Result<&mut WindowProcess, String> {
        if self.window.is_none() {
            match self.start_window().await? {
                Started::Window(w) => self.window = Some(w),
                Started::HandedOver => return Err("a window nobody started answered".into()),
            }
        }
        self.window.as_deref_mut().ok_or_else(|| "no window".into())
    }

    /// The `rootgate` command as a person runs it in a terminal.
    pub fn rootgate(&self, args: &[&str]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(binary("rootgate"));
        cmd.args(args).kill_on_drop(true);
        for (name, value) in self.env() {
            cmd.env(name, value);
        }
        cmd
    }

    pub async fn run(&self, args: &[&str]) -> Result<Output, String> {
        match tokio::time::timeout(WAIT, self.rootgate(args).output()).await {
            Ok(Ok(out)) => Ok(out),
            Ok(Err(e)) => Err(format!("rootgate {args:?} did not run: {e}")),
            Err(_) => Err(format!("rootgate {args:?} did not end within {WAIT:?}")),
        }
    }

    /// `rootgate route APP`, killed with SIGKILL after `after`.
    pub async fn run_killed(&self, args: &[&str], after: Duration) -> Result<(), String> {
        let mut child = self
            .rootgate(args)
            .stdout(std::process::Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        tokio::time::sleep(after).await;
        let _ = child.start_kill();
        let _ = tokio::time::timeout(WAIT, child.wait()).await;
        Ok(())
    }

    /// Starts a connection to `server` as an app in the home folder (its
    /// folder is `roots` when it declares one), through `via_file`'s
    /// routed entry when given.
    pub async fn connect(
        &mut self,
        model: &Model,
        server: &str,
        roots: Option<usize>,
        via_file: Option<usize>,
    ) -> Result<(), String> {
        let mut options = vec!["--name".to_owned(), format!("model-{server}")];
        if let Some(folder) = roots {
            options.extend(["--roots".into(), uri(&model.folders[folder])]);
        }
        if let Some(file) = via_file {
            let file = &model.files[file];
            options.extend([
                "--config".into(),
                file.path.display().to_string(),
                "--server".into(),
                file.entry.into(),
            ]);
        }
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        let command = vec![
            binary("rootgate").display().to_string(),
            "connect".into(),
            server.into(),
        ];
        let app = App::start_in(
            &self.config_home,
            &self.home,
            &[("HOME", &self.home)],
            Sdk::TypeScript,
            &options,
            &command,
        )
        .await;
        let workspace = model.servers.get(server).is_some_and(|s| s.workspace);
        if app.connected["event"] != "connected" {
            // A server given its folders as arguments cannot start with
            // none: the app is told so, which is right when it may see none.
            let args = model.files.iter().any(|f| f.entry == server);
            if args && model.expected(server, roots, workspace).is_empty() {
                return Ok(());
            }
            return Err(format!(
                "an app could not connect to {server}: {}",
                app.connected
            ));
        }
        self.conns.push(Conn {
            server: server.into(),
            roots,
            workspace,
            via_file,
            app,
        });
        Ok(())
    }

    /// The bridge under a connection's stand-in: its child `rootgate`.
    /// The process the app started for connection `conn`: `rootgate
    /// connect`, which is `rootgate-door` once it has become the door.
    pub fn bridge_pid(&self, conn: usize) -> Option<i32> {
        let parent = self.conns[conn].app.child.id()? as i32;
        children_of(parent).into_iter().find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| matches!(c.trim(), "rootgate" | "rootgate-door"))
        })
    }
}

fn children_of(parent: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    let rest = s.rsplit_once(')')?.1.trim_start().to_owned();
                    rest.split_whitespace().nth(1)?.parse::<i32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// A tool call's answer through a connection: the result, or the error
/// the app got.
pub async fn call(app: &mut App, name: &str, arguments: Value) -> Result<Value, Value> {
    let answer = app
        .request(serde_json::json!({"op": "callTool", "name": name, "arguments": arguments}))
        .await;
    match answer.get("ok") {
        Some(ok) => Ok(ok.clone()),
        None => Err(answer),
    }
}
