//! `rootgate import`, `route` and `unroute`: the window's "Connect an
//! app" actions from a terminal, and the options all the app commands
//! share. The lists (`apps`, `servers`, `folders`) are in `listing`.
//!
//! Each command reads its options, calls the core (`rootgate_core::apps`,
//! the same code the window uses) and prints what happened in words, or
//! JSON with `--json`. It never approves a command or shares a folder: an
//! import says what waits for the person and points at the window. It
//! never prints an environment value.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use rootgate_core::apps::catalog::{self, Imported};
use rootgate_core::apps::locate::Places;
use rootgate_core::apps::{AppKind, ConfigFile};
use rootgate_core::bridge::window_socket::{Unreached, connect_window, refusal_words};
use rootgate_core::connecting::EntryOutcome;
use rootgate_core::connections::{ImportAnswer, ImportRequest, Report, socket_path};
use rootgate_core::headless::Headless;
use rootgate_core::instance;
use rootgate_core::settings::SettingsFile;

/// A value only the person can give is missing.
const NEEDS_VALUE: u8 = 3;

mod routing;
pub use routing::{route, unroute};

/// The options of the app commands, as read from the command line.
#[derive(Default)]
pub(crate) struct Opts {
    pub(crate) app: Option<AppKind>,
    pub(crate) names: Vec<String>,
    pub(crate) json: bool,
    pub(crate) dry_run: bool,
    pub(crate) config: Option<PathBuf>,
    pub(crate) set: BTreeMap<String, String>,
    /// `--into NAME`: the existing server the person chose for the entry.
    pub(crate) into: Option<String>,
}

/// Reads `args`; `takes` lists the options the command accepts.
pub(crate) fn opts(args: &[String], takes: &[&str], wants_app: bool) -> Result<Opts, String> {
    let mut o = Opts::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let takes_it = |name: &str| takes.contains(&name);
        match arg.as_str() {
            "--json" if takes_it("--json") => o.json = true,
            "--dry-run" if takes_it("--dry-run") => o.dry_run = true,
            "--config" if takes_it("--config") => {
                let file = it.next().ok_or("--config needs a file")?;
                o.config = Some(PathBuf::from(file));
            }
            "--set" if takes_it("--set") => {
                let pair = it.next().ok_or("--set needs TOKEN=VALUE")?;
                let (token, value) = pair
                    .rsplit_once('=')
                    .filter(|(t, _)| !t.is_empty())
                    .ok_or("--set needs TOKEN=VALUE")?;
                // `TOKEN=-` reads the value from standard input, so a
                // secret need not be on the command line (where other
                // users' `ps` and the shell's history see it).
                let value = match value {
                    "-" => read_value(token)?,
                    value => value.to_owned(),
                };
                o.set.insert(token.to_owned(), value);
            }
            "--into" if takes_it("--into") => {
                let name = it
                    .next()
                    .ok_or("--into needs the name of a server in Rootgate")?;
                o.into = Some(name.clone());
            }
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            word if wants_app && o.app.is_none() => {
                o.app = Some(AppKind::from_id(word).ok_or_else(|| {
                    format!(
                        "unknown app `{word}`; the apps are claude-desktop, claude-code, \
                         cursor, vscode, zed and goose"
                    )
                })?);
            }
            word if wants_app => o.names.push(word.to_owned()),
            word => return Err(format!("unexpected `{word}`")),
        }
    }
    if wants_app && o.app.is_none() {
        return Err(
            "name the app: claude-desktop, claude-code, cursor, vscode, zed or goose".into(),
        );
    }
    Ok(o)
}

/// One line of standard input, the value of `token`. On a terminal the
/// person is asked for it and it is not echoed.
pub(crate) fn read_value(token: &str) -> Result<String, String> {
    use std::io::BufRead;
    let stdin = std::io::stdin();
    let terminal = stdin.is_terminal();
    let echo = |on: bool| {
        // `stty` acts on the terminal it is given as standard input.
        let _ = std::process::Command::new("stty")
            .arg(if on { "echo" } else { "-echo" })
            .stdin(std::process::Stdio::inherit())
            .status();
    };
    if terminal {
        eprint!("Value of {token} (not shown): ");
        echo(false);
    }
    let mut line = String::new();
    let read = stdin.lock().read_line(&mut line);
    if terminal {
        echo(true);
        eprintln!();
    }
    read.map_err(|e| format!("cannot read the value of {token} from standard input: {e}"))?;
    let value = line.strip_suffix('\n').unwrap_or(&line);
    let value = value.strip_suffix('\r').unwrap_or(value);
    if value.is_empty() {
        return Err(format!(
            "no value of {token} on standard input (--set {token}=- reads one line)"
        ));
    }
    Ok(value.to_owned())
}

pub(crate) fn usage(message: &str, help: &str) -> ExitCode {
    eprintln!("rootgate: {message}\n\n{help}");
    ExitCode::from(2)
}

