//! The webview as an attacker: a test that calls every command listed in
//! `build.rs` (`COMMANDS`) through Tauri's real IPC layer, with the app's own
//! invoke handler, state, capability file and context (built by
//! `rootgate::app` and `rootgate::context` on Tauri's mock runtime), and
//! hostile arguments: `..` segments, `file://` URIs, a symlink loop, NUL
//! bytes, 100 KB strings, other users' folders, ids that name nothing (or
//! almost a real one), numbers, objects and arrays where strings are
//! expected, missing and extra fields, whole bodies of the wrong shape, and
//! answers to a consent prompt for a folder that was never picked.
//!
//! After every single call it checks that the call either failed with a
//! clear `{code, message}` or succeeded in a way that command may legitimately
//! succeed (a rename to an odd but valid name, a list that ignores an extra
//! field), and that the store, read back through the core, holds exactly the
//! folders, grants and servers it held before. Commands that may succeed
//! and change something (a rename, a server edit) are undone through the
//! core right after, so that every later call starts from the same state.
//!
//! What this does not cover: the GTK folder dialog (the tests answer "Add
//! folder…" from a picks file, `rootgate::E2ePicks`, which the library has
//! with the `test-picker` feature), what a person can do with the UI, and a
//! webview that passes valid arguments (that is the person's own say).
//! Only tests live here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rootgate_core::consent::Grant;
use rootgate_core::folders;
use rootgate_core::ids::{RootId, ServerId};
use rootgate_core::roots::Root;
use rootgate_core::servers::{ServerDraft, ServerSpec};
use rootgate_core::settings::SettingsFile;
use rootgate_core::store::Store;
use rootgate_core::supervisor::{PromptId, Supervisor};
use serde_json::{Value, json};
use tauri::Manager;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder};
use tauri::webview::InvokeRequest;

use crate::permissions::declared_commands;

/// The codes a command error may carry (`ErrorCode`, camelCase).
const CODES: &[&str] = &[
    "folder",
    "notFound",
    "invalid",
    "needsApproval",
    "stale",
    "settings",
    "server",
    "picker",
    "appConfig",
    "keyring",
    "missingSecret",
    "cancelled",
];

/// Where a secret may be kept, as the webview names it.
const PLACES: &[&str] = &["keyring", "file", "notStored", "fileUntilKeyring"];

/// The secret variable of the seeded server, and its value.
const SECRET: &str = "API_TOKEN";
const SECRET_VALUE: &str = "sk-hostile-test";

/// The longest name a folder or a server may have (the core's limit).
const MAX_NAME_CHARS: usize = 255;

/// What a command's argument is, so the test knows which values are of the
/// wrong shape (and must be refused as `invalid`, naming the argument).
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Str,
    OptStr,
    U64,
    OptU64,
    StrList,
    Draft,
    /// An AI app's id (`claude-desktop`, `zed`, …).
    App,
    /// Where in an app's file an entry is: `{"kind": "global"}` or
    /// `{"kind": "project", "path": "…"}`.
    Scope,
    /// An object of strings: the values an import fills in.
    StrMap,
    /// Where a secret is kept (`keyring`, `file`, …).
    Place,
    /// Any JSON object: a tool's arguments, data for the server.
    Object,
    /// true or false: pause, Start at login.
    Bool,
    /// An answer to a question (`share`, `notNow`).
    Answer,
}

/// The apps' ids, as the webview names them.
const APP_IDS: &[&str] = &[
    "claude-desktop",
    "claude-code",
    "cursor",
    "vscode",
    "zed",
    "goose",
];

impl Kind {
    fn fits(self, v: &Value) -> bool {
        match self {
            Kind::Str => v.is_string(),
            Kind::OptStr => v.is_string() || v.is_null(),
            Kind::U64 => v.is_u64(),
            Kind::OptU64 => v.is_u64() || v.is_null(),
            Kind::StrList => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
            // Whether an object is a valid draft is the core's business; a
            // non-object is certainly the wrong shape.
            Kind::Draft => v.is_object(),
            Kind::App => v.as_str().is_some_and(|s| APP_IDS.contains(&s)),
            Kind::Scope => match v["kind"].as_str() {
                Some("global") => v.as_object().is_some_and(|o| o.len() == 1),
                Some("project") => v["path"].is_string(),
                _ => false,
            },
            Kind::StrMap => v
                .as_object()
                .is_some_and(|o| o.values().all(Value::is_string)),
            Kind::Place => v.as_str().is_some_and(|s| PLACES.contains(&s)),
            Kind::Object => v.is_object(),
            Kind::Bool => v.is_boolean(),
            Kind::Answer => v.as_str().is_some_and(|s| ["share", "notNow"].contains(&s)),
        }
    }
}

/// What a successful call returned, judged by the command's own rule.
type Verdict = Result<(), String>;

