//! Reading a lesson file: TOML into the file's shape (every table denies unknown fields, so a
//! misspelt key is an error at its line), then into the [`model`](crate::model), checking what
//! the shape alone cannot say (a check kind's fields, exactly one expectation, message
//! placeholders, line syntax).

use std::ops::Range;

use streamlab_engine::{IdMode, SortedMap, StreamId};

use crate::error::LessonError;
use crate::model::{
    AnswerOption, Check, Choice, Expect, Goal, IntroStep, Lesson, Line, Need, Predict, Profile, Subject, Task,
    TaskKind, Value, Variant,
};
use crate::script::{log_of, parse_line, Parsed};
use crate::shape::{
    self, array, boolean, integer, keep_span, loose, quoted, spanned_string, string, string_map, table, Fields, Loose,
    Read,
};
use crate::toml::{self, Spanned};

struct RawLesson {
    id: Spanned<String>,
    version: Spanned<u32>,
    title: String,
    summary: String,
    profile: Spanned<String>,
    minutes: u32,
    prerequisites: Vec<String>,
    clock: Option<i64>,
    needs: Vec<Spanned<String>>,
    setup: Vec<Spanned<String>>,
    intro: Vec<Spanned<RawIntro>>,
    variant: Vec<Spanned<RawVariant>>,
    task: Vec<Spanned<RawTask>>,
}

struct RawIntro {
    text: String,
    demo: Vec<Spanned<String>>,
}

struct RawVariant {
    ids: u64,
    clock: i64,
    values: SortedMap<String, String>,
}

struct RawTask {
    kind: Spanned<String>,
    title: String,
    prompt: String,
    setup: Vec<Spanned<String>>,
    // reach-state
    check: Vec<Spanned<RawCheck>>,
    solution: Vec<Spanned<String>>,
    par: Option<Spanned<usize>>,
    hints: Vec<String>,
    disabled: Vec<Spanned<String>>,
    must_not_pass: Vec<Vec<Spanned<String>>>,
    // predict
    command: Option<Spanned<String>>,
    explain: Option<String>,
    // predict and choice
    options: Vec<Spanned<RawOption>>,
}

struct RawOption {
    text: String,
    correct: bool,
    why: String,
}

struct RawCheck {
    kind: Spanned<String>,
    stream: Option<Spanned<String>>,
    group: Option<Spanned<String>>,
    consumer: Option<Spanned<String>>,
    id: Option<Spanned<String>>,
    key: Option<Spanned<String>>,
    command: Option<Spanned<String>>,
    equals: Option<Spanned<Loose>>,
    at_least: Option<Spanned<i64>>,
    at_most: Option<Spanned<i64>>,
    matches: Option<Spanned<String>>,
    present: Option<Spanned<bool>>,
    message: Spanned<String>,
}

impl RawLesson {
    fn read(text: &str) -> Read<RawLesson> {
        let doc = shape::document(text)?;
        let f = Fields::new(
            doc.get_ref(),
            doc.span(),
            &[
                "id",
                "version",
                "title",
                "summary",
                "profile",
                "minutes",
                "prerequisites",
                "clock",
                "needs",
                "setup",
                "intro",
                "variant",
                "task",
            ],
        )?;
        Ok(RawLesson {
            id: f.required("id", spanned_string)?,
            version: f.required("version", |v| keep_span(v, |v| integer(v, "u32")))?,
            title: f.required("title", string)?,
            summary: f.required("summary", string)?,
            profile: f.required("profile", spanned_string)?,
            minutes: f.required("minutes", |v| integer(v, "u32"))?,
            prerequisites: f.or_default("prerequisites", |v| array(v, string))?,
            clock: f.optional("clock", |v| integer(v, "i64"))?,
            needs: f.or_default("needs", |v| array(v, spanned_string))?,
            setup: f.or_default("setup", |v| array(v, spanned_string))?,
            intro: f.or_default("intro", |v| array(v, RawIntro::read))?,
            variant: f.or_default("variant", |v| array(v, RawVariant::read))?,
            task: f.or_default("task", |v| array(v, RawTask::read))?,
        })
    }
}

impl RawIntro {
    fn read(value: &Spanned<toml::Value>) -> Read<Spanned<RawIntro>> {
        table(value, &["text", "demo"], |f| {
            Ok(RawIntro {
                text: f.required("text", string)?,
                demo: f.or_default("demo", |v| array(v, spanned_string))?,
            })
        })
    }
}

