//! The window's side of "Connect an app": the apps found, importing one of
//! their servers (which adds it unapproved and opens a consent prompt for
//! each folder in its arguments), and routing an app's file through
//! Rootgate or undoing that, each as a plan the person reads (its diff)
//! before it is written.
//!
//! Plans are kept here and named by a number, so the webview only ever
//! names an app, one of its files by position, an entry by its key, or a
//! plan: never a path, and never the text to write. The work itself is in
//! `apps` (shared with the `rootgate` command); this file only holds the
//! plans and opens the prompts.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use serde::Serialize;

use super::ground::Ground;
use super::notes::Notes;
use super::prompts::Consent;
use super::servers::ServerHandle;
use super::{ConsentPrompt, ServerView, SupervisorError, lock};
use crate::connecting::{self, EntryOutcome, FileImport};
use rootgate_apps::catalog::{self, AppView, AppsError, Imported, Joined};
use rootgate_apps::locate::Places;
use rootgate_apps::route::{self, Ledger, LedgerData, Plan, RoutedEntry, Skipped};
use rootgate_apps::{AppKind, ConfigFile, Scope};
use rootgate_bridge::connections::{ImportAnswer, ImportRequest};
use rootgate_host::watch::{Watch, Watches};
use rootgate_model::ids::ServerId;

/// Plans shown and not yet applied or dropped.
#[derive(Default)]
struct OpenPlans {
    next: u32,
    open: HashMap<u32, (Plan, Kind)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Route,
    Undo,
}

/// A rewrite of an app's config, for the person to read before it is
/// written.
#[derive(ts_rs::TS, Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanView {
    pub id: u32,
    pub app: AppKind,
    pub title: String,
    pub path: std::path::PathBuf,
    /// A unified diff, environment values masked.
    pub diff: String,
    pub entries: Vec<RoutedEntry>,
    pub skipped: Vec<Skipped>,
    pub undo: bool,
    /// An undo that puts only Rootgate's entries back, because the app
    /// changed the file since it was routed.
    pub partial_undo: bool,
    /// Why the program written into the file is a poor choice, when it is
    /// (a build folder a rebuild replaces: `catalog::build_folder_warning`).
    pub warning: Option<String>,
}

/// What an import did, for the window: the new server (waiting for
/// approval) and a consent prompt per folder in its arguments.
#[derive(ts_rs::TS, Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportOutcome {
    pub server: ServerView,
    /// Whether it became a new server, the same one another entry runs,
    /// or the one the person chose.
    pub joined: Joined,
    pub prompts: Vec<ConsentPrompt>,
    /// Folders in its arguments that cannot be offered, and why.
    pub notes: Vec<String>,
}

/// The AI apps: found, imported from, routed through Rootgate.
pub struct Apps {
    me: Weak<Apps>,
    ground: Ground,
    /// Rewrites of AI apps' configs shown and not yet written.
    plans: Mutex<OpenPlans>,
    servers: Arc<dyn ServerHandle>,
    consent: Arc<Consent>,
    notes: Arc<Notes>,
}

impl Apps {
    pub(super) fn new(
        ground: Ground,
        servers: Arc<dyn ServerHandle>,
        consent: Arc<Consent>,
        notes: Arc<Notes>,
    ) -> Arc<Apps> {
        Arc::new_cyclic(|me| Apps {
            me: me.clone(),
            ground,
            plans: Mutex::new(OpenPlans::default()),
            servers,
            consent,
            notes,
        })
    }

    fn places(&self) -> Result<Places, SupervisorError> {
        Places::from_env().ok_or(SupervisorError::NoHome)
    }

    fn ledger(&self) -> Ledger {
        Ledger::beside(self.ground.store.file().path())
    }

