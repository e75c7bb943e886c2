//! The Rootgate example server: a small MCP server of our own that reports the
//! roots (folders) its client shares with it.
//!
//! It speaks MCP (protocol 2025-11-25, and accepts the three earlier dated
//! versions) over stdio as newline-delimited JSON-RPC 2.0: one message per line
//! on stdin and stdout, with diagnostics on stderr only. Tests run it as a real
//! child process, and the app ships it as a built-in example server, so its
//! whole job is to make the roots it received visible: it asks the client for
//! `roots/list` after initialization and whenever the client says the list
//! changed, logs every answer to stderr, optionally appends it to a report
//! file, and offers two tools (`list_roots` and `ask_roots`) that return it.
//!
//! It deliberately does not do anything with those roots. It never opens,
//! lists, reads or writes files under them, it does not sandbox itself, and it
//! does not check that a root URI is well formed or points anywhere real; it
//! only repeats what the client said. It also does not implement MCP features
//! beyond what that job needs (no resources, prompts, logging, pagination or
//! JSON-RPC batches), and it uses no threads or async runtime: one loop reads a
//! line, handles it and writes whatever the line caused.
//!
//! It is three parts, a file each: its command line (`cli`), its protocol
//! state machine (`state`: `Server::handle` turns one input line into the
//! outgoing messages it causes and queues its side effects, stderr lines and
//! report lines, for the loop to carry out, so unit tests can drive it
//! without a process or a pipe), and its loop (`run`).
//!
//! For fault-injection tests, `--misbehave KIND` makes it break the protocol
//! or the process contract in one chosen way (exit at once, crash, never
//! answer `initialize`, write garbage or huge lines, flood requests or
//! stderr, ignore its input closing or SIGTERM, and so on; see the
//! `misbehave` module). Those behaviours live at the edges of the loop in
//! `run`; two of them use a second thread (the floods), and one blocks
//! SIGTERM. Without the flag none of that runs.
//!
//! Two options make it take changes the way some servers in the wild do:
//! `--ignore-list-changed` asks once, after `initialized`, and never again;
//! `--ask-every-ms N` ignores `list_changed` and asks on its own schedule,
//! from a second thread.

mod cli;
mod misbehave;
mod run;
mod state;

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::ExitCode;

use cli::{Command, USAGE, parse_args};
use run::{log, run};

/// Runs the server with these command-line arguments (without the program
/// name) until stdin ends. The `rootgate-example-server` binary calls this,
/// and so does the Rootgate app when started as its own built-in example
/// server, so the example needs no second executable.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let config = match parse_args(args) {
        Ok(Command::Run(config)) => config,
        Ok(Command::Help) => {
            // Help is the one thing printed to stdout, because with --help the
            // process is not acting as a server and nobody parses its output.
            let _ = writeln!(io::stdout().lock(), "{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            log(&message);
            let _ = writeln!(io::stderr().lock(), "{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&config) {
        Ok(code) => code,
        Err(message) => {
            log(&message);
            ExitCode::FAILURE
        }
    }
}
