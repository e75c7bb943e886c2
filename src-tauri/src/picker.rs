//! The folder picker, and the bundle picker beside it: native dialogs,
//! opened from Rust, so that a path enters Rootgate only by the person's own
//! choice and never from the webview.
//!
//! With the `e2e-picker` cargo feature (end-to-end tests only; release
//! builds never enable it) the picker instead answers with the next line of
//! the file named by `--e2e-picks FILE`, and there is no dialog. With the
//! `test-picker` feature, which only the shell's own tests enable (they run
//! without a display, so the GTK dialog cannot open), it answers from such
//! a file when the tests manage one and opens the dialog otherwise. This
//! module does not check or share anything it returns: the supervisor does.

use std::path::PathBuf;
#[cfg(not(feature = "e2e-picker"))]
use std::sync::Mutex;

use tauri::{AppHandle, Runtime, WebviewWindow};

use crate::error::{CommandError, ErrorCode};

/// The folders the person chose for "Add folder…" (an empty list when they
/// cancelled): from the picks file, in a build that has one and when it is
/// given, else from the native dialog over `window`.
pub async fn pick<R: Runtime>(
    app: &AppHandle<R>,
    window: &WebviewWindow<R>,
) -> Result<Vec<PathBuf>, CommandError> {
    #[cfg(any(feature = "e2e-picker", feature = "test-picker"))]
    if let Some(picks) = tauri::Manager::try_state::<crate::E2ePicks>(app) {
        return next_picks(&picks.0);
    }
    let _ = app; // read only by a build with a picks file
    dialog(window).await
}

/// Opens the native folder picker over `window` and returns the folders
/// chosen; an empty list when the person cancelled.
#[cfg(not(feature = "e2e-picker"))]
async fn dialog<R: Runtime>(window: &WebviewWindow<R>) -> Result<Vec<PathBuf>, CommandError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    file_dialog(window, "Choose folders to share").pick_folders(move |chosen| {
        let _ = tx.send(chosen);
    });
    let chosen = rx.await.map_err(|_| {
        CommandError::new(ErrorCode::Picker, "the folder picker closed unexpectedly")
    })?;
    let chosen: Vec<PathBuf> = chosen
        .unwrap_or_default()
        .into_iter()
        .filter_map(|p| p.into_path().ok())
        .collect();
    if let Some(parent) = chosen.first().and_then(|p| p.parent()) {
        *LAST_PARENT.lock().unwrap_or_else(|p| p.into_inner()) = Some(parent.to_path_buf());
    }
    Ok(chosen)
}

/// The MCP bundle the person chose for "Install a bundle…" (none when they
/// cancelled): from the picks file, in a build that has one and when it is
/// given (its next line, one path), else from the native file dialog over
/// `window`, which lists `.mcpb` files.
pub async fn pick_bundle<R: Runtime>(
    app: &AppHandle<R>,
    window: &WebviewWindow<R>,
) -> Result<Option<PathBuf>, CommandError> {
    #[cfg(any(feature = "e2e-picker", feature = "test-picker"))]
    if let Some(picks) = tauri::Manager::try_state::<crate::E2ePicks>(app) {
        return Ok(next_picks(&picks.0)?.into_iter().next());
    }
    let _ = app; // read only by a build with a picks file
    bundle_dialog(window).await
}

#[cfg(not(feature = "e2e-picker"))]
async fn bundle_dialog<R: Runtime>(
    window: &WebviewWindow<R>,
) -> Result<Option<PathBuf>, CommandError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    file_dialog(window, "Choose an MCP bundle to install")
        .add_filter("MCP bundle", &["mcpb"])
        .pick_file(move |chosen| {
            let _ = tx.send(chosen);
        });
    one_file(rx).await
}

/// Where the person chose to save an export (none when they cancelled):
/// from the picks file in a build that has one (its next line, one path),
/// else from the native save dialog over `window`, proposing `name`.
pub async fn pick_save<R: Runtime>(
    app: &AppHandle<R>,
    window: &WebviewWindow<R>,
    name: &str,
) -> Result<Option<PathBuf>, CommandError> {
    #[cfg(any(feature = "e2e-picker", feature = "test-picker"))]
    if let Some(picks) = tauri::Manager::try_state::<crate::E2ePicks>(app) {
        return Ok(next_picks(&picks.0)?.into_iter().next());
    }
    let _ = app; // read only by a build with a picks file
    save_dialog(window, name).await
}

