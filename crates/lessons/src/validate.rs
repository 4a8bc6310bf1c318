//! The validator: everything `streamlab check lessons/` verifies, on strings (the CLI reads
//! and writes the files; the player validates a pasted lesson with the same calls).
//!
//! For one lesson ([`validate_lesson`]): the file parses (unknown fields are errors with their
//! line); its text has no raw HTML and names only commands its profile has; every setup,
//! demo and solution runs on every variant without unexpected errors and with the engine's
//! invariants intact; every reach-state goal fails on its start state and after every
//! must-not-pass sequence, passes after its solution, and is not passed by the solution of
//! the lesson as written run on a hidden variant; every choice has a right option and an
//! explanation for each; every predict option agrees with what the engine prints. The
//! report carries the golden trace of the runs, which the CLI compares with
//! `lessons/golden/<id>.txt`. For the collection ([`validate_index`]): the index and the
//! lessons agree, and prerequisites come first.

use streamlab_protocol::command::{self, CommandSpec};
use streamlab_protocol::console::Console;

use crate::check::{check_log, disabled_in, evaluate, normalise_reply, run, run_one};
use crate::error::LessonError;
use crate::model::{AnswerOption, Goal, Lesson, Line, Need, TaskKind, Variant};
use crate::parse::parse_lesson;
use crate::script::{command_words, log_of, steps};
use crate::shape::{self, array, string, table, Fields, Read};
use crate::toml::{Spanned, Value};

/// What validating one lesson file found.
#[derive(Debug, Clone)]
pub struct Report {
    /// The file.
    pub file: String,
    /// The lesson, when the file parsed.
    pub lesson: Option<Lesson>,
    /// Every problem found; the lesson passes when there is none.
    pub problems: Vec<LessonError>,
    /// Why the lesson's commands were not run (features the engine lacks), if they were not.
    pub skipped: Option<String>,
    /// The golden trace: every setup, demo and solution with its replies, per variant.
    pub trace: String,
}

impl Report {
    /// Whether no problem was found.
    pub fn passed(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Validates one lesson file's text. `file` names it in messages; its name (without
/// directories and `.toml`) must be the lesson's id.
pub fn validate_lesson(file: &str, text: &str) -> Report {
    match parse_lesson(file, text) {
        Ok(lesson) => {
            let mut report = validate_parsed(&lesson);
            let stem = file.rsplit(['/', '\\']).next().unwrap_or("").trim_end_matches(".toml");
            if stem != lesson.id {
                let message = format!("the file of lesson `{}` must be named `{}.toml`", lesson.id, lesson.id);
                report.problems.insert(0, LessonError::on_line(file, 0, message));
            }
            report.lesson = Some(lesson);
            report
        }
        Err(errors) => {
            Report { file: file.to_owned(), lesson: None, problems: errors, skipped: None, trace: String::new() }
        }
    }
}

/// Validates a parsed lesson: everything [`validate_lesson`] checks except that the file is
/// named after the lesson's id (a lesson from a URL or a paste may be named anything). The
/// report's `lesson` is left empty: the caller has it.
pub fn validate_parsed(lesson: &Lesson) -> Report {
    let mut v = Validator { lesson, problems: Vec::new() };
    v.static_checks();
    let mut trace = String::new();
    let mut skipped = None;
    let missing = missing_needs(lesson);
    if missing.is_empty() {
        trace = v.run_everything();
    } else {
        let names: Vec<String> = missing.iter().map(Need::to_string).collect();
        skipped = Some(format!(
            "needs {} ({} profile), which this engine does not have yet; its commands were not run",
            names.join(", "),
            lesson.profile
        ));
    }
    Report { file: lesson.file.clone(), lesson: None, problems: v.problems, skipped, trace }
}

/// The needs the engine does not meet: a command it does not know, or an option its syntax
/// does not list.
pub fn missing_needs(lesson: &Lesson) -> Vec<Need> {
    lesson
        .needs
        .iter()
        .filter(|need| match command::lookup(need.command.as_bytes()) {
            None => true,
            Some(spec) => need.option.as_ref().is_some_and(|option| !syntax_has(spec, option)),
        })
        .cloned()
        .collect()
}

/// Whether a word is an option keyword of some command (`COUNT`, `MAXLEN`, `NOACK`, ...).
fn is_option_keyword(word: &str) -> bool {
    command::all().any(|spec| syntax_has(spec, word))
}

fn syntax_has(spec: &CommandSpec, keyword: &str) -> bool {
    let words =
        |syntax: &str| syntax.split(|c: char| !c.is_ascii_alphanumeric()).any(|w| w.eq_ignore_ascii_case(keyword));
    words(spec.syntax) || spec.subcommands.iter().any(|s| words(s.syntax))
}

struct Validator<'a> {
    lesson: &'a Lesson,
    problems: Vec<LessonError>,
}

impl Validator<'_> {
    fn problem(&mut self, line: usize, message: impl Into<String>) {
        self.problems.push(LessonError::on_line(&self.lesson.file, line, message));
    }

