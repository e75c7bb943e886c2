//! Workspace ("only the project the app is working in", a server's
//! setting), through the real programs: AI apps on the official TypeScript
//! SDK client connect through `rootgate connect` to the npm filesystem
//! server, whose `list_allowed_directories` is its own report of the
//! folders it was told. Two Claude Code stand-ins working in `code/a` and
//! `code/b`, both through `files` with both folders shared, each see only
//! their own project, from their first call on; an app with no roots is
//! given the project it started the bridge in, and one started in the home
//! folder (which says nothing) everything shared. The window's Connections
//! list says, per connection, what it sees and why.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rootgate_core::servers::ServerDraft;
use rootgate_core::supervisor::Supervisor;
use rootgate_test_support::app::*;
use serde_json::Value;

/// The folders the filesystem server listed in the app's first call.
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

struct Projects {
    rg: Rootgate,
    sup: Arc<Supervisor>,
    a: PathBuf,
    b: PathBuf,
}

fn uri(path: &Path) -> String {
    rootgate_core::uri::path_to_uri(path)
        .expect("uri")
        .to_string()
}

/// The window's supervisor; "files" is the npm filesystem server set to
/// Workspace, with `home/code/a` and `home/code/b` both shared with it.
async fn projects() -> Projects {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let js = fs_server_js().display().to_string();
    let files = rg
        .store
        .add_server(ServerDraft {
            name: "files".into(),
            command: "node".into(),
            args: vec![js],
            workspace_only: true,
            ..Default::default()
        })
        .expect("add server");
    let files = rg
        .store
        .approve_command(&files.id, &files.command_line())
        .expect("approve");
    let mut real = Vec::new();
    for name in ["a", "b"] {
        let path = rg.home().join("code").join(name);
        std::fs::create_dir_all(&path).expect("mkdir");
        let checked = rootgate_core::folders::check(&path).expect("check");
        let root = rg.store.add_root(&checked, None).expect("keep").root.id;
        rg.share(&files.id, &root);
        real.push(checked.real().to_path_buf());
    }
    let b = real.pop().expect("b");
    let a = real.pop().expect("a");
    Projects { rg, sup, a, b }
}

/// An app stand-in started in `cwd` whose first act is
/// `list_allowed_directories`, on a task of its own.
fn app_in(p: &Projects, cwd: &Path, options: &[&str], home: &Path) -> tokio::task::JoinHandle<App> {
    let command = p.rg.connect_command("files");
    let mut options: Vec<String> = options.iter().map(|s| s.to_string()).collect();
    options.extend(["--first-call".into(), "list_allowed_directories".into()]);
    let (config_home, cwd, home) = (
        p.rg.config_home.clone(),
        cwd.to_path_buf(),
        home.to_path_buf(),
    );
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

/// What the window's connections' timelines say, for a failure's message
/// (`args_servers` says it too).
pub(crate) fn said_on_connections(sup: &Supervisor) -> String {
    sup.bridges()
        .list()
        .iter()
        .map(|c| {
            let entries: Vec<String> = sup
                .bridges()
                .connection_timeline(&c.id)
                .iter()
                .map(|e| format!("  {:?}", e.event))
                .collect();
            format!("{} ({:?}):\n{}", c.id, c.sees, entries.join("\n"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_claude_code_apps_in_two_projects_each_see_only_their_own() {
    let p = projects().await;
    let home = p.rg.home();
    let (uri_a, uri_b) = (uri(&p.a), uri(&p.b));
    let in_a = app_in(
        &p,
        &p.a,
        &["--roots", &uri_a, "--name", "claude-code"],
        &home,
    );
    let in_b = app_in(
        &p,
        &p.b,
        &["--roots", &uri_b, "--name", "claude-code"],
        &home,
    );
    let (mut in_a, mut in_b) = (in_a.await.expect("app a"), in_b.await.expect("app b"));

    // From the very first call on, as the server itself reports it.
    let said = said_on_connections(&p.sup);
    assert_eq!(first_allowed(&in_a.connected), vec![p.a.clone()], "{said}");
    assert_eq!(first_allowed(&in_b.connected), vec![p.b.clone()], "{said}");
    let later_a: Vec<PathBuf> = allowed(&mut in_a).await;
    let later_b: Vec<PathBuf> = allowed(&mut in_b).await;
    assert_eq!((later_a, later_b), (vec![p.a.clone()], vec![p.b.clone()]));

    // The window says, per connection, what it sees and why.
    for (project, project_uri) in [(&p.a, &uri_a), (&p.b, &uri_b)] {
        let c = connection(&p.sup, |c| {
            c.sees.as_ref().is_some_and(|s| {
                s.app_folders == vec![project_uri.clone()] && !s.folders.is_empty()
            })
        })
        .await;
        let sees = c.sees.expect("sees");
        assert!(sees.workspace);
        assert_eq!(sees.folders, vec![project_uri.clone()]);
        assert!(
            sees.why.contains("its roots") && sees.why.contains(&project.display().to_string()),
            "{}",
            sees.why
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_without_roots_sees_the_project_it_started_in_and_from_home_everything() {
    let p = projects().await;
    let home = p.rg.home();
    // No --roots: the app declares no roots, as Claude Desktop does.
    let in_a = app_in(&p, &p.a, &["--name", "some-agent"], &home)
        .await
        .expect("app in a");
    assert_eq!(first_allowed(&in_a.connected), vec![p.a.clone()]);
    let from_home = app_in(&p, &home, &["--name", "claude-ai"], &home)
        .await
        .expect("app in home");
    assert_eq!(
        first_allowed(&from_home.connected),
        vec![p.a.clone(), p.b.clone()]
    );

    let started_in_a = connection(&p.sup, |c| {
        c.sees
            .as_ref()
            .is_some_and(|s| s.app_folders == vec![uri(&p.a)])
    })
    .await;
    let why = started_in_a.sees.expect("sees").why;
    assert!(why.contains("the folder it started in"), "{why}");
    let everything = connection(&p.sup, |c| {
        c.sees
            .as_ref()
            .is_some_and(|s| s.app_folders.is_empty() && s.folders.len() == 2)
    })
    .await;
    let why = everything.sees.expect("sees").why;
    assert!(why.contains("did not say which folders"), "{why}");
    // The project it started in is the app's folder for the window too:
    // shared already, so nothing is asked about it.
    assert!(
        p.sup.questions().list().is_empty(),
        "{:?}",
        p.sup.questions().list()
    );
}
