//! The tray: Rootgate at hand with its window closed, as a
//! StatusNotifierItem (Tauri's tray, which on Linux is
//! libayatana-appindicator, exported on the session bus with its menu as
//! `com.canonical.dbusmenu`).
//!
//! Its menu: Open Rootgate; the questions AI apps' folders wait on, each an
//! item that opens the window on that question's consent prompt (not a
//! one-click answer: the prompt shows the folder's warnings and real path,
//! which a menu line cannot, and a Share from the tray would skip them);
//! Pause all sharing, a check item; and Quit, which ends the window's
//! process (bridges go on with the folders already shared). The menu is
//! exported on the session bus, where any program can press an item, and
//! nothing says who did: so no item answers a question or gives a folder.
//! Pause withholds; pressed while paused it does not resume (that gives
//! every server its folders back) but opens the window, whose banner's
//! Resume sharing is the person's. It is made
//! anew whenever a prompt opens or closes or the settings change, so it
//! shows what the core holds, never a copy of its own.
//!
//! Closing the window keeps Rootgate running only while a tray host is on
//! the bus to show the item (`rootgate_notify::tray_host`); with none,
//! closing quits as before, since the window could then only be found
//! again by starting Rootgate anew.
//!
//! While sharing is paused the item looks paused (`paused`: the icon in grey
//! with a pause badge) and its tooltip says so, so the panel shows the
//! state without the menu being opened.
//!
//! Not here: what pausing does (the core: the store publishes empty lists)
//! and the questions' words (`Supervisor::waiting_questions`).

mod paused;

use std::sync::{Arc, Mutex, OnceLock};

use rootgate_core::supervisor::{PromptId, Supervisor};
use tauri::image::Image;
use tauri::menu::{CheckMenuItem, Menu, MenuEvent, MenuItem, PredefinedMenuItem};
use tauri::tray::TrayIconBuilder;
use tauri::{AppHandle, Emitter, Manager, Runtime};
use tokio::sync::watch;

use rootgate_core::bridge::window_socket;

use crate::events;

const TRAY: &str = "rootgate";
const OPEN: &str = "open";
const PAUSE: &str = "pause";
const QUIT: &str = "quit";
const QUESTION: &str = "question:";

/// Whether a tray host shows the item, once that is known.
#[derive(Default)]
pub(crate) struct TrayHost(OnceLock<watch::Receiver<bool>>);

impl TrayHost {
    /// Closing the window keeps Rootgate running: a tray shows it.
    pub fn shows_us(&self) -> bool {
        self.0.get().is_some_and(|host| *host.borrow())
    }
}

/// The look the item was last given: paused or not (none yet).
struct Look(Mutex<Option<bool>>);

/// The tooltip for each look.
const TOOLTIP: &str = "Rootgate";
const TOOLTIP_PAUSED: &str = "Rootgate: sharing is paused";

/// Puts Rootgate in the tray and keeps its menu current.
pub(crate) fn install<R: Runtime>(
    app: &AppHandle<R>,
    supervisor: &Arc<Supervisor>,
) -> tauri::Result<()> {
    let handle = app.clone();
    let mut builder = TrayIconBuilder::with_id(TRAY)
        .menu(&menu(&handle, supervisor)?)
        .tooltip(TOOLTIP)
        .on_menu_event(on_menu);
    // The item's image is a file a panel reads. By default every program
    // using the tray crate writes `tray-icon/tray-icon-ID-N.png` under the
    // runtime folder, so two Rootgates (a person's and a test's, each with
    // its own settings) wrote and removed the same file, and a panel could
    // read the other's or none. Beside the window's socket, named by the
    // settings file like it, the folder is Rootgate's own and private.
    // The runtime folder is made private first, as the socket's listener
    // does (made by the tray crate it would be open to others, and the
    // listener would then refuse it); one that is not ours keeps the
    // crate's default.
    let socket = window_socket::socket_path(supervisor.settings_path());
    match socket.parent().map(window_socket::private_dir) {
        Some(Ok(())) => builder = builder.temp_dir_path(socket.with_extension("tray")),
        Some(Err(e)) => tracing::warn!(error = %e, "the tray's image stays in the shared folder"),
        None => {}
    }
    // The item is built with its running look, and that is remembered, so
    // the first refresh does not set the same image again: each set writes
    // a new file and removes the one a panel may be reading.
    let mut built_with = None;
    if let Some(icon) = app.default_window_icon() {
        builder = builder.icon(icon.clone());
        built_with = Some(false);
    }
    builder.build(app)?;
    app.manage(TrayHost::default());
    app.manage(Look(Mutex::new(built_with)));
    show_look(app, supervisor.preferences().sharing_paused());
    let mut prompts = supervisor.subscribe_prompts();
    let mut settings = supervisor.store().subscribe_revision();
    let weak = Arc::downgrade(supervisor);
    tauri::async_runtime::spawn(async move {
        match rootgate_core::desktop::tray_host::watch_session().await {
            Ok(host) => {
                if let Some(state) = handle.try_state::<TrayHost>() {
                    let _ = state.0.set(host);
                }
            }
            Err(e) => tracing::info!(error = %e, "no tray host: closing the window quits"),
        }
        loop {
            tokio::select! {
                changed = prompts.changed() => if changed.is_err() { return },
                changed = settings.changed() => if changed.is_err() { return },
            }
            let Some(supervisor) = weak.upgrade() else {
                return;
            };
            refresh(&handle, &supervisor);
        }
    });
    Ok(())
}

