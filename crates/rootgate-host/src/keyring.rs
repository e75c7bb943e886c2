//! The desktop's keyring, through the Secret Service API (GNOME Keyring,
//! KWallet, KeePassXC), on the `secret-service` crate.
//!
//! Each value is an item of the default collection (the login keyring)
//! with the attributes `service` = `rootgate` and `username` =
//! `SERVER_ID/VARIABLE`, the scheme of the `keyring` crate, so the
//! desktop's own tools find it: `secret-tool lookup service rootgate
//! username srv-…/API_TOKEN`. Values cross the bus encrypted (the API's
//! Diffie-Hellman session).
//!
//! Every call connects afresh, on a thread of its own with a small runtime
//! of its own: a call may come from a runtime's thread (a session starting
//! its server) or from none (a window's command), a keyring restarted
//! since the last call is found again, and no connection outlives the
//! runtime it was made on. A call waits at most a minute, an unlock prompt
//! included.
//!
//! Where the session bus is: where the process is told
//! (`DBUS_SESSION_BUS_ADDRESS`), else where the window said it was, else
//! the usual place (`$XDG_RUNTIME_DIR/bus`, `/run/user/UID/bus`). AI apps
//! start servers, and so bridges, with a reduced environment (the official
//! SDKs pass HOME, PATH, USER and a few more), which says nothing of the
//! session; where the bus is not at the usual place (`dbus-launch`, a bus
//! of a desktop without systemd) a bridge would find no keyring. So the
//! process that owns the settings records the address it was told in the
//! settings folder ([`record_bus`], a file of mode 0600 in the 0700
//! folder), and a bridge told nothing reads it there ([`find_bus_in`]).
//!
//! What is not here: which values are kept where, and under which name
//! (the model's `secrets` and `store`).

use std::collections::HashMap;
use std::future::Future;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use secret_service::{Collection, EncryptionType, Error};

use thiserror::Error as ThisError;

/// The attribute every item of Rootgate's carries.
const SERVICE: &str = "rootgate";

/// Why the keyring could not do what was asked. Its words never hold a
/// value.
#[derive(Debug, Clone, ThisError, PartialEq, Eq)]
pub enum KeyringError {
    /// No keyring can be used here: no session bus, no Secret Service on
    /// it, or a locked keyring that was not unlocked. What the person can
    /// do about it is in the words.
    #[error("{0}")]
    Unavailable(String),
    /// The keyring answered and failed the request.
    #[error("the keyring failed: {0}")]
    Failed(String),
}

/// How long one call may wait for the keyring, the person's answer to an
/// unlock prompt included.
const PATIENCE: Duration = Duration::from_secs(60);

/// The desktop's keyring on the session bus. Its items are found by their
/// `username` attribute, which the caller makes (the model's
/// `secrets::username`: `SERVER_ID/VARIABLE`); this type knows nothing of
/// servers.
pub struct SecretService;

impl SecretService {
    /// The value kept under `user`, if there is one.
    pub fn get(&self, user: &str) -> Result<Option<String>, KeyringError> {
        run(|| async {
            let ss = connect().await?;
            let collection = default_collection(&ss).await?;
            let items = collection.search_items(attributes(user)).await?;
            let Some(item) = items.first() else {
                return Ok(None);
            };
            let bytes = item.get_secret().await?;
            String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| Failure::Service(Error::Crypto("the value kept is not text")))
        })
    }

    /// Keeps `value` under `user`, replacing what was there; `label` is
    /// what the desktop's keyring manager shows for it.
    pub fn set(&self, user: &str, label: &str, value: &str) -> Result<(), KeyringError> {
        run(|| async {
            let ss = connect().await?;
            let collection = default_collection(&ss).await?;
            collection
                .create_item(
                    label,
                    attributes(user),
                    value.as_bytes(),
                    true,
                    "text/plain",
                )
                .await?;
            Ok::<_, Failure>(())
        })
    }

    /// Forgets the value kept under `user`; one that is not there is not
    /// an error.
    pub fn delete(&self, user: &str) -> Result<(), KeyringError> {
        run(|| async {
            let ss = connect().await?;
            let collection = default_collection(&ss).await?;
            for item in collection.search_items(attributes(user)).await? {
                item.delete().await?;
            }
            Ok::<_, Failure>(())
        })
    }
}

fn attributes(user: &str) -> HashMap<&str, &str> {
    HashMap::from([("service", SERVICE), ("username", user)])
}

/// Why a call failed, before it is put in words.
enum Failure {
    NoBus(zbus::Error),
    Service(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Service(e)
    }
}

/// The file, in the settings folder, that holds the window's bus address.
pub const BUS_FILE: &str = "session-bus";

/// The variable that says where the session bus is.
const BUS_VARIABLE: &str = "DBUS_SESSION_BUS_ADDRESS";

/// The settings folder a process told nothing of its session looks in.
static RECORDED_IN: OnceLock<PathBuf> = OnceLock::new();

