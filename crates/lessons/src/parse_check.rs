//! Reading one `[[task.check]]` (or a misconception's `when` check, or a numeric question's
//! `measure`): which fields a kind takes, exactly one expectation of the kind's type, and a
//! message that shows what the learner has.

use std::ops::Range;

use streamlab_engine::{IdMode, StreamId};

use crate::model::{Check, Expect, Loc, Num, Subject, SubjectKind, Value, LOC_NAMES};
use crate::params::has_placeholder;
use crate::parse::{braced, placeholders, Errors};
use crate::script::{parse_line, Parsed};
use crate::shape::{items, optional, quoted, required, text, Field, Fields, Ty, STRINGS};
use crate::toml::{self, Spanned};

/// A check's shape: its kind, the fields that locate what it measures (the subject's
/// [`LOC_NAMES`] and `commands`), the expectations (as [`EXPECTATIONS`] lists them), its message and hint.
pub(crate) const CHECK: &[Field] = &[
    required("kind", Ty::Str),
    optional("stream", Ty::Str),
    optional("group", Ty::Str),
    optional("consumer", Ty::Str),
    optional("id", Ty::Str),
    optional("key", Ty::Str),
    optional("command", Ty::Str),
    optional("option", Ty::Str),
    optional("connection", Ty::Str),
    optional("commands", STRINGS),
    optional("equals", Ty::Any),
    optional("at_least", Ty::Any),
    optional("at_most", Ty::Any),
    optional("matches", Ty::Str),
    optional("present", Ty::Bool),
    optional("includes", Ty::Any),
    optional("same_as_solution", Ty::Bool),
    optional("message", Ty::Str),
    optional("hint", Ty::Str),
];

/// The expectation fields.
const EXPECTATIONS: &[&str] = &["equals", "at_least", "at_most", "matches", "present", "includes", "same_as_solution"];

/// The check kinds, with the locating fields each needs (`name?` is optional).
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
    ("idle", &["stream", "group", "consumer"]),
    ("entries-added", &["stream"]),
    ("max-deleted-id", &["stream"]),
    ("ttl", &["key"]),
    ("used", &["command", "option?", "connection?"]),
    ("transaction", &["commands", "connection?"]),
    ("saw", &["command?", "connection?"]),
];

/// Placeholders every message may use besides the subject's fields.
const MESSAGE_PLACEHOLDERS: &[&str] = &["expected", "actual"];

/// What a check is read for: a goal's check (shown to the learner: it needs a message), a
/// misconception's detector (never shown), or a numeric question's measure (no expectation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Goal,
    Detector,
    Measure,
}