/// Gives the item its paused look, or its own, when that changed.
fn show_look<R: Runtime>(app: &AppHandle<R>, paused: bool) {
    let (Some(tray), Some(look)) = (app.tray_by_id(TRAY), app.try_state::<Look>()) else {
        return;
    };
    {
        let mut shown = look.0.lock().unwrap_or_else(|p| p.into_inner());
        if *shown == Some(paused) {
            return;
        }
        *shown = Some(paused);
    }
    if let Some(icon) = app.default_window_icon() {
        let image = if paused {
            Image::new_owned(
                paused::paused_look(icon.rgba(), icon.width(), icon.height()),
                icon.width(),
                icon.height(),
            )
        } else {
            icon.clone().to_owned()
        };
        if let Err(e) = tray.set_icon(Some(image)) {
            tracing::warn!(error = %e, "the tray's icon could not be changed");
        }
    }
    let tooltip = if paused { TOOLTIP_PAUSED } else { TOOLTIP };
    if let Err(e) = tray.set_tooltip(Some(tooltip)) {
        tracing::warn!(error = %e, "the tray's tooltip could not be changed");
    }
}

/// Makes the menu anew from what the core holds now, and the look with it.
fn refresh<R: Runtime>(app: &AppHandle<R>, supervisor: &Supervisor) {
    show_look(app, supervisor.preferences().sharing_paused());
    let Some(tray) = app.tray_by_id(TRAY) else {
        return;
    };
    match menu(app, supervisor) {
        Ok(menu) => {
            if let Err(e) = tray.set_menu(Some(menu)) {
                tracing::warn!(error = %e, "the tray's menu could not be changed");
            }
        }
        Err(e) => tracing::warn!(error = %e, "the tray's menu could not be made"),
    }
}

/// The menu: labels with `&` before the access key (GTK's `_`), so each
/// item is one key away once the menu is open.
fn menu<R: Runtime>(app: &AppHandle<R>, supervisor: &Supervisor) -> tauri::Result<Menu<R>> {
    let menu = Menu::new(app)?;
    menu.append(&MenuItem::with_id(
        app,
        OPEN,
        "&Open Rootgate",
        true,
        None::<&str>,
    )?)?;
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    let waiting = supervisor.consent().waiting_questions();
    let heading = match waiting.len() {
        0 => "No questions waiting".to_owned(),
        1 => "1 question waiting:".to_owned(),
        n => format!("{n} questions waiting:"),
    };
    menu.append(&MenuItem::with_id(
        app,
        "questions",
        heading,
        false,
        None::<&str>,
    )?)?;
    for question in waiting {
        // `&` marks an access key in a label; a name's own is doubled.
        let label = question.line.replace('&', "&&");
        menu.append(&MenuItem::with_id(
            app,
            format!("{QUESTION}{}", question.prompt.get()),
            label,
            true,
            None::<&str>,
        )?)?;
    }
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    menu.append(&CheckMenuItem::with_id(
        app,
        PAUSE,
        "&Pause all sharing",
        true,
        supervisor.preferences().sharing_paused(),
        None::<&str>,
    )?)?;
    menu.append(&PredefinedMenuItem::separator(app)?)?;
    menu.append(&MenuItem::with_id(
        app,
        QUIT,
        "&Quit Rootgate",
        true,
        None::<&str>,
    )?)?;
    Ok(menu)
}

fn on_menu<R: Runtime>(app: &AppHandle<R>, event: MenuEvent) {
    let Some(supervisor) = app.try_state::<Arc<Supervisor>>() else {
        return;
    };
    match event.id().as_ref() {
        OPEN => crate::raise(app),
        PAUSE => {
            // The core's state decides, not the check mark GTK flipped.
            if supervisor.preferences().sharing_paused() {
                // Resuming is a grant: the window's, never the bus's. The
                // check mark GTK took off goes back on.
                refresh(app, &supervisor);
                events::notice(
                    app,
                    "Sharing stays paused until you press Resume sharing here.",
                );
                crate::raise(app);
            } else if let Err(e) = supervisor.preferences().set_sharing_paused(true) {
                events::notice(app, format!("Sharing could not be paused: {e}"));
                refresh(app, &supervisor);
            }
        }
        QUIT => app.exit(0),
        id => {
            let Some(prompt) = id
                .strip_prefix(QUESTION)
                .and_then(|n| n.parse::<u64>().ok())
                .map(PromptId::from)
            else {
                return;
            };
            // The window shows that question's prompt first.
            if let Some(prompt) = supervisor
                .consent()
                .open_prompts()
                .into_iter()
                .find(|p| p.id == prompt)
            {
                let _ = app.emit(events::SHOW_PROMPT, prompt);
            }
            crate::raise(app);
        }
    }
}
