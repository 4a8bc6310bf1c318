//! Trimming: MAXLEN and MINID, exact or `~` (whole nodes only), LIMIT, and the reference
//! policies (KEEPREF, DELREF, ACKED) for the entries groups still hold.

use super::{RefPolicy, Stream, StreamConfig};
use crate::chunked::unshare;
use crate::id::StreamId;
use crate::node::Node;

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

impl Stream {
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
                let node = unshare(self.nodes.get_mut(&key).expect("node being trimmed exists"));
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
}
