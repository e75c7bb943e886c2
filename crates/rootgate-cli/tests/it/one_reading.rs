//! One reading of every message (#39): a raw app, a plain process writing
//! lines to the real `rootgate connect`, sends the real npm filesystem
//! server messages that two readers could read apart: a tool's name twice
//! (Rootgate's rules would look at one, the server would run the other),
//! `method` twice, `params` twice, and arguments nested 10,000 deep. Each
//! is answered at once with a -32600 error in words under the request's
//! own id, and the server's own files show that nothing ran.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rootgate_core::tools::ToolSetting;
use rootgate_test_support::app::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout, Command};

/// How long an answer may take before the app is taken to wait forever.
const ANSWER: Duration = Duration::from_secs(15);

struct RawApp {
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
}

impl RawApp {
    async fn send(&mut self, line: &str) {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write to rootgate connect");
    }

    /// The answer under `id`, or a failure that says the app would wait
    /// forever; what came meanwhile is in the message.
    async fn answer(&mut self, id: Value, what: &str) -> Value {
        let mut seen = Vec::new();
        let found = tokio::time::timeout(ANSWER, async {
            loop {
                let Ok(Some(line)) = self.lines.next_line().await else {
                    return None;
                };
                let v: Value = serde_json::from_str(&line).expect("the bridge writes JSON");
                if v["id"] == id && v.get("method").is_none() {
                    return Some(v);
                }
                seen.push(v);
            }
        })
        .await;
        match found {
            Ok(Some(v)) => v,
            Ok(None) => panic!("{what}: the bridge closed its output; before that: {seen:?}"),
            Err(_) => panic!(
                "{what}: no answer under id {id} within {ANSWER:?}, so the app would wait \
                 forever; the bridge wrote meanwhile: {seen:?}"
            ),
        }
    }
}

fn refused_in_words(answer: &Value, id: &Value, words: &str, what: &str) {
    assert_eq!(&answer["id"], id, "{what}: {answer}");
    assert_eq!(answer["error"]["code"], -32600, "{what}: {answer}");
    let said = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains(words), "{what}: said {said:?}");
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}

/// The filesystem server "files" with a folder shared and `write_file`
/// hidden, and a raw app connected to it through `rootgate connect`.
struct Connected {
    // Kept for the test's length: it owns the settings and the folders.
    _rg: Rootgate,
    app: RawApp,
    child: tokio::process::Child,
    shared: std::path::PathBuf,
}

async fn connected() -> Connected {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let files = rg.server("files", "node", &[&js]);
    let (root, shared) = rg.folder("notes");
    rg.share(&files.id, &root);
    rg.store
        .set_tool_setting(&files.id, None, "write_file", Some(ToolSetting::Hidden))
        .expect("hide write_file");
    let command = rg.connect_command("files");
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start rootgate connect");
    let mut app = RawApp {
        stdin: child.stdin.take().expect("stdin"),
        lines: BufReader::new(child.stdout.take().expect("stdout")).lines(),
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw agent", "version": "0"}}});
    app.send(&init.to_string()).await;
    let answer = app.answer(json!(1), "initialize").await;
    assert!(answer.get("result").is_some(), "{answer}");
    app.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    Connected {
        _rg: rg,
        app,
        child,
        shared,
    }
}

impl Connected {
    /// The connection goes on: a plain call runs, and shows the folder.
    async fn still_answers(mut self) {
        self.app
            .send(
                &json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                        "params": {"name": "list_allowed_directories", "arguments": {}}})
                .to_string(),
            )
            .await;
        let listed = self.app.answer(json!(99), "a plain call after").await;
        assert!(
            tool_text(&listed["result"]).contains(&path_text(&self.shared)),
            "{listed}"
        );
        drop(self.app);
        let _ = tokio::time::timeout(WAIT, self.child.wait()).await;
    }
}

