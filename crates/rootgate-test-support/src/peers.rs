//! Where the real programs the integration tests run are (the workspace's
//! binaries, the npm and PyPI test peers), and the small helpers every test
//! needs around them. Both `harness` and `app` re-export it, so a peer
//! moves in one place. It holds no set-up of its own and no tests, and no
//! wait bound: each suite chooses its own, so [`eventually_within`] takes
//! it, and `harness` and [`crate::wait`] each give an `eventually` with
//! theirs.

use std::path::{Path, PathBuf};
use std::time::Duration;

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

fn require(path: PathBuf, how: &str) -> PathBuf {
    assert!(path.exists(), "{} is missing; {how}", path.display());
    path
}

/// A binary of the workspace, built beside this test binary by
/// `cargo build --workspace` / `cargo nextest run --workspace`.
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    require(
        dir.join(name),
        "build the workspace first (cargo build --workspace)",
    )
}

/// Our example server (crates/rootgate-example-server), which the tests
/// run as their own peer: it reports every folder list it receives.
pub fn fixture_server() -> PathBuf {
    binary("rootgate-example-server")
}

pub fn peers() -> PathBuf {
    workspace_root().join("tests/peers")
}

const SETUP: &str = "run `bash scripts/setup.sh test` to install the test peers";

/// The npm filesystem server's entry point.
pub fn fs_server_js() -> PathBuf {
    require(
        peers().join("node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
        SETUP,
    )
}

/// The npm everything server's entry point.
pub fn everything_js() -> PathBuf {
    require(
        peers().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        SETUP,
    )
}

/// The official MCP Bundle CLI (`mcpb pack`, `mcpb sign`), which the
/// bundle tests pack and sign real bundles with.
pub fn mcpb() -> PathBuf {
    require(peers().join("node_modules/.bin/mcpb"), SETUP)
}

/// The venv interpreter with the Python SDK, by absolute path (a version
/// manager's shim costs ~50 ms a spawn).
pub fn python() -> PathBuf {
    require(peers().join(".venv/bin/python"), SETUP)
}

pub fn py_roots_server() -> PathBuf {
    workspace_root().join("tests/servers/py_roots_server.py")
}

/// A 2026-07-28 server on the TypeScript SDK 2.x server package whose tools
/// ask for roots in input rounds (see the script's header for its wirings).
pub fn ts_modern_server() -> PathBuf {
    require(peers().join("servers/ts_modern_server.mjs"), SETUP)
}

/// A 2026-07-28 server on the Python SDK whose tools ask for roots in input
/// rounds (see the script's docstring).
pub fn py_modern_server() -> PathBuf {
    workspace_root().join("tests/servers/py_modern_server.py")
}

pub fn node() -> String {
    "node".into()
}

/// The text content of a tool result.
pub fn tool_text(result: &serde_json::Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `probe` until it returns `Ok`, for what a server applies in its
/// own time after acknowledging it (there is no event to wait for inside
/// another process); fails after `wait` with the last reason.
pub async fn eventually_within<T, F, Fut>(wait: Duration, what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    let deadline = tokio::time::Instant::now() + wait;
    let mut last = String::new();
    while tokio::time::Instant::now() < deadline {
        match probe().await {
            Ok(value) => return value,
            Err(why) => last = why,
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what} did not happen within {wait:?}; last: {last}");
}
