//! Ordered maps and sets for collections that can grow large: the keyspace, a stream's
//! nodes, a group's PEL and a consumer's share of it.
//!
//! A [`ChunkMap`] is a sorted sequence cut into chunks of at most [`CHUNK`] entries, each a
//! sorted `Vec`, the chunks themselves kept in order in an outer `Vec`. Finding a key is two
//! bisections (the chunk by its last key, then the entry inside it); inserting or removing
//! moves at most a chunk's worth of entries, and splits or merges a chunk once every
//! `CHUNK / 2` or so operations, moving the outer vector's small headers. That keeps every
//! operation near O(log n) for the sizes a playground or a small server sees (a million
//! entries is about 16,000 chunks), as a B-tree would.
//!
//! Why not `std::collections::BTreeMap`: each instantiation brings its own copy of the B-tree's
//! code (ARCHITECTURE.md, "Wasm budget"); a chunk map's is a few short functions.
//! Iteration order is the keys' `Ord`, as a `BTreeMap`'s, so replies do not change.
//!
//! Appending past the last key (how streams, their PELs and consumers' indexes grow) starts a
//! new chunk when the last one is full instead of splitting it, so such maps stay packed.
//!
//! Chunks are shared between copies: cloning a map copies only the outer vector (a pointer
//! per chunk), and a change copies the one chunk it touches if another copy still holds it.
//! So the undo history's checkpoints (whole-session copies) cost a pointer per 64 entries
//! plus the chunks changed since, not the data. `Arc` rather than `Rc`: the server moves its
//! session to its event-loop thread.

use std::borrow::Borrow;
use std::ops::{Bound, Index, RangeBounds};
use std::sync::Arc;

/// The most entries a chunk holds. Small enough that inserting or removing at the front of a
/// chunk (acks come oldest first) moves little, large enough that the outer vector of chunk
/// headers stays short.
pub(crate) const CHUNK: usize = 64;

/// An ordered map, iterated in key order like a `BTreeMap`, kept as sorted chunks of at most
/// 64 entries: O(log n) to find a key, at most a chunk's worth of entries moved to change one.
///
/// Invariants: no chunk is empty; keys strictly increase across and within chunks; `len` is
/// the sum of the chunks' lengths.
#[derive(Debug, Clone)]
pub struct ChunkMap<K, V> {
    chunks: Vec<Arc<Vec<(K, V)>>>,
    len: usize,
}

impl<K, V> Default for ChunkMap<K, V> {
    fn default() -> Self {
        ChunkMap { chunks: Vec::new(), len: 0 }
    }
}

/// Two maps are equal when they hold the same entries in the same order, however those are
/// split into chunks.
impl<K: PartialEq, V: PartialEq> PartialEq for ChunkMap<K, V> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self.chunks.iter().flat_map(|c| c.iter()).eq(other.chunks.iter().flat_map(|c| c.iter()))
    }
}

impl<K: Eq, V: Eq> Eq for ChunkMap<K, V> {}

/// Where an entry is: chunk index and index inside the chunk. `(chunks.len(), 0)` is the end;
/// every other position has an index inside its chunk, so two positions of the same place are
/// equal and positions compare in key order.
type Pos = (usize, usize);

