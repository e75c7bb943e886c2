//! Which of the daemon's signals count: the record of the notifications
//! this connection showed, each with the unique bus name of the
//! notification server that showed it and the action keys made for it,
//! and the judgement of every `ActionInvoked`, `NotificationClosed` and
//! `NameOwnerChanged` against that record.
//!
//! Any connection on a session bus may emit a signal named
//! `org.freedesktop.Notifications.ActionInvoked`, with any id and any key;
//! what it cannot choose is the header's sender, which the bus daemon
//! writes itself: the sender's unique name (`:1.42`). So a signal counts
//! only when it comes from the unique name that owned
//! `org.freedesktop.Notifications` when the notification was shown (the
//! sender of the reply to `Notify`), for an id that server gave us, with a
//! key made for that one notification (a name and 128 random bits), and
//! once: the first action taken ends that notification's keys. A server
//! that leaves the name (it ended, or another took its place) takes its
//! notifications with it; the one after it cannot answer them.
//!
//! What is not here: the bus (`Desktop`), and what an action means (the
//! supervisor's questions).

use std::collections::HashMap;

use crate::Reply;

/// The bus daemon's own name, the sender of `NameOwnerChanged`.
const BUS: &str = "org.freedesktop.DBus";

/// How many notifications are remembered at most: a daemon that never
/// says one closed must not grow the record without end. Far more than
/// there are questions on a screen at once.
const KEPT: usize = 1024;

/// A signal, as the bus delivered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Signal {
    Action {
        id: u32,
        key: String,
    },
    Closed {
        id: u32,
        reason: u32,
    },
    /// `org.freedesktop.Notifications` changed hands: `""` is nobody.
    Owner {
        old: String,
        new: String,
    },
}

/// Why a signal was not taken, for the log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refused {
    #[error("notification {id} is not one Rootgate showed (or it is closed)")]
    NotShown { id: u32 },
    #[error(
        "the signal for notification {id} came from {sender}, not from the notification server \
         that showed it ({server})"
    )]
    NotItsServer {
        id: u32,
        sender: String,
        server: String,
    },
    #[error("notification {id} has no action with that key (or it was answered already)")]
    UnknownKey { id: u32 },
    #[error("a change of owner said by {sender}, not by the bus")]
    NotTheBus { sender: String },
}

/// One notification shown.
struct Record {
    /// The unique name of the notification server that showed it.
    server: String,
    /// Each action's key as sent, to the name the caller gave it.
    keys: HashMap<String, String>,
    /// When it was shown, among the others: the oldest goes first.
    seq: u64,
}

/// The notifications shown, and who owns the daemon's name now.
#[derive(Default)]
pub(crate) struct Shown {
    owner: Option<String>,
    by_id: HashMap<u32, Record>,
    next: u64,
}

impl Shown {
    /// The unique name that owns `org.freedesktop.Notifications` now, as
    /// far as this connection has heard.
    pub(crate) fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// The bus said who owns the name when we asked (`GetNameOwner`).
    pub(crate) fn owned_by(&mut self, owner: Option<String>) {
        self.owner = owner;
    }

    /// `server` showed the notification `id` with `keys` (sent key to the
    /// caller's name). An id a server reuses starts afresh.
    pub(crate) fn showed(&mut self, id: u32, server: String, keys: HashMap<String, String>) {
        if self.by_id.len() >= KEPT
            && !self.by_id.contains_key(&id)
            && let Some(oldest) = self
                .by_id
                .iter()
                .min_by_key(|(_, r)| r.seq)
                .map(|(i, _)| *i)
        {
            self.by_id.remove(&oldest);
        }
        self.next += 1;
        self.by_id.insert(
            id,
            Record {
                server,
                keys,
                seq: self.next,
            },
        );
    }

    /// What `signal`, sent by `sender` (the header's, as the bus wrote
    /// it), says, if it counts; `Ok(None)` when it counts but says nothing
    /// to pass on.
    pub(crate) fn judge(
        &mut self,
        sender: Option<&str>,
        signal: Signal,
    ) -> Result<Option<Reply>, Refused> {
        let sender = sender.unwrap_or_default();
        match signal {
            Signal::Owner { old, new } => {
                if sender != BUS {
                    return Err(Refused::NotTheBus {
                        sender: sender.to_owned(),
                    });
                }
                self.owner = (!new.is_empty()).then_some(new.clone());
                if old.is_empty() || old == new {
                    return Ok(None);
                }
                // Whatever the old server showed can no longer be answered:
                // a new server numbers its own notifications from 1 again.
                self.by_id.retain(|_, r| r.server != old);
                Ok(Some(Reply::Gone))
            }
            Signal::Action { id, key } => {
                let record = self.its(id, sender)?;
                let Some(name) = record.keys.remove(&key) else {
                    return Err(Refused::UnknownKey { id });
                };
                // One answer per notification: the other buttons go too.
                record.keys.clear();
                Ok(Some(Reply::Action { id, key: name }))
            }
            Signal::Closed { id, reason } => {
                self.its(id, sender)?;
                self.by_id.remove(&id);
                Ok(Some(Reply::Closed { id, reason }))
            }
        }
    }

