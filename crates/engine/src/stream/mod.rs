//! A stream: its nodes of entries, the metadata Redis keeps beside them, and its groups.
//!
//! This file is the stream's outline: the `Stream` type, its accessors, adding, reading and
//! deleting entries. The rest lives beside it, one concern a file: trimming (`trim.rs`), the
//! groups' cursors and counters (`counters.rs`), the operations that deliver entries to
//! consumers (`group_ops.rs`) and idempotent production (`idmp.rs`).

use std::sync::Arc;

use crate::chunked::{unshare, ChunkMap};
use crate::group::Group;
use crate::id::{AddId, StreamId};
use crate::node::{Node, RawEntry};
use crate::sorted::SortedMap;
use crate::walk::Walk;

mod counters;
mod group_ops;
mod idmp;
mod trim;

pub use counters::CounterRules;
use counters::FloorCache;
pub use group_ops::{AutoClaim, AutoClaimOptions, ClaimOptions, Claimed, NackMode, ReadBudget, ReadGroup};
pub use idmp::{Idmp, IDMP_DEFAULT_DURATION, IDMP_DEFAULT_MAXSIZE};
pub use trim::{Trim, TrimStrategy};

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

/// A COUNT argument as a bound for `take`: 0 means no limit, as XREAD, XREADGROUP and XINFO
/// STREAM FULL read it (and a count beyond `usize` is no limit either).
pub fn count_limit(count: u64) -> usize {
    match count {
        0 => usize::MAX,
        n => usize::try_from(n).unwrap_or(usize::MAX),
    }
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

/// A stream value.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    /// Behind an `Arc` each, so a copy of the stream (an undo checkpoint) shares its nodes
    /// and a change copies only the node it touches.
    nodes: ChunkMap<StreamId, Arc<Node>>,
    length: u64,
    last_id: StreamId,
    first_id: StreamId,
    max_deleted: StreamId,
    entries_added: u64,
    groups: SortedMap<Vec<u8>, Group>,
    rules: CounterRules,
    /// Idempotent production (Redis 8.6).
    pub idmp: Idmp,
    /// Redis 8.2's cache of the smallest last-delivered id over the groups, which the ACKED
    /// policy compares ids with ("delivered to every group"). `None` = not computed; it is
    /// computed on first use. Observed on 8.2.3 (tests/transcripts/
    /// difftest-acked-group-cache.txt): a group that was at the cached minimum moving, or a
    /// group created or moved below it (or created at all while it is 0-0), invalidates it;
    /// destroying a group leaves it as it was, so after XGROUP DESTROY the ACKED policy can
    /// keep answering "not delivered" for a group that no longer exists, even with no groups
    /// left at all.
    min_group_last_id: FloorCache,
}

/// Streams compare by content. The ACKED cache is left out: filling it is not a change of the
/// stream (Redis fills it on first use too), so a command that only consulted it still counts
/// as having changed nothing.
impl PartialEq for Stream {
    fn eq(&self, other: &Stream) -> bool {
        self.nodes == other.nodes
            && self.length == other.length
            && self.last_id == other.last_id
            && self.first_id == other.first_id
            && self.max_deleted == other.max_deleted
            && self.entries_added == other.entries_added
            && self.groups == other.groups
            && self.rules == other.rules
            && self.idmp == other.idmp
    }
}

impl Eq for Stream {}

impl Stream {
    /// An empty stream.
    pub fn new() -> Stream {
        Stream::default()
    }

    /// An empty stream that keeps its groups' counters by `rules`.
    pub fn with_rules(rules: CounterRules) -> Stream {
        Stream { rules, ..Stream::default() }
    }

    /// The counter rules this stream follows.
    pub fn rules(&self) -> CounterRules {
        self.rules
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
    pub fn nodes(&self) -> &ChunkMap<StreamId, Arc<Node>> {
        &self.nodes
    }

    /// The groups, by name in byte order.
    pub fn groups(&self) -> &SortedMap<Vec<u8>, Group> {
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
            if let Some(tail) = self.nodes.last_value_mut() {
                unshare(tail).seal();
            }
            self.nodes.insert(id, Arc::new(Node::new(id, fields)));
        }
        unshare(self.nodes.last_value_mut().expect("a tail node exists")).append(id, fields);
        self.length += 1;
        self.entries_added += 1;
        self.last_id = id;
        if self.length == 1 {
            self.first_id = id;
        }
        Ok(id)
    }

