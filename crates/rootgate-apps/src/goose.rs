//! Goose's `~/.config/goose/config.yaml`: reading its `extensions` into
//! [`RawEntry`]s, pointing stdio extensions at `rootgate connect`, and
//! putting extensions back as an earlier text of the file had them.
//!
//! The file is a YAML mapping of Goose's settings (`GOOSE_PROVIDER`,
//! `GOOSE_MODEL`, ...) with `extensions`, a mapping from each extension's
//! key to its settings: `type` (`stdio`, `sse`, `streamable_http`, or one of
//! Goose's in-process kinds), `cmd`, `args`, `envs`, `env_keys`, `enabled`
//! and more. The file is read and edited with `yaml-edit`, a lossless YAML
//! syntax tree, so a rewrite changes only the values it sets: every other
//! key, extension, comment and the file's layout stay byte for byte. Its
//! parser recovers from errors, so its strict validator is run as well.
//! `read` turns one extension into an entry, `edit` rewrites, `restore`
//! puts extensions back; both edits read their result back before
//! returning it.
//!
//! This module deliberately does not expand anything (`envs` values and
//! `env_keys` are taken as written, and Goose's keyring is never read),
//! does not follow YAML aliases or tags inside an extension (Goose does not
//! write them, and rewriting an anchored value would change its aliases),
//! and never puts an `envs` value in an error: those are often secrets.
//! Goose's in-process extensions (`builtin`, `platform`, `frontend`,
//! `inline_python`) and kinds it may add later are not servers Rootgate
//! can run, so they are skipped rather than reported.

mod edit;
mod read;
mod restore;

pub(crate) use edit::rewrite;
pub(crate) use restore::restore;

use yaml_edit::{Document, Mapping, YamlFile, YamlNode};

use super::{ConfigError, ParsedConfig, yaml};

/// The name errors give the app.
const APP: &str = "Goose";
/// The top-level key that holds the extensions.
const EXTENSIONS: &str = "extensions";

/// Reads the extensions of `text`, a Goose `config.yaml`. An empty file, or
/// one without `extensions`, holds none.
pub fn parse(file: &str, text: &str) -> Result<ParsedConfig, ConfigError> {
    let doc = Loaded::new(file, text)?;
    let mut entries = Vec::new();
    for (key, node) in doc.extension_nodes()? {
        if let Some(entry) = read::entry(file, &key, &node)? {
            entries.push(entry);
        }
    }
    Ok(ParsedConfig {
        entries,
        ..ParsedConfig::default()
    })
}

/// A Goose config file, checked and parsed into a tree that edits in place.
struct Loaded {
    file: String,
    tree: YamlFile,
    /// The top-level mapping; `None` when the file holds no document (it is
    /// empty or only comments) or a document that is just `null`.
    root: Option<Mapping>,
}

impl Loaded {
    /// Parses `text`, refusing what is not valid YAML (`yaml::load`) or not
    /// a mapping at the top.
    fn new(file: &str, text: &str) -> Result<Loaded, ConfigError> {
        // A document that is only `---`, or only `null`, holds no settings.
        let blank = |document: &Document| match document.as_scalar() {
            Some(scalar) => scalar.is_null(),
            None => document.as_sequence().is_none() && document.as_tagged().is_none(),
        };
        let (tree, root) =
            yaml::load_mapping(file, text, APP, blank, "is not a mapping of settings")?;
        Ok(Loaded {
            file: file.to_owned(),
            tree,
            root,
        })
    }

    /// The `extensions` mapping; `None` when the file has none or it is
    /// `null` (Goose writes `extensions:` with nothing under it that way).
    fn extensions(&self) -> Result<Option<Mapping>, ConfigError> {
        let Some(node) = self.root.as_ref().and_then(|root| root.get(EXTENSIONS)) else {
            return Ok(None);
        };
        match node {
            YamlNode::Mapping(extensions) => Ok(Some(extensions)),
            YamlNode::Scalar(s) if s.is_null() => Ok(None),
            _ => Err(shape(
                &self.file,
                EXTENSIONS,
                "is not a mapping from names to extensions",
            )),
        }
    }

    /// Each extension's key and its settings, in the file's order.
    fn extension_nodes(&self) -> Result<Vec<(String, YamlNode)>, ConfigError> {
        let Some(extensions) = self.extensions()? else {
            return Ok(Vec::new());
        };
        extensions
            .iter()
            .map(|(key, node)| match key {
                YamlNode::Scalar(key) => Ok((key.as_string(), node)),
                _ => Err(shape(
                    &self.file,
                    EXTENSIONS,
                    "has an extension whose name is not a plain string",
                )),
            })
            .collect()
    }
}

/// `key` (a dotted path such as `extensions.github.args`) does not hold
/// what Goose writes there. `reason` must never quote a value.
fn shape(file: &str, key: &str, reason: &str) -> ConfigError {
    ConfigError::shape(file, APP, key, reason)
}