impl RawVariant {
    fn read(value: &Spanned<toml::Value>) -> Read<Spanned<RawVariant>> {
        table(value, &["ids", "clock", "values"], |f| {
            Ok(RawVariant {
                ids: f.or_default("ids", |v| integer(v, "u64"))?,
                clock: f.or_default("clock", |v| integer(v, "i64"))?,
                values: f.or_default("values", string_map)?,
            })
        })
    }
}

impl RawTask {
    fn read(value: &Spanned<toml::Value>) -> Read<Spanned<RawTask>> {
        let known = [
            "kind",
            "title",
            "prompt",
            "setup",
            "check",
            "solution",
            "par",
            "hints",
            "disabled",
            "must_not_pass",
            "command",
            "explain",
            "options",
        ];
        table(value, &known, |f| {
            let lines = |v: &Spanned<toml::Value>| array(v, spanned_string);
            Ok(RawTask {
                kind: f.required("kind", spanned_string)?,
                title: f.required("title", string)?,
                prompt: f.required("prompt", string)?,
                setup: f.or_default("setup", lines)?,
                check: f.or_default("check", |v| array(v, RawCheck::read))?,
                solution: f.or_default("solution", lines)?,
                par: f.optional("par", |v| keep_span(v, |v| integer(v, "usize")))?,
                hints: f.or_default("hints", |v| array(v, string))?,
                disabled: f.or_default("disabled", lines)?,
                must_not_pass: f.or_default("must_not_pass", |v| array(v, lines))?,
                command: f.optional("command", spanned_string)?,
                explain: f.optional("explain", string)?,
                options: f.or_default("options", |v| array(v, RawOption::read))?,
            })
        })
    }
}

impl RawOption {
    fn read(value: &Spanned<toml::Value>) -> Read<Spanned<RawOption>> {
        table(value, &["text", "correct", "why"], |f| {
            Ok(RawOption {
                text: f.required("text", string)?,
                correct: f.or_default("correct", boolean)?,
                why: f.required("why", string)?,
            })
        })
    }
}

impl RawCheck {
    fn read(value: &Spanned<toml::Value>) -> Read<Spanned<RawCheck>> {
        let known = [
            "kind", "stream", "group", "consumer", "id", "key", "command", "equals", "at_least", "at_most", "matches",
            "present", "message",
        ];
        table(value, &known, |f| {
            let number = |v: &Spanned<toml::Value>| keep_span(v, |v| integer(v, "i64"));
            Ok(RawCheck {
                kind: f.required("kind", spanned_string)?,
                stream: f.optional("stream", spanned_string)?,
                group: f.optional("group", spanned_string)?,
                consumer: f.optional("consumer", spanned_string)?,
                id: f.optional("id", spanned_string)?,
                key: f.optional("key", spanned_string)?,
                command: f.optional("command", spanned_string)?,
                equals: f.optional("equals", |v| keep_span(v, loose))?,
                at_least: f.optional("at_least", number)?,
                at_most: f.optional("at_most", number)?,
                matches: f.optional("matches", spanned_string)?,
                present: f.optional("present", |v| keep_span(v, boolean))?,
                message: f.required("message", spanned_string)?,
            })
        })
    }
}

/// The check kinds, with the locating fields each needs (`consumer?` is optional).
pub const CHECK_KINDS: &[(&str, &[&str])] = &[
    ("pending", &["stream", "group", "consumer?"]),
    ("owner", &["stream", "group", "id"]),
    ("deliveries", &["stream", "group", "id"]),
    ("last-delivered-id", &["stream", "group"]),
    ("entries-read", &["stream", "group"]),
    ("lag", &["stream", "group"]),
    ("length", &["stream"]),
    ("entry", &["stream", "id"]),
    ("key", &["key"]),
    ("group", &["stream", "group"]),
    ("consumer", &["stream", "group", "consumer"]),
    ("entries", &["stream"]),
    ("reply", &["command"]),
];

/// The task kinds.
pub const TASK_KINDS: &[&str] = &["reach-state", "predict", "choice"];

/// Placeholders every message may use besides the subject's fields.
const MESSAGE_PLACEHOLDERS: &[&str] = &["expected", "actual"];

/// Collects errors against one file's text.
struct Errors<'a> {
    file: &'a str,
    text: &'a str,
    list: Vec<LessonError>,
}

