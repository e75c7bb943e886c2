//! The words about a server's secrets: which of its variables look secret
//! by their names ([`looks_secret`]), where the value of each secret one is
//! kept ([`SecretPlace`]), an approved command line with those values
//! written out ([`name_secrets_in`]), and the secrets written in its
//! arguments ([`arg_secrets`]): a Bearer token, a key with a known prefix
//! (`sk-`, `ghp_`, `github_pat_`, `xoxb-`, …), the value after `--token`,
//! `--api-key`, `--password` or `--secret`, an `Authorization:` header's.
//! An argument's secret is lifted into a secret variable of its own
//! ([`lift_arg_secrets`]: the argument then reads `${ARG_API_KEY}`, and the
//! value goes where every secret goes, the keyring), filled back in only
//! for the process at its start ([`fill_arg_secrets`]); one still written
//! in an argument (a settings file from before, an app's config) is shown
//! masked ([`mask_args`]).
//!
//! They describe a server's specification, so they live beside it; the
//! vault that reads and holds the values, and the keyring behind it, are
//! `secrets`. Nothing here reads or keeps a value.

use std::collections::BTreeMap;

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
pub(crate) fn name_secrets_in(line: &str, secret: impl Fn(&str) -> bool) -> Option<String> {
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

/// What a masked secret in an argument is shown as.
pub(crate) const MASKED: &str = "…";

/// Flags whose next argument (or value after `=`) is a secret, as their
/// names read with the dashes and underscores dropped and lower-cased.
const SECRET_FLAGS: &[&str] = &[
    "token",
    "apikey",
    "password",
    "passwd",
    "secret",
    "accesstoken",
    "authtoken",
    "bearertoken",
    "clientsecret",
    "apitoken",
    "accesskey",
    "secretkey",
    "privatetoken",
];

/// Headers whose value is a secret, lower-cased.
const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "x-auth-token",
];

/// Prefixes of keys issued by well-known services, and how many characters
/// must follow for a word to be taken as one (`sk-learn` is a package).
const KEY_PREFIXES: &[(&str, usize)] = &[
    ("sk-", 16),
    ("ghp_", 16),
    ("gho_", 16),
    ("ghu_", 16),
    ("ghs_", 16),
    ("ghr_", 16),
    ("github_pat_", 16),
    ("xoxa-", 8),
    ("xoxb-", 8),
    ("xoxp-", 8),
    ("xoxr-", 8),
    ("glpat-", 16),
];

/// A secret found in a server's arguments: the argument, the byte range
/// of the value in it, and a name for the variable it becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgSecret {
    pub arg: usize,
    pub start: usize,
    pub end: usize,
    /// `ARG_API_KEY`, `ARG_AUTHORIZATION`, `ARG_TOKEN`, …
    pub name: String,
}

/// A flag's name as [`SECRET_FLAGS`] has it.
fn flag_words(flag: &str) -> Option<String> {
    let name = flag.strip_prefix('-')?;
    let name = name.strip_prefix('-').unwrap_or(name);
    (!name.is_empty() && !name.starts_with('-')).then(|| {
        name.chars()
            .filter(|c| *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    })
}

/// The variable's name for a secret named by `word` (`api-key` →
/// `ARG_API_KEY`).
fn var_name(word: &str) -> String {
    let mut name = String::from("ARG_");
    for c in word.chars() {
        name.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        });
    }
    name
}

/// Whether a value is one to lift: not empty, not another flag, not
/// already a variable's reference, and not a path (`--secret
/// /etc/app/key.json` names a file the server reads, which the person
/// should see, and which a held server is given by its path).
fn worth_lifting(value: &str) -> bool {
    !value.is_empty()
        && !value.starts_with('-')
        && !value.contains("${")
        && !["/", "./", "../", "~/"]
            .iter()
            .any(|p| value.starts_with(p))
}

/// The secrets written in `args`, in order, at most one per argument.
pub fn arg_secrets(args: &[String]) -> Vec<ArgSecret> {
    let mut found = Vec::new();
    let mut after_flag: Option<String> = None;
    for (i, arg) in args.iter().enumerate() {
        if let Some(flag) = after_flag.take()
            && worth_lifting(arg)
        {
            found.push(ArgSecret {
                arg: i,
                start: 0,
                end: arg.len(),
                name: var_name(&flag),
            });
            continue;
        }
        if let Some(secret) = in_one_arg(i, arg, &mut after_flag) {
            found.push(secret);
        }
    }
    found
}

