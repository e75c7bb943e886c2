//! Runs the driver binary once per metric, in a quick mode, against the
//! bench's stdlib-only server (`../shared/bench/servers/raw_server.py`
//! beside the workspace) and checks what it prints: every line is JSON, the
//! counts are the ones asked for, and the `rss` line comes last. Times are
//! never checked; this is about correctness only.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn raw_server() -> PathBuf {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/bench/servers/raw_server.py");
    assert!(
        path.exists(),
        "{} is missing: the bench lives in ../shared/bench beside the workspace",
        path.display()
    );
    path.canonicalize()
        .expect("canonical path of raw_server.py")
}

/// Runs the driver and returns its result lines, parsed.
fn run(base: &Path, settings: &Path, args: &[&str]) -> Vec<Value> {
    let server = raw_server();
    let output = Command::new(env!("CARGO_BIN_EXE_rootgate-bench-driver"))
        .args(["--settings-dir", settings.to_str().expect("utf-8 path")])
        .args(args)
        .args(["--", "python3", "-I", "-S"])
        .arg(&server)
        .env("BENCH_ROOTS_BASE", base)
        .output()
        .expect("run the driver");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{args:?} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

fn count(stats: &Value) -> u64 {
    let count = stats["count"].as_u64().expect("count");
    for key in ["min", "median", "p90", "p99", "max"] {
        assert!(stats[key].is_number(), "{key} missing in {stats}");
    }
    count
}

fn check_rss(line: &Value, metric: &str, n: u64) {
    assert_eq!(line["metric"], "rss");
    assert_eq!(line["after"], metric);
    assert_eq!(line["n"], n);
    assert!(line["vmhwm_kb"].as_u64().unwrap_or(0) > 0, "{line}");
    assert!(line["maxrss_kb"].as_u64().unwrap_or(0) > 0, "{line}");
}

#[test]
fn every_metric_runs_against_the_raw_server() {
    let base = tempfile::tempdir().expect("tempdir");
    let base = base.path().canonicalize().expect("canonical base");
    let settings = tempfile::tempdir().expect("tempdir");
    let settings = settings.path();

    for metric in ["spawn", "spawn-roots"] {
        let lines = run(&base, settings, &[metric, "--n", "2", "--reps", "2"]);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0]["metric"], metric);
        assert_eq!(
            (lines[0]["n"].as_u64(), lines[0]["reps"].as_u64()),
            (Some(2), Some(2))
        );
        assert_eq!(count(&lines[0]["ms"]), 2);
        assert!(
            lines[0]["server"]
                .as_str()
                .unwrap()
                .ends_with("raw_server.py")
        );
        check_rss(&lines[1], metric, 2);
    }

    let lines = run(
        &base,
        settings,
        &["propagate", "--n", "2", "--iters", "3", "--warmup", "1"],
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["metric"], "propagate");
    assert_eq!(
        (lines[0]["n"].as_u64(), lines[0]["iters"].as_u64()),
        (Some(2), Some(3))
    );
    assert_eq!(count(&lines[0]["ms"]), 3);
    assert_eq!(count(&lines[0]["store_change_ms"]), 3);
    // One store change per iteration, and every ack that ended one was of
    // the new list: none of another list arrived.
    assert_eq!(lines[0]["store_changes_per_iter"], 1);
    assert_eq!(lines[0]["stale_acks"], 0);
    assert!(
        lines[0]["settings_bytes"].as_u64().unwrap_or(0) > 0,
        "{}",
        lines[0]
    );
    check_rss(&lines[1], "propagate", 2);

    let lines = run(
        &base,
        settings,
        &[
            "rootsize", "--sizes", "1,100", "--iters", "3", "--warmup", "1",
        ],
    );
    assert_eq!(lines.len(), 3, "{lines:?}");
    for (line, size) in lines.iter().zip([1, 100]) {
        assert_eq!(line["metric"], "rootsize");
        assert_eq!(
            (line["size"].as_u64(), line["iters"].as_u64()),
            (Some(size), Some(3))
        );
        assert_eq!(count(&line["tool_call_ms"]), 3);
        assert_eq!(count(&line["server_roots_rtt_ms"]), 3);
    }
    check_rss(&lines[2], "rootsize", 1);

    // The folders the roots name are real, under the base.
    assert!(base.join("roots/init/dir-00000").is_dir());
    assert!(base.join("iter-2").is_dir() && base.join("iter--1").is_dir());
    assert!(base.join("roots/s100/dir-00099").is_dir());
}

#[test]
fn a_server_that_is_not_mcp_fails_the_run() {
    let base = tempfile::tempdir().expect("tempdir");
    let output = Command::new(env!("CARGO_BIN_EXE_rootgate-bench-driver"))
        .args([
            "spawn", "--n", "1", "--reps", "1", "--", "/bin/sh", "-c", "exit 3",
        ])
        .env(
            "BENCH_ROOTS_BASE",
            base.path().canonicalize().expect("base"),
        )
        .output()
        .expect("run the driver");
    assert!(!output.status.success());
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("failed"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
