//! The help text of every command, written to be read in a terminal the
//! way a man page is: what it does, its options, what it prints, and its
//! exit status. Nothing else lives here.

pub const MAIN: &str = "\
rootgate - decide which folders local MCP servers may see

Usage:
  rootgate [FOLDER...]        Open the Rootgate window; each FOLDER is offered
                              for sharing with a consent prompt. With the
                              window open already, it asks there and this
                              command returns.
  rootgate connect NAME       Run the server NAME for the AI app that started
                              this command (what an app's config runs).
  rootgate apps               The AI apps found here and their servers.
  rootgate import APP [SERVER...]
                              Bring an app's servers into Rootgate.
  rootgate route APP [SERVER...]
                              Make an app reach its servers through Rootgate.
  rootgate unroute APP        Undo that, restoring the app's file.
  rootgate search WORDS...    Find servers in the MCP Registry.
  rootgate add NAME[@VERSION] Add a server from the MCP Registry.
  rootgate install FILE.mcpb  Show an MCP bundle and install it as a server.
  rootgate servers            The servers configured in Rootgate.
  rootgate folders            The folders kept, and who may see each.
  rootgate help COMMAND       Help on one command.
  rootgate --version          Print the version.

APP is one of: claude-desktop, claude-code, cursor, vscode, zed, goose,
windsurf, lm-studio, kiro, amazon-q, copilot-cli, gemini-cli, cline, codex,
continue, opencode.

Rootgate never approves a command or shares a folder on its own: a command
that needs your decision says so and points at the window. Add --json to
apps, servers, folders and search for output meant for scripts.

Exit status:
  0  done
  1  it could not be done (the reason is on standard error)
  2  a wrong command line
  3  it needs a value only you can give (see `rootgate help import`
     and `rootgate help add`)";

pub const INSTALL: &str = "\
rootgate install FILE.mcpb [--set KEY=VALUE...] [--dry-run]

Shows an MCP bundle (the .mcpb files Claude Desktop installs with one
click): its name, author and version, what it runs, the tools and prompts
it declares, what it needs (platforms, Node.js or Python), whether it is
signed (Rootgate reads who signed it but does not verify signatures), and
its settings. Then it unpacks the bundle into
$XDG_DATA_HOME/rootgate/bundles/NAME/VERSION and adds it as a server.

Before anything is unpacked, the bundle is checked: a manifest.json that
does not follow the MCPB format of its version (0.1 to 0.4, or an older
dxt_version), entries that would land outside the bundle's folder,
symbolic links, and more than 100,000 entries or 1 GiB unpacked are
refused, and nothing is left behind. A bundle made for macOS or Windows
only is shown and not installed.

Its settings become Rootgate's: a folder setting takes the folders you
share with the server in the window, never a typed path; the folders its
defaults name are offered for sharing. Give the others with --set, e.g.
--set api_key=- to type a secret (one line of standard input per such
value); a secret is kept in the keyring. A needed value that is missing
is asked for, nothing is installed, and the exit status is 3.

Installing the same bundle again (another version, say) updates the
server it made: your earlier answers are kept unless given anew, and the
old version's files are removed. The server is not approved and does not
run until you approve its command in the Rootgate window.

--dry-run shows the bundle and unpacks nothing.

When the Rootgate window is open, it holds the settings: the bundle is
handed to it, and the window shows it and asks you there.";

pub const CONNECT: &str = "\
rootgate connect NAME

Runs the server NAME, configured and approved in Rootgate, for the AI app
that started this command: MCP on standard input and output, the server
told exactly the folders shared with it. Put it in an AI app's MCP settings
where the server's own command was (`rootgate route` does that for you).

This command is a door: it hands the app's standard input, output and error
to Rootgate's resident gate (one process for every app session, started by
the first connection that finds none, or by systemd's rootgate-gate.socket)
and waits. With --alone it runs the connection in this process instead.

Errors are written to standard error, which AI apps show in their logs.
A server named --help or -h is named after --: rootgate connect -- -h

Exit status: 0 when the AI app closed the connection, 1 when the server
could not be reached or stopped (or no gate could be reached or started),
2 for a wrong command line.";

pub const GATE: &str = "\
rootgate gate [--settings FILE] [--idle SECONDS]

The resident gate: serves every `rootgate connect` of this user's session
for the settings FILE (the default one when not given), and ends after it
has had no connection for SECONDS (120 by default). `rootgate connect`
starts it when none is running; systemd starts it through
rootgate-gate.socket where it runs the session. Its messages are written to
standard error (a door that starts it puts them in gate.log beside its
socket).";

pub const APPS: &str = "\
rootgate apps [--json]

Lists the AI apps found on this machine (16 are known: Claude Desktop,
Claude Code, Cursor, VS Code, Zed, Goose, Windsurf, LM Studio, Kiro, Amazon
Q Developer, GitHub Copilot CLI, Gemini CLI, Cline, Codex CLI, Continue,
opencode), each config file Rootgate reads for it, and
every server in it: its command (environment values hidden), whether it is
imported into Rootgate and as what, whether it already runs through
Rootgate, and what importing it would offer. An app that is not installed
is not listed.

Files read (on Linux; XDG_CONFIG_HOME is honoured where the app does):
  Claude Desktop  $XDG_CONFIG_HOME/Claude/claude_desktop_config.json
  Claude Code     ~/.claude.json (or $CLAUDE_CONFIG_DIR/.claude.json), and
                  the .mcp.json of each project it names
  Cursor          ~/.cursor/mcp.json
  VS Code         $XDG_CONFIG_HOME/Code/User/mcp.json
  Zed             $XDG_CONFIG_HOME/zed/settings.json
  Goose           $XDG_CONFIG_HOME/goose/config.yaml
  Windsurf        ~/.codeium/windsurf/mcp_config.json (or ~/.codeium/mcp_config.json)
  LM Studio       ~/.lmstudio/mcp.json (or ~/.cache/lm-studio/mcp.json)
  Kiro            ~/.kiro/settings/mcp.json
  Amazon Q        ~/.aws/amazonq/mcp.json, and ~/.aws/amazonq/agents/default.json
  Copilot CLI     ~/.copilot/mcp-config.json (or $COPILOT_HOME/mcp-config.json)
  Gemini CLI      ~/.gemini/settings.json
  Cline           $XDG_CONFIG_HOME/Code/User/globalStorage/saoudrizwan.claude-dev/
                  settings/cline_mcp_settings.json (and under VS Code's forks),
                  ~/.cline/data/settings/cline_mcp_settings.json
  Codex CLI       ~/.codex/config.toml (or $CODEX_HOME/config.toml)
  Continue        ~/.continue/config.yaml and ~/.continue/mcpServers/*.yaml|json
                  (or under $CONTINUE_GLOBAL_DIR)
  opencode        $XDG_CONFIG_HOME/opencode/opencode.json (and opencode.jsonc,
                  config.json)

--json prints the same as one JSON array.";

pub const IMPORT: &str = "\
rootgate import APP [SERVER...] [--config FILE] [--set TOKEN=VALUE...]
rootgate import APP SERVER --into NAME

Adds the app's servers (every stdio server, or only those named) to
Rootgate: command, arguments, environment and working folder. Folders in
the arguments become folder placeholders (${folders}, ${folder}), and are
offered for sharing; a server imported twice is not added twice.

An entry becomes a server of its own unless it runs exactly what a server
already in Rootgate runs: the same command, arguments, folders,
environment and working folder, once the app's values are filled. Two
entries that differ in any of these (another folder, another token) are
two servers, so no app is given another's folders. `rootgate apps` shows,
for each entry, the servers it could use instead and how they differ;
--into NAME imports the one entry named into the server NAME anyway, and
offers that server the entry's folders. Every app routed to a server sees
every folder it shares.

An imported server is not approved and does not run until you approve its
command in the Rootgate window, and its folders are shared only when you
say so there: this command prints what is waiting for you.

Values the app fills in itself (VS Code's ${input:ID}, ${workspaceFolder},
${env:NAME}, Goose's keyring keys) are asked for, never guessed: give each
with --set, e.g. --set '${input:token}=ghp_...' or --set GITHUB_TOKEN=...
To keep a secret off the command line, write --set TOKEN=- and type it (or
pipe it in): one line of standard input per such value, in order.
A server missing one is not imported, and the exit status is 3.

--config FILE reads FILE instead of the app's usual file.

When the Rootgate window is open, it holds the settings: the import is
handed to it, and it asks you right away about approval and folders.";

pub const ROUTE: &str = "\
rootgate route APP [SERVER...] [--config FILE] [--dry-run]

Rewrites the app's config so that each server imported into Rootgate (or
only those named) runs `rootgate connect NAME`, by the absolute path of
this program (it warns when that is a build folder, which a rebuild or a
clean empties: run the installed /usr/bin/rootgate instead). An entry whose link to its server
Rootgate does not trust (it changed since it was imported, or an earlier
Rootgate linked it without comparing) is left as it is, with the reason;
import it again first. Everything else in the file is kept: other keys, other
servers, comments and formatting. The diff is printed first (environment
values masked); the original is saved beside the file
(FILE.before-rootgate-TIME), and the file is written atomically. A file
that is corrupt, or that changes while Rootgate writes, is not touched.

Restart the app afterwards so it reads the new file.

--dry-run prints the diff and writes nothing.
--config FILE routes FILE instead of the app's usual file.";

pub const UNROUTE: &str = "\
rootgate unroute APP [--config FILE] [--dry-run]

Undoes `rootgate route`: when the file is still as Rootgate wrote it, the
backup is put back byte for byte and removed. When the app changed the file
since, only the entries Rootgate rewrote are put back as they were, and
the app's other changes stay; the backup is kept. The diff is printed
first; --dry-run writes nothing.";

pub const SERVERS: &str = "\
rootgate servers [--json]

Lists the servers configured in Rootgate: name, command line (environment
values hidden), whether it is approved and enabled, and the folders shared
with it. Read only; the window is where they are changed.";

pub const FOLDERS: &str = "\
rootgate folders [--json]

Lists the folders kept in Rootgate: name, real path, whether it is there
now, and the servers that may see it. Read only.";

pub const SEARCH: &str = "\
rootgate search WORDS... [--registry URL] [--limit N] [--cursor CURSOR] [--json]

Lists the servers of the MCP Registry whose names hold the first word (the
registry searches names) and whose name, title or description hold every
other word; latest versions only. Each is shown with its packages (npm,
PyPI, an MCP bundle, a container image or a remote server: the last two are
shown and never run here) and the `rootgate add` line that adds it.

--limit N asks for N servers (1 to 100; 30 unless given). When there are
more, the last line is the command for the next page (--cursor CURSOR).

The registry is the one --registry URL names, else the one chosen in the
window's Settings, else $ROOTGATE_REGISTRY's, else
https://registry.modelcontextprotocol.io (HTTPS; plain HTTP only to this
machine). Its answers are kept in $XDG_CACHE_HOME/rootgate/registry/: with
no network, a search answers from there and says from when; with no
network and nothing kept, it says so and exits with 1.

--json prints one JSON object: registry, fromCache (the cache's date, or
null), servers, nextCursor.";

pub const ADD: &str = "\
rootgate add NAME[@VERSION] [--package npm|pypi|mcpb] [--set KEY=VALUE...]
             [--registry URL]

Adds version VERSION (the latest unless given) of the registry's server
NAME to Rootgate, pinned to that version: an npm package runs as
`npx -y PACKAGE@VERSION`, a PyPI package as `uvx PACKAGE==VERSION`, never a
floating latest. With several packages, npm is preferred, then PyPI, then
an MCP bundle; --package chooses. A container image, a remote server and
other package kinds are shown with the reason they cannot be added.

Its folders become folder placeholders (${folders}, ${folder}): it sees the
folders you share with it in the window, and never a typed one. Its other
settings (environment variables, arguments) take the publisher's defaults,
or --set KEY=VALUE (KEY as the publisher names it, e.g. --set
AIRTABLE_API_KEY=-, which reads the value from standard input). A secret
goes to the keyring. A required value not given is not guessed: the server
is not added, and the exit status is 3.

The server is added not approved: it does not run until you approve its
command in the Rootgate window. Adding the same server again updates the
one added before (a new version, new answers), keeping its folders.

With no network, the version kept in the cache (see `rootgate help
search`) is used, and said. While the Rootgate window is open it holds
the settings: add the server from its Servers view instead.";

/// The help of `command`, if there is such a command.
pub fn of(command: &str) -> Option<&'static str> {
    Some(match command {
        "connect" => CONNECT,
        "apps" => APPS,
        "import" => IMPORT,
        "route" => ROUTE,
        "unroute" => UNROUTE,
        "servers" => SERVERS,
        "folders" => FOLDERS,
        "search" => SEARCH,
        "add" => ADD,
        "install" => INSTALL,
        _ => return None,
    })
}
