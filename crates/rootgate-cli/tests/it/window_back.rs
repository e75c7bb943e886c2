//! A window that starts again lists every live connection at once, not
//! only those whose app has made a call since: a bridge notices the
//! window going away when the window's end of its socket closes, and
//! reports to the new window as soon as its socket appears.

use std::os::unix::fs::PermissionsExt;

use rootgate_test_support::app::*;
use serde_json::json;
use tokio::io::AsyncBufReadExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_live_bridge_shows_again_at_once_when_the_window_comes_back() {
    let (rg, sup) = Rootgate::with_window();
    let fixture = binary("rootgate-example-server").display().to_string();
    let files = rg.server("files", &fixture, &[]);
    let (root, _) = rg.folder("shared");
    rg.share(&files.id, &root);

    // The window before: its socket, which takes each bridge's report
    // and then goes away, as a window's process that ends (or crashes)
    // does.
    let socket = rootgate_core::connections::socket_path(sup.settings_path());
    let dir = socket.parent().expect("the socket's folder");
    std::fs::create_dir_all(dir).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let _ = std::fs::remove_file(&socket);
    let before = tokio::net::UnixListener::bind(&socket).expect("the first window's socket");

    let mut apps = Vec::new();
    let mut streams = Vec::new();
    for _ in 0..2 {
        let app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
        assert_eq!(app.connected["event"], "connected", "{}", app.connected);
        apps.push(app);
        let (stream, _) = tokio::time::timeout(WAIT, before.accept())
            .await
            .expect("the bridge reported to the first window")
            .expect("accept");
        let mut lines = tokio::io::BufReader::new(stream).lines();
        let hello = tokio::time::timeout(WAIT, lines.next_line())
            .await
            .expect("a first report")
            .expect("read")
            .expect("a line");
        assert!(hello.contains("\"hello\""), "{hello}");
        streams.push(lines);
    }
    // The first window ends; its socket file stays behind, as a crashed
    // window's does.
    drop(streams);
    drop(before);

    // The window starts again; the apps make no call.
    sup.listen_for_bridges().await.expect("listen");
    let shown = eventually("both connections to show in the new window", || async {
        let live: Vec<_> = sup
            .bridges()
            .list()
            .into_iter()
            .filter(|c| c.live)
            .collect();
        if live.len() == 2 {
            Ok(live)
        } else {
            Err(format!("{live:#?}"))
        }
    })
    .await;
    assert!(shown.iter().all(|c| c.server == files.id), "{shown:#?}");
    for mut app in apps {
        app.send(json!({"op": "close"})).await;
        let _ = app.child.wait().await;
    }
    sup.shutdown().await;
}
