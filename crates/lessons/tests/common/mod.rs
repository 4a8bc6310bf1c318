#![allow(dead_code)]
//! A small lesson the tests break in different ways.

/// A valid lesson: one reach-state task, one predict task, one choice task, one variant.
pub const GOOD: &str = r#"id = "tiny"
version = 1
title = "Tiny"
summary = "A lesson small enough for tests."
profile = "redis-8.2"
minutes = 3
setup = [
  "XADD jobs 1-0 job a",
  "XADD jobs 2-0 job b",
  "XGROUP CREATE jobs workers 0",
  "bob> XREADGROUP GROUP workers bob COUNT 1 STREAMS jobs >",
  ":clock +60s",
]

[[intro]]
text = "bob took `1-0` and vanished; `XPENDING jobs workers` shows it."
demo = ["XPENDING jobs workers"]

[[variant]]
ids = 100
values = { jobs = "tasks" }

[[task]]
kind = "reach-state"
title = "Rescue"
prompt = "Move bob's entry to alice."
hints = ["Use XAUTOCLAIM."]
disabled = ["XCLAIM"]
solution = ["alice> XAUTOCLAIM jobs workers alice 30000 0-0"]
must_not_pass = [["alice> XAUTOCLAIM jobs workers alice 90000 0-0"]]
  [[task.check]]
  kind = "owner"
  stream = "jobs"
  group = "workers"
  id = "1-0"
  equals = "alice"
  message = "{id} is with {actual}, it should be with {expected}."

[[task]]
kind = "predict"
title = "Length"
prompt = "What does `XLEN jobs` print?"
command = "XLEN jobs"
explain = "Two entries."

[[task]]
kind = "choice"
title = "Claims"
prompt = "Does Redis move pending entries by itself?"
options = [
  { text = "No", correct = true, why = "A consumer has to claim them." },
  { text = "Yes", why = "Nothing moves without a claim." },
  { text = "Only after an hour", why = "There is no such timer." },
]
"#;

/// `GOOD` with one piece of text replaced (which must occur).
pub fn with(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "the fixture has no {from:?}");
    GOOD.replacen(from, to, 1)
}

/// The 1-based line of the first occurrence of `needle` in `text`.
pub fn line_of(text: &str, needle: &str) -> usize {
    text[..text.find(needle).expect("needle occurs")].matches('\n').count() + 1
}