/// Records where this process's session bus is, in the settings folder
/// `dir`, for bridges started without being told (see the module's
/// documentation). Nothing is written when this process was not told
/// either, or when the file says so already. Called by the process that
/// owns the settings.
pub fn record_bus(dir: &Path) -> std::io::Result<()> {
    let Some(address) = told_address() else {
        return Ok(());
    };
    // The settings' own folder, made as their first save makes it.
    crate::private_files::folder(dir)?;
    let path = dir.join(BUS_FILE);
    if std::fs::read_to_string(&path).is_ok_and(|now| now.trim() == address) {
        return Ok(());
    }
    // Written aside and renamed over, so a bridge never reads half of it.
    let tmp = dir.join(format!(".{BUS_FILE}.tmp-{}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| f.write_all(format!("{address}\n").as_bytes()))
        .and_then(|()| std::fs::rename(&tmp, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Makes this process look for the session bus in the settings folder
/// `dir` when it is not told where it is. The first folder given stays.
pub fn find_bus_in(dir: &Path) {
    let _ = RECORDED_IN.set(dir.to_path_buf());
}

/// The address this process was told, if any.
fn told_address() -> Option<String> {
    std::env::var(BUS_VARIABLE)
        .ok()
        .map(|a| a.trim().to_owned())
        .filter(|a| !a.is_empty())
}

/// The address the window recorded, when this process was told none.
fn recorded_address() -> Option<String> {
    if told_address().is_some() {
        return None;
    }
    let dir = RECORDED_IN.get()?;
    let text = std::fs::read_to_string(dir.join(BUS_FILE)).ok()?;
    Some(text.trim().to_owned()).filter(|a| !a.is_empty())
}

/// The session bus: where this process was told, else where the window
/// recorded it, else the usual place. A recorded bus that is gone (the
/// window's session ended) gives way to the usual place.
async fn session_bus() -> Result<zbus::Connection, zbus::Error> {
    if let Some(address) = recorded_address()
        && let Ok(builder) = zbus::connection::Builder::address(address.as_str())
        && let Ok(bus) = builder.build().await
    {
        return Ok(bus);
    }
    zbus::Connection::session().await
}

async fn connect() -> Result<secret_service::SecretService<'static>, Failure> {
    let bus = session_bus().await.map_err(Failure::NoBus)?;
    Ok(secret_service::SecretService::connect_with_existing(EncryptionType::Dh, bus).await?)
}

/// The default collection (the login keyring), unlocked: a locked one asks
/// the person, through the desktop's prompt.
async fn default_collection<'a>(
    ss: &'a secret_service::SecretService<'a>,
) -> Result<Collection<'a>, Failure> {
    let collection = ss.get_default_collection().await?;
    if collection.is_locked().await? {
        collection.unlock().await?;
    }
    Ok(collection)
}

/// Runs `call` on a thread of its own, on a runtime of its own, for at
/// most [`PATIENCE`], and puts its failure in words.
fn run<T, F, Fut>(call: F) -> Result<T, KeyringError>
where
    T: Send,
    F: FnOnce() -> Fut + Send,
    Fut: Future<Output = Result<T, Failure>>,
{
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| KeyringError::Failed(format!("could not start its runtime: {e}")))?;
            match runtime.block_on(async { tokio::time::timeout(PATIENCE, call()).await }) {
                Ok(Ok(value)) => Ok(value),
                Ok(Err(failure)) => Err(words(failure)),
                Err(_) => Err(KeyringError::Unavailable(format!(
                    "the keyring did not answer within {} seconds (is it waiting to be unlocked?)",
                    PATIENCE.as_secs()
                ))),
            }
        });
        worker
            .join()
            .unwrap_or_else(|_| Err(KeyringError::Failed("its thread panicked".into())))
    })
}

/// A failure in words a person can act on. Nothing in them comes from a
/// value: values cross the bus encrypted and are never formatted.
fn words(failure: Failure) -> KeyringError {
    let unavailable = |s: &str| KeyringError::Unavailable(s.to_owned());
    let no_service = "no keyring answers on the desktop's session bus: start one that offers the \
                      Secret Service API (GNOME Keyring, KWallet or KeePassXC)";
    match failure {
        Failure::NoBus(e) => KeyringError::Unavailable(format!(
            "there is no desktop session bus to find a keyring on ({e}); Rootgate keeps secrets \
             in the keyring of the desktop session it runs in"
        )),
        Failure::Service(Error::Unavailable) => unavailable(no_service),
        Failure::Service(Error::Locked | Error::Prompt | Error::PromptDisconnected) => {
            unavailable("the keyring is locked, and was not unlocked")
        }
        Failure::Service(Error::NoResult) => unavailable(
            "the keyring has no default collection to keep secrets in; create one, for example \
             with \"Passwords and Keys\" (Seahorse)",
        ),
        Failure::Service(e) => {
            let text = e.to_string();
            if text.contains("ServiceUnknown") || text.contains("NameHasNoOwner") {
                unavailable(no_service)
            } else {
                KeyringError::Failed(text)
            }
        }
    }
}
