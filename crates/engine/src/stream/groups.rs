//! Consumer groups on a stream: creating, moving and destroying them, entries-read and lag,
//! and the operations that deliver entries to consumers (read new, read history, XREADGROUP
//! CLAIM, XNACK, claim, autoclaim).

use super::*;

impl Stream {
    /// ENTRIESREAD as stored: clamped to entries-added by Redis 8.2, verbatim elsewhere.
    pub(super) fn clamp_entries_read(&self, entries_read: Option<u64>) -> Option<u64> {
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
    pub(super) fn tombstones_from(&self, from: StreamId) -> bool {
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

    /// Moves a group's cursor to a delivered id, keeping entries-read exact where it can.
    ///
    /// The counter only counts on by one when nothing lies between the cursor and the new
    /// id: no tombstone after the cursor, and no trimmed entry either, which is the case when
    /// the cursor is behind the first entry (Redis 8.2, redis/redis#13958). Otherwise it is
    /// estimated again from the new id.
    /// Observed on Redis 8.2.3: after `XGROUP SETID s g 0 ENTRIESREAD 3` on a five-entry
    /// stream, reading `1-0` leaves entries-read at 1, not 4.
    pub(super) fn advance_group(&mut self, group: &[u8], id: StreamId) {
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
        let exists = self.contain_each(ids);
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
}
