//! The checker: builds a task's start state in a fresh [`Session`] on a virtual clock, runs a
//! learner's log (or a lesson's solution) on it, and evaluates the task's checks. The web
//! player and graders call [`check_log`], [`check_prediction`] and [`check_choice`].

use streamlab_engine::{glob_match, IdMode, Keyspace, StreamId, Value as KeyValue};
use streamlab_protocol::console::Console;
use streamlab_protocol::{format_reply, tokenize, Clock, Session};

use crate::model::{describe_entries, Check, Expect, Goal, Lesson, Subject, Task, TaskKind, Value, Variant};
use crate::parse::render_template;
use crate::script::{command_words, log_of, LogLine};

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
    /// How many commands the log ran.
    pub commands: usize,
    /// The task's par.
    pub par: usize,
}

/// The result of answering a predict or choice task.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Answered {
    /// Whether the answer is right.
    pub correct: bool,
    /// What the command really prints (predict tasks; empty for choice tasks).
    pub reply: String,
    /// Why the chosen option is right or wrong, or the task's explanation for typed answers.
    pub why: String,
}

/// An answer to a predict task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prediction {
    /// The index of the chosen option.
    Option(usize),
    /// The reply as typed.
    Typed(String),
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

    /// Lesson text as the learner sees it in a variant (ids shifted, values renamed).
    pub fn render(&self, text: &str, variant: usize) -> String {
        self.variants.get(variant).map_or_else(|| text.to_owned(), |v| v.apply(text))
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
        run(&mut console, &log_of(&self.setup, v), &[], None);
        Ok(console)
    }

    /// The console a task starts from: the setup, every intro demo in order, then the task's
    /// own setup.
    pub fn task_start(&self, task: usize, variant: usize) -> Result<Console, CheckError> {
        let t = self.task(task)?;
        let v = self.variant(variant)?;
        let mut console = self.after_setup(variant)?;
        for step in &self.intro {
            run(&mut console, &log_of(&step.demo, v), &[], None);
        }
        run(&mut console, &log_of(&t.setup, v), &[], None);
        Ok(console)
    }

    /// A reach-state task's goal: its start with the reference solution run (for "show goal").
    pub fn goal_state(&self, task: usize, variant: usize) -> Result<Console, CheckError> {
        let goal = self.goal(task)?;
        let mut console = self.task_start(task, variant)?;
        run(&mut console, &log_of(&goal.solution, self.variant(variant)?), &[], None);
        Ok(console)
    }

    fn goal(&self, task: usize) -> Result<&Goal, CheckError> {
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
pub(crate) struct Ran {
    /// Commands run.
    pub commands: usize,
    /// Disabled commands that were refused, as typed.
    pub refused: Vec<String>,
}

/// Runs log lines on a console, switching connections as they say. Commands that `goal`
/// disables are refused, not run. With `transcript`, appends what a transcript shows.
pub(crate) fn run(console: &mut Console, log: &[LogLine], disabled: &[&Goal], transcript: Option<&mut String>) -> Ran {
    let mut ran = Ran { commands: 0, refused: Vec::new() };
    let mut scratch = String::new();
    let out = transcript.unwrap_or(&mut scratch);
    for line in log {
        if line.is_command() && disabled.iter().any(|g| disabled_in(g, &line.text)) {
            ran.refused.push(line.text.clone());
            continue;
        }
        if line.is_command() {
            ran.commands += 1;
        }
        run_one(console, line, out);
    }
    ran
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
    out.get(start..).unwrap_or_default().lines().skip(1).map(str::to_owned).collect()
}

/// Why a command a task turns off was refused: `` `XDEL s 1-0` is turned off in this task:
/// reach the goal without it ``.
pub fn turned_off(command: &str) -> String {
    format!("`{}` is turned off in this task: reach the goal without it", command.trim())
}

/// Checks a reach-state task: builds its start state for `variant`, runs `log` (disabled
/// commands are refused and count as a failure), then evaluates every check.
pub fn check_log(lesson: &Lesson, task: usize, variant: usize, log: &[LogLine]) -> Result<Verdict, CheckError> {
    let goal = lesson.goal(task)?;
    let mut console = lesson.task_start(task, variant)?;
    let ran = run(&mut console, log, &[goal], None);
    let mut failures: Vec<Failure> = ran
        .refused
        .iter()
        .map(|text| Failure {
            message: format!("{}.", turned_off(text)),
            expected: "not used".into(),
            actual: "used".into(),
            line: lesson.tasks[task].line,
        })
        .collect();
    failures.extend(evaluate(goal, lesson.variant(variant)?, console.session()));
    Ok(Verdict { passed: failures.is_empty(), failures, commands: ran.commands, par: goal.par })
}

/// Evaluates a goal's checks on a session (the player's live session, or one the checker
/// built). Returns the failed ones.
pub fn evaluate(goal: &Goal, variant: &Variant, session: &Session) -> Vec<Failure> {
    goal.checks.iter().filter_map(|check| evaluate_check(check, variant, session)).collect()
}

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Actual {
    Int(i64),
    Nil,
    Text(String),
    Present(bool),
    Entries(Vec<Vec<String>>),
    /// The thing measured does not exist (why, in words).
    Missing(String),
}

fn evaluate_check(check: &Check, variant: &Variant, session: &Session) -> Option<Failure> {
    let subject = check.subject.map_text(|t| variant.apply(t));
    let expect = match &check.expect {
        Expect::Equals(Value::Text(t)) => Expect::Equals(Value::Text(variant.apply(t))),
        Expect::Equals(Value::Entries(e)) => {
            Expect::Equals(Value::Entries(e.iter().map(|f| f.iter().map(|v| variant.apply(v)).collect()).collect()))
        }
        Expect::Matches(p) => Expect::Matches(variant.apply(p)),
        other => other.clone(),
    };
    let actual = measure(&subject, session);
    if satisfied(&expect, &actual) {
        return None;
    }
    let is_owner = matches!(subject, Subject::Owner { .. });
    let expected = describe_expect(&expect, is_owner);
    // A message is written about a value ("it holds {actual}"); when the thing measured does
    // not exist there is no value, so the message says "none" and then why, in words.
    let (shown, missing) = match &actual {
        Actual::Missing(why) => ("none".to_owned(), Some(why.clone())),
        found => (describe_actual(found, is_owner), None),
    };
    let mut values: Vec<(&str, &str)> = vec![("expected", &expected), ("actual", &shown)];
    values.extend(subject.fields());
    let message = render_template(&check.message, &values);
    let message = match &missing {
        Some(why) => format!("{} — {why}.", message.trim_end_matches('.')),
        None => message,
    };
    let actual = missing.unwrap_or(shown);
    Some(Failure { message, expected, actual, line: check.line })
}

fn satisfied(expect: &Expect, actual: &Actual) -> bool {
    match (expect, actual) {
        (Expect::Equals(Value::Int(n)), Actual::Int(m)) => n == m,
        (Expect::Equals(Value::Nil), Actual::Nil) => true,
        (Expect::Equals(Value::Text(a)), Actual::Text(b)) => a.trim_end() == b.trim_end(),
        (Expect::Equals(Value::Entries(a)), Actual::Entries(b)) => a == b,
        (Expect::AtLeast(n), Actual::Int(m)) => m >= n,
        (Expect::AtMost(n), Actual::Int(m)) => m <= n,
        (Expect::Matches(pattern), Actual::Text(text)) => glob_match(pattern.as_bytes(), text.as_bytes()),
        (Expect::Present(a), Actual::Present(b)) => a == b,
        _ => false,
    }
}

fn describe_expect(expect: &Expect, is_owner: bool) -> String {
    match expect {
        Expect::Equals(Value::Text(t)) if is_owner && t.is_empty() => "nobody".into(),
        Expect::Equals(value) => value.to_string(),
        Expect::AtLeast(n) => format!("at least {n}"),
        Expect::AtMost(n) => format!("at most {n}"),
        Expect::Matches(pattern) => format!("something like {pattern}"),
        Expect::Present(true) => "present".into(),
        Expect::Present(false) => "absent".into(),
    }
}

fn describe_actual(actual: &Actual, is_owner: bool) -> String {
    match actual {
        Actual::Int(n) => n.to_string(),
        Actual::Nil => "nil".into(),
        Actual::Text(t) if is_owner && t.is_empty() => "nobody".into(),
        Actual::Text(t) => t.clone(),
        Actual::Present(true) => "present".into(),
        Actual::Present(false) => "absent".into(),
        Actual::Entries(entries) => describe_entries(entries),
        Actual::Missing(why) => why.clone(),
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn measure(subject: &Subject, session: &Session) -> Actual {
    let db = session.keyspace();
    match subject {
        Subject::Key { key } => Actual::Present(db.get(key.as_bytes()).is_some()),
        Subject::Reply { command } => Actual::Text(reply_text(session, command)),
        Subject::Length { stream } => with_stream(db, stream, |s| Actual::Int(s.len() as i64)),
        Subject::Entry { stream, id } => match db.stream(stream.as_bytes()) {
            Ok(Some(s)) => Actual::Present(parse_id(id).is_some_and(|id| s.contains(id))),
            Ok(None) => Actual::Present(false),
            Err(_) => Actual::Missing(format!("{stream} is not a stream")),
        },
        Subject::Entries { stream } => with_stream(db, stream, |s| {
            Actual::Entries(
                s.range(StreamId::MIN, StreamId::MAX, false)
                    .map(|e| e.fields.into_iter().flat_map(|(f, v)| [lossy(&f), lossy(&v)]).collect())
                    .collect(),
            )
        }),
        Subject::Group { stream, group } => match db.stream(stream.as_bytes()) {
            Ok(Some(s)) => Actual::Present(s.group(group.as_bytes()).is_some()),
            Ok(None) => Actual::Present(false),
            Err(_) => Actual::Missing(format!("{stream} is not a stream")),
        },
        Subject::Consumer { stream, group, consumer } => {
            with_group(db, stream, group, |_, g| Actual::Present(g.consumer(consumer.as_bytes()).is_some()))
        }
        Subject::Pending { stream, group, consumer } => with_group(db, stream, group, |_, g| match consumer {
            Some(name) => Actual::Int(g.consumer(name.as_bytes()).map_or(0, |c| c.pending().len()) as i64),
            None => Actual::Int(g.pel().len() as i64),
        }),
        Subject::Owner { stream, group, id } => with_group(db, stream, group, |_, g| {
            Actual::Text(
                parse_id(id).and_then(|id| g.pel().get(&id)).map_or_else(String::new, |p| lossy(p.owner_name())),
            )
        }),
        Subject::Deliveries { stream, group, id } => {
            with_group(db, stream, group, |_, g| match parse_id(id).and_then(|id| g.pel().get(&id)) {
                Some(p) => Actual::Int(p.delivery_count as i64),
                None => Actual::Missing(format!("{id} is not pending in {group}")),
            })
        }
        Subject::LastDeliveredId { stream, group } => {
            with_group(db, stream, group, |_, g| Actual::Text(g.last_id.to_string()))
        }
        Subject::EntriesRead { stream, group } => {
            with_group(db, stream, group, |_, g| g.entries_read.map_or(Actual::Nil, |n| Actual::Int(n as i64)))
        }
        Subject::Lag { stream, group } => {
            with_group(db, stream, group, |s, g| s.lag(g).map_or(Actual::Nil, Actual::Int))
        }
    }
}

fn parse_id(id: &str) -> Option<StreamId> {
    StreamId::parse(id.as_bytes(), IdMode::Strict, 0).ok()
}

fn with_stream(db: &Keyspace, stream: &str, f: impl FnOnce(&streamlab_engine::Stream) -> Actual) -> Actual {
    match db.get(stream.as_bytes()) {
        Some(KeyValue::Stream(s)) => f(s),
        Some(_) => Actual::Missing(format!("{stream} is not a stream")),
        None => Actual::Missing(format!("there is no stream {stream}")),
    }
}

fn with_group(
    db: &Keyspace,
    stream: &str,
    group: &str,
    f: impl FnOnce(&streamlab_engine::Stream, &streamlab_engine::Group) -> Actual,
) -> Actual {
    with_stream(db, stream, |s| match s.group(group.as_bytes()) {
        Some(g) => f(s, g),
        None => Actual::Missing(format!("there is no group {group} on {stream}")),
    })
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
    executed.replies.iter().map(format_reply).collect::<Vec<_>>().join("\n")
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

/// Normalises a typed reply for comparison: no `(integer) ` or quotes, whitespace collapsed,
/// case kept.
pub fn normalise_reply(text: &str) -> String {
    text.lines()
        .map(|line| {
            let line = line.trim();
            let line = line.strip_prefix("(integer) ").unwrap_or(line);
            let line = line.strip_prefix('"').and_then(|l| l.strip_suffix('"')).unwrap_or(line);
            let line = if line == "(nil)" { "nil" } else { line };
            line.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks an answer to a predict task.
pub fn check_prediction(
    lesson: &Lesson,
    task: usize,
    variant: usize,
    answer: &Prediction,
) -> Result<Answered, CheckError> {
    let reply = predicted_reply(lesson, task, variant)?;
    let TaskKind::Predict(predict) = &lesson.tasks[task].kind else { unreachable!("checked above") };
    let (correct, why) = match answer {
        Prediction::Option(n) => {
            let option = predict.options.get(*n).ok_or(CheckError::NoSuchOption(*n))?;
            (option.correct, option.why.clone())
        }
        Prediction::Typed(text) => (normalise_reply(text) == normalise_reply(&reply), predict.explain.clone()),
    };
    Ok(Answered { correct, reply, why })
}

/// Checks an answer to a multiple-choice task.
pub fn check_choice(lesson: &Lesson, task: usize, option: usize) -> Result<Answered, CheckError> {
    let TaskKind::Choice(choice) = &lesson.task(task)?.kind else {
        return Err(CheckError::WrongKind { task, expected: "choice" });
    };
    let option = choice.options.get(option).ok_or(CheckError::NoSuchOption(option))?;
    Ok(Answered { correct: option.correct, reply: String::new(), why: option.why.clone() })
}