impl<K: Ord, V> ChunkMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        ChunkMap { chunks: Vec::new(), len: 0 }
    }

    /// The first position whose key is not before `key` (`inclusive`) or after it.
    fn seek<Q: Ord + ?Sized>(&self, key: &Q, inclusive: bool) -> Pos
    where
        K: Borrow<Q>,
    {
        let before = |k: &K| if inclusive { k.borrow() < key } else { k.borrow() <= key };
        // Chunks are never empty, so each has a last entry.
        let at = self.chunks.partition_point(|chunk| chunk.last().is_some_and(|(k, _)| before(k)));
        match self.chunks.get(at) {
            Some(chunk) => (at, chunk.partition_point(|(k, _)| before(k))),
            None => (self.chunks.len(), 0),
        }
    }

    /// The position of `key`, if it is in the map.
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Option<Pos>
    where
        K: Borrow<Q>,
    {
        let (at, i) = self.seek(key, true);
        let (k, _) = self.chunks.get(at)?.get(i)?;
        (k.borrow() == key).then_some((at, i))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many chunks hold the entries: what a copy of the map costs (a pointer each).
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// The value under `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        // `get`, not indexing: `find` found it (see `SortedMap::get`).
        self.find(key).and_then(|(at, i)| self.chunks.get(at)?.get(i)).map(|(_, v)| v)
    }

    /// Whether `key` is in the map.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_some()
    }

    /// The entry with the smallest key.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.chunks.first().and_then(|chunk| chunk.first()).map(|(k, v)| (k, v))
    }

    /// The entry with the largest key.
    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.chunks.last().and_then(|chunk| chunk.last()).map(|(k, v)| (k, v))
    }

    /// The entries whose keys fall in `range`, in key order. An empty or inverted range
    /// yields nothing (where a `BTreeMap` would panic on an inverted one).
    pub fn range<Q: Ord + ?Sized, R: RangeBounds<Q>>(&self, range: R) -> ChunkRange<'_, K, V>
    where
        K: Borrow<Q>,
    {
        let front = match range.start_bound() {
            Bound::Included(k) => self.seek(k, true),
            Bound::Excluded(k) => self.seek(k, false),
            Bound::Unbounded => (0, 0),
        };
        let back = match range.end_bound() {
            Bound::Included(k) => self.seek(k, false),
            Bound::Excluded(k) => self.seek(k, true),
            Bound::Unbounded => (self.chunks.len(), 0),
        };
        ChunkRange { chunks: &self.chunks, front, back: back.max(front) }
    }

    /// The entries, in key order.
    pub fn iter(&self) -> ChunkRange<'_, K, V> {
        ChunkRange { chunks: &self.chunks, front: (0, 0), back: (self.chunks.len(), 0) }
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    /// The values, in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }

    /// Checks the structure's invariants; for tests of the collections built on it.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut previous: Option<&K> = None;
        let mut counted = 0;
        for chunk in &self.chunks {
            if chunk.is_empty() || chunk.len() > CHUNK {
                return Err(format!("a chunk of {} entries", chunk.len()));
            }
            for (k, _) in chunk.iter() {
                if previous.is_some_and(|p| p >= k) {
                    return Err("keys out of order".to_owned());
                }
                previous = Some(k);
            }
            counted += chunk.len();
        }
        if counted != self.len {
            return Err(format!("len {} but {counted} entries", self.len));
        }
        Ok(())
    }
}

