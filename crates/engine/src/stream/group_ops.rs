//! The group operations that deliver entries to consumers: XREADGROUP (new entries, history,
//! CLAIM), XNACK, XCLAIM and XAUTOCLAIM, with the read budget they share.

use std::sync::Arc;

use super::{count_limit, Entry, Fields, Stream};
use crate::chunked::ChunkMap;
use crate::group::{ConsumerName, Group};
use crate::id::StreamId;
use crate::node::{Live, Node, RawEntry};

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

/// Who reads from which group, and how much: what XREADGROUP's three ways of serving a
/// stream (new entries, CLAIM, history) share. Named fields, because the group and the
/// consumer are both byte strings and would trade places silently as arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadGroup<'a> {
    /// The group's name.
    pub group: &'a [u8],
    /// The reading consumer, created if needed and marked seen even when nothing is served.
    pub consumer: &'a [u8],
    /// COUNT: at most this many entries (0: all).
    pub count: u64,
    /// NOACK: new entries are delivered without PEL records. Claimed and history entries
    /// are pending already, so it does not apply to them.
    pub no_ack: bool,
    /// The command's time (Unix ms).
    pub now: i64,
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

/// Answers [`Stream::contains`] for ids asked in ascending order (a PEL scan) without walking
/// a node from its start for every id: consecutive ids in the same node continue one walk.
pub(super) struct LiveCursor<'a> {
    nodes: &'a ChunkMap<StreamId, Arc<Node>>,
    node: Option<(&'a Node, Live<'a>)>,
    /// The live entry the walk stopped on (not below the last id asked).
    current: Option<RawEntry>,
}

