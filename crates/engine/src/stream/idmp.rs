//! Idempotent production (XADD IDMP / IDMPAUTO, XCFGSET): per producer, the recent
//! idempotency ids and the entries they produced.

use crate::id::StreamId;
use crate::sorted::SortedMap;

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
