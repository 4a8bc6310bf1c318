//! Byte arithmetic of Redis's listpack encoding, used only to decide where a stream node ends.
//!
//! Redis closes a stream node when its listpack would grow past `stream-node-max-bytes`, so to
//! put node boundaries (and therefore `~` trimming and `radix-tree-keys`) where Redis puts them
//! we must know how many bytes Redis's listpack would occupy, even though we store entries in a
//! denser format of our own. These functions compute those sizes; nothing is ever encoded.

use crate::numbers::canonical_i64;

/// Bytes of an empty listpack: a 4-byte total length, a 2-byte element count, the end marker.
pub const EMPTY: u64 = 7;

/// Bytes an integer element occupies: its encoding plus its back-length byte.
pub fn int_size(value: i64) -> u64 {
    let encoded = match value {
        0..=127 => 1,
        -4096..=4095 => 2,
        -32_768..=32_767 => 3,
        -8_388_608..=8_388_607 => 4,
        -2_147_483_648..=2_147_483_647 => 5,
        _ => 9,
    };
    encoded + backlen_size(encoded)
}

/// Bytes a string element occupies. Strings that read as canonical 64-bit integers are stored
/// as integers by listpack, so their size is an integer's.
pub fn str_size(text: &[u8]) -> u64 {
    match canonical_i64(text) {
        Some(value) => int_size(value),
        None => text_size(text.len() as u64),
    }
}

/// Bytes a string element of `len` bytes occupies when it does not read as an integer.
pub fn text_size(len: u64) -> u64 {
    let encoded = match len {
        0..=63 => 1 + len,
        64..=4095 => 2 + len,
        _ => 5 + len,
    };
    encoded + backlen_size(encoded)
}

/// The back-length trailer that lets a listpack be walked from the end.
fn backlen_size(encoded: u64) -> u64 {
    match encoded {
        0..=127 => 1,
        128..=16_382 => 2,
        16_383..=2_097_150 => 3,
        2_097_151..=268_435_454 => 4,
        _ => 5,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_sizes() {
        assert_eq!(int_size(0), 2);
        assert_eq!(int_size(127), 2);
        assert_eq!(int_size(128), 3);
        assert_eq!(int_size(-1), 3);
        assert_eq!(int_size(4096), 4);
        assert_eq!(int_size(1 << 20), 5);
        assert_eq!(int_size(1 << 30), 6);
        assert_eq!(int_size(1 << 40), 10);
    }

    #[test]
    fn string_sizes() {
        assert_eq!(str_size(b"a"), 3);
        assert_eq!(str_size(b"12"), 2);
        assert_eq!(str_size(b"012"), 5);
        assert_eq!(str_size(b"-0"), 4);
        assert_eq!(str_size(&[b'x'; 63]), 65);
        assert_eq!(str_size(&[b'x'; 64]), 67);
        assert_eq!(str_size(&[b'x'; 200]), 204);
    }
}
