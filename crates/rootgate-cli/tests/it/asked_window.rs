//! Asked when it matters, beyond the notification's buttons, through the
//! real programs (the TypeScript SDK client through `rootgate connect`, the
//! npm filesystem server, dunst 1.9 on the test's own bus and display; see
//! `asked`): an answer given in the window's Questions view releases the
//! app's held first request at once; a dismissed notification is no
//! answer; a notification daemon that goes away lets the app go on and
//! leaves the question in the window; a thousand connections asking about
//! one folder give one question; and the window process killed while a
//! question is open lets the app go on without the folder, the question
//! coming back when Rootgate starts again.

use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;

use rootgate_core::desktop::Desktop;
use rootgate_core::questions::Answer;
use rootgate_core::supervisor::Supervisor;
use rootgate_test_support::app::*;
use rootgate_test_support::desktop::TestDesktop;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::asked::{claude_code_in, first_allowed, question_on_screen, said_about_question, setup};

/// The one question recorded, once `done` says it is as wanted.
async fn the_question(
    sup: &Supervisor,
    done: impl Fn(&rootgate_model::questions::Asked) -> bool,
) -> rootgate_model::questions::Asked {
    eventually("the question to be as expected", || async {
        let asked = sup.questions().list();
        match asked.as_slice() {
            [one] if done(one) => Ok(one.clone()),
            _ => Err(format!("{asked:#?}")),
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn share_in_the_questions_view_releases_the_held_first_call_at_once() {
    let (desktop, s) = super::asked::asking_setup().await;
    let app = claude_code_in(&s.rg, &s.project);
    question_on_screen(&desktop).await;
    desktop.screenshot("desktop-question");

    // Answered in the window, not on the notification.
    let asked = the_question(&s.sup, |a| a.answer.is_none()).await;
    let view = s.sup.questions().question_views();
    assert!(view[0].open, "the question is on the desktop: {view:?}");
    let prompt = s
        .sup
        .questions()
        .answer_question(asked.id, Answer::Share)
        .expect("answer");
    assert!(prompt.is_none(), "no warning: shared at once");

    let app = app.await.expect("the app");
    let allowed = first_allowed(&app.connected);
    assert!(allowed.contains(&s.project), "{allowed:?}");
    let said = said_about_question(&s.sup).await;
    assert!(said.contains("shared, and the server has it"), "{said}");
    assert_eq!(
        the_question(&s.sup, |a| a.answer.is_some()).await.answer,
        Some(Answer::Share)
    );
    // The notification went from the screen, answered in the window.
    eventually("the notification to leave the screen", || async {
        let menu = desktop.menu();
        if menu.is_empty() {
            Ok(())
        } else {
            Err(format!("{menu:?}"))
        }
    })
    .await;

    // Not now in the view withdraws the folder from that server.
    s.sup
        .questions()
        .answer_question(asked.id, Answer::NotNow)
        .expect("not now");
    assert!(
        !s.sup
            .folders()
            .list()
            .iter()
            .any(|f| f.root.real_path == s.project && !f.servers.is_empty()),
        "withdrawn from files"
    );
    let view = s.sup.questions().question_views();
    assert_eq!(
        (view[0].asked.answer, view[0].shared),
        (Some(Answer::NotNow), false)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dismissed_notification_is_no_answer_and_the_question_waits_in_the_window() {
    let (desktop, s) = super::asked::asking_setup().await;
    let app = claude_code_in(&s.rg, &s.project);
    question_on_screen(&desktop).await;
    desktop.dismiss();

    // The app goes on without the folder, at once: nobody can answer on
    // the desktop any more.
    let app = app.await.expect("the app");
    assert_eq!(first_allowed(&app.connected), vec![s.shared.clone()]);
    let said = said_about_question(&s.sup).await;
    assert!(said.contains("dismissed without an answer"), "{said}");
    // Unanswered, and answerable in the window.
    let asked = the_question(&s.sup, |a| a.answer.is_none()).await;
    assert!(
        s.sup
            .consent()
            .open_prompts()
            .iter()
            .any(|p| p.real_path == s.project && p.suggestion.is_some())
    );
    s.sup
        .questions()
        .answer_question(asked.id, Answer::Share)
        .expect("share");
    assert!(
        s.sup
            .folders()
            .list()
            .iter()
            .any(|f| f.root.real_path == s.project && !f.servers.is_empty())
    );
    assert!(
        s.sup.consent().open_prompts().is_empty(),
        "the suggestion was answered with it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_daemon_that_goes_away_lets_the_app_go_on() {
    let mut desktop = TestDesktop::start().await;
    let s = setup().await;
    s.sup.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));
    let app = claude_code_in(&s.rg, &s.project);
    question_on_screen(&desktop).await;
    desktop.stop_notifications().await;

    let app = app.await.expect("the app");
    assert_eq!(first_allowed(&app.connected), vec![s.shared.clone()]);
    let said = said_about_question(&s.sup).await;
    assert!(said.contains("notification server went away"), "{said}");
    the_question(&s.sup, |a| a.answer.is_none()).await;
    assert!(
        s.sup
            .consent()
            .open_prompts()
            .iter()
            .any(|p| p.real_path == s.project)
    );

    // The next connection is not held for a daemon that is not there.
    let again = claude_code_in(&s.rg, &s.project).await.expect("the app");
    assert_eq!(first_allowed(&again.connected), vec![s.shared.clone()]);
}

/// An AI app as raw JSON-RPC: `rootgate connect NAME` started with the
/// app's identity and roots, its first `tools/call` sent right after
/// `initialized`; the answer to it is awaited with [`RawApp::first_answer`].
struct RawApp {
    child: tokio::process::Child,
    answered: tokio::sync::oneshot::Receiver<Value>,
}

impl RawApp {
    fn start(rg: &Rootgate, server: &str, project_uri: &str) -> RawApp {
        let command = rg.connect_command(server);
        let mut child = tokio::process::Command::new(&command[0])
            .args(&command[1..])
            .env("XDG_CONFIG_HOME", &rg.config_home)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start rootgate connect");
        let mut stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, answered) = tokio::sync::oneshot::channel();
        let root = json!({"roots": [{"uri": project_uri, "name": "app"}]});
        tokio::spawn(async move {
            let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {"roots": {"listChanged": true}},
                "clientInfo": {"name": "claude-code", "version": "2"}}});
            let mut lines = BufReader::new(stdout).lines();
            let mut tx = Some(tx);
            if write_line(&mut stdin, &init).await.is_err() {
                return;
            }
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(v) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                let out = match (v["id"].as_u64(), v["method"].as_str()) {
                    (Some(1), None) => vec![
                        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
                        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                               "params": {"name": "list_roots", "arguments": {}}}),
                    ],
                    (Some(2), None) => {
                        if let Some(tx) = tx.take() {
                            let _ = tx.send(v);
                        }
                        continue;
                    }
                    (_, Some("roots/list")) => {
                        vec![json!({"jsonrpc": "2.0", "id": v["id"], "result": root})]
                    }
                    (_, Some("ping")) => {
                        vec![json!({"jsonrpc": "2.0", "id": v["id"], "result": {}})]
                    }
                    _ => continue,
                };
                for line in &out {
                    if write_line(&mut stdin, line).await.is_err() {
                        return;
                    }
                }
            }
        });
        RawApp { child, answered }
    }

    async fn first_answer(self) -> (Value, tokio::process::Child) {
        let answer = tokio::time::timeout(WAIT, self.answered)
            .await
            .expect("the first call was answered")
            .expect("the app read its answer");
        (answer, self.child)
    }
}

