//! The steps: which ones can be taken in the model's state, the seeded
//! choice among them, and taking one against the real things, changing the
//! model by what the step means and what it was answered (an import the
//! command said it made, a route it said it wrote), never by reading the
//! settings back.
//!
//! Not here: the checks after each step (see `check`).

use std::time::Duration;

use rootgate_test_support::rng::Rng;
use rootgate_test_support::window_process::Started;
use serde_json::json;

use super::state::{Model, Routing};
use super::world::World;
use super::{check, commands};

#[derive(Debug, Clone)]
pub enum Op {
    Share {
        server: String,
        folder: usize,
    },
    Withdraw {
        server: String,
        folder: usize,
    },
    Pause,
    Resume,
    Workspace {
        server: String,
        on: bool,
    },
    Import {
        file: usize,
    },
    /// Both apps' imports at once, each by its own `rootgate import`.
    ImportBoth,
    Route {
        file: usize,
    },
    Unroute {
        file: usize,
    },
    /// `rootgate route`, SIGKILLed after this many milliseconds.
    KillRoute {
        file: usize,
        after_ms: u64,
    },
    Connect {
        server: String,
        roots: Option<usize>,
        via_file: Option<usize>,
    },
    Close {
        conn: usize,
    },
    KillBridge {
        conn: usize,
    },
    KillWindow,
    /// A share asked of the window, which is SIGKILLed after this many
    /// milliseconds: the grant is saved or not, and nothing else changes.
    KillWindowSharing {
        server: String,
        folder: usize,
        after_ms: u64,
    },
    SecondWindow,
    /// Not a person's step: a grant made in the window that the model is
    /// not told of, to show the checks catch it.
    Plant {
        server: String,
        folder: usize,
    },
}

impl Op {
    /// The name `ROOTGATE_MODEL_OPS` chooses it by.
    pub fn kind(&self) -> &'static str {
        match self {
            Op::Share { .. } => "share",
            Op::Withdraw { .. } => "withdraw",
            Op::Pause => "pause",
            Op::Resume => "resume",
            Op::Workspace { .. } => "workspace",
            Op::Import { .. } => "import",
            Op::ImportBoth => "import-both",
            Op::Route { .. } => "route",
            Op::Unroute { .. } => "unroute",
            Op::KillRoute { .. } => "kill-route",
            Op::Connect { .. } => "connect",
            Op::Close { .. } => "close",
            Op::KillBridge { .. } => "kill-bridge",
            Op::KillWindow => "kill-window",
            Op::KillWindowSharing { .. } => "kill-window-sharing",
            Op::SecondWindow => "second-window",
            Op::Plant { .. } => "plant",
        }
    }
}

/// At most this many connections are live at once.
const MAX_CONNS: usize = 4;

/// The steps that can be taken now, each with its weight.
fn candidates(model: &Model, world: &World, rng: &mut Rng) -> Vec<(u32, Op)> {
    let mut ops = Vec::new();
    let folders = model.folders.len();
    let approved: Vec<&String> = model
        .servers
        .iter()
        .filter(|(_, s)| s.approved)
        .map(|(n, _)| n)
        .collect();
    if !approved.is_empty() {
        let server = approved[rng.below(approved.len())].clone();
        let folder = rng.below(folders);
        if !model.servers[&server].grants.contains(&folder) {
            let after_ms = rng.below(15) as u64;
            ops.push((
                1,
                Op::KillWindowSharing {
                    server: server.clone(),
                    folder,
                    after_ms,
                },
            ));
            ops.push((6, Op::Share { server, folder }));
        }
        let server = approved[rng.below(approved.len())].clone();
        let on = !model.servers[&server].workspace;
        ops.push((2, Op::Workspace { server, on }));
    }
    let granted: Vec<(&String, usize)> = model
        .servers
        .iter()
        .flat_map(|(n, s)| s.grants.iter().map(move |g| (n, *g)))
        .collect();
    if !granted.is_empty() {
        let (server, folder) = granted[rng.below(granted.len())];
        ops.push((
            5,
            Op::Withdraw {
                server: server.clone(),
                folder,
            },
        ));
    }
    ops.push(if model.paused {
        (3, Op::Resume)
    } else {
        (1, Op::Pause)
    });
    let file = rng.below(model.files.len());
    let f = &model.files[file];
    ops.push((if f.imported { 1 } else { 3 }, Op::Import { file }));
    if model.files.iter().all(|f| !f.imported) {
        ops.push((3, Op::ImportBoth));
    }
    match f.routing {
        Routing::Original => {
            ops.push((2, Op::Route { file }));
            if f.imported {
                let after_ms = rng.below(60) as u64;
                ops.push((2, Op::KillRoute { file, after_ms }));
            }
        }
        Routing::Routed(_) => ops.push((3, Op::Unroute { file })),
        Routing::Unsure => {}
    }
    if world.conns.len() < MAX_CONNS && !approved.is_empty() {
        let server = approved[rng.below(approved.len())].clone();
        let roots = rng.percent(50).then(|| rng.below(folders));
        let via_file = model
            .files
            .iter()
            .position(|f| f.entry == server.as_str() && matches!(f.routing, Routing::Routed(_)));
        let via_file = via_file.filter(|_| rng.percent(70));
        ops.push((
            if world.conns.is_empty() { 8 } else { 3 },
            Op::Connect {
                server,
                roots,
                via_file,
            },
        ));
    }
    if !world.conns.is_empty() {
        let conn = rng.below(world.conns.len());
        ops.push((1, Op::Close { conn }));
        let conn = rng.below(world.conns.len());
        ops.push((1, Op::KillBridge { conn }));
    }
    if world.window.is_some() {
        ops.push((1, Op::KillWindow));
    }
    ops.push((1, Op::SecondWindow));
    ops
}

