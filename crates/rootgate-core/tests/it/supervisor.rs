//! The supervisor, headless, as the app's commands use it: consent prompts
//! from chosen paths (several at once, the bad ones refused in words),
//! exact grants from answers, command approval before a server runs,
//! persistence across a restart, and recovery from a damaged settings file.
//! Servers here are our fixture binary as a real process.

use std::path::PathBuf;
use std::sync::Arc;

use rootgate_core::supervisor::{Supervisor, SupervisorError};
use rootgate_model::folders::FolderError;
use rootgate_model::servers::ServerDraft;
use rootgate_model::settings::SettingsFile;
use rootgate_session::{SessionConfig, Status};
use rootgate_test_support::harness::*;

fn open(dir: &tempfile::TempDir) -> Arc<Supervisor> {
    Supervisor::open(
        SettingsFile::at(dir.path().join("config/settings.json")),
        SessionConfig::default(),
    )
    .expect("open supervisor")
}

fn fixture_draft(name: &str) -> ServerDraft {
    ServerDraft {
        name: name.into(),
        command: fixture_server().to_str().expect("utf-8 path").into(),
        enabled: true,
        ..Default::default()
    }
}

fn make_folder(dir: &tempfile::TempDir, name: &str) -> std::path::PathBuf {
    let path = dir.path().join("folders").join(name);
    std::fs::create_dir_all(&path).expect("create folder");
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_shares_exactly_the_ticked_servers() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let a = sup.servers().add_server(fixture_draft("a")).unwrap();
    let b = sup.servers().add_server(fixture_draft("b")).unwrap();
    let path = make_folder(&dir, "project");
    let prompt = sup.consent().prompt_for_path(&path).unwrap();
    assert_eq!(prompt.real_path, path.canonicalize().unwrap());
    assert!(
        prompt.servers.iter().all(|s| !s.granted),
        "none ticked by default"
    );
    assert_eq!(prompt.servers.len(), 2);
    assert!(prompt.note.contains("does not lock the server in"));
    assert_eq!(sup.consent().open_prompts(), vec![prompt.clone()]);

    let folder = sup
        .consent()
        .answer_prompt(prompt.id, std::slice::from_ref(&a.spec.id), None)
        .unwrap();
    assert_eq!(folder.servers, vec![a.spec.id.clone()]);
    assert_eq!(
        sup.store().shared_with(&a.spec.id).unwrap().roots().len(),
        1
    );
    assert!(sup.store().shared_with(&b.spec.id).unwrap().is_empty());
    assert!(sup.consent().open_prompts().is_empty());

    // Changing access shows the current grants ticked; answering with none
    // withdraws it from everyone but keeps the folder.
    let again = sup.consent().prompt_for_root(&folder.root.id).unwrap();
    let ticked: Vec<_> = again
        .servers
        .iter()
        .filter(|s| s.granted)
        .map(|s| &s.id)
        .collect();
    assert_eq!(ticked, vec![&a.spec.id]);
    sup.consent().answer_prompt(again.id, &[], None).unwrap();
    assert!(sup.store().shared_with(&a.spec.id).unwrap().is_empty());
    assert_eq!(sup.folders().list().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_says_which_servers_are_enforced_and_which_a_share_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let plain = sup.servers().add_server(fixture_draft("plain")).unwrap();
    let enforced = sup
        .servers()
        .add_server(ServerDraft {
            enforce_roots: true,
            ..fixture_draft("enforced")
        })
        .unwrap();
    let by_argument = sup
        .servers()
        .add_server(ServerDraft {
            args: vec!["--name".into(), "${folders}".into()],
            ..fixture_draft("by argument")
        })
        .unwrap();
    let prompt = sup
        .consent()
        .prompt_for_path(&make_folder(&dir, "project"))
        .unwrap();
    let flags = |id: &rootgate_model::ids::ServerId| {
        let s = prompt.servers.iter().find(|s| &s.id == id).unwrap();
        (s.enforced, s.restarts)
    };
    // Held by the kernel to its folders, a server is restarted to take a
    // new one; one given its folders as arguments, too; the plain one is
    // told without a restart.
    assert_eq!(flags(&plain.spec.id), (false, false));
    assert_eq!(flags(&enforced.spec.id), (true, true));
    assert_eq!(flags(&by_argument.spec.id), (false, true));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_prompt_keeps_and_shares_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let a = sup.servers().add_server(fixture_draft("a")).unwrap();
    let prompt = sup
        .consent()
        .prompt_for_path(&make_folder(&dir, "p"))
        .unwrap();
    sup.consent().cancel_prompt(prompt.id);
    assert!(matches!(
        sup.consent()
            .answer_prompt(prompt.id, std::slice::from_ref(&a.spec.id), None),
        Err(SupervisorError::UnknownPrompt)
    ));
    assert!(sup.folders().list().is_empty());
    assert!(sup.store().snapshot().grants.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_that_moved_after_the_prompt_is_not_shared() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let a = sup.servers().add_server(fixture_draft("a")).unwrap();
    let first = make_folder(&dir, "first");
    let second = make_folder(&dir, "second");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&first, &link).unwrap();
    let prompt = sup.consent().prompt_for_path(&link).unwrap();
    assert_eq!(prompt.chosen_path.as_deref(), Some(link.as_path()));
    assert!(
        prompt
            .warnings
            .iter()
            .any(|w| w.message.contains("is a link"))
    );
    // The link is re-pointed while the prompt is open.
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(&second, &link).unwrap();
    let err = sup
        .consent()
        .answer_prompt(prompt.id, std::slice::from_ref(&a.spec.id), None)
        .unwrap_err();
    assert!(matches!(err, SupervisorError::FolderMoved { .. }), "{err}");
    assert!(sup.folders().list().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folders_chosen_together_are_offered_and_the_others_refused_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let good = make_folder(&dir, "good");
    let missing = dir.path().join("missing");
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let intake = sup.consent().prompts_for_paths([&missing, &good, &file]);
    let offered: Vec<_> = intake.prompts.iter().map(|p| &p.real_path).collect();
    assert_eq!(
        offered,
        vec![&good.canonicalize().unwrap()],
        "one bad folder does not lose the good one"
    );
    assert_eq!(
        sup.consent().open_prompts(),
        intake.prompts,
        "its prompt is open"
    );
    let notices = intake.notices();
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(
        notices[0].contains("missing") && notices[0].contains("does not exist"),
        "{notices:?}"
    );
    assert!(
        notices[1].contains("a-file") && notices[1].contains("not a folder"),
        "{notices:?}"
    );
    // As a pick answers: the prompts, the refused folders unsaid.
    assert_eq!(intake.into_prompts().unwrap().len(), 1);
    assert!(
        sup.folders().list().is_empty(),
        "nothing is kept before an answer"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pick_of_only_bad_folders_is_the_first_refusal_and_an_empty_one_no_error() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let err = sup
        .consent()
        .prompts_for_paths([dir.path().join("missing"), file])
        .into_prompts()
        .unwrap_err();
    assert!(
        matches!(err, SupervisorError::Folder(FolderError::Missing(_))),
        "{err}"
    );
    assert!(sup.consent().open_prompts().is_empty());
    // A cancelled picker chose nothing: no prompt, and no error either.
    let none = sup.consent().prompts_for_paths(Vec::<PathBuf>::new());
    assert!(none.notices().is_empty());
    assert!(none.into_prompts().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_runs_only_after_its_command_is_approved() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let view = sup.servers().add_server(fixture_draft("a")).unwrap();
    assert!(!view.approved);
    let err = sup.servers().start(&view.spec.id).unwrap_err();
    let SupervisorError::NeedsApproval { command_line } = &err else {
        panic!("{err}")
    };
    assert_eq!(command_line, &view.command_line);
    sup.servers()
        .approve_command(&view.spec.id, &view.command_line)
        .unwrap();
    sup.servers().start(&view.spec.id).unwrap();
    running(&sup.servers().session_of(&view.spec.id).unwrap()).await;

    // Editing the arguments keeps it running its approved command until
    // the new one is approved; the approval then shows what changed and
    // restarts it on the new command.
    let pid_of = |status: &Status| match status {
        Status::Running(info) => info.pid,
        other => panic!("not running: {other:?}"),
    };
    let session = sup.servers().session_of(&view.spec.id).unwrap();
    let before = pid_of(&session.status());
    let mut draft = view.spec.to_draft();
    draft.args.push("--no-roots-on-init".into());
    let edited = sup
        .servers()
        .update_server(&view.spec.id, draft)
        .await
        .unwrap();
    assert!(!edited.approved);
    assert_eq!(
        edited.spec.approved_command.as_deref(),
        Some(view.command_line.as_str()),
        "the approval dialog can show the old command beside the new"
    );
    assert_eq!(pid_of(&edited.status), before, "still the approved process");
    assert!(matches!(
        sup.servers().start(&view.spec.id),
        Err(SupervisorError::NeedsApproval { .. })
    ));
    let approved = sup
        .servers()
        .approve_command(&view.spec.id, &edited.command_line)
        .unwrap();
    assert!(approved.approved);
    let after = session
        .wait_for(WAIT, |s| matches!(s, Status::Running(i) if i.pid != before))
        .await;
    assert!(after.is_running(), "{after:?}");
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_persists_and_enabled_servers_start_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = make_folder(&dir, "kept");
    let (server, root) = {
        let sup = open(&dir);
        let view = sup
            .servers()
            .add_server(fixture_draft("kept server"))
            .unwrap();
        sup.servers()
            .approve_command(&view.spec.id, &view.command_line)
            .unwrap();
        let prompt = sup.consent().prompt_for_path(&path).unwrap();
        let folder = sup
            .consent()
            .answer_prompt(
                prompt.id,
                std::slice::from_ref(&view.spec.id),
                Some("Kept".into()),
            )
            .unwrap();
        sup.shutdown().await;
        (view.spec.id, folder.root.id)
    };
    let sup = open(&dir);
    let servers = sup.servers().list();
    assert_eq!(servers.len(), 1);
    assert!(servers[0].approved, "the approval persisted");
    let folders = sup.folders().list();
    assert_eq!(folders[0].root.id, root);
    assert_eq!(folders[0].root.name, "Kept");
    assert_eq!(folders[0].servers, vec![server.clone()]);
    assert!(folders[0].available);
    sup.servers().start_enabled();
    let session = sup.servers().session_of(&server).unwrap();
    running(&session).await;
    sup.shutdown().await;
    assert!(matches!(session.status(), Status::Stopped { .. }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vanished_folder_is_unavailable_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = make_folder(&dir, "will vanish");
    {
        let sup = open(&dir);
        let view = sup.servers().add_server(fixture_draft("s")).unwrap();
        let prompt = sup.consent().prompt_for_path(&path).unwrap();
        sup.consent()
            .answer_prompt(prompt.id, &[view.spec.id], None)
            .unwrap();
    }
    std::fs::remove_dir(&path).unwrap();
    let sup = open(&dir);
    let folder = &sup.folders().list()[0];
    assert!(!folder.available);
    assert_eq!(folder.servers.len(), 1, "the grant is kept");
    let server = &sup.servers().list()[0].spec.id;
    assert!(sup.store().shared_with(server).unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_settings_file_is_reported_with_where_it_went() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config/settings.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "{\"version\": 1, \"roots\": [").unwrap();
    let sup = open(&dir);
    let recovery = sup.recovery().expect("a recovery");
    assert!(
        recovery.message().contains("unreadable"),
        "{}",
        recovery.message()
    );
    assert_eq!(
        std::fs::read_to_string(&recovery.moved_to).unwrap(),
        "{\"version\": 1, \"roots\": ["
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn methods_work_from_a_thread_outside_the_runtime() {
    // The app's synchronous commands run on the UI thread, which is not a
    // runtime thread; adding and starting a server there must still work.
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let from_ui_thread = Arc::clone(&sup);
    let id = std::thread::spawn(move || {
        let view = from_ui_thread
            .servers()
            .add_server(fixture_draft("ui"))
            .unwrap();
        from_ui_thread
            .servers()
            .approve_command(&view.spec.id, &view.command_line)
            .unwrap();
        from_ui_thread.servers().start(&view.spec.id).unwrap();
        view.spec.id
    })
    .join()
    .expect("no panic outside the runtime");
    running(&sup.servers().session_of(&id).unwrap()).await;
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_answer_keeps_no_folder() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let a = sup.servers().add_server(fixture_draft("a")).unwrap();
    let prompt = sup
        .consent()
        .prompt_for_path(&make_folder(&dir, "p"))
        .unwrap();
    let ghost = rootgate_model::ids::ServerId::generate();
    let refused = sup
        .consent()
        .answer_prompt(prompt.id, &[a.spec.id.clone(), ghost], None);
    assert!(
        matches!(&refused, Err(SupervisorError::Store(e)) if e.to_string().contains("no server")),
        "{refused:?}"
    );
    let refused = sup
        .consent()
        .answer_prompt(prompt.id, &[], Some("two\nlines".into()));
    assert!(
        matches!(&refused, Err(SupervisorError::Store(e)) if e.to_string().contains("control character")),
        "{refused:?}"
    );
    assert!(
        sup.folders().list().is_empty(),
        "a refused answer keeps nothing"
    );
    assert_eq!(
        sup.consent().open_prompts().len(),
        1,
        "the person can answer again"
    );
    let folder = sup
        .consent()
        .answer_prompt(
            prompt.id,
            std::slice::from_ref(&a.spec.id),
            Some("P".into()),
        )
        .unwrap();
    assert_eq!(folder.root.name, "P");
    assert_eq!(folder.servers, vec![a.spec.id.clone()]);
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_stays_open_when_saving_fails() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let prompt = sup
        .consent()
        .prompt_for_path(&make_folder(&dir, "p"))
        .unwrap();
    // Put a file where the settings folder is, so the save fails.
    let cfg = dir.path().join("config");
    std::fs::remove_dir_all(&cfg).ok();
    std::fs::write(&cfg, "in the way").unwrap();
    assert!(sup.consent().answer_prompt(prompt.id, &[], None).is_err());
    assert_eq!(
        sup.consent().open_prompts().len(),
        1,
        "the person can answer again"
    );
    std::fs::remove_file(&cfg).unwrap();
    sup.consent().answer_prompt(prompt.id, &[], None).unwrap();
    assert!(sup.consent().open_prompts().is_empty());
    assert_eq!(sup.folders().list().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_seen_not_to_follow_changes_is_remembered_until_forgotten() {
    use rootgate_session::Following;
    let dir = tempfile::tempdir().unwrap();
    let settings = SettingsFile::at(dir.path().join("config/settings.json"));
    let mut config = SessionConfig::default();
    config.notify.pickup = std::time::Duration::from_secs(1);
    let sup = Supervisor::open(settings.clone(), config).unwrap();
    let mut draft = fixture_draft("asks once");
    draft.args = vec!["--ignore-list-changed".into()];
    let view = sup.servers().add_server(draft).unwrap();
    let id = view.spec.id.clone();
    sup.servers()
        .approve_command(&id, &view.command_line)
        .unwrap();
    let share = |name: &str| {
        let prompt = sup
            .consent()
            .prompt_for_path(&make_folder(&dir, name))
            .unwrap();
        sup.consent()
            .answer_prompt(prompt.id, std::slice::from_ref(&id), None)
            .unwrap()
    };
    let a = share("a");
    sup.servers().start(&id).unwrap();
    running(&sup.servers().session_of(&id).unwrap()).await;
    wait_timeline(sup.timeline(), &id, 0, |e| {
        matches!(e, rootgate_model::timeline::Event::RootsAnswered { roots, .. } if roots.len() == 1)
    })
    .await;
    share("b");
    wait_timeline(sup.timeline(), &id, 0, |e| {
        matches!(e, rootgate_model::timeline::Event::NotPickedUp { .. })
    })
    .await;
    eventually("the settings to remember it", || async {
        let view = sup.servers().server(&id).map_err(|e| e.to_string())?;
        if view.spec.ignores_list_changed && view.delivery.following == Following::Ignores {
            Ok(())
        } else {
            Err(format!("{:?}", view.delivery))
        }
    })
    .await;
    assert!(
        std::fs::read_to_string(settings.path())
            .unwrap()
            .contains("\"ignoresListChanged\": true"),
        "saved to the settings file"
    );
    sup.shutdown().await;
    drop(sup);

    // Opened again, it still knows, and says so on the server.
    let sup = Supervisor::open(settings.clone(), config).unwrap();
    assert_eq!(
        sup.servers().server(&id).unwrap().delivery.following,
        Following::Ignores
    );
    // The person may have it watched again.
    let view = sup.servers().forget_following(&id).unwrap();
    assert!(!view.spec.ignores_list_changed);
    assert_eq!(view.delivery.following, Following::Unknown);
    // Another command is another program: what was seen is forgotten.
    sup.store().set_ignores_list_changed(&id, true).unwrap();
    let mut edited = sup.servers().server(&id).unwrap().spec.to_draft();
    edited.args.push("--name=other".into());
    let edited = sup.servers().update_server(&id, edited).await.unwrap();
    assert!(!edited.spec.ignores_list_changed);
    sup.folders().revoke(&id, &a.root.id).unwrap();
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_taking_folders_as_arguments_shows_them_filled_in_or_why_it_waits() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let mut draft = fixture_draft("git");
    draft.enabled = false;
    draft.args = vec!["--repository".into(), "${folder}".into()];
    let git = sup.servers().add_server(draft).unwrap();
    assert!(git.folders_as_arguments);
    assert_eq!(git.resolved_command_line, None);
    let waits = git.waits_for.expect("it says what it waits for");
    assert!(waits.contains("and 0 are shared with it"), "{waits}");

    let path = make_folder(&dir, "repo one");
    let prompt = sup.consent().prompt_for_path(&path).unwrap();
    sup.consent()
        .answer_prompt(prompt.id, std::slice::from_ref(&git.spec.id), None)
        .unwrap();
    let git = sup.servers().server(&git.spec.id).unwrap();
    assert_eq!(git.waits_for, None);
    let real = path.canonicalize().unwrap();
    let line = git.resolved_command_line.expect("filled in");
    // The path has a space, so the command line quotes it as a shell would.
    assert!(
        line.ends_with(&format!("--repository '{}'", real.display())),
        "{line}"
    );

    let plain = sup.servers().add_server(fixture_draft("plain")).unwrap();
    assert!(!plain.folders_as_arguments);
    assert_eq!(plain.resolved_command_line, None);
    assert_eq!(plain.waits_for, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_era_a_start_found_is_remembered_and_forgotten_with_the_command() {
    use rootgate_model::servers::Era;
    use rootgate_model::timeline::Event;
    let dir = tempfile::tempdir().unwrap();
    let settings = SettingsFile::at(dir.path().join("config/settings.json"));
    let sup = Supervisor::open(settings.clone(), SessionConfig::default()).unwrap();
    let view = sup
        .servers()
        .add_server(ServerDraft {
            name: "dual era".into(),
            command: python().to_str().unwrap().into(),
            args: vec![py_modern_server().to_str().unwrap().into()],
            enabled: true,
            ..Default::default()
        })
        .unwrap();
    let id = view.spec.id.clone();
    sup.servers()
        .approve_command(&id, &view.command_line)
        .unwrap();
    sup.servers().start(&id).unwrap();
    running(&sup.servers().session_of(&id).unwrap()).await;
    eventually("the settings to remember the era", || async {
        match sup
            .servers()
            .server(&id)
            .map_err(|e| e.to_string())?
            .spec
            .seen_era
        {
            Some(Era::Legacy) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    assert!(
        std::fs::read_to_string(settings.path())
            .unwrap()
            .contains("\"seenEra\": \"legacy\""),
        "saved to the settings file"
    );
    // Started again, it is not asked: the era is taken from the settings.
    let from = sup.timeline().all().last().map_or(0, |e| e.seq + 1);
    sup.servers().restart(&id).unwrap();
    let found = wait_timeline(sup.timeline(), &id, from, |e| {
        matches!(e, Event::EraFound { .. })
    })
    .await;
    assert!(
        matches!(&found.event, Event::EraFound { era: Era::Legacy, how } if how.contains("not asked again")),
        "{found:?}"
    );
    // Another command is another program: what was found is forgotten.
    let mut edited = sup.servers().server(&id).unwrap().spec.to_draft();
    edited.args.push("--unused".into());
    let edited = sup.servers().update_server(&id, edited).await.unwrap();
    assert_eq!(edited.spec.seen_era, None);
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_era_remembered_wrongly_is_found_again_after_the_start_fails() {
    use rootgate_model::servers::Era;
    let dir = tempfile::tempdir().unwrap();
    let settings = SettingsFile::at(dir.path().join("config/settings.json"));
    let sup = Supervisor::open(settings, SessionConfig::default()).unwrap();
    let view = sup
        .servers()
        .add_server(ServerDraft {
            name: "modern only".into(),
            command: "node".into(),
            args: vec![
                ts_modern_server().display().to_string(),
                "--modern-only".into(),
            ],
            enabled: true,
            ..Default::default()
        })
        .unwrap();
    let id = view.spec.id.clone();
    sup.servers()
        .approve_command(&id, &view.command_line)
        .unwrap();
    // Remembered as legacy (the server was replaced by a modern-only build
    // under the same command): the start in that era fails...
    sup.store().set_seen_era(&id, Some(Era::Legacy)).unwrap();
    sup.servers().start(&id).unwrap();
    let reason = failure_reason(&sup.servers().session_of(&id).unwrap()).await;
    assert!(reason.contains("-32022"), "{reason}");
    // ...so it is forgotten, and the next start finds out again and is served.
    eventually("the wrong era to be forgotten", || async {
        match sup
            .servers()
            .server(&id)
            .map_err(|e| e.to_string())?
            .spec
            .seen_era
        {
            None => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })
    .await;
    let from = sup.timeline().all().last().map_or(0, |e| e.seq + 1);
    sup.servers().restart(&id).unwrap();
    let found = wait_timeline(sup.timeline(), &id, from, |e| {
        matches!(e, rootgate_model::timeline::Event::EraFound { .. })
    })
    .await;
    assert!(
        matches!(&found.event, rootgate_model::timeline::Event::EraFound { era: Era::Modern, how }
            if how.contains("refused initialize")),
        "{found:?}"
    );
    let status = sup
        .servers()
        .session_of(&id)
        .unwrap()
        .wait_for(WAIT, |s| matches!(s, Status::Running(_)))
        .await;
    assert!(
        matches!(status, Status::Running(ref info) if info.era == Era::Modern),
        "{status:?}"
    );
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_checklist_gives_it_exactly_the_ticked_folders_in_one_change() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let mut draft = fixture_draft("checklist");
    draft.enabled = false;
    let server = sup.servers().add_server(draft).unwrap().spec.id;
    let mut kept = Vec::new();
    for name in ["one", "two", "three"] {
        let prompt = sup
            .consent()
            .prompt_for_path(&make_folder(&dir, name))
            .unwrap();
        kept.push(
            sup.consent()
                .answer_prompt(prompt.id, &[], None)
                .unwrap()
                .root
                .id,
        );
    }
    let choices = sup.servers().folder_choices(&server).unwrap();
    assert_eq!(choices.len(), 3);
    assert!(choices.iter().all(|c| !c.granted && c.available));
    let view = sup
        .servers()
        .set_server_folders(&server, &[kept[0].clone(), kept[2].clone()])
        .unwrap();
    assert_eq!(view.spec.id, server);
    let granted: Vec<_> = sup
        .servers()
        .folder_choices(&server)
        .unwrap()
        .into_iter()
        .filter(|c| c.granted)
        .map(|c| c.root.id)
        .collect();
    assert_eq!(granted, vec![kept[0].clone(), kept[2].clone()]);
    // A folder that now leads elsewhere is not given, and nothing changes.
    let two = dir.path().join("folders/two");
    std::fs::remove_dir(&two).unwrap();
    std::os::unix::fs::symlink(dir.path().join("folders/one"), &two).unwrap();
    let moved = sup
        .servers()
        .set_server_folders(&server, &[kept[1].clone()])
        .unwrap_err();
    assert!(
        matches!(moved, SupervisorError::FolderMoved { .. }),
        "{moved}"
    );
    assert_eq!(sup.store().shared_with(&server).unwrap().roots().len(), 2);
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_that_is_not_there_is_refused_when_the_server_is_saved() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let mut draft = fixture_draft("typo");
    draft.command = "/opt/nowhere/mcp-server".into();
    let e = sup.servers().add_server(draft.clone()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the command cannot be found: there is no program at /opt/nowhere/mcp-server"
    );
    draft.command = "no-such-mcp-server-anywhere".into();
    let e = sup.servers().add_server(draft).unwrap_err();
    assert!(e.to_string().contains("is not installed"), "{e}");
    assert!(sup.servers().list().is_empty(), "nothing saved");
    // An edit to a missing command is refused too; the server keeps its own.
    let view = sup.servers().add_server(fixture_draft("fine")).unwrap();
    let mut edit = view.spec.to_draft();
    edit.command = "/opt/nowhere/else".into();
    assert!(
        sup.servers()
            .update_server(&view.spec.id, edit)
            .await
            .is_err()
    );
    assert_eq!(
        sup.servers().server(&view.spec.id).unwrap().spec.command,
        view.spec.command
    );
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeline_is_kept_across_a_relaunch() {
    let dir = tempfile::tempdir().unwrap();
    let sup = open(&dir);
    let view = sup.servers().add_server(fixture_draft("kept")).unwrap();
    sup.servers()
        .approve_command(&view.spec.id, &view.command_line)
        .unwrap();
    sup.servers().start(&view.spec.id).unwrap();
    running(&sup.servers().session_of(&view.spec.id).unwrap()).await;
    sup.shutdown().await;
    let before = sup.servers().timeline_of(&view.spec.id);
    assert!(!before.is_empty());
    drop(sup);

    let sup = open(&dir);
    let after = sup.servers().timeline_of(&view.spec.id);
    let events = |entries: &[rootgate_model::timeline::Entry]| {
        entries.iter().map(|e| e.event.clone()).collect::<Vec<_>>()
    };
    assert_eq!(
        events(&after),
        events(&before),
        "the last launch's entries are back"
    );
    sup.servers().start(&view.spec.id).unwrap();
    running(&sup.servers().session_of(&view.spec.id).unwrap()).await;
    let all = sup.servers().timeline_of(&view.spec.id);
    assert!(
        all.windows(2).all(|w| w[0].seq < w[1].seq),
        "new ones number on"
    );
    assert!(all.len() > after.len());
    sup.shutdown().await;
}
