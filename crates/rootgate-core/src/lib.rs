//! `rootgate-core`: the façade. The desktop shell (`src-tauri`) and the
//! command (`crates/rootgate-cli`) depend on this crate alone, and call the
//! services of [`supervisor::Supervisor`] (folders, consent, servers,
//! questions, tool consent, apps, installs, connections, preferences), or,
//! from a command with no window, [`headless::Headless`].
//!
//! The layers it is built on are their own crates, lowest first (see
//! ARCHITECTURE.md, "Layers"): `rootgate-model` (folders, consent, servers,
//! settings, store, timeline, secrets), `rootgate-launcher` (the process
//! each server runs under, Landlock), `rootgate-session` (MCP, one session
//! per server), `rootgate-apps` (the AI apps' config files) and
//! `rootgate-bridge` (`rootgate connect`, and the connections the window
//! lists). Of each, this crate re-exports only the names the shell and
//! the command use, under the module paths they had when the layers were
//! one crate; nothing is re-exported wholesale, so what the top may call is
//! written down here, and a test that needs more names the lower crate.
//!
//! What is not here: any GUI dependency, and any decision of the layers
//! below; this crate only puts them together. Its modules of its own are
//! `supervisor` (the window's services and the root that wires them),
//! `headless` (the command's, without a window) and `connecting` (the one
//! import of an AI app's servers, and the one plan of a route, both run).

// Each module below names exactly what the shell and the command use of a
// lower crate, under the path it had when the layers were one crate. A name
// the shell starts to need is added here, deliberately: the list is the
// façade's contract, and the layer check reads it.

