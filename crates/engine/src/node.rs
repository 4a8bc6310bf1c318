//! One stream node: a run of consecutive entries packed into a single byte buffer.
//!
//! Layout of `buf`, entry after entry (all integers are LEB128 varints):
//! `flags`, `ms - master.ms`, then the sequence (relative to the master's when the
//! millisecond part is the master's, absolute otherwise), then — only when the entry's field
//! names differ from the node's master fields — the field count and the field names, then the
//! values. Every field name or value is a varint header followed by its bytes: an even header
//! `2n` announces `n` raw bytes; an odd header carries a canonical integer in zig-zag form, so
//! numeric values cost a few bytes and still print back exactly as they were written.
//!
//! A deleted entry keeps its bytes and only gains the deleted flag, as in Redis, because node
//! membership (live + deleted) decides where nodes end and what `~` trimming can remove.

use crate::id::StreamId;
use crate::listpack;

const FLAG_DELETED: u8 = 1;
const FLAG_SAME_FIELDS: u8 = 2;

/// A stream node (a Redis listpack's worth of entries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// The id of the node's first entry; Redis keys its radix tree by it.
    pub master_id: StreamId,
    master_fields: Box<[Box<[u8]>]>,
    buf: Vec<u8>,
    /// Entries not deleted.
    pub live: u32,
    /// Entries deleted but still taking room in the node.
    pub deleted: u32,
    /// The id of the last entry, deleted or not.
    pub last_id: StreamId,
    /// Where the last entry's flags byte is in `buf`, so its deleted flag can be read at once.
    last_at: u32,
    /// Redis's listpack size without the live and deleted counters (they change size as they
    /// grow, so they are added in [`Node::listpack_bytes`]).
    lp_fixed: u64,
}

/// An entry's position inside a node, as met while walking it.
#[derive(Debug, Clone, Copy)]
pub struct RawEntry {
    /// The entry's id.
    pub id: StreamId,
    /// Whether the entry is a tombstone.
    pub deleted: bool,
    flags_at: usize,
    body_at: usize,
}

impl Node {
    /// Starts a node whose master fields are the first entry's field names.
    pub fn new(id: StreamId, fields: &[Vec<u8>]) -> Node {
        let names: Box<[Box<[u8]>]> = fields.iter().step_by(2).map(|f| f.clone().into_boxed_slice()).collect();
        let lp_fixed = listpack::EMPTY
            + listpack::int_size(names.len() as i64)
            + names.iter().map(|n| listpack::str_size(n)).sum::<u64>()
            + listpack::int_size(0);
        Node {
            master_id: id,
            master_fields: names,
            buf: Vec::new(),
            live: 0,
            deleted: 0,
            last_id: id,
            last_at: 0,
            lp_fixed,
        }
    }

    /// The size Redis's listpack for this node would have, in bytes.
    pub fn listpack_bytes(&self) -> u64 {
        self.lp_fixed + listpack::int_size(i64::from(self.live)) + listpack::int_size(i64::from(self.deleted))
    }

    /// Entries in the node, live and deleted.
    pub fn members(&self) -> u64 {
        u64::from(self.live) + u64::from(self.deleted)
    }

    /// Releases spare capacity once the node will not grow any more.
    pub fn seal(&mut self) {
        self.buf.shrink_to_fit();
    }

