//! Processes as the operating system shows them: the table of processes
//! in `/proc` (pid, parent, group, zombie or not), the live members of a
//! process group, and an exit status in words.
//!
//! Both the launcher (which clears what a server leaves behind) and the
//! session's shutdown sequence use these, so they live below both. Nothing
//! here starts, signals or waits for a process.

use std::process::ExitStatus;

use nix::sys::signal::Signal;

/// An exit status in words: "exit code 1", "killed by SIGKILL".
pub fn describe(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return format!("exit code {code}");
    }
    if let Some(signal) = status.signal() {
        return match Signal::try_from(signal) {
            Ok(sig) => format!("killed by {}", sig.as_str()),
            Err(_) => format!("killed by signal {signal}"),
        };
    }
    "ended".into()
}

/// The process ids of the group's members that are not zombies.
pub fn live_members(pgid: i32) -> Vec<i32> {
    proc_table()
        .into_iter()
        .filter(|p| p.pgid == pgid && !p.zombie)
        .map(|p| p.pid)
        .collect()
}

/// One process, as `/proc/PID/stat` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcInfo {
    pub pid: i32,
    pub ppid: i32,
    pub pgid: i32,
    /// Exited but not yet reaped: holds no resources and cannot be
    /// signalled away.
    pub zombie: bool,
}

/// Every process this user can see, read from `/proc`.
pub fn proc_table() -> Vec<ProcInfo> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The command name is in parentheses and may hold spaces or
            // parentheses itself, so fields are counted from the last ')':
            // state, parent, process group.
            let (_, rest) = stat.rsplit_once(')')?;
            let mut fields = rest.split_whitespace();
            let state = fields.next()?;
            let ppid = fields.next()?.parse().ok()?;
            let pgid = fields.next()?.parse().ok()?;
            Some(ProcInfo {
                pid,
                ppid,
                pgid,
                zombie: state == "Z",
            })
        })
        .collect()
}
