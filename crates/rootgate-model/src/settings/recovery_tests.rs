//! What a recovery keeps of the person's own choices: every preference it
//! can read, wherever the damage is, and a pause that cannot be read comes
//! back as a pause, said in the recovery's message.

use super::*;
use crate::consent::Grant;
use crate::ids::{RootId, ServerId};
use crate::preferences::NotifyChoices;
use crate::servers::ServerDraft;

/// Choices that differ from every default: a pause, the login offer
/// answered, a notification turned off, a registry of the person's own.
fn chosen() -> Preferences {
    Preferences {
        sharing_paused: true,
        start_at_login_offered: true,
        notify: NotifyChoices {
            server_failed: false,
            ..NotifyChoices::default()
        },
        registry: Some("https://registry.example.org/mcp".into()),
        unused_server_minutes: Some(3),
    }
}

/// Two servers (the second with brackets and a quote in a value), a
/// folder shared with the first, and `preferences`.
fn settings_with(preferences: Preferences) -> Settings {
    let server = |name: &str| {
        ServerDraft {
            name: name.into(),
            command: "x".into(),
            ..Default::default()
        }
        .validate(ServerId::generate(), [])
        .unwrap()
    };
    let (first, mut second) = (server("first"), server("second"));
    second.env.insert("TOKEN".into(), "}]{[\"".into());
    let root = Root {
        id: RootId::generate(),
        name: "proj".into(),
        chosen_path: "/p".into(),
        real_path: "/p".into(),
        added_at_ms: 5,
        mount: Some("/".into()),
    };
    let grant = Grant {
        server: first.id.clone(),
        root: root.id.clone(),
        real_path: "/p".into(),
        granted_at_ms: 6,
    };
    Settings {
        version: SETTINGS_VERSION,
        preferences,
        roots: vec![root],
        grants: vec![grant],
        servers: vec![first, second],
    }
}

/// The file as a Rootgate before this one wrote it: the preferences last,
/// after the long lists.
fn written_before(s: &Settings) -> String {
    format!(
        "{{\n  \"version\": {},\n  \"roots\": {},\n  \"grants\": {},\n  \"servers\": {},\n  \"preferences\": {}\n}}\n",
        s.version,
        pretty(&s.roots),
        pretty(&s.grants),
        pretty(&s.servers),
        pretty(&s.preferences)
    )
}

/// A part of the settings, pretty-printed as it is saved.
fn pretty<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

fn recover(contents: &[u8]) -> (Loaded, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let file = SettingsFile::at(dir.path().join("settings.json"));
    fs::write(file.path(), contents).unwrap();
    let loaded = file.load().unwrap();
    // What was saved in its place reads back as what was recovered.
    let again = file.load().unwrap();
    assert!(again.recovery.is_none());
    assert_eq!(again.settings, loaded.settings);
    (loaded, dir)
}

#[test]
fn a_file_cut_short_keeps_the_preferences_written_before_the_lists() {
    let full = settings_with(chosen());
    let bytes = serde_json::to_vec_pretty(&full).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(
        text.find("\"preferences\"") < text.find("\"roots\""),
        "the preferences are written first: {text}"
    );
    let cut = text.find("TOKEN").unwrap() + 12;
    let (loaded, _dir) = recover(&bytes[..cut]);
    let recovery = loaded.recovery.unwrap();
    assert!(recovery.reason.contains("cut short"), "{}", recovery.reason);
    assert_eq!(loaded.settings.preferences, chosen());
    assert_eq!(loaded.settings.servers, full.servers[..1]);
    assert!(!recovery.paused_unread);
    assert!(
        !recovery.message().contains("paused"),
        "{}",
        recovery.message()
    );
}

