//! `rootgate-notify`: notifications with actions on the person's desktop,
//! through the `org.freedesktop.Notifications` interface on the session
//! bus (the Desktop Notifications Specification 1.2, which GNOME Shell,
//! KDE Plasma, dunst, mako and xfce4-notifyd serve).
//!
//! A [`Desktop`] is one connection to the session bus, kept for as long as
//! Rootgate runs: the daemon sends `ActionInvoked` and `NotificationClosed`
//! to the connection that asked, so the connection that shows a question
//! is the one that hears its answer. [`Desktop::replies`] hands those on,
//! but only those that count: any program on the session bus can emit a
//! signal of that name, so a signal counts only when it comes from the
//! notification server that showed that notification, with a key made for
//! it alone, once (see the `shown` module); any other is dropped and logged.
//! A daemon that cannot show actions counts as no daemon at all: a
//! question nobody can answer from the notification is not asked there.
//!
//! [`tray_host`] watches whether a tray host (a StatusNotifierWatcher) is on
//! the same bus, which decides whether closing the window keeps Rootgate
//! running in the tray.
//!
//! What is not here: what is asked and what an answer does (the
//! supervisor's `questions`), and the tray item itself (the desktop shell).
//! It knows nothing of folders, servers or apps.

mod shown;
pub mod tray_host;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::broadcast;
use zbus::zvariant::Value;

use crate::shown::{Shown, Signal};

const NAME: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";

