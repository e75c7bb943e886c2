//! Tests that pin what the webview may do: the capability file grants
//! exactly Rootgate's own commands (each listed in `build.rs`) and event
//! listening, nothing from a plugin (no `fs`, `shell`, `dialog`), and the
//! content security policy allows only the app's own scripts and styles.
//! A broader permission or a looser policy fails these tests.
//!
//! Only tests live here.

use std::collections::BTreeSet;

fn read_json(relative: &str) -> serde_json::Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The command names declared in build.rs, read from its source so the
/// test cannot drift from the list that generates the permissions.
pub(crate) fn declared_commands() -> BTreeSet<String> {
    let build = include_str!("../../build.rs");
    let list = build
        .split("const COMMANDS: &[&str] = &[")
        .nth(1)
        .and_then(|rest| rest.split("];").next())
        .expect("COMMANDS list in build.rs");
    list.split(',')
        .map(|s| s.trim().trim_matches('"').to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

#[test]
fn the_capability_grants_exactly_our_commands_and_event_listening() {
    let capabilities = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/capabilities"))
        .unwrap()
        .count();
    assert_eq!(capabilities, 1, "one capability file, for the main window");
    let cap = read_json("capabilities/main.json");
    assert_eq!(cap["windows"], serde_json::json!(["main"]));
    assert!(
        cap.get("remote").is_none(),
        "no remote URL may use the commands"
    );
    let granted: BTreeSet<String> = cap["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p.as_str()
                .expect("permissions are plain identifiers")
                .to_owned()
        })
        .collect();
    let mut allowed: BTreeSet<String> = declared_commands()
        .into_iter()
        .map(|c| format!("allow-{}", c.replace('_', "-")))
        .collect();
    allowed.insert("core:event:allow-listen".into());
    allowed.insert("core:event:allow-unlisten".into());
    assert_eq!(granted, allowed);
}

#[test]
fn every_registered_command_is_declared() {
    let lib = include_str!("../../src/lib.rs");
    let registered: BTreeSet<String> = lib
        .split("generate_handler![")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap()
        .split(',')
        .map(|s| s.trim().trim_start_matches("commands::").to_owned())
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(registered, declared_commands());
}

#[test]
fn the_csp_allows_only_our_own_code() {
    let conf = read_json("tauri.conf.json");
    let csp = &conf["app"]["security"]["csp"];
    assert_eq!(csp["default-src"], "'self'");
    assert_eq!(csp["script-src"], "'self'", "no inline or remote scripts");
    assert_eq!(csp["style-src"], "'self'");
    assert_eq!(csp["object-src"], "'none'");
    let all = csp.to_string();
    for loose in ["unsafe-inline", "unsafe-eval", "http:", "https:", "*"] {
        assert!(
            !all.contains(loose)
                || (loose == "http:"
                    && all.contains("http://ipc.localhost")
                    && all.matches("http:").count() == 1),
            "CSP contains {loose}: {all}"
        );
    }
    assert_eq!(conf["app"]["withGlobalTauri"], false);
    assert!(
        conf["app"]["security"]
            .get("dangerousDisableAssetCspModification")
            .is_none()
    );
}
