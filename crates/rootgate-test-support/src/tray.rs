//! A tray host for tests, and a panel's view of a tray item.
//!
//! [`TrayWatcher`] serves the real `org.kde.StatusNotifierWatcher`
//! interface (the StatusNotifierItem specification's) on a test's bus, as
//! KDE Plasma, the GNOME AppIndicator extension or snixembed do: items
//! register with it, and it says a host is there. [`TrayItem`] reads a
//! registered item's menu the way a panel does, over
//! `com.canonical.dbusmenu` (`GetLayout`), and presses an entry with the
//! `Event` "clicked" a panel sends when the person picks it. Nothing of
//! Rootgate's is used: the app under test is the real `rootgate-desktop`,
//! whose tray libayatana-appindicator exports.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::watch;
use zbus::object_server::SignalEmitter;
use zbus::zvariant::{OwnedObjectPath, OwnedValue, Value};

use crate::wait::{WAIT, eventually};

const WATCHER: &str = "org.kde.StatusNotifierWatcher";
const ITEM: &str = "org.kde.StatusNotifierItem";
const MENU: &str = "com.canonical.dbusmenu";

struct Watcher {
    items: Arc<Mutex<Vec<String>>>,
    registered: watch::Sender<Vec<String>>,
}

#[zbus::interface(name = "org.kde.StatusNotifierWatcher")]
impl Watcher {
    /// An item registers: libayatana-appindicator passes its object path,
    /// other items a bus name; either way it is kept as `SENDER/PATH`.
    async fn register_status_notifier_item(
        &self,
        service: &str,
        #[zbus(header)] header: zbus::message::Header<'_>,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) {
        let sender = header.sender().map(|s| s.to_string()).unwrap_or_default();
        let item = if service.starts_with('/') {
            format!("{sender}{service}")
        } else {
            format!("{service}/StatusNotifierItem")
        };
        let all = {
            let mut items = self.items.lock().unwrap_or_else(|p| p.into_inner());
            items.push(item.clone());
            items.clone()
        };
        let _ = Self::status_notifier_item_registered(&emitter, &item).await;
        let _ = self.registered.send(all);
    }

    fn register_status_notifier_host(&self, _service: &str) {}

    #[zbus(property)]
    fn registered_status_notifier_items(&self) -> Vec<String> {
        self.items.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    #[zbus(property)]
    fn is_status_notifier_host_registered(&self) -> bool {
        true
    }

    #[zbus(property)]
    fn protocol_version(&self) -> i32 {
        0
    }

    #[zbus(signal)]
    async fn status_notifier_item_registered(
        emitter: &SignalEmitter<'_>,
        service: &str,
    ) -> zbus::Result<()>;
}

/// A StatusNotifierWatcher on a test's bus: a tray host is there.
pub struct TrayWatcher {
    conn: zbus::Connection,
    registered: watch::Receiver<Vec<String>>,
}

impl TrayWatcher {
    /// Serves the watcher on the bus at `address`.
    pub async fn serve(address: &str) -> TrayWatcher {
        let (registered, rx) = watch::channel(Vec::new());
        let watcher = Watcher {
            items: Arc::default(),
            registered,
        };
        let conn = zbus::connection::Builder::address(address)
            .expect("bus address")
            .name(WATCHER)
            .expect("watcher name")
            .serve_at("/StatusNotifierWatcher", watcher)
            .expect("serve the watcher")
            .build()
            .await
            .expect("the watcher on the bus");
        TrayWatcher {
            conn,
            registered: rx,
        }
    }

    /// The first item that registers, waited for.
    pub async fn item(&self) -> TrayItem {
        let mut registered = self.registered.clone();
        let items = tokio::time::timeout(WAIT, registered.wait_for(|items| !items.is_empty()))
            .await
            .expect("no tray item registered with the watcher")
            .expect("the watcher ended")
            .clone();
        let (service, path) = items[0]
            .split_once('/')
            .map(|(s, p)| (s.to_owned(), format!("/{p}")))
            .expect("SENDER/PATH");
        let reply = self
            .conn
            .call_method(
                Some(service.as_str()),
                path.as_str(),
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &(ITEM, "Menu"),
            )
            .await
            .expect("the item's Menu property");
        let menu: OwnedValue = reply.body().deserialize().expect("a variant");
        let menu = OwnedObjectPath::try_from(menu).expect("Menu is an object path");
        TrayItem {
            conn: self.conn.clone(),
            service,
            path,
            menu,
        }
    }
}

/// A dbusmenu node, `(ia{sv}av)`: its id, its properties, its children
/// (each a node in a variant).
type Layout = (i32, HashMap<String, OwnedValue>, Vec<OwnedValue>);

/// One entry of a tray item's menu, as a panel shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: i32,
    /// The label with its access-key underscores taken out.
    pub label: String,
    /// The key a person presses once the menu is open (the `_` marked one).
    pub access_key: Option<char>,
    pub enabled: bool,
    /// A check item: whether it is ticked.
    pub checked: Option<bool>,
    pub separator: bool,
}

/// A registered tray item, read as a panel reads it.
pub struct TrayItem {
    conn: zbus::Connection,
    pub service: String,
    pub path: String,
    menu: OwnedObjectPath,
}

impl TrayItem {
    /// One of the item's `org.kde.StatusNotifierItem` properties, as text.
    async fn text_property(&self, name: &str) -> String {
        let reply = self
            .conn
            .call_method(
                Some(self.service.as_str()),
                self.path.as_str(),
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &(ITEM, name),
            )
            .await
            .unwrap_or_else(|e| panic!("the item's {name} property: {e}"));
        let value: OwnedValue = reply.body().deserialize().expect("a variant");
        String::try_from(value).unwrap_or_default()
    }

