//! StreamLab's differential tester: seeded random command sequences over the Redis 8.2 stream
//! surface, run on a reference (Redis 8.2.3) and a target (StreamLab in process, or a server),
//! compared reply by reply after normalising what depends on the wall clock; a difference is
//! shrunk to a minimal sequence and printed as a ready-to-commit transcript.
//!
//! * [`gen`]: the generator;
//! * [`target`]: TCP and in-process targets;
//! * [`normalize`]: what is compared;
//! * [`run`]: one sequence on two targets;
//! * [`shrink`]: delta debugging;
//! * [`transcript`]: the transcript printer;
//! * [`bench`]: the consumer-group load of `tests/bench/compare.sh`.

pub mod bench;
pub mod gen;
pub mod normalize;
pub mod run;
pub mod shrink;
pub mod target;
pub mod transcript;
