//! The regression guard for a session's cost: counted allocations and live heap bytes, not
//! time, so it does not depend on how fast or loaded the machine is. A console line is run
//! N and 4N times; what one step costs (allocations, bytes kept) must not grow with N, and
//! undoing or seeking at the end must cost about the same at both lengths. A history whose
//! checkpoints copied the session, or spaced out with its size, fails here.
//!
//! One test in its own binary: the counting allocator is global, so nothing may allocate
//! beside it.

use streamlab_protocol::{Clock, Console, Keep, Session, VIRTUAL_EPOCH_MS};
use streamlab_testkit::alloc::{allocations, live_bytes, Counting};

#[global_allocator]
static ALLOC: Counting = Counting;

const LINE: &str = "XADD s * type order-created orderId 7 isbn 9780441013593 quantity 2";

/// What a session of `steps` lines cost, per step, and what one undo and two seeks at its end
/// allocated.
#[derive(Debug)]
struct Cost {
    allocations_per_step: f64,
    bytes_per_step: f64,
    undo_allocations: usize,
    seek_allocations: usize,
}

fn measure(steps: usize, keep: Option<Keep>) -> Cost {
    let (allocs, live) = (allocations(), live_bytes());
    let mut console = Console::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    if let Some(keep) = keep {
        console = console.keeping(keep);
    }
    for _ in 0..steps {
        console.run(LINE);
    }
    let allocations_per_step = (allocations() - allocs) as f64 / steps as f64;
    let bytes_per_step = (live_bytes() - live) as f64 / steps as f64;
    let before = allocations();
    assert!(console.undo());
    let undo_allocations = allocations() - before;
    let kept = console.timeline().records().len();
    let before = allocations();
    // Back to the middle of what is kept, then to its end again.
    console.seek(kept / 2);
    console.seek(kept);
    let seek_allocations = allocations() - before;
    Cost { allocations_per_step, bytes_per_step, undo_allocations, seek_allocations }
}

/// The engine alone: the same lines straight into a session, no history.
fn engine_bytes_per_step(steps: usize) -> f64 {
    let live = live_bytes();
    let mut session = Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS));
    let args: Vec<Vec<u8>> = LINE.split(' ').map(|a| a.as_bytes().to_vec()).collect();
    for _ in 0..steps {
        session.execute(1, args.clone());
    }
    (live_bytes() - live) as f64 / steps as f64
}

#[test]
fn a_step_costs_the_same_at_any_history_length() {
    let (small, large) = (5_000, 20_000);
    for keep in [None, Some(Keep::Last(1_000))] {
        let a = measure(small, keep);
        let b = measure(large, keep);
        let context = format!("{keep:?}: {small} steps {a:?}, {large} steps {b:?}");
        assert!(b.allocations_per_step <= 1.1 * a.allocations_per_step, "allocations per step grew: {context}");
        assert!(b.bytes_per_step <= 1.1 * a.bytes_per_step, "bytes per step grew: {context}");
        // Undo and seek replay from the checkpoint before them: as far at both lengths.
        assert!(b.undo_allocations <= 2 * a.undo_allocations.max(200), "undo grew: {context}");
        assert!(b.seek_allocations <= 2 * a.seek_allocations.max(200), "seek grew: {context}");
    }
    // A bounded history holds the session and a window: at the larger size, its bytes per step
    // are close to the engine's own (the window's records spread over many steps).
    let engine = engine_bytes_per_step(large);
    let bounded = measure(large, Some(Keep::Last(1_000))).bytes_per_step;
    assert!(bounded <= 3.0 * engine, "bounded history {bounded:.0} B/step, engine {engine:.0} B/step");
}
