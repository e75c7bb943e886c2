//! What a bridge costs the person's desktop in filesystem watches, and
//! that consent still reaches it when the desktop has none left.
//!
//! Linux gives each user 128 inotify instances for all their programs
//! together. A bridge (`rootgate connect`, one per AI app and server) used
//! three, so forty bridges took them all. Now every connection is served by
//! one gate, whose one instance is shared by all. These tests count the
//! instances a real door and gate hold, read from the kernel's own `/proc/PID/fd`, and take
//! every instance this user has left (as forty other bridges, or a busy
//! desktop, would) to show that a folder withdrawn in Rootgate still
//! reaches a bridge started then: the real npm filesystem server's own
//! `list_allowed_directories` stops naming it.

use std::os::fd::OwnedFd;

use rootgate_test_support::app::*;

/// The inotify instances process `pid` holds, as the kernel lists them.
fn inotify_instances(pid: i32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|fds| {
            fds.flatten()
                .filter(|fd| {
                    std::fs::read_link(fd.path())
                        .is_ok_and(|to| to.as_os_str() == "anon_inode:inotify")
                })
                .count()
        })
        .unwrap_or(0)
}

/// Every inotify instance this user has left, held until dropped: taken
/// until the kernel refuses one, with why it refused, since the refusal
/// itself is the evidence that none is left. Asking
/// once more afterwards was not: a process of an earlier test still ending
/// gives its instance back in between, and the second ask got it.
fn take_every_inotify_instance() -> (Vec<OwnedFd>, rustix::io::Errno) {
    let mut held = Vec::new();
    loop {
        match rustix::fs::inotify::init(rustix::fs::inotify::CreateFlags::CLOEXEC) {
            Ok(fd) => held.push(fd),
            Err(refused) => return (held, refused),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_holds_one_inotify_instance_in_the_gate_and_none_in_its_door() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    // A name no other test's bridge has, to find this one by.
    let files = rg.server("files-counted", "node", &[&js]);
    let (root, shared) = rg.folder("shared");
    rg.share(&files.id, &root);
    let mut app = App::start(
        &rg,
        Sdk::TypeScript,
        &[],
        &rg.connect_command("files-counted"),
    )
    .await;
    assert_eq!(allowed_or_error(&mut app).await, Ok(vec![shared]));

    let rootgate = binary("rootgate").canonicalize().expect("the command");
    let ours = |marker: &str| -> Vec<i32> {
        processes_with(marker)
            .into_iter()
            .filter(|pid| {
                std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == rootgate)
            })
            .collect()
    };
    // The app's own process is a door (`rootgate connect` become
    // `rootgate-door`), which watches nothing; the gate serving it holds
    // the connection's watches.
    let door = binary("rootgate-door").canonicalize().expect("the door");
    let doors: Vec<i32> = processes_with("files-counted")
        .into_iter()
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|exe| exe == door))
        .collect();
    assert_eq!(doors.len(), 1, "one door: {doors:?}");
    assert_eq!(inotify_instances(doors[0]), 0);
    let settings = rg.store.file().path().display().to_string();
    let gates = ours(&format!("gate\0--settings\0{settings}"));
    assert_eq!(gates.len(), 1, "one gate: {gates:?}");
    // The settings, the folders and the window's socket are all watched by
    // then (the server answered), through one instance.
    assert_eq!(inotify_instances(gates[0]), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_inotify_instance_left_a_withdrawal_still_reaches_the_bridge() {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (a, a_path) = rg.folder("a");
    let (b, b_path) = rg.folder("b");
    rg.share(&files.id, &a);
    rg.share(&files.id, &b);

    let (held, refused) = take_every_inotify_instance();
    // The per-user limit (fs.inotify.max_user_instances) says EMFILE; any
    // other refusal would not be about instances left.
    assert_eq!(
        refused,
        rustix::io::Errno::MFILE,
        "every instance is taken ({} held)",
        held.len()
    );
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    let mut both = vec![a_path.clone(), b_path.clone()];
    both.sort();
    let mut now = allowed_or_error(&mut app)
        .await
        .expect("the server answers");
    now.sort();
    assert_eq!(now, both);

    rg.store.revoke(&files.id, &b).expect("withdraw");
    // The bridge looks at the settings every second when it cannot be
    // told; each call below is answered by the server, so no sleep is
    // needed between them. A restart to withdraw answers a call in flight
    // with its reason, in words.
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        match allowed_or_error(&mut app).await {
            Ok(now) if now == [a_path.clone()] => break,
            Ok(now) => assert!(
                tokio::time::Instant::now() < deadline,
                "the server still names {now:?}"
            ),
            Err(e) => assert!(
                e["error"]
                    .as_str()
                    .is_some_and(|s| s.contains("stopped by Rootgate"))
                    && tokio::time::Instant::now() < deadline,
                "{e}"
            ),
        }
    }
    drop(held);
}
