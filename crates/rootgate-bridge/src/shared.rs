//! Shared server lives: in the resident gate, the connections to a server
//! that would start it the same way and see the same folders share one
//! process of it (issue #42, "shared server lives").
//!
//! A life is keyed by the server, its approved launch (command line,
//! variables, secrets, working folder, held or not, network, era) and what
//! the app gives the process that starts it (its few inherited variables,
//! and its working folder when the server has none of its own, since the
//! server starts there), and what the app asks the server (its protocol
//! version, and whether it can be asked for sampling or elicitation: a
//! server initialized once answers every app that shares it the same, and
//! some offer tools only to a client that can be asked). The folder set is
//! the server's: every connection that shares a life is given exactly the
//! folders shared with the server, and a withdrawal or a pause reaches them
//! together, as one session's.
//!
//! A Workspace server's lives are per project as well: a life serves the
//! connections whose apps work in the same folders (their roots, or the
//! folder they started in), and is given the part of what is shared that
//! lies there, kept up to date as either changes. An app says what it works
//! in only after its server answered its `initialize`, so a connection
//! first joins the server's lobby (a life given nothing) and moves to its
//! project's life once its app has said; its first request waits for that.
//! A connection alone in the lobby, whose project has no life yet, does not
//! move: the lobby becomes that project's life and is told its folders. A
//! connection that moves lets the life it leaves answer the calls it has
//! there first (`Relay::drain`), and its app is never disconnected; an app
//! whose folders change later moves the same way. An empty lobby is
//! stopped at once. A Workspace server that speaks the modern era is told
//! each request's folders in that request's rounds: its lobby's process
//! serves every project, each connection's rounds answered from its own
//! part (`Joining::own`), and nobody moves.
//!
//! Servers given their folders as arguments (a process started with one
//! connection's folders cannot serve another's) and servers set to *One
//! process per app session* are not shared: each connection starts its
//! own, as before.
//!
//! A life no connection uses is stopped after the person's idle time
//! (`Preferences::unused_server_stop`, ten minutes unless set), so a
//! session opened soon after another finds its server running. One store,
//! one settings watch and one folder monitor serve every connection of the
//! gate.
//!
//! What is not here: how one server session serves several connections
//! (`hub`, `route::mux`), and the gate's socket (`gate`).

pub(crate) mod hub;
pub(crate) mod serve;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use hub::Hub;
use rootgate_host::watch::Watch;
use rootgate_model::servers::ServerSpec;
use rootgate_model::settings::SettingsFile;
use rootgate_model::store::Store;
use rootgate_model::timeline::Timeline;
use rootgate_session::process::StartedBy;
use rootgate_session::{Session, SessionConfig, Status};
use tokio::sync::watch;

use crate::EndsWith;
use crate::relay::Relay;
use crate::relay::workspace::Project;
use crate::route::AppInfo;
use crate::route::mux::Member;

/// How long a connection moving to its project's life waits for the calls
/// it has in flight at its last life to be answered there; a call still
/// running then fails, in words. Its new calls wait meanwhile.
const MOVE_DRAIN: std::time::Duration = std::time::Duration::from_secs(10);

/// Every shared server life of one gate, and the store they read.
pub struct Lives {
    store: Arc<Store>,
    config: SessionConfig,
    lives: Mutex<HashMap<String, Arc<SharedLife>>>,
    /// What the settings watch last found wrong with the file, for every
    /// connection to say to its app, as a connection of its own says it.
    problem: tokio::sync::watch::Sender<Option<String>>,
    _monitor: EndsWith,
    _watch: Option<Watch>,
}

/// One server process and the connections that share it.
pub(crate) struct SharedLife {
    /// Its key in [`Lives`]; a lobby's changes when it takes on its one
    /// connection's project.
    key: Mutex<String>,
    server: rootgate_model::ids::ServerId,
    pub(crate) session: Session,
    hub: Arc<Hub>,
    /// Counts down to the stop once no connection uses the life.
    idle_stop: Mutex<Option<EndsWith>>,
    /// A Workspace server's life: the project it serves (`None`: the lobby,
    /// given nothing), and the task that gives it that part of what is
    /// shared.
    project: Option<(watch::Sender<Project>, EndsWith)>,
}

/// A connection's place in a shared life; leaving it (drop) undoes what the
/// server does for the connection, and starts the idle count when it was
/// the last.
pub(crate) struct Membership {
    pub(crate) life: Arc<SharedLife>,
    member: Member,
    lives: Weak<Lives>,
    left: bool,
}

