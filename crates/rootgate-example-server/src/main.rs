//! The `rootgate-example-server` binary: the example server of `lib.rs` on
//! this process's stdio.

use std::process::ExitCode;

fn main() -> ExitCode {
    rootgate_example_server::main_with_args(std::env::args_os().skip(1))
}
