//! Helpers shared by StreamLab's tests and benchmarks (never by the product itself): a
//! counting global allocator, a small deterministic random generator and hostile text.

pub mod alloc;
pub mod rng;
pub mod text;
