//! One writer for the settings (#40): the real `rootgate import` run 2, 5
//! and 20 times at once, with no window, keeps every server (before, the
//! last to save won: one server was lost in 20 of 20 runs of two imports),
//! and a store that lives on meanwhile, as the window's does, keeps them
//! at its next change; an import while the window is starting (its lock
//! taken, its socket not bound yet) waits for it and hands the import to
//! it, so the window that holds the settings adds the server itself; and a
//! settings file that is a symbolic link stays one (before, a save replaced
//! it with a file).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rootgate_core::apps::route::Ledger;
use rootgate_core::instance;
use rootgate_test_support::app::*;

/// A Claude Desktop config of its own with one server, `files` as in every
/// other one, whose command differs (so each is a server of its own).
fn config(rg: &Rootgate, i: usize) -> PathBuf {
    let dir = rg.dir.path().join(format!("claude-{i}"));
    std::fs::create_dir_all(&dir).expect("config dir");
    let path = dir.join("claude_desktop_config.json");
    let text = format!(
        r#"{{
  "mcpServers": {{
    "files": {{ "command": "/bin/cat", "args": ["--", "server-{i}"] }}
  }}
}}
"#
    );
    std::fs::write(&path, text).expect("write config");
    path
}

/// `rootgate import claude-desktop --config FILE` as a person runs it, with
/// no window open.
fn import(rg: &Rootgate, config: &Path) -> Command {
    let mut cmd = Command::new(binary("rootgate"));
    cmd.args(["import", "claude-desktop", "--config"])
        .arg(config)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_RUNTIME_DIR", rg.dir.path().join("run"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

/// Starts `n` imports at once, each of its own file, and waits for all.
fn imports_at_once(rg: &Rootgate, n: usize) -> Vec<Output> {
    let configs: Vec<PathBuf> = (0..n).map(|i| config(rg, i)).collect();
    let running: Vec<_> = configs
        .iter()
        .map(|c| import(rg, c).spawn().expect("start rootgate import"))
        .collect();
    running
        .into_iter()
        .map(|child| child.wait_with_output().expect("rootgate import ended"))
        .collect()
}

#[test]
fn imports_at_once_keep_every_server() {
    for n in [2, 5, 20] {
        // The store of this test lives on through the imports, as the
        // window's does.
        let rg = Rootgate::new();
        for out in imports_at_once(&rg, n) {
            let said = text(&out.stdout);
            assert!(out.status.success(), "{said}{}", text(&out.stderr));
            assert!(said.contains("Imported"), "{said}");
        }
        let file = rg.store.file().clone();
        let on_disk = file.load().expect("load").settings;
        let mut args: Vec<String> = on_disk.servers.iter().map(|s| s.args[1].clone()).collect();
        args.sort();
        let mut want: Vec<String> = (0..n).map(|i| format!("server-{i}")).collect();
        want.sort();
        assert_eq!(args, want, "{n} imports at once lost a server");
        // Each took a name of its own ("files", "files 2", …).
        let mut names: Vec<&str> = on_disk.servers.iter().map(|s| s.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "{names:?}");
        let ledger = Ledger::beside(file.path()).load().expect("ledger");
        assert_eq!(ledger.imports.len(), n);

        // The long-lived store, which read the file before the imports,
        // changes the settings: every imported server stays.
        rg.server("made-in-the-window", "/bin/true", &[]);
        let after = file.load().expect("load").settings;
        assert_eq!(
            after.servers.len(),
            n + 1,
            "{n}: the window's change lost one"
        );
        assert_eq!(rg.store.snapshot(), after);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_while_the_window_starts_waits_and_goes_through_it() {
    let (rg, sup) = Rootgate::with_window();
    let settings = rg.config_home.join("rootgate/settings.json");
    // The window is starting: it holds the settings, its socket is not
    // bound yet.
    let _owner = instance::claim(&settings)
        .unwrap()
        .expect("the window owns the settings");
    // The command opens the window's lock file once it found no socket,
    // to see whether a window holds the settings: watched, so the socket
    // is bound only after the command looked and found none.
    let inotify =
        rustix::fs::inotify::init(rustix::fs::inotify::CreateFlags::CLOEXEC).expect("inotify");
    rustix::fs::inotify::add_watch(
        &inotify,
        rootgate_bridge::instance::lock_path(&settings),
        rustix::fs::inotify::WatchFlags::OPEN,
    )
    .expect("watch the lock file");
    let config = config(&rg, 0);
    let running = tokio::process::Command::new(binary("rootgate"))
        .args(["import", "claude-desktop", "--config"])
        .arg(&config)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let running = tokio::spawn(running);
    // Read on a thread of its own, so that a command that never looks
    // fails the test rather than keeping it waiting.
    let (looked, looking) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [std::mem::MaybeUninit::uninit(); 4096];
        let opened = rustix::fs::inotify::Reader::new(&inotify, &mut buf)
            .next()
            .map(|_| ());
        let _ = looked.send(opened);
    });
    tokio::task::spawn_blocking(move || looking.recv_timeout(WAIT))
        .await
        .expect("watch")
        .expect("the command never looked whether a window holds the settings")
        .expect("the watch of the window's lock");
    sup.listen_for_bridges().await.expect("listen");
    let out = tokio::time::timeout(WAIT, running)
        .await
        .expect("rootgate import ended")
        .expect("join")
        .expect("run rootgate");
    let said = text(&out.stdout);
    assert!(out.status.success(), "{said}{}", text(&out.stderr));
    assert!(said.contains("approve it in the Rootgate window"), "{said}");
    // The window added it itself: it knows the server without reading the
    // file again.
    let servers = sup.servers().list();
    assert_eq!(servers.len(), 1, "the window did not hear of the import");
    assert_eq!(servers[0].spec.args[1], "server-0");
}

#[test]
fn an_import_writes_through_a_settings_file_that_is_a_symbolic_link() {
    // The person keeps their settings with their dotfiles, linked in.
    let rg = Rootgate::new();
    let settings = rg.config_home.join("rootgate/settings.json");
    let kept = rg.dir.path().join("dotfiles/rootgate.json");
    std::fs::create_dir_all(kept.parent().expect("dir")).expect("dotfiles");
    rg.server("kept-before", "/bin/true", &[]);
    std::fs::rename(&settings, &kept).expect("move to the dotfiles");
    std::os::unix::fs::symlink(&kept, &settings).expect("link");

    let out = import(&rg, &config(&rg, 0)).output().expect("run rootgate");
    assert!(out.status.success(), "{}", text(&out.stderr));

    let link = std::fs::symlink_metadata(&settings).expect("settings");
    assert!(
        link.file_type().is_symlink(),
        "the link was replaced by a file"
    );
    let written = rootgate_core::settings::SettingsFile::at(&kept)
        .load()
        .expect("load")
        .settings;
    let mut names: Vec<&str> = written.servers.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["files", "kept-before"]);
}
