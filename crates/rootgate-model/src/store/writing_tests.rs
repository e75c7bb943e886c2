//! Two stores on one file, as the window and a `rootgate` command are:
//! whatever order their changes come in, none is lost.

use super::*;
use crate::folders;
use crate::servers::ServerDraft;

fn draft(name: &str) -> ServerDraft {
    ServerDraft {
        name: name.into(),
        command: "true".into(),
        ..Default::default()
    }
}

fn open(file: &SettingsFile) -> Store {
    Store::open(file.clone()).unwrap().0
}

fn names(settings: &Settings) -> Vec<String> {
    let mut names: Vec<String> = settings.servers.iter().map(|s| s.name.clone()).collect();
    names.sort();
    names
}

#[test]
fn a_window_and_a_command_interleaving_changes_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::at(dir.path().join("cfg/settings.json"));
    // The window's store lives on; the command's opens, changes, and ends.
    let window = open(&file);
    let revision = window.subscribe_revision();
    let a = window.add_server(draft("a")).unwrap();
    let command = open(&file);
    let b = command.add_server(draft("b")).unwrap();
    // The window knows nothing of b yet; its next change keeps it.
    std::fs::create_dir_all(dir.path().join("proj")).unwrap();
    let folder = folders::check(&dir.path().join("proj")).unwrap();
    let root = window.add_root(&folder, None).unwrap().root;
    window.grant(&b.id, &root.id).unwrap();
    assert_eq!(window.shared_with(&b.id).unwrap().roots().len(), 1);
    // And the command's next change keeps the window's.
    command.add_server(draft("c")).unwrap();
    window
        .change_preferences(|p| p.sharing_paused = true)
        .unwrap();
    drop(command);
    let d = window.add_server(draft("d")).unwrap();

    let on_disk = file.load().unwrap().settings;
    assert_eq!(names(&on_disk), ["a", "b", "c", "d"]);
    assert_eq!(on_disk, window.snapshot());
    assert_eq!(on_disk.grants.len(), 1);
    assert!(on_disk.preferences.sharing_paused);
    // What the window adopted is published: b's list, empty while paused.
    assert!(window.shared_with(&b.id).unwrap().is_empty());
    assert!(window.server(&a.id).is_ok() && window.server(&d.id).is_ok());
    assert!(*revision.borrow() >= 5, "every change and adoption is told");
}

#[test]
fn writers_in_parallel_keep_every_change() {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::at(dir.path().join("settings.json"));
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let file = file.clone();
            std::thread::spawn(move || {
                let store = open(&file);
                for i in 0..15 {
                    store.add_server(draft(&format!("w{w}-{i:02}"))).unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    assert_eq!(file.load().unwrap().settings.servers.len(), 60);
}

#[test]
fn a_file_damaged_while_the_window_runs_is_kept_aside_and_nothing_is_lost() {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::at(dir.path().join("settings.json"));
    let window = open(&file);
    window.add_server(draft("a")).unwrap();
    std::fs::write(file.path(), b"{\"version\": 3, \"servers\": [ ??").unwrap();
    window.add_server(draft("b")).unwrap();
    assert_eq!(names(&file.load().unwrap().settings), ["a", "b"]);
    let aside: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".unreadable-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(
        std::fs::read(&aside[0]).unwrap(),
        b"{\"version\": 3, \"servers\": [ ??"
    );
}

#[test]
fn a_hold_keeps_other_writers_out_between_a_read_and_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::at(dir.path().join("settings.json"));
    let command = open(&file);
    let held = command.hold().unwrap();
    // Another writer tries to take the name now; it waits for the hold.
    let other = {
        let file = file.clone();
        std::thread::spawn(move || open_and_add(&file, "files"))
    };
    let name = crate::servers::free_name("files", &command.snapshot().servers);
    assert_eq!(name, "files");
    command.add_server(draft(&name)).unwrap();
    drop(held);
    // It came after, found the name taken, and said so.
    assert!(matches!(
        other.join().unwrap(),
        Err(StoreError::Spec(crate::servers::SpecError::DuplicateName(
            _
        )))
    ));
    assert_eq!(names(&file.load().unwrap().settings), ["files"]);
}

/// Opening waits for the write lock too (a damaged file is recovered under
/// it), so the other writer's open is part of what waits.
fn open_and_add(file: &SettingsFile, name: &str) -> Result<ServerSpec, StoreError> {
    open(file).add_server(draft(name))
}

#[test]
fn a_reader_never_takes_the_write_lock() {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::at(dir.path().join("settings.json"));
    file.save(&Settings::default()).unwrap();
    let (reader, _) = Store::open_read_only(file.clone()).unwrap();
    reader.reload().unwrap();
    assert!(matches!(reader.hold(), Err(StoreError::ReadOnly)));
    assert!(!file.write_lock_path().exists(), "a reader made the lock");
}