    // ----- reading ------------------------------------------------------------------------

    /// The live entries with ids in `[start, end]`, with their nodes. Tombstones are dropped
    /// before the bounds are compared, as Redis's iterator skips them: only live ids are sure
    /// to increase (see [`Node::find`]), and a tombstone above `end` may sit before live
    /// entries inside it.
    fn live_range(
        &self,
        start: StreamId,
        end: StreamId,
        rev: bool,
    ) -> Walk<impl Iterator<Item = (&Node, RawEntry)> + '_, impl Iterator<Item = (&Node, RawEntry)> + '_> {
        if start > end {
            return Walk::Empty;
        }
        if rev {
            Walk::Right(
                self.nodes
                    .range(..=end)
                    .rev()
                    .take_while(move |(_, n)| n.last_id >= start)
                    .flat_map(|(_, n)| {
                        let raws: Vec<RawEntry> = n.live().collect();
                        raws.into_iter().rev().map(move |r| (&**n, r))
                    })
                    .skip_while(move |(_, r)| r.id > end)
                    .take_while(move |(_, r)| r.id >= start),
            )
        } else {
            let from = self.nodes.range(..=start).next_back().map(|(k, _)| *k).unwrap_or(StreamId::MIN);
            Walk::Left(
                self.nodes
                    .range(from..)
                    .flat_map(|(_, n)| n.live().map(move |r| (&**n, r)))
                    .skip_while(move |(_, r)| r.id < start)
                    .take_while(move |(_, r)| r.id <= end),
            )
        }
    }

