//! Rootgate's desktop app: a thin Tauri shell over `rootgate-core`, as a
//! library whose [`run`] is the whole `rootgate` binary (`src/main.rs` only
//! calls it).
//!
//! The shell opens the window, the native folder picker, the events to the
//! webview and the tray (`tray`: closing the window leaves Rootgate there,
//! and `--hidden`, as Start at login runs it, starts it there); everything
//! Rootgate decides is in the core's services (the `Supervisor` root hands
//! them out), and each command (`commands/<area>.rs`) is one line into one
//! of them. Paths enter only through the picker, a
//! drop on the window or the command line. Started as
//! `rootgate --example-server`, the binary is instead the built-in example
//! MCP server (our fixture server), so the example needs no second program.
//! A start that finds another Rootgate on the same settings hands its
//! folders to that one's window and exits (`rootgate_core::instance`).
//!
//! Public, besides [`run`], is only what the shell's integration tests
//! (`tests/shell`) need: [`app`], [`context`] and [`Launch`], to build the
//! very same app on Tauri's mock runtime; the types the webview receives
//! that the TypeScript bindings declare ([`AppInfo`], [`CommandError`],
//! [`ErrorCode`], [`Notice`]); and, with the `test-picker` feature, the
//! hidden `E2ePicks`. Commands, the event pump (`events`), the picker and the shell's state
//! stay private.
//!
//! Not here: consent rules, settings, sessions (core); the UI (`ui/`).

mod commands;
mod error;
mod events;
#[cfg(target_os = "linux")]
mod painting;
mod picker;
mod tray;

pub use error::{CommandError, ErrorCode};
pub use events::Notice;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rootgate_core::instance::{self, Start};
use rootgate_core::session::SessionConfig;
use rootgate_core::settings::SettingsFile;
use rootgate_core::supervisor::{ROOTS_ARE_ADVICE, Supervisor};
use rootgate_core::templates::{ServerTemplate, templates};
use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager, RunEvent, Runtime, WindowEvent};

/// The flag that makes this binary the built-in example server.
const EXAMPLE_SERVER_FLAG: &str = "--example-server";

/// What the window shows about the app itself.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    pub version: String,
    pub settings_path: String,
    /// Set when the settings file could not be trusted: where it went and
    /// what was kept.
    pub recovery: Option<String>,
    pub roots_note: String,
    /// Problems with folders given on the command line.
    pub notices: Vec<String>,
    /// Whether servers' roots can be enforced here (Landlock), and if not,
    /// why: the server form says so rather than offering a switch that
    /// would do nothing.
    pub enforcement: rootgate_core::enforcement::Support,
    /// Where the `rootgate` command is, when it sits beside the app: what an
    /// AI app's settings should name to connect through Rootgate.
    pub cli_path: Option<String>,
    /// MCP bundles named on the command line (the file manager's Open),
    /// read and checked: the window shows each for installing.
    pub installs: Vec<rootgate_core::supervisor::InstallView>,
}

/// How long the enabled servers wait for the window to say it shows its
/// content before they start anyway: a window that failed to load must not
/// keep them from running.
const SERVERS_START_AT_LATEST: Duration = Duration::from_secs(10);

/// The shell's own state: what `app_info` and `templates` return, and
/// whether the enabled servers have been started yet.
pub(crate) struct Shell {
    info: AppInfo,
    example_command: String,
    servers_started: AtomicBool,
}

impl Shell {
    pub fn info(&self) -> AppInfo {
        self.info.clone()
    }

    /// Starts every enabled, approved server, the first time only: when the
    /// window first shows its content, or after `SERVERS_START_AT_LATEST`.
    pub fn start_servers(&self, supervisor: &Supervisor) {
        if !self.servers_started.swap(true, Ordering::SeqCst) {
            supervisor.servers().start_enabled();
        }
    }

