//! A connection that ends leaves nothing of itself in the process that
//! served it. The resident gate serves every app session in one process
//! for hours, so what one connection held (its relay, and through it its
//! store, timeline and tasks) must go when it ends: a task that held the
//! relay and waited on the relay's own channel kept every connection's
//! state alive for ever (about 0.24 MiB a connection in the gate).
//! Checked by running real connections in this process against the real
//! example server, through `rootgate_bridge::connect` as the gate runs it,
//! and counting the relays left.

use rootgate_bridge::relay::live_relays;
use rootgate_bridge::{Options, Outcome, connect};
use rootgate_session::SessionConfig;
use rootgate_test_support::app::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ended_connection_leaves_no_relay_behind() {
    let rg = Rootgate::new();
    let server = binary("rootgate-example-server").display().to_string();
    let example = rg.server("example", server, &[]);
    let (root, _) = rg.folder("shared");
    rg.share(&example.id, &root);
    for round in 0..5 {
        let options = Options::here(
            rg.store.file().clone(),
            "example".into(),
            SessionConfig::default(),
        );
        assert_eq!(
            one_connection(options).await,
            Outcome::Disconnected,
            "round {round}"
        );
    }
    // What ends a connection's tasks is an abort, carried out at their next
    // turn: the count reaches nought once they have had it.
    eventually("every ended connection's relay to go", || async {
        match live_relays() {
            0 => Ok(()),
            n => Err(format!("{n} relays left")),
        }
    })
    .await;
}

/// One connection as the gate runs it: the app's `initialize` answered,
/// then the app goes. Its outcome.
async fn one_connection(options: Options) -> Outcome {
    let (app, ours) = tokio::io::duplex(64 * 1024);
    let (input, output) = tokio::io::split(ours);
    let served = tokio::spawn(connect(options, input, output));
    let (read, mut app_in) = tokio::io::split(app);
    let mut app_out = BufReader::new(read).lines();
    app_in
        .write_all(
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","#,
                r#""capabilities":{},"clientInfo":{"name":"ends","version":"1"}}}"#,
                "\n"
            )
            .as_bytes(),
        )
        .await
        .expect("write initialize");
    let answer = tokio::time::timeout(WAIT, app_out.next_line())
        .await
        .expect("an answer in time")
        .expect("read")
        .expect("a line");
    assert!(
        answer.contains(r#""id":1"#) && answer.contains("result"),
        "{answer}"
    );
    // The app goes: its end of the connection closes.
    drop(app_in);
    drop(app_out);
    tokio::time::timeout(WAIT, served)
        .await
        .expect("the connection ends in time")
        .expect("the connection's task")
}

/// The same for connections that share one server process in the gate
/// (`rootgate_bridge::shared`): three at a time, five times over, each
/// leaving the shared life; once the last has left, no relay is left, and
/// the life itself was stopped (the tests' settings keep no unused server).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ended_connection_to_a_shared_server_leaves_no_relay_behind() {
    let rg = Rootgate::new();
    let server = binary("rootgate-example-server").display().to_string();
    let example = rg.server("example", server, &[]);
    let (root, _) = rg.folder("shared");
    rg.share(&example.id, &root);
    let lives =
        rootgate_bridge::shared::Lives::open(rg.store.file().clone(), SessionConfig::default())
            .expect("the gate's lives");
    for round in 0..5 {
        let three = (0..3).map(|_| {
            let mut options = Options::here(
                rg.store.file().clone(),
                "example".into(),
                SessionConfig::default(),
            );
            options.lives = Some(std::sync::Arc::clone(&lives));
            tokio::spawn(one_connection(options))
        });
        for outcome in futures_join(three).await {
            assert_eq!(outcome, Outcome::Disconnected, "round {round}");
        }
    }
    eventually("every ended connection's relay to go", || async {
        match (live_relays(), lives.running()) {
            (0, 0) => Ok(()),
            (relays, running) => Err(format!("{relays} relays and {running} lives left")),
        }
    })
    .await;
}

/// Waits for every task, in order.
async fn futures_join(
    tasks: impl Iterator<Item = tokio::task::JoinHandle<Outcome>>,
) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    for task in tasks.collect::<Vec<_>>() {
        outcomes.push(task.await.expect("the connection's task"));
    }
    outcomes
}