pub(crate) fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("rootgate: {message}");
    ExitCode::FAILURE
}

pub(crate) fn settings() -> Result<SettingsFile, String> {
    SettingsFile::default_location().map_err(|e| e.to_string())
}

pub(crate) fn places() -> Result<Places, String> {
    Places::from_env().ok_or_else(|| "HOME is not set, so AI apps' configs cannot be found".into())
}

/// The files an app command works on: `--config FILE`, or the app's own.
fn files(app: AppKind, config: &Option<PathBuf>, places: &Places) -> Vec<ConfigFile> {
    match config {
        Some(path) => vec![ConfigFile {
            app,
            path: absolute(path),
            format: app.format(),
        }],
        None => catalog::files_of(app, places),
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> ExitCode {
    match serde_json::to_string_pretty(value) {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// `rootgate import`.
pub fn import(args: &[String]) -> ExitCode {
    let o = match opts(args, &["--config", "--set", "--into"], true) {
        Ok(o) => o,
        Err(e) => return usage(&e, crate::help::IMPORT),
    };
    let Some(app) = o.app else {
        return usage("name the app", crate::help::IMPORT);
    };
    if o.into.is_some() && o.names.len() != 1 {
        return usage(
            "--into names the server for one entry: name exactly one, \
             e.g. rootgate import vscode notes --into files",
            crate::help::IMPORT,
        );
    }
    let (settings, places) = match settings().and_then(|s| Ok((s, places()?))) {
        Ok(both) => both,
        Err(e) => return fail(e),
    };
    // The values given with --set (typed ones too) go to the window only
    // when it is the person's own: see `window_socket`.
    let window = socket_path(settings.path());
    match through_the_window(settings.path(), &window) {
        Ok(true) => return import_through_window(&window, app, &o, &places),
        Ok(false) => {}
        Err(words) => return fail(words),
    }
    let rootgate = match Headless::open(settings.clone()) {
        Ok(rootgate) => rootgate,
        Err(e) => return fail(e),
    };
    let existing = match rootgate.existing(&o.names, o.into.as_deref()) {
        Ok(existing) => existing,
        Err(e) => return fail(e),
    };
    let mut wanted: Vec<String> = o.names.clone();
    let mut status = ExitCode::SUCCESS;
    let mut folders = Vec::new();
    let mut any = false;
    for file in files(app, &o.config, &places) {
        let read = match Headless::read(&file) {
            Ok(read) => read,
            Err(problem) => {
                status = fail(problem);
                continue;
            }
        };
        wanted.retain(|w| !read.has(w));
        for entry in rootgate.import(&read, &places, &o.names, &o.set, existing.as_ref()) {
            match entry.outcome {
                EntryOutcome::Imported(done) => {
                    any = true;
                    say_imported(&rootgate, &entry.key, &done);
                    folders.extend(done.folders);
                }
                EntryOutcome::Nothing(line) => println!("{line}"),
                EntryOutcome::NeedsValue(words) => {
                    eprintln!("rootgate: {words}");
                    status = ExitCode::from(NEEDS_VALUE);
                }
                EntryOutcome::Failed(words) => status = fail(words),
            }
        }
    }
    for missing in &wanted {
        status = fail(format!("{} has no server `{missing}`", app.title()));
    }
    say_what_next(&folders, any);
    status
}

/// What the person does next: open the window with the folders imported
/// (none is shared yet), or to approve what was imported.
fn say_what_next(folders: &[PathBuf], any: bool) {
    if !folders.is_empty() {
        println!(
            "Its folders are not shared yet. To be asked about them, open the window with them:\n  {}",
            open_line(folders)
        );
        if folders
            .iter()
            .any(|f| shown_path(&f.display().to_string()) != f.display().to_string())
        {
            println!(
                "  A folder's name holds invisible or reordering characters, written out above \
                 as <U+…>: that line names other folders if pasted. Open the window and drop or \
                 pick the folder instead; the prompt shows what it is."
            );
        }
    } else if any {
        println!("Open the window (`rootgate`) to approve it.");
    }
}

/// What the terminal is told of a server it imported.
fn say_imported(rootgate: &Headless, key: &str, done: &Imported) {
    let next = "it waits for your approval in the Rootgate window";
    for line in catalog::joined_lines(key, done, next) {
        println!("{line}");
    }
    println!("  {}", done.server.masked_command_line());
    say_unstored(rootgate, &done.server);
    for kept in &done.kept_paths {
        println!(
            "  {} is not a folder on this machine; kept as it is",
            shown_path(kept)
        );
    }
}

/// How often a start of the window that holds the settings but has not
/// bound its socket yet is looked at again.
const WINDOW_RECHECK: std::time::Duration = std::time::Duration::from_millis(100);

/// Whether an import goes through the window: yes when the person's own
/// window answers on `window`. When none answers but a Rootgate holds the
/// settings (`instance`: a window still starting, its lock taken and its
/// socket not yet bound), it is waited for as a second start waits, for
/// at most `instance::PATIENCE`, so that the window hears of the import and
/// asks for its approval. When none holds them, the import writes the
/// settings itself: under their write lock (see `Store::hold`), so a window
/// that starts meanwhile keeps the server, adopting it at its next change.
fn through_the_window(settings: &Path, window: &Path) -> Result<bool, String> {
    let deadline = std::time::Instant::now() + instance::PATIENCE;
    loop {
        match connect_window(window) {
            Ok(_) => return Ok(true),
            Err(Unreached::Absent) => {}
            Err(Unreached::NotOurs(why)) => return Err(refusal_words(&why)),
            Err(e @ Unreached::Failed(_)) => {
                return Err(format!(
                    "the Rootgate window's socket {}: {e}",
                    window.display()
                ));
            }
        }
        // Taken only to look, and let go at once: a window starting now
        // takes it (its own start tries again) and waits for nothing.
        match instance::claim(settings) {
            Ok(Some(_free)) => return Ok(false),
            Ok(None) => {}
            Err(e) => return Err(e.to_string()),
        }
        if std::time::Instant::now() >= deadline {
            return Err(format!(
                "a Rootgate window has these settings open but did not answer on {} within \
                 {} s; nothing was imported, so run the command again once it is open",
                window.display(),
                instance::PATIENCE.as_secs()
            ));
        }
        std::thread::sleep(WINDOW_RECHECK);
    }
}

/// Says which of an imported server's secrets could not be kept: without
/// a keyring this command cannot ask where they go, and once it ends a
/// value that was not stored is gone.
pub(crate) fn say_unstored(rootgate: &Headless, server: &rootgate_core::servers::ServerSpec) {
    let unstored: Vec<&str> = server
        .secrets
        .iter()
        .filter(|(_, place)| **place == rootgate_core::servers::SecretPlace::NotStored)
        .map(|(name, _)| name.as_str())
        .collect();
    if unstored.is_empty() {
        return;
    }
    let why = rootgate
        .keyring_problem(server)
        .unwrap_or_else(|| "no keyring is available".into());
    println!(
        "  {} could not be kept in the keyring ({why}), so it was not stored: give it again in \
         the Rootgate window, which asks where to keep it.",
        unstored.join(", ")
    );
}

/// Asks the open window, which holds the settings, to import (see
/// `connections::ImportRequest`), one request per file, and prints its
/// answers.
fn import_through_window(window: &Path, app: AppKind, o: &Opts, places: &Places) -> ExitCode {
    use std::io::{BufRead, BufReader, Write};
    let mut status = ExitCode::SUCCESS;
    for file in files(app, &o.config, places) {
        if !file.path.exists() {
            continue;
        }
        let mut stream = match connect_window(window) {
            Ok(stream) => stream,
            Err(Unreached::NotOurs(why)) => return fail(refusal_words(&why)),
            Err(_) => return fail("lost the Rootgate window while importing"),
        };
        let request = Report::Import {
            request: ImportRequest {
                app,
                file: file.path.clone(),
                keys: o.names.clone(),
                values: o.set.clone(),
                existing: o.into.clone(),
            },
        };
        let mut line = serde_json::to_vec(&request).unwrap_or_default();
        line.push(b'\n');
        let mut answer = String::new();
        let asked = stream
            .write_all(&line)
            .and_then(|()| BufReader::new(&stream).read_line(&mut answer));
        let answer: ImportAnswer = match asked.ok().and_then(|_| serde_json::from_str(&answer).ok())
        {
            Some(answer) => answer,
            None => return fail("the Rootgate window did not answer; import from its Apps view"),
        };
        for said in &answer.lines {
            println!("{said}");
        }
        for error in &answer.errors {
            eprintln!("rootgate: {error}");
        }
        if answer.needs_value {
            status = ExitCode::from(NEEDS_VALUE);
        } else if !answer.errors.is_empty() {
            status = ExitCode::FAILURE;
        }
    }
    status
}

/// The command that opens the window with `folders` offered for sharing,
/// each quoted for a shell and its hidden characters written out.
pub(crate) fn open_line(folders: &[PathBuf]) -> String {
    let list: Vec<String> = folders
        .iter()
        .map(|f| {
            shown_path(&rootgate_core::servers::shell_quote(
                &f.display().to_string(),
            ))
        })
        .collect();
    format!("rootgate {}", list.join(" "))
}

/// A path or argument as the terminal shows it: invisible and reordering
/// characters written out (`<U+202E>`), as the window shows them, so a
/// name cannot turn the line around.
pub(crate) fn shown_path(text: &str) -> String {
    rootgate_core::names::written_out(text)
}
