//! The checker: builds a task's start state in a fresh [`Session`] on a virtual clock, runs a
//! learner's log (or a lesson's solution) on it, and judges the work: the task's checks and
//! the misconception it matches. The web player and graders call [`check_log`],
//! [`check_chain`] and [`judge`]; questions are answered in [`crate::quiz`].

use streamlab_engine::{glob_match, IdMode, StreamId, Value as KeyValue};
use streamlab_protocol::console::Console;
use streamlab_protocol::{tokenize, Clock, Session};

use crate::model::{
    describe_entries, Check, Expect, Goal, Lesson, Line, Loc, Num, Subject, SubjectKind, Task, TaskKind, Value, Variant,
};
use crate::params::parse_i64;
use crate::parse::render_template;
use crate::script::{command_words, log_of, LogLine};
use crate::trail::Trail;

/// Why a check could not be run at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckError {
    /// No task with this index.
    NoSuchTask(usize),
    /// No variant with this index.
    NoSuchVariant(usize),
    /// The task is of another kind than the call expects.
    WrongKind {
        /// The task's index.
        task: usize,
        /// What the call expected.
        expected: &'static str,
    },
    /// The answer names an option that does not exist.
    NoSuchOption(usize),
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::NoSuchTask(n) => write!(f, "the lesson has no task {n}"),
            CheckError::NoSuchVariant(n) => write!(f, "the lesson has no variant {n}"),
            CheckError::WrongKind { task, expected } => write!(f, "task {task} is not a {expected} task"),
            CheckError::NoSuchOption(n) => write!(f, "there is no option {n}"),
        }
    }
}

impl std::error::Error for CheckError {}

/// A failed check, in the learner's terms.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Failure {
    /// The check's message with its placeholders filled in.
    pub message: String,
    /// What the check wanted, as text.
    pub expected: String,
    /// What the state has, as text.
    pub actual: String,
    /// The check's hint, when the author gave one.
    pub hint: Option<String>,
    /// The check's line in the lesson file.
    pub line: usize,
}

/// The result of checking a reach-state task.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Verdict {
    /// Whether every check passed and no disabled command was used.
    pub passed: bool,
    /// The checks that failed (and disabled commands used), in the lesson's order.
    pub failures: Vec<Failure>,
    /// When the work matches a wrong path the lesson foresaw: what to tell the learner.
    pub misconception: Option<String>,
    /// How many state-changing commands the learner ran (what par counts; reads are free).
    pub commands: usize,
    /// The task's par.
    pub par: usize,
}

impl Lesson {
    /// Variant `n` (0 is the lesson as written).
    pub fn variant(&self, n: usize) -> Result<&Variant, CheckError> {
        self.variants.get(n).ok_or(CheckError::NoSuchVariant(n))
    }

    /// Task `n` (from 0).
    pub fn task(&self, n: usize) -> Result<&Task, CheckError> {
        self.tasks.get(n).ok_or(CheckError::NoSuchTask(n))
    }

    /// Lesson text (markdown) as the learner sees it in a variant: parameters filled in, ids
    /// shifted, names renamed inside code ([`Variant::apply_prose`]).
    pub fn render(&self, text: &str, variant: usize) -> String {
        self.variants.get(variant).map_or_else(|| text.to_owned(), |v| v.apply_prose(text))
    }

    /// Where a variant's virtual clock starts (Unix ms).
    pub fn start_clock(&self, variant: &Variant) -> i64 {
        self.clock.saturating_add(variant.clock)
    }

    /// A console on a fresh session whose virtual clock starts where the variant says.
    pub fn fresh_console(&self, variant: &Variant) -> Console {
        Console::new(Session::with_profile(Clock::Virtual(self.start_clock(variant)), self.profile))
    }

    /// A fresh console with the lesson's setup run.
    pub fn after_setup(&self, variant: usize) -> Result<Console, CheckError> {
        let v = self.variant(variant)?;
        let mut console = self.fresh_console(v);
        run_lines(&mut console, &self.setup, v);
        Ok(console)
    }