impl Errors<'_> {
    fn at(&mut self, span: Range<usize>, message: impl Into<String>) {
        self.list.push(LessonError::at(self.file, self.text, span.start, message));
    }

    fn line_of(&self, span: &Range<usize>) -> usize {
        crate::error::line_column(self.text, span.start).0
    }
}

/// Parses a lesson file. `file` names it in errors. All problems found are returned, each
/// with its line.
pub fn parse_lesson(file: &str, text: &str) -> Result<Lesson, Vec<LessonError>> {
    let raw = match RawLesson::read(text) {
        Ok(raw) => raw,
        Err(error) => return Err(vec![LessonError::at(file, text, error.span.start, error.message)]),
    };
    let mut errors = Errors { file, text, list: Vec::new() };
    let lesson = convert(raw, &mut errors);
    if errors.list.is_empty() {
        Ok(lesson)
    } else {
        Err(errors.list)
    }
}

fn convert(raw: RawLesson, errors: &mut Errors<'_>) -> Lesson {
    let id = raw.id.get_ref().clone();
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-') {
        errors.at(raw.id.span(), format!("id `{id}` must be lower-case letters, digits and `-`"));
    }
    if *raw.version.get_ref() == 0 {
        errors.at(raw.version.span(), "version starts at 1");
    }
    let profile = raw.profile.get_ref().parse::<Profile>().unwrap_or_else(|_| {
        errors.at(
            raw.profile.span(),
            format!("unknown profile `{}`, expected one of {}", raw.profile.get_ref(), Profile::names()),
        );
        // A stand-in so the rest of the file is still checked; the error above fails it.
        Profile::default()
    });
    let needs = raw.needs.iter().filter_map(|need| convert_need(need, errors)).collect();
    let setup = lines(&raw.setup, errors);
    let intro = raw
        .intro
        .iter()
        .map(|step| IntroStep {
            text: step.get_ref().text.clone(),
            demo: lines(&step.get_ref().demo, errors),
            line: errors.line_of(&step.span()),
        })
        .collect();
    let mut variants = vec![Variant::default()];
    for v in &raw.variant {
        let line = errors.line_of(&v.span());
        let RawVariant { ids, clock, values } = v.get_ref();
        if *clock < 0 {
            errors.at(v.span(), "a variant's clock moves forward only");
        }
        for (from, to) in values {
            let word = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !word(from) || !word(to) {
                errors.at(v.span(), format!("variant values replace whole words: `{from}` = `{to}`"));
            }
        }
        let variant = Variant { ids: *ids, clock: *clock, values: values.clone(), line };
        if variant.is_identity() {
            errors.at(v.span(), "this variant changes nothing");
        }
        variants.push(variant);
    }
    let tasks = raw.task.iter().map(|task| convert_task(task, errors)).collect();
    Lesson {
        file: errors.file.to_owned(),
        id,
        version: *raw.version.get_ref(),
        title: raw.title,
        summary: raw.summary,
        profile,
        minutes: raw.minutes,
        prerequisites: raw.prerequisites,
        clock: raw.clock.unwrap_or(streamlab_protocol::VIRTUAL_EPOCH_MS),
        needs,
        setup,
        intro,
        variants,
        tasks,
    }
}

fn convert_need(need: &Spanned<String>, errors: &mut Errors<'_>) -> Option<Need> {
    let words: Vec<&str> = need.get_ref().split_whitespace().collect();
    let upper = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit());
    match words.as_slice() {
        [command] if upper(command) => {
            Some(Need { command: (*command).to_owned(), option: None, line: errors.line_of(&need.span()) })
        }
        [command, option] if upper(command) && upper(option) => Some(Need {
            command: (*command).to_owned(),
            option: Some((*option).to_owned()),
            line: errors.line_of(&need.span()),
        }),
        _ => {
            errors.at(
                need.span(),
                format!("a need is `COMMAND` or `COMMAND OPTION` in capitals, not `{}`", need.get_ref()),
            );
            None
        }
    }
}

fn lines(raw: &[Spanned<String>], errors: &mut Errors<'_>) -> Vec<Line> {
    raw.iter()
        .map(|l| {
            match parse_line(l.get_ref()) {
                Err(problem) => errors.at(l.span(), problem),
                Ok(Parsed::SwitchTo(name)) => errors.at(
                    l.span(),
                    format!(
                        "lesson lines name their connection with a prefix: write `{name}> COMMAND`, not `:as {name}`"
                    ),
                ),
                Ok(Parsed::Run { .. }) => {}
            }
            Line { text: l.get_ref().clone(), line: errors.line_of(&l.span()) }
        })
        .collect()
}