/// Reads a check; `None` (with errors recorded) when it is malformed.
pub(crate) fn convert_check(c: &Fields<'_>, role: Role, errors: &mut Errors<'_>) -> Option<Check> {
    let kind = c.str("kind");
    let kind_span = c.span_of("kind").unwrap_or_default();
    let Some((position, &(_, needed))) = CHECK_KINDS.iter().enumerate().find(|(_, (name, _))| *name == kind) else {
        let mut names = Vec::new();
        for (name, _) in CHECK_KINDS {
            names.push(*name);
        }
        errors.at(kind_span, format!("unknown check kind `{kind}`, expected one of {}", quoted(&names)));
        return None;
    };
    let mut subject = Subject::new(SubjectKind::ALL.get(position).copied().unwrap_or(SubjectKind::Reply));
    let mut ok = true;
    // The subject's text fields, in its slots' order, then its command list.
    for (i, name) in LOC_NAMES.iter().chain(&["commands"]).enumerate() {
        let given = c.get(name);
        let required = needed.contains(name);
        let optional = needed.iter().any(|n| n.strip_suffix('?') == Some(name));
        match given {
            Some(value) if !required && !optional => {
                errors.at(value.span(), format!("field `{name}` does not apply to the check kind `{kind}`"));
                ok = false;
            }
            None if required => {
                errors.at(kind_span.clone(), format!("the check kind `{kind}` needs `{name}`"));
                ok = false;
            }
            _ => {}
        }
        // The subject holds the fields its kind takes: a required one the file left out as
        // `""` (the message's placeholders are checked against these).
        if required || (optional && given.is_some()) {
            match subject.texts.get_mut(i) {
                Some(slot) => *slot = Some(given.map_or("", text).to_owned()),
                None => subject.commands = Some(c.strings(name)),
            }
        }
    }
    if let Some(id) = c.get("id") {
        let id_text = text(id);
        if !has_placeholder(id_text) && StreamId::parse(id_text.as_bytes(), IdMode::Strict, 0).is_err() {
            errors.at(id.span(), format!("`{id_text}` is not a stream id"));
            ok = false;
        }
    }
    for name in ["command", "option", "connection"] {
        if let Some(value) = c.get(name) {
            if subject.kind != SubjectKind::Reply && text(value).trim().is_empty() {
                errors.at(value.span(), "an empty name");
                ok = false;
            }
        }
    }
    let command = c.get("command");
    if let (Some(command), SubjectKind::Used | SubjectKind::Saw) = (command, subject.kind) {
        ok &= command_name(command, errors);
        // What `used` and `saw` compare with: the words, single-spaced.
        subject.texts[Loc::Command as usize] = Some(words(text(command)));
    }
    if let Some(commands) = c.get("commands") {
        if items(commands).is_empty() {
            errors.at(commands.span(), "`commands` lists at least one command");
            ok = false;
        }
        for command in items(commands) {
            let command = text(command);
            if command.is_empty() || !command.bytes().all(|c| c.is_ascii_uppercase()) {
                errors.at(commands.span(), format!("`{command}`: a command name in capitals"));
                ok = false;
            }
        }
    }
    if let (Some(command), SubjectKind::Reply) = (command, subject.kind) {
        // A reply check runs one command on a copy of the state from a fresh connection.
        if !matches!(parse_line(text(command)), Ok(Parsed::Run { conn: None, text }) if !text.starts_with(':')) {
            errors.at(
                command.span(),
                "a `reply` check runs one command from a fresh connection: no `name> ` prefix, no meta-command",
            );
            ok = false;
        }
    }
    let line = errors.line_of(&kind_span);
    if role == Role::Measure {
        for name in EXPECTATIONS.iter().chain(&["message", "hint"]) {
            if c.get(name).is_some() {
                errors
                    .at(kind_span.clone(), format!("a `measure` has no `{name}`: the question's answer is its value"));
                ok = false;
            }
        }
        if !matches!(
            subject.kind,
            SubjectKind::Pending
                | SubjectKind::Deliveries
                | SubjectKind::Length
                | SubjectKind::EntriesRead
                | SubjectKind::Lag
                | SubjectKind::Idle
                | SubjectKind::EntriesAdded
                | SubjectKind::Ttl
        ) {
            errors.at(kind_span.clone(), format!("a `measure` is a number; the check kind `{kind}` is not"));
            ok = false;
        }
        return ok.then(|| Check { subject, expect: Expect::Present(true), message: String::new(), hint: None, line });
    }
    let expect = convert_expect(c, subject.kind, &kind_span, errors)?;
    let message = c.get("message");
    match (message, role) {
        (None, Role::Goal) => {
            errors.at(kind_span.clone(), "missing field `message`");
            ok = false;
        }
        (Some(m), Role::Detector) => {
            errors.at(
                m.span(),
                "a misconception's `when` check is never shown: give the misconception a `message` instead",
            );
            ok = false;
        }
        (Some(m), _) => ok &= message_placeholders(m, &subject, errors),
        (None, _) => {}
    }
    let hint = c.opt_string("hint");
    if role == Role::Detector && hint.is_some() {
        errors.at(kind_span.clone(), "a misconception's `when` check has no `hint`");
        ok = false;
    }
    ok.then(|| Check { subject, expect, message: message.map_or("", text).to_owned(), hint, line })
}

/// A command name (`XACK`, `XGROUP SETID`) as `used` and `saw` take it.
fn command_name(command: &Spanned<toml::Value>, errors: &mut Errors<'_>) -> bool {
    let text = text(command);
    let mut count = 0;
    let mut upper = true;
    for part in text.split_whitespace() {
        count += 1;
        upper &= part.bytes().all(|c| c.is_ascii_uppercase());
    }
    if count == 0 || count > 2 || !upper {
        errors.at(command.span(), format!("`{text}`: a command is `COMMAND` or `COMMAND SUBCOMMAND` in capitals"));
        return false;
    }
    true
}

fn words(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn message_placeholders(message: &Spanned<toml::Value>, subject: &Subject, errors: &mut Errors<'_>) -> bool {
    let mut names: Vec<&str> = MESSAGE_PLACEHOLDERS.to_vec();
    let fields = subject.fields();
    for (name, _) in &fields {
        names.push(name);
    }
    match placeholders(text(message)) {
        Err(problem) => {
            errors.at(message.span(), problem);
            false
        }
        Ok(used) => {
            let mut ok = true;
            for name in &used {
                if !names.contains(&name.as_str()) {
                    errors.at(
                        message.span(),
                        format!("unknown placeholder `{{{name}}}`; this check has {}", quoted(&names)),
                    );
                    ok = false;
                }
            }
            if !used.iter().any(|n| n == "actual") {
                errors.at(message.span(), "a check's message must show `{actual}`, what the learner has");
                ok = false;
            }
            ok
        }
    }
}

/// What `equals` holds for each kind of check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    Integer,
    IntegerOrNil,
    Text,
    Entries,
    Nothing,
}

