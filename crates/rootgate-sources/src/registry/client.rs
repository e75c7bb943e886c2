//! Asking an MCP registry over HTTPS: a page of a search, one server
//! version, and an MCP bundle's file, each with a timeout and a size cap,
//! and each answer kept in the [`Cache`]. With no network, a search or a
//! version answers from the cache and says when it was fetched.
//!
//! The address must be `https://`, or `http://` to this machine only (a
//! local mirror, the tests). HTTP errors, answers that are not JSON or
//! not the registry's shape, and answers over the cap are errors in words
//! that name the URL. What this module does not do: read an entry into an
//! offer (see `mapping`), or open a bundle.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::time::Duration;

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::RegistryError;
use super::cache::{Cache, hex};
use super::server_json::{ServerList, ServerResponse};

/// The most a JSON answer may be.
const MAX_ANSWER: u64 = 8 * 1024 * 1024;
/// The most an MCP bundle may be.
const MAX_BUNDLE: u64 = 512 * 1024 * 1024;
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
const BUNDLE_TIMEOUT: Duration = Duration::from_secs(600);

/// An answer, and whether it came from the cache (when fetched, in ms
/// since the epoch) because the registry could not be reached.
#[derive(Debug, Clone, PartialEq)]
pub struct Fetched<T> {
    pub value: T,
    pub cached_at: Option<u64>,
}

/// One registry, reached at its address.
pub struct Client {
    address: String,
    cache: Cache,
    agent: ureq::Agent,
}

