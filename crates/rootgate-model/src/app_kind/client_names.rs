//! The names AI apps give themselves in MCP: the `clientInfo.name` each
//! known app sends in its `initialize` request when it starts a stdio
//! server (so when it runs `rootgate connect NAME`), and which app each
//! name is. Every name added here carries, beside it, where it was read:
//! the app's own source where it is open, else the best public record of
//! what a server received. This holds no guesses: an app for which no such
//! record was found has no name here and is shown by the name it sends
//! (LM Studio and the Kiro IDE, see [`app_for`]). It does not hold names
//! an app builds from the person's own settings (early opencode sent the
//! server's key from `opencode.json`), and it reads no files and speaks no
//! MCP; only [`super::AppKind::from_client_name`] uses it.

use super::AppKind;

/// The app that introduces itself as `name`, which must already be trimmed
/// and in lower case (as `AppKind::from_client_name` gives it).
///
/// Left out for want of evidence: LM Studio (closed source; neither its
/// documentation nor any public issue or log found quotes the name it
/// sends) and the Kiro IDE (closed source; likewise). Kiro's command line
/// is the Amazon Q Developer CLI renamed and still sends `Q DEV CLI`, so
/// it is shown as Amazon Q Developer.
pub(crate) fn app_for(name: &str) -> Option<AppKind> {
    // Gemini CLI v0.2.0 up to v0.8.x named each server's client after the
    // server (`gemini-cli-mcp-client-<server>`): the `McpClient` constructor
    // in packages/core/src/tools/mcp-client.ts of google-gemini/gemini-cli
    // built that name from commit b24c5887c4 (August 2025) until commit
    // 3f79d7e5bb (v0.9.0, October 2025) went back to the plain name.
    if name
        .strip_prefix("gemini-cli-mcp-client-")
        .is_some_and(|server| !server.is_empty())
    {
        return Some(AppKind::GeminiCli);
    }
    Some(match name {
        // The first six apps' names, as Rootgate has long matched them.
        "claude-ai" => AppKind::ClaudeDesktop,
        "claude-code" => AppKind::ClaudeCode,
        "cursor-vscode" => AppKind::Cursor,
        "visual studio code" | "visual studio code - insiders" => AppKind::VsCode,
        "zed" => AppKind::Zed,
        "goose" => AppKind::Goose,

        // Windsurf is closed source; the registry of observed client names
        // in apify/mcp-client-capabilities
        // (src/mcp_client_capabilities/mcp-clients.json) lists both
        // `windsurf-client` and `Windsurf` as the Windsurf Editor.
        "windsurf-client" | "windsurf" => AppKind::Windsurf,

        // Amazon Q Developer CLI sent `Q CLI Chat` from its first MCP
        // support (crates/chat-cli/src/cli/chat/tools/custom_tool.rs in
        // aws/amazon-q-developer-cli, earlier crates/q_chat) until it moved
        // to rmcp in commit 1813bb775 (September 2025), and has sent
        // `Q DEV CLI` since (crates/chat-cli/src/mcp_client/client.rs and
        // crates/agent/src/agent/mcp/service.rs). Kiro CLI sends `Q DEV CLI`
        // too, as kirodotdev/Kiro issue #6935 reports.
        "q cli chat" | "q dev cli" => AppKind::AmazonQ,

        // GitHub Copilot CLI is closed source; the `initialize` requests
        // quoted in github/copilot-cli issue #1268 (versions 0.0.401 and
        // 1.0.25) and named in issue #432 carry
        // `github-copilot-developer`.
        "github-copilot-developer" => AppKind::CopilotCli,

        // Gemini CLI's `connectToMcpServer` in
        // packages/core/src/tools/mcp-client.ts of google-gemini/gemini-cli
        // creates its client as `gemini-cli-mcp-client` (and the per-server
        // form above in v0.2.0 to v0.8.x).
        "gemini-cli-mcp-client" => AppKind::GeminiCli,

        // Cline's VS Code extension names its client `Cline` in `McpHub`
        // (apps/vscode/src/services/mcp/McpHub.ts in cline/cline, formerly
        // src/services/mcp/McpHub.ts), and the stdio client of Cline's SDK,
        // which Cline's command line runs on, sends `@cline/core`
        // (sdk/packages/core/src/extensions/mcp/client.ts).
        "cline" | "@cline/core" => AppKind::Cline,

        // Codex CLI's MCP client sends `codex-mcp-client` in every version
        // read: `start_server_task` in
        // codex-rs/core/src/mcp_connection_manager.rs of openai/codex, and
        // before it the codex-rs/mcp-client crate.
        "codex-mcp-client" => AppKind::Codex,

        // Continue's IDE extensions name their client `continue-client`
        // (core/context/mcp/MCPConnection.ts in continuedev/continue) and its
        // command line `cn` names its `continue-cli-client`
        // (extensions/cli/src/services/MCPService.ts).
        "continue-client" | "continue-cli-client" => AppKind::Continue,

        // opencode has sent `opencode` since pull request #2289 of
        // anomalyco/opencode (formerly sst/opencode, August 2025), in
        // packages/opencode/src/mcp/index.ts and now mcp.ts; before it sent
        // the server's key from `opencode.json`, which names no app.
        "opencode" => AppKind::Opencode,

        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use crate::app_kind::AppKind;

    /// Every name the table holds, as the app sends it.
    const SENT: [(&str, AppKind); 21] = [
        ("claude-ai", AppKind::ClaudeDesktop),
        ("claude-code", AppKind::ClaudeCode),
        ("cursor-vscode", AppKind::Cursor),
        ("Visual Studio Code", AppKind::VsCode),
        ("Visual Studio Code - Insiders", AppKind::VsCode),
        ("Zed", AppKind::Zed),
        ("goose", AppKind::Goose),
        ("windsurf-client", AppKind::Windsurf),
        ("Windsurf", AppKind::Windsurf),
        ("Q CLI Chat", AppKind::AmazonQ),
        ("Q DEV CLI", AppKind::AmazonQ),
        ("github-copilot-developer", AppKind::CopilotCli),
        ("gemini-cli-mcp-client", AppKind::GeminiCli),
        ("gemini-cli-mcp-client-filesystem", AppKind::GeminiCli),
        ("Cline", AppKind::Cline),
        ("@cline/core", AppKind::Cline),
        ("codex-mcp-client", AppKind::Codex),
        ("continue-client", AppKind::Continue),
        ("continue-cli-client", AppKind::Continue),
        ("opencode", AppKind::Opencode),
        ("  opencode\n", AppKind::Opencode),
    ];

    #[test]
    fn each_name_is_its_app() {
        for (name, app) in SENT {
            assert_eq!(AppKind::from_client_name(name), Some(app), "{name:?}");
            let shouted = name.to_ascii_uppercase();
            assert_eq!(
                AppKind::from_client_name(&shouted),
                Some(app),
                "{shouted:?}"
            );
        }
    }

    #[test]
    fn unknown_names_are_no_app() {
        for name in [
            "",
            "   ",
            "mcp",
            "rmcp",
            "ai-sdk-mcp-client",
            "my-server",
            "LM Studio",
            "Kiro",
            "gemini-cli-mcp-client-",
            "gemini-cli",
            "cline-cli",
            "codex-mcp-client-x",
            "windsurf-client (via mcp-remote 0.1.18)",
        ] {
            assert_eq!(AppKind::from_client_name(name), None, "{name:?}");
        }
    }

    /// The strings exactly as the open source apps write them.
    #[test]
    fn names_as_written_in_the_apps_sources() {
        // openai/codex, codex-rs/core/src/mcp_connection_manager.rs
        assert_eq!(
            AppKind::from_client_name("codex-mcp-client"),
            Some(AppKind::Codex)
        );
        // google-gemini/gemini-cli, packages/core/src/tools/mcp-client.ts
        assert_eq!(
            AppKind::from_client_name("gemini-cli-mcp-client"),
            Some(AppKind::GeminiCli)
        );
        // The same file in v0.2.0 to v0.8.x, for a server named `github`.
        let server_name = "github";
        assert_eq!(
            AppKind::from_client_name(&format!("gemini-cli-mcp-client-{server_name}")),
            Some(AppKind::GeminiCli)
        );
        // anomalyco/opencode, packages/opencode/src/mcp/index.ts
        assert_eq!(
            AppKind::from_client_name("opencode"),
            Some(AppKind::Opencode)
        );
        // continuedev/continue, core/context/mcp/MCPConnection.ts
        assert_eq!(
            AppKind::from_client_name("continue-client"),
            Some(AppKind::Continue)
        );
        // continuedev/continue, extensions/cli/src/services/MCPService.ts
        assert_eq!(
            AppKind::from_client_name("continue-cli-client"),
            Some(AppKind::Continue)
        );
        // cline/cline, apps/vscode/src/services/mcp/McpHub.ts
        assert_eq!(AppKind::from_client_name("Cline"), Some(AppKind::Cline));
        // cline/cline, sdk/packages/core/src/extensions/mcp/client.ts
        assert_eq!(
            AppKind::from_client_name("@cline/core"),
            Some(AppKind::Cline)
        );
        // aws/amazon-q-developer-cli, crates/chat-cli/src/mcp_client/client.rs
        assert_eq!(
            AppKind::from_client_name("Q DEV CLI"),
            Some(AppKind::AmazonQ)
        );
        // aws/amazon-q-developer-cli before commit 1813bb775,
        // crates/chat-cli/src/cli/chat/tools/custom_tool.rs
        assert_eq!(
            AppKind::from_client_name("Q CLI Chat"),
            Some(AppKind::AmazonQ)
        );
    }
}