impl Lives {
    /// The lives of the gate serving `settings`: its one store, settings
    /// watch and folder monitor. A damaged file is said in `gate.log` and
    /// what can be read of it is used, as a connection does.
    pub fn open(settings: SettingsFile, config: SessionConfig) -> Result<Arc<Lives>, String> {
        let (store, problem) =
            Store::open_read_only(settings.clone()).map_err(|e| e.to_string())?;
        let problem = problem.map(|problem| {
            format!(
                "the settings file {} is damaged ({problem}); using what could be read",
                settings.path().display()
            )
        });
        if let Some(words) = &problem {
            eprintln!("rootgate gate: {words}");
        }
        let store = Arc::new(store);
        let monitor = EndsWith(rootgate_model::monitor::spawn(Arc::clone(&store)));
        let problem = tokio::sync::watch::Sender::new(problem);
        let said = problem.clone();
        let watch = crate::watch_settings(Arc::clone(&store), move |words| {
            if let Some(words) = words {
                eprintln!("rootgate gate: {words}");
            }
            said.send_replace(words.map(str::to_owned));
        });
        Ok(Arc::new(Lives {
            store,
            config,
            lives: Mutex::new(HashMap::new()),
            problem,
            _monitor: monitor,
            _watch: watch,
        }))
    }

    /// What is wrong with the settings file, as the gate's watch last
    /// found it, and each time it finds something new.
    pub(crate) fn problems(&self) -> tokio::sync::watch::Receiver<Option<String>> {
        self.problem.subscribe()
    }

    /// The gate's one store of the settings.
    pub(crate) fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Whether connections to `spec` may share a process: the person did
    /// not ask for one process per session, and its folders are not its
    /// arguments (a process started with one connection's project cannot
    /// serve another's). A Workspace server's connections share one
    /// process per project.
    pub(crate) fn shares(spec: &ServerSpec) -> bool {
        !spec.own_process && !rootgate_model::placeholders::has_placeholders(spec)
    }

