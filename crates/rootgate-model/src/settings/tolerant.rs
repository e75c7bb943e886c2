//! Reading what can still be read from a settings file that is not sound:
//! every whole entry of its lists, and every preference, field by field,
//! wherever in the file it is.
//!
//! The preferences are the person's own answers (a pause above all: while
//! it is set, no AI app sees a folder), so they are looked for even past
//! the damage, and one field that cannot be read costs only that field.
//! When whether sharing was paused cannot be read at all, the settings come
//! back paused ([`Parsed::pause_unread`]), and the recovery says so: an app
//! seeing no folders until the person resumes is the failure that loses
//! nothing, where seeing folders the person had withdrawn from every app is
//! not.
//!
//! Not here: the quick parse of a sound file, the upgrades of older formats
//! (both in `settings.rs`, used by this), or what is done with a file that
//! needed this (moving it aside is `SettingsFile::load`'s).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::{SETTINGS_VERSION, Settings, count, upgrade};
use crate::preferences::Preferences;

/// What was read of a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub settings: Settings,
    /// What was wrong, in words; none for a sound file.
    pub problem: Option<String>,
    /// Whether sharing was paused could not be read, so it is paused now.
    pub pause_unread: bool,
}

/// Parses settings, keeping every entry and preference that can be read.
pub(super) fn parse_tolerantly(bytes: &[u8]) -> Parsed {
    let mut problems = Vec::new();
    let (value, whole) = read_value(bytes, &mut problems);
    let object = value.as_ref().and_then(Value::as_object);
    if value.is_some() && object.is_none() {
        problems.push("it does not hold a settings object".to_owned());
    }
    let mut settings = Settings::default();
    if let Some(object) = object
        && let Some(version) = readable_version(object, &mut problems)
    {
        settings.roots = entries(object.get("roots"), "folder", &mut problems);
        settings.grants = entries(object.get("grants"), "permission", &mut problems);
        settings.servers = entries(object.get("servers"), "server", &mut problems);
        upgrade(&mut settings.servers, version);
        let before = settings.grants.len();
        settings.prune_dangling_grants();
        if settings.grants.len() != before {
            let dropped = before - settings.grants.len();
            problems.push(format!(
                "{} named a missing folder or server",
                count(dropped, "permission", "permissions")
            ));
        }
    }
    // Read whatever else could not be: the person's answers are theirs,
    // whichever format wrote them.
    let sound = whole && object.is_some();
    let (preferences, pause_unread) = preferences(object, sound, bytes, &mut problems);
    settings.preferences = preferences;
    let problem = (!problems.is_empty()).then(|| problems.join("; "));
    Parsed {
        settings,
        problem,
        pause_unread,
    }
}

/// The JSON of the file, whole (`true`) or what could be salvaged of it.
fn read_value(bytes: &[u8], problems: &mut Vec<String>) -> (Option<Value>, bool) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        problems.push("the file is empty".into());
        return (None, false);
    }
    match serde_json::from_slice(bytes) {
        Ok(value) => (Some(value), true),
        Err(e) => {
            let salvaged = salvage(bytes, &e);
            problems.push(match (&salvaged, e.is_eof()) {
                (Some(_), true) => {
                    format!("it was cut short ({e}); the whole entries before the cut were kept")
                }
                (Some(_), false) => format!(
                    "it is not valid JSON ({e}); the whole entries before the damage were kept"
                ),
                (None, true) => format!("it was cut short ({e})"),
                (None, false) => format!("it is not valid JSON: {e}"),
            });
            (salvaged, false)
        }
    }
}

/// The format of `object`, when this build reads it.
fn readable_version(object: &Map<String, Value>, problems: &mut Vec<String>) -> Option<u64> {
    match object.get("version").and_then(Value::as_u64) {
        Some(v) if v > u64::from(SETTINGS_VERSION) => {
            problems.push(format!(
                "it was written by a newer Rootgate (format {v}, this one reads {SETTINGS_VERSION})"
            ));
            None
        }
        Some(v) => Some(v),
        None => {
            problems.push("it has no format version".into());
            None
        }
    }
}

/// The preferences of a damaged file, and whether the pause could not be
/// read. `sound`: the file is one whole JSON object, so preferences it does
/// not hold were never written (a file from before they existed) and are
/// the defaults; in any other file they are looked for past the damage.
fn preferences(
    object: Option<&Map<String, Value>>,
    sound: bool,
    bytes: &[u8],
    problems: &mut Vec<String>,
) -> (Preferences, bool) {
    let found = match object.and_then(|o| o.get("preferences")) {
        Some(value) => Some(value.clone()),
        None if sound => return (Preferences::default(), false),
        None => find_preferences(bytes),
    };
    let (mut preferences, pause_read) = match found {
        Some(Value::Object(fields)) => {
            let (kept, unread) = readable_fields::<Preferences>(&fields);
            if !unread.is_empty() {
                problems.push(format!(
                    "these preferences could not be read: {}",
                    unread.join(", ")
                ));
            }
            let pause_read = kept.contains_key(PAUSE) || (!fields.contains_key(PAUSE) && sound);
            // `readable_fields` checked this very map.
            let preferences = serde_json::from_value(Value::Object(kept)).unwrap_or_default();
            (preferences, pause_read)
        }
        Some(_) => {
            problems.push("the preferences could not be read".into());
            (Preferences::default(), false)
        }
        None => (Preferences::default(), false),
    };
    if !pause_read {
        preferences.sharing_paused = true;
        problems.push("whether sharing was paused could not be read, so it is paused".into());
    }
    (preferences, !pause_read)
}

