//! The keyspace: typed values under byte-string keys, with expiry on the engine clock.

use crate::chunked::ChunkMap;
use crate::glob::glob_match;
use crate::sorted::SortedSet;
use crate::stream::{CounterRules, Stream, StreamConfig};

/// A value stored under a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A stream.
    Stream(Box<Stream>),
    /// A string.
    String(Vec<u8>),
}

impl Value {
    /// The type name TYPE reports.
    pub fn kind(&self) -> ValueKind {
        match self {
            Value::Stream(_) => ValueKind::Stream,
            Value::String(_) => ValueKind::String,
        }
    }
}

/// The type of a value, as TYPE names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// `stream`
    Stream,
    /// `string`
    String,
}

/// The key holds a value of another type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrongType;

/// A key's value and when it expires (Unix ms), if it does.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Slot {
    value: Value,
    expires_at: Option<i64>,
}

/// All keys of the one database, plus the settings that shape streams.
///
/// Keys are kept in byte order so that anything that lists them (KEYS, SCAN, pictures) is
/// deterministic. Expired keys are removed by [`Keyspace::expire_due`], which the session calls
/// once per command with that command's clock reading, so every command sees a keyspace that
/// is consistent with its own instant.
#[derive(Debug, Clone, Default)]
pub struct Keyspace {
    /// Each key's value and expiry, in a chunk map since a keyspace can be large.
    values: ChunkMap<Vec<u8>, Slot>,
    /// The keys that have an expiry, soonest first: exactly the slots with `expires_at`. The
    /// keys due at a command are a prefix, so a command with nothing due pays one look at the
    /// first item. A sorted vector rather than a second chunk map (more generic code in the
    /// browser bundle): setting an expiry moves the items after it, a memmove even with
    /// millions of expiring keys.
    deadlines: SortedSet<(i64, Vec<u8>)>,
    /// Node-size settings for streams.
    pub config: StreamConfig,
    /// The counter rules new streams follow (set from the server profile).
    pub rules: CounterRules,
    ready: Vec<Vec<u8>>,
    touched: Vec<Vec<u8>>,
}

/// Two keyspaces are equal when they hold the same keys, values (to the byte, node boundaries
/// and tombstones included), expiries and settings. The change notifications waiting to be
/// taken are not data, and are not compared.
impl PartialEq for Keyspace {
    fn eq(&self, other: &Keyspace) -> bool {
        self.values == other.values && self.config == other.config
    }
}

impl Eq for Keyspace {}

impl Keyspace {
    /// An empty keyspace with default settings.
    pub fn new() -> Keyspace {
        Keyspace::default()
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value under `key`.
    pub fn get(&self, key: &[u8]) -> Option<&Value> {
        self.values.get(key).map(|slot| &slot.value)
    }

    /// Every key and value, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&Vec<u8>, &Value)> {
        self.values.iter().map(|(key, slot)| (key, &slot.value))
    }

