//! `rootgate-burst`: what the guarantee that a server ends with exactly its
//! granted folders costs, measured against the real npm filesystem server
//! through Rootgate's own store and session.
//!
//! Each run shares `--folders` folders with the server one change at a
//! time, then withdraws all but two one change at a time (issue #15's
//! burst), and measures, from the last change:
//!
//! * `final_ms`: until the server's own `list_allowed_directories` reports
//!   exactly the two folders and goes on doing so until the end (the tool is
//!   called every few milliseconds until the session has nothing left to
//!   tell and the server has applied every answer it was given, by its own
//!   stderr line per answer);
//! * `settled_ms`: until that end: the session settled (its confirming
//!   notification, if any, answered) and every answer applied;
//! * the notifications and answers the whole burst cost.
//!
//! One JSON line per run, then a summary line with the medians. It fails
//! (exit 1) when a run ends with any other set: the benchmark measures the
//! guarantee, it does not excuse it.
//!
//! Usage: `rootgate-burst --server-js PATH [--node PATH] [--runs 5]
//! [--folders 300]`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rootgate_bench::stats::stats;
use rootgate_core::folders;
use rootgate_core::servers::ServerDraft;
use rootgate_core::session::{Session, SessionConfig, Status};
use rootgate_core::settings::SettingsFile;
use rootgate_core::store::Store;
use rootgate_core::timeline::{Event, Timeline};
use serde_json::json;

struct Args {
    node: String,
    server_js: PathBuf,
    runs: usize,
    folders: usize,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        node: "node".into(),
        server_js: PathBuf::new(),
        runs: 5,
        folders: 300,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--node" => args.node = value()?,
            "--server-js" => args.server_js = value()?.into(),
            "--runs" => args.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--folders" => {
                args.folders = value()?.parse().map_err(|e| format!("--folders: {e}"))?
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.server_js.as_os_str().is_empty() {
        return Err(
            "--server-js PATH (the npm filesystem server's dist/index.js) is needed".into(),
        );
    }
    if args.folders < 3 {
        return Err("--folders must be at least 3".into());
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("rootgate-burst: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("rootgate-burst: no runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let mut finals = Vec::new();
        let mut settles = Vec::new();
        let mut costs = Vec::new();
        for run in 0..args.runs {
            match one_run(&args).await {
                Ok(r) => {
                    println!(
                        "{}",
                        json!({"metric": "burst", "run": run, "folders": args.folders,
                               "final_ms": r.final_ms, "settled_ms": r.settled_ms,
                               "notifications": r.notifications, "answers": r.answers})
                    );
                    finals.push(r.final_ms);
                    settles.push(r.settled_ms);
                    costs.push((r.notifications, r.answers));
                }
                Err(e) => {
                    eprintln!("rootgate-burst: run {run}: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        costs.sort_unstable();
        let (notifications, answers) = costs[costs.len() / 2];
        println!(
            "{}",
            json!({"metric": "burst-summary", "runs": args.runs, "folders": args.folders,
                   "final_ms": stats(&finals), "settled_ms": stats(&settles),
                   "median_notifications": notifications, "median_answers": answers})
        );
        ExitCode::SUCCESS
    })
}

struct RunResult {
    final_ms: f64,
    settled_ms: f64,
    notifications: usize,
    answers: usize,
}

async fn one_run(args: &Args) -> Result<RunResult, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (store, _) = Store::open(SettingsFile::at(dir.path().join("settings.json")))
        .map_err(|e| e.to_string())?;
    let store = Arc::new(store);
    let timeline = Arc::new(Timeline::default());
    let spec = store
        .add_server(ServerDraft {
            name: "files".into(),
            command: args.node.clone(),
            args: vec![args.server_js.display().to_string()],
            ..Default::default()
        })
        .map_err(|e| e.to_string())?;
    let mut roots = Vec::new();
    for i in 0..args.folders {
        let path = dir.path().join(format!("folders/dir-{i:04}"));
        std::fs::create_dir_all(&path).map_err(|e| e.to_string())?;
        let checked = folders::check(&path).map_err(|e| e.to_string())?;
        let added = store.add_root(&checked, None).map_err(|e| e.to_string())?;
        roots.push((added.root.id, checked.real().to_path_buf()));
    }
    let session = Session::spawn(
        spec.id.clone(),
        store.subscribe(&spec.id).map_err(|e| e.to_string())?,
        Arc::clone(&timeline),
        SessionConfig::default(),
    );
    session.start(spec.clone());
    let status = session
        .wait_for(Duration::from_secs(30), |s| {
            matches!(s, Status::Running(_) | Status::Failed { .. })
        })
        .await;
    if !status.is_running() {
        return Err(format!("the server did not start: {status:?}"));
    }
    let before = timeline.all().last().map_or(0, |e| e.seq);
    for (root, _) in &roots {
        store.grant(&spec.id, root).map_err(|e| e.to_string())?;
    }
    for (root, _) in &roots[2..] {
        store.revoke(&spec.id, root).map_err(|e| e.to_string())?;
    }
    let last_change = Instant::now();
    let want: BTreeSet<PathBuf> = roots[..2].iter().map(|(_, p)| p.clone()).collect();
    let mut final_since: Option<Instant> = None;
    let deadline = last_change + Duration::from_secs(120);
    let settled_at = loop {
        if Instant::now() > deadline {
            return Err("the server did not settle within 120 s".into());
        }
        let got = allowed(&session).await?;
        let now = Instant::now();
        if got == want {
            final_since.get_or_insert(now);
        } else {
            final_since = None;
        }
        let current = store.shared_with(&spec.id).map_err(|e| e.to_string())?;
        let delivery = session.delivery();
        if delivery.settled()
            && delivery.generation == current.generation()
            && applied(&session) == answers_since(&timeline, 0, &spec.id)
        {
            if got != want {
                return Err(format!(
                    "the server settled on {} folders, not the granted 2",
                    got.len()
                ));
            }
            break now;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let final_at = final_since.unwrap_or(settled_at);
    let entries: Vec<_> = timeline
        .for_server(&spec.id)
        .into_iter()
        .filter(|e| e.seq > before)
        .collect();
    let notifications = entries
        .iter()
        .filter(|e| matches!(e.event, Event::ListChangedSent { .. }))
        .count();
    session.shutdown().await;
    Ok(RunResult {
        final_ms: ms(final_at - last_change),
        settled_ms: ms(settled_at - last_change),
        notifications,
        answers: answers_since(&timeline, before, &spec.id),
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn answers_since(timeline: &Timeline, before: u64, server: &rootgate_core::ids::ServerId) -> usize {
    timeline
        .for_server(server)
        .iter()
        .filter(|e| e.seq > before && matches!(e.event, Event::RootsAnswered { .. }))
        .count()
}

/// Answers the server applied, by its own stderr (one line per answer).
fn applied(session: &Session) -> usize {
    session
        .stderr()
        .lines()
        .iter()
        .filter(|l| {
            l.text
                .contains("Updated allowed directories from MCP roots")
                || l.text
                    .contains("No valid root directories provided by client")
        })
        .count()
}

async fn allowed(session: &Session) -> Result<BTreeSet<PathBuf>, String> {
    let result = session
        .call_tool("list_allowed_directories", serde_json::Map::new())
        .await
        .map_err(|e| e.to_string())?;
    let text: String = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(text
        .lines()
        .filter(|l| l.starts_with('/'))
        .map(PathBuf::from)
        .collect())
}
