//! A withdrawal is true when the window says so: once the store has saved
//! a folder's withdrawal (the window shows it withdrawn as soon as its
//! save returns), no request of an AI app reads that folder through a live
//! `rootgate connect`, however fast the app asks. The evidence is the real
//! npm filesystem server's own answers, read by an app stand-in on the
//! official TypeScript SDK that keeps reads of the folder in flight, in a
//! tight loop, across the save; for a server of the modern era (given its
//! folders inside each call), the folders the TypeScript SDK 2.x server
//! says each call was given.

use std::collections::HashMap;
use std::path::PathBuf;

use rootgate_test_support::app::*;
use serde_json::{Value, json};

/// How many reads the stand-in keeps in flight at once.
const IN_FLIGHT: usize = 8;
/// Reads answered before the withdrawal is saved: the loop is warm.
const BEFORE: usize = 40;
/// Reads sent after the save whose answers are looked at.
const AFTER: usize = 300;

fn read_of(path: &std::path::Path) -> Value {
    json!({"op": "callTool", "name": "read_text_file",
           "arguments": {"path": path.display().to_string()}})
}

/// Whether an answer is the file's contents, and what it said.
fn read_ok(answer: &Value, contents: &str) -> (bool, String) {
    let ok = &answer["ok"];
    let text = format!("{}{}", tool_text(ok), answer["error"]);
    let read = ok["isError"] != true && answer.get("error").is_none();
    (read && text.contains(contents), text)
}

/// The server asks for its folders (`roots/list`): it is told with
/// `list_changed`, and asks again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_read_of_a_withdrawn_folder_succeeds_once_the_withdrawal_is_saved() {
    reads_across_a_withdrawal(false).await;
}

/// The server is given its folders as arguments (`${folders}`, as an
/// import writes most filesystem servers): it is started again without
/// the folder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_read_of_a_withdrawn_folder_succeeds_when_folders_are_arguments() {
    reads_across_a_withdrawal(true).await;
}

async fn reads_across_a_withdrawal(as_arguments: bool) {
    let rg = Rootgate::new();
    let js = fs_server_js().display().to_string();
    let args: &[&str] = if as_arguments {
        &[&js, "${folders}"]
    } else {
        &[&js]
    };
    let files = rg.server("files", "node", args);
    let (gone, gone_path) = rg.folder("withdrawn");
    let (kept, kept_path) = rg.folder("kept");
    std::fs::write(gone_path.join("secret.txt"), "inside the withdrawn folder").expect("write");
    std::fs::write(kept_path.join("kept.txt"), "inside the kept folder").expect("write");
    rg.share(&files.id, &gone);
    rg.share(&files.id, &kept);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("files")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    let both: std::collections::BTreeSet<PathBuf> = [gone_path.clone(), kept_path.clone()].into();
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let got: std::collections::BTreeSet<PathBuf> = allowed(&mut app).await;
        if got == both {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the server holds {got:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }

    let secret = gone_path.join("secret.txt");
    let seen = across_the_save(
        &mut app,
        &rg,
        &files.id,
        &gone,
        read_of(&secret),
        |answer| read_ok(answer, "inside the withdrawn folder"),
    )
    .await;
    let last_after = seen.assert_none_after();
    // The refusals are the server's own: it no longer allows the folder.
    assert!(
        last_after.contains("Access denied"),
        "the server's last answer: {last_after}"
    );
    let kept_read = app.request(read_of(&kept_path.join("kept.txt"))).await;
    let (ok, text) = read_ok(&kept_read, "inside the kept folder");
    assert!(ok, "the folder still shared is still read: {text}");
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}

/// What the app saw of the folder across the save.
struct Seen {
    read_before: usize,
    read_after: Vec<String>,
    last_after: String,
}

impl Seen {
    /// The loop read the folder while it was shared, and not once in a
    /// request sent after the save; the last answer after it.
    fn assert_none_after(self) -> String {
        assert!(
            self.read_before > 0,
            "the loop read the folder while it was shared"
        );
        assert!(
            self.read_after.is_empty(),
            "{} of {AFTER} reads sent after the withdrawal was saved still read the folder; \
             the first said: {:?}",
            self.read_after.len(),
            self.read_after.first()
        );
        self.last_after
    }
}

/// Sends `request` IN_FLIGHT at a time, each again as one is answered,
/// and withdraws `gone` from `server` in the store once BEFORE answers
/// came: each request remembers whether it was sent after the save had
/// returned (when the window shows the folder withdrawn), and `reads`
/// says whether its answer reached the folder.
async fn across_the_save(
    app: &mut App,
    rg: &Rootgate,
    server: &rootgate_core::ids::ServerId,
    gone: &rootgate_core::ids::RootId,
    request: Value,
    reads: impl Fn(&Value) -> (bool, String),
) -> Seen {
    let mut sent_after: HashMap<u64, bool> = HashMap::new();
    for _ in 0..IN_FLIGHT {
        sent_after.insert(app.send(request.clone()).await, false);
    }
    let mut saved = false;
    let (mut before, mut after) = (0usize, 0usize);
    let mut seen = Seen {
        read_before: 0,
        read_after: Vec::new(),
        last_after: String::new(),
    };
    while after < AFTER {
        let answer = app.wait(|v| v.get("tag").is_some()).await;
        let tag = answer["tag"].as_u64().expect("a tag");
        let Some(was_after) = sent_after.remove(&tag) else {
            continue;
        };
        let (read, text) = reads(&answer);
        if was_after {
            after += 1;
            if read {
                seen.read_after.push(text.clone());
            }
            seen.last_after = text;
        } else {
            before += 1;
            seen.read_before += usize::from(read);
        }
        if !saved && before >= BEFORE {
            // The window's save: when it returns, the window shows the
            // folder withdrawn.
            rg.store.revoke(server, gone).expect("withdraw");
            saved = true;
        }
        sent_after.insert(app.send(request.clone()).await, saved);
    }
    seen
}

/// A server of the modern era is given its folders inside each call (an
/// input round the bridge answers): no call sent after the save is given
/// the folder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_call_to_a_modern_server_is_given_a_withdrawn_folder_once_the_withdrawal_is_saved() {
    let rg = Rootgate::new();
    let script = ts_modern_server().display().to_string();
    let spec = rg.server("ts modern", "node", &[&script, "--modern-only"]);
    let (gone, gone_path) = rg.folder("withdrawn");
    let (kept, kept_path) = rg.folder("kept");
    rg.share(&spec.id, &gone);
    rg.share(&spec.id, &kept);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command("ts modern")).await;
    assert_eq!(app.connected["event"], "connected", "{}", app.connected);
    let uri = |p: &std::path::Path| rootgate_core::uri::path_to_uri(p).expect("uri").to_string();
    let (gone_uri, kept_uri) = (uri(&gone_path), uri(&kept_path));
    let ask = json!({"op": "callTool", "name": "ask_roots"});
    let seen = across_the_save(&mut app, &rg, &spec.id, &gone, ask, |answer| {
        let text = match answer.get("error") {
            Some(error) => error.to_string(),
            None => tool_text(&answer["ok"]),
        };
        (text.lines().any(|l| l == gone_uri), text)
    })
    .await;
    let last = seen.assert_none_after();
    assert_eq!(last.lines().next(), Some(kept_uri.as_str()), "{last}");
    app.send(json!({"op": "close"})).await;
    let _ = app.child.wait().await;
}
