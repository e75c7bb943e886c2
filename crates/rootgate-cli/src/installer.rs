//! How `rootgate search`, `add` and `install` reach `rootgate-installer`,
//! the binary beside `rootgate` that links the MCP Registry's client and
//! the bundle reader (see the crate's documentation for why they are apart).
//!
//! What is not here: the commands themselves (`registry_cmd`,
//! `install_cmd`), which the installer's `main` calls.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

/// The installer's file name, beside `rootgate` in every layout: the
/// package's /usr/bin and cargo's target folder alike.
pub const PROGRAM: &str = "rootgate-installer";

/// The commands the installer runs.
pub const COMMANDS: [&str; 3] = ["search", "add", "install"];

/// Replaces this process with the installer, running `command` with
/// `args`; returns only when that cannot be done, having said why.
pub fn exec(command: &str, args: &[OsString]) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let Some(program) = beside() else {
        eprintln!(
            "rootgate: `rootgate {command}` needs {PROGRAM}, which is not beside this \
             program; reinstall Rootgate"
        );
        return ExitCode::FAILURE;
    };
    let error = std::process::Command::new(&program)
        .arg(command)
        .args(args)
        .exec();
    eprintln!(
        "rootgate: could not run {} for `rootgate {command}`: {error}",
        program.display()
    );
    ExitCode::FAILURE
}

/// The installer beside the running program, when it is there. It is never
/// looked up on `PATH`: another program of that name must not run in its
/// place.
fn beside() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let program = exe.parent()?.join(PROGRAM);
    program.is_file().then_some(program)
}

/// The installer's own dispatch: `rootgate-installer COMMAND ARGS...`.
pub fn run(args: &[String]) -> ExitCode {
    match args.split_first() {
        Some((command, rest)) if COMMANDS.contains(&command.as_str()) => {
            if rest.iter().any(|a| a == "--help" || a == "-h") {
                println!("{}", crate::help::of(command).unwrap_or(crate::help::MAIN));
                return ExitCode::SUCCESS;
            }
            match command.as_str() {
                "search" => crate::registry_cmd::search(rest),
                "add" => crate::registry_cmd::add(rest),
                _ => crate::install_cmd::install(rest),
            }
        }
        _ => {
            eprintln!(
                "{PROGRAM}: runs `rootgate search`, `rootgate add` and `rootgate install` \
                 for the `rootgate` command; run those instead (`rootgate help`)"
            );
            ExitCode::from(2)
        }
    }
}