    /// Live entries with ids in `[start, end]`, ascending or (with `rev`) descending.
    pub fn range(&self, start: StreamId, end: StreamId, rev: bool) -> impl Iterator<Item = Entry> + '_ {
        self.live_range(start, end, rev).map(|(n, r)| Entry { id: r.id, fields: n.fields(&r) })
    }

    /// The live entry with this id.
    pub fn get(&self, id: StreamId) -> Option<Entry> {
        self.range(id, id, false).next()
    }

    /// Whether a live entry has this id.
    pub fn contains(&self, id: StreamId) -> bool {
        self.locate(id).is_some()
    }

    /// [`Stream::contains`] for each id, in order: one loop for the callers that need the
    /// answers before they change anything (a `collect` per call site is a copy each in wasm).
    pub(crate) fn contain_each(&self, ids: &[StreamId]) -> Vec<bool> {
        let mut exists = Vec::with_capacity(ids.len());
        for &id in ids {
            exists.push(self.contains(id));
        }
        exists
    }

    /// The live entry with this id, and the key of its node.
    fn locate(&self, id: StreamId) -> Option<(StreamId, RawEntry)> {
        let (key, node) = self.nodes.range(..=id).next_back()?;
        node.find(id).map(|raw| (*key, raw))
    }

    /// The id of the last live entry, or 0-0 (Redis's "last valid id").
    pub fn last_live_id(&self) -> StreamId {
        // Every XREADGROUP asks: answer from the tail node's last entry when it is live,
        // instead of walking the node backwards.
        match self.nodes.values().next_back() {
            Some(tail) if tail.last_is_live() => tail.last_id,
            _ => self.last_live_id_by_walking(),
        }
    }

    fn last_live_id_by_walking(&self) -> StreamId {
        self.live_range(StreamId::MIN, StreamId::MAX, true).next().map_or(StreamId::MIN, |(_, r)| r.id)
    }

    fn first_live_id(&self) -> StreamId {
        self.live_range(StreamId::MIN, StreamId::MAX, false).next().map_or(StreamId::MIN, |(_, r)| r.id)
    }

    // ----- deleting -----------------------------------------------------------------------

    /// Deletes one live entry (XDEL). Returns whether it existed. Pending records that point at
    /// it are left alone, as in Redis.
    pub fn delete(&mut self, id: StreamId) -> bool {
        let Some((key, raw)) = self.locate(id) else { return false };
        let node = unshare(self.nodes.get_mut(&key).expect("located node exists"));
        // `locate` finds live entries only, so this marks a live one.
        node.mark_deleted(&raw);
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
        // The policy applies (DELREF drops references) even when the entry is already gone;
        // only the answer says it was not found.
        let existed = self.contains(id);
        match self.delete_referenced(id, policy) {
            DeleteOutcome::Deleted if !existed => DeleteOutcome::NotFound,
            outcome => outcome,
        }
    }

    /// Acknowledges `id` in `group` and then deletes it under a policy (XACKDEL).
    pub fn ack_and_delete(&mut self, group: &[u8], id: StreamId, policy: RefPolicy) -> DeleteOutcome {
        let Some(g) = self.groups.get_mut(group) else { return DeleteOutcome::NotFound };
        if !g.remove_pending(id) {
            return DeleteOutcome::NotFound;
        }
        self.delete_referenced(id, policy)
    }

    /// The policy part both deletions share: ACKED keeps entries some group still needs,
    /// DELREF also drops every group's PEL record of the entry.
    fn delete_referenced(&mut self, id: StreamId, policy: RefPolicy) -> DeleteOutcome {
        if policy == RefPolicy::Acked && !self.acknowledged_by_all(id) {
            return DeleteOutcome::Referenced;
        }
        self.delete(id);
        if policy == RefPolicy::DelRef {
            self.drop_references(id);
        }
        DeleteOutcome::Deleted
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

    // ----- checking -----------------------------------------------------------------------

    /// Checks the stream's invariants: node accounting, metadata and every group's PEL.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.nodes.check_invariants().map_err(|e| format!("nodes: {e}"))?;
        let mut live = 0u64;
        // Live ids increase through the whole stream; tombstones only stay within their node
        // (XSETID ... MAXDELETEDID can put the last id below one; see `Node::find`).
        let mut previous: Option<StreamId> = None;
        for (key, node) in &self.nodes {
            if *key != node.master_id {
                return Err(format!("node keyed {key} has master {}", node.master_id));
            }
            let (mut l, mut d) = (0u32, 0u32);
            let mut walked = None;
            for raw in node.walk() {
                if raw.id < node.master_id {
                    return Err(format!("{} is below its node's master {key}", raw.id));
                }
                walked = Some(raw.id);
                if raw.deleted {
                    d += 1;
                    continue;
                }
                if previous.is_some_and(|p| raw.id <= p) {
                    return Err(format!("live ids out of order at {}", raw.id));
                }
                previous = Some(raw.id);
                l += 1;
            }
            if (l, d) != (node.live, node.deleted) {
                return Err(format!("node {key} counts {l}/{d} but records {}/{}", node.live, node.deleted));
            }
            if walked != Some(node.last_id) {
                return Err(format!("node {key} records last id {} but ends at {walked:?}", node.last_id));
            }
            live += u64::from(l);
        }
        if live != self.length {
            return Err(format!("length {} but {live} live entries", self.length));
        }
        if previous.is_some_and(|p| p > self.last_id) {
            return Err("a live entry is above last-generated-id".into());
        }
        if self.last_live_id() != self.last_live_id_by_walking() {
            return Err(format!(
                "last live id {} but walking finds {}",
                self.last_live_id(),
                self.last_live_id_by_walking()
            ));
        }
        let expected_first = if self.length == 0 { StreamId::MIN } else { self.first_live_id() };
        if expected_first != self.first_id {
            return Err(format!("first id {} but first live entry {expected_first}", self.first_id));
        }
        if self.entries_added < self.length {
            return Err("entries-added below length".into());
        }
        for (name, group) in &self.groups {
            group.check_invariants().map_err(|e| format!("group {}: {e}", crate::group::quoted(name)))?;
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
mod tests;
