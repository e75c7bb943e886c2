//! MCP Bundles (`.mcpb` files): read, shown, and installed as Rootgate
//! servers, one version per folder under Rootgate's data folder.
//!
//! [`Bundles::open`] reads a bundle whole into memory and checks it
//! before anything is written: its signature block is split off
//! (`signature`), every zip entry is checked (`unpack`), and its manifest
//! is checked against the official schema of its version (`manifest`) and
//! read into an [`Offer`] (`draft`). That is what the window and the
//! terminal show. [`Opened::install`] then unpacks those same bytes into a
//! private (0700) `.staging-*` folder in the bundles' root, renames it to
//! `<root>/<name>/<version>/`, and adds or updates the server through
//! `installed::install`; if anything fails, the folder is removed (and a
//! folder of the same version it replaced is put back), so nothing is
//! left behind. After an update the old version's folder is removed;
//! [`remove_files`] removes a server's folder when the server is removed.
//!
//! What this module does not do: approve a command, share a folder or
//! run anything (the server is added not enabled and not approved), talk
//! to the window, or verify a signature (see `signature`).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use rootgate_model::store::Store;
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::installed::{self, InstallError, Installed, Installs};
use crate::offer::Offer;

pub mod draft;
pub mod manifest;
mod settings;
pub mod signature;
pub mod unpack;
pub mod variables;

pub(crate) use unpack::LIMITS;
pub use unpack::Limits;
pub use variables::Places;

/// Why a bundle was not shown or not installed, in words.
#[derive(Debug, Error)]
pub enum BundleError {
    /// The bundle itself is refused; nothing was written.
    #[error("{file} cannot be installed: {reason}")]
    Refused { file: String, reason: String },
    #[error("{0}")]
    Install(#[from] InstallError),
    /// Rootgate's own folders could not be used.
    #[error("{0}")]
    Files(String),
}

/// The folder bundles are unpacked under: `bundles/` in Rootgate's data
/// folder (`$XDG_DATA_HOME/rootgate/bundles`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bundles {
    root: PathBuf,
    limits: Limits,
}

impl Bundles {
    pub fn default_location() -> Result<Bundles, BundleError> {
        let dirs =
            directories::ProjectDirs::from("org", "Rootgate", "rootgate").ok_or_else(|| {
                BundleError::Files("there is no home folder to keep bundles in".into())
            })?;
        Ok(Bundles::at(dirs.data_dir().join("bundles")))
    }