    /// Appends an entry; `fields` alternates names and values. The caller has checked that the
    /// id is greater than every live id in the node (a tombstone may be above it: see
    /// [`Node::find`]).
    pub fn append(&mut self, id: StreamId, fields: &[Vec<u8>]) {
        let pairs = fields.len() / 2;
        let same = pairs == self.master_fields.len()
            && fields.iter().step_by(2).zip(self.master_fields.iter()).all(|(a, b)| a[..] == b[..]);
        let flags = if same { FLAG_SAME_FIELDS } else { 0 };
        let ms_delta = id.ms - self.master_id.ms;
        let seq_delta = id.seq.wrapping_sub(self.master_id.seq);

        // Encode and add up the listpack cost in one pass, so every value is parsed once:
        // flags, ms delta, seq delta, [count, names], values, then the entry's lp-count.
        let mut lp = listpack::int_size(i64::from(flags))
            + listpack::int_size(ms_delta as i64)
            + listpack::int_size(seq_delta as i64);
        let mut lp_count = pairs as i64 + 3;
        // A node holds at most a listpack's worth (1 GiB) of entries, so offsets fit in 32 bits.
        // (`unreachable!` with a plain message, not `expect`: that would link the error's Debug.)
        let Ok(last_at) = u32::try_from(self.buf.len()) else { unreachable!("a node is smaller than 4 GiB") };
        self.last_at = last_at;
        self.buf.push(flags);
        put_varint(&mut self.buf, ms_delta);
        put_varint(&mut self.buf, if ms_delta == 0 { seq_delta } else { id.seq });
        if !same {
            lp += listpack::int_size(pairs as i64);
            lp_count += pairs as i64 + 1;
            put_varint(&mut self.buf, pairs as u64);
            for name in fields.iter().step_by(2) {
                lp += put_value(&mut self.buf, name);
            }
        }
        for value in fields.iter().skip(1).step_by(2) {
            lp += put_value(&mut self.buf, value);
        }
        lp += listpack::int_size(lp_count);
        self.lp_fixed += lp;
        self.live += 1;
        self.last_id = id;
    }

    /// Whether the node's last entry is live (false for an empty node).
    pub fn last_is_live(&self) -> bool {
        self.buf.get(self.last_at as usize).is_some_and(|&flags| flags & FLAG_DELETED == 0)
    }

    /// Walks the node's entries in the order they were added, tombstones included. Live
    /// entries come in increasing id order; a tombstone may be followed by smaller ids (see
    /// [`Node::find`]).
    pub fn walk(&self) -> Walk<'_> {
        Walk { node: self, at: 0 }
    }

    /// Walks the node's live entries: in id order, since only tombstones can be out of it.
    /// Every lookup and range goes through this, so none compares a tombstone's id.
    pub fn live(&self) -> Live<'_> {
        Live(self.walk())
    }

    /// Finds the live entry with exactly this id.
    ///
    /// Tombstones are passed over, not compared: XSETID with MAXDELETEDID can move the last id
    /// below a deleted entry, and later entries then follow the tombstone with smaller ids, or
    /// with its very id (Redis 8.2.3 keeps both in the listpack and finds the live one; XDEL of
    /// that id answers 1).
    pub fn find(&self, id: StreamId) -> Option<RawEntry> {
        if id < self.master_id || id > self.last_id {
            return None;
        }
        self.live().take_while(|e| e.id <= id).find(|e| e.id == id)
    }

    /// Marks an entry deleted. Returns false if it already was.
    pub fn mark_deleted(&mut self, entry: &RawEntry) -> bool {
        let flags = &mut self.buf[entry.flags_at];
        if *flags & FLAG_DELETED != 0 {
            return false;
        }
        *flags |= FLAG_DELETED;
        self.live -= 1;
        self.deleted += 1;
        true
    }

    /// The entry's fields as (name, value) pairs.
    pub fn fields(&self, entry: &RawEntry) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut at = entry.body_at;
        let same = self.buf[entry.flags_at] & FLAG_SAME_FIELDS != 0;
        // Loops rather than `collect` chains: each chain is a copy of its own in wasm.
        let mut fields = Vec::new();
        if same {
            fields.reserve(self.master_fields.len());
            for name in &self.master_fields {
                fields.push((name.to_vec(), read_value(&self.buf, &mut at)));
            }
        } else {
            // All the names come first, then all the values.
            let pairs = read_varint(&self.buf, &mut at) as usize;
            fields.reserve(pairs);
            for _ in 0..pairs {
                fields.push((read_value(&self.buf, &mut at), Vec::new()));
            }
            for (_, value) in &mut fields {
                *value = read_value(&self.buf, &mut at);
            }
        }
        fields
    }
}

/// Iterator over a node's live entries ([`Node::live`]).
pub struct Live<'a>(Walk<'a>);

