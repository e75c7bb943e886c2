//! Servers given their folders as arguments, through the real programs:
//! the npm filesystem server as people import it (`node …/index.js
//! ${folders}`, its folders on the command line), behind a real
//! `rootgate connect` bridge started by an AI-app stand-in on the official
//! TypeScript SDK client, whose first act is `list_allowed_directories`,
//! the server's own report of the folders it was given.
//!
//! - Share on the desktop question: the folder must be passed on the
//!   command line, so the server starts again; the app's first call, held
//!   for the answer, is sent to the new start and names the folder (it
//!   used to come back as "-32603: the server was stopped by Rootgate
//!   before it answered").
//! - Workspace: the server is started with only the shared folders the
//!   app works in (its roots, or the folder it started in), as one that
//!   asks for its roots is given them (it used to be given everything
//!   shared, with the setting on).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rootgate_core::desktop::Desktop;
use rootgate_core::questions::Answer;
use rootgate_core::servers::ServerDraft;
use rootgate_test_support::app::*;

use super::workspace::said_on_connections;
use rootgate_test_support::desktop::TestDesktop;
use serde_json::Value;

/// The folders the filesystem server listed in the app's first call,
/// sorted.
fn first_allowed(connected: &Value) -> Vec<PathBuf> {
    let first = &connected["first"]["ok"];
    assert!(first.is_object(), "the first call failed: {connected}");
    let mut dirs: Vec<PathBuf> = tool_text(first)
        .lines()
        .filter(|l| l.starts_with('/'))
        .map(PathBuf::from)
        .collect();
    dirs.sort();
    dirs
}

fn uri(path: &Path) -> String {
    rootgate_core::uri::path_to_uri(path)
        .expect("uri")
        .to_string()
}

/// The npm filesystem server given its folders as arguments, added and
/// approved as the person would, with Workspace as `workspace_only`.
fn files_with_arguments(rg: &Rootgate, workspace_only: bool) -> rootgate_core::servers::ServerSpec {
    let js = fs_server_js().display().to_string();
    let files = rg
        .store
        .add_server(ServerDraft {
            name: "files".into(),
            command: "node".into(),
            args: vec![js, "${folders}".into()],
            workspace_only,
            ..Default::default()
        })
        .expect("add server");
    rg.store
        .approve_command(&files.id, &files.command_line())
        .expect("approve")
}

/// A folder under the person's home, kept as a root and shared with `files`.
fn shared_in_home(rg: &Rootgate, files: &rootgate_core::ids::ServerId, rel: &str) -> PathBuf {
    let path = rg.home().join(rel);
    std::fs::create_dir_all(&path).expect("mkdir");
    let checked = rootgate_core::folders::check(&path).expect("check");
    let root = rg.store.add_root(&checked, None).expect("keep").root.id;
    rg.share(files, &root);
    checked.real().to_path_buf()
}

