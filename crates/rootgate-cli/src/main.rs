//! `rootgate`: the command people and AI apps run.
//!
//! `rootgate connect NAME` is the bridge an AI app starts in place of a
//! server (see `rootgate_core::bridge`); `rootgate [FOLDER...]` opens the
//! desktop app (`rootgate-desktop`, beside this program), offering each
//! folder for sharing, or hands the folders to the window already open on
//! the same settings (`rootgate_core::instance`) and exits. This binary links no GUI library, so a bridge starts
//! in a few milliseconds and stays small: the desktop app maps WebKitGTK's
//! 169 libraries and some 50 MB before its `main` runs. It also serves as
//! the servers' launcher and as the built-in example server.
//!
//! `rootgate apps`, `import`, `route`, `unroute`, `servers` and
//! `folders` are the window's "Connect an app" actions and lists for a
//! terminal (the library's `apps_cmd`, and `listing` for the lists), with
//! their help in `help`. `search` and `add` (the MCP Registry's) and
//! `install FILE.mcpb` (an MCP bundle) are run by `rootgate-installer`
//! beside this program, which this one becomes with `exec` (the library's
//! `installer` says why they are apart).
//!
//! What is not here: anything the bridge or the app decides; this file
//! only reads the command line and hands over.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use rootgate_core::bridge::{self, Outcome, gate};
use rootgate_core::instance;
use rootgate_core::session::SessionConfig;
use rootgate_core::settings::SettingsFile;

use rootgate_cli::help::MAIN as USAGE;
use rootgate_cli::{apps_cmd, help, installer, listing};

/// The example server's flag, as the desktop app's templates give it.
const EXAMPLE_SERVER_FLAG: &str = "--example-server";

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if let Some(code) = rootgate_core::launcher::run_if_requested(&args) {
        return code;
    }
    if let Ok(exe) = std::env::current_exe() {
        rootgate_core::launcher::use_program_if_none_beside(exe);
    }
    match args.first().and_then(|a| a.to_str()) {
        Some("connect") => connect(&args[1..]),
        Some("gate") => gate(&args[1..]),
        Some(
            command @ ("apps" | "import" | "route" | "unroute" | "servers" | "folders" | "search"
            | "add" | "install"),
        ) => {
            let rest: Vec<String> = args[1..]
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect();
            if rest.iter().any(|a| a == "--help" || a == "-h") {
                println!("{}", help::of(command).unwrap_or(USAGE));
                return ExitCode::SUCCESS;
            }
            match command {
                "apps" => listing::apps(&rest),
                "import" => apps_cmd::import(&rest),
                "route" => apps_cmd::route(&rest),
                "unroute" => apps_cmd::unroute(&rest),
                "servers" => listing::servers(&rest),
                "search" | "add" | "install" => installer::exec(command, &args[1..]),
                _ => listing::folders(&rest),
            }
        }
        Some("--version" | "-V") => {
            println!("rootgate {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some("--help" | "-h" | "help") => {
            let topic = args.get(1).and_then(|a| a.to_str());
            match topic.map(help::of) {
                Some(Some(text)) => println!("{text}"),
                // `rootgate help --help` asks what `help` does: the usage says.
                Some(None) if matches!(topic, Some("--help" | "-h")) => println!("{USAGE}"),
                Some(None) => return usage_error("no such command"),
                None => println!("{USAGE}"),
            }
            ExitCode::SUCCESS
        }
        Some(EXAMPLE_SERVER_FLAG) => {
            rootgate_example_server::main_with_args(args.into_iter().skip(1))
        }
        _ => open_desktop(args),
    }
}

fn connect(args: &[OsString]) -> ExitCode {
    // `--help` and `-h` before `--` ask for help, and are never taken for a
    // server; a server of that name is named after `--`. Any other name is
    // taken as it is, as configs written before `--` existed name it.
    let split = args.iter().position(|a| a == "--");
    let (options, names) = match split {
        Some(at) => (&args[..at], &args[at + 1..]),
        None => (args, &[][..]),
    };
    if options.iter().any(|a| a == "--help" || a == "-h") {
        println!("{}", help::CONNECT);
        return ExitCode::SUCCESS;
    }
    // `--alone` runs the connection in this process, as every connection
    // ran before the resident gate: where a gate cannot run, and to measure.
    let alone = options.iter().any(|a| a == "--alone");
    let options: Vec<&OsString> = options.iter().filter(|a| *a != "--alone").collect();
    let named: Vec<&OsString> = options.into_iter().chain(names).collect();
    let name = match named.as_slice() {
        [name] => name.to_string_lossy().into_owned(),
        [] => return usage_error("connect needs the name of a server configured in Rootgate"),
        _ => return usage_error("connect takes one server name"),
    };
    let settings = match SettingsFile::default_location() {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("rootgate: {e}");
            return ExitCode::FAILURE;
        }
    };
    if !alone {
        return door(&settings, name);
    }
    // One thread: a bridge carries one connection, and a second thread
    // would only add wake-ups between them.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("rootgate: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = bridge::Options::here(settings, name, SessionConfig::default());
    let outcome = runtime.block_on(async {
        let (input, output) = bridge::app_io::app_io();
        bridge::connect(options, input, output).await
    });
    // The stdin reader may still be blocked in a read of the app's input;
    // the runtime must not wait for it.
    runtime.shutdown_background();
    match outcome {
        Outcome::Disconnected => ExitCode::SUCCESS,
        Outcome::Failed(_) => ExitCode::FAILURE,
    }
}