/// The AI apps' config files: the import, the route and its undo.
pub mod apps {
    pub use rootgate_apps::{AppKind, ConfigFile, Scope};
    /// What each app's config holds, as the window and `rootgate apps` show it.
    pub mod catalog {
        pub use rootgate_apps::catalog::{
            AppView, AppsError, EntryView, Imported, build_folder_warning, files_of, joined_lines,
            survey, target,
        };
    }
    /// Why an import of an app's entry was refused.
    pub mod import {
        pub use rootgate_apps::import::ImportError;
    }
    /// Where each app keeps its config files.
    pub mod locate {
        pub use rootgate_apps::locate::Places;
    }
    /// Routing an app's file through `rootgate connect`, and its byte-exact undo.
    pub mod route {
        pub use rootgate_apps::route::{
            Ledger, Plan, RouteError, apply_route, apply_undo, plan_undo,
        };
    }
}
/// `rootgate connect`, and how a command reaches a running window.
pub mod bridge {
    pub use rootgate_bridge::{Options, Outcome, app_io, connect};
    /// The resident gate, and the door `rootgate connect` is.
    pub mod gate {
        pub use rootgate_bridge::gate::{GateConfig, IDLE, NotServed, door, serve};
    }
    /// The window's private socket, from the command's side.
    pub mod window_socket {
        pub use rootgate_bridge::window_socket::{
            Unreached, connect_window, private_dir, refusal_words, socket_path,
        };
    }
}
/// The connections the window lists, and the words on its socket.
pub mod connections {
    pub use rootgate_bridge::connections::{
        AskAnswer, ConnectionView, ImportAnswer, ImportRequest, Report, socket_path,
    };
}
/// The one window per user: claiming it, and handing a second start to it.
pub mod instance {
    pub use rootgate_bridge::instance::{
        Owner, PATIENCE, Start, claim, hand_over_if_running, is_bundle, request_for, start, tell,
    };
}
/// How strongly this machine can hold a server to its folders.
pub mod enforcement {
    pub use rootgate_launcher::enforcement::{Support, support};
}
/// The launcher a held server runs under, entered from `main`.
pub mod launcher {
    pub use rootgate_launcher::launcher::{run_if_requested, use_program_if_none_beside};
}
/// Starting Rootgate at login.
pub mod autostart {
    pub use rootgate_model::autostart::{HIDDEN_FLAG, LoginStart};
}
/// The record of calls, searched and exported.
pub mod calls {
    pub use rootgate_model::calls::{CallQuery, CallsFound, ExportFormat, day};
}
/// A folder's consent.
pub mod consent {
    pub use rootgate_model::consent::Grant;
}
/// A folder, checked before it is shared.
pub mod folders {
    pub use rootgate_model::folders::{CheckedFolder, FolderError, check};
}
/// The identifiers and the clock every layer shares.
pub mod ids {
    pub use rootgate_model::ids::{ConnectionId, RootId, ServerId, now_ms};
}
/// A list of names, written out in words.
pub mod names {
    pub use rootgate_model::names::written_out;
}
/// Which desktop notifications the person wants.
pub mod preferences {
    pub use rootgate_model::preferences::NotifyChoices;
}
/// A person's answer to a question.
pub mod questions {
    pub use rootgate_model::questions::Answer;
}
/// A shared folder as a server is told it.
pub mod roots {
    pub use rootgate_model::roots::Root;
}
/// Why a secret could not be kept.
pub mod secrets {
    pub use rootgate_model::secrets::SecretError;
}
/// A server's approved launch, and a draft of one.
pub mod servers {
    pub use rootgate_model::servers::{
        EraChoice, SecretPlace, ServerDraft, ServerSpec, shell_quote,
    };
}
/// The settings file.
pub mod settings {
    pub use rootgate_model::settings::{Settings, SettingsFile};
}
/// The settings' one writer.
pub mod store {
    pub use rootgate_model::store::{Store, StoreError};
}
/// The starting points for adding a server by hand.
pub mod templates {
    pub use rootgate_model::templates::{ServerTemplate, templates};
}
/// What every server asked and was told.
pub mod timeline {
    pub use rootgate_model::timeline::{Entry, Event, Page, Timeline};
}
/// A server's tool rules.
pub mod tools {
    pub use rootgate_model::tools::{ToolDefault, ToolSetting};
}
/// A folder's `file://` address.
pub mod uri {
    pub use rootgate_model::uri::path_to_uri;
}
/// The desktop's notifications and tray.
pub mod desktop {
    pub use rootgate_notify::Desktop;
    /// The tray's host on the session bus.
    pub mod tray_host {
        pub use rootgate_notify::tray_host::watch_session;
    }
}
/// One MCP session per server, as the window sees it.
pub mod session {
    pub use rootgate_session::{
        LogLine, ServerMessage, Session, SessionConfig, SessionError, Status,
    };
    /// How a server is told its folders.
    pub mod delivery {
        pub use rootgate_session::delivery::FolderDelivery;
    }
    /// A server's tools, resources and prompts, and trying them.
    pub mod offers {
        pub use rootgate_session::offers::{Offers, TryOutcome, Watch};
    }
}
/// Where servers come from: bundles, the MCP Registry, and installs.
pub mod sources {
    /// MCP bundles (`.mcpb`).
    pub mod bundle {
        pub use rootgate_sources::bundle::{BundleError, Bundles, Opened};
    }
    /// A server that can be installed.
    pub mod installable {
        pub use rootgate_sources::installable::Installable;
    }
    /// Why an install failed.
    pub mod installed {
        pub use rootgate_sources::installed::InstallError;
    }
    /// What a source offers to install, and the settings it asks for.
    pub mod offer {
        pub use rootgate_sources::offer::{Offer, OfferError, Setting, SettingKind, Signature};
    }
    /// The MCP Registry.
    pub mod registry {
        pub use rootgate_sources::registry::{
            Client, Fetched, RegistryError, address, bundle_offer,
        };
        /// The registry's cache on disk.
        pub mod cache {
            pub use rootgate_sources::registry::cache::{rootgate_cache_dir, utc};
        }
        /// A registry search's results.
        pub mod listing {
            pub use rootgate_sources::registry::listing::Found;
        }
        /// Choosing which of an entry's packages to run.
        pub mod mapping {
            pub use rootgate_sources::registry::mapping::{
                Chosen, choose, chosen, packages_in_words,
            };
        }
        /// The registry's `server.json` list.
        pub mod server_json {
            pub use rootgate_sources::registry::server_json::ServerList;
        }
    }
}

pub mod connecting;
pub mod headless;
pub mod supervisor;
