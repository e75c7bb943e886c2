//! The timeline kept across launches: the newest entries of each server,
//! saved to `timeline.json` beside the settings (0600, written through a
//! temporary file and a rename) every half minute while something new
//! happened and when Rootgate shuts down, and put back when it opens, so a
//! relaunch does not start with every server's history empty.
//!
//! Not here: what the timeline holds (`timeline`), or anything a session
//! does. A file that cannot be read is left out (one entry that does not
//! read, from another version, costs only that entry), never an error.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use super::ground::Ground;
use super::lock;
use rootgate_model::timeline::Entry;

/// How many entries per server are kept across launches.
pub const KEPT_PER_SERVER: usize = 500;
/// How often the kept part is saved while entries are recorded.
const SAVE_EVERY: Duration = Duration::from_secs(30);

fn path_beside(settings: &Path) -> PathBuf {
    settings.with_file_name("timeline.json")
}

/// The entries kept by an earlier launch, of servers that still exist.
fn load(settings: &Path, servers: &[rootgate_model::ids::ServerId]) -> Vec<Entry> {
    let Ok(text) = std::fs::read_to_string(path_beside(settings)) else {
        return Vec::new();
    };
    let Ok(values) = serde_json::from_str::<Vec<serde_json::Value>>(&text) else {
        tracing::warn!("the kept timeline could not be read; it starts empty");
        return Vec::new();
    };
    values
        .into_iter()
        .filter_map(|v| serde_json::from_value::<Entry>(v).ok())
        .filter(|e| servers.contains(&e.server))
        .collect()
}

/// The timeline kept for the next launch, and the newest entry saved.
pub(super) struct KeptTimeline {
    me: Weak<KeptTimeline>,
    ground: Ground,
    /// The newest timeline entry saved for the next launch.
    saved: Mutex<Option<u64>>,
}

impl KeptTimeline {
    pub(super) fn new(ground: Ground) -> Arc<KeptTimeline> {
        Arc::new_cyclic(|me| KeptTimeline {
            me: me.clone(),
            ground,
            saved: Mutex::new(None),
        })
    }

    /// Puts back what an earlier launch kept, of the servers configured,
    /// and keeps the timeline from now on.
    pub(super) fn restore(&self) {
        let servers: Vec<rootgate_model::ids::ServerId> = self
            .ground
            .store
            .snapshot()
            .servers
            .into_iter()
            .map(|s| s.id)
            .collect();
        self.ground
            .timeline
            .restore(load(self.ground.settings_path(), &servers));
        *lock(&self.saved) = self.ground.timeline.newest(1).last().map(|e| e.seq);
        self.keep();
    }

    /// Saves the newest entries of each server now.
    pub(super) fn save(&self) {
        let entries = self.ground.timeline.newest(KEPT_PER_SERVER);
        let path = path_beside(self.ground.store.file().path());
        let written = serde_json::to_vec(&entries)
            .map_err(std::io::Error::other)
            .and_then(|bytes| rootgate_apps::route::write_private(&path, &bytes));
        if let Err(e) = written {
            tracing::warn!("the timeline could not be kept for the next launch: {e}");
        }
        *lock(&self.saved) = self.ground.timeline.newest(1).last().map(|e| e.seq);
    }

    /// Saves the kept part every [`SAVE_EVERY`] while new entries come.
    fn keep(&self) {
        let me = self.me.clone();
        self.ground.runtime.spawn(async move {
            let mut tick = tokio::time::interval(SAVE_EVERY);
            tick.tick().await;
            loop {
                tick.tick().await;
                let Some(kept) = me.upgrade() else {
                    return;
                };
                let newest = kept.ground.timeline.newest(1).last().map(|e| e.seq);
                if newest != *lock(&kept.saved) {
                    kept.save();
                }
            }
        });
    }
}
