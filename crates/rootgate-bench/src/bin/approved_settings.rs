//! `approved-settings SETTINGS NAME COMMAND [ARG...]`: writes a settings
//! file with one server, its command approved, as a person would in the
//! window, for a benchmark that drives `rootgate connect NAME` against it
//! (scripts/bench-gate.py). It uses the store, the settings' one writer;
//! nothing else of Rootgate's runs.

use std::process::ExitCode;

use rootgate_core::servers::ServerDraft;
use rootgate_core::settings::SettingsFile;
use rootgate_core::store::Store;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [settings, name, command, rest @ ..] = args.as_slice() else {
        eprintln!("usage: approved-settings SETTINGS NAME COMMAND [ARG...]");
        return ExitCode::from(2);
    };
    let made = Store::open(SettingsFile::at(settings)).and_then(|(store, _)| {
        let spec = store.add_server(ServerDraft {
            name: name.clone(),
            command: command.clone(),
            args: rest.to_vec(),
            ..Default::default()
        })?;
        store.approve_command(&spec.id, &spec.command_line())
    });
    match made {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("approved-settings: {e}");
            ExitCode::FAILURE
        }
    }
}
