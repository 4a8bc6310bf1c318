//! The headless session and lesson outline behind the grader module (`crates/grader`): a
//! console with no UI whose replies come back as redis-cli text and as JSON values, and what a
//! grader needs to know of a lesson. The DTOs live here with the others.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use streamlab_lessons::{Lesson, TaskKind};
use streamlab_protocol::timeline::Step;
use streamlab_protocol::{format_double, format_reply, Clock, Console, Keep, Reply, Session, VIRTUAL_EPOCH_MS};

use crate::{json, view, OutputView, SnapshotView};

/// A reply tree as the JSON value a grader compares: bulk strings as strings (invalid UTF-8
/// replaced), integers as numbers, both nulls as `null`, arrays as arrays, booleans as
/// booleans; the kinds JSON has no word for are tagged objects (`{"status": "OK"}`,
/// `{"error": "ERR ..."}`, `{"map": [[k, v], ...]}`, `{"set": [...]}`, `{"double": "1.5"}`,
/// `{"verbatim": "...", "format": "txt"}`, `{"push": [...]}`). A double's digits are a string
/// here; grader.js hands them to callers as a number.
///
/// Written straight to the serializer rather than built as a `serde_json::Value`: the value
/// tree (and the map type inside it) cost the grader's wasm several KB gzipped for nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplyValue(pub Reply);

impl Serialize for ReplyValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Of(&self.0).serialize(serializer)
    }
}

/// A borrowed reply, serialized as [`ReplyValue`] describes.
struct Of<'a>(&'a Reply);

impl Serialize for Of<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let reply = self.0;
        match reply {
            Reply::Status(text) => tagged(serializer, "status", text),
            Reply::Error(text) => tagged(serializer, "error", &streamlab_protocol::reply::shown_error(text)),
            Reply::Integer(n) => serializer.serialize_i64(*n),
            Reply::Bulk(bytes) => serializer.serialize_str(&String::from_utf8_lossy(bytes)),
            Reply::NullBulk | Reply::NullArray => serializer.serialize_unit(),
            Reply::Array(items) => All(items).serialize(serializer),
            Reply::Map(pairs) => tagged(serializer, "map", &Pairs(pairs)),
            Reply::Set(items) => tagged(serializer, "set", &All(items)),
            // A finite double goes out as the digits RESP3 would send (shortest round-trip
            // text), which grader.js turns into a number: serializing the f64 itself would
            // link serde_json's float printer and its ~10 KB power-of-ten table into the
            // wasm. JSON has no infinities or NaN; those keep their redis-cli text.
            Reply::Double(x) if x.is_finite() => tagged(serializer, "double", &format_double(*x)),
            Reply::Double(_) => tagged(serializer, "double", &format_reply(reply)),
            Reply::Boolean(b) => serializer.serialize_bool(*b),
            Reply::Verbatim { format, text } => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("verbatim", &String::from_utf8_lossy(text))?;
                map.serialize_entry("format", &String::from_utf8_lossy(format))?;
                map.end()
            }
            Reply::Push(items) => tagged(serializer, "push", &All(items)),
        }
    }
}

/// The object `{tag: value}`.
fn tagged<S: Serializer, T: Serialize + ?Sized>(serializer: S, tag: &str, value: &T) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(1))?;
    map.serialize_entry(tag, value)?;
    map.end()
}

/// Replies as an array of values.
struct All<'a>(&'a [Reply]);

impl Serialize for All<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            seq.serialize_element(&Of(item))?;
        }
        seq.end()
    }
}

/// A map reply's pairs as an array of `[key, value]` arrays (keys need not be strings).
struct Pairs<'a>(&'a [(Reply, Reply)]);

impl Serialize for Pairs<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for (key, value) in self.0 {
            seq.serialize_element(&(Of(key), Of(value)))?;
        }
        seq.end()
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
    pub replies: Vec<ReplyValue>,
    /// Replies it caused on other connections (a served blocked read, a Pub/Sub message).
    pub deliveries: Vec<Delivered>,
}