    /// Watches the AI apps' config files and the record of routes beside
    /// the settings, from now on: each change to one of them becomes
    /// `Change::AppsChanged`, so the window shows a route made in a terminal
    /// without being asked. Called once, by the app. The files are every
    /// app's main file, found or not, and the files of the apps found; a
    /// file whose folder is not there yet is watched through the nearest
    /// folder above it that is, so an app installed meanwhile is seen.
    pub fn watch_app_files(&self) {
        let Ok(places) = self.places() else {
            return;
        };
        let mut files: HashSet<PathBuf> = AppKind::ALL
            .iter()
            .map(|&app| rootgate_apps::locate::main_file(app, &places).path)
            .collect();
        files.extend(
            catalog::survey(
                &places,
                &LedgerData::default(),
                &self.ground.store.snapshot(),
            )
            .into_iter()
            .flat_map(|app| app.files.into_iter().map(|f| f.path)),
        );
        files.insert(self.ledger().path().to_path_buf());
        let (mut watch, mut changes) = Watches::process().subscribe(false);
        watch_folders_of(&mut watch, &files);
        let me = self.me.clone();
        self.ground.runtime.spawn(async move {
            // Kept while the task runs: dropping it unwatches the folders.
            let mut watch = watch;
            while let Some(change) = changes.recv().await {
                let Some(apps) = me.upgrade() else {
                    return;
                };
                if change.paths.is_empty() || change.paths.iter().any(|p| concerns(&files, p)) {
                    // A folder made on the way to a file is watched in turn.
                    watch_folders_of(&mut watch, &files);
                    let _ = apps.ground.changes.send(super::Change::AppsChanged);
                }
            }
        });
    }

    /// Every AI app found on this machine, its files and servers.
    pub fn list(&self) -> Result<Vec<AppView>, SupervisorError> {
        let ledger = self.ledger().load().map_err(AppsError::from)?;
        Ok(catalog::survey(
            &self.places()?,
            &ledger,
            &self.ground.store.snapshot(),
        ))
    }

    /// Imports entry `key` of `app`'s file number `file`, with the person's
    /// values for what the app would have filled in, as a server of its own
    /// or, when the person chose it, as `existing`.
    pub fn import_app_server(
        &self,
        app: AppKind,
        file: u32,
        scope: &Scope,
        key: &str,
        values: &BTreeMap<String, String>,
        existing: Option<&ServerId>,
    ) -> Result<ImportOutcome, SupervisorError> {
        let places = self.places()?;
        let config = catalog::file_of(app, file, &places)?;
        // Whether the entry is in Rootgate already and the name it takes
        // are read from the settings and then saved into them: no other
        // process writes in between (see `Store::hold`), as in the
        // `rootgate import` that finds no window.
        let imported = {
            let _held = self.ground.store.hold()?;
            catalog::import_entry(
                &self.ground.store,
                &self.ledger(),
                &places,
                &config,
                scope,
                key,
                values,
                existing,
            )?
        };
        self.servers.ensure_session(&imported.server)?;
        let from = format!("{}'s config", app.title());
        let mut prompts = Vec::new();
        let mut notes: Vec<String> = imported
            .kept_paths
            .iter()
            .map(|p| format!("{p} is not a folder on this machine, so it stays as it is"))
            .collect();
        for folder in &imported.folders {
            match self
                .consent
                .prompt_for_import(folder, &imported.server, &from)
            {
                Ok(prompt) => prompts.push(prompt),
                Err(e) => notes.push(format!("{}: {e}", folder.display())),
            }
        }
        Ok(ImportOutcome {
            server: self.servers.server(&imported.server.id)?,
            joined: imported.joined,
            prompts,
            notes,
        })
    }

