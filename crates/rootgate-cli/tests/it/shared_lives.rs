//! Shared server lives (issue #42, its third and fourth parts): the app
//! sessions the gate serves share one process of a server while they see
//! the same folders, and each is still served as if the server were its
//! own. Checked with real programs only: the official TypeScript SDK
//! client as every app, the npm filesystem and everything servers, and the
//! real `rootgate` as door and gate. What a server did for which app is
//! read from the apps' own reports (their tools' answers and the events
//! their SDK delivered), and how many processes of it run from `/proc`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use rootgate_test_support::app::*;
use serde_json::{Value, json};

use super::gate::{Door, gates};

/// The server processes (node) the gate serving `rg`'s settings runs: its
/// descendants, whatever launcher stands between.
fn servers_of(rg: &Rootgate) -> Vec<i32> {
    programs_of(rg, b"node\0")
}

/// The gate's descendants whose command line starts with `program`.
fn programs_of(rg: &Rootgate, program: &[u8]) -> Vec<i32> {
    let parents: Vec<(i32, i32)> = std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The parent is the second field after the command's parentheses.
            let after = stat.rsplit_once(')')?.1;
            let ppid = after.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut family: BTreeSet<i32> = gates(rg).into_iter().collect();
    loop {
        let more: Vec<i32> = parents
            .iter()
            .filter(|(pid, ppid)| family.contains(ppid) && !family.contains(pid))
            .map(|(pid, _)| *pid)
            .collect();
        if more.is_empty() {
            break;
        }
        family.extend(more);
    }
    family
        .into_iter()
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .unwrap_or_default()
                .starts_with(program)
        })
        .collect()
}

fn ok(answer: &Value) -> &Value {
    assert!(answer.get("ok").is_some(), "{answer}");
    &answer["ok"]
}

async fn close_all(apps: Vec<App>) {
    for mut app in apps {
        app.send(json!({"op": "close"})).await;
        let _ = app.child.wait().await;
    }
}

