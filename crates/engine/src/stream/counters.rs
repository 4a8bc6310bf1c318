//! Group cursors and their counters: creating and moving groups, entries-read and lag under
//! each server's rules (`CounterRules`), and the ACKED policy's cached minimum of the groups'
//! last-delivered ids.

use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use super::Stream;
use crate::group::Group;
use crate::id::StreamId;

/// Which server's rules keep a group's `entries-read` counter and compute its `lag`. The
/// servers disagree (each variant was observed on the server it names):
///
/// * Redis 8.2+: a tombstone test without the first-entry shortcut, an estimate that gives up
///   below `max-deleted-entry-id`, the read counter re-estimated when the group was behind the
///   first entry, ENTRIESREAD clamped to `entries-added`, and lag 0 for an empty stream and
///   the stream's length for a group behind its first entry.
/// * Redis 7.4: the tombstone test ignores tombstones before the first entry, the estimate
///   has no `max-deleted-entry-id` rule, delivery counts on from the delivered id (so a trim
///   ahead of the group leaves the counter behind), ENTRIESREAD is stored verbatim and lag may
///   be negative; no empty-stream or behind-the-first-entry rules.
/// * Valkey 9: Redis 8.2's tombstone test, estimate and delivery rule, but ENTRIESREAD verbatim
///   and no empty-stream or behind-the-first-entry lag rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CounterRules {
    /// Redis 7.4.
    Redis74,
    /// Redis 8.2 and later.
    #[default]
    Redis82,
    /// Valkey 9.
    Valkey9,
}

/// The ACKED cache's cell: filled and cleared through `&self` (it is a cache, not content).
/// Atomics rather than a `Cell`: a session, streams and all, moves to the server's event-loop
/// thread, and undo checkpoints share streams through `Arc`s, which needs `Sync`. Only one
/// thread ever touches a session, so relaxed loads and stores are exact (and on wasm they are
/// plain ones; a mutex here cost the bundles most of a KB).
#[derive(Debug, Default)]
pub(super) struct FloorCache {
    known: AtomicBool,
    ms: AtomicU64,
    seq: AtomicU64,
}

impl FloorCache {
    fn get(&self) -> Option<StreamId> {
        let id = StreamId { ms: self.ms.load(Relaxed), seq: self.seq.load(Relaxed) };
        self.known.load(Relaxed).then_some(id)
    }

    fn set(&self, floor: Option<StreamId>) {
        if let Some(id) = floor {
            self.ms.store(id.ms, Relaxed);
            self.seq.store(id.seq, Relaxed);
        }
        self.known.store(floor.is_some(), Relaxed);
    }
}

impl Clone for FloorCache {
    fn clone(&self) -> FloorCache {
        let copy = FloorCache::default();
        copy.set(self.get());
        copy
    }
}

impl Stream {
    /// ENTRIESREAD as stored: clamped to entries-added by Redis 8.2, verbatim elsewhere.
    fn clamp_entries_read(&self, entries_read: Option<u64>) -> Option<u64> {
        match self.rules {
            CounterRules::Redis82 => entries_read.map(|n| n.min(self.entries_added)),
            CounterRules::Redis74 | CounterRules::Valkey9 => entries_read,
        }
    }

    /// Creates a group; returns false if one with that name exists. An `entries_read` larger
    /// than entries-added is clamped, as Redis 8.2 does (not 7.4 or Valkey).
    pub fn create_group(&mut self, name: &[u8], last_id: StreamId, entries_read: Option<u64>) -> bool {
        if self.groups.contains_key(name) {
            return false;
        }
        let entries_read = self.clamp_entries_read(entries_read);
        self.groups.insert(name.to_vec(), Group::new(last_id, entries_read));
        self.group_moved(None, last_id);
        true
    }

    /// XGROUP SETID: repositions a group, leaving its PEL alone.
    pub fn set_group_id(&mut self, name: &[u8], last_id: StreamId, entries_read: Option<u64>) -> bool {
        let entries_read = self.clamp_entries_read(entries_read);
        match self.groups.get_mut(name) {
            Some(group) => {
                let old = group.last_id;
                group.last_id = last_id;
                group.entries_read = entries_read;
                self.group_moved(Some(old), last_id);
                true
            }
            None => false,
        }
    }

    /// Destroys a group; returns whether it existed.
    pub fn destroy_group(&mut self, name: &[u8]) -> bool {
        self.groups.remove(name).is_some()
    }

    /// Whether a tombstone may lie at or after `from` (Redis's cheap conservative test).
    fn tombstones_from(&self, from: StreamId) -> bool {
        // Redis 7.4 also knows that a tombstone before the first entry is not in the way.
        let before_first = self.rules == CounterRules::Redis74 && self.first_id > self.max_deleted;
        self.length > 0 && !self.max_deleted.is_zero() && !before_first && from <= self.max_deleted
    }

