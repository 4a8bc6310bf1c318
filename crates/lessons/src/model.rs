//! A lesson as the player, the checker and the validator see it, after [`parse`](crate::parse)
//! has checked the file's shape. Every part that can be wrong carries the line it came from.

use serde::{Serialize, Serializer};
use streamlab_engine::SortedMap;
pub use streamlab_protocol::Profile;

use crate::params::Params;

/// One lesson file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lesson {
    /// The file it was read from, as given to [`parse`](crate::parse::parse_lesson).
    pub file: String,
    /// Stable id; the file is `<id>.toml`.
    pub id: String,
    /// Bumped when a change would invalidate saved progress.
    pub version: u32,
    /// Title.
    pub title: String,
    /// One or two sentences (markdown).
    pub summary: String,
    /// The server the lesson is written for; its sessions (checks, the player's console)
    /// answer as that server does.
    #[serde(serialize_with = "profile_name")]
    pub profile: Profile,
    /// Estimated minutes.
    pub minutes: u32,
    /// Ids of lessons to take first.
    pub prerequisites: Vec<String>,
    /// Where the virtual clock starts (Unix ms).
    pub clock: i64,
    /// Engine features the lesson needs beyond its profile's commands, such as `XNACK` or
    /// `XREADGROUP CLAIM`; the validator skips running the lesson while one is missing.
    pub needs: Vec<Need>,
    /// Lines run before anything else.
    pub setup: Vec<Line>,
    /// The intro's steps.
    pub intro: Vec<IntroStep>,
    /// Hidden variants; index 0 is always the lesson as written.
    pub variants: Vec<Variant>,
    /// Every `${expr}` of the file with its line, so each can be evaluated on every variant.
    pub expressions: Vec<(usize, String)>,
    /// Tasks, in order.
    pub tasks: Vec<Task>,
}

/// The replaced words as a JSON object (the engine's sorted map has no serde of its own).
fn word_map<S: Serializer>(values: &SortedMap<String, String>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(values)
}

/// Parameters as a JSON object.
fn param_map<S: Serializer>(values: &Params, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(values)
}

/// A profile as its name (`redis-8.2`): the protocol crate has no serde.
fn profile_name<S: Serializer>(profile: &Profile, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(profile.name())
}

/// An engine feature a lesson needs: a command (`XNACK`) or a command's option
/// (`XREADGROUP CLAIM`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Need {
    /// The command, upper case.
    pub command: String,
    /// The option keyword, upper case, if the need is an option.
    pub option: Option<String>,
    /// Line in the file.
    pub line: usize,
}

impl std::fmt::Display for Need {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.option {
            Some(option) => write!(f, "{} {option}", self.command),
            None => f.write_str(&self.command),
        }
    }
}

/// One console line of a lesson: a command (optionally `name> ` in front to run it on that
/// connection), or `:as NAME` / `:clock +MS`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Line {
    /// The text as written.
    pub text: String,
    /// Line in the file.
    pub line: usize,
}

/// One step of the intro: text, then commands run with their replies shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IntroStep {
    /// Markdown.
    pub text: String,
    /// Commands run after the text is shown.
    pub demo: Vec<Line>,
    /// Line in the file.
    pub line: usize,
}

/// A hidden variant: the same lesson with ids, clock and values moved, so that an answer
/// remembered from another run does not fit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Variant {
    /// Added to the milliseconds of every explicit stream id `MS-SEQ` with `MS > 0`.
    pub ids: u64,
    /// Added to the clock's start.
    pub clock: i64,
    /// Whole words replaced by others (stream, group and consumer names, field values).
    #[serde(serialize_with = "word_map")]
    pub values: SortedMap<String, String>,
    /// Every parameter's value in this variant (the lesson's defaults, with this variant's
    /// overrides), for `${expr}` placeholders.
    #[serde(serialize_with = "param_map")]
    pub params: Params,
    /// The parameters this variant sets to other values than the defaults.
    #[serde(serialize_with = "param_map")]
    pub changed: Params,
    /// Line in the file (0 for the lesson as written).
    pub line: usize,
}