/// The door: hands the app's streams to the resident gate and exits with
/// the connection's status (see `gate::door`). Where `rootgate-door` is
/// beside this program, this process becomes it (`exec`): the same door in
/// a program that maps a few hundred kilobytes rather than this one's
/// eleven megabytes, since each app session keeps a door for its life.
fn door(settings: &SettingsFile, server: String) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let Ok(program) = std::env::current_exe() else {
        eprintln!("rootgate: this program's own path cannot be read, so no gate can be started");
        return ExitCode::FAILURE;
    };
    if let Some(small) = program
        .parent()
        .map(|dir| dir.join("rootgate-door"))
        .filter(|p| p.exists())
    {
        // Only returns when the program could not be run; the door below
        // then does the same work in this process.
        let _ = std::process::Command::new(small)
            .arg(settings.path())
            .arg(&server)
            .exec();
    }
    gate::door::run(&program, settings.path(), server)
}

/// `rootgate gate [--settings FILE] [--idle SECONDS]`: the resident gate,
/// as a door or systemd starts it (see `gate`).
fn gate(args: &[OsString]) -> ExitCode {
    let mut settings = None;
    let mut idle = gate::IDLE;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.to_str() {
            Some("--settings") => {
                settings = rest.next().map(|p| SettingsFile::at(PathBuf::from(p)))
            }
            Some("--idle") => match rest.next().and_then(|s| s.to_str()?.parse::<f64>().ok()) {
                Some(secs) if secs >= 0.0 && secs.is_finite() => {
                    idle = std::time::Duration::from_secs_f64(secs)
                }
                _ => return usage_error("gate --idle takes a number of seconds"),
            },
            Some("--help" | "-h") => {
                println!("{}", help::GATE);
                return ExitCode::SUCCESS;
            }
            _ => return usage_error("gate takes --settings FILE and --idle SECONDS"),
        }
    }
    let settings = match settings
        .map(Ok)
        .unwrap_or_else(SettingsFile::default_location)
    {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("rootgate gate: {e}");
            return ExitCode::FAILURE;
        }
    };
    let build = match std::env::current_exe() {
        Ok(program) => gate::door::build_of(&program),
        Err(e) => {
            eprintln!("rootgate gate: this program's own path cannot be read: {e}");
            return ExitCode::FAILURE;
        }
    };
    // systemd's socket activation passes the listening socket.
    let inherited = listenfd::ListenFd::from_env()
        .take_unix_listener(0)
        .ok()
        .flatten();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("rootgate gate: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let config = gate::GateConfig {
        settings,
        idle,
        session: SessionConfig::default(),
        build,
    };
    let served = runtime.block_on(gate::serve(config, inherited));
    // A connection's reader may still be blocked in a read of an app's input.
    runtime.shutdown_background();
    match served {
        Ok(()) | Err(gate::NotServed::AnotherListens) => ExitCode::SUCCESS,
        Err(gate::NotServed::Failed(why)) => {
            eprintln!("rootgate gate: {why}");
            ExitCode::FAILURE
        }
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("rootgate: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

/// Hands the folders to the Rootgate window already open on these
/// settings, if there is one (printing what it did, without loading any
/// GUI library); otherwise replaces this process with the desktop app,
/// passing the arguments on. Options (`--help`, a test's flags) always go
/// to the app, which reads them.
fn open_desktop(args: Vec<OsString>) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let options = args
        .iter()
        .any(|a| a.to_str().is_some_and(|a| a.starts_with('-')));
    if !options && let Ok(settings) = SettingsFile::default_location() {
        let folders: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
        let request = instance::request_for(&folders);
        match instance::hand_over_if_running(settings.path(), &request, instance::PATIENCE) {
            Ok(Some(answer)) => return instance::tell(&answer),
            Ok(None) => {}
            Err(e) => {
                eprintln!("rootgate: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("rootgate-desktop")))
        .filter(|p| p.exists());
    let program = beside.unwrap_or_else(|| PathBuf::from("rootgate-desktop"));
    let error = std::process::Command::new(&program).args(args).exec();
    eprintln!(
        "rootgate: could not open the desktop app ({}): {error}",
        program.display()
    );
    ExitCode::FAILURE
}
