//! `rootgate FOLDER` while a Rootgate window is open on the same settings:
//! the real `rootgate` command hands the folders to that window, which
//! opens a consent prompt for each, and exits at once with what the window
//! said, without opening a second app. A folder given relative to where
//! the command ran reaches the window as that folder; one that cannot be
//! shared is refused in words without losing the others. The window here
//! is the supervisor the desktop app runs, owning the settings' lock as
//! the app does.

use std::process::Output;
use std::sync::mpsc;

use rootgate_bridge::connections::OpenAnswer;
use rootgate_core::instance;
use rootgate_test_support::app::*;

/// Runs the real `rootgate` with `args` on `rg`'s settings, from `cwd`.
async fn rootgate(rg: &Rootgate, cwd: &std::path::Path, args: &[&str]) -> Output {
    let mut cmd = tokio::process::Command::new(binary("rootgate"));
    cmd.args(args)
        .current_dir(cwd)
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .kill_on_drop(true);
    tokio::time::timeout(WAIT, cmd.output())
        .await
        .expect("rootgate ended")
        .expect("run rootgate")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rootgate_folder_hands_the_folders_to_the_open_window_and_exits() {
    let (rg, sup) = Rootgate::with_window();
    let settings = rg.config_home.join("rootgate/settings.json");
    let _owner = instance::claim(&settings)
        .unwrap()
        .expect("the window owns the settings");
    let (raised_tx, raised) = mpsc::channel::<OpenAnswer>();
    let raised_tx = std::sync::Mutex::new(raised_tx);
    sup.take_other_starts(Box::new(move |answer| {
        let _ = raised_tx.lock().unwrap().send(answer.clone());
    }));
    sup.listen_for_bridges().await.expect("listen");
    let work = rg.dir.path().join("work");
    std::fs::create_dir_all(work.join("notes")).unwrap();
    std::fs::create_dir_all(work.join("drafts")).unwrap();

    // Relative to where the command runs, as a person types it; and one
    // folder that does not exist.
    let out = rootgate(&rg, &work, &["notes", "missing", "drafts"]).await;

    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stdout.trim(),
        "Rootgate is open already: it asks you about 2 folders in its window.",
        "stderr: {stderr}"
    );
    assert!(
        stderr.contains("missing"),
        "the refused folder is named: {stderr}"
    );
    assert_eq!(out.status.code(), Some(1), "a folder was refused");
    let mut asked: Vec<_> = sup
        .consent()
        .open_prompts()
        .into_iter()
        .map(|p| p.real_path)
        .collect();
    asked.sort();
    let mut want = vec![
        work.join("drafts").canonicalize().unwrap(),
        work.join("notes").canonicalize().unwrap(),
    ];
    want.sort();
    assert_eq!(asked, want);
    let answer = raised.recv_timeout(WAIT).expect("the window was raised");
    assert_eq!(answer.prompts, 2);
    // Nothing is shared until the person answers.
    assert!(sup.folders().list().is_empty());

    // With no folder, the command only brings the window forward.
    let out = rootgate(&rg, &work, &[]).await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "Rootgate is open already; its window was brought to the front."
    );
    assert_eq!(
        raised.recv_timeout(WAIT).expect("raised again"),
        OpenAnswer::default()
    );
    assert_eq!(sup.consent().open_prompts().len(), 2, "no prompt twice");
}
