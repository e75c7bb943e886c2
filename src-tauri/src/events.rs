//! Pushes what happens in the core to the webview as events, so the UI
//! never polls: settings revisions, status changes and stderr lines
//! (`rootgate://changes`) and timeline entries (`rootgate://timeline`).
//!
//! Events are sent in batches: the first event after a quiet moment waits
//! at most a few milliseconds for others, and all are sent as one array. A
//! server writing a gigabyte to stderr then costs the webview a few dozen
//! messages a second, not millions. Nothing here changes state.

use std::sync::Arc;
use std::time::Duration;

use rootgate_core::supervisor::Supervisor;
use serde::Serialize;
use tauri::{AppHandle, Emitter, Runtime};
use tokio::sync::broadcast;

/// How long the first event of a batch waits for company.
const BATCH_WINDOW: Duration = Duration::from_millis(40);
/// The most events sent in one batch.
const BATCH_MAX: usize = 2_000;

pub const CHANGES: &str = "rootgate://changes";
pub const TIMELINE: &str = "rootgate://timeline";
pub const PROMPTS: &str = "rootgate://prompts";
pub const NOTICE: &str = "rootgate://notice";

/// Starts forwarding the supervisor's changes and timeline to the webview.
pub fn forward<R: Runtime>(app: AppHandle<R>, supervisor: &Arc<Supervisor>) {
    tauri::async_runtime::spawn(batches(app.clone(), supervisor.subscribe(), CHANGES));
    tauri::async_runtime::spawn(batches(app, supervisor.timeline().subscribe(), TIMELINE));
}

async fn batches<R: Runtime, T: Clone + Serialize + Send + 'static>(
    app: AppHandle<R>,
    mut rx: broadcast::Receiver<T>,
    event: &'static str,
) {
    loop {
        let first = match rx.recv().await {
            Ok(item) => item,
            // A lagging receiver skipped items; the UI reloads lists on a
            // settings change, and logs and timelines keep the newest.
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let mut batch = vec![first];
        let window = tokio::time::sleep(BATCH_WINDOW);
        tokio::pin!(window);
        while batch.len() < BATCH_MAX {
            tokio::select! {
                _ = &mut window => break,
                next = rx.recv() => match next {
                    Ok(item) => batch.push(item),
                    Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                },
            }
        }
        if app.emit(event, &batch).is_err() {
            return;
        }
    }
}

/// A plain-words notice for the person (a dropped file that is not a
/// folder, a folder on the command line that does not exist).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
pub struct Notice {
    pub message: String,
}

pub fn notice<R: Runtime>(app: &AppHandle<R>, message: impl Into<String>) {
    let _ = app.emit(
        NOTICE,
        Notice {
            message: message.into(),
        },
    );
}
