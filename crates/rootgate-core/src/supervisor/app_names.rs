//! The names AI apps are shown by: their product's name for the apps
//! Rootgate knows ([`app_title`]), and the apps connected to a server now,
//! each named once. Used wherever an app is named to the person (prompts,
//! questions, tool questions, notifications).
//!
//! Not here: which apps Rootgate knows (`rootgate_apps::AppKind`), and the
//! connections themselves (`rootgate-bridge`).

use rootgate_bridge::connections::ConnectionView;
use rootgate_model::ids::ServerId;

/// What the person is shown as an AI app's name: the product's name for
/// the apps Rootgate knows (`claude-code` is Claude Code), else the name
/// as the app gave it, or "An AI app" when it gave none.
pub fn app_title(client_name: &str) -> String {
    if let Some(kind) = rootgate_apps::AppKind::from_client_name(client_name) {
        return kind.title().to_owned();
    }
    let name = client_name.trim();
    if name.is_empty() {
        "An AI app".into()
    } else {
        name.to_owned()
    }
}

/// The apps connected live to `server`, each named once, in the order
/// listed (newest first).
pub(super) fn connected_apps(live: &[ConnectionView], server: &ServerId) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for connection in live.iter().filter(|c| &c.server == server) {
        let name = app_title(connection.app.as_ref().map_or("", |a| a.name.as_str()));
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::app_title;

    #[test]
    fn apps_are_named_by_their_product_and_unknown_ones_as_they_said() {
        for (client, shown) in [
            ("claude-ai", "Claude Desktop"),
            ("claude-code", "Claude Code"),
            ("cursor-vscode", "Cursor"),
            ("Visual Studio Code", "VS Code"),
            ("Visual Studio Code - Insiders", "VS Code"),
            ("Zed", "Zed"),
            ("zed", "Zed"),
            ("goose", "Goose"),
            ("my-own-agent", "my-own-agent"),
            ("  ", "An AI app"),
        ] {
            assert_eq!(app_title(client), shown, "{client}");
        }
    }
}
