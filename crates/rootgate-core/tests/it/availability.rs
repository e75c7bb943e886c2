//! Folders that change under Rootgate: a shared folder that is deleted,
//! renamed, unmounted or made unreadable is withdrawn from its server within
//! moments (filesystem events and mount-table changes, no polling) while its
//! grant is kept, and when it comes back at the same real path it is offered
//! to the same server again without a new prompt.
//!
//! Unmounting and permissions need a little staging. The unmount test runs
//! a copy of this test binary in a private mount namespace (`unshare`), so
//! its tmpfs mounts are never seen outside it; as anyone but root the
//! namespace comes with a user namespace, where such mounts are allowed. The
//! permission test, run as root, runs a copy without the capabilities that
//! let root read through mode bits (`setpriv`), so a folder made unreadable
//! really is unreadable to it, as it would be to a person's own Rootgate.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use rootgate_core::supervisor::Supervisor;
use rootgate_model::servers::ServerDraft;
use rootgate_model::settings::SettingsFile;
use rootgate_session::SessionConfig;
use rootgate_test_support::harness::*;

/// Set in a copy of this binary that a test runs in the staging it needs.
const ROLE: &str = "ROOTGATE_TEST_ROLE";

/// Runs this binary's test `name` again, behind `wrapper` (a command that
/// stages it and then runs what follows it), in the role `role`, and fails
/// unless that one test ran and passed.
fn run_staged(wrapper: &[&str], name: &str, role: &str) {
    let exe = std::env::current_exe().expect("test binary");
    // The binary holds every core test, each under its file's module.
    let name = rootgate_test_support::test_name(module_path!(), name);
    let out = Command::new(wrapper[0])
        .args(&wrapper[1..])
        .arg(exe)
        .args(["--exact", &name, "--nocapture", "--test-threads=1"])
        .env(ROLE, role)
        .output()
        .unwrap_or_else(|e| panic!("could not run {}: {e}", wrapper[0]));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "the staged test failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
}

/// A supervisor with the fixture server, approved, holding `folders`
/// (created if missing) each shared with it, started and running.
async fn fixture_sharing(
    dir: &Path,
    folders: &[&Path],
) -> (Arc<Supervisor>, rootgate_model::ids::ServerId) {
    let sup: Arc<Supervisor> = Supervisor::open(
        SettingsFile::at(dir.join("config/settings.json")),
        SessionConfig::default(),
    )
    .expect("the supervisor opens");
    let view = sup
        .servers()
        .add_server(ServerDraft {
            name: "fixture".into(),
            command: fixture_server().to_string_lossy().into(),
            ..Default::default()
        })
        .expect("the server is added");
    let id = view.spec.id.clone();
    sup.servers()
        .approve_command(&id, &view.command_line)
        .expect("the command is approved");
    for path in folders {
        std::fs::create_dir_all(path).expect("the folder is made");
        let prompt = sup
            .consent()
            .prompt_for_path(path)
            .expect("the folder is accepted");
        sup.consent()
            .answer_prompt(prompt.id, std::slice::from_ref(&id), None)
            .expect("the folder is shared");
    }
    sup.servers().start(&id).expect("the server starts");
    running(&sup.servers().session_of(&id).expect("a session")).await;
    (sup, id)
}

/// Waits until `server` is answered exactly `paths` (as URIs, in order)
/// at or after timeline entry `from`; fails with the timeline printed.
async fn answered_after_now(
    sup: &Supervisor,
    server: &rootgate_model::ids::ServerId,
    from: u64,
    paths: &[&PathBuf],
) {
    let want = paths.iter().map(|p| uri(p)).collect();
    wait_timeline(sup.timeline(), server, from, answered_exactly(want)).await;
}

fn last_seq(sup: &Supervisor) -> u64 {
    sup.timeline().all().last().map_or(0, |e| e.seq)
}

/// The folder view of the root at `real`: whether it is available and
/// which servers it is still granted to.
fn folder_state(sup: &Supervisor, real: &Path) -> (bool, Vec<rootgate_model::ids::ServerId>) {
    let folders = sup.folders().list();
    let folder = folders
        .iter()
        .find(|f| f.root.real_path == real)
        .unwrap_or_else(|| panic!("{} is not a folder", real.display()));
    (folder.available, folder.servers.clone())
}

