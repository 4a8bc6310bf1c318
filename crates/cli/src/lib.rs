//! The `streamlab` command line: a redis-cli-like console over a StreamLab session, and the
//! transcript runner used by `run`, `replay` and the test suite, and the lesson checker behind
//! `check`, and the cmi5 course writer behind `package cmi5`.

pub mod cmi5;
pub mod lessons;
pub mod package;
pub mod repl;
pub mod scorm;
pub mod transcript;
pub mod zip;
