//! A stream: its nodes of entries, the metadata Redis keeps beside them, and its groups.

use std::sync::atomic::AtomicBool;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crate::chunked::{unshare, ChunkMap};
use crate::group::{ConsumerName, Group};
use crate::id::{AddId, StreamId};
use crate::node::{Live, Node, RawEntry};
use crate::sorted::SortedMap;
use crate::walk::Walk;

mod groups;
mod idmp;
mod trim;

pub use idmp::{Idmp, IDMP_DEFAULT_DURATION, IDMP_DEFAULT_MAXSIZE};

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

/// The ACKED cache's cell: filled and cleared through `&self` (it is a cache, not content).
/// Atomics rather than a `Cell`: a session, streams and all, moves to the server's event-loop
/// thread, and undo checkpoints share streams through `Arc`s, which needs `Sync`. Only one
/// thread ever touches a session, so relaxed loads and stores are exact (and on wasm they are
/// plain ones; a mutex here cost the bundles most of a KB).
#[derive(Debug, Default)]
struct FloorCache {
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

    // ----- deleting and trimming ----------------------------------------------------------

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

    /// Whether every group has delivered and acknowledged `id` (true when there are no
    /// groups). "Delivered" is judged against the cached minimum last-delivered id, stale or
    /// not (see `min_group_last_id`); pending entries are always exact.
    fn acknowledged_by_all(&self, id: StreamId) -> bool {
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

    // ----- groups -------------------------------------------------------------------------

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

/// Answers [`Stream::contains`] for ids asked in ascending order (a PEL scan) without walking
/// a node from its start for every id: consecutive ids in the same node continue one walk.
struct LiveCursor<'a> {
    stream: &'a Stream,
    node: Option<(&'a Node, Live<'a>)>,
    /// The live entry the walk stopped on (not below the last id asked).
    current: Option<RawEntry>,
}

impl<'a> LiveCursor<'a> {
    fn new(stream: &'a Stream) -> LiveCursor<'a> {
        LiveCursor { stream, node: None, current: None }
    }

    fn contains(&mut self, id: StreamId) -> bool {
        let in_node = self.node.as_ref().is_some_and(|(n, _)| n.master_id <= id && id <= n.last_id);
        let behind = self.current.is_some_and(|r| r.id > id);
        if !in_node || behind {
            let Some((_, node)) = self.stream.nodes.range(..=id).next_back() else { return false };
            if id > node.last_id {
                return false;
            }
            self.node = Some((node, node.live()));
            self.current = None;
        }
        let (_, walk) = self.node.as_mut().expect("a node is being walked");
        loop {
            let entry = match self.current {
                Some(entry) => entry,
                None => match walk.next() {
                    Some(entry) => entry,
                    None => return false,
                },
            };
            if entry.id < id {
                self.current = None;
                continue;
            }
            self.current = Some(entry);
            return entry.id == id;
        }
    }
}

/// How XNACK changes a released entry's delivery count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NackMode {
    /// One delivery less: the delivery "did not count".
    Silent,
    /// Unchanged.
    Fail,
    /// The largest count (2^63 - 1): never to be retried.
    Fatal,
}

/// A pending entry taken over by XREADGROUP ... CLAIM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// The entry.
    pub entry: Entry,
    /// Milliseconds since its last delivery (-1 for a released entry).
    pub idle: i64,
    /// How many times it had been delivered before this claim.
    pub delivered: u64,
}

/// What one XREAD / XREADGROUP may still return across all its streams: MAXCOUNT entries and
/// MAXSIZE bytes (Redis 8.10; docs-only, unverified on a server). An entry's size is its field
/// and value bytes; the size is checked before each entry, so the first entry always fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadBudget {
    /// MAXCOUNT, if given.
    pub max_count: Option<u64>,
    /// MAXSIZE, if given.
    pub max_size: Option<u64>,
    /// Entries admitted so far.
    pub entries: u64,
    /// Bytes admitted so far.
    pub bytes: u64,
}

impl ReadBudget {
    /// Admits `entry` if the budget allows it, and counts it.
    pub fn admit(&mut self, entry: &Entry) -> bool {
        if self.max_count.is_some_and(|max| self.entries >= max) {
            return false;
        }
        if self.max_size.is_some_and(|max| self.bytes >= max) {
            return false;
        }
        self.entries += 1;
        self.bytes += entry.fields.iter().map(|(f, v)| (f.len() + v.len()) as u64).sum::<u64>();
        true
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