/// Changes: each copies the chunk it touches first if another copy of the map shares it.
impl<K: Ord + Clone, V: Clone> ChunkMap<K, V> {
    /// The value under `key`, for changes.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let (at, i) = self.find(key)?;
        self.chunk_mut(at)?.get_mut(i).map(|(_, v)| v)
    }

    /// Chunk `at`, for changes: copied first if another copy of the map shares it.
    fn chunk_mut(&mut self, at: usize) -> Option<&mut Vec<(K, V)>> {
        self.chunks.get_mut(at).map(unshare)
    }

    /// Stores `value` under `key`; returns the value it replaced, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let (mut at, mut i) = self.seek(&key, true);
        if self.chunks.get(at).and_then(|chunk| chunk.get(i)).is_some_and(|(k, _)| *k == key) {
            let (_, v) = self.chunk_mut(at)?.get_mut(i)?;
            return Some(std::mem::replace(v, value));
        }
        self.len += 1;
        if at == self.chunks.len() {
            // Past the last key: onto the last chunk while it has room, else a new chunk.
            match self.chunks.last_mut() {
                Some(last) if last.len() < CHUNK => unshare(last).push((key, value)),
                _ => self.chunks.push(Arc::new(vec![(key, value)])),
            }
            return None;
        }
        if self.chunks[at].len() == CHUNK {
            let tail = unshare(&mut self.chunks[at]).split_off(CHUNK / 2);
            self.chunks.insert(at + 1, Arc::new(tail));
            if i > CHUNK / 2 {
                at += 1;
                i -= CHUNK / 2;
            }
        }
        unshare(&mut self.chunks[at]).insert(i, (key, value));
        None
    }

    /// The value under `key`, inserting `make()` under a key built from `key` first if it is
    /// missing (the owned key is only built then).
    pub fn get_or_insert_with<Q: Ord + ?Sized>(&mut self, key: &Q, make: impl FnOnce() -> V) -> &mut V
    where
        K: Borrow<Q> + for<'q> From<&'q Q>,
    {
        // One search when the key is there (every XADD to an existing stream comes here).
        let (at, i) = match self.find(key) {
            Some(found) => found,
            None => {
                self.insert(K::from(key), make());
                self.find(key).expect("the key was just inserted")
            }
        };
        &mut unshare(&mut self.chunks[at])[i].1
    }

    /// Removes `key`; returns its value, if it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let (at, i) = self.find(key)?;
        Some(self.remove_at(at, i).1)
    }

    /// Removes the entry at a valid position, and mends the chunk it leaves: an empty chunk
    /// goes, a chunk under a quarter full joins a neighbour that has room for it.
    fn remove_at(&mut self, at: usize, i: usize) -> (K, V) {
        let chunk = unshare(&mut self.chunks[at]);
        let entry = chunk.remove(i);
        let left = chunk.len();
        self.len -= 1;
        if left == 0 {
            self.chunks.remove(at);
        } else if left < CHUNK / 4 {
            // Into the next chunk's place if they fit together, else into the previous one's.
            let fits = |other: Option<&Arc<Vec<(K, V)>>>| other.is_some_and(|c| left + c.len() <= CHUNK);
            let first = if fits(self.chunks.get(at + 1)) {
                Some(at)
            } else if at > 0 && fits(self.chunks.get(at - 1)) {
                Some(at - 1)
            } else {
                None
            };
            if let Some(first) = first {
                let mut second = self.chunks.remove(first + 1);
                let moved = std::mem::take(unshare(&mut second));
                unshare(&mut self.chunks[first]).extend(moved);
            }
        }
        entry
    }

    /// The value under the largest key, for changes.
    pub fn last_value_mut(&mut self) -> Option<&mut V> {
        self.chunks.last_mut().map(unshare).and_then(|chunk| chunk.last_mut()).map(|(_, v)| v)
    }
}

/// The value behind `arc`, for changes: copied first if another copy shares it. `Arc::make_mut`
/// does the same but also handles weak pointers, which nothing here makes: this is half its
/// code in each of the engine's instantiations (the browser bundles' budgets count it), and it
/// stays out of line: inlined at each change of each map it was several KB of the bundles.
#[inline(never)]
pub(crate) fn unshare<T: Clone>(arc: &mut Arc<T>) -> &mut T {
    if Arc::get_mut(arc).is_none() {
        *arc = Arc::new(T::clone(arc));
    }
    match Arc::get_mut(arc) {
        Some(value) => value,
        None => unreachable!("a fresh Arc is not shared"),
    }
}

/// `map[&key]`: the value under `key`; panics if it is missing, as a `BTreeMap` does.
impl<K: Ord + Borrow<Q>, V, Q: Ord + ?Sized> Index<&Q> for ChunkMap<K, V> {
    type Output = V;

    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("key is in the map")
    }
}

impl<'a, K: Ord, V> IntoIterator for &'a ChunkMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = ChunkRange<'a, K, V>;

    fn into_iter(self) -> ChunkRange<'a, K, V> {
        self.iter()
    }
}

/// Entries of a [`ChunkMap`] between two positions, in key order from either end, as
/// `(&key, &value)` like a `BTreeMap`'s.
#[derive(Debug)]
pub struct ChunkRange<'a, K, V> {
    chunks: &'a [Arc<Vec<(K, V)>>],
    front: Pos,
    back: Pos,
}

impl<K, V> Clone for ChunkRange<'_, K, V> {
    fn clone(&self) -> Self {
        ChunkRange { chunks: self.chunks, front: self.front, back: self.back }
    }
}

