import { defineConfig } from "vitest/config";
import { svelte } from "@sveltejs/vite-plugin-svelte";

// The window loads ui/dist from the app binary (tauri.conf.json:
// frontendDist ../ui/dist) under a strict CSP: scripts and styles only from
// files, never inline. Svelte component styles are emitted to the CSS file.
export default defineConfig({
  plugins: [svelte()],
  base: "./",
  clearScreen: false,
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "safari15",
    // Inline <style> or data: scripts would be refused by the CSP.
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    modulePreload: { polyfill: false },
    sourcemap: false,
    chunkSizeWarningLimit: 600,
    // The Svelte compiler is most of a build; saying so every time is noise.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
  resolve: process.env.VITEST ? { conditions: ["browser"] } : undefined,
  test: {
    include: ["src/**/*.test.ts"],
    environment: "happy-dom",
    restoreMocks: true,
  },
});
