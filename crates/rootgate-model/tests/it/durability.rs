//! Settings durability under SIGKILL: a child process makes rapid changes
//! through the real [`Store`] (folders added, renamed and removed; grants
//! and revokes; servers added, edited, approved and removed) and reports
//! each change on stdout only after the store said it was saved; the test
//! kills it with SIGKILL at a random moment, loads the settings file with
//! the real loader, and checks that the file parses without recovery (no
//! file moved aside, no temporary file left behind) and holds every change
//! the child reported. The one change in flight when the kill landed may or
//! may not be there, but nothing else. The next child then continues on the
//! same file, as the app does after a crash.
//!
//! The child is this test binary run again with `ROOTGATE_DURABILITY_CHILD`
//! set, so no extra binary is needed. The parent keeps its own model of the
//! settings, built only from what the child reported, so it does not trust
//! the store to check the store.
//!
//! Size and seed come from the environment:
//! - `ROOTGATE_DURABILITY_KILLS` (default 300): how many children are
//!   killed. CI runs the default; for a long local run:
//!   `ROOTGATE_DURABILITY_KILLS=3000 cargo nextest run -p rootgate-model --test it durability::`.
//! - `ROOTGATE_DURABILITY_SEED`: replays the choices of a failed run (the
//!   seed is printed at the start and in every failure). The seed fixes what
//!   the children do and after how many changes each is killed; the exact
//!   instant within a save still depends on scheduling.
//!
//! What this does not test: power loss (SIGKILL leaves the page cache to
//! the kernel, so this checks the write-rename protocol, not the fsyncs),
//! and two Rootgates writing one file at once.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rootgate_model::folders;
use rootgate_model::ids::{RootId, ServerId};
use rootgate_model::servers::{ServerDraft, Withdrawal};
use rootgate_model::settings::{Settings, SettingsFile};
use rootgate_model::store::Store;
use rootgate_test_support::rng::{Rng, count_from_env, seed_from_env};
use serde::{Deserialize, Serialize};

/// This test's name, for running it again as the child.
const TEST_NAME: &str = "sigkill_at_random_moments_loses_no_saved_change";
const CHILD_ENV: &str = "ROOTGATE_DURABILITY_CHILD";
const CHILD_SEED_ENV: &str = "ROOTGATE_DURABILITY_CHILD_SEED";
/// How many folders the children choose from.
const FOLDER_POOL: usize = 40;
/// At most this many servers exist at once.
const MAX_SERVERS: usize = 6;
/// The command every server has; nothing is ever run.
const COMMAND: &str = "/opt/example/mcp-server";
/// A child is killed after it reported between 0 and this many changes
/// (and then after a random pause of up to one save's length).
const MAX_CHANGES_PER_LIFE: usize = 4;

/// One change the child makes, as it reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
enum Change {
    AddRoot {
        folder: String,
        name: Option<String>,
    },
    RenameRoot {
        root: RootId,
        name: String,
    },
    RemoveRoot {
        root: RootId,
    },
    Grant {
        server: ServerId,
        root: RootId,
    },
    Revoke {
        server: ServerId,
        root: RootId,
    },
    SetGrants {
        root: RootId,
        servers: Vec<ServerId>,
    },
    AddServer {
        name: String,
        args: Vec<String>,
    },
    UpdateServer {
        server: ServerId,
        name: String,
        args: Vec<String>,
        enabled: bool,
    },
    ApproveCommand {
        server: ServerId,
        command_line: String,
    },
    RemoveServer {
        server: ServerId,
    },
}

// ---------------------------------------------------------------------------
// The child: rapid changes through the real store, each reported once saved.
// ---------------------------------------------------------------------------

/// Writes one line to stdout in one `write` (lines stay far below the pipe's
/// atomic size), so a kill never leaves half a report. A parent that went
/// away ends the child.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let mut bytes = line.as_bytes().to_vec();
    bytes.push(b'\n');
    if out.write_all(&bytes).and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

fn child_main(settings: &Path, seed: u64) -> ! {
    let folders_dir = folders_dir(settings);
    let (store, recovery) = Store::open(SettingsFile::at(settings)).expect("child: open store");
    if let Some(recovery) = recovery {
        say(&format!("RECOVERY {}", recovery.message()));
        std::process::exit(3);
    }
    let mut rng = Rng::new(seed);
    say("READY");
    // Bounded so a child whose parent stopped reading cannot run forever.
    for n in 0..100_000u64 {
        let change = choose(&mut rng, &store.snapshot(), &folders_dir);
        say(&format!(
            "BEGIN {n} {}",
            serde_json::to_string(&change).expect("encode")
        ));
        let created = apply(&store, &folders_dir, &change)
            .unwrap_or_else(|e| panic!("child: {change:?} was refused: {e}"));
        say(&format!("SAVED {n} {}", created.unwrap_or_default()));
    }
    std::process::exit(0);
}

