//! The headless session and lesson outline behind the grader module (`crates/grader`): a
//! console with no UI whose replies come back as redis-cli text and as JSON values, and what a
//! grader needs to know of a lesson. The DTOs live here with the others.

use serde::Serialize;
use serde_json::{json, Value};
use streamlab_lessons::{Lesson, TaskKind};
use streamlab_protocol::history::Step;
use streamlab_protocol::{format_reply, Clock, Console, OutputKind, Reply, Session, VIRTUAL_EPOCH_MS};

use crate::{view, OutputView, SnapshotView};

/// A reply tree as a JSON value a grader can compare: bulk strings as strings (invalid UTF-8
/// replaced), integers as numbers, both nulls as `null`, arrays as arrays, booleans as
/// booleans; the kinds JSON has no word for are tagged objects (`{"status": "OK"}`,
/// `{"error": "ERR ..."}`, `{"map": [[k, v], ...]}`, `{"set": [...]}`, `{"double": 1.5}`,
/// `{"verbatim": "...", "format": "txt"}`, `{"push": [...]}`).
pub fn reply_value(reply: &Reply) -> Value {
    let all = |items: &[Reply]| Value::Array(items.iter().map(reply_value).collect());
    match reply {
        Reply::Status(text) => json!({ "status": text }),
        Reply::Error(text) => json!({ "error": text }),
        Reply::Integer(n) => json!(n),
        Reply::Bulk(bytes) => json!(String::from_utf8_lossy(bytes)),
        Reply::NullBulk | Reply::NullArray => Value::Null,
        Reply::Array(items) => all(items),
        Reply::Map(pairs) => {
            json!({ "map": pairs.iter().map(|(k, v)| json!([reply_value(k), reply_value(v)])).collect::<Vec<_>>() })
        }
        Reply::Set(items) => json!({ "set": all(items) }),
        // JSON has no infinities or NaN; those keep their redis-cli text.
        Reply::Double(x) if x.is_finite() => json!({ "double": x }),
        Reply::Double(_) => json!({ "double": format_reply(reply) }),
        Reply::Boolean(b) => json!(b),
        Reply::Verbatim { format, text } => {
            json!({ "verbatim": String::from_utf8_lossy(text), "format": String::from_utf8_lossy(format) })
        }
        Reply::Push(items) => json!({ "push": all(items) }),
    }
}

/// What one line did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Executed {
    /// The text a console prints for the line (`[NAME] ` before lines that reached another
    /// connection), as redis-cli would.
    pub text: String,
    /// False when anything it printed was an error.
    pub ok: bool,
    /// The output blocks, as the playground shows them.
    pub outputs: Vec<OutputView>,
    /// The replies to the connection that ran it, as values (empty for meta-commands).
    pub replies: Vec<Value>,
    /// Replies it caused on other connections (a served blocked read, a Pub/Sub message).
    pub deliveries: Vec<Delivered>,
}

/// A reply that reached another connection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Delivered {
    /// The connection's console name.
    pub to: String,
    /// The reply as a value.
    pub value: Value,
}

/// A console session with no UI.
#[derive(Debug, Clone)]
pub struct Headless {
    console: Console,
    /// The clock's start, for the script's `:clock` lines.
    start: i64,
}

impl Headless {
    /// A session answering as `profile` (default: the playground's), its virtual clock at
    /// `clock` (Unix ms; default: the console's usual start).
    pub fn create(profile: Option<&str>, clock: Option<i64>) -> Result<Headless, String> {
        let profile = crate::profile_or_default(profile)?;
        let start = clock.unwrap_or(VIRTUAL_EPOCH_MS);
        Ok(Headless { console: Console::new(Session::with_profile(Clock::Virtual(start), profile)), start })
    }