fn sh(program: &str, args: &[&str]) {
    let status = Command::new(program)
        .args(args)
        .status()
        .unwrap_or_else(|e| panic!("could not run {program}: {e}"));
    assert!(status.success(), "{program} {args:?} failed: {status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_folder_is_withdrawn_and_offered_again_when_it_returns() {
    let dir = tempfile::tempdir().unwrap();
    let sup: Arc<Supervisor> = Supervisor::open(
        SettingsFile::at(dir.path().join("config/settings.json")),
        SessionConfig::default(),
    )
    .unwrap();
    let view = sup
        .servers()
        .add_server(ServerDraft {
            name: "fixture".into(),
            command: fixture_server().to_str().unwrap().into(),
            ..Default::default()
        })
        .unwrap();
    let id = view.spec.id.clone();
    sup.servers()
        .approve_command(&id, &view.command_line)
        .unwrap();
    let keep = dir.path().join("folders/keep");
    let flaky = dir.path().join("folders/flaky");
    for path in [&keep, &flaky] {
        std::fs::create_dir_all(path).unwrap();
        let prompt = sup.consent().prompt_for_path(path).unwrap();
        sup.consent()
            .answer_prompt(prompt.id, std::slice::from_ref(&id), None)
            .unwrap();
    }
    sup.servers().start(&id).unwrap();
    let session = sup.servers().session_of(&id).unwrap();
    running(&session).await;
    let both = vec![
        uri(&keep.canonicalize().unwrap()),
        uri(&flaky.canonicalize().unwrap()),
    ];
    let only_keep = vec![both[0].clone()];
    let timeline = Arc::clone(sup.timeline());
    let wait = |from: u64, want: Vec<String>| {
        let (timeline, id) = (Arc::clone(&timeline), id.clone());
        async move { wait_timeline(&timeline, &id, from, answered_exactly(want)).await }
    };
    wait(0, both.clone()).await;

    // Deleted: withdrawn, grant kept, shown unavailable.
    let seq = sup.timeline().all().last().unwrap().seq;
    std::fs::remove_dir(&flaky).unwrap();
    wait(seq, only_keep.clone()).await;
    let folders = sup.folders().list();
    let gone = folders
        .iter()
        .find(|f| f.root.real_path.ends_with("flaky"))
        .unwrap();
    assert!(!gone.available);
    assert_eq!(gone.servers, vec![id.clone()], "the grant is kept");

    // Back at the same path: offered again without a prompt.
    let seq = sup.timeline().all().last().unwrap().seq;
    std::fs::create_dir(&flaky).unwrap();
    wait(seq, both.clone()).await;

    // Renamed away: withdrawn again.
    let seq = sup.timeline().all().last().unwrap().seq;
    std::fs::rename(&flaky, dir.path().join("folders/renamed")).unwrap();
    wait(seq, only_keep).await;
    sup.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unmounted_folder_is_withdrawn_and_offered_again_when_mounted() {
    const NAME: &str = "an_unmounted_folder_is_withdrawn_and_offered_again_when_mounted";
    if std::env::var(ROLE).as_deref() != Ok("mount-namespace") {
        let namespace: &[&str] = if nix::unistd::geteuid().is_root() {
            &["unshare", "--mount", "--propagation", "private"]
        } else {
            &[
                "unshare",
                "--user",
                "--map-root-user",
                "--mount",
                "--propagation",
                "private",
            ]
        };
        return run_staged(namespace, NAME, "mount-namespace");
    }
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let keep = base.join("keep");
    let disk = base.join("disk");
    let inside = disk.join("project");
    std::fs::create_dir_all(&disk).unwrap();
    let mount = || {
        sh(
            "mount",
            &["-t", "tmpfs", "rootgate-test", disk.to_str().unwrap()],
        )
    };
    mount();
    // Shared: a folder elsewhere, the disk itself (its mount point) and a
    // folder on it.
    let (sup, id) = fixture_sharing(&base, &[&keep, &disk, &inside]).await;
    answered_after_now(&sup, &id, 0, &[&keep, &disk, &inside]).await;

    // Unmounted: both are withdrawn, though an empty folder is left at the
    // disk's own path; the grants are kept.
    let seq = last_seq(&sup);
    sh("umount", &[disk.to_str().unwrap()]);
    answered_after_now(&sup, &id, seq, &[&keep]).await;
    assert!(disk.is_dir(), "the mount point is left behind");
    for path in [&disk, &inside] {
        assert_eq!(
            folder_state(&sup, path),
            (false, vec![id.clone()]),
            "{}",
            path.display()
        );
    }

    // Mounted again: the disk is offered again at once, and the folder on
    // it as soon as it exists there, without a prompt.
    let seq = last_seq(&sup);
    mount();
    answered_after_now(&sup, &id, seq, &[&keep, &disk]).await;
    let seq = last_seq(&sup);
    std::fs::create_dir(&inside).unwrap();
    answered_after_now(&sup, &id, seq, &[&keep, &disk, &inside]).await;
    assert_eq!(folder_state(&sup, &inside), (true, vec![id.clone()]));
    sup.shutdown().await;
    sh("umount", &[disk.to_str().unwrap()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_made_unreadable_is_withdrawn_and_offered_again() {
    const NAME: &str = "a_folder_made_unreadable_is_withdrawn_and_offered_again";
    if nix::unistd::geteuid().is_root() && std::env::var(ROLE).as_deref() != Ok("no-dac") {
        let without_dac = [
            "setpriv",
            "--bounding-set=-dac_override,-dac_read_search",
            "--inh-caps=-dac_override,-dac_read_search",
        ];
        return run_staged(&without_dac, NAME, "no-dac");
    }
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let keep = base.join("keep");
    let locked = base.join("locked");
    let outer = base.join("outer");
    let behind = outer.join("behind");
    let (sup, id) = fixture_sharing(&base, &[&keep, &locked, &behind]).await;
    answered_after_now(&sup, &id, 0, &[&keep, &locked, &behind]).await;
    let set_mode = |path: &Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };

    // The folder itself made unreadable.
    let seq = last_seq(&sup);
    set_mode(&locked, 0o000);
    assert!(
        std::fs::read_dir(&locked).is_err(),
        "this test must not be able to read through mode bits"
    );
    answered_after_now(&sup, &id, seq, &[&keep, &behind]).await;
    assert_eq!(folder_state(&sup, &locked), (false, vec![id.clone()]));
    let seq = last_seq(&sup);
    set_mode(&locked, 0o755);
    answered_after_now(&sup, &id, seq, &[&keep, &locked, &behind]).await;

    // A folder above it closed: the root cannot be reached.
    let seq = last_seq(&sup);
    set_mode(&outer, 0o000);
    answered_after_now(&sup, &id, seq, &[&keep, &locked]).await;
    assert_eq!(folder_state(&sup, &behind), (false, vec![id.clone()]));
    let seq = last_seq(&sup);
    set_mode(&outer, 0o755);
    answered_after_now(&sup, &id, seq, &[&keep, &locked, &behind]).await;
    sup.shutdown().await;
}
