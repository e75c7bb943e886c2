//! What a name a person gives a folder or a server may be: trimmed, not
//! empty, at most [`MAX_NAME_CHARS`] characters and free of control
//! characters (NUL, tabs, line breaks). Names are shown in the app and sent
//! to servers as each root's `name`, so a NUL byte or a hundred kilobytes
//! there is a mistake or an attack, never a name. Nor is a character that
//! reorders the text around it (a bidirectional override or isolate, such
//! as U+202E): in a name it can make the consent prompt read as something
//! else (`txt.exe` shown as `exe.txt`).
//!
//! This module checks a name and writes out the characters that would
//! deceive ([`written_out`]); the store and the server drafts decide which
//! error to give for which kind of name. A folder's default name (the last
//! part of its path) is made with [`usable`], so that it is always a name
//! the person could have typed: the file system may hold anything.

use thiserror::Error;

/// The longest name a folder or a server may be given, in characters (the
/// longest file name most file systems allow).
pub const MAX_NAME_CHARS: usize = 255;

/// Why a name cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum NameError {
    #[error("it is empty")]
    Empty,
    #[error("it is {0} characters long, and at most {max} are allowed", max = MAX_NAME_CHARS)]
    TooLong(usize),
    #[error("it contains a control character (a NUL byte, a tab or a line break); remove it")]
    Control,
    #[error(
        "it contains an invisible character that changes the direction of the text around \
         it (U+{:04X}); remove it", u32::from(*.0)
    )]
    Reorders(char),
}

/// Whether `c` is a bidirectional embedding, override or isolate: invisible
/// characters that make the text after them display in another order. The
/// marks (U+200E, U+200F) and the joiners some scripts need are not among
/// them.
pub fn reorders(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Whether `c` is shown as nothing at all, or reorders the text: what a
/// path that is meant to deceive would use. Includes [`reorders`], the
/// direction marks and the zero-width spaces, not the joiners (Persian and
/// the Indic scripts write with them).
pub(crate) fn is_hidden(c: char) -> bool {
    reorders(c)
        || matches!(
            c,
            '\u{061C}' | '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{2060}' | '\u{FEFF}'
        )
}

/// `text` with every hidden or reordering character (see [`is_hidden`])
/// and every control character written out as `<U+XXXX>`, so that what is
/// shown is what is there: `invoice\u{202E}fdp.exe` becomes
/// `invoice<U+202E>fdp.exe`, not `invoiceexe.pdf`.
pub fn written_out(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_hidden(c) || c.is_control() {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// A name made from `text` (a folder's last path component) that
/// [`check`] accepts: hidden and control characters written out, at most
/// [`MAX_NAME_CHARS`] characters, and `fallback` when nothing is left.
pub fn usable(text: &str, fallback: &str) -> String {
    let written = written_out(text.trim());
    let name: String = written.chars().take(MAX_NAME_CHARS).collect();
    if name.trim().is_empty() {
        fallback.to_owned()
    } else {
        name.trim().to_owned()
    }
}

/// The name with spaces around it removed, or why it cannot be a name.
pub fn check(name: &str) -> Result<&str, NameError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.chars().any(char::is_control) {
        return Err(NameError::Control);
    }
    if let Some(c) = name.chars().find(|&c| reorders(c)) {
        return Err(NameError::Reorders(c));
    }
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        return Err(NameError::TooLong(chars));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_made_name_is_always_one_a_person_could_type() {
        let made = usable("invoice\u{202E}fdp.exe", "folder");
        assert_eq!(made, "invoice<U+202E>fdp.exe");
        assert_eq!(check(&made), Ok(made.as_str()));
        assert_eq!(usable("two\nlines", "x"), "two<U+000A>lines");
        assert_eq!(usable("a\u{200B}b", "x"), "a<U+200B>b");
        assert_eq!(usable("   ", "folder"), "folder");
        let long = usable(&"\u{202E}".repeat(300), "x");
        assert_eq!(check(&long), Ok(long.as_str()));
        // Persian's zero-width non-joiner is part of the word, not hidden.
        assert_eq!(usable("می\u{200C}خواهم", "x"), "می\u{200C}خواهم");
    }

    #[test]
    fn names_are_trimmed_bounded_and_printable() {
        assert_eq!(check("  Projects "), Ok("Projects"));
        assert_eq!(check("../etc"), Ok("../etc"), "an odd name is still a name");
        assert_eq!(check("프로젝트"), Ok("프로젝트"));
        assert_eq!(check(" \t "), Err(NameError::Empty));
        assert_eq!(check("a\0b"), Err(NameError::Control));
        assert_eq!(check("two\nlines"), Err(NameError::Control));
        let longest = "é".repeat(MAX_NAME_CHARS);
        assert_eq!(check(&longest), Ok(longest.as_str()));
        assert_eq!(
            check(&"a".repeat(100 * 1024)),
            Err(NameError::TooLong(100 * 1024))
        );
        assert_eq!(
            check("report\u{202E}txt.exe"),
            Err(NameError::Reorders('\u{202E}'))
        );
        assert_eq!(check("\u{2067}x"), Err(NameError::Reorders('\u{2067}')));
        // Persian is written with the zero-width non-joiner; it stays.
        assert_eq!(check("می\u{200C}خواهم"), Ok("می\u{200C}خواهم"));
        assert_eq!(
            NameError::Reorders('\u{202E}').to_string(),
            "it contains an invisible character that changes the direction of the text around \
             it (U+202E); remove it"
        );
        assert_eq!(
            NameError::TooLong(300).to_string(),
            "it is 300 characters long, and at most 255 are allowed"
        );
    }
}
