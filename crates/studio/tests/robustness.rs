//! No draft an author can paste or type makes the studio's engine panic (a panic in wasm
//! ends the author's session, draft unsaved): every lesson file cut and mutated is read as a
//! tree, rendered on every variant, recorded at every place with hostile lines, and its
//! changes proposed; the tree's places stay inside the text.

use std::path::PathBuf;

use streamlab_studio::{draft, tree, Recorder};
use streamlab_testkit::rng::Rng;
use streamlab_testkit::text;

fn lesson_files() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../lessons");
    let mut files: Vec<(String, String)> = std::fs::read_dir(&dir)
        .expect("lessons directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml") && !path.ends_with("index.toml"))
        .map(|path| (path.display().to_string(), std::fs::read_to_string(&path).expect("readable lesson")))
        .collect();
    files.sort();
    files
}

/// Every place of a tree node lies inside the text (in UTF-16 units, as JavaScript counts).
fn places_inside(node: &serde_json::Value, units: u64) {
    if let Some([start, end]) = node["s"].as_array().map(|s| [s[0].as_u64().unwrap(), s[1].as_u64().unwrap()]) {
        assert!(start <= end && end <= units, "place {start}..{end} outside {units} units");
    }
    for child in node["keys"].as_array().into_iter().flatten() {
        places_inside(&child["v"], units);
    }
    for item in node["items"].as_array().into_iter().flatten() {
        places_inside(item, units);
    }
}

/// Everything the studio does with a draft, on `text`.
fn use_all(text: &str, rng: &mut Rng) {
    if let Ok(node) = tree::tree(text) {
        places_inside(&serde_json::to_value(&node).unwrap(), text.encode_utf16().count() as u64);
    }
    let found = draft::draft("l.toml", text, rng.index(4));
    let Some(lesson) = found.lesson else { return };
    let places = ["setup".to_owned(), "intro".to_owned(), rng.index(lesson.tasks.len() + 1).to_string()];
    let hostile: Vec<String> =
        (0..3).map(|_| text::line(rng, &["XADD", "XACK", "jobs", "*", ":as", ":clock", "bob>", "+60s"])).collect();
    for place in &places {
        if let Ok(mut recorder) = Recorder::open("l.toml", text, place, rng.index(3), &hostile) {
            for line in &hostile {
                let _ = recorder.run(line);
            }
            let _ = recorder.propose();
            let _ = recorder.state();
        }
    }
    let _ = draft::judge("l.toml", text, rng.index(lesson.tasks.len() + 1), &hostile);
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let at = (0..=rng.index(text.len())).rev().find(|&at| text.is_char_boundary(at)).unwrap_or(0);
    let (head, tail) = text.split_at(at);
    match rng.index(3) {
        0 => format!("{head}{}{tail}", text::text(rng, 8)),
        1 => format!("{head}{}", tail.chars().skip(1 + rng.index(12)).collect::<String>()),
        _ => format!("{head}\n[[task]]\nkind = \"reach-state\"\ntitle = \"t\"\nprompt = \"\"\n{tail}"),
    }
}

#[test]
fn drafts_cut_and_mutated_never_panic() {
    let mut rng = Rng::new(19);
    for (name, text) in &lesson_files() {
        assert!(tree::tree(text).is_ok(), "{name} is TOML");
        for cut in (0..text.len()).step_by(text.len() / 6 + 1) {
            use_all(&String::from_utf8_lossy(&text.as_bytes()[..cut]), &mut rng);
        }
        for _ in 0..6 {
            use_all(&mutate(&mut rng, text), &mut rng);
        }
    }
}

#[test]
fn hostile_text_validates_without_panicking() {
    let mut rng = Rng::new(20);
    for _ in 0..300 {
        let t = text::text(&mut rng, 40);
        for wrapped in [t.clone(), format!("id = \"{t}\""), format!("setup = [\"{t}\"]\n[[task]]\nkind = \"{t}\"")] {
            let _ = draft::validation("l.toml", &wrapped);
            use_all(&wrapped, &mut rng);
        }
    }
}
