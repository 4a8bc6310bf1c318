//! Consumer groups: the delivery cursor, the pending entries list (PEL) and the consumers.
//!
//! Each pending entry is stored once, in the group's PEL, keyed by id; a consumer only keeps
//! the set of ids it owns. An entry released with XNACK (Redis 8.8) has no owner: its id sits
//! in the group's *nacked zone*, a FIFO list that claims serve before anything else.
//! [`Group::check_invariants`] verifies that the consumer sets and the nacked zone partition
//! the PEL exactly.

use std::sync::Arc;

use crate::chunked::{ChunkMap, ChunkSet};
use crate::id::StreamId;
use crate::sorted::{SortedMap, SortedSet};

/// A consumer's name; shared between the consumer table and the PEL records it owns.
pub type ConsumerName = Arc<[u8]>;

/// One pending (delivered, not yet acknowledged) entry of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The consumer that owns the entry now; `None` once XNACK released it (docs-only,
    /// unverified on a server).
    pub owner: Option<ConsumerName>,
    /// When it was last delivered (or claimed), in Unix milliseconds; 0 for a released entry.
    pub delivery_time: i64,
    /// How many times it has been delivered.
    pub delivery_count: u64,
}

/// A consumer of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consumer {
    /// The last time the consumer tried to read or claim, in Unix milliseconds.
    pub seen_time: i64,
    /// The last time a read or claim gave it an entry; `None` if that never happened.
    pub active_time: Option<i64>,
    pending: ChunkSet<StreamId>,
}

impl Consumer {
    /// A consumer seen at `now`, never active, owning nothing.
    fn new(now: i64) -> Consumer {
        Consumer { seen_time: now, active_time: None, pending: ChunkSet::new() }
    }

    /// The ids this consumer owns in the group PEL, in id order.
    pub fn pending(&self) -> &ChunkSet<StreamId> {
        &self.pending
    }
}

/// A consumer group of one stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The last id delivered to the group (`last-delivered-id`).
    pub last_id: StreamId,
    /// How many entries the group has read, when that is known (`entries-read`).
    pub entries_read: Option<u64>,
    pel: ChunkMap<StreamId, Pending>,
    consumers: SortedMap<ConsumerName, Consumer>,
    /// Released (XNACKed) ids, oldest release first: the head of the PEL's delivery order.
    nacked: Vec<StreamId>,
}

impl Pending {
    /// Whether `name` owns this entry.
    pub fn owned_by(&self, name: &[u8]) -> bool {
        self.owner.as_deref() == Some(name)
    }

    /// The owner's name, or the empty name XPENDING shows for a released entry.
    pub fn owner_name(&self) -> &[u8] {
        self.owner.as_deref().unwrap_or(b"")
    }
}

impl Group {
    /// A group positioned at `last_id` with no consumers and an empty PEL.
    pub fn new(last_id: StreamId, entries_read: Option<u64>) -> Group {
        Group { last_id, entries_read, pel: ChunkMap::new(), consumers: SortedMap::new(), nacked: Vec::new() }
    }

    /// The PEL, in id order.
    pub fn pel(&self) -> &ChunkMap<StreamId, Pending> {
        &self.pel
    }

    /// The released (XNACKed) ids, in release order.
    pub fn nacked(&self) -> &[StreamId] {
        &self.nacked
    }

    /// The consumers, by name in byte order.
    pub fn consumers(&self) -> &SortedMap<ConsumerName, Consumer> {
        &self.consumers
    }

    /// One consumer by name.
    pub fn consumer(&self, name: &[u8]) -> Option<&Consumer> {
        self.consumers.get(name)
    }

    /// Creates the consumer if it does not exist (seen now, never active). Returns whether it
    /// was created.
    pub fn create_consumer(&mut self, name: &[u8], now: i64) -> bool {
        if self.consumers.contains_key(name) {
            return false;
        }
        self.consumers.insert(Arc::from(name), Consumer::new(now));
        true
    }

    /// Creates the consumer if needed and records that it was seen now (every read or claim
    /// attempt does this, whether or not it gets anything). Returns the shared name.
    pub fn see_consumer(&mut self, name: &[u8], now: i64) -> ConsumerName {
        let (key, consumer) = self.consumers.get_or_insert_with(name, || Consumer::new(now));
        consumer.seen_time = now;
        key.clone()
    }