/// One command: its arguments and the starting points for hostile calls.
struct Command {
    name: &'static str,
    args: Vec<(&'static str, Kind)>,
    /// Argument sets each hostile call starts from (one argument replaced,
    /// one removed, or fields added). For commands that change something
    /// they name at least one thing that does not exist, so that a call
    /// succeeds only if the command wrongly accepts the hostile part.
    bases: Vec<Value>,
    /// Decides whether a success is legitimate for these arguments, and
    /// undoes its effect through the core.
    on_success: fn(&Harness, &Value, &Value) -> Verdict,
}

/// The running app on the mock runtime, with its seeded state.
/// The registry the harness's settings name: this machine's discard
/// port, where nothing listens.
const LOCAL_REGISTRY: &str = "http://127.0.0.1:9";

struct Harness {
    _dir: tempfile::TempDir,
    app: tauri::App<MockRuntime>,
    webview: tauri::WebviewWindow<MockRuntime>,
    sup: Arc<Supervisor>,
    picks: PathBuf,
    root: RootId,
    root_name: String,
    server: ServerId,
    server_spec: ServerSpec,
    other_server: ServerId,
    /// A consent prompt for a folder the person did pick, left open through
    /// the whole battery: hostile answers to it must share nothing.
    picked_prompt: u64,
    picked_path: PathBuf,
    symlink_loop: PathBuf,
    baseline: Baseline,
}

/// What the store held before the battery, compared after every call.
#[derive(Debug, PartialEq)]
struct Baseline {
    roots: Vec<Root>,
    grants: Vec<Grant>,
    servers: Vec<ServerSpec>,
    prompts: Vec<PromptId>,
}

impl Harness {
    fn start() -> Harness {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let shared = base.join("shared");
        let kept = base.join("kept");
        let picked = base.join("picked");
        for d in [&shared, &kept, &picked] {
            std::fs::create_dir(d).unwrap();
        }
        let symlink_loop = base.join("loop");
        std::os::unix::fs::symlink(&symlink_loop, &symlink_loop).unwrap();
        let settings = base.join("config/rootgate/settings.json");

        // The state the person built before the attack: two folders, two
        // servers (neither approved, so nothing runs) and one grant.
        let (server, other_server, root) = {
            let (store, recovery) = Store::open(SettingsFile::at(&settings)).unwrap();
            assert!(recovery.is_none());
            let server = store
                .add_server(ServerDraft {
                    name: "Files".into(),
                    command: "/bin/true".into(),
                    args: vec!["--serve".into()],
                    // A secret, for the commands that reveal or keep one.
                    env: [(SECRET.to_owned(), SECRET_VALUE.to_owned())].into(),
                    ..ServerDraft::default()
                })
                .unwrap();
            let other = store
                .add_server(ServerDraft {
                    name: "Other".into(),
                    command: "/bin/true".into(),
                    ..ServerDraft::default()
                })
                .unwrap();
            let root = store
                .add_root(&folders::check(&shared).unwrap(), Some("Shared".into()))
                .unwrap()
                .root;
            store
                .add_root(&folders::check(&kept).unwrap(), None)
                .unwrap();
            store.grant(&server.id, &root.id).unwrap();
            // The registry is this machine's closed discard port: a search
            // is refused at once, never sent over the network.
            store
                .change_preferences(|p| p.registry = Some(LOCAL_REGISTRY.into()))
                .unwrap();
            (server.id, other.id, root.id)
        };

        let launch = rootgate::Launch {
            settings: SettingsFile::at(&settings),
            // Folders on the command line come from the person; ones that
            // cannot be shared become notices, never prompts.
            folders: vec![
                symlink_loop.clone(),
                PathBuf::from("/etc/shadow"),
                PathBuf::from("/home/other/projects"),
            ],
            example_command: "/bin/true".into(),
            #[cfg(feature = "e2e-picker")]
            e2e_picks: None,
        };
        let mut app = rootgate::app(mock_builder(), launch)
            .build(rootgate::context())
            .unwrap();
        // One iteration of the (mock) event loop runs `setup`: the window of
        // tauri.conf.json is created and the app's state is managed.
        #[allow(deprecated)]
        app.run_iteration(|_, _| {});
        let picks = base.join("picks.txt");
        std::fs::write(&picks, "").unwrap();
        app.manage(rootgate::E2ePicks(picks.clone()));
        let webview = app.get_webview_window("main").unwrap();
        let sup = app.state::<Arc<Supervisor>>().inner().clone();
        let server_spec = sup.store().server(&server).unwrap();
        let root_name = sup.folders().list()[0].root.name.clone();
        let mut h = Harness {
            _dir: dir,
            app,
            webview,
            sup,
            picks,
            root,
            root_name,
            server,
            server_spec,
            other_server,
            picked_prompt: 0,
            picked_path: picked.clone(),
            symlink_loop,
            baseline: Baseline {
                roots: vec![],
                grants: vec![],
                servers: vec![],
                prompts: vec![],
            },
        };
        // The person picks one folder; its prompt stays open.
        std::fs::write(&h.picks, format!("{}\n", picked.display())).unwrap();
        let prompts = h.call("pick_folders", json!({})).unwrap();
        assert_eq!(prompts.as_array().unwrap().len(), 1, "{prompts}");
        assert_eq!(prompts[0]["realPath"], json!(picked));
        h.picked_prompt = prompts[0]["id"].as_u64().unwrap();
        h.baseline = h.now();
        assert_eq!(h.baseline.roots.len(), 2);
        assert_eq!(h.baseline.grants.len(), 1);
        assert_eq!(h.baseline.servers.len(), 2);
        assert_eq!(h.baseline.prompts, vec![PromptId::from(h.picked_prompt)]);
        h
    }

    fn now(&self) -> Baseline {
        let s = self.sup.store().snapshot();
        Baseline {
            roots: s.roots,
            grants: s.grants,
            servers: s.servers,
            prompts: self
                .sup
                .consent()
                .open_prompts()
                .iter()
                .map(|p| p.id)
                .collect(),
        }
    }

    fn request(&self, cmd: &str, body: InvokeBody, url: &str) -> Result<Value, Value> {
        get_ipc_response(
            &self.webview,
            InvokeRequest {
                cmd: cmd.into(),
                callback: CallbackFn(0),
                error: CallbackFn(1),
                url: url.parse().unwrap(),
                body,
                headers: Default::default(),
                invoke_key: INVOKE_KEY.to_string(),
            },
        )
        .map(|b| b.deserialize::<Value>().unwrap())
    }

    /// Calls a command as the app's own page does.
    fn call(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        self.request(cmd, InvokeBody::Json(args), "tauri://localhost")
    }

    /// The seeded server as a draft, its secret's value in it: an edit
    /// that dropped the secret is undone with its value.
    fn original_draft(&self) -> ServerDraft {
        let mut draft = self.server_spec.to_draft();
        draft.env.insert(SECRET.into(), SECRET_VALUE.into());
        draft
    }

    fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        tauri::async_runtime::block_on(f)
    }
}

/// Strings no argument should turn into a folder, a grant or a match.
fn hostile_strings(h: &Harness) -> Vec<String> {
    let mut s: Vec<String> = [
        "..",
        "../../../../etc/passwd",
        "root-0/../root-1",
        "./",
        "file:///etc",
        "file:///root",
        "file://localhost/home/other",
        "file:///tmp/%2e%2e/etc",
        "/root",
        "/home/other",
        "/etc/shadow",
        "~root",
        "~/.ssh",
        "\0",
        "a\0b",
        "",
        "   ",
        "\n",
        "\u{202e}gnp.exe",
        "ｒｏｏｔ",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    s.push(h.symlink_loop.display().to_string());
    s.push(format!("{}/a/b", h.symlink_loop.display()));
    s.push(format!("file://{}", h.picked_path.display()));
    s.push(h.picked_path.display().to_string());
    s.push("a".repeat(100 * 1024));
    s.push("../".repeat(34 * 1024));
    s.push(format!("{}\0", h.root));
    // Near misses of the real ids: none may match.
    for id in [h.root.as_str(), h.server.as_str()] {
        s.push(id.to_uppercase());
        s.push(format!(" {id}"));
        s.push(format!("{id} "));
        s.push(format!("{id}/"));
        s.push(format!("{id}/.."));
        s.push(format!("../{id}"));
        s.push(id[..id.len() - 1].to_owned());
        s.push(format!("{id}\0"));
    }
    s
}

/// Values of the wrong shape for most arguments.
fn hostile_values() -> Vec<Value> {
    vec![
        json!(0),
        json!(-1),
        json!(1.5),
        json!(1e300),
        json!(18446744073709551616.0),
        json!(true),
        Value::Null,
        json!([]),
        json!(["/root"]),
        json!([["/etc"]]),
        json!({}),
        json!({"path": "/etc/shadow"}),
        json!({"uri": "file:///root"}),
    ]
}

/// Fields a hostile page might add, hoping one of them is read.
fn extra_fields(h: &Harness) -> Value {
    json!({
        "path": "/root",
        "paths": ["/etc", "/home/other"],
        "folder": "file:///root",
        "realPath": "/etc",
        "chosenPath": "/root",
        "uri": "file:///home/other",
        "roots": [{"uri": "file:///etc", "name": "etc"}],
        "grants": [{"server": h.server, "root": "root-etc", "realPath": "/etc"}],
        "approvedCommand": "/bin/true --serve",
        "approved": true,
        "servers2": [h.server],
        "__proto__": {"admin": true},
    })
}

/// A value as JSON, cut to `n` characters, for messages.
fn short(v: &Value, n: usize) -> String {
    let text = v.to_string();
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}… ({} characters)", &text[..at], text.chars().count()),
        None => text,
    }
}

fn is_valid_name(v: &Value) -> bool {
    v.as_str().is_some_and(|n| {
        let t = n.trim();
        !t.is_empty()
            && t.chars().count() <= MAX_NAME_CHARS
            && !t.chars().any(char::is_control)
            && !t.chars().any(rootgate_model::names::reorders)
    })
}