    // ----- checks that need no engine run -------------------------------------------------

    fn static_checks(&mut self) {
        let lesson = self.lesson;
        if lesson.minutes == 0 {
            self.problem(0, "`minutes` must be at least 1");
        }
        for need in &lesson.needs {
            if let Some(spec) = command::lookup(need.command.as_bytes()) {
                if need.option.is_none() {
                    self.problem(need.line, format!("`{}` is a command this engine has; it is not a need", spec.name));
                }
            }
        }
        let mut texts: Vec<(usize, &str)> = vec![(0, &lesson.title), (0, &lesson.summary)];
        texts.extend(lesson.intro.iter().map(|s| (s.line, s.text.as_str())));
        let mut all_lines: Vec<&Line> = lesson.setup.iter().collect();
        all_lines.extend(lesson.intro.iter().flat_map(|s| s.demo.iter()));
        let reach_states = lesson.tasks.iter().filter(|t| matches!(t.kind, TaskKind::ReachState(_))).count();
        if reach_states == 0 || reach_states == lesson.tasks.len() {
            self.problem(0, "a lesson needs at least one reach-state task and a quiz (a choice or predict task)");
        }
        if reach_states > 0 && lesson.variants.len() < 2 {
            self.problem(0, "a lesson with reach-state tasks needs at least one hidden [[variant]]");
        }
        for (n, task) in lesson.tasks.iter().enumerate() {
            let label = format!("task {}", n + 1);
            texts.extend([(task.line, task.title.as_str()), (task.line, task.prompt.as_str())]);
            all_lines.extend(task.setup.iter());
            match &task.kind {
                TaskKind::ReachState(goal) => {
                    all_lines.extend(goal.solution.iter());
                    all_lines.extend(goal.must_not_pass.iter().flatten());
                    texts.extend(goal.hints.iter().map(|h| (task.line, h.as_str())));
                    for check in &goal.checks {
                        texts.push((check.line, check.message.as_str()));
                        if let crate::model::Subject::Reply { command } = &check.subject {
                            self.command_line(check.line, command);
                        }
                    }
                    if goal.hints.is_empty() {
                        self.problem(task.line, format!("{label}: a reach-state task needs at least one hint"));
                    }
                    if goal.must_not_pass.is_empty() {
                        self.problem(task.line, format!("{label}: give at least one `must_not_pass` sequence"));
                    }
                    for name in &goal.disabled {
                        let (command, sub) = command_words(name);
                        if !self.known_command(&command, &sub) {
                            self.problem(task.line, format!("{label}: disabled command `{name}` does not exist"));
                        }
                    }
                    for (line, step) in steps(&goal.solution, &Variant::default()) {
                        if step.is_command() && disabled_in(goal, &step.text) {
                            self.problem(line, format!("{label}: the solution uses a disabled command"));
                        }
                    }
                }
                TaskKind::Predict(predict) => {
                    all_lines.push(&predict.command);
                    texts.push((task.line, predict.explain.as_str()));
                    self.options(task.line, &label, &predict.options, true);
                    if predict.explain.trim().is_empty() {
                        self.problem(task.line, format!("{label}: `explain` is empty"));
                    }
                }
                TaskKind::Choice(choice) => {
                    if choice.options.is_empty() {
                        self.problem(task.line, format!("{label}: a choice task needs `options`"));
                    }
                    self.options(task.line, &label, &choice.options, false);
                }
            }
            let options = match &task.kind {
                TaskKind::Predict(p) => p.options.as_slice(),
                TaskKind::Choice(c) => c.options.as_slice(),
                TaskKind::ReachState(_) => &[],
            };
            for option in options {
                texts.push((option.line, option.text.as_str()));
                texts.push((option.line, option.why.as_str()));
            }
        }
        for (line, text) in texts {
            self.text(line, text);
        }
        for line in all_lines {
            for (number, step) in steps(std::slice::from_ref(line), &Variant::default()) {
                if step.is_command() {
                    self.command_line(number, &step.text);
                }
            }
        }
    }

