//! The validator on small lessons, good and deliberately broken.

mod common;

use common::{line_of, with, GOOD};
use streamlab_lessons::validate::{mentioned_commands, parse_index, raw_html, validate_index, validate_lesson};

fn problems(text: &str) -> Vec<String> {
    validate_lesson("lessons/tiny.toml", text).problems.iter().map(ToString::to_string).collect()
}

fn has(problems: &[String], needle: &str) -> bool {
    problems.iter().any(|p| p.contains(needle))
}

#[test]
fn the_fixture_passes_and_has_a_trace() {
    let report = validate_lesson("lessons/tiny.toml", GOOD);
    assert!(report.passed(), "{:?}", report.problems);
    assert!(report.skipped.is_none());
    assert!(report.trace.contains("# ===== variant 1: ids +100, jobs -> tasks\n"), "{}", report.trace);
    assert!(
        report.trace.contains("> :as alice\n> XAUTOCLAIM tasks workers alice 30000 0-0\n1) \"0-0\"\n"),
        "{}",
        report.trace
    );
    // Every section replays on its own, so the oracle can run it on the server the header names.
    assert!(report.trace.starts_with("# oracle: redis-8.2\n"), "{}", report.trace);
    assert!(
        report.trace.contains("# --- task 2: Length (predict)\n> :profile redis-8.2\n# setup\n"),
        "{}",
        report.trace
    );
    assert!(report.trace.contains("# predicted command\n> XLEN jobs\n(integer) 2\n"), "{}", report.trace);
}

#[test]
fn the_file_name_is_the_id() {
    let report = validate_lesson("lessons/other.toml", GOOD);
    assert!(has(&report.problems.iter().map(ToString::to_string).collect::<Vec<_>>(), "must be named `tiny.toml`"));
}

#[test]
fn a_goal_that_already_passes_is_rejected() {
    let text = with("equals = \"alice\"", "equals = \"bob\"");
    let p = problems(&text);
    let line = line_of(&text, "kind = \"reach-state\"");
    assert!(
        p.contains(&format!(
            "lessons/tiny.toml:{line}: task 1 (variant 0): the goal already passes on the start state"
        )),
        "{p:?}"
    );
    assert!(
        has(&p, "task 1 (variant 0): the solution does not pass: 1-0 is with alice, it should be with bob."),
        "{p:?}"
    );
}

#[test]
fn a_must_not_pass_sequence_that_passes_is_rejected() {
    let text = with("alice 90000 0-0\"]]", "alice 1000 0-0\"]]");
    let p = problems(&text);
    let line = line_of(&text, "must_not_pass");
    assert!(
        p.contains(&format!(
            "lessons/tiny.toml:{line}: task 1 (variant 0): this must_not_pass sequence passes the goal"
        )),
        "{p:?}"
    );
}

#[test]
fn a_solution_that_fails_or_errs_is_rejected() {
    let p = problems(&with("workers alice 30000 0-0\"]\n", "workers alice 90000 0-0\"]\n"));
    assert!(has(&p, "the solution does not pass: 1-0 is with bob, it should be with alice."), "{p:?}");
    let p = problems(&with("solution = [\"alice> XAUTOCLAIM jobs", "solution = [\"alice> XAUTOCLAIM nokey"));
    assert!(has(&p, "solution `XAUTOCLAIM nokey workers alice 30000 0-0` replied (error) NOGROUP"), "{p:?}");
    let p = problems(&with(
        "solution = [\"alice> XAUTOCLAIM jobs workers alice 30000 0-0\"]",
        "solution = [\"alice> XCLAIM jobs workers alice 30000 1-0\"]",
    ));
    assert!(has(&p, "the solution uses a disabled command"), "{p:?}");
}

#[test]
fn a_variant_that_a_remembered_answer_passes_is_rejected() {
    let p = problems(&with("values = { jobs = \"tasks\" }", "values = { bob = \"bert\" }"));
    assert!(has(&p, "task 1 (variant 1): the solution as written also passes this variant"), "{p:?}");
}

