//! A stream: its nodes of entries, the metadata Redis keeps beside them, and its groups.

use std::cell::Cell;

use crate::chunked::ChunkMap;
use crate::group::{ConsumerName, Group};
use crate::id::{AddId, StreamId};
use crate::node::{Live, Node, RawEntry};
use crate::sorted::SortedMap;
use crate::walk::Walk;

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

/// IDMP defaults and limits (Redis 8.6, docs-only, unverified on a server).
pub const IDMP_DEFAULT_DURATION: u64 = 100;
/// The default number of idempotency ids kept per producer.
pub const IDMP_DEFAULT_MAXSIZE: u64 = 100;

/// One remembered idempotency id: the id, the entry it produced, when (Unix ms).
type Remembered = (Vec<u8>, StreamId, i64);

/// A stream's idempotent-production state (XADD IDMP / IDMPAUTO, XCFGSET; Redis 8.6,
/// docs-only, unverified on a server): per producer, its recent idempotency ids with the entry
/// id each produced and when, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idmp {
    /// Seconds an idempotency id is remembered (`idmp-duration`).
    pub duration: u64,
    /// Idempotency ids remembered per producer (`idmp-maxsize`).
    pub maxsize: u64,
    /// A `Vec`, not a `VecDeque`: dropping the oldest moves the list (at most `idmp-maxsize`,
    /// 10,000), no more work than the linear `lookup` each XADD IDMP already does, and
    /// `VecDeque` was its own 3 KB of code in the wasm bundles, used nowhere else.
    producers: SortedMap<Vec<u8>, Vec<Remembered>>,
    /// Idempotency ids ever recorded (`iids-added`).
    pub added: u64,
    /// XADDs answered with an earlier entry's id (`iids-duplicates`).
    pub duplicates: u64,
}

impl Default for Idmp {
    fn default() -> Self {
        Idmp {
            duration: IDMP_DEFAULT_DURATION,
            maxsize: IDMP_DEFAULT_MAXSIZE,
            producers: SortedMap::new(),
            added: 0,
            duplicates: 0,
        }
    }
}

impl Idmp {
    fn live(&self, at: i64, now: i64) -> bool {
        now.saturating_sub(at) < i64::try_from(self.duration.saturating_mul(1000)).unwrap_or(i64::MAX)
    }

    /// The entry id an idempotency id produced, if it is remembered at `now`.
    pub fn lookup(&self, producer: &[u8], iid: &[u8], now: i64) -> Option<StreamId> {
        self.producers
            .get(producer)?
            .iter()
            .find(|(i, _, at)| i.as_slice() == iid && self.live(*at, now))
            .map(|(_, id, _)| *id)
    }

    /// Forgets what has outlived the window.
    pub fn expire(&mut self, now: i64) {
        let (duration, maxsize) = (self.duration, self.maxsize);
        let probe = Idmp { duration, maxsize, ..Idmp::default() };
        for iids in self.producers.values_mut() {
            iids.retain(|(_, _, at)| probe.live(*at, now));
        }
        self.producers.retain(|_, iids| !iids.is_empty());
    }

    /// Remembers that `iid` of `producer` produced `id`; the producer's oldest ids go once it
    /// holds more than `maxsize`.
    pub fn record(&mut self, producer: &[u8], iid: &[u8], id: StreamId, now: i64) {
        let (_, iids) = self.producers.get_or_insert_with(producer, Vec::new);
        iids.push((iid.to_vec(), id, now));
        while iids.len() as u64 > self.maxsize {
            iids.remove(0);
        }
        self.added += 1;
    }

    /// XCFGSET: new settings; a changed value clears every producer's history (the lifetime
    /// counters stay).
    pub fn configure(&mut self, duration: Option<u64>, maxsize: Option<u64>) {
        let duration = duration.unwrap_or(self.duration);
        let maxsize = maxsize.unwrap_or(self.maxsize);
        if (duration, maxsize) != (self.duration, self.maxsize) {
            self.producers.clear();
        }
        self.duration = duration;
        self.maxsize = maxsize;
    }

    /// Producers and idempotency ids remembered at `now` (`pids-tracked`, `iids-tracked`).
    pub fn tracked(&self, now: i64) -> (u64, u64) {
        let mut pids = 0;
        let mut iids = 0;
        for list in self.producers.values() {
            let live = list.iter().filter(|(_, _, at)| self.live(*at, now)).count() as u64;
            if live > 0 {
                pids += 1;
                iids += live;
            }
        }
        (pids, iids)
    }
}

