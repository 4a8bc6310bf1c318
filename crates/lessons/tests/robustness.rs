//! No input makes the TOML reader or the lesson parser panic (a panic in wasm ends the
//! learner's session): every lesson file, cut short and mutated in many ways, and random
//! text built from TOML's punctuation. Errors must point inside the text.

use std::path::PathBuf;

use streamlab_lessons::{parse_lesson, toml, validate::parse_index};

/// A small deterministic generator (xorshift), so a failure reproduces.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

/// Pieces that make TOML's tokens, its mistakes and multi-byte text.
const PIECES: &[&str] = &[
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    "=",
    ",",
    ".",
    "\\",
    "\n",
    "\r",
    "\r\n",
    "#",
    " ",
    "\t",
    "a",
    "1",
    "\"\"\"",
    "'''",
    "[[",
    "]]",
    "0x",
    "1.5",
    "1979-05-27",
    "07:32:00",
    "true",
    "\\u",
    "\\U0001F600",
    "\\n",
    "x.y",
    "_",
    "-",
    "+",
    "é",
    "\u{7}",
    "\u{0}",
    "\u{feff}",
    "[task]",
    "[[task.check]]",
    "kind = ",
    "= [",
    "{ a = 1 }",
];

fn lesson_files() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../lessons");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("lessons directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .map(|path| (path.display().to_string(), std::fs::read_to_string(&path).expect("readable lesson")))
        .collect();
    files.sort();
    files
}

/// Reads `text` every way; errors must point inside it.
fn read_all(text: &str) {
    if let Err(error) = toml::parse(text) {
        assert!(text.get(error.span.clone()).is_some(), "span {:?} outside {text:?}: {}", error.span, error.message);
    }
    let lines = text.split('\n').count();
    let errors = parse_lesson("l.toml", text).err().unwrap_or_default();
    let errors = errors.into_iter().chain(parse_index("index.toml", text).err());
    for error in errors {
        assert!(error.line <= lines, "line {} of {lines}: {error} in {text:?}", error.line);
    }
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let at = rng.below(bytes.len());
    match rng.below(4) {
        0 => {
            let piece = PIECES[rng.below(PIECES.len())];
            bytes.splice(at..at, piece.bytes());
        }
        1 => {
            let end = (at + 1 + rng.below(8)).min(bytes.len());
            bytes.drain(at..end);
        }
        2 => {
            // A line repeated elsewhere: duplicate keys and tables.
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let mut lines = lines.clone();
            let copy = lines[rng.below(lines.len())];
            lines.insert(rng.below(lines.len()), copy);
            bytes = lines.concat().into_bytes();
        }
        _ => bytes[at] = PIECES[rng.below(PIECES.len())].as_bytes()[0],
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn lesson_files_cut_and_mutated_never_panic() {
    let files = lesson_files();
    assert!(files.len() > 10, "the lessons were found");
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for (name, text) in &files {
        assert!(toml::parse(text).is_ok(), "{name} is TOML");
        // Cut short at many places, character boundaries or not.
        for cut in (0..text.len()).step_by(text.len() / 20 + 1) {
            read_all(&String::from_utf8_lossy(&text.as_bytes()[..cut]));
        }
        for _ in 0..40 {
            read_all(&mutate(&mut rng, text));
        }
    }
}

#[test]
fn random_text_never_panics() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..4000 {
        let text: String = (0..rng.below(16)).map(|_| PIECES[rng.below(PIECES.len())]).collect();
        read_all(&text);
        read_all(&format!("k = {text}"));
        read_all(&format!("[t]\nk = [{text}]\n[[t.u]]\n"));
        let bytes: Vec<u8> = (0..rng.below(64)).map(|_| rng.below(256) as u8).collect();
        read_all(&String::from_utf8_lossy(&bytes));
    }
}
