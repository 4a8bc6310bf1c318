//! The richer lesson format: parameters that variants change, process checks, misconceptions
//! with their messages, check hints, chained tasks, and the question kinds (multiple choice,
//! numeric, order) with their shuffled options.

use streamlab_lessons::validate::validate_lesson;
use streamlab_lessons::{
    check_answer, check_chain, check_log, parse_lesson, parse_log, shown_order, Answer, CheckError, Lesson,
};

/// The fixture (also graded by the grader module's tests in `tests/grader/`).
const RICH: &str = include_str!("fixtures/rich.toml");

fn lesson() -> Lesson {
    parse_lesson("lessons/rich.toml", RICH).unwrap()
}

#[test]
fn the_rich_lesson_validates() {
    let report = validate_lesson("lessons/rich.toml", RICH);
    assert!(report.passed(), "{:#?}", report.problems);
    // Each misconception's path is a section of the golden trace, so the oracle runs it too.
    assert!(report.trace.contains("# --- task 1, misconception 2\n> :profile redis-8.2\n"), "{}", report.trace);
    assert!(report.trace.contains("# ===== variant 1: idle_s = 40, jobs = 4\n"), "{}", report.trace);
    // A task that continues replays the one before it.
    assert!(report.trace.contains("# task 1 solution\n> :as carol\n> XAUTOCLAIM jobs workers carol 55000 0-0\n"));
}

#[test]
fn parameters_change_numbers_per_variant() {
    let lesson = lesson();
    assert_eq!(lesson.render("bob took ${jobs} jobs ${idle_s} s ago.", 1), "bob took 4 jobs 40 s ago.");
    let solved = |variant: usize, threshold: &str| {
        let log = parse_log(&format!("carol> XAUTOCLAIM jobs workers carol {threshold} 0-0"));
        check_log(&lesson, 0, variant, &log).unwrap()
    };
    assert!(solved(0, "55000").passed);
    // The numbers of the lesson as written do not fit the variant, where bob is 40 s idle.
    let remembered = solved(1, "55000");
    assert_eq!(remembered.failures[0].message, "carol holds 0 of 4.");
    assert!(solved(1, "35000").passed);
    let verdict = check_log(&lesson, 0, 1, &parse_log("carol> XAUTOCLAIM jobs workers carol 95000 0-0")).unwrap();
    assert_eq!(verdict.failures[0].hint.as_deref(), Some("Claim from the start of the pending list."));
    assert_eq!(verdict.misconception.as_deref(), Some("That threshold is longer than bob has been idle."));
}

#[test]
fn process_checks_and_misconceptions() {
    let lesson = lesson();
    // Looking first is free; XCLAIM of one id is recognised by its `when`.
    let log = parse_log("carol> XPENDING jobs workers - + 10\ncarol> XCLAIM jobs workers carol 0 1-0");
    let verdict = check_log(&lesson, 0, 0, &log).unwrap();
    assert_eq!(verdict.commands, 1);
    assert_eq!(verdict.misconception.as_deref(), Some("XCLAIM takes only the ids you name."));
    assert!(verdict.failures.iter().any(|f| f.message == "carol ran XAUTOCLAIM 0 times."), "{verdict:?}");
    // The right state from the wrong connection fails the `used` check, with no misconception.
    let verdict = check_log(&lesson, 0, 0, &parse_log("XAUTOCLAIM jobs workers carol 55000 0-0")).unwrap();
    assert_eq!(verdict.failures.len(), 1);
    assert_eq!(verdict.misconception, None);
    // Task 2 continues from task 1: without a transaction the signature of the wrong path
    // matches; with one it passes.
    let apart = parse_log("carol> XADD dead * source 3-0\ncarol> XACK jobs workers 3-0");
    let verdict = check_log(&lesson, 1, 0, &apart).unwrap();
    assert_eq!(verdict.misconception.as_deref(), Some("Both ran, but not in one transaction."));
    assert_eq!(verdict.failures[0].message, "Transactions with both: 0.");
    let together = parse_log(":as carol\nMULTI\nXADD dead * source 3-0 note x\nXACK jobs workers 3-0\nEXEC");
    assert!(check_log(&lesson, 1, 0, &together).unwrap().passed);
    // From the learner's own task-1 work: claiming only two of three leaves another count.
    let task1 = parse_log("carol> XAUTOCLAIM jobs workers carol 55000 0-0 COUNT 2");
    let verdict = check_chain(&lesson, 1, 0, &[Some(task1)], &together).unwrap();
    assert!(verdict.passed, "the pending count is the group's: {verdict:?}");
}