/// Stops the test's gate (and so the servers it runs) at once rather than
/// leaving it to its idle time.
fn stop_gate(rg: &Rootgate) {
    for gate in gates(rg) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(gate),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_app_sessions_run_one_filesystem_server_and_each_sees_exactly_its_folders() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (a, a_path) = rg.folder("a");
    let (b, b_path) = rg.folder("b");
    rg.share(&files.id, &a);
    rg.share(&files.id, &b);
    let _ = rg.folder("not shared");
    std::fs::write(a_path.join("a.txt"), "in a").expect("write");
    let both = BTreeSet::from([a_path.clone(), b_path.clone()]);
    let mut apps = Vec::new();
    for count in [5, 20] {
        // Started together, as sessions opened at once are.
        let starting: Vec<_> = (apps.len()..count)
            .map(|_| {
                let (home, command) = (rg.config_home.clone(), rg.connect_command("files"));
                tokio::spawn(async move {
                    App::start_with_config_home(&home, Sdk::TypeScript, &[], &command).await
                })
            })
            .collect();
        for app in starting {
            apps.push(app.await.expect("an app"));
        }
        for app in &mut apps {
            assert_eq!(app.connected["event"], "connected", "{}", app.connected);
            let seen: BTreeSet<PathBuf> = allowed(app).await;
            assert_eq!(
                seen, both,
                "each of {count} sessions sees exactly its folders"
            );
        }
        assert_eq!(
            servers_of(&rg).len(),
            1,
            "{count} sessions, one server process"
        );
    }
    // A withdrawal reaches every session that shares the process.
    rg.store.revoke(&files.id, &a).expect("withdraw");
    for app in &mut apps {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let answer = app
                .request(json!({"op": "callTool", "name": "read_text_file",
                                "arguments": {"path": a_path.join("a.txt")}}))
                .await;
            if answer["ok"]["isError"] == true {
                break;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "still read: {answer}"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let seen: BTreeSet<PathBuf> = allowed(app).await;
        assert_eq!(seen, BTreeSet::from([b_path.clone()]));
    }
    assert_eq!(servers_of(&rg).len(), 1);
    close_all(apps).await;
    stop_gate(&rg);
}

/// Three apps that can be asked for sampling and elicitation share the
/// everything server: each request of the server's reaches the app whose
/// call caused it, and no other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_and_elicitation_reach_the_app_whose_call_asked_among_several() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let mut apps = Vec::new();
    for _ in 0..3 {
        let app = App::start(
            &rg,
            Sdk::TypeScript,
            &["--sampling", "--elicitation"],
            &rg.connect_command("everything"),
        )
        .await;
        assert_eq!(app.connected["event"], "connected", "{}", app.connected);
        apps.push(app);
    }
    assert_eq!(
        servers_of(&rg).len(),
        1,
        "one server process for three apps"
    );
    let sampled = apps[1]
        .call(
            "trigger-sampling-request",
            json!({"prompt": "say hi", "maxTokens": 10}),
        )
        .await;
    assert!(
        sampled.to_string().contains("sampled by the stand-in"),
        "{sampled}"
    );
    let elicited = apps[2]
        .request(json!({"op": "callTool", "name": "trigger-elicitation-request", "arguments": {},
                        "elicit": {"name": "Ada", "check": true, "integer": 3, "email": "ada@example.org",
                                   "number": 1.5, "enum": "ok", "untitledSingleSelectEnum": "option1"}}))
        .await;
    ok(&elicited);
    // A ping answered after the server's requests: anything the server
    // sent an app before it has reached that app by then.
    for app in &mut apps {
        ok(&app.request(json!({"op": "ping"})).await);
    }
    let asked: Vec<(usize, usize)> = apps
        .iter_mut()
        .map(|app| {
            (
                app.take_events("sampling").len(),
                app.take_events("elicitation").len(),
            )
        })
        .collect();
    assert_eq!(asked, vec![(0, 0), (1, 0), (0, 1)]);
    close_all(apps).await;
    stop_gate(&rg);
}

/// Subscriptions are each app's own: an update reaches only the apps
/// subscribed to the resource, though the server has one client.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_update_reaches_only_the_apps_subscribed_to_it() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let mut apps = Vec::new();
    for _ in 0..3 {
        apps.push(App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("everything")).await);
    }
    let resources = apps[0].request(json!({"op": "listResources"})).await;
    let uri = ok(&resources)["resources"][0]["uri"]
        .as_str()
        .expect("a resource")
        .to_owned();
    for app in &mut apps[..2] {
        ok(&app.request(json!({"op": "subscribe", "uri": uri})).await);
    }
    apps[2].call("toggle-subscriber-updates", json!({})).await;
    for app in &mut apps[..2] {
        let updated = app.wait(|v| v["event"] == "resourceUpdated").await;
        assert_eq!(updated["uri"], uri);
    }
    ok(&apps[2].request(json!({"op": "ping"})).await);
    assert!(
        apps[2].take_events("resourceUpdated").is_empty(),
        "the app that did not subscribe is sent no update"
    );
    // The first to unsubscribe stops hearing; the other goes on.
    ok(&apps[0]
        .request(json!({"op": "unsubscribe", "uri": uri}))
        .await);
    apps[0].take_events("resourceUpdated");
    apps[1].take_events("resourceUpdated");
    let again = apps[1].wait(|v| v["event"] == "resourceUpdated").await;
    assert_eq!(again["uri"], uri);
    ok(&apps[0].request(json!({"op": "ping"})).await);
    assert!(apps[0].take_events("resourceUpdated").is_empty());
    assert_eq!(servers_of(&rg).len(), 1);
    close_all(apps).await;
    stop_gate(&rg);
}

