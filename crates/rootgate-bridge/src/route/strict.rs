//! One reading of an app's line: before the router reads anything of it,
//! the whole line is walked once to be sure that every reader reads it the
//! same way. A key written twice in any object (after its escapes are
//! decoded, so `"na\u006de"` is `"name"`), or nesting deeper than
//! [`MAX_DEPTH`], makes the line one that two readers can read apart: the
//! bridge's rules would look at one `name` while the server runs the other
//! (`JSON.parse` and Python's `json.loads` keep the last of two, other
//! readers the first, serde refuses), or the server cannot parse it at all
//! and so cannot answer it. Such a line is refused with a JSON-RPC error
//! and never passed on.
//!
//! Only the app's lines are walked this way. A server's lines, the bridge's
//! hot path (megabyte results), are read by the envelope's scanner alone; a
//! server line whose envelope names a field twice is already left to serde
//! there, which refuses it, so it is dropped rather than read two ways.
//!
//! What is not here: what the line means (the router) and serde's words
//! for a line that is not JSON (the envelope's, asked when this walk says
//! [`Refusal::NotJson`]).

use std::cmp::Ordering;

use super::envelope::{each_field, literal_end, number_end, skip_ws, string_end};
use super::keys::{Key, key_of};

/// The deepest nesting of objects and arrays an app's message may have,
/// the message's own object counted as the first level.
///
/// Half of the smallest hard limit among the readers servers are built
/// on: serde_json (Rust servers, rmcp) refuses the 128th level; Python's
/// `json.loads` recurses once per level against a limit of 1,000 frames,
/// shared with the server's own stack (asyncio, anyio, and validators that
/// recurse per level too); Node's `JSON.parse` has no fixed limit, but the
/// SDKs' schema validation recurses; Go's encoding/json stops at 10,000.
/// The rest leaves room for the levels the bridge or an SDK wraps around a
/// payload (a modern call's retry nests the app's answers two levels
/// down), and no tool's arguments seen in practice come near it.
pub const MAX_DEPTH: usize = 64;

/// Why a line cannot be read one way.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The line is not JSON; serde says why (see the envelope).
    NotJson,
    /// An object names `key` twice; `at` is where the object sits
    /// (`params.arguments`), empty for the message's own object.
    Duplicate { key: String, at: String },
    /// Objects and arrays nest deeper than [`MAX_DEPTH`].
    TooDeep,
}

impl Refusal {
    /// The error's message, in words.
    pub(super) fn words(&self) -> String {
        match self {
            Refusal::NotJson => "Parse error: the line is not JSON".into(),
            Refusal::Duplicate { key, at } => {
                let key = serde_json::Value::String(key.clone());
                let place = if at.is_empty() {
                    "the message".to_owned()
                } else {
                    format!("“{at}”")
                };
                format!(
                    "Invalid Request: the key {key} is written twice in {place}; readers \
                     differ on which one counts (some take the first, some the last), so \
                     Rootgate does not pass on a message that could be read two ways"
                )
            }
            Refusal::TooDeep => format!(
                "Invalid Request: the message nests objects and arrays more than {MAX_DEPTH} \
                 levels deep, deeper than servers can be trusted to parse; it was not passed on"
            ),
        }
    }
}

/// An object or array still open, and for an object where its keys start
/// in the shared list of keys.
struct Open {
    object: bool,
    first_key: usize,
    /// The key the container is the value of, in the shared list (none
    /// for the message's own object and for an array's items).
    under: Option<usize>,
}

/// Walks `text` whole: `Ok` when it is one JSON value with no key twice in
/// any object and no deeper than [`MAX_DEPTH`].
pub(super) fn check(text: &str) -> Result<(), Refusal> {
    let b = text.as_bytes();
    let mut open: Vec<Open> = Vec::new();
    let mut keys: Vec<Key<'_>> = Vec::new();
    let mut i = 0;
    loop {
        i = skip_ws(b, i);
        match *b.get(i).ok_or(Refusal::NotJson)? {
            b'"' => i = string_end(b, i + 1).ok_or(Refusal::NotJson)?,
            c @ (b'{' | b'[') => {
                // Counted before looking inside: an empty container is a
                // level to every parser too.
                if open.len() >= MAX_DEPTH {
                    return Err(Refusal::TooDeep);
                }
                let object = c == b'{';
                let under = match open.last() {
                    Some(parent) if parent.object => keys.len().checked_sub(1),
                    _ => None,
                };
                i = skip_ws(b, i + 1);
                let close = if object { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    i += 1;
                } else {
                    open.push(Open {
                        object,
                        first_key: keys.len(),
                        under,
                    });
                    if object {
                        i = member_key(text, i, &mut keys)?;
                    }
                    continue;
                }
            }
            b't' => i = literal_end(b, i, b"true").ok_or(Refusal::NotJson)?,
            b'f' => i = literal_end(b, i, b"false").ok_or(Refusal::NotJson)?,
            b'n' => i = literal_end(b, i, b"null").ok_or(Refusal::NotJson)?,
            b'-' | b'0'..=b'9' => i = number_end(b, i).ok_or(Refusal::NotJson)?,
            _ => return Err(Refusal::NotJson),
        }
        // After a value: the containers it closes, then the next value.
        loop {
            let Some(last) = open.last() else {
                return if skip_ws(b, i) == b.len() {
                    Ok(())
                } else {
                    Err(Refusal::NotJson)
                };
            };
            i = skip_ws(b, i);
            match (*b.get(i).ok_or(Refusal::NotJson)?, last.object) {
                (b',', true) => {
                    i = member_key(text, skip_ws(b, i + 1), &mut keys)?;
                    break;
                }
                (b',', false) => {
                    i += 1;
                    break;
                }
                (b'}', true) => {
                    let first = last.first_key;
                    if let Some(key) = twice(&mut keys[first..]) {
                        return Err(Refusal::Duplicate {
                            key,
                            at: place(&open, &keys),
                        });
                    }
                    keys.truncate(first);
                    open.pop();
                    i += 1;
                }
                (b']', false) => {
                    open.pop();
                    i += 1;
                }
                _ => return Err(Refusal::NotJson),
            }
        }
    }
}

