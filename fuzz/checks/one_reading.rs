//! One reading of an app's line (issue #39, "one reading of every
//! message"): the bridge's reading of a line, compared with what real
//! servers' parsers make of it. Shared by the cargo-fuzz target
//! `one_reading` and the bridge's proptest (`route::strict`), which each
//! say how a line is routed ([`Bridge`]); this file knows only lines.
//!
//! The oracles are the real `JSON.parse` (Node, as the TypeScript SDK's
//! servers read) and Python's `json.loads` (the Python SDK's), each one
//! long-lived process answering one line per line. Both keep the last of
//! a key written twice; Python is also asked for the first (an
//! `object_pairs_hook`), and says whether any object names a key twice
//! and whether the two readings differ.
//!
//! What must hold for every line:
//! - the bridge passes a line on only when both parse it, no object in it
//!   names a key twice, and it nests no deeper than the bridge's limit;
//!   and then the server, parsing what the bridge wrote, reads the same
//!   `method` and `params` as it would have from the app's own line (so a
//!   rule the bridge applied to a name applied to the name the server
//!   runs), and a call to the hidden tool `write_file` never passes;
//! - a line both parse in which some object names a key twice, or that
//!   nests too deep, is answered with a -32600 error that says so in
//!   words, and with the request's own id exactly when its top-level
//!   object names `method` and names `id` once, with a string or number
//!   (else `null`): the app is never left waiting for an answer;
//! - a line both parse, with no key twice and within the limit, is never
//!   refused for either reason (the refusal is no wider than it says).
//!
//! The bridge refuses every key written twice, also the rarer case where
//! both values are the same and a first-wins and a last-wins reader would
//! agree: a strict reader (serde into a struct) refuses those too, and no
//! app needs to write one.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

/// The tool the bridge is told to hide; a call to it must never pass.
pub const HIDDEN_TOOL: &str = "write_file";

/// What the bridge wrote for one app line.
#[derive(Debug, Default)]
pub struct Routed {
    pub to_server: Vec<String>,
    pub to_app: Vec<String>,
}

/// A fresh bridge, initialized, with [`HIDDEN_TOOL`] hidden, routing one
/// line the app wrote.
pub trait Bridge {
    fn route(&mut self, line: &str) -> Routed;
    /// The deepest nesting the bridge passes on.
    fn max_depth(&self) -> usize;
}

const NODE: &str = r#"
const rl = require('readline').createInterface({input: process.stdin});
const piece = v => { try { return v === undefined ? null : JSON.stringify(v); } catch (e) { return '"?"'; } };
rl.on('line', l => {
  const text = JSON.parse(l);
  let out;
  try {
    const v = JSON.parse(text);
    const o = (v && typeof v === 'object' && !Array.isArray(v)) ? v : {};
    const p = (o.params && typeof o.params === 'object') ? o.params : {};
    out = {ok: true, id: piece(o.id), method: piece(o.method), params: piece(o.params),
           name: piece(p.name)};
  } catch (e) {
    out = {ok: false};
  }
  process.stdout.write(JSON.stringify(out) + '\n');
});
"#;

