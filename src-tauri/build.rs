//! Build script: Tauri's code generation, with an app manifest that lists
//! every command, so each one gets its own `allow-<command>` permission and
//! the capability file can grant exactly these and nothing else.

/// Every command the webview may call. A command missing here cannot be
/// granted; a command granted but missing fails the build.
const COMMANDS: &[&str] = &[
    "app_info",
    "list_folders",
    "list_servers",
    "pick_folders",
    "open_prompts",
    "answer_prompt",
    "cancel_prompt",
    "change_access",
    "rename_folder",
    "remove_folder",
    "revoke",
    "add_server",
    "update_server",
    "remove_server",
    "approve_command",
    "start_server",
    "stop_server",
    "restart_server",
    "server_timeline",
    "server_log",
    "server_folders",
    "forget_following",
    "list_connections",
    "connection_timeline",
    "suggest_again",
    "list_questions",
    "answer_question",
    "activity",
    "templates",
    "window_shown",
    "list_apps",
    "import_app_server",
    "plan_route",
    "plan_unroute",
    "apply_plan",
    "drop_plan",
    "pick_bundle",
    "install_offer",
    "drop_install",
    "registry_search",
    "registry_offer",
    "set_registry",
    "stop_retrying",
    "folder_choices",
    "set_server_folders",
    "reveal_secret",
    "keep_secret",
    "set_tool_hidden",
    "server_offers",
    "call_tool",
    "cancel_call",
    "read_resource",
    "subscribe_resource",
    "unsubscribe_resource",
    "get_prompt",
    "preferences",
    "set_sharing_paused",
    "set_notify_choices",
    "set_start_at_login",
    "dismiss_start_at_login",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build script");
}