async fn write_line(stdin: &mut tokio::process::ChildStdin, v: &Value) -> std::io::Result<()> {
    let mut line = v.to_string();
    line.push('\n');
    stdin.write_all(line.as_bytes()).await
}

/// How many connections the flood makes; the thousand by default.
fn flood_size() -> usize {
    std::env::var("ROOTGATE_FLOOD_CONNECTIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_connections_asking_about_one_folder_give_one_question() {
    let desktop = TestDesktop::start().await;
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    // Our example server: a thousand of it cost little.
    let fixture = fixture_server().display().to_string();
    let files = rg.server("files", &fixture, &[]);
    let (root, _) = rg.folder("shared");
    rg.share(&files.id, &root);
    let project = rg.dir.path().join("code/app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let project_uri = rootgate_core::uri::path_to_uri(&project.canonicalize().expect("real"))
        .expect("uri")
        .to_string();
    sup.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));

    let n = flood_size();
    let apps: Vec<RawApp> = (0..n)
        .map(|_| RawApp::start(&rg, "files", &project_uri))
        .collect();
    // Starting a thousand bridges, each with its server, takes the two
    // cores of a CI machine a while: the bound is on that, not on Rootgate.
    let all_started = std::time::Duration::from_secs(
        std::env::var("ROOTGATE_FLOOD_WAIT_S")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(300),
    );
    eventually_within(
        all_started,
        "every connection to show in the window",
        || async {
            let all = sup.bridges().list();
            let live = all
                .iter()
                .filter(|c| c.live && !c.app_roots.is_empty())
                .count();
            if live == n {
                return Ok(());
            }
            let others: Vec<String> = all
                .iter()
                .filter(|c| !c.live || c.app_roots.is_empty())
                .map(|c| format!("{} live {} app {:?} {:?}", c.id, c.live, c.app, c.status))
                .collect();
            Err(format!(
                "{live} of {n} ({} heard of); others: {others:#?}",
                all.len()
            ))
        },
    )
    .await;
    let menu = question_on_screen(&desktop).await;
    let shown: Vec<&String> = menu.iter().filter(|l| l.starts_with("#Share (")).collect();
    assert_eq!(shown.len(), 1, "one notification: {menu:?}");
    assert_eq!(
        sup.questions().list().len(),
        1,
        "{:?}",
        sup.questions().list()
    );

    desktop.press("Share");
    let mut answers = Vec::new();
    for app in apps {
        answers.push(app.first_answer().await);
    }
    assert_eq!(answers.len(), n);
    assert!(
        answers.iter().all(|(a, _)| a["id"] == 2),
        "every first call answered"
    );
    let history = eventually("the answered notification to be closed", || async {
        let h = desktop.history();
        if h.is_empty() {
            Err("empty".to_owned())
        } else {
            Ok(h)
        }
    })
    .await;
    assert_eq!(
        history.len(),
        1,
        "one question in dunst's history: {history:?}"
    );
    assert_eq!(sup.questions().list().len(), 1);
    assert_eq!(sup.questions().list()[0].answer, Some(Answer::Share));
}

