//! `rootgate install FILE.mcpb` on bundles packed by the official `mcpb`
//! CLI: the npm filesystem server bundled with its dependencies, in every
//! manifest version the CLI packs, installed, approved and shared the way
//! a person does, then run through `rootgate connect` by the TypeScript
//! SDK client and asked through its own `list_allowed_directories` what
//! it sees; under enforced roots too. Then an update that keeps the
//! person's answer, and removing the server takes its files. Bundles
//! shown and not installed (signed, hostile, for another platform) are in
//! `shown`. The bundles' sources are in tests/fixtures/bundles.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use rootgate_core::servers::{SecretPlace, ServerSpec};
use rootgate_core::sources::bundle::Bundles;
use rootgate_sources::installed::Installs;
use rootgate_test_support::app::*;
use serde_json::{Value, json};

mod shown;

const SECRET: &str = "files-token-SECRET-4711";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bundles")
}

fn data_home(rg: &Rootgate) -> PathBuf {
    rg.home().join(".local/share")
}

fn bundles_root(rg: &Rootgate) -> PathBuf {
    data_home(rg).join("rootgate/bundles")
}

/// Runs `rootgate` as the person does, `input` on its standard input.
fn rootgate(rg: &Rootgate, args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = std::process::Command::new(binary("rootgate"))
        .args(args)
        .envs(bus_env())
        .env("HOME", rg.home())
        .env("XDG_CONFIG_HOME", &rg.config_home)
        .env("XDG_DATA_HOME", data_home(rg))
        .env("XDG_RUNTIME_DIR", rg.dir.path().join("run"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rootgate");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(input.as_bytes()).expect("write stdin");
    drop(stdin);
    child.wait_with_output().expect("rootgate's output")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn said(out: &Output) -> String {
    format!(
        "status {:?}\n{}{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("make folder");
    for entry in std::fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Links `package` and everything it depends on from the test peers
/// into `node_modules`: `mcpb pack` follows the links and packs the files
/// themselves (no link reaches the bundle), without copying 37 MB first.
fn link_with_dependencies(package: &str, node_modules: &Path) {
    let mut todo = vec![package.to_owned()];
    while let Some(name) = todo.pop() {
        let target = node_modules.join(&name);
        if target.exists() {
            continue;
        }
        let source = peers().join("node_modules").join(&name);
        std::fs::create_dir_all(target.parent().expect("a parent")).expect("make folder");
        std::os::unix::fs::symlink(&source, &target).expect("link");
        let manifest: Value = serde_json::from_slice(
            &std::fs::read(source.join("package.json")).expect("package.json"),
        )
        .expect("package.json is JSON");
        todo.extend(
            manifest["dependencies"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(dep, _)| dep.clone()),
        );
    }
}

/// The `fixture` folder with its manifest changed by `change`, packed by
/// `mcpb pack` into `out`.
fn pack(fixture: &str, out: &Path, change: impl FnOnce(&mut Value)) -> PathBuf {
    let dir = out.with_extension("src");
    copy_tree(&fixtures().join(fixture), &dir);
    let path = dir.join("manifest.json");
    let mut manifest: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("manifest")).expect("JSON");
    change(&mut manifest);
    std::fs::write(&path, manifest.to_string()).expect("write manifest");
    if fixture == "files" {
        link_with_dependencies(
            "@modelcontextprotocol/server-filesystem",
            &dir.join("node_modules"),
        );
    }
    let packed = std::process::Command::new(mcpb())
        .arg("pack")
        .arg(&dir)
        .arg(out)
        .stdin(Stdio::null())
        .output()
        .expect("run mcpb pack");
    assert!(packed.status.success(), "mcpb pack: {}", said(&packed));
    out.to_path_buf()
}

/// The manifest in the format `version`: 0.1 as the older bundles wrote
/// it, with `dxt_version`.
fn in_version(manifest: &mut Value, version: &str) {
    let object = manifest.as_object_mut().expect("an object");
    object.remove("manifest_version");
    let field = if version == "0.1" {
        "dxt_version"
    } else {
        "manifest_version"
    };
    object.insert(field.into(), json!(version));
}

fn only_server(rg: &Rootgate) -> ServerSpec {
    rg.store.reload().expect("reload");
    let servers = rg.store.snapshot().servers;
    assert_eq!(servers.len(), 1, "{servers:#?}");
    servers.into_iter().next().expect("one server")
}

/// What the filesystem server says it may use, through the bridge.
async fn allowed(app: &mut App) -> Result<Vec<PathBuf>, Value> {
    let answer = app
        .request(json!({"op": "callTool", "name": "list_allowed_directories",
                        "arguments": {}, "timeoutMs": 10000}))
        .await;
    match answer.get("ok") {
        Some(ok) => Ok(tool_text(ok)
            .lines()
            .filter(|l| l.starts_with('/'))
            .map(PathBuf::from)
            .collect()),
        None => Err(answer),
    }
}

/// The person approves `server` as it is now, in the window.
fn approve(rg: &Rootgate, server: &ServerSpec) -> ServerSpec {
    rg.store
        .approve_command(&server.id, &server.command_line())
        .expect("approve")
}

/// Installs the filesystem bundle packed in `version`, checks what was
/// shown and written, and runs it through the bridge with one folder
/// shared. Returns the Rootgate and the server.
async fn install_and_run(version: &str) -> (Rootgate, ServerSpec, PathBuf) {
    let rg = Rootgate::new();
    std::fs::create_dir_all(rg.home().join("Documents")).expect("Documents");
    let file = pack("files", &rg.dir.path().join("files.mcpb"), |m| {
        in_version(m, version)
    });
    let out = rootgate(
        &rg,
        &["install", file.to_str().expect("utf-8"), "--set", "token=-"],
        &format!("{SECRET}\n"),
    );
    let shown = said(&out);
    assert!(out.status.success(), "{version}: {shown}");
    for words in [
        "Files 1.0.0 (files)",
        "By: Rootgate's tests <tests@rootgate.invalid>",
        "node server/index.js ${user_config.allowed_directories}",
        "list_allowed_directories: The folders it may use",
        "Runs on macOS, Windows, Linux; Node.js >=18.0.0",
        "Signature: not signed",
        "Allowed folders (`allowed_directories`): folders: the ones you share with it",
        "Token (`token`): a secret, kept in the keyring",
        "waits for your approval",
        "Its folders are not shared yet",
    ] {
        assert!(shown.contains(words), "{version}: `{words}` in {shown}");
    }
    assert!(
        !shown.contains(SECRET),
        "{version}: the secret was printed: {shown}"
    );
    let folder = bundles_root(&rg).join("files/1.0.0");
    assert!(
        folder.join("manifest.json").is_file(),
        "{version}: unpacked in {}",
        folder.display()
    );
    assert!(
        folder
            .join("node_modules/@modelcontextprotocol/server-filesystem")
            .is_dir()
    );
    let left: Vec<_> = std::fs::read_dir(bundles_root(&rg))
        .expect("root")
        .collect();
    assert_eq!(
        left.len(),
        1,
        "{version}: only the bundle's folder, no staging left"
    );

    let server = only_server(&rg);
    assert!(
        !server.is_approved() && !server.enabled,
        "{version}: {server:#?}"
    );
    let entry = folder.join("server/index.js").display().to_string();
    assert_eq!(server.args, [entry.as_str(), "${folders}"], "{version}");
    assert_eq!(server.cwd.as_deref(), Some(folder.as_path()));
    assert!(
        server.secrets.contains_key("FILES_TOKEN"),
        "{version}: kept as a secret"
    );
    assert!(
        !std::fs::read_to_string(rg.config_home.join("rootgate/settings.json"))
            .expect("settings")
            .contains(SECRET)
    );
    if !has_test_keyring() {
        assert!(shown.contains("was not stored"), "{version}: {shown}");
    }
    // As in the import test, the bridge below has no session bus, so the
    // person keeps the token in the settings file instead.
    let mut draft = server.to_draft();
    draft.env.insert("FILES_TOKEN".into(), SECRET.into());
    rg.store.update_server(&server.id, draft).expect("give it");
    rg.store
        .keep_secret(&server.id, "FILES_TOKEN", SecretPlace::File)
        .expect("keep it in the file");
    let server = approve(&rg, &only_server(&rg));
    let (root, shared) = rg.folder("project");
    rg.share(&server.id, &root);
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command(&server.name)).await;
    assert_eq!(
        app.connected["event"], "connected",
        "{version}: {:#?}",
        app.connected
    );
    assert_eq!(
        allowed(&mut app).await.expect("the tool answers"),
        std::slice::from_ref(&shared),
        "{version}"
    );
    drop(app);
    (rg, server, shared)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_filesystem_server_bundled_in_every_manifest_version_sees_only_the_shared_folder() {
    for version in ["0.1", "0.2", "0.3", "0.4"] {
        install_and_run(version).await;
    }
}

/// Under enforced roots (Landlock) the server may read only what it needs
/// to run: its bundle's folder is its working folder, which the launcher
/// lets it read, so it starts and still sees exactly the shared folder.
/// Without that working folder it could not even load its dependencies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_enforced_bundle_server_reads_its_own_files_and_nothing_else() {
    assert_eq!(
        rootgate_core::enforcement::support(),
        rootgate_core::enforcement::Support::Available,
        "these tests need Landlock"
    );
    let (rg, server, shared) = install_and_run("0.3").await;
    let mut draft = server.to_draft();
    draft.enforce_roots = true;
    let enforced = approve(
        &rg,
        &rg.store.update_server(&server.id, draft).expect("enforce"),
    );
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command(&server.name)).await;
    assert_eq!(app.connected["event"], "connected", "{:#?}", app.connected);
    assert_eq!(allowed(&mut app).await.expect("runs enforced"), [shared]);
    drop(app);

    let mut draft = enforced.to_draft();
    draft.cwd = None;
    approve(
        &rg,
        &rg.store.update_server(&server.id, draft).expect("no cwd"),
    );
    let mut app = App::start(&rg, Sdk::TypeScript, &[], &rg.connect_command(&server.name)).await;
    let ran = app.connected["event"] == "connected" && allowed(&mut app).await.is_ok();
    assert!(
        !ran,
        "without its folder to read, the enforced server should not start"
    );
}

/// Installing a newer version of the same bundle updates the server it
/// made: the answer given the first time is kept, the command (now in the
/// new version's folder) waits for approval again, and the old version's
/// files are gone. Removing the server then takes the new ones.
#[test]
fn an_update_keeps_the_answer_asks_again_and_removes_the_old_files() {
    let rg = Rootgate::new();
    let v1 = pack("hello", &rg.dir.path().join("hello-1.mcpb"), |_| {});
    let v2 = pack("hello", &rg.dir.path().join("hello-2.mcpb"), |m| {
        m["version"] = json!("2.0.0");
    });
    let missing = rootgate(&rg, &["install", v1.to_str().expect("utf-8")], "");
    assert_eq!(missing.status.code(), Some(3), "{}", said(&missing));
    assert!(
        said(&missing).contains("Greeting (`greeting`) needs a value"),
        "{}",
        said(&missing)
    );
    assert!(
        !bundles_root(&rg).join("hello").exists(),
        "nothing left after a missing value"
    );

    let first = rootgate(
        &rg,
        &[
            "install",
            v1.to_str().expect("utf-8"),
            "--set",
            "greeting=bonjour",
        ],
        "",
    );
    assert!(first.status.success(), "{}", said(&first));
    let old_folder = bundles_root(&rg).join("hello/1.0.0");
    let server = approve(&rg, &only_server(&rg));
    assert!(
        server.args.contains(&"--greeting=bonjour".to_string()),
        "{:?}",
        server.args
    );
    assert!(
        server.args.contains(&"--loud=false".to_string()),
        "the default: {:?}",
        server.args
    );
    assert!(old_folder.join("server/index.js").is_file());

    let second = rootgate(&rg, &["install", v2.to_str().expect("utf-8")], "");
    assert!(second.status.success(), "{}", said(&second));
    assert!(
        said(&second).contains("Updated the server hello to hello 2.0.0"),
        "{}",
        said(&second)
    );
    let updated = only_server(&rg);
    assert_eq!(updated.id, server.id, "the same server, updated");
    let new_folder = bundles_root(&rg).join("hello/2.0.0");
    assert_eq!(
        updated.args[0],
        new_folder.join("server/index.js").display().to_string()
    );
    assert!(
        updated.args.contains(&"--greeting=bonjour".to_string()),
        "kept: {:?}",
        updated.args
    );
    assert!(
        !updated.is_approved(),
        "the changed command waits for approval"
    );
    assert!(!old_folder.exists(), "the old version's files are removed");
    assert!(new_folder.join("manifest.json").is_file());

    // What the core does when the person removes the server.
    let settings = rg.config_home.join("rootgate/settings.json");
    rg.store.remove_server(&updated.id).expect("remove");
    let record = Installs::beside(&settings)
        .forget(&updated.id)
        .expect("forget")
        .expect("a record");
    let files = record.files.expect("its files");
    assert_eq!(files, new_folder);
    let removed = Bundles::at(bundles_root(&rg))
        .remove_files(&files)
        .expect("remove files");
    assert!(removed && !new_folder.exists() && !bundles_root(&rg).join("hello").exists());
    // A folder outside the bundles' root is never removed.
    let outside = Bundles::at(bundles_root(&rg)).remove_files(rg.home().as_path());
    assert!(outside.is_err() && rg.home().exists());
}
