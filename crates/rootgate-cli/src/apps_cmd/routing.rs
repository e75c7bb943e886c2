//! `rootgate route` and `rootgate unroute`: an app's config file written to
//! run its servers through `rootgate connect`, and put back byte-exact, with
//! the plan shown first (`--dry-run` shows only). The plan and the write are
//! the core's, the same the window runs (`connecting::plan_route`,
//! `apps::route`); this module reads the options and says what happened.
//!
//! What is not here: the import (`apps_cmd`), and any decision about what
//! an entry becomes.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rootgate_core::apps::catalog;
use rootgate_core::apps::route::{self, Ledger, Plan};
use rootgate_core::connecting;
use rootgate_core::headless::Headless;

use super::{fail, files, opts, places, settings, shown_path, usage};

/// `rootgate route`.
pub fn route(args: &[String]) -> ExitCode {
    let o = match opts(args, &["--config", "--dry-run"], true) {
        Ok(o) => o,
        Err(e) => return usage(&e, crate::help::ROUTE),
    };
    let Some(app) = o.app else {
        return usage("name the app", crate::help::ROUTE);
    };
    let (settings, places) = match settings().and_then(|s| Ok((s, places()?))) {
        Ok(both) => both,
        Err(e) => return fail(e),
    };
    let snapshot = match Headless::read_settings(settings.clone()) {
        Ok(snapshot) => snapshot,
        Err(e) => return fail(e),
    };
    let ledger = Ledger::beside(settings.path());
    // As in `unroute`: what a killed command began is settled first.
    if !o.dry_run
        && let Err(e) = ledger.settle()
    {
        return fail(e);
    }
    let known = match ledger.load() {
        Ok(known) => known,
        Err(e) => return fail(e),
    };
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("rootgate"));
    let Some(target) = catalog::target(&exe, settings.path(), &places) else {
        return fail(format!(
            "cannot tell where the `rootgate` command is ({} is not it)",
            exe.display()
        ));
    };
    if let Some(warning) = catalog::build_folder_warning(&target.program) {
        eprintln!("rootgate: {warning}");
    }
    let mut status = ExitCode::SUCCESS;
    let mut routed_any = false;
    let mut routed_before = false;
    let mut left: Vec<String> = Vec::new();
    for file in files(app, &o.config, &places) {
        if !file.path.exists() {
            continue;
        }
        let planned = connecting::plan_route(&file, &places, &known, &snapshot, &o.names, &target);
        match planned {
            Ok(plan) => {
                routed_any = true;
                if let Err(e) = show_and_write(&plan, &ledger, o.dry_run, route::apply_route) {
                    status = fail(e);
                } else if !o.dry_run {
                    println!(
                        "Restart {} so it reads the new file. `rootgate unroute {}` undoes this.",
                        app.title(),
                        app.id()
                    );
                }
            }
            Err(e @ route::RouteError::AlreadyRouted { .. }) => {
                routed_before = true;
                println!("{e}; nothing to do.");
            }
            Err(route::RouteError::Nothing { reason, .. }) if o.config.is_none() => {
                left.push(format!(
                    "{}: {reason}",
                    shown_path(&file.path.display().to_string())
                ));
            }
            Err(e) => status = fail(e),
        }
        say_leftovers(&ledger, &file.path);
    }
    if !routed_any && !routed_before && status == ExitCode::SUCCESS {
        for why in &left {
            eprintln!("  {why}");
        }
        return fail(format!(
            "nothing to route in {}: import its servers first (`rootgate import {}`)",
            app.title(),
            app.id()
        ));
    }
    status
}

/// `rootgate unroute`.
pub fn unroute(args: &[String]) -> ExitCode {
    let o = match opts(args, &["--config", "--dry-run"], true) {
        Ok(o) => o,
        Err(e) => return usage(&e, crate::help::UNROUTE),
    };
    let Some(app) = o.app else {
        return usage("name the app", crate::help::UNROUTE);
    };
    let (settings, places) = match settings().and_then(|s| Ok((s, places()?))) {
        Ok(both) => both,
        Err(e) => return fail(e),
    };
    let ledger = Ledger::beside(settings.path());
    // A route or undo a killed command began is settled first, so what
    // follows (and what is left beside the files) is what is on disk.
    if let Err(e) = ledger.settle() {
        return fail(e);
    }
    let mut status = ExitCode::SUCCESS;
    let mut undone = false;
    for file in files(app, &o.config, &places) {
        match route::plan_undo(app, &file.path, &ledger) {
            Ok(plan) => {
                undone = true;
                if plan.partial_undo {
                    println!(
                        "{} changed {} since Rootgate routed it: only Rootgate's entries are put back.",
                        app.title(),
                        file.path.display()
                    );
                }
                if let Err(e) = show_and_write(&plan, &ledger, o.dry_run, route::apply_undo) {
                    status = fail(e);
                }
            }
            Err(route::RouteError::NotRouted { .. }) => {}
            Err(e) => status = fail(e),
        }
        if file.path.exists() {
            say_leftovers(&ledger, &file.path);
        }
    }
    if !undone && status == ExitCode::SUCCESS {
        return fail(format!(
            "Rootgate has not routed {}; nothing to undo",
            app.title()
        ));
    }
    status
}

/// Names the files beside `file` that an interrupted write left and the
/// ledger does not account for (see `Ledger::leftovers`): they are not
/// removed, since one may hold the only copy of the file as it was.
fn say_leftovers(ledger: &Ledger, file: &Path) {
    for left in ledger.leftovers(file).unwrap_or_default() {
        let name = left
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let what = if name.starts_with('.') {
            "a temporary file of an interrupted write"
        } else {
            "a copy of the file from an interrupted route that Rootgate has no record of"
        };
        println!(
            "Left beside it: {} ({what}; Rootgate does not use it, so delete it once you \
             have looked).",
            shown_path(&left.display().to_string())
        );
    }
}

fn show_and_write(
    plan: &Plan,
    ledger: &Ledger,
    dry_run: bool,
    write: fn(&Plan, &Ledger) -> Result<(), route::RouteError>,
) -> Result<(), route::RouteError> {
    print!("{}", plan.diff);
    for skipped in &plan.skipped {
        println!("left as it is: `{}`: {}", skipped.key, skipped.reason);
    }
    if dry_run {
        println!("(dry run: nothing written)");
        return Ok(());
    }
    write(plan, ledger)?;
    println!("Wrote {}.", shown_path(&plan.file.display().to_string()));
    if std::io::stdout().is_terminal()
        && let Ok(data) = ledger.load()
        && let Some(record) = data.routes.iter().find(|r| r.file == plan.file)
    {
        println!(
            "The original is kept at {}.",
            shown_path(&record.backup.display().to_string())
        );
    }
    Ok(())
}