impl<'a> LiveCursor<'a> {
    pub(super) fn new(nodes: &'a ChunkMap<StreamId, Arc<Node>>) -> LiveCursor<'a> {
        LiveCursor { nodes, node: None, current: None }
    }

    pub(super) fn contains(&mut self, id: StreamId) -> bool {
        let in_node = self.node.as_ref().is_some_and(|(n, _)| n.master_id <= id && id <= n.last_id);
        let behind = self.current.is_some_and(|r| r.id > id);
        if !in_node || behind {
            let Some((_, node)) = self.nodes.range(..=id).next_back() else { return false };
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

/// A stream with one of its groups, found once. The operations below change the group while
/// they read the stream's entries and counters, and the borrow checker lends out one at a
/// time, so the view keeps the name and looks the group up again where it changes it.
struct GroupOp<'a> {
    stream: &'a mut Stream,
    name: &'a [u8],
}

impl GroupOp<'_> {
    fn group(&self) -> &Group {
        self.stream.groups.get(self.name).expect("a GroupOp's group exists")
    }

    fn group_mut(&mut self) -> &mut Group {
        self.stream.groups.get_mut(self.name).expect("a GroupOp's group exists")
    }

    /// Moves the group's cursor to a delivered id, with entries-read counted by the stream's
    /// rules.
    fn advance(&mut self, id: StreamId) {
        let entries_read = self.stream.entries_read_after(self.group(), id);
        let g = self.group_mut();
        let old = std::mem::replace(&mut g.last_id, id);
        g.entries_read = entries_read;
        self.stream.group_moved(Some(old), id);
    }
}

impl Stream {
    /// The view of group `name`, if there is one.
    fn group_op<'a>(&'a mut self, name: &'a [u8]) -> Option<GroupOp<'a>> {
        if !self.groups.contains_key(name) {
            return None;
        }
        Some(GroupOp { stream: self, name })
    }

    /// XREADGROUP with `>`: delivers up to `read.count` entries the group has never
    /// delivered, stopping early when the whole command's `budget` (MAXCOUNT / MAXSIZE,
    /// Redis 8.10) runs out; a skipped entry is not delivered. Returns `None` when there was
    /// nothing to serve.
    pub fn read_group_new(&mut self, read: ReadGroup<'_>, budget: &mut ReadBudget) -> Option<Vec<Entry>> {
        let ReadGroup { group, consumer, count, no_ack, now } = read;
        let last_live = self.last_live_id();
        let mut op = self.group_op(group)?;
        let owner = op.group_mut().see_consumer(consumer, now);
        let cursor = op.group().last_id;
        if op.stream.length == 0 || last_live <= cursor {
            return None;
        }
        let from = cursor.next()?;
        let mut entries = Vec::new();
        for entry in op.stream.range(from, StreamId::MAX, false).take(count_limit(count)) {
            if !budget.admit(&entry) {
                break;
            }
            entries.push(entry);
        }
        for entry in &entries {
            op.advance(entry.id);
            if !no_ack {
                let g = op.group_mut();
                g.assign(entry.id, &owner, now, 1);
                g.mark_active(consumer, now);
            }
        }
        Some(entries)
    }

    /// XREADGROUP ... CLAIM min-idle-time with `>` (Redis 8.4; docs-only, unverified on a
    /// server): before new entries, the consumer takes over pending entries of any consumer
    /// that are idle for at least `min_idle` ms (released ones first, then longest idle
    /// first), up to `read.count` and the command's `budget`. Each comes back with its
    /// idle time (-1 for a released entry, as XPENDING shows it) and how often it had been
    /// delivered before; then it is claimed as XCLAIM would: owner, delivery time now,
    /// delivery count + 1. Pending entries whose stream entry is gone are dropped from the
    /// PEL, as XAUTOCLAIM does.
    pub fn read_group_claim(&mut self, read: ReadGroup<'_>, min_idle: i64, budget: &mut ReadBudget) -> Vec<Claimed> {
        let ReadGroup { group, consumer, count, now, .. } = read;
        let Some(mut op) = self.group_op(group) else { return Vec::new() };
        let g = op.group_mut();
        let owner = g.see_consumer(consumer, now);
        let order = g.claim_order(now, min_idle);
        let limit = count_limit(count);
        let mut out = Vec::new();
        for id in order {
            if out.len() >= limit {
                break;
            }
            let Some(entry) = op.stream.get(id) else {
                op.group_mut().remove_pending(id);
                continue;
            };
            if !budget.admit(&entry) {
                break;
            }
            let g = op.group_mut();
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
        let exists = self.contain_each(ids);
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

    /// XREADGROUP with an explicit id: the consumer's own pending entries after `after`, up to
    /// `read.count`. Entries that still exist are redelivered (count + 1, time now);
    /// deleted ones come back as `None` and are left untouched.
    pub fn read_group_history(&mut self, read: ReadGroup<'_>, after: StreamId) -> Vec<(StreamId, Option<Fields>)> {
        let ReadGroup { group, consumer, count, now, .. } = read;
        let Some(mut op) = self.group_op(group) else { return Vec::new() };
        let g = op.group_mut();
        g.see_consumer(consumer, now);
        let Some(from) = after.next() else { return Vec::new() };
        let mut ids: Vec<StreamId> = Vec::new();
        if let Some(c) = g.consumer(consumer) {
            for &id in c.pending().range(from..).take(count_limit(count)) {
                ids.push(id);
            }
        }
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let fields = op.stream.get(id).map(|e| e.fields);
            if fields.is_some() {
                op.group_mut().redeliver(id, now);
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
        let exists = self.contain_each(ids);
        let Some(mut op) = self.group_op(group) else { return Vec::new() };
        let g = op.group_mut();
        if let Some(last) = opts.last_id.filter(|&last| last > g.last_id) {
            let old = std::mem::replace(&mut g.last_id, last);
            op.stream.group_moved(Some(old), last);
        }
        let g = op.group_mut();
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
        let Some(g) = self.groups.get_mut(group) else { return result };
        let mut attempts = count.saturating_mul(10);
        let mut budget = count;
        let mut examined: Vec<(StreamId, bool)> = Vec::new();
        let mut cursor = g.pel().range(start..).map(|(id, p)| (*id, p.delivery_time));
        let mut next = None;
        let mut live = LiveCursor::new(&self.nodes);
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
}
