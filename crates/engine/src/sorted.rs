//! Sorted-vector maps and sets for collections that are small by nature (a stream's groups, a
//! group's consumers, a connection's subscriptions).
//!
//! Not std's `BTreeMap` for the reason in ARCHITECTURE.md, "Wasm budget". A sorted `Vec`
//! searched by bisection iterates in the same order as a `BTreeMap` (the keys' `Ord`), so
//! replies and pictures do not change, and each instantiation is a few small functions. Inserting or removing moves the tail of the vector: fine for the hundreds or
//! thousands of entries these collections hold, not for a keyspace, a stream's nodes or a PEL,
//! which are [`crate::ChunkMap`]s.

use std::borrow::Borrow;
use std::ops::Index;

/// A map kept as a vector of `(key, value)` pairs sorted by key, without duplicate keys.
/// Iteration is in key order, as a `BTreeMap`'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap { entries: Vec::new() }
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    /// An empty map.
    pub const fn new() -> Self {
        SortedMap { entries: Vec::new() }
    }

    /// A map of `pairs`; of pairs with the same key the last one counts, as when a
    /// `BTreeMap` is collected. Sorts once (through [`crate::sort`]) instead of inserting one
    /// by one.
    pub fn from_pairs(mut entries: Vec<(K, V)>) -> Self {
        crate::sort::sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
        // Stable sort: equal keys keep their order, so the one to keep is the last of each run.
        entries.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                std::mem::swap(&mut later.1, &mut kept.1);
            }
            same
        });
        SortedMap { entries }
    }

    /// Where `key` is (`Ok`) or would go (`Err`).
    fn search<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value under `key`.
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        // `get`, not `[at]`: `search` found it, and a bounds check in every instantiation is a
        // panic path the wasm bundles would carry for nothing.
        self.search(key).ok().and_then(|at| self.entries.get(at)).map(|(_, v)| v)
    }

    /// The value under `key`, for changes.
    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.search(key).ok().and_then(|at| self.entries.get_mut(at)).map(|(_, v)| v)
    }

    /// Whether `key` is in the map.
    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.search(key).is_ok()
    }

    /// Stores `value` under `key`; returns the value it replaced, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.search(&key) {
            Ok(at) => self.entries.get_mut(at).map(|(_, v)| std::mem::replace(v, value)),
            Err(at) => {
                self.entries.insert(at, (key, value));
                None
            }
        }
    }

    /// The stored key and the value under `key`, inserting `make()` under a key built from
    /// `key` first if it is missing (the owned key is only built then).
    pub fn get_or_insert_with<Q: Ord + ?Sized>(&mut self, key: &Q, make: impl FnOnce() -> V) -> (&K, &mut V)
    where
        K: Borrow<Q> + for<'q> From<&'q Q>,
    {
        let at = match self.search(key) {
            Ok(at) => at,
            Err(at) => {
                self.entries.insert(at, (K::from(key), make()));
                at
            }
        };
        let (k, v) = &mut self.entries[at];
        (k, v)
    }

    /// Removes `key`; returns its value, if it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.search(key).ok().map(|at| self.entries.remove(at).1)
    }

    /// Keeps only the entries for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// Removes every entry.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The entries, in key order.
    pub fn iter(&self) -> SortedMapIter<'_, K, V> {
        SortedMapIter(self.entries.iter())
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    /// The values, in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    /// The values, in key order, for changes.
    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }
}

/// `map[&key]`: the value under `key`; panics if it is missing, as a `BTreeMap` does.
impl<K: Ord + Borrow<Q>, V, Q: Ord + ?Sized> Index<&Q> for SortedMap<K, V> {
    type Output = V;

    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("key is in the map")
    }
}

/// A [`SortedMap`]'s entries in key order, as `(&key, &value)` like a `BTreeMap`'s.
#[derive(Debug, Clone)]
pub struct SortedMapIter<'a, K, V>(std::slice::Iter<'a, (K, V)>);

impl<'a, K, V> Iterator for SortedMapIter<'a, K, V> {
    type Item = (&'a K, &'a V);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<K, V> DoubleEndedIterator for SortedMapIter<'_, K, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl<K, V> ExactSizeIterator for SortedMapIter<'_, K, V> {}

impl<'a, K: Ord, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = SortedMapIter<'a, K, V>;

    fn into_iter(self) -> SortedMapIter<'a, K, V> {
        self.iter()
    }
}

/// A set kept as a sorted vector without duplicates: a [`SortedMap`] with no values.
/// Iteration is in order, as a `BTreeSet`'s.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortedSet<T>(SortedMap<T, ()>);

impl<T> Default for SortedSet<T> {
    fn default() -> Self {
        SortedSet(SortedMap::default())
    }
}

impl<T: Ord> SortedSet<T> {
    /// An empty set.
    pub const fn new() -> Self {
        SortedSet(SortedMap::new())
    }

