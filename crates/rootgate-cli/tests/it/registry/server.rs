//! The registry on this machine for the registry tests: a std TcpListener
//! thread answering the v0 API from the snapshot in
//! crates/rootgate-sources/tests/fixtures/registry as the official registry
//! does (search and `version=latest` over every version, then `limit` at a
//! time after `cursor`). Nothing else; the tests are in `registry`.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rootgate_test_support::app::workspace_root;
use serde_json::{Value, json};

fn snapshot() -> PathBuf {
    workspace_root().join("crates/rootgate-sources/tests/fixtures/registry")
}

/// `%XX` decoded.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], text.get(i + 1..i + 3)) {
            (b'%', Some(hex)) if u8::from_str_radix(hex, 16).is_ok() => {
                out.push(u8::from_str_radix(hex, 16).expect("the test's own data"));
                i += 3;
            }
            (b, _) => {
                out.push(if b == b'+' { b' ' } else { b });
                i += 1;
            }
        }
    }
    String::from_utf8(out).expect("the test's own data")
}

/// Encoded as the snapshot's file names are (Python's `quote(safe="")`).
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn read_json(path: &Path) -> Option<Value> {
    Some(serde_json::from_str(&std::fs::read_to_string(path).ok()?).expect("the test's own data"))
}

/// Every listed version, following the stored pages' cursors.
fn every_listed() -> Vec<Value> {
    let mut out = vec![];
    let mut file = snapshot().join("list/first.json");
    while let Some(page) = read_json(&file) {
        out.extend(
            page["servers"]
                .as_array()
                .expect("the test's own data")
                .iter()
                .cloned(),
        );
        match page["metadata"]["nextCursor"].as_str() {
            Some(next) => file = snapshot().join(format!("list/{}.json", encode(next))),
            None => break,
        }
    }
    out
}

/// The registry's answer to `target` (a path and query), as the official
/// registry gives it: search and `version=latest` over every version, then
/// `limit` at a time after `cursor`.
fn answer(target: &str) -> (u16, Value) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let q = |key: &str| {
        query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == key)
            .map(|(_, v)| decode(v))
    };
    let segments: Vec<String> = path.split('/').map(decode).collect();
    match segments.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["", "v0", "servers"] => {
            let search = q("search").unwrap_or_default().to_lowercase();
            let latest = q("version").as_deref() == Some("latest");
            let all: Vec<Value> = every_listed()
                .into_iter()
                .filter(|a| {
                    a["server"]["name"]
                        .as_str()
                        .expect("the test's own data")
                        .to_lowercase()
                        .contains(&search)
                })
                .filter(|a| {
                    !latest
                        || a["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"]
                            == true
                })
                .collect();
            let key = |a: &Value| {
                format!(
                    "{}:{}",
                    a["server"]["name"].as_str().expect("the test's own data"),
                    a["server"]["version"]
                        .as_str()
                        .expect("the test's own data")
                )
            };
            let start = q("cursor").map_or(0, |c| {
                all.iter()
                    .position(|a| key(a) == c)
                    .map_or(all.len(), |i| i + 1)
            });
            let limit: usize = q("limit").and_then(|l| l.parse().ok()).unwrap_or(30);
            let page: Vec<Value> = all.iter().skip(start).take(limit).cloned().collect();
            let mut metadata = json!({"count": page.len()});
            if start + page.len() < all.len() {
                metadata["nextCursor"] = json!(key(page.last().expect("the test's own data")));
            }
            (200, json!({"servers": page, "metadata": metadata}))
        }
        ["", "v0", "servers", name, "versions", version] => {
            let file = snapshot().join(format!(
                "versions/{}/{}.json",
                encode(name),
                encode(version)
            ));
            match read_json(&file) {
                Some(found) => (200, found),
                None => (404, json!({"error": "Server not found"})),
            }
        }
        _ => (404, json!({"error": "Not found"})),
    }
}

/// The registry on this machine, until dropped: then its port refuses.
pub struct LocalRegistry {
    pub address: String,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl LocalRegistry {
    pub fn start() -> LocalRegistry {
        let listener = TcpListener::bind("127.0.0.1:0").expect("the test's own data");
        let address = format!(
            "http://{}",
            listener.local_addr().expect("the test's own data")
        );
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    return;
                }
                if let Ok(stream) = stream {
                    serve(stream);
                }
            }
        });
        LocalRegistry {
            address,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for LocalRegistry {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept so the thread sees the flag and drops the port.
        let _ = TcpStream::connect(self.address.trim_start_matches("http://"));
        if let Some(thread) = self.thread.take() {
            thread.join().expect("the test's own data");
        }
    }
}

fn serve(mut stream: TcpStream) {
    let mut reader = BufReader::new(stream.try_clone().expect("the test's own data"));
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    // The headers, up to the blank line.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let target = request.split_whitespace().nth(1).unwrap_or("/");
    let (status, body) = answer(target);
    let body = body.to_string();
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}
