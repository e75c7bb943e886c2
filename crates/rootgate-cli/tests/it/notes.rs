//! The notifications besides the questions, through the real programs: an
//! AI app on the official TypeScript SDK client connects through
//! `rootgate connect` to a server that cannot start; the window's
//! supervisor, asking through Debian's dunst on a desktop of the test's
//! own, says so on the desktop with the reason and "Open Rootgate"; a
//! folder withdrawn from the npm filesystem server an AI app reaches
//! restarts it, and that is said too; a command `rootgate import` brought
//! in waits for approval, and that is said.

use std::sync::Arc;

use rootgate_core::desktop::Desktop;
use rootgate_core::preferences::NotifyChoices;
use rootgate_test_support::app::*;
use rootgate_test_support::desktop::TestDesktop;

/// The window asking through `desktop` with these notification choices, a
/// server whose program exits at once (approved), and an AI app that
/// connected to it, its failure heard by the window.
async fn failing_server_seen(
    desktop: &TestDesktop,
    choices: NotifyChoices,
) -> (Arc<rootgate_core::supervisor::Supervisor>, Rootgate) {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    sup.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));
    sup.preferences()
        .set_notify_choices(choices)
        .expect("choices");
    rg.server("files", "/bin/false", &[]);
    let app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    assert_eq!(app.connected["event"], "connectFailed", "{}", app.connected);
    // The window heard the failure from the bridge.
    connection(&sup, |c| {
        matches!(c.status, rootgate_core::session::Status::Failed { .. })
    })
    .await;
    (sup, rg)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_failed_for_an_ai_app_is_said_on_the_desktop_with_open_rootgate() {
    let desktop = TestDesktop::start().await;
    let (_sup, _rg) = failing_server_seen(&desktop, NotifyChoices::default()).await;
    let menu = eventually("the notification on the desktop", || async {
        let menu = desktop.menu();
        if menu.iter().any(|l| l.contains("could not start for")) {
            Ok(menu)
        } else {
            Err(format!("{menu:?}"))
        }
    })
    .await;
    assert!(
        menu.iter()
            .any(|l| l.starts_with("#Open Rootgate (files could not start for")),
        "{menu:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_to_withdraw_a_folder_from_an_ai_apps_server_is_said_on_the_desktop() {
    let desktop = TestDesktop::start().await;
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    sup.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));
    // The npm filesystem server keeps folders on an empty list, so taking
    // its only folder away restarts it.
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (root, shared) = rg.folder("shared");
    rg.share(&files.id, &root);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    let now: Vec<std::path::PathBuf> = allowed(&mut app).await;
    assert_eq!(now, vec![shared]);
    connection(&sup, |c| c.live).await;

    sup.folders().revoke(&files.id, &root).expect("withdraw");
    let menu = eventually("the notification on the desktop", || async {
        let menu = desktop.menu();
        if menu.iter().any(|l| l.contains("to withdraw a folder")) {
            Ok(menu)
        } else {
            Err(format!("{menu:?}"))
        }
    })
    .await;
    assert!(
        menu.iter().any(|l| l.starts_with(
            "#Open Rootgate (files was restarted for ts-app-stand-in to withdraw a folder)"
        )),
        "{menu:?}"
    );
    // The app closes the connection: its bridge and server end with it.
    app.send(serde_json::json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

/// A pause is not a withdrawal (#40): the npm filesystem server an AI app
/// reaches is restarted without its folders, as for a withdrawal, but the
/// desktop is told that sharing is paused, never that a folder was
/// withdrawn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_that_restarts_an_ai_apps_server_is_said_as_a_pause_not_a_withdrawal() {
    let desktop = TestDesktop::start().await;
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    sup.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (root, shared) = rg.folder("shared");
    rg.share(&files.id, &root);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    let now: Vec<std::path::PathBuf> = allowed(&mut app).await;
    assert_eq!(now, vec![shared]);
    connection(&sup, |c| c.live).await;

    sup.preferences().set_sharing_paused(true).expect("pause");
    let menu = eventually("the notification on the desktop", || async {
        let menu = desktop.menu();
        if menu.iter().any(|l| l.contains("sharing is paused")) {
            Ok(menu)
        } else {
            Err(format!("{menu:?}"))
        }
    })
    .await;
    assert!(
        menu.iter().any(|l| l.starts_with(
            "#Open Rootgate (files was restarted for ts-app-stand-in: sharing is paused)"
        )),
        "{menu:?}"
    );
    assert!(
        !menu.iter().any(|l| l.contains("to withdraw a folder")),
        "a pause is said as a withdrawal: {menu:?}"
    );
    desktop.screenshot("notes-pause");
    app.send(serde_json::json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_rootgate_import_brought_in_waits_for_approval_and_that_is_said() {
    let desktop = TestDesktop::start().await;
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    sup.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));
    // Claude Desktop's own file, with one server.
    let dir = rg.config_home.join("Claude");
    std::fs::create_dir_all(&dir).expect("config dir");
    std::fs::write(
        dir.join("claude_desktop_config.json"),
        r#"{ "mcpServers": { "files": { "command": "/bin/true", "args": ["--serve"] } } }"#,
    )
    .expect("config");
    let out = tokio::process::Command::new(binary("rootgate"))
        .args(["import", "claude-desktop", "files"])
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .output()
        .await
        .expect("run rootgate import");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let menu = eventually("the notification on the desktop", || async {
        let menu = desktop.menu();
        if menu.iter().any(|l| l.contains("waits for your approval")) {
            Ok(menu)
        } else {
            Err(format!("{menu:?}"))
        }
    })
    .await;
    assert!(
        menu.iter()
            .any(|l| l.starts_with("#Open Rootgate (files waits for your approval)")),
        "{menu:?}"
    );
}