fn convert_task(task: &Spanned<RawTask>, errors: &mut Errors<'_>) -> Task {
    let raw = task.get_ref();
    let kind_span = raw.kind.span();
    let line = errors.line_of(&kind_span);
    let setup = lines(&raw.setup, errors);
    // Fields that belong to other kinds are errors, named at the kind's line.
    let present: [(&str, bool); 9] = [
        ("check", !raw.check.is_empty()),
        ("solution", !raw.solution.is_empty()),
        ("par", raw.par.is_some()),
        ("hints", !raw.hints.is_empty()),
        ("disabled", !raw.disabled.is_empty()),
        ("must_not_pass", !raw.must_not_pass.is_empty()),
        ("command", raw.command.is_some()),
        ("explain", raw.explain.is_some()),
        ("options", !raw.options.is_empty()),
    ];
    let allowed: &[&str] = match raw.kind.get_ref().as_str() {
        "reach-state" => &["check", "solution", "par", "hints", "disabled", "must_not_pass"],
        "predict" => &["command", "explain", "options"],
        "choice" => &["options"],
        other => {
            errors
                .at(kind_span.clone(), format!("unknown task kind `{other}`, expected one of {}", quoted(TASK_KINDS)));
            &[]
        }
    };
    if TASK_KINDS.contains(&raw.kind.get_ref().as_str()) {
        for (field, is_set) in present {
            if is_set && !allowed.contains(&field) {
                errors.at(
                    kind_span.clone(),
                    format!("field `{field}` does not belong in a `{}` task", raw.kind.get_ref()),
                );
            }
        }
    }
    let options: Vec<AnswerOption> = raw
        .options
        .iter()
        .map(|o| AnswerOption {
            text: o.get_ref().text.clone(),
            correct: o.get_ref().correct,
            why: o.get_ref().why.clone(),
            line: errors.line_of(&o.span()),
        })
        .collect();
    let kind = match raw.kind.get_ref().as_str() {
        "predict" => {
            let command = match &raw.command {
                Some(command) => lines(std::slice::from_ref(command), errors).remove(0),
                None => {
                    errors.at(kind_span.clone(), "a `predict` task needs `command`");
                    Line { text: String::new(), line }
                }
            };
            let explain = raw.explain.clone().unwrap_or_else(|| {
                errors.at(kind_span.clone(), "a `predict` task needs `explain`");
                String::new()
            });
            TaskKind::Predict(Predict { command, options, explain })
        }
        "choice" => TaskKind::Choice(Choice { options }),
        _ => {
            let solution = lines(&raw.solution, errors);
            if raw.kind.get_ref() == "reach-state" {
                if raw.check.is_empty() {
                    errors.at(kind_span.clone(), "a `reach-state` task needs at least one [[task.check]]");
                }
                if solution.is_empty() {
                    errors.at(kind_span.clone(), "a `reach-state` task needs a `solution`");
                }
            }
            let counted = log_of(&solution, &Variant::default()).iter().filter(|l| l.is_command()).count();
            let par = raw.par.as_ref().map_or(counted, |p| *p.get_ref());
            if let Some(p) = &raw.par {
                if *p.get_ref() != counted {
                    errors.at(
                        p.span(),
                        format!("par is {} but the solution has {counted} commands; they must agree", p.get_ref()),
                    );
                }
            }
            let disabled = raw
                .disabled
                .iter()
                .map(|d| {
                    let words: Vec<&str> = d.get_ref().split_whitespace().collect();
                    if words.is_empty() || words.len() > 2 || d.get_ref().chars().any(|c| c.is_ascii_lowercase()) {
                        errors.at(d.span(), "a disabled command is `COMMAND` or `COMMAND SUBCOMMAND` in capitals");
                    }
                    words.join(" ")
                })
                .collect();
            let must_not_pass = raw.must_not_pass.iter().map(|seq| lines(seq, errors)).collect();
            TaskKind::ReachState(Goal {
                checks: raw.check.iter().filter_map(|c| convert_check(c, errors)).collect(),
                disabled,
                hints: raw.hints.clone(),
                solution,
                par,
                must_not_pass,
            })
        }
    };
    Task { title: raw.title.clone(), prompt: raw.prompt.clone(), setup, kind, line }
}

