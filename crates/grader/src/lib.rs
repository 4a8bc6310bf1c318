//! The headless StreamLab for course platforms and graders: the engine and the lesson checker
//! with no UI, compiled on its own so its wasm stays small.
//!
//! [`Grader`] is a console session on a chosen profile: lines in, replies out as redis-cli
//! text *and* as values (the reply tree as JSON), plus the state snapshot the pictures draw.
//! [`GraderLesson`] is a parsed lesson whose checks run against a learner's command log on
//! any of its variants, so a platform can re-grade a log against hidden variants. Every answer
//! crossing to JavaScript is a JSON string; `dist/grader/grader.js` (hand-written, with
//! `grader.d.ts`) parses them into typed objects.

use serde::Serialize;
use serde_json::{json, Value};
use streamlab_lessons::{check_choice, check_log, check_prediction, parse_lesson, parse_log, Lesson, Prediction};
use streamlab_protocol::history::Step;
use streamlab_protocol::{format_reply, Clock, Console, OutputKind, Profile, Reply, Session, VIRTUAL_EPOCH_MS};
use streamlab_wasm::OutputView;
use wasm_bindgen::prelude::*;

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

fn json_text<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("grader answers serialize")
}

fn js_error(error: impl std::fmt::Display) -> JsError {
    JsError::new(&error.to_string())
}

/// A console session with no UI.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Grader {
    console: Console,
    /// The clock's start, for the script's `:clock` lines.
    start: i64,
}

impl Grader {
    /// A session answering as `profile` (default: the playground's), its virtual clock at
    /// `clock` (Unix ms; default: the console's usual start).
    pub fn create(profile: Option<&str>, clock: Option<i64>) -> Result<Grader, String> {
        let profile = match profile {
            Some(name) => name.parse::<Profile>().map_err(|e| e.to_string())?,
            None => streamlab_wasm::DEFAULT_PROFILE.parse::<Profile>().expect("the default profile exists"),
        };
        let start = clock.unwrap_or(VIRTUAL_EPOCH_MS);
        Ok(Grader { console: Console::new(Session::with_profile(Clock::Virtual(start), profile)), start })
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
}

#[wasm_bindgen]
impl Grader {
    /// A session answering as `profile` (`redis-8.2` by default), its virtual clock starting
    /// at `clock` (Unix ms). Throws on an unknown profile.
    #[wasm_bindgen(constructor)]
    pub fn new(profile: Option<String>, clock: Option<f64>) -> Result<Grader, JsError> {
        Grader::create(profile.as_deref(), clock.map(|c| c as i64)).map_err(js_error)
    }

    /// Runs one line; JSON of [`Executed`].
    pub fn execute(&mut self, line: &str) -> String {
        json_text(&self.execute_line(line))
    }

    /// The state as the playground's pictures see it (JSON of its `SnapshotView`).
    pub fn snapshot(&self) -> String {
        json_text(&streamlab_wasm::view::snapshot(&self.console))
    }

    /// The profile's name.
    pub fn profile(&self) -> String {
        self.console.session().profile().name().to_owned()
    }

    /// The engine clock (Unix ms).
    pub fn now(&self) -> f64 {
        self.console.session().now() as f64
    }

    /// A command file that rebuilds the session (`:as` and `:clock` lines included).
    pub fn script(&self) -> String {
        self.console.script(self.start)
    }
}

/// A lesson, parsed and ready to check learners' work.
#[wasm_bindgen]
#[derive(Debug)]
pub struct GraderLesson {
    lesson: Lesson,
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

impl GraderLesson {
    /// Parses a lesson file; every problem with its line on failure.
    pub fn parse(file: &str, text: &str) -> Result<GraderLesson, String> {
        parse_lesson(file, text)
            .map(|lesson| GraderLesson { lesson })
            .map_err(|errors| errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
    }

    /// The lesson's outline.
    pub fn outline(&self) -> LessonInfo {
        use streamlab_lessons::TaskKind;
        let l = &self.lesson;
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
}

#[wasm_bindgen]
impl GraderLesson {
    /// Parses a lesson file (TOML); throws with every problem and its line.
    #[wasm_bindgen(constructor)]
    pub fn new(text: &str, file: Option<String>) -> Result<GraderLesson, JsError> {
        GraderLesson::parse(file.as_deref().unwrap_or("lesson.toml"), text).map_err(|e| JsError::new(&e))
    }

    /// JSON of [`LessonInfo`].
    pub fn info(&self) -> String {
        json_text(&self.outline())
    }

    /// Checks a reach-state task against a learner's log (a command file: `:as NAME`,
    /// `name> COMMAND`, `:clock +MS`, one per line) on a variant; JSON of the verdict.
    #[wasm_bindgen(js_name = checkLog)]
    pub fn check_log(&self, task: usize, log: &str, variant: usize) -> Result<String, JsError> {
        check_log(&self.lesson, task, variant, &parse_log(log)).map(|v| json_text(&v)).map_err(js_error)
    }

    /// Checks the option chosen in a multiple-choice task; JSON of the answer.
    #[wasm_bindgen(js_name = checkChoice)]
    pub fn check_choice(&self, task: usize, option: usize) -> Result<String, JsError> {
        check_choice(&self.lesson, task, option).map(|a| json_text(&a)).map_err(js_error)
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
        check_prediction(&self.lesson, task, variant, &answer).map(|a| json_text(&a)).map_err(js_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_text_and_values() {
        let mut g = Grader::create(None, None).unwrap();
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
        assert!(Grader::create(Some("redis-6"), None).unwrap_err().contains("unknown profile"));
        let mut g = Grader::create(Some("redis-7.4"), Some(1_000)).unwrap();
        g.execute_line("XADD s * f v");
        g.execute_line(":clock +5s");
        assert_eq!(g.console.session().now(), 6_000);
        assert_eq!(g.console.session().profile().name(), "redis-7.4");
        let mut again = Grader::create(Some("redis-7.4"), Some(1_000)).unwrap();
        for line in g.console.script(g.start).lines() {
            again.execute_line(line);
        }
        assert_eq!(again.snapshot(), g.snapshot());
    }
}
