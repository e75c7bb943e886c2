//! The store's side of secrets: where the values of a server's secret
//! variables go when it is saved, where they move at the person's choice,
//! and that they are forgotten with it.
//!
//! A value goes to the keyring before the settings file that names it is
//! saved, so the file never names a value that is nowhere. When no keyring
//! is available, a new value is held in memory only (not stored) until the
//! person chooses where it goes ([`Store::keep_secret`]); one they chose to
//! keep in the file stays there. A keyring call blocks, and is never made
//! while the store's lock is held. A save that fails after a new value
//! reached the keyring leaves it there: the keyring has the newest value
//! given, which the next save refers to.
//!
//! What is not here: the keyring itself and reading values for a start
//! (`crate::secrets`).

use super::{Store, StoreError, find_server};
use crate::ids::ServerId;
use crate::secrets::{SecretError, SecretKey, label};
use crate::servers::SecretPlace;
use crate::servers::ServerSpec;

/// A saved server's spec once its secrets' values are kept, and what to
/// forget once it is saved: secrets it no longer has.
pub(super) struct Kept {
    pub(super) spec: ServerSpec,
    pub(super) forget: Vec<(SecretKey, SecretPlace)>,
}

impl Store {
    /// Keeps the values of `spec`'s secrets (as validated, in its `env`)
    /// where they go, given `previous`, the same server before an edit. An
    /// empty value keeps what the secret had; a variable that stops being
    /// secret without a new value gets its value back in `env`.
    pub(super) fn keep_values(
        &self,
        mut spec: ServerSpec,
        previous: Option<&ServerSpec>,
    ) -> Result<Kept, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        let mut problem = None;
        let names: Vec<String> = spec.secrets.keys().cloned().collect();
        for name in names {
            let before = previous.and_then(|p| p.secrets.get(&name).copied());
            let given = spec.env.get(&name).cloned().unwrap_or_default();
            let value = match (given.is_empty(), before) {
                (false, before) => {
                    let same_as_in_file = before.is_some_and(SecretPlace::in_file)
                        && given == previous_value(previous, &name);
                    if before.is_some() && !same_as_in_file {
                        self.secrets.note_rotated(&spec.id);
                    }
                    given
                }
                // Kept as it was, except one still where an earlier Rootgate
                // left it, which moves now if it can.
                (true, Some(SecretPlace::FileUntilKeyring)) => previous_value(previous, &name),
                (true, Some(place)) => {
                    put(&mut spec, &name, place, &previous_value(previous, &name));
                    continue;
                }
                // A new secret with no value: nothing to keep.
                (true, None) => continue,
            };
            if value.is_empty() {
                continue;
            }
            if let Err(reason) = self.keep_one(&mut spec, &name, value, before) {
                problem = Some(reason);
            }
        }
        let forget = self.unmarked(&mut spec, previous)?;
        self.note_problem(&spec, problem);
        Ok(Kept { spec, forget })
    }

    /// Puts one new value in the keyring, or, when none is available,
    /// where it was chosen to be (the file) or in memory. Returns why the
    /// keyring could not take it.
    fn keep_one(
        &self,
        spec: &mut ServerSpec,
        name: &str,
        value: String,
        before: Option<SecretPlace>,
    ) -> Result<(), String> {
        let key = SecretKey::new(&spec.id, name);
        match self
            .secrets
            .keyring()
            .set(&key, &label(&spec.name, name), &value)
        {
            Ok(()) => {
                self.secrets.release(&key);
                put(spec, name, SecretPlace::Keyring, "");
                Ok(())
            }
            Err(e) => {
                match before {
                    Some(place @ (SecretPlace::File | SecretPlace::FileUntilKeyring)) => {
                        put(spec, name, place, &value);
                    }
                    _ => {
                        self.secrets.hold(key, value);
                        put(spec, name, SecretPlace::NotStored, "");
                    }
                }
                Err(e.to_string())
            }
        }
    }

    /// The secrets of `previous` that `spec` no longer has, to forget once
    /// it is saved; one made plain with no new value gets its value back.
    fn unmarked(
        &self,
        spec: &mut ServerSpec,
        previous: Option<&ServerSpec>,
    ) -> Result<Vec<(SecretKey, SecretPlace)>, StoreError> {
        let Some(previous) = previous else {
            return Ok(Vec::new());
        };
        let mut forget = Vec::new();
        for (name, place) in &previous.secrets {
            if spec.secrets.contains_key(name) {
                continue;
            }
            if spec.env.get(name).is_some_and(String::is_empty) {
                let value = self.secrets.value(previous, name)?;
                spec.env.insert(name.clone(), value);
            }
            forget.push((SecretKey::new(&spec.id, name), *place));
        }
        Ok(forget)
    }

    /// Remembers why `spec`'s secrets could not reach the keyring, or
    /// forgets it once none waits for the person's choice.
    fn note_problem(&self, spec: &ServerSpec, problem: Option<String>) {
        let waiting = self.secrets.waiting(spec);
        match problem {
            Some(problem) => self.secrets.set_problem(&spec.id, Some(problem)),
            None if !waiting => self.secrets.set_problem(&spec.id, None),
            None => {}
        }
    }

    /// Forgets the values of secrets a saved server no longer has: in
    /// memory, and in the keyring for those kept there. A keyring that
    /// cannot forget one is told in the log (the value stays there, named
    /// after a variable no server has).
    pub(super) fn forget_values(&self, forget: &[(SecretKey, SecretPlace)]) {
        for (key, place) in forget {
            self.secrets.release(key);
            if *place == SecretPlace::Keyring
                && let Err(e) = self.secrets.keyring().delete(key)
            {
                tracing::warn!(server = %key.server, variable = %key.name,
                    "could not remove a secret from the keyring: {e}");
            }
        }
    }

    /// Forgets every value of `spec`'s secrets, and what is held about it:
    /// the server is gone, or was never added.
    pub(super) fn forget_all_values(&self, spec: &ServerSpec) {
        let all: Vec<(SecretKey, SecretPlace)> = spec
            .secrets
            .iter()
            .map(|(name, place)| (SecretKey::new(&spec.id, name), *place))
            .collect();
        self.forget_values(&all);
        self.secrets.forget_server(&spec.id);
    }

    /// The value of the secret variable `name` of server `id`, wherever it
    /// is kept: what a reveal the person asked for shows. Blocks while the
    /// keyring answers.
    pub fn secret_value(&self, id: &ServerId, name: &str) -> Result<String, StoreError> {
        let spec = self.server(id)?;
        Ok(self.secrets.value(&spec, name)?)
    }

    /// Keeps the value of the secret `name` of server `id` where the person
    /// chose: in the keyring (tried again: an error when still none is
    /// available), in the settings file (mode 0600), or not stored (held
    /// in memory until Rootgate quits). Blocks while the keyring answers.
    pub fn keep_secret(
        &self,
        id: &ServerId,
        name: &str,
        place: SecretPlace,
    ) -> Result<ServerSpec, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        let spec = self.server(id)?;
        let before = *spec
            .secrets
            .get(name)
            .ok_or_else(|| SecretError::NotSecret(name.to_owned()))?;
        let value = self.secrets.value(&spec, name)?;
        let key = SecretKey::new(id, name);
        let place = match place {
            SecretPlace::Keyring => {
                self.secrets
                    .keyring()
                    .set(&key, &label(&spec.name, name), &value)
                    .map_err(|e| SecretError::CannotStore {
                        name: name.to_owned(),
                        reason: e.to_string(),
                    })?;
                SecretPlace::Keyring
            }
            SecretPlace::File | SecretPlace::FileUntilKeyring => SecretPlace::File,
            SecretPlace::NotStored => {
                self.secrets.hold(key.clone(), value.clone());
                // The person's choice: it waits for none any more.
                self.secrets.decline(key.clone());
                SecretPlace::NotStored
            }
        };
        let in_file = if place == SecretPlace::File {
            value
        } else {
            String::new()
        };
        let kept = self.change(|s| {
            let slot = find_server(s, id)?;
            put(slot, name, place, &in_file);
            Ok(slot.clone())
        })?;
        if place != SecretPlace::NotStored {
            self.secrets.release(&key);
        }
        if before == SecretPlace::Keyring
            && place != SecretPlace::Keyring
            && let Err(e) = self.secrets.keyring().delete(&key)
        {
            tracing::warn!(server = %id, variable = name,
                "could not remove a secret from the keyring: {e}");
        }
        self.note_problem(&kept, None);
        Ok(kept)
    }

    /// Moves every value still in the settings file where a Rootgate from
    /// before secrets kept it into the keyring, in one change, and returns
    /// how many moved. Where no keyring is available they stay where they
    /// were, and each server says why (the window offers the choice).
    /// Blocks while the keyring answers; a read-only store moves nothing.
    pub fn move_secrets_from_before(&self) -> Result<usize, StoreError> {
        if self.read_only {
            return Ok(0);
        }
        let mut moved: Vec<(ServerId, String, String)> = Vec::new();
        'servers: for spec in self.snapshot().servers {
            for (name, place) in &spec.secrets {
                if *place != SecretPlace::FileUntilKeyring {
                    continue;
                }
                let value = spec.env.get(name).cloned().unwrap_or_default();
                let key = SecretKey::new(&spec.id, name);
                match self
                    .secrets
                    .keyring()
                    .set(&key, &label(&spec.name, name), &value)
                {
                    Ok(()) => moved.push((spec.id.clone(), name.clone(), value)),
                    Err(e) => {
                        // One keyring for all: the others would fail alike.
                        self.secrets.set_problem(&spec.id, Some(e.to_string()));
                        break 'servers;
                    }
                }
            }
        }
        if moved.is_empty() {
            // Nothing saved, so no revision: the window is still told to
            // look again, and sees why the values stayed.
            self.revision.send_modify(|r| *r += 1);
            return Ok(0);
        }
        self.change(|s| {
            let mut count = 0;
            for (id, name, value) in &moved {
                let Ok(slot) = find_server(s, id) else {
                    continue;
                };
                // Only what is still as it was read: an edit since wins.
                if slot.secrets.get(name) == Some(&SecretPlace::FileUntilKeyring)
                    && slot.env.get(name) == Some(value)
                {
                    put(slot, name, SecretPlace::Keyring, "");
                    count += 1;
                }
            }
            Ok(count)
        })
    }
}

