//! What the window may ask about a server's secrets: reveal one value the
//! person asked to see, and keep one where the person chose when no keyring
//! was available (the settings file, or not stored), or in the keyring when
//! it is there again. Also, once at open, values an earlier Rootgate kept
//! in the settings file move to the keyring.
//!
//! Every keyring call runs on the runtime's blocking threads: the keyring
//! may ask the person to unlock it, and neither the window's thread nor a
//! runtime's worker waits for that. What is not here: where values go when
//! a server is saved (the store) and how a start reads them (`session`).

use std::sync::Arc;

use super::sessions::Servers;
use super::{ServerView, SupervisorError};
use rootgate_model::ids::ServerId;
use rootgate_model::secrets::SecretError;
use rootgate_model::servers::SecretPlace;
use rootgate_model::store::{Store, StoreError};

impl Servers {
    /// The value of the secret variable `name` of server `id`, for the
    /// person who asked to see it. Never logged, never in the timeline.
    pub async fn reveal_secret(
        &self,
        id: &ServerId,
        name: &str,
    ) -> Result<String, SupervisorError> {
        let (id, name) = (id.clone(), name.to_owned());
        blocking(&self.ground.store, &name.clone(), move |store| {
            store.secret_value(&id, &name)
        })
        .await
    }

    /// Keeps the value of the secret `name` of server `id` where the person
    /// chose: `file` (the settings file, mode 0600), `notStored` (held until
    /// Rootgate quits), or `keyring` (tried again; refused in words when
    /// still none is available).
    pub async fn keep_secret(
        &self,
        id: &ServerId,
        name: &str,
        place: SecretPlace,
    ) -> Result<ServerView, SupervisorError> {
        let (owned_id, owned_name) = (id.clone(), name.to_owned());
        blocking(&self.ground.store, name, move |store| {
            store.keep_secret(&owned_id, &owned_name, place)
        })
        .await?;
        self.server(id)
    }

    /// Moves the values an earlier Rootgate kept in the settings file to
    /// the keyring, in the background: the window never waits for it, and
    /// each server whose values could not move says why (see
    /// `ServerView::keyring_problem`).
    pub(super) fn move_secrets_from_before(&self) {
        let waiting = self.ground.store.snapshot().servers.iter().any(|s| {
            s.secrets
                .values()
                .any(|p| *p == SecretPlace::FileUntilKeyring)
        });
        if !waiting {
            return;
        }
        let store = Arc::clone(&self.ground.store);
        self.ground
            .runtime
            .spawn_blocking(move || match store.move_secrets_from_before() {
                Ok(moved) => {
                    tracing::info!("{moved} secrets moved from the settings file to the keyring")
                }
                Err(e) => tracing::warn!(
                    "secrets kept in the settings file could not move to the keyring: {e}"
                ),
            });
    }
}

/// Runs `call` on the store on a blocking thread.
async fn blocking<T: Send + 'static>(
    store: &Arc<Store>,
    name: &str,
    call: impl FnOnce(&Store) -> Result<T, StoreError> + Send + 'static,
) -> Result<T, SupervisorError> {
    let store = Arc::clone(store);
    tokio::task::spawn_blocking(move || call(&store))
        .await
        .unwrap_or_else(|e| {
            Err(StoreError::Secret(SecretError::KeyringFailed {
                name: name.to_owned(),
                reason: e.to_string(),
            }))
        })
        .map_err(SupervisorError::from)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::supervisor::{RestartPolicy, Supervisor};
    use rootgate_model::secrets::{MemoryKeyring, Secrets};
    use rootgate_model::servers::ServerDraft;
    use rootgate_model::settings::SettingsFile;
    use rootgate_session::{SessionConfig, Status};

    const VALUE: &str = "sk-live-supervisor-test";

    fn open(file: &SettingsFile, keyring: &Arc<MemoryKeyring>) -> Arc<Supervisor> {
        let secrets = Secrets::new(keyring.clone());
        Supervisor::open_with_secrets(
            file.clone(),
            SessionConfig::default(),
            RestartPolicy::default(),
            secrets,
        )
        .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn without_a_keyring_the_window_is_told_and_the_person_chooses() {
        let dir = tempfile::tempdir().unwrap();
        let file = SettingsFile::at(dir.path().join("settings.json"));
        let keyring = Arc::new(MemoryKeyring::default());
        keyring.set_unavailable(Some("no keyring answers"));
        let sup = open(&file, &keyring);
        let view = sup
            .servers()
            .add_server(ServerDraft {
                name: "s".into(),
                command: "/bin/true".into(),
                env: [("API_TOKEN".to_owned(), VALUE.to_owned())].into(),
                ..Default::default()
            })
            .unwrap();
        let id = view.spec.id.clone();
        assert_eq!(view.spec.secrets["API_TOKEN"], SecretPlace::NotStored);
        assert_eq!(view.keyring_problem.as_deref(), Some("no keyring answers"));
        assert!(view.missing_secrets.is_empty(), "held while Rootgate runs");
        assert!(!serde_json::to_string(&view).unwrap().contains(VALUE));
        assert_eq!(
            sup.servers().reveal_secret(&id, "API_TOKEN").await.unwrap(),
            VALUE
        );
        sup.servers()
            .approve_command(&id, &view.command_line)
            .unwrap();
        sup.shutdown().await;
        drop(sup);

        // Rootgate starts again: the value was not stored, so the server
        // waits for it, and a start says why.
        let sup = open(&file, &keyring);
        let view = sup.servers().server(&id).unwrap();
        assert_eq!(view.missing_secrets, vec!["API_TOKEN".to_owned()]);
        assert!(matches!(
            sup.servers().reveal_secret(&id, "API_TOKEN").await,
            Err(SupervisorError::Store(StoreError::Secret(
                SecretError::NotHeld(_)
            )))
        ));
        sup.servers().start(&id).unwrap();
        let failed = sup
            .servers()
            .session_of(&id)
            .unwrap()
            .wait_for(Duration::from_secs(10), |s| {
                matches!(s, Status::Failed { .. })
            })
            .await;
        let Status::Failed { reason } = failed else {
            panic!("{failed:?}")
        };
        assert!(reason.starts_with("API_TOKEN was not stored"), "{reason}");

        // Given again, and kept in the settings file as the person chose.
        let mut draft = view.spec.to_draft();
        draft.env.insert("API_TOKEN".into(), VALUE.into());
        let given = sup.servers().update_server(&id, draft).await.unwrap();
        assert!(given.missing_secrets.is_empty());
        assert_eq!(given.keyring_problem.as_deref(), Some("no keyring answers"));
        // The person chooses not to store it: nothing waits for a choice.
        let declined = sup
            .servers()
            .keep_secret(&id, "API_TOKEN", SecretPlace::NotStored)
            .await
            .unwrap();
        assert_eq!(declined.spec.secrets["API_TOKEN"], SecretPlace::NotStored);
        assert_eq!(declined.keyring_problem, None);
        let kept = sup
            .servers()
            .keep_secret(&id, "API_TOKEN", SecretPlace::File)
            .await
            .unwrap();
        assert_eq!(kept.spec.secrets["API_TOKEN"], SecretPlace::File);
        assert_eq!(kept.spec.env["API_TOKEN"], "", "the window gets no value");
        assert_eq!(kept.keyring_problem, None);
        assert!(kept.approved, "the approval covers the name");
        let settings = std::fs::read_to_string(file.path()).unwrap();
        assert!(settings.contains(VALUE), "in the settings file, as chosen");
        sup.shutdown().await;
    }
}