    fn options(&mut self, line: usize, label: &str, options: &[AnswerOption], predict: bool) {
        if options.is_empty() {
            return;
        }
        if options.len() < 2 {
            self.problem(line, format!("{label}: give at least two options"));
        }
        let correct = options.iter().filter(|o| o.correct).count();
        if correct == 0 {
            self.problem(line, format!("{label}: no option is marked `correct = true`"));
        }
        if predict && correct > 1 {
            self.problem(line, format!("{label}: a predict task has exactly one right reply"));
        }
        for option in options {
            if option.why.trim().is_empty() {
                self.problem(option.line, format!("{label}: every option needs a `why`"));
            }
            if option.text.trim().is_empty() {
                self.problem(option.line, format!("{label}: an option's text is empty"));
            }
        }
    }

    fn text(&mut self, line: usize, text: &str) {
        if let Some(tag) = raw_html(text) {
            self.problem(
                line,
                format!("raw HTML is not allowed in lesson text: `{tag}` (use markdown, or put it in backticks)"),
            );
        }
        for (name, sub) in mentioned_commands(text) {
            self.named_command(line, &name, sub.as_deref());
        }
    }

    fn known_command(&self, name: &str, sub: &str) -> bool {
        match command::lookup(name.as_bytes()) {
            Some(spec) => {
                sub.is_empty()
                    || spec.subcommands.is_empty()
                    || spec.subcommands.iter().any(|s| s.name.eq_ignore_ascii_case(sub))
            }
            None => false,
        }
    }

    /// A command named in text or run by a line must exist in the lesson's profile, unless
    /// it is one of the lesson's needs. Option keywords (`COUNT 2`) are not commands.
    fn named_command(&mut self, line: usize, name: &str, sub: Option<&str>) {
        let needed = self.lesson.needs.iter().any(|n| {
            n.command.eq_ignore_ascii_case(name) || n.option.as_deref().is_some_and(|o| o.eq_ignore_ascii_case(name))
        });
        match command::lookup(name.as_bytes()) {
            None if needed || is_option_keyword(name) => {}
            None => self.problem(line, format!("`{name}` is not a command")),
            Some(spec) => {
                // The profile table decides, as it does for the session the lesson runs on.
                if !self.lesson.profile.caps().has_command(&name.to_ascii_lowercase()) && !needed {
                    self.problem(
                        line,
                        format!("`{name}` does not exist in this lesson's profile {}", self.lesson.profile),
                    );
                }
                if let Some(sub) = sub {
                    if !spec.subcommands.is_empty()
                        && !spec.subcommands.iter().any(|s| s.name.eq_ignore_ascii_case(sub))
                    {
                        self.problem(line, format!("`{name} {sub}` is not a subcommand"));
                    }
                }
            }
        }
    }

    fn command_line(&mut self, line: usize, text: &str) {
        let (name, sub) = command_words(text);
        let sub = (!sub.is_empty()).then_some(sub);
        self.named_command(line, &name, sub.as_deref());
    }

    // ----- runs ---------------------------------------------------------------------------