impl Client {
    /// A client of the registry at `address` (checked: HTTPS, or HTTP to
    /// this machine), keeping its answers under `cache_root`.
    pub fn new(address: &str, cache_root: &std::path::Path) -> Result<Client, RegistryError> {
        let address = checked_address(address)?;
        let agent = ureq::Agent::config_builder()
            .timeout_connect(Some(CONNECT_TIMEOUT))
            .http_status_as_error(false)
            .user_agent(format!("rootgate/{}", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Ok(Client {
            cache: Cache::of(cache_root, &address),
            address,
            agent,
        })
    }

    pub fn address(&self) -> &str {
        &self.address
    }

    /// The servers whose names hold `words[0]`, latest versions only, and
    /// of those the ones whose name, title or description hold every other
    /// word; the page at `cursor`. With no network, the same question's
    /// kept answer, or every kept entry that matches.
    pub fn search(
        &self,
        words: &[String],
        cursor: Option<&str>,
        limit: u32,
    ) -> Result<Fetched<ServerList>, RegistryError> {
        let mut query = vec![("limit", limit.to_string()), ("version", "latest".into())];
        if let Some(first) = words.first() {
            query.insert(0, ("search", first.clone()));
        }
        if let Some(cursor) = cursor {
            query.push(("cursor", cursor.to_owned()));
        }
        let query: Vec<String> = query
            .iter()
            .map(|(k, v)| format!("{k}={}", utf8_percent_encode(v, NON_ALPHANUMERIC)))
            .collect();
        let url = format!("{}/v0/servers?{}", self.address, query.join("&"));
        let mut fetched = match self.get_json::<ServerList>(&url) {
            Err(RegistryError::NoNetwork { reason, .. }) if cursor.is_none() => {
                let Some((all, at)) = self.cache.everything() else {
                    return Err(self.no_network(reason));
                };
                let latest = all
                    .into_iter()
                    .filter(|a| a.meta.official.as_ref().and_then(|o| o.is_latest) != Some(false));
                Fetched {
                    value: ServerList {
                        servers: latest.collect(),
                        metadata: Default::default(),
                    },
                    cached_at: Some(at),
                }
            }
            other => other?,
        };
        fetched.value.servers.retain(|a| matches(a, words));
        Ok(fetched)
    }

    /// Version `version` (or `latest`) of the server `name`. With no
    /// network, the kept answer to the same question, or a kept list
    /// entry of that name and version.
    pub fn version(
        &self,
        name: &str,
        version: &str,
    ) -> Result<Fetched<ServerResponse>, RegistryError> {
        let url = format!(
            "{}/v0/servers/{}/versions/{}",
            self.address,
            utf8_percent_encode(name, NON_ALPHANUMERIC),
            utf8_percent_encode(version, NON_ALPHANUMERIC)
        );
        match self.get_json::<ServerResponse>(&url) {
            Err(RegistryError::NoNetwork { reason, .. }) => {
                let (all, at) = self
                    .cache
                    .everything()
                    .ok_or_else(|| self.no_network(reason.clone()))?;
                all.into_iter()
                    .find(|a| {
                        a.server.name == name
                            && (a.server.version == version
                                || (version == "latest"
                                    && a.meta.official.as_ref().and_then(|o| o.is_latest)
                                        == Some(true)))
                    })
                    .map(|value| Fetched {
                        value,
                        cached_at: Some(at),
                    })
                    .ok_or_else(|| {
                        self.no_network(format!(
                            "{reason}; and {name} {version} is not in the cache"
                        ))
                    })
            }
            other => other,
        }
    }

    fn no_network(&self, reason: String) -> RegistryError {
        RegistryError::NoNetwork {
            registry: self.address.clone(),
            reason,
        }
    }

    /// `url`'s JSON answer as `T`, kept in the cache; with no network, the
    /// kept answer to exactly `url`, if any.
    fn get_json<T: DeserializeOwned>(&self, url: &str) -> Result<Fetched<T>, RegistryError> {
        let (body, cached_at) = match self.get(url, MAX_ANSWER, ANSWER_TIMEOUT) {
            Ok(bytes) => {
                let body: Value =
                    serde_json::from_slice(&bytes).map_err(|e| RegistryError::NotJson {
                        url: url.to_owned(),
                        reason: e.to_string(),
                    })?;
                (body, None)
            }
            Err(e @ RegistryError::NoNetwork { .. }) => match self.cache.answer(url) {
                Some((body, at)) => (body, Some(at)),
                None => return Err(e),
            },
            Err(e) => return Err(e),
        };
        let value: T =
            serde_json::from_value(body.clone()).map_err(|e| RegistryError::NotJson {
                url: url.to_owned(),
                reason: format!("it is not the registry's answer ({e})"),
            })?;
        if cached_at.is_none() {
            self.cache.keep(url, &body);
        }
        Ok(Fetched { value, cached_at })
    }

    /// The body of `url`, at most `cap` bytes.
    fn get(&self, url: &str, cap: u64, timeout: Duration) -> Result<Vec<u8>, RegistryError> {
        let mut response = self.call(url, timeout)?;
        let mut reader = response.body_mut().as_reader().take(cap + 1);
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .map_err(|e| transport(&self.address, url, ureq::Error::Io(e)))?;
        if bytes.len() as u64 > cap {
            return Err(RegistryError::TooLarge {
                url: url.to_owned(),
                cap,
            });
        }
        Ok(bytes)
    }

    /// A GET of `url` that answered 2xx.
    fn call(
        &self,
        url: &str,
        timeout: Duration,
    ) -> Result<ureq::http::Response<ureq::Body>, RegistryError> {
        let mut response = self
            .agent
            .get(url)
            .header("Accept", "application/json")
            .config()
            .timeout_global(Some(timeout))
            .build()
            .call()
            .map_err(|e| transport(&self.address, url, e))?;
        let status = response.status();
        if !status.is_success() {
            let said = response
                .body_mut()
                .with_config()
                .limit(64 * 1024)
                .read_to_string()
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .and_then(|v| {
                    v.get("error")
                        .or(v.get("detail"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                });
            return Err(RegistryError::Http {
                url: url.to_owned(),
                status: status.as_u16(),
                said: said.unwrap_or_else(|| status.canonical_reason().unwrap_or("").to_owned()),
            });
        }
        Ok(response)
    }

    /// The MCP bundle at `url`, downloaded into the cache (or found there)
    /// and checked against `sha256`; its path.
    pub fn bundle(&self, url: &str, sha256: &str) -> Result<PathBuf, RegistryError> {
        let want = sha256.trim().to_ascii_lowercase();
        if want.len() != 64 || !want.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(RegistryError::NoDigest {
                url: url.to_owned(),
            });
        }
        let dir = self.cache.bundles();
        let path = dir.join(format!("{want}.mcpb"));
        if std::fs::read(&path).is_ok_and(|b| hex(&Sha256::digest(&b)) == want) {
            return Ok(path);
        }
        if !url.starts_with("https://") && checked_address(url).is_err() {
            return Err(RegistryError::Insecure {
                address: url.to_owned(),
            });
        }
        let mut response = self.call(url, BUNDLE_TIMEOUT)?;
        let cache_error = |e: std::io::Error| RegistryError::Cache {
            path: dir.display().to_string(),
            reason: e.to_string(),
        };
        std::fs::create_dir_all(&dir).map_err(cache_error)?;
        let part = dir.join(format!("{want}.part-{}", std::process::id()));
        let mut file = std::fs::File::create(&part).map_err(cache_error)?;
        let mut reader = response.body_mut().as_reader().take(MAX_BUNDLE + 1);
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 64 * 1024];
        let mut total = 0u64;
        loop {
            let n = reader
                .read(&mut buf)
                .map_err(|e| transport(&self.address, url, ureq::Error::Io(e)))?;
            if n == 0 {
                break;
            }
            total += n as u64;
            if total > MAX_BUNDLE {
                let _ = std::fs::remove_file(&part);
                return Err(RegistryError::TooLarge {
                    url: url.to_owned(),
                    cap: MAX_BUNDLE,
                });
            }
            hasher.update(&buf[..n]);
            file.write_all(&buf[..n]).map_err(cache_error)?;
        }
        let got = hex(&hasher.finalize());
        if got != want {
            let _ = std::fs::remove_file(&part);
            return Err(RegistryError::Digest {
                url: url.to_owned(),
                expected: want,
                got,
            });
        }
        std::fs::rename(&part, &path).map_err(cache_error)?;
        Ok(path)
    }
}

/// Whether `answer` holds every word (case-insensitive) in its name,
/// title or description.
fn matches(answer: &ServerResponse, words: &[String]) -> bool {
    let s = &answer.server;
    let text = format!(
        "{} {} {}",
        s.name,
        s.title.as_deref().unwrap_or(""),
        s.description
    )
    .to_lowercase();
    words.iter().all(|w| text.contains(&w.to_lowercase()))
}

/// A ureq error in words: no network (which the cache may answer) or a
/// failure of the answer itself.
fn transport(registry: &str, url: &str, e: ureq::Error) -> RegistryError {
    match e {
        ureq::Error::Io(_)
        | ureq::Error::HostNotFound
        | ureq::Error::ConnectionFailed
        | ureq::Error::Timeout(_) => RegistryError::NoNetwork {
            registry: registry.to_owned(),
            reason: e.to_string(),
        },
        ureq::Error::BodyExceedsLimit(cap) => RegistryError::TooLarge {
            url: url.to_owned(),
            cap,
        },
        other => RegistryError::Http {
            url: url.to_owned(),
            status: 0,
            said: other.to_string(),
        },
    }
}

/// `address` without a trailing slash, if it is HTTPS or HTTP to this
/// machine.
pub fn checked_address(address: &str) -> Result<String, RegistryError> {
    let trimmed = address.trim().trim_end_matches('/');
    let local = |rest: &str| {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        if host.contains('@') {
            return false;
        }
        let host = host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host);
        matches!(host, "localhost" | "127.0.0.1" | "[::1]")
    };
    match trimmed.split_once("://") {
        Some(("https", rest)) if !rest.is_empty() => Ok(trimmed.to_owned()),
        Some(("http", rest)) if local(rest) => Ok(trimmed.to_owned()),
        _ => Err(RegistryError::Insecure {
            address: address.to_owned(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_this_machine_is_asked() {
        assert_eq!(
            checked_address("https://registry.modelcontextprotocol.io/").unwrap(),
            "https://registry.modelcontextprotocol.io"
        );
        assert!(checked_address("http://127.0.0.1:8080").is_ok());
        assert!(checked_address("http://localhost").is_ok());
        assert!(checked_address("http://registry.example").is_err());
        assert!(checked_address("http://127.0.0.1.evil.example").is_err());
        assert!(checked_address("ftp://x").is_err());
        assert!(checked_address("http://localhost:80@evil.example").is_err());
    }
}