/// A server set to one process per app session gets one for each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_set_to_one_process_per_session_gets_its_own_processes() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    let spec = rg.server("everything", "node", &[&js, "stdio"]);
    let mut draft = spec.to_draft();
    draft.own_process = true;
    rg.store.update_server(&spec.id, draft).expect("update");
    let rootgate = binary("rootgate");
    let mut doors = [
        Door::start(&rootgate, &rg, "everything"),
        Door::start(&rootgate, &rg, "everything"),
    ];
    for door in &mut doors {
        let answer = door.initialize().await;
        assert!(answer.get("result").is_some(), "{answer}");
    }
    assert_eq!(servers_of(&rg).len(), 2);
    for door in doors {
        let (code, said) = door.close().await;
        assert_eq!(code, Some(0), "{said}");
    }
    stop_gate(&rg);
}

/// A server no session uses is kept for the next one for the person's
/// idle time (ten minutes unless set), and stopped when it is up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_no_session_uses_is_kept_for_the_next_and_then_stopped() {
    let rg = Rootgate::new();
    rg.store
        .change_preferences(|p| p.unused_server_minutes = None)
        .expect("preferences");
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let rootgate = binary("rootgate");
    let mut first = Door::start(&rootgate, &rg, "everything");
    assert!(first.initialize().await.get("result").is_some());
    let server = servers_of(&rg);
    assert_eq!(server.len(), 1);
    let (code, said) = first.close().await;
    assert_eq!(code, Some(0), "{said}");
    // The next session, after the first left, finds the same process.
    let mut next = Door::start(&rootgate, &rg, "everything");
    assert!(next.initialize().await.get("result").is_some());
    let echoed = next
        .ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"message": "again"}}}))
        .await;
    assert!(echoed.to_string().contains("again"), "{echoed}");
    assert_eq!(servers_of(&rg), server, "the same server process");
    let (code, said) = next.close().await;
    assert_eq!(code, Some(0), "{said}");
    stop_gate(&rg);

    // With no idle time (the tests' own settings), it stops once its last
    // session leaves.
    let rg = Rootgate::new();
    rg.server("everything", "node", &[&js, "stdio"]);
    let mut only = Door::start(&rootgate, &rg, "everything");
    assert!(only.initialize().await.get("result").is_some());
    assert_eq!(servers_of(&rg).len(), 1);
    let (code, said) = only.close().await;
    assert_eq!(code, Some(0), "{said}");
    eventually("the unused server to stop", || async {
        match servers_of(&rg).len() {
            0 => Ok(()),
            n => Err(format!("{n} servers")),
        }
    })
    .await;
    stop_gate(&rg);
}

/// A withdrawal that needs a restart (the server set to be restarted) ends
/// the shared process and starts another with the folders left; every app
/// stays connected through it and is served by the new one, each as if the
/// server had been its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_server_restarted_for_a_withdrawal_serves_every_app_again() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let mut draft = files.to_draft();
    draft.withdrawal = rootgate_model::servers::Withdrawal::Restart;
    rg.store.update_server(&files.id, draft).expect("update");
    let (a, a_path) = rg.folder("a");
    let (b, b_path) = rg.folder("b");
    rg.share(&files.id, &a);
    rg.share(&files.id, &b);
    std::fs::write(b_path.join("b.txt"), "in b").expect("write");
    let mut apps = Vec::new();
    for _ in 0..3 {
        apps.push(App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await);
    }
    for app in &mut apps {
        let seen: BTreeSet<PathBuf> = allowed(app).await;
        assert_eq!(seen, BTreeSet::from([a_path.clone(), b_path.clone()]));
    }
    let before = servers_of(&rg);
    assert_eq!(before.len(), 1);
    rg.store.revoke(&files.id, &a).expect("withdraw");
    eventually("the server to be started again", || async {
        let now = servers_of(&rg);
        if now.len() == 1 && now != before {
            Ok(())
        } else {
            Err(format!("{now:?} (before {before:?})"))
        }
    })
    .await;
    for app in &mut apps {
        let seen: BTreeSet<PathBuf> = allowed(app).await;
        assert_eq!(seen, BTreeSet::from([b_path.clone()]));
        let read = app
            .call("read_text_file", json!({"path": b_path.join("b.txt")}))
            .await;
        assert!(tool_text(&read).contains("in b"), "{read}");
        assert!(
            app.take_events("closed").is_empty(),
            "the app stayed connected"
        );
    }
    close_all(apps).await;
    stop_gate(&rg);
}

