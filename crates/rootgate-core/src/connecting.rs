//! Connecting an AI app, for the window and the command alike: one import
//! of its servers (which entries of a config file an import takes, the
//! values each gets, each read and saved with no other writer in between,
//! and what became of each in words), and one plan of routing one of its
//! files through Rootgate ([`plan_route`]). The window's `Apps::import_for_terminal`
//! (`rootgate import` while the window holds the settings) and the
//! command's own import (no window: [`crate::headless::Headless`]) both
//! call [`FileImport`], and differ only in what they do after: the window
//! opens sessions and consent prompts, the command prints.
//!
//! Not here: importing one entry (`rootgate_apps::catalog::import_entry`),
//! the window's import of one entry it names (`Apps::import_app_server`),
//! writing a plan (`rootgate_apps::route`), and anything printed.

use std::collections::BTreeMap;

use rootgate_apps::catalog::{self, AppsError, Imported};
use rootgate_apps::import::ImportError;
use rootgate_apps::locate::Places;
use rootgate_apps::route::{self, Ledger, LedgerData, Plan, RouteError, Target};
use rootgate_apps::{ConfigFile, ParsedConfig, Transport};
use rootgate_model::ids::ServerId;
use rootgate_model::settings::Settings;
use rootgate_model::store::Store;

/// What became of one entry an import took.
pub enum EntryOutcome {
    /// Imported, or joined to a server already there.
    Imported(Box<Imported>),
    /// Nothing to do, in words (in Rootgate already, routed already).
    Nothing(String),
    /// A value only the person can give is missing, in words.
    NeedsValue(String),
    /// It could not be imported, in words.
    Failed(String),
}

/// One entry an import took, and what became of it.
pub struct EntryImported {
    pub key: String,
    pub outcome: EntryOutcome,
}

/// An AI app's config file, read for importing.
pub struct FileImport<'a> {
    file: &'a ConfigFile,
    parsed: ParsedConfig,
}

impl<'a> FileImport<'a> {
    /// Reads `file`; the problem in words when it cannot be.
    pub fn read(file: &'a ConfigFile) -> Result<FileImport<'a>, String> {
        let (_, parsed) = catalog::read(file)?;
        Ok(FileImport { file, parsed })
    }

    /// Imports into `store` the entries that `keys` name or, with none
    /// named, every local (stdio) one, each with the values of `set` it
    /// uses, as a server of its own or as `existing`.
    pub fn import(
        &self,
        store: &Store,
        places: &Places,
        keys: &[String],
        set: &BTreeMap<String, String>,
        existing: Option<&ServerId>,
    ) -> Vec<EntryImported> {
        let ledger = Ledger::beside(store.file().path());
        let mut done = Vec::new();
        for entry in &self.parsed.entries {
            let named = keys.contains(&entry.key);
            let stdio = matches!(entry.transport, Transport::Stdio { .. });
            if !(named || keys.is_empty() && stdio) {
                continue;
            }
            let values = catalog::values_for(set, self.file, entry, &self.parsed.inputs, places);
            // Whether the entry is in Rootgate already and which name it
            // takes are read from the settings and then saved into them:
            // no other writer comes in between (see `Store::hold`).
            let imported = store.hold().map_err(AppsError::from).and_then(|_held| {
                catalog::import_entry(
                    store,
                    &ledger,
                    places,
                    self.file,
                    &entry.scope,
                    &entry.key,
                    &values,
                    existing,
                )
            });
            done.push(EntryImported {
                key: entry.key.clone(),
                outcome: outcome(imported),
            });
        }
        done
    }

    /// Whether the file has an entry `key`.
    pub fn has(&self, key: &str) -> bool {
        self.parsed.entries.iter().any(|e| e.key == key)
    }
}

fn outcome(imported: Result<Imported, AppsError>) -> EntryOutcome {
    match imported {
        Ok(done) => EntryOutcome::Imported(Box::new(done)),
        Err(AppsError::AlreadyImported { key, name }) => EntryOutcome::Nothing(format!(
            "`{key}` is already in Rootgate as {name}; nothing to do."
        )),
        Err(AppsError::Import(e @ ImportError::Missing { .. })) => EntryOutcome::NeedsValue(
            format!("{e}; pass it with --set TOKEN=VALUE, or --set TOKEN=- to type it"),
        ),
        Err(AppsError::Import(e @ ImportError::AlreadyRouted { .. })) => {
            EntryOutcome::Nothing(format!("{e}; nothing to import."))
        }
        Err(e) => EntryOutcome::Failed(e.to_string()),
    }
}

/// The server the person chose with `--into` for the one entry `keys`
/// names, if they chose one.
pub fn existing(
    store: &Store,
    keys: &[String],
    into: Option<&str>,
) -> Result<Option<ServerId>, String> {
    match into {
        Some(name) if keys.len() == 1 => catalog::server_named(store, &keys[0], name)
            .map(Some)
            .map_err(|e| e.to_string()),
        Some(_) => Err("--into names one server for one entry: name exactly one entry".into()),
        None => Ok(None),
    }
}

/// Plans routing `file` through Rootgate (`only` those entries, or every
/// imported one), each entry to the server it was imported as, by
/// `target`: the window's "Route" and `rootgate route` alike. `known` is
/// the record of routes and `settings` what the settings hold now.
pub fn plan_route(
    file: &ConfigFile,
    places: &Places,
    known: &LedgerData,
    settings: &Settings,
    only: &[String],
    target: &Target,
) -> Result<Plan, RouteError> {
    let names = catalog::server_names(file, places, known, settings);
    route::plan_route(
        file.app,
        &file.path,
        only,
        |scope, key| {
            names
                .get(&(scope.clone(), key.to_owned()))
                .cloned()
                .unwrap_or_else(|| Err("it is not imported into Rootgate yet".into()))
        },
        target,
    )
}