    /// Runs everything on every variant; returns the golden trace.
    fn run_everything(&mut self) -> String {
        let lesson = self.lesson;
        let mut trace = format!(
            "# Golden trace of lesson `{}` (version {}): its setup, demos and solutions with their replies,\n\
             # on every variant. `streamlab check --bless lessons/` rewrites it.\n",
            lesson.id, lesson.version
        );
        for (vn, variant) in lesson.variants.iter().enumerate() {
            trace.push_str(&format!("\n# ===== variant {vn}: {}\n", describe_variant(variant)));
            let mut base = lesson.fresh_console(variant);
            trace.push_str("# setup\n");
            self.traced(&mut base, &lesson.setup, variant, &mut trace, Strict::NoErrors, "setup");
            for (sn, step) in lesson.intro.iter().enumerate() {
                if !step.demo.is_empty() {
                    trace.push_str(&format!("# intro step {}\n", sn + 1));
                    self.traced(&mut base, &step.demo, variant, &mut trace, Strict::KnownCommands, "demo");
                }
            }
            for (tn, task) in lesson.tasks.iter().enumerate() {
                let label = format!("task {} (variant {vn})", tn + 1);
                match &task.kind {
                    TaskKind::ReachState(goal) => {
                        trace.push_str(&format!("# task {}: {} (reach-state)\n", tn + 1, task.title));
                        let mut console = base.clone();
                        self.traced(&mut console, &task.setup, variant, &mut trace, Strict::NoErrors, "task setup");
                        let start = console.clone();
                        if evaluate(goal, variant, start.session()).is_empty() {
                            self.problem(task.line, format!("{label}: the goal already passes on the start state"));
                        }
                        trace.push_str("# solution\n");
                        self.traced(&mut console, &goal.solution, variant, &mut trace, Strict::NoErrors, "solution");
                        let failures = evaluate(goal, variant, console.session());
                        // The checker the player calls must agree with the traced run.
                        let verdict = check_log(lesson, tn, vn, &log_of(&goal.solution, variant));
                        if !failures.is_empty() || !verdict.as_ref().is_ok_and(|v| v.passed) {
                            let checked = verdict.map(|v| v.failures).unwrap_or_default();
                            let mut messages: Vec<String> = failures.iter().map(|f| f.message.clone()).collect();
                            for failure in checked {
                                if !messages.contains(&failure.message) {
                                    messages.push(failure.message);
                                }
                            }
                            self.problem(
                                task.line,
                                format!("{label}: the solution does not pass: {}", messages.join(" | ")),
                            );
                        }
                        self.must_not_pass(tn, vn, goal, &start, variant);
                        if vn > 0 {
                            self.memorised(tn, vn, goal, &start, variant);
                        }
                    }
                    TaskKind::Predict(predict) => {
                        trace.push_str(&format!("# task {}: {} (predict)\n", tn + 1, task.title));
                        let mut console = base.clone();
                        self.traced(&mut console, &task.setup, variant, &mut trace, Strict::NoErrors, "task setup");
                        let printed = self.traced(
                            &mut console,
                            std::slice::from_ref(&predict.command),
                            variant,
                            &mut trace,
                            Strict::KnownCommands,
                            "predicted command",
                        );
                        self.prediction(tn, vn, &predict.options, &printed.join("\n"), variant);
                    }
                    TaskKind::Choice(_) => {}
                }
            }
        }
        trace
    }

    /// Runs lines with their replies appended to the trace; reports error replies as `strict`
    /// says and broken engine invariants. Returns everything the lines printed.
    fn traced(
        &mut self,
        console: &mut Console,
        lines: &[Line],
        variant: &Variant,
        trace: &mut String,
        strict: Strict,
        what: &str,
    ) -> Vec<String> {
        let mut printed = Vec::new();
        for (line, step) in steps(lines, variant) {
            let out = run_one(console, &step, trace);
            if let Some(error) = out.iter().find(|l| l.starts_with("(error)")) {
                let unknown = error.contains("ERR unknown command") || error.contains("ERR unknown subcommand");
                if strict == Strict::NoErrors || unknown {
                    self.problem(line, format!("{what} `{}` replied {error}", step.text));
                }
            }
            if let Err(broken) = console.session().check_invariants() {
                self.problem(line, format!("engine invariant broken after `{}`: {broken}", step.text));
            }
            printed.extend(out);
        }
        printed
    }