fn convert_check(check: &Spanned<RawCheck>, errors: &mut Errors<'_>) -> Option<Check> {
    let raw = check.get_ref();
    let kind = raw.kind.get_ref().as_str();
    let kind_span = raw.kind.span();
    let Some((_, needed)) = CHECK_KINDS.iter().find(|(name, _)| *name == kind) else {
        let names: Vec<&str> = CHECK_KINDS.iter().map(|(n, _)| *n).collect();
        errors.at(kind_span, format!("unknown check kind `{kind}`, expected one of {}", quoted(&names)));
        return None;
    };
    let fields: [(&str, &Option<Spanned<String>>); 6] = [
        ("stream", &raw.stream),
        ("group", &raw.group),
        ("consumer", &raw.consumer),
        ("id", &raw.id),
        ("key", &raw.key),
        ("command", &raw.command),
    ];
    let mut ok = true;
    for (name, value) in fields {
        let required = needed.contains(&name);
        let optional = needed.contains(&format!("{name}?").as_str());
        match value {
            Some(v) if !required && !optional => {
                errors.at(v.span(), format!("field `{name}` does not apply to the check kind `{kind}`"));
                ok = false;
            }
            None if required => {
                errors.at(kind_span.clone(), format!("the check kind `{kind}` needs `{name}`"));
                ok = false;
            }
            _ => {}
        }
    }
    if let Some(id) = &raw.id {
        if StreamId::parse(id.get_ref().as_bytes(), IdMode::Strict, 0).is_err() {
            errors.at(id.span(), format!("`{}` is not a stream id", id.get_ref()));
            ok = false;
        }
    }
    let text = |f: &Option<Spanned<String>>| f.as_ref().map(|s| s.get_ref().clone()).unwrap_or_default();
    let subject = match kind {
        "pending" => Subject::Pending {
            stream: text(&raw.stream),
            group: text(&raw.group),
            consumer: raw.consumer.as_ref().map(|c| c.get_ref().clone()),
        },
        "owner" => Subject::Owner { stream: text(&raw.stream), group: text(&raw.group), id: text(&raw.id) },
        "deliveries" => Subject::Deliveries { stream: text(&raw.stream), group: text(&raw.group), id: text(&raw.id) },
        "last-delivered-id" => Subject::LastDeliveredId { stream: text(&raw.stream), group: text(&raw.group) },
        "entries-read" => Subject::EntriesRead { stream: text(&raw.stream), group: text(&raw.group) },
        "lag" => Subject::Lag { stream: text(&raw.stream), group: text(&raw.group) },
        "length" => Subject::Length { stream: text(&raw.stream) },
        "entry" => Subject::Entry { stream: text(&raw.stream), id: text(&raw.id) },
        "key" => Subject::Key { key: text(&raw.key) },
        "group" => Subject::Group { stream: text(&raw.stream), group: text(&raw.group) },
        "consumer" => {
            Subject::Consumer { stream: text(&raw.stream), group: text(&raw.group), consumer: text(&raw.consumer) }
        }
        "entries" => Subject::Entries { stream: text(&raw.stream) },
        _ => {
            if let Some(command) = &raw.command {
                // A reply check runs one command on a copy of the state from a fresh connection.
                if !matches!(parse_line(command.get_ref()), Ok(Parsed::Run { conn: None, text }) if !text.starts_with(':'))
                {
                    errors.at(
                        command.span(),
                        "a `reply` check runs one command from a fresh connection: no `name> ` prefix, no meta-command",
                    );
                    ok = false;
                }
            }
            Subject::Reply { command: text(&raw.command) }
        }
    };
    let expect = convert_expect(raw, kind, errors)?;
    let message = raw.message.get_ref().clone();
    let mut names: Vec<&str> = MESSAGE_PLACEHOLDERS.to_vec();
    names.extend(subject.fields().iter().map(|(name, _)| *name));
    match placeholders(&message) {
        Err(problem) => {
            errors.at(raw.message.span(), problem);
            ok = false;
        }
        Ok(used) => {
            for name in &used {
                if !names.contains(&name.as_str()) {
                    errors.at(
                        raw.message.span(),
                        format!("unknown placeholder `{{{name}}}`; this check has {}", quoted(&names)),
                    );
                    ok = false;
                }
            }
            if !used.iter().any(|n| n == "actual") {
                errors.at(raw.message.span(), "a check's message must show `{actual}`, what the learner has");
                ok = false;
            }
        }
    }
    ok.then(|| Check { subject, expect, message, line: errors.line_of(&kind_span) })
}