    /// The image file the item shows now, as a panel finds it: libayatana
    /// exports an icon given as a file by its `IconName` (a full path, or
    /// a name in `IconThemePath`).
    pub async fn icon_file(&self) -> std::path::PathBuf {
        let name = self.text_property("IconName").await;
        let path = std::path::PathBuf::from(&name);
        if path.is_absolute() {
            return path;
        }
        let theme = self.text_property("IconThemePath").await;
        std::path::Path::new(&theme).join(format!("{name}.png"))
    }

    /// The item's menu now (`GetLayout` from the root, all levels).
    pub async fn menu(&self) -> Vec<Entry> {
        let reply = self
            .conn
            .call_method(
                Some(self.service.as_str()),
                self.menu.as_str(),
                Some(MENU),
                "GetLayout",
                &(0i32, -1i32, Vec::<String>::new()),
            )
            .await
            .expect("GetLayout");
        let (_revision, (_id, _props, children)): (u32, Layout) =
            reply.body().deserialize().expect("a dbusmenu layout");
        let mut entries = Vec::new();
        for child in &children {
            collect(child, &mut entries);
        }
        entries
    }

    /// The menu once `want` holds of it, waited for.
    pub async fn menu_when(&self, what: &str, want: impl Fn(&[Entry]) -> bool) -> Vec<Entry> {
        eventually(what, || async {
            let menu = self.menu().await;
            if want(&menu) {
                Ok(menu)
            } else {
                Err(format!("{menu:#?}"))
            }
        })
        .await
    }

    /// Picks the entry whose label starts with `label`, as a person does in
    /// a panel's menu (dbusmenu's `Event` "clicked").
    pub async fn click(&self, label: &str) {
        let menu = self.menu().await;
        let entry = menu
            .iter()
            .find(|e| e.label.starts_with(label))
            .unwrap_or_else(|| panic!("no {label:?} in {menu:#?}"));
        self.conn
            .call_method(
                Some(self.service.as_str()),
                self.menu.as_str(),
                Some(MENU),
                "Event",
                &(entry.id, "clicked", Value::I32(0), 0u32),
            )
            .await
            .expect("Event clicked");
    }
}

/// Adds the entry `node` (a dbusmenu `(ia{sv}av)`, in a variant) and its
/// children.
fn collect(node: &Value<'_>, out: &mut Vec<Entry>) {
    let node = match node {
        Value::Value(inner) => inner.as_ref(),
        other => other,
    };
    let Value::Structure(s) = node else { return };
    let [Value::I32(id), Value::Dict(props), Value::Array(children)] = s.fields() else {
        return;
    };
    let find = |key: &str| -> Option<&Value<'_>> {
        props
            .iter()
            .find(|(k, _)| matches!(k, Value::Str(s) if s.as_str() == key))
            .map(|(_, v)| match v {
                Value::Value(inner) => inner.as_ref(),
                other => other,
            })
    };
    let text = |key: &str| match find(key) {
        Some(Value::Str(s)) => Some(s.to_string()),
        _ => None,
    };
    let raw = text("label").unwrap_or_default();
    let (label, access_key) = without_mnemonic(&raw);
    out.push(Entry {
        id: *id,
        label,
        access_key,
        enabled: !matches!(find("enabled"), Some(Value::Bool(false))),
        checked: (text("toggle-type").as_deref() == Some("checkmark"))
            .then(|| matches!(find("toggle-state"), Some(Value::I32(1)))),
        separator: text("type").as_deref() == Some("separator"),
    });
    for child in children.iter() {
        collect(child, out);
    }
}

/// A dbusmenu label as shown: `__` is one underscore, any other `_` marks
/// the next character as the access key and is not shown.
fn without_mnemonic(raw: &str) -> (String, Option<char>) {
    let mut label = String::with_capacity(raw.len());
    let mut key = None;
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '_' {
            match chars.next() {
                Some('_') => label.push('_'),
                Some(next) => {
                    key.get_or_insert(next.to_ascii_lowercase());
                    label.push(next);
                }
                None => {}
            }
        } else {
            label.push(c);
        }
    }
    (label, key)
}

/// Asks the visible top-level windows titled `title` on `display` to close,
/// as a window manager does when the person clicks the close button
/// (`WM_DELETE_WINDOW`; Xvfb has no window manager), through python3-xlib.
/// Returns how many were asked.
pub fn close_windows(display: &str, title: &str) -> usize {
    x11(display, title, "close")
}

/// How many top-level windows titled `title` are shown on `display`.
pub fn shown_windows(display: &str, title: &str) -> usize {
    x11(display, title, "count")
}

const X11_SCRIPT: &str = r#"
import sys
from Xlib import X, display, protocol
d = display.Display(sys.argv[1])
title, what = sys.argv[2], sys.argv[3]
protocols = d.intern_atom('WM_PROTOCOLS')
delete = d.intern_atom('WM_DELETE_WINDOW')
found = []
def walk(w):
    for c in w.query_tree().children:
        try:
            if c.get_wm_name() == title and c.get_attributes().map_state == X.IsViewable:
                found.append(c)
        except Exception:
            pass
        walk(c)
walk(d.screen().root)
if what == 'close':
    for w in found:
        w.send_event(protocol.event.ClientMessage(
            window=w, client_type=protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0])))
    d.flush()
print(len(found))
"#;

fn x11(display: &str, title: &str, what: &str) -> usize {
    let out = std::process::Command::new("/usr/bin/python3")
        .args(["-c", X11_SCRIPT, display, title, what])
        .output()
        .expect("python3 (scripts/setup.sh test installs python3-xlib)");
    assert!(
        out.status.success(),
        "python3-xlib: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("a count")
}