/// Records `place` for the secret `name` of `spec`, with `value` in its
/// `env` (empty for a value kept outside the file).
fn put(spec: &mut ServerSpec, name: &str, place: SecretPlace, value: &str) {
    spec.secrets.insert(name.to_owned(), place);
    let value = if place.in_file() { value } else { "" };
    spec.env.insert(name.to_owned(), value.to_owned());
}

/// The value `previous` keeps for `name` in its `env`.
fn previous_value(previous: Option<&ServerSpec>, name: &str) -> String {
    previous
        .and_then(|p| p.env.get(name))
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::secrets::{MemoryKeyring, Secrets};
    use crate::servers::ServerDraft;
    use crate::settings::SettingsFile;

    const VALUE: &str = "sk-live-0123456789";

    struct Fixture {
        _dir: tempfile::TempDir,
        keyring: Arc<MemoryKeyring>,
        store: Store,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let keyring = Arc::new(MemoryKeyring::default());
        let secrets = Secrets::new(keyring.clone());
        let file = SettingsFile::at(dir.path().join("cfg/settings.json"));
        let (store, _) = Store::open_with_secrets(file, secrets).unwrap();
        Fixture {
            _dir: dir,
            keyring,
            store,
        }
    }

    fn draft(value: &str) -> ServerDraft {
        ServerDraft {
            name: "github".into(),
            command: "true".into(),
            env: [
                ("API_TOKEN".to_owned(), value.to_owned()),
                ("DEBUG".to_owned(), "1".to_owned()),
            ]
            .into(),
            ..Default::default()
        }
    }

    fn file_text(fx: &Fixture) -> String {
        std::fs::read_to_string(fx.store.file().path()).unwrap()
    }

    fn in_keyring(fx: &Fixture, id: &ServerId) -> Option<String> {
        use crate::secrets::SecretStore;
        fx.keyring.get(&SecretKey::new(id, "API_TOKEN")).unwrap()
    }

    #[test]
    fn a_secret_goes_to_the_keyring_and_the_file_names_it() {
        let fx = fixture();
        let spec = fx.store.add_server(draft(VALUE)).unwrap();
        assert_eq!(spec.secrets["API_TOKEN"], SecretPlace::Keyring);
        assert_eq!(spec.env["API_TOKEN"], "");
        assert_eq!(in_keyring(&fx, &spec.id).as_deref(), Some(VALUE));
        assert!(!file_text(&fx).contains(VALUE));
        assert_eq!(fx.store.secret_value(&spec.id, "API_TOKEN").unwrap(), VALUE);
        assert_eq!(spec.command_line(), "API_TOKEN=… DEBUG=1 true");
        let spec = fx
            .store
            .approve_command(&spec.id, &spec.command_line())
            .unwrap();

        // An edit that leaves it empty keeps it; a new value replaces it in
        // the keyring and needs no new approval.
        let kept = fx.store.update_server(&spec.id, spec.to_draft()).unwrap();
        assert_eq!(in_keyring(&fx, &spec.id).as_deref(), Some(VALUE));
        assert!(kept.is_approved());
        assert!(!fx.store.secrets().take_rotated(&spec.id));
        let rotated = fx
            .store
            .update_server(&spec.id, draft("sk-rotated-value"))
            .unwrap();
        assert!(rotated.is_approved(), "the approval covers the name");
        assert!(fx.store.secrets().take_rotated(&spec.id));
        assert_eq!(
            in_keyring(&fx, &spec.id).as_deref(),
            Some("sk-rotated-value")
        );

        // Made plain without a new value: it keeps its value, in the file
        // now, and shows it, so the line needs a new approval.
        let mut plain = draft("");
        plain.secret_env = Some(Default::default());
        let plain = fx.store.update_server(&spec.id, plain).unwrap();
        assert_eq!(plain.env["API_TOKEN"], "sk-rotated-value");
        assert!(plain.secrets.is_empty() && !plain.is_approved());
        assert_eq!(in_keyring(&fx, &spec.id), None, "forgotten in the keyring");

        // An edit that does not say keeps it plain, as the person made it.
        let edit = fx.store.update_server(&spec.id, draft(VALUE)).unwrap();
        assert!(edit.secrets.is_empty());
        let mut secret = draft(VALUE);
        secret.secret_env = Some(["API_TOKEN".to_owned()].into());
        let again = fx.store.update_server(&spec.id, secret).unwrap();
        assert_eq!(in_keyring(&fx, &again.id).as_deref(), Some(VALUE));
        fx.store.remove_server(&again.id).unwrap();
        assert!(fx.keyring.keys().is_empty(), "removed with its server");
    }

    #[test]
    fn without_a_keyring_a_secret_waits_for_the_persons_choice() {
        let fx = fixture();
        fx.keyring.set_unavailable(Some("no keyring here"));
        let spec = fx.store.add_server(draft(VALUE)).unwrap();
        assert_eq!(spec.secrets["API_TOKEN"], SecretPlace::NotStored);
        assert!(!file_text(&fx).contains(VALUE));
        let secrets = fx.store.secrets();
        assert_eq!(secrets.problem(&spec).as_deref(), Some("no keyring here"));
        assert!(
            secrets.missing(&spec).is_empty(),
            "held while Rootgate runs"
        );
        assert_eq!(fx.store.secret_value(&spec.id, "API_TOKEN").unwrap(), VALUE);

        let err = fx
            .store
            .keep_secret(&spec.id, "API_TOKEN", SecretPlace::Keyring)
            .unwrap_err();
        assert!(
            matches!(&err, StoreError::Secret(e) if e.is_no_keyring()),
            "{err}"
        );
        // Chosen not to be stored: it stays in memory only, and the window
        // no longer asks where it goes.
        let declined = fx
            .store
            .keep_secret(&spec.id, "API_TOKEN", SecretPlace::NotStored)
            .unwrap();
        assert_eq!(declined.secrets["API_TOKEN"], SecretPlace::NotStored);
        assert_eq!(secrets.problem(&declined), None, "the person chose");
        assert!(!file_text(&fx).contains(VALUE));
        assert_eq!(fx.store.secret_value(&spec.id, "API_TOKEN").unwrap(), VALUE);
        let filed = fx
            .store
            .keep_secret(&spec.id, "API_TOKEN", SecretPlace::File)
            .unwrap();
        assert_eq!(filed.secrets["API_TOKEN"], SecretPlace::File);
        assert!(
            file_text(&fx).contains(VALUE),
            "kept in the file, as chosen"
        );
        assert_eq!(secrets.problem(&filed), None);

        // A new value for one kept in the file stays there while no keyring
        // is available, and goes to the keyring once one is.
        let edited = fx
            .store
            .update_server(&spec.id, draft("sk-second"))
            .unwrap();
        assert_eq!(edited.secrets["API_TOKEN"], SecretPlace::File);
        fx.keyring.set_unavailable(None);
        let moved = fx
            .store
            .keep_secret(&spec.id, "API_TOKEN", SecretPlace::Keyring)
            .unwrap();
        assert_eq!(moved.env["API_TOKEN"], "");
        assert!(!file_text(&fx).contains("sk-second"));
        assert_eq!(in_keyring(&fx, &spec.id).as_deref(), Some("sk-second"));
        let unstored = fx
            .store
            .keep_secret(&spec.id, "API_TOKEN", SecretPlace::NotStored)
            .unwrap();
        assert_eq!(in_keyring(&fx, &spec.id), None);
        assert_eq!(
            fx.store.secret_value(&unstored.id, "API_TOKEN").unwrap(),
            "sk-second"
        );
    }

    #[test]
    fn values_from_before_secrets_move_to_the_keyring_and_stay_approved() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let old = serde_json::json!({
            "version": 1,
            "servers": [{
                "id": "srv-old", "name": "old", "command": "true",
                "env": {"API_TOKEN": VALUE, "DEBUG": "1"},
                "approvedCommand": format!("API_TOKEN={VALUE} DEBUG=1 true"),
            }],
        });
        std::fs::write(&path, serde_json::to_vec(&old).unwrap()).unwrap();
        let keyring = Arc::new(MemoryKeyring::default());
        keyring.set_unavailable(Some("not now"));
        let secrets = Secrets::new(keyring.clone());
        let (store, _) = Store::open_with_secrets(SettingsFile::at(&path), secrets).unwrap();
        let id = ServerId::from_string("srv-old");
        let spec = store.server(&id).unwrap();
        assert_eq!(spec.secrets["API_TOKEN"], SecretPlace::FileUntilKeyring);
        assert!(spec.is_approved(), "{:?}", spec.approved_command);
        assert_eq!(
            spec.approved_command.as_deref(),
            Some("API_TOKEN=… DEBUG=1 true")
        );

        assert_eq!(store.move_secrets_from_before().unwrap(), 0);
        assert_eq!(store.secrets().problem(&spec).as_deref(), Some("not now"));
        keyring.set_unavailable(None);
        assert_eq!(store.move_secrets_from_before().unwrap(), 1);
        let moved = store.server(&id).unwrap();
        assert_eq!(moved.secrets["API_TOKEN"], SecretPlace::Keyring);
        assert!(moved.is_approved());
        assert!(!std::fs::read_to_string(&path).unwrap().contains(VALUE));
        assert_eq!(store.secret_value(&id, "API_TOKEN").unwrap(), VALUE);
    }

    #[test]
    fn a_secret_left_in_an_argument_moves_to_the_keyring_and_stays_approved() {
        let key = "sk-proj-abcdefghijklmnop1234";
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let old = serde_json::json!({
            "version": 3,
            "servers": [{
                "id": "srv-old", "name": "old", "command": "srv",
                "args": ["--api-key", key],
                "approvedCommand": format!("srv --api-key {key}"),
            }],
        });
        std::fs::write(&path, serde_json::to_vec(&old).unwrap()).unwrap();
        let keyring = Arc::new(MemoryKeyring::default());
        let (store, _) =
            Store::open_with_secrets(SettingsFile::at(&path), Secrets::new(keyring)).unwrap();
        let id = ServerId::from_string("srv-old");
        assert_eq!(store.move_secrets_from_before().unwrap(), 1);
        let moved = store.server(&id).unwrap();
        assert_eq!(moved.args, ["--api-key", "${ARG_API_KEY}"]);
        assert_eq!(moved.secrets["ARG_API_KEY"], SecretPlace::Keyring);
        assert!(moved.is_approved(), "{:?}", moved.approved_command);
        assert!(!std::fs::read_to_string(&path).unwrap().contains(key));
        assert_eq!(store.secret_value(&id, "ARG_API_KEY").unwrap(), key);
    }
}
