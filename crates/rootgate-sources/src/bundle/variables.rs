//! The bundle format's variables: `${__dirname}`, `${HOME}`,
//! `${DESKTOP}`, `${DOCUMENTS}`, `${DOWNLOADS}`, `${/}` and
//! `${pathSeparator}`, their values on this machine, and filling them
//! into a manifest's text.
//!
//! What this module does not do: decide what a `${user_config.KEY}`
//! becomes (see `draft` and `settings`), or read a manifest.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::offer::Signature;

/// The person's folders the format names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    pub home: PathBuf,
    pub desktop: PathBuf,
    pub documents: PathBuf,
    pub downloads: PathBuf,
}

impl Places {
    /// This person's folders (their XDG user folders, else the usual names
    /// in their home), or `None` without a home.
    pub fn from_env() -> Option<Places> {
        let dirs = directories::UserDirs::new()?;
        let home = dirs.home_dir().to_path_buf();
        let or = |dir: Option<&Path>, name: &str| {
            dir.map(Path::to_path_buf)
                .unwrap_or_else(|| home.join(name))
        };
        Some(Places {
            desktop: or(dirs.desktop_dir(), "Desktop"),
            documents: or(dirs.document_dir(), "Documents"),
            downloads: or(dirs.download_dir(), "Downloads"),
            home,
        })
    }
}

/// What an offer is made of besides the manifest.
pub struct Context<'a> {
    /// Where the bundle is unpacked (`${__dirname}`).
    pub folder: &'a Path,
    pub sha256: String,
    pub signature: Signature,
    pub places: &'a Places,
}

/// The value of a format variable other than `user_config`, if it is one.
pub(super) fn system(name: &str, cx: &Context<'_>) -> Option<String> {
    let path = |p: &Path| p.display().to_string();
    Some(match name {
        "__dirname" => path(cx.folder),
        "HOME" => path(&cx.places.home),
        "DESKTOP" => path(&cx.places.desktop),
        "DOCUMENTS" => path(&cx.places.documents),
        "DOWNLOADS" => path(&cx.places.downloads),
        "pathSeparator" | "/" => "/".into(),
        _ => return None,
    })
}

/// `text` with each `${NAME}` that `value` knows replaced; the names it
/// does not know are left as written and added to `unknown`.
pub(super) fn substitute(
    text: &str,
    value: &dyn Fn(&str) -> Option<String>,
    unknown: &mut BTreeSet<String>,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let name = &after[..end];
        match value(name) {
            Some(v) => out.push_str(&v),
            None => {
                unknown.insert(name.to_owned());
                out.push_str(&rest[start..start + 2 + end + 1]);
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_names_are_filled_and_the_others_kept_as_written() {
        let value = |name: &str| (name == "A").then(|| "1".to_owned());
        let mut unknown = BTreeSet::new();
        assert_eq!(
            substitute("x${A}y${B}z${", &value, &mut unknown),
            "x1y${B}z${"
        );
        assert_eq!(unknown, BTreeSet::from(["B".to_string()]));
    }
}