/// The name of the pause in the file.
const PAUSE: &str = "sharingPaused";

/// The preferences object of a file whose JSON is damaged, found after the
/// damage too: the last `"preferences": {…}` that parses and holds nothing
/// but preferences (the name alone could be a value in a server's entry).
fn find_preferences(bytes: &[u8]) -> Option<Value> {
    let known = known_preference_names();
    let key = b"\"preferences\"";
    let mut found = None;
    for at in memchr::memmem::find_iter(bytes, key) {
        let rest = &bytes[at + key.len()..];
        let Some(colon) = rest.iter().position(|b| !b.is_ascii_whitespace()) else {
            continue;
        };
        if rest[colon] != b':' {
            continue;
        }
        let value = serde_json::Deserializer::from_slice(&rest[colon + 1..])
            .into_iter::<Value>()
            .next();
        if let Some(Ok(Value::Object(fields))) = value
            && !fields.is_empty()
            && fields.keys().all(|k| known.contains(k))
        {
            found = Some(Value::Object(fields));
        }
    }
    found
}

/// Every name a preference is written under.
fn known_preference_names() -> Vec<String> {
    let every = Preferences {
        registry: Some(String::new()),
        unused_server_minutes: Some(0),
        ..Preferences::default()
    };
    match serde_json::to_value(every) {
        Ok(Value::Object(fields)) => fields.into_iter().map(|(k, _)| k).collect(),
        _ => vec![PAUSE.to_owned()],
    }
}

/// The fields of `fields` that read as part of a `T`, one at a time (and
/// one level down into an object, so that one bad notification choice
/// keeps the others), and the names of those that did not.
fn readable_fields<T: DeserializeOwned>(
    fields: &Map<String, Value>,
) -> (Map<String, Value>, Vec<String>) {
    let reads =
        |map: &Map<String, Value>| serde_json::from_value::<T>(Value::Object(map.clone())).is_ok();
    let mut kept = Map::new();
    let mut unread = Vec::new();
    for (name, value) in fields {
        let mut trial = kept.clone();
        trial.insert(name.clone(), value.clone());
        if reads(&trial) {
            kept = trial;
            continue;
        }
        let Value::Object(inner) = value else {
            unread.push(name.clone());
            continue;
        };
        let mut partial = Map::new();
        for (inner_name, inner_value) in inner {
            let mut candidate = partial.clone();
            candidate.insert(inner_name.clone(), inner_value.clone());
            let mut trial = kept.clone();
            trial.insert(name.clone(), Value::Object(candidate.clone()));
            if reads(&trial) {
                partial = candidate;
            } else {
                unread.push(format!("{name}.{inner_name}"));
            }
        }
        let mut trial = kept.clone();
        trial.insert(name.clone(), Value::Object(partial));
        if reads(&trial) {
            kept = trial;
        } else {
            unread.push(name.clone());
        }
    }
    (kept, unread)
}

/// What can still be read from a file that is not valid JSON: the part
/// before the damage (or before the end, for a file cut short), cut back to
/// the end of the last whole entry of a top-level list (or the last whole
/// list or object, such as the preferences) and closed, so that it parses. An entry is kept whole or not at
/// all: a server cut inside its environment is dropped, not kept without
/// it. `None` when nothing whole comes before the damage.
fn salvage(bytes: &[u8], error: &serde_json::Error) -> Option<Value> {
    // serde_json counts lines from 1 and columns in bytes from 1.
    let line_start = match error.line().checked_sub(2) {
        None => 0,
        Some(newlines_before) => bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(newlines_before)
            .map_or(bytes.len(), |(i, _)| i + 1),
    };
    let damage = (line_start + error.column().saturating_sub(1)).min(bytes.len());
    let mut open: Vec<u8> = Vec::new();
    let (mut in_string, mut escaped) = (false, false);
    let mut cut: Option<(usize, Vec<u8>)> = None;
    for (i, &b) in bytes[..damage].iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => open.push(b),
            b'}' | b']' => {
                open.pop();
                let entry_closed = b == b'}' && open == [b'{', b'['];
                let list_closed = b == b']' && open == [b'{'];
                // A whole object at the top level: the preferences.
                let object_closed = b == b'}' && open == [b'{'];
                if entry_closed || list_closed || object_closed {
                    cut = Some((i + 1, open.clone()));
                }
            }
            _ => {}
        }
    }
    let (at, open) = cut?;
    let mut text = bytes[..at].to_vec();
    text.extend(
        open.iter()
            .rev()
            .map(|b| if *b == b'[' { b']' } else { b'}' }),
    );
    serde_json::from_slice(&text).ok()
}

fn entries<T: DeserializeOwned>(
    value: Option<&Value>,
    what: &str,
    problems: &mut Vec<String>,
) -> Vec<T> {
    let Some(value) = value else {
        return Vec::new();
    };
    let Some(items) = value.as_array() else {
        problems.push(format!("the {what} list is not a list"));
        return Vec::new();
    };
    let mut kept = Vec::with_capacity(items.len());
    let mut bad = 0;
    for item in items {
        match serde_json::from_value(item.clone()) {
            Ok(entry) => kept.push(entry),
            Err(_) => bad += 1,
        }
    }
    if bad > 0 {
        let entries = count(bad, &format!("{what} entry"), &format!("{what} entries"));
        problems.push(format!("{entries} could not be read"));
    }
    kept
}
