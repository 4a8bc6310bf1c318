//! The headless StreamLab for course platforms and graders: the engine and the lesson checker
//! with no UI, compiled on its own so its wasm stays free of the app.
//!
//! [`Grader`] is a console session on a chosen profile: lines in, replies out as redis-cli
//! text *and* as values (the reply tree as JSON), plus the state snapshot the pictures draw.
//! [`GraderLesson`] is a parsed lesson whose checks run against a learner's command log on
//! any of its variants, so a platform can re-grade a log against hidden variants. Every answer
//! crossing to JavaScript is a JSON string (the DTOs are `streamlab_wasm::grade`'s);
//! `dist/grader/grader.js` (hand-written, with `grader.d.ts`) parses them into typed objects.

use streamlab_lessons::{check_choice, check_log, check_prediction, parse_lesson, parse_log, Lesson, Prediction};
use streamlab_wasm::grade::{outline, Headless};
use streamlab_wasm::json;
use streamlab_wasm::lesson::describe;
use wasm_bindgen::prelude::*;

fn js_error(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

/// A console session with no UI.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Grader {
    inner: Headless,
}

#[wasm_bindgen]
impl Grader {
    /// A session answering as `profile` (`redis-8.2` by default), its virtual clock starting
    /// at `clock` (Unix ms). Throws on an unknown profile.
    #[wasm_bindgen(constructor)]
    pub fn new(profile: Option<String>, clock: Option<f64>) -> Result<Grader, JsError> {
        Headless::create(profile.as_deref(), clock.map(|c| c as i64)).map(|inner| Grader { inner }).map_err(js_error)
    }

    /// Runs one line; JSON of `Executed`.
    pub fn execute(&mut self, line: &str) -> String {
        json(&self.inner.execute_line(line))
    }

    /// The state as the playground's pictures see it (JSON of its `SnapshotView`).
    pub fn snapshot(&self) -> String {
        json(&self.inner.snapshot())
    }

    /// The profile's name.
    pub fn profile(&self) -> String {
        self.inner.profile().to_owned()
    }

    /// The engine clock (Unix ms).
    pub fn now(&self) -> f64 {
        self.inner.now() as f64
    }

    /// A command file that rebuilds the session (`:as` and `:clock` lines included).
    pub fn script(&self) -> String {
        self.inner.script()
    }
}

/// A lesson, parsed and ready to check learners' work.
#[wasm_bindgen]
#[derive(Debug)]
pub struct GraderLesson {
    lesson: Lesson,
}

#[wasm_bindgen]
impl GraderLesson {
    /// Parses a lesson file (TOML); throws with every problem and its line.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str, file: Option<String>) -> Result<GraderLesson, JsError> {
        parse_lesson(file.as_deref().unwrap_or("lesson.toml"), text)
            .map(|lesson| GraderLesson { lesson })
            .map_err(|problems| JsError::new(&describe(&problems)))
    }

    /// JSON of `LessonInfo`.
    pub fn info(&self) -> String {
        json(&outline(&self.lesson))
    }

    /// Checks a reach-state task against a learner's log (a command file: `:as NAME`,
    /// `name> COMMAND`, `:clock +MS`, one per line) on a variant; JSON of the verdict.
    #[wasm_bindgen(js_name = checkLog)]
    pub fn check_log(&self, task: usize, log: &str, variant: usize) -> Result<String, JsError> {
        check_log(&self.lesson, task, variant, &parse_log(log)).map(|v| json(&v)).map_err(js_error)
    }

    /// Checks the option chosen in a multiple-choice task; JSON of the answer.
    #[wasm_bindgen(js_name = checkChoice)]
    pub fn check_choice(&self, task: usize, option: usize) -> Result<String, JsError> {
        check_choice(&self.lesson, task, option).map(|a| json(&a)).map_err(js_error)
    }

    /// Checks a predict task's answer on a variant: an option's index, or the reply as typed.
    #[wasm_bindgen(js_name = checkPrediction)]
    pub fn check_prediction(
        &self,
        task: usize,
        variant: usize,
        option: Option<usize>,
        typed: Option<String>,
    ) -> Result<String, JsError> {
        let answer = match (option, typed) {
            (Some(n), _) => Prediction::Option(n),
            (None, Some(text)) => Prediction::Typed(text),
            (None, None) => return Err(JsError::new("an answer is an option index or the typed reply")),
        };
        check_prediction(&self.lesson, task, variant, &answer).map(|a| json(&a)).map_err(js_error)
    }
}
