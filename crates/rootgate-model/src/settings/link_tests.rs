//! A settings file that is a symbolic link (a person keeping it with their
//! other dotfiles): saves and recoveries write through it, to the file it
//! points to, and it stays a link.

use std::os::unix::fs::symlink;

use super::*;

/// `cfg/settings.json`, a relative link to `dotfiles/rootgate.json`.
fn linked() -> (tempfile::TempDir, SettingsFile, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("cfg")).unwrap();
    fs::create_dir_all(dir.path().join("dotfiles")).unwrap();
    let link = dir.path().join("cfg/settings.json");
    symlink("../dotfiles/rootgate.json", &link).unwrap();
    let target = dir
        .path()
        .canonicalize()
        .unwrap()
        .join("dotfiles/rootgate.json");
    (dir, SettingsFile::at(link), target)
}

fn is_link(path: &Path) -> bool {
    fs::symlink_metadata(path).unwrap().file_type().is_symlink()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn paused() -> Settings {
    let mut settings = Settings::default();
    settings.preferences.sharing_paused = true;
    settings
}

#[test]
fn a_save_writes_through_the_link_and_keeps_it() {
    let (dir, file, target) = linked();
    // The link points at nothing yet: the first save makes its target.
    file.save(&paused()).unwrap();
    assert!(is_link(file.path()), "the link was replaced by a file");
    assert_eq!(SettingsFile::at(&target).load().unwrap().settings, paused());
    file.save(&Settings::default()).unwrap();
    assert!(is_link(file.path()));
    assert_eq!(file.load().unwrap().settings, Settings::default());
    // No temporary file is left on either side.
    assert_eq!(names(&dir.path().join("cfg")), ["settings.json"]);
    assert_eq!(names(&dir.path().join("dotfiles")), ["rootgate.json"]);

    // A link to a link is followed to the end.
    let chain = dir.path().join("cfg/chain.json");
    symlink("settings.json", &chain).unwrap();
    SettingsFile::at(&chain).save(&paused()).unwrap();
    assert!(is_link(&chain) && is_link(file.path()));
    assert_eq!(file.load().unwrap().settings, paused());
}

#[test]
fn a_damaged_file_behind_a_link_is_moved_aside_beside_it() {
    let (dir, file, target) = linked();
    fs::write(&target, b"{\"version\": 3, \"roo").unwrap();
    let loaded = file.load().unwrap();
    let recovery = loaded.recovery.unwrap();
    assert!(is_link(file.path()), "the link was replaced by a file");
    assert_eq!(recovery.moved_to.parent(), target.parent());
    assert_eq!(
        fs::read(&recovery.moved_to).unwrap(),
        b"{\"version\": 3, \"roo"
    );
    assert!(file.load().unwrap().recovery.is_none(), "sound again");
    assert_eq!(names(&dir.path().join("cfg")), ["settings.json"]);
}
