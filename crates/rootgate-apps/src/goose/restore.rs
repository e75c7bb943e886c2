//! Putting Goose extensions back as an earlier text of the file had them,
//! which is how a route is undone, while keeping the rest of the current
//! file.
//!
//! An extension that both texts hold at the same column is put back as the
//! original's exact bytes, so undoing a rewrite of a file nobody touched
//! since gives the original file byte for byte. Otherwise (the current file
//! lacks it, or was re-indented) the original's settings are set through
//! the tree, which lays them out at the current file's indentation. Either
//! way the result is read back, and refused unless each extension reads as
//! the original has it and everything else is written as it was.

use yaml_edit::{Mapping, MappingEntry, TextPosition, YamlNode, yaml_eq};

use super::edit::{others_kept, root_text, settings_text, unwritable};
use super::{EXTENSIONS, Loaded};
use crate::{ConfigError, Scope};

/// `current` with each extension named in `entries` as `original` has it:
/// replaced, inserted when `current` lacks it, removed when `original` does.
pub(crate) fn restore(
    file: &str,
    current: &str,
    original: &str,
    entries: &[(Scope, String)],
) -> Result<String, ConfigError> {
    let original_doc = Loaded::new(file, original)?;
    let wanted = original_doc.extensions()?;
    // The current text is checked first, so that its errors are its own.
    let current_doc = Loaded::new(file, current)?;
    let mut text = current.to_owned();
    for (scope, key) in entries {
        // Goose has no project lists, so nothing of one is to be restored.
        if *scope != Scope::Global {
            continue;
        }
        let entry = wanted
            .as_ref()
            .and_then(|e| e.find_entry_by_key(key.as_str()));
        text = match entry {
            Some(entry) => put(file, &text, original, key, &entry)?,
            None => take(file, &text, key)?,
        };
    }
    check(file, &current_doc, &original_doc, &text, entries)?;
    Ok(text)
}

/// `text` with extension `key` as `entry` (an entry of `original`) has it.
fn put(
    file: &str,
    text: &str,
    original: &str,
    key: &str,
    entry: &MappingEntry,
) -> Result<String, ConfigError> {
    let wanted = entry
        .value_node()
        .ok_or_else(|| unwritable(file, Some(key)))?;
    if let Some(spliced) = splice(file, text, original, key, entry)
        && reads_as(file, text, &spliced, key, &wanted)
    {
        return Ok(spliced);
    }
    set(file, text, key, &wanted)
}

/// `text` with its entry for extension `key` replaced by the exact text of
/// `entry` in `original`, when both start at the same column; `None` when
/// they do not, or `text` has no such entry.
fn splice(
    file: &str,
    text: &str,
    original: &str,
    key: &str,
    entry: &MappingEntry,
) -> Option<String> {
    let doc = Loaded::new(file, text).ok()?;
    let now = doc.extensions().ok()??.find_entry_by_key(key)?;
    let (from, to) = span(now.byte_range());
    let (original_from, original_to) = span(entry.byte_range());
    if column(text, from)? != column(original, original_from)? {
        return None;
    }
    let old = text.get(from..to)?;
    let mut piece = original.get(original_from..original_to)?.to_owned();
    // An entry holds the line break that ends it, except on a file's last
    // line without one: the piece takes the ending of the entry it replaces.
    let body = piece.trim_end_matches(['\r', '\n']).len();
    let ending = &old[old.trim_end_matches(['\r', '\n']).len()..];
    piece.truncate(body);
    piece.push_str(ending);
    Some(format!("{}{piece}{}", &text[..from], &text[to..]))
}

/// Whether `spliced` (made from `text`) holds extension `key` as `wanted`
/// and every other extension as `text` writes it.
fn reads_as(file: &str, text: &str, spliced: &str, key: &str, wanted: &YamlNode) -> bool {
    let (Ok(before), Ok(after)) = (Loaded::new(file, text), Loaded::new(file, spliced)) else {
        return false;
    };
    let (Ok(was), Ok(now)) = (settings_text(&before), settings_text(&after)) else {
        return false;
    };
    let restored = after
        .extensions()
        .ok()
        .flatten()
        .and_then(|e| e.get(key))
        .is_some_and(|now| yaml_eq(&now, wanted));
    restored && others_kept(&was, &now, &[key]) && root_text(&before) == root_text(&after)
}

/// `text` with extension `key` set to `wanted` through the tree, adding
/// `extensions` when the file has none.
fn set(file: &str, text: &str, key: &str, wanted: &YamlNode) -> Result<String, ConfigError> {
    let mut doc = Loaded::new(file, text)?;
    // A file without a document (empty, or only comments) has no mapping
    // to add to: one is started by appending the key, which keeps what the
    // file holds and parses as an empty `extensions`.
    if doc.root.is_none() {
        let mut text = text.to_owned();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("extensions:\n");
        doc = Loaded::new(file, &text)?;
    }
    let root = doc
        .root
        .as_ref()
        .ok_or_else(|| unwritable(file, Some(key)))?;
    if doc.extensions()?.is_none() {
        root.set(EXTENSIONS, Mapping::new());
    }
    let extensions = root
        .get_mapping(EXTENSIONS)
        .ok_or_else(|| unwritable(file, Some(key)))?;
    extensions.set(key, wanted);
    Ok(doc.tree.to_string())
}

/// `text` without extension `key`.
fn take(file: &str, text: &str, key: &str) -> Result<String, ConfigError> {
    let doc = Loaded::new(file, text)?;
    if let Some(extensions) = doc.extensions()? {
        extensions.remove(key);
    }
    Ok(doc.tree.to_string())
}

/// Refuses `out` unless each restored extension reads as in `original`
/// (or is absent as there), and every other extension and top-level
/// setting is written as in `current`.
fn check(
    file: &str,
    current: &Loaded,
    original: &Loaded,
    out: &str,
    entries: &[(Scope, String)],
) -> Result<(), ConfigError> {
    let after = Loaded::new(file, out).map_err(|_| unwritable(file, None))?;
    let restored: Vec<&str> = entries
        .iter()
        .filter(|(scope, _)| *scope == Scope::Global)
        .map(|(_, key)| key.as_str())
        .collect();
    let kept = others_kept(&settings_text(current)?, &settings_text(&after)?, &restored);
    if !kept || root_text(current) != root_text(&after) {
        return Err(unwritable(file, None));
    }
    let wanted = original.extensions()?;
    let now = after.extensions().map_err(|_| unwritable(file, None))?;
    for key in restored {
        let wanted = wanted.as_ref().and_then(|e| e.get(key));
        let now = now.as_ref().and_then(|e| e.get(key));
        let fine = match (wanted, now) {
            (Some(wanted), Some(now)) => yaml_eq(&wanted, &now),
            (None, None) => true,
            _ => false,
        };
        if !fine {
            return Err(unwritable(file, Some(key)));
        }
    }
    Ok(())
}

/// A node's byte range as offsets into the text it was parsed from.
fn span(range: TextPosition) -> (usize, usize) {
    (range.start as usize, range.end as usize)
}

/// The column (in bytes from its line's start) of byte `at` of `text`.
fn column(text: &str, at: usize) -> Option<usize> {
    let line_start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    Some(at - line_start)
}