    /// The record of `id`, if `sender` is the server that showed it.
    fn its(&mut self, id: u32, sender: &str) -> Result<&mut Record, Refused> {
        let record = self.by_id.get_mut(&id).ok_or(Refused::NotShown { id })?;
        if record.server != sender {
            return Err(Refused::NotItsServer {
                id,
                sender: sender.to_owned(),
                server: record.server.clone(),
            });
        }
        Ok(record)
    }
}

/// The key sent for the action `name`: the name, for a person reading a
/// daemon's debug output, and 128 random bits, so that no other program
/// can guess it. `None` when the system's random source fails: then no
/// notification with actions is shown at all.
pub(crate) fn action_key(name: &str) -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("{name}-{hex}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DUNST: &str = ":1.7";
    const OTHER: &str = ":1.42";

    fn shown_by(server: &str) -> (Shown, String) {
        let mut shown = Shown::default();
        shown.owned_by(Some(server.to_owned()));
        let share = action_key("share").expect("random");
        let keys = HashMap::from([
            (share.clone(), "share".to_owned()),
            (action_key("not-now").expect("random"), "not-now".to_owned()),
        ]);
        shown.showed(3, server.to_owned(), keys);
        (shown, share)
    }

    fn action(id: u32, key: &str) -> Signal {
        Signal::Action {
            id,
            key: key.to_owned(),
        }
    }

    #[test]
    fn the_server_that_showed_it_answers_with_the_key_made_for_it() {
        let (mut shown, share) = shown_by(DUNST);
        assert_eq!(
            shown.judge(Some(DUNST), action(3, &share)),
            Ok(Some(Reply::Action {
                id: 3,
                key: "share".into()
            }))
        );
    }

    #[test]
    fn another_connection_does_not_answer_even_with_the_real_key() {
        let (mut shown, share) = shown_by(DUNST);
        for id in 1..=30 {
            for key in [share.as_str(), "share"] {
                let refused = shown.judge(Some(OTHER), action(id, key));
                assert!(refused.is_err(), "{id} {key}: {refused:?}");
            }
        }
        assert!(shown.judge(None, action(3, &share)).is_err());
        // Nor closes it: a forged close would send the question away.
        assert_eq!(
            shown.judge(Some(OTHER), Signal::Closed { id: 3, reason: 2 }),
            Err(Refused::NotItsServer {
                id: 3,
                sender: OTHER.into(),
                server: DUNST.into()
            })
        );
        // The real key still works for the server itself.
        assert!(matches!(
            shown.judge(Some(DUNST), action(3, &share)),
            Ok(Some(Reply::Action { .. }))
        ));
    }

    #[test]
    fn a_guessed_or_prefixed_key_is_refused_and_a_key_is_good_once() {
        let (mut shown, share) = shown_by(DUNST);
        for key in [
            "share",
            "share-",
            "share-0",
            &share[..share.len() - 1],
            "not-now",
        ] {
            assert_eq!(
                shown.judge(Some(DUNST), action(3, key)),
                Err(Refused::UnknownKey { id: 3 }),
                "{key}"
            );
        }
        assert!(shown.judge(Some(DUNST), action(3, &share)).is_ok());
        assert_eq!(
            shown.judge(Some(DUNST), action(3, &share)),
            Err(Refused::UnknownKey { id: 3 })
        );
        // An id the server never gave us is not ours to answer.
        assert_eq!(
            shown.judge(Some(DUNST), action(4, &share)),
            Err(Refused::NotShown { id: 4 })
        );
    }

    #[test]
    fn a_new_owner_of_the_name_cannot_answer_what_the_old_one_showed() {
        let (mut shown, share) = shown_by(DUNST);
        let replaced = Signal::Owner {
            old: DUNST.into(),
            new: OTHER.into(),
        };
        // Only the bus says who owns a name.
        assert!(shown.judge(Some(OTHER), replaced.clone()).is_err());
        assert_eq!(shown.owner(), Some(DUNST));
        assert_eq!(shown.judge(Some(BUS), replaced), Ok(Some(Reply::Gone)));
        assert_eq!(shown.owner(), Some(OTHER));
        assert_eq!(
            shown.judge(Some(OTHER), action(3, &share)),
            Err(Refused::NotShown { id: 3 })
        );
        // And the old one, gone, neither.
        assert_eq!(
            shown.judge(Some(DUNST), action(3, &share)),
            Err(Refused::NotShown { id: 3 })
        );
    }

    #[test]
    fn a_closed_notification_is_forgotten_and_the_record_is_bounded() {
        let (mut shown, share) = shown_by(DUNST);
        assert_eq!(
            shown.judge(Some(DUNST), Signal::Closed { id: 3, reason: 2 }),
            Ok(Some(Reply::Closed { id: 3, reason: 2 }))
        );
        assert_eq!(
            shown.judge(Some(DUNST), action(3, &share)),
            Err(Refused::NotShown { id: 3 })
        );
        for id in 0..(KEPT as u32 + 10) {
            shown.showed(id, DUNST.into(), HashMap::new());
        }
        assert_eq!(shown.by_id.len(), KEPT);
        assert!(!shown.by_id.contains_key(&0), "the oldest went first");
    }

    #[test]
    fn keys_are_distinct_and_carry_128_bits() {
        let a = action_key("share").expect("random");
        let b = action_key("share").expect("random");
        assert_ne!(a, b);
        assert_eq!(a.len(), "share-".len() + 32);
    }
}