/// `write_file`'s arguments, for a file in the shared folder.
fn write_arguments(file: &Path) -> String {
    json!({"path": path_text(file), "content": "x"}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_tools_name_written_after_an_allowed_one_is_refused_and_never_runs() {
    let mut c = connected().await;
    // The server would read the last name (JSON.parse keeps it) and write
    // the file; Rootgate's rules would have looked at the first.
    let written = c.shared.join("written.txt");
    let arguments = write_arguments(&written);
    let twice = format!(
        r#"{{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{{"name":"read_text_file","name":"write_file","arguments":{arguments}}}}}"#
    );
    c.app.send(&twice).await;
    let answer = c.app.answer(json!(10), "a tool's name twice").await;
    refused_in_words(
        &answer,
        &json!(10),
        r#"the key "name" is written twice in “params”"#,
        "a tool's name twice",
    );
    // The same with the second name spelled with an escape.
    let escaped = format!(
        r#"{{"jsonrpc":"2.0","id":"eleven","method":"tools/call","params":{{"name":"read_text_file","na\u006de":"write_file","arguments":{arguments}}}}}"#
    );
    c.app.send(&escaped).await;
    let answer = c.app.answer(json!("eleven"), "a name spelled twice").await;
    refused_in_words(
        &answer,
        &json!("eleven"),
        "written twice",
        "a name spelled twice",
    );
    assert!(!written.exists(), "the hidden write_file ran on the server");
    c.still_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn method_written_twice_is_answered_under_its_id_and_nothing_runs() {
    let mut c = connected().await;
    // Before, a parse error under id null: the app waited forever.
    let made = c.shared.join("made");
    let methods = format!(
        r#"{{"jsonrpc":"2.0","id":12,"method":"tools/list","method":"tools/call","params":{{"name":"create_directory","arguments":{{"path":{}}}}}}}"#,
        json!(path_text(&made))
    );
    c.app.send(&methods).await;
    let answer = c.app.answer(json!(12), "method twice").await;
    refused_in_words(
        &answer,
        &json!(12),
        r#"the key "method" is written twice in the message"#,
        "method twice",
    );
    assert!(!made.exists(), "the call ran on the server");
    c.still_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn params_written_twice_is_answered_under_its_id_and_nothing_runs() {
    let mut c = connected().await;
    let made = c.shared.join("made");
    let params = format!(
        r#"{{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{{"name":"list_allowed_directories","arguments":{{}}}},"params":{{"name":"create_directory","arguments":{{"path":{}}}}}}}"#,
        json!(path_text(&made))
    );
    c.app.send(&params).await;
    let answer = c.app.answer(json!(13), "params twice").await;
    refused_in_words(
        &answer,
        &json!(13),
        r#"the key "params" is written twice"#,
        "params twice",
    );
    assert!(!made.exists(), "the call ran on the server");
    c.still_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_nested_10_000_deep_are_answered_under_their_id_and_nothing_runs() {
    let mut c = connected().await;
    let made = c.shared.join("made");
    let depth = 10_000;
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{{"name":"create_directory","arguments":{{"path":{},"x":{}{}}}}}}}"#,
        json!(path_text(&made)),
        "[".repeat(depth),
        "]".repeat(depth)
    );
    c.app.send(&deep).await;
    let answer = c.app.answer(json!(14), "nesting 10,000 deep").await;
    refused_in_words(&answer, &json!(14), "levels deep", "nesting 10,000 deep");
    assert!(!made.exists(), "the deep call ran on the server");
    c.still_answers().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_naming_a_lone_surrogate_does_not_hide_a_hidden_tools_call_from_the_rules() {
    let mut c = connected().await;
    // Found by the fuzz target `one_reading`: a key Rootgate could not
    // decode (an unpaired surrogate, which JSON.parse takes) made the
    // tool's name read as absent, and the call went on unjudged.
    let written = c.shared.join("written.txt");
    let arguments = write_arguments(&written);
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{{"\ud800":1,"name":"write_file","arguments":{arguments}}}}}"#
    );
    c.app.send(&line).await;
    let answer = c.app.answer(json!(16), "a lone surrogate's key").await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    let said = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("“write_file” is not offered"), "{said}");
    assert!(!written.exists(), "the hidden write_file ran on the server");
    c.still_answers().await;
}