/// Drafts whose fields are hostile; some are odd but valid.
///
/// Each odd but valid draft costs two saves of the settings file (the
/// change and its undo), so CI runs a sample: every draft with a NUL byte,
/// a line break or a 100 KB string (most of which must be refused), the one
/// that claims an approval, and every fifth of the others. `ROOTGATE_HOSTILE_ALL=1` runs them all
/// (about 4 times as long).
fn hostile_drafts(h: &Harness) -> Vec<Value> {
    let all = std::env::var_os("ROOTGATE_HOSTILE_ALL").is_some_and(|v| v == "1");
    hostile_drafts_all(h)
        .into_iter()
        .enumerate()
        .filter(|(i, d)| {
            let text = d.to_string();
            all || i % 5 == 0
                || text.contains("\\u0000")
                || text.contains("\\n")
                || text.len() > 10_000
                || d.get("approvedCommand").is_some()
        })
        .map(|(_, d)| d)
        .collect()
}

fn hostile_drafts_all(h: &Harness) -> Vec<Value> {
    let good = json!({"name": "Another", "command": "/bin/true"});
    let with = |k: &str, v: Value| {
        let mut d = good.clone();
        d[k] = v;
        d
    };
    let mut out = vec![];
    for s in hostile_strings(h) {
        out.push(with("name", json!(s)));
        out.push(with("command", json!(s)));
        out.push(with("args", json!([s])));
        out.push(with("cwd", json!(s)));
        out.push(with(
            "env",
            Value::Object([(s.clone(), json!("x"))].into_iter().collect()),
        ));
        out.push(with("env", json!({ "VALUE": s })));
    }
    for v in hostile_values() {
        for k in [
            "name",
            "command",
            "args",
            "env",
            "cwd",
            "enabled",
            "withdrawal",
            "secretEnv",
        ] {
            out.push(with(k, v.clone()));
        }
    }
    out.push(with(
        "cwd",
        json!(format!("{}\0/x", h.picked_path.display())),
    ));
    out.push(with("withdrawal", json!("never")));
    out.push(with("name", json!("files")));
    let mut extra = good.clone();
    for (k, v) in extra_fields(h).as_object().unwrap() {
        extra[k] = v.clone();
    }
    extra["id"] = json!(h.server);
    extra["enabled"] = json!(true);
    extra["approvedCommand"] = json!("/bin/true");
    out.push(extra);
    out
}

/// Whether a server that a call created or changed is one a draft may
/// legitimately produce: a valid name, no NUL anywhere, an absolute working
/// directory, and not approved (a page cannot approve by sending a field).
fn check_server_view(view: &Value, draft: &Value) -> Verdict {
    if !is_valid_name(&view["name"]) {
        return Err(format!(
            "a server was saved with the name {}",
            short(&view["name"], 80)
        ));
    }
    if view["approved"] != json!(false) || !view["approvedCommand"].is_null() {
        return Err(format!(
            "a draft made an approved server: {}",
            short(view, 300)
        ));
    }
    if view.to_string().contains(SECRET_VALUE) {
        return Err("a server's view held a secret's value".into());
    }
    if view.to_string().contains("\\u0000") {
        return Err("a server was saved with a NUL byte".into());
    }
    if let Some(cwd) = view["cwd"].as_str()
        && !Path::new(cwd).is_absolute()
    {
        return Err(format!("a relative working directory was saved: {cwd:.80}"));
    }
    if draft.get("cwd").is_some_and(|c| !c.is_null()) && view["cwd"] != draft["cwd"] {
        return Err("the working directory was changed on the way".into());
    }
    Ok(())
}

fn never(_: &Harness, args: &Value, out: &Value) -> Verdict {
    Err(format!(
        "succeeded with {} and returned {}",
        short(args, 300),
        short(out, 300)
    ))
}

/// A command that answers nothing on success.
fn returns_nothing(_: &Harness, _: &Value, out: &Value) -> Verdict {
    if out.is_null() {
        Ok(())
    } else {
        Err(format!("returned {}", short(out, 300)))
    }
}

/// Commands without arguments ignore whatever they are sent: the answer is
/// the same as without it.
fn same_as_plain(cmd: &'static str) -> fn(&Harness, &Value, &Value) -> Verdict {
    fn check(h: &Harness, cmd: &str, out: &Value) -> Verdict {
        let plain = h
            .call(cmd, json!({}))
            .map_err(|e| format!("plain call failed: {e}"))?;
        if &plain == out {
            Ok(())
        } else {
            Err(format!(
                "answered {} instead of {}",
                short(out, 300),
                short(&plain, 300)
            ))
        }
    }
    match cmd {
        "app_info" => |h, _, out| check(h, "app_info", out),
        "list_folders" => |h, _, out| check(h, "list_folders", out),
        "list_servers" => |h, _, out| check(h, "list_servers", out),
        "open_prompts" => |h, _, out| check(h, "open_prompts", out),
        "activity" => |h, _, out| check(h, "activity", out),
        "templates" => |h, _, out| check(h, "templates", out),
        "window_shown" => |h, _, out| check(h, "window_shown", out),
        "list_connections" => |h, _, out| check(h, "list_connections", out),
        "list_questions" => |h, _, out| check(h, "list_questions", out),
        "tool_questions" => |h, _, out| check(h, "tool_questions", out),
        "list_apps" => |h, _, out| check(h, "list_apps", out),
        "preferences" => |h, _, out| check(h, "preferences", out),
        "dismiss_start_at_login" => |h, _, out| check(h, "dismiss_start_at_login", out),
        _ => unreachable!("{cmd}"),
    }
}

