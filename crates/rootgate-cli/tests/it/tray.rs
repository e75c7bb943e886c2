//! Rootgate at hand with its window closed, through the real programs: the
//! real app (`rootgate-desktop`) on a desktop of the test's own (Xvfb, a
//! session bus, dunst; see rootgate_test_support::desktop) with a tray
//! host on that bus (a StatusNotifierWatcher, rootgate_test_support::tray).
//! Its tray item registers; its menu, read over `com.canonical.dbusmenu`
//! as a panel reads it, holds Open, the questions waiting, Pause all
//! sharing and Quit, each with an access key. Pause, pressed as a panel
//! presses it, makes the real npm filesystem server reached by an AI app
//! (the TypeScript SDK client through `rootgate connect`) report no folders
//! in its own `list_allowed_directories`; pressed again it shows the
//! window, where resuming is, and does not resume itself (#39).
//! With no notification server, an AI app's folder waits as a question in
//! the tray's menu. Closing the window keeps the process and its bridges;
//! Open shows it again; Quit ends it, and the bridge goes on with the
//! folders already shared. Start at login's
//! entry is checked by desktop-file-validate.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use rootgate_model::autostart::Autostart;
use rootgate_test_support::app::*;
use rootgate_test_support::desktop::TestDesktop;
use rootgate_test_support::tray::{Entry, TrayItem, TrayWatcher, close_windows, shown_windows};
use tokio::process::{Child, Command};

/// The real app on `rg`'s settings, drawing on `desktop`, with HOME in the
/// test's folder (so no AI app of the person's is read).
fn start_app(rg: &Rootgate, desktop: &TestDesktop, args: &[&str]) -> Child {
    Command::new(binary("rootgate-desktop"))
        .args(args)
        .env("DISPLAY", desktop.display())
        .env("DBUS_SESSION_BUS_ADDRESS", &desktop.address)
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("HOME", rg.home())
        .env("GDK_BACKEND", "x11")
        // No accessibility bus on the test's desktop: GTK need not look.
        .env("NO_AT_BRIDGE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        // WebKit's own processes inherit it and outlive a killed app by a
        // moment; the test's output is not theirs to hold.
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start rootgate-desktop")
}

/// Closes the window as a window manager does and waits for it to be
/// hidden, closing it again (as a person would click again) if it is still
/// shown a few seconds later, at most three times.
///
/// Why again: about one close in 25 is not taken under Xvfb with no window
/// manager. The app is alive and its tray menu answers while the window
/// stays up, and the next close hides it (seen with a probe of the menu
/// after the first close; the cause is not found). What must hold is that a
/// close hides the window and never ends Rootgate.
async fn close_until_hidden(display: &str) {
    for attempt in 1..=3 {
        assert_eq!(close_windows(display, "Rootgate"), 1, "close {attempt}");
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
        while tokio::time::Instant::now() < deadline {
            if shown_windows(display, "Rootgate") == 0 {
                if attempt > 1 {
                    eprintln!("the window was hidden by close {attempt}, not the first");
                }
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
    panic!("three closes did not hide the window");
}

fn entry<'a>(menu: &'a [Entry], label: &str) -> &'a Entry {
    menu.iter()
        .find(|e| e.label == label)
        .unwrap_or_else(|| panic!("no {label:?} in {menu:#?}"))
}

/// The npm filesystem server, `files`, with one folder shared.
fn files_with_a_folder(rg: &Rootgate) -> PathBuf {
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (root, shared) = rg.folder("shared");
    rg.share(&files.id, &root);
    shared
}

/// Calls `list_allowed_directories` until it reports `want` (each answer
/// comes from the server, so no sleep is needed between them). The npm
/// filesystem server keeps its folders when told of none, so a pause
/// stops it (and resuming starts it again): a call in flight at that
/// moment is answered with that reason, in words, and is asked again.
/// Any other error fails the test.
async fn allowed_becomes(app: &mut App, want: &[PathBuf]) {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now: Vec<PathBuf> = match allowed_or_error(app).await {
            Ok(now) => now,
            Err(answer) => {
                let said = answer["error"].as_str().unwrap_or_default();
                assert!(
                    said.contains("the server was stopped by Rootgate before it answered"),
                    "{answer}"
                );
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the server was still being stopped: {answer}"
                );
                continue;
            }
        };
        if now == want {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server still reports {now:?}, not {want:?}"
        );
    }
}

