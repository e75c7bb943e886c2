//! The steps taken with the real `rootgate` command: import (one, or two
//! at once), route, unroute and a route SIGKILLed, each judged by what the
//! command said and did to the app's file, and the model changed by it.
//!
//! Not here: the window's and the processes' steps (see `ops`).

use std::time::Duration;

use serde_json::json;

use super::check;
use super::ops::Op;
use super::state::{Model, Routing, Server};
use super::world::World;

/// Takes one of the command's steps.
pub async fn apply(op: &Op, world: &mut World, model: &mut Model) -> Result<(), String> {
    match op {
        Op::Import { file } => {
            let (app, entry) = (model.files[*file].app, model.files[*file].entry);
            let out = world.run(&["import", app, entry]).await?;
            if !out.status.success() {
                return Err(format!("rootgate import {app} {entry}: {}", said(&out)));
            }
            if model.files[*file].imported == import_said_done(&out) {
                return Err(format!(
                    "rootgate import {app} {entry} (imported before: {}): {}",
                    model.files[*file].imported,
                    said(&out)
                ));
            }
            imported(world, model, *file).await?;
        }
        Op::ImportBoth => {
            let (a, b) = (&model.files[0], &model.files[1]);
            let first = world.rootgate(&["import", a.app, a.entry]).output();
            let second = world.rootgate(&["import", b.app, b.entry]).output();
            let (first, second) = tokio::join!(first, second);
            for out in [first, second] {
                let out = out.map_err(|e| e.to_string())?;
                if !import_said_done(&out) {
                    return Err(format!("an import at once with another: {}", said(&out)));
                }
            }
            imported(world, model, 0).await?;
            imported(world, model, 1).await?;
        }
        Op::Route { file } => route(world, model, *file).await?,
        Op::Unroute { file } => {
            let f = &model.files[*file];
            let out = world.run(&["unroute", f.app]).await?;
            let f = &mut model.files[*file];
            f.leftovers_allowed = false;
            match f.routing {
                Routing::Routed(_) if out.status.success() => f.routing = Routing::Original,
                Routing::Original if out.status.code() == Some(1) => {}
                _ => {
                    return Err(format!(
                        "rootgate unroute {} ({:?}): {}",
                        f.app,
                        f.routing,
                        said(&out)
                    ));
                }
            }
        }
        Op::KillRoute { file, after_ms } => {
            let app = model.files[*file].app;
            world
                .run_killed(&["route", app], Duration::from_millis(*after_ms))
                .await?;
            let f = &mut model.files[*file];
            f.routing = Routing::Unsure;
            f.leftovers_allowed = true;
        }
        other => return Err(format!("{other:?} is not a step of the command")),
    }
    Ok(())
}

fn said(out: &std::process::Output) -> String {
    format!(
        "exit {:?}, stdout {:?}, stderr {:?}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Imports `file`'s entry (the command has said it did) into the model,
/// and approves it in the window as the person would.
async fn imported(world: &mut World, model: &mut Model, file: usize) -> Result<(), String> {
    if model.files[file].imported {
        return Ok(());
    }
    let f = &mut model.files[file];
    f.imported = true;
    let entry = f.entry;
    model.servers.insert(
        entry.into(),
        Server {
            approved: false,
            workspace: false,
            grants: Default::default(),
        },
    );
    world
        .window()
        .await?
        .change(json!({"op": "approve", "server": entry}))
        .await
        .map_err(|e| format!("approving {entry}: {e}"))?;
    if let Some(s) = model.servers.get_mut(entry) {
        s.approved = true;
    }
    Ok(())
}

/// Whether `rootgate import` said it imported the entry (not that it was
/// in Rootgate already, or already routed through it).
fn import_said_done(out: &std::process::Output) -> bool {
    let text = String::from_utf8_lossy(&out.stdout);
    out.status.success() && !text.contains("nothing to")
}

async fn route(world: &mut World, model: &mut Model, file: usize) -> Result<(), String> {
    let f = &model.files[file];
    let out = world.run(&["route", f.app]).await?;
    let bytes = std::fs::read(&f.path).map_err(|e| e.to_string())?;
    let f = &mut model.files[file];
    f.leftovers_allowed = false;
    match (&f.routing, f.imported) {
        (Routing::Original, true) => {
            if !out.status.success() {
                return Err(format!("rootgate route {}: {}", f.app, said(&out)));
            }
            check::routed_entry(f.entry, &bytes)?;
            f.routing = Routing::Routed(bytes);
        }
        // Nothing imported: nothing to route; the file must stay (the
        // check compares it).
        (Routing::Original, false) => {}
        (routing, _) => {
            return Err(format!("route chosen on a file that is {routing:?}"));
        }
    }
    Ok(())
}
