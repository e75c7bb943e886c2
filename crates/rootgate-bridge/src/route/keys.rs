//! An object's key as JSON readers compare it: decoded from its escapes
//! into UTF-16 code units, as `JSON.parse` and Python's `json.loads` do, so
//! that `"na\u006de"` is `"name"` and a key naming an unpaired surrogate
//! is a key like any other. Both the envelope's scanner (which fields it
//! reads) and the one-reading walk (which keys are written twice) compare
//! keys this way; it sits below both so neither names the other for it.
//!
//! What is not here: finding where a string ends or checking it (the
//! envelope's scanner does that before a key reaches this module).

use std::cmp::Ordering;

/// An object's key as written: plain text, or its UTF-16 code units when
/// it has escapes (JSON's `\uXXXX` names code units, and an unpaired
/// surrogate is a key `JSON.parse` and Python both accept).
pub(super) enum Key<'a> {
    Plain(&'a str),
    Escaped(Vec<u16>),
}

impl Key<'_> {
    fn units(&self) -> impl Iterator<Item = u16> + '_ {
        let (plain, escaped) = match self {
            Key::Plain(text) => (Some(text.encode_utf16()), None),
            Key::Escaped(units) => (None, Some(units.iter().copied())),
        };
        plain
            .into_iter()
            .flatten()
            .chain(escaped.into_iter().flatten())
    }

    pub(super) fn order(&self, other: &Key<'_>) -> Ordering {
        self.units().cmp(other.units())
    }

    pub(super) fn text(&self) -> String {
        match self {
            Key::Plain(text) => (*text).to_owned(),
            Key::Escaped(units) => String::from_utf16_lossy(units),
        }
    }
}

/// The key of a string checked by `string_end`: `quoted` is its text with
/// the quotes.
pub(super) fn key_of(quoted: &str) -> Key<'_> {
    let inner = &quoted[1..quoted.len() - 1];
    if !inner.contains('\\') {
        return Key::Plain(inner);
    }
    let mut units = Vec::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buf));
            continue;
        }
        let unit = match chars.next() {
            Some('b') => 0x08,
            Some('f') => 0x0c,
            Some('n') => 0x0a,
            Some('r') => 0x0d,
            Some('t') => 0x09,
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                u16::from_str_radix(&hex, 16).unwrap_or(0xfffd)
            }
            // `"`, `\` and `/` stand for themselves (checked before).
            Some(other) => other as u16,
            None => break,
        };
        units.push(unit);
    }
    Key::Escaped(units)
}

/// Whether an object's key as written (`quoted`: its quotes and escapes
/// and all) is `name` once its escapes are decoded, as `JSON.parse` and
/// Python compare keys: an escape that names an unpaired surrogate is a
/// key like any other, never a reason to stop reading.
pub(super) fn key_is(quoted: &str, name: &str) -> bool {
    match key_of(quoted) {
        Key::Plain(text) => text == name,
        escaped => escaped.order(&Key::Plain(name)) == Ordering::Equal,
    }
}