/// Why there is no desktop to ask through.
#[derive(Debug, thiserror::Error)]
pub enum DesktopError {
    #[error("no session bus: {0}")]
    Bus(#[source] zbus::Error),
    #[error("no notification server on the session bus: {0}")]
    NoDaemon(#[source] zbus::Error),
    #[error("the notification server ({0}) cannot show buttons on a notification")]
    NoActions(String),
    #[error("the notification server did not take the notification: {0}")]
    Refused(#[source] zbus::Error),
    #[error("the notification server did not answer within {} s", .0.as_secs())]
    Silent(Duration),
    #[error("the system's random source failed, so a notification's buttons cannot be made safe")]
    NoRandom,
    #[error("the notification server that showed the notification is not known")]
    NoOwner,
}

/// A notification to show: a one-line summary, a body, and buttons, each a
/// key (what [`Reply::Action`] says) and the label shown. The key is ours:
/// the daemon is sent another, made for this notification alone, so no
/// other program can name the button (see the `shown` module).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    pub summary: String,
    pub body: String,
    pub actions: Vec<(String, String)>,
    /// How long it stays on screen; `None` until the person closes it.
    pub expire: Option<Duration>,
}

/// What the daemon said about a notification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The person pressed the button with this key (the key of
    /// [`Notification::actions`]), and the notification server that showed
    /// the notification said so.
    Action { id: u32, key: String },
    /// The notification went away (expired, dismissed, or closed by us),
    /// with the specification's reason code.
    Closed { id: u32, reason: u32 },
    /// The notification server left the bus or its name (it ended, or
    /// another took its place): nothing it showed can be answered any more.
    Gone,
}

/// One connection to the desktop's notification server.
pub struct Desktop {
    conn: zbus::Connection,
    replies: broadcast::Sender<Reply>,
    server: String,
    /// The notifications shown and who showed them, shared with the task
    /// that reads the daemon's signals.
    shown: Arc<Mutex<Shown>>,
}

fn lock(shown: &Mutex<Shown>) -> MutexGuard<'_, Shown> {
    // A panic elsewhere while the record was held leaves it whole: each
    // change to it is one insert or removal.
    shown
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Desktop {
    /// The session bus of this login (`DBUS_SESSION_BUS_ADDRESS`).
    pub async fn session() -> Result<Desktop, DesktopError> {
        let conn = zbus::Connection::session()
            .await
            .map_err(DesktopError::Bus)?;
        Desktop::on(conn).await
    }

    /// The bus at `address` (`unix:path=…`): a test's own bus.
    pub async fn at(address: &str) -> Result<Desktop, DesktopError> {
        let conn = zbus::connection::Builder::address(address)
            .map_err(DesktopError::Bus)?
            .build()
            .await
            .map_err(DesktopError::Bus)?;
        Desktop::on(conn).await
    }

    async fn on(conn: zbus::Connection) -> Result<Desktop, DesktopError> {
        // Subscribed first, so that an owner that changes while we ask who
        // owns the name is heard.
        let (signals, owners) = subscribe(&conn).await?;
        let shown = Arc::new(Mutex::new(Shown::default()));
        let info = conn
            .call_method(Some(NAME), PATH, Some(NAME), "GetServerInformation", &())
            .await
            .map_err(DesktopError::NoDaemon)?;
        let (name, vendor, version, _spec): (String, String, String, String) =
            info.body().deserialize().map_err(DesktopError::NoDaemon)?;
        let server = format!("{name} {version} by {vendor}");
        let caps = conn
            .call_method(Some(NAME), PATH, Some(NAME), "GetCapabilities", &())
            .await
            .map_err(DesktopError::NoDaemon)?;
        let caps: Vec<String> = caps.body().deserialize().map_err(DesktopError::NoDaemon)?;
        if !caps.iter().any(|c| c == "actions") {
            return Err(DesktopError::NoActions(server));
        }
        // Asked after the calls above, which start a daemon the bus
        // activates on demand (dunst, mako, xfce4-notifyd often are): before
        // them, such a daemon's name would have no owner yet.
        let bus = zbus::fdo::DBusProxy::new(&conn)
            .await
            .map_err(DesktopError::Bus)?;
        let well_known = zbus::names::BusName::try_from(NAME)
            .map_err(|e| DesktopError::Bus(zbus::Error::Names(e)))?;
        let owner = bus
            .get_name_owner(well_known)
            .await
            .map_err(|e| DesktopError::NoDaemon(e.into()))?;
        lock(&shown).owned_by(Some(owner.to_string()));
        let (replies, _) = broadcast::channel(256);
        let tx = replies.clone();
        let judge = Arc::clone(&shown);
        let mut both = futures_util::stream::select(signals, owners);
        tokio::spawn(async move {
            let mut refused_count: u64 = 0;
            while let Some(message) = both.next().await {
                let Ok(message) = message else { continue };
                let Some(signal) = signal_of(&message) else {
                    continue;
                };
                let sender = message.header().sender().map(|s| s.to_string());
                match lock(&judge).judge(sender.as_deref(), signal) {
                    // Nobody listening is fine: nothing is waiting.
                    Ok(Some(reply)) => {
                        let _ = tx.send(reply);
                    }
                    Ok(None) => {}
                    Err(refused) => {
                        // A program that floods the bus with forgeries must
                        // not flood the log too: the first hundred are
                        // said, then every thousandth, with the count.
                        refused_count += 1;
                        if refused_count <= 100 || refused_count.is_multiple_of(1000) {
                            tracing::warn!(
                                %refused,
                                refused = refused_count,
                                "a notification signal was not taken"
                            );
                        }
                    }
                }
            }
        });
        Ok(Desktop {
            conn,
            replies,
            server,
            shown,
        })
    }

    /// The notification server, in words ("dunst 1.9.0 by knopwob").
    pub fn server(&self) -> &str {
        &self.server
    }

    /// What the daemon says from now on.
    pub fn replies(&self) -> broadcast::Receiver<Reply> {
        self.replies.subscribe()
    }

    /// Shows `notification`; its id, for [`Reply`] and [`Desktop::close`].
    pub async fn notify(&self, notification: &Notification) -> Result<u32, DesktopError> {
        // Each button's key as sent: its name and random bits, for this
        // notification alone.
        let mut keys = HashMap::new();
        let mut actions: Vec<String> = Vec::new();
        for (name, label) in &notification.actions {
            let key = shown::action_key(name).ok_or(DesktopError::NoRandom)?;
            actions.push(key.clone());
            actions.push(label.clone());
            keys.insert(key, name.clone());
        }
        let mut hints: HashMap<&str, Value<'_>> = HashMap::new();
        // Normal urgency: a question is not an alarm. The desktop entry
        // lets a desktop group it under Rootgate and show its icon.
        hints.insert("urgency", Value::U8(1));
        hints.insert("desktop-entry", Value::from("rootgate"));
        let expire = notification
            .expire
            .map_or(0, |d| i32::try_from(d.as_millis()).unwrap_or(i32::MAX));
        let reply = self
            .conn
            .call_method(
                Some(NAME),
                PATH,
                Some(NAME),
                "Notify",
                &(
                    "Rootgate",
                    0u32,
                    "",
                    notification.summary.as_str(),
                    notification.body.as_str(),
                    actions,
                    hints,
                    expire,
                ),
            )
            .await
            .map_err(DesktopError::Refused)?;
        let id: u32 = reply.body().deserialize().map_err(DesktopError::Refused)?;
        // The reply comes from the name's owner, as the bus wrote it: the
        // one server whose signals about this notification count.
        let mut shown = lock(&self.shown);
        let server = reply
            .header()
            .sender()
            .map(|s| s.to_string())
            .or_else(|| shown.owner().map(str::to_owned))
            .ok_or(DesktopError::NoOwner)?;
        shown.showed(id, server, keys);
        Ok(id)
    }

    /// Takes the notification `id` off the screen (it was answered
    /// elsewhere: in the window, or by another question's answer).
    pub async fn close(&self, id: u32) {
        let _ = self
            .conn
            .call_method(Some(NAME), PATH, Some(NAME), "CloseNotification", &id)
            .await;
    }
}

/// The match rules for the daemon's signals and for its name changing
/// hands, each a stream.
async fn subscribe(
    conn: &zbus::Connection,
) -> Result<(zbus::MessageStream, zbus::MessageStream), DesktopError> {
    // The daemon's signals: sent to us alone (dunst, GNOME) or to all
    // (older daemons); the match rule lets the bus deliver the latter.
    // Anyone may send a signal that matches: `Shown::judge` sorts them.
    let rule = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .interface(NAME)
        .map_err(DesktopError::Bus)?
        .build();
    let signals = zbus::MessageStream::for_match_rule(rule, conn, None)
        .await
        .map_err(DesktopError::Bus)?;
    // The bus says when the daemon's name changes hands: a daemon that
    // ends, or is replaced, leaves questions nobody can answer
    // (`Reply::Gone`), and the next owner's signals are not its.
    let owner = zbus::MatchRule::builder()
        .msg_type(zbus::message::Type::Signal)
        .sender("org.freedesktop.DBus")
        .and_then(|b| b.interface("org.freedesktop.DBus"))
        .and_then(|b| b.member("NameOwnerChanged"))
        .and_then(|b| b.arg(0, NAME))
        .map_err(DesktopError::Bus)?
        .build();
    let owners = zbus::MessageStream::for_match_rule(owner, conn, None)
        .await
        .map_err(DesktopError::Bus)?;
    Ok((signals, owners))
}

/// The signal `message` is, if it is one of those listened to; who sent it
/// is judged apart.
fn signal_of(message: &zbus::Message) -> Option<Signal> {
    let header = message.header();
    let interface = header.interface().map(|i| i.as_str());
    if interface == Some("org.freedesktop.DBus") {
        let (name, old, new): (String, String, String) = message.body().deserialize().ok()?;
        return (name == NAME).then_some(Signal::Owner { old, new });
    }
    if interface != Some(NAME) {
        return None;
    }
    match header.member()?.as_str() {
        "ActionInvoked" => {
            let (id, key): (u32, String) = message.body().deserialize().ok()?;
            Some(Signal::Action { id, key })
        }
        "NotificationClosed" => {
            let (id, reason): (u32, u32) = message.body().deserialize().ok()?;
            Some(Signal::Closed { id, reason })
        }
        _ => None,
    }
}
