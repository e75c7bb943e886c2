//! Which AI app: the sixteen apps Rootgate knows ([`AppKind`]), their
//! names (as people know them, on the command line, and as each introduces
//! itself in MCP's `initialize`, see `client_names`) and the syntax of
//! each one's main file ([`Format`]).
//!
//! These are words, not file handling: both `rootgate-apps` (which reads and
//! rewrites the apps' files) and `rootgate-bridge` (which names the app a
//! connection is) speak of them, and the bridge does not name the apps'
//! crate, so they live here. Finding, reading and editing the files is
//! `rootgate-apps`'.

mod client_names;

use serde::{Deserialize, Serialize};

/// An AI app whose MCP configuration Rootgate can read and route.
#[derive(
    ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum AppKind {
    ClaudeDesktop,
    ClaudeCode,
    Cursor,
    /// `vscode`, as the command line and the window name it.
    #[serde(rename = "vscode")]
    VsCode,
    Zed,
    Goose,
    Windsurf,
    LmStudio,
    Kiro,
    AmazonQ,
    CopilotCli,
    GeminiCli,
    Cline,
    Codex,
    Continue,
    Opencode,
}

impl AppKind {
    /// Every known app, in the order they are listed.
    pub const ALL: [AppKind; 16] = [
        AppKind::ClaudeDesktop,
        AppKind::ClaudeCode,
        AppKind::Cursor,
        AppKind::VsCode,
        AppKind::Zed,
        AppKind::Goose,
        AppKind::Windsurf,
        AppKind::LmStudio,
        AppKind::Kiro,
        AppKind::AmazonQ,
        AppKind::CopilotCli,
        AppKind::GeminiCli,
        AppKind::Cline,
        AppKind::Codex,
        AppKind::Continue,
        AppKind::Opencode,
    ];

    /// The app's name as people know it.
    pub fn title(self) -> &'static str {
        match self {
            AppKind::ClaudeDesktop => "Claude Desktop",
            AppKind::ClaudeCode => "Claude Code",
            AppKind::Cursor => "Cursor",
            AppKind::VsCode => "VS Code",
            AppKind::Zed => "Zed",
            AppKind::Goose => "Goose",
            AppKind::Windsurf => "Windsurf",
            AppKind::LmStudio => "LM Studio",
            AppKind::Kiro => "Kiro",
            AppKind::AmazonQ => "Amazon Q Developer",
            AppKind::CopilotCli => "GitHub Copilot CLI",
            AppKind::GeminiCli => "Gemini CLI",
            AppKind::Cline => "Cline",
            AppKind::Codex => "Codex CLI",
            AppKind::Continue => "Continue",
            AppKind::Opencode => "opencode",
        }
    }

    /// The app's name on the command line (`rootgate import claude-desktop`).
    pub fn id(self) -> &'static str {
        match self {
            AppKind::ClaudeDesktop => "claude-desktop",
            AppKind::ClaudeCode => "claude-code",
            AppKind::Cursor => "cursor",
            AppKind::VsCode => "vscode",
            AppKind::Zed => "zed",
            AppKind::Goose => "goose",
            AppKind::Windsurf => "windsurf",
            AppKind::LmStudio => "lm-studio",
            AppKind::Kiro => "kiro",
            AppKind::AmazonQ => "amazon-q",
            AppKind::CopilotCli => "copilot-cli",
            AppKind::GeminiCli => "gemini-cli",
            AppKind::Cline => "cline",
            AppKind::Codex => "codex",
            AppKind::Continue => "continue",
            AppKind::Opencode => "opencode",
        }
    }

    /// The app named `id` (as [`AppKind::id`] writes it; a few common
    /// spellings are accepted too).
    pub fn from_id(id: &str) -> Option<AppKind> {
        let id = id.to_ascii_lowercase().replace(['_', ' '], "-");
        Some(match id.as_str() {
            "claude-desktop" | "claude" => AppKind::ClaudeDesktop,
            "claude-code" => AppKind::ClaudeCode,
            "cursor" => AppKind::Cursor,
            "vscode" | "vs-code" | "code" => AppKind::VsCode,
            "zed" => AppKind::Zed,
            "goose" => AppKind::Goose,
            "windsurf" => AppKind::Windsurf,
            "lm-studio" | "lmstudio" => AppKind::LmStudio,
            "kiro" => AppKind::Kiro,
            "amazon-q" | "amazonq" | "amazon-q-developer" => AppKind::AmazonQ,
            "copilot-cli" | "copilot" => AppKind::CopilotCli,
            "gemini-cli" | "gemini" => AppKind::GeminiCli,
            "cline" => AppKind::Cline,
            "codex" | "codex-cli" => AppKind::Codex,
            "continue" => AppKind::Continue,
            "opencode" => AppKind::Opencode,
            _ => return None,
        })
    }

    /// The app whose MCP client introduces itself as `client_name` in its
    /// `initialize` (`clientInfo.name`), when it is one Rootgate knows: for
    /// example Claude Desktop `claude-ai`, Codex CLI `codex-mcp-client`,
    /// Gemini CLI `gemini-cli-mcp-client`. `client_names` holds every name,
    /// each with where it was read, and says which apps have none (LM
    /// Studio, the Kiro IDE); case is not minded, as the apps have changed
    /// it between versions.
    pub fn from_client_name(client_name: &str) -> Option<AppKind> {
        client_names::app_for(&client_name.trim().to_ascii_lowercase())
    }

    /// How the app's main file is written. Gemini CLI strips comments
    /// from its `settings.json` and opencode reads `opencode.json` with a
    /// JSONC parser, so both take comments like VS Code and Zed. Continue's
    /// `mcpServers` folder may also hold JSON files (see `continue_dev`).
    pub fn format(self) -> Format {
        match self {
            AppKind::Zed | AppKind::VsCode | AppKind::GeminiCli | AppKind::Opencode => {
                Format::Jsonc
            }
            AppKind::Goose | AppKind::Continue => Format::Yaml,
            AppKind::Codex => Format::Toml,
            _ => Format::Json,
        }
    }
}

/// The syntax of a config file.
#[derive(ts_rs::TS, Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Format {
    Json,
    /// JSON with comments and trailing commas (Zed, VS Code).
    Jsonc,
    Yaml,
    /// Codex CLI's `config.toml`.
    Toml,
}