    pub fn templates(&self) -> Vec<ServerTemplate> {
        templates(&self.example_command, &[EXAMPLE_SERVER_FLAG])
    }
}

/// The picks file of the end-to-end tests' picker (see `picker`), which
/// the shell's own tests (`tests/shell`) manage too: no test can open the
/// GTK dialog. Only in builds with `e2e-picker` or `test-picker`, which no
/// build of the app for a person has.
#[cfg(any(feature = "e2e-picker", feature = "test-picker"))]
#[doc(hidden)]
pub struct E2ePicks(pub PathBuf);

/// The command line: folders to offer for sharing, whether to start in the
/// tray, and test-only flags.
#[derive(Default)]
struct Cli {
    folders: Vec<PathBuf>,
    /// Start with the window hidden, in the tray (Start at login does).
    hidden: bool,
    #[cfg(feature = "e2e-picker")]
    e2e_picks: Option<PathBuf>,
}

fn parse_cli(args: Vec<OsString>) -> Result<Cli, String> {
    let mut cli = Cli::default();
    let mut args = args.into_iter();
    // Not a `for` loop: an option's value is taken from the same iterator.
    #[allow(clippy::while_let_on_iterator)]
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--help" | "-h") => {
                return Err("Usage: rootgate [--hidden] [FOLDER...]\n\nOpens Rootgate; each FOLDER is offered for sharing with a consent prompt. With Rootgate open already on the same settings, its window asks about them and this start exits.\n\n--hidden  start in the tray, the window closed (as Start at login does)".into());
            }
            Some(rootgate_core::autostart::HIDDEN_FLAG) => cli.hidden = true,
            #[cfg(feature = "e2e-picker")]
            Some("--e2e-picks") => {
                cli.e2e_picks = Some(args.next().ok_or("--e2e-picks needs a FILE")?.into());
            }
            Some(flag) if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ => cli.folders.push(PathBuf::from(arg)),
        }
    }
    Ok(cli)
}

/// Folders dropped on the window: each becomes a consent prompt, and each
/// that cannot be shared a notice.
fn on_drop<R: Runtime>(app: &AppHandle<R>, paths: &[PathBuf]) {
    let Some(supervisor) = app.try_state::<Arc<Supervisor>>() else {
        return;
    };
    let intake = supervisor.consent().prompts_for_paths(paths);
    for notice in intake.notices() {
        events::notice(app, notice);
    }
    if !intake.prompts.is_empty() {
        let _ = app.emit(events::PROMPTS, intake.prompts);
    }
}

