//! "Connect an app": the AI apps found, importing one of their servers, and
//! routing an app's file through Rootgate as a plan read before it is
//! written; each command one line into the `Apps` service.
//!
//! What is not here: any path (the webview names an app, a file by
//! position, an entry by key or a plan by number), and any logic.

use std::collections::BTreeMap;

use rootgate_core::apps::catalog::AppView;
use rootgate_core::apps::{AppKind, Scope};
use rootgate_core::ids::ServerId;
use rootgate_core::supervisor::{ImportOutcome, PlanView};
use tracing::instrument;

use super::{Result, Sup};
use crate::error::Arg;

#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_apps(sup: Sup<'_>) -> Result<Vec<AppView>> {
    Ok(sup.apps().list()?)
}

/// Imports one server of an AI app's config file (named by the app and the
/// file's position, never by a path). `values` fill what the app would
/// have (`${input:…}` and the like); they are not logged. `existing` is
/// the server the person chose to use instead of a new one.
#[tauri::command]
#[instrument(skip(sup, values), err)]
pub fn import_app_server(
    sup: Sup<'_>,
    app: Arg<AppKind>,
    file: Arg<u32>,
    scope: Arg<Scope>,
    key: Arg<String>,
    values: Arg<BTreeMap<String, String>>,
    existing: Arg<Option<ServerId>>,
) -> Result<ImportOutcome> {
    Ok(sup.apps().import_app_server(
        app.0,
        file.0,
        &scope.0,
        &key.0,
        &values.0,
        existing.0.as_ref(),
    )?)
}

/// Plans routing an app's file through Rootgate; the `rootgate` written
/// there is the one beside this program.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn plan_route(
    sup: Sup<'_>,
    app: Arg<AppKind>,
    file: Arg<u32>,
    only: Arg<Vec<String>>,
) -> Result<PlanView> {
    Ok(sup
        .apps()
        .plan_route(app.0, file.0, &only.0, &crate::program()?)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn plan_unroute(sup: Sup<'_>, app: Arg<AppKind>, file: Arg<u32>) -> Result<PlanView> {
    Ok(sup.apps().plan_unroute(app.0, file.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn apply_plan(sup: Sup<'_>, id: Arg<u32>) -> Result<()> {
    Ok(sup.apps().apply_plan(id.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn drop_plan(sup: Sup<'_>, id: Arg<u32>) -> Result<()> {
    sup.apps().drop_plan(id.0);
    Ok(())
}
