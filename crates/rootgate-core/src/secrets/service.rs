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
//! included. What is not here: which values are kept where (`secrets`,
//! `store`).

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use secret_service::{Collection, EncryptionType, Error};

use super::{KeyringError, SecretKey, SecretStore};

/// The attribute every item of Rootgate's carries.
pub const SERVICE: &str = "rootgate";

/// How long one call may wait for the keyring, the person's answer to an
/// unlock prompt included.
const PATIENCE: Duration = Duration::from_secs(60);

/// The desktop's keyring on the session bus.
pub struct SecretService;

/// The `username` attribute of `key`'s item.
pub fn username(key: &SecretKey) -> String {
    format!("{}/{}", key.server, key.name)
}

impl SecretStore for SecretService {
    fn get(&self, key: &SecretKey) -> Result<Option<String>, KeyringError> {
        let user = username(key);
        run(|| async {
            let ss = connect().await?;
            let collection = default_collection(&ss).await?;
            let items = collection.search_items(attributes(&user)).await?;
            let Some(item) = items.first() else {
                return Ok(None);
            };
            let bytes = item.get_secret().await?;
            String::from_utf8(bytes)
                .map(Some)
                .map_err(|_| Failure::Service(Error::Crypto("the value kept is not text")))
        })
    }

    fn set(&self, key: &SecretKey, label: &str, value: &str) -> Result<(), KeyringError> {
        let user = username(key);
        run(|| async {
            let ss = connect().await?;
            let collection = default_collection(&ss).await?;
            collection
                .create_item(
                    label,
                    attributes(&user),
                    value.as_bytes(),
                    true,
                    "text/plain",
                )
                .await?;
            Ok::<_, Failure>(())
        })
    }

    fn delete(&self, key: &SecretKey) -> Result<(), KeyringError> {
        let user = username(key);
        run(|| async {
            let ss = connect().await?;
            let collection = default_collection(&ss).await?;
            for item in collection.search_items(attributes(&user)).await? {
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

async fn connect() -> Result<secret_service::SecretService<'static>, Failure> {
    let bus = zbus::Connection::session().await.map_err(Failure::NoBus)?;
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