#[test]
fn damage_in_the_middle_keeps_the_preferences_after_it() {
    // A file of a Rootgate from before, preferences last, garbage in the
    // permissions: the pause, the registry, the login answer and the
    // notification choice are all found past the damage.
    let full = settings_with(chosen());
    let damaged = written_before(&full).replacen("\"grants\"", "\"grants\" ?? ", 1);
    let (loaded, _dir) = recover(damaged.as_bytes());
    let recovery = loaded.recovery.unwrap();
    assert!(
        recovery.reason.contains("not valid JSON"),
        "{}",
        recovery.reason
    );
    assert_eq!(loaded.settings.preferences, chosen());
    assert_eq!(loaded.settings.roots, full.roots);
    assert!(!recovery.paused_unread);

    // The same with nothing paused: it stays unpaused.
    let unpaused = Preferences {
        sharing_paused: false,
        ..chosen()
    };
    let damaged = written_before(&settings_with(unpaused.clone())).replacen(
        "\"servers\"",
        "\"servers\" \u{0}garbage",
        1,
    );
    let (loaded, _dir) = recover(damaged.as_bytes());
    assert_eq!(loaded.settings.preferences, unpaused);
    assert!(!loaded.recovery.unwrap().paused_unread);
}

#[test]
fn a_pause_that_cannot_be_read_comes_back_paused_and_says_so() {
    // Cut short before the preferences (as a Rootgate from before wrote
    // them, last): whether sharing was paused is unknown.
    let text = written_before(&settings_with(chosen()));
    let cut = text.find("TOKEN").unwrap();
    let (loaded, _dir) = recover(&text.as_bytes()[..cut]);
    let recovery = loaded.recovery.unwrap();
    assert!(loaded.settings.preferences.sharing_paused);
    assert!(recovery.paused_unread);
    assert!(
        recovery.message().contains("sharing is paused"),
        "{}",
        recovery.message()
    );
    assert!(
        recovery
            .reason
            .contains("whether sharing was paused could not be read"),
        "{}",
        recovery.reason
    );

    // The pause written as something else than yes or no: paused, and the
    // other choices kept.
    let mut value = serde_json::to_value(settings_with(chosen())).unwrap();
    value["preferences"]["sharingPaused"] = "yes".into();
    let (loaded, _dir) = recover(&serde_json::to_vec(&value).unwrap());
    let recovery = loaded.recovery.unwrap();
    assert_eq!(loaded.settings.preferences, chosen());
    assert!(recovery.paused_unread);
    assert!(recovery.message().contains("sharing is paused"));

    // Nothing readable at all (an empty file, a file that is not JSON).
    for contents in [&b""[..], b"\0\0\0\0", b"{\"version\": 3, \"pre"] {
        let (loaded, _dir) = recover(contents);
        assert!(loaded.settings.preferences.sharing_paused, "{contents:?}");
        assert!(loaded.recovery.unwrap().paused_unread, "{contents:?}");
    }
}

#[test]
fn one_unreadable_choice_costs_only_itself() {
    let mut value = serde_json::to_value(settings_with(chosen())).unwrap();
    value["preferences"]["notify"] = serde_json::json!({
        "serverFailed": 3,
        "approvalWaiting": false,
    });
    value["preferences"]["registry"] = 5.into();
    let (loaded, _dir) = recover(&serde_json::to_vec(&value).unwrap());
    let recovery = loaded.recovery.unwrap();
    let kept = &loaded.settings.preferences;
    assert!(kept.sharing_paused && kept.start_at_login_offered);
    assert!(!kept.notify.approval_waiting, "the readable choice is kept");
    assert!(
        kept.notify.server_failed,
        "the unreadable one is the default"
    );
    assert_eq!(kept.registry, None);
    assert!(!recovery.paused_unread);
    assert!(
        recovery.reason.contains("notify.serverFailed") && recovery.reason.contains("registry"),
        "{}",
        recovery.reason
    );
}

#[test]
fn a_whole_file_without_preferences_is_not_paused() {
    // A Rootgate from before preferences existed wrote none: nothing was
    // paused, whatever else is wrong with the file.
    let mut value = serde_json::to_value(settings_with(chosen())).unwrap();
    value.as_object_mut().unwrap().remove("preferences");
    value["servers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"name": 3}));
    let (loaded, _dir) = recover(&serde_json::to_vec(&value).unwrap());
    assert_eq!(loaded.settings.preferences, Preferences::default());
    assert!(!loaded.recovery.unwrap().paused_unread);
}