    /// Plans routing `app`'s file number `file` through Rootgate (`only`
    /// those entries, or every imported one), with `exe` the running
    /// program, beside which `rootgate` is.
    pub fn plan_route(
        &self,
        app: AppKind,
        file: u32,
        only: &[String],
        exe: &Path,
    ) -> Result<PlanView, SupervisorError> {
        let places = self.places()?;
        let config = catalog::file_of(app, file, &places)?;
        let ledger = self.ledger().load().map_err(AppsError::from)?;
        let target =
            catalog::target(exe, self.ground.store.file().path(), &places).ok_or_else(|| {
                AppsError::NoCommand {
                    program: exe.display().to_string(),
                }
            })?;
        let settings = self.ground.store.snapshot();
        let plan = connecting::plan_route(&config, &places, &ledger, &settings, only, &target)
            .map_err(AppsError::from)?;
        let warning = catalog::build_folder_warning(&target.program);
        Ok(self.keep_plan(plan, Kind::Route, warning))
    }

    /// Plans undoing Rootgate's route of `app`'s file number `file`.
    pub fn plan_unroute(&self, app: AppKind, file: u32) -> Result<PlanView, SupervisorError> {
        let config = catalog::file_of(app, file, &self.places()?)?;
        let plan = route::plan_undo(app, &config.path, &self.ledger()).map_err(AppsError::from)?;
        Ok(self.keep_plan(plan, Kind::Undo, None))
    }

    /// Writes the plan `id`, which the person read. A plan is used once.
    pub fn apply_plan(&self, id: u32) -> Result<(), SupervisorError> {
        let (plan, kind) = lock(&self.plans)
            .open
            .remove(&id)
            .ok_or(SupervisorError::UnknownPlan)?;
        let ledger = self.ledger();
        match kind {
            Kind::Route => route::apply_route(&plan, &ledger),
            Kind::Undo => route::apply_undo(&plan, &ledger),
        }
        .map_err(AppsError::from)?;
        Ok(())
    }

    /// Forgets the plan `id` without writing it.
    pub fn drop_plan(&self, id: u32) {
        lock(&self.plans).open.remove(&id);
    }

    /// Imports what `rootgate import` asked for while this window holds
    /// the settings: each server as the window's own import does, its
    /// command shown for approval when it waits for one and the consent
    /// prompts for its folders after (`Change::ApprovalWanted`), and an
    /// answer in words for the terminal. The import itself is the
    /// command's own (`crate::connecting`).
    pub(super) fn import_for_terminal(&self, request: ImportRequest) -> ImportAnswer {
        let mut answer = ImportAnswer::default();
        let places = match self.places() {
            Ok(places) => places,
            Err(e) => {
                answer.errors.push(e.to_string());
                return answer;
            }
        };
        let file = ConfigFile {
            app: request.app,
            format: request.app.format(),
            path: request.file.clone(),
        };
        let read = match FileImport::read(&file) {
            Ok(read) => read,
            Err(problem) => {
                answer.errors.push(problem);
                return answer;
            }
        };
        let store = &self.ground.store;
        let existing = match connecting::existing(store, &request.keys, request.existing.as_deref())
        {
            Ok(existing) => existing,
            Err(e) => {
                answer.errors.push(e);
                return answer;
            }
        };
        let imported = read.import(
            store,
            &places,
            &request.keys,
            &request.values,
            existing.as_ref(),
        );
        let mut prompts = Vec::new();
        for entry in imported {
            match entry.outcome {
                EntryOutcome::Imported(done) => {
                    prompts.extend(self.show_imported(&entry.key, &done, request.app, &mut answer));
                }
                EntryOutcome::Nothing(line) => answer.lines.push(line),
                EntryOutcome::NeedsValue(words) => {
                    answer.needs_value = true;
                    answer.errors.push(words);
                }
                EntryOutcome::Failed(words) => answer.errors.push(words),
            }
        }
        for key in &request.keys {
            if !read.has(key) {
                answer
                    .errors
                    .push(format!("{} has no server `{key}`", request.app.title()));
            }
        }
        if !prompts.is_empty() {
            self.ground.send(super::Change::Prompts { prompts });
        }
        answer
    }