/// A reply that reached another connection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Delivered {
    /// The connection's console name.
    pub to: String,
    /// The reply as a value.
    pub value: ReplyValue,
}

/// A console session with no UI.
#[derive(Debug, Clone)]
pub struct Headless {
    console: Console,
}

impl Headless {
    /// A session answering as `profile` (default: the playground's), its virtual clock at
    /// `clock` (Unix ms; default: the console's usual start), keeping the last `history`
    /// steps for undo (default: all of them).
    pub fn create(profile: Option<&str>, clock: Option<i64>, history: Option<usize>) -> Result<Headless, String> {
        let profile = crate::profile_or_default(profile)?;
        let start = clock.unwrap_or(VIRTUAL_EPOCH_MS);
        let keep = match history {
            Some(steps) => Keep::Last(steps),
            None => Keep::All,
        };
        Ok(Headless { console: Console::new(Session::with_profile(Clock::Virtual(start), profile)).keeping(keep) })
    }

    /// Runs one console line (a command, `:as NAME`, `:clock +MS`, a comment).
    pub fn execute_line(&mut self, line: &str) -> Executed {
        let next = self.console.timeline().next_id();
        let outputs = self.console.run(line);
        let timeline = self.console.timeline();
        // The step this line recorded, if it recorded one (blank lines and refused lines
        // record nothing): by id, since a bounded history may have forgotten steps before it.
        let record = match timeline.records().last() {
            Some(last) if last.id == next && timeline.position() == timeline.records().len() => Some(last),
            _ => None,
        };
        // Plain loops, not `collect`: each adapter chain is its own code in the wasm.
        let (mut replies, mut deliveries) = (Vec::new(), Vec::new());
        if let Some(record) = record {
            if let Step::Execute { .. } = record.step {
                for reply in &record.output.replies {
                    replies.push(ReplyValue(reply.clone()));
                }
            }
            for d in &record.output.deliveries {
                deliveries.push(Delivered { to: self.console.label(d.conn), value: ReplyValue(d.reply.clone()) });
            }
        }
        let mut views = Vec::new();
        for output in outputs {
            views.push(OutputView::from(output));
        }
        let outputs = views;
        Executed { text: OutputView::printed(&outputs), ok: OutputView::all_ok(&outputs), outputs, replies, deliveries }
    }