impl<'a, K, V> Iterator for ChunkRange<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        let (at, i) = self.front;
        // `get`, not indexing: positions before `back` are entries, and a bounds check in
        // every instantiation is a panic path the wasm bundles would carry for nothing.
        let chunk = self.chunks.get(at)?;
        self.front = if i + 1 < chunk.len() { (at, i + 1) } else { (at + 1, 0) };
        let (k, v) = chunk.get(i)?;
        Some((k, v))
    }
}

impl<K, V> DoubleEndedIterator for ChunkRange<'_, K, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        let (at, i) = self.back;
        self.back = match i.checked_sub(1) {
            Some(i) => (at, i),
            None => {
                let at = at.checked_sub(1)?;
                (at, self.chunks.get(at)?.len().checked_sub(1)?)
            }
        };
        let (k, v) = self.chunks.get(self.back.0)?.get(self.back.1)?;
        Some((k, v))
    }
}

/// An ordered set: a [`ChunkMap`] with no values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChunkSet<T>(ChunkMap<T, ()>);

impl<T: Ord + Clone> ChunkSet<T> {
    /// An empty set.
    pub const fn new() -> Self {
        ChunkSet(ChunkMap::new())
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many chunks hold the items (see [`ChunkMap::chunk_count`]).
    pub fn chunk_count(&self) -> usize {
        self.0.chunk_count()
    }

    /// Whether `item` is in the set.
    pub fn contains(&self, item: &T) -> bool {
        self.0.contains_key(item)
    }

    /// Adds `item`; returns whether it was new.
    pub fn insert(&mut self, item: T) -> bool {
        self.0.insert(item, ()).is_none()
    }

    /// Removes `item`; returns whether it was there.
    pub fn remove(&mut self, item: &T) -> bool {
        self.0.remove(item).is_some()
    }

    /// The items in `range`, in order.
    pub fn range<R: RangeBounds<T>>(&self, range: R) -> impl DoubleEndedIterator<Item = &T> {
        self.0.range(range).map(|(k, _)| k)
    }

    /// The items, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> {
        self.0.keys()
    }

    /// Checks the structure's invariants (see [`ChunkMap::check_invariants`]).
    pub fn check_invariants(&self) -> Result<(), String> {
        self.0.check_invariants()
    }
}

