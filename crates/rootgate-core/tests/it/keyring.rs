//! Secrets in a real keyring: GNOME Keyring's Secret Service on a session
//! bus of the run's own, started by `scripts/with-keyring.sh` (which CI runs
//! the tests under). Values are kept, rotated and forgotten as the desktop's
//! own tool (`secret-tool`) sees them; a server started gets its value in
//! its environment while no settings file, timeline, log or view holds it;
//! and without a session bus, or with a bus and no keyring on it, a start
//! fails in words that say so.
//!
//! Run without the wrapper, each test fails at once saying to use it: they
//! are never skipped, and never touch the person's own keyring.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use rootgate_core::supervisor::Supervisor;
use rootgate_host::keyring::SecretService;
use rootgate_model::ids::ServerId;
use rootgate_model::secrets::username;
use rootgate_model::secrets::{MemoryKeyring, SecretKey, SecretStore, Secrets};
use rootgate_model::servers::SecretPlace;
use rootgate_model::servers::ServerDraft;
use rootgate_model::settings::SettingsFile;
use rootgate_model::store::Store;
use rootgate_session::{SessionConfig, Status};
use rootgate_test_support::harness::*;

const VALUE: &str = "sk-live-keyring-test-0123456789";
const ROTATED: &str = "sk-live-rotated-9876543210";

/// Fails the test unless it runs under `scripts/with-keyring.sh`.
fn needs_test_keyring() {
    assert!(
        std::env::var_os("ROOTGATE_TEST_KEYRING").is_some(),
        "this test needs a keyring of its own: run it under scripts/with-keyring.sh \
         (for example `scripts/with-keyring.sh cargo nextest run -p rootgate-core --test it keyring::`)"
    );
}

/// What the desktop's own tool finds for `key`, if anything.
fn secret_tool_lookup(key: &SecretKey) -> Option<String> {
    let out = Command::new("secret-tool")
        .args(["lookup", "service", "rootgate", "username", &username(key)])
        .output()
        .expect("run secret-tool (libsecret-tools; scripts/setup.sh test installs it)");
    out.status
        .success()
        .then(|| String::from_utf8(out.stdout).expect("utf-8"))
}

#[test]
fn the_keyring_keeps_rotates_and_forgets_a_value_as_the_desktop_sees_it() {
    needs_test_keyring();
    let keyring: &dyn SecretStore = &SecretService;
    let key = SecretKey::new(&ServerId::generate(), "API_TOKEN");
    assert_eq!(keyring.get(&key).unwrap(), None);
    keyring.set(&key, "Rootgate: API_TOKEN", VALUE).unwrap();
    assert_eq!(secret_tool_lookup(&key).as_deref(), Some(VALUE));
    keyring.set(&key, "Rootgate: API_TOKEN", ROTATED).unwrap();
    assert_eq!(secret_tool_lookup(&key).as_deref(), Some(ROTATED));
    assert_eq!(keyring.get(&key).unwrap().as_deref(), Some(ROTATED));
    keyring.delete(&key).unwrap();
    assert_eq!(secret_tool_lookup(&key), None);
    assert_eq!(keyring.get(&key).unwrap(), None);
    keyring.delete(&key).unwrap();
}

fn open(dir: &Path) -> Arc<Supervisor> {
    Supervisor::open(
        SettingsFile::at(dir.join("config/settings.json")),
        SessionConfig::default(),
    )
    .expect("open supervisor")
}

/// A server that writes the token it was given to `out` and says it on
/// stderr, then is our fixture server.
fn telling_draft(out: &Path, value: &str) -> ServerDraft {
    let script = r#"printf '%s' "$API_TOKEN" > "$0"; echo "my token is $API_TOKEN" >&2; exec "$1""#;
    ServerDraft {
        name: "teller".into(),
        command: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            script.into(),
            out.display().to_string(),
            fixture_server().display().to_string(),
        ],
        env: [("API_TOKEN".to_owned(), value.to_owned())].into(),
        enabled: true,
        ..Default::default()
    }
}