    /// How many server processes the gate runs for shared lives, for its
    /// log and its tests.
    pub fn running(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<SharedLife>>> {
        self.lives.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Joins `relay` to the life for `spec` started as `started_by` says,
    /// starting it if there is none (or only one that has failed or been
    /// stopped). `project`: a Workspace server's connection, and the
    /// project its app works in, if it has said (else it waits in the
    /// lobby, given nothing).
    pub(crate) fn join(
        self: &Arc<Self>,
        at: &Joining<'_>,
        relay: &Arc<Relay>,
        moved: bool,
    ) -> Result<Membership, String> {
        let (spec, started_by) = (at.spec, at.started_by);
        let key = key_of(at);
        // Under the lock from finding the life to joining it, so that two
        // connections arriving together start one process, and an idle stop
        // never takes a life a connection is joining.
        let mut lives = self.lock();
        // A life that failed is not joined: the next connection starts
        // the server again, as a connection of its own would.
        let alive = lives
            .get(&key)
            .filter(|life| !matches!(life.session.status(), Status::Failed { .. }));
        let (life, start) = match alive {
            Some(life) => (Arc::clone(life), false),
            None => {
                let life = self.start(spec, key.clone(), started_by, at.project.clone())?;
                lives.insert(key, Arc::clone(&life));
                (life, true)
            }
        };
        life.idle_stop_lock().take();
        relay.tell_in(Arc::clone(life.session.timeline()));
        // The fence is up before the relay's first line can reach the
        // server: no request that could touch files passes a withdrawal the
        // life has not delivered yet (relay/fence.rs).
        crate::fence(relay, &self.store, &spec.id, &life.session, &self.config);
        let member = life.hub.join(Arc::clone(relay), moved, at.own.clone());
        drop(lives);
        // Started once its first connection has joined, so that the
        // session sees an app that is coming.
        if start {
            eprintln!(
                "rootgate gate: starting {} for the sessions that share it",
                spec.name
            );
            life.session.start(spec.clone());
        }
        Ok(Membership {
            life,
            member,
            lives: Arc::downgrade(self),
            left: false,
        })
    }

    /// A new life's session, not yet started.
    fn start(
        &self,
        spec: &ServerSpec,
        key: String,
        started_by: &StartedBy,
        project: Option<Project>,
    ) -> Result<Arc<SharedLife>, String> {
        crate::mark_available(&self.store);
        let all = self.store.subscribe(&spec.id).map_err(|e| e.to_string())?;
        let (roots, project) = match project {
            None => (all, None),
            Some(project) => {
                let project = watch::Sender::new(project);
                let (part, task) = crate::relay::workspace::project_part(all, project.subscribe());
                (part, Some((project, EndsWith(task))))
            }
        };
        let hub = Hub::new(Some(started_by.clone()));
        let session = Session::spawn_relayed(
            spec.id.clone(),
            roots,
            // The life's story, every app's calls on it among it; a life
            // started later (after an idle stop) tells its own.
            Arc::new(Timeline::default()),
            self.config,
            Arc::clone(&hub),
        );
        Ok(Arc::new(SharedLife {
            key: Mutex::new(key),
            server: spec.id.clone(),
            session,
            hub,
            idle_stop: Mutex::new(None),
            project,
        }))
    }

    /// The last connection left `life`: it is stopped after the idle time,
    /// unless a connection joins it first. With no idle time, or when its
    /// server is no longer in the settings (removed, or the file is gone),
    /// it is taken out at once, so that the next connection, however soon,
    /// starts a process of its own.
    fn unused(self: &Arc<Self>, life: &Arc<SharedLife>) {
        let removed = self.store.server(&life.server).is_err();
        let idle = self.store.preferences().unused_server_stop();
        // A lobby is only ever joined on the way to a project's life, and
        // each connection can start its own: an empty one is stopped.
        if idle.is_zero() || removed || life.is_lobby() {
            {
                let mut map = self.lock();
                // Two connections leaving at once may both find none left:
                // the first takes the life out and stops it.
                let key = life.key();
                if life.hub.members() > 0 || !map.get(&key).is_some_and(|l| Arc::ptr_eq(l, life)) {
                    return;
                }
                map.remove(&key);
            }
            eprintln!("rootgate gate: a shared server's last session left; it was stopped");
            let life = Arc::clone(life);
            tokio::spawn(async move { life.session.shutdown().await });
            return;
        }
        let minutes = idle.as_secs() / 60;
        let lives = Arc::downgrade(self);
        let weak = Arc::downgrade(life);
        let stop = tokio::spawn(async move {
            tokio::time::sleep(idle).await;
            let (Some(lives), Some(life)) = (lives.upgrade(), weak.upgrade()) else {
                return;
            };
            {
                let mut map = lives.lock();
                if life.hub.members() > 0 {
                    return;
                }
                let key = life.key();
                if map.get(&key).is_some_and(|l| Arc::ptr_eq(l, &life)) {
                    map.remove(&key);
                }
            }
            eprintln!(
                "rootgate gate: a shared server no session used for {minutes} min was stopped"
            );
            life.session.shutdown().await;
        });
        *life.idle_stop_lock() = Some(EndsWith(stop));
    }
}

impl SharedLife {
    fn idle_stop_lock(&self) -> std::sync::MutexGuard<'_, Option<EndsWith>> {
        self.idle_stop.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn key(&self) -> String {
        self.key.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether this is a Workspace server's lobby: its connections' apps
    /// have not said what they work in, and it is given nothing. A lobby
    /// whose server speaks the modern era is not one: it serves every
    /// project (see [`SharedLife::serves_every_project`]).
    fn is_lobby(&self) -> bool {
        self.project
            .as_ref()
            .is_some_and(|(p, _)| p.borrow().is_none())
            && !self.serves_every_project()
    }

    /// A Workspace server's first life that speaks the modern era: each
    /// request's rounds tell the server the folders of the connection that
    /// made it (its own part, `Joining::own`), so its connections stay
    /// whatever their projects.
    fn serves_every_project(&self) -> bool {
        self.project
            .as_ref()
            .is_some_and(|(p, _)| p.borrow().is_none())
            && self.hub.era() == Some(rootgate_model::servers::Era::Modern)
    }

    /// The life's story and status, for its connections to follow.
    pub(crate) fn serving(&self) -> crate::Serving {
        crate::Serving {
            timeline: Arc::clone(self.session.timeline()),
            status: self.session.subscribe_status(),
        }
    }
}

impl Membership {
    /// Leaves the life: what the server does for this connection is undone
    /// before this returns, so that the app hears its connection end only
    /// once the life no longer counts it.
    pub(crate) async fn leave(mut self) {
        self.left = true;
        self.life.hub.leave(self.member).await;
        if self.life.hub.members() == 0
            && let Some(lives) = self.lives.upgrade()
        {
            lives.unused(&self.life);
        }
    }
}

impl Drop for Membership {
    fn drop(&mut self) {
        // A connection whose serving was cut short (its task aborted) still
        // leaves, from a task of its own.
        if self.left {
            return;
        }
        let life = Arc::clone(&self.life);
        let member = self.member;
        let lives = self.lives.upgrade();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            life.hub.leave(member).await;
            if life.hub.members() == 0
                && let Some(lives) = lives
            {
                lives.unused(&life);
            }
        });
    }
}

/// What decides which life a connection joins, and how a life is
/// started.
pub(crate) struct Joining<'a> {
    pub(crate) spec: &'a ServerSpec,
    pub(crate) started_by: &'a StartedBy,
    pub(crate) app: &'a AppInfo,
    /// A Workspace server's connection: the project its app works in, once
    /// said (see [`Project`]); `None` for any other server.
    pub(crate) project: Option<Project>,
    /// A Workspace connection's own part of what is shared, for a modern
    /// life to answer its rounds from.
    pub(crate) own: Option<watch::Receiver<rootgate_model::consent::SharedRoots>>,
}

