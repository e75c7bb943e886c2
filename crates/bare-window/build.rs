//! Build script: Tauri's code generation for the bare window (its config
//! and the embedded page). Nothing else.

fn main() {
    tauri_build::build();
}