    /// Runs many lines (one per line of `text`) in one call, answering compactly as JSON:
    /// `{"lines": N, "errors": [{"line": I, "text": T}, ...], "last": Executed}`, the lines
    /// that printed an error (by index from 0) and the last line's result in full; a grader
    /// replaying a long log needs no more, and not every reply as JSON. Written by hand around
    /// the serializers the module has anyway: a derived struct for it cost the grader's wasm
    /// most of a KB.
    pub fn run_lines(&mut self, text: &str) -> String {
        let mut errors = String::new();
        let mut lines = 0usize;
        // `split` yields at least one line (an empty text is one empty line), so there is a
        // last result: the first line's is the last until another runs.
        let mut rest = text.split('\n');
        let mut last = self.execute_line(rest.next().unwrap_or_default());
        loop {
            if !last.ok {
                errors.push_str(if errors.is_empty() { "{\"line\":" } else { ",{\"line\":" });
                errors.push_str(&lines.to_string());
                errors.push_str(",\"text\":");
                errors.push_str(&json(&last.text));
                errors.push('}');
            }
            lines += 1;
            match rest.next() {
                Some(line) => last = self.execute_line(line),
                None => break,
            }
        }
        // Only the last line's result is written out: serializing each would be most of the
        // work of a long log.
        let mut out = String::from("{\"lines\":");
        out.push_str(&lines.to_string());
        out.push_str(",\"errors\":[");
        out.push_str(&errors);
        out.push_str("],\"last\":");
        out.push_str(&json(&last));
        out.push('}');
        out
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

    /// A command file that rebuilds the session (`:as` and `:clock` lines included); an error
    /// once a bounded history has forgotten steps, since the file could not rebuild it.
    pub fn script(&self) -> Result<String, String> {
        match self.console.timeline().forgotten() {
            0 => Ok(self.console.script()),
            n => Err(format!(
                "this session has forgotten its first {n} steps (it keeps a bounded history), so no script rebuilds it"
            )),
        }
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
    /// `reach-state`, `predict`, `choice`, `numeric` or `order`.
    pub kind: &'static str,
    /// The fewest state-changing commands that reach a reach-state goal.
    pub par: Option<usize>,
    /// How many options a predict or choice task offers (steps, for an order task).
    pub options: usize,
    /// A choice with several right options.
    pub multiple: bool,
    /// The task starts where the previous one ended (grade it with the earlier tasks' logs).
    pub continues: bool,
    /// The first task of its chain (itself, unless it continues): the learner's logs from
    /// that task on are its earlier work.
    #[serde(rename = "chainStart")]
    pub chain_start: usize,
    /// The most it scores in the player (see `embed::task_score`).
    pub max: u32,
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
            .enumerate()
            .map(|(n, t)| {
                let (par, options) = match &t.kind {
                    TaskKind::ReachState(goal) => (Some(goal.par), 0),
                    TaskKind::Order(order) => (None, order.steps.len()),
                    kind => (None, kind.options().len()),
                };
                let multiple = matches!(&t.kind, TaskKind::Choice(c) if c.multiple);
                let chain_start = *l.chain(n).start();
                TaskInfo {
                    title: t.title.clone(),
                    kind: t.kind.name(),
                    par,
                    options,
                    multiple,
                    continues: t.continues,
                    chain_start,
                    max: crate::embed::task_max(par.is_none()),
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// The JSON a grader receives for these replies.
    fn values(replies: &[ReplyValue]) -> Vec<Value> {
        replies.iter().map(|r| serde_json::to_value(r).unwrap()).collect()
    }

    #[test]
    fn lines_give_text_and_values() {
        let mut g = Headless::create(None, None, None).unwrap();
        let added = g.execute_line("XADD s 1-0 f v");
        assert_eq!((added.text.as_str(), added.ok), ("\"1-0\"", true));
        assert_eq!(values(&added.replies), vec![json!("1-0")]);
        let range = g.execute_line("XRANGE s - +");
        assert_eq!(values(&range.replies), vec![json!([["1-0", ["f", "v"]]])]);
        let wrong = g.execute_line("XADD s 1-0 f v");
        assert!(!wrong.ok);
        assert_eq!(values(&wrong.replies)[0]["error"].as_str().unwrap().split(' ').next(), Some("ERR"));
        assert_eq!(values(&g.execute_line("XLEN nope").replies), vec![json!(0)]);
        assert_eq!(values(&g.execute_line("GET nope").replies), vec![Value::Null]);
        // Meta-commands print but reply nothing; a served blocked read is a delivery.
        g.execute_line(":as bob");
        assert!(g.execute_line("XREAD BLOCK 0 STREAMS s $").text.is_empty());
        g.execute_line(":as default");
        let served = g.execute_line("XADD s 2-0 f w");
        assert_eq!(served.deliveries[0].to, "bob");
        assert_eq!(serde_json::to_value(&served.deliveries[0].value).unwrap(), json!([["s", [["2-0", ["f", "w"]]]]]));
        assert!(served.text.contains("[bob] "), "{}", served.text);
    }

    #[test]
    fn a_batch_reports_failures_and_the_last_line_as_single_lines_would() {
        let log = "XADD s 1-0 f v\nXADD s 1-0 f v\n# note\n:as bob\nXLEN s";
        let mut one = Headless::create(None, None, None).unwrap();
        let each: Vec<Executed> = log.split('\n').map(|line| one.execute_line(line)).collect();
        let mut batch = Headless::create(None, None, None).unwrap();
        let ran: Value = serde_json::from_str(&batch.run_lines(log)).unwrap();
        assert_eq!(ran["lines"], json!(5));
        assert_eq!(ran["errors"], json!([{"line": 1, "text": each[1].text}]));
        assert_eq!(ran["last"], serde_json::to_value(&each[4]).unwrap());
        assert_eq!(batch.snapshot(), one.snapshot());
        let quoted: Value = serde_json::from_str(&batch.run_lines("SET k \"a\\\"b\"\nBOGUS \"q\\\"uote\"")).unwrap();
        assert_eq!(quoted["errors"][0]["line"], json!(1));
        assert!(quoted["errors"][0]["text"].as_str().unwrap().contains("unknown command 'BOGUS'"));
    }

    #[test]
    fn a_bounded_history_still_answers_every_line_but_cannot_script() {
        let mut g = Headless::create(None, None, Some(10)).unwrap();
        for i in 0..2_000 {
            let added = g.execute_line(&format!("XADD s {}-0 f v", i + 1));
            assert_eq!(values(&added.replies), vec![json!(format!("{}-0", i + 1))]);
        }
        assert!(g.console.timeline().records().len() < 1_000);
        assert!(g.script().unwrap_err().contains("forgotten its first"));
    }

    #[test]
    fn every_reply_kind_has_a_json_value() {
        let cases = [
            (Reply::Status("OK".into()), json!({"status": "OK"})),
            (Reply::Error("ERR no".into()), json!({"error": "ERR no"})),
            (Reply::Integer(-3), json!(-3)),
            (Reply::Bulk(vec![b'a', 0xff]), json!("a\u{fffd}")),
            (Reply::NullBulk, Value::Null),
            (Reply::NullArray, Value::Null),
            (Reply::Array(vec![Reply::Integer(1), Reply::NullBulk]), json!([1, null])),
            (Reply::Map(vec![(Reply::bulk("a"), Reply::Integer(1))]), json!({"map": [["a", 1]]})),
            (Reply::Set(vec![Reply::bulk("x")]), json!({"set": ["x"]})),
            (Reply::Double(1.5), json!({"double": "1.5"})),
            (Reply::Double(-2.5e-20), json!({"double": "-2.5e-20"})),
            (Reply::Double(f64::INFINITY), json!({"double": "(double) inf"})),
            (Reply::Boolean(true), json!(true)),
            (Reply::Verbatim { format: *b"txt", text: b"hi".to_vec() }, json!({"verbatim": "hi", "format": "txt"})),
            (Reply::Push(vec![Reply::bulk("message")]), json!({"push": ["message"]})),
        ];
        for (reply, expected) in cases {
            assert_eq!(serde_json::to_value(ReplyValue(reply.clone())).unwrap(), expected, "{reply:?}");
        }
    }

    #[test]
    fn profiles_are_checked_and_scripts_rebuild_the_session() {
        assert!(Headless::create(Some("redis-6"), None, None).unwrap_err().contains("unknown profile"));
        let mut g = Headless::create(Some("redis-7.4"), Some(1_000), None).unwrap();
        g.execute_line("XADD s * f v");
        g.execute_line(":clock +5s");
        assert_eq!(g.console.session().now(), 6_000);
        assert_eq!(g.console.session().profile().name(), "redis-7.4");
        let mut again = Headless::create(Some("redis-7.4"), Some(1_000), None).unwrap();
        for line in g.script().unwrap().lines() {
            again.execute_line(line);
        }
        assert_eq!(again.snapshot(), g.snapshot());
        // `:profile` starts a fresh session on the console's usual clock; the script's clock
        // moves count from there, not from the clock the grader was created with.
        g.execute_line(":profile redis-8.2");
        g.execute_line("XADD s 1-0 f v");
        g.execute_line(":clock +2s");
        assert_eq!((g.profile(), g.now()), ("redis-8.2", VIRTUAL_EPOCH_MS + 2_000));
        assert_eq!(g.script().unwrap(), "XADD s 1-0 f v\n:clock +2000\n");
    }
}