/// The `rootgate` binary: the launcher or the example server when asked
/// to be one, else the app on the folders named on the command line.
pub fn run() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    // Servers are started through a launcher (see rootgate_core::launcher):
    // `rootgate-launcher` beside the app when it is there, else the app
    // binary itself in that role.
    if let Some(code) = rootgate_core::launcher::run_if_requested(&args) {
        return code;
    }
    if let Ok(exe) = std::env::current_exe() {
        rootgate_core::launcher::use_program_if_none_beside(exe);
    }
    if args.first().and_then(|a| a.to_str()) == Some(EXAMPLE_SERVER_FLAG) {
        return rootgate_example_server::main_with_args(args.into_iter().skip(1));
    }
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = match parse_cli(args) {
        Ok(cli) => cli,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let settings = match SettingsFile::default_location() {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("rootgate: {e}");
            return ExitCode::FAILURE;
        }
    };
    // One Rootgate per settings file: a second start (the menu entry
    // again, `rootgate FOLDER` while the window is open) hands its folders
    // to the window that owns the settings and exits, before it makes a
    // window of its own.
    let request = instance::request_for(&cli.folders);
    let owner = match instance::start(settings.path(), &request, instance::PATIENCE) {
        Ok(Start::Own(owner)) => owner,
        Ok(Start::HandedOver(answer)) => return instance::tell(&answer),
        Err(e) => {
            eprintln!("rootgate: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Before any window or thread exists: a re-executed process starts again
    // from the top, with the same arguments, and takes the settings' lock
    // anew (the lock's file is closed on exec, which lets it go).
    #[cfg(target_os = "linux")]
    if painting::cpu_painting_wanted(&painting::Machine::current()) {
        let e = painting::reexec_with_cpu_painting();
        tracing::warn!(
            "could not restart with CPU painting, so pages paint through software GL: {e}"
        );
    }
    match run_app(cli, settings, owner) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rootgate: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Brings the window to the front: another start of Rootgate, the tray or
/// a notification's "Open Rootgate" asked for it.
pub(crate) fn raise<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// `owner` is this process's hold on the settings (see
/// `rootgate_core::instance`), kept until the app exits.
fn run_app(
    cli: Cli,
    settings: SettingsFile,
    owner: instance::Owner,
) -> Result<(), Box<dyn std::error::Error>> {
    let _owner = owner;
    let hidden = cli.hidden;
    let launch = Launch {
        settings,
        folders: cli.folders,
        example_command: example_command()?,
        #[cfg(feature = "e2e-picker")]
        e2e_picks: cli.e2e_picks,
    };
    let app = app(tauri::Builder::default(), launch).build(context())?;
    app.run(move |app, event| match event {
        // Tauri runs `setup` (the supervisor, the window) when the event
        // loop starts, and says Ready right after, before anything is drawn.
        RunEvent::Ready => ready(app, hidden),
        RunEvent::Exit => {
            if let Some(supervisor) = app.try_state::<Arc<Supervisor>>() {
                // No server outlives the app: stop them all before exiting.
                tauri::async_runtime::block_on(supervisor.shutdown());
            }
        }
        _ => {}
    });
    Ok(())
}

/// The real app is set up: Rootgate goes in the tray, and a start with
/// `--hidden` (Start at login) hides the window before it is first drawn.
/// Only here, not in `app()`: the shell's tests build that same app on the
/// mock runtime, where there is no desktop to show a tray.
fn ready<R: Runtime>(app: &AppHandle<R>, hidden: bool) {
    if let Some(supervisor) = app.try_state::<Arc<Supervisor>>() {
        let supervisor = Arc::clone(&supervisor);
        if let Err(e) = tray::install(app, &supervisor) {
            tracing::warn!(error = %e, "no tray: closing the window quits Rootgate");
        }
    }
    if hidden && let Some(window) = app.get_webview_window("main") {
        let _ = window.hide();
    }
}

/// This program, beside which the `rootgate` command is, for what an AI
/// app's config is routed to.
pub(crate) fn program() -> Result<PathBuf, CommandError> {
    std::env::current_exe().map_err(|e| {
        CommandError::new(
            ErrorCode::AppConfig,
            format!("cannot tell where Rootgate is installed: {e}"),
        )
    })
}

/// The `rootgate` command beside the app, if it is there.
fn cli_beside_app() -> Option<PathBuf> {
    let beside = std::env::current_exe().ok()?.with_file_name("rootgate");
    beside.is_file().then_some(beside)
}

/// How the built-in example server is started: the `rootgate` command
/// beside the app when it is there (it maps no GUI library, so the example
/// starts in a few milliseconds and a few megabytes), else the app itself,
/// which can play the example server too.
fn example_command() -> std::io::Result<String> {
    let program = match cli_beside_app() {
        Some(cli) => cli,
        None => std::env::current_exe()?,
    };
    Ok(program.to_string_lossy().into_owned())
}

/// What one start of the app is given from outside: where the settings
/// live, the folders named on the command line, how the built-in example
/// server is started, and the end-to-end tests' picks file.
pub struct Launch {
    pub settings: SettingsFile,
    pub folders: Vec<PathBuf>,
    pub example_command: String,
    #[cfg(feature = "e2e-picker")]
    pub e2e_picks: Option<PathBuf>,
}

/// The app's configuration, window and assets from `tauri.conf.json`, with
/// the capability file that grants the webview its commands. Generic over
/// the runtime so that the tests build the very same context on Tauri's
/// mock runtime.
pub fn context<R: Runtime>() -> tauri::Context<R> {
    tauri::generate_context!()
}

/// The whole app on `builder`: the dialog plugin, the state every command
/// uses (made in `setup`, from `launch`), window drops and the invoke
/// handler with every command. `run` calls it with the real runtime; the
/// tests call it with Tauri's mock runtime, so they go through the same
/// handler, state and permissions as the app.
pub fn app<R: Runtime>(builder: tauri::Builder<R>, launch: Launch) -> tauri::Builder<R> {
    builder
        .plugin(tauri_plugin_dialog::init())
        .setup(move |app| setup(app, &launch))
        .on_window_event(|window, event| match event {
            WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) => {
                on_drop(window.app_handle(), paths);
            }
            // With a tray to find it in, closing the window hides it:
            // Rootgate stays to ask about folders AI apps need.
            WindowEvent::CloseRequested { api, .. }
                if window
                    .app_handle()
                    .try_state::<tray::TrayHost>()
                    .is_some_and(|host| host.shows_us()) =>
            {
                api.prevent_close();
                let _ = window.hide();
            }
            _ => {}
        })
        .invoke_handler(tauri::generate_handler![
            commands::app_info,
            commands::list_folders,
            commands::list_servers,
            commands::pick_folders,
            commands::open_prompts,
            commands::answer_prompt,
            commands::cancel_prompt,
            commands::change_access,
            commands::rename_folder,
            commands::remove_folder,
            commands::revoke,
            commands::add_server,
            commands::update_server,
            commands::remove_server,
            commands::approve_command,
            commands::start_server,
            commands::stop_server,
            commands::restart_server,
            commands::server_timeline,
            commands::server_log,
            commands::server_folders,
            commands::forget_following,
            commands::list_connections,
            commands::connection_timeline,
            commands::suggest_again,
            commands::list_questions,
            commands::answer_question,
            commands::activity,
            commands::templates,
            commands::window_shown,
            commands::list_apps,
            commands::import_app_server,
            commands::plan_route,
            commands::plan_unroute,
            commands::apply_plan,
            commands::drop_plan,
            commands::pick_bundle,
            commands::install_offer,
            commands::drop_install,
            commands::registry_search,
            commands::registry_offer,
            commands::set_registry,
            commands::set_unused_server_minutes,
            commands::stop_retrying,
            commands::folder_choices,
            commands::set_server_folders,
            commands::reveal_secret,
            commands::keep_secret,
            commands::set_tool_setting,
            commands::set_tool_default,
            commands::acknowledge_tool,
            commands::tool_questions,
            commands::answer_tool_question,
            commands::search_calls,
            commands::export_calls,
            commands::server_offers,
            commands::call_tool,
            commands::cancel_call,
            commands::read_resource,
            commands::subscribe_resource,
            commands::unsubscribe_resource,
            commands::get_prompt,
            commands::preferences,
            commands::set_sharing_paused,
            commands::set_notify_choices,
            commands::set_start_at_login,
            commands::dismiss_start_at_login,
        ])
}

/// What the app makes once, before its window shows: the supervisor on
/// `launch`'s settings, prompts for the folders on the command line, the
/// shell's state, the events to the webview, and the timer that starts the
/// servers at the latest.
fn setup<R: Runtime>(
    app: &mut tauri::App<R>,
    launch: &Launch,
) -> Result<(), Box<dyn std::error::Error>> {
    let supervisor = tauri::async_runtime::block_on(async {
        Supervisor::open(launch.settings.clone(), SessionConfig::default())
    })?;
    let info = launch_info(&supervisor, launch);
    app.manage(Shell {
        info,
        example_command: launch.example_command.clone(),
        servers_started: AtomicBool::new(false),
    });
    #[cfg(feature = "e2e-picker")]
    if let Some(picks) = launch.e2e_picks.clone() {
        app.manage(E2ePicks(picks));
    }
    events::forward(app.handle().clone(), &supervisor);
    // Another start of Rootgate on these settings hands its folders over
    // on the same socket: their prompts reach the page as a change; here,
    // the window comes to the front and the refusals become notices.
    let handle = app.handle().clone();
    supervisor.take_other_starts(Box::new(move |answer| {
        for notice in &answer.notices {
            events::notice(&handle, notice.clone());
        }
        raise(&handle);
    }));
    ask_and_listen(app, &supervisor);
    app.manage(supervisor);
    // Servers start in the background once the window shows its
    // folders and servers (the page calls `window_shown`): the
    // window never waits for them, and twenty servers starting at
    // once do not compete with it for the CPU while it draws.
    let handle = app.handle().clone();
    tauri::async_runtime::spawn(async move {
        tokio::time::sleep(SERVERS_START_AT_LATEST).await;
        if let (Some(shell), Some(supervisor)) = (
            handle.try_state::<Shell>(),
            handle.try_state::<Arc<Supervisor>>(),
        ) {
            shell.start_servers(&supervisor);
        }
    });
    Ok(())
}

/// What the window is told at start: the settings, the folders on the
/// command line (their prompts stay open for the window to show, those
/// that cannot be shared are notices) and the MCP bundles among them (the
/// file manager opens one with Rootgate), read and checked now and shown
/// for installing.
fn launch_info(supervisor: &Supervisor, launch: &Launch) -> AppInfo {
    let (bundles, folders): (Vec<PathBuf>, Vec<PathBuf>) = launch
        .folders
        .iter()
        .cloned()
        .partition(|p| instance::is_bundle(p));
    let mut notices = supervisor.consent().prompts_for_paths(&folders).notices();
    let mut installs = Vec::new();
    for file in &bundles {
        match supervisor.installing().open_bundle(file) {
            Ok(view) => installs.push(view),
            Err(e) => notices.push(e.to_string()),
        }
    }
    AppInfo {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        settings_path: supervisor.settings_path().display().to_string(),
        recovery: supervisor.recovery().map(|r| r.message()),
        roots_note: ROOTS_ARE_ADVICE.to_owned(),
        notices,
        enforcement: rootgate_core::enforcement::support(),
        cli_path: cli_beside_app().map(|p| p.to_string_lossy().into_owned()),
        installs,
    }
}

/// Folders AI apps work in are asked about on the desktop when a
/// notification server runs ("Open Rootgate" brings the window up), and
/// AI apps' connections through `rootgate connect` report here.
fn ask_and_listen<R: Runtime>(app: &tauri::App<R>, supervisor: &Arc<Supervisor>) {
    let asking = Arc::clone(supervisor);
    let handle = app.handle().clone();
    asking
        .questions()
        .on_open_asked(Box::new(move || raise(&handle)));
    // AI apps' connections through `rootgate connect` report here, once
    // the desktop was looked for: a bridge that connects at once is asked
    // about as a later one is. A bus that does not answer is not waited for.
    let listening = Arc::clone(supervisor);
    let handle = app.handle().clone();
    tauri::async_runtime::spawn(async move {
        let found = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            rootgate_core::desktop::Desktop::session(),
        )
        .await;
        match found {
            Ok(Ok(desktop)) => asking.questions().ask_through(Arc::new(desktop)),
            Ok(Err(e)) => tracing::info!(error = %e, "questions wait in the window"),
            Err(_) => {
                tracing::info!("the session bus did not answer; questions wait in the window")
            }
        }
        // Routes made in a terminal reach the Apps view without a Look again.
        listening.apps().watch_app_files();
        if let Err(e) = listening.listen_for_bridges().await {
            events::notice(
                &handle,
                format!("AI apps connected through Rootgate will not show in this window: {e}"),
            );
        }
    });
}
