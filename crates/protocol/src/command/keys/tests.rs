//! The SCAN helpers on their own; what the commands answer is in
//! `tests/transcripts/keys-*.txt` and `crates/protocol/tests/keys.rs`.

use super::*;

#[test]
fn cursors_read_as_strtoull_reads_them() {
    assert_eq!(parse_cursor(b" -1"), Ok(u64::MAX));
    assert_eq!(parse_cursor(b" -18446744073709551615"), Ok(1));
    assert_eq!(parse_cursor(b"18446744073709551615"), Ok(u64::MAX));
    assert_eq!(parse_cursor(b"000000000000000000000000000000000000001"), Ok(1));
    assert_eq!(parse_cursor(b"7\x00junk"), Ok(7));
}

#[test]
fn the_scan_hash_is_fnv1a_then_a_64_bit_finaliser() {
    for key in [&b""[..], b"a", b"user:1", &[0xff; 300]] {
        assert_eq!(scan_hash(key), scan_hash_reference(key));
    }
}

/// The same hash written out separately, to pin its definition.
fn scan_hash_reference(key: &[u8]) -> u64 {
    let mut h = 14_695_981_039_346_656_037_u64;
    for &b in key {
        h = (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ceb9fe1a85ec53);
    h ^ (h >> 33)
}

#[test]
fn next_cursor_counts_reversed_bits() {
    // With 8 buckets the walk visits 0, 4, 2, 6, 1, 5, 3, 7 and then ends.
    let mut cursor = 0;
    let mut order = vec![];
    loop {
        order.push(cursor);
        cursor = next_cursor(cursor, 7);
        if cursor == 0 {
            break;
        }
    }
    assert_eq!(order, vec![0, 4, 2, 6, 1, 5, 3, 7]);
    assert_eq!(next_cursor(u64::MAX, 7), 0);
}