    /// The number of items.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `item` is in the set.
    pub fn contains<Q: Ord + ?Sized>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.0.contains_key(item)
    }

    /// Adds `item`; returns whether it was new.
    pub fn insert(&mut self, item: T) -> bool {
        self.0.insert(item, ()).is_none()
    }

    /// Removes `item`; returns whether it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.0.remove(item).is_some()
    }

    /// Removes every item.
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Takes out the smallest items, as long as `pred` holds for them (`pred` must hold for a
    /// prefix of the items and for nothing after it, such as "at or before an instant" for
    /// items ordered by instant). Returns them in order.
    pub fn take_while(&mut self, mut pred: impl FnMut(&T) -> bool) -> Vec<T> {
        let end = self.0.entries.partition_point(|(item, _)| pred(item));
        self.0.entries.drain(..end).map(|(item, _)| item).collect()
    }

    /// The items, in order.
    pub fn iter(&self) -> SortedSetIter<'_, T> {
        SortedSetIter(self.0.entries.iter())
    }
}

/// A [`SortedSet`]'s items in order.
#[derive(Debug, Clone)]
pub struct SortedSetIter<'a, T>(std::slice::Iter<'a, (T, ())>);

impl<'a, T> Iterator for SortedSetIter<'a, T> {
    type Item = &'a T;

    fn next(&mut self) -> Option<&'a T> {
        self.0.next().map(|(item, _)| item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<T> DoubleEndedIterator for SortedSetIter<'_, T> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(item, _)| item)
    }
}

impl<T> ExactSizeIterator for SortedSetIter<'_, T> {}

impl<'a, T: Ord> IntoIterator for &'a SortedSet<T> {
    type Item = &'a T;
    type IntoIter = SortedSetIter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The items in order, by value.
impl<T> IntoIterator for SortedSet<T> {
    type Item = T;
    type IntoIter = std::iter::Map<std::vec::IntoIter<(T, ())>, fn((T, ())) -> T>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.entries.into_iter().map(|(item, _)| item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_pairs_sorts_and_keeps_the_last_of_a_key() {
        let map = SortedMap::from_pairs(vec![("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)]);
        let expected: std::collections::BTreeMap<_, _> = [("b", 1), ("a", 2), ("b", 3), ("c", 4), ("a", 5)].into();
        assert_eq!(map.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>(), expected.into_iter().collect::<Vec<_>>());
        assert!(SortedMap::<u8, u8>::from_pairs(Vec::new()).is_empty());
    }

    #[test]
    fn map_keeps_key_order_and_replaces_values() {
        let mut map = SortedMap::new();
        for (k, v) in [(b"b".to_vec(), 2), (b"c".to_vec(), 3), (b"a".to_vec(), 1)] {
            assert_eq!(map.insert(k, v), None);
        }
        assert_eq!(map.insert(b"b".to_vec(), 20), Some(2));
        let keys: Vec<&[u8]> = map.keys().map(Vec::as_slice).collect();
        assert_eq!(keys, [b"a", b"b", b"c"]);
        assert_eq!(map.get(b"b".as_slice()), Some(&20));
        assert_eq!(map[b"c".as_slice()], 3);
        assert_eq!(map.remove(b"a".as_slice()), Some(1));
        assert_eq!(map.remove(b"a".as_slice()), None);
        assert!(!map.contains_key(b"a".as_slice()));
        assert_eq!(map.len(), 2);
        map.retain(|_, v| *v > 5);
        assert_eq!(map.iter().collect::<Vec<_>>(), [(&b"b".to_vec(), &20)]);
    }

    #[test]
    fn get_or_insert_with_builds_the_key_only_when_missing() {
        let mut map: SortedMap<Vec<u8>, u32> = SortedMap::new();
        *map.get_or_insert_with(b"x".as_slice(), || 1).1 += 1;
        *map.get_or_insert_with(b"x".as_slice(), || 100).1 += 1;
        let (key, value) = map.get_or_insert_with(b"a".as_slice(), || 7);
        assert_eq!((key.as_slice(), *value), (b"a".as_slice(), 7));
        assert_eq!(map.values().copied().collect::<Vec<_>>(), [7, 3]);
    }

    #[test]
    fn set_matches_a_btree_set() {
        let mut set = SortedSet::new();
        let mut model = std::collections::BTreeSet::new();
        let mut x: u32 = 7;
        for _ in 0..500 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let item = (x >> 16) % 64;
            if x & 1 == 0 {
                assert_eq!(set.insert(item), model.insert(item));
            } else {
                assert_eq!(set.remove(&item), model.remove(&item));
            }
            assert_eq!(set.contains(&item), model.contains(&item));
        }
        assert!(set.iter().eq(model.iter()));
        assert_eq!(set.len(), model.len());
        let small: Vec<u32> = model.iter().copied().filter(|&i| i < 20).collect();
        assert_eq!(set.take_while(|&i| i < 20), small);
        assert!(set.iter().eq(model.iter().filter(|&&i| i >= 20)));
    }
}
