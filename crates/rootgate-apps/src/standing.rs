//! Where an app's entry stands with Rootgate's servers: the server the
//! ledger links it to and whether that link holds, the server that runs
//! exactly what it runs, and the servers the person might choose instead,
//! each with how it differs (see `identity` for what "the same" means).
//!
//! A link holds while the entry is as it was read when it was imported;
//! one the earlier Rootgate made (no digest: it took any entry running the
//! same program for one server), or one whose entry changed since, is
//! shown with its reason and routing leaves the entry alone. Nothing here
//! changes the ledger or the settings: `catalog::import_entry` does.

use serde::Serialize;

use super::identity;
use super::import::ImportPlan;
use super::route::{ImportRecord, LedgerData};
use super::{AppKind, ConfigFile, Scope};
use rootgate_model::ids::ServerId;
use rootgate_model::servers::ServerSpec;
use rootgate_model::settings::Settings;

#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportedAs {
    pub id: ServerId,
    pub name: String,
}

/// An import link Rootgate does not trust, and why, in words.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DoubtfulLink {
    pub server: ImportedAs,
    pub reason: String,
}

/// A server an entry could use instead of becoming a new one, and how it
/// differs (`identity::differences`; never a value).
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub server: ImportedAs,
    pub differences: Vec<String>,
}

/// Where an entry stands with Rootgate's servers.
#[derive(Default)]
pub(super) struct Standing {
    pub(super) imported_as: Option<ImportedAs>,
    pub(super) doubtful_link: Option<DoubtfulLink>,
    pub(super) same_as: Option<ImportedAs>,
    pub(super) candidates: Vec<Candidate>,
}

fn named(server: &ServerSpec) -> ImportedAs {
    ImportedAs {
        id: server.id.clone(),
        name: server.name.clone(),
    }
}

/// Whether `record` is the ledger's record of this entry.
pub(super) fn is_this(record: &ImportRecord, file: &ConfigFile, scope: &Scope, key: &str) -> bool {
    record.app == file.app
        && record.file == file.path
        && &record.scope == scope
        && record.key == key
}

/// The entry's link in the ledger, whether it holds, and otherwise which
/// servers run exactly what it runs or might be chosen instead. `plan` is
/// the entry's import plan (none when it cannot be imported, as when it is
/// routed already).
pub(super) fn standing(
    file: &ConfigFile,
    scope: &Scope,
    key: &str,
    plan: Option<&ImportPlan>,
    ledger: &LedgerData,
    settings: &Settings,
) -> Standing {
    let server_of = |id: &ServerId| settings.servers.iter().find(|s| &s.id == id);
    let mut standing = Standing::default();
    let record = ledger
        .imports
        .iter()
        .rev()
        .filter(|r| is_this(r, file, scope, key))
        .find_map(|r| Some((r, server_of(&r.server)?)));
    if let Some((record, server)) = record {
        match link_doubt(record, plan, server, file.app) {
            None => {
                standing.imported_as = Some(named(server));
                return standing;
            }
            Some(reason) => {
                standing.doubtful_link = Some(DoubtfulLink {
                    server: named(server),
                    reason,
                })
            }
        }
    }
    let Some(plan) = plan else {
        return standing;
    };
    if let Some(id) = identity::identity(plan, false) {
        standing.same_as = ledger
            .imports
            .iter()
            .filter(|r| r.identity.as_ref() == Some(&id))
            .find_map(|r| server_of(&r.server))
            .map(named);
    }
    for server in &settings.servers {
        let linked = standing
            .doubtful_link
            .as_ref()
            .is_some_and(|l| l.server.id == server.id);
        let alike = server.command == plan.draft.command && server.args == plan.draft.args;
        if !(linked || alike) {
            continue;
        }
        let shared = identity::shared_folders(settings, server);
        let differences = identity::differences(plan, server, &shared);
        // A server added by hand is the same when its own settings say so:
        // nothing differs and the entry leaves nothing to the app.
        if differences.is_empty() && plan.needs.is_empty() && standing.same_as.is_none() {
            standing.same_as = Some(named(server));
        }
        if standing.same_as.as_ref().is_some_and(|s| s.id == server.id) {
            continue;
        }
        standing.candidates.push(Candidate {
            server: named(server),
            differences,
        });
    }
    standing
}

/// Why the ledger's `record` of an entry is not to be trusted, or None when
/// it holds: the entry is as it was when imported (a routed entry is
/// trusted by its record).
fn link_doubt(
    record: &ImportRecord,
    plan: Option<&ImportPlan>,
    server: &ServerSpec,
    app: AppKind,
) -> Option<String> {
    let name = &server.name;
    let Some(recorded) = &record.entry else {
        return Some(format!(
            "an earlier Rootgate linked it to `{name}` without comparing the two: it took any \
             entry running the same program for the same server, whatever its folders and \
             environment. Import it again, as its own server or, if it is the same, into `{name}`"
        ));
    };
    let plan = plan?;
    (&identity::entry_digest(plan) != recorded).then(|| {
        format!(
            "it changed in {} since it was imported as `{name}`. Import it again, as its own \
             server or, if it is the same, into `{name}`",
            app.title()
        )
    })
}
