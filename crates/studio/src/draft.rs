//! What the studio shows of a draft: the lesson as a variant renders it (texts, lines, the
//! predicted replies), the validator's problems as `streamlab check` prints them, the state
//! at a place of the lesson in words, and a wrong path judged against a task's checks.

use serde::Serialize;
use streamlab_engine::Value as KeyValue;
use streamlab_lessons::model::{AnswerOption, NumericAnswer};
use streamlab_lessons::propose::{Expectation, Proposal};
use streamlab_lessons::script::{parse_line, Parsed};
use streamlab_lessons::validate::validate_lesson;
use streamlab_lessons::{check_log, parse_draft, predicted_reply, Lesson, LessonError, Line, LogLine, TaskKind};
use streamlab_protocol::console::DEFAULT_CONNECTION;
use streamlab_protocol::Session;

/// A problem at its line and column, and as `streamlab check` prints it.
#[derive(Debug, Serialize)]
pub struct Problem {
    /// Line, from 1 (0: the whole file).
    pub line: usize,
    /// Column, from 1 (0: the whole line).
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// `file:line:column: message`, the CLI's line.
    pub text: String,
}

fn problems(list: &[LessonError]) -> Vec<Problem> {
    list.iter()
        .map(|p| Problem { line: p.line, column: p.column, message: p.message.clone(), text: p.to_string() })
        .collect()
}

/// What the validator says of a file.
#[derive(Debug, Serialize)]
pub struct Validation {
    /// Every problem, in the validator's order.
    pub problems: Vec<Problem>,
    /// Why the lesson's commands were not run, if they were not.
    pub skipped: Option<String>,
}

/// Validates a file as `streamlab check` does (the golden trace aside: a draft has none yet).
pub fn validation(file: &str, text: &str) -> Validation {
    let report = validate_lesson(file, text);
    Validation { problems: problems(&report.problems), skipped: report.skipped }
}

/// A draft as one variant renders it.
#[derive(Debug, Serialize)]
pub struct Draft {
    /// The problems reading it found (the validator finds more).
    pub problems: Vec<Problem>,
    /// The lesson, once the file has a lesson's shape.
    pub lesson: Option<LessonView>,
}

/// A lesson's texts and lines in one variant.
#[derive(Debug, Serialize)]
pub struct LessonView {
    pub id: String,
    pub title: String,
    pub summary: String,
    pub profile: String,
    /// How many variants, the lesson as written (0) included.
    pub variants: usize,
    pub setup: Vec<String>,
    pub intro: Vec<IntroView>,
    pub tasks: Vec<TaskView>,
}

/// An intro step.
#[derive(Debug, Serialize)]
pub struct IntroView {
    pub text: String,
    pub demo: Vec<String>,
}

/// A task, everything a Redis Insight page or a preview shows of it.
#[derive(Debug, Serialize)]
pub struct TaskView {
    pub kind: &'static str,
    pub title: String,
    pub prompt: String,
    pub setup: Vec<String>,
    pub continues: bool,
    pub solution: Vec<String>,
    pub hints: Vec<String>,
    pub checks: usize,
    pub misconceptions: usize,
    #[serde(rename = "mustNotPass")]
    pub must_not_pass: usize,
    /// A predict task's command, and what the engine prints for it on this variant.
    pub command: Option<String>,
    pub reply: Option<String>,
    pub options: Vec<OptionView>,
    pub steps: Vec<String>,
    pub explain: String,
}

/// An option of a question.
#[derive(Debug, Serialize)]
pub struct OptionView {
    pub text: String,
    pub correct: bool,
    pub why: String,
}

/// Reads a draft; with a lesson's shape it comes back rendered on `variant` (the lesson as
/// written when there is no such variant).
pub fn draft(file: &str, text: &str, variant: usize) -> Draft {
    match parse_draft(file, text) {
        Ok((lesson, found)) => Draft { problems: problems(&found), lesson: Some(render(&lesson, variant)) },
        Err(found) => Draft { problems: problems(&found), lesson: None },
    }
}

