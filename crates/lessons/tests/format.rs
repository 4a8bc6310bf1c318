//! The lesson format's errors: unknown fields and bad parts are reported with file and line.

mod common;

use common::{line_of, with, GOOD};
use streamlab_lessons::model::{Loc, SubjectKind};
use streamlab_lessons::{parse_lesson, Expect, TaskKind, Value};

fn errors(text: &str) -> Vec<String> {
    parse_lesson("lessons/tiny.toml", text)
        .expect_err("the lesson should be rejected")
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn the_fixture_parses() {
    let lesson = parse_lesson("lessons/tiny.toml", GOOD).unwrap();
    assert_eq!(lesson.id, "tiny");
    assert_eq!(lesson.variants.len(), 2, "the lesson as written plus one hidden variant");
    assert_eq!(lesson.clock, streamlab_protocol::VIRTUAL_EPOCH_MS);
    let TaskKind::ReachState(goal) = &lesson.tasks[0].kind else { panic!("a reach-state task") };
    assert_eq!(goal.par, 1, "par defaults to the solution's command count");
    assert_eq!(goal.checks[0].line, line_of(GOOD, "kind = \"owner\""));
    let subject = &goal.checks[0].subject;
    assert!(subject.kind == SubjectKind::Owner && subject.get(Loc::Id) == Some("1-0"));
    assert_eq!(goal.checks[0].expect, Expect::Equals(Value::Text("alice".into())));
}

#[test]
fn unknown_fields_are_named_with_their_line() {
    // At the top level.
    let text = with("minutes = 3", "minutes = 3\nminuets = 4");
    let line = line_of(&text, "minuets");
    assert_eq!(errors(&text)[0], format!("lessons/tiny.toml:{line}:1: unknown field `minuets`, expected one of `id`, `version`, `title`, `summary`, `profile`, `minutes`, `prerequisites`, `clock`, `needs`, `setup`, `intro`, `params`, `variant`, `task`"));
    // Inside a task.
    let text = with("hints = [", "hint = [");
    let e = &errors(&text)[0];
    assert!(e.starts_with(&format!("lessons/tiny.toml:{}:1: unknown field `hint`", line_of(&text, "hint = ["))), "{e}");
    // Inside a check, indented.
    let text = with("  equals = \"alice\"", "  equal = \"alice\"");
    let e = &errors(&text)[0];
    assert!(e.starts_with(&format!("lessons/tiny.toml:{}:3: unknown field `equal`", line_of(&text, "equal ="))), "{e}");
    // Inside an inline table of options.
    let text = with("{ text = \"Yes\", why", "{ text = \"Yes\", becauze");
    let e = &errors(&text)[0];
    assert!(e.contains(&format!(":{}:", line_of(&text, "becauze"))) && e.contains("unknown field `becauze`"), "{e}");
}

#[test]
fn bad_check_kinds_are_rejected() {
    let text = with("kind = \"owner\"", "kind = \"ownr\"");
    let e = &errors(&text)[0];
    let line = line_of(&text, "\"ownr\"");
    assert!(e.starts_with(&format!("lessons/tiny.toml:{line}:")), "{e}");
    assert!(e.contains("unknown check kind `ownr`, expected one of `pending`, `owner`, `deliveries`"), "{e}");
}

#[test]
fn check_fields_must_fit_their_kind() {
    // A field that does not apply, named at its own line.
    let text = with("  id = \"1-0\"\n", "  id = \"1-0\"\n  key = \"k\"\n");
    let e = errors(&text);
    assert_eq!(
        e,
        [format!(
            "lessons/tiny.toml:{}:9: field `key` does not apply to the check kind `owner`",
            line_of(&text, "key = \"k\"")
        )]
    );
    // A missing locating field.
    let e = errors(&with("  group = \"workers\"\n  id", "  id"));
    assert!(e[0].ends_with("the check kind `owner` needs `group`"), "{e:?}");
    // No expectation, two expectations, the wrong one, the wrong type.
    assert!(
        errors(&with("  equals = \"alice\"\n", ""))[0].contains("needs exactly one expectation: `equals`, `matches`")
    );
    assert!(errors(&with("  equals = \"alice\"\n", "  equals = \"alice\"\n  matches = \"a*\"\n"))[0]
        .contains("exactly one expectation"));
    assert!(errors(&with("  equals = \"alice\"\n", "  at_least = 1\n"))[0]
        .contains("the check kind `owner` takes `equals`, `matches`, `same_as_solution`, not `at_least`"));
    assert!(errors(&with("  equals = \"alice\"\n", "  equals = 3\n"))[0]
        .contains("`equals` of the check kind `owner` is a string"));
    // A bad id.
    assert!(errors(&with("id = \"1-0\"", "id = \"one\""))[0].contains("`one` is not a stream id"));
}

#[test]
fn messages_must_show_what_the_learner_has() {
    let e = errors(&with("{id} is with {actual}, it", "{id} is wrong, it"));
    assert!(e[0].contains("must show `{actual}`"), "{e:?}");
    let e = errors(&with("{id} is with {actual}", "{id} is with {actual} {colour}"));
    assert!(e[0].contains("unknown placeholder `{colour}`"), "{e:?}");
}

#[test]
fn task_kinds_and_their_fields() {
    let e = errors(&with("kind = \"choice\"", "kind = \"quiz\""));
    assert!(
        e[0].contains(
            "unknown task kind `quiz`, expected one of `reach-state`, `predict`, `choice`, `numeric`, `order`"
        ),
        "{e:?}"
    );
    let e = errors(&with("explain = \"Two entries.\"", "explain = \"Two entries.\"\nhints = [\"x\"]"));
    assert!(e[0].contains("field `hints` does not belong in a `predict` task"), "{e:?}");
    // Par may leave room, but not less than the solution's state-changing commands.
    let e = errors(&with("solution = [\"alice> XAUTOCLAIM", "par = 0\nsolution = [\"alice> XAUTOCLAIM"));
    assert!(e[0].contains("par is 0 but the solution changes state with 1 commands"), "{e:?}");
    assert!(parse_lesson("lessons/tiny.toml", &with("solution = [\"alice>", "par = 2\nsolution = [\"alice>")).is_ok());
}

#[test]
fn lines_and_header_fields_are_checked() {
    let e = errors(&with("\"bob> XREADGROUP", "\":as bob\", \"XREADGROUP"));
    assert!(e[0].contains("write `bob> COMMAND`, not `:as bob`"), "{e:?}");
    let reply_check =
        "  kind = \"reply\"\n  command = \"bob> XLEN jobs\"\n  equals = \"(integer) 2\"\n  message = \"{actual}\"\n";
    let e = errors(&with("  [[task.check]]\n", &format!("  [[task.check]]\n{reply_check}  [[task.check]]\n")));
    assert!(e[0].contains("a `reply` check runs one command from a fresh connection"), "{e:?}");
    let e = errors(&with(":clock +60s", ":clock soon"));
    assert!(e[0].contains("is not a meta-command lessons allow"), "{e:?}");
    let e = errors(&with("profile = \"redis-8.2\"", "profile = \"redis-6.2\""));
    assert!(
        e[0].contains("unknown profile `redis-6.2`, expected one of redis-7.4, redis-8.2, redis-8.4, redis-8.6, redis-8.8, redis-8.10, valkey-9"),
        "{e:?}"
    );
    let e = errors(&with("id = \"tiny\"", "id = \"Tiny Lesson\""));
    assert!(e[0].starts_with("lessons/tiny.toml:1:6: id `Tiny Lesson`"), "{e:?}");
    let e = errors(&with("version = 1", "version = \"one\""));
    assert!(e[0].starts_with("lessons/tiny.toml:2:11: invalid type"), "{e:?}");
}

#[test]
fn toml_syntax_errors_have_line_and_column() {
    let text = with("minutes = 3", "minutes = 3\ntitle = \"Again\"");
    let line = line_of(&text, "title = \"Again\"");
    assert_eq!(errors(&text), [format!("lessons/tiny.toml:{line}:1: duplicate key `title`, first defined on line 3")]);
    let text = with("  equals = \"alice\"", "  equals = \"alice");
    let line = line_of(&text, "equals = \"alice");
    assert!(
        errors(&text)[0].starts_with(&format!("lessons/tiny.toml:{line}:12: unterminated string")),
        "{:?}",
        errors(&text)
    );
    let text = with("version = 1", "version = 1.0");
    assert_eq!(errors(&text), ["lessons/tiny.toml:2:11: invalid type: floating point `1.0`, expected u32"]);
}

#[test]
fn tasks_and_variants_are_bounded() {
    let variants: String = (1..=21).map(|n| format!("[[variant]]\nids = {n}\n\n")).collect();
    let text = with("[[task]]", &format!("{variants}[[task]]"));
    let found = errors(&text);
    // The fixture has a variant already: the 21st hidden one is the one shifting ids by 20,
    // named at its header (the line above `ids = 20`).
    let line = text.lines().position(|l| l == "ids = 20").unwrap();
    assert_eq!(found, [format!("lessons/tiny.toml:{line}:1: a lesson has at most 20 hidden variants")]);
    let task = GOOD[GOOD.find("[[task]]").unwrap()..].to_owned();
    let text = format!("{GOOD}\n{}", task.repeat(50));
    let found = errors(&text);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("a lesson has at most 50 tasks"), "{found:?}");
}