    fn must_not_pass(&mut self, tn: usize, vn: usize, goal: &Goal, start: &Console, variant: &Variant) {
        for sequence in &goal.must_not_pass {
            let mut console = start.clone();
            run(&mut console, &log_of(sequence, variant), &[], None);
            if evaluate(goal, variant, console.session()).is_empty() {
                let line = sequence.first().map_or(self.lesson.tasks[tn].line, |l| l.line);
                self.problem(
                    line,
                    format!("task {} (variant {vn}): this must_not_pass sequence passes the goal", tn + 1),
                );
            }
        }
    }

    /// The solution of the lesson as written, typed from memory into a hidden variant, must
    /// not pass: that is what variants are for.
    fn memorised(&mut self, tn: usize, vn: usize, goal: &Goal, start: &Console, variant: &Variant) {
        let mut console = start.clone();
        run(&mut console, &log_of(&goal.solution, &Variant::default()), &[], None);
        if evaluate(goal, variant, console.session()).is_empty() {
            self.problem(
                self.lesson.tasks[tn].line,
                format!(
                    "task {} (variant {vn}): the solution as written also passes this variant; \
                     shift an id or rename a value the solution uses",
                    tn + 1
                ),
            );
        }
    }

    fn prediction(&mut self, tn: usize, vn: usize, options: &[AnswerOption], reply: &str, variant: &Variant) {
        let task_line = self.lesson.tasks[tn].line;
        if options.is_empty() {
            if reply.lines().count() != 1 {
                self.problem(
                    task_line,
                    format!("task {} (variant {vn}): a typed prediction needs a one-line reply; give options", tn + 1),
                );
            }
            return;
        }
        let reply = normalise_reply(reply);
        for option in options {
            let matches = normalise_reply(&variant.apply(&option.text)) == reply;
            if option.correct && !matches {
                self.problem(
                    option.line,
                    format!("task {} (variant {vn}): the right option differs from the reply:\n{reply}", tn + 1),
                );
            }
            if !option.correct && matches {
                self.problem(
                    option.line,
                    format!("task {} (variant {vn}): an option marked wrong is the real reply", tn + 1),
                );
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strict {
    /// Any error reply is a problem.
    NoErrors,
    /// Only unknown commands are (demos may show an error on purpose).
    KnownCommands,
}

fn describe_variant(variant: &Variant) -> String {
    if variant.is_identity() {
        return "the lesson as written".into();
    }
    let mut parts = Vec::new();
    if variant.ids > 0 {
        parts.push(format!("ids +{}", variant.ids));
    }
    if variant.clock != 0 {
        parts.push(format!("clock +{}ms", variant.clock));
    }
    for (from, to) in &variant.values {
        parts.push(format!("{from} -> {to}"));
    }
    parts.join(", ")
}

/// The first raw HTML tag (or comment, or autolink) outside code in markdown text.
pub fn raw_html(text: &str) -> Option<String> {
    for (code, part) in split_code(text) {
        if code {
            continue;
        }
        let bytes = part.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'<'
                && bytes.get(i + 1).is_some_and(|&n| n.is_ascii_alphabetic() || n == b'/' || n == b'!' || n == b'?')
            {
                let end = part[i..].find('>').map_or(part.len(), |e| i + e + 1);
                return Some(part[i..end.min(i + 40)].to_owned());
            }
        }
    }
    None
}

/// Markdown split into (is code, text) parts: fenced blocks and backtick spans are code.
fn split_code(text: &str) -> Vec<(bool, &str)> {
    let mut parts = Vec::new();
    let mut rest = text;
    loop {
        let fence = rest.find("```");
        let tick = rest.find('`');
        match (fence, tick) {
            (Some(f), Some(t)) if f == t => {
                parts.push((false, &rest[..f]));
                let after = &rest[f + 3..];
                let end = after.find("```").map_or(after.len(), |e| e);
                parts.push((true, &after[..end]));
                rest = after.get(end + 3..).unwrap_or("");
            }
            (_, Some(t)) => {
                parts.push((false, &rest[..t]));
                let run = rest[t..].bytes().take_while(|&b| b == b'`').count();
                let after = &rest[t + run..];
                let closing = "`".repeat(run);
                let end = after.find(&closing).unwrap_or(after.len());
                parts.push((true, &after[..end]));
                rest = after.get(end + run..).unwrap_or("");
            }
            _ => {
                parts.push((false, rest));
                return parts;
            }
        }
    }
}

/// Commands named in markdown text: the first word of a code span or code line when it is in
/// capitals and followed by arguments (`XACK jobs workers 1-0`), with its subcommand if the
/// next word is in capitals too; and, in prose, words in capitals that start with `X` (every
/// stream command does), such as XAUTOCLAIM.
pub fn mentioned_commands(text: &str) -> Vec<(String, Option<String>)> {
    let caps = |w: &str| w.len() >= 2 && w.chars().all(|c| c.is_ascii_uppercase());
    let mut found = Vec::new();
    for (code, part) in split_code(text) {
        if code {
            for line in part.lines() {
                let words: Vec<&str> = line.split_whitespace().collect();
                if words.len() >= 2 && caps(words[0]) {
                    let sub = caps(words[1]).then(|| words[1].to_owned());
                    found.push((words[0].to_owned(), sub));
                }
            }
        } else {
            for word in part.split(|c: char| !c.is_ascii_alphanumeric()) {
                if word.len() >= 4 && word.starts_with('X') && caps(word) {
                    found.push((word.to_owned(), None));
                }
            }
        }
    }
    found
}

/// `lessons/index.toml`: the order of lessons, in sections.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Index {
    /// The sections, in order.
    #[serde(rename = "section")]
    pub sections: Vec<Section>,
}

/// A section of the lesson list.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Section {
    /// Its title.
    pub title: String,
    /// Lesson ids, in order.
    pub lessons: Vec<String>,
}

impl Index {
    /// Every lesson id, in order.
    pub fn order(&self) -> impl Iterator<Item = &String> {
        self.sections.iter().flat_map(|s| s.lessons.iter())
    }
}

/// Parses `index.toml`.
pub fn parse_index(file: &str, text: &str) -> Result<Index, LessonError> {
    let read = || -> Read<Index> {
        let doc = shape::document(text)?;
        let fields = Fields::new(doc.get_ref(), doc.span(), &["section"])?;
        let section = |v: &Spanned<Value>| {
            let read = |f: &Fields<'_>| {
                Ok(Section {
                    title: f.required("title", string)?,
                    lessons: f.required("lessons", |v| array(v, string))?,
                })
            };
            table(v, &["title", "lessons"], read).map(Spanned::into_inner)
        };
        Ok(Index { sections: fields.required("section", |v| array(v, section))? })
    };
    read().map_err(|error| LessonError::at(file, text, error.span.start, error.message))
}

