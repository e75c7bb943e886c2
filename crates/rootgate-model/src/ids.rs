//! Stable identifiers for roots and servers.
//!
//! Identifiers are random, never derived from names or paths, so renaming a
//! server or a root keeps every grant and timeline entry attached to it. This
//! module only makes and carries identifiers; it does not know what they name.

use std::fmt;

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[derive(ts_rs::TS)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// A new random identifier.
            pub fn generate() -> Self {
                Self(format!(concat!($prefix, "-{}"), random_hex()))
            }

            /// Wraps an identifier received from the UI or a settings file.
            /// An unknown identifier is harmless: lookups simply fail.
            pub fn from_string(s: impl Into<String>) -> Self {
                Self(s.into())
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

id_type!(
    /// Identifies one root (a folder the person added).
    RootId,
    "root"
);
id_type!(
    /// Identifies one configured server.
    ServerId,
    "srv"
);
id_type!(
    /// Identifies one AI app's connection through a bridge.
    ConnectionId,
    "conn"
);

fn random_hex() -> String {
    let mut bytes = [0u8; 8];
    // The OS random source failing is not something a person can act on; a
    // time-based fallback still gives distinct identifiers in one process.
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        bytes = (nanos as u64).to_le_bytes();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Milliseconds since the Unix epoch: the one clock the settings file and the
/// timeline use, so the UI formats every moment the same way.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_prefixed_and_distinct() {
        let a = RootId::generate();
        let b = RootId::generate();
        assert!(a.as_str().starts_with("root-"));
        assert!(ServerId::generate().as_str().starts_with("srv-"));
        assert_ne!(a, b);
        assert_eq!(serde_json::to_string(&a).unwrap(), format!("\"{a}\""));
    }
}