/// A task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Task {
    /// A short title for lists.
    pub title: String,
    /// What to do or answer (markdown).
    pub prompt: String,
    /// Lines run after the lesson's setup and intro, before the task starts.
    pub setup: Vec<Line>,
    /// The task starts where the previous one ended (the learner's own end state in the
    /// player; the previous reference solution's when no earlier work is given), plus its own
    /// setup: tasks in a row that continue make one story.
    pub continues: bool,
    /// What kind of task it is.
    pub kind: TaskKind,
    /// Line in the file (its `kind`).
    pub line: usize,
}

/// The kinds of task.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TaskKind {
    /// Act in the console until the engine's state meets the checks.
    ReachState(Goal),
    /// Say what a command will print before running it.
    Predict(Predict),
    /// Pick the right answer (or, with `multiple`, every right answer).
    Choice(Choice),
    /// Give a number (computed from the state or from the lesson's parameters).
    Numeric(Numeric),
    /// Put steps in order.
    Order(Order),
}

impl TaskKind {
    /// The kind's name as lesson files write it.
    pub fn name(&self) -> &'static str {
        match self {
            TaskKind::ReachState(_) => "reach-state",
            TaskKind::Predict(_) => "predict",
            TaskKind::Choice(_) => "choice",
            TaskKind::Numeric(_) => "numeric",
            TaskKind::Order(_) => "order",
        }
    }

    /// The options a predict or choice task offers (none for other kinds).
    pub fn options(&self) -> &[AnswerOption] {
        match self {
            TaskKind::Predict(p) => &p.options,
            TaskKind::Choice(c) => &c.options,
            _ => &[],
        }
    }
}

/// A reach-state task's goal and its helpers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Goal {
    /// All must pass.
    pub checks: Vec<Check>,
    /// Commands the task refuses (upper case).
    pub disabled: Vec<String>,
    /// Hints, shown one at a time.
    pub hints: Vec<String>,
    /// A reference solution.
    pub solution: Vec<Line>,
    /// The fewest state-changing commands that reach the goal (reads are free).
    pub par: usize,
    /// Sequences that look plausible and must not pass.
    pub must_not_pass: Vec<Vec<Line>>,
    /// Wrong paths a learner is likely to take, each with the explanation Check gives when
    /// the learner's work matches it.
    pub misconceptions: Vec<Misconception>,
}

/// A likely wrong path and what to tell the learner who took it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Misconception {
    /// The wrong sequence (the goal must fail after it).
    pub path: Vec<Line>,
    /// What Check says when the learner's work matches it (markdown).
    pub message: String,
    /// How to recognise it: checks that all pass when the learner took this path. Empty: the
    /// learner's failing checks, with their values, equal those after `path`.
    pub when: Vec<Check>,
    /// Line in the file.
    pub line: usize,
}

/// A predict-the-reply task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Predict {
    /// The command whose reply is predicted.
    pub command: Line,
    /// Replies to choose from; empty when the learner types the reply.
    pub options: Vec<AnswerOption>,
    /// Shown after answering (markdown).
    pub explain: String,
}

/// A multiple-choice task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Choice {
    /// The options.
    pub options: Vec<AnswerOption>,
    /// "Select all that apply": the answer is right when the chosen set is the right set.
    pub multiple: bool,
}

/// A question answered with a number.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Numeric {
    /// Where the right number comes from.
    pub answer: NumericAnswer,
    /// Shown after answering (markdown).
    pub explain: String,
}

/// Where a numeric question's answer comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NumericAnswer {
    /// An expression over the lesson's parameters (a plain number is one too).
    Expr(String),
    /// A value measured on the task's start state (a check's subject).
    Measure(Subject),
}

/// A question answered by putting steps in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Order {
    /// The steps, in the right order (markdown).
    pub steps: Vec<String>,
    /// Shown after answering (markdown).
    pub explain: String,
}

/// An answer to pick, with why it is right or wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AnswerOption {
    /// The option (markdown).
    pub text: String,
    /// Whether it is right.
    pub correct: bool,
    /// Why it is right or wrong (markdown).
    pub why: String,
    /// Line in the file.
    pub line: usize,
}

/// One assertion on the engine's state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// What is measured.
    pub subject: Subject,
    /// What it must be.
    pub expect: Expect,
    /// The message shown when the check fails: `{expected}`, `{actual}` and the subject's
    /// fields (`{stream}`, `{group}`, `{consumer}`, `{id}`, `{key}`, `{command}`) are filled in.
    /// Empty in a misconception's `when`, which is never shown.
    pub message: String,
    /// A hint for when this check is the one failing.
    pub hint: Option<String>,
    /// Line in the file (its `kind`).
    pub line: usize,
}