#[test]
fn choices_need_a_right_option_and_reasons() {
    let p = problems(&with("{ text = \"No\", correct = true,", "{ text = \"No\","));
    assert!(has(&p, "task 3: no option is marked `correct = true`"), "{p:?}");
    let p = problems(&with("why = \"Nothing moves without a claim.\"", "why = \" \""));
    assert!(has(&p, "task 3: every option needs a `why`"), "{p:?}");
    // A predict option marked right must be what the engine prints.
    let text = with(
        "explain = \"Two entries.\"",
        "explain = \"Two entries.\"\noptions = [{ text = \"(integer) 3\", correct = true, why = \"a\" }, { text = \"(integer) 2\", why = \"b\" }]",
    );
    let p = problems(&text);
    assert!(has(&p, "task 2 (variant 0): the right option differs from the reply"), "{p:?}");
    assert!(has(&p, "task 2 (variant 0): an option marked wrong is the real reply"), "{p:?}");
}

#[test]
fn text_is_markdown_without_raw_html_naming_real_commands() {
    let p = problems(&with("prompt = \"Move bob's entry to alice.\"", "prompt = \"Move <b>bob's</b> entry.\""));
    assert!(has(&p, "raw HTML is not allowed in lesson text: `<b>`"), "{p:?}");
    let p = problems(&with("hints = [\"Use XAUTOCLAIM.\"]", "hints = [\"Use XAUTOCLAM.\"]"));
    assert!(
        p.contains(&format!(
            "lessons/tiny.toml:{}: `XAUTOCLAM` is not a command",
            line_of(GOOD, "kind = \"reach-state\"")
        )),
        "{p:?}"
    );
    // Commands are judged by the lesson's profile: XNACK exists from Redis 8.8 on.
    let p = problems(&with("hints = [\"Use XAUTOCLAIM.\"]", "hints = [\"Use XNACK.\"]"));
    assert!(has(&p, "`XNACK` does not exist in this lesson's profile redis-8.2"), "{p:?}");
    let p =
        problems(&with("hints = [\"Use XAUTOCLAIM.\"]", "hints = [\"Use XNACK.\"]").replace("redis-8.2", "redis-8.8"));
    assert!(!has(&p, "`XNACK`"), "{p:?}");
    let p = problems(&with("`XPENDING jobs workers` shows it", "`XINFO GROUP jobs` shows it"));
    assert!(has(&p, "`XINFO GROUP` is not a subcommand"), "{p:?}");
    assert_eq!(raw_html("a `<b>` b\n```\n<i>\n```\n x < y"), None);
    assert_eq!(raw_html("see <https://redis.io>").as_deref(), Some("<https://redis.io>"));
    let named = mentioned_commands("Run `XACK jobs g 1-0`, then XPENDING; `COUNT 2` is an option and XX too short.");
    assert_eq!(named, [("XACK".to_owned(), None), ("XPENDING".to_owned(), None), ("COUNT".to_owned(), None)]);
}

#[test]
fn lessons_needing_missing_features_are_skipped_with_a_reason() {
    let text = with("minutes = 3", "minutes = 3\nneeds = [\"XTELEPORT\", \"XREADGROUP WARP\"]")
        .replace("hints = [\"Use XAUTOCLAIM.\"]", "hints = [\"Or XTELEPORT it.\"]");
    let report = validate_lesson("lessons/tiny.toml", &text);
    assert!(report.passed(), "{:?}", report.problems);
    assert_eq!(
        report.skipped.as_deref(),
        Some("needs XTELEPORT, XREADGROUP WARP (redis-8.2 profile), which this engine does not have yet; its commands were not run")
    );
    assert!(report.trace.is_empty());
    // A need the engine already meets is a mistake.
    let p = problems(&with("minutes = 3", "minutes = 3\nneeds = [\"XACK\"]"));
    assert!(has(&p, "`xack` is a command this engine has; it is not a need"), "{p:?}");
}