    /// How many entries precede and include `id` in the stream's history, when that can be
    /// known without counting (Redis's estimate of a read counter).
    pub fn estimate_entries_read(&self, id: StreamId) -> Option<u64> {
        if self.entries_added == 0 {
            return Some(0);
        }
        if self.length == 0 && id <= self.last_id {
            return Some(self.entries_added);
        }
        if self.rules != CounterRules::Redis74 && !id.is_zero() && id < self.max_deleted {
            return None;
        }
        if id == self.last_id {
            return Some(self.entries_added);
        }
        if id > self.last_id {
            return None;
        }
        if self.max_deleted.is_zero() || self.max_deleted < self.first_id {
            if id < self.first_id {
                return Some(self.entries_added - self.length);
            }
            if id == self.first_id {
                return Some(self.entries_added - self.length + 1);
            }
        }
        None
    }

    /// A group's lag: entries in the stream it has not read yet, or `None` when tombstones
    /// make that unknowable. It is a plain difference of counters, so a group whose
    /// entries-read was set too high (XGROUP SETID ... ENTRIESREAD) shows a negative lag, as
    /// Redis 8.2.3 does; under Redis 7.4 and Valkey rules a verbatim ENTRIESREAD can too.
    pub fn lag(&self, group: &Group) -> Option<i64> {
        if self.entries_added == 0 {
            return Some(0);
        }
        if self.rules == CounterRules::Redis82 {
            if self.length == 0 {
                return Some(0);
            }
            if group.last_id < self.first_id && self.max_deleted < self.first_id {
                return Some(self.length as i64);
            }
        }
        let behind = |read: u64| (self.entries_added as i64).wrapping_sub(read as i64);
        if let Some(read) = group.entries_read {
            if !self.tombstones_from(group.last_id) {
                return Some(behind(read));
            }
        }
        self.estimate_entries_read(group.last_id).map(behind)
    }

    /// The entries-read `group` has once it delivers `id`, kept exact where it can be.
    ///
    /// The counter only counts on by one when nothing lies between the cursor and the new
    /// id: no tombstone after the cursor, and no trimmed entry either, which is the case when
    /// the cursor is behind the first entry (Redis 8.2, redis/redis#13958). Otherwise it is
    /// estimated again from the new id.
    /// Observed on Redis 8.2.3: after `XGROUP SETID s g 0 ENTRIESREAD 3` on a five-entry
    /// stream, reading `1-0` leaves entries-read at 1, not 4.
    pub(super) fn entries_read_after(&self, g: &Group, id: StreamId) -> Option<u64> {
        let counts_on = match self.rules {
            // Redis 7.4 looks for tombstones from the delivered id, and misses a trim between.
            CounterRules::Redis74 => !self.tombstones_from(id),
            CounterRules::Redis82 | CounterRules::Valkey9 => {
                g.last_id >= self.first_id && !self.tombstones_from(g.last_id)
            }
        };
        match g.entries_read {
            Some(read) if counts_on => Some(read + 1),
            current if self.entries_added == 0 => current,
            _ => self.estimate_entries_read(id),
        }
    }

    /// Whether every group has delivered and acknowledged `id` (true when there are no
    /// groups). "Delivered" is judged against the cached minimum last-delivered id, stale or
    /// not (see `min_group_last_id`); pending entries are always exact.
    pub(super) fn acknowledged_by_all(&self, id: StreamId) -> bool {
        self.delivered_to_all_groups(id) && self.groups.values().all(|g| !g.pel().contains_key(&id))
    }

    /// Whether `id` counts as delivered to every group for the ACKED policy: at or below
    /// Redis 8.2's cached minimum of the groups' last-delivered ids (see the cache's field;
    /// stale after XGROUP DESTROY, as on the real server). True when there are no groups.
    pub fn delivered_to_all_groups(&self, id: StreamId) -> bool {
        if self.groups.is_empty() {
            return true;
        }
        let floor = match self.min_group_last_id.get() {
            Some(floor) => floor,
            None => {
                let floor = self.groups.values().map(|g| g.last_id).min().unwrap_or(StreamId::MAX);
                self.min_group_last_id.set(Some(floor));
                floor
            }
        };
        id <= floor
    }

    /// Forgets the cached minimum last-delivered id when a group that moved from `old` to
    /// `new` (`old` is `None` for a group just created) may have changed it: it was the
    /// minimum, or it went below it. A new group also forgets a cached minimum of 0-0, wherever
    /// it starts (fitted to 2,000 random create/destroy/setid sequences on Redis 8.2.3).
    pub(super) fn group_moved(&self, old: Option<StreamId>, new: StreamId) {
        if let Some(floor) = self.min_group_last_id.get() {
            let created_over_zero = old.is_none() && floor.is_zero();
            if old == Some(floor) || new < floor || created_over_zero {
                self.min_group_last_id.set(None);
            }
        }
    }
}