/// Checks the index against the lessons: every lesson listed once, every listed id a lesson,
/// prerequisites listed before the lessons that need them.
pub fn validate_index(file: &str, index: &Index, lessons: &[&Lesson]) -> Vec<LessonError> {
    let mut problems = Vec::new();
    let order: Vec<&String> = index.order().collect();
    for (n, id) in order.iter().enumerate() {
        if order[..n].contains(id) {
            problems.push(LessonError::on_line(file, 0, format!("lesson `{id}` is listed twice")));
        }
        if !lessons.iter().any(|l| &l.id == *id) {
            problems.push(LessonError::on_line(file, 0, format!("lesson `{id}` is listed but has no file")));
        }
    }
    for lesson in lessons {
        let Some(position) = order.iter().position(|id| **id == lesson.id) else {
            problems.push(LessonError::on_line(file, 0, format!("lesson `{}` is not listed in the index", lesson.id)));
            continue;
        };
        for prerequisite in &lesson.prerequisites {
            match order.iter().position(|id| *id == prerequisite) {
                Some(p) if p < position => {}
                Some(_) => problems.push(LessonError::on_line(
                    &lesson.file,
                    0,
                    format!("prerequisite `{prerequisite}` comes after this lesson in the index"),
                )),
                None => problems.push(LessonError::on_line(
                    &lesson.file,
                    0,
                    format!("prerequisite `{prerequisite}` is not a lesson"),
                )),
            }
        }
    }
    problems
}