fn render(l: &Lesson, variant: usize) -> LessonView {
    let variant = if variant < l.variants.len() { variant } else { 0 };
    let v = &l.variants[variant];
    let prose = |t: &str| l.render(t, variant);
    let lines = |ls: &[Line]| ls.iter().map(|line| v.apply(&line.text)).collect::<Vec<_>>();
    let options = |os: &[AnswerOption]| {
        os.iter().map(|o| OptionView { text: prose(&o.text), correct: o.correct, why: prose(&o.why) }).collect()
    };
    let tasks = l
        .tasks
        .iter()
        .enumerate()
        .map(|(n, t)| {
            let mut view = TaskView {
                kind: t.kind.name(),
                title: prose(&t.title),
                prompt: prose(&t.prompt),
                setup: lines(&t.setup),
                continues: t.continues,
                solution: Vec::new(),
                hints: Vec::new(),
                checks: 0,
                misconceptions: 0,
                must_not_pass: 0,
                command: None,
                reply: None,
                options: Vec::new(),
                steps: Vec::new(),
                explain: String::new(),
            };
            match &t.kind {
                TaskKind::ReachState(goal) => {
                    view.solution = lines(&goal.solution);
                    view.hints = goal.hints.iter().map(|h| prose(h)).collect();
                    (view.checks, view.misconceptions, view.must_not_pass) =
                        (goal.checks.len(), goal.misconceptions.len(), goal.must_not_pass.len());
                }
                TaskKind::Predict(p) => {
                    view.command = Some(v.apply(&p.command.text));
                    view.reply = predicted_reply(l, n, variant).ok();
                    view.options = options(&p.options);
                    view.explain = prose(&p.explain);
                }
                TaskKind::Choice(c) => view.options = options(&c.options),
                TaskKind::Numeric(q) => {
                    view.explain = prose(&q.explain);
                    if let NumericAnswer::Expr(e) = &q.answer {
                        view.command = Some(prose(e));
                    }
                }
                TaskKind::Order(o) => {
                    view.steps = o.steps.iter().map(|s| prose(s)).collect();
                    view.explain = prose(&o.explain);
                }
            }
            view
        })
        .collect();
    LessonView {
        id: l.id.clone(),
        title: prose(&l.title),
        summary: prose(&l.summary),
        profile: l.profile.name().to_owned(),
        variants: l.variants.len(),
        setup: lines(&l.setup),
        intro: l.intro.iter().map(|s| IntroView { text: prose(&s.text), demo: lines(&s.demo) }).collect(),
        tasks,
    }
}

/// A lesson line as the console runs it, or why a lesson cannot hold it.
pub fn log_line(text: &str) -> Result<LogLine, String> {
    match parse_line(text)? {
        Parsed::Run { conn, text } => Ok(LogLine::new(conn.unwrap_or(DEFAULT_CONNECTION), text)),
        Parsed::SwitchTo(_) => {
            Err("a lesson line says its connection itself: write `name> COMMAND` instead of `:as NAME`".into())
        }
    }
}

/// A wrong path (or any work) judged against a reach-state task's checks on the lesson as
/// written: whether the goal passes, what fails, and the misconception Check would name.
#[derive(Debug, Serialize)]
pub struct Judged {
    pub passed: bool,
    pub failures: Vec<String>,
    pub misconception: Option<String>,
    /// Why it could not be judged (no such task, not a reach-state task, no lesson yet).
    pub error: Option<String>,
}

/// The draft's lesson, unfinished or not, once the file has a lesson's shape; else the first
/// problem in the way, as `streamlab check` words it.
pub fn lesson_of(file: &str, text: &str) -> Result<Lesson, String> {
    match parse_draft(file, text) {
        Ok((lesson, _)) => Ok(lesson),
        Err(found) => Err(found.first().map_or_else(String::new, ToString::to_string)),
    }
}

