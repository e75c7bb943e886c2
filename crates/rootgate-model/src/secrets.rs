//! Secret environment values: which of a server's variables are secret,
//! where each value is kept, and the keyring that keeps most of them.
//!
//! A variable is secret when the person marks it so, and by default when
//! its name looks like one (`servers::looks_secret`). Its value is kept in one of
//! the places of `servers::SecretPlace`: the desktop's keyring through the Secret
//! Service API (`rootgate_host::keyring`), the settings file when the person chose that
//! because no keyring was available, or nowhere but this process's memory
//! when they chose not to store it. The settings file then holds the
//! variable's name and where its value is, never the value.
//!
//! [`Secrets`] is the one place values are read from (for a start, or a
//! reveal the person asked for) and held in memory; the keyring behind it is
//! a [`SecretStore`], the real one or, in tests, [`MemoryKeyring`]. Also
//! here: what a server prints of its values is written out of its log
//! ([`redact`]), and an approval given before a variable was secret has its
//! value written out (`servers::name_secrets_in`).
//!
//! What is not here: deciding when a value is saved or moved (the `store`
//! does, when a server is saved, and at the person's choice), and showing
//! anything. Nothing in this module formats a value into a message.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use rootgate_host::keyring::SecretService;
use thiserror::Error;

// The keyring's failure is its own crate's word (`rootgate-host`, where the
// Secret Service is spoken); named here too, as every keyring says it.
pub use rootgate_host::keyring::KeyringError;

use crate::ids::ServerId;
use crate::servers::{SecretPlace, ServerSpec};

/// One secret value's address: the server and the variable's name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SecretKey {
    pub server: ServerId,
    pub name: String,
}

impl SecretKey {
    pub fn new(server: &ServerId, name: &str) -> SecretKey {
        SecretKey {
            server: server.clone(),
            name: name.to_owned(),
        }
    }
}

/// A keyring: values by server and variable name. Calls block until the
/// keyring answers (the real one runs each call on a thread of its own, so
/// they may be made from anywhere, a runtime's thread included).
pub trait SecretStore: Send + Sync {
    /// The value kept for `key`, if there is one.
    fn get(&self, key: &SecretKey) -> Result<Option<String>, KeyringError>;
    /// Keeps `value` for `key`, replacing what was there; `label` is what
    /// the desktop's keyring manager shows for it.
    fn set(&self, key: &SecretKey, label: &str, value: &str) -> Result<(), KeyringError>;
    /// Forgets the value of `key`; forgetting one that is not there is not
    /// an error.
    fn delete(&self, key: &SecretKey) -> Result<(), KeyringError>;
}

/// The `username` attribute of `key`'s item in the desktop's keyring,
/// the scheme of the `keyring` crate (`SERVER_ID/VARIABLE`), so the
/// desktop's own tools find it: `secret-tool lookup service rootgate
/// username srv-…/API_TOKEN`.
pub fn username(key: &SecretKey) -> String {
    format!("{}/{}", key.server, key.name)
}

/// The desktop's keyring, addressed by server and variable.
impl SecretStore for SecretService {
    fn get(&self, key: &SecretKey) -> Result<Option<String>, KeyringError> {
        SecretService::get(self, &username(key))
    }

    fn set(&self, key: &SecretKey, label: &str, value: &str) -> Result<(), KeyringError> {
        SecretService::set(self, &username(key), label, value)
    }

    fn delete(&self, key: &SecretKey) -> Result<(), KeyringError> {
        SecretService::delete(self, &username(key))
    }
}

/// A keyring in memory, for tests: the app never uses it. It can be made
/// unavailable, as a desktop without a keyring is.
#[derive(Default)]
pub struct MemoryKeyring {
    values: Mutex<BTreeMap<SecretKey, String>>,
    unavailable: Mutex<Option<String>>,
}

impl MemoryKeyring {
    /// Makes every call fail as an unavailable keyring does, with `reason`,
    /// or work again with `None`.
    pub fn set_unavailable(&self, reason: Option<&str>) {
        *lock(&self.unavailable) = reason.map(str::to_owned);
    }

    /// Every key that has a value, in order.
    pub fn keys(&self) -> Vec<SecretKey> {
        lock(&self.values).keys().cloned().collect()
    }