    /// A fresh console with the lesson's setup and every intro demo run: where the first
    /// task's own setup starts.
    pub fn after_intro(&self, variant: usize) -> Result<Console, CheckError> {
        let v = self.variant(variant)?;
        let mut console = self.after_setup(variant)?;
        for step in &self.intro {
            run_lines(&mut console, &step.demo, v);
        }
        Ok(console)
    }

    /// The tasks a task's start state is built from: the first task of its chain (a task that
    /// does not continue) up to the task itself.
    pub fn chain(&self, task: usize) -> std::ops::RangeInclusive<usize> {
        let mut first = task;
        while first > 0 && self.tasks.get(first).is_some_and(|t| t.continues) {
            first -= 1;
        }
        first..=task
    }

    /// The console a task starts from: the setup, every intro demo in order, then the task's
    /// own setup. A task that continues starts where the previous one ended: its reference
    /// solution's end state.
    pub fn task_start(&self, task: usize, variant: usize) -> Result<Console, CheckError> {
        self.task_start_with(task, variant, &[])
    }

    /// Like [`task_start`](Self::task_start), with the learner's own logs for the earlier
    /// tasks of the chain (`earlier[0]` for its first task, and so on) instead of their
    /// reference solutions; tasks without a log (`None`, or past the end) use the solution.
    pub fn task_start_with(
        &self,
        task: usize,
        variant: usize,
        earlier: &[Option<Vec<LogLine>>],
    ) -> Result<Console, CheckError> {
        self.task(task)?;
        let v = self.variant(variant)?;
        let mut console = self.after_intro(variant)?;
        let chain = self.chain(task);
        let first = *chain.start();
        // `get`, not `[t]`: the chain's tasks exist (no bounds-check panic path).
        for (t, this) in self.tasks.iter().enumerate().skip(first).take(task + 1 - first) {
            run_lines(&mut console, &this.setup, v);
            if t == task {
                break;
            }
            // What the learner typed during an earlier task of the chain carries on, whatever
            // the task's kind: the player keeps the console from question to question too.
            match (earlier.get(t - first).and_then(Option::as_ref), &this.kind) {
                (Some(log), TaskKind::ReachState(goal)) => {
                    run(&mut console, log, &[goal], None);
                }
                (Some(log), _) => {
                    run(&mut console, log, &[], None);
                }
                (None, TaskKind::ReachState(goal)) => run_lines(&mut console, &goal.solution, v),
                (None, _) => {}
            }
        }
        Ok(console)
    }

    /// A reach-state task's goal: its start with the reference solution run (for "show goal").
    pub fn goal_state(&self, task: usize, variant: usize) -> Result<Console, CheckError> {
        let goal = self.goal(task)?;
        let mut console = self.task_start(task, variant)?;
        run_lines(&mut console, &goal.solution, self.variant(variant)?);
        Ok(console)
    }

    pub(crate) fn goal(&self, task: usize) -> Result<&Goal, CheckError> {
        match &self.task(task)?.kind {
            TaskKind::ReachState(goal) => Ok(goal),
            _ => Err(CheckError::WrongKind { task, expected: "reach-state" }),
        }
    }

    /// Whether a command line is disabled in a task (the player refuses to run it).
    pub fn is_disabled(&self, task: usize, text: &str) -> bool {
        self.goal(task).is_ok_and(|goal| disabled_in(goal, text))
    }
}

/// Whether a command line is one the goal disables.
pub(crate) fn disabled_in(goal: &Goal, text: &str) -> bool {
    let (name, sub) = command_words(text);
    goal.disabled.iter().any(|d| match d.split_once(' ') {
        Some((command, subcommand)) => command == name && subcommand == sub,
        None => *d == name,
    })
}

/// What running lines produced.
#[derive(Debug, Default)]
pub(crate) struct Ran {
    /// Disabled commands that were refused, as typed.
    pub refused: Vec<String>,
}

