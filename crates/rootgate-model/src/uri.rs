//! `file://` URIs for folders, per RFC 8089, built with the `url` crate.
//!
//! This module turns a local absolute path into the URI a server receives in a
//! `roots/list` answer, and back. It also holds pure conversions for Windows
//! drive paths and UNC shares so that their encoding is tested on every
//! platform. It deliberately knows nothing about whether a path exists, is a
//! directory or was consented to: that is `folders` and `consent`.

use std::path::{Component, Path, PathBuf};

use thiserror::Error;
use url::Url;

/// Why a path could not become a `file://` URI, or a URI a path.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum UriError {
    #[error("\"{0}\" is not an absolute path, so it has no file URI")]
    NotAbsolute(String),
    #[error("\"{0}\" is not a file:// URI")]
    NotFileUri(String),
    #[error("\"{0}\" is not a valid URI: {1}")]
    Parse(String, String),
    #[error("\"{0}\" names a path that cannot exist on this system")]
    NotLocal(String),
    #[error(
        "\"{0}\" has a `..` segment, which a URI would resolve differently from the \
         filesystem; use the folder's real path"
    )]
    ParentSegment(String),
}

/// The `file://` URI of an absolute local path, without a trailing slash.
///
/// Every character that RFC 3986 does not allow raw in a path segment (space,
/// `%`, `#`, `?`, non-ASCII, ...) is percent-encoded as UTF-8, which is what
/// Node's `url.fileURLToPath` and Python's `urllib.request.url2pathname`
/// decode. Non-UTF-8 bytes in a Unix file name are percent-encoded as bytes.
///
/// A path with a `..` segment is refused: the `url` crate writes it into the
/// URI as it is, and every URI parser then removes it together with the
/// segment before it, while the filesystem first follows that segment if it
/// is a symlink. `/x/link/..` would reach the server as `/x`, a folder nobody
/// chose. Real paths from `folders::check` never have one, nor a NUL byte,
/// which is refused too.
pub fn path_to_uri(path: &Path) -> Result<Url, UriError> {
    if !path.is_absolute() {
        return Err(UriError::NotAbsolute(path.display().to_string()));
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(UriError::ParentSegment(path.display().to_string()));
    }
    if path.as_os_str().as_encoded_bytes().contains(&0) {
        // `%00` would reach the server for a file name no system can hold.
        return Err(UriError::NotLocal(path.display().to_string()));
    }
    Url::from_file_path(path).map_err(|()| UriError::NotAbsolute(path.display().to_string()))
}

/// The local path a `file://` URI names (hosts other than empty or
/// `localhost` are refused on Unix, where they have no meaning).
///
/// A segment that decodes to a `/` (`%2F`) or a NUL byte (`%00`) is refused
/// as naming no local path, as Node's `fileURLToPath` refuses `%2F`: no file
/// name holds either byte, and a decoded `/` would let `a%2F..%2Fb` smuggle a
/// `..` segment past the URI parser. So is a URI whose parsed form does not
/// parse back to itself.
pub fn uri_to_path(uri: &str) -> Result<PathBuf, UriError> {
    let url = Url::parse(uri).map_err(|e| UriError::Parse(uri.to_owned(), e.to_string()))?;
    if url.scheme() != "file" {
        return Err(UriError::NotFileUri(uri.to_owned()));
    }
    let impossible = url.path_segments().into_iter().flatten().any(|segment| {
        percent_encoding::percent_decode_str(segment).any(|byte| byte == b'/' || byte == 0)
    });
    if impossible {
        return Err(UriError::NotLocal(uri.to_owned()));
    }
    // A URI whose text does not parse back to itself means different
    // things to different readers: `url` 2.5 parses `file:/C:\t../x` (the
    // tab is ignored) as `file:///C:/../x`, which names `/C:/../x` here and
    // `/x` to a parser reading that text.
    if Url::parse(url.as_str()).ok().as_ref() != Some(&url) {
        return Err(UriError::NotLocal(uri.to_owned()));
    }
    url.to_file_path()
        .map_err(|()| UriError::NotLocal(uri.to_owned()))
}