    fn check(&self) -> Result<(), KeyringError> {
        match &*lock(&self.unavailable) {
            Some(reason) => Err(KeyringError::Unavailable(reason.clone())),
            None => Ok(()),
        }
    }
}

impl SecretStore for MemoryKeyring {
    fn get(&self, key: &SecretKey) -> Result<Option<String>, KeyringError> {
        self.check()?;
        Ok(lock(&self.values).get(key).cloned())
    }

    fn set(&self, key: &SecretKey, _label: &str, value: &str) -> Result<(), KeyringError> {
        self.check()?;
        lock(&self.values).insert(key.clone(), value.to_owned());
        Ok(())
    }

    fn delete(&self, key: &SecretKey) -> Result<(), KeyringError> {
        self.check()?;
        lock(&self.values).remove(key);
        Ok(())
    }
}

/// Why a secret's value cannot be had (or kept). The words name the
/// variable, never its value.
#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum SecretError {
    #[error("{name} is kept in the keyring, which is not available: {reason}")]
    NoKeyring { name: String, reason: String },
    #[error("no keyring is available to keep {name} in: {reason}")]
    CannotStore { name: String, reason: String },
    #[error("{name} could not be read from the keyring: {reason}")]
    KeyringFailed { name: String, reason: String },
    #[error(
        "{0} is not in the keyring any more (was it removed there?); give its value again in the \
         server's settings"
    )]
    NotInKeyring(String),
    #[error(
        "{0} was not stored (there was no keyring to keep it in), and Rootgate has started again since; give its value \
         again in the server's settings"
    )]
    NotHeld(String),
    #[error("{0} is not a secret variable of this server")]
    NotSecret(String),
}

impl SecretError {
    /// Whether the cause is that no keyring is available: what the person
    /// answers by choosing where the value goes instead.
    pub fn is_no_keyring(&self) -> bool {
        matches!(
            self,
            SecretError::NoKeyring { .. } | SecretError::CannotStore { .. }
        )
    }
}

/// Secret values given to a process: a map whose `Debug` shows only the
/// names, so that no log or panic message can print a value.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SecretValues(pub BTreeMap<String, String>);

impl fmt::Debug for SecretValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|k| (k, "…")))
            .finish()
    }
}

/// Values are at least this long to be written out of a server's stderr:
/// a shorter one ("1", "yes") is more often an ordinary word than a secret
/// shown, and writing it out everywhere would garble the log.
const REDACTED_AT_LEAST: usize = 4;

impl SecretValues {
    /// The values to write out of what the server prints (see
    /// `session::connection`), longest first so that a value containing
    /// another is written out whole.
    pub fn redactions(&self) -> Vec<Vec<u8>> {
        self.redactions_with(None)
    }

    /// [`SecretValues::redactions`] with the values of `spec`'s secrets
    /// kept in its `env` (the settings file) too.
    pub fn redactions_with(&self, spec: Option<&ServerSpec>) -> Vec<Vec<u8>> {
        let in_env = spec
            .into_iter()
            .flat_map(|spec| spec.secrets.keys().filter_map(|name| spec.env.get(name)));
        let mut values: Vec<Vec<u8>> = self
            .0
            .values()
            .chain(in_env)
            .filter(|v| v.len() >= REDACTED_AT_LEAST)
            .map(|v| v.as_bytes().to_vec())
            .collect();
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        values
    }
}

/// `text` with every value of `redactions` (see
/// [`SecretValues::redactions`]) written out as `…`: a line a server
/// printed, before it is kept in its log. Borrowed as it is when it holds
/// none, which is nearly always.
pub fn redact<'a>(text: &'a [u8], redactions: &[Vec<u8>]) -> std::borrow::Cow<'a, [u8]> {
    let mut out = std::borrow::Cow::Borrowed(text);
    for value in redactions {
        if memchr::memmem::find(&out, value).is_none() {
            continue;
        }
        let replaced = {
            let mut replaced = Vec::with_capacity(out.len());
            let mut rest: &[u8] = &out;
            while let Some(at) = memchr::memmem::find(rest, value) {
                replaced.extend_from_slice(&rest[..at]);
                replaced.extend_from_slice("…".as_bytes());
                rest = &rest[at + value.len()..];
            }
            replaced.extend_from_slice(rest);
            replaced
        };
        out = std::borrow::Cow::Owned(replaced);
    }
    out
}

