//! The MCP Registry's answers as they come over the wire: a page of the
//! servers list ([`ServerList`]), one server version ([`ServerResponse`]),
//! and the `server.json` inside each ([`ServerDetail`]: its packages,
//! their arguments and environment variables, and its remotes).
//!
//! The types follow the registry's OpenAPI description (`/v0`, schema
//! 2025-12-11) field by field, with camelCase names. Every field the
//! mapping does not need is left out, and every field it reads but a
//! publisher may omit has a default, so an entry with extra or missing
//! optional fields still reads. What this module does not do: decide what
//! runs (see `mapping`) or fetch anything (see `client`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One page of `GET /v0/servers`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ServerList {
    #[serde(default)]
    pub servers: Vec<ServerResponse>,
    #[serde(default)]
    pub metadata: ListMetadata,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListMetadata {
    /// The cursor of the next page; none (or empty) on the last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

impl ListMetadata {
    /// The next page's cursor, when there is a next page.
    pub fn next(&self) -> Option<&str> {
        self.next_cursor.as_deref().filter(|c| !c.is_empty())
    }
}

/// One server version, with what the registry says about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerResponse {
    pub server: ServerDetail,
    #[serde(rename = "_meta", default)]
    pub meta: ResponseMeta,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ResponseMeta {
    #[serde(
        rename = "io.modelcontextprotocol.registry/official",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub official: Option<Official>,
}

/// The official registry's own metadata of a version.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Official {
    /// `active`, `deprecated` or `deleted`.
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub published_at: Option<String>,
    #[serde(default)]
    pub is_latest: Option<bool>,
}

/// A `server.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerDetail {
    /// Reverse-DNS, with one `/` (`io.github.owner/name`).
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub title: Option<String>,
    pub version: String,
    #[serde(default)]
    pub repository: Option<Repository>,
    #[serde(default)]
    pub website_url: Option<String>,
    #[serde(default)]
    pub packages: Vec<Package>,
    #[serde(default)]
    pub remotes: Vec<Remote>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repository {
    #[serde(default)]
    pub url: String,
}

/// One way to run the server on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    /// `npm`, `pypi`, `oci`, `nuget`, `mcpb`, or another.
    pub registry_type: String,
    /// A package name, an image reference, or (for `mcpb`) a URL.
    pub identifier: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub file_sha256: Option<String>,
    /// The program to run it with (`npx`, `uvx`, `docker`, `dnx`).
    #[serde(default)]
    pub runtime_hint: Option<String>,
    #[serde(default)]
    pub transport: Option<Transport>,
    #[serde(default)]
    pub runtime_arguments: Vec<Argument>,
    #[serde(default)]
    pub package_arguments: Vec<Argument>,
    #[serde(default)]
    pub environment_variables: Vec<KeyValue>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transport {
    /// `stdio`, `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub url: Option<String>,
}

/// A server reached over the network, not run here.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Remote {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub url: String,
}

/// What a publisher says about one value the person may give: the fields
/// an argument, a variable and an environment variable share.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub is_required: bool,
    /// `string`, `number`, `boolean` or `filepath`.
    #[serde(default)]
    pub format: Option<String>,
    /// A fixed value, which may name `{variables}`.
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub is_secret: bool,
    #[serde(default)]
    pub default: Option<String>,
    #[serde(default)]
    pub choices: Vec<String>,
    #[serde(default)]
    pub variables: BTreeMap<String, Input>,
}

/// A command-line argument: `positional` or `named` (`--flag value`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Argument {
    #[serde(rename = "type")]
    pub kind: String,
    /// The flag, for a named argument (`--port`).
    #[serde(default)]
    pub name: Option<String>,
    /// A label for a positional argument (`target_dir`).
    #[serde(default)]
    pub value_hint: Option<String>,
    #[serde(default)]
    pub is_repeated: bool,
    #[serde(flatten)]
    pub input: Input,
}

/// An environment variable (or a remote's header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeyValue {
    pub name: String,
    #[serde(flatten)]
    pub input: Input,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_list_page_reads_with_its_cursor() {
        let page: ServerList = serde_json::from_str(include_str!(
            "../../tests/fixtures/registry/list/first.json"
        ))
        .unwrap();
        assert_eq!(page.servers.len(), 10);
        assert_eq!(
            page.metadata.next(),
            Some("io.github.azure/azure-mcp:0.0.1-seed")
        );
        let official = page.servers[0].meta.official.as_ref().unwrap();
        assert_eq!(official.is_latest, Some(true));
    }
}
