//! The words about a server's secret variables: which of its variables
//! look secret by their names ([`looks_secret`]), where the value of each
//! secret one is kept ([`SecretPlace`]), and an approved command line with
//! those values written out ([`name_secrets_in`]).
//!
//! They describe a server's specification, so they live beside it; the
//! vault that reads and holds the values, and the keyring behind it, are
//! `secrets`. Nothing here reads or keeps a value.

use serde::{Deserialize, Serialize};

/// Where the value of a secret variable is kept.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SecretPlace {
    /// In the desktop's keyring; the settings file holds only the name.
    Keyring,
    /// In the settings file (mode 0600): the person chose it when no
    /// keyring was available.
    File,
    /// Nowhere but this Rootgate's memory, until it quits: no keyring was
    /// available, and the person chose not to store it (or has not chosen
    /// yet). After a restart the server waits until it is given again.
    NotStored,
    /// In the settings file, where a Rootgate from before secrets wrote it:
    /// moved to the keyring at the first chance, or where the person says.
    FileUntilKeyring,
}

impl SecretPlace {
    /// Whether the value is in the settings file, so in the spec's `env`.
    pub fn in_file(self) -> bool {
        matches!(self, SecretPlace::File | SecretPlace::FileUntilKeyring)
    }
}

/// Whether a variable's name says its value is a secret: the variables
/// marked secret by default.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    [
        "TOKEN",
        "KEY",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "CREDENTIAL",
        "AUTH",
    ]
    .iter()
    .any(|word| upper.contains(word))
}

/// An approved command line with the values of `secret` variables written
/// out as `…`: an approval kept from before they were secret (to show what
/// changed) never shows their values. The line is one this module wrote:
/// environment assignments first, each word plain or in single quotes.
/// `None` when it cannot be read as such, and so cannot be kept.
pub fn name_secrets_in(line: &str, secret: impl Fn(&str) -> bool) -> Option<String> {
    let words = raw_words(line)?;
    let mut out = Vec::with_capacity(words.len());
    let mut assignments = true;
    for word in words {
        let name = word.split_once('=').map(|(name, _)| name);
        match name {
            Some(name) if assignments && !name.contains('\'') => {
                out.push(if secret(name) {
                    format!("{name}=…")
                } else {
                    word.to_owned()
                });
            }
            _ => {
                assignments = false;
                out.push(word.to_owned());
            }
        }
    }
    Some(out.join(" "))
}

/// The words of a POSIX command line as they are written (quotes kept),
/// split at spaces outside single quotes; `None` for an unclosed quote.
fn raw_words(line: &str) -> Option<Vec<&str>> {
    let mut words = Vec::new();
    let (mut start, mut quoted, mut escaped) = (None, false, false);
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            // Outside quotes a backslash takes the next character as it is
            // (`'\''` is how a quote is written inside a quoted word).
            '\\' if !quoted => {
                escaped = true;
                start.get_or_insert(i);
            }
            '\'' => {
                quoted = !quoted;
                start.get_or_insert(i);
            }
            ' ' if !quoted => {
                if let Some(s) = start.take() {
                    words.push(&line[s..i]);
                }
            }
            _ => {
                start.get_or_insert(i);
            }
        }
    }
    if quoted {
        return None;
    }
    if let Some(s) = start {
        words.push(&line[s..]);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_old_approval_gets_its_secret_values_written_out() {
        let secret = |name: &str| name == "API_TOKEN";
        assert_eq!(
            name_secrets_in("API_TOKEN='a b'\\''c' DEBUG=1 node 'x y' A=b", secret).as_deref(),
            Some("API_TOKEN=… DEBUG=1 node 'x y' A=b")
        );
        assert_eq!(
            name_secrets_in("API_TOKEN=plain node", secret).as_deref(),
            Some("API_TOKEN=… node")
        );
        assert_eq!(name_secrets_in("API_TOKEN='open node", secret), None);
        assert_eq!(
            name_secrets_in("node API_TOKEN=x", secret).as_deref(),
            Some("node API_TOKEN=x"),
            "an argument is not an assignment"
        );
    }

    #[test]
    fn names_that_look_secret() {
        for name in [
            "API_TOKEN",
            "openai_api_key",
            "DB_PASSWORD",
            "GH_AUTH",
            "X_SECRET",
        ] {
            assert!(looks_secret(name), "{name}");
        }
        for name in ["PATH", "DEBUG", "ROOTS", "LOG_LEVEL"] {
            assert!(!looks_secret(name), "{name}");
        }
    }
}
