//! How long the command's tests and the desktop's wait for a real process
//! to do something ([`WAIT`]), and [`eventually`] with that bound. It is
//! its own module so that the desktop's and the tray's helpers, which need
//! nothing of the core, share it with `app` (which re-exports both)
//! without depending on the core. Not here: the session's and the core's
//! shorter bound, which is `harness`'s.

use std::time::Duration;

use crate::peers::eventually_within;

pub const WAIT: Duration = Duration::from_secs(30);

/// Runs `probe` until it returns `Ok`, failing after this suite's [`WAIT`]
/// (see [`crate::peers::eventually_within`]).
pub async fn eventually<T, F, Fut>(what: &str, probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, String>>,
{
    eventually_within(WAIT, what, probe).await
}