fn commands(h: &Harness) -> Vec<Command> {
    let root = json!(h.root);
    let server = json!(h.server);
    let no_args = |name| Command {
        name,
        args: vec![],
        bases: vec![json!({})],
        on_success: same_as_plain(name),
    };
    vec![
        no_args("app_info"),
        no_args("list_folders"),
        no_args("list_servers"),
        no_args("open_prompts"),
        no_args("activity"),
        no_args("templates"),
        // Starts the enabled, approved servers once; whatever is sent, it
        // answers nothing and changes no folder, grant or server.
        no_args("window_shown"),
        // The Settings view; putting the Start at login offer away changes
        // no folder, grant or server.
        no_args("preferences"),
        no_args("dismiss_start_at_login"),
        Command {
            name: "set_sharing_paused",
            args: vec![("paused", Kind::Bool)],
            // Resuming what is not paused. A pause (`true` is among the
            // hostile values) keeps every grant; the battery undoes it, to
            // leave the app as it found it.
            bases: vec![json!({"paused": false})],
            on_success: |h, args, out| {
                if args["paused"] == json!(true) {
                    h.sup
                        .preferences()
                        .set_sharing_paused(false)
                        .map_err(|e| e.to_string())?;
                }
                returns_nothing(h, args, out)
            },
        },
        Command {
            name: "set_registry",
            args: vec![("address", Kind::Str)],
            bases: vec![json!({"address": LOCAL_REGISTRY})],
            // Only an HTTPS address, or HTTP to this machine, is kept; the
            // battery then puts the local one back, so no search leaves it.
            on_success: |h, args, out| {
                let kept = h
                    .sup
                    .preferences()
                    .view(std::path::Path::new("/usr/bin/rootgate-desktop"))
                    .map_err(|e| e.to_string())?
                    .registry;
                h.sup
                    .preferences()
                    .set_registry(Some(LOCAL_REGISTRY))
                    .map_err(|e| e.to_string())?;
                let local = ["http://127.0.0.1", "http://localhost", "http://[::1]"];
                match kept.as_deref() {
                    Some(k)
                        if !k.starts_with("https://")
                            && !local.iter().any(|l| k.starts_with(l)) =>
                    {
                        Err(format!("kept {k} from {}", short(&args["address"], 100)))
                    }
                    _ => returns_nothing(h, args, out),
                }
            },
        },
        Command {
            name: "set_unused_server_minutes",
            args: vec![("minutes", Kind::U64)],
            bases: vec![json!({"minutes": 10})],
            // Only a count of minutes up to a day is kept (the hostile
            // values include far more, and what is not a u32 is refused as
            // an argument); the battery puts the default back.
            on_success: |h, args, out| {
                let kept = h
                    .sup
                    .preferences()
                    .view(std::path::Path::new("/usr/bin/rootgate-desktop"))
                    .map_err(|e| e.to_string())?
                    .unused_server_minutes;
                h.sup
                    .preferences()
                    .set_unused_server_minutes(10)
                    .map_err(|e| e.to_string())?;
                if kept > 24 * 60 {
                    return Err(format!(
                        "kept {kept} minutes from {}",
                        short(&args["minutes"], 100)
                    ));
                }
                returns_nothing(h, args, out)
            },
        },
        Command {
            name: "registry_search",
            args: vec![("words", Kind::Str)],
            bases: vec![json!({"words": "files"})],
            // The registry is not there: an answer can only come from the
            // cache, as a list of servers.
            on_success: |_, _, out| {
                if out["servers"].is_array() {
                    Ok(())
                } else {
                    Err(format!("returned {}", short(out, 300)))
                }
            },
        },
        Command {
            name: "registry_offer",
            args: vec![
                ("name", Kind::Str),
                ("version", Kind::Str),
                ("package", Kind::U64),
            ],
            bases: vec![
                json!({"name": "io.github.example/none", "version": "1.0.0", "package": 0}),
            ],
            on_success: never,
        },
        Command {
            name: "set_notify_choices",
            args: vec![("choices", Kind::Object)],
            // Any object is choices (a missing one keeps its default); a
            // choice of the wrong type is refused.
            bases: vec![json!({"choices": {"serverFailed": true}})],
            on_success: returns_nothing,
        },
        Command {
            name: "set_start_at_login",
            args: vec![("on", Kind::Bool)],
            // Off, in the test's own configuration folder: the entry it
            // would remove is not there. No path is taken from the page:
            // turned on (`true` is among the hostile values), the entry
            // names the running program, and the battery turns it off.
            bases: vec![json!({"on": false})],
            on_success: |h, args, out| {
                let on = args["on"] == json!(true);
                if out["on"] != json!(on) {
                    return Err(format!("answered {}", short(out, 300)));
                }
                if on {
                    let program = std::env::current_exe().map_err(|e| e.to_string())?;
                    if !out["path"]
                        .as_str()
                        .is_some_and(|p| p.ends_with("autostart/rootgate.desktop"))
                    {
                        return Err(format!("wrote elsewhere: {}", short(out, 300)));
                    }
                    h.sup
                        .preferences()
                        .set_start_at_login(false, &program)
                        .map_err(|e| e.to_string())?;
                }
                Ok(())
            },
        },
        Command {
            name: "pick_folders",
            args: vec![],
            bases: vec![json!({})],
            // The picks file is empty: a cancelled picker. Whatever the page
            // sends, no prompt may come of it.
            on_success: |_, _, out| {
                if out == &json!([]) {
                    Ok(())
                } else {
                    Err(format!("arguments made prompts: {}", short(out, 300)))
                }
            },
        },
        Command {
            name: "answer_prompt",
            args: vec![
                ("prompt", Kind::U64),
                ("servers", Kind::StrList),
                ("name", Kind::OptStr),
            ],
            bases: vec![
                // A prompt that was never opened, with a real server.
                json!({"prompt": 424_242, "servers": [server], "name": null}),
                // The picked folder's prompt, with a server that does not exist.
                json!({"prompt": h.picked_prompt, "servers": ["srv-0000000000000000"], "name": null}),
            ],
            on_success: never,
        },
        Command {
            name: "cancel_prompt",
            args: vec![("prompt", Kind::U64)],
            bases: vec![json!({"prompt": 424_242})],
            // Closing a prompt that is not open does nothing, and says so by
            // succeeding; the picked prompt staying open is checked after
            // every call.
            on_success: |_, _, out| {
                if out.is_null() {
                    Ok(())
                } else {
                    Err(format!("returned {}", short(out, 300)))
                }
            },
        },
        Command {
            name: "change_access",
            args: vec![("root", Kind::Str)],
            bases: vec![
                json!({"root": "root-0000000000000000"}),
                json!({"root": root}),
            ],
            // Only the real root may open a prompt, and only for its own path;
            // the prompt is closed again at once.
            on_success: |h, args, out| {
                let kept = h.sup.folders().list();
                let real = kept
                    .iter()
                    .find(|f| f.root.id == h.root)
                    .map(|f| f.root.real_path.clone());
                let id = out["id"].as_u64();
                if let Some(id) = id {
                    h.sup.consent().cancel_prompt(PromptId::from(id));
                }
                if args["root"] != json!(h.root) {
                    return Err(format!("opened a prompt: {}", short(out, 300)));
                }
                if out["realPath"] != json!(real) || out["root"] != json!(h.root) {
                    return Err(format!(
                        "opened a prompt for something else: {}",
                        short(out, 300)
                    ));
                }
                Ok(())
            },
        },
        Command {
            name: "rename_folder",
            args: vec![("root", Kind::Str), ("name", Kind::Str)],
            bases: vec![
                json!({"root": "root-0000000000000000", "name": "Renamed"}),
                json!({"root": root, "name": "\0"}),
            ],
            on_success: |h, args, out| {
                let undo = h.sup.folders().rename_folder(&h.root, &h.root_name);
                if args["root"] != json!(h.root) {
                    return Err(format!("renamed something: {}", short(out, 300)));
                }
                if !is_valid_name(&args["name"]) {
                    return Err(format!("accepted the name {}", short(&args["name"], 80)));
                }
                if out["name"] != json!(args["name"].as_str().unwrap_or_default().trim()) {
                    return Err(format!("renamed to something else: {}", short(out, 300)));
                }
                undo.map(|_| ()).map_err(|e| format!("could not undo: {e}"))
            },
        },
        Command {
            name: "remove_folder",
            args: vec![("root", Kind::Str)],
            bases: vec![json!({"root": "root-0000000000000000"})],
            on_success: never,
        },
        Command {
            name: "revoke",
            args: vec![("server", Kind::Str), ("root", Kind::Str)],
            bases: vec![
                json!({"server": server, "root": "root-0000000000000000"}),
                json!({"server": "srv-0000000000000000", "root": root}),
            ],
            on_success: never,
        },
        Command {
            name: "add_server",
            args: vec![("draft", Kind::Draft)],
            // A draft whose name is taken: refused unless the hostile part
            // is what got through.
            bases: vec![json!({"draft": {"name": "Files", "command": "/bin/true"}})],
            on_success: |h, args, out| {
                let id = out["id"].as_str().map(ServerId::from_string);
                let undo = id.map(|id| h.block_on(h.sup.servers().remove_server(&id)));
                check_server_view(out, &args["draft"])?;
                match undo {
                    Some(Ok(())) => Ok(()),
                    Some(Err(e)) => Err(format!("could not undo: {e}")),
                    None => Err(format!("returned no server: {}", short(out, 300))),
                }
            },
        },
        Command {
            name: "update_server",
            args: vec![("id", Kind::Str), ("draft", Kind::Draft)],
            bases: vec![
                json!({"id": "srv-0000000000000000", "draft": {"name": "Renamed", "command": "/bin/true"}}),
                // The real server, renamed to the other server's name.
                json!({"id": server, "draft": {"name": "other", "command": "/bin/true"}}),
            ],
            on_success: |h, args, out| {
                let undo = h.block_on(h.sup.servers().update_server(&h.server, h.original_draft()));
                if args["id"] != json!(h.server) {
                    return Err(format!("changed a server: {}", short(out, 300)));
                }
                check_server_view(out, &args["draft"])?;
                undo.map(|_| ()).map_err(|e| format!("could not undo: {e}"))
            },
        },
        Command {
            name: "remove_server",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": "srv-0000000000000000"})],
            on_success: never,
        },
        Command {
            name: "approve_command",
            args: vec![("id", Kind::Str), ("commandLine", Kind::Str)],
            bases: vec![
                json!({"id": server, "commandLine": "/bin/sh -c 'cat /etc/shadow'"}),
                json!({"id": "srv-0000000000000000", "commandLine": "/bin/true --serve"}),
            ],
            on_success: never,
        },
        Command {
            name: "start_server",
            args: vec![("id", Kind::Str)],
            // Not approved: refused even for the real server.
            bases: vec![json!({"id": server})],
            on_success: never,
        },
        Command {
            name: "restart_server",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": server})],
            on_success: never,
        },
        Command {
            name: "stop_server",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": server})],
            // Stopping a real (stopped) server is harmless.
            on_success: |h, args, out| {
                if args["id"] == json!(h.server) && out.is_null() {
                    Ok(())
                } else {
                    Err(format!("stopped {}", short(&args["id"], 100)))
                }
            },
        },
        Command {
            name: "server_timeline",
            args: vec![
                ("id", Kind::Str),
                ("before", Kind::OptU64),
                ("limit", Kind::U64),
            ],
            bases: vec![
                json!({"id": server, "before": null, "limit": 500}),
                json!({"id": server, "before": 3, "limit": 1}),
            ],
            // A timeline is read-only; a server that does not exist has an
            // empty one.
            on_success: |h, args, out| {
                if args["id"] == json!(h.server) || out["entries"] == json!([]) {
                    Ok(())
                } else {
                    Err(format!(
                        "a timeline for {}: {}",
                        short(&args["id"], 100),
                        short(out, 300)
                    ))
                }
            },
        },
        Command {
            name: "server_folders",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": server})],
            // Read-only; the real server is stopped and holds nothing.
            on_success: |h, args, out| {
                if args["id"] == json!(h.server) && out == &json!([]) {
                    Ok(())
                } else {
                    Err(format!(
                        "folders for {}: {}",
                        short(&args["id"], 100),
                        short(out, 200)
                    ))
                }
            },
        },
        Command {
            name: "forget_following",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": server})],
            // Forgetting what was seen of the real server changes no folder,
            // grant or command.
            on_success: |h, args, _| {
                if args["id"] == json!(h.server) {
                    Ok(())
                } else {
                    Err(format!("forgot for {}", short(&args["id"], 100)))
                }
            },
        },
        Command {
            name: "set_tool_setting",
            args: vec![
                ("id", Kind::Str),
                ("app", Kind::OptStr),
                ("tool", Kind::Str),
                ("setting", Kind::OptStr),
            ],
            bases: vec![
                json!({"id": server, "app": null, "tool": "write_file", "setting": "hidden"}),
                json!({"id": server, "app": "cursor", "tool": "write_file", "setting": "ask"}),
            ],
            // Any name is a tool's (or an app's) name (the server and the
            // app decide what they are called); only the real server takes
            // it. The battery takes the setting away again, so the server
            // is as it found it.
            on_success: |h, args, _| {
                if args["id"] != json!(h.server) {
                    return Err(format!("set a tool of {}", short(&args["id"], 100)));
                }
                let tool = args["tool"].as_str().unwrap_or_default();
                let app = args["app"].as_str();
                h.sup
                    .tools()
                    .set_tool_setting(&h.server, app, tool, None)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            },
        },
        Command {
            name: "set_tool_default",
            args: vec![("id", Kind::Str), ("default", Kind::Str)],
            bases: vec![json!({"id": server, "default": "readOnlyAllowed"})],
            on_success: |h, args, _| {
                if args["id"] != json!(h.server) {
                    return Err(format!("set the default of {}", short(&args["id"], 100)));
                }
                h.sup
                    .tools()
                    .set_tool_default(&h.server, rootgate_core::tools::ToolDefault::AllAllowed)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            },
        },
        Command {
            name: "acknowledge_tool",
            args: vec![("id", Kind::Str), ("tool", Kind::Str)],
            bases: vec![json!({"id": server, "tool": "write_file"})],
            on_success: |h, args, _| {
                if args["id"] == json!(h.server) {
                    Ok(())
                } else {
                    Err(format!("acknowledged for {}", short(&args["id"], 100)))
                }
            },
        },
        no_args("tool_questions"),
        Command {
            name: "answer_tool_question",
            args: vec![
                ("connection", Kind::Str),
                ("key", Kind::Str),
                ("answer", Kind::Str),
            ],
            bases: vec![
                json!({"connection": "conn-0000000000000000", "key": "1", "answer": "once"}),
            ],
            // No call waits in the battery: every answer is refused.
            on_success: |_, args, _| Err(format!("answered {}", short(&args["key"], 100))),
        },
        no_args("list_connections"),
        Command {
            name: "connection_timeline",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": "conn-0000000000000000"})],
            // Read-only; no bridge ever reported here, so nothing is known.
            on_success: |_, args, out| {
                if out == &json!([]) {
                    Ok(())
                } else {
                    Err(format!(
                        "a timeline for {}: {}",
                        short(&args["id"], 100),
                        short(out, 200)
                    ))
                }
            },
        },
        Command {
            name: "suggest_again",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": "conn-0000000000000000"})],
            // No bridge ever reported here: no folder to ask about, and
            // no prompt opened, whatever id is sent.
            on_success: |_, args, out| {
                if out == &json!([]) {
                    Ok(())
                } else {
                    Err(format!(
                        "prompts for {}: {}",
                        short(&args["id"], 100),
                        short(out, 200)
                    ))
                }
            },
        },
        no_args("list_questions"),
        // No question was ever asked here: no number names one, and no
        // answer shares or withdraws anything, whatever is sent.
        Command {
            name: "answer_question",
            args: vec![("id", Kind::U64), ("answer", Kind::Answer)],
            bases: vec![
                json!({"id": 1, "answer": "share"}),
                json!({"id": 0, "answer": "notNow"}),
            ],
            on_success: never,
        },
        // The apps found where this test runs; whatever is sent, the same.
        no_args("list_apps"),
        // No app file here holds these entries (a page names an app, a
        // file by position and an entry, never a path): nothing is
        // imported, planned or written, whatever the page sends.
        Command {
            name: "import_app_server",
            args: vec![
                ("app", Kind::App),
                ("file", Kind::U64),
                ("scope", Kind::Scope),
                ("key", Kind::Str),
                ("values", Kind::StrMap),
                ("existing", Kind::OptStr),
            ],
            bases: vec![
                json!({"app": "claude-desktop", "file": 0, "scope": {"kind": "global"},
                       "key": "no-such-server", "values": {}, "existing": null}),
                json!({"app": "claude-code", "file": 7, "scope": {"kind": "project", "path": "/root"},
                       "key": "files", "values": {"${input:token}": "x"}, "existing": null}),
            ],
            on_success: never,
        },
        Command {
            name: "plan_route",
            args: vec![
                ("app", Kind::App),
                ("file", Kind::U64),
                ("only", Kind::StrList),
            ],
            bases: vec![json!({"app": "goose", "file": 0, "only": []})],
            on_success: never,
        },
        Command {
            name: "plan_unroute",
            args: vec![("app", Kind::App), ("file", Kind::U64)],
            bases: vec![json!({"app": "zed", "file": 0})],
            on_success: never,
        },
        Command {
            name: "apply_plan",
            args: vec![("id", Kind::U64)],
            bases: vec![json!({"id": 1})],
            on_success: never,
        },
        Command {
            name: "drop_plan",
            args: vec![("id", Kind::U64)],
            bases: vec![json!({"id": 1})],
            // Forgetting a plan that is not there does nothing.
            on_success: |_, _, out| {
                if out.is_null() {
                    Ok(())
                } else {
                    Err(format!("returned {}", short(out, 300)))
                }
            },
        },
        Command {
            name: "pick_bundle",
            args: vec![],
            bases: vec![json!({})],
            // The picks file is empty: a cancelled picker. Whatever the page
            // sends, no bundle may be read.
            on_success: |_, _, out| {
                if out.is_null() {
                    Ok(())
                } else {
                    Err(format!("arguments opened a bundle: {}", short(out, 300)))
                }
            },
        },
        Command {
            name: "search_calls",
            args: vec![("query", Kind::Object)],
            bases: vec![json!({"query": {"text": "write", "kind": "refused", "limit": 5}})],
            // The harness's record is empty: whatever is asked, nothing is
            // found, and nothing outside the record is read.
            on_success: |_, _, out| {
                if out["records"] == json!([]) {
                    Ok(())
                } else {
                    Err(format!("found {}", short(out, 300)))
                }
            },
        },
        Command {
            name: "export_calls",
            args: vec![("query", Kind::Object), ("format", Kind::Str)],
            bases: vec![json!({"query": {}, "format": "csv"})],
            // The picks file is empty: a cancelled save dialog. Whatever the
            // page sends, nothing is written.
            on_success: |_, _, out| {
                if out.is_null() {
                    Ok(())
                } else {
                    Err(format!("arguments wrote an export: {}", short(out, 300)))
                }
            },
        },
        Command {
            name: "install_offer",
            args: vec![("id", Kind::U64), ("values", Kind::StrMap)],
            bases: vec![json!({"id": 1, "values": {}})],
            // No offer was shown, so none can be installed.
            on_success: never,
        },
        Command {
            name: "drop_install",
            args: vec![("id", Kind::U64)],
            bases: vec![json!({"id": 1})],
            // Forgetting an offer that is not there does nothing.
            on_success: |_, _, out| {
                if out.is_null() {
                    Ok(())
                } else {
                    Err(format!("returned {}", short(out, 300)))
                }
            },
        },
        Command {
            name: "folder_choices",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": server})],
            // Read-only: the kept folders, for the real server only.
            on_success: |h, args, out| {
                if args["id"] == json!(h.server) && out.as_array().is_some_and(|a| a.len() == 2) {
                    Ok(())
                } else {
                    Err(format!(
                        "choices for {}: {}",
                        short(&args["id"], 100),
                        short(out, 200)
                    ))
                }
            },
        },
        Command {
            name: "set_server_folders",
            args: vec![("id", Kind::Str), ("roots", Kind::StrList)],
            bases: vec![
                json!({"id": "srv-0000000000000000", "roots": [root]}),
                json!({"id": json!(h.other_server), "roots": ["root-0000000000000000"]}),
            ],
            // A page names kept folders by id. The real server keeping what
            // it has, or the other server given nothing or a kept folder, are
            // the person's own say; the latter is undone.
            on_success: |h, args, _| {
                let other = args["id"] == json!(h.other_server);
                if other {
                    let _ = h.sup.folders().revoke(&h.other_server, &h.root);
                    return Ok(());
                }
                if args["id"] == json!(h.server) && args["roots"] == json!([h.root]) {
                    Ok(())
                } else {
                    Err(format!("set folders with {}", short(args, 200)))
                }
            },
        },
        Command {
            name: "stop_retrying",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": "srv-0000000000000000"})],
            // Only a real server may be told to stop retrying; it changes
            // no folder or grant (whether it waits is the store's, undone).
            on_success: |h, args, _| {
                if args["id"] == json!(h.server) {
                    h.sup
                        .store()
                        .set_gave_up(&h.server, false)
                        .map_err(|e| e.to_string())
                } else {
                    Err(format!("stopped retrying {}", short(&args["id"], 100)))
                }
            },
        },
        Command {
            name: "reveal_secret",
            args: vec![("id", Kind::Str), ("name", Kind::Str)],
            bases: vec![
                json!({"id": "srv-0000000000000000", "name": SECRET}),
                json!({"id": server, "name": "PATH"}),
            ],
            // Only the real server's real secret has a value to reveal.
            on_success: |h, args, out| {
                if args["id"] == json!(h.server) && args["name"] == json!(SECRET) && out.is_string()
                {
                    Ok(())
                } else {
                    Err(format!(
                        "revealed {}: {}",
                        short(args, 200),
                        short(out, 100)
                    ))
                }
            },
        },
        Command {
            name: "keep_secret",
            args: vec![
                ("id", Kind::Str),
                ("name", Kind::Str),
                ("place", Kind::Place),
            ],
            bases: vec![
                json!({"id": "srv-0000000000000000", "name": SECRET, "place": "file"}),
                json!({"id": server, "name": "PATH", "place": "notStored"}),
            ],
            // Moving the real server's real secret is the person's say
            // (undone); nothing else may succeed.
            on_success: |h, args, _| {
                if args["id"] != json!(h.server) || args["name"] != json!(SECRET) {
                    return Err(format!("kept a secret for {}", short(args, 200)));
                }
                let was = h.server_spec.secrets[SECRET];
                h.block_on(h.sup.servers().keep_secret(&h.server, SECRET, was))
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            },
        },
        // The seeded server is not running, so nothing may be tried on it:
        // every success of these is a wrong one.
        Command {
            name: "server_offers",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": "srv-0000000000000000"}), json!({"id": server})],
            on_success: never,
        },
        Command {
            name: "call_tool",
            args: vec![
                ("id", Kind::Str),
                ("call", Kind::U64),
                ("name", Kind::Str),
                ("arguments", Kind::Object),
            ],
            bases: vec![
                json!({"id": "srv-0000000000000000", "call": 1, "name": "read_text_file", "arguments": {"path": "/etc/shadow"}}),
                json!({"id": server, "call": 2, "name": "read_text_file", "arguments": {}}),
            ],
            on_success: never,
        },
        Command {
            name: "cancel_call",
            args: vec![("call", Kind::U64)],
            bases: vec![json!({"call": 1})],
            // Cancelling a call that is not running does nothing.
            on_success: |_, _, out| {
                if out.is_null() {
                    Ok(())
                } else {
                    Err(format!("returned {}", short(out, 300)))
                }
            },
        },
        Command {
            name: "read_resource",
            args: vec![("id", Kind::Str), ("uri", Kind::Str)],
            bases: vec![json!({"id": server, "uri": "file:///etc/shadow"})],
            on_success: never,
        },
        Command {
            name: "subscribe_resource",
            args: vec![("id", Kind::Str), ("uri", Kind::Str)],
            bases: vec![json!({"id": server, "uri": "file:///etc/shadow"})],
            on_success: never,
        },
        Command {
            name: "unsubscribe_resource",
            args: vec![("id", Kind::Str), ("uri", Kind::Str)],
            bases: vec![json!({"id": server, "uri": "file:///etc/shadow"})],
            on_success: never,
        },
        Command {
            name: "get_prompt",
            args: vec![
                ("id", Kind::Str),
                ("name", Kind::Str),
                ("arguments", Kind::StrMap),
            ],
            bases: vec![json!({"id": server, "name": "p", "arguments": {"path": "/root"}})],
            on_success: never,
        },
        Command {
            name: "server_log",
            args: vec![("id", Kind::Str)],
            bases: vec![json!({"id": server})],
            on_success: |h, args, _| {
                if args["id"] == json!(h.server) {
                    Ok(())
                } else {
                    Err(format!("a log for {}", short(&args["id"], 100)))
                }
            },
        },
    ]
}