/// The secret written within one argument, if any; a secret flag written
/// alone sets `after_flag`, so that the next argument is taken.
fn in_one_arg(i: usize, arg: &str, after_flag: &mut Option<String>) -> Option<ArgSecret> {
    let at = |start: usize, end: usize, name: String| ArgSecret {
        arg: i,
        start,
        end,
        name,
    };
    if arg.starts_with('-') {
        let (flag, value) = match arg.split_once('=') {
            Some((flag, value)) => (flag, Some(value)),
            None => (arg, None),
        };
        if let Some(words) = flag_words(flag)
            && SECRET_FLAGS.contains(&words.as_str())
        {
            let word = flag.trim_start_matches('-');
            match value {
                Some(value) if worth_lifting(value) => {
                    return Some(at(flag.len() + 1, arg.len(), var_name(word)));
                }
                Some(_) => return None,
                None => {
                    *after_flag = Some(word.to_owned());
                    return None;
                }
            }
        }
    }
    if let Some(colon) = arg.find(':') {
        let header = arg[..colon].trim();
        let value = &arg[colon + 1..];
        if SECRET_HEADERS.contains(&header.to_ascii_lowercase().as_str()) {
            let lead = value.len() - value.trim_start().len();
            let mut start = colon + 1 + lead;
            // `Bearer xyz`: the scheme stays readable, the credential not.
            let rest = &arg[start..];
            if let Some((scheme, cred)) = rest.split_once(' ')
                && !scheme.is_empty()
                && scheme.chars().all(|c| c.is_ascii_alphabetic())
                && !cred.trim().is_empty()
            {
                start += scheme.len() + 1 + (cred.len() - cred.trim_start().len());
            }
            let end = arg.trim_end().len();
            if start < end && worth_lifting(&arg[start..end]) {
                return Some(at(start, end, var_name(header)));
            }
        }
    }
    if let Some(found) = bearer_in(arg) {
        return Some(at(found.0, found.1, "ARG_BEARER_TOKEN".into()));
    }
    prefixed_key_in(arg).map(|(start, end)| at(start, end, "ARG_TOKEN".into()))
}

/// Whether `c` may be part of a token.
fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/' | '=')
}

/// The token after a `Bearer ` anywhere in `arg`.
fn bearer_in(arg: &str) -> Option<(usize, usize)> {
    let lower = arg.to_ascii_lowercase();
    let mut from = 0;
    while let Some(pos) = lower[from..].find("bearer ") {
        let word = from + pos;
        let boundary = word == 0 || !arg[..word].ends_with(|c: char| c.is_ascii_alphanumeric());
        let start = word + "bearer ".len();
        let end = arg[start..]
            .find(|c: char| !token_char(c))
            .map_or(arg.len(), |n| start + n);
        if boundary && end > start && worth_lifting(&arg[start..end]) {
            return Some((start, end));
        }
        from = start;
    }
    None
}

/// The first word of `arg` that starts with a known key prefix and is long
/// enough to be a key.
fn prefixed_key_in(arg: &str) -> Option<(usize, usize)> {
    for (start, _) in arg.char_indices() {
        let boundary =
            start == 0 || !arg[..start].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if !boundary {
            continue;
        }
        for (prefix, least) in KEY_PREFIXES {
            if arg[start..].starts_with(prefix) {
                let body = start + prefix.len();
                let end = arg[body..]
                    .find(|c: char| !token_char(c))
                    .map_or(arg.len(), |n| body + n);
                if end - body >= *least {
                    return Some((start, end));
                }
            }
        }
    }
    None
}

/// `args` with every secret found in them written as [`MASKED`]: what a
/// person is shown of arguments that still hold their secrets.
pub fn mask_args(args: &[String]) -> Vec<String> {
    let mut out = args.to_vec();
    for secret in arg_secrets(args).iter().rev() {
        out[secret.arg].replace_range(secret.start..secret.end, MASKED);
    }
    out
}

/// The values of the secrets written in `args`, for masking them in text
/// that quotes them (a diff of an app's config).
pub fn arg_secret_values(args: &[String]) -> Vec<String> {
    arg_secrets(args)
        .into_iter()
        .map(|s| args[s.arg][s.start..s.end].to_owned())
        .collect()
}

/// Moves the secrets written in `args` into `env`, each under a name of
/// its own (`ARG_API_KEY`; `ARG_API_KEY_2` beside one taken), the argument
/// reading `${NAME}` in its place; one value written twice is one
/// variable. Returns the names made, which are secret whatever they look
/// like.
pub(crate) fn lift_arg_secrets(
    args: &mut [String],
    env: &mut BTreeMap<String, String>,
) -> Vec<String> {
    let mut made: Vec<String> = Vec::new();
    // In order, so that a value written twice is named by its first place;
    // an argument holds at most one secret, so no range moves.
    for secret in arg_secrets(args) {
        let value = args[secret.arg][secret.start..secret.end].to_owned();
        let name = match env
            .iter()
            .find(|(name, v)| **v == value && made.contains(name))
        {
            Some((name, _)) => name.clone(),
            None => {
                let mut name = secret.name.clone();
                let mut n = 2;
                while env.contains_key(&name) {
                    name = format!("{}_{n}", secret.name);
                    n += 1;
                }
                env.insert(name.clone(), value);
                made.push(name.clone());
                name
            }
        };
        args[secret.arg].replace_range(secret.start..secret.end, &format!("${{{name}}}"));
    }
    made
}

