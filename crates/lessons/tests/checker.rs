//! The checker the player and graders call: a log run on a fresh session, checks evaluated,
//! failures rendered in the learner's terms.

mod common;

use common::GOOD;
use streamlab_lessons::{
    check_answer, check_log, parse_lesson, parse_log, predicted_reply, Answer, CheckError, Lesson, LogLine,
};

fn lesson() -> Lesson {
    parse_lesson("lessons/tiny.toml", GOOD).unwrap()
}

#[test]
fn the_solution_passes_and_reports_par() {
    let verdict = check_log(&lesson(), 0, 0, &parse_log("alice> XAUTOCLAIM jobs workers alice 30000 0-0")).unwrap();
    assert!(verdict.passed, "{verdict:?}");
    assert!(verdict.failures.is_empty());
    assert_eq!((verdict.commands, verdict.par), (1, 1));
}

#[test]
fn a_failing_check_says_what_is_wrong() {
    // Doing nothing: the entry is still bob's.
    let verdict = check_log(&lesson(), 0, 0, &[]).unwrap();
    assert!(!verdict.passed);
    assert_eq!(verdict.failures.len(), 1);
    let failure = &verdict.failures[0];
    assert_eq!(failure.message, "1-0 is with bob, it should be with alice.");
    assert_eq!((failure.expected.as_str(), failure.actual.as_str()), ("alice", "bob"));
    assert_eq!(failure.line, common::line_of(GOOD, "kind = \"owner\""));
    // A threshold that is too high claims nothing; looking first (XPENDING) is free, so one
    // command is counted.
    let log = parse_log(":as alice\nXPENDING jobs workers\nXAUTOCLAIM jobs workers alice 90000 0-0");
    let verdict = check_log(&lesson(), 0, 0, &log).unwrap();
    assert_eq!(verdict.commands, 1);
    assert_eq!(verdict.failures[0].message, "1-0 is with bob, it should be with alice.");
    // Acknowledging removes the receipt: nobody owns it any more.
    let verdict = check_log(&lesson(), 0, 0, &[LogLine::new("default", "XACK jobs workers 1-0")]).unwrap();
    assert_eq!(verdict.failures[0].message, "1-0 is with nobody, it should be with alice.");
}

#[test]
fn disabled_commands_are_refused_and_fail_the_check() {
    let lesson = lesson();
    assert!(lesson.is_disabled(0, "xclaim jobs workers alice 0 1-0"));
    assert!(!lesson.is_disabled(0, "XAUTOCLAIM jobs workers alice 0 0-0"));
    let verdict = check_log(&lesson, 0, 0, &parse_log("alice> XCLAIM jobs workers alice 30000 1-0")).unwrap();
    assert!(!verdict.passed);
    assert_eq!(verdict.commands, 0, "a refused command does not run");
    assert_eq!(
        verdict.failures[0].message,
        "`XCLAIM jobs workers alice 30000 1-0` is turned off in this task: reach the goal without it."
    );
    assert_eq!(verdict.failures[1].message, "1-0 is with bob, it should be with alice.");
}

#[test]
fn a_variant_moves_ids_and_names_so_a_remembered_answer_fails() {
    let lesson = lesson();
    assert_eq!(
        lesson.render("`XAUTOCLAIM jobs workers alice 30000 0-0` takes 1-0", 1),
        "`XAUTOCLAIM tasks workers alice 30000 0-0` takes 101-0"
    );
    // Text renames names only in code: outside it, a name's word is English and stays.
    assert_eq!(lesson.render("two jobs wait in `jobs`", 1), "two jobs wait in `tasks`");
    let remembered = check_log(&lesson, 0, 1, &parse_log("alice> XAUTOCLAIM jobs workers alice 30000 0-0")).unwrap();
    assert!(!remembered.passed);
    assert_eq!(remembered.failures[0].message, "101-0 is with bob, it should be with alice.");
    let fitted = check_log(&lesson, 0, 1, &parse_log("alice> XAUTOCLAIM tasks workers alice 30000 0-0")).unwrap();
    assert!(fitted.passed, "{fitted:?}");
    assert_eq!(check_log(&lesson, 0, 2, &[]), Err(CheckError::NoSuchVariant(2)));
    assert_eq!(check_log(&lesson, 1, 0, &[]), Err(CheckError::WrongKind { task: 1, expected: "reach-state" }));
}

#[test]
fn predictions_and_choices() {
    let lesson = lesson();
    assert_eq!(predicted_reply(&lesson, 1, 0).unwrap(), "(integer) 2");
    let typed = |text: &str| check_answer(&lesson, 1, 0, &Answer::Typed(text.into())).unwrap().correct;
    assert!(typed("2") && typed("(integer) 2") && typed(" 2 "));
    assert!(!typed("3"));
    let answered = check_answer(&lesson, 1, 0, &Answer::Typed("3".into())).unwrap();
    assert_eq!((answered.reply.as_str(), answered.why.as_str()), ("(integer) 2", "Two entries."));
    let right = check_answer(&lesson, 2, 0, &Answer::Option(0)).unwrap();
    assert!(right.correct);
    assert_eq!(right.why, "A consumer has to claim them.");
    assert!(!check_answer(&lesson, 2, 0, &Answer::Option(1)).unwrap().correct);
    assert_eq!(check_answer(&lesson, 2, 0, &Answer::Option(5)), Err(CheckError::NoSuchOption(5)));
    assert!(matches!(check_answer(&lesson, 2, 0, &Answer::Typed("No".into())), Err(CheckError::WrongKind { .. })));
}

#[test]
fn start_and_goal_states_for_the_player() {
    let lesson = lesson();
    let start = lesson.task_start(0, 0).unwrap();
    let goal = lesson.goal_state(0, 0).unwrap();
    let owner = |c: &streamlab_protocol::console::Console| {
        let stream = c.session().keyspace().stream(b"jobs").unwrap().unwrap();
        let pel = stream.group(b"workers").unwrap().pel();
        String::from_utf8_lossy(pel.values().next().unwrap().owner_name()).into_owned()
    };
    assert_eq!((owner(&start), owner(&goal)), ("bob".to_owned(), "alice".to_owned()));
}

#[test]
fn a_log_cannot_step_behind_the_task_or_generate_entries() {
    let lesson = lesson();
    let log =
        parse_log("alice> XLEN jobs\n:undo\n:undo\n:fill jobs 1000000\nalice> XAUTOCLAIM jobs workers alice 30000 0-0");
    let verdict = check_log(&lesson, 0, 0, &log).unwrap();
    assert!(!verdict.passed);
    assert_eq!(verdict.failures[0].message, "`:undo` is turned off in this task: reach the goal without it.");
    assert!(verdict.failures.iter().any(|f| f.message.starts_with("`:fill jobs 1000000` is turned off")));
    // The work itself still counts.
    assert_eq!(verdict.commands, 1);
    assert!(
        check_log(&lesson, 0, 0, &parse_log(":clock +1s\nalice> XAUTOCLAIM jobs workers alice 30000 0-0"))
            .unwrap()
            .passed
    );
}
