//! The pieces of `rootgate-bench-driver` that need no server: its command
//! line, the benchmark's statistics and the peak-memory line.
//!
//! The driver itself (`src/main.rs`) runs the roots client benchmark of
//! `../shared/bench` (see its README.md, "Driver CLI") through Rootgate's
//! own code: the core's `Store` and `Session` actors. Its module
//! documentation says how each metric maps onto the product.

pub mod cli;
pub mod stats;

/// `{"maxrss_kb":…,"vmhwm_kb":…}` of this process only (children are not
/// included): `getrusage(RUSAGE_SELF)` and `VmHWM` from `/proc/self/status`,
/// read when called (the driver calls it just before it exits).
pub fn peak_memory_kb() -> (Option<u64>, Option<u64>) {
    use nix::sys::resource::{UsageWho, getrusage};
    let maxrss = getrusage(UsageWho::RUSAGE_SELF)
        .ok()
        .and_then(|u| u64::try_from(u.max_rss()).ok());
    let vmhwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| vmhwm_kb(&status));
    (maxrss, vmhwm)
}

/// The `VmHWM:` value (kB) of a `/proc/<pid>/status` text.
pub fn vmhwm_kb(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vmhwm_is_read_from_the_status_text() {
        let status = "Name:\tx\nVmPeak:\t  9000 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 1000 kB\n";
        assert_eq!(vmhwm_kb(status), Some(1234));
        assert_eq!(vmhwm_kb("Name:\tx\n"), None);
        let (maxrss, vmhwm) = peak_memory_kb();
        assert!(maxrss.unwrap() > 0 && vmhwm.unwrap() > 0);
    }
}
