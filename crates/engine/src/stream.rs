//! A stream: its nodes of entries, the metadata Redis keeps beside them, and its groups.

use std::cell::Cell;
use std::collections::BTreeMap;

use crate::group::{ConsumerName, Group};
use crate::id::{AddId, StreamId};
use crate::node::{Node, RawEntry};

/// The field/value pairs of one entry, in the order they were added.
pub type Fields = Vec<(Vec<u8>, Vec<u8>)>;

/// One live entry read from a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its id.
    pub id: StreamId,
    /// Its field/value pairs.
    pub fields: Fields,
}

/// The node-size settings (`stream-node-max-entries`, `stream-node-max-bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamConfig {
    /// Entries (live and deleted) after which a node is closed; 0 means no limit.
    pub node_max_entries: u64,
    /// Listpack bytes after which a node is closed; 0 means the 1 GiB hard limit.
    pub node_max_bytes: u64,
}

impl Default for StreamConfig {
    fn default() -> Self {
        StreamConfig { node_max_entries: 100, node_max_bytes: 4096 }
    }
}

/// Redis's hard limit for one listpack, which also bounds a node when the setting is 0.
const LISTPACK_MAX_BYTES: u64 = 1 << 30;

/// Why an entry could not be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddError {
    /// The stream's last id is the largest possible id.
    Exhausted,
    /// The id is not greater than the stream's last id.
    IdNotGreater,
    /// The entry's fields and values add up to more than a listpack can hold.
    TooLarge,
}

/// What happens to consumer-group references when entries are deleted or trimmed (Redis 8.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RefPolicy {
    /// Delete the entry and leave PEL records pointing at it (the classic behaviour).
    #[default]
    KeepRef,
    /// Delete the entry and remove its PEL records from every group.
    DelRef,
    /// Delete the entry only if every group has delivered and acknowledged it.
    Acked,
}

/// How a trim chooses what to remove.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrimStrategy {
    /// Keep at most this many entries.
    MaxLen(u64),
    /// Remove entries with ids below this one.
    MinId(StreamId),
}

/// A trim request (from XTRIM or XADD).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Trim {
    /// What to remove.
    pub strategy: TrimStrategy,
    /// `~`: remove whole nodes only.
    pub approx: bool,
    /// An explicit LIMIT, if one was given (0 means no limit).
    pub limit: Option<u64>,
    /// What to do with references from consumer groups.
    pub policy: RefPolicy,
}

/// The outcome of deleting one id under a policy (XDELEX / XACKDEL replies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteOutcome {
    /// The entry is gone (or was already gone, for XACKDEL).
    Deleted,
    /// No such entry (or, for XACKDEL, the id was not pending in the group).
    NotFound,
    /// Kept because a group still references it or has not read it yet.
    Referenced,
}

/// The result of an XAUTOCLAIM scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoClaim {
    /// Where the next scan should start, or 0-0 when the PEL was scanned to its end.
    pub next: StreamId,
    /// The ids claimed, in PEL order.
    pub claimed: Vec<StreamId>,
    /// Ids whose entries no longer exist; they were removed from the PEL.
    pub deleted: Vec<StreamId>,
}

/// XAUTOCLAIM's settings, already validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoClaimOptions {
    /// Entries idle for less than this many milliseconds are skipped (0: no check).
    pub min_idle: i64,
    /// Where the scan of the PEL starts.
    pub start: StreamId,
    /// At most this many results; at most ten times this many records examined.
    pub count: u64,
    /// Do not increment delivery counts (and the reply carries ids only).
    pub just_id: bool,
}

/// XCLAIM's settings, already validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimOptions {
    /// Entries idle for less than this many milliseconds are left alone (0: no check).
    pub min_idle: i64,
    /// The delivery time to record for claimed entries.
    pub delivery_time: i64,
    /// Set the delivery count to this instead of incrementing it.
    pub retry_count: Option<u64>,
    /// Create PEL records for existing entries that are not pending.
    pub force: bool,
    /// Do not increment the delivery count (and the reply carries ids only).
    pub just_id: bool,
    /// Move the group's last-delivered-id forward to this id if it is greater.
    pub last_id: Option<StreamId>,
}

