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
use std::time::Duration;

use super::lock;
use super::sessions::Servers;
use rootgate_model::timeline::Entry;

/// How many entries per server are kept across launches.
pub const KEPT_PER_SERVER: usize = 500;
/// How often the kept part is saved while entries are recorded.
const SAVE_EVERY: Duration = Duration::from_secs(30);

fn path_beside(settings: &Path) -> PathBuf {
    settings.with_file_name("timeline.json")
}

/// The entries kept by an earlier launch, of servers that still exist.
pub(super) fn load(settings: &Path, servers: &[rootgate_model::ids::ServerId]) -> Vec<Entry> {
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

impl Servers {
    /// Saves the newest entries of each server now.
    pub(super) fn save_timeline(&self) {
        let entries = self.ground.timeline.newest(KEPT_PER_SERVER);
        let path = path_beside(self.ground.store.file().path());
        let written = serde_json::to_vec(&entries)
            .map_err(std::io::Error::other)
            .and_then(|bytes| rootgate_apps::route::write_private(&path, &bytes));
        if let Err(e) = written {
            tracing::warn!("the timeline could not be kept for the next launch: {e}");
        }
        *lock(&self.timeline_saved) = self.ground.timeline.newest(1).last().map(|e| e.seq);
    }

    /// Saves the kept part every [`SAVE_EVERY`] while new entries come.
    pub(super) fn keep_timeline(&self) {
        let me = self.me.clone();
        self.ground.runtime.spawn(async move {
            let mut tick = tokio::time::interval(SAVE_EVERY);
            tick.tick().await;
            loop {
                tick.tick().await;
                let Some(servers) = me.upgrade() else {
                    return;
                };
                let newest = servers.ground.timeline.newest(1).last().map(|e| e.seq);
                if newest != *lock(&servers.timeline_saved) {
                    servers.save_timeline();
                }
            }
        });
    }
}
