//! Helpers shared by StreamLab's tests and benchmarks (never by the product itself): a
//! counting global allocator, a small deterministic random generator, hostile text and a
//! delta-debugging shrinker.

pub mod alloc;
pub mod rng;
pub mod shrink;
pub mod text;