/// Makes one change; returns the id the store gave a new root or server.
fn apply(
    store: &Store,
    folders_dir: &Path,
    change: &Change,
) -> Result<Option<String>, rootgate_model::store::StoreError> {
    let draft = |name: &str, args: &[String], enabled: bool| ServerDraft {
        name: name.to_owned(),
        command: COMMAND.to_owned(),
        args: args.to_vec(),
        enabled,
        ..Default::default()
    };
    match change {
        Change::AddRoot { folder, name } => {
            let checked = folders::check(&folders_dir.join(folder)).expect("child: folder");
            let added = store.add_root(&checked, name.clone())?;
            assert!(!added.existed, "child: {folder} was added twice");
            return Ok(Some(added.root.id.to_string()));
        }
        Change::RenameRoot { root, name } => drop(store.rename_root(root, name)?),
        Change::RemoveRoot { root } => store.remove_root(root)?,
        Change::Grant { server, root } => drop(store.grant(server, root)?),
        Change::Revoke { server, root } => store.revoke(server, root)?,
        Change::SetGrants { root, servers } => store.set_grants(root, servers)?,
        Change::AddServer { name, args } => {
            let spec = store.add_server(draft(name, args, false))?;
            return Ok(Some(spec.id.to_string()));
        }
        Change::UpdateServer {
            server,
            name,
            args,
            enabled,
        } => drop(store.update_server(server, draft(name, args, *enabled))?),
        Change::ApproveCommand {
            server,
            command_line,
        } => drop(store.approve_command(server, command_line)?),
        Change::RemoveServer { server } => store.remove_server(server)?,
    }
    Ok(None)
}

/// A random change that really changes something (the store saves nothing
/// for a change that is none, and the parent's model must move in step).
fn choose(rng: &mut Rng, s: &Settings, folders_dir: &Path) -> Change {
    let unused: Vec<String> = (0..FOLDER_POOL)
        .map(folder_name)
        .filter(|f| {
            let real = folders_dir.join(f).canonicalize().expect("child: folder");
            !s.roots.iter().any(|r| r.real_path == real)
        })
        .collect();
    let fresh_name = |rng: &mut Rng| format!("s{:x}", rng.next_u64() & 0xffff_ffff);
    let args = |rng: &mut Rng| -> Vec<String> {
        (0..rng.below(3))
            .map(|i| format!("--opt{i}={}", rng.below(4)))
            .collect()
    };
    loop {
        let roll = rng.below(100);
        let change = match roll {
            0..=9 if !unused.is_empty() => Change::AddRoot {
                folder: rng.pick(&unused).clone(),
                name: rng
                    .percent(50)
                    .then(|| format!("folder ✓ {}", rng.below(1000))),
            },
            10..=14 if !s.roots.is_empty() => Change::RemoveRoot {
                root: rng.pick(&s.roots).id.clone(),
            },
            15..=19 if !s.roots.is_empty() => Change::RenameRoot {
                root: rng.pick(&s.roots).id.clone(),
                name: format!("renamed \"{}\"", rng.next_u64() & 0xffff),
            },
            20..=44 if !s.roots.is_empty() && !s.servers.is_empty() => Change::Grant {
                server: rng.pick(&s.servers).id.clone(),
                root: rng.pick(&s.roots).id.clone(),
            },
            45..=59 if !s.grants.is_empty() => {
                let g = rng.pick(&s.grants);
                Change::Revoke {
                    server: g.server.clone(),
                    root: g.root.clone(),
                }
            }
            60..=69 if !s.roots.is_empty() => Change::SetGrants {
                root: rng.pick(&s.roots).id.clone(),
                servers: s
                    .servers
                    .iter()
                    .filter(|_| rng.percent(50))
                    .map(|srv| srv.id.clone())
                    .collect(),
            },
            70..=77 if s.servers.len() < MAX_SERVERS => Change::AddServer {
                name: fresh_name(rng),
                args: args(rng),
            },
            78..=87 if !s.servers.is_empty() => {
                let srv = rng.pick(&s.servers);
                let keep_name = rng.percent(50);
                Change::UpdateServer {
                    server: srv.id.clone(),
                    name: if keep_name {
                        srv.name.clone()
                    } else {
                        fresh_name(rng)
                    },
                    args: if rng.percent(50) {
                        srv.args.clone()
                    } else {
                        args(rng)
                    },
                    enabled: rng.percent(50),
                }
            }
            88..=93 if !s.servers.is_empty() => {
                let srv = rng.pick(&s.servers);
                Change::ApproveCommand {
                    server: srv.id.clone(),
                    command_line: srv.command_line(),
                }
            }
            94..=99 if !s.servers.is_empty() => Change::RemoveServer {
                server: rng.pick(&s.servers).id.clone(),
            },
            _ => continue,
        };
        if changes_something(&change, s) {
            return change;
        }
    }
}