    pub fn at(root: impl Into<PathBuf>) -> Bundles {
        Bundles {
            root: root.into(),
            limits: LIMITS,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Reads and checks the bundle `file`, writing nothing.
    pub fn open(&self, file: &Path) -> Result<Opened, BundleError> {
        let refused = |reason: String| BundleError::Refused {
            file: rootgate_model::names::written_out(&file.display().to_string()),
            reason,
        };
        let length = fs::metadata(file)
            .map_err(|e| refused(format!("it cannot be read ({e})")))?
            .len();
        if length > self.limits.bytes {
            return Err(refused(format!(
                "it is larger than the {} MiB Rootgate unpacks",
                self.limits.bytes >> 20
            )));
        }
        let bytes = fs::read(file).map_err(|e| refused(format!("it cannot be read ({e})")))?;
        let sha256 = hex(&Sha256::digest(&bytes));
        let (zip, signature) = signature::split(&bytes);
        let zip_length = zip.len();
        let checked = unpack::check(zip, self.limits).map_err(refused)?;
        let manifest = manifest::read(&checked.manifest).map_err(refused)?;
        let folder = self
            .root
            .join(folder_name(&manifest.name))
            .join(folder_name(&manifest.version));
        let places = Places::from_env().ok_or_else(|| {
            BundleError::Files("HOME is not set, so `${HOME}` has no value".into())
        })?;
        let offer = draft::offer(
            &manifest,
            variables::Context {
                folder: &folder,
                sha256,
                signature,
                places: &places,
            },
        )
        .map_err(refused)?;
        drop(checked);
        Ok(Opened {
            offer,
            bytes,
            zip_length,
            folder,
            bundles: self.clone(),
            file: file.to_path_buf(),
        })
    }

    /// Removes `files`, a folder an install of a bundle made, and its
    /// bundle's folder once no version is left in it. Returns whether
    /// there was anything to remove. A folder outside the bundles' root is
    /// never touched.
    pub fn remove_files(&self, files: &Path) -> Result<bool, BundleError> {
        let root = match self.root.canonicalize() {
            Ok(root) => root,
            Err(_) => return Ok(false),
        };
        let Ok(real) = files.canonicalize() else {
            return Ok(false);
        };
        let depth = real.strip_prefix(&root).map(|p| p.components().count());
        if depth != Ok(2) {
            return Err(BundleError::Files(format!(
                "{} is not a bundle's folder under {}; it was left as it is",
                files.display(),
                root.display()
            )));
        }
        fs::remove_dir_all(&real)
            .map_err(|e| BundleError::Files(format!("cannot remove {}: {e}", real.display())))?;
        if let Some(parent) = real.parent() {
            // Only an empty folder goes; one with another version stays.
            let _ = fs::remove_dir(parent);
        }
        Ok(true)
    }
}

/// Removes the files of a bundle's install (its `InstallRecord::files`)
/// under the default bundles' root: what the core calls when it removes a
/// server an install made.
pub fn remove_files(files: &Path) -> Result<bool, BundleError> {
    Bundles::default_location()?.remove_files(files)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A manifest's name or version as one folder name: letters, digits and
/// `._+-` kept, anything else `_`, and, when anything was changed, a short
/// digest of the original after it, so two names never share a folder.
fn folder_name(text: &str) -> String {
    let mut name: String = text
        .chars()
        .take(80)
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '_' | '+' | '-' => c,
            _ => '_',
        })
        .collect();
    if name.starts_with('.') || name.is_empty() {
        name.insert(0, '_');
    }
    if name != text {
        name.push('-');
        name.push_str(&hex(&Sha256::digest(text.as_bytes()))[..8]);
    }
    name
}

/// A bundle read and checked, ready to install.
pub struct Opened {
    pub offer: Offer,
    bytes: Vec<u8>,
    zip_length: usize,
    folder: PathBuf,
    bundles: Bundles,
    file: PathBuf,
}

impl Opened {
    /// Where it will be unpacked (`${__dirname}`).
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Unpacks the bundle and adds its server with `values` (by setting
    /// key), or updates the server an earlier install of it made; see the
    /// module's note for what is left when it fails (nothing).
    pub fn install(
        &self,
        store: &Store,
        installs: &Installs,
        values: &BTreeMap<String, String>,
    ) -> Result<Installed, BundleError> {
        if let Some(why) = &self.offer.about.unfit {
            return Err(InstallError::Unfit {
                title: self.offer.about.title.clone(),
                why: why.clone(),
            }
            .into());
        }
        let placed = self.place()?;
        match installed::install(
            store,
            installs,
            &self.offer,
            values,
            Some(self.folder.clone()),
        ) {
            Ok(done) => {
                placed.keep();
                if let Some(old) = &done.replaced_files {
                    // The old version's files: nothing runs from them now
                    // that the server runs the new command.
                    let _ = self.bundles.remove_files(old);
                }
                Ok(done)
            }
            Err(e) => {
                placed.undo();
                Err(e.into())
            }
        }
    }

    /// Unpacks into a private staging folder and renames it into place,
    /// moving a folder already there aside.
    fn place(&self) -> Result<Placed, BundleError> {
        let files = |e: String| BundleError::Files(e);
        let root = &self.bundles.root;
        fs::create_dir_all(root)
            .map_err(|e| files(format!("cannot make {}: {e}", root.display())))?;
        // `tempfile` makes the folder 0700 and removes it when dropped,
        // whatever fails below.
        let staging = tempfile::Builder::new()
            .prefix(".staging-")
            .tempdir_in(root)
            .map_err(|e| files(format!("cannot make a folder in {}: {e}", root.display())))?;
        let refused = |reason: String| BundleError::Refused {
            file: rootgate_model::names::written_out(&self.file.display().to_string()),
            reason,
        };
        let mut checked =
            unpack::check(&self.bytes[..self.zip_length], self.bundles.limits).map_err(refused)?;
        let unpacked = staging.path().join("bundle");
        fs::create_dir(&unpacked).map_err(|e| files(e.to_string()))?;
        checked.unpack(&unpacked).map_err(refused)?;
        let parent = self.folder.parent().unwrap_or(root);
        fs::create_dir_all(parent)
            .map_err(|e| files(format!("cannot make {}: {e}", parent.display())))?;
        let aside = if self.folder.exists() {
            let aside = staging.path().join("before");
            fs::rename(&self.folder, &aside)
                .map_err(|e| files(format!("cannot move {} aside: {e}", self.folder.display())))?;
            Some(aside)
        } else {
            None
        };
        if let Err(e) = fs::rename(&unpacked, &self.folder) {
            if let Some(aside) = &aside {
                let _ = fs::rename(aside, &self.folder);
            }
            return Err(files(format!(
                "cannot move the bundle into {}: {e}",
                self.folder.display()
            )));
        }
        Ok(Placed {
            folder: self.folder.clone(),
            aside,
            staging,
        })
    }
}

/// A bundle moved into place, not yet kept.
struct Placed {
    folder: PathBuf,
    /// The folder of the same version that was there, in the staging folder.
    aside: Option<PathBuf>,
    staging: tempfile::TempDir,
}

impl Placed {
    /// Keeps it: the staging folder (and what was moved aside) goes.
    fn keep(self) {
        drop(self.staging);
    }

    /// Removes it, and puts back what it replaced.
    fn undo(self) {
        let _ = fs::remove_dir_all(&self.folder);
        if let Some(aside) = &self.aside {
            let _ = fs::rename(aside, &self.folder);
        }
        if let Some(parent) = self.folder.parent() {
            let _ = fs::remove_dir(parent);
        }
        drop(self.staging);
    }
}