impl Membership {
    /// Moves the connection to the life of the project `at` names, its
    /// app having said (or changed) what it works in. Alone in a lobby
    /// with no life serving that project yet, the lobby itself becomes
    /// that life: its server is told the project's folders as of any
    /// change, and nothing moves. Otherwise the connection leaves for the
    /// project's life (started if there is none) without its app being
    /// disconnected: its requests wait for the new life, which is told
    /// what the app told the last (`Hub::leave_moving`).
    pub(crate) async fn move_to(
        mut self,
        at: &Joining<'_>,
        relay: &Arc<Relay>,
    ) -> Result<Membership, String> {
        let Some(lives) = self.lives.upgrade() else {
            return Err("the gate is ending".to_owned());
        };
        let key = key_of(at);
        // A modern server is told each connection's folders in its rounds:
        // its lobby serves every project, and nobody moves.
        if self.life.serves_every_project() {
            return Ok(self);
        }
        {
            let mut map = lives.lock();
            let old = self.life.key();
            if old == key {
                return Ok(self);
            }
            let free = map
                .get(&key)
                .is_none_or(|l| matches!(l.session.status(), Status::Failed { .. }));
            if self.life.is_lobby()
                && self.life.hub.members() == 1
                && free
                && let Some((project, _)) = &self.life.project
            {
                if map.get(&old).is_some_and(|l| Arc::ptr_eq(l, &self.life)) {
                    map.remove(&old);
                }
                *self.life.key.lock().unwrap_or_else(|p| p.into_inner()) = key.clone();
                map.insert(key, Arc::clone(&self.life));
                project.send_replace(at.project.clone().flatten());
                return Ok(self);
            }
        }
        relay.drain(tokio::time::Instant::now() + MOVE_DRAIN).await;
        self.left = true;
        self.life
            .hub
            .leave_moving(
                self.member,
                "the connection moved to the server process of its app's project",
            )
            .await;
        let joined = lives.join(at, relay, true);
        if self.life.hub.members() == 0 {
            lives.unused(&self.life);
        }
        joined
    }
}

/// What decides which life a connection joins (see the module's words).
fn key_of(at: &Joining<'_>) -> String {
    let (spec, started_by, app) = (at.spec, at.started_by, at.app);
    let project = match &at.project {
        None => serde_json::Value::Null,
        Some(None) => serde_json::json!({ "lobby": true }),
        Some(Some(uris)) => serde_json::json!({ "project": uris }),
    };
    // The server starts in its own working folder when it has one, else in
    // the app's: only then does the app's count.
    let working = if spec.cwd.is_some() {
        None
    } else {
        started_by.working_folder.as_deref()
    };
    serde_json::json!([
        spec.id,
        spec.approved_command,
        spec.args,
        spec.env,
        spec.secrets,
        spec.cwd,
        spec.enforce_roots,
        spec.allow_network,
        spec.withdrawal,
        spec.era,
        started_by.env,
        working,
        app.protocol_version,
        app.capabilities.sampling,
        app.capabilities.elicitation,
        project,
    ])
    .to_string()
}
