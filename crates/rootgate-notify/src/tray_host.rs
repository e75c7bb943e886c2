//! Whether the desktop shows tray items now: a StatusNotifierWatcher
//! (`org.kde.StatusNotifierWatcher`, which KDE Plasma, the GNOME
//! AppIndicator extension, xfce4-panel and snixembed serve) owns its name
//! on the session bus, watched as it comes and goes.
//!
//! The desktop shell keeps Rootgate running in the tray when its window is
//! closed only while a tray shows it; with none, closing the window quits
//! as it always did, since a hidden window with no tray could only be
//! found again by starting Rootgate anew. The tray item itself is the
//! shell's (Tauri's tray, through libayatana-appindicator); this module
//! only reads the bus.

use futures_util::StreamExt;
use tokio::sync::watch;

use crate::DesktopError;

/// The well-known name a tray host's watcher owns.
pub const WATCHER: &str = "org.kde.StatusNotifierWatcher";

/// Whether a tray host is on the session bus of this login, as it changes.
pub async fn watch_session() -> Result<watch::Receiver<bool>, DesktopError> {
    let conn = zbus::Connection::session()
        .await
        .map_err(DesktopError::Bus)?;
    watch_on(conn).await
}

/// [`watch_session`] on the bus `conn` is connected to.
pub(crate) async fn watch_on(
    conn: zbus::Connection,
) -> Result<watch::Receiver<bool>, DesktopError> {
    let bus = |e: zbus::fdo::Error| DesktopError::Bus(e.into());
    let proxy = zbus::fdo::DBusProxy::new(&conn)
        .await
        .map_err(DesktopError::Bus)?;
    // Subscribed before asking, so an owner that comes in between is seen.
    let mut changes = proxy
        .receive_name_owner_changed_with_args(&[(0, WATCHER)])
        .await
        .map_err(DesktopError::Bus)?;
    let name = zbus::names::BusName::try_from(WATCHER)
        .map_err(|e| DesktopError::Bus(zbus::Error::Names(e)))?;
    let now = proxy.name_has_owner(name).await.map_err(bus)?;
    let (present, rx) = watch::channel(now);
    tokio::spawn(async move {
        // The proxy and its connection live as long as the watch.
        let _keep = (proxy, conn);
        while let Some(signal) = changes.next().await {
            if let Ok(args) = signal.args() {
                let owned = args.new_owner().is_some();
                if present.send(owned).is_err() {
                    return;
                }
            }
        }
    });
    Ok(rx)
}
