//! How the window's web view draws when the machine has no GPU.
//!
//! WebKitGTK composites pages with OpenGL by default. On a machine with no
//! GPU (a virtual machine, a remote or headless X server) that OpenGL is
//! Mesa's software rasteriser, llvmpipe, and the compositor then costs more
//! than it saves: measured under Xvfb, the first frame with the app's
//! content took about 200 ms to appear, against 60–100 ms with WebKit
//! painting directly in software, and a bare Tauri window pays part of the
//! same cost. So when there is no GPU render node, the web view is told
//! never to use hardware acceleration. With a GPU nothing changes.
//!
//! Not here: anything about what the page shows; other platforms (their
//! web views choose well by themselves).

use tauri::{Runtime, WebviewWindow};

/// True when the kernel offers a GPU render node (`/dev/dri/renderD*`),
/// which every Mesa and proprietary driver for a real GPU creates.
#[cfg(target_os = "linux")]
fn has_gpu() -> bool {
    std::fs::read_dir("/dev/dri")
        .map(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
        })
        .unwrap_or(false)
}

/// Tells `window`'s web view to paint in software when there is no GPU.
/// Called before the event loop runs, so it takes effect before the page's
/// first frame.
pub fn fit_to_machine<R: Runtime>(window: &WebviewWindow<R>) {
    #[cfg(target_os = "linux")]
    if !has_gpu() {
        let applied = window.with_webview(|webview| {
            use webkit2gtk::{HardwareAccelerationPolicy, SettingsExt, WebViewExt};
            if let Some(settings) = webview.inner().settings() {
                settings.set_hardware_acceleration_policy(HardwareAccelerationPolicy::Never);
            }
        });
        if let Err(e) = applied {
            tracing::warn!(error = %e, "the window keeps WebKit's default compositing");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = window;
}