impl Holds {
    fn describe(self) -> &'static str {
        match self {
            Holds::Integer => "an integer (or \"${expr}\")",
            Holds::IntegerOrNil => "an integer, \"${expr}\" or \"nil\"",
            Holds::Text => "a string",
            Holds::Entries => "a list of field/value lists",
            Holds::Nothing => "",
        }
    }
}

/// Which expectation fields each kind accepts, and what `equals` may hold.
fn convert_expect(
    c: &Fields<'_>,
    kind: SubjectKind,
    kind_span: &Range<usize>,
    errors: &mut Errors<'_>,
) -> Option<Expect> {
    use SubjectKind as K;
    let mut given = Vec::new();
    for (at, name) in EXPECTATIONS.iter().enumerate() {
        if let Some(value) = c.get(name) {
            given.push((at, *name, value));
        }
    }
    let numbers: &[&str] = &["equals", "at_least", "at_most", "same_as_solution"];
    let (allowed, holds): (&[&str], Holds) = match kind {
        K::Pending | K::Deliveries | K::Length | K::Idle | K::EntriesAdded | K::Ttl => (numbers, Holds::Integer),
        K::EntriesRead | K::Lag => (numbers, Holds::IntegerOrNil),
        K::Owner | K::LastDeliveredId | K::MaxDeletedId | K::Reply => {
            (&["equals", "matches", "same_as_solution"], Holds::Text)
        }
        K::Entries => (&["equals", "includes", "same_as_solution"], Holds::Entries),
        K::Used | K::Transaction => (&["present", "equals", "at_least", "at_most"], Holds::Integer),
        K::Saw => (&["matches", "equals"], Holds::Text),
        _ => (&["present"], Holds::Nothing),
    };
    let kind_name = kind.spec().0;
    let [(at, name, value)] = given.as_slice() else {
        errors.at(
            kind_span.clone(),
            format!("the check kind `{kind_name}` needs exactly one expectation: {}", quoted(allowed)),
        );
        return None;
    };
    if !allowed.contains(name) {
        errors.at(value.span(), format!("the check kind `{kind_name}` takes {}, not `{name}`", quoted(allowed)));
        return None;
    }
    let number = |errors: &mut Errors<'_>| match value.get_ref() {
        toml::Value::Integer(n) => Some(Num::Int(*n)),
        toml::Value::String(s) if braced(s).is_some() => Some(Num::Expr(s.trim().to_owned())),
        _ => {
            errors.at(value.span(), format!("`{name}` is an integer or \"${{expr}}\""));
            None
        }
    };
    // By position in EXPECTATIONS: equals, at_least, at_most, matches, present, includes,
    // same_as_solution.
    let expect = match (at, value.get_ref()) {
        (1, _) => Expect::AtLeast(number(errors)?),
        (2, _) => Expect::AtMost(number(errors)?),
        (3, _) => Expect::Matches(text(value).to_owned()),
        (4, toml::Value::Boolean(b)) => Expect::Present(*b),
        (6, toml::Value::Boolean(true)) => Expect::SameAsSolution,
        (6, _) => {
            errors.at(value.span(), "`same_as_solution` is only ever `true`");
            return None;
        }
        (5, found) => {
            let entries = match found {
                toml::Value::Array(entries) => entries_value(entries),
                _ => None,
            };
            let Some(entries) = entries else {
                errors.at(value.span(), "`includes` is a list of field/value lists");
                return None;
            };
            Expect::Includes(entries)
        }
        (_, equals) => {
            let found = match (holds, equals) {
                (Holds::IntegerOrNil, toml::Value::String(s)) if s == "nil" => Some(Value::Nil),
                (Holds::Integer | Holds::IntegerOrNil, _) => Some(Value::Int(number(errors)?)),
                (Holds::Text, toml::Value::String(s)) => Some(Value::Text(s.clone())),
                (Holds::Entries, toml::Value::Array(entries)) => entries_value(entries).map(Value::Entries),
                _ => None,
            };
            match found {
                Some(found) => Expect::Equals(found),
                None => {
                    errors
                        .at(value.span(), format!("`equals` of the check kind `{kind_name}` is {}", holds.describe()));
                    return None;
                }
            }
        }
    };
    Some(expect)
}

/// Entries as field/value lists: each a non-empty list of strings, in pairs.
fn entries_value(entries: &[Spanned<toml::Value>]) -> Option<Vec<Vec<String>>> {
    let mut out = Vec::new();
    for entry in entries {
        let toml::Value::Array(fields) = entry.get_ref() else { return None };
        if fields.is_empty() || fields.len() % 2 != 0 {
            return None;
        }
        let mut pairs = Vec::new();
        for field in fields {
            let toml::Value::String(s) = field.get_ref() else { return None };
            pairs.push(s.clone());
        }
        out.push(pairs);
    }
    Some(out)
}
