//! `rootgate-model`: Rootgate's vocabulary and what it keeps. Folders and
//! their checks, consent, server specifications, the settings file, the
//! store that saves and publishes, the timeline, and secret values.
//!
//! It stands on one crate only, `rootgate-host` (the desktop keyring over
//! D-Bus, inotify, the mount table: the host's foreign stacks, which know
//! no Rootgate word), and is otherwise the lowest layer: it speaks no MCP (that is `rootgate-session`),
//! starts no process (`rootgate-launcher`), and reads no AI app's config
//! (`rootgate-apps`). Every crate above uses its words; it uses none of
//! theirs. It never takes a path from anywhere but a caller that got it
//! from the person at the machine.
//!
//! Modules, lowest first: `ids` and `names` (identifiers and the names a
//! person gives), `app_kind` (which AI app, and how its main file is
//! written), `uri` (paths as `file://` URIs), `folders` (a chosen folder's checks), `roots` (the folders
//! kept), `consent` (grants per server and folder), `servers` (server
//! specifications, and which of their variables are secret),
//! `placeholders` and `templates` (servers made from a template),
//! `downloads` (where a template's program comes from), `timeline` (what
//! happened to each server), `durable` (a small file replaced whole),
//! `settings` (the settings file), `secrets`
//! (the vault, and its keyring by server and variable), `store` (settings,
//! saved and published), `monitor` (folders that disappear, on the host's
//! watcher and mount table), `questions` (what the person was
//! asked when an AI app needed a folder, and the answers), `preferences`
//! (pause, notifications, the login offer, kept in the settings) and
//! `autostart` (the desktop's entry that starts Rootgate at login).

pub mod app_kind;
pub mod autostart;
pub mod calls;
pub mod consent;
pub mod dates;
pub mod downloads;
pub mod durable;
pub mod folders;
pub mod ids;
pub mod monitor;
pub mod names;
pub mod placeholders;
pub mod preferences;
pub mod questions;
pub mod roots;
pub mod secrets;
pub mod servers;
pub mod settings;
pub mod store;
pub mod templates;
pub mod timeline;
pub mod tools;
pub mod uri;