/// A hostile app on a shared server uses another app's request id and
/// progress token and cancels that id: it cancels nothing of the other's,
/// hears none of its progress, and each gets exactly its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_app_cannot_cancel_or_hear_another_apps_call_on_a_shared_server() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let rootgate = binary("rootgate");
    let (mut honest, mut hostile) = (
        Door::start(&rootgate, &rg, "everything"),
        Door::start(&rootgate, &rg, "everything"),
    );
    for door in [&mut honest, &mut hostile] {
        assert!(door.initialize().await.get("result").is_some());
    }
    assert_eq!(servers_of(&rg).len(), 1, "one process for both");
    let call = |steps: u64| {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "trigger-long-running-operation",
            "arguments": {"duration": steps / 2, "steps": steps},
            "_meta": {"progressToken": "t"}}})
    };
    honest.send(call(4)).await;
    // The same id and token, and a cancellation of that id.
    hostile
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 7, "reason": "hostile"}}),
        )
        .await;
    let theirs = hostile.ask_all(call(2)).await;
    let ours = honest.read_until(&json!(7)).await;
    let progress = |read: &[Value]| {
        read.iter()
            .filter(|m| m["method"] == "notifications/progress")
            .inspect(|m| assert_eq!(m["params"]["progressToken"], "t", "{m}"))
            .count()
    };
    assert_eq!(
        progress(&theirs),
        2,
        "the hostile app hears its own progress only: {theirs:?}"
    );
    assert_eq!(
        progress(&ours),
        4,
        "the honest app hears all of its own: {ours:?}"
    );
    let answer = ours.last().expect("the answer");
    assert!(
        answer["result"].to_string().contains("completed"),
        "the honest call was not cancelled: {answer}"
    );
    for door in [honest, hostile] {
        let (code, said) = door.close().await;
        assert_eq!(code, Some(0), "{said}");
    }
    stop_gate(&rg);
}

/// A settings file damaged after the gate started is said, in words, on the
/// standard error of each app the gate serves, and what could be read of
/// it is used: the server is still served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_settings_file_is_said_to_every_app_the_gate_serves() {
    let rg = Rootgate::new();
    let js = everything_js().display().to_string();
    rg.server("everything", "node", &[&js, "stdio"]);
    let rootgate = binary("rootgate");
    let mut first = Door::start(&rootgate, &rg, "everything");
    assert!(first.initialize().await.get("result").is_some());
    let path = rg.store.file().path().to_path_buf();
    let text = std::fs::read_to_string(&path).expect("read the settings");
    assert!(text.contains("\"grants\""), "{text}");
    std::fs::write(&path, text.replacen("\"grants\"", "\"grants\" ?? ", 1)).expect("damage");
    // The gate's watch finds it; a session opened after that is told at once.
    eventually("the gate to find the damage", || async {
        let mut door = Door::start(&rootgate, &rg, "everything");
        let answer = door.initialize().await;
        let echoed = door
            .ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                        "params": {"name": "echo", "arguments": {"message": "still served"}}}))
            .await;
        let (code, said) = door.close().await;
        if answer.get("result").is_some()
            && echoed.to_string().contains("still served")
            && code == Some(0)
            && said.contains("cannot be read whole: it is not valid JSON")
        {
            Ok(())
        } else {
            Err(format!("exit {code:?}, said {said:?}, answered {answer}"))
        }
    })
    .await;
    // The session open before the damage is told too.
    let (code, said) = first.close().await;
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("cannot be read whole"), "{said}");
    stop_gate(&rg);
}

