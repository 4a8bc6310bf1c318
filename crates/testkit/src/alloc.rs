//! A `#[global_allocator]` wrapper around [`System`] that counts live heap bytes, so that a
//! benchmark can report what a data structure really costs (`bytes per entry`).
//!
//! Implementing [`GlobalAlloc`] needs `unsafe`, which every other StreamLab crate forbids.
//! Install it in a benchmark or test binary with
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: streamlab_testkit::alloc::Counting = streamlab_testkit::alloc::Counting;
//! ```
//!
//! and read [`live_bytes`] before and after building the structure. The counters are global
//! atomics with relaxed ordering: exact for single-threaded measurements, cheap enough that
//! the timing of the code around them barely moves.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static LIVE: AtomicUsize = AtomicUsize::new(0);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

/// The counting allocator. Requested sizes are counted (not the system allocator's rounding).
#[derive(Debug, Clone, Copy, Default)]
pub struct Counting;

fn grew(bytes: usize) {
    LIVE.fetch_add(bytes, Ordering::Relaxed);
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so the
// `GlobalAlloc` contract is exactly `System`'s; the counters are bookkeeping only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged; the caller upholds `alloc_zeroed`'s contract.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged; `ptr` was allocated by `System` through this wrapper.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged; `ptr` was allocated by `System` through this wrapper.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            shrank(layout.size());
            grew(new_size);
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        new
    }
}

/// Heap bytes currently allocated through [`Counting`].
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Allocations (and reallocations) made so far.
pub fn allocations() -> usize {
    ALLOCATIONS.load(Ordering::Relaxed)
}
