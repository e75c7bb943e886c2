//! The AI apps' integration tests, as one test binary: every app's config
//! file read from fixtures written as the apps write them
//! (`tests/fixtures/apps`), routed and restored in place, surveyed and
//! imported under a temporary home, and entries of several apps joined
//! into one server. They need nothing above the apps and the model.
//!
//! One binary, not one per file, for the link time (see the core's
//! `tests/it/main.rs`). A test's name keeps its file as its module
//! (`app_routes::…`), so nextest's filters by name find it. Not here: the
//! apps' unit tests, which stay beside their code.

mod app_configs_goose;
mod app_configs_json;
mod app_configs_more;
mod app_identity;
mod app_imports;
mod app_routes;