/// The window process: the real `rootgate-desktop` on `rg`'s settings,
/// showing its window on the test's display and asking on its bus.
fn window_process(rg: &Rootgate, desktop: &TestDesktop) -> tokio::process::Child {
    tokio::process::Command::new(binary("rootgate-desktop"))
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("DISPLAY", desktop.display())
        .env("DBUS_SESSION_BUS_ADDRESS", &desktop.address)
        // Painting on the CPU from the start: no re-execution.
        .env("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start rootgate-desktop")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_window_killed_mid_question_lets_the_app_go_on_and_asks_again_at_the_next_start() {
    let desktop = TestDesktop::start().await;
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (root, shared) = rg.folder("shared");
    rg.share(&files.id, &root);
    let project = rg.dir.path().join("code/app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let project = project.canonicalize().expect("real path");
    let settings = rg.config_home.join("rootgate/settings.json");

    let mut window = window_process(&rg, &desktop);
    // The window listens once its socket is there.
    let socket = rootgate_core::connections::socket_path(&settings);
    eventually("the window to listen for bridges", || async {
        if socket.exists() {
            Ok(())
        } else {
            Err(format!("no {}", socket.display()))
        }
    })
    .await;
    let app = claude_code_in(&rg, &project);
    question_on_screen(&desktop).await;
    desktop.screenshot("desktop-question-from-the-window-process");
    window.kill().await.expect("kill the window");

    // The bridge goes on, without the folder, at once.
    let app = app.await.expect("the app");
    assert_eq!(first_allowed(&app.connected), vec![shared.clone()]);
    // What the killed window showed stays on the screen; the person
    // closes it.
    desktop.dismiss();
    eventually("the screen to be clear", || async {
        let menu = desktop.menu();
        if menu.is_empty() {
            Ok(())
        } else {
            Err(format!("{menu:?}"))
        }
    })
    .await;

    // Rootgate starts again (its core, here): the question is there,
    // unanswered, and asked again on the desktop.
    let again = Supervisor::open_with_secrets(
        rootgate_core::settings::SettingsFile::at(&settings),
        rootgate_core::session::SessionConfig::default(),
        rootgate_core::supervisor::RestartPolicy::default(),
        test_secrets(),
    )
    .expect("open again");
    let asked = again.questions().list();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        (asked[0].answer, asked[0].folder.as_path()),
        (None, project.as_path() as &Path)
    );
    again.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));
    let menu = question_on_screen(&desktop).await;
    desktop.screenshot("desktop-question-asked-again");
    assert!(
        menu.iter()
            .any(|l| l.contains(&project.display().to_string())),
        "{menu:?}"
    );
    assert!(
        again
            .consent()
            .open_prompts()
            .iter()
            .any(|p| p.real_path == project),
        "it waits in the window too"
    );
    drop(app);
}
