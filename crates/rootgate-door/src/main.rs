//! `rootgate-door SETTINGS NAME`: the door of `rootgate connect NAME` as a program
//! of its own, which `rootgate connect` becomes (`exec`) when it is beside
//! it: the same door in a binary that maps a few hundred kilobytes where
//! `rootgate` maps eleven megabytes, since each app session keeps one
//! waiting for as long as it lives. The gate it starts is `rootgate gate`,
//! the `rootgate` beside it.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(settings), Some(name), None) = (args.next(), args.next(), args.next()) else {
        eprintln!("usage: rootgate-door SETTINGS NAME (as `rootgate connect NAME` runs it)");
        return ExitCode::from(2);
    };
    let program = std::env::current_exe()
        .ok()
        .and_then(|me| Some(me.parent()?.join("rootgate")))
        .filter(|p| p.exists());
    let Some(program) = program else {
        eprintln!("rootgate: no `rootgate` program beside rootgate-door to start the gate with");
        return ExitCode::FAILURE;
    };
    let settings = std::path::PathBuf::from(settings);
    rootgate_door::door::run(&program, &settings, name.to_string_lossy().into_owned())
}
