//! No input makes the TOML reader, the lesson parser or the checker panic (a panic in wasm
//! ends the learner's session): every lesson file, cut short and mutated in many ways, random
//! text built from TOML's punctuation, hostile Unicode (crates/testkit's `text`) in keys,
//! strings and lesson lines, and hostile learner logs. Errors must point inside the text.

use std::path::PathBuf;

use streamlab_lessons::{check_log, parse_lesson, parse_log, toml, validate::parse_index};
use streamlab_testkit::rng::Rng;
use streamlab_testkit::text;

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
    let at = rng.index(bytes.len());
    match rng.index(4) {
        0 => {
            let piece = rng.pick(PIECES);
            bytes.splice(at..at, piece.bytes());
        }
        1 => {
            let end = (at + 1 + rng.index(8)).min(bytes.len());
            bytes.drain(at..end);
        }
        2 => {
            // A line repeated elsewhere: duplicate keys and tables.
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let mut lines = lines.clone();
            let copy = lines[rng.index(lines.len())];
            lines.insert(rng.index(lines.len()), copy);
            bytes = lines.concat().into_bytes();
        }
        _ => bytes[at] = rng.pick(PIECES).as_bytes()[0],
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn lesson_files_cut_and_mutated_never_panic() {
    let files = lesson_files();
    assert!(files.len() > 10, "the lessons were found");
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
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
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    for _ in 0..4000 {
        let text: String = (0..rng.index(16)).map(|_| rng.pick(PIECES)).collect();
        read_all(&text);
        read_all(&format!("k = {text}"));
        read_all(&format!("[t]\nk = [{text}]\n[[t.u]]\n"));
        let bytes: Vec<u8> = (0..rng.index(64)).map(|_| rng.below(256) as u8).collect();
        read_all(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn hostile_unicode_anywhere_in_a_lesson_never_panics() {
    let mut rng = Rng::new(14);
    for (_, text) in &lesson_files() {
        for _ in 0..12 {
            // Spliced in at a character: inside strings, keys, table headers and lesson lines.
            let at = (0..=rng.index(text.len())).rev().find(|&at| text.is_char_boundary(at)).unwrap_or(0);
            let (head, tail) = text.split_at(at);
            read_all(&format!("{head}{}{tail}", text::text(&mut rng, 12)));
        }
    }
    for _ in 0..2_000 {
        let t = text::text(&mut rng, 40);
        for wrapped in [
            t.clone(),
            format!("{t} = 1"),
            format!("k = \"{t}\""),
            format!("k = \'\'\'{t}\'\'\'"),
            format!("[{t}]\nk = 1"),
            format!("[[task]]\nkind = \"{t}\"\nsolution = [\"{t}\"]"),
        ] {
            read_all(&wrapped);
        }
        read_all(&String::from_utf8_lossy(&text::bytes(&mut rng, 64)));
    }
}

#[test]
fn hostile_learner_logs_are_checked_without_panicking() {
    let files = lesson_files();
    let (name, text) = &files[0];
    let lesson = parse_lesson(name, text).expect("a valid lesson");
    const VOCABULARY: &[&str] =
        &["alice>", "bob>", "XADD", "XACK", "XGROUP", "CREATE", "jobs", "*", ">", ":as", "f", "v"];
    let mut rng = Rng::new(15);
    for _ in 0..150 {
        let log: Vec<String> = (0..rng.index(6)).map(|_| text::line(&mut rng, VOCABULARY)).collect();
        let task = rng.index(lesson.tasks.len());
        // A verdict or a clean error (a task kind that is not checked by state), never a panic.
        let _ = check_log(&lesson, task, 0, &parse_log(&log.join("\n")));
    }
}