    /// Keys matching a glob pattern, in key order.
    pub fn keys_matching<'a>(&'a self, pattern: &'a [u8]) -> impl Iterator<Item = &'a Vec<u8>> + 'a {
        self.values.keys().filter(move |k| glob_match(pattern, k))
    }

    /// The stream under `key`, if any.
    pub fn stream(&self, key: &[u8]) -> Result<Option<&Stream>, WrongType> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Stream(s)) => Ok(Some(s)),
            Some(_) => Err(WrongType),
        }
    }

    /// The stream under `key`, if any, for changes.
    pub fn stream_mut(&mut self, key: &[u8]) -> Result<Option<&mut Stream>, WrongType> {
        match self.values.get_mut(key).map(|slot| &mut slot.value) {
            None => Ok(None),
            Some(Value::Stream(s)) => Ok(Some(s)),
            Some(_) => Err(WrongType),
        }
    }

    /// The stream under `key`, created empty if the key is missing.
    pub fn stream_or_create(&mut self, key: &[u8]) -> Result<&mut Stream, WrongType> {
        let rules = self.rules;
        let slot = self.values.get_or_insert_with(key, || Slot {
            value: Value::Stream(Box::new(Stream::with_rules(rules))),
            expires_at: None,
        });
        match &mut slot.value {
            Value::Stream(s) => Ok(s),
            _ => Err(WrongType),
        }
    }

    /// The string under `key`, if any.
    pub fn string(&self, key: &[u8]) -> Result<Option<&[u8]>, WrongType> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(WrongType),
        }
    }

    /// Stores a value, replacing whatever was there. The key's expiry is cleared unless
    /// `keep_ttl` is set.
    pub fn set(&mut self, key: &[u8], value: Value, keep_ttl: bool) {
        match self.values.get_mut(key) {
            Some(slot) => {
                if !keep_ttl {
                    if let Some(at) = slot.expires_at.take() {
                        self.deadlines.remove(&(at, key.to_vec()));
                    }
                }
                if let Value::Stream(_) = std::mem::replace(&mut slot.value, value) {
                    // Readers blocked on a stream that was replaced must find out.
                    self.ready.push(key.to_vec());
                }
            }
            None => {
                self.values.insert(key.to_vec(), Slot { value, expires_at: None });
            }
        }
        self.touch(key);
    }

    /// Removes a key; returns whether it existed.
    pub fn remove(&mut self, key: &[u8]) -> bool {
        let Some(slot) = self.take_slot(key) else { return false };
        if let Some(at) = slot.expires_at {
            self.deadlines.remove(&(at, key.to_vec()));
        }
        true
    }

    /// Takes a key's slot out of the keyspace, recording the change and waking the readers
    /// blocked on a stream it held. Its deadline, if any, is left for the caller to drop.
    fn take_slot(&mut self, key: &[u8]) -> Option<Slot> {
        let slot = self.values.remove(key)?;
        if let Value::Stream(_) = slot.value {
            self.ready.push(key.to_vec());
        }
        self.touch(key);
        Some(slot)
    }

    /// Removes every key.
    pub fn flush(&mut self) {
        // The expiring keys first, their deadlines taken at once: removing them one by one
        // would search and shift the deadlines once per key.
        self.remove_expiring(|_| true);
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for key in self.values.keys() {
            keys.push(key.clone());
        }
        for key in keys {
            self.remove(&key);
        }
    }

    /// Sets when a key expires (Unix ms); returns false if the key does not exist.
    pub fn set_expiry(&mut self, key: &[u8], at: i64) -> bool {
        let Some(slot) = self.values.get_mut(key) else { return false };
        if let Some(old) = slot.expires_at.replace(at) {
            self.deadlines.remove(&(old, key.to_vec()));
        }
        self.deadlines.insert((at, key.to_vec()));
        self.touch(key);
        true
    }

    /// Removes a key's expiry; returns whether it had one.
    pub fn persist(&mut self, key: &[u8]) -> bool {
        let Some(at) = self.values.get_mut(key).and_then(|slot| slot.expires_at.take()) else { return false };
        self.deadlines.remove(&(at, key.to_vec()));
        self.touch(key);
        true
    }

    /// When the key expires, if it has an expiry.
    pub fn expiry(&self, key: &[u8]) -> Option<i64> {
        self.values.get(key)?.expires_at
    }

    /// Removes every key whose expiry is at or before `now`.
    pub fn expire_due(&mut self, now: i64) {
        self.remove_expiring(|(at, _)| *at <= now);
    }

    /// Removes the keys of the deadlines that `due` picks (it must pick the soonest ones).
    fn remove_expiring(&mut self, due: impl FnMut(&(i64, Vec<u8>)) -> bool) {
        for (_, key) in self.deadlines.take_while(due) {
            // Its deadline is gone already: only the slot is left to take.
            self.take_slot(&key);
        }
    }

    /// Records that a key changed (WATCH reads this).
    pub fn touch(&mut self, key: &[u8]) {
        self.touched.push(key.to_vec());
    }

    /// Records that readers blocked on a key should look again (new entries, a destroyed
    /// group). This alone is not a change for WATCH — Redis wakes the readers of a group that
    /// XGROUP DESTROY removed, yet WATCH does not see group changes — so callers that change
    /// the key's entries also [`touch`](Keyspace::touch) it.
    pub fn signal_ready(&mut self, key: &[u8]) {
        self.ready.push(key.to_vec());
    }

    /// Takes the keys changed since the last call.
    pub fn take_touched(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.touched)
    }

    /// Forgets the keys changed since the last take, keeping the log's allocation (for a
    /// caller with nobody to tell).
    pub fn clear_touched(&mut self) {
        self.touched.clear();
    }

    /// Forgets the keys signalled ready since the last take, keeping the log's allocation.
    pub fn clear_ready(&mut self) {
        self.ready.clear();
    }

    /// Takes the keys signalled ready since the last call.
    pub fn take_ready(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.ready)
    }

    /// Checks every stream's invariants.
    pub fn check_invariants(&self) -> Result<(), String> {
        self.values.check_invariants().map_err(|e| format!("keyspace: {e}"))?;
        let mut expiring = 0;
        for (key, slot) in &self.values {
            if let Value::Stream(stream) = &slot.value {
                stream.check_invariants().map_err(|e| format!("stream {}: {e}", crate::group::quoted(key)))?;
            }
            if let Some(at) = slot.expires_at {
                expiring += 1;
                if !self.deadlines.contains(&(at, key.clone())) {
                    return Err(format!("expiry of {} missing from the deadlines", crate::group::quoted(key)));
                }
            }
        }
        if expiring != self.deadlines.len() {
            return Err(format!("{expiring} keys expire but {} deadlines are kept", self.deadlines.len()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waking_readers_is_not_a_change() {
        let mut db = Keyspace::new();
        db.stream_or_create(b"s").unwrap();
        db.signal_ready(b"s");
        assert_eq!(db.take_ready(), vec![b"s".to_vec()]);
        assert!(db.take_touched().is_empty());
        // Removing the key is both.
        db.remove(b"s");
        assert_eq!(db.take_ready(), vec![b"s".to_vec()]);
        assert_eq!(db.take_touched(), vec![b"s".to_vec()]);
    }

    #[test]
    fn expiry_follows_the_latest_setting() {
        let mut db = Keyspace::new();
        for key in [b"a", b"b", b"c", b"d"] {
            db.set(key, Value::String(b"v".to_vec()), false);
        }
        assert!(db.set_expiry(b"a", 30));
        assert!(db.set_expiry(b"b", 10));
        assert!(db.set_expiry(b"b", 50)); // moved later: not due at 10
        assert!(db.set_expiry(b"c", 10));
        assert!(db.set_expiry(b"d", 20));
        assert!(db.persist(b"d"));
        assert!(!db.persist(b"d"));
        assert!(!db.set_expiry(b"missing", 1));
        db.check_invariants().unwrap();
        db.expire_due(9);
        assert_eq!(db.len(), 4);
        db.expire_due(30);
        let left: Vec<&[u8]> = db.iter().map(|(k, _)| k.as_slice()).collect();
        assert_eq!(left, [b"b".as_slice(), b"d"]);
        assert_eq!(db.expiry(b"b"), Some(50));
        // A plain SET forgets the expiry; KEEPTTL keeps it.
        db.set(b"b", Value::String(b"w".to_vec()), true);
        assert_eq!(db.expiry(b"b"), Some(50));
        db.set(b"b", Value::String(b"x".to_vec()), false);
        assert_eq!(db.expiry(b"b"), None);
        db.check_invariants().unwrap();
        db.expire_due(100);
        assert_eq!(db.len(), 2);
        assert!(db.set_expiry(b"d", 500));
        db.flush();
        assert!(db.is_empty());
        db.check_invariants().unwrap();
        db.set(b"d", Value::String(b"v".to_vec()), false);
        db.expire_due(1000);
        assert_eq!(db.expiry(b"d"), None);
        assert_eq!(db.len(), 1);
    }

    #[test]
    fn cleared_logs_are_empty() {
        let mut db = Keyspace::new();
        db.touch(b"a");
        db.signal_ready(b"a");
        db.clear_touched();
        assert!(db.take_touched().is_empty());
        assert_eq!(db.take_ready(), vec![b"a".to_vec()]);
        db.signal_ready(b"b");
        db.clear_ready();
        assert!(db.take_ready().is_empty());
    }
}
