//! Servers that take their folders as arguments (`${folders}`, `${folder}`,
//! `${folder:NAME}`), against the real npm filesystem server and our
//! fixture: the folders they are started with are exactly the consented
//! ones, a change restarts them with the new ones, and a server whose
//! folders are not there waits, saying why, and starts when they are.

use std::collections::BTreeSet;
use std::path::PathBuf;

use rootgate_model::timeline::Event;
use rootgate_session::{Session, Status};
use rootgate_test_support::harness::*;

async fn allowed(session: &Session) -> Result<BTreeSet<PathBuf>, String> {
    let result = session
        .call_tool("list_allowed_directories", no_args())
        .await
        .map_err(|e| e.to_string())?;
    Ok(tool_text(&result)
        .lines()
        .filter(|l| l.starts_with('/'))
        .map(PathBuf::from)
        .collect())
}

/// The command line the server's process runs with, from /proc.
fn cmdline(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap_or_default()
        .split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filesystem_server_gets_its_folders_as_arguments_and_new_ones_by_restart() {
    let h = Harness::new();
    let js = fs_server_js();
    let (a, a_path) = h.folder("with space");
    let (b, b_path) = h.folder("프로젝트");
    let spec = h
        .store
        .add_server(rootgate_model::servers::ServerDraft {
            name: "files".into(),
            command: node(),
            args: vec![js.to_str().unwrap().into(), "${folders}".into()],
            ..Default::default()
        })
        .unwrap();
    let session = h.session_for(&spec);
    // Nothing shared: it waits, and says why.
    let waiting = session
        .wait_for(WAIT, |s| matches!(s, Status::Waiting { .. }))
        .await;
    let Status::Waiting { reason } = waiting else {
        panic!("{waiting:?}")
    };
    assert!(
        reason.contains("no folder is shared with it yet"),
        "{reason}"
    );

    h.store.grant(&spec.id, &a).unwrap();
    let Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    // The process was started with the folder's real path as its argument.
    let line = cmdline(info.pid);
    assert!(line.contains(&a_path.display().to_string()), "{line:?}");
    // The timeline says what ran: the command with the folder filled in.
    let started = h
        .timeline
        .for_server(&spec.id)
        .into_iter()
        .filter_map(|e| match e.event {
            Event::Starting { command_line } => Some(command_line),
            _ => None,
        })
        .next_back()
        .expect("a Starting entry");
    assert!(
        started.ends_with(&format!("'{}'", a_path.display())),
        "{started}"
    );
    assert_eq!(
        allowed(&session).await.unwrap(),
        BTreeSet::from([a_path.clone()])
    );

    // Another folder: it starts again with both.
    let seq = h.now_seq();
    h.store.grant(&spec.id, &b).unwrap();
    h.wait_event(&spec.id, seq, |e| {
        matches!(e, Event::RestartedForArguments { .. })
    })
    .await;
    let Status::Running(info) = running(&session).await else {
        unreachable!()
    };
    let line = cmdline(info.pid);
    assert!(line.contains(&b_path.display().to_string()), "{line:?}");
    let want = BTreeSet::from([a_path.clone(), b_path.clone()]);
    eventually("the server to allow both folders", || async {
        match allowed(&session).await {
            Ok(got) if got == want => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_folder_in_the_environment_follows_the_person_swapping_it() {
    let h = Harness::new();
    let report = h.dir.path().join("env.txt");
    let (one, one_path) = h.folder("one");
    let (two, two_path) = h.folder("two");
    h.store.rename_root(&two, "repo").unwrap();
    // A server that writes the variable it was given, then serves MCP.
    let script = format!(
        "printf '%s' \"$REPO_DIR\" > {}; exec {}",
        report.display(),
        fixture_server().display()
    );
    let spec = h
        .store
        .add_server(rootgate_model::servers::ServerDraft {
            name: "named".into(),
            command: "/bin/sh".into(),
            args: vec!["-c".into(), script],
            env: [("REPO_DIR".to_owned(), "${folder:repo}".to_owned())].into(),
            ..Default::default()
        })
        .unwrap();
    h.store.grant(&spec.id, &one).unwrap();
    let session = h.session_for(&spec);
    let waiting = session
        .wait_for(WAIT, |s| matches!(s, Status::Waiting { .. }))
        .await;
    assert!(
        format!("{waiting:?}").contains("no folder of that name is shared"),
        "{waiting:?}"
    );
    h.store.grant(&spec.id, &two).unwrap();
    running(&session).await;
    assert_eq!(
        std::fs::read_to_string(&report).unwrap(),
        two_path.display().to_string()
    );
    // The person renames: the folder named "repo" is now the other one.
    h.store.rename_root(&two, "old").unwrap();
    h.store.rename_root(&one, "repo").unwrap();
    eventually("the server to be started with the other folder", || async {
        match std::fs::read_to_string(&report) {
            Ok(text) if text == one_path.display().to_string() => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    running(&session).await;
    session.shutdown().await;
}

/// The Git server's answer to `git_status` on `repo`: its text, or the
/// error it gave.
async fn git_status(session: &Session, repo: &std::path::Path) -> (bool, String) {
    let mut args = no_args();
    args.insert("repo_path".into(), repo.display().to_string().into());
    match session.call_tool("git_status", args).await {
        Ok(result) => (result["isError"] != true, tool_text(&result)),
        Err(e) => (false, e.to_string()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_git_server_from_pypi_is_given_the_repository_named_repo() {
    let h = Harness::new();
    let (first, first_path) = h.folder("first repo");
    let (second, second_path) = h.folder("second repo");
    for path in [&first_path, &second_path] {
        let init = std::process::Command::new("git")
            .args(["init", "-q"])
            .arg(path)
            .status()
            .expect("git init");
        assert!(init.success());
    }
    h.store.rename_root(&first, "repo").unwrap();
    let spec = h
        .store
        .add_server(rootgate_model::servers::ServerDraft {
            name: "git".into(),
            command: python().to_str().unwrap().into(),
            args: vec![
                "-m".into(),
                "mcp_server_git".into(),
                "--repository".into(),
                "${folder:repo}".into(),
            ],
            ..Default::default()
        })
        .unwrap();
    h.store.grant(&spec.id, &first).unwrap();
    h.store.grant(&spec.id, &second).unwrap();
    let session = h.session_for(&spec);
    running(&session).await;
    let (ok, text) = git_status(&session, &first_path).await;
    assert!(ok && text.contains("On branch"), "{text}");
    let (ok, text) = git_status(&session, &second_path).await;
    assert!(
        !ok && text.contains("outside the allowed repository"),
        "{text}"
    );

    // The person gives the name to the other folder: the server is started
    // again on that repository, by its own account.
    let seq = h.now_seq();
    h.store.rename_root(&first, "first").unwrap();
    h.store.rename_root(&second, "repo").unwrap();
    h.wait_event(&spec.id, seq, |e| {
        matches!(e, Event::RestartedForArguments { .. })
    })
    .await;
    let (ok, text) = eventually("the server to run on the other repository", || async {
        running(&session).await;
        let (ok, text) = git_status(&session, &second_path).await;
        if ok { Ok((ok, text)) } else { Err(text) }
    })
    .await;
    assert!(ok && text.contains("On branch"), "{text}");
    let (ok, text) = git_status(&session, &first_path).await;
    assert!(
        !ok && text.contains("outside the allowed repository"),
        "{text}"
    );
    session.shutdown().await;
}
