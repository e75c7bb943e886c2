//! A withdrawal is true when the window says so: once the store has saved
//! a folder's withdrawal (the window shows it withdrawn as soon as its
//! save returns), no request of an AI app reads that folder through a live
//! `rootgate connect`, however fast the app asks. The evidence is the real
//! npm filesystem server's own answers, read by an app stand-in on the
//! official TypeScript SDK that keeps reads of the folder in flight, in a
//! tight loop, across the save.

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

    // Reads of the folder, IN_FLIGHT at a time, each sent as the one
    // before it is answered; each remembers whether it was sent after the
    // withdrawal's save had returned.
    let secret = gone_path.join("secret.txt");
    let mut sent_after: HashMap<u64, bool> = HashMap::new();
    for _ in 0..IN_FLIGHT {
        sent_after.insert(app.send(read_of(&secret)).await, false);
    }
    let mut saved = false;
    let (mut before, mut after) = (0usize, 0usize);
    let mut read_before = 0usize;
    let mut read_after: Vec<String> = Vec::new();
    let mut last_after = String::new();
    while after < AFTER {
        let answer = app.wait(|v| v.get("tag").is_some()).await;
        let tag = answer["tag"].as_u64().expect("a tag");
        let Some(was_after) = sent_after.remove(&tag) else {
            continue;
        };
        let (read, text) = read_ok(&answer, "inside the withdrawn folder");
        if was_after {
            after += 1;
            if read {
                read_after.push(text.clone());
            }
            last_after = text;
        } else {
            before += 1;
            read_before += usize::from(read);
        }
        if !saved && before >= BEFORE {
            // The window's save: when it returns, the window shows the
            // folder withdrawn.
            rg.store.revoke(&files.id, &gone).expect("withdraw");
            saved = true;
        }
        sent_after.insert(app.send(read_of(&secret)).await, saved);
    }
    assert!(
        read_before > 0,
        "the loop read the folder while it was shared ({before} answers)"
    );
    assert!(
        read_after.is_empty(),
        "{} of {AFTER} reads sent after the withdrawal was saved still read the folder; \
         the first said: {:?}",
        read_after.len(),
        read_after.first()
    );
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