/// `args` as the process is given them: each `${NAME}` naming one of the
/// `secret` variables replaced by its value in `env`. Only secrets'
/// references are filled in; any other `${…}` is the argument's own.
pub fn fill_arg_secrets(
    args: &[String],
    secret: impl Fn(&str) -> bool,
    env: &BTreeMap<String, String>,
) -> Vec<String> {
    args.iter()
        .map(|arg| {
            let mut out = String::with_capacity(arg.len());
            let mut rest = arg.as_str();
            while let Some(open) = rest.find("${") {
                out.push_str(&rest[..open]);
                let after = &rest[open + 2..];
                match after.find('}') {
                    Some(close) if secret(&after[..close]) && env.contains_key(&after[..close]) => {
                        out.push_str(&env[&after[..close]]);
                        rest = &after[close + 1..];
                    }
                    _ => {
                        out.push_str("${");
                        rest = after;
                    }
                }
            }
            out.push_str(rest);
            out
        })
        .collect()
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

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn secrets_in_arguments_are_found_and_masked() {
        let key = "sk-proj-abcdefghijklmnop1234";
        let args = strings(&[
            "--header",
            &format!("Authorization: Bearer {key}"),
            "--api-key",
            "AKIA-not-a-flag-value",
            "--token=ghp_0123456789abcdefghij",
            "--password",
            "hunter22",
            "--secret=s3cr3t",
            &format!("https://x.test/?auth=Bearer {key}"),
            "xoxb-1234567890-abc",
            "github_pat_11ABCDEFG0123456789_xyz",
            "/home/a/notes",
            "--api-key",
            "${ARG_API_KEY}",
            "scikit-sk-learn",
            "sk-short",
        ]);
        assert_eq!(
            mask_args(&args),
            strings(&[
                "--header",
                "Authorization: Bearer …",
                "--api-key",
                "…",
                "--token=…",
                "--password",
                "…",
                "--secret=…",
                "https://x.test/?auth=Bearer …",
                "…",
                "…",
                "/home/a/notes",
                "--api-key",
                "${ARG_API_KEY}",
                "scikit-sk-learn",
                "sk-short",
            ])
        );
        assert_eq!(
            mask_args(&strings(&["--header", "X-API-Key:abc123", "-p", "8080"])),
            strings(&["--header", "X-API-Key:…", "-p", "8080"])
        );
        assert_eq!(
            mask_args(&strings(&["--secret", "/etc/app/key.json", "--token=./t"])),
            strings(&["--secret", "/etc/app/key.json", "--token=./t"]),
            "a path is not a secret"
        );
        assert_eq!(
            mask_args(&strings(&["--token", "--verbose"])),
            strings(&["--token", "--verbose"]),
            "a flag after a secret flag is not its value"
        );
    }

    #[test]
    fn an_arguments_secret_is_lifted_into_a_variable_and_filled_back_in() {
        let key = "sk-proj-abcdefghijklmnop1234";
        let original = strings(&[
            "--header",
            &format!("Authorization: Bearer {key}"),
            "--api-key",
            key,
            "--token=tok-123",
        ]);
        let mut args = original.clone();
        let mut env = BTreeMap::from([("ARG_TOKEN".to_string(), "other".to_string())]);
        let made = lift_arg_secrets(&mut args, &mut env);
        assert_eq!(
            args,
            strings(&[
                "--header",
                "Authorization: Bearer ${ARG_AUTHORIZATION}",
                "--api-key",
                "${ARG_AUTHORIZATION}",
                "--token=${ARG_TOKEN_2}",
            ]),
            "one value written twice is one variable; a taken name gets a number"
        );
        assert_eq!(made.len(), 2, "{made:?}");
        assert!(made.contains(&"ARG_TOKEN_2".to_string()));
        assert_eq!(env["ARG_AUTHORIZATION"], key);
        assert_eq!(env["ARG_TOKEN_2"], "tok-123");
        assert!(args.iter().all(|a| !a.contains(key)));
        let secret = |name: &str| made.iter().any(|m| m == name);
        assert_eq!(fill_arg_secrets(&args, secret, &env), original);
        assert_eq!(
            fill_arg_secrets(&strings(&["${HOME}", "${ARG_TOKEN}"]), secret, &env),
            strings(&["${HOME}", "${ARG_TOKEN}"]),
            "only secrets' references are filled in"
        );
        let again = lift_arg_secrets(&mut args, &mut env);
        assert!(again.is_empty(), "lifting twice changes nothing");
    }
}
