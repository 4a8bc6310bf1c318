//! Helpers shared by StreamLab's tests and benchmarks (never by the product itself): a
//! counting global allocator and a small deterministic random generator.

pub mod alloc;
pub mod rng;