/// Runs log lines on a console, switching connections as they say. Commands that `goal`
/// disables are refused, not run. With `transcript`, appends what a transcript shows.
pub(crate) fn run(console: &mut Console, log: &[LogLine], disabled: &[&Goal], transcript: Option<&mut String>) -> Ran {
    let mut ran = Ran::default();
    let mut scratch = String::new();
    let out = transcript.unwrap_or(&mut scratch);
    for line in log {
        // Of the meta-commands only `:clock` is work (`:as` became the line's connection):
        // `:undo`, `:redo` or `:profile` would step the timeline behind the task's start, and
        // `:fill` can generate any amount.
        let meta = !line.is_command() && !line.text.trim_start().starts_with(":clock");
        if meta || (line.is_command() && disabled.iter().any(|g| disabled_in(g, &line.text))) {
            ran.refused.push(line.text.clone());
            continue;
        }
        run_one(console, line, out);
    }
    ran
}

/// Runs lesson lines (as the variant rewrites them) on a console, nothing refused.
pub(crate) fn run_lines(console: &mut Console, lines: &[Line], variant: &Variant) {
    run(console, &log_of(lines, variant), &[], None);
}

/// Runs one log line (switching to its connection first when it is a command), appending to
/// a transcript. Returns what the line itself printed.
pub fn run_one(console: &mut Console, line: &LogLine, out: &mut String) -> Vec<String> {
    if line.is_command() && console.current() != line.conn {
        console.transcribe(&format!(":as {}", line.conn), out);
    }
    let start = out.len();
    console.transcribe(&line.text, out);
    // The first line is the `> ` echo. (`get`, not `[start..]`: see `toml::Parser::rest`.)
    let mut printed = Vec::new();
    for line in out.get(start..).unwrap_or_default().lines().skip(1) {
        printed.push(line.to_owned());
    }
    printed
}

/// Why a command a task turns off was refused: `` `XDEL s 1-0` is turned off in this task:
/// reach the goal without it ``.
pub fn turned_off(command: &str) -> String {
    format!("`{}` is turned off in this task: reach the goal without it", command.trim())
}

/// Checks a reach-state task: builds its start state for `variant` (a task that continues
/// starts from the reference solutions of the tasks before it), runs `log` (disabled
/// commands are refused and count as a failure), then judges the work.
pub fn check_log(lesson: &Lesson, task: usize, variant: usize, log: &[LogLine]) -> Result<Verdict, CheckError> {
    check_chain(lesson, task, variant, &[], log)
}

/// Like [`check_log`], for a task that continues: `earlier` are the learner's logs of the
/// earlier tasks of its chain, from its first task on (`None` where that task started from
/// the reference solutions), so the task starts from the learner's own state.
pub fn check_chain(
    lesson: &Lesson,
    task: usize,
    variant: usize,
    earlier: &[Option<Vec<LogLine>>],
    log: &[LogLine],
) -> Result<Verdict, CheckError> {
    let goal = lesson.goal(task)?;
    let mut console = lesson.task_start_with(task, variant, earlier)?;
    let start = console.timeline().position();
    let ran = run(&mut console, log, &[goal], None);
    let mut verdict = judge(lesson, task, variant, &console, start)?;
    // Refused commands come first; a plain loop and `append`, not `splice` (a wasm size rule).
    let mut failures = Vec::new();
    for text in &ran.refused {
        failures.push(Failure {
            // `turned_off` and a full stop, in one format.
            message: format!("`{}` is turned off in this task: reach the goal without it.", text.trim()),
            expected: "not used".into(),
            actual: "used".into(),
            hint: None,
            line: lesson.task(task).map_or(0, |t| t.line),
        });
    }
    failures.append(&mut verdict.failures);
    verdict.failures = failures;
    verdict.passed = verdict.failures.is_empty();
    Ok(verdict)
}

/// Judges a reach-state task on a console (the player's live one, or one the checker built):
/// the work is what ran from timeline step `start` on. The checks that fail, the misconception
/// the work matches (if it fails), and the state-changing command count.
pub fn judge(
    lesson: &Lesson,
    task: usize,
    variant: usize,
    console: &Console,
    start: usize,
) -> Result<Verdict, CheckError> {
    let goal = lesson.goal(task)?;
    let trail = Trail::of(console, start);
    let scene = Scene::new(lesson, task, variant, console.session(), &trail)?;
    let failures = scene.failures(&goal.checks);
    // Work not yet started matches no wrong path: a detector that reads "never used X" or a
    // path that changes nothing would otherwise fire before the learner has done anything.
    let started = trail.changes() > 0;
    let misconception = if failures.is_empty() || !started { None } else { scene.misconception(goal, &failures) };
    Ok(Verdict { passed: failures.is_empty(), failures, misconception, commands: trail.changes(), par: goal.par })
}

