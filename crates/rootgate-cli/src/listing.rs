//! `rootgate apps`, `servers` and `folders`: what the window lists, for a
//! terminal, in words or as JSON (`--json`). Read only: nothing here
//! changes the settings, an app's file or the ledger, and no environment
//! value is printed.

use std::process::ExitCode;

use rootgate_core::apps::catalog::{self, AppView};
use rootgate_core::apps::route::Ledger;
use rootgate_core::headless::Headless;

use crate::apps_cmd::{fail, opts, places, print_json, settings, shown_path, usage};

/// `rootgate apps`.
pub fn apps(args: &[String]) -> ExitCode {
    let o = match opts(args, &["--json"], false) {
        Ok(o) => o,
        Err(e) => return usage(&e, crate::help::APPS),
    };
    let (settings, places) = match settings().and_then(|s| Ok((s, places()?))) {
        Ok(both) => both,
        Err(e) => return fail(e),
    };
    let snapshot = Headless::read_settings(settings.clone()).unwrap_or_default();
    let ledger = match Ledger::beside(settings.path()).load() {
        Ok(ledger) => ledger,
        Err(e) => return fail(e),
    };
    let found = catalog::survey(&places, &ledger, &snapshot);
    if o.json {
        return print_json(&found);
    }
    if found.is_empty() {
        println!(
            "No AI app found. Rootgate looks for 16 apps (Claude Desktop, Claude Code, Cursor, \
             VS Code, Zed, Goose, Windsurf, LM Studio, Kiro, Amazon Q Developer, GitHub Copilot \
             CLI, Gemini CLI, Cline, Codex CLI, Continue, opencode) in their usual places (see \
             `rootgate help apps`)."
        );
    }
    for app in &found {
        print_app(app);
    }
    ExitCode::SUCCESS
}

fn print_app(app: &AppView) {
    println!("{} ({})", app.title, app.app.id());
    for file in &app.files {
        let routed = if file.routed_by_rootgate {
            "  [routed by Rootgate; `rootgate unroute` undoes it]"
        } else {
            ""
        };
        println!("  {}{routed}", file.path.display());
        if let Some(problem) = &file.problem {
            println!("    cannot be read: {problem}");
            continue;
        }
        if !file.exists {
            println!("    (no file yet: no servers configured)");
        } else if file.servers.is_empty() {
            println!("    (no servers)");
        }
        for entry in &file.servers {
            let state = match (&entry.routed_to, &entry.imported_as, entry.remote) {
                (Some(name), _, _) => format!("routed through Rootgate as {name}"),
                (None, Some(imported), _) => format!("imported as {}", imported.name),
                (None, None, true) => "remote; not imported".to_owned(),
                (None, None, false) => "not imported".to_owned(),
            };
            println!("    {}  [{state}]", entry.key);
            println!("      {}", shown_path(&entry.command_line));
            if let Some(link) = &entry.doubtful_link {
                println!(
                    "      its link to {} is not trusted: {}",
                    link.server.name, link.reason
                );
            }
            if entry.imported_as.is_none() && entry.routed_to.is_none() {
                print_offers(app.app.id(), entry);
            }
        }
    }
}

/// What importing `entry` would do: the folders it offers, the values it
/// asks for, and the servers it is or could be.
fn print_offers(app: &str, entry: &rootgate_core::apps::catalog::EntryView) {
    for folder in &entry.folders {
        println!(
            "      would offer to share {}",
            shown_path(&folder.display().to_string())
        );
    }
    for need in entry.needs.iter().filter(|n| n.required) {
        println!("      needs {} ({})", need.token, need.hint);
    }
    if let Some(same) = &entry.same_as {
        println!(
            "      runs exactly what {} runs: importing it links it there",
            same.name
        );
    }
    for candidate in &entry.candidates {
        println!(
            "      could use {} instead (`rootgate import {app} {} --into {}`), which differs:",
            candidate.server.name, entry.key, candidate.server.name
        );
        for difference in &candidate.differences {
            println!("        {difference}");
        }
    }
}

/// `rootgate servers`.
pub fn servers(args: &[String]) -> ExitCode {
    let o = match opts(args, &["--json"], false) {
        Ok(o) => o,
        Err(e) => return usage(&e, crate::help::SERVERS),
    };
    let settings =
        match settings().and_then(|s| Headless::read_settings(s).map_err(|e| e.to_string())) {
            Ok(settings) => settings,
            Err(e) => return fail(e),
        };
    let rows: Vec<serde_json::Value> = settings
        .servers
        .iter()
        .map(|s| {
            let folders: Vec<String> = settings
                .grants
                .iter()
                .filter(|g| g.server == s.id)
                .filter_map(|g| settings.roots.iter().find(|r| r.id == g.root))
                .map(|r| r.real_path.display().to_string())
                .collect();
            serde_json::json!({
                "id": s.id, "name": s.name, "commandLine": s.masked_command_line(),
                "approved": s.is_approved(), "enabled": s.enabled, "folders": folders,
            })
        })
        .collect();
    if o.json {
        return print_json(&rows);
    }
    if rows.is_empty() {
        println!("No servers yet. Add one in the window, or `rootgate import APP`.");
    }
    for row in &rows {
        let approved = if row["approved"] == true {
            "approved"
        } else {
            "waiting for approval in the window"
        };
        println!("{}  [{approved}]", row["name"].as_str().unwrap_or_default());
        println!("  {}", row["commandLine"].as_str().unwrap_or_default());
        for folder in row["folders"].as_array().into_iter().flatten() {
            println!("  sees {}", folder.as_str().unwrap_or_default());
        }
    }
    ExitCode::SUCCESS
}

/// `rootgate folders`.
pub fn folders(args: &[String]) -> ExitCode {
    let o = match opts(args, &["--json"], false) {
        Ok(o) => o,
        Err(e) => return usage(&e, crate::help::FOLDERS),
    };
    let settings =
        match settings().and_then(|s| Headless::read_settings(s).map_err(|e| e.to_string())) {
            Ok(settings) => settings,
            Err(e) => return fail(e),
        };
    let rows: Vec<serde_json::Value> = settings
        .roots
        .iter()
        .map(|root| {
            let servers: Vec<&str> = settings
                .grants
                .iter()
                .filter(|g| g.root == root.id)
                .filter_map(|g| settings.servers.iter().find(|s| s.id == g.server))
                .map(|s| s.name.as_str())
                .collect();
            serde_json::json!({
                "id": root.id, "name": root.name, "path": root.real_path,
                "available": root.real_path.is_dir(), "servers": servers,
            })
        })
        .collect();
    if o.json {
        return print_json(&rows);
    }
    if rows.is_empty() {
        println!("No folders kept yet. Share one from the window: `rootgate FOLDER`.");
    }
    for row in &rows {
        let servers: Vec<&str> = row["servers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str())
            .collect();
        let who = if servers.is_empty() {
            "no server".to_owned()
        } else {
            servers.join(", ")
        };
        let gone = if row["available"] == true {
            ""
        } else {
            " (not there now)"
        };
        println!(
            "{}  {}{gone}\n  seen by {who}",
            row["name"].as_str().unwrap_or_default(),
            row["path"].as_str().unwrap_or_default()
        );
    }
    ExitCode::SUCCESS
}
