//! The seccomp filter of a server that enforcement cannot put in a
//! bubblewrap sandbox: no new Unix socket.
//!
//! Landlock does not stop `connect` to a Unix socket that has a path (the
//! session bus, the keyring, ssh-agent, Rootgate's window), and `connect`'s
//! own arguments do not say the socket's family, so the filter refuses the
//! step before: `socket(AF_UNIX, …)`. `socketpair`, which only joins two
//! ends inside the server (runtimes use it to talk to their own children),
//! stays allowed, and so do Unix sockets the server was given when it
//! started (it is given none but its standard streams). It is the fallback
//! only: it does not hide other processes, the network or the system's
//! files (see `enforcement::NOT_STOPPED_WITHOUT_SANDBOX`).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

fn failed(e: impl std::fmt::Display) -> String {
    format!("could not refuse Unix sockets with seccomp: {e}")
}

/// Applies the filter to the calling thread and everything it starts
/// later. Needs `no_new_privs`, which the Landlock ruleset applied before it
/// has already set.
pub(crate) fn refuse_unix_sockets() -> Result<(), String> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(failed)?;
    let af_unix = SeccompCondition::new(
        0,
        SeccompCmpArgLen::Dword,
        SeccompCmpOp::Eq,
        nix::libc::AF_UNIX as u64,
    )
    .map_err(failed)?;
    let rule = SeccompRule::new(vec![af_unix]).map_err(failed)?;
    let filter = SeccompFilter::new(
        BTreeMap::from([(nix::libc::SYS_socket, vec![rule])]),
        SeccompAction::Allow,
        SeccompAction::Errno(nix::libc::EACCES as u32),
        arch,
    )
    .map_err(failed)?;
    let program: BpfProgram = filter.try_into().map_err(failed)?;
    seccompiler::apply_filter(&program).map_err(failed)
}