/// Judges `lines` as the work of `task` on the lesson as written.
pub fn judge(file: &str, text: &str, task: usize, lines: &[String]) -> Judged {
    let refused =
        |error: String| Judged { passed: false, failures: Vec::new(), misconception: None, error: Some(error) };
    let lesson = match lesson_of(file, text) {
        Ok(lesson) => lesson,
        Err(error) => return refused(error),
    };
    // Lines as written (a recorded wrong path may hold `${expr}`), run as the lesson as
    // written fills them in, like the recorder that played them.
    let variant = match lesson.variant(0) {
        Ok(variant) => variant.clone(),
        Err(error) => return refused(error.to_string()),
    };
    let mut log = Vec::new();
    for line in lines {
        match log_line(&variant.apply(line)) {
            Ok(line) => log.push(line),
            Err(error) => return refused(error),
        }
    }
    match check_log(&lesson, task, 0, &log) {
        Ok(verdict) => Judged {
            passed: verdict.passed,
            failures: verdict.failures.into_iter().map(|f| f.message).collect(),
            misconception: verdict.misconception,
            error: None,
        },
        Err(error) => refused(error.to_string()),
    }
}

/// A proposed check as the studio shows and writes it.
#[derive(Debug, Serialize)]
pub struct ProposalView {
    pub kind: &'static str,
    /// The locating fields, in the order a file writes them.
    pub fields: Vec<(&'static str, String)>,
    pub before: String,
    pub after: String,
    /// `equals` or `present`.
    pub key: &'static str,
    /// The value to expect, as JSON (a number, a string, a boolean, or entries as lists).
    pub value: serde_json::Value,
    pub message: String,
}

/// A proposal as a view.
pub fn proposal_view(p: Proposal) -> ProposalView {
    let (key, value) = match p.expect {
        Expectation::Int(n) => ("equals", serde_json::Value::from(n)),
        Expectation::Text(t) => ("equals", serde_json::Value::from(t)),
        Expectation::Present(b) => ("present", serde_json::Value::from(b)),
        Expectation::Entries(e) => ("equals", serde_json::Value::from(e)),
    };
    ProposalView { kind: p.kind, fields: p.fields, before: p.before, after: p.after, key, value, message: p.message }
}

/// The state in words, a line per stream, group and consumer (and a line for the other
/// keys), for a variant's preview and the recording console's side.
pub fn state_lines(session: &Session) -> Vec<String> {
    let mut out = Vec::new();
    let mut others = Vec::new();
    for (key, value) in session.keyspace().iter() {
        let name = String::from_utf8_lossy(key);
        let KeyValue::Stream(s) = value else {
            others.push(name.into_owned());
            continue;
        };
        out.push(format!(
            "stream {name}: {} entries, last id {}, {} added in all",
            s.len(),
            s.last_id(),
            s.entries_added()
        ));
        for (group, g) in s.groups().iter() {
            let lag = s.lag(g).map_or_else(|| "nil".to_owned(), |n| n.to_string());
            let read = g.entries_read.map_or_else(|| "nil".to_owned(), |n| n.to_string());
            out.push(format!(
                "  group {}: last delivered {}, entries-read {read}, lag {lag}, {} pending",
                String::from_utf8_lossy(group),
                g.last_id,
                g.pel().len()
            ));
            for (consumer, c) in g.consumers().iter() {
                let ids: Vec<String> = c.pending().iter().map(ToString::to_string).collect();
                let held = if ids.is_empty() { "nothing pending".to_owned() } else { ids.join(" ") };
                out.push(format!("    {}: {held}", String::from_utf8_lossy(consumer)));
            }
        }
    }
    if !others.is_empty() {
        out.push(format!("other keys: {}", others.join(", ")));
    }
    if out.is_empty() {
        out.push("(no keys)".to_owned());
    }
    out
}
