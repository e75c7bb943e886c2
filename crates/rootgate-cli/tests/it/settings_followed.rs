//! The window follows the settings file (#40): with the window's core
//! open (the supervisor the desktop app runs), the real `rootgate import`
//! that finds no window to hand its import to (here the window has no
//! socket; in life, one starting a moment after the command looked, or
//! whose socket cannot be reached) writes the file itself, under the write
//! lock. The window lists the new server without any change of its own
//! and tells its listeners (`Change::Settings`, on which the webview lists
//! everything again); its own saves are told once, not again when the
//! file it wrote is seen; a folder shared by another writer reaches the
//! lists its sessions follow; and its next change keeps what it adopted.
//! Before, the window showed another process's server only at its own
//! next change.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use rootgate_core::servers::ServerDraft;
use rootgate_core::settings::SettingsFile;
use rootgate_core::store::Store;
use rootgate_core::supervisor::{Change, Supervisor};
use rootgate_test_support::app::*;
use tokio::sync::broadcast;

/// A Claude Desktop config of its own with one server, `name`.
fn config(rg: &Rootgate, name: &str) -> PathBuf {
    let dir = rg.dir.path().join(format!("claude-{name}"));
    std::fs::create_dir_all(&dir).expect("config dir");
    let path = dir.join("claude_desktop_config.json");
    let text = format!(
        r#"{{ "mcpServers": {{ "{name}": {{ "command": "/bin/cat", "args": ["--", "{name}"] }} }} }}"#
    );
    std::fs::write(&path, text).expect("write config");
    path
}

/// `rootgate import claude-desktop --config FILE`, as a person runs it.
async fn import(rg: &Rootgate, config: &Path) -> Output {
    let mut cmd = tokio::process::Command::new(binary("rootgate"));
    cmd.args(["import", "claude-desktop", "--config"])
        .arg(config)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_RUNTIME_DIR", rg.dir.path().join("run"))
        .stdin(Stdio::null())
        .kill_on_drop(true);
    tokio::time::timeout(WAIT, cmd.output())
        .await
        .expect("rootgate import ended")
        .expect("run rootgate import")
}

fn said(out: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn names(sup: &Supervisor) -> Vec<String> {
    let mut names: Vec<String> = sup
        .servers()
        .list()
        .into_iter()
        .map(|s| s.spec.name)
        .collect();
    names.sort();
    names
}

/// Waits until the window lists `name`, and returns the revisions of the
/// `Change::Settings` told meanwhile, up to the one that told it.
async fn shown(
    sup: &Supervisor,
    changes: &mut broadcast::Receiver<Change>,
    name: &str,
) -> Vec<u64> {
    let mut told = Vec::new();
    loop {
        let change = tokio::time::timeout(WAIT, changes.recv())
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "the window was not told of {name} saved by another process; it lists {:?}",
                    names(sup)
                )
            })
            .expect("changes");
        if let Change::Settings { revision } = change {
            told.push(revision);
            if names(sup).iter().any(|n| n == name) {
                return told;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_shows_what_another_process_saved_at_once_and_keeps_it() {
    let (rg, sup) = Rootgate::with_window();
    let file = SettingsFile::at(rg.config_home.join("rootgate/settings.json"));
    let draft = |name: &str| ServerDraft {
        name: name.into(),
        command: "/bin/cat".into(),
        args: vec![name.into()],
        ..Default::default()
    };

    // The real command, writing the file itself: shown with no change made
    // by the window, and told.
    let mut changes = sup.subscribe();
    let out = import(&rg, &config(&rg, "notes")).await;
    assert!(out.status.success(), "{}", said(&out));
    assert!(
        said(&out).contains("Imported `notes` as notes"),
        "{}",
        said(&out)
    );
    shown(&sup, &mut changes, "notes").await;
    assert_eq!(names(&sup), ["notes"]);

    // Another writer (a store of its own on the same file: it takes the
    // lock as another process does, and saves once) after a save of the
    // window's: two changes told, not three: the window's own file, seen
    // by its watch, is no change.
    let other = Store::open_with_secrets(file.clone(), test_secrets())
        .expect("another writer")
        .0;
    let mut changes = sup.subscribe();
    let own = sup
        .servers()
        .add_server(draft("own"))
        .expect("the window's change");
    other.add_server(draft("elsewhere")).expect("another save");
    let told = shown(&sup, &mut changes, "elsewhere").await;
    assert_eq!(
        told.len(),
        2,
        "the window's save and the other's, each told once: {told:?}"
    );

    // A folder shared with the window's server by the other writer
    // reaches the list its session follows.
    let folder = rg.dir.path().join("folders/shared-elsewhere");
    std::fs::create_dir_all(&folder).expect("folder");
    let checked = rootgate_core::folders::check(&folder).expect("check");
    let root = other.add_root(&checked, None).expect("add root").root;
    other.grant(&own.spec.id, &root.id).expect("grant");
    drop(other);
    let mut shared = sup.store().subscribe(&own.spec.id).expect("own's list");
    tokio::time::timeout(WAIT, shared.wait_for(|s| s.roots().len() == 1))
        .await
        .expect("the folder shared elsewhere reached own's session")
        .expect("own's list");

    // The window's next change keeps what it adopted, on disk as shown.
    sup.servers()
        .add_server(draft("later"))
        .expect("the window's next change");
    let on_disk = file.load().expect("load").settings;
    let mut saved: Vec<String> = on_disk.servers.iter().map(|s| s.name.clone()).collect();
    saved.sort();
    assert_eq!(saved, ["elsewhere", "later", "notes", "own"]);
    assert_eq!(names(&sup), saved);
    assert_eq!(on_disk.grants.len(), 1);
    sup.shutdown().await;
}
