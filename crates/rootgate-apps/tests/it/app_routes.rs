//! Routing an AI app's config as the window does it, in two steps the
//! person sees between (plan, then write): a file the app changed after the
//! plan was shown is never overwritten, a symlinked config stays a symlink,
//! and the file keeps its permissions. Real files in a temporary folder.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rootgate_apps::AppKind;
use rootgate_apps::route::{self, Ledger, RouteError, Target};

const CONFIG: &str = r#"{
  "mcpServers": {
    "files": { "command": "npx", "args": ["-y", "pkg", "/tmp"], "env": { "API_KEY": "sk-live-abcdef123" } },
    "other": { "command": "uvx", "args": ["thing"] }
  }
}
"#;

fn target() -> Target {
    Target {
        program: PathBuf::from("/usr/bin/rootgate"),
        env: BTreeMap::new(),
    }
}

fn plan(file: &Path) -> route::Plan {
    route::plan_route(
        AppKind::ClaudeDesktop,
        file,
        &[],
        |_, key| {
            (key == "files")
                .then(|| "files".to_owned())
                .ok_or_else(|| "not imported".to_owned())
        },
        &target(),
    )
    .unwrap()
}

fn backups(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("before-rootgate")
        })
        .count()
}

#[test]
fn a_file_changed_after_the_plan_is_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("claude_desktop_config.json");
    std::fs::write(&file, CONFIG).unwrap();
    let ledger = Ledger::beside(&dir.path().join("rootgate/settings.json"));
    let shown = plan(&file);
    assert!(
        shown.diff.contains("+    \"files\": { \"command\": \"/usr/bin/rootgate\", \"args\": [\"connect\", \"files\"] },"),
        "{}",
        shown.diff
    );
    assert!(!shown.diff.contains("sk-live-abcdef123"), "{}", shown.diff);
    assert_eq!(shown.skipped.len(), 1, "`other` is not imported");
    // The app writes its file while the person reads the diff.
    let by_app = CONFIG.replace("thing", "thing2");
    std::fs::write(&file, &by_app).unwrap();
    let e = route::apply_route(&shown, &ledger).unwrap_err();
    assert!(matches!(e, RouteError::Changed { .. }), "{e}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), by_app);
    assert_eq!(backups(dir.path()), 0, "nothing written, not even a backup");
    // Looking again and writing works.
    route::apply_route(&plan(&file), &ledger).unwrap();
    assert!(std::fs::read_to_string(&file).unwrap().contains("thing2"));
    assert_eq!(backups(dir.path()), 1);
}

#[test]
fn a_symlinked_config_stays_a_link_and_keeps_its_mode() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("dotfiles/claude.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, CONFIG).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("claude_desktop_config.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let ledger = Ledger::beside(&dir.path().join("rootgate/settings.json"));
    route::apply_route(&plan(&link), &ledger).unwrap();
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(&real).unwrap().contains("connect"));
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let undo = route::plan_undo(AppKind::ClaudeDesktop, &link, &ledger).unwrap();
    assert!(!undo.partial_undo);
    route::apply_undo(&undo, &ledger).unwrap();
    assert_eq!(std::fs::read_to_string(&real).unwrap(), CONFIG);
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
}

#[test]
fn routing_twice_keeps_the_first_backup_so_undo_goes_back_before_rootgate() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.json");
    std::fs::write(&file, CONFIG).unwrap();
    let ledger = Ledger::beside(&dir.path().join("rootgate/settings.json"));
    route::apply_route(&plan(&file), &ledger).unwrap();
    let second = route::plan_route(
        AppKind::ClaudeDesktop,
        &file,
        &[],
        |_, key| {
            (key == "other")
                .then(|| "other".to_owned())
                .ok_or_else(|| "not imported".to_owned())
        },
        &target(),
    )
    .unwrap();
    route::apply_route(&second, &ledger).unwrap();
    assert_eq!(backups(dir.path()), 1);
    let undo = route::plan_undo(AppKind::ClaudeDesktop, &file, &ledger).unwrap();
    assert_eq!(undo.entries.len(), 2);
    route::apply_undo(&undo, &ledger).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), CONFIG);
    assert_eq!(backups(dir.path()), 0);
}