/// What checks are evaluated against: the state and what the learner did.
pub(crate) struct Scene<'a> {
    lesson: &'a Lesson,
    task: usize,
    variant_index: usize,
    variant: &'a Variant,
    session: &'a Session,
    trail: &'a Trail,
}

impl<'a> Scene<'a> {
    pub(crate) fn new(
        lesson: &'a Lesson,
        task: usize,
        variant: usize,
        session: &'a Session,
        trail: &'a Trail,
    ) -> Result<Scene<'a>, CheckError> {
        let v = lesson.variant(variant)?;
        Ok(Scene { lesson, task, variant_index: variant, variant: v, session, trail })
    }

    /// The checks that fail, in order. The state the reference solution reaches on the same
    /// variant is built once, when a check compares with it (built here rather than cached in
    /// a `OnceCell`: that cell and its initialiser were wasm weight).
    pub(crate) fn failures(&self, checks: &[Check]) -> Vec<Failure> {
        let reference = match checks.iter().any(|c| matches!(c.expect, Expect::SameAsSolution)) {
            true => self.lesson.goal_state(self.task, self.variant_index).ok(),
            false => None,
        };
        let mut out = Vec::new();
        for check in checks {
            if let Some(failure) = self.evaluate(check, reference.as_ref().map(Console::session)) {
                out.push(failure);
            }
        }
        out
    }

    /// The first misconception the work matches: its `when` checks all pass, or (without
    /// `when`) the failures are those its path leaves.
    fn misconception(&self, goal: &Goal, failures: &[Failure]) -> Option<String> {
        let same = |a: &[Failure], b: &[Failure]| {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.line == b.line && a.actual == b.actual)
        };
        goal.misconceptions.iter().find_map(|m| {
            let fires = if m.when.is_empty() {
                let mut console = self.lesson.task_start(self.task, self.variant_index).ok()?;
                let start = console.timeline().position();
                run_lines(&mut console, &m.path, self.variant);
                let trail = Trail::of(&console, start);
                let scene = Scene::new(self.lesson, self.task, self.variant_index, console.session(), &trail).ok()?;
                same(&scene.failures(&goal.checks), failures)
            } else {
                self.failures(&m.when).is_empty()
            };
            fires.then(|| self.variant.apply_prose(&m.message))
        })
    }

    fn evaluate(&self, check: &Check, reference: Option<&Session>) -> Option<Failure> {
        let variant = self.variant;
        let subject = check.subject.map_text(|t| variant.apply(t));
        let number = |n: &Num| match n {
            Num::Int(n) => Some(*n),
            Num::Expr(e) => parse_i64(variant.apply(e).trim()),
        };
        // What the check wants, as what a measure finds where it can be (so one description
        // and one comparison serve both).
        // An expectation that cannot be worked out fails the check (the validator reports the
        // expression): passing it silently would call wrong work right.
        let unworkable = |n: &Num| Want::Is(Actual::Missing(format!("the lesson's `{n}` cannot be worked out")));
        let want = match &check.expect {
            Expect::Equals(Value::Text(t)) => Want::Is(Actual::Text(variant.apply(t))),
            Expect::Equals(Value::Int(n)) => number(n).map_or_else(|| unworkable(n), |n| Want::Is(Actual::Int(n))),
            Expect::Equals(Value::Nil) => Want::Is(Actual::Nil),
            Expect::Equals(Value::Entries(e)) => Want::Is(Actual::Entries(apply_all(variant, e))),
            Expect::Present(b) => Want::Is(Actual::Present(*b)),
            Expect::Includes(e) => Want::Includes(apply_all(variant, e)),
            Expect::AtLeast(n) => number(n).map_or_else(|| unworkable(n), Want::AtLeast),
            Expect::AtMost(n) => number(n).map_or_else(|| unworkable(n), Want::AtMost),
            Expect::Matches(p) => Want::Matches(variant.apply(p)),
            Expect::SameAsSolution => match reference.map(|s| measure(&subject, s, self.trail)) {
                // The reference solution has no such thing either: the check holds when the
                // learner's state lacks it too.
                Some(Actual::Missing(_) | Actual::Seen(_)) | None => Want::Absent,
                Some(found) => Want::Is(found),
            },
        };
        let actual = measure(&subject, self.session, self.trail);
        if satisfied(&want, &actual) {
            return None;
        }
        let is_owner = subject.kind == SubjectKind::Owner;
        let expected = match &want {
            Want::Is(value) => describe_actual(value, is_owner),
            Want::Includes(entries) => format!("entries with {}", describe_entries(entries)),
            Want::AtLeast(n) => format!("at least {n}"),
            Want::AtMost(n) => format!("at most {n}"),
            Want::Matches(pattern) => format!("something like {pattern}"),
            Want::Absent => "what the reference solution reaches".into(),
        };
        // A message is written about a value ("it holds {actual}"); when the thing measured
        // does not exist there is no value, so the message says "none" and then why, in words.
        let (shown, missing) = match &actual {
            Actual::Missing(why) => ("none".to_owned(), Some(why.clone())),
            found => (describe_actual(found, is_owner), None),
        };
        let fields = subject.fields();
        let mut values: Vec<(&str, &str)> = vec![("expected", &expected), ("actual", &shown)];
        for (name, value) in &fields {
            values.push((name, value.as_str()));
        }
        let message = render_template(&variant.apply_prose(&check.message), &values);
        let message = match &missing {
            Some(why) => {
                let mut text = message.as_str();
                while let Some(shorter) = text.strip_suffix('.') {
                    text = shorter;
                }
                format!("{text} — {why}.")
            }
            None => message,
        };
        let actual = missing.unwrap_or(shown);
        let hint = check.hint.as_ref().map(|h| variant.apply_prose(h));
        Some(Failure { message, expected, actual, hint, line: check.line })
    }
}