/// The `file://` URI of a Windows path: a drive path (`C:\Users\me`) becomes
/// `file:///C:/Users/me`, a UNC share (`\\server\share\dir`) becomes
/// `file://server/share/dir`. Pure string work, so it runs (and is tested)
/// on every platform. `.` segments are dropped (they name the same folder);
/// a `..` segment is refused, as in [`path_to_uri`], and so are a character
/// below space, which no Windows name can hold, and a path whose URI would
/// be read back as another path.
pub fn windows_path_to_uri(path: &str) -> Result<Url, UriError> {
    let not_absolute = || UriError::NotAbsolute(path.to_owned());
    let normalised = path.replace('/', "\\");
    let mut url =
        Url::parse("file:///").map_err(|e| UriError::Parse(path.into(), e.to_string()))?;
    let segments: Vec<&str>;
    if let Some(unc) = normalised.strip_prefix("\\\\") {
        let mut parts = unc.split('\\').filter(|s| !s.is_empty());
        let host = parts.next().ok_or_else(not_absolute)?;
        url.set_host(Some(host))
            .map_err(|e| UriError::Parse(path.to_owned(), e.to_string()))?;
        segments = parts.filter(|s| *s != ".").collect();
        if segments.is_empty() {
            // A UNC path needs at least a share name after the host.
            return Err(not_absolute());
        }
    } else {
        let bytes = normalised.as_bytes();
        let is_drive = bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && bytes[2] == b'\\';
        if !is_drive {
            return Err(not_absolute());
        }
        segments = normalised
            .split('\\')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
    }
    if segments.contains(&"..") {
        return Err(UriError::ParentSegment(path.to_owned()));
    }
    if segments.iter().any(|s| s.chars().any(|c| c < ' ')) {
        // No Windows file name holds a character below space (DEL is
        // allowed), and the URL parser would silently drop a tab or line
        // break from the segment, naming another folder.
        return Err(UriError::NotLocal(path.to_owned()));
    }
    {
        let mut path_segments = url
            .path_segments_mut()
            .map_err(|()| UriError::NotFileUri(path.to_owned()))?;
        path_segments.clear();
        let drive_only = segments.len() == 1 && !url_has_host(path);
        for segment in segments {
            path_segments.push(segment);
        }
        if drive_only {
            // `file:///D:` would name the current folder of drive D, not its
            // root; Node's pathToFileURL writes `file:///D:/` for `D:\`.
            path_segments.push("");
        }
    }
    // The URI must mean what was built: a share named like a drive
    // (`\\server\e:\x`) builds `file://server/e:/x`, which every URL parser
    // reads as `file:///e:/x`, drive E: of the local machine.
    if Url::parse(url.as_str()).ok().as_ref() != Some(&url) {
        return Err(UriError::NotLocal(path.to_owned()));
    }
    Ok(url)
}

fn url_has_host(windows_path: &str) -> bool {
    windows_path.replace('/', "\\").starts_with("\\\\")
}

/// The Windows path a `file://` URI names: the inverse of
/// [`windows_path_to_uri`], for tests and for showing URIs from Windows
/// settings files on any platform.
pub fn windows_uri_to_path(uri: &str) -> Result<String, UriError> {
    let url = Url::parse(uri).map_err(|e| UriError::Parse(uri.to_owned(), e.to_string()))?;
    if url.scheme() != "file" {
        return Err(UriError::NotFileUri(uri.to_owned()));
    }
    let decoded: Vec<String> = url
        .path_segments()
        .ok_or_else(|| UriError::NotLocal(uri.to_owned()))?
        .filter(|s| !s.is_empty())
        .map(|s| percent_decode(s).ok_or_else(|| UriError::NotLocal(uri.to_owned())))
        .collect::<Result<_, _>>()?;
    match url.host_str() {
        Some(host) if !host.is_empty() && host != "localhost" => {
            Ok(format!("\\\\{host}\\{}", decoded.join("\\")))
        }
        _ => {
            let first = decoded
                .first()
                .ok_or_else(|| UriError::NotLocal(uri.to_owned()))?;
            let bytes = first.as_bytes();
            if bytes.len() == 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
                if decoded.len() == 1 {
                    Ok(format!("{first}\\"))
                } else {
                    Ok(decoded.join("\\"))
                }
            } else {
                Err(UriError::NotLocal(uri.to_owned()))
            }
        }
    }
}

