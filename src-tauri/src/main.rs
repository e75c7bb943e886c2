//! The `rootgate` binary. Everything it does is in the library
//! (`src/lib.rs`), so that the shell's tests build the very same app; this
//! file only calls it, and holds nothing else.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    rootgate::run()
}
