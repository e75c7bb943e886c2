//! The timeline: per server, a bounded record of what the server asked, what
//! it was told and what happened to its process.
//!
//! Every `roots/list` asked and exactly what was answered (the very list
//! given, shared, not copied), every `list_changed` sent, starts, stops,
//! restarts, exits and failures land here, in order, with one sequence number
//! across all servers so a global activity view can merge them. Each server
//! keeps its newest entries up to a bound; subscribers get new entries as
//! they happen. The newest part of each server's timeline is kept across
//! launches ([`Timeline::newest`] and [`Timeline::restore`], saved to
//! `timeline.json` by the supervisor). This module records; it does not
//! decide anything.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::consent::SharedRoot;
use crate::ids::{ServerId, now_ms};
use crate::servers::Era;

/// What happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[derive(ts_rs::TS)]
pub enum Event {
    /// The server is being started with this command line.
    Starting { command_line: String },
    /// The process is running with this process id.
    Spawned { pid: u32 },
    /// The era the server is spoken to in was settled, and how: its answer
    /// to `initialize` (accepted, or refused), the person's setting, or an
    /// earlier start.
    EraFound { era: Era, how: String },
    /// The `initialize` handshake finished.
    Initialized {
        protocol_version: String,
        server_name: String,
        server_version: String,
    },
    /// The server asked `roots/list` and was answered with exactly `roots`.
    RootsAnswered {
        request_id: String,
        generation: u64,
        #[ts(as = "Vec<SharedRoot>")]
        roots: Arc<[SharedRoot]>,
    },
    /// A modern-era server asked for its roots (input request `key`) while
    /// handling `method` on `target`, and was answered with exactly `roots`,
    /// the list of `generation`.
    RootsAskedInRound {
        method: String,
        target: Option<String>,
        key: String,
        generation: u64,
        #[ts(as = "Vec<SharedRoot>")]
        roots: Arc<[SharedRoot]>,
    },
    /// The person tried something from the window (or a test did): a tool
    /// called, a resource read, a prompt got, with its arguments (those
    /// whose names look secret masked), how long it took, how it ended
    /// (`detail` says why, for an error) and how often the server asked for
    /// roots meanwhile.
    Tried {
        method: String,
        target: String,
        #[ts(type = "JsonValue | null")]
        arguments: Option<serde_json::Value>,
        duration_ms: u64,
        outcome: TryResult,
        detail: Option<String>,
        roots_asked: u32,
    },
    /// A modern-era server asked for `asked` (input request `key`) while
    /// handling `method` on `target`; Rootgate does not offer it, and the
    /// request ended with an error that says so.
    InputNotOffered {
        method: String,
        target: Option<String>,
        key: String,
        asked: String,
    },
    /// `notifications/roots/list_changed` was sent for this generation.
    ListChangedSent { generation: u64 },
    /// The server was told of a change and did not ask for the list within
    /// `waited_ms`: what was added is not picked up yet.
    NotPickedUp { generation: u64, waited_ms: u64 },
    /// The server was restarted so that a withdrawal takes effect.
    RestartedToWithdraw { reason: String },
    /// The server runs with its roots enforced: it may read and write only
    /// inside `read_write`, and read only `read_only`. `held` says whether
    /// bubblewrap holds it in a sandbox (Landlock inside), or whether it runs
    /// under Landlock and a filter alone because bubblewrap could not make its
    /// namespaces here; `network` whether the person allowed it the network
    /// (a server that is not held reaches it either way).
    Enforced {
        read_write: Vec<String>,
        read_only: Vec<String>,
        held: bool,
        network: bool,
    },
    /// The server was restarted so that its enforced roots match its new
    /// list.
    RestartedToEnforce { reason: String },
    /// The server was restarted with the folders it takes as arguments
    /// filled in anew.
    RestartedForArguments { reason: String },
    /// The server was not started: it takes folders as arguments that are
    /// not shared with it yet. It starts when they are.
    WaitingForFolders { reason: String },
    /// The server asked for something this client does not offer, and got
    /// the proper JSON-RPC error.
    RequestRefused { method: String },
    /// An AI app's request, carried by the bridge, was answered: its
    /// method, the tool, prompt or resource it named, how long it took and
    /// how it ended ("ok", "error CODE: message", "cancelled").
    Call {
        method: String,
        target: Option<String>,
        duration_ms: u64,
        outcome: String,
        /// Who let a tool call through when the person's tool rules looked
        /// at it ("allowed once by you, in the window, after 2140 ms");
        /// none while every tool is allowed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        consent: Option<String>,
    },
    /// The first request after a start that depends on folders (an AI
    /// app's, or a try from the window) was held `held_ms` until the server
    /// had its folders, or was not held; `said` tells which, and why.
    FirstRequest { held_ms: u64, said: String },
    /// A stop was asked for (by the person, by a restart, by shutdown).
    Stopping { reason: String },
    /// The process ended.
    Exited { status: String, expected: bool },
    /// The session failed; `reason` says what a person can do.
    Failed { reason: String },
    /// The server stopped unexpectedly and will be started again after
    /// `delay_ms` (attempt `attempt` of `of`).
    RestartScheduled {
        attempt: u32,
        of: u32,
        delay_ms: u64,
    },
    /// The server kept failing; Rootgate stopped restarting it.
    GaveUp { attempts: u32 },
}