/// Waits until the server has written `want` to `out`.
async fn told(out: &Path, want: &str) {
    eventually("the server to be given its token", || async {
        let got = std::fs::read_to_string(out).unwrap_or_default();
        if got == want {
            Ok(())
        } else {
            Err(format!("it has {} bytes", got.len()))
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_gets_its_secret_and_nothing_else_holds_it() {
    needs_test_keyring();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("token-seen");
    let sup = open(dir.path());
    let view = sup
        .servers()
        .add_server(telling_draft(&out, VALUE))
        .unwrap();
    let id = view.spec.id.clone();
    let key = SecretKey::new(&id, "API_TOKEN");
    assert_eq!(view.spec.secrets["API_TOKEN"], SecretPlace::Keyring);
    assert!(
        view.command_line.starts_with("API_TOKEN=… /bin/sh"),
        "{}",
        view.command_line
    );
    assert_eq!(secret_tool_lookup(&key).as_deref(), Some(VALUE));
    sup.servers()
        .approve_command(&id, &view.command_line)
        .unwrap();
    sup.servers().start(&id).unwrap();
    let session = sup.servers().session_of(&id).unwrap();
    running(&session).await;
    told(&out, VALUE).await;
    assert_eq!(
        sup.servers().reveal_secret(&id, "API_TOKEN").await.unwrap(),
        VALUE
    );

    // A new value: the same approval, the keyring holds it, and the
    // running server starts again by itself to be given it.
    let mut draft = view.spec.to_draft();
    draft.env.insert("API_TOKEN".into(), ROTATED.into());
    let rotated = sup.servers().update_server(&id, draft).await.unwrap();
    assert!(rotated.approved, "a rotated key needs no new approval");
    assert_eq!(secret_tool_lookup(&key).as_deref(), Some(ROTATED));
    told(&out, ROTATED).await;
    running(&session).await;

    // Nowhere else: not the settings file, the timeline, the log (where
    // the server's own words have it written out) or what the window gets.
    let settings = std::fs::read_to_string(sup.settings_path()).unwrap();
    let timeline = serde_json::to_string(&sup.servers().activity()).unwrap();
    let log = serde_json::to_string(&sup.servers().log_of(&id).unwrap()).unwrap();
    let views = serde_json::to_string(&sup.servers().list()).unwrap();
    for (what, text) in [
        ("settings", &settings),
        ("timeline", &timeline),
        ("log", &log),
        ("views", &views),
    ] {
        assert!(
            !text.contains(VALUE) && !text.contains(ROTATED),
            "the {what} holds a value: {text:.400}"
        );
    }
    assert!(log.contains("my token is …"), "{log:.400}");

    sup.servers().remove_server(&id).await.unwrap();
    assert_eq!(secret_tool_lookup(&key), None, "removed with its server");
    sup.shutdown().await;
}

/// Set for the child run of the no-keyring test: the settings file to start
/// its server from.
const CHILD: &str = "ROOTGATE_KEYRING_TEST_CHILD";

/// A settings file whose approved server keeps `API_TOKEN` in the keyring.
fn settings_with_a_keyring_secret(dir: &Path) -> SettingsFile {
    let file = SettingsFile::at(dir.join("settings.json"));
    let keyring = Arc::new(MemoryKeyring::default());
    let (store, _) = Store::open_with_secrets(file.clone(), Secrets::new(keyring)).expect("store");
    let spec = store
        .add_server(ServerDraft {
            name: "s".into(),
            command: fixture_server().display().to_string(),
            env: [("API_TOKEN".to_owned(), VALUE.to_owned())].into(),
            ..Default::default()
        })
        .expect("add the server");
    assert_eq!(spec.secrets["API_TOKEN"], SecretPlace::Keyring);
    store
        .approve_command(&spec.id, &spec.command_line())
        .expect("approve it");
    file
}

/// This test binary again, running only the no-keyring test, in child mode
/// on `settings`, with the session bus at `bus`; returns what it printed.
fn child_on_bus(settings: &SettingsFile, bus: &str) -> String {
    let out = Command::new(std::env::current_exe().expect("this test binary"))
        .args([
            "--exact",
            // The binary holds every core test, each under its file's module.
            &rootgate_test_support::test_name(
                module_path!(),
                "without_a_keyring_a_start_fails_saying_so",
            ),
            "--nocapture",
        ])
        .env(CHILD, settings.path())
        .env("DBUS_SESSION_BUS_ADDRESS", bus)
        .output()
        .expect("run the child");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// A bus with nothing on it, and nothing it can start: no keyring.
fn bare_bus(dir: &Path) -> (std::process::Child, String) {
    let config = dir.join("bus.conf");
    std::fs::write(
        &config,
        format!(
            r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:dir={}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/>
<allow eavesdrop="true"/><allow own="*"/></policy></busconfig>"#,
            dir.display()
        ),
    )
    .expect("write the bus config");
    let mut bus = Command::new("dbus-daemon")
        .arg(format!("--config-file={}", config.display()))
        .args(["--nofork", "--print-address=1"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("dbus-daemon (scripts/setup.sh test installs it)");
    let mut address = String::new();
    use std::io::BufRead;
    std::io::BufReader::new(bus.stdout.take().expect("its stdout"))
        .read_line(&mut address)
        .expect("its address");
    (bus, address.trim().to_owned())
}

#[test]
fn without_a_keyring_a_start_fails_saying_so() {
    if let Some(settings) = std::env::var_os(CHILD) {
        return child(SettingsFile::at(settings));
    }
    needs_test_keyring();
    let dir = tempfile::tempdir().unwrap();
    let settings = settings_with_a_keyring_secret(dir.path());

    let said = child_on_bus(&settings, "unix:path=/nonexistent/rootgate-test-bus");
    assert!(
        said.contains(
            "start: API_TOKEN is kept in the keyring, which is not available: there is no \
             desktop session bus to find a keyring on"
        ),
        "{said}"
    );
    assert!(said.contains("reveal: keyring"), "{said}");

    let (mut bus, address) = bare_bus(dir.path());
    let said = child_on_bus(&settings, &address);
    let _ = bus.kill();
    let _ = bus.wait();
    assert!(
        said.contains(
            "start: API_TOKEN is kept in the keyring, which is not available: no keyring \
             answers on the desktop's session bus"
        ),
        "{said}"
    );
    assert!(!said.contains(VALUE), "{said}");
}

/// The child run: the server of `settings` started by a supervisor on the
/// desktop's keyring (which the parent made unreachable), and what a start
/// and a reveal say, printed for the parent.
fn child(settings: SettingsFile) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    runtime.block_on(async {
        let sup = Supervisor::open(settings, SessionConfig::default()).expect("supervisor");
        let id = sup.servers().list()[0].spec.id.clone();
        sup.servers().start(&id).expect("start");
        let reason = failure_reason(&sup.servers().session_of(&id).expect("session")).await;
        println!("start: {reason}");
        let reveal = sup
            .servers()
            .reveal_secret(&id, "API_TOKEN")
            .await
            .expect_err("no keyring to reveal from");
        let code = match &reveal {
            rootgate_core::supervisor::SupervisorError::Store(
                rootgate_model::store::StoreError::Secret(e),
            ) if e.is_no_keyring() => "keyring",
            _ => "other",
        };
        println!("reveal: {code}: {reveal}");
        assert!(matches!(
            sup.servers().session_of(&id).expect("session").status(),
            Status::Failed { .. }
        ));
        sup.shutdown().await;
    });
}
