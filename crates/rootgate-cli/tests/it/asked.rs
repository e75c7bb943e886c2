//! Asked when it matters, through the real programs: an AI app on the
//! official TypeScript SDK client connects through `rootgate connect` to
//! the npm filesystem server while it works in a folder not shared with
//! that server; the Rootgate window (its supervisor, without a webview)
//! asks on a real notification daemon (dunst 1.9, on a bus and X display
//! of the test's own, see rootgate_test_support::desktop), and the app's first
//! `tools/call` (`list_allowed_directories`, the server's own report of its
//! folders) waits for the answer. Share: it answers with the folder. Not
//! now: it goes on without, the answer is kept, and the next connection is
//! not asked again. No notification server: nobody is asked and the bridge
//! does not hold; the question waits in the window as a suggestion. A
//! notification server the bus starts on demand is found and answers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rootgate_core::desktop::Desktop;
use rootgate_core::questions::Answer;
use rootgate_core::supervisor::Supervisor;
use rootgate_core::timeline::Event;
use rootgate_test_support::app::*;
use rootgate_test_support::desktop::TestDesktop;
use serde_json::Value;

/// The folders the filesystem server listed in the app's first call.
pub(super) fn first_allowed(connected: &Value) -> Vec<PathBuf> {
    let first = &connected["first"]["ok"];
    assert!(first.is_object(), "the first call failed: {connected}");
    tool_text(first)
        .lines()
        .filter(|l| l.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

pub(super) struct Setup {
    pub(super) rg: Rootgate,
    pub(super) sup: Arc<Supervisor>,
    pub(super) shared: PathBuf,
    pub(super) project: PathBuf,
}

/// The window's supervisor listening for bridges; "files" is the npm
/// filesystem server with one folder shared; the app works in another.
/// A desktop of its own (bus, dunst) and a [`setup`] whose supervisor asks
/// its questions there: how every test of a desktop question begins.
pub(super) async fn asking_setup() -> (TestDesktop, Setup) {
    let desktop = TestDesktop::start().await;
    let s = setup().await;
    s.sup.questions().ask_through(Arc::new(
        Desktop::at(&desktop.address).await.expect("desktop"),
    ));
    (desktop, s)
}

pub(super) async fn setup() -> Setup {
    let (rg, sup) = Rootgate::with_window();
    sup.listen_for_bridges().await.expect("listen");
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (root, shared) = rg.folder("shared");
    rg.share(&files.id, &root);
    let project = rg.dir.path().join("code/app");
    std::fs::create_dir_all(&project).expect("mkdir");
    let project = project.canonicalize().expect("real path");
    Setup {
        rg,
        sup,
        shared,
        project,
    }
}

/// Claude Code (by its client name) working in `project`, whose first act
/// is `list_allowed_directories`; started on a task of its own, since it
/// is connected only once that first call is answered.
pub(super) fn claude_code_in(rg: &Rootgate, project: &Path) -> tokio::task::JoinHandle<App> {
    let uri = rootgate_core::uri::path_to_uri(project)
        .expect("uri")
        .to_string();
    let command = rg.connect_command("files");
    let options = [
        "--roots".to_owned(),
        uri,
        "--name".into(),
        "claude-code".into(),
        "--first-call".into(),
        "list_allowed_directories".into(),
    ];
    let rg_home = rg.config_home.clone();
    tokio::spawn(async move {
        let options: Vec<&str> = options.iter().map(String::as_str).collect();
        App::start_with_config_home(&rg_home, Sdk::TypeScript, &options, &command).await
    })
}

/// What the connection's timeline said about the app's first request and
/// the question.
pub(super) async fn said_about_question(sup: &Supervisor) -> String {
    eventually("the timeline to say how the question ended", || async {
        let said: Vec<String> = sup
            .bridges()
            .list()
            .iter()
            .flat_map(|c| sup.bridges().connection_timeline(&c.id))
            .filter_map(|e| match e.event {
                Event::FirstRequest { said, .. }
                    if said.contains("answer") || said.contains("question") =>
                {
                    Some(said)
                }
                _ => None,
            })
            .collect();
        said.last().cloned().ok_or_else(|| "nothing yet".to_owned())
    })
    .await
}

/// Waits for the question on dunst's screen and returns its menu lines.
pub(super) async fn question_on_screen(desktop: &TestDesktop) -> Vec<String> {
    eventually("the question to show on the desktop", || async {
        let menu = desktop.menu();
        if menu.iter().any(|l| l.contains("is working in")) {
            Ok(menu)
        } else {
            Err(format!("{menu:?}"))
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn share_on_the_notification_lets_the_held_first_call_see_the_folder() {
    let (desktop, s) = asking_setup().await;
    let app = claude_code_in(&s.rg, &s.project);

    let menu = question_on_screen(&desktop).await;
    let summary = format!("Claude Code is working in {}", s.project.display());
    for label in ["Share", "Not now", "Open Rootgate"] {
        assert!(
            menu.iter()
                .any(|l| l.starts_with(&format!("#{label} ({summary})"))),
            "{label} in {menu:?}"
        );
    }
    let offered = desktop.press("Share");
    eventually("the answer to reach Rootgate", || async {
        let asked = s.sup.questions().list();
        match asked.first().and_then(|a| a.answer) {
            Some(Answer::Share) => Ok(()),
            _ => Err(format!("{asked:?}; offered {offered:?}")),
        }
    })
    .await;

    let app = app.await.expect("the app");
    let allowed = first_allowed(&app.connected);
    assert!(allowed.contains(&s.project), "{allowed:?}");
    assert!(allowed.contains(&s.shared), "{allowed:?}");
    // The grant is recorded as a window's answer would be.
    assert!(
        s.sup
            .folders()
            .list()
            .iter()
            .any(|f| f.root.real_path == s.project)
    );
    let asked = s.sup.questions().list();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].answer, Some(Answer::Share));
    // Answered, the notification went, as dunst's history shows.
    let history = eventually("the answered notification to be closed", || async {
        let h = desktop.history();
        if h.is_empty() {
            Err("empty".to_owned())
        } else {
            Ok(h)
        }
    })
    .await;
    assert_eq!(history, vec![(summary, "Share it with files?".to_owned())]);
    let said = said_about_question(&s.sup).await;
    assert!(said.contains("shared, and the server has it"), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_now_lets_the_call_go_on_without_and_is_not_asked_twice() {
    let (desktop, s) = asking_setup().await;
    let app = claude_code_in(&s.rg, &s.project);
    question_on_screen(&desktop).await;
    desktop.press("Not now");

    let app = app.await.expect("the app");
    assert_eq!(first_allowed(&app.connected), vec![s.shared.clone()]);
    let said = said_about_question(&s.sup).await;
    assert!(said.contains("the person said not now"), "{said}");
    assert_eq!(s.sup.questions().list()[0].answer, Some(Answer::NotNow));

    // A second connection in the same folder: not asked, not held.
    let again = claude_code_in(&s.rg, &s.project).await.expect("the app");
    assert_eq!(first_allowed(&again.connected), vec![s.shared.clone()]);
    assert_eq!(s.sup.questions().list().len(), 1);
    assert!(desktop.menu().is_empty(), "{:?}", desktop.menu());
    drop(app);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_notification_server_nobody_is_asked_and_the_bridge_does_not_hold() {
    let s = setup().await;
    let mut changes = s.sup.subscribe();
    let app = claude_code_in(&s.rg, &s.project).await.expect("the app");
    assert_eq!(first_allowed(&app.connected), vec![s.shared.clone()]);
    let said = said_about_question(&s.sup).await;
    assert!(said.starts_with("Did not hold"), "{said}");
    assert!(said.contains("no notification server"), "{said}");
    // The question waits in the window, as a suggestion.
    let prompt = tokio::time::timeout(WAIT, async {
        loop {
            if let Ok(rootgate_core::supervisor::Change::Prompts { prompts }) = changes.recv().await
                && let Some(p) = prompts.into_iter().find(|p| p.suggestion.is_some())
            {
                return p;
            }
        }
    })
    .await
    .expect("a suggestion in the window");
    assert_eq!(prompt.real_path, s.project);
    // It is recorded, unanswered, as asked in the window only: the
    // Questions view lists it.
    let asked = s.sup.questions().list();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!((asked[0].answer, asked[0].desktop), (None, false));
}

/// A notification server the bus starts on demand (D-Bus activation, how
/// dunst, mako and xfce4-notifyd often run): nobody owns the name until
/// Rootgate's first call, and the owner Rootgate then follows is the one
/// whose Share counts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_server_the_bus_starts_on_demand_is_found_and_its_share_counts() {
    let desktop = TestDesktop::on_demand().await;
    let s = setup().await;
    let found = Desktop::at(&desktop.address)
        .await
        .expect("the bus starts dunst for Rootgate's first call");
    assert!(found.server().starts_with("dunst "), "{}", found.server());
    s.sup.questions().ask_through(Arc::new(found));
    let app = claude_code_in(&s.rg, &s.project);
    question_on_screen(&desktop).await;
    desktop.press("Share");

    let app = app.await.expect("the app");
    let allowed = first_allowed(&app.connected);
    assert!(allowed.contains(&s.project), "{allowed:?}");
}
