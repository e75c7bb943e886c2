//! One Rootgate per settings file: a second start finds the first one by
//! the settings' lock, hands its folders over the window's private socket
//! and is told what became of them; the window opens their consent
//! prompts and is raised. A start waits for an owner still starting, takes
//! over from one that ended, and is never held up by a socket a dead
//! window left behind. The window here is the supervisor the desktop app
//! runs, with the app's hook as a channel.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use rootgate_bridge::connections::{OpenAnswer, socket_path};
use rootgate_bridge::instance::{self, Start};
use rootgate_core::supervisor::{Change, ConsentPrompt, Supervisor};
use rootgate_model::settings::SettingsFile;
use rootgate_session::SessionConfig;

/// Long enough for anything on a loaded machine; a pass never waits it out.
const WAIT: Duration = Duration::from_secs(30);

struct Window {
    supervisor: Arc<Supervisor>,
    /// What the app's hook was told: one answer per start handed over.
    raised: mpsc::Receiver<OpenAnswer>,
}

/// The window's side as the app sets it up: the supervisor on `settings`,
/// taking other starts' folders (the hook sends what it is told), then
/// listening on the settings' socket.
async fn window(settings: &Path) -> Window {
    let supervisor = Supervisor::open(SettingsFile::at(settings), SessionConfig::default())
        .expect("open supervisor");
    let (tx, raised) = mpsc::channel();
    let tx = std::sync::Mutex::new(tx);
    supervisor.take_other_starts(Box::new(move |answer| {
        let _ = tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .send(answer.clone());
    }));
    supervisor.listen_for_bridges().await.expect("listen");
    Window { supervisor, raised }
}

fn settings_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("config/rootgate/settings.json")
}

fn folder(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    let path = dir.path().join("folders").join(name);
    std::fs::create_dir_all(&path).expect("create folder");
    path
}

/// A second start, as the app's `run` makes it, on a thread of its own
/// (it blocks while it waits for the owner's window).
async fn second_start(settings: &Path, folders: Vec<PathBuf>) -> Start {
    let settings = settings.to_path_buf();
    let started = tokio::task::spawn_blocking(move || {
        instance::start(&settings, &instance::request_for(&folders), WAIT)
    });
    tokio::time::timeout(WAIT * 2, started)
        .await
        .expect("the second start ended")
        .expect("the second start's thread")
        .expect("the second start")
}