/// One hostile call: which command, with what, and what kind of refusal a
/// failure must be, if the test knows.
struct Call {
    cmd: usize,
    body: InvokeBody,
    /// The argument that is missing or of the wrong shape: the call must
    /// fail as `invalid`, naming it.
    misshapen: Option<&'static str>,
    what: String,
}

fn battery(h: &Harness, cmds: &[Command]) -> Vec<Call> {
    let strings = hostile_strings(h);
    let values = hostile_values();
    let drafts = hostile_drafts(h);
    let mut calls = vec![];
    for (i, c) in cmds.iter().enumerate() {
        let mut push = |args: Value, misshapen: Option<&'static str>, what: String| {
            calls.push(Call {
                cmd: i,
                body: InvokeBody::Json(args),
                misshapen,
                what,
            })
        };
        for base in &c.bases {
            for &(key, kind) in &c.args {
                let mut candidates: Vec<Value> = strings.iter().map(|s| json!(s)).collect();
                candidates.extend(values.iter().cloned());
                if kind == Kind::StrList {
                    candidates.extend(strings.iter().map(|s| json!([s])));
                    candidates.push(json!([h.server, "srv-0000000000000000"]));
                    candidates.push(json!(h.server));
                }
                if kind == Kind::Draft {
                    candidates.extend(drafts.iter().cloned());
                }
                if kind == Kind::App {
                    candidates.extend(APP_IDS.iter().map(|id| json!(id)));
                }
                if kind == Kind::Scope {
                    candidates.extend(
                        strings
                            .iter()
                            .map(|s| json!({"kind": "project", "path": s})),
                    );
                    candidates.push(json!({"kind": "global"}));
                }
                if kind == Kind::Place {
                    candidates.extend(PLACES.iter().map(|p| json!(p)));
                }
                if kind == Kind::Answer {
                    candidates.extend([json!("share"), json!("notNow")]);
                }
                if kind == Kind::StrMap {
                    candidates.extend(strings.iter().map(|s| json!({ "${input:token}": s })));
                }
                if matches!(kind, Kind::U64 | Kind::OptU64) {
                    // Prompts that were never opened.
                    for n in [0, 1, h.picked_prompt + 1, 999_999, u64::MAX] {
                        if n != h.picked_prompt {
                            candidates.push(json!(n));
                        }
                    }
                    candidates.push(json!(h.picked_prompt.to_string()));
                    candidates.push(json!(-(h.picked_prompt as i64)));
                }
                for v in candidates {
                    // A list of real servers for the picked folder's prompt
                    // is a valid answer: the person's own, not an attack.
                    let real = [json!(h.server), json!(h.other_server)];
                    if key == "servers"
                        && base["prompt"] == json!(h.picked_prompt)
                        && v.as_array()
                            .is_some_and(|a| a.iter().all(|s| real.contains(s)))
                    {
                        continue;
                    }
                    let mut args = base.clone();
                    args[key] = v.clone();
                    let misshapen = (!kind.fits(&v)).then_some(key);
                    push(args, misshapen, format!("{key} = {}", short(&v, 60)));
                }
                let mut args = base.clone();
                args.as_object_mut().unwrap().remove(key);
                let missing = (!matches!(kind, Kind::OptStr | Kind::OptU64)).then_some(key);
                push(args, missing, format!("{key} missing"));
            }
            let mut args = base.clone();
            for (k, v) in extra_fields(h).as_object().unwrap() {
                args[k] = v.clone();
            }
            push(args, None, "extra fields".into());
        }
        // Whole bodies of the wrong shape.
        let first = c.args.first().map(|a| a.0);
        for body in [
            json!([]),
            json!([h.root, h.server]),
            json!("/root"),
            Value::Null,
            json!(7),
        ] {
            let what = format!("body {}", short(&body, 40));
            push(body, first, what);
        }
        calls.push(Call {
            cmd: i,
            body: InvokeBody::Raw(b"{\"root\": \"/etc\"}".to_vec()),
            misshapen: first,
            what: "a bytes body".into(),
        });
    }
    // Answers, with odd names, to the prompt of a folder that was picked:
    // a name that is not valid must not keep the folder.
    let answer = cmds.iter().position(|c| c.name == "answer_prompt").unwrap();
    for s in &strings {
        if !is_valid_name(&json!(s)) && !s.trim().is_empty() {
            calls.push(Call {
                cmd: answer,
                body: InvokeBody::Json(
                    json!({"prompt": h.picked_prompt, "servers": [], "name": s}),
                ),
                misshapen: None,
                what: format!("the picked prompt named {}", short(&json!(s), 60)),
            });
        }
    }
    calls
}

