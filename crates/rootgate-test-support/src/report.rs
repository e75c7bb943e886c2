//! The report file of our fixture server: with `--report FILE` it appends
//! one JSON line for every folder list it receives (and, in the fault
//! suite, other events), so a test checks exactly what reached a server.
//! Here only the reading of the folder lists; what a line holds is the
//! server's to say (see its crate).

use std::path::Path;

/// The lists the fixture wrote to its report file, oldest first (every
/// process of the server appends to the same file). A file not yet written
/// reads as no lists.
pub fn reported(report: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(report)
        .unwrap_or_default()
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
