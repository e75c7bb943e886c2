//! A bundle's `manifest.json`: checked against the official MCPB JSON
//! Schema of the version it names, then read into typed fields.
//!
//! The schemas (0.1 to 0.4) are the `@anthropic-ai/mcpb` package's own,
//! vendored unchanged in `schemas/` with their license. A manifest names
//! its version in `manifest_version`, or in `dxt_version` when it was
//! written before bundles were renamed from DXT; one that names neither,
//! or a version not listed here, is refused, as `mcpb` refuses it.
//!
//! What this module does not do: decide what any field means for Rootgate
//! (see `bundle::draft`), or read the zip (see `bundle::unpack`).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Map, Value};

/// The versions Rootgate reads, with their schemas.
const SCHEMAS: &[(&str, &str)] = &[
    (
        "0.1",
        include_str!("schemas/mcpb-manifest-v0.1.schema.json"),
    ),
    (
        "0.2",
        include_str!("schemas/mcpb-manifest-v0.2.schema.json"),
    ),
    (
        "0.3",
        include_str!("schemas/mcpb-manifest-v0.3.schema.json"),
    ),
    (
        "0.4",
        include_str!("schemas/mcpb-manifest-v0.4.schema.json"),
    ),
];

/// How many of a manifest's schema errors are said; the rest are counted.
const ERRORS_SAID: usize = 3;