/// Checks that an error is `{code, message}` with a known code and words.
fn check_error(e: &Value) -> Verdict {
    let Some(obj) = e.as_object() else {
        return Err(format!(
            "the error is not {{code, message}}: {}",
            short(e, 300)
        ));
    };
    let keys: BTreeSet<&str> = obj.keys().map(String::as_str).collect();
    if keys != BTreeSet::from(["code", "message"]) {
        return Err(format!("the error has fields {keys:?}"));
    }
    let code = obj["code"].as_str().unwrap_or_default();
    if !CODES.contains(&code) {
        return Err(format!("unknown error code {:?}", obj["code"]));
    }
    if obj["message"].as_str().is_none_or(|m| m.trim().len() < 10) {
        return Err(format!("the error says nothing: {}", short(e, 300)));
    }
    Ok(())
}

#[test]
fn hostile_arguments_add_no_folder_and_no_grant_and_get_clear_errors() {
    let h = Harness::start();

    // The command-line folders that cannot be shared became notices.
    let info = h.call("app_info", json!({})).unwrap();
    assert_eq!(info["notices"].as_array().unwrap().len(), 3, "{info}");
    assert!(info["recovery"].is_null());

    // A pick of folders that cannot be shared: one clear error, no prompt.
    let picked: Vec<String> = [
        h.symlink_loop.display().to_string(),
        "/etc/shadow".into(),
        "/home/other".into(),
        "file:///tmp".into(),
        "relative/../x".into(),
        format!("{}\0", h.picked_path.display()),
    ]
    .into_iter()
    .collect();
    std::fs::write(&h.picks, picked.join("\t")).unwrap();
    let e = h.call("pick_folders", json!({})).unwrap_err();
    check_error(&e).unwrap();
    assert_eq!(e["code"], "folder", "{e}");
    assert_eq!(h.now(), h.baseline);

    // A few refusals by name, with the words a person would see.
    let refused = |cmd: &str, args: Value, code: &str, words: &str| {
        let e = h.call(cmd, args.clone()).unwrap_err();
        check_error(&e).unwrap();
        assert_eq!(e["code"], code, "{cmd} {}: {e}", short(&args, 200));
        let message = e["message"].as_str().unwrap();
        assert!(message.contains(words), "{cmd}: {message:.300}");
        assert_eq!(h.now(), h.baseline, "{cmd} {}", short(&args, 200));
    };
    // Answers to prompts that were never opened: no folder was picked.
    for prompt in [0, 424_242, u64::MAX, h.picked_prompt + 1] {
        refused(
            "answer_prompt",
            json!({"prompt": prompt, "servers": [h.server], "name": "Mine"}),
            "notFound",
            "no longer open",
        );
    }
    // The picked folder's prompt, answered with a server that does not exist
    // or a name that is no name: the folder is not kept.
    refused(
        "answer_prompt",
        json!({"prompt": h.picked_prompt, "servers": [h.server, "srv-0000000000000000"], "name": null}),
        "notFound",
        "srv-0000000000000000",
    );
    refused(
        "answer_prompt",
        json!({"prompt": h.picked_prompt, "servers": [], "name": "a\0b"}),
        "invalid",
        "control character",
    );
    refused(
        "rename_folder",
        json!({"root": h.root, "name": "x".repeat(100 * 1024)}),
        "invalid",
        "102400 characters long, and at most 255",
    );
    refused(
        "rename_folder",
        json!({"root": 7, "name": "x"}),
        "invalid",
        "`root` given to `rename_folder` is not valid: invalid type: integer `7`, expected a string",
    );
    refused(
        "revoke",
        json!({"server": h.server}),
        "invalid",
        "`root` is missing",
    );
    refused(
        "add_server",
        json!({"draft": ["Array", "/bin/true"]}),
        "invalid",
        "`draft` given to `add_server` is not valid: invalid type: sequence, expected an object",
    );
    refused(
        "update_server",
        json!({"id": h.server, "draft": {"name": "Files", "command": "/bin/true", "cwd": "/tmp\0"}}),
        "invalid",
        "NUL",
    );
    refused(
        "update_server",
        json!({"id": h.server, "draft": {"name": "Files", "command": "/bin/true", "cwd": "../../root"}}),
        "invalid",
        "must be an absolute path",
    );
    refused(
        "remove_folder",
        json!({"root": format!("{}/..", h.root)}),
        "notFound",
        "there is no folder with id",
    );
    refused(
        "start_server",
        json!({"id": h.server, "approved": true}),
        "needsApproval",
        "/bin/true --serve",
    );

    let cmds = commands(&h);
    let covered: BTreeSet<String> = cmds.iter().map(|c| c.name.to_owned()).collect();
    assert_eq!(
        covered,
        declared_commands(),
        "every command in build.rs must be in this battery"
    );

    let calls = battery(&h, &cmds);
    let mut failures = vec![];
    let mut by_code: BTreeMap<String, usize> = BTreeMap::new();
    let mut successes: BTreeMap<&str, usize> = BTreeMap::new();
    for call in &calls {
        let c = &cmds[call.cmd];
        let args = match &call.body {
            InvokeBody::Json(v) => v.clone(),
            InvokeBody::Raw(_) => Value::Null,
        };
        let verdict = match h.request(c.name, call.body.clone(), "tauri://localhost") {
            Ok(out) => {
                *successes.entry(c.name).or_default() += 1;
                match call.misshapen {
                    Some(key) if !c.args.is_empty() => Err(format!(
                        "accepted a missing or misshapen `{key}`: {}",
                        short(&out, 200)
                    )),
                    _ => (c.on_success)(&h, &args, &out),
                }
            }
            Err(e) => {
                *by_code
                    .entry(e["code"].as_str().unwrap_or("<none>").to_owned())
                    .or_default() += 1;
                check_error(&e).and_then(|()| match call.misshapen {
                    Some(key) if e["code"] != "invalid" || !e["message"].as_str().unwrap_or_default().contains(key) => {
                        Err(format!(
                            "a missing or misshapen `{key}` was not refused as invalid, naming it: {}",
                            short(&e, 300)
                        ))
                    }
                    _ => Ok(()),
                })
            }
        };
        let now = h.now();
        let verdict = verdict.and_then(|()| {
            if now == h.baseline {
                Ok(())
            } else {
                Err(format!(
                    "the store changed: {} roots, {} grants, {} servers, prompts {:?}",
                    now.roots.len(),
                    now.grants.len(),
                    now.servers.len(),
                    now.prompts
                ))
            }
        });
        if let Err(why) = verdict {
            failures.push(format!("{} ({}): {why}", c.name, call.what));
        }
    }

    // Any origin but the app's own is refused every command, and a page
    // cannot reach the dialog plugin or a command that does not exist.
    for c in &cmds {
        let e = h
            .request(c.name, InvokeBody::Json(json!({})), "https://evil.example/")
            .unwrap_err();
        assert!(e.as_str().is_some_and(|m| m.contains("not allowed")), "{e}");
    }
    for (cmd, args) in [
        (
            "plugin:dialog|open",
            json!({"options": {"directory": true, "defaultPath": "/root"}}),
        ),
        ("add_folder", json!({"path": "/root"})),
        ("plugin:fs|read_file", json!({"path": "/etc/shadow"})),
    ] {
        let e = h.call(cmd, args).unwrap_err();
        assert!(
            e.as_str().is_some_and(|m| m.contains("not allowed")),
            "{cmd}: {e}"
        );
    }

    eprintln!(
        "{} hostile calls over {} commands; errors by code {by_code:?}; successes {successes:?}",
        calls.len(),
        cmds.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} calls went wrong; the first ones:\n{}",
        failures.len(),
        calls.len(),
        failures[..failures.len().min(40)].join("\n")
    );

    // After the whole battery: exactly the folders, grants and servers of
    // before, read back through the core and from the file itself, and the
    // picked folder's prompt still open, neither answered nor shared.
    assert_eq!(h.now(), h.baseline);
    let on_disk = SettingsFile::at(h.sup.settings_path()).load().unwrap();
    assert!(on_disk.recovery.is_none());
    assert_eq!(on_disk.settings.roots, h.baseline.roots);
    assert_eq!(on_disk.settings.grants, h.baseline.grants);
    assert_eq!(on_disk.settings.servers, h.baseline.servers);
    assert!(
        h.sup
            .folders()
            .list()
            .iter()
            .all(|f| f.root.real_path != h.picked_path),
        "the picked folder was kept"
    );
    assert_eq!(
        h.sup
            .store()
            .shared_with(&h.other_server)
            .unwrap()
            .roots()
            .len(),
        0
    );
    assert_eq!(
        h.sup.store().shared_with(&h.server).unwrap().roots().len(),
        1
    );
    // Its secret leaves the keyring with it.
    h.block_on(h.sup.servers().remove_server(&h.server))
        .unwrap();
    h.block_on(h.sup.shutdown());
    drop(h.app);
}
