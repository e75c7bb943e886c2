//! The registry's answers kept on disk, so a search or an add with no
//! network still answers from what was seen last, and says when that was.
//!
//! Each answer is one file under `$XDG_CACHE_HOME/rootgate/registry/`, in
//! a folder per registry address, named by the SHA-256 of the URL asked,
//! holding the URL, when it was fetched and the answer as the registry
//! gave it. Beside them, `bundles/` holds MCP bundles by their digest.
//! A cache that cannot be written is not an error (the answer is still
//! used); one that cannot be read is as if empty.
//!
//! What this module does not do: ask the network (see `client`), or
//! decide when a cached answer is used instead of a fresh one.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::server_json::{ServerList, ServerResponse};

/// One kept answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Kept {
    url: String,
    /// Milliseconds since the Unix epoch.
    fetched_ms: u64,
    body: Value,
}

/// The answers of one registry.
#[derive(Debug, Clone)]
pub(crate) struct Cache {
    dir: PathBuf,
}

/// Rootgate's own cache folder (`$XDG_CACHE_HOME/rootgate`), if there is a
/// home to put it in.
pub fn rootgate_cache_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("org", "Rootgate", "rootgate")
        .map(|d| d.cache_dir().to_path_buf())
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl Cache {
    /// The cache of the registry at `address`, under `root` (Rootgate's
    /// cache folder).
    pub fn of(root: &Path, address: &str) -> Cache {
        let digest = hex(&Sha256::digest(address.as_bytes()));
        Cache {
            dir: root.join("registry").join(&digest[..16]),
        }
    }

    /// Where downloaded bundles are kept, by digest (shared by registries).
    pub fn bundles(&self) -> PathBuf {
        self.dir
            .parent()
            .map(|p| p.join("bundles"))
            .unwrap_or_else(|| self.dir.join("bundles"))
    }

    fn file(&self, url: &str) -> PathBuf {
        let digest = hex(&Sha256::digest(url.as_bytes()));
        self.dir.join(format!("{}.json", &digest[..32]))
    }

    /// Keeps `body`, the answer to `url`; a failure to write is ignored.
    pub fn keep(&self, url: &str, body: &Value) {
        let kept = Kept {
            url: url.to_owned(),
            fetched_ms: now_ms(),
            body: body.clone(),
        };
        let _ = self.write(url, &kept);
    }

    fn write(&self, url: &str, kept: &Kept) -> io::Result<()> {
        fs::create_dir_all(&self.dir)?;
        let path = self.file(url);
        let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
        fs::write(&tmp, serde_json::to_vec(kept).map_err(io::Error::other)?)?;
        fs::rename(tmp, path)
    }

    /// The kept answer to exactly `url`, and when it was fetched.
    pub fn answer(&self, url: &str) -> Option<(Value, u64)> {
        let text = fs::read(self.file(url)).ok()?;
        let kept: Kept = serde_json::from_slice(&text).ok()?;
        (kept.url == url).then_some((kept.body, kept.fetched_ms))
    }

    /// Every server version any kept answer holds (list pages and single
    /// versions), the newest fetch of each, with the oldest fetch time
    /// among those used; `None` when nothing is kept.
    pub fn everything(&self) -> Option<(Vec<ServerResponse>, u64)> {
        let mut found: Vec<(ServerResponse, u64)> = Vec::new();
        for entry in fs::read_dir(&self.dir).ok()?.flatten() {
            let Ok(text) = fs::read(entry.path()) else {
                continue;
            };
            let Ok(kept) = serde_json::from_slice::<Kept>(&text) else {
                continue;
            };
            let answers = match serde_json::from_value::<ServerList>(kept.body.clone()) {
                Ok(list) if kept.body.get("servers").is_some() => list.servers,
                _ => serde_json::from_value::<ServerResponse>(kept.body)
                    .map(|one| vec![one])
                    .unwrap_or_default(),
            };
            for answer in answers {
                let same = |(a, _): &(ServerResponse, u64)| {
                    a.server.name == answer.server.name && a.server.version == answer.server.version
                };
                match found.iter_mut().find(|f| same(f)) {
                    Some(f) if f.1 < kept.fetched_ms => *f = (answer, kept.fetched_ms),
                    Some(_) => {}
                    None => found.push((answer, kept.fetched_ms)),
                }
            }
        }
        let oldest = found.iter().map(|(_, at)| *at).min()?;
        found.sort_by(|(a, _), (b, _)| a.server.name.cmp(&b.server.name));
        Some((found.into_iter().map(|(a, _)| a).collect(), oldest))
    }
}

/// `ms` since the epoch as a UTC date and time, `2026-01-15 10:00 UTC`.
pub fn utc(ms: u64) -> String {
    let rest = ms / 1000 % 86_400;
    format!(
        "{} {:02}:{:02} UTC",
        rootgate_model::dates::day(ms),
        rest / 3600,
        rest % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(1_768_471_200_000), "2026-01-15 10:00 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00 UTC");
    }

    #[test]
    fn kept_answers_come_back_and_list_every_version() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::of(dir.path(), "https://registry.example");
        assert!(cache.everything().is_none());
        let page: Value = serde_json::from_str(include_str!(
            "../../tests/fixtures/registry/list/first.json"
        ))
        .unwrap();
        cache.keep("https://registry.example/v0/servers", &page);
        let (body, _) = cache.answer("https://registry.example/v0/servers").unwrap();
        assert_eq!(body, page);
        assert!(cache.answer("https://registry.example/other").is_none());
        let (all, _) = cache.everything().unwrap();
        assert_eq!(all.len(), 10);
    }
}
