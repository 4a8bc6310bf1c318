//! The lesson studio's engine for the browser (`dist/studio/`, loaded only by `studio.html`,
//! so the playground's wasm carries none of it): a draft's TOML tree with its places for
//! editing in place, the draft rendered on a variant, the validator's problems as `streamlab
//! check` prints them, a recording console at any place of the lesson, the checks a solution
//! suggests, and wrong paths judged. Every answer to JavaScript is a JSON string; the studio's
//! own script (`web/assets/studio/`) reads them.

pub mod draft;
pub mod tree;

use serde::Serialize;
use streamlab_lessons::propose::propose;
use streamlab_lessons::{run_one, CheckError, Lesson, Variant};
use streamlab_protocol::console::Console;
use streamlab_protocol::Session;
use wasm_bindgen::prelude::*;

fn json<T: Serialize>(value: &T) -> String {
    // The DTOs are strings, numbers and lists: they always serialize.
    serde_json::to_string(value).unwrap_or_default()
}

/// The file's TOML tree (`{ok: true, tree}`) or where it is broken (`{ok: false, broken}`).
#[wasm_bindgen]
pub fn tree(text: &str) -> String {
    #[derive(Serialize)]
    struct Out {
        ok: bool,
        tree: Option<tree::Node>,
        broken: Option<tree::Broken>,
    }
    match tree::tree(text) {
        Ok(node) => json(&Out { ok: true, tree: Some(node), broken: None }),
        Err(broken) => json(&Out { ok: false, tree: None, broken: Some(broken) }),
    }
}

/// The server profiles a lesson may name (JSON list), in the engine's order.
#[wasm_bindgen]
pub fn profiles() -> String {
    json(&streamlab_protocol::Profile::ALL.iter().map(|p| p.name()).collect::<Vec<_>>())
}

/// Lesson markdown read into blocks and runs (JSON), for the studio's preview: the player's
/// own reading of it, drawn there as text nodes.
#[wasm_bindgen]
pub fn markdown(text: &str) -> String {
    json(&streamlab_lessons::markdown::blocks(text))
}

/// A text of the draft as the lesson as written shows it: its `${expr}` filled in with the
/// draft's parameters (the text as given when the draft has no lesson's shape yet), for the
/// markdown previews while the author types.
#[wasm_bindgen]
pub fn prose(file: &str, text: &str, prose: &str) -> String {
    draft::lesson_of(file, text).map_or_else(|_| prose.to_owned(), |lesson| lesson.render(prose, 0))
}

/// The draft rendered on `variant`, with the problems reading it found.
#[wasm_bindgen]
pub fn draft(file: &str, text: &str, variant: u32) -> String {
    json(&draft::draft(file, text, variant as usize))
}

/// Everything `streamlab check` finds in the file but the golden trace.
#[wasm_bindgen]
pub fn validate(file: &str, text: &str) -> String {
    json(&draft::validation(file, text))
}

/// `lines` (a JSON array of lesson lines) judged as the work of reach-state task `task`.
#[wasm_bindgen]
pub fn judge(file: &str, text: &str, task: u32, lines: Vec<String>) -> String {
    json(&draft::judge(file, text, task as usize, &lines))
}

/// A console at a place of a draft, recording what the author plays there: `setup` (after
/// the lesson's setup), `intro` (after every intro demo too), or a task's index (its start
/// state). It knows the state it started from, so it can say what the lines changed.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Recorder {
    console: Console,
    start: Session,
    /// The variant played: lines are written as lessons write them (`${expr}` included) and
    /// run as it rewrites them.
    variant: Variant,
}

/// What one line printed.
#[derive(Serialize)]
struct Ran {
    ok: bool,
    lines: Vec<String>,
    /// Why the line was not run (a line no lesson may hold).
    refused: Option<String>,
}

#[wasm_bindgen]
impl Recorder {
    /// A console at `place` of the draft in `variant`, then `lines` (as written) run there:
    /// what is already recorded. Throws when the file has no lesson's shape or there is no such
    /// place.
    #[wasm_bindgen(constructor)]
    pub fn new(file: &str, text: &str, place: &str, variant: u32, lines: Vec<String>) -> Result<Recorder, JsError> {
        Recorder::open(file, text, place, variant as usize, &lines).map_err(|e| JsError::new(&e))
    }

    /// Runs one lesson line (`COMMAND`, `name> COMMAND`, `:clock +MS`); JSON of what it
    /// printed, or why a lesson cannot hold it.
    pub fn run(&mut self, line: &str) -> String {
        match draft::log_line(&self.variant.apply(line)) {
            Ok(line) => {
                let lines = run_one(&mut self.console, &line, &mut String::new());
                let ok = !lines.iter().any(|l| l.starts_with("(error)"));
                json(&Ran { ok, lines, refused: None })
            }
            Err(why) => json(&Ran { ok: false, lines: Vec::new(), refused: Some(why) }),
        }
    }

    /// The checks the recorded lines suggest (JSON list of proposals).
    pub fn propose(&self) -> String {
        let found: Vec<_> =
            propose(&self.start, self.console.session()).into_iter().map(draft::proposal_view).collect();
        json(&found)
    }

    /// The state now, in words (JSON list of lines).
    pub fn state(&self) -> String {
        json(&draft::state_lines(self.console.session()))
    }
}

impl Recorder {
    /// [`Recorder::new`], for Rust callers.
    pub fn open(file: &str, text: &str, place: &str, variant: usize, lines: &[String]) -> Result<Recorder, String> {
        let lesson = draft::lesson_of(file, text)?;
        let mut console = at(&lesson, place, variant)?;
        let start = console.session().clone();
        let variant = lesson.variant(variant).map_err(|e| e.to_string())?.clone();
        for line in lines {
            // Lines a lesson cannot hold were refused as they were played; none is recorded.
            if let Ok(line) = draft::log_line(&variant.apply(line)) {
                run_one(&mut console, &line, &mut String::new());
            }
        }
        Ok(Recorder { console, start, variant })
    }
}

/// The console at a place of the lesson.
fn at(lesson: &Lesson, place: &str, variant: usize) -> Result<Console, String> {
    let describe = |e: CheckError| e.to_string();
    match place {
        "setup" => lesson.after_setup(variant).map_err(describe),
        "intro" => lesson.after_intro(variant).map_err(describe),
        task => match task.parse::<usize>() {
            Ok(n) => lesson.task_start(n, variant).map_err(describe),
            Err(_) => Err(format!("no place `{task}` in a lesson: `setup`, `intro` or a task's number")),
        },
    }
}