    /// Marks the consumer active now (it was given an entry).
    pub fn mark_active(&mut self, name: &[u8], now: i64) {
        if let Some(consumer) = self.consumers.get_mut(name) {
            consumer.active_time = Some(now);
        }
    }

    /// Deletes a consumer and the PEL entries it owns; returns how many it owned, or `None` if
    /// there was no such consumer.
    pub fn delete_consumer(&mut self, name: &[u8]) -> Option<usize> {
        let consumer = self.consumers.remove(name)?;
        for id in &consumer.pending {
            self.pel.remove(id);
        }
        Some(consumer.pending.len())
    }

    /// Gives `id` to `owner` (which must exist) with the given delivery time and count,
    /// taking it from its previous owner if it was pending already.
    pub fn assign(&mut self, id: StreamId, owner: &ConsumerName, delivery_time: i64, delivery_count: u64) {
        let record = Pending { owner: Some(owner.clone()), delivery_time, delivery_count };
        if let Some(previous) = self.pel.insert(id, record) {
            self.unlink(id, previous.owner.as_ref());
        }
        self.consumers.get_mut(owner).expect("owner exists").pending.insert(id);
    }

    /// Takes `id` out of its previous owner's index, or out of the nacked zone.
    fn unlink(&mut self, id: StreamId, owner: Option<&ConsumerName>) {
        match owner {
            Some(name) => {
                if let Some(old) = self.consumers.get_mut(name) {
                    old.pending.remove(&id);
                }
            }
            None => self.nacked.retain(|&n| n != id),
        }
    }

    /// XNACK (Redis 8.8, docs-only, unverified on a server): releases a pending entry. It
    /// loses its owner, its delivery time becomes 0 (so any claim takes it at once), its
    /// delivery count becomes `count`, and it joins the tail of the nacked zone. Returns false
    /// if `id` is not pending.
    pub fn release(&mut self, id: StreamId, count: impl FnOnce(u64) -> u64) -> bool {
        let Some(record) = self.pel.get(&id).cloned() else { return false };
        self.unlink(id, record.owner.as_ref());
        self.pel.insert(id, Pending { owner: None, delivery_time: 0, delivery_count: count(record.delivery_count) });
        self.nacked.push(id);
        true
    }

    /// XNACK ... FORCE for an id that is not pending: a new released record.
    pub fn release_new(&mut self, id: StreamId, delivery_count: u64) {
        if self.pel.contains_key(&id) {
            return;
        }
        self.pel.insert(id, Pending { owner: None, delivery_time: 0, delivery_count });
        self.nacked.push(id);
    }

    /// What XREADGROUP ... CLAIM (Redis 8.4, docs-only, unverified on a server) would take, in
    /// order: the nacked zone first (oldest release first), then the other pending entries
    /// idle for at least `min_idle` ms, longest idle first (ties by id).
    pub fn claim_order(&self, now: i64, min_idle: i64) -> Vec<StreamId> {
        let mut out: Vec<StreamId> = self.nacked.clone();
        let mut idle: Vec<(i64, StreamId)> = Vec::new();
        for (id, p) in self.pel.iter() {
            if p.owner.is_some() && now - p.delivery_time >= min_idle {
                idle.push((p.delivery_time, *id));
            }
        }
        crate::sort::sort(&mut idle);
        out.extend(idle.into_iter().map(|(_, id)| id));
        out
    }

    /// Records a redelivery of an entry to its own owner (a history read).
    pub fn redeliver(&mut self, id: StreamId, now: i64) {
        if let Some(pending) = self.pel.get_mut(&id) {
            pending.delivery_time = now;
            pending.delivery_count = pending.delivery_count.saturating_add(1);
        }
    }

    /// Removes `id` from the PEL (acknowledged, or its entry is gone). Returns whether it was
    /// pending.
    pub fn remove_pending(&mut self, id: StreamId) -> bool {
        match self.pel.remove(&id) {
            Some(pending) => {
                self.unlink(id, pending.owner.as_ref());
                true
            }
            None => false,
        }
    }