/// A Workspace server's app sessions share one process per project: five
/// editor stand-ins started from the desktop (in the home folder, which
/// says nothing), three with `code/a` open and two with `code/b` (their
/// roots), both shared, run two filesystem server processes, and each sees
/// exactly its project from its first call (the server's own
/// `list_allowed_directories`) and cannot read the other's files. An app
/// whose project changes (its roots, as an editor opening another folder)
/// moves to that project's process without being disconnected, and the
/// process no session uses any more is stopped. (Apps started in their
/// project, as Claude Code is, share per project and working folder: the
/// server starts in the app's folder, so that is part of its launch.)
/// `draft` added to the settings and its command approved, as a person
/// would in the window.
fn approved(
    rg: &Rootgate,
    draft: rootgate_core::servers::ServerDraft,
) -> rootgate_core::servers::ServerSpec {
    let spec = rg.store.add_server(draft).expect("add server");
    rg.store
        .approve_command(&spec.id, &spec.command_line())
        .expect("approve")
}

/// "files", the npm filesystem server set to Workspace, with `code/a` and
/// `code/b` (each holding its own `NAME.txt`) shared with it: their real
/// paths.
fn workspace_files(rg: &Rootgate) -> Vec<PathBuf> {
    let js = fs_server_js().display().to_string();
    let files = approved(
        rg,
        rootgate_core::servers::ServerDraft {
            name: "files".into(),
            command: "node".into(),
            args: vec![js],
            workspace_only: true,
            ..Default::default()
        },
    );
    let mut projects = Vec::new();
    for name in ["a", "b"] {
        let path = rg.home().join("code").join(name);
        std::fs::create_dir_all(&path).expect("mkdir");
        std::fs::write(path.join(format!("{name}.txt")), name).expect("write");
        let checked = rootgate_core::folders::check(&path).expect("check");
        let root = rg.store.add_root(&checked, None).expect("keep").root.id;
        rg.share(&files.id, &root);
        projects.push(checked.real().to_path_buf());
    }
    projects
}

