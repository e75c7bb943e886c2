//! Putting the values a person typed where an app's placeholders stood:
//! [`put_in`] replaces each placeholder in one pass (a typed value is never
//! read again for placeholders, and a bare `$NAME` is replaced only whole),
//! and [`env_name`] and [`relied_on`] name the secret variable that gives a
//! value to an argument.
//!
//! What it does not do: decide what is secret or where a value goes
//! (`ImportPlan::fill`), or find the placeholders (`tokens`).

/// `text` with each placeholder of `pairs` replaced by its value, in one
/// pass, so that a value typed is never read again for placeholders. A bare
/// `$NAME` is replaced only whole (not the start of `$NAMED`), and
/// opencode's `{env:NAME}` not inside `${env:NAME}`, another form.
pub(super) fn put_in(text: &str, pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    'scan: while at < text.len() {
        let rest = &text[at..];
        // The longest first, so `${env:X}` wins over `{env:X}` within it.
        let mut matching: Vec<&(&str, &str)> = pairs
            .iter()
            .filter(|(form, _)| !form.is_empty() && rest.starts_with(form))
            .collect();
        matching.sort_by_key(|(form, _)| std::cmp::Reverse(form.len()));
        for (form, value) in matching {
            let after = &rest[form.len()..];
            let bare = form.starts_with('$') && !form.starts_with("${");
            let cut = bare && after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
            let inside = form.starts_with('{') && text[..at].ends_with('$');
            if !cut && !inside {
                out.push_str(value);
                at += form.len();
                continue 'scan;
            }
        }
        let Some(c) = rest.chars().next() else {
            break;
        };
        out.push(c);
        at += c.len_utf8();
    }
    out
}

/// A variable's name for the environment: letters, digits and `_`,
/// upper-cased (so that no name reads as Rootgate's own `${folders}`), not
/// starting with a digit.
pub(super) fn env_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// Whether a process relies on a variable of this name being what its
/// system set (its home, its search path, its session): a value the
/// person typed for an argument never takes its place.
pub(super) fn relied_on(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "PWD",
        "TMPDIR",
        "LANG",
        "TERM",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "DBUS_SESSION_BUS_ADDRESS",
    ];
    const PREFIXES: &[&str] = &["LD_", "LC_", "XDG_", "ROOTGATE_"];
    NAMES.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_replaced_whole_and_once() {
        let pairs = [("$X", "one"), ("$XY", "two"), ("${env:Z}", "three")];
        assert_eq!(put_in("$X-$XY-$Xz", &pairs), "one-two-$Xz");
        // A typed value holding a placeholder's text is left as typed.
        let typed = [("$A", "p$Bq"), ("$B", "no")];
        assert_eq!(put_in("$A/$B", &typed), "p$Bq/no");
        // opencode's form is not read inside the other form.
        let opencode = [("{env:Z}", "o")];
        assert_eq!(put_in("${env:Z} {env:Z}", &opencode), "${env:Z} o");
        assert_eq!(put_in("ünï $X", &pairs), "ünï one");
    }

    #[test]
    fn names_for_the_environment() {
        assert_eq!(env_name("GEMINI_DATA_TOKEN"), "GEMINI_DATA_TOKEN");
        assert_eq!(env_name("github-token"), "GITHUB_TOKEN");
        assert_eq!(
            env_name("folders"),
            "FOLDERS",
            "never Rootgate's own placeholder"
        );
        assert_eq!(env_name("1pass"), "_1PASS");
        assert!(relied_on("PATH") && relied_on("LD_PRELOAD") && !relied_on("API_KEY"));
    }
}
