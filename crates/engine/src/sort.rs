//! Sorting with one copy of the sorting code.
//!
//! The standard library's `slice::sort*` are generic: every element type and comparator gets
//! its own copy of driftsort or ipnsort (ARCHITECTURE.md, "Wasm budget"). Here the sorting
//! itself is one non-generic function that orders indexes through a `dyn` comparator; the
//! only generic part is the few swaps that move the elements into that order. The crates that
//! ship in wasm sort through this module outside their tests (`cargo xtask lint` checks);
//! native-only tools (CLI, difftest, xtask) keep the standard library's sorts.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, stably: elements that compare equal keep their order.
pub fn sort_by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    // `get`, not indexing: the indexes are in range, and a bounds check in every
    // instantiation is a panic path for nothing.
    let mut order = order(items.len(), &mut |a, b| match (items.get(a), items.get(b)) {
        (Some(a), Some(b)) => compare(a, b),
        _ => Ordering::Equal,
    });
    permute(items, &mut order);
}

/// Sorts `items` by the key `key` gives each, stably.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` in their natural order, stably.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// The indexes `0..len` in the order `compare` (which compares the elements at two indexes)
/// puts them in, equal elements in index order. A bottom-up merge sort: O(n log n)
/// comparisons on any input (a pending-entries list can hold a hundred thousand entries),
/// little code, and stable by construction.
fn order(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut merged = vec![0; len];
    let mut width = 1;
    while width < len {
        // Merge each pair of neighbouring sorted runs of `width` into `merged`.
        for start in (0..len).step_by(2 * width) {
            let middle = (start + width).min(len);
            let end = (start + 2 * width).min(len);
            let (mut left, mut right) = (start, middle);
            for slot in &mut merged[start..end] {
                // The left run wins ties: that keeps equal elements in their order.
                let take_left =
                    right == end || (left < middle && compare(order[left], order[right]) != Ordering::Greater);
                if take_left {
                    *slot = order[left];
                    left += 1;
                } else {
                    *slot = order[right];
                    right += 1;
                }
            }
        }
        std::mem::swap(&mut order, &mut merged);
        width *= 2;
    }
    order
}

/// Moves `items` into `order` (`order[k]` is the index of the element that goes to `k`), by
/// following each cycle of the permutation with swaps. `order` is used up: every visited
/// position is marked as already in place.
fn permute<T>(items: &mut [T], order: &mut [usize]) {
    // Both are `len` long and `order` holds indexes below it; the bound lets the compiler
    // drop the bounds checks (panic paths in every instantiation).
    let len = items.len().min(order.len());
    for start in 0..len {
        let mut at = start;
        while at < len {
            let from = std::mem::replace(&mut order[at], at);
            if from == start || from >= len {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamlab_testkit::rng::Rng;

    #[test]
    fn sorts_like_the_standard_stable_sort() {
        for (count, modulo) in
            [(0, 1), (1, 5), (2, 5), (3, 2), (7, 3), (64, 1000), (100, 4), (1000, 50), (1025, 1 << 40)]
        {
            // (key, original position): a stable sort by key keeps positions ascending among
            // equal keys, which the standard library's stable sort gives too.
            let mut rng = Rng::new(count as u64);
            let items: Vec<(u64, usize)> = (0..count).map(|i| (rng.below(modulo), i)).collect();
            let mut ours = items.clone();
            sort_by_key(&mut ours, |&(key, _)| key);
            let mut theirs = items.clone();
            theirs.sort_by_key(|&(key, _)| key);
            assert_eq!(ours, theirs, "{count} items modulo {modulo}");
        }
    }

    #[test]
    fn sorts_sorted_reversed_and_strings() {
        let mut up: Vec<u32> = (0..300).collect();
        sort(&mut up);
        assert_eq!(up, (0..300).collect::<Vec<_>>());
        let mut down: Vec<u32> = (0..300).rev().collect();
        sort(&mut down);
        assert_eq!(down, up);
        let mut words = vec!["xadd", "XACK", "xack", "", "b", "a"];
        sort(&mut words);
        assert_eq!(words, ["", "XACK", "a", "b", "xack", "xadd"]);
        sort_by(&mut words, |a, b| b.cmp(a));
        assert_eq!(words, ["xadd", "xack", "b", "a", "XACK", ""]);
    }

    #[test]
    fn order_names_the_positions_in_sorted_order() {
        let values = [30, 10, 20, 10];
        assert_eq!(order(values.len(), &mut |a, b| values[a].cmp(&values[b])), [1, 3, 2, 0]);
        assert_eq!(order(0, &mut |_, _| unreachable!()), Vec::<usize>::new());
    }
}
