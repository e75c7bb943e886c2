//! A bare Tauri 2 window showing a trivial page: the yardstick that
//! `scripts/bench-app.sh` measures Rootgate's start-up, idle cost and memory
//! against, on the same machine in the same run.
//!
//! It uses the same tauri version and features as `src-tauri`, the same
//! window size, and no plugins, commands or state: whatever Rootgate costs
//! beyond this is Rootgate's own. Its page marks `app-ready` in the
//! performance timeline the same way Rootgate's window does once it shows
//! its folders and servers (see `page/ready.js`). It is not shipped.

fn main() -> std::process::ExitCode {
    match tauri::Builder::default().run(tauri::generate_context!()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bare-window: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
