//! How the window's web view paints on this machine, settled before WebKit
//! starts: on a machine without a GPU, WebKit is told to paint with the CPU.
//!
//! WebKitGTK 2.46 and later paint page tiles with Skia on the GPU by default.
//! Where there is no GPU, Mesa's software rasteriser (llvmpipe) stands in for
//! one, and Skia's GPU path through it is slower than Skia's own CPU
//! rasteriser: on this project's GPU-less machine, steps in the long lists
//! took up to nearly three times as long (Folders "to the top" 57 against
//! 20 ms, page up 52 against 30.5 ms; `scripts/bench-app.sh`, BENCHMARKS.md).
//! Chromium's GPU blocklist makes the same choice: it does not accelerate
//! with Mesa's software rasterisers.
//!
//! WebKit reads its switch, `WEBKIT_SKIA_ENABLE_CPU_RENDERING`, from the
//! environment of its web process, which inherits the app's environment.
//! Setting a variable in a running process is `unsafe` in Rust 2024: libc's
//! `getenv` takes no lock, so a thread reading the environment meanwhile may
//! read freed memory. Here it could not be done soundly even with `unsafe`:
//! by `main`, WebKit's library initialiser has already started a thread (its
//! allocator's scavenger; gdb on `pthread_create`), and a variable set from
//! the executable's pre-initialiser, before any library initialiser runs, is
//! undone when libc's own initialiser sets the environment back to the one
//! the process was started with (both tried on this machine). So the app
//! re-executes itself once with the variable set: the same program,
//! arguments and process id, before any window exists. It costs a second
//! load of GTK and WebKit's 169 libraries, about 100 ms of CPU here: two
//! thirds of it the dynamic loader binding symbols, the rest the kernel
//! mapping pages (`perf stat` and `perf record` of a start that exits at
//! once). Only machines without a GPU pay it. The variable changes how page tiles are painted, nothing the page
//! itself can see. The servers the app starts inherit it too; it means
//! nothing to them.
//!
//! Not here: anything else about the window, and any choice a person made:
//! the variable already set, to any value (`0` keeps GPU painting), is left
//! exactly as it is, and so the re-executed process never re-executes again.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

/// WebKit's switch: any value but `0` makes the web process paint with the CPU.
pub const CPU_PAINTING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";

/// Mesa's switch that forces software GL even where a GPU is present.
const SOFTWARE_GL: &str = "LIBGL_ALWAYS_SOFTWARE";

/// What the machine looks like to the choice: read once, then decided by
/// [`cpu_painting_wanted`] without touching the system, so the rule is tested
/// on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// `WEBKIT_SKIA_ENABLE_CPU_RENDERING` as the app was started with it.
    pub cpu_painting: Option<OsString>,
    /// Whether Mesa was told to use software GL (`LIBGL_ALWAYS_SOFTWARE` set
    /// to anything but empty or `0`).
    pub software_gl: bool,
    /// Whether a GPU render node (`/dev/dri/renderD*`) is there.
    pub render_node: bool,
}

impl Machine {
    /// This machine, as the app was started on it.
    pub fn current() -> Machine {
        Machine {
            cpu_painting: std::env::var_os(CPU_PAINTING),
            software_gl: std::env::var_os(SOFTWARE_GL).is_some_and(|v| !v.is_empty() && v != "0"),
            render_node: has_render_node(Path::new("/dev/dri")),
        }
    }
}

/// Whether the app should re-execute itself with CPU painting: only where
/// nobody chose already and painting would otherwise go through software GL.
pub fn cpu_painting_wanted(machine: &Machine) -> bool {
    machine.cpu_painting.is_none() && (machine.software_gl || !machine.render_node)
}

/// Whether `dri` (normally `/dev/dri`) holds a GPU render node. A missing or
/// unreadable directory counts as none: then Mesa cannot reach a GPU either.
pub fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Re-executes this program with CPU painting switched on, with the same
/// arguments (including the name it was started by) and process id. Returns
/// only if that failed, with the reason; the app then goes on as it is,
/// painting the slower way, which is no reason to stop it.
pub fn reexec_with_cpu_painting() -> std::io::Error {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return e,
    };
    let mut args = std::env::args_os();
    let mut command = Command::new(exe);
    if let Some(name) = args.next() {
        command.arg0(name);
    }
    command.args(args).env(CPU_PAINTING, "1").exec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(cpu_painting: Option<&str>, software_gl: bool, render_node: bool) -> Machine {
        Machine {
            cpu_painting: cpu_painting.map(OsString::from),
            software_gl,
            render_node,
        }
    }

    #[test]
    fn without_a_gpu_the_cpu_paints() {
        assert!(cpu_painting_wanted(&machine(None, false, false)));
    }

    #[test]
    fn with_a_gpu_webkit_keeps_its_own_choice() {
        assert!(!cpu_painting_wanted(&machine(None, false, true)));
    }

    #[test]
    fn software_gl_forced_counts_as_no_gpu() {
        assert!(cpu_painting_wanted(&machine(None, true, true)));
    }

    #[test]
    fn a_choice_already_made_is_kept_whatever_it_is() {
        // Also what keeps the re-executed process from re-executing again.
        for value in ["1", "0", ""] {
            assert!(
                !cpu_painting_wanted(&machine(Some(value), false, false)),
                "{value:?}"
            );
            assert!(
                !cpu_painting_wanted(&machine(Some(value), true, true)),
                "{value:?}"
            );
        }
    }

    #[test]
    fn render_nodes_are_found_by_name() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(!has_render_node(dir.path()), "empty");
        std::fs::write(dir.path().join("card0"), b"").expect("card0");
        assert!(
            !has_render_node(dir.path()),
            "a card node alone is for display, not rendering"
        );
        std::fs::write(dir.path().join("renderD128"), b"").expect("renderD128");
        assert!(has_render_node(dir.path()));
        assert!(
            !has_render_node(&dir.path().join("missing")),
            "no directory, no GPU"
        );
    }
}