/// Which expectation fields each kind accepts, and what `equals` may hold.
fn convert_expect(raw: &RawCheck, kind: &str, errors: &mut Errors<'_>) -> Option<Expect> {
    let kind_span = raw.kind.span();
    let given: Vec<(&str, Range<usize>)> = [
        ("equals", raw.equals.as_ref().map(|s| s.span())),
        ("at_least", raw.at_least.as_ref().map(|s| s.span())),
        ("at_most", raw.at_most.as_ref().map(|s| s.span())),
        ("matches", raw.matches.as_ref().map(|s| s.span())),
        ("present", raw.present.as_ref().map(|s| s.span())),
    ]
    .into_iter()
    .filter_map(|(name, span)| span.map(|s| (name, s)))
    .collect();
    let (allowed, equals_is): (&[&str], &str) = match kind {
        "pending" | "deliveries" | "length" => (&["equals", "at_least", "at_most"], "an integer"),
        "entries-read" | "lag" => (&["equals", "at_least", "at_most"], "an integer or \"nil\""),
        "owner" | "last-delivered-id" | "reply" => (&["equals", "matches"], "a string"),
        "entries" => (&["equals"], "a list of field/value lists"),
        _ => (&["present"], ""),
    };
    let [(name, span)] = given.as_slice() else {
        errors.at(kind_span, format!("the check kind `{kind}` needs exactly one expectation: {}", quoted(allowed)));
        return None;
    };
    if !allowed.contains(name) {
        errors.at(span.clone(), format!("the check kind `{kind}` takes {}, not `{name}`", quoted(allowed)));
        return None;
    }
    let expect = match *name {
        "at_least" => Expect::AtLeast(*raw.at_least.as_ref()?.get_ref()),
        "at_most" => Expect::AtMost(*raw.at_most.as_ref()?.get_ref()),
        "matches" => Expect::Matches(raw.matches.as_ref()?.get_ref().clone()),
        "present" => Expect::Present(*raw.present.as_ref()?.get_ref()),
        _ => {
            let equals = raw.equals.as_ref()?;
            let value = match (equals_is, equals.get_ref()) {
                ("an integer" | "an integer or \"nil\"", Loose::Int(n)) => Some(Value::Int(*n)),
                ("an integer or \"nil\"", Loose::Str(s)) if s == "nil" => Some(Value::Nil),
                ("a string", Loose::Str(s)) => Some(Value::Text(s.clone())),
                ("a list of field/value lists", Loose::List(entries)) => entries_value(entries),
                _ => None,
            };
            match value {
                Some(value) => Expect::Equals(value),
                None => {
                    errors.at(equals.span(), format!("`equals` of the check kind `{kind}` is {equals_is}"));
                    return None;
                }
            }
        }
    };
    Some(expect)
}

fn entries_value(entries: &[Loose]) -> Option<Value> {
    let mut out = Vec::new();
    for entry in entries {
        let Loose::List(fields) = entry else { return None };
        let fields: Option<Vec<String>> =
            fields.iter().map(|f| if let Loose::Str(s) = f { Some(s.clone()) } else { None }).collect();
        let fields = fields?;
        if fields.is_empty() || fields.len() % 2 != 0 {
            return None;
        }
        out.push(fields);
    }
    Some(Value::Entries(out))
}

/// The `{name}` placeholders of a message template (`{{` and `}}` stand for braces).
pub fn placeholders(template: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
            }
            '{' => {
                let name: String = chars.by_ref().take_while(|&c| c != '}').collect();
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    return Err(format!("bad placeholder `{{{name}`: write `{{name}}`, or `{{{{` for a brace"));
                }
                names.push(name);
            }
            '}' => return Err("a lone `}` in a message: write `}}` for a brace".into()),
            _ => {}
        }
    }
    Ok(names)
}

/// Fills a message template.
pub fn render_template(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                out.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                out.push('}');
            }
            '{' => {
                let name: String = chars.by_ref().take_while(|&c| c != '}').collect();
                match values.iter().find(|(n, _)| *n == name) {
                    Some((_, value)) => out.push_str(value),
                    None => {
                        out.push('{');
                        out.push_str(&name);
                        out.push('}');
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}