/// A step chosen with `rng` among those `allowed` (all when `None`).
pub fn choose(model: &Model, world: &World, rng: &mut Rng, allowed: Option<&[String]>) -> Op {
    let ops: Vec<(u32, Op)> = candidates(model, world, rng)
        .into_iter()
        .filter(|(_, op)| allowed.is_none_or(|a| a.iter().any(|k| k == op.kind())))
        .collect();
    assert!(!ops.is_empty(), "no step is allowed (ROOTGATE_MODEL_OPS)");
    let total: u32 = ops.iter().map(|(w, _)| w).sum();
    let mut pick = rng.below(total as usize) as u32;
    for (weight, op) in ops {
        if pick < weight {
            return op;
        }
        pick -= weight;
    }
    unreachable!("the weights add up")
}

/// Takes `op`, changing the model by it.
pub async fn apply(op: &Op, world: &mut World, model: &mut Model) -> Result<(), String> {
    match op {
        Op::Share { server, folder } | Op::Plant { server, folder } => {
            let path = model.folders[*folder].display().to_string();
            world
                .window()
                .await?
                .change(json!({"op": "share", "server": server, "folder": path}))
                .await?;
            if matches!(op, Op::Share { .. })
                && let Some(s) = model.servers.get_mut(server)
            {
                s.grants.insert(*folder);
            }
        }
        Op::Withdraw { server, folder } => {
            let path = model.folders[*folder].display().to_string();
            world
                .window()
                .await?
                .change(json!({"op": "withdraw", "server": server, "folder": path}))
                .await?;
            if let Some(s) = model.servers.get_mut(server) {
                s.grants.remove(folder);
            }
        }
        Op::Pause | Op::Resume => {
            let pause = matches!(op, Op::Pause);
            let change = if pause { "pause" } else { "resume" };
            world.window().await?.change(json!({"op": change})).await?;
            model.paused = pause;
        }
        Op::Workspace { server, on } => {
            world
                .window()
                .await?
                .change(json!({"op": "workspace", "server": server, "on": on}))
                .await?;
            if let Some(s) = model.servers.get_mut(server) {
                s.workspace = *on;
            }
        }
        Op::Import { .. }
        | Op::ImportBoth
        | Op::Route { .. }
        | Op::Unroute { .. }
        | Op::KillRoute { .. } => commands::apply(op, world, model).await?,
        Op::Connect {
            server,
            roots,
            via_file,
        } => world.connect(model, server, *roots, *via_file).await?,
        Op::Close { conn } => {
            let mut c = world.conns.remove(*conn);
            c.app.send(json!({"op": "close"})).await;
            let _ =
                tokio::time::timeout(rootgate_test_support::app::WAIT, c.app.child.wait()).await;
        }
        Op::KillBridge { conn } => kill_bridge(world, model, *conn).await?,
        Op::KillWindow => {
            if let Some(window) = world.window.take() {
                window.kill().await;
            }
        }
        Op::KillWindowSharing {
            server,
            folder,
            after_ms,
        } => {
            let path = model.folders[*folder].display().to_string();
            let window = world.window().await?;
            window
                .send(json!({"op": "share", "server": server, "folder": path}))
                .await?;
            tokio::time::sleep(Duration::from_millis(*after_ms)).await;
            if let Some(window) = world.window.take() {
                window.kill().await;
            }
            // Saved or not: the one change in flight is whichever the file
            // says (the checks then hold everything else to the model).
            if check::granted(world, model, server, *folder)?
                && let Some(s) = model.servers.get_mut(server)
            {
                s.grants.insert(*folder);
            }
        }
        Op::SecondWindow => {
            let before = std::fs::read(&world.settings).ok();
            match world.start_window().await? {
                Started::HandedOver if world.window.is_some() => {}
                Started::Window(window) if world.window.is_none() => world.window = Some(window),
                Started::HandedOver => return Err("a second window handed over to none".into()),
                Started::Window(_) => {
                    return Err("a second window opened beside the first".into());
                }
            }
            if world.window.is_some() && std::fs::read(&world.settings).ok() != before {
                return Err("a second window changed the settings".into());
            }
        }
    }
    Ok(())
}

async fn kill_bridge(world: &mut World, model: &Model, conn: usize) -> Result<(), String> {
    let pid = world
        .bridge_pid(conn)
        .ok_or_else(|| format!("connection {conn} has no bridge process"))?;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .map_err(|e| format!("kill -9 {pid}: {e}"))?;
    let mut c = world.conns.remove(conn);
    c.app.wait(|v| v["event"] == "closed").await;
    drop(c.app);
    // The app starts its server again, as apps do when it went away; the
    // file's entry if it is still routed.
    let via_file = c
        .via_file
        .filter(|f| matches!(model.files[*f].routing, Routing::Routed(_)));
    world.connect(model, &c.server, c.roots, via_file).await
}
