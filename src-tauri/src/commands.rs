//! The commands the webview may call: each one line into the supervisor,
//! traced with its error. Their permissions are listed in `build.rs` and
//! granted in `capabilities/main.json`; none of them takes a path. Their
//! arguments are `Arg`s, so one of the wrong shape is refused with the same
//! `{code, message}` as every other error.
//!
//! What is not here: any logic. A command that needs more than one call
//! into the core is a sign that the core lacks a method.

use std::sync::Arc;

use std::collections::BTreeMap;

use rootgate_core::apps::catalog::AppView;
use rootgate_core::apps::{AppKind, Scope};
use rootgate_core::autostart::LoginStart;
use rootgate_core::calls::{CallQuery, CallsFound, ExportFormat};
use rootgate_core::connections::AskAnswer;
use rootgate_core::connections::ConnectionView;
use rootgate_core::ids::{ConnectionId, RootId, ServerId};
use rootgate_core::preferences::NotifyChoices;
use rootgate_core::questions::Answer;
use rootgate_core::servers::SecretPlace;
use rootgate_core::servers::ServerDraft;
use rootgate_core::session::LogLine;
use rootgate_core::session::delivery::FolderDelivery;
use rootgate_core::session::offers::{Offers, TryOutcome};
use rootgate_core::sources::registry::listing::Found;
use rootgate_core::supervisor::{
    ConsentPrompt, Exported, FolderChoice, FolderView, ImportOutcome, InstallOutcome, InstallView,
    PlanView, PreferencesView, PromptId, QuestionView, ServerView, Supervisor, ToolQuestion,
};
use rootgate_core::templates::ServerTemplate;
use rootgate_core::timeline::{Entry, Page};
use rootgate_core::tools::{ToolDefault, ToolSetting};
use serde_json::{Map, Value};
use tauri::{AppHandle, Runtime, State, WebviewWindow};
use tracing::instrument;

use crate::error::{Arg, CommandError, ErrorCode};
use crate::{AppInfo, Shell};

type Sup<'a> = State<'a, Arc<Supervisor>>;
type Result<T> = std::result::Result<T, CommandError>;

#[tauri::command]
#[instrument(skip_all, err)]
pub fn app_info(shell: State<'_, Shell>) -> Result<AppInfo> {
    Ok(shell.info())
}

#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_folders(sup: Sup<'_>) -> Result<Vec<FolderView>> {
    Ok(sup.folders())
}

#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_servers(sup: Sup<'_>) -> Result<Vec<ServerView>> {
    Ok(sup.servers())
}

/// Opens the native folder picker; returns one consent prompt per folder
/// chosen (none when the picker was cancelled).
#[tauri::command]
#[instrument(skip_all, err)]
pub async fn pick_folders<R: Runtime>(
    app: AppHandle<R>,
    window: WebviewWindow<R>,
    sup: Sup<'_>,
) -> Result<Vec<ConsentPrompt>> {
    Ok(sup
        .prompts_for_paths(crate::picker::pick(&app, &window).await?)
        .into_prompts()?)
}

