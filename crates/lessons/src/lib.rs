//! StreamLab lessons: the lesson file format, the checker, and the validator.
//!
//! * [`parse`]: a lesson file (TOML) into a [`Lesson`]; unknown fields and malformed parts are
//!   errors with file and line;
//! * [`markdown`]: the lesson text's markdown, read into blocks and runs;
//! * [`model`]: the lesson as types (tasks, checks, variants);
//! * [`check`]: runs a task in a fresh `Session` on a virtual clock and evaluates it — what
//!   the web player and graders call;
//! * [`validate`]: everything `streamlab check lessons/` verifies, without touching files;
//! * [`script`]: lesson lines and learners' logs, and how variants rewrite text;
//! * [`params`]: the integers a variant may change and the `${expr}` placeholders using them;
//! * [`trail`]: what the learner ran in a task, for process checks and par;
//! * [`propose`]: the checks a change of state suggests, for the studio;
//! * [`quiz`]: answering questions, and the shuffled order their options are shown in;
//! * [`toml`]: the TOML reader underneath, keeping every key's and value's span;
//!   [`shape`] reads its tables field by field.
//!
//! No I/O happens here beyond parsing strings, so the crate builds for the browser too.

pub mod check;
pub mod error;
pub mod markdown;
pub mod model;
pub mod params;
pub mod parse;
mod parse_check;
pub mod propose;
pub mod quiz;
pub mod script;
pub mod shape;
pub mod toml;
pub mod trail;
pub mod validate;

pub use check::{check_chain, check_log, judge, predicted_reply, run_one, turned_off, CheckError, Failure, Verdict};
pub use error::LessonError;
pub use model::{Check, Expect, Goal, Lesson, Line, Profile, Subject, Task, TaskKind, Value, Variant};
pub use parse::{parse_draft, parse_lesson};
pub use parse_check::CHECK_KINDS;
pub use quiz::{check_answer, option_why, shown_order, Answer, Answered};
pub use script::{parse_log, LogLine};
pub use trail::Trail;