fn apply_all(variant: &Variant, entries: &[Vec<String>]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for fields in entries {
        let mut applied = Vec::new();
        for value in fields {
            applied.push(variant.apply(value));
        }
        out.push(applied);
    }
    out
}

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Actual {
    Int(i64),
    Nil,
    Text(String),
    Present(bool),
    Entries(Vec<Vec<String>>),
    /// Replies the learner received (a `saw` check): the check holds when one fits.
    Seen(Vec<String>),
    /// The thing measured does not exist (why, in words).
    Missing(String),
}

/// What a check wants, its variant applied.
enum Want {
    /// Equal to this (a number, nil, text, entries), or present or absent.
    Is(Actual),
    /// Entries including these.
    Includes(Vec<Vec<String>>),
    /// A number at least this.
    AtLeast(i64),
    /// A number at most this.
    AtMost(i64),
    /// Text matching this pattern.
    Matches(String),
    /// Absent, as in the reference solution's state.
    Absent,
}

fn satisfied(want: &Want, actual: &Actual) -> bool {
    match (want, actual) {
        (Want::Is(Actual::Int(n)), Actual::Int(m)) => n == m,
        (Want::Is(Actual::Nil), Actual::Nil) => true,
        (Want::Is(Actual::Text(a)), Actual::Text(b)) => same_text(a, b),
        (Want::Is(Actual::Text(a)), Actual::Seen(seen)) => seen.iter().any(|b| same_text(a, b)),
        (Want::Is(Actual::Entries(a)), Actual::Entries(b)) => a == b,
        (Want::Includes(wanted), Actual::Entries(entries)) => includes(entries, wanted),
        (Want::AtLeast(n), Actual::Int(m)) => m >= n,
        (Want::AtMost(n), Actual::Int(m)) => m <= n,
        (Want::Matches(pattern), Actual::Text(text)) => glob_match(pattern.as_bytes(), text.as_bytes()),
        (Want::Matches(pattern), Actual::Seen(seen)) => {
            seen.iter().any(|text| glob_match(pattern.as_bytes(), text.trim_end().as_bytes()))
        }
        (Want::Is(Actual::Present(a)), Actual::Present(b)) => a == b,
        // What the learner did: used at least once, or never.
        (Want::Is(Actual::Present(a)), Actual::Int(n)) => *a == (*n > 0),
        (Want::Absent, Actual::Missing(_)) => true,
        _ => false,
    }
}