impl Iterator for Live<'_> {
    type Item = RawEntry;

    fn next(&mut self) -> Option<RawEntry> {
        self.0.find(|e| !e.deleted)
    }
}

/// Iterator over a node's entries.
pub struct Walk<'a> {
    node: &'a Node,
    at: usize,
}

impl Iterator for Walk<'_> {
    type Item = RawEntry;

    fn next(&mut self) -> Option<RawEntry> {
        let buf = &self.node.buf;
        if self.at >= buf.len() {
            return None;
        }
        let flags_at = self.at;
        let flags = buf[flags_at];
        let mut at = flags_at + 1;
        let ms_delta = read_varint(buf, &mut at);
        let seq = read_varint(buf, &mut at);
        let master = self.node.master_id;
        let id = if ms_delta == 0 {
            StreamId::new(master.ms, master.seq.wrapping_add(seq))
        } else {
            StreamId::new(master.ms + ms_delta, seq)
        };
        let body_at = at;
        let values = if flags & FLAG_SAME_FIELDS != 0 {
            self.node.master_fields.len()
        } else {
            let pairs = read_varint(buf, &mut at) as usize;
            for _ in 0..pairs {
                skip_value(buf, &mut at);
            }
            pairs
        };
        for _ in 0..values {
            skip_value(buf, &mut at);
        }
        self.at = at;
        Some(RawEntry { id, deleted: flags & FLAG_DELETED != 0, flags_at, body_at })
    }
}

fn put_varint(buf: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        buf.push((value as u8) | 0x80);
        value >>= 7;
    }
    buf.push(value as u8);
}

fn read_varint(buf: &[u8], at: &mut usize) -> u64 {
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = buf[*at];
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return value;
        }
        shift += 7;
    }
}

/// Integers whose zig-zag form needs the top bit cannot be tagged; they are stored as text.
const MAX_TAGGED: u64 = u64::MAX >> 1;

/// Appends a field name or value and returns what it costs in Redis's listpack.
fn put_value(buf: &mut Vec<u8>, value: &[u8]) -> u64 {
    if let Some(n) = crate::numbers::canonical_i64(value) {
        let zigzag = ((n << 1) ^ (n >> 63)) as u64;
        if zigzag <= MAX_TAGGED {
            put_varint(buf, (zigzag << 1) | 1);
        } else {
            put_text(buf, value);
        }
        return listpack::int_size(n);
    }
    put_text(buf, value);
    listpack::text_size(value.len() as u64)
}

fn put_text(buf: &mut Vec<u8>, value: &[u8]) {
    put_varint(buf, (value.len() as u64) << 1);
    buf.extend_from_slice(value);
}

fn read_value(buf: &[u8], at: &mut usize) -> Vec<u8> {
    let header = read_varint(buf, at);
    if header & 1 == 1 {
        let zigzag = header >> 1;
        let n = ((zigzag >> 1) as i64) ^ -((zigzag & 1) as i64);
        n.to_string().into_bytes()
    } else {
        let len = (header >> 1) as usize;
        let value = buf[*at..*at + len].to_vec();
        *at += len;
        value
    }
}