/// How a try ended, as the timeline keeps it.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TryResult {
    /// The server answered with a result.
    Ok,
    /// The tool ran and reported an error (`isError`).
    ToolError,
    /// The request failed: the server refused it, did not answer, or went.
    Failed,
    /// The person cancelled it.
    Cancelled,
}

/// One timeline entry.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// Grows across all servers: the merge key of the global view.
    pub seq: u64,
    pub at_ms: u64,
    pub server: ServerId,
    pub event: Event,
}

struct Inner {
    next_seq: u64,
    per_server: HashMap<ServerId, VecDeque<Entry>>,
}

/// A run of one server's newest entries older than a given one: what the
/// window loads at a time, so that a long timeline shows at once and the
/// rest follows in pieces no bigger than the window asked for.
#[derive(ts_rs::TS, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// Oldest first.
    pub entries: Vec<Entry>,
    /// How many of the server's kept entries are older than these.
    pub older: usize,
}

/// Every server's timeline.
pub struct Timeline {
    capacity: usize,
    inner: Mutex<Inner>,
    live: broadcast::Sender<Entry>,
}

/// How many entries each server keeps by default: enough for a server that
/// asks `roots/list` in a loop to show its last 100,000 requests. Memory
/// grows only with the entries a server really produces (a handful per
/// change of folders for most servers); a full timeline of `roots/list`
/// answers costs about 20 MB (measured by scripts/bench-app.sh, see
/// BENCHMARKS.md). The window loads it a page at a time (`page`).
pub const DEFAULT_CAPACITY: usize = 100_000;

impl Default for Timeline {
    fn default() -> Self {
        Timeline::with_capacity(DEFAULT_CAPACITY)
    }
}