/// Decodes `%XX` escapes as UTF-8; `None` when the bytes are not UTF-8.
fn percent_decode(segment: &str) -> Option<String> {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .ok()
        .map(|s| s.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_unix_path() {
        let uri = path_to_uri(Path::new("/home/me/project")).unwrap();
        assert_eq!(uri.as_str(), "file:///home/me/project");
    }

    #[test]
    fn reserved_and_unicode_characters_are_encoded() {
        let uri = path_to_uri(Path::new("/tmp/a b/100%/c#d/e?f/프로젝트")).unwrap();
        assert_eq!(
            uri.as_str(),
            "file:///tmp/a%20b/100%25/c%23d/e%3Ff/%ED%94%84%EB%A1%9C%EC%A0%9D%ED%8A%B8"
        );
        assert_eq!(
            uri_to_path(uri.as_str()).unwrap(),
            PathBuf::from("/tmp/a b/100%/c#d/e?f/프로젝트")
        );
    }

    #[test]
    fn relative_path_is_refused() {
        assert_eq!(
            path_to_uri(Path::new("project")),
            Err(UriError::NotAbsolute("project".into()))
        );
    }

    #[test]
    fn non_file_uri_is_refused() {
        assert_eq!(
            uri_to_path("https://example.com/x"),
            Err(UriError::NotFileUri("https://example.com/x".into()))
        );
        assert!(matches!(uri_to_path("not a uri"), Err(UriError::Parse(..))));
    }

    #[test]
    fn localhost_is_local_and_other_hosts_are_not() {
        assert_eq!(
            uri_to_path("file://localhost/srv/x").unwrap(),
            PathBuf::from("/srv/x")
        );
        assert!(matches!(
            uri_to_path("file://fileserver/srv/x"),
            Err(UriError::NotLocal(_))
        ));
    }

    #[test]
    fn windows_drive_paths() {
        let uri = windows_path_to_uri(r"C:\Users\Me\My Project").unwrap();
        assert_eq!(uri.as_str(), "file:///C:/Users/Me/My%20Project");
        assert_eq!(
            windows_uri_to_path(uri.as_str()).unwrap(),
            r"C:\Users\Me\My Project"
        );
        let root = windows_path_to_uri(r"D:\").unwrap();
        assert_eq!(root.as_str(), "file:///D:/");
        assert_eq!(windows_uri_to_path(root.as_str()).unwrap(), r"D:\");
        let korean = windows_path_to_uri(r"C:\작업\프로젝트#1").unwrap();
        assert_eq!(
            windows_uri_to_path(korean.as_str()).unwrap(),
            r"C:\작업\프로젝트#1"
        );
    }

    #[test]
    fn windows_unc_shares() {
        let uri = windows_path_to_uri(r"\\fileserver\team share\docs").unwrap();
        assert_eq!(uri.as_str(), "file://fileserver/team%20share/docs");
        assert_eq!(
            windows_uri_to_path(uri.as_str()).unwrap(),
            r"\\fileserver\team share\docs"
        );
    }

    #[test]
    fn windows_relative_paths_are_refused() {
        for bad in [r"Users\me", r"C:relative", r"\\", ""] {
            assert!(
                matches!(windows_path_to_uri(bad), Err(UriError::NotAbsolute(_))),
                "{bad:?} was accepted"
            );
        }
    }
}