/// The values of secrets as this process knows them: the keyring, and the
/// values held in memory only (those not stored).
pub struct Secrets {
    keyring: Arc<dyn SecretStore>,
    held: Mutex<HashMap<SecretKey, String>>,
    /// Why each server's secrets last failed to reach the keyring, in the
    /// keyring's words; gone once they are where the person wants them.
    problems: Mutex<HashMap<ServerId, String>>,
    /// Servers given a new value for a secret since this was last asked:
    /// a running one starts again to use it.
    rotated: Mutex<std::collections::HashSet<ServerId>>,
    /// Secrets the person chose not to store: they wait for no choice any
    /// more. Forgotten when Rootgate quits, so that after a restart (when
    /// the value is asked for again) the person chooses again.
    declined: Mutex<std::collections::HashSet<SecretKey>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section here leaves its map whole.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Secrets {
    pub fn new(keyring: Arc<dyn SecretStore>) -> Arc<Secrets> {
        Arc::new(Secrets {
            keyring,
            held: Mutex::new(HashMap::new()),
            problems: Mutex::new(HashMap::new()),
            rotated: Mutex::new(std::collections::HashSet::new()),
            declined: Mutex::new(std::collections::HashSet::new()),
        })
    }

    /// This process's secrets, on the desktop's keyring (the Secret
    /// Service). Nothing connects to it until a value is asked for or kept.
    pub fn system() -> Arc<Secrets> {
        static SYSTEM: OnceLock<Arc<Secrets>> = OnceLock::new();
        Arc::clone(SYSTEM.get_or_init(|| Secrets::new(Arc::new(SecretService))))
    }

    pub fn keyring(&self) -> &dyn SecretStore {
        &*self.keyring
    }

    /// Holds `value` in memory for `key`, for as long as this process runs.
    pub fn hold(&self, key: SecretKey, value: String) {
        lock(&self.held).insert(key, value);
    }

    /// Stops holding the value of `key` in memory (it is kept elsewhere
    /// now, or gone), and forgets that the person chose not to store it.
    pub fn release(&self, key: &SecretKey) {
        lock(&self.held).remove(key);
        lock(&self.declined).remove(key);
    }

    /// Notes that the person chose not to store the value of `key`: it no
    /// longer waits for their choice (see [`Secrets::waiting`]).
    pub(crate) fn decline(&self, key: SecretKey) {
        lock(&self.declined).insert(key);
    }

    /// Whether some of `spec`'s secrets wait for the person to choose where
    /// they go: not stored, when the person has not chosen that, or still
    /// in the file where a Rootgate from before secrets wrote them.
    pub fn waiting(&self, spec: &ServerSpec) -> bool {
        let declined = lock(&self.declined);
        spec.secrets.iter().any(|(name, place)| match place {
            SecretPlace::FileUntilKeyring => true,
            SecretPlace::NotStored => !declined.contains(&SecretKey::new(&spec.id, name)),
            SecretPlace::Keyring | SecretPlace::File => false,
        })
    }

    pub fn held(&self, key: &SecretKey) -> Option<String> {
        lock(&self.held).get(key).cloned()
    }

    /// Records why a server's secrets are not in the keyring (or, with
    /// `None`, that nothing stands in their way any more).
    pub(crate) fn set_problem(&self, server: &ServerId, problem: Option<String>) {
        let mut problems = lock(&self.problems);
        match problem {
            Some(p) => problems.insert(server.clone(), p),
            None => problems.remove(server),
        };
    }

    /// Why some of `spec`'s secrets are not in the keyring, when some wait
    /// for the person's choice (see [`Secrets::waiting`]).
    pub fn problem(&self, spec: &ServerSpec) -> Option<String> {
        self.waiting(spec)
            .then(|| lock(&self.problems).get(&spec.id).cloned())
            .flatten()
    }

    /// Notes that `server` was given a new value for a secret.
    pub(crate) fn note_rotated(&self, server: &ServerId) {
        lock(&self.rotated).insert(server.clone());
    }

    /// Whether `server` was given a new value for a secret since the last
    /// time this was asked: a running server starts again to use it.
    pub fn take_rotated(&self, server: &ServerId) -> bool {
        lock(&self.rotated).remove(server)
    }

    /// Forgets everything held about a removed server.
    pub(crate) fn forget_server(&self, server: &ServerId) {
        lock(&self.held).retain(|k, _| &k.server != server);
        lock(&self.problems).remove(server);
        lock(&self.rotated).remove(server);
        lock(&self.declined).retain(|k| &k.server != server);
    }

    /// The secret variables of `spec` whose values this process does not
    /// have: not stored, and not given since Rootgate started. The server
    /// cannot start until they are.
    pub fn missing(&self, spec: &ServerSpec) -> Vec<String> {
        let held = lock(&self.held);
        spec.secrets
            .iter()
            .filter(|(name, place)| {
                **place == SecretPlace::NotStored
                    && !held.contains_key(&SecretKey::new(&spec.id, name))
            })
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The value of the secret variable `name` of `spec`, wherever it is
    /// kept. Blocks while the keyring answers.
    pub fn value(&self, spec: &ServerSpec, name: &str) -> Result<String, SecretError> {
        let place = *spec
            .secrets
            .get(name)
            .ok_or_else(|| SecretError::NotSecret(name.to_owned()))?;
        let key = SecretKey::new(&spec.id, name);
        // A value held in memory is the newest one given: the spec a
        // session holds may predate the person's choice not to store it.
        if let Some(value) = self.held(&key) {
            return Ok(value);
        }
        match place {
            SecretPlace::File | SecretPlace::FileUntilKeyring => {
                Ok(spec.env.get(name).cloned().unwrap_or_default())
            }
            SecretPlace::NotStored => Err(SecretError::NotHeld(name.to_owned())),
            SecretPlace::Keyring => match self.keyring.get(&key) {
                Ok(Some(value)) => Ok(value),
                Ok(None) => Err(SecretError::NotInKeyring(name.to_owned())),
                Err(KeyringError::Unavailable(reason)) => Err(SecretError::NoKeyring {
                    name: name.to_owned(),
                    reason,
                }),
                Err(KeyringError::Failed(reason)) => Err(SecretError::KeyringFailed {
                    name: name.to_owned(),
                    reason,
                }),
            },
        }
    }

    /// The values a start of `spec` adds to its environment: each secret
    /// kept outside the spec (in the keyring or in memory). Those in the
    /// settings file are in its `env` already. Blocks while the keyring
    /// answers; nothing connects to it when no secret is kept there.
    pub fn values_for_start(&self, spec: &ServerSpec) -> Result<SecretValues, SecretError> {
        let mut values = BTreeMap::new();
        for (name, place) in &spec.secrets {
            let held = self.held(&SecretKey::new(&spec.id, name));
            if place.in_file() && held.is_none() {
                continue;
            }
            let value = match held {
                Some(value) => value,
                None => self.value(spec, name)?,
            };
            values.insert(name.clone(), value);
        }
        Ok(SecretValues(values))
    }
}

/// The label the desktop's keyring manager shows for a value.
pub fn label(server_name: &str, variable: &str) -> String {
    format!("Rootgate: {variable} of the server \u{201c}{server_name}\u{201d}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::servers::ServerDraft;

    fn spec_with(places: &[(&str, SecretPlace, &str)]) -> ServerSpec {
        let mut spec = ServerDraft {
            name: "s".into(),
            command: "x".into(),
            ..Default::default()
        }
        .validate(ServerId::generate(), [])
        .unwrap();
        for (name, place, value) in places {
            spec.env.insert((*name).into(), (*value).into());
            spec.secrets.insert((*name).into(), *place);
        }
        spec
    }

    #[test]
    fn each_place_gives_its_value_and_says_why_it_cannot() {
        let keyring = Arc::new(MemoryKeyring::default());
        let secrets = Secrets::new(keyring.clone());
        let spec = spec_with(&[
            ("IN_KEYRING", SecretPlace::Keyring, ""),
            ("IN_FILE", SecretPlace::File, "from-file"),
            ("NOT_STORED", SecretPlace::NotStored, ""),
        ]);
        let key = |name: &str| SecretKey::new(&spec.id, name);
        keyring
            .set(&key("IN_KEYRING"), "label", "from-keyring")
            .unwrap();
        assert_eq!(secrets.value(&spec, "IN_FILE").unwrap(), "from-file");
        assert_eq!(secrets.value(&spec, "IN_KEYRING").unwrap(), "from-keyring");
        assert_eq!(
            secrets.value(&spec, "NOT_STORED"),
            Err(SecretError::NotHeld("NOT_STORED".into()))
        );
        assert_eq!(secrets.missing(&spec), vec!["NOT_STORED".to_owned()]);
        assert_eq!(
            secrets.value(&spec, "PATH"),
            Err(SecretError::NotSecret("PATH".into()))
        );
        secrets.hold(key("NOT_STORED"), "from-memory".into());
        assert!(secrets.missing(&spec).is_empty());
        let start = secrets.values_for_start(&spec).unwrap();
        assert_eq!(
            start.0.keys().collect::<Vec<_>>(),
            ["IN_KEYRING", "NOT_STORED"],
            "a value in the file is in the spec's env already"
        );
        assert_eq!(
            format!("{start:?}"),
            r#"{"IN_KEYRING": "…", "NOT_STORED": "…"}"#
        );

        keyring.set_unavailable(Some("no session bus"));
        let err = secrets.values_for_start(&spec).unwrap_err();
        assert!(err.is_no_keyring());
        assert_eq!(
            err.to_string(),
            "IN_KEYRING is kept in the keyring, which is not available: no session bus"
        );
        keyring.set_unavailable(None);
        keyring.delete(&key("IN_KEYRING")).unwrap();
        assert_eq!(
            secrets.value(&spec, "IN_KEYRING"),
            Err(SecretError::NotInKeyring("IN_KEYRING".into()))
        );
    }

    #[test]
    fn a_problem_shows_only_while_a_secret_waits_for_a_choice() {
        let secrets = Secrets::new(Arc::new(MemoryKeyring::default()));
        let waiting = spec_with(&[("T", SecretPlace::NotStored, "")]);
        secrets.set_problem(&waiting.id, Some("no keyring".into()));
        assert_eq!(secrets.problem(&waiting).as_deref(), Some("no keyring"));
        let mut chosen = waiting.clone();
        chosen.secrets.insert("T".into(), SecretPlace::File);
        assert_eq!(secrets.problem(&chosen), None);
        // Chosen not to be stored: it waits no more, until it is kept
        // elsewhere (or Rootgate starts again, which forgets the choice).
        let key = SecretKey::new(&waiting.id, "T");
        secrets.decline(key.clone());
        assert!(!secrets.waiting(&waiting));
        assert_eq!(secrets.problem(&waiting), None);
        secrets.release(&key);
        assert_eq!(secrets.problem(&waiting).as_deref(), Some("no keyring"));
        secrets.decline(key);
        secrets.forget_server(&waiting.id);
        assert!(
            secrets.waiting(&waiting),
            "the choice is forgotten with the server"
        );
        assert_eq!(secrets.problem(&waiting), None);
    }

    #[test]
    fn a_printed_value_is_written_out_of_the_line() {
        let values = SecretValues(BTreeMap::from([
            ("A".into(), "sk-live-1".into()),
            ("B".into(), "sk-live-1-and-more".into()),
        ]));
        let redactions = values.redactions();
        assert_eq!(
            &*redact(b"token sk-live-1-and-more, again sk-live-1.", &redactions),
            "token …, again ….".as_bytes()
        );
        assert!(matches!(
            redact(b"nothing here", &redactions),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn redactions_are_the_longer_values_longest_first() {
        let values = SecretValues(BTreeMap::from([
            ("A".into(), "abc".into()),
            ("B".into(), "secret".into()),
            ("C".into(), "secret-and-more".into()),
        ]));
        assert_eq!(
            values.redactions(),
            vec![b"secret-and-more".to_vec(), b"secret".to_vec()]
        );
        // A value kept in the settings file is written out of a log too.
        let spec = spec_with(&[("IN_FILE", SecretPlace::File, "from-the-file")]);
        assert_eq!(
            SecretValues::default().redactions_with(Some(&spec)),
            vec![b"from-the-file".to_vec()]
        );
    }
}
