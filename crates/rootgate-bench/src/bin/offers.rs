//! `rootgate-offers`: what it costs to see and try a large server from the
//! window, measured through Rootgate's own session against a real server on
//! the official Python SDK (tests/servers/py_big_server.py: `--tools` tools,
//! `--resources` resources, a `large_result` tool of `--result-bytes`).
//!
//! Each run measures, on one running server:
//!
//! * `offers_ms`: `Session::offers`, every tool, resource, template and
//!   prompt listed whole (what the window asks when a detail opens);
//! * `large_ms`: `Session::try_tool` of `large_result`, the whole text
//!   received and decoded;
//! * `echo_ms`: one small tool call, the floor under both.
//!
//! One JSON line per run, then a summary line with the medians. It fails
//! (exit 1) when a list comes back short or the text is cut: the benchmark
//! measures the whole answer, not part of it.
//!
//! Usage: `rootgate-offers --python PATH --server PATH [--runs 5]
//! [--tools 500] [--resources 5000] [--result-bytes 5000000]`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use rootgate_bench::stats::stats;
use rootgate_core::servers::ServerDraft;
use rootgate_core::session::offers::Watch;
use rootgate_core::session::{Session, SessionConfig, Status};
use rootgate_core::settings::SettingsFile;
use rootgate_core::store::Store;
use rootgate_core::timeline::Timeline;
use serde_json::{Map, Value, json};

struct Args {
    python: String,
    server: PathBuf,
    runs: usize,
    tools: usize,
    resources: usize,
    result_bytes: usize,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        python: "python3".into(),
        server: PathBuf::new(),
        runs: 5,
        tools: 500,
        resources: 5000,
        result_bytes: 5_000_000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--python" => args.python = value()?,
            "--server" => args.server = value()?.into(),
            "--runs" => args.runs = number(value()?)?,
            "--tools" => args.tools = number(value()?)?,
            "--resources" => args.resources = number(value()?)?,
            "--result-bytes" => args.result_bytes = number(value()?)?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if args.server.as_os_str().is_empty() {
        return Err("--server PATH (tests/servers/py_big_server.py) is required".into());
    }
    Ok(args)
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// The text of a tool result's content, joined.
fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect()
}

async fn run(args: &Args, session: &Session) -> Result<Value, String> {
    let started = Instant::now();
    let offers = session.offers().await.map_err(|e| e.to_string())?;
    let offers_ms = ms(started);
    let (tools, resources) = (offers.tools.items.len(), offers.resources.items.len());
    if tools != args.tools + 1 || resources != args.resources {
        return Err(format!("listed {tools} tools and {resources} resources"));
    }
    let started = Instant::now();
    let large = session
        .try_tool("large_result", Map::new(), Watch::default())
        .await
        .map_err(|e| e.to_string())?;
    let large_ms = ms(started);
    let got = text(&large.result).len();
    if got != args.result_bytes {
        return Err(format!("large_result gave {got} bytes"));
    }
    let mut echo = Map::new();
    echo.insert("text".into(), json!("hello"));
    let started = Instant::now();
    session
        .try_tool("tool_0000", echo, Watch::default())
        .await
        .map_err(|e| e.to_string())?;
    let echo_ms = ms(started);
    Ok(
        json!({ "offers_ms": offers_ms, "large_ms": large_ms, "echo_ms": echo_ms,
               "tools": tools, "resources": resources, "result_bytes": got }),
    )
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("rootgate-offers: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("rootgate-offers: no runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let Ok(dir) = tempfile::tempdir() else {
            eprintln!("rootgate-offers: no temporary folder");
            return ExitCode::FAILURE;
        };
        let store = match Store::open(SettingsFile::at(dir.path().join("settings.json"))) {
            Ok((store, _)) => store,
            Err(e) => {
                eprintln!("rootgate-offers: {e}");
                return ExitCode::FAILURE;
            }
        };
        let draft = ServerDraft {
            name: "big".into(),
            command: args.python.clone(),
            args: vec![
                args.server.display().to_string(),
                "--tools".into(),
                args.tools.to_string(),
                "--resources".into(),
                args.resources.to_string(),
                "--result-bytes".into(),
                args.result_bytes.to_string(),
            ],
            enabled: true,
            ..Default::default()
        };
        let spec = match store.add_server(draft) {
            Ok(spec) => spec,
            Err(e) => {
                eprintln!("rootgate-offers: {e}");
                return ExitCode::FAILURE;
            }
        };
        let Ok(roots) = store.subscribe(&spec.id) else {
            eprintln!("rootgate-offers: no roots channel");
            return ExitCode::FAILURE;
        };
        let session = Session::spawn(
            spec.id.clone(),
            roots,
            Arc::new(Timeline::default()),
            SessionConfig::default(),
        );
        session.start(spec);
        let status = session
            .wait_for(std::time::Duration::from_secs(60), |s| {
                matches!(s, Status::Running(_) | Status::Failed { .. })
            })
            .await;
        if !status.is_running() {
            eprintln!("rootgate-offers: the server did not start: {status:?}");
            return ExitCode::FAILURE;
        }
        let mut samples: [Vec<f64>; 3] = Default::default();
        for _ in 0..args.runs {
            match run(&args, &session).await {
                Ok(line) => {
                    for (i, key) in ["offers_ms", "large_ms", "echo_ms"].iter().enumerate() {
                        samples[i].push(line[key].as_f64().unwrap_or(f64::NAN));
                    }
                    println!("{line}");
                }
                Err(e) => {
                    eprintln!("rootgate-offers: {e}");
                    session.shutdown().await;
                    return ExitCode::FAILURE;
                }
            }
        }
        let median = |s: &[f64]| stats(s).map(|s| s.median);
        println!(
            "{}",
            json!({ "summary": { "runs": args.runs, "tools": args.tools, "resources": args.resources,
                    "result_bytes": args.result_bytes,
                    "offers_ms_median": median(&samples[0]), "large_ms_median": median(&samples[1]),
                    "echo_ms_median": median(&samples[2]) } })
        );
        session.shutdown().await;
        ExitCode::SUCCESS
    })
}