/// Texts compared as replies are: trailing whitespace aside.
fn same_text(a: &str, b: &str) -> bool {
    a.trim_end() == b.trim_end()
}

/// Whether every wanted field/value list is contained, as pairs, in a distinct entry.
fn includes(entries: &[Vec<String>], wanted: &[Vec<String>]) -> bool {
    let mut taken = vec![false; entries.len()];
    'wanted: for want in wanted {
        for (entry, taken) in entries.iter().zip(taken.iter_mut()) {
            if !*taken && want.chunks(2).all(|pair| entry.chunks(2).any(|have| have == pair)) {
                *taken = true;
                continue 'wanted;
            }
        }
        return false;
    }
    true
}

pub(crate) fn describe_actual(actual: &Actual, is_owner: bool) -> String {
    match actual {
        Actual::Int(n) => n.to_string(),
        Actual::Nil => "nil".into(),
        Actual::Text(t) if is_owner && t.is_empty() => "nobody".into(),
        Actual::Text(t) => t.clone(),
        Actual::Present(true) => "present".into(),
        Actual::Present(false) => "absent".into(),
        Actual::Entries(entries) => describe_entries(entries),
        Actual::Seen(seen) => seen.last().map_or_else(|| "nothing".to_owned(), |last| last.replace('\n', " ")),
        Actual::Missing(why) => why.clone(),
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A numeric subject's value on a session (a numeric question's `measure`); `None` when it
/// does not exist.
pub(crate) fn measure_on(subject: &Subject, session: &Session) -> Option<i64> {
    match measure(subject, session, &Trail::default()) {
        Actual::Int(n) => Some(n),
        _ => None,
    }
}

pub(crate) fn measure(subject: &Subject, session: &Session, trail: &Trail) -> Actual {
    use SubjectKind as K;
    let db = session.keyspace();
    let (stream, group, consumer) = (subject.text(Loc::Stream), subject.text(Loc::Group), subject.text(Loc::Consumer));
    let (id, key, command) = (subject.text(Loc::Id), subject.text(Loc::Key), subject.text(Loc::Command));
    let connection = subject.get(Loc::Connection);
    let kind = subject.kind;
    // What is not measured in a stream first.
    match kind {
        K::Used => return Actual::Int(trail.used(command, subject.get(Loc::Option), connection) as i64),
        K::Transaction => {
            let commands = subject.commands.as_deref().unwrap_or_default();
            let mut count = 0;
            for queued in trail.transactions(connection) {
                count += i64::from(commands.iter().all(|c| queued.contains(c)));
            }
            return Actual::Int(count);
        }
        K::Saw => return Actual::Seen(trail.seen(subject.get(Loc::Command), connection)),
        K::Ttl => {
            return Actual::Int(match (db.get(key.as_bytes()), db.expiry(key.as_bytes())) {
                (None, _) => -2,
                (Some(_), None) => -1,
                (Some(_), Some(at)) => at.saturating_sub(session.now()).max(0),
            })
        }
        K::Key => return Actual::Present(db.get(key.as_bytes()).is_some()),
        K::Reply => return Actual::Text(reply_text(session, command)),
        K::Entry | K::Group => {
            return match db.stream(stream.as_bytes()) {
                Ok(Some(s)) if kind == K::Entry => Actual::Present(parse_id(id).is_some_and(|id| s.contains(id))),
                Ok(Some(s)) => Actual::Present(s.group(group.as_bytes()).is_some()),
                Ok(None) => Actual::Present(false),
                Err(_) => Actual::Missing(format!("{stream} is not a stream")),
            }
        }
        _ => {}
    }
    // The rest is measured in a stream, and most in one of its groups: when that does not
    // exist, why is the answer (found once here rather than in every kind's arm).
    let s = match db.get(stream.as_bytes()) {
        Some(KeyValue::Stream(s)) => s,
        Some(_) => return Actual::Missing(format!("{stream} is not a stream")),
        None => return Actual::Missing(format!("there is no stream {stream}")),
    };
    let g = match kind {
        K::EntriesAdded | K::MaxDeletedId | K::Length | K::Entries => None,
        _ => match s.group(group.as_bytes()) {
            Some(g) => Some(g),
            None => return Actual::Missing(format!("there is no group {group} on {stream}")),
        },
    };
    match (kind, g) {
        (K::EntriesAdded, _) => Actual::Int(s.entries_added() as i64),
        (K::MaxDeletedId, _) => Actual::Text(s.max_deleted_id().to_string()),
        (K::Length, _) => Actual::Int(s.len() as i64),
        (K::Entries, _) => {
            let mut entries = Vec::new();
            for entry in s.range(StreamId::MIN, StreamId::MAX, false) {
                let mut fields = Vec::new();
                for (f, v) in &entry.fields {
                    fields.push(lossy(f));
                    fields.push(lossy(v));
                }
                entries.push(fields);
            }
            Actual::Entries(entries)
        }
        (_, None) => Actual::Nil,
        (K::Idle, Some(g)) => match g.consumer(consumer.as_bytes()) {
            Some(c) => Actual::Int(session.now().saturating_sub(c.seen_time)),
            None => Actual::Missing(format!("there is no consumer {consumer} in {group}")),
        },
        (K::Consumer, Some(g)) => Actual::Present(g.consumer(consumer.as_bytes()).is_some()),
        (K::Pending, Some(g)) => Actual::Int(match subject.get(Loc::Consumer) {
            Some(name) => g.consumer(name.as_bytes()).map_or(0, |c| c.pending().len()),
            None => g.pel().len(),
        } as i64),
        (K::Owner, Some(g)) => Actual::Text(
            parse_id(id).and_then(|id| g.pel().get(&id)).map_or_else(String::new, |p| lossy(p.owner_name())),
        ),
        (K::Deliveries, Some(g)) => match parse_id(id).and_then(|id| g.pel().get(&id)) {
            Some(p) => Actual::Int(p.delivery_count as i64),
            None => Actual::Missing(format!("{id} is not pending in {group}")),
        },
        (K::LastDeliveredId, Some(g)) => Actual::Text(g.last_id.to_string()),
        (K::EntriesRead, Some(g)) => g.entries_read.map_or(Actual::Nil, |n| Actual::Int(n as i64)),
        (_, Some(g)) => s.lag(g).map_or(Actual::Nil, Actual::Int),
    }
}

fn parse_id(id: &str) -> Option<StreamId> {
    StreamId::parse(id.as_bytes(), IdMode::Strict, 0).ok()
}

/// What a command prints when run on a copy of the session from a fresh connection.
pub fn reply_text(session: &Session, command: &str) -> String {
    let mut copy = session.clone();
    let conn = copy.connect();
    let args = match tokenize(command.as_bytes()) {
        Ok(args) => args,
        Err(error) => return error.to_string(),
    };
    let executed = copy.execute(conn, args);
    crate::trail::replies_text(&executed.replies)
}

/// What a predict task's command prints in a variant: the lines the console shows for it.
pub fn predicted_reply(lesson: &Lesson, task: usize, variant: usize) -> Result<String, CheckError> {
    let TaskKind::Predict(predict) = &lesson.task(task)?.kind else {
        return Err(CheckError::WrongKind { task, expected: "predict" });
    };
    let mut console = lesson.task_start(task, variant)?;
    let mut lines = Vec::new();
    for line in log_of(std::slice::from_ref(&predict.command), lesson.variant(variant)?) {
        lines.extend(run_one(&mut console, &line, &mut String::new()));
    }
    Ok(lines.join("\n"))
}