/// What a check measures: its kind, and the fields locating the thing measured. A field is
/// `Some` exactly when the kind takes it (a required field the file left out is `Some("")`,
/// and the check is an error anyway).
///
/// One struct rather than an enum of twenty shapes: cloning, dropping, renaming for a variant
/// and listing the fields for a message are then one loop each, not twenty arms each (the
/// grader's wasm has a size budget).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// What is measured.
    pub kind: SubjectKind,
    /// The text fields, indexed by [`Loc`]: stream, group, consumer, id, key, command,
    /// option, connection.
    pub texts: [Option<String>; 8],
    /// Command names, upper case (a `transaction` check).
    pub commands: Option<Vec<String>>,
}

/// The text fields of a [`Subject`], in the order messages list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    /// Stream key.
    Stream,
    /// Group.
    Group,
    /// Consumer.
    Consumer,
    /// Entry id.
    Id,
    /// A key.
    Key,
    /// A command: the line a `reply` check runs, or the name `used` and `saw` count.
    Command,
    /// An argument the command must have (compared ignoring case).
    Option,
    /// The connection it must run on.
    Connection,
}

/// The [`Loc`] fields' names, as lesson files write them.
pub const LOC_NAMES: [&str; 8] = ["stream", "group", "consumer", "id", "key", "command", "option", "connection"];

/// The kinds of check, in [`CHECK_KINDS`](crate::CHECK_KINDS)' order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubjectKind {
    /// Pending entries of a group, or of one consumer in it.
    Pending,
    /// The consumer that owns a pending id (`""` when it is not pending).
    Owner,
    /// How many times a pending id was delivered.
    Deliveries,
    /// A group's last-delivered-id.
    LastDeliveredId,
    /// A group's entries-read (nil when unknown).
    EntriesRead,
    /// A group's lag (nil when it cannot be computed).
    Lag,
    /// A stream's length.
    Length,
    /// Whether an entry is in the stream (not deleted or trimmed).
    Entry,
    /// Whether a key exists.
    Key,
    /// Whether a group exists.
    Group,
    /// Whether a consumer exists in a group.
    Consumer,
    /// A stream's entries as field/value lists in id order, ids left out (a dead-letter
    /// stream's contents).
    Entries,
    /// What a command prints, run on a copy of the state from a fresh connection.
    Reply,
    /// How long ago a consumer last did anything (ms; XINFO CONSUMERS' idle).
    Idle,
    /// How many entries were ever added to a stream.
    EntriesAdded,
    /// The largest id deleted from a stream (`0-0` when none was).
    MaxDeletedId,
    /// A key's time to live in ms (-1: no expiry, -2: no key), as PTTL answers.
    Ttl,
    /// How many times the learner ran a command (since the task started), optionally with an
    /// argument equal to `option` and on one connection. Commands that failed do not count.
    Used,
    /// How many transactions the learner ran (MULTI … EXEC, and EXEC ran them) that contained
    /// every one of `commands`.
    Transaction,
    /// The replies the learner received (to `command`, on `connection`), deliveries included
    /// when no command is named.
    Saw,
}

impl SubjectKind {
    /// Every kind, in [`CHECK_KINDS`](crate::CHECK_KINDS)' order.
    pub const ALL: [SubjectKind; 20] = [
        SubjectKind::Pending,
        SubjectKind::Owner,
        SubjectKind::Deliveries,
        SubjectKind::LastDeliveredId,
        SubjectKind::EntriesRead,
        SubjectKind::Lag,
        SubjectKind::Length,
        SubjectKind::Entry,
        SubjectKind::Key,
        SubjectKind::Group,
        SubjectKind::Consumer,
        SubjectKind::Entries,
        SubjectKind::Reply,
        SubjectKind::Idle,
        SubjectKind::EntriesAdded,
        SubjectKind::MaxDeletedId,
        SubjectKind::Ttl,
        SubjectKind::Used,
        SubjectKind::Transaction,
        SubjectKind::Saw,
    ];

