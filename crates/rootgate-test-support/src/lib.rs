//! What the workspace's integration tests share, in one place: before this
//! crate, each test file included these helpers with `#[path]` and allowed
//! the dead code of the ones it did not use, and the same function was
//! copied into several files.
//!
//! Each crate's tests take the part they need (its features, see
//! `Cargo.toml`), so that a lower layer's tests depend on no crate above
//! it:
//!
//! - [`peers`]: where the real programs the tests run are (the workspace's
//!   binaries, the npm and PyPI test peers) and the helpers around them.
//! - [`report`]: reading the file the example server writes every folder
//!   list it receives to.
//! - [`rng`]: a small seeded random number generator for the randomised
//!   tests.
//! - [`wait`]: the command's and the desktop's tests' wait bound.
//! - `harness` (feature `session`): the sessions' set-up (a store in a
//!   temporary folder, a timeline, sessions for real server processes),
//!   with its own wait bound; the session's tests and the core's.
//! - `desktop` (feature `desktop`): a real desktop for the notification
//!   tests (Xvfb, a bus of its own, dunst).
//! - `tray` (feature `desktop`): a tray host for the tray's tests (a
//!   StatusNotifierWatcher on the desktop's bus) and the tray item's menu
//!   read and pressed over `com.canonical.dbusmenu`, as a panel does.
//! - `app` (feature `core`): the command's set-up (a settings folder
//!   written as the window writes it, AI-app stand-ins on the official SDK
//!   clients).
//! - `window_process` (feature `core`): the window's supervisor as a
//!   process of its own (the test binary run again), for tests that kill it
//!   or start a second.
//!
//! Not here: any test, or anything a person's build links; the crates use
//! this only as a dev-dependency.

pub mod peers;
pub mod report;
pub mod rng;
pub mod wait;

#[cfg(feature = "session")]
pub mod harness;

#[cfg(feature = "desktop")]
pub mod desktop;
#[cfg(feature = "desktop")]
pub mod tray;

#[cfg(feature = "core")]
pub mod app;
#[cfg(feature = "core")]
pub mod window_process;

/// The name libtest knows a test by, for a test that runs its own binary
/// again with `--exact`: `module_path!()` of the test's module without its
/// first part (the test binary's crate), then the function's name. Each
/// crate's integration tests are one binary with one module per former
/// file, so a test is `supervisor::its_name`, not `its_name`.
pub fn test_name(module_path: &str, function: &str) -> String {
    match module_path.split_once("::") {
        Some((_, module)) => format!("{module}::{function}"),
        None => function.to_owned(),
    }
}