#[test]
fn questions_of_every_kind() {
    let lesson = lesson();
    let typed = |task, variant, text: &str| check_answer(&lesson, task, variant, &Answer::Typed(text.into())).unwrap();
    // Lag: five added, `jobs` delivered (the measure runs on the variant's own start).
    assert!(typed(2, 0, "2").correct && typed(2, 1, "1").correct && !typed(2, 1, "2").correct);
    assert_eq!(typed(2, 0, "2").reply, "2");
    assert_eq!(typed(2, 0, "3").reply, "", "a wrong number does not give the right one away");
    assert!(typed(3, 1, "(integer) 40").correct);
    assert!(!typed(3, 0, "sixty").correct);
    let multi = |set: &[usize]| check_answer(&lesson, 4, 0, &Answer::Options(set.to_vec())).unwrap();
    assert!(multi(&[1, 0]).correct);
    assert_eq!(multi(&[0]).why, "Right so far, but 1 right option is missing.");
    assert_eq!(multi(&[0, 2]).why, "1 chosen option is wrong, and 1 right option is missing.");
    assert!(matches!(check_answer(&lesson, 4, 0, &Answer::Option(0)), Err(CheckError::WrongKind { .. })));
    let order = |steps: &[usize]| check_answer(&lesson, 5, 0, &Answer::Order(steps.to_vec()));
    assert!(order(&[0, 1, 2]).unwrap().correct);
    assert_eq!(order(&[0, 2, 1]).unwrap().why, "1 of 3 steps are in the right place.");
    assert_eq!(order(&[0, 0, 1]), Err(CheckError::NoSuchOption(0)));
    assert_eq!(order(&[0, 1]), Err(CheckError::NoSuchOption(3)));
}

#[test]
fn options_are_shuffled_per_attempt_and_the_same_on_replay() {
    let lesson = lesson();
    let orders: Vec<Vec<usize>> = (0..12).map(|attempt| shown_order(&lesson, 4, attempt)).collect();
    assert!(orders.iter().all(|o| {
        let mut s = o.clone();
        s.sort();
        s == [0, 1, 2]
    }));
    assert_eq!(orders[3], shown_order(&lesson, 4, 3), "deterministic");
    assert!(orders.iter().any(|o| o[0] != 0), "the right option is not always first");
    let mut distinct = orders.clone();
    distinct.sort();
    distinct.dedup();
    assert!(distinct.len() >= 3, "attempts differ: {orders:?}");
    // An order task never starts out solved.
    assert!((0..50).all(|attempt| shown_order(&lesson, 5, attempt) != [0, 1, 2]));
}