/// An app stand-in started in `cwd` (home: the test's), whose first act
/// is `list_allowed_directories`, on a task of its own: it is connected
/// only once that first call is answered.
fn app_in(rg: &Rootgate, cwd: &Path, options: &[&str]) -> tokio::task::JoinHandle<App> {
    let command = rg.connect_command("files");
    let mut options: Vec<String> = options.iter().map(|s| s.to_string()).collect();
    options.extend(["--first-call".into(), "list_allowed_directories".into()]);
    let (config_home, cwd, home) = (rg.config_home.clone(), cwd.to_path_buf(), rg.home());
    tokio::spawn(async move {
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        App::start_in(
            &config_home,
            &cwd,
            &[("HOME", &home)],
            Sdk::TypeScript,
            &options,
            &command,
        )
        .await
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn share_on_the_notification_restarts_an_arguments_server_and_the_held_first_call_sees_the_folder()
 {
    let desktop = TestDesktop::start().await;
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    sup.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));
    let files = files_with_arguments(&rg, false);
    let shared = shared_in_home(&rg, &files.id, "notes");
    let project = rg.dir.path().join("code/app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let project = project.canonicalize().expect("real path");

    // Claude Code working in the project, not shared with `files`.
    let project_uri = uri(&project);
    let app = app_in(
        &rg,
        &project,
        &["--roots", &project_uri, "--name", "claude-code"],
    );
    eventually("the question to show on the desktop", || async {
        let menu = desktop.menu();
        if menu.iter().any(|l| l.contains("is working in")) {
            Ok(())
        } else {
            Err(format!("{menu:?}"))
        }
    })
    .await;
    desktop.press("Share");
    eventually("the answer to reach Rootgate", || async {
        match sup.questions().list().first().and_then(|a| a.answer) {
            Some(Answer::Share) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;

    // The first call itself, not a second one, names the folder: it waited
    // for the start with the folder on its command line.
    let mut app = app.await.expect("the app");
    let said = said_on_connections(&sup);
    assert!(
        app.connected["first"]["ok"].is_object(),
        "{}\n{said}",
        app.connected
    );
    let mut want = vec![project.clone(), shared.clone()];
    want.sort();
    assert_eq!(first_allowed(&app.connected), want, "{said}");
    // The server was started again for it, as the timeline says.
    assert!(said.contains("RestartedForArguments"), "{said}");
    // And the connection goes on with it.
    let later: Vec<PathBuf> = allowed(&mut app).await;
    let mut later = later;
    later.sort();
    assert_eq!(later, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_starts_an_arguments_server_with_only_the_project_the_app_works_in() {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let files = files_with_arguments(&rg, true);
    let a = shared_in_home(&rg, &files.id, "code/a");
    let b = shared_in_home(&rg, &files.id, "code/b");

    // An app that lists its roots, and one that lists none and is started
    // in its project: each is given its own, from its first call on.
    let uri_a = uri(&a);
    let in_a = app_in(&rg, &a, &["--roots", &uri_a, "--name", "claude-code"]);
    let in_b = app_in(&rg, &b, &["--name", "some-agent"]);
    let (mut in_a, in_b) = (in_a.await.expect("app a"), in_b.await.expect("app b"));
    let said = said_on_connections(&sup);
    assert_eq!(first_allowed(&in_a.connected), vec![a.clone()], "{said}");
    assert_eq!(first_allowed(&in_b.connected), vec![b.clone()], "{said}");
    let later: Vec<PathBuf> = allowed(&mut in_a).await;
    assert_eq!(later, vec![a.clone()]);

    // Started from the home folder, which says nothing of a project: given
    // everything shared, as without the setting.
    let home = rg.home();
    let from_home = app_in(&rg, &home, &["--name", "claude-ai"])
        .await
        .expect("app in home");
    assert_eq!(
        first_allowed(&from_home.connected),
        vec![a.clone(), b.clone()]
    );

    // An app that lists its roots but was started from the home folder: the
    // server starts with the first guess (everything shared), and again
    // with the project once the app has listed it; the first call waits for
    // that start and is sent to it.
    let roots_from_home = app_in(&rg, &home, &["--roots", &uri_a, "--name", "claude-code"])
        .await
        .expect("app with roots in home");
    let said = said_on_connections(&sup);
    assert_eq!(
        first_allowed(&roots_from_home.connected),
        vec![a.clone()],
        "{said}"
    );
    assert!(said.contains("RestartedForArguments"), "{said}");

    // The window is told the setting is at work for these connections.
    let c = connection(&sup, |c| {
        c.sees
            .as_ref()
            .is_some_and(|s| s.app_folders == vec![uri_a.clone()] && !s.folders.is_empty())
    })
    .await;
    let sees = c.sees.expect("sees");
    assert!(sees.workspace, "{sees:?}");
    assert_eq!(sees.folders, vec![uri_a.clone()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_with_nothing_shared_in_the_project_tells_the_app_why_and_the_server_sees_nothing_of_it()
 {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let files = files_with_arguments(&rg, true);
    shared_in_home(&rg, &files.id, "code/a");
    let project = rg.home().join("code/c");
    std::fs::create_dir_all(&project).expect("mkdir");
    let project = project.canonicalize().expect("real path");

    // Started in its project, which is not shared: the server starts with
    // everything (the guess holds nothing), and stops once the app has
    // said what it works in; the first call is not answered from it.
    let project_uri = uri(&project);
    let app = app_in(
        &rg,
        &project,
        &["--roots", &project_uri, "--name", "claude-code"],
    )
    .await
    .expect("the app");
    let said = said_on_connections(&sup);
    let error = app.connected["first"]["error"]
        .as_str()
        .unwrap_or_else(|| panic!("the first call was answered: {}\n{said}", app.connected));
    assert!(error.contains("Workspace"), "{error}");
    assert!(error.contains(&project.display().to_string()), "{error}");
}