/// A stream value.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    nodes: BTreeMap<StreamId, Node>,
    length: u64,
    last_id: StreamId,
    first_id: StreamId,
    max_deleted: StreamId,
    entries_added: u64,
    groups: BTreeMap<Vec<u8>, Group>,
    /// Redis 8.2's cache of the smallest last-delivered id over the groups, which the ACKED
    /// policy compares ids with ("delivered to every group"). `None` = not computed; it is
    /// computed on first use. Observed on 8.2.3 (tests/transcripts/
    /// difftest-acked-group-cache.txt): a group that was at the cached minimum moving, or a
    /// group created or moved below it (or created at all while it is 0-0), invalidates it;
    /// destroying a group leaves it as it was, so after XGROUP DESTROY the ACKED policy can
    /// keep answering "not delivered" for a group that no longer exists, even with no groups
    /// left at all.
    min_group_last_id: Cell<Option<StreamId>>,
}

impl Stream {
    /// An empty stream.
    pub fn new() -> Stream {
        Stream::default()
    }

    /// Live entries.
    pub fn len(&self) -> u64 {
        self.length
    }

    /// Whether there are no live entries (the stream itself still exists).
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }

    /// The last id ever generated (`last-generated-id`); never goes backwards.
    pub fn last_id(&self) -> StreamId {
        self.last_id
    }

    /// The first live entry's id as recorded (`recorded-first-entry-id`), 0-0 when empty.
    pub fn first_id(&self) -> StreamId {
        self.first_id
    }

    /// The greatest id ever removed by deletion (`max-deleted-entry-id`); trims do not count.
    pub fn max_deleted_id(&self) -> StreamId {
        self.max_deleted
    }

    /// Entries ever added (`entries-added`).
    pub fn entries_added(&self) -> u64 {
        self.entries_added
    }

    /// The nodes, by master id.
    pub fn nodes(&self) -> &BTreeMap<StreamId, Node> {
        &self.nodes
    }

    /// The groups, by name in byte order.
    pub fn groups(&self) -> &BTreeMap<Vec<u8>, Group> {
        &self.groups
    }

    /// One group by name.
    pub fn group(&self, name: &[u8]) -> Option<&Group> {
        self.groups.get(name)
    }

    /// One group by name, for changes.
    pub fn group_mut(&mut self, name: &[u8]) -> Option<&mut Group> {
        self.groups.get_mut(name)
    }

    // ----- adding -------------------------------------------------------------------------

    /// Chooses the id for an XADD without adding anything.
    pub fn next_id(&self, requested: AddId, now: i64) -> Result<StreamId, AddError> {
        if self.last_id == StreamId::MAX {
            return Err(AddError::Exhausted);
        }
        let last = self.last_id;
        let id = match requested {
            AddId::Auto => {
                let ms = u64::try_from(now).unwrap_or(0);
                if ms > last.ms {
                    StreamId::new(ms, 0)
                } else {
                    last.next().ok_or(AddError::Exhausted)?
                }
            }
            AddId::AutoSeq(ms) if ms == last.ms => {
                StreamId::new(ms, last.seq.checked_add(1).ok_or(AddError::IdNotGreater)?)
            }
            AddId::AutoSeq(ms) => StreamId::new(ms, 0),
            AddId::Explicit(id) => id,
        };
        if id <= last {
            return Err(AddError::IdNotGreater);
        }
        Ok(id)
    }

    /// Adds an entry (`fields` alternates names and values, at least one pair) and returns its
    /// id. Nothing changes on error.
    pub fn add(
        &mut self,
        requested: AddId,
        fields: &[Vec<u8>],
        now: i64,
        config: StreamConfig,
    ) -> Result<StreamId, AddError> {
        let id = self.next_id(requested, now)?;
        let payload: u64 = fields.iter().map(|f| f.len() as u64).sum();
        if payload > LISTPACK_MAX_BYTES {
            return Err(AddError::TooLarge);
        }
        let max_bytes = match config.node_max_bytes {
            0 => LISTPACK_MAX_BYTES,
            n => n.min(LISTPACK_MAX_BYTES),
        };
        let full = match self.nodes.values().next_back() {
            None => true,
            Some(tail) => {
                tail.listpack_bytes() + payload >= max_bytes
                    || (config.node_max_entries != 0 && tail.members() >= config.node_max_entries)
            }
        };
        if full {
            if let Some(tail) = self.nodes.values_mut().next_back() {
                tail.seal();
            }
            self.nodes.insert(id, Node::new(id, fields));
        }
        self.nodes.values_mut().next_back().expect("a tail node exists").append(id, fields);
        self.length += 1;
        self.entries_added += 1;
        self.last_id = id;
        if self.length == 1 {
            self.first_id = id;
        }
        Ok(id)
    }

    // ----- reading ------------------------------------------------------------------------

    fn raw_range(&self, start: StreamId, end: StreamId, rev: bool) -> Box<dyn Iterator<Item = (&Node, RawEntry)> + '_> {
        if start > end {
            return Box::new(std::iter::empty());
        }
        if rev {
            Box::new(
                self.nodes
                    .range(..=end)
                    .rev()
                    .take_while(move |(_, n)| n.last_id >= start)
                    .flat_map(|(_, n)| {
                        let raws: Vec<RawEntry> = n.walk().collect();
                        raws.into_iter().rev().map(move |r| (n, r))
                    })
                    .skip_while(move |(_, r)| r.id > end)
                    .take_while(move |(_, r)| r.id >= start),
            )
        } else {
            let from = self.nodes.range(..=start).next_back().map(|(k, _)| *k).unwrap_or(StreamId::MIN);
            Box::new(
                self.nodes
                    .range(from..)
                    .flat_map(|(_, n)| n.walk().map(move |r| (n, r)))
                    .skip_while(move |(_, r)| r.id < start)
                    .take_while(move |(_, r)| r.id <= end),
            )
        }
    }

    /// Live entries with ids in `[start, end]`, ascending or (with `rev`) descending.
    pub fn range(&self, start: StreamId, end: StreamId, rev: bool) -> impl Iterator<Item = Entry> + '_ {
        self.raw_range(start, end, rev)
            .filter(|(_, r)| !r.deleted)
            .map(|(n, r)| Entry { id: r.id, fields: n.fields(&r) })
    }

    /// The live entry with this id.
    pub fn get(&self, id: StreamId) -> Option<Entry> {
        self.range(id, id, false).next()
    }

    /// Whether a live entry has this id.
    pub fn contains(&self, id: StreamId) -> bool {
        self.locate(id).is_some_and(|(_, raw)| !raw.deleted)
    }

    fn locate(&self, id: StreamId) -> Option<(StreamId, RawEntry)> {
        let (key, node) = self.nodes.range(..=id).next_back()?;
        node.find(id).map(|raw| (*key, raw))
    }

    /// The id of the last live entry, or 0-0 (Redis's "last valid id").
    pub fn last_live_id(&self) -> StreamId {
        self.raw_range(StreamId::MIN, StreamId::MAX, true)
            .find(|(_, r)| !r.deleted)
            .map_or(StreamId::MIN, |(_, r)| r.id)
    }

    fn first_live_id(&self) -> StreamId {
        self.raw_range(StreamId::MIN, StreamId::MAX, false)
            .find(|(_, r)| !r.deleted)
            .map_or(StreamId::MIN, |(_, r)| r.id)
    }

    // ----- deleting and trimming ----------------------------------------------------------

    /// Deletes one live entry (XDEL). Returns whether it existed. Pending records that point at
    /// it are left alone, as in Redis.
    pub fn delete(&mut self, id: StreamId) -> bool {
        let Some((key, raw)) = self.locate(id) else { return false };
        let node = self.nodes.get_mut(&key).expect("located node exists");
        if !node.mark_deleted(&raw) {
            return false;
        }
        // A node whose last live entry goes is freed; tombstones alone are not kept.
        if node.live == 0 {
            self.nodes.remove(&key);
        }
        self.length -= 1;
        if id > self.max_deleted {
            self.max_deleted = id;
        }
        if self.length == 0 {
            self.first_id = StreamId::MIN;
        } else if id == self.first_id {
            self.first_id = self.first_live_id();
        }
        true
    }

    /// Whether every group has delivered and acknowledged `id` (true when there are no
    /// groups). "Delivered" is judged against the cached minimum last-delivered id, stale or
    /// not (see `min_group_last_id`); pending entries are always exact.
    fn acknowledged_by_all(&self, id: StreamId) -> bool {
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
        id <= floor && self.groups.values().all(|g| !g.pel().contains_key(&id))
    }

    /// Forgets the cached minimum last-delivered id when a group that moved from `old` to
    /// `new` (`old` is `None` for a group just created) may have changed it: it was the
    /// minimum, or it went below it. A new group also forgets a cached minimum of 0-0, wherever
    /// it starts (fitted to 2,000 random create/destroy/setid sequences on Redis 8.2.3).
    fn group_moved(&self, old: Option<StreamId>, new: StreamId) {
        if let Some(floor) = self.min_group_last_id.get() {
            let created_over_zero = old.is_none() && floor.is_zero();
            if old == Some(floor) || new < floor || created_over_zero {
                self.min_group_last_id.set(None);
            }
        }
    }

    fn drop_references(&mut self, id: StreamId) {
        for group in self.groups.values_mut() {
            group.remove_pending(id);
        }
    }

    /// Deletes one id under a reference policy (XDELEX).
    ///
    /// Observed on Redis 8.2.3: the policy is applied whether or not the entry exists. Under
    /// ACKED an id some group has not delivered or acknowledged answers "referenced" even when
    /// there is no such entry; under DELREF the id leaves every PEL even when the entry was
    /// already deleted (the answer is still "not found").
    pub fn delete_with_policy(&mut self, id: StreamId, policy: RefPolicy) -> DeleteOutcome {
        if policy == RefPolicy::Acked && !self.acknowledged_by_all(id) {
            return DeleteOutcome::Referenced;
        }
        let deleted = self.delete(id);
        if policy == RefPolicy::DelRef {
            self.drop_references(id);
        }
        if deleted {
            DeleteOutcome::Deleted
        } else {
            DeleteOutcome::NotFound
        }
    }

    /// Acknowledges `id` in `group` and then deletes it under a policy (XACKDEL).
    pub fn ack_and_delete(&mut self, group: &[u8], id: StreamId, policy: RefPolicy) -> DeleteOutcome {
        let Some(g) = self.groups.get_mut(group) else { return DeleteOutcome::NotFound };
        if !g.remove_pending(id) {
            return DeleteOutcome::NotFound;
        }
        if policy == RefPolicy::Acked && !self.acknowledged_by_all(id) {
            return DeleteOutcome::Referenced;
        }
        self.delete(id);
        if policy == RefPolicy::DelRef {
            self.drop_references(id);
        }
        DeleteOutcome::Deleted
    }

    /// Trims the stream; returns how many live entries were removed.
    pub fn trim(&mut self, trim: Trim, config: StreamConfig) -> u64 {
        // Observed on Redis 8.2.3: approximate trimming under DELREF or ACKED removes nothing,
        // even from a stream without groups (XTRIM and XADD alike), while the exact form
        // applies the policy entry by entry.
        if trim.approx && trim.policy != RefPolicy::KeepRef {
            return 0;
        }
        let limit = match (trim.approx, trim.limit) {
            (false, _) => 0,
            (true, Some(explicit)) => explicit,
            // `~` without LIMIT bounds the work by a hundred nodes' worth of entries.
            (true, None) => match config.node_max_entries.saturating_mul(100) {
                0 => 10_000,
                n => n.min(1_000_000),
            },
        };
        let mut removed = 0u64;
        let keys: Vec<StreamId> = self.nodes.keys().copied().collect();
        for key in keys {
            if let TrimStrategy::MaxLen(max) = trim.strategy {
                if self.length <= max {
                    break;
                }
            }
            let node = &self.nodes[&key];
            let live = u64::from(node.live);
            if limit != 0 && removed + live > limit {
                break;
            }
            // Whether the strategy alone would take the whole node.
            let past_node = match trim.strategy {
                TrimStrategy::MaxLen(max) => self.length - live >= max,
                TrimStrategy::MinId(min) => node.last_id < min,
            };
            let live_ids =
                |node: &Node| -> Vec<StreamId> { node.walk().filter(|r| !r.deleted).map(|r| r.id).collect() };
            let whole = past_node
                && (trim.policy != RefPolicy::Acked || live_ids(node).iter().all(|&id| self.acknowledged_by_all(id)));
            if whole {
                let node = self.nodes.remove(&key).expect("node exists");
                self.length -= live;
                removed += live;
                if trim.policy == RefPolicy::DelRef {
                    for id in live_ids(&node) {
                        self.drop_references(id);
                    }
                }
                continue;
            }
            if trim.approx {
                break;
            }
            let ids = live_ids(node);
            // Exact trimming marks entries of this node deleted one by one. Under KEEPREF and
            // DELREF the goal is always reached inside this node. ACKED skips entries that are
            // still referenced, and carries on into the next node only when the strategy alone
            // would have taken this whole node (observed on 8.2.3: two nodes [3-1 3-2 5-3 8-0]
            // [9-2 12-0], all of the first pending: MAXLEN 4 ACKED removes nothing, MAXLEN 0
            // ACKED removes 9-2).
            let mut reached = false;
            for id in ids {
                reached = match trim.strategy {
                    TrimStrategy::MaxLen(max) => self.length <= max,
                    TrimStrategy::MinId(min) => id >= min,
                };
                if reached {
                    break;
                }
                if trim.policy == RefPolicy::Acked && !self.acknowledged_by_all(id) {
                    continue;
                }
                let node = self.nodes.get_mut(&key).expect("node being trimmed exists");
                let raw = node.find(id).expect("live entry exists");
                node.mark_deleted(&raw);
                self.length -= 1;
                removed += 1;
                if trim.policy == RefPolicy::DelRef {
                    self.drop_references(id);
                }
            }
            if reached || trim.policy != RefPolicy::Acked || !past_node {
                break;
            }
        }
        if self.length == 0 {
            self.first_id = StreamId::MIN;
        } else if removed > 0 {
            self.first_id = self.first_live_id();
        }
        removed
    }

    /// XSETID: moves the last id (and optionally entries-added and max-deleted-entry-id).
    pub fn set_id(
        &mut self,
        last_id: StreamId,
        entries_added: Option<u64>,
        max_deleted: Option<StreamId>,
    ) -> Result<(), SetIdError> {
        if last_id < self.max_deleted {
            return Err(SetIdError::BelowMaxDeleted);
        }
        if self.length > 0 {
            if last_id < self.last_live_id() {
                return Err(SetIdError::BelowTopItem);
            }
            if entries_added.is_some_and(|n| n < self.length) {
                return Err(SetIdError::EntriesAddedBelowLength);
            }
        }
        self.last_id = last_id;
        if let Some(n) = entries_added {
            self.entries_added = n;
        }
        if let Some(id) = max_deleted.filter(|id| !id.is_zero()) {
            self.max_deleted = id;
        }
        Ok(())
    }

    // ----- groups -------------------------------------------------------------------------

    /// Creates a group; returns false if one with that name exists. An `entries_read` larger
    /// than entries-added is clamped, as Redis 8.2 does.
    pub fn create_group(&mut self, name: &[u8], last_id: StreamId, entries_read: Option<u64>) -> bool {
        if self.groups.contains_key(name) {
            return false;
        }
        let entries_read = entries_read.map(|n| n.min(self.entries_added));
        self.groups.insert(name.to_vec(), Group::new(last_id, entries_read));
        self.group_moved(None, last_id);
        true
    }

    /// XGROUP SETID: repositions a group, leaving its PEL alone.
    pub fn set_group_id(&mut self, name: &[u8], last_id: StreamId, entries_read: Option<u64>) -> bool {
        let clamp = self.entries_added;
        match self.groups.get_mut(name) {
            Some(group) => {
                let old = group.last_id;
                group.last_id = last_id;
                group.entries_read = entries_read.map(|n| n.min(clamp));
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
        self.length > 0 && !self.max_deleted.is_zero() && from <= self.max_deleted
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
        if !id.is_zero() && id < self.max_deleted {
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
    /// Redis 8.2.3 does.
    pub fn lag(&self, group: &Group) -> Option<i64> {
        if self.entries_added == 0 || self.length == 0 {
            return Some(0);
        }
        if group.last_id < self.first_id && self.max_deleted < self.first_id {
            return Some(self.length as i64);
        }
        let behind = |read: u64| (self.entries_added as i64).wrapping_sub(read as i64);
        if let Some(read) = group.entries_read {
            if !self.tombstones_from(group.last_id) {
                return Some(behind(read));
            }
        }
        self.estimate_entries_read(group.last_id).map(behind)
    }

    /// XREADGROUP with `>`: delivers up to `count` (0: all) entries the group has never
    /// delivered. The consumer is created if needed and marked seen even when nothing is new;
    /// returns `None` when there was nothing to serve.
    pub fn read_group_new(
        &mut self,
        group: &[u8],
        consumer: &[u8],
        count: u64,
        no_ack: bool,
        now: i64,
    ) -> Option<Vec<Entry>> {
        let last_live = self.last_live_id();
        let g = self.groups.get_mut(group)?;
        let owner = g.see_consumer(consumer, now);
        if self.length == 0 || last_live <= g.last_id {
            return None;
        }
        let from = g.last_id.next()?;
        let limit = if count == 0 { usize::MAX } else { usize::try_from(count).unwrap_or(usize::MAX) };
        let entries: Vec<Entry> = self.range(from, StreamId::MAX, false).take(limit).collect();
        for entry in &entries {
            self.advance_group(group, entry.id);
            let g = self.groups.get_mut(group).expect("group exists");
            if !no_ack {
                g.assign(entry.id, &owner, now, 1);
                g.mark_active(consumer, now);
            }
        }
        Some(entries)
    }

    /// Moves a group's cursor to a delivered id, keeping entries-read exact where it can.
    ///
    /// The counter is incremented only when the group was positioned inside the stream (not
    /// before its first entry) with no tombstone ahead of it; otherwise it is estimated from
    /// the delivered id. Observed on Redis 8.2.3: after `XGROUP SETID s g 0 ENTRIESREAD 3` on
    /// a five-entry stream, reading `1-0` leaves entries-read at 1, not 4.
    fn advance_group(&mut self, group: &[u8], id: StreamId) {
        let g = &self.groups[group];
        let entries_read = match g.entries_read {
            Some(read) if !self.tombstones_from(g.last_id) && g.last_id >= self.first_id => Some(read + 1),
            current if self.entries_added == 0 => current,
            _ => self.estimate_entries_read(id),
        };
        let g = self.groups.get_mut(group).expect("group exists");
        let old = g.last_id;
        g.entries_read = entries_read;
        g.last_id = id;
        self.group_moved(Some(old), id);
    }

    /// XREADGROUP with an explicit id: the consumer's own pending entries after `after`, up to
    /// `count` (0: all). Entries that still exist are redelivered (count + 1, time now);
    /// deleted ones come back as `None` and are left untouched.
    pub fn read_group_history(
        &mut self,
        group: &[u8],
        consumer: &[u8],
        after: StreamId,
        count: u64,
        now: i64,
    ) -> Vec<(StreamId, Option<Fields>)> {
        let Some(g) = self.groups.get_mut(group) else { return Vec::new() };
        g.see_consumer(consumer, now);
        let Some(from) = after.next() else { return Vec::new() };
        let limit = if count == 0 { usize::MAX } else { usize::try_from(count).unwrap_or(usize::MAX) };
        let ids: Vec<StreamId> =
            g.consumer(consumer).map_or_else(Vec::new, |c| c.pending().range(from..).take(limit).copied().collect());
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let fields = self.get(id).map(|e| e.fields);
            if fields.is_some() {
                self.groups.get_mut(group).expect("group exists").redeliver(id, now);
            }
            out.push((id, fields));
        }
        out
    }

    /// XCLAIM. Returns the ids claimed, in argument order (duplicates are processed twice).
    pub fn claim(
        &mut self,
        group: &[u8],
        consumer: &[u8],
        ids: &[StreamId],
        opts: ClaimOptions,
        now: i64,
    ) -> Vec<StreamId> {
        let exists: Vec<bool> = ids.iter().map(|&id| self.contains(id)).collect();
        let Some(g) = self.groups.get_mut(group) else { return Vec::new() };
        if let Some(last) = opts.last_id.filter(|&last| last > g.last_id) {
            let old = std::mem::replace(&mut g.last_id, last);
            self.group_moved(Some(old), last);
        }
        let g = self.groups.get_mut(group).expect("group exists");
        let owner: ConsumerName = g.see_consumer(consumer, now);
        let mut claimed = Vec::new();
        for (&id, &exists) in ids.iter().zip(&exists) {
            if !exists {
                g.remove_pending(id);
                continue;
            }
            let current = g.pel().get(&id).cloned();
            let count = match current {
                None if !opts.force => continue,
                // A record made by FORCE starts at one delivery, like a fresh read.
                None => 1,
                Some(p) => {
                    if opts.min_idle > 0 && now - p.delivery_time < opts.min_idle {
                        continue;
                    }
                    p.delivery_count
                }
            };
            let count = match opts.retry_count {
                Some(n) => n,
                None if opts.just_id => count,
                None => count.saturating_add(1),
            };
            g.assign(id, &owner, opts.delivery_time, count);
            g.mark_active(consumer, now);
            claimed.push(id);
        }
        claimed
    }

    /// XAUTOCLAIM: scans the group PEL from `start`, examining at most `count * 10` records
    /// and returning at most `count` results (claimed or found deleted).
    pub fn auto_claim(&mut self, group: &[u8], consumer: &[u8], opts: AutoClaimOptions, now: i64) -> AutoClaim {
        let AutoClaimOptions { min_idle, start, count, just_id } = opts;
        let mut result = AutoClaim { next: StreamId::MIN, claimed: Vec::new(), deleted: Vec::new() };
        let Some(g) = self.groups.get(group) else { return result };
        let mut attempts = count.saturating_mul(10);
        let mut budget = count;
        let mut examined: Vec<(StreamId, bool)> = Vec::new();
        let mut cursor = g.pel().range(start..).map(|(id, p)| (*id, p.delivery_time));
        let mut next = None;
        while attempts > 0 && budget > 0 {
            let Some((id, delivered)) = cursor.next() else { break };
            attempts -= 1;
            if !self.contains(id) {
                examined.push((id, false));
                budget -= 1;
                continue;
            }
            if min_idle > 0 && now - delivered < min_idle {
                continue;
            }
            examined.push((id, true));
            budget -= 1;
        }
        if attempts == 0 || budget == 0 {
            next = cursor.next().map(|(id, _)| id);
        }
        result.next = next.unwrap_or(StreamId::MIN);
        let g = self.groups.get_mut(group).expect("group exists");
        let owner = g.see_consumer(consumer, now);
        for (id, alive) in examined {
            if alive {
                let previous = g.pel()[&id].delivery_count;
                let count = if just_id { previous } else { previous.saturating_add(1) };
                g.assign(id, &owner, now, count);
                g.mark_active(consumer, now);
                result.claimed.push(id);
            } else {
                g.remove_pending(id);
                result.deleted.push(id);
            }
        }
        result
    }

    /// Checks the stream's invariants: node accounting, metadata and every group's PEL.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut live = 0u64;
        let mut previous: Option<StreamId> = None;
        for (key, node) in &self.nodes {
            if *key != node.master_id {
                return Err(format!("node keyed {key} has master {}", node.master_id));
            }
            let (mut l, mut d) = (0u32, 0u32);
            for raw in node.walk() {
                if previous.is_some_and(|p| raw.id <= p) {
                    return Err(format!("ids out of order at {}", raw.id));
                }
                previous = Some(raw.id);
                if raw.deleted {
                    d += 1;
                } else {
                    l += 1;
                }
            }
            if (l, d) != (node.live, node.deleted) {
                return Err(format!("node {key} counts {l}/{d} but records {}/{}", node.live, node.deleted));
            }
            live += u64::from(l);
        }
        if live != self.length {
            return Err(format!("length {} but {live} live entries", self.length));
        }
        if previous.is_some_and(|p| p > self.last_id) {
            return Err("an entry is above last-generated-id".into());
        }
        let expected_first = if self.length == 0 { StreamId::MIN } else { self.first_live_id() };
        if expected_first != self.first_id {
            return Err(format!("first id {} but first live entry {expected_first}", self.first_id));
        }
        if self.entries_added < self.length {
            return Err("entries-added below length".into());
        }
        for (name, group) in &self.groups {
            group.check_invariants().map_err(|e| format!("group {name:?}: {e}"))?;
        }
        Ok(())
    }
}

/// Why XSETID refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetIdError {
    /// The id is below the current max-deleted-entry-id.
    BelowMaxDeleted,
    /// The id is below the last live entry.
    BelowTopItem,
    /// ENTRIESADDED is below the stream's length.
    EntriesAddedBelowLength,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: impl Into<String>) -> Vec<u8> {
        s.into().into_bytes()
    }

    /// Fields of the three shapes used to measure node boundaries on Redis 8.2.3.
    fn shaped(kind: &str, i: u64) -> Vec<Vec<u8>> {
        match kind {
            "order" => vec![
                b("type"),
                b("order-created"),
                b("orderId"),
                b((1_000_000 + i).to_string()),
                b("isbn"),
                b((9_780_441_013_593 + i * 7).to_string()),
                b("quantity"),
                b((1 + i % 3).to_string()),
            ],
            "long" => vec![b("payload"), b("x".repeat((37 * i % 300) as usize + 1))],
            _ if i.is_multiple_of(3) => vec![b("a"), b(i.to_string())],
            _ => vec![b("b"), b(format!("v{i}")), b("c"), b("-12")],
        }
    }

    #[test]
    fn node_boundaries_match_redis_with_default_limits() {
        // radix-tree-keys reported by Redis 8.2.3 (default settings) for the same XADDs, with
        // ids `1794650000000 + 3i` - `i % 5`.
        let measured = [
            ("order", 100, 2),
            ("order", 1000, 11),
            ("order", 5000, 52),
            ("long", 50, 3),
            ("long", 1000, 41),
            ("long", 5000, 205),
            ("mixed", 100, 1),
            ("mixed", 101, 2),
            ("mixed", 1000, 10),
            ("mixed", 5000, 50),
        ];
        for (kind, n, nodes) in measured {
            let mut stream = Stream::new();
            for i in 0..n {
                let id = AddId::Explicit(StreamId::new(1_794_650_000_000 + i * 3, i % 5));
                stream.add(id, &shaped(kind, i), 0, StreamConfig::default()).unwrap();
            }
            assert_eq!(stream.nodes().len(), nodes, "{kind} x {n}");
            stream.check_invariants().unwrap();
        }
    }

    #[test]
    fn approximate_trimming_removes_whole_nodes_only() {
        // Spec example: nodes of 10, 35 entries, MAXLEN ~ 12 removes 20 and leaves 15.
        let config = StreamConfig { node_max_entries: 10, node_max_bytes: 0 };
        let mut stream = Stream::new();
        for i in 1..=35 {
            stream.add(AddId::Explicit(StreamId::new(i, 0)), &[b("f"), b("v")], 0, config).unwrap();
        }
        let trim = Trim { strategy: TrimStrategy::MaxLen(12), approx: true, limit: None, policy: RefPolicy::KeepRef };
        assert_eq!(stream.trim(trim, config), 20);
        assert_eq!(stream.len(), 15);
        assert_eq!(stream.first_id(), StreamId::new(21, 0));
        stream.check_invariants().unwrap();
    }
}