const PYTHON: &str = r#"
import json, sys
def depth(v):
    most, stack = 0, [(v, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            most = max(most, d)
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return most
def piece(o, k):
    return json.dumps(o[k]) if isinstance(o, dict) and k in o else None
for line in sys.stdin:
    text = json.loads(line)
    seen = {"dup": False, "disagree": False, "last": None}
    def hook(pairs):
        # Called for every object, innermost first: the last call is the
        # top-level object's.
        seen["last"] = pairs
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            seen["dup"] = True
            first = {}
            for k, v in pairs:
                first.setdefault(k, v)
            if first != dict(pairs):
                seen["disagree"] = True
        return dict(pairs)
    try:
        v = json.loads(text, object_pairs_hook=hook)
        ok, deep = True, False
    except RecursionError:
        ok, deep = False, True
    except ValueError:
        ok, deep = False, False
    out = {"ok": ok, "deep": deep}
    if ok:
        top = seen["last"] if isinstance(v, dict) else []
        p = v.get("params") if isinstance(v, dict) else None
        out.update(dup=seen["dup"], disagree=seen["disagree"], depth=depth(v),
                   ids=sum(1 for k, _ in top if k == "id"),
                   methods=sum(1 for k, _ in top if k == "method"),
                   id=piece(v, "id"), method=piece(v, "method"), params=piece(v, "params"),
                   name=piece(p, "name"))
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()
"#;

/// One oracle process, asked one line at a time.
struct Oracle {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Oracle {
    fn start(program: &str, args: &[&str]) -> Oracle {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("the oracle {program} must be installed to compare: {e}"));
        let input = child.stdin.take().expect("its stdin");
        let output = BufReader::new(child.stdout.take().expect("its stdout"));
        Oracle {
            child,
            input,
            output,
        }
    }

    fn ask(&mut self, text: &str) -> Value {
        let mut line = Value::String(text.to_owned()).to_string();
        line.push('\n');
        self.input
            .write_all(line.as_bytes())
            .and_then(|()| self.input.flush())
            .expect("the oracle takes a line");
        let mut answer = String::new();
        self.output
            .read_line(&mut answer)
            .expect("the oracle answers");
        serde_json::from_str(&answer)
            .unwrap_or_else(|e| panic!("the oracle's answer {answer:?} is not JSON: {e}"))
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Node's `JSON.parse` and Python's `json.loads`, one process each.
pub struct Oracles {
    node: Oracle,
    python: Oracle,
}

impl Oracles {
    pub fn start() -> Oracles {
        Oracles {
            node: Oracle::start("node", &["-e", NODE]),
            python: Oracle::start("python3", &["-c", PYTHON]),
        }
    }

    /// Checks the bridge's routing of `line` against both oracles; the
    /// panic says what went wrong.
    pub fn check(&mut self, bridge: &mut dyn Bridge, line: &str) {
        let routed = bridge.route(line);
        let node = self.node.ask(line);
        let python = self.python.ask(line);
        let both_parse = node["ok"] == true && python["ok"] == true;
        let deep = python["deep"] == true
            || python["depth"].as_u64().unwrap_or(0) > bridge.max_depth() as u64;
        let twice = python["dup"] == true;
        let refusal = routed.to_app.iter().find_map(|l| one_reading_refusal(l));

        if !routed.to_server.is_empty() {
            assert!(
                both_parse,
                "passed on what a server cannot parse: {line:?} {node} {python}"
            );
            assert!(!twice, "passed on a key written twice: {line:?}");
            assert!(!deep, "passed on nesting past the limit: {line:?}");
            if node["method"] == json!("\"tools/call\"") {
                assert_ne!(
                    node["name"],
                    json!(Value::String(HIDDEN_TOOL.into()).to_string()),
                    "a call to the hidden tool passed: {line:?} {routed:?}"
                );
            }
            for sent in &routed.to_server {
                let server_node = self.node.ask(sent);
                let server_python = self.python.ask(sent);
                for (oracle, original, forwarded) in [
                    ("node", &node, &server_node),
                    ("python", &python, &server_python),
                ] {
                    for piece in ["method", "params"] {
                        assert_eq!(
                            original[piece], forwarded[piece],
                            "{oracle} reads {piece} apart in the app's line {line:?} and \
                             what the server got {sent:?}"
                        );
                    }
                }
            }
        }
        if both_parse && (twice || deep) {
            let Some((answer, message)) = &refusal else {
                panic!(
                    "a line read two ways, or too deep, was not refused in words: \
                     {line:?} -> {routed:?}"
                );
            };
            let readable = python["ids"] == 1
                && python["methods"].as_u64().unwrap_or(0) > 0
                && (python["id"].as_str().is_some_and(|id| {
                    id.starts_with(['"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
                }));
            // Both ids as Python reads them (an id of 97 digits stays
            // exact, as the bridge passes it back as written).
            let expected = if readable {
                python["id"].clone()
            } else {
                json!("null")
            };
            let answered = self.python.ask(answer)["id"].clone();
            assert_eq!(
                answered, expected,
                "answered under the wrong id: {line:?} ({message})"
            );
        }
        if both_parse && !twice && !deep {
            assert!(
                refusal.is_none(),
                "refused a line every reader reads one way: {line:?} -> {routed:?}"
            );
        }
    }
}

/// The answer line and words of a one-reading refusal the app got, if
/// `line` is one.
fn one_reading_refusal(line: &str) -> Option<(String, String)> {
    let v: Value = serde_json::from_str(line).ok()?;
    let message = v["error"]["message"].as_str()?;
    let ours = v["error"]["code"] == -32600
        && (message.contains("is written twice") || message.contains("levels deep"));
    ours.then(|| (line.to_owned(), message.to_owned()))
}
