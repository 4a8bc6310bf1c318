//! The studio's engine on a draft as an author builds it: unfinished, then recorded, then
//! checked, on the lesson as written and on a variant.

use streamlab_studio::{draft, tree, Recorder};

/// A draft with a setup, an intro demo and one reach-state task with no checks yet.
const DRAFT: &str = r#"id = "claims"
version = 1
title = "Claims"
summary = "Who holds `1-0`."
profile = "redis-8.2"
minutes = 5
setup = ["XADD jobs 1-0 n 1", "XGROUP CREATE jobs w 0"]

[[intro]]
text = "Alice reads `jobs`."
demo = ["alice> XREADGROUP GROUP w alice STREAMS jobs >"]

[[variant]]
ids = 5000
values = { jobs = "tasks" }

[[task]]
kind = "reach-state"
title = "Give it to bob"
prompt = "Move `1-0` to bob."
hints = ["XCLAIM"]
solution = []
"#;

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap()
}

#[test]
fn an_unfinished_draft_still_renders_and_records() {
    let found = draft::draft("claims.toml", DRAFT, 1);
    let lesson = found.lesson.expect("the draft has a lesson's shape");
    assert_eq!(lesson.setup, ["XADD tasks 5001-0 n 1", "XGROUP CREATE tasks w 0"]);
    assert_eq!(lesson.intro[0].text, "Alice reads `tasks`.");
    assert!(found.problems.iter().any(|p| p.message.contains("at least one [[task.check]]")));

    let mut recorder = Recorder::open("claims.toml", DRAFT, "0", 0, &[]).unwrap();
    assert_eq!(json(&recorder.state())[2], "    alice: 1-0");
    let ran = json(&recorder.run(":as bob"));
    assert!(ran["refused"].as_str().unwrap().contains("name> COMMAND"));
    assert_eq!(json(&recorder.run("bob> XCLAIM jobs w bob 0 1-0"))["ok"], true);
    let proposals = json(&recorder.propose());
    let owner = proposals.as_array().unwrap().iter().find(|p| p["kind"] == "owner").unwrap();
    assert_eq!((owner["before"].as_str(), owner["value"].as_str()), (Some("alice"), Some("bob")));
    assert_eq!(owner["fields"], serde_json::json!([["stream", "jobs"], ["group", "w"], ["id", "1-0"]]));
    assert!(Recorder::open("claims.toml", DRAFT, "7", 0, &[]).is_err());
    assert!(Recorder::open("claims.toml", "id = ", "0", 0, &[]).is_err());
}

#[test]
fn a_kept_proposal_judges_work_and_validates() {
    let checked = format!("{DRAFT}unknown_field = 0\n");
    // Unknown fields are problems at their line, as `streamlab check` prints them.
    let problems = draft::validation("claims.toml", &checked).problems;
    assert!(problems[0].text.starts_with("claims.toml:"), "{}", problems[0].text);

    let done = DRAFT.replace("solution = []", "solution = [\"bob> XCLAIM jobs w bob 0 1-0\"]")
        + "  [[task.check]]\n  kind = \"owner\"\n  stream = \"jobs\"\n  group = \"w\"\n  id = \"1-0\"\n  equals = \"bob\"\n  message = \"It is with {actual}.\"\n";
    let wrong = draft::judge("claims.toml", &done, 0, &["XACK jobs w 1-0".into()]);
    assert!(!wrong.passed);
    assert_eq!(wrong.failures, ["It is with nobody."]);
    assert!(draft::judge("claims.toml", &done, 0, &["bob> XCLAIM jobs w bob 0 1-0".into()]).passed);
    // The validator still wants a wrong path and a question.
    let messages: Vec<String> =
        draft::validation("claims.toml", &done).problems.into_iter().map(|p| p.message).collect();
    assert!(messages.iter().any(|m| m.contains("must_not_pass")), "{messages:?}");
}

#[test]
fn the_tree_keeps_places_for_editing_in_place() {
    let tree = serde_json::to_value(tree::tree(DRAFT).unwrap()).unwrap();
    let title = &tree["keys"][2];
    assert_eq!(title["k"], "title");
    let [start, end] = [title["v"]["s"][0].as_u64().unwrap() as usize, title["v"]["s"][1].as_u64().unwrap() as usize];
    assert_eq!(&DRAFT[start..end], "\"Claims\"");
}

#[test]
fn lines_and_texts_as_written_are_filled_in_with_the_parameters() {
    let with_params = DRAFT.replace("minutes = 5\n", "minutes = 5\nparams = { idle = 30 }\n");
    assert_eq!(
        streamlab_studio::prose("claims.toml", &with_params, "Idle for ${idle * 1000} ms."),
        "Idle for 30000 ms."
    );
    // Not a lesson yet: the text as given.
    assert_eq!(streamlab_studio::prose("claims.toml", "id = ", "${idle}"), "${idle}");
    let recorded = ["bob> XCLAIM jobs w bob ${idle - 30} 1-0".to_owned()];
    let recorder = Recorder::open("claims.toml", &with_params, "0", 0, &recorded).unwrap();
    assert_eq!(json(&recorder.state())[3], "    bob: 1-0", "the recorded line ran with its parameter filled in");
    // A wrong path as written is judged as the recorder ran it.
    let judged = draft::judge("claims.toml", &with_params, 0, &[":clock +${idle}s".to_owned()]);
    assert_eq!(judged.error, None);
}