/// Apps that declare no roots (Claude Desktop, or a script) say their
/// project by the folder they start in: started together in `code/a`, five
/// sessions go straight to that project's process, every one connected and
/// seeing `a` from its first call. (The first cut sent them through the
/// lobby and moved them while their `initialize` was still unanswered
/// there, and some apps got the move's error as that answer:
/// `scripts/bench-shared.py --workspace` found it.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apps_without_roots_started_together_in_a_project_share_its_process() {
    let rg = Rootgate::new();
    let projects = workspace_files(&rg);
    let starting: Vec<_> = (0..5)
        .map(|_| {
            let (home, config) = (rg.home(), rg.config_home.clone());
            let (project, command) = (projects[0].clone(), rg.connect_command("files"));
            tokio::spawn(async move {
                App::start_in(
                    &config,
                    &project,
                    &[("HOME", &home)],
                    Sdk::TypeScript,
                    &["--first-call", "list_allowed_directories"],
                    &command,
                )
                .await
            })
        })
        .collect();
    let mut apps = Vec::new();
    for app in starting {
        apps.push(app.await.expect("an app"));
    }
    for app in &apps {
        let first = &app.connected["first"]["ok"];
        assert!(
            first.is_object(),
            "the first call failed: {}",
            app.connected
        );
        let seen: Vec<PathBuf> = folders_in(first);
        assert_eq!(seen, vec![projects[0].clone()]);
    }
    assert_eq!(servers_of(&rg).len(), 1, "one process for the project");
    close_all(apps).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_sessions_share_one_process_per_project_and_move_with_their_project() {
    let rg = Rootgate::new();
    let projects = workspace_files(&rg);
    let uri = |p: &std::path::Path| rootgate_core::uri::path_to_uri(p).expect("uri").to_string();
    let (a, b) = (projects[0].clone(), projects[1].clone());
    let starting: Vec<_> = [&a, &a, &a, &b, &b]
        .into_iter()
        .map(|project| {
            let (home, config) = (rg.home(), rg.config_home.clone());
            let (project, command) = (project.clone(), rg.connect_command("files"));
            let root = uri(&project);
            tokio::spawn(async move {
                let options = [
                    "--roots",
                    root.as_str(),
                    "--name",
                    "claude-code",
                    "--first-call",
                    "list_allowed_directories",
                ];
                let app = App::start_in(
                    &config,
                    &home,
                    &[("HOME", &home)],
                    Sdk::TypeScript,
                    &options,
                    &command,
                )
                .await;
                (project, app)
            })
        })
        .collect();
    let mut apps = Vec::new();
    for started in starting {
        apps.push(started.await.expect("an app"));
    }
    for (project, app) in &mut apps {
        let first = &app.connected["first"]["ok"];
        assert!(
            first.is_object(),
            "the first call failed: {}",
            app.connected
        );
        let seen: Vec<PathBuf> = folders_in(first);
        assert_eq!(seen, vec![project.clone()], "from the first call on");
        // The other project's file is not the server's to read.
        let other = if *project == a { &b } else { &a };
        let name = if *project == a { "b.txt" } else { "a.txt" };
        let read = app
            .request(json!({"op": "callTool", "name": "read_text_file",
                "arguments": {"path": other.join(name)}}))
            .await;
        assert!(
            read["ok"]["isError"] == true || read.get("error").is_some(),
            "{read}"
        );
    }
    assert_eq!(servers_of(&rg).len(), 2, "one process per project");

    // One app in `a` now works in `b`: it moves to `b`'s process, which
    // runs already, and is never disconnected.
    let (_, mover) = &mut apps[0];
    let old = mover.child.id();
    mover
        .request(json!({"op": "setRoots", "roots": [{"uri": uri(&b)}]}))
        .await;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let now = allowed_or_error(mover).await;
        match now {
            Ok(seen) if seen == [b.clone()] => break,
            Ok(seen) => assert_eq!(seen, vec![a.clone()], "only the old project or the new"),
            Err(e) => panic!("the moving app got an error: {e}"),
        }
        assert!(tokio::time::Instant::now() < deadline, "never moved to b");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(mover.child.id(), old, "the same app session");
    apps[0].0 = b.clone();
    assert_eq!(servers_of(&rg).len(), 2, "a's process still serves two");

    // The other two follow: `a`'s process serves nobody and is stopped.
    for (project, app) in apps.iter_mut().skip(1).take(2) {
        app.request(json!({"op": "setRoots", "roots": [{"uri": uri(&b)}]}))
            .await;
        let deadline = tokio::time::Instant::now() + WAIT;
        while allowed_or_error(app).await != Ok(vec![b.clone()]) {
            assert!(tokio::time::Instant::now() < deadline, "never moved to b");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        *project = b.clone();
    }
    let deadline = tokio::time::Instant::now() + WAIT;
    while servers_of(&rg).len() != 1 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "a's process was not stopped: {:?}",
            servers_of(&rg)
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    for (_, app) in &mut apps {
        assert_eq!(allowed_or_error(app).await, Ok(vec![b.clone()]));
    }
    close_all(apps.into_iter().map(|(_, app)| app).collect()).await;
}

/// What our hostile server (`tests/servers/hostile_server.py`) said when
/// asked to read `path`: whether it reached it, and in its words.
async fn hostile_read(app: &mut App, path: &std::path::Path) -> (bool, String) {
    let answer = app
        .request(json!({"op": "callTool", "name": "read", "arguments": {"path": path}}))
        .await;
    let said: Value = serde_json::from_str(&tool_text(ok(&answer))).expect("its JSON report");
    (
        said["reached"].as_bool().unwrap_or(true),
        said["said"].as_str().unwrap_or_default().to_owned(),
    )
}

/// A session on our hostile server held to its project: it reads `own`,
/// and neither `other` (another project's file) nor the settings.
async fn held_reads(
    app: &mut App,
    own: &std::path::Path,
    other: &std::path::Path,
    settings: &std::path::Path,
) {
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    let (reached, said) = hostile_read(app, own).await;
    assert!(reached, "held, it reads its own project's file: {said}");
    let (reached, said) = hostile_read(app, other).await;
    assert!(!reached, "held, it read the other project's file: {said}");
    let (reached, said) = hostile_read(app, settings).await;
    assert!(!reached, "held, it read the settings: {said}");
}

/// A held Workspace server is held per project even when shared: our
/// hostile server, which reads any file it is asked to whatever it was
/// told, runs held for the sessions of `code/a` and, as another process,
/// for those of `code/b`. Each reads its own project's file and not the
/// other's, nor the settings file; the same server not held reads them all,
/// so the test fails for the right reason if the hold lets one through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_held_workspace_server_reads_only_its_own_projects_files() {
    assert_eq!(
        rootgate_core::enforcement::support(),
        rootgate_core::enforcement::Support::Available,
        "held servers cannot be tested here"
    );
    let rg = Rootgate::new();
    let script =
        rootgate_test_support::peers::workspace_root().join("tests/servers/hostile_server.py");
    let mut ids = Vec::new();
    for (name, held) in [("held", true), ("free", false)] {
        let spec = approved(
            &rg,
            rootgate_core::servers::ServerDraft {
                name: name.into(),
                command: "/usr/bin/python3".into(),
                args: vec![script.display().to_string()],
                workspace_only: true,
                enforce_roots: held,
                ..Default::default()
            },
        );
        ids.push(spec.id);
    }
    let mut secrets = Vec::new();
    for name in ["a", "b"] {
        let path = rg.home().join("code").join(name);
        std::fs::create_dir_all(&path).expect("mkdir");
        std::fs::write(path.join("secret.txt"), format!("{name}'s secret")).expect("write");
        let checked = rootgate_core::folders::check(&path).expect("check");
        let root = rg.store.add_root(&checked, None).expect("keep").root.id;
        for id in &ids {
            rg.share(id, &root);
        }
        secrets.push(checked.real().join("secret.txt"));
    }
    let settings = rg.store.file().path().to_path_buf();
    let uri = |p: &std::path::Path| {
        rootgate_core::uri::path_to_uri(p.parent().expect("its project"))
            .expect("uri")
            .to_string()
    };
    let start = |server: &str, mine: usize| {
        let (home, config) = (rg.home(), rg.config_home.clone());
        let command = rg.connect_command(server);
        let root = uri(&secrets[mine]);
        async move {
            App::start_in(
                &config,
                &home,
                &[("HOME", &home)],
                Sdk::TypeScript,
                &["--roots", &root],
                &command,
            )
            .await
        }
    };
    // Two sessions in each project, on the held server.
    let mut held = Vec::new();
    for mine in [0, 0, 1, 1] {
        held.push((mine, start("held", mine).await));
    }
    // Asked together: each session's first call waits for its project's
    // folders, which this server never asks for (up to the pickup time).
    let [(_, a1), (_, a2), (_, b1), (_, b2)] = &mut held[..] else {
        panic!("four sessions");
    };
    let (a, b) = (&secrets[0], &secrets[1]);
    tokio::join!(
        held_reads(a1, a, b, &settings),
        held_reads(a2, a, b, &settings),
        held_reads(b1, b, a, &settings),
        held_reads(b2, b, a, &settings),
    );
    // The same server not held reads everything it is asked to.
    let mut free = start("free", 0).await;
    for path in [&secrets[0], &secrets[1], &settings] {
        let (reached, said) = hostile_read(&mut free, path).await;
        assert!(reached, "not held, it reaches {}: {said}", path.display());
    }
    let mut apps: Vec<App> = held.into_iter().map(|(_, app)| app).collect();
    apps.push(free);
    close_all(apps).await;
}

