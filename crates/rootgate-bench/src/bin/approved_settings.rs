//! `approved-settings SETTINGS NAME [--share FOLDER]... [--workspace]
//! COMMAND [ARG...]`: adds to a settings file one server, its command
//! approved, each `--share` folder shared with it, as a person would in the
//! window, and with `--workspace` its Workspace setting on, for a benchmark
//! that drives `rootgate connect NAME` against it (scripts/bench-gate.py,
//! scripts/bench-shared.py). It uses the store, the settings' one writer;
//! nothing else of Rootgate's runs.

use std::process::ExitCode;

use rootgate_core::servers::ServerDraft;
use rootgate_core::settings::SettingsFile;
use rootgate_core::store::Store;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || {
        eprintln!(
            "usage: approved-settings SETTINGS NAME [--share FOLDER]... [--workspace] COMMAND [ARG...]"
        );
        ExitCode::from(2)
    };
    let [settings, name, rest @ ..] = args.as_slice() else {
        return usage();
    };
    let (mut shares, mut workspace, mut rest) = (Vec::new(), false, rest);
    loop {
        match rest {
            [flag, folder, more @ ..] if flag == "--share" => {
                shares.push(folder.clone());
                rest = more;
            }
            [flag, more @ ..] if flag == "--workspace" => {
                workspace = true;
                rest = more;
            }
            _ => break,
        }
    }
    let [command, rest @ ..] = rest else {
        return usage();
    };
    let made = || -> Result<_, String> {
        let text = |e: &dyn std::fmt::Display| e.to_string();
        let (store, _) = Store::open(SettingsFile::at(settings)).map_err(|e| text(&e))?;
        let spec = store
            .add_server(ServerDraft {
                name: name.clone(),
                command: command.clone(),
                args: rest.to_vec(),
                workspace_only: workspace,
                ..Default::default()
            })
            .map_err(|e| text(&e))?;
        for folder in &shares {
            let checked = rootgate_core::folders::check(std::path::Path::new(folder))
                .map_err(|e| text(&e))?;
            let root = store
                .add_root(&checked, None)
                .map_err(|e| text(&e))?
                .root
                .id;
            store.grant(&spec.id, &root).map_err(|e| text(&e))?;
        }
        store
            .approve_command(&spec.id, &spec.command_line())
            .map_err(|e| text(&e))
    };
    let made = made();
    match made {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("approved-settings: {e}");
            ExitCode::FAILURE
        }
    }
}