    /// Checks the bookkeeping invariants: every consumer index entry points back to its owner,
    /// the indexes partition the PEL, and the counts agree.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.pel.check_invariants().map_err(|e| format!("PEL: {e}"))?;
        let mut indexed = 0usize;
        for (name, consumer) in &self.consumers {
            consumer.pending.check_invariants().map_err(|e| format!("{}'s index: {e}", quoted(name)))?;
            for id in &consumer.pending {
                match self.pel.get(id) {
                    Some(p) if p.owned_by(name) => indexed += 1,
                    Some(p) => return Err(format!("{id} indexed by {} but owned by {}", quoted(name), owner_text(p))),
                    None => return Err(format!("{id} indexed by {} but not in the PEL", quoted(name))),
                }
            }
        }
        let mut released = SortedSet::new();
        for id in &self.nacked {
            if !released.insert(*id) {
                return Err(format!("{id} is in the nacked zone twice"));
            }
            match self.pel.get(id) {
                Some(p) if p.owner.is_none() && p.delivery_time == 0 => {}
                Some(p) => return Err(format!("{id} is in the nacked zone but owned by {}", owner_text(p))),
                None => return Err(format!("{id} is in the nacked zone but not in the PEL")),
            }
        }
        if indexed + released.len() != self.pel.len() {
            return Err(format!(
                "consumer indexes hold {indexed} ids and the nacked zone {}, the PEL {}",
                released.len(),
                self.pel.len()
            ));
        }
        for (id, pending) in &self.pel {
            if let Some(owner) = &pending.owner {
                if !self.consumers.contains_key(owner) {
                    return Err(format!("{id} is owned by missing consumer {}", quoted(owner)));
                }
            }
        }
        Ok(())
    }
}

/// A name or key in an invariant message, as quoted text. Not `{:?}`: on bytes that prints a
/// list of numbers, and Debug's string escaping costs ~3 KB of the gzipped wasm, whose lesson
/// validator reports these messages.
pub(crate) fn quoted(name: &[u8]) -> String {
    format!("\"{}\"", String::from_utf8_lossy(name))
}

/// An entry's owner in an invariant message: its quoted name, or `none` when released.
fn owner_text(pending: &Pending) -> String {
    pending.owner.as_deref().map_or_else(|| "none".to_owned(), quoted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ownership_moves_and_indexes_follow() {
        let mut group = Group::new(StreamId::MIN, Some(0));
        let alice = group.see_consumer(b"alice", 10);
        let bob = group.see_consumer(b"bob", 10);
        group.assign(StreamId::new(1, 0), &alice, 10, 1);
        group.assign(StreamId::new(2, 0), &alice, 10, 1);
        group.assign(StreamId::new(2, 0), &bob, 20, 2);
        group.check_invariants().unwrap();
        assert_eq!(group.consumer(b"alice").unwrap().pending().len(), 1);
        assert_eq!(group.pel()[&StreamId::new(2, 0)].owner, Some(bob));
        assert!(group.remove_pending(StreamId::new(1, 0)));
        assert!(!group.remove_pending(StreamId::new(1, 0)));
        assert_eq!(group.delete_consumer(b"bob"), Some(1));
        assert!(group.pel().is_empty());
        group.check_invariants().unwrap();
    }

    #[test]
    fn released_entries_form_a_fifo_zone_and_are_claimed_first() {
        let mut group = Group::new(StreamId::MIN, Some(0));
        let alice = group.see_consumer(b"alice", 0);
        for ms in 1..=4 {
            group.assign(StreamId::new(ms, 0), &alice, 100 * ms as i64, 1);
        }
        assert!(group.release(StreamId::new(3, 0), |c| c));
        assert!(group.release(StreamId::new(1, 0), |c| c - 1));
        assert!(!group.release(StreamId::new(9, 0), |c| c));
        group.check_invariants().unwrap();
        assert_eq!(group.pel()[&StreamId::new(1, 0)].delivery_count, 0);
        assert_eq!(group.consumer(b"alice").unwrap().pending().len(), 2);
        let order = group.claim_order(1000, 0);
        assert_eq!(order, [3, 1, 2, 4].map(|ms| StreamId::new(ms, 0)));
        // Claiming a released entry takes it out of the zone.
        group.assign(StreamId::new(3, 0), &alice, 1000, 2);
        assert_eq!(group.nacked().len(), 1);
        assert!(group.remove_pending(StreamId::new(1, 0)));
        assert!(group.nacked().is_empty());
        group.check_invariants().unwrap();
    }
}
