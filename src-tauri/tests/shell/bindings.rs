//! The TypeScript declarations of every type the webview receives, checked
//! against the committed `ui/src/lib/bindings.ts`: the test fails when the
//! Rust types and the committed file drift apart, and
//! `UPDATE_BINDINGS=1 cargo test -p rootgate bindings` rewrites the file.
//!
//! Only declarations live here; no runtime code uses this module. The
//! library's types implement `TS` with its `ts` feature, which the tests'
//! dev-dependency on the library turns on.

use rootgate_apps::catalog::{
    AppView, Candidate, DoubtfulLink, EntryView, FileView, ImportedAs, Joined,
};
use rootgate_apps::import::Need;
use rootgate_apps::route::{RoutedEntry, Skipped};
use rootgate_apps::{AppKind, Format, Scope};
use rootgate_bridge::connections::{AppIdentity, ConnectionView, WaitingCall};
use rootgate_core::supervisor::{
    Change, ConsentPrompt, FolderView, ImportOutcome, PlanView, PromptId, ServerChoice, ServerView,
    Suggestion, WarningView,
};
use rootgate_model::consent::SharedRoot;
use rootgate_model::folders::Warning;
use rootgate_model::ids::{ConnectionId, RootId, ServerId};
use rootgate_model::roots::Root;
use rootgate_model::servers::{Era, EraChoice, ServerDraft, ServerSpec, Withdrawal};
use rootgate_model::templates::ServerTemplate;
use rootgate_model::timeline::{Entry, Event, Page};
use rootgate_session::delivery::{
    DeliveryState, DeliverySummary, FolderDelivery, FolderState, Following, RestartNote,
};
use rootgate_session::{LogLine, RunningInfo, Status};
use ts_rs::{Config, TS};

use rootgate::{AppInfo, CommandError, ErrorCode, Notice};

