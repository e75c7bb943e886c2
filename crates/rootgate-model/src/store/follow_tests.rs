//! `Store::follow`, as the window calls it when the settings file changed:
//! another store's save is adopted and published at once, its own save
//! adopts nothing, and a file gone or damaged is left as it is until the
//! next change.

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
fn another_stores_save_is_adopted_and_published_and_its_own_is_not_told_twice() {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::at(dir.path().join("cfg/settings.json"));
    let window = open(&file);
    let a = window.add_server(draft("a")).unwrap();
    let revision = window.subscribe_revision();
    let before = *revision.borrow();
    // Its own save is what it saw last: nothing to adopt, nothing told.
    assert!(!window.follow().unwrap());
    assert_eq!(*revision.borrow(), before);

    // Another process adds a server and shares a folder with a.
    let command = open(&file);
    command.add_server(draft("b")).unwrap();
    std::fs::create_dir_all(dir.path().join("proj")).unwrap();
    let folder = folders::check(&dir.path().join("proj")).unwrap();
    let root = command.add_root(&folder, None).unwrap().root;
    command.grant(&a.id, &root.id).unwrap();
    let shared_with_a = window.subscribe(&a.id).unwrap();
    assert!(shared_with_a.borrow().is_empty());

    assert!(window.follow().unwrap(), "the command's save is adopted");
    assert_eq!(names(&window.snapshot()), ["a", "b"]);
    assert_eq!(*revision.borrow(), before + 1, "told once");
    assert_eq!(
        shared_with_a.borrow().roots().len(),
        1,
        "a's list published"
    );
    // Followed again with no save since: nothing.
    assert!(!window.follow().unwrap());
    assert_eq!(*revision.borrow(), before + 1);
    assert_eq!(window.snapshot(), file.load().unwrap().settings);
}

#[test]
fn a_damaged_or_missing_file_is_left_to_the_next_change() {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::at(dir.path().join("cfg/settings.json"));
    let window = open(&file);
    window.add_server(draft("a")).unwrap();
    let kept = window.snapshot();
    let revision = window.subscribe_revision();
    let before = *revision.borrow();

    // Written in place by something that does not take the lock, and read
    // halfway: damaged. Not adopted, and not moved aside under the writer.
    let half = b"{\"version\": 3, \"servers\": [";
    std::fs::write(file.path(), half).unwrap();
    let err = window.follow().unwrap_err();
    assert!(err.to_string().contains("settings"), "{err}");
    assert_eq!(window.snapshot(), kept);
    assert_eq!(
        std::fs::read(file.path()).unwrap(),
        half,
        "left where it is"
    );
    let aside = |dir: &std::path::Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().contains("unreadable")
            })
            .count()
    };
    assert_eq!(aside(&dir.path().join("cfg")), 0);
    assert_eq!(*revision.borrow(), before);

    // Gone: kept too.
    std::fs::remove_file(file.path()).unwrap();
    assert!(!window.follow().unwrap());
    assert_eq!(window.snapshot(), kept);

    // Damaged again; the next change recovers it as a change does: moved
    // aside, and what the window had saved with the change.
    std::fs::write(file.path(), half).unwrap();
    window.add_server(draft("b")).unwrap();
    assert_eq!(aside(&dir.path().join("cfg")), 1);
    assert_eq!(names(&file.load().unwrap().settings), ["a", "b"]);
}
