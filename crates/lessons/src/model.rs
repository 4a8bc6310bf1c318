//! A lesson as the player, the checker and the validator see it, after [`parse`](crate::parse)
//! has checked the file's shape. Every part that can be wrong carries the line it came from.

use serde::{Serialize, Serializer};
use streamlab_engine::SortedMap;
pub use streamlab_protocol::Profile;

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
    /// Tasks, in order.
    pub tasks: Vec<Task>,
}

/// The replaced words as a JSON object (the engine's sorted map has no serde of its own).
fn word_map<S: Serializer>(values: &SortedMap<String, String>, serializer: S) -> Result<S::Ok, S::Error> {
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
    /// What kind of task it is.
    pub kind: TaskKind,
    /// Line in the file (its `kind`).
    pub line: usize,
}

/// The three kinds of task.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TaskKind {
    /// Act in the console until the engine's state meets the checks.
    ReachState(Goal),
    /// Say what a command will print before running it.
    Predict(Predict),
    /// Pick the right answer.
    Choice(Choice),
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
    /// The fewest commands that reach the goal.
    pub par: usize,
    /// Sequences that look plausible and must not pass.
    pub must_not_pass: Vec<Vec<Line>>,
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
    pub message: String,
    /// Line in the file (its `kind`).
    pub line: usize,
}

/// What a check measures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Subject {
    /// Pending entries of a group, or of one consumer in it.
    Pending {
        /// Stream key.
        stream: String,
        /// Group.
        group: String,
        /// Consumer, for one consumer's count.
        consumer: Option<String>,
    },
    /// The consumer that owns a pending id (`""` when it is not pending).
    Owner {
        /// Stream key.
        stream: String,
        /// Group.
        group: String,
        /// Entry id.
        id: String,
    },
    /// How many times a pending id was delivered.
    Deliveries {
        /// Stream key.
        stream: String,
        /// Group.
        group: String,
        /// Entry id.
        id: String,
    },
    /// A group's last-delivered-id.
    LastDeliveredId {
        /// Stream key.
        stream: String,
        /// Group.
        group: String,
    },
    /// A group's entries-read (nil when unknown).
    EntriesRead {
        /// Stream key.
        stream: String,
        /// Group.
        group: String,
    },
    /// A group's lag (nil when it cannot be computed).
    Lag {
        /// Stream key.
        stream: String,
        /// Group.
        group: String,
    },
    /// A stream's length.
    Length {
        /// Stream key.
        stream: String,
    },
    /// Whether an entry is in the stream (not deleted or trimmed).
    Entry {
        /// Stream key.
        stream: String,
        /// Entry id.
        id: String,
    },
    /// Whether a key exists.
    Key {
        /// The key.
        key: String,
    },
    /// Whether a group exists.
    Group {
        /// Stream key.
        stream: String,
        /// Group.
        group: String,
    },
    /// Whether a consumer exists in a group.
    Consumer {
        /// Stream key.
        stream: String,
        /// Group.
        group: String,
        /// Consumer.
        consumer: String,
    },
    /// A stream's entries as field/value lists in id order, ids left out (a dead-letter
    /// stream's contents).
    Entries {
        /// Stream key.
        stream: String,
    },
    /// What a command prints, run on a copy of the state from a fresh connection.
    Reply {
        /// The command.
        command: String,
    },
}

impl Subject {
    /// The kind's name as lesson files write it.
    pub fn kind(&self) -> &'static str {
        match self {
            Subject::Pending { .. } => "pending",
            Subject::Owner { .. } => "owner",
            Subject::Deliveries { .. } => "deliveries",
            Subject::LastDeliveredId { .. } => "last-delivered-id",
            Subject::EntriesRead { .. } => "entries-read",
            Subject::Lag { .. } => "lag",
            Subject::Length { .. } => "length",
            Subject::Entry { .. } => "entry",
            Subject::Key { .. } => "key",
            Subject::Group { .. } => "group",
            Subject::Consumer { .. } => "consumer",
            Subject::Entries { .. } => "entries",
            Subject::Reply { .. } => "reply",
        }
    }

    /// The subject's fields by name, for message templates.
    pub fn fields(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        match self {
            Subject::Pending { stream, group, consumer } => {
                out.extend([("stream", stream.as_str()), ("group", group.as_str())]);
                if let Some(consumer) = consumer {
                    out.push(("consumer", consumer.as_str()));
                }
            }
            Subject::Owner { stream, group, id } | Subject::Deliveries { stream, group, id } => {
                out.extend([("stream", stream.as_str()), ("group", group.as_str()), ("id", id.as_str())])
            }
            Subject::LastDeliveredId { stream, group }
            | Subject::EntriesRead { stream, group }
            | Subject::Lag { stream, group }
            | Subject::Group { stream, group } => out.extend([("stream", stream.as_str()), ("group", group.as_str())]),
            Subject::Length { stream } | Subject::Entries { stream } => out.push(("stream", stream.as_str())),
            Subject::Entry { stream, id } => out.extend([("stream", stream.as_str()), ("id", id.as_str())]),
            Subject::Key { key } => out.push(("key", key.as_str())),
            Subject::Consumer { stream, group, consumer } => {
                out.extend([("stream", stream.as_str()), ("group", group.as_str()), ("consumer", consumer.as_str())])
            }
            Subject::Reply { command } => out.push(("command", command.as_str())),
        }
        out
    }

    /// Applies `f` to every text field (variants shift ids and rename values this way).
    pub fn map_text(&self, f: impl Fn(&str) -> String) -> Subject {
        let mut subject = self.clone();
        match &mut subject {
            Subject::Pending { stream, group, consumer } => {
                *stream = f(stream);
                *group = f(group);
                if let Some(consumer) = consumer {
                    *consumer = f(consumer);
                }
            }
            Subject::Owner { stream, group, id } | Subject::Deliveries { stream, group, id } => {
                *stream = f(stream);
                *group = f(group);
                *id = f(id);
            }
            Subject::LastDeliveredId { stream, group }
            | Subject::EntriesRead { stream, group }
            | Subject::Lag { stream, group }
            | Subject::Group { stream, group } => {
                *stream = f(stream);
                *group = f(group);
            }
            Subject::Length { stream } | Subject::Entries { stream } => *stream = f(stream),
            Subject::Entry { stream, id } => {
                *stream = f(stream);
                *id = f(id);
            }
            Subject::Key { key } => *key = f(key),
            Subject::Consumer { stream, group, consumer } => {
                *stream = f(stream);
                *group = f(group);
                *consumer = f(consumer);
            }
            Subject::Reply { command } => *command = f(command),
        }
        subject
    }
}

/// What a check's subject must be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Expect {
    /// Equal to this value.
    Equals(Value),
    /// A number at least this.
    AtLeast(i64),
    /// A number at most this.
    AtMost(i64),
    /// Text matching this glob pattern (`*`, `?`, `[...]`, as KEYS uses).
    Matches(String),
    /// Present (true) or absent (false).
    Present(bool),
}

/// A value a check compares with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A number.
    Int(i64),
    /// Nil (entries-read or lag that Redis cannot give).
    Nil,
    /// Text: an id, a name, or a reply as redis-cli prints it.
    Text(String),
    /// Entries as field/value lists.
    Entries(Vec<Vec<String>>),
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
    entries
        .iter()
        .map(|fields| {
            let pairs: Vec<String> = fields.chunks(2).map(|p| p.join("=")).collect();
            format!("[{}]", pairs.join(" "))
        })
        .collect::<Vec<_>>()
        .join(" ")
}
