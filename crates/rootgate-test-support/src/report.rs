//! The report file of our fixture server: with `--report FILE` it appends
//! one JSON line for every folder list it receives (and, in the fault
//! suite, other events), so a test checks exactly what reached a server.
//! Here only the reading of the folder lists; what a line holds is the
//! server's to say (see its crate).

use std::path::Path;

/// The lists the fixture wrote to its report file, oldest first (every
/// process of the server appends to the same file). A file not yet written
/// reads as no lists, and a last line still being written (no newline yet)
/// as not there: under load a reader caught one half written.
pub fn reported(report: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(report).unwrap_or_default();
    let whole = text.rfind('\n').map_or("", |end| &text[..end]);
    whole
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("report line");
            v["roots"]
                .as_array()
                .expect("roots")
                .iter()
                .map(|r| r["uri"].as_str().expect("uri").to_owned())
                .collect()
        })
        .collect()
}