#[test]
fn the_validator_keeps_the_new_rules() {
    let problems = |text: &str| {
        validate_lesson("lessons/rich.toml", text).problems.iter().map(ToString::to_string).collect::<Vec<_>>()
    };
    let has = |p: &[String], needle: &str| p.iter().any(|p| p.contains(needle));
    // A hint may not give the solution line away.
    let text = RICH.replace(
        "hints = [\"An idle threshold below bob's idle time takes them all.\"]",
        "hints = [\"Type `carol> XAUTOCLAIM jobs workers carol ${idle_s * 1000 - 5000} 0-0`.\"]",
    );
    assert!(has(&problems(&text), "hint 1 gives away the solution line"), "{:?}", problems(&text));
    // Two options are a coin flip.
    let text = RICH.replace("  { text = \"Claiming with a long threshold\", why = \"It only waits longer.\" },\n", "");
    assert!(has(&problems(&text), "task 5: give at least three options"));
    // A detector that also fires after the solution would mislead.
    let text = RICH.replace(
        "when = [{ kind = \"used\", command = \"XCLAIM\", present = true }]",
        "when = [{ kind = \"used\", command = \"XAUTOCLAIM\", present = true }]",
    );
    assert!(has(&problems(&text), "its `when` checks also pass after the reference solution"), "{:?}", problems(&text));
    // A misconception whose path reaches the goal is no misconception.
    let text = RICH.replace("999999 0-0\"]", "1000 0-0\"]");
    assert!(has(&problems(&text), "misconception 2 (variant 0): the goal passes after this path"));
    // Parameters must be declared, and evaluate on every variant.
    let text = RICH.replace("${jobs - 1}", "${jobz - 1}");
    let p = parse_lesson("lessons/rich.toml", &text).unwrap_err();
    assert!(p[0].to_string().contains("unknown parameter `jobz`"), "{p:?}");
    let text = RICH
        .replace("params = { jobs = 4, idle_s = 40 }", "params = { jobs = 0, idle_s = 90 }")
        .replace("${idle_s}\"\nexplain", "${idle_s / jobs}\"\nexplain");
    assert!(has(&problems(&text), "variant 1: `${idle_s / jobs}`: division by zero"), "{:?}", problems(&text));
    let text = RICH.replace("params = { jobs = 4, idle_s = 40 }", "params = { jobs = 4, idle = 90 }");
    assert!(parse_lesson("l.toml", &text).unwrap_err()[0].message.contains("parameter `idle` has no default"));
    // The first task has nothing to continue from.
    let text = RICH.replacen(
        "kind = \"reach-state\"\ntitle = \"Take them over\"",
        "kind = \"reach-state\"\ncontinues = true\ntitle = \"Take them over\"",
        1,
    );
    assert!(has(&problems(&text), "the first task has no task before it"), "{:?}", problems(&text));
    // Fields of one kind do not belong in another.
    let text = RICH.replace("multiple = true\n", "multiple = true\nsteps = [\"a\"]\n");
    assert!(parse_lesson("l.toml", &text).unwrap_err()[0]
        .message
        .contains("field `steps` does not belong in a `choice` task"));
    let text = RICH.replace(
        "answer = \"${idle_s}\"\n",
        "answer = \"${idle_s}\"\nmeasure = { kind = \"lag\", stream = \"jobs\", group = \"workers\" }\n",
    );
    assert!(parse_lesson("l.toml", &text).unwrap_err()[0].message.contains("exactly one of `answer` and `measure`"));
}

