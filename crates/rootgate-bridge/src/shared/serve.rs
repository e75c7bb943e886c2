//! A connection served by a shared server life (see `shared`): it waits
//! for its app's `initialize` (what the app asks decides the life), joins
//! the life, and follows it as a connection of its own follows its server.
//! A Workspace server's connection is given its app's project: it waits in
//! the lobby until its app says what it works in, then moves to that
//! project's life, and again whenever its app's folders change.
//!
//! What is not here: which lives there are and how a connection moves
//! between them (`shared`), and how one life serves many (`hub`).

use std::sync::Arc;

use tokio::sync::watch;

use crate::connections::Sees;
use crate::{On, Outcome, follow, refuse, relay, shared};
use rootgate_model::servers::ServerSpec;

/// Serves the connection with the gate's shared process of its server
/// (see `shared`), which goes on when it leaves. A Workspace server's
/// connection waits in the server's lobby until its app says what it works
/// in, and is then served by its project's life, moving again if the app's
/// folders change.
pub(crate) async fn serve(
    on: On<'_>,
    spec: ServerSpec,
    lives: &Arc<shared::Lives>,
    app_gone: &mut tokio::sync::oneshot::Receiver<()>,
) -> Outcome {
    let started_by = on.relay.app_started_by().unwrap_or_default();
    // The server is initialized once for every app that shares it, so they
    // must ask it the same: the app's protocol version and what it can be
    // asked decide the life too. An app sends its `initialize` first, most
    // often before the gate has its streams, so this waits for nothing.
    let mut seen = on.relay.subscribe();
    let app = tokio::select! {
        seen = seen.wait_for(|s| s.app.is_some()) => seen.ok().and_then(|s| s.app.clone()),
        _ = &mut *app_gone => return Outcome::Disconnected,
    };
    let Some(app) = app else {
        return Outcome::Disconnected;
    };
    let mut known = match workspace_of(&on, &spec, lives) {
        Ok(known) => known,
        Err(why) => return Outcome::Failed(why),
    };
    let mut at = shared::Joining {
        spec: &spec,
        started_by: &started_by,
        app: &app,
        project: known.as_ref().map(|k| k.first.clone()),
        own: known.as_ref().map(|k| k.part.clone()),
    };
    let mut membership = match lives.join(&at, on.relay, false) {
        Ok(membership) => Some(membership),
        Err(why) => return Outcome::Failed(why),
    };
    if let Some(k) = &known {
        k.moved.send_replace(k.known.borrow().clone());
    }
    let serving = membership.as_ref().map(|m| m.life.serving());
    let Some(serving) = serving else {
        return Outcome::Disconnected;
    };
    let (serving_tx, serving) = watch::channel(serving);
    let ended = {
        let follow = follow(&on, &spec, serving, app_gone);
        tokio::pin!(follow);
        loop {
            tokio::select! {
                outcome = &mut follow => break Ok(outcome),
                sees = said_project(known.as_mut()) => {
                    at.project = Some(Some(project_of(&sees)));
                    let Some(before) = membership.take() else { break Ok(Outcome::Disconnected) };
                    let was = Arc::clone(&before.life);
                    match before.move_to(&at, on.relay).await {
                        Ok(now) => {
                            // Only a move is news to the link and the
                            // connection's end: the same life told again
                            // is not.
                            if !Arc::ptr_eq(&was, &now.life) {
                                serving_tx.send_replace(now.life.serving());
                            }
                            membership = Some(now);
                        }
                        Err(why) => break Err(why),
                    }
                    if let Some(k) = &known {
                        k.moved.send_replace(Some(sees));
                    }
                }
            }
        }
    };
    let outcome = match ended {
        Ok(outcome) => outcome,
        Err(why) => {
            refuse(on.relay, &why, on.config.init_timeout, app_gone).await;
            Outcome::Failed(why)
        }
    };
    if let Some(membership) = membership {
        membership.leave().await;
    }
    outcome
}

/// What a shared server's connection is given and why, for the window (as
/// a connection of its own reports it); for a Workspace server, also what
/// its app works in, as it is said, and where the connection's first
/// request learns that it is in its project's life.
fn workspace_of(
    on: &On<'_>,
    spec: &ServerSpec,
    lives: &shared::Lives,
) -> Result<Option<Settling>, String> {
    let all = lives
        .store()
        .subscribe(&spec.id)
        .map_err(|e| e.to_string())?;
    let working = relay::workspace::working_folder(
        on.place.working_folder.as_deref(),
        on.place.home.as_deref(),
    );
    // The part it returns is the connection's: a shared life narrows its
    // own (`relay::workspace::project_part`), by the same rule, and a
    // modern one answers the connection's rounds from this.
    // Known now when the app said it by what it is (no roots to ask for:
    // its working folder, or nothing): then the connection joins its
    // project's life at once, with no lobby and no move.
    let first =
        relay::workspace::app_folders(&on.relay.seen(), false, working.as_deref()).project();
    let part = relay::workspace::narrow(all, on.relay, working, spec.workspace_only, false);
    let (moved, waits_on) = watch::channel(None);
    Ok(on.relay.settle_after_move(waits_on).map(|known| Settling {
        known,
        moved,
        part,
        first,
    }))
}

/// A Workspace connection to a shared server: what its app is known to
/// work in, and where its first request waits for the connection to be in
/// that project's life.
struct Settling {
    known: watch::Receiver<Option<Sees>>,
    moved: watch::Sender<Option<Sees>>,
    /// The connection's own part of what is shared.
    part: watch::Receiver<rootgate_model::consent::SharedRoots>,
    /// The project as known when the connection joins.
    first: relay::workspace::Project,
}

/// The project a connection's app works in, as a life's key takes it.
fn project_of(sees: &Sees) -> Vec<String> {
    sees.app_folders.clone()
}

/// What the app next says it works in; never, for a connection that is
/// not narrowed.
async fn said_project(known: Option<&mut Settling>) -> Sees {
    let Some(settling) = known else {
        return std::future::pending().await;
    };
    loop {
        if settling.known.changed().await.is_err() {
            return std::future::pending().await;
        }
        if let Some(sees) = settling.known.borrow_and_update().clone() {
            return sees;
        }
    }
}
