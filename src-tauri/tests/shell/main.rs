//! The shell's own tests, as integration tests of the `rootgate` library:
//! every command through Tauri's IPC with hostile arguments (`hostile`),
//! the capability file and CSP pinned (`permissions`), and the TypeScript
//! bindings checked against `ui/src/lib/bindings.ts` (`bindings`). They
//! see only what the library makes public.
//!
//! One test binary, not one per file: each links Tauri and WebKit, which
//! is most of what building these tests costs, and `hostile` reads the
//! command list `permissions` reads. Not here: the library's unit tests,
//! which stay beside its code (`src/error.rs`, `src/painting.rs`).

// All of this crate is tests. clippy.toml's `allow-unwrap-in-tests` sees
// only `#[test]` functions and `#[cfg(test)]` modules, not the helpers of
// an integration test (the harness, the command table), which unwrap as
// freely as the tests do.
#![allow(clippy::unwrap_used)]

mod bindings;
mod hostile;
mod permissions;