    /// A server `rootgate import` brought in: its session, the consent
    /// prompts for its folders, and its command shown for approval when it
    /// waits for one (the prompts then come after it, and none is
    /// returned); else the prompts, to show at once.
    fn show_imported(
        &self,
        key: &str,
        done: &Imported,
        app: AppKind,
        answer: &mut ImportAnswer,
    ) -> Vec<ConsentPrompt> {
        if let Err(e) = self.servers.ensure_session(&done.server) {
            answer.errors.push(e.to_string());
        }
        answer.lines.extend(catalog::joined_lines(
            key,
            done,
            "approve it in the Rootgate window",
        ));
        let from = format!("{}'s config", app.title());
        let mut its_prompts = Vec::new();
        for folder in &done.folders {
            match self.consent.prompt_for_import(folder, &done.server, &from) {
                Ok(prompt) => its_prompts.push(prompt),
                Err(e) => answer.errors.push(format!("{}: {e}", folder.display())),
            }
        }
        if !done.folders.is_empty() {
            answer.lines.push(format!(
                "  The window asks you about {} folder(s) to share with it.",
                done.folders.len()
            ));
        }
        // A command that waits for approval is shown for it, as the
        // window's own import does, its folders asked about after; else
        // the folders are asked about at once.
        match self.servers.server(&done.server.id) {
            Ok(view) if !view.approved => {
                self.notes
                    .note_import(&done.server.name, &done.server.id, app.title());
                self.ground.send(super::Change::ApprovalWanted {
                    server: Box::new(view),
                    prompts: its_prompts,
                });
                Vec::new()
            }
            _ => its_prompts,
        }
    }

    fn keep_plan(&self, plan: Plan, kind: Kind, warning: Option<String>) -> PlanView {
        let mut plans = lock(&self.plans);
        plans.next += 1;
        let id = plans.next;
        let view = PlanView {
            id,
            app: plan.app,
            title: plan.app.title().to_owned(),
            path: plan.file.clone(),
            diff: plan.diff.clone(),
            entries: plan.entries.clone(),
            skipped: plan.skipped.clone(),
            undo: kind == Kind::Undo,
            partial_undo: plan.partial_undo,
            warning,
        };
        plans.open.insert(id, (plan, kind));
        view
    }
}

/// Watches, for each of `files`, the folder it is in (a save renames over
/// it; a folder of files, as Continue's, is watched itself), or the
/// nearest folder above that is there.
fn watch_folders_of(watch: &mut Watch, files: &HashSet<PathBuf>) {
    for path in files {
        let mut dir = if path.is_dir() {
            Some(path.as_path())
        } else {
            path.parent()
        };
        while let Some(d) = dir {
            if d.is_dir() {
                watch.add(d);
                break;
            }
            dir = d.parent();
        }
    }
}

/// Whether a change to `path` can change what the Apps view shows: one of
/// `files`, an entry of a folder of files, or a folder on the way to one.
fn concerns(files: &HashSet<PathBuf>, path: &Path) -> bool {
    files.contains(path)
        || path.parent().is_some_and(|d| files.contains(d))
        || files.iter().any(|f| f.starts_with(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_concerns_the_apps_when_it_is_a_file_a_folder_of_files_or_on_the_way_to_one() {
        let files: HashSet<PathBuf> = [
            "/home/me/.config/Claude/claude_desktop_config.json",
            "/home/me/.continue/mcpServers",
            "/home/me/.cursor/mcp.json",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect();
        for yes in [
            "/home/me/.config/Claude/claude_desktop_config.json",
            "/home/me/.continue/mcpServers/git.yaml",
            // Cursor installed while the window is open: its folder is made.
            "/home/me/.cursor",
            "/home/me/.config/Claude",
        ] {
            assert!(concerns(&files, Path::new(yes)), "{yes}");
        }
        for no in [
            "/home/me/notes.txt",
            "/home/me/.config/Claude/claude_desktop_config.json.tmp-1",
            "/home/me/.cursor/extensions",
            "/home/me/.config/Claude/logs",
        ] {
            assert!(!concerns(&files, Path::new(no)), "{no}");
        }
    }
}