fn declarations() -> String {
    // JSON numbers: the UI never sees integers beyond 2^53 (ids, counts,
    // milliseconds), so `number` rather than ts-rs's default `bigint`.
    let cfg = Config::new().with_large_int("number");
    let decls = [
        RootId::decl(&cfg),
        ServerId::decl(&cfg),
        PromptId::decl(&cfg),
        Root::decl(&cfg),
        SharedRoot::decl(&cfg),
        Warning::decl(&cfg),
        WarningView::decl(&cfg),
        ServerChoice::decl(&cfg),
        Suggestion::decl(&cfg),
        ConsentPrompt::decl(&cfg),
        FolderView::decl(&cfg),
        rootgate_core::supervisor::FolderChoice::decl(&cfg),
        Withdrawal::decl(&cfg),
        Era::decl(&cfg),
        EraChoice::decl(&cfg),
        rootgate_model::servers::SecretPlace::decl(&cfg),
        ServerDraft::decl(&cfg),
        rootgate_model::tools::ToolSetting::decl(&cfg),
        rootgate_model::tools::ToolDefault::decl(&cfg),
        rootgate_model::tools::ToolSeen::decl(&cfg),
        rootgate_model::tools::ToolRules::decl(&cfg),
        ServerSpec::decl(&cfg),
        RunningInfo::decl(&cfg),
        Status::decl(&cfg),
        DeliveryState::decl(&cfg),
        Following::decl(&cfg),
        RestartNote::decl(&cfg),
        DeliverySummary::decl(&cfg),
        FolderState::decl(&cfg),
        FolderDelivery::decl(&cfg),
        ConnectionId::decl(&cfg),
        AppIdentity::decl(&cfg),
        WaitingCall::decl(&cfg),
        rootgate_bridge::connections::ToolAsk::decl(&cfg),
        rootgate_bridge::connections::AskAnswer::decl(&cfg),
        rootgate_core::supervisor::ToolQuestion::decl(&cfg),
        rootgate_model::calls::CallRecord::decl(&cfg),
        rootgate_model::calls::CallQuery::decl(&cfg),
        rootgate_model::calls::CallsFound::decl(&cfg),
        rootgate_model::calls::ExportFormat::decl(&cfg),
        rootgate_core::supervisor::Exported::decl(&cfg),
        rootgate_bridge::connections::Sees::decl(&cfg),
        ConnectionView::decl(&cfg),
        rootgate_model::questions::Answer::decl(&cfg),
        rootgate_model::questions::Asked::decl(&cfg),
        rootgate_core::supervisor::QuestionView::decl(&cfg),
        rootgate_model::downloads::Download::decl(&cfg),
        rootgate_core::supervisor::Retry::decl(&cfg),
        ServerView::decl(&cfg),
        LogLine::decl(&cfg),
        Event::decl(&cfg),
        Entry::decl(&cfg),
        Page::decl(&cfg),
        Change::decl(&cfg),
        ServerTemplate::decl(&cfg),
        AppKind::decl(&cfg),
        Format::decl(&cfg),
        Scope::decl(&cfg),
        Need::decl(&cfg),
        ImportedAs::decl(&cfg),
        DoubtfulLink::decl(&cfg),
        Candidate::decl(&cfg),
        Joined::decl(&cfg),
        EntryView::decl(&cfg),
        FileView::decl(&cfg),
        AppView::decl(&cfg),
        RoutedEntry::decl(&cfg),
        Skipped::decl(&cfg),
        PlanView::decl(&cfg),
        ImportOutcome::decl(&cfg),
        rootgate_sources::offer::Named::decl(&cfg),
        rootgate_sources::offer::Signature::decl(&cfg),
        rootgate_sources::offer::Source::decl(&cfg),
        rootgate_sources::offer::About::decl(&cfg),
        rootgate_sources::offer::SettingKind::decl(&cfg),
        rootgate_sources::offer::Setting::decl(&cfg),
        rootgate_core::supervisor::InstallView::decl(&cfg),
        rootgate_core::supervisor::InstallOutcome::decl(&cfg),
        rootgate_sources::registry::listing::PackageChoice::decl(&cfg),
        rootgate_sources::registry::listing::Listing::decl(&cfg),
        rootgate_sources::registry::listing::Found::decl(&cfg),
        rootgate_launcher::enforcement::Support::decl(&cfg),
        AppInfo::decl(&cfg),
        Notice::decl(&cfg),
        ErrorCode::decl(&cfg),
        CommandError::decl(&cfg),
        <serde_json::Value as TS>::decl(&cfg),
        rootgate_session::notices::OfferKind::decl(&cfg),
        rootgate_session::offers::OfferList::decl(&cfg),
        rootgate_session::offers::Offers::decl(&cfg),
        rootgate_session::offers::TryOutcome::decl(&cfg),
        rootgate_model::timeline::TryResult::decl(&cfg),
        rootgate_model::preferences::NotifyChoices::decl(&cfg),
        rootgate_model::autostart::LoginStart::decl(&cfg),
        rootgate_core::supervisor::PreferencesView::decl(&cfg),
    ];
    let mut out = String::from(
        "// Generated from the Rust types by src-tauri/tests/shell/bindings.rs; do not edit.\n\
         // Regenerate with: UPDATE_BINDINGS=1 cargo test -p rootgate bindings\n\n",
    );
    for decl in decls {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[test]
fn bindings_match_the_committed_file() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/lib/bindings.ts");
    let want = declarations();
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "ui/src/lib/bindings.ts is out of date with the Rust types; regenerate it with \
         UPDATE_BINDINGS=1 cargo test -p rootgate bindings"
    );
}

/// The window's table of AI apps' product names (`ui/src/lib/app-names.json`,
/// read by `appName` in `format.ts`) says what the core says: each client
/// name in it is the app `AppKind::from_client_name` finds, under the
/// title the Apps view shows, so an app is named the same in Connections,
/// the record of calls and the consent prompts.
#[test]
fn the_windows_app_names_are_the_cores() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/lib/app-names.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let table: std::collections::BTreeMap<String, String> = serde_json::from_str(&text).unwrap();
    assert!(table.len() >= 19, "{table:?}");
    for (client, title) in &table {
        assert_eq!(
            client,
            &client.to_lowercase(),
            "names are kept in lower case, as they are compared"
        );
        assert_eq!(
            AppKind::from_client_name(client).map(AppKind::title),
            Some(title.as_str()),
            "{client:?}"
        );
    }
}