fn skip_value(buf: &[u8], at: &mut usize) {
    let header = read_varint(buf, at);
    if header & 1 == 0 {
        *at += (header >> 1) as usize;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(items: &[&str]) -> Vec<Vec<u8>> {
        items.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn round_trips_entries() {
        let mut node = Node::new(StreamId::new(5, 3), &v(&["a", "1"]));
        node.append(StreamId::new(5, 3), &v(&["a", "1"]));
        node.append(StreamId::new(5, 9), &v(&["a", "-42"]));
        node.append(StreamId::new(7, 0), &v(&["b", "x", "c", "9223372036854775807"]));
        node.append(StreamId::new(8, 1), &v(&["a", "007"]));
        let ids: Vec<_> = node.walk().map(|e| e.id).collect();
        assert_eq!(ids, [StreamId::new(5, 3), StreamId::new(5, 9), StreamId::new(7, 0), StreamId::new(8, 1)]);
        let third = node.find(StreamId::new(7, 0)).unwrap();
        assert_eq!(
            node.fields(&third),
            [(b"b".to_vec(), b"x".to_vec()), (b"c".to_vec(), b"9223372036854775807".to_vec())]
        );
        let fourth = node.find(StreamId::new(8, 1)).unwrap();
        assert_eq!(node.fields(&fourth), [(b"a".to_vec(), b"007".to_vec())]);
        assert!(node.mark_deleted(&third));
        assert!(!node.mark_deleted(&third));
        assert_eq!((node.live, node.deleted), (3, 1));
        assert!(node.last_is_live());
        assert!(node.mark_deleted(&fourth));
        assert!(!node.last_is_live());
        // A tombstone is not found, and does not hide what follows it.
        assert!(node.find(StreamId::new(7, 0)).is_none());
        assert!(node.walk().find(|e| e.id == StreamId::new(7, 0)).unwrap().deleted);
        node.append(StreamId::new(7, 0), &v(&["a", "again"]));
        let again = node.find(StreamId::new(7, 0)).unwrap();
        assert!(!again.deleted);
        assert_eq!(node.fields(&again), [(b"a".to_vec(), b"again".to_vec())]);
    }

    /// The listpack cost of an entry, written out term by term as Redis lays it out; `append`
    /// computes it while encoding, and must agree.
    fn reference_entry_size(node: &Node, id: StreamId, fields: &[Vec<u8>]) -> u64 {
        let pairs = fields.len() / 2;
        let same = pairs == node.master_fields.len()
            && fields.iter().step_by(2).zip(node.master_fields.iter()).all(|(a, b)| a[..] == b[..]);
        let flags = if same { FLAG_SAME_FIELDS } else { 0 };
        let mut lp = listpack::int_size(i64::from(flags))
            + listpack::int_size((id.ms - node.master_id.ms) as i64)
            + listpack::int_size(id.seq.wrapping_sub(node.master_id.seq) as i64);
        let mut lp_count = pairs as i64 + 3;
        if !same {
            lp +=
                listpack::int_size(pairs as i64) + fields.iter().step_by(2).map(|f| listpack::str_size(f)).sum::<u64>();
            lp_count += pairs as i64 + 1;
        }
        lp + fields.iter().skip(1).step_by(2).map(|v| listpack::str_size(v)).sum::<u64>() + listpack::int_size(lp_count)
    }

    #[test]
    fn listpack_accounting_matches_the_reference_for_every_kind_of_value() {
        let values = [
            "0",
            "-0",
            "7",
            "-7",
            "127",
            "128",
            "-4096",
            "4096",
            "1000000",
            "-2147483648",
            "9780000000000",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "007",
            "x",
            "order-created",
            "",
            "1.5",
            " 1",
        ];
        let long = "y".repeat(70);
        let mut node = Node::new(StreamId::new(100, 5), &v(&["type", "x"]));
        let mut seq = 5;
        for (i, value) in values.iter().copied().chain([long.as_str()]).enumerate() {
            for fields in [v(&["type", value]), v(&["type", value, "n", "1"]), v(&[value, value])] {
                let id = StreamId::new(100 + (i as u64 / 2) * 1000, seq);
                seq += 1;
                let expected = reference_entry_size(&node, id, &fields);
                let fixed_before = node.lp_fixed;
                node.append(id, &fields);
                assert_eq!(node.lp_fixed - fixed_before, expected, "{fields:?}");
                let raw = node.find(id).unwrap();
                let back: Vec<Vec<u8>> = node.fields(&raw).into_iter().flat_map(|(f, v)| [f, v]).collect();
                assert_eq!(back, fields);
            }
        }
    }

    #[test]
    fn listpack_size_of_a_single_entry() {
        // master: count, deleted, 1 field, "a", terminator; entry: flags, 0, 0, "1", lp-count.
        let mut node = Node::new(StreamId::new(1, 0), &v(&["a", "1"]));
        node.append(StreamId::new(1, 0), &v(&["a", "1"]));
        assert_eq!(node.listpack_bytes(), 7 + 2 + 2 + 2 + 3 + 2 + (2 + 2 + 2 + 2 + 2));
    }
}