    /// The kind's name as lesson files write it, and the fields it takes (`name?`: optional).
    pub fn spec(self) -> (&'static str, &'static [&'static str]) {
        crate::CHECK_KINDS.get(self as usize).copied().unwrap_or(("", &[]))
    }
}

impl Subject {
    /// A subject of `kind` with no fields.
    pub fn new(kind: SubjectKind) -> Subject {
        Subject { kind, texts: Default::default(), commands: None }
    }

    /// A text field (empty when the kind does not take it).
    pub fn text(&self, loc: Loc) -> &str {
        self.get(loc).unwrap_or_default()
    }

    /// A text field, `None` when not given.
    pub fn get(&self, loc: Loc) -> Option<&str> {
        self.texts[loc as usize].as_deref()
    }

    /// Whether the subject is what the learner did rather than the state they reached.
    pub fn is_process(&self) -> bool {
        matches!(self.kind, SubjectKind::Used | SubjectKind::Transaction | SubjectKind::Saw)
    }

    /// The subject's fields by name, for message templates (`commands` before `connection`).
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = Vec::new();
        for (i, name) in LOC_NAMES.iter().enumerate() {
            if i == Loc::Connection as usize {
                if let Some(commands) = &self.commands {
                    out.push(("commands", commands.join(", ")));
                }
            }
            if let Some(value) = &self.texts[i] {
                out.push((name, value.clone()));
            }
        }
        out
    }

    /// Applies `f` to every text field (variants shift ids and rename values this way); a
    /// command name that `used` or `saw` counts is not text to rename.
    pub fn map_text(&self, f: impl Fn(&str) -> String) -> Subject {
        let mut subject = self.clone();
        for (i, text) in subject.texts.iter_mut().enumerate() {
            if i == Loc::Command as usize && self.kind != SubjectKind::Reply {
                continue;
            }
            if let Some(text) = text {
                *text = f(text);
            }
        }
        subject
    }
}

/// As an internally tagged enum: `kind`, then the kind's fields (`null` when not given).
impl Serialize for Subject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (kind, fields) = self.kind.spec();
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", kind)?;
        for field in fields {
            let name = field.strip_suffix('?').unwrap_or(field);
            match LOC_NAMES.iter().position(|n| *n == name) {
                Some(i) => map.serialize_entry(name, &self.texts[i])?,
                None => map.serialize_entry(name, &self.commands)?,
            }
        }
        map.end()
    }
}

/// What a check's subject must be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expect {
    /// Equal to this value.
    Equals(Value),
    /// A number at least this.
    AtLeast(Num),
    /// A number at most this.
    AtMost(Num),
    /// Text matching this glob pattern (`*`, `?`, `[...]`, as KEYS uses).
    Matches(String),
    /// Present (true) or absent (false); for what the learner did, used at least once or never.
    Present(bool),
    /// Entries that each contain these field/value pairs (in distinct entries; other fields
    /// and entries may be there too).
    Includes(Vec<Vec<String>>),
    /// The value the reference solution reaches on the same variant.
    SameAsSolution,
}

/// A number a check compares with: written out, or an expression over the parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Num {
    /// A number.
    Int(i64),
    /// `${expr}`, evaluated per variant.
    Expr(String),
}

/// A value a check compares with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A number (written out, or `${expr}`).
    Int(Num),
    /// Nil (entries-read or lag that Redis cannot give).
    Nil,
    /// Text: an id, a name, or a reply as redis-cli prints it.
    Text(String),
    /// Entries as field/value lists.
    Entries(Vec<Vec<String>>),
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Int(n) => write!(f, "{n}"),
            Num::Expr(text) => f.write_str(text),
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Nil => f.write_str("nil"),
            Value::Text(text) => f.write_str(text),
            Value::Entries(entries) => f.write_str(&describe_entries(entries)),
        }
    }
}

/// Entries as one line: `[a=1 b=2] [c=3]`, or `no entries`.
pub fn describe_entries(entries: &[Vec<String>]) -> String {
    if entries.is_empty() {
        return "no entries".to_owned();
    }
    let mut out = String::new();
    for fields in entries {
        out.push_str(if out.is_empty() { "[" } else { " [" });
        for (n, pair) in fields.chunks(2).enumerate() {
            if n > 0 {
                out.push(' ');
            }
            out.push_str(&pair.join("="));
        }
        out.push(']');
    }
    out
}
