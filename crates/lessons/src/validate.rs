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

use crate::check::disabled_in;
use crate::error::LessonError;
use crate::model::{AnswerOption, Goal, Lesson, Line, Loc, Need, SubjectKind, TaskKind};
use crate::parse::parse_lesson;
use crate::script::{code_parts, command_words, prose_words, steps};
use crate::shape::{self, required, Field, Fields, Ty, STRINGS};

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

mod runs;

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
        // Loops here, not adapter chains collected or extended: each chain is its own
        // iterator code in the wasm app.
        let mut all_lines: Vec<&Line> = Vec::new();
        all_lines.extend(lesson.setup.iter());
        for step in &lesson.intro {
            texts.push((step.line, step.text.as_str()));
            all_lines.extend(step.demo.iter());
        }
        let reach_states = lesson.tasks.iter().filter(|t| matches!(t.kind, TaskKind::ReachState(_))).count();
        if reach_states == 0 || reach_states == lesson.tasks.len() {
            self.problem(
                0,
                "a lesson needs at least one reach-state task and a question (predict, choice, numeric or order)",
            );
        }
        if reach_states > 0 && lesson.variants.len() < 2 {
            self.problem(0, "a lesson with reach-state tasks needs at least one hidden [[variant]]");
        }
        if lesson.tasks.first().is_some_and(|t| t.continues) {
            self.problem(lesson.tasks[0].line, "task 1: the first task has no task before it to continue from");
        }
        for (n, task) in lesson.tasks.iter().enumerate() {
            let label = format!("task {}", n + 1);
            texts.extend([(task.line, task.title.as_str()), (task.line, task.prompt.as_str())]);
            all_lines.extend(task.setup.iter());
            match &task.kind {
                TaskKind::ReachState(goal) => {
                    all_lines.extend(goal.solution.iter());
                    for path in &goal.must_not_pass {
                        all_lines.extend(path.iter());
                    }
                    for hint in &goal.hints {
                        texts.push((task.line, hint.as_str()));
                    }
                    for m in &goal.misconceptions {
                        all_lines.extend(m.path.iter());
                        texts.push((m.line, m.message.as_str()));
                        if m.message.trim().is_empty() {
                            self.problem(m.line, format!("{label}: a misconception's `message` is empty"));
                        }
                    }
                    let mut checks = Vec::new();
                    checks.extend(goal.checks.iter());
                    for m in &goal.misconceptions {
                        checks.extend(m.when.iter());
                    }
                    for check in checks {
                        texts.push((check.line, check.message.as_str()));
                        if let Some(hint) = &check.hint {
                            texts.push((check.line, hint.as_str()));
                        }
                        let subject = &check.subject;
                        match (subject.kind, subject.get(Loc::Command)) {
                            (SubjectKind::Reply, Some(command)) => self.command_line(check.line, command),
                            (SubjectKind::Used | SubjectKind::Saw, Some(command)) => {
                                self.command_line(check.line, &format!("{command} x"))
                            }
                            (SubjectKind::Transaction, _) => {
                                for command in subject.commands.iter().flatten() {
                                    self.command_line(check.line, &format!("{command} x"));
                                }
                            }
                            _ => {}
                        }
                    }
                    if goal.hints.is_empty() {
                        self.problem(task.line, format!("{label}: a reach-state task needs at least one hint"));
                    }
                    self.hints_keep_the_solution(&label, task.line, goal);
                    if goal.must_not_pass.is_empty() && goal.misconceptions.is_empty() {
                        self.problem(
                            task.line,
                            format!("{label}: give at least one `must_not_pass` sequence or `[[task.misconception]]`"),
                        );
                    }
                    for name in &goal.disabled {
                        let (command, sub) = command_words(name);
                        if !self.known_command(&command, &sub) {
                            self.problem(task.line, format!("{label}: disabled command `{name}` does not exist"));
                        }
                    }
                    for (line, step) in steps(&goal.solution, &lesson.variants[0]) {
                        if step.is_command() && disabled_in(goal, &step.text) {
                            self.problem(line, format!("{label}: the solution uses a disabled command"));
                        }
                    }
                }
                TaskKind::Predict(predict) => {
                    all_lines.push(&predict.command);
                    texts.push((task.line, predict.explain.as_str()));
                    self.options(task.line, &label, &predict.options, Exactly::One);
                }
                TaskKind::Choice(choice) => {
                    if choice.options.is_empty() {
                        self.problem(task.line, format!("{label}: a choice task needs `options`"));
                    }
                    let exactly = if choice.multiple { Exactly::AtLeastOne } else { Exactly::One };
                    self.options(task.line, &label, &choice.options, exactly);
                }
                TaskKind::Numeric(numeric) => texts.push((task.line, numeric.explain.as_str())),
                TaskKind::Order(order) => {
                    texts.push((task.line, order.explain.as_str()));
                    texts.extend(order.steps.iter().map(|s| (task.line, s.as_str())));
                    for (i, step) in order.steps.iter().enumerate() {
                        if step.trim().is_empty() || order.steps[..i].contains(step) {
                            self.problem(task.line, format!("{label}: every step is written once and is not empty"));
                        }
                    }
                }
            }
            if matches!(task.kind, TaskKind::Predict(_) | TaskKind::Numeric(_) | TaskKind::Order(_)) {
                let explain = match &task.kind {
                    TaskKind::Predict(p) => &p.explain,
                    TaskKind::Numeric(q) => &q.explain,
                    TaskKind::Order(o) => &o.explain,
                    _ => unreachable!("matched above"),
                };
                if explain.trim().is_empty() {
                    self.problem(task.line, format!("{label}: `explain` is empty"));
                }
            }
            // A predicted reply is the server's text, renamed as lines are.
            let replies = matches!(task.kind, TaskKind::Predict(_));
            for option in task.kind.options() {
                if replies {
                    self.text(option.line, &option.text);
                } else {
                    texts.push((option.line, option.text.as_str()));
                }
                texts.push((option.line, option.why.as_str()));
            }
        }
        for (line, text) in texts {
            self.text(line, text);
            self.names_in_prose(line, text);
        }
        for line in all_lines {
            for (number, step) in steps(std::slice::from_ref(line), &lesson.variants[0]) {
                if step.is_command() {
                    self.command_line(number, &step.text);
                }
            }
        }
    }

    fn options(&mut self, line: usize, label: &str, options: &[AnswerOption], exactly: Exactly) {
        if options.is_empty() {
            return;
        }
        // With two options a guess is right half the time.
        if options.len() < 3 {
            self.problem(line, format!("{label}: give at least three options"));
        }
        let correct = options.iter().filter(|o| o.correct).count();
        if correct == 0 {
            self.problem(line, format!("{label}: no option is marked `correct = true`"));
        }
        if exactly == Exactly::One && correct > 1 {
            self.problem(
                line,
                format!("{label}: exactly one option is right (a choice with several sets `multiple = true`)"),
            );
        }
        if correct == options.len() {
            self.problem(line, format!("{label}: every option is right, so nothing is asked"));
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

    /// No hint may hand over a solution line: the literal solution is behind "Show solution",
    /// and a hint that gives it turns the task into copying.
    fn hints_keep_the_solution(&mut self, label: &str, line: usize, goal: &Goal) {
        // On every variant, as the learner reads them: a hint may spell out with numbers what
        // the solution writes as `${expr}`, or the other way round.
        for variant in &self.lesson.variants {
            let solution: Vec<String> = steps(&goal.solution, variant)
                .into_iter()
                .filter(|(_, step)| step.is_command() && step.text.split_whitespace().count() >= 2)
                .map(|(_, step)| normalise_command(&step.text))
                .collect();
            let hints = goal.hints.iter().chain(goal.checks.iter().filter_map(|c| c.hint.as_ref()));
            for (n, hint) in hints.enumerate() {
                let text = normalise_command(&variant.apply_prose(hint));
                if let Some(given) = solution.iter().find(|command| contains_text(&text, command)) {
                    self.problem(
                        line,
                        format!(
                            "{label}: hint {} gives away the solution line `{given}`; point at the idea or \
                             the command instead (Show solution is there for the line)",
                            n + 1
                        ),
                    );
                    return;
                }
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

    /// Variants rename names only inside code (`Variant::apply_prose`), so a renamed word
    /// outside code is either a name left stale in that variant or an ordinary word that would
    /// read wrongly if it were renamed; either way the author has to say which.
    fn names_in_prose(&mut self, line: usize, text: &str) {
        let mut reported: Vec<&str> = Vec::new();
        for (at, word) in prose_words(text) {
            let renamed =
                self.lesson.variants.iter().enumerate().find_map(|(n, v)| Some((n, v.line, v.values.get(word)?)));
            let Some((n, variant_line, to)) = renamed else { continue };
            if reported.contains(&word) {
                continue;
            }
            reported.push(word);
            let before = text[..at].char_indices().rev().nth(24).map_or(0, |(i, _)| i);
            let after = text[at..].char_indices().nth(word.len() + 24).map_or(text.len(), |(i, _)| at + i);
            let context = text[before..after].split_whitespace().collect::<Vec<_>>().join(" ");
            self.problem(
                line,
                format!(
                    "`{word}` is outside backticks in \"…{context}…\": variants rename names only in code, so \
                     variant {n} (line {variant_line}) leaves it instead of writing `{to}`; write `{word}` if it is \
                     the name, and if it is the ordinary word, reword the sentence or give the name another word"
                ),
            );
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
}

/// Which error replies a run may show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strict {
    /// Any error reply is a problem.
    NoErrors,
    /// Only unknown commands are (demos may show an error on purpose).
    KnownCommands,
}

/// How many options of a question are right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exactly {
    One,
    AtLeastOne,
}

/// A command or text with whitespace collapsed and `` ` `` dropped, for finding a solution line
/// inside a hint whatever its spacing or code formatting.
fn normalise_command(text: &str) -> String {
    text.split(|c: char| c.is_whitespace() || c == '`').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The first raw HTML tag (or comment, or autolink) outside code in markdown text.
pub fn raw_html(text: &str) -> Option<String> {
    for (code, part) in code_parts(text) {
        if code {
            continue;
        }
        let bytes = part.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'<'
                && bytes.get(i + 1).is_some_and(|&n| n.is_ascii_alphabetic() || n == b'/' || n == b'!' || n == b'?')
            {
                // `i` is at `<` (ASCII), a character boundary; the tag is cut after 40
                // characters, not bytes, so a pasted lesson's accents cannot split one.
                let tag = part.get(i..).unwrap_or_default();
                let tag = tag.find('>').map_or(tag, |e| tag.get(..=e).unwrap_or(tag));
                return Some(tag.chars().take(40).collect());
            }
        }
    }
    None
}

/// Whether `needle` occurs in `text` (by bytes, for the reason `script::backticks` gives).
fn contains_text(text: &str, needle: &str) -> bool {
    needle.is_empty() || text.as_bytes().windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// Commands named in markdown text: the first word of a code span or code line when it is in
/// capitals and followed by arguments (`XACK jobs workers 1-0`), with its subcommand if the
/// next word is in capitals too; and, in prose, words in capitals that start with `X` (every
/// stream command does), such as XAUTOCLAIM.
pub fn mentioned_commands(text: &str) -> Vec<(String, Option<String>)> {
    let caps = |w: &str| w.len() >= 2 && w.chars().all(|c| c.is_ascii_uppercase());
    let mut found = Vec::new();
    for (code, part) in code_parts(text) {
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
    const SECTION: &[Field] = &[required("title", Ty::Str), required("lessons", STRINGS)];
    let doc = shape::document(text, &[required("section", Ty::List(&Ty::Table(SECTION)))])
        .map_err(|error| LessonError::at(file, text, error.span.start, error.message))?;
    let mut sections = Vec::new();
    for section in Fields::new(&doc, 0..0).tables("section") {
        sections.push(Section { title: section.string("title"), lessons: section.strings("lessons") });
    }
    Ok(Index { sections })
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
