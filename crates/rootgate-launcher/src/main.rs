//! `rootgate-launcher`: the small process Rootgate starts each server
//! through (see `rootgate_launcher::launcher` for what it does and why). It is a
//! separate binary so that it maps only the C library, not the desktop app;
//! the app can also act as its own launcher when this file is missing.

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    match rootgate_launcher::launcher::run_if_requested(&args) {
        Some(code) => code,
        None => {
            eprintln!(
                "rootgate-launcher: this program is started by Rootgate, with {} as its first \
                 argument",
                rootgate_launcher::launcher::FLAG
            );
            ExitCode::from(2)
        }
    }
}
