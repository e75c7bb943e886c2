//! `relay-floor`: the least any process between an MCP client and its
//! server can cost. It starts the server command it is given and copies
//! bytes both ways, a thread per direction with blocking reads and writes,
//! parsing nothing. The bridge benchmark runs it beside `rootgate connect`
//! so that what a bridge adds can be told apart from what the extra
//! process alone costs (two more pipe hops, two more wake-ups a call).
//!
//! Usage: `relay-floor COMMAND [ARG...]`.

use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

fn copy(mut from: impl Read, mut to: impl Write) {
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if to.write_all(&buf[..n]).and_then(|()| to.flush()).is_err() {
                    return;
                }
            }
        }
    }
}

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: relay-floor COMMAND [ARG...]");
        return ExitCode::from(2);
    };
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            eprintln!("relay-floor: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (Some(to_server), Some(from_server)) = (child.stdin.take(), child.stdout.take()) else {
        return ExitCode::FAILURE;
    };
    let up = std::thread::spawn(move || copy(std::io::stdin().lock(), to_server));
    copy(from_server, std::io::stdout().lock());
    let _ = up.join();
    let _ = child.wait();
    ExitCode::SUCCESS
}