fn paused_in_settings(rg: &Rootgate) -> bool {
    let text =
        std::fs::read_to_string(rg.config_home.join("rootgate/settings.json")).expect("settings");
    let v: serde_json::Value = serde_json::from_str(&text).expect("settings JSON");
    v["preferences"]["sharingPaused"] == serde_json::json!(true)
}

/// Waits for the pause to be `on` in the settings bridges read.
async fn settings_paused(rg: &Rootgate, on: bool) {
    eventually("the pause in the settings bridges read", || async {
        if paused_in_settings(rg) == on {
            Ok(())
        } else {
            Err(format!("sharingPaused is not {on} yet"))
        }
    })
    .await;
}

async fn pause_is(item: &TrayItem, on: bool) -> Vec<Entry> {
    item.menu_when("Pause all sharing to show its state", |m| {
        m.iter()
            .any(|e| e.label == "Pause all sharing" && e.checked == Some(on))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tray_item_registers_and_pauses_every_bridge_but_only_the_window_resumes() {
    let desktop = TestDesktop::start().await;
    let watcher = TrayWatcher::serve(&desktop.address).await;
    let rg = Rootgate::new();
    let shared = files_with_a_folder(&rg);
    let _window = start_app(&rg, &desktop, &[]);

    let item = watcher.item().await;
    let menu = item.menu().await;
    let labels: Vec<&str> = menu
        .iter()
        .filter(|e| !e.separator)
        .map(|e| e.label.as_str())
        .collect();
    assert_eq!(
        labels,
        [
            "Open Rootgate",
            "No questions waiting",
            "Pause all sharing",
            "Quit Rootgate"
        ],
        "{menu:#?}"
    );
    assert_eq!(entry(&menu, "Open Rootgate").access_key, Some('o'));
    assert_eq!(entry(&menu, "Pause all sharing").access_key, Some('p'));
    assert_eq!(entry(&menu, "Quit Rootgate").access_key, Some('q'));
    assert!(!entry(&menu, "No questions waiting").enabled);
    assert_eq!(entry(&menu, "Pause all sharing").checked, Some(false));

    // An AI app through `rootgate connect`: the server sees the folder.
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    allowed_becomes(&mut app, std::slice::from_ref(&shared)).await;

    let running_icon = std::fs::read(item.icon_file().await).expect("the icon shown");
    item.click("Pause all sharing").await;
    pause_is(&item, true).await;
    // GTK flips the check mark itself on the click, before the app has
    // saved the pause, so the menu is no sign that the settings are
    // written: they are waited for on their own.
    settings_paused(&rg, true).await;
    allowed_becomes(&mut app, &[]).await;
    // The item looks paused (#40): another image, made for the pause.
    let paused_icon = eventually("the tray's icon to look paused", || async {
        let file = item.icon_file().await;
        match std::fs::read(&file) {
            Ok(bytes) if bytes != running_icon => Ok(bytes),
            Ok(_) => Err(format!("{} is the running icon still", file.display())),
            Err(e) => Err(format!("{}: {e}", file.display())),
        }
    })
    .await;
    if let Some(dir) = std::env::var_os("ROOTGATE_SCREENSHOTS") {
        let dir = PathBuf::from(dir);
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(dir.join("tray-running.png"), &running_icon).expect("save the icon");
        std::fs::write(dir.join("tray-paused.png"), &paused_icon).expect("save the icon");
    }

    // Pressed again it does not resume: any program on the session bus can
    // press a tray item, and resuming gives every server its folders back,
    // so that is the window's (its banner). The press shows the window.
    eventually("the window to show", || async {
        match shown_windows(desktop.display(), "Rootgate") {
            0 => Err("not shown".to_owned()),
            _ => Ok(()),
        }
    })
    .await;
    close_until_hidden(desktop.display()).await;
    item.click("Pause all sharing").await;
    eventually("the window to show again", || async {
        match shown_windows(desktop.display(), "Rootgate") {
            0 => Err("hidden".to_owned()),
            _ => Ok(()),
        }
    })
    .await;
    assert!(
        paused_in_settings(&rg),
        "a press in the tray resumed sharing"
    );
    pause_is(&item, true).await;
    allowed_becomes(&mut app, &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_window_keeps_rootgate_in_the_tray_with_the_question_and_quit_ends_only_it() {
    // No notification server: the question waits in the tray's menu (and
    // the window), the window-less fallback.
    let desktop = TestDesktop::without_notifications().await;
    let watcher = TrayWatcher::serve(&desktop.address).await;
    let rg = Rootgate::new();
    let shared = files_with_a_folder(&rg);
    let project = rg.dir.path().join("code/app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let project = project.canonicalize().expect("real path");
    let mut window = start_app(&rg, &desktop, &[]);
    let item = watcher.item().await;
    eventually("the window to show", || async {
        match shown_windows(desktop.display(), "Rootgate") {
            0 => Err("not shown".to_owned()),
            _ => Ok(()),
        }
    })
    .await;

    // Claude Code works in a folder not shared with `files`: the question
    // waits in the tray's menu.
    let uri = rootgate_core::uri::path_to_uri(&project)
        .expect("uri")
        .to_string();
    let mut app = App::start(
        &rg,
        Sdk::TypeScript,
        &["--roots", &uri, "--name", "claude-code"],
        &rg.connect_command("files"),
    )
    .await;
    let question = format!("Claude Code: share {} with files?", project.display());
    let menu = item
        .menu_when("the question in the tray's menu", |m| {
            m.iter().any(|e| e.label == question)
        })
        .await;
    assert!(entry(&menu, &question).enabled);
    assert!(!entry(&menu, "1 question waiting:").enabled);

    // Closed as a window manager closes it: hidden, not ended.
    close_until_hidden(desktop.display()).await;
    assert!(window.try_wait().expect("wait").is_none(), "the app ended");
    allowed_becomes(&mut app, std::slice::from_ref(&shared)).await;
    assert!(
        item.menu().await.iter().any(|e| e.label == question),
        "the question still waits"
    );

    // Open Rootgate shows it again.
    item.click("Open Rootgate").await;
    eventually("the window to show again", || async {
        match shown_windows(desktop.display(), "Rootgate") {
            0 => Err("hidden".to_owned()),
            _ => Ok(()),
        }
    })
    .await;

    // Quit ends the window's process; the bridge goes on as before.
    item.click("Quit Rootgate").await;
    let status = tokio::time::timeout(WAIT, window.wait())
        .await
        .expect("the app to quit")
        .expect("wait");
    assert!(status.success(), "{status:?}");
    allowed_becomes(&mut app, std::slice::from_ref(&shared)).await;
}

/// The entry Start at login writes is valid for the desktop
/// (desktop-file-validate), for a program whose path needs quoting too.
#[test]
fn the_start_at_login_entry_is_a_valid_desktop_entry_and_goes_when_turned_off() {
    let dir = tempfile::tempdir().expect("tempdir");
    let autostart = Autostart::in_config_home(dir.path());
    for program in [
        Path::new("/usr/bin/rootgate-desktop"),
        Path::new("/opt/Root gate $1/rootgate-desktop"),
    ] {
        let state = autostart.enable(program).expect("enable");
        assert!(state.on && !state.edited, "{state:?}");
        assert_eq!(
            state.path,
            dir.path().join("autostart/rootgate.desktop"),
            "$XDG_CONFIG_HOME/autostart/rootgate.desktop"
        );
        let out = std::process::Command::new("desktop-file-validate")
            .arg(&state.path)
            .output()
            .expect("desktop-file-validate (scripts/setup.sh test installs desktop-file-utils)");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && said.trim().is_empty(), "{said}");
        let off = autostart.disable(program).expect("disable");
        assert!(!off.on);
        assert!(!state.path.exists());
    }
}

/// Start at login runs `rootgate-desktop --hidden`: Rootgate is in the
/// tray and its window is not shown until Open Rootgate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn started_hidden_rootgate_is_in_the_tray_and_open_shows_the_window() {
    let desktop = TestDesktop::without_notifications().await;
    let watcher = TrayWatcher::serve(&desktop.address).await;
    let rg = Rootgate::new();
    let _window = start_app(&rg, &desktop, &["--hidden"]);
    // The window is hidden when the event loop starts, before the tray
    // item registers (which the loop does afterwards).
    let item = watcher.item().await;
    assert_eq!(shown_windows(desktop.display(), "Rootgate"), 0);
    item.click("Open Rootgate").await;
    eventually("the window to show", || async {
        match shown_windows(desktop.display(), "Rootgate") {
            0 => Err("hidden".to_owned()),
            _ => Ok(()),
        }
    })
    .await;
}