/// A stream value.
#[derive(Debug, Clone, Default)]
pub struct Stream {
    nodes: ChunkMap<StreamId, Node>,
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
    min_group_last_id: Cell<Option<StreamId>>,
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
    pub fn nodes(&self) -> &ChunkMap<StreamId, Node> {
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
                tail.seal();
            }
            self.nodes.insert(id, Node::new(id, fields));
        }
        self.nodes.last_value_mut().expect("a tail node exists").append(id, fields);
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
                        raws.into_iter().rev().map(move |r| (n, r))
                    })
                    .skip_while(move |(_, r)| r.id > end)
                    .take_while(move |(_, r)| r.id >= start),
            )
        } else {
            let from = self.nodes.range(..=start).next_back().map(|(k, _)| *k).unwrap_or(StreamId::MIN);
            Walk::Left(
                self.nodes
                    .range(from..)
                    .flat_map(|(_, n)| n.live().map(move |r| (n, r)))
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
        let node = self.nodes.get_mut(&key).expect("located node exists");
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
        // Plain loops rather than `collect` where it pays: each collected adapter chain is its
        // own code in the wasm bundles.
        let mut keys: Vec<StreamId> = Vec::new();
        for &key in self.nodes.keys() {
            keys.push(key);
        }
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
            let live_ids = |node: &Node| -> Vec<StreamId> { node.live().map(|r| r.id).collect() };
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
        self.read_group_new_within(group, consumer, count, no_ack, now, &mut ReadBudget::default())
    }

    /// [`Stream::read_group_new`] that also stops when the whole command's `budget`
    /// (MAXCOUNT / MAXSIZE, Redis 8.10) runs out. A skipped entry is not delivered.
    pub fn read_group_new_within(
        &mut self,
        group: &[u8],
        consumer: &[u8],
        count: u64,
        no_ack: bool,
        now: i64,
        budget: &mut ReadBudget,
    ) -> Option<Vec<Entry>> {
        let last_live = self.last_live_id();
        let g = self.groups.get_mut(group)?;
        let owner = g.see_consumer(consumer, now);
        if self.length == 0 || last_live <= g.last_id {
            return None;
        }
        let from = g.last_id.next()?;
        let limit = if count == 0 { usize::MAX } else { usize::try_from(count).unwrap_or(usize::MAX) };
        let mut entries = Vec::new();
        for entry in self.range(from, StreamId::MAX, false) {
            if entries.len() >= limit || !budget.admit(&entry) {
                break;
            }
            entries.push(entry);
        }
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

    /// XREADGROUP ... CLAIM min-idle-time with `>` (Redis 8.4; docs-only, unverified on a
    /// server): before new entries, the consumer takes over pending entries of any consumer
    /// that are idle for at least `min_idle` ms (released ones first, then longest idle
    /// first), up to `count` (0: all) and the command's `budget`. Each comes back with its
    /// idle time (-1 for a released entry, as XPENDING shows it) and how often it had been
    /// delivered before; then it is claimed as XCLAIM would: owner, delivery time now,
    /// delivery count + 1. Pending entries whose stream entry is gone are dropped from the
    /// PEL, as XAUTOCLAIM does.
    pub fn read_group_claim(
        &mut self,
        group: &[u8],
        consumer: &[u8],
        min_idle: i64,
        count: u64,
        now: i64,
        budget: &mut ReadBudget,
    ) -> Vec<Claimed> {
        let Some(g) = self.groups.get_mut(group) else { return Vec::new() };
        let owner = g.see_consumer(consumer, now);
        let order = g.claim_order(now, min_idle);
        let limit = if count == 0 { usize::MAX } else { usize::try_from(count).unwrap_or(usize::MAX) };
        let mut out = Vec::new();
        for id in order {
            if out.len() >= limit {
                break;
            }
            let Some(entry) = self.get(id) else {
                self.groups.get_mut(group).expect("group exists").remove_pending(id);
                continue;
            };
            if !budget.admit(&entry) {
                break;
            }
            let g = self.groups.get_mut(group).expect("group exists");
            let record = g.pel()[&id].clone();
            let idle = if record.owner.is_none() { -1 } else { now - record.delivery_time };
            g.assign(id, &owner, now, record.delivery_count.saturating_add(1));
            g.mark_active(consumer, now);
            out.push(Claimed { entry, idle, delivered: record.delivery_count });
        }
        out
    }

    /// XNACK (Redis 8.8; docs-only, unverified on a server): releases pending entries of
    /// `group`. The delivery count follows `mode` unless `retry_count` sets it; with `force`,
    /// ids that exist in the stream but are not pending get a released record (count 0, or
    /// RETRYCOUNT, or the FATAL maximum). Returns how many ids were released.
    pub fn nack(
        &mut self,
        group: &[u8],
        ids: &[StreamId],
        mode: NackMode,
        retry_count: Option<u64>,
        force: bool,
    ) -> u64 {
        let exists: Vec<bool> = ids.iter().map(|&id| self.contains(id)).collect();
        let Some(g) = self.groups.get_mut(group) else { return 0 };
        let fatal = i64::MAX as u64;
        let mut released = 0;
        for (&id, &exists) in ids.iter().zip(&exists) {
            let done = g.release(id, |count| match (retry_count, mode) {
                (Some(n), _) => n,
                (None, NackMode::Silent) => count.saturating_sub(1),
                (None, NackMode::Fail) => count,
                (None, NackMode::Fatal) => fatal,
            });
            if done {
                released += 1;
            } else if force && exists {
                let count = retry_count.unwrap_or(if mode == NackMode::Fatal { fatal } else { 0 });
                g.release_new(id, count);
                released += 1;
            }
        }
        released
    }

    /// Moves a group's cursor to a delivered id, keeping entries-read exact where it can.
    ///
    /// The counter only counts on by one when nothing lies between the cursor and the new
    /// id: no tombstone after the cursor, and no trimmed entry either, which is the case when
    /// the cursor is behind the first entry (Redis 8.2, redis/redis#13958). Otherwise it is
    /// estimated again from the new id.
    /// Observed on Redis 8.2.3: after `XGROUP SETID s g 0 ENTRIESREAD 3` on a five-entry
    /// stream, reading `1-0` leaves entries-read at 1, not 4.
    fn advance_group(&mut self, group: &[u8], id: StreamId) {
        let g = &self.groups[group];
        let counts_on = match self.rules {
            // Redis 7.4 looks for tombstones from the delivered id, and misses a trim between.
            CounterRules::Redis74 => !self.tombstones_from(id),
            CounterRules::Redis82 | CounterRules::Valkey9 => {
                g.last_id >= self.first_id && !self.tombstones_from(g.last_id)
            }
        };
        let entries_read = match g.entries_read {
            Some(read) if counts_on => Some(read + 1),
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
        let mut ids: Vec<StreamId> = Vec::new();
        if let Some(c) = g.consumer(consumer) {
            for &id in c.pending().range(from..).take(limit) {
                ids.push(id);
            }
        }
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
        let mut live = LiveCursor::new(self);
        while attempts > 0 && budget > 0 {
            let Some((id, delivered)) = cursor.next() else { break };
            attempts -= 1;
            if !live.contains(id) {
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

    fn add(stream: &mut Stream, ms: u64) {
        let fields = [b"data".to_vec(), b"x".to_vec()];
        stream.add(AddId::Explicit(StreamId::new(ms, 0)), &fields, 0, StreamConfig::default()).unwrap();
    }

    #[test]
    fn live_cursor_agrees_with_contains() {
        let mut stream = Stream::new();
        let config = StreamConfig { node_max_entries: 3, node_max_bytes: 0 };
        let fields = [b"f".to_vec(), b"v".to_vec()];
        for ms in (2..40).step_by(2) {
            stream.add(AddId::Explicit(StreamId::new(ms, 0)), &fields, 0, config).unwrap();
        }
        for ms in [4, 10, 12, 14, 30] {
            assert!(stream.delete(StreamId::new(ms, 0)));
        }
        let ids: Vec<StreamId> = (0..44).map(|ms| StreamId::new(ms, 0)).collect();
        for stride in 1..5 {
            let mut cursor = LiveCursor::new(&stream);
            for &id in ids.iter().step_by(stride) {
                assert_eq!(cursor.contains(id), stream.contains(id), "{id} (stride {stride})");
            }
        }
        // Asking again, or going back, starts over rather than answering wrongly.
        let mut cursor = LiveCursor::new(&stream);
        for ms in [8, 8, 6, 20, 2, 38, 39, 0] {
            let id = StreamId::new(ms, 0);
            assert_eq!(cursor.contains(id), stream.contains(id), "{id}");
        }
    }

    /// Found by the engine property test: a trim that removes entries the group has not read
    /// yet left the group's read counter one behind per removed entry once it read on, so the
    /// lag stayed wrong (redis/redis#13957, fixed in Redis 8.2 by #13958).
    #[test]
    fn reading_past_a_trim_recomputes_entries_read() {
        let mut stream = Stream::new();
        for ms in 1..=5 {
            add(&mut stream, ms);
        }
        assert!(stream.create_group(b"g1", StreamId::MIN, None));
        let read = stream.read_group_new(b"g1", b"c11", 1, false, 0).unwrap();
        assert_eq!(read[0].id, StreamId::new(1, 0));
        assert_eq!(stream.group(b"g1").unwrap().entries_read, Some(1));
        let trim = Trim { strategy: TrimStrategy::MaxLen(1), approx: false, limit: None, policy: RefPolicy::KeepRef };
        assert_eq!(stream.trim(trim, StreamConfig::default()), 4);
        assert_eq!(stream.lag(stream.group(b"g1").unwrap()), Some(1));
        let read = stream.read_group_new(b"g1", b"c11", 1, false, 0).unwrap();
        assert_eq!(read[0].id, StreamId::new(5, 0));
        let group = stream.group(b"g1").unwrap();
        assert_eq!(group.entries_read, Some(5));
        assert_eq!(stream.lag(group), Some(0));
    }
}
