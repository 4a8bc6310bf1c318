//! Every transcript under `tests/transcripts/` (the behaviour spec) must replay byte for byte,
//! with the engine's invariants checked after every line (which debug builds do).

use std::path::Path;

use streamlab_protocol::transcript::{diff, run_script};

#[test]
fn transcripts_replay() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/transcripts");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/transcripts exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no transcripts found in {}", dir.display());
    let mut failures = Vec::new();
    for file in &files {
        let expected = std::fs::read_to_string(file).expect("readable transcript");
        let actual = run_script(&expected);
        if actual != expected {
            failures.push(format!("{}\n{}", file.display(), diff(&expected, &actual)));
        }
    }
    assert!(failures.is_empty(), "{} of {} transcripts differ:\n{}", failures.len(), files.len(), failures.join("\n"));
}