/// The next change `want` picks out of `changes`, waited for.
async fn next_change<T>(
    changes: &mut tokio::sync::broadcast::Receiver<rootgate_core::supervisor::Change>,
    what: &str,
    want: impl Fn(&rootgate_core::supervisor::Change) -> Option<T>,
) -> T {
    let found = tokio::time::timeout(WAIT, async {
        loop {
            match changes.recv().await {
                Ok(change) => {
                    if let Some(found) = want(&change) {
                        return found;
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(e) => panic!("the supervisor's changes ended: {e}"),
            }
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("no change for {what} within {WAIT:?}"))
}

/// `rootgate import` with the window open (#40): the window is asked to
/// show the new server's command for approval, with the consent prompt for
/// the folder in its arguments to follow, as its own import does; and
/// "Open Rootgate" on the notification that says it waits asks again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rootgate_import_with_the_window_open_raises_its_approval_and_open_rootgate_opens_it() {
    use rootgate_core::supervisor::Change;
    let desktop = TestDesktop::start().await;
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    sup.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));
    let notes = rg.home().join("notes");
    std::fs::create_dir_all(&notes).expect("folder");
    let shared = notes.canonicalize().expect("real path");
    let dir = rg.config_home.join("Claude");
    std::fs::create_dir_all(&dir).expect("config dir");
    let config = serde_json::json!({ "mcpServers": { "files": {
        "command": "/bin/true", "args": ["--serve", shared.display().to_string()] } } });
    std::fs::write(dir.join("claude_desktop_config.json"), config.to_string()).expect("config");
    let mut changes = sup.subscribe();
    let out = tokio::process::Command::new(binary("rootgate"))
        .args(["import", "claude-desktop", "files"])
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .output()
        .await
        .expect("run rootgate import");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (server, prompts) = next_change(&mut changes, "the approval", |c| match c {
        Change::ApprovalWanted { server, prompts } => Some((server.clone(), prompts.clone())),
        _ => None,
    })
    .await;
    assert_eq!(server.spec.name, "files");
    assert!(!server.approved, "it waits for approval");
    assert_eq!(
        prompts.len(),
        1,
        "the folder in its arguments is asked about after"
    );
    assert_eq!(prompts[0].real_path, shared);

    eventually("the notification on the desktop", || async {
        let menu = desktop.menu();
        if menu
            .iter()
            .any(|l| l.contains("files waits for your approval"))
        {
            Ok(menu)
        } else {
            Err(format!("{menu:?}"))
        }
    })
    .await;
    desktop.screenshot("notes-import-approval");
    desktop.press("Open Rootgate");
    let again = next_change(&mut changes, "the approval again", |c| match c {
        Change::ApprovalWanted { server, .. } => Some(server.clone()),
        _ => None,
    })
    .await;
    assert_eq!(
        again.spec.id, server.spec.id,
        "Open Rootgate opens that server's approval"
    );
}