impl Timeline {
    pub fn with_capacity(capacity: usize) -> Self {
        Timeline {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner {
                next_seq: 1,
                per_server: HashMap::new(),
            }),
            live: broadcast::Sender::new(1024),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Entries are pushed whole, so a poisoned lock holds nothing torn.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records an event for a server and returns its entry.
    pub fn record(&self, server: &ServerId, event: Event) -> Entry {
        let entry = {
            let mut inner = self.lock();
            let entry = Entry {
                seq: inner.next_seq,
                at_ms: now_ms(),
                server: server.clone(),
                event,
            };
            inner.next_seq += 1;
            let list = inner.per_server.entry(server.clone()).or_default();
            if list.len() == self.capacity {
                list.pop_front();
            }
            list.push_back(entry.clone());
            entry
        };
        // Nobody listening is normal (no window open); nothing to report.
        let _ = self.live.send(entry.clone());
        entry
    }

    /// The newest `per_server` entries of each server, in the order they
    /// happened: what is kept across launches.
    pub fn newest(&self, per_server: usize) -> Vec<Entry> {
        let inner = self.lock();
        let mut kept: Vec<Entry> = inner
            .per_server
            .values()
            .flat_map(|list| list.iter().skip(list.len().saturating_sub(per_server)))
            .cloned()
            .collect();
        kept.sort_by_key(|e| e.seq);
        kept
    }

    /// Puts back entries kept from an earlier launch, before anything new
    /// is recorded: they keep their order, each server keeps at most its
    /// bound, and new entries number on after them. Not sent to subscribers
    /// (they are not news).
    pub fn restore(&self, mut entries: Vec<Entry>) {
        entries.sort_by_key(|e| e.seq);
        let mut inner = self.lock();
        // Anything recorded already (a start that raced the restore) goes
        // after the kept entries, in its own order.
        let mut recorded: Vec<Entry> = inner.per_server.drain().flat_map(|(_, l)| l).collect();
        recorded.sort_by_key(|e| e.seq);
        let mut seq = 0;
        for mut entry in entries.into_iter().chain(recorded) {
            seq += 1;
            entry.seq = seq;
            let list = inner.per_server.entry(entry.server.clone()).or_default();
            if list.len() == self.capacity {
                list.pop_front();
            }
            list.push_back(entry);
        }
        inner.next_seq = seq + 1;
    }

    /// One server's entries, oldest first.
    pub fn for_server(&self, server: &ServerId) -> Vec<Entry> {
        self.lock()
            .per_server
            .get(server)
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Up to `limit` of a server's newest entries older than `before` (a
    /// sequence number; all of them when `None`), oldest first, and how
    /// many older ones remain. Costs the entries returned, not the whole
    /// timeline: entries are kept in sequence order, so `before` is found
    /// by binary search.
    pub fn page(&self, server: &ServerId, before: Option<u64>, limit: usize) -> Page {
        let inner = self.lock();
        let Some(list) = inner.per_server.get(server) else {
            return Page {
                entries: Vec::new(),
                older: 0,
            };
        };
        let end = before.map_or(list.len(), |seq| list.partition_point(|e| e.seq < seq));
        let start = end.saturating_sub(limit);
        Page {
            entries: list.range(start..end).cloned().collect(),
            older: start,
        }
    }

    /// Entries of every server merged in the order they happened.
    pub fn all(&self) -> Vec<Entry> {
        let inner = self.lock();
        let mut all: Vec<Entry> = inner.per_server.values().flatten().cloned().collect();
        all.sort_by_key(|e| e.seq);
        all
    }

    /// Forgets a removed server's entries.
    pub fn forget(&self, server: &ServerId) {
        self.lock().per_server.remove(server);
    }

    /// New entries as they are recorded. A subscriber that falls more than
    /// 1,024 entries behind is told it lagged and can re-read the lists.
    pub fn subscribe(&self) -> broadcast::Receiver<Entry> {
        self.live.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_newest_entries_come_back_in_order_and_new_ones_number_on() {
        let t = Timeline::with_capacity(100);
        let (a, b) = (ServerId::generate(), ServerId::generate());
        for g in 0..10 {
            t.record(&a, Event::ListChangedSent { generation: g });
            t.record(&b, Event::Spawned { pid: g as u32 });
        }
        let kept = t.newest(3);
        assert_eq!(kept.len(), 6);
        let json = serde_json::to_string(&kept).unwrap();
        let next = Timeline::with_capacity(2);
        let early = next.record(&a, Event::Spawned { pid: 99 });
        next.restore(serde_json::from_str(&json).unwrap());
        let for_a = next.for_server(&a);
        assert_eq!(for_a.len(), 2, "the bound holds");
        assert_eq!(
            for_a[1].event, early.event,
            "what was recorded stays newest"
        );
        let fresh = next.record(&b, Event::Spawned { pid: 100 });
        let all = next.all();
        assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));
        assert_eq!(all.last().unwrap().seq, fresh.seq);
    }

    #[test]
    fn bounded_per_server_and_merged_in_order() {
        let t = Timeline::with_capacity(3);
        let (a, b) = (ServerId::generate(), ServerId::generate());
        for g in 0..5 {
            t.record(&a, Event::ListChangedSent { generation: g });
            t.record(&b, Event::Spawned { pid: g as u32 });
        }
        let for_a = t.for_server(&a);
        assert_eq!(for_a.len(), 3);
        assert_eq!(for_a[0].event, Event::ListChangedSent { generation: 2 });
        let all = t.all();
        assert_eq!(all.len(), 6);
        assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));
        t.forget(&a);
        assert!(t.for_server(&a).is_empty());
    }

    #[test]
    fn pages_walk_back_from_the_newest_without_gaps_or_repeats() {
        let t = Timeline::with_capacity(10);
        let (a, b) = (ServerId::generate(), ServerId::generate());
        for g in 0..14 {
            t.record(&a, Event::ListChangedSent { generation: g });
            // Another server's entries interleave: sequence numbers of one
            // server's timeline are not contiguous.
            t.record(&b, Event::Spawned { pid: g as u32 });
        }
        let generations = |p: &Page| -> Vec<u64> {
            p.entries
                .iter()
                .map(|e| match e.event {
                    Event::ListChangedSent { generation } => generation,
                    _ => panic!("another server's entry in the page: {e:?}"),
                })
                .collect()
        };
        let newest = t.page(&a, None, 4);
        assert_eq!(generations(&newest), vec![10, 11, 12, 13]);
        assert_eq!(newest.older, 6);
        let next = t.page(&a, Some(newest.entries[0].seq), 4);
        assert_eq!(generations(&next), vec![6, 7, 8, 9]);
        assert_eq!(next.older, 2);
        // The oldest page is short; only the 10 newest were kept.
        let last = t.page(&a, Some(next.entries[0].seq), 4);
        assert_eq!(generations(&last), vec![4, 5]);
        assert_eq!(last.older, 0);
        assert_eq!(t.page(&a, Some(last.entries[0].seq), 4).entries, vec![]);
        // A `before` that fell out of the timeline gives nothing older.
        assert_eq!(t.page(&a, Some(1), 4).entries, vec![]);
        assert_eq!(t.page(&ServerId::generate(), None, 4).older, 0);
        assert_eq!(t.page(&a, None, 100).entries, t.for_server(&a));
    }

    #[test]
    fn entries_serialise_for_the_ui() {
        let t = Timeline::default();
        let s = ServerId::from_string("srv-1");
        let e = t.record(
            &s,
            Event::Exited {
                status: "exit code 1".into(),
                expected: false,
            },
        );
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["server"], "srv-1");
        assert_eq!(json["event"]["kind"], "exited");
        assert_eq!(json["event"]["status"], "exit code 1");
        assert_eq!(json["event"]["expected"], false);
    }

    #[tokio::test]
    async fn subscribers_see_new_entries() {
        let t = Timeline::default();
        let mut rx = t.subscribe();
        let s = ServerId::generate();
        t.record(&s, Event::Spawned { pid: 7 });
        assert_eq!(rx.recv().await.unwrap().event, Event::Spawned { pid: 7 });
    }
}