#[cfg(not(feature = "e2e-picker"))]
async fn save_dialog<R: Runtime>(
    window: &WebviewWindow<R>,
    name: &str,
) -> Result<Option<PathBuf>, CommandError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    file_dialog(window, "Export the record of calls")
        .set_file_name(name)
        .save_file(move |chosen| {
            let _ = tx.send(chosen);
        });
    one_file(rx).await
}

/// An end-to-end build has no dialog: without a picks file there is
/// nothing to pick from.
#[cfg(feature = "e2e-picker")]
async fn save_dialog<R: Runtime>(
    _window: &WebviewWindow<R>,
    _name: &str,
) -> Result<Option<PathBuf>, CommandError> {
    Err(CommandError::new(
        ErrorCode::Picker,
        "no --e2e-picks file was given",
    ))
}

/// An end-to-end build has no dialog: without a picks file there is
/// nothing to pick from.
#[cfg(feature = "e2e-picker")]
async fn bundle_dialog<R: Runtime>(
    _window: &WebviewWindow<R>,
) -> Result<Option<PathBuf>, CommandError> {
    Err(CommandError::new(
        ErrorCode::Picker,
        "no --e2e-picks file was given",
    ))
}

/// The native file dialog over `window`, titled `title`, opening where
/// [`start_folder`] says: what the folder, bundle and export dialogs share
/// before each says what it picks.
#[cfg(not(feature = "e2e-picker"))]
fn file_dialog<R: Runtime>(
    window: &WebviewWindow<R>,
    title: &str,
) -> tauri_plugin_dialog::FileDialogBuilder<R> {
    use tauri_plugin_dialog::DialogExt;
    let builder = window.dialog().file().set_parent(window).set_title(title);
    match start_folder() {
        Some(start) => builder.set_directory(start),
        None => builder,
    }
}

/// The one file chosen in a dialog that answers on `rx`; none when the
/// person cancelled.
#[cfg(not(feature = "e2e-picker"))]
async fn one_file(
    rx: tokio::sync::oneshot::Receiver<Option<tauri_plugin_dialog::FilePath>>,
) -> Result<Option<PathBuf>, CommandError> {
    let chosen = rx
        .await
        .map_err(|_| CommandError::new(ErrorCode::Picker, "the file picker closed unexpectedly"))?;
    Ok(chosen.and_then(|p| p.into_path().ok()))
}

/// Where the folder the person chose last was, so the next pick opens
/// beside it (a person adding folders one by one picks siblings).
#[cfg(not(feature = "e2e-picker"))]
static LAST_PARENT: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Where the dialog opens: beside the last folder chosen, else the home
/// folder. GTK's own default is "Recent", a list of files, which is where
/// no one keeps the folders they share.
#[cfg(not(feature = "e2e-picker"))]
fn start_folder() -> Option<PathBuf> {
    let last = LAST_PARENT
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clone()
        .filter(|p| p.is_dir());
    last.or_else(|| {
        std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_dir())
    })
}

/// An end-to-end build has no dialog: without a picks file there is
/// nothing to pick from.
#[cfg(feature = "e2e-picker")]
async fn dialog<R: Runtime>(_window: &WebviewWindow<R>) -> Result<Vec<PathBuf>, CommandError> {
    Err(CommandError::new(
        ErrorCode::Picker,
        "no --e2e-picks file was given",
    ))
}

/// The end-to-end tests' picker: pops the first line of the picks file.
/// An empty line or an empty file is a cancelled picker.
#[cfg(any(feature = "e2e-picker", feature = "test-picker"))]
fn next_picks(file: &std::path::Path) -> Result<Vec<PathBuf>, CommandError> {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default().to_owned();
    let rest: Vec<&str> = lines.collect();
    std::fs::write(file, rest.join("\n"))
        .map_err(|e| CommandError::new(ErrorCode::Picker, e.to_string()))?;
    Ok(first
        .split('\t')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect())
}