/// Reads an object's key at `i` (its opening quote) into `keys`; past its
/// colon.
fn member_key<'a>(text: &'a str, i: usize, keys: &mut Vec<Key<'a>>) -> Result<usize, Refusal> {
    let b = text.as_bytes();
    if b.get(i) != Some(&b'"') {
        return Err(Refusal::NotJson);
    }
    let end = string_end(b, i + 1).ok_or(Refusal::NotJson)?;
    // The quotes are ASCII, so both ends are char boundaries.
    keys.push(key_of(text.get(i..end).ok_or(Refusal::NotJson)?));
    let colon = skip_ws(b, end);
    if b.get(colon) != Some(&b':') {
        return Err(Refusal::NotJson);
    }
    Ok(colon + 1)
}

/// A key one object names twice, if any. Sorted in place: the object's
/// keys are dropped right after.
fn twice(keys: &mut [Key<'_>]) -> Option<String> {
    if keys.len() < 2 {
        return None;
    }
    keys.sort_unstable_by(Key::order);
    keys.windows(2)
        .find(|pair| pair[0].order(&pair[1]) == Ordering::Equal)
        .map(|pair| pair[0].text())
}

/// Where the innermost open object sits, as keys from the message's own
/// object down (`params.arguments`, `[]` for an array's item).
fn place(open: &[Open], keys: &[Key<'_>]) -> String {
    let mut at = String::new();
    for container in open.iter().skip(1) {
        match container.under.and_then(|k| keys.get(k)) {
            Some(key) => {
                if !at.is_empty() {
                    at.push('.');
                }
                at.push_str(&key.text());
            }
            None => at.push_str("[]"),
        }
    }
    at
}

/// The id a refused line names, as JSON text, when it can be read one way:
/// its object names `id` exactly once, as a string or a number. The first
/// of the pair says whether the line names a `method` (a request), the
/// second is the id.
fn one_id(text: &str) -> (bool, Option<&str>) {
    let mut id = None;
    let (mut ids, mut methods) = (0, 0);
    let read = each_field(text, |quoted, value| {
        let key = key_of(quoted);
        if key.order(&Key::Plain("id")) == Ordering::Equal {
            ids += 1;
            id = Some(value);
        } else if key.order(&Key::Plain("method")) == Ordering::Equal {
            methods += 1;
        }
        Some(())
    });
    let id = id.filter(|id| {
        read.is_some()
            && ids == 1
            && id.starts_with(['"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9'])
    });
    (methods > 0, id)
}

/// The id to answer a refused line with, as JSON text: the request's own
/// when the line is a request whose id can be read one way (its object
/// names `method` and names `id` exactly once, and the id is a string or a
/// number), else `null`. A line without a `method` may be an answer to one
/// of the bridge's requests, whose id is no request of the app's: telling
/// the app about that id would answer the wrong request.
pub(super) fn answerable_id(text: &str) -> &str {
    match one_id(text) {
        (true, Some(id)) => id,
        _ => "null",
    }
}

/// The id a refused line answers, when it is an answer (no `method`) whose
/// id reads one way: the bridge's request it answered is then told it
/// will get no answer, rather than wait.
pub(super) fn answered_id(text: &str) -> Option<&str> {
    match one_id(text) {
        (false, id) => id,
        (true, _) => None,
    }
}

/// The checks the fuzz target `one_reading` runs, shared here for the
/// differential proptest.
#[cfg(test)]
#[path = "../../../../fuzz/checks/one_reading.rs"]
mod one_reading_check;

#[cfg(test)]
#[path = "strict_differential.rs"]
mod differential;

#[cfg(test)]
#[path = "strict_tests.rs"]
mod tests;
