//! `rootgate-installer`: `rootgate search`, `add` and `install`, run by
//! `rootgate` with `exec` so that the bridge every AI app starts does not
//! link the registry's client and the bundle reader (see the library's
//! documentation). What is not here: anything but reading the command
//! line; the commands are in the library.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    rootgate_cli::installer::run(&args)
}