impl<'a, T: Ord> IntoIterator for &'a ChunkSet<T> {
    type Item = &'a T;
    type IntoIter = std::iter::Map<ChunkRange<'a, T, ()>, fn((&'a T, &'a ())) -> &'a T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A small deterministic generator, so failures replay.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, below: u64) -> u64 {
            self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % below
        }
    }

    fn same<K: Ord + Copy + std::fmt::Debug, V: PartialEq + Copy + std::fmt::Debug>(
        map: &ChunkMap<K, V>,
        model: &BTreeMap<K, V>,
    ) {
        map.check_invariants().unwrap();
        assert_eq!(map.len(), model.len());
        assert!(map.iter().eq(model.iter()));
        assert!(map.iter().rev().eq(model.iter().rev()));
        assert_eq!(map.first_key_value(), model.first_key_value());
        assert_eq!(map.last_key_value(), model.last_key_value());
    }

    #[test]
    fn random_operations_match_a_btree_map() {
        for (seed, keys) in [(1, 10), (2, 300), (3, 5000)] {
            let mut rng = Lcg(seed);
            let mut map = ChunkMap::new();
            let mut model = BTreeMap::new();
            for step in 0..20_000u64 {
                let key = rng.next(keys);
                match rng.next(10) {
                    0..=4 => assert_eq!(map.insert(key, step), model.insert(key, step)),
                    5..=7 => assert_eq!(map.remove(&key), model.remove(&key)),
                    8 => {
                        let first = map.first_key_value().map(|(k, _)| *k);
                        assert_eq!(first.and_then(|k| Some((k, map.remove(&k)?))), model.pop_first());
                    }
                    _ => {
                        let end = key + rng.next(keys / 4 + 1);
                        assert!(map.range(key..=end).eq(model.range(key..=end)));
                        assert!(map.range(key..end).rev().eq(model.range(key..end).rev()));
                        assert!(map.range((Bound::Excluded(key), Bound::Unbounded)).eq(model.range(key + 1..)));
                        assert!(map.range(..key).rev().eq(model.range(..key).rev()));
                    }
                }
                assert_eq!(map.get(&key), model.get(&key));
                if step % 997 == 0 {
                    same(&map, &model);
                }
            }
            same(&map, &model);
        }
    }

    #[test]
    fn appending_keeps_chunks_full_and_front_removal_merges() {
        let mut map = ChunkMap::new();
        for i in 0..10 * CHUNK as u32 {
            map.insert(i, ());
        }
        assert_eq!(map.chunks.len(), 10);
        assert!(map.chunks.iter().all(|chunk| chunk.len() == CHUNK));
        // Acking oldest first empties chunks one by one.
        for i in 0..5 * CHUNK as u32 {
            assert_eq!(map.first_key_value(), Some((&i, &())));
            assert_eq!(map.remove(&i), Some(()));
        }
        assert_eq!(map.chunks.len(), 5);
        // Removing most of every chunk from the middle merges neighbours back together.
        for i in (5 * CHUNK as u32..10 * CHUNK as u32).filter(|i| i % 8 != 0) {
            map.remove(&i);
        }
        map.check_invariants().unwrap();
        assert!(map.chunks.len() < 5, "{} chunks", map.chunks.len());
        assert_eq!(map.len(), 5 * CHUNK / 8);
    }

    #[test]
    fn ranges_do_not_cross_and_equality_ignores_chunking() {
        let mut a = ChunkMap::new();
        let mut b = ChunkMap::new();
        for i in 0..200u32 {
            a.insert(i, i);
            b.insert(199 - i, 199 - i);
        }
        assert_eq!(a, b);
        assert_ne!(a.chunks.len(), b.chunks.len());
        assert_eq!(a.range(50..50).count(), 0);
        #[expect(clippy::reversed_empty_ranges, reason = "an inverted range is the case under test")]
        let inverted = a.range(60..40).count();
        assert_eq!(inverted, 0);
        let mut both = a.range(10..20);
        assert_eq!(both.next(), Some((&10, &10)));
        assert_eq!(both.next_back(), Some((&19, &19)));
        assert_eq!(both.count(), 8);
        assert_eq!(a[&7], 7);
        a.insert(7, 70);
        assert_ne!(a, b);
    }

    #[test]
    fn byte_string_keys_are_found_by_slice() {
        let mut map: ChunkMap<Vec<u8>, u8> = ChunkMap::new();
        for (i, key) in [b"b".as_slice(), b"a", b"c"].into_iter().enumerate() {
            map.insert(key.to_vec(), i as u8);
        }
        assert_eq!(map.get(b"a".as_slice()), Some(&1));
        let after_a: Vec<&[u8]> = map
            .range::<[u8], _>((Bound::Excluded(b"a".as_slice()), Bound::Unbounded))
            .map(|(k, _)| k.as_slice())
            .collect();
        assert_eq!(after_a, [b"b", b"c"]);
        *map.get_or_insert_with(b"a".as_slice(), || 100) += 10;
        *map.get_or_insert_with(b"ab".as_slice(), || 100) += 10;
        let all: Vec<(&[u8], u8)> = map.iter().map(|(k, v)| (k.as_slice(), *v)).collect();
        assert_eq!(all, [(b"a".as_slice(), 11), (b"ab", 110), (b"b", 0), (b"c", 2)]);
    }

    #[test]
    fn set_operations() {
        let mut set = ChunkSet::new();
        assert!(set.insert(3) && set.insert(1) && !set.insert(3));
        assert!(set.contains(&1) && !set.contains(&2));
        assert_eq!(set.iter().next_back(), Some(&3));
        assert_eq!(set.range(2..).collect::<Vec<_>>(), [&3]);
        assert!(set.remove(&1) && !set.remove(&1));
        assert_eq!(set.iter().collect::<Vec<_>>(), [&3]);
        assert_eq!(set.len(), 1);
    }
}