#[derive(Debug, Clone, Deserialize)]
pub struct Author {
    pub name: String,
    pub email: Option<String>,
    pub url: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Repository {
    pub url: String,
}

/// What `mcp_config` or one of its platform overrides says to run.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Run {
    pub command: Option<String>,
    pub args: Option<Vec<String>>,
    pub env: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct McpConfig {
    #[serde(flatten)]
    pub run: Run,
    #[serde(default)]
    pub platform_overrides: BTreeMap<String, Run>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Server {
    #[serde(rename = "type")]
    pub kind: String,
    pub entry_point: String,
    pub mcp_config: Option<McpConfig>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Declared {
    pub name: String,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Compatibility {
    pub platforms: Option<Vec<String>>,
    #[serde(default)]
    pub runtimes: BTreeMap<String, String>,
}

/// One `user_config` entry.
#[derive(Debug, Clone, Deserialize)]
pub struct UserConfig {
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub description: String,
    #[serde(default)]
    pub required: bool,
    pub default: Option<Value>,
    #[serde(default)]
    pub multiple: bool,
    #[serde(default)]
    pub sensitive: bool,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

/// A manifest that follows its version's schema.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    /// The format version it follows (`manifest_version`, or `dxt_version`).
    #[serde(skip)]
    pub format: String,
    pub name: String,
    pub display_name: Option<String>,
    pub version: String,
    pub description: String,
    pub author: Author,
    pub homepage: Option<String>,
    pub repository: Option<Repository>,
    pub license: Option<String>,
    pub server: Server,
    #[serde(default)]
    pub tools: Vec<Declared>,
    #[serde(default)]
    pub prompts: Vec<Declared>,
    #[serde(default)]
    pub compatibility: Compatibility,
    /// The settings, in the order the manifest lists them.
    #[serde(default)]
    pub user_config: Map<String, Value>,
}

impl Manifest {
    /// The `user_config` entries in order (each checked by the schema).
    pub fn settings(&self) -> Result<Vec<(String, UserConfig)>, String> {
        self.user_config
            .iter()
            .map(|(key, value)| {
                serde_json::from_value(value.clone())
                    .map(|c| (key.clone(), c))
                    .map_err(|e| format!("its setting `{key}` cannot be read: {e}"))
            })
            .collect()
    }
}

/// Reads `text` as a manifest, or says in words why it is not one.
pub fn read(text: &[u8]) -> Result<Manifest, String> {
    let value: Value =
        serde_json::from_slice(text).map_err(|e| format!("its manifest.json is not JSON ({e})"))?;
    if !value.is_object() {
        return Err("its manifest.json is not a JSON object".into());
    }
    let named = ["manifest_version", "dxt_version"]
        .iter()
        .find_map(|field| value.get(field).map(|v| (*field, v)));
    let Some((field, version)) = named else {
        return Err(
            "its manifest.json names no format version (`manifest_version`, or `dxt_version` \
             in older bundles)"
                .into(),
        );
    };
    let version = version.as_str().unwrap_or_default().to_owned();
    let version = version.as_str();
    let Some((_, schema)) = SCHEMAS.iter().find(|(v, _)| *v == version) else {
        let known: Vec<&str> = SCHEMAS.iter().map(|(v, _)| *v).collect();
        return Err(format!(
            "its manifest.json says {field} {}, and Rootgate reads versions {}",
            Value::from(version),
            known.join(", ")
        ));
    };
    let schema: Value = serde_json::from_str(schema)
        .map_err(|e| format!("the MCPB {version} schema cannot be read: {e}"))?;
    let validator = jsonschema::validator_for(&schema)
        .map_err(|e| format!("the MCPB {version} schema cannot be used: {e}"))?;
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| {
            let at = e.instance_path().to_string();
            let at = if at.is_empty() { "/".to_owned() } else { at };
            format!("at {at}: {e}")
        })
        .collect();
    if let Some(first) = errors.first() {
        let mut said =
            format!("its manifest.json does not follow the MCPB {version} format: {first}");
        for more in errors.iter().skip(1).take(ERRORS_SAID - 1) {
            said.push_str(&format!("; {more}"));
        }
        if errors.len() > ERRORS_SAID {
            said.push_str(&format!(" (and {} more)", errors.len() - ERRORS_SAID));
        }
        return Err(said);
    }
    let mut manifest: Manifest = serde_json::from_value(value)
        .map_err(|e| format!("its manifest.json cannot be read: {e}"))?;
    manifest.format = version.to_owned();
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minimal(version_field: &str, version: &str) -> Value {
        serde_json::json!({
            version_field: version,
            "name": "hello",
            "version": "1.0.0",
            "description": "Says hello",
            "author": {"name": "A. Person"},
            "server": {
                "type": "node",
                "entry_point": "server/index.js",
                "mcp_config": {"command": "node", "args": ["${__dirname}/server/index.js"]}
            },
            "user_config": {
                "b": {"type": "string", "title": "B", "description": "second"},
                "a": {"type": "number", "title": "A", "description": "first", "min": 1}
            }
        })
    }

    fn read_value(value: &Value) -> Result<Manifest, String> {
        read(value.to_string().as_bytes())
    }

    #[test]
    fn every_version_and_the_old_dxt_field_are_read() {
        for (version, _) in SCHEMAS {
            let manifest = read_value(&minimal("manifest_version", version)).unwrap();
            assert_eq!(manifest.format, *version);
        }
        let old = read_value(&minimal("dxt_version", "0.1")).unwrap();
        assert_eq!(old.format, "0.1");
        let keys: Vec<String> = old
            .settings()
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, ["b", "a"], "settings keep the manifest's order");
    }

    #[test]
    fn a_manifest_off_its_schema_is_refused_naming_the_problem() {
        let mut value = minimal("manifest_version", "0.3");
        value.as_object_mut().unwrap().remove("author");
        let said = read_value(&value).unwrap_err();
        assert!(
            said.contains("MCPB 0.3") && said.contains("author"),
            "{said}"
        );

        let mut value = minimal("manifest_version", "0.2");
        value["user_config"]["b"]["type"] = "colour".into();
        let said = read_value(&value).unwrap_err();
        assert!(said.contains("/user_config/b/type"), "{said}");

        let said = read_value(&minimal("manifest_version", "9.9")).unwrap_err();
        assert!(
            said.contains("9.9") && said.contains("0.1, 0.2, 0.3, 0.4"),
            "{said}"
        );
        let mut value = minimal("manifest_version", "0.3");
        value.as_object_mut().unwrap().remove("manifest_version");
        assert!(
            read_value(&value)
                .unwrap_err()
                .contains("names no format version")
        );
        assert!(read(b"{not json").unwrap_err().contains("not JSON"));
    }
}