/// The state checks added with the richer format, and the process checks not in the fixture
/// above, each through a lesson file as an author writes them.
#[test]
fn the_other_new_check_kinds() {
    let lesson = |checks: &str| {
        let text = format!(
            r#"id = "kinds"
version = 1
title = "Kinds"
summary = "Check kinds."
profile = "redis-8.2"
minutes = 1
setup = ["XADD s 1-0 f v", "XADD s 2-0 f v", "XGROUP CREATE s g 0", "c> XREADGROUP GROUP g c COUNT 1 STREAMS s >", ":clock +5s"]

[[variant]]
ids = 10

[[task]]
kind = "reach-state"
title = "T"
prompt = "P"
hints = ["H"]
solution = ["XDEL s 2-0"]
must_not_pass = [["XDEL s 1-0"]]
{checks}
"#
        );
        parse_lesson("kinds.toml", &text).unwrap()
    };
    let check = |checks: &str, log: &str| check_log(&lesson(checks), 0, 0, &parse_log(log)).unwrap();
    let idle = "  [[task.check]]\n  kind = \"idle\"\n  stream = \"s\"\n  group = \"g\"\n  consumer = \"c\"\n  at_least = 6000\n  message = \"c idle {actual}\"\n";
    assert_eq!(check(idle, "").failures[0].message, "c idle 5000");
    assert!(check(idle, ":clock +1s").passed);
    let added = "  [[task.check]]\n  kind = \"entries-added\"\n  stream = \"s\"\n  equals = 3\n  message = \"added {actual}\"\n";
    assert_eq!(check(added, "XDEL s 2-0").failures[0].message, "added 2");
    assert!(check(added, "XADD s 3-0 f v").passed);
    let deleted = "  [[task.check]]\n  kind = \"max-deleted-id\"\n  stream = \"s\"\n  equals = \"2-0\"\n  message = \"max deleted {actual}\"\n";
    assert_eq!(check(deleted, "").failures[0].message, "max deleted 0-0");
    assert!(check(deleted, "XDEL s 2-0").passed);
    let ttl = "  [[task.check]]\n  kind = \"ttl\"\n  key = \"lock\"\n  at_least = 1\n  message = \"ttl {actual}\"\n";
    assert_eq!(check(ttl, "").failures[0].message, "ttl -2");
    assert_eq!(check(ttl, "SET lock x").failures[0].message, "ttl -1");
    assert!(check(ttl, "SET lock x PX 30000").passed);
    // `same_as_solution`: what the reference solution reaches on the same variant.
    let same = "  [[task.check]]\n  kind = \"length\"\n  stream = \"s\"\n  same_as_solution = true\n  message = \"length {actual}, want {expected}\"\n";
    assert_eq!(check(same, "").failures[0].message, "length 2, want 1");
    assert!(check(same, "XDEL s 1-0").passed, "another entry gone gives the same length");
    // `used` with an option, and `saw` on the learner's replies.
    let used = "  [[task.check]]\n  kind = \"used\"\n  command = \"XREADGROUP\"\n  option = \"noack\"\n  present = false\n  message = \"NOACK used {actual} times\"\n";
    assert!(check(used, "c> XREADGROUP GROUP g c STREAMS s >").passed);
    assert_eq!(check(used, "c> XREADGROUP GROUP g c NOACK STREAMS s >").failures[0].message, "NOACK used 1 times");
    let saw = "  [[task.check]]\n  kind = \"saw\"\n  command = \"XAUTOCLAIM\"\n  matches = \"1) \\\"0-0\\\"*\"\n  message = \"last cursor {actual}\"\n";
    let claims = "c> XAUTOCLAIM s g c 0 0-0 COUNT 1";
    assert!(check(saw, claims).passed, "one entry pending: the scan is done in one call");
    assert_eq!(check(saw, "").failures[0].message, "last cursor nothing");
    let errors = |checks: &str| {
        let text = format!("id = \"k\"\nversion = 1\ntitle = \"K\"\nsummary = \"S\"\nprofile = \"redis-8.2\"\nminutes = 1\n\n[[task]]\nkind = \"reach-state\"\ntitle = \"T\"\nprompt = \"P\"\nhints = [\"H\"]\nsolution = [\"PING\"]\n{checks}");
        parse_lesson("k.toml", &text).unwrap_err().iter().map(ToString::to_string).collect::<Vec<_>>()
    };
    let e = errors(
        "  [[task.check]]\n  kind = \"used\"\n  command = \"xack\"\n  present = true\n  message = \"{actual}\"\n",
    );
    assert!(e[0].starts_with("k.toml:16:13: `xack`: a command is `COMMAND`"), "{e:?}");
    let e = errors(
        "  [[task.check]]\n  kind = \"transaction\"\n  commands = []\n  present = true\n  message = \"{actual}\"\n",
    );
    assert!(e[0].contains("`commands` lists at least one command"), "{e:?}");
    let e =
        errors("  [[task.check]]\n  kind = \"ttl\"\n  key = \"k\"\n  equals = \"soon\"\n  message = \"{actual}\"\n");
    assert!(e[0].contains("`equals` is an integer or \"${expr}\""), "{e:?}");
    let e = errors("  [[task.misconception]]\n  path = [\"PING\"]\n  message = \"M\"\n  when = [{ kind = \"used\", command = \"PING\", present = true, message = \"x\" }]\n");
    assert!(e.iter().any(|e| e.contains("a misconception's `when` check is never shown")), "{e:?}");
}