fn changes_something(change: &Change, s: &Settings) -> bool {
    let mut model = Model::of(s);
    let before = model.clone();
    model.apply(change, None, Path::new("/unused"));
    model != before
}

// ---------------------------------------------------------------------------
// The parent's model: what the settings must hold, from the child's reports.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
struct ModelRoot {
    id: RootId,
    name: String,
    chosen_path: PathBuf,
    real_path: PathBuf,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct ModelServer {
    id: ServerId,
    name: String,
    args: Vec<String>,
    enabled: bool,
    /// The command line last approved: an edit keeps it (for the approval
    /// dialog's "what changed"), and the server runs only while it is still
    /// the line that would run.
    approved_line: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Model {
    roots: Vec<ModelRoot>,
    servers: Vec<ModelServer>,
    grants: BTreeSet<(ServerId, RootId)>,
}

impl Model {
    /// The model of a settings file, checking along the way what the model
    /// does not hold (every server has our command and no environment;
    /// every grant is for its root's real path).
    fn of(s: &Settings) -> Model {
        let roots: Vec<ModelRoot> = s
            .roots
            .iter()
            .map(|r| ModelRoot {
                id: r.id.clone(),
                name: r.name.clone(),
                chosen_path: r.chosen_path.clone(),
                real_path: r.real_path.clone(),
            })
            .collect();
        let servers = s
            .servers
            .iter()
            .map(|srv| {
                assert_eq!(srv.command, COMMAND);
                assert!(srv.env.is_empty() && srv.cwd.is_none());
                assert_eq!(srv.withdrawal, Withdrawal::Notify);
                // An edit keeps the approval of the earlier command line (for
                // the approval dialog to show what changed); it covers only
                // that line, so the server counts as approved only when it
                // is still the line that would run.
                ModelServer {
                    id: srv.id.clone(),
                    name: srv.name.clone(),
                    args: srv.args.clone(),
                    enabled: srv.enabled,
                    approved_line: srv.approved_command.clone(),
                }
            })
            .collect();
        for g in &s.grants {
            let root = roots.iter().find(|r| r.id == g.root);
            assert_eq!(
                root.map(|r| &r.real_path),
                Some(&g.real_path),
                "a grant for another real path, or for a missing folder: {g:?}"
            );
        }
        let grants: BTreeSet<_> = s
            .grants
            .iter()
            .map(|g| (g.server.clone(), g.root.clone()))
            .collect();
        assert_eq!(grants.len(), s.grants.len(), "a grant is there twice");
        Model {
            roots,
            servers,
            grants,
        }
    }

    /// Applies a reported change. `created` is the id a new root or server
    /// got (unknown for a change killed before it was reported; then the
    /// newcomer is matched by its folder or name).
    fn apply(&mut self, change: &Change, created: Option<&str>, folders_dir: &Path) {
        match change {
            Change::AddRoot { folder, name } => {
                let chosen_path = folders_dir.join(folder);
                let real_path = chosen_path.canonicalize().unwrap_or(chosen_path.clone());
                let name = name
                    .clone()
                    .unwrap_or_else(|| folders::default_name(&real_path));
                self.roots.push(ModelRoot {
                    id: RootId::from_string(created.unwrap_or("(new)")),
                    name,
                    chosen_path,
                    real_path,
                });
            }
            Change::RenameRoot { root, name } => {
                if let Some(r) = self.roots.iter_mut().find(|r| &r.id == root) {
                    r.name = name.trim().to_owned();
                }
            }
            Change::RemoveRoot { root } => {
                self.roots.retain(|r| &r.id != root);
                self.grants.retain(|(_, r)| r != root);
            }
            Change::Grant { server, root } => {
                if self.has(server, root) {
                    self.grants.insert((server.clone(), root.clone()));
                }
            }
            Change::Revoke { server, root } => {
                self.grants.remove(&(server.clone(), root.clone()));
            }
            Change::SetGrants { root, servers } => {
                self.grants.retain(|(_, r)| r != root);
                for server in servers {
                    if self.has(server, root) {
                        self.grants.insert((server.clone(), root.clone()));
                    }
                }
            }
            Change::AddServer { name, args } => self.servers.push(ModelServer {
                id: ServerId::from_string(created.unwrap_or("(new)")),
                name: name.clone(),
                args: args.clone(),
                enabled: false,
                approved_line: None,
            }),
            Change::UpdateServer {
                server,
                name,
                args,
                enabled,
            } => {
                if let Some(srv) = self.servers.iter_mut().find(|s| &s.id == server) {
                    // The approval of an earlier line is kept whatever the
                    // edit; it covers only that line.
                    srv.name = name.clone();
                    srv.args = args.clone();
                    srv.enabled = *enabled;
                }
            }
            Change::ApproveCommand {
                server,
                command_line,
            } => {
                if let Some(srv) = self.servers.iter_mut().find(|s| &s.id == server) {
                    srv.approved_line = Some(command_line.clone());
                }
            }
            Change::RemoveServer { server } => {
                self.servers.retain(|s| &s.id != server);
                self.grants.retain(|(s, _)| s != server);
            }
        }
    }

    fn has(&self, server: &ServerId, root: &RootId) -> bool {
        self.servers.iter().any(|s| &s.id == server) && self.roots.iter().any(|r| &r.id == root)
    }

    /// The model with a change that was in flight applied, taking the id of
    /// a newcomer from `loaded` (the child was killed before reporting it).
    fn with_in_flight(&self, change: &Change, loaded: &Model, folders_dir: &Path) -> Model {
        let created = match change {
            Change::AddRoot { folder, .. } => {
                let real = folders_dir.join(folder).canonicalize().ok();
                loaded
                    .roots
                    .iter()
                    .find(|r| Some(&r.real_path) == real.as_ref())
                    .map(|r| r.id.to_string())
            }
            Change::AddServer { name, .. } => loaded
                .servers
                .iter()
                .find(|s| &s.name == name)
                .map(|s| s.id.to_string()),
            _ => None,
        };
        let mut next = self.clone();
        next.apply(change, created.as_deref(), folders_dir);
        next
    }
}

fn folder_name(i: usize) -> String {
    format!("f{i:02} ünïcode & space")
}

fn folders_dir(settings: &Path) -> PathBuf {
    settings
        .parent()
        .and_then(Path::parent)
        .expect("settings path has a grandparent")
        .join("folders")
}

// ---------------------------------------------------------------------------
// The parent.
// ---------------------------------------------------------------------------

/// What one child reported before it died.
#[derive(Debug, Default)]
struct Reports {
    /// Changes reported saved, with the id a newcomer got.
    saved: Vec<(Change, Option<String>)>,
    /// A change begun and not reported saved.
    in_flight: Option<Change>,
    ready: bool,
    lines: Vec<String>,
}

impl Reports {
    fn take(&mut self, line: &str) {
        self.lines.push(line.to_owned());
        if line == "READY" {
            self.ready = true;
        } else if let Some(rest) = line.strip_prefix("BEGIN ") {
            let (_, json) = rest.split_once(' ').expect("BEGIN n json");
            self.in_flight = Some(serde_json::from_str(json).expect("a change"));
        } else if let Some(rest) = line.strip_prefix("SAVED ") {
            let (_, id) = rest.split_once(' ').unwrap_or((rest, ""));
            let change = self.in_flight.take().expect("SAVED after BEGIN");
            self.saved
                .push((change, (!id.is_empty()).then(|| id.to_owned())));
        }
        // Anything else is the test harness talking ("running 1 test").
    }
}

/// Names in the settings folder other than the settings file itself and
/// the empty lock file every writer takes (`settings::lock`), which holds
/// nothing and stays by design.
fn strays(config_dir: &Path) -> Vec<String> {
    std::fs::read_dir(config_dir)
        .map(|entries| {
            entries
                .map(|e| {
                    e.expect("dir entry")
                        .file_name()
                        .to_string_lossy()
                        .into_owned()
                })
                .filter(|n| n != "settings.json" && n != "settings.json.write.lock")
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sigkill_at_random_moments_loses_no_saved_change() {
    if let Ok(settings) = std::env::var(CHILD_ENV) {
        let seed: u64 = std::env::var(CHILD_SEED_ENV)
            .expect("child seed")
            .parse()
            .expect("child seed number");
        child_main(Path::new(&settings), seed);
    }

    let seed = seed_from_env("ROOTGATE_DURABILITY_SEED");
    let kills = count_from_env("ROOTGATE_DURABILITY_KILLS", 300);
    eprintln!(
        "durability: seed {seed} (ROOTGATE_DURABILITY_SEED={seed} replays it), {kills} kills"
    );
    let mut rng = Rng::new(seed);
    let dir = tempfile::tempdir().expect("tempdir");
    let settings = dir.path().join("config/settings.json");
    let config_dir = settings.parent().expect("config dir").to_path_buf();
    let folders_dir = folders_dir(&settings);
    for i in 0..FOLDER_POOL {
        std::fs::create_dir_all(folders_dir.join(folder_name(i))).expect("create folder");
    }
    let exe = std::env::current_exe().expect("test binary");
    // The binary holds every model test, each under its file's module.
    let exact = rootgate_test_support::test_name(module_path!(), TEST_NAME);

    let started = Instant::now();
    let mut model = Model::default();
    let (mut saved_total, mut in_flight_landed, mut in_flight_lost) = (0usize, 0usize, 0usize);
    for kill in 0..kills {
        let context = format!("seed {seed}, kill {kill} of {kills}");
        let child_seed = rng.next_u64();
        let kill_after = rng.below(MAX_CHANGES_PER_LIFE + 1);
        let pause = Duration::from_micros(rng.below(3_000) as u64);
        let mut child = Command::new(&exe)
            .args(["--exact", &exact, "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, &settings)
            .env(CHILD_SEED_ENV, child_seed.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn child");
        let mut out = BufReader::new(child.stdout.take().expect("child stdout"));
        let mut reports = Reports::default();
        let mut line = String::new();
        // Read until the child reported `kill_after` saved changes (0: kill
        // it as it starts, possibly before it opened the store).
        while reports.saved.len() < kill_after {
            line.clear();
            if out.read_line(&mut line).expect("read child") == 0 {
                break;
            }
            reports.take(line.trim_end_matches('\n'));
        }
        std::thread::sleep(pause);
        // `Child::kill` is SIGKILL on Unix: no handler, no clean-up runs.
        child.kill().expect("SIGKILL the child");
        // Everything the child wrote before it died is still in the pipe.
        loop {
            line.clear();
            if out.read_line(&mut line).expect("read child") == 0 {
                break;
            }
            // A line without its newline was cut by the kill: not reported.
            if line.ends_with('\n') {
                reports.take(line.trim_end_matches('\n'));
            }
        }
        let status = child.wait().expect("wait for child");
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut child.stderr.take().expect("child stderr"), &mut stderr)
            .expect("read child stderr");
        assert_eq!(
            status.signal(),
            Some(9),
            "{context}: the child ended on its own ({status}); stdout: {:#?}; stderr: {stderr}",
            reports.lines
        );

        // The real loader: anything it could not trust would be moved aside
        // and reported as a recovery.
        let loaded = SettingsFile::at(&settings)
            .load()
            .unwrap_or_else(|e| panic!("{context}: the settings could not be loaded: {e}"));
        assert!(
            loaded.recovery.is_none(),
            "{context}: the settings file needed recovery: {:?}",
            loaded.recovery
        );
        let leftovers = strays(&config_dir);
        assert!(
            leftovers.is_empty(),
            "{context}: the settings folder holds more than the settings: {leftovers:?}"
        );

        for (change, created) in &reports.saved {
            model.apply(change, created.as_deref(), &folders_dir);
        }
        saved_total += reports.saved.len();
        let on_disk = Model::of(&loaded.settings);
        if on_disk != model {
            let landed = reports
                .in_flight
                .as_ref()
                .map(|change| model.with_in_flight(change, &on_disk, &folders_dir));
            assert_eq!(
                Some(&on_disk),
                landed.as_ref(),
                "{context}: the file holds neither every reported change nor those plus the \
                 one in flight ({:?}); the child said: {:#?}",
                reports.in_flight,
                reports.lines
            );
            in_flight_landed += 1;
        } else if reports.in_flight.is_some() {
            in_flight_lost += 1;
        }
        model = on_disk;
    }
    eprintln!(
        "durability: {kills} kills, {saved_total} changes reported saved, in flight at the kill: \
         {in_flight_landed} saved, {in_flight_lost} not; {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // The kills must have landed both between and inside changes, or the
    // test did not test what it says (a kill always before the first save,
    // say). Both happen many times per hundred kills.
    if kills >= 100 {
        assert!(
            saved_total > kills,
            "seed {seed}: too few changes were made"
        );
        assert!(
            in_flight_landed > 0 && in_flight_lost > 0,
            "seed {seed}: no kill landed mid-change ({in_flight_landed} saved, {in_flight_lost} not)"
        );
    }
}