    /// Runs one console line (a command, `:as NAME`, `:clock +MS`, a comment).
    pub fn execute_line(&mut self, line: &str) -> Executed {
        let before = self.console.timeline().position();
        let outputs = self.console.run(line);
        let timeline = self.console.timeline();
        let position = timeline.position();
        // The step this line recorded, if it recorded one (blank lines and refused lines
        // record nothing).
        let record = (position == before + 1).then(|| &timeline.records()[position - 1]);
        let (replies, deliveries) = match record {
            Some(record) => (
                match record.step {
                    Step::Execute { .. } => record.output.replies.iter().map(reply_value).collect(),
                    _ => Vec::new(),
                },
                record
                    .output
                    .deliveries
                    .iter()
                    .map(|d| Delivered { to: self.console.label(d.conn), value: reply_value(&d.reply) })
                    .collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let ok = outputs.iter().all(|o| o.kind != OutputKind::Error);
        let outputs: Vec<OutputView> = outputs.into_iter().map(OutputView::from).collect();
        let text = outputs.iter().map(OutputView::display).collect::<Vec<_>>().join("\n");
        Executed { text, ok, outputs, replies, deliveries }
    }

    /// The state as the playground's pictures see it.
    pub fn snapshot(&self) -> SnapshotView {
        view::snapshot(&self.console, &view::Opened::default())
    }

    /// The profile's name.
    pub fn profile(&self) -> &'static str {
        self.console.session().profile().name()
    }

    /// The engine clock (Unix ms).
    pub fn now(&self) -> i64 {
        self.console.session().now()
    }

    /// A command file that rebuilds the session (`:as` and `:clock` lines included).
    pub fn script(&self) -> String {
        self.console.script(self.start)
    }
}

/// What a grader needs to know about a lesson to drive its checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LessonInfo {
    /// The lesson's id.
    pub id: String,
    /// Its version (progress saved under another version is stale).
    pub version: u32,
    /// Its title.
    pub title: String,
    /// The profile it is written for.
    pub profile: String,
    /// How many variants there are: 0 is the lesson as written, the others are hidden.
    pub variants: usize,
    /// Its tasks, in order.
    pub tasks: Vec<TaskInfo>,
}

/// One task, without its answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskInfo {
    /// The title.
    pub title: String,
    /// `reach-state`, `predict` or `choice`.
    pub kind: &'static str,
    /// The fewest commands that reach a reach-state goal.
    pub par: Option<usize>,
    /// How many options a predict or choice task offers.
    pub options: usize,
}

/// A lesson's outline, without its answers.
pub fn outline(l: &Lesson) -> LessonInfo {
    LessonInfo {
        id: l.id.clone(),
        version: l.version,
        title: l.title.clone(),
        profile: l.profile.to_string(),
        variants: l.variants.len(),
        tasks: l
            .tasks
            .iter()
            .map(|t| match &t.kind {
                TaskKind::ReachState(goal) => {
                    TaskInfo { title: t.title.clone(), kind: "reach-state", par: Some(goal.par), options: 0 }
                }
                TaskKind::Predict(p) => {
                    TaskInfo { title: t.title.clone(), kind: "predict", par: None, options: p.options.len() }
                }
                TaskKind::Choice(c) => {
                    TaskInfo { title: t.title.clone(), kind: "choice", par: None, options: c.options.len() }
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_text_and_values() {
        let mut g = Headless::create(None, None).unwrap();
        let added = g.execute_line("XADD s 1-0 f v");
        assert_eq!((added.text.as_str(), added.ok), ("\"1-0\"", true));
        assert_eq!(added.replies, vec![json!("1-0")]);
        let range = g.execute_line("XRANGE s - +");
        assert_eq!(range.replies, vec![json!([["1-0", ["f", "v"]]])]);
        let wrong = g.execute_line("XADD s 1-0 f v");
        assert!(!wrong.ok);
        assert_eq!(wrong.replies[0]["error"].as_str().unwrap().split(' ').next(), Some("ERR"));
        assert_eq!(g.execute_line("XLEN nope").replies, vec![json!(0)]);
        assert_eq!(g.execute_line("GET nope").replies, vec![Value::Null]);
        // Meta-commands print but reply nothing; a served blocked read is a delivery.
        g.execute_line(":as bob");
        assert!(g.execute_line("XREAD BLOCK 0 STREAMS s $").text.is_empty());
        g.execute_line(":as default");
        let served = g.execute_line("XADD s 2-0 f w");
        assert_eq!(served.deliveries[0].to, "bob");
        assert_eq!(served.deliveries[0].value, json!([["s", [["2-0", ["f", "w"]]]]]));
        assert!(served.text.contains("[bob] "), "{}", served.text);
        assert_eq!(reply_value(&Reply::Map(vec![(Reply::bulk("a"), Reply::Integer(1))])), json!({"map": [["a", 1]]}));
    }

    #[test]
    fn profiles_are_checked_and_scripts_rebuild_the_session() {
        assert!(Headless::create(Some("redis-6"), None).unwrap_err().contains("unknown profile"));
        let mut g = Headless::create(Some("redis-7.4"), Some(1_000)).unwrap();
        g.execute_line("XADD s * f v");
        g.execute_line(":clock +5s");
        assert_eq!(g.console.session().now(), 6_000);
        assert_eq!(g.console.session().profile().name(), "redis-7.4");
        let mut again = Headless::create(Some("redis-7.4"), Some(1_000)).unwrap();
        for line in g.console.script(g.start).lines() {
            again.execute_line(line);
        }
        assert_eq!(again.snapshot(), g.snapshot());
    }
}