#[test]
fn the_index_and_the_lessons_agree() {
    let lesson =
        validate_lesson("lessons/tiny.toml", &with("minutes = 3", "minutes = 3\nprerequisites = [\"basics\"]"))
            .lesson
            .unwrap();
    let index =
        parse_index("lessons/index.toml", "[[section]]\ntitle = \"A\"\nlessons = [\"tiny\", \"basics\", \"ghost\"]\n")
            .unwrap();
    let p: Vec<String> =
        validate_index("lessons/index.toml", &index, &[&lesson]).iter().map(ToString::to_string).collect();
    assert!(p.contains(&"lessons/index.toml: lesson `basics` is listed but has no file".to_owned()), "{p:?}");
    assert!(p.contains(&"lessons/index.toml: lesson `ghost` is listed but has no file".to_owned()), "{p:?}");
    assert!(
        p.contains(&"lessons/tiny.toml: prerequisite `basics` comes after this lesson in the index".to_owned()),
        "{p:?}"
    );
    let e = parse_index("lessons/index.toml", "[[section]]\ntitle = \"A\"\nlesson = []\n").unwrap_err();
    assert_eq!(e.to_string(), "lessons/index.toml:3:1: unknown field `lesson`, expected `title` or `lessons`");
}

#[test]
fn a_lesson_runs_on_the_server_it_names() {
    use streamlab_lessons::{parse_lesson, Profile};
    for (name, profile) in
        [("redis-8.2", Profile::Redis82), ("redis-8.8", Profile::Redis88), ("valkey-9", Profile::Valkey9)]
    {
        let lesson = parse_lesson("lessons/tiny.toml", &GOOD.replace("redis-8.2", name)).expect("the fixture parses");
        let mut console = lesson.fresh_console(&lesson.variants[0]);
        assert_eq!(console.session().profile(), profile);
        // XNACK came with Redis 8.8: older servers answer that it is unknown.
        let reply = console.run("XNACK jobs workers 1-0").iter().map(|o| o.text.clone()).collect::<String>();
        assert_eq!(reply.contains("unknown command"), profile != Profile::Redis88, "{name}: {reply}");
    }
}

#[test]
fn a_long_tag_with_accents_is_named_without_splitting_a_character() {
    let text = format!("<ab title=\"{}\">", "é".repeat(40));
    let tag = raw_html(&text).unwrap();
    assert!(tag.starts_with("<ab title=\"é") && tag.chars().count() == 40, "{tag}");
}

#[test]
fn a_renamed_word_outside_code_is_rejected_and_names_in_code_are_fine() {
    // The variant renames `jobs`: in prose, only code is renamed, so a bare "jobs" is either
    // a stale name or English that "tasks" would not fit; the author must say which.
    let text =
        with("prompt = \"Move bob's entry to alice.\"", "prompt = \"Two jobs wait; move bob's entry to alice.\"");
    let p = problems(&text);
    let line = line_of(&text, "kind = \"reach-state\"");
    let variant = line_of(&text, "[[variant]]");
    assert!(
        p.contains(&format!(
            "lessons/tiny.toml:{line}: `jobs` is outside backticks in \"…Two jobs wait; move bob's entry…\": \
             variants rename names only in code, so variant 1 (line {variant}) leaves it instead of writing \
             `tasks`; write `jobs` if it is the name, and if it is the ordinary word, reword the sentence or \
             give the name another word"
        )),
        "{p:?}"
    );
    assert_eq!(p.len(), 1, "{p:?}");
    // The same word in code is the name, renamed in every variant; words the variants do not
    // rename (bob, alice) may stand anywhere.
    let fine = with(
        "prompt = \"Move bob's entry to alice.\"",
        "prompt = \"Two entries of `jobs` wait; move bob's to alice.\"",
    );
    assert!(problems(&fine).is_empty(), "{:?}", problems(&fine));
    // Messages, hints and options are prose too; a predicted reply is not.
    let message = with("message = \"{id} is with", "message = \"In jobs, {id} is with");
    assert!(
        has(&problems(&message), "`jobs` is outside backticks in \"…In jobs, {id} is with"),
        "{:?}",
        problems(&message)
    );
    let why = with("why = \"A consumer has to claim them.\"", "why = \"A consumer has to claim jobs.\"");
    assert!(has(&problems(&why), "`jobs` is outside backticks"), "{:?}", problems(&why));
}