#[tauri::command]
#[instrument(skip_all, err)]
pub fn open_prompts(sup: Sup<'_>) -> Result<Vec<ConsentPrompt>> {
    Ok(sup.open_prompts())
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn answer_prompt(
    sup: Sup<'_>,
    prompt: Arg<PromptId>,
    servers: Arg<Vec<ServerId>>,
    name: Arg<Option<String>>,
) -> Result<FolderView> {
    Ok(sup.answer_prompt(prompt.0, &servers.0, name.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn cancel_prompt(sup: Sup<'_>, prompt: Arg<PromptId>) -> Result<()> {
    sup.cancel_prompt(prompt.0);
    Ok(())
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn change_access(sup: Sup<'_>, root: Arg<RootId>) -> Result<ConsentPrompt> {
    Ok(sup.prompt_for_root(&root.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn rename_folder(sup: Sup<'_>, root: Arg<RootId>, name: Arg<String>) -> Result<FolderView> {
    Ok(sup.rename_folder(&root.0, &name.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn remove_folder(sup: Sup<'_>, root: Arg<RootId>) -> Result<()> {
    Ok(sup.remove_folder(&root.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn revoke(sup: Sup<'_>, server: Arg<ServerId>, root: Arg<RootId>) -> Result<()> {
    Ok(sup.revoke(&server.0, &root.0)?)
}

// The draft is not traced: it may hold the values of secrets.
#[tauri::command]
#[instrument(skip(sup, draft), err)]
pub fn add_server(sup: Sup<'_>, draft: Arg<ServerDraft>) -> Result<ServerView> {
    Ok(sup.add_server(draft.0)?)
}

#[tauri::command]
#[instrument(skip(sup, draft), err)]
pub async fn update_server(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    draft: Arg<ServerDraft>,
) -> Result<ServerView> {
    Ok(sup.update_server(&id.0, draft.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn remove_server(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.remove_server(&id.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn approve_command(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    command_line: Arg<String>,
) -> Result<ServerView> {
    Ok(sup.approve_command(&id.0, &command_line.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn start_server(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.start(&id.0)?)
}

/// Every kept folder, as the server's own checklist shows it.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn folder_choices(sup: Sup<'_>, id: Arg<ServerId>) -> Result<Vec<FolderChoice>> {
    Ok(sup.folder_choices(&id.0)?)
}

/// The server may see exactly these kept folders (ids, never paths).
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_server_folders(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    roots: Arg<Vec<RootId>>,
) -> Result<ServerView> {
    Ok(sup.set_server_folders(&id.0, &roots.0)?)
}

/// Cancels a restart scheduled after a failure; the server waits for the
/// person, also at the next launch.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn stop_retrying(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.stop_retrying(&id.0)?)
}

/// The value of a server's secret variable, which the person asked to see.
/// The answer is not traced.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn reveal_secret(sup: Sup<'_>, id: Arg<ServerId>, name: Arg<String>) -> Result<String> {
    Ok(sup.reveal_secret(&id.0, &name.0).await?)
}

/// Keeps a secret where the person chose (`file`, `notStored`, or
/// `keyring` to try it again) when no keyring was available.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn keep_secret(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    name: Arg<String>,
    place: Arg<SecretPlace>,
) -> Result<ServerView> {
    Ok(sup.keep_secret(&id.0, &name.0, place.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn stop_server(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.stop(&id.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn restart_server(sup: Sup<'_>, id: Arg<ServerId>) -> Result<()> {
    Ok(sup.restart(&id.0)?)
}

/// A server's newest `limit` entries older than `before` (the newest of
/// all without it): the window loads a long timeline a page at a time, so
/// opening one never waits for all of it.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn server_timeline(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    before: Arg<Option<u64>>,
    limit: Arg<usize>,
) -> Result<Page> {
    Ok(sup.timeline_page(&id.0, before.0, limit.0))
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn server_log(sup: Sup<'_>, id: Arg<ServerId>) -> Result<Vec<LogLine>> {
    Ok(sup.log_of(&id.0)?)
}

/// Each folder a server is granted or may still hold, and whether the
/// server has picked it up.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn server_folders(sup: Sup<'_>, id: Arg<ServerId>) -> Result<Vec<FolderDelivery>> {
    Ok(sup.server_folders(&id.0)?)
}

/// Forgets that a server was seen not to follow changes.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn forget_following(sup: Sup<'_>, id: Arg<ServerId>) -> Result<ServerView> {
    Ok(sup.forget_following(&id.0)?)
}

/// Every AI app's connection through a bridge, live ones first.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_connections(sup: Sup<'_>) -> Result<Vec<ConnectionView>> {
    Ok(sup.connections())
}

/// What happened on one AI app's connection, oldest first.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn connection_timeline(sup: Sup<'_>, id: Arg<ConnectionId>) -> Result<Vec<Entry>> {
    Ok(sup.connection_timeline(&id.0))
}

/// Asks again about the folders an AI app's connection works in, even
/// those whose suggestion the person cancelled: the prompts it opens.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn suggest_again(sup: Sup<'_>, id: Arg<ConnectionId>) -> Result<Vec<ConsentPrompt>> {
    Ok(sup.suggest_again(&id.0))
}

/// Every question asked when an AI app needed a folder, newest first.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_questions(sup: Sup<'_>) -> Result<Vec<QuestionView>> {
    Ok(sup.question_views())
}

/// The person's answer to a question, by its number: the consent prompt
/// to show when a Share needs the folder's warnings read first.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn answer_question(
    sup: Sup<'_>,
    id: Arg<u64>,
    answer: Arg<Answer>,
) -> Result<Option<ConsentPrompt>> {
    Ok(sup.answer_question(id.0, answer.0)?)
}

#[tauri::command]
#[instrument(skip_all, err)]
pub fn activity(sup: Sup<'_>) -> Result<Vec<Entry>> {
    Ok(sup.activity())
}

#[tauri::command]
#[instrument(skip_all, err)]
pub fn templates(shell: State<'_, Shell>) -> Result<Vec<ServerTemplate>> {
    Ok(shell.templates())
}

/// The window shows its folders and servers: the enabled servers start now
/// (the first time only), not while the window is still drawing.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn window_shown(shell: State<'_, Shell>, sup: Sup<'_>) -> Result<()> {
    shell.start_servers(&sup);
    Ok(())
}

#[tauri::command]
#[instrument(skip_all, err)]
pub fn list_apps(sup: Sup<'_>) -> Result<Vec<AppView>> {
    Ok(sup.apps()?)
}

/// Imports one server of an AI app's config file (named by the app and the
/// file's position, never by a path). `values` fill what the app would
/// have (`${input:…}` and the like); they are not logged. `existing` is
/// the server the person chose to use instead of a new one.
#[tauri::command]
#[instrument(skip(sup, values), err)]
pub fn import_app_server(
    sup: Sup<'_>,
    app: Arg<AppKind>,
    file: Arg<u32>,
    scope: Arg<Scope>,
    key: Arg<String>,
    values: Arg<BTreeMap<String, String>>,
    existing: Arg<Option<ServerId>>,
) -> Result<ImportOutcome> {
    Ok(sup.import_app_server(
        app.0,
        file.0,
        &scope.0,
        &key.0,
        &values.0,
        existing.0.as_ref(),
    )?)
}

/// Plans routing an app's file through Rootgate; the `rootgate` written
/// there is the one beside this program.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn plan_route(
    sup: Sup<'_>,
    app: Arg<AppKind>,
    file: Arg<u32>,
    only: Arg<Vec<String>>,
) -> Result<PlanView> {
    Ok(sup.plan_route(app.0, file.0, &only.0, &crate::program()?)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn plan_unroute(sup: Sup<'_>, app: Arg<AppKind>, file: Arg<u32>) -> Result<PlanView> {
    Ok(sup.plan_unroute(app.0, file.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn apply_plan(sup: Sup<'_>, id: Arg<u32>) -> Result<()> {
    Ok(sup.apply_plan(id.0)?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn drop_plan(sup: Sup<'_>, id: Arg<u32>) -> Result<()> {
    sup.drop_plan(id.0);
    Ok(())
}

/// Installs offer `id` (a bundle or a registry entry the window showed)
/// with the person's answers by setting key; they are not logged, and the
/// secret ones go to the keyring.
#[tauri::command]
#[instrument(skip(sup, values), err)]
pub fn install_offer(
    sup: Sup<'_>,
    id: Arg<u32>,
    values: Arg<BTreeMap<String, String>>,
) -> Result<InstallOutcome> {
    Ok(sup.install(id.0, &values.0)?)
}

/// Opens the native file picker for an MCP bundle and reads it (nothing is
/// unpacked until it is installed); none when the picker was cancelled.
#[tauri::command]
#[instrument(skip_all, err)]
pub async fn pick_bundle<R: Runtime>(
    app: AppHandle<R>,
    window: WebviewWindow<R>,
    sup: Sup<'_>,
) -> Result<Option<InstallView>> {
    match crate::picker::pick_bundle(&app, &window).await? {
        Some(file) => Ok(Some(sup.open_bundle(&file)?)),
        None => Ok(None),
    }
}

/// The record of AI apps' calls that match `query`, newest first.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn search_calls(sup: Sup<'_>, query: Arg<CallQuery>) -> Result<CallsFound> {
    let sup = Arc::clone(&sup);
    tauri::async_runtime::spawn_blocking(move || sup.search_calls(&query.0))
        .await
        .map_err(|e| CommandError::new(ErrorCode::Settings, e.to_string()))
}

/// Exports the record's calls that match `query` to a file the person
/// picks in the native save dialog; none when they cancelled.
#[tauri::command]
#[instrument(skip(app, window, sup), err)]
pub async fn export_calls<R: Runtime>(
    app: AppHandle<R>,
    window: WebviewWindow<R>,
    sup: Sup<'_>,
    query: Arg<CallQuery>,
    format: Arg<ExportFormat>,
) -> Result<Option<Exported>> {
    let name = format!(
        "rootgate-calls-{}.{}",
        rootgate_core::calls::day(rootgate_core::ids::now_ms()),
        format.0.extension()
    );
    let Some(to) = crate::picker::pick_save(&app, &window, &name).await? else {
        return Ok(None);
    };
    let sup = Arc::clone(&sup);
    let exported =
        tauri::async_runtime::spawn_blocking(move || sup.export_calls(&query.0, format.0, &to))
            .await
            .map_err(|e| CommandError::new(ErrorCode::Settings, e.to_string()))??;
    Ok(Some(exported))
}

/// Searches the MCP Registry; its answer from the cache, saying so, when
/// the registry cannot be reached.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn registry_search(sup: Sup<'_>, words: Arg<String>) -> Result<Found> {
    Ok(sup.registry_search(words.0).await?)
}

/// One registry entry's package, fetched and shown for installing.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn registry_offer(
    sup: Sup<'_>,
    name: Arg<String>,
    version: Arg<String>,
    package: Arg<u32>,
) -> Result<InstallView> {
    Ok(sup.registry_offer(name.0, version.0, package.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn drop_install(sup: Sup<'_>, id: Arg<u32>) -> Result<()> {
    sup.drop_install(id.0);
    Ok(())
}

/// Sets what AI apps may do with one of a server's tools (allowed, ask,
/// hidden), for every app or for one (`app`, the name it gives); no
/// setting takes it away.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_tool_setting(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    app: Arg<Option<String>>,
    tool: Arg<String>,
    setting: Arg<Option<ToolSetting>>,
) -> Result<ServerView> {
    Ok(sup.set_tool_setting(&id.0, app.0.as_deref(), &tool.0, setting.0)?)
}

/// Sets what a server's tools without a setting of their own get.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_tool_default(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    default: Arg<ToolDefault>,
) -> Result<ServerView> {
    Ok(sup.set_tool_default(&id.0, default.0)?)
}

/// The person looked at how a tool changed: its settings apply again.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn acknowledge_tool(sup: Sup<'_>, id: Arg<ServerId>, tool: Arg<String>) -> Result<ServerView> {
    Ok(sup.acknowledge_tool(&id.0, &tool.0)?)
}

/// The AI apps' tool calls that wait for the person's answer.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn tool_questions(sup: Sup<'_>) -> Result<Vec<ToolQuestion>> {
    Ok(sup.tool_questions())
}

/// The person's answer to a waiting tool call.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn answer_tool_question(
    sup: Sup<'_>,
    connection: Arg<ConnectionId>,
    key: Arg<String>,
    answer: Arg<AskAnswer>,
) -> Result<()> {
    Ok(sup.answer_tool_question(&connection.0, &key.0, answer.0, "you, in the window")?)
}

/// Everything a running server offers: tools, resources, templates, prompts.
#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn server_offers(sup: Sup<'_>, id: Arg<ServerId>) -> Result<Offers> {
    Ok(sup.offers(&id.0).await?)
}

/// Calls a tool as call number `call` (the window's own numbering, for its
/// progress and `cancel_call`). The arguments are data for the server, not
/// folders for Rootgate, and are not traced: they may hold secrets.
#[tauri::command]
#[instrument(skip_all, fields(call = call.0, name = %name.0), err)]
pub async fn call_tool(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    call: Arg<u32>,
    name: Arg<String>,
    arguments: Arg<Map<String, Value>>,
) -> Result<TryOutcome> {
    Ok(sup.call_tool(&id.0, call.0, &name.0, arguments.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn cancel_call(sup: Sup<'_>, call: Arg<u32>) -> Result<()> {
    sup.cancel_call(call.0);
    Ok(())
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn read_resource(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    uri: Arg<String>,
) -> Result<TryOutcome> {
    Ok(sup.read_resource(&id.0, &uri.0).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn subscribe_resource(sup: Sup<'_>, id: Arg<ServerId>, uri: Arg<String>) -> Result<()> {
    Ok(sup.follow_resource(&id.0, &uri.0, true).await?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub async fn unsubscribe_resource(sup: Sup<'_>, id: Arg<ServerId>, uri: Arg<String>) -> Result<()> {
    Ok(sup.follow_resource(&id.0, &uri.0, false).await?)
}

/// Gets a prompt; its arguments are not traced, as a tool's are not.
#[tauri::command]
#[instrument(skip_all, fields(name = %name.0), err)]
pub async fn get_prompt(
    sup: Sup<'_>,
    id: Arg<ServerId>,
    name: Arg<String>,
    arguments: Arg<BTreeMap<String, String>>,
) -> Result<TryOutcome> {
    Ok(sup.get_prompt(&id.0, &name.0, arguments.0).await?)
}

/// The Settings view: pause, notifications, Start at login (for this
/// program, the app's binary).
#[tauri::command]
#[instrument(skip_all, err)]
pub fn preferences(sup: Sup<'_>) -> Result<PreferencesView> {
    Ok(sup.preferences(&crate::program()?)?)
}

/// Pauses all sharing (every server and bridge is told no folders) or
/// resumes it.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_sharing_paused(sup: Sup<'_>, paused: Arg<bool>) -> Result<()> {
    Ok(sup.set_sharing_paused(paused.0)?)
}

/// The MCP Registry to search and install from; an empty address: the
/// default. (Not an optional argument: a body that is not an object would
/// then read as "none" and reset the choice.)
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_registry(sup: Sup<'_>, address: Arg<String>) -> Result<()> {
    Ok(sup.set_registry(Some(&address.0))?)
}

#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_notify_choices(sup: Sup<'_>, choices: Arg<NotifyChoices>) -> Result<()> {
    Ok(sup.set_notify_choices(choices.0)?)
}

/// Starts this program hidden in the tray at login (the autostart entry),
/// or stops doing so. The path written is the running program's, never
/// one from the webview.
#[tauri::command]
#[instrument(skip(sup), err)]
pub fn set_start_at_login(sup: Sup<'_>, on: Arg<bool>) -> Result<LoginStart> {
    Ok(sup.set_start_at_login(on.0, &crate::program()?)?)
}

/// The offer of Start at login was put away: it is not made again.
#[tauri::command]
#[instrument(skip_all, err)]
pub fn dismiss_start_at_login(sup: Sup<'_>) -> Result<()> {
    Ok(sup.start_at_login_offered()?)
}
