//! Byte arithmetic of Redis's listpack encoding, used only to decide where a stream node ends.
//!
//! Redis closes a stream node when its listpack would grow past `stream-node-max-bytes`, so to
//! put node boundaries (and therefore `~` trimming and `radix-tree-keys`) where Redis puts them
//! we must know how many bytes Redis's listpack would occupy, even though we store entries in a
//! denser format of our own. These functions compute those sizes; nothing is ever encoded.

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

/// Reads `text` as a signed 64-bit integer only if it is written canonically: an optional
/// minus, no leading zeros, no plus sign, nothing else, at most 20 characters.
pub fn canonical_i64(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, text),
    };
    match digits {
        [b'0'] if !negative => return Some(0),
        // At most 19 digits: 20 or more never fit, and 19 cannot overflow the u64 below.
        [b'1'..=b'9', ..] if digits.len() <= 19 => {}
        _ => return None,
    }
    let mut magnitude: u64 = 0;
    for &digit in digits {
        let digit = digit.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        magnitude = magnitude * 10 + u64::from(digit);
    }
    if negative {
        if magnitude <= 1 << 63 {
            Some((magnitude as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(magnitude).ok()
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

    #[test]
    fn canonical_integers() {
        assert_eq!(canonical_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(canonical_i64(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(canonical_i64(b"9223372036854775808"), None);
        assert_eq!(canonical_i64(b"+1"), None);
        assert_eq!(canonical_i64(b" 1"), None);
        for bad in ["", "-", "-0", "00", "01", "-01", "1a", "a1", "1-", "99999999999999999999", "-9223372036854775809"]
        {
            assert_eq!(canonical_i64(bad.as_bytes()), None, "{bad:?}");
        }
        for (text, n) in [("0", 0), ("7", 7), ("-7", -7), ("1000000", 1_000_000), ("9780000000000", 9_780_000_000_000)]
        {
            assert_eq!(canonical_i64(text.as_bytes()), Some(n), "{text:?}");
        }
        assert_eq!(canonical_i64(b"-1000000000000000000"), Some(-1_000_000_000_000_000_000));
    }
}