async fn prompts_change(
    changes: &mut tokio::sync::broadcast::Receiver<Change>,
) -> Vec<ConsentPrompt> {
    let wait = async {
        loop {
            if let Ok(Change::Prompts { prompts }) = changes.recv().await {
                return prompts;
            }
        }
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .expect("no prompts reached the window")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_start_hands_its_folders_to_the_window_which_asks_about_them() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings_in(&dir);
    let _owner = instance::claim(&settings)
        .unwrap()
        .expect("the first start owns the settings");
    let w = window(&settings).await;
    let mut changes = w.supervisor.subscribe();
    let notes = folder(&dir, "notes");
    let gone = dir.path().join("folders/gone");

    let started = second_start(&settings, vec![notes.clone(), gone.clone()]).await;

    let Start::HandedOver(answer) = started else {
        panic!("the second start owned the settings too: {started:?}");
    };
    assert_eq!(answer.prompts, 1, "{answer:?}");
    assert_eq!(answer.notices.len(), 1, "{answer:?}");
    assert!(
        answer.notices[0].contains("gone"),
        "the refusal names the folder: {answer:?}"
    );
    // The folder that can be shared reached the window as a prompt, with
    // its real path; the one that cannot did not lose it.
    let real = notes.canonicalize().unwrap();
    let prompts = prompts_change(&mut changes).await;
    assert_eq!(
        prompts.iter().map(|p| &p.real_path).collect::<Vec<_>>(),
        vec![&real]
    );
    assert!(
        w.supervisor
            .consent()
            .open_prompts()
            .iter()
            .any(|p| p.real_path == real),
        "the prompt stays open for the window"
    );
    // The app's hook ran once, with the same answer (it raises the window
    // and shows the refusal).
    assert_eq!(w.raised.recv_timeout(WAIT).expect("raised"), answer);
    assert!(w.raised.try_recv().is_err());
    // Nothing was shared by the hand-over itself.
    assert!(w.supervisor.folders().list().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_with_nothing_to_hand_over_only_raises_the_window() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings_in(&dir);
    let _owner = instance::claim(&settings).unwrap().expect("owner");
    let w = window(&settings).await;

    let started = second_start(&settings, Vec::new()).await;

    let Start::HandedOver(answer) = started else {
        panic!("the second start owned the settings too: {started:?}");
    };
    assert_eq!(answer, OpenAnswer::default());
    assert_eq!(w.raised.recv_timeout(WAIT).expect("raised"), answer);
    assert!(w.supervisor.consent().open_prompts().is_empty());
    assert_eq!(
        instance::answer_words(&answer).0,
        "Rootgate is open already; its window was brought to the front."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_waits_for_an_owner_whose_window_is_still_opening() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings_in(&dir);
    let _owner = instance::claim(&settings).unwrap().expect("owner");
    let notes = folder(&dir, "notes");

    // The second start begins while the owner has the lock but no socket
    // yet, as when both are started from the menu at once.
    let waiting = {
        let settings = settings.clone();
        let notes = notes.clone();
        tokio::task::spawn_blocking(move || {
            instance::start(&settings, &instance::request_for(&[notes]), WAIT)
        })
    };
    // A stimulus, not an assertion: the window comes up a little later.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let w = window(&settings).await;

    let started = tokio::time::timeout(WAIT * 2, waiting)
        .await
        .expect("the second start ended")
        .unwrap()
        .expect("the second start");
    let Start::HandedOver(answer) = started else {
        panic!("the second start owned the settings too: {started:?}");
    };
    assert_eq!(answer.prompts, 1, "{answer:?}");
    let real = notes.canonicalize().unwrap();
    assert!(
        w.supervisor
            .consent()
            .open_prompts()
            .iter()
            .any(|p| p.real_path == real)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_takes_over_from_an_owner_that_ended_before_its_window_opened() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings_in(&dir);
    let owner = instance::claim(&settings).unwrap().expect("owner");

    let waiting = {
        let settings = settings.clone();
        tokio::task::spawn_blocking(move || {
            instance::start(&settings, &instance::request_for(&[]), WAIT)
        })
    };
    // The owner goes without ever listening (it crashed while starting):
    // its lock goes with it, and the waiting start becomes the owner.
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(owner);

    let started = tokio::time::timeout(WAIT * 2, waiting)
        .await
        .expect("the second start ended")
        .unwrap()
        .expect("the second start");
    assert!(matches!(started, Start::Own(_)), "{started:?}");
    assert!(
        instance::claim(&settings).unwrap().is_none(),
        "the new owner holds the settings"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_socket_left_by_a_window_that_died_never_blocks_a_start() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings_in(&dir);
    // A window that was killed leaves its socket file; nobody listens.
    let socket = socket_path(&settings);
    rootgate_bridge::connections::private_dir(socket.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&socket);
    drop(std::os::unix::net::UnixListener::bind(&socket).unwrap());
    assert!(socket.exists());

    let started = second_start(&settings, vec![folder(&dir, "notes")]).await;

    let Start::Own(_owner) = started else {
        panic!("the start handed over to a dead window: {started:?}");
    };
    // And the new owner's window listens where the dead one did.
    let w = window(&settings).await;
    let again = second_start(&settings, Vec::new()).await;
    assert!(matches!(again, Start::HandedOver(_)), "{again:?}");
    assert!(w.raised.recv_timeout(WAIT).is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_that_gets_no_answer_says_so_and_names_the_folders_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    let settings = settings_in(&dir);
    let _owner = instance::claim(&settings).unwrap().expect("owner");
    let notes = folder(&dir, "notes");

    let settings2 = settings.clone();
    let notes2 = notes.clone();
    let failed = tokio::task::spawn_blocking(move || {
        instance::start(
            &settings2,
            &instance::request_for(&[notes2]),
            Duration::from_millis(500),
        )
    })
    .await
    .unwrap();

    let error = failed.expect_err("nobody answered");
    let words = error.to_string();
    assert!(
        words.contains(&format!("(process {})", std::process::id())),
        "{words}"
    );
    assert!(words.contains(&notes.display().to_string()), "{words}");
}
