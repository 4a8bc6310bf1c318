//! The headless StreamLab for course platforms and graders: the engine and the lesson checker
//! with no UI, compiled on its own so its wasm stays free of the app.
//!
//! [`Grader`] is a console session on a chosen profile: lines in, replies out as redis-cli
//! text *and* as values (the reply tree as JSON), plus the state snapshot the pictures draw.
//! [`GraderLesson`] is a parsed lesson whose checks run against a learner's command log on
//! any of its variants, so a platform can re-grade a log against hidden variants. Every answer
//! crossing to JavaScript is a JSON string (the DTOs are `streamlab_view::grade`'s);
//! `dist/grader/grader.js` (hand-written, with `grader.d.ts`) parses them into typed objects.

use streamlab_lessons::{check_answer, check_chain, parse_lesson, parse_log, shown_order, Answer, Lesson};
use streamlab_view::grade::{outline, Headless};
use streamlab_view::json;
use streamlab_view::lesson::describe;
use wasm_bindgen::prelude::*;

fn js_error(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

/// Grows the wasm memory ahead of a growing session, doubling it each time the allocator had
/// to grow it: the allocator grows memory a little at a time, and in V8 each `memory.grow`
/// (and the garbage collection the bigger memory then triggers) cost a grader replaying a
/// million-line log with its full history a third of its time. Reserving as much again as the
/// memory holds and freeing it at once leaves the allocator that much free space at the top
/// of its heap, so the next growth comes out of it; the pages stay untouched (not resident)
/// until used. A reservation that does not fit (near 4 GB) is simply not made.
fn grow_ahead() {
    #[cfg(target_arch = "wasm32")]
    {
        use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
        /// The memory's size in pages after the last growth ahead (an atomic only to be a
        /// safe static: the module runs on one thread).
        static AHEAD: AtomicUsize = AtomicUsize::new(0);
        let pages = core::arch::wasm32::memory_size::<0>();
        if pages > AHEAD.load(Relaxed) {
            let mut spare: Vec<u8> = Vec::new();
            let _ = spare.try_reserve_exact(pages.saturating_mul(65_536));
            drop(spare);
            AHEAD.store(core::arch::wasm32::memory_size::<0>(), Relaxed);
        }
    }
}

/// A solved reach-state task's score in the player: 3, one less for hints, one less for more
/// state-changing commands than par, 1 whenever the solution was shown.
#[wasm_bindgen(js_name = taskScore)]
pub fn task_score(commands: usize, par: usize, hints: usize, solution_viewed: bool) -> u32 {
    streamlab_view::embed::task_score(commands, par, hints, solution_viewed)
}

/// A question's score once answered right: 1 when no answer before was wrong and the reply
/// was not shown first.
#[wasm_bindgen(js_name = questionScore)]
pub fn question_score(wrong: usize, solution_viewed: bool) -> u32 {
    streamlab_view::embed::question_score(wrong, solution_viewed)
}

/// A console session with no UI.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Grader {
    inner: Headless,
}

#[wasm_bindgen]
impl Grader {
    /// A session answering as `profile` (the newest Redis, `redis-8.10`, by default), its virtual clock starting
    /// at `clock` (Unix ms), keeping the last `history` steps for undo (all by default).
    /// Throws on an unknown profile.
    #[wasm_bindgen(constructor)]
    pub fn new(profile: Option<String>, clock: Option<f64>, history: Option<u32>) -> Result<Grader, JsError> {
        match Headless::create(profile.as_deref(), clock.map(|c| c as i64), history.map(|h| h as usize)) {
            Ok(inner) => Ok(Grader { inner }),
            Err(error) => Err(js_error(error)),
        }
    }

    /// Runs one line; JSON of `Executed`.
    pub fn execute(&mut self, line: &str) -> String {
        grow_ahead();
        json(&self.inner.execute_line(line))
    }

    /// Runs many lines in one call; compact JSON (see `Headless::run_lines`).
    pub fn run(&mut self, text: &str) -> String {
        grow_ahead();
        self.inner.run_lines(text)
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

    /// A command file that rebuilds the session (`:as` and `:clock` lines included); throws
    /// once a bounded history has forgotten steps.
    pub fn script(&self) -> Result<String, JsError> {
        match self.inner.script() {
            Ok(script) => Ok(script),
            Err(error) => Err(js_error(error)),
        }
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
        match parse_lesson(file.as_deref().unwrap_or("lesson.toml"), text) {
            Ok(lesson) => Ok(GraderLesson { lesson }),
            Err(problems) => Err(JsError::new(&describe(&problems))),
        }
    }

    /// JSON of `LessonInfo`.
    pub fn info(&self) -> String {
        json(&outline(&self.lesson))
    }

    /// Checks a reach-state task against a learner's log (a command file: `:as NAME`,
    /// `name> COMMAND`, `:clock +MS`, one per line) on a variant; JSON of the verdict. For a
    /// task that continues, `earlier` holds the learner's logs of the earlier tasks of its
    /// chain (from its first task on); without them those tasks' reference solutions are used,
    /// as they are for the places `solved` lists (a task the learner did not play before it).
    #[wasm_bindgen(js_name = checkLog)]
    pub fn check_log(
        &self,
        task: usize,
        log: &str,
        variant: usize,
        earlier: Option<Vec<String>>,
        solved: Option<Vec<u32>>,
    ) -> Result<String, JsError> {
        let solved = solved.unwrap_or_default();
        let mut logs = Vec::new();
        for (n, earlier) in earlier.unwrap_or_default().iter().enumerate() {
            logs.push((!solved.contains(&(n as u32))).then(|| parse_log(earlier)));
        }
        // Matches, not `map`/`map_err`: each combinator is its own instance in the wasm.
        match check_chain(&self.lesson, task, variant, &logs, &parse_log(log)) {
            Ok(verdict) => Ok(json(&verdict)),
            Err(error) => Err(js_error(error)),
        }
    }

    /// Checks an answer to a question on a variant: one option's index (predict, choice), the
    /// chosen options (multiple choice), the reply or number as typed (predict, numeric), or
    /// the steps in the learner's order (order). Indices are the lesson's, as written. JSON of
    /// the answer.
    #[wasm_bindgen(js_name = checkAnswer)]
    pub fn check_answer(
        &self,
        task: usize,
        variant: usize,
        option: Option<usize>,
        options: Option<Vec<u32>>,
        typed: Option<String>,
        order: Option<Vec<u32>>,
    ) -> Result<String, JsError> {
        let indices = |v: Vec<u32>| {
            let mut out = Vec::new();
            for n in v {
                out.push(n as usize);
            }
            out
        };
        let answer = match (option, options, typed, order) {
            (Some(n), None, None, None) => Answer::Option(n),
            (None, Some(set), None, None) => Answer::Options(indices(set)),
            (None, None, Some(text), None) => Answer::Typed(text),
            (None, None, None, Some(steps)) => Answer::Order(indices(steps)),
            _ => return Err(JsError::new("an answer is one of: an option, a set of options, a typed text, an order")),
        };
        match check_answer(&self.lesson, task, variant, &answer) {
            Ok(answered) => Ok(json(&answered)),
            Err(error) => Err(js_error(error)),
        }
    }

    /// The order a question's options (or an order task's steps) were shown in on `attempt`,
    /// as the lesson's indices: what the learner saw, to replay a logged answer.
    #[wasm_bindgen(js_name = shownOrder)]
    pub fn shown_order(&self, task: usize, attempt: u32) -> Vec<u32> {
        let mut out = Vec::new();
        for n in shown_order(&self.lesson, task, attempt) {
            out.push(n as u32);
        }
        out
    }
}