/// A modern-era Workspace server is told each request's folders in its
/// rounds, so its sessions share one process whatever their projects:
/// four TypeScript SDK apps, two with `code/a` open and two with `code/b`,
/// reach one process of our Python SDK modern server, and its own
/// `ask_roots` answers each app exactly its project. An app that opens the
/// other project is told that one from then on, and a withdrawal reaches
/// only the sessions whose project it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_workspace_server_serves_every_project_from_one_process() {
    let rg = Rootgate::new();
    let python = python().display().to_string();
    let script = py_modern_server().display().to_string();
    let spec = approved(
        &rg,
        rootgate_core::servers::ServerDraft {
            name: "modern".into(),
            command: python.clone(),
            args: vec![script],
            workspace_only: true,
            era: rootgate_core::servers::EraChoice::Modern,
            ..Default::default()
        },
    );
    let mut projects = Vec::new();
    let mut roots = Vec::new();
    for name in ["a", "b"] {
        let path = rg.home().join("code").join(name);
        std::fs::create_dir_all(&path).expect("mkdir");
        let checked = rootgate_core::folders::check(&path).expect("check");
        let root = rg.store.add_root(&checked, None).expect("keep").root.id;
        rg.share(&spec.id, &root);
        roots.push(root);
        projects.push(
            rootgate_core::uri::path_to_uri(checked.real())
                .expect("uri")
                .to_string(),
        );
    }
    let asked = |answer: Value| -> Result<Vec<String>, String> {
        match answer.get("ok") {
            Some(ok) if ok["isError"] != true => {
                Ok(tool_text(ok).lines().map(str::to_owned).collect())
            }
            _ => Err(answer.to_string()),
        }
    };
    let mut apps = Vec::new();
    for mine in [0, 0, 1, 1] {
        let app = App::start_in(
            &rg.config_home,
            &rg.home(),
            &[("HOME", &rg.home())],
            Sdk::TypeScript,
            &["--roots", &projects[mine]],
            &rg.connect_command("modern"),
        )
        .await;
        assert_eq!(app.connected["event"], "connected", "{}", app.connected);
        apps.push((mine, app));
    }
    for (mine, app) in &mut apps {
        let answer = app
            .request(json!({"op": "callTool", "name": "ask_roots"}))
            .await;
        assert_eq!(asked(answer), Ok(vec![projects[*mine].clone()]));
    }
    let pythons = programs_of(&rg, format!("{python}\0").as_bytes());
    assert_eq!(
        pythons.len(),
        1,
        "one process for both projects: {pythons:?}"
    );

    // The first app opens `b`: its requests are told `b` from then on.
    let (_, mover) = &mut apps[0];
    mover
        .request(json!({"op": "setRoots", "roots": [{"uri": projects[1]}]}))
        .await;
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let answer = mover
            .request(json!({"op": "callTool", "name": "ask_roots"}))
            .await;
        let now = asked(answer).expect("answered");
        if now == [projects[1].clone()] {
            break;
        }
        assert_eq!(
            now,
            [projects[0].clone()],
            "only the old project or the new"
        );
        assert!(tokio::time::Instant::now() < deadline, "never told b");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    apps[0].0 = 1;

    // `b` withdrawn: its three sessions are told nothing, the fourth still `a`.
    rg.store.revoke(&spec.id, &roots[1]).expect("withdraw");
    for (mine, app) in &mut apps {
        // The server's own words for an empty answer.
        let want: Vec<String> = if *mine == 0 {
            vec![projects[0].clone()]
        } else {
            vec!["(no roots)".to_owned()]
        };
        let answer = app
            .request(json!({"op": "callTool", "name": "ask_roots"}))
            .await;
        assert_eq!(
            asked(answer),
            Ok(want),
            "the first request after the withdrawal"
        );
    }
    assert_eq!(
        programs_of(&rg, format!("{python}\0").as_bytes()),
        pythons,
        "still the one process"
    );
    close_all(apps.into_iter().map(|(_, app)| app).collect()).await;
}
