//! Redis's reading of a string as an integer: the one rule both the listpack encoding (a
//! field stored as an integer) and every command argument that takes an integer follow.

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
