//! Stream entry ids (`<ms>-<seq>`) and the parsing rules Redis applies to them.

use std::fmt;

/// A stream entry id: milliseconds and a sequence number, ordered as a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct StreamId {
    /// The millisecond part.
    pub ms: u64,
    /// The sequence part.
    pub seq: u64,
}

/// Ids longer than this are rejected before any other check (Redis copies the argument into a
/// 128-byte buffer with room for the terminator).
const MAX_ID_TEXT: usize = 127;

/// Why an id argument was not accepted. Every variant is reported to the user as the same
/// "Invalid stream ID" error; the distinction only matters to callers such as XADD that accept
/// the extra `<ms>-*` form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidId;

/// How `-`, `+` and a missing sequence are treated by one argument position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdMode {
    /// `-` and `+` are rejected (XADD, XREAD, XACK, XDEL, XCLAIM, XGROUP CREATE, ...).
    Strict,
    /// `-` means 0-0 and `+` means the largest id (XRANGE bounds, XPENDING, XAUTOCLAIM, SETID).
    Lenient,
}

/// The result of parsing an XADD id argument, which may leave the sequence to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddId {
    /// `*`: both parts chosen by the server from the clock.
    Auto,
    /// `<ms>-*`: the millisecond part is given, the sequence is chosen by the server.
    AutoSeq(u64),
    /// A fully explicit id (a missing sequence means 0).
    Explicit(StreamId),
}

impl StreamId {
    /// The smallest id, `0-0`.
    pub const MIN: StreamId = StreamId { ms: 0, seq: 0 };
    /// The largest id, `18446744073709551615-18446744073709551615`.
    pub const MAX: StreamId = StreamId { ms: u64::MAX, seq: u64::MAX };

    /// Builds an id from its two parts.
    pub const fn new(ms: u64, seq: u64) -> StreamId {
        StreamId { ms, seq }
    }

    /// The next id in order, or `None` after the largest id.
    pub fn next(self) -> Option<StreamId> {
        if self.seq < u64::MAX {
            Some(StreamId::new(self.ms, self.seq + 1))
        } else if self.ms < u64::MAX {
            Some(StreamId::new(self.ms + 1, 0))
        } else {
            None
        }
    }

    /// The previous id in order, or `None` before `0-0`.
    pub fn prev(self) -> Option<StreamId> {
        if self.seq > 0 {
            Some(StreamId::new(self.ms, self.seq - 1))
        } else if self.ms > 0 {
            Some(StreamId::new(self.ms - 1, u64::MAX))
        } else {
            None
        }
    }

    /// Whether this is `0-0`.
    pub fn is_zero(self) -> bool {
        self == StreamId::MIN
    }

    /// Parses an id argument. A missing sequence part becomes `missing_seq` (0 for start-like
    /// arguments, `u64::MAX` for end-like ones).
    pub fn parse(text: &[u8], mode: IdMode, missing_seq: u64) -> Result<StreamId, InvalidId> {
        match parse_any(text, mode, missing_seq, false)? {
            AddId::Explicit(id) => Ok(id),
            // Unreachable by construction: `<ms>-*` is only produced when allowed.
            AddId::Auto | AddId::AutoSeq(_) => Err(InvalidId),
        }
    }

    /// Parses XADD's id argument: `*`, `<ms>-*`, or a strict explicit id.
    pub fn parse_for_add(text: &[u8]) -> Result<AddId, InvalidId> {
        if text == b"*" {
            return Ok(AddId::Auto);
        }
        parse_any(text, IdMode::Strict, 0, true)
    }
}

fn parse_any(text: &[u8], mode: IdMode, missing_seq: u64, allow_auto_seq: bool) -> Result<AddId, InvalidId> {
    if text.len() > MAX_ID_TEXT {
        return Err(InvalidId);
    }
    // Redis reads the argument as a C string, so anything after an embedded NUL is invisible.
    let text = match text.iter().position(|&b| b == 0) {
        Some(nul) => &text[..nul],
        None => text,
    };
    match (text, mode) {
        (b"-", IdMode::Lenient) => return Ok(AddId::Explicit(StreamId::MIN)),
        (b"+", IdMode::Lenient) => return Ok(AddId::Explicit(StreamId::MAX)),
        (b"-" | b"+", IdMode::Strict) => return Err(InvalidId),
        _ => {}
    }
    let (ms_text, seq_text) = match text.iter().position(|&b| b == b'-') {
        Some(dash) => (&text[..dash], Some(&text[dash + 1..])),
        None => (text, None),
    };
    let ms = parse_u64_part(ms_text).ok_or(InvalidId)?;
    match seq_text {
        None => Ok(AddId::Explicit(StreamId::new(ms, missing_seq))),
        Some(b"*") if allow_auto_seq => Ok(AddId::AutoSeq(ms)),
        Some(seq) => Ok(AddId::Explicit(StreamId::new(ms, parse_u64_part(seq).ok_or(InvalidId)?))),
    }
}

/// Parses one part of an id the way Redis does: a canonical signed integer that is not
/// negative, or failing that, what C's `strtoull` accepts in full (leading white space, a sign,
/// leading zeros; a minus sign wraps around). Empty text, trailing junk and overflow fail.
fn parse_u64_part(text: &[u8]) -> Option<u64> {
    let mut rest = text;
    while let [b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r', tail @ ..] = rest {
        rest = tail;
    }
    let negative = match rest {
        [b'-', tail @ ..] => {
            rest = tail;
            true
        }
        [b'+', tail @ ..] => {
            rest = tail;
            false
        }
        _ => false,
    };
    // Redis first tries a canonical signed parse and refuses a negative result ("-5"); only
    // text that is not canonical ("-0", "-05", " -1") reaches the strtoull-style fallback,
    // which wraps negatives around.
    if is_canonical_negative(text) {
        return None;
    }
    if rest.is_empty() || !rest.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut value: u64 = 0;
    for &digit in rest {
        value = value.checked_mul(10)?.checked_add(u64::from(digit - b'0'))?;
    }
    Some(if negative { value.wrapping_neg() } else { value })
}

/// Whether `text` is a negative number in canonical form that fits a signed 64-bit integer.
fn is_canonical_negative(text: &[u8]) -> bool {
    let [b'-', first @ b'1'..=b'9', rest @ ..] = text else {
        return false;
    };
    if !rest.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let mut magnitude = u64::from(first - b'0');
    for &digit in rest {
        match magnitude.checked_mul(10).and_then(|m| m.checked_add(u64::from(digit - b'0'))) {
            Some(m) => magnitude = m,
            None => return false,
        }
    }
    magnitude <= 1 << 63
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.ms, self.seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict(text: &str) -> Result<StreamId, InvalidId> {
        StreamId::parse(text.as_bytes(), IdMode::Strict, 0)
    }

    #[test]
    fn accepts_what_redis_accepts() {
        assert_eq!(strict("1-2"), Ok(StreamId::new(1, 2)));
        assert_eq!(strict(" 8"), Ok(StreamId::new(8, 0)));
        assert_eq!(strict("007-1"), Ok(StreamId::new(7, 1)));
        assert_eq!(strict("5-+1"), Ok(StreamId::new(5, 1)));
        assert_eq!(strict("5- -1"), Ok(StreamId::new(5, u64::MAX)));
        assert_eq!(strict("5--0"), Ok(StreamId::new(5, 0)));
        assert_eq!(strict("5--01"), Ok(StreamId::new(5, u64::MAX)));
        assert_eq!(strict("18446744073709551615-18446744073709551615"), Ok(StreamId::MAX));
        assert_eq!(StreamId::parse(b"3", IdMode::Strict, u64::MAX), Ok(StreamId::new(3, u64::MAX)));
        assert_eq!(StreamId::parse(b"-", IdMode::Lenient, 0), Ok(StreamId::MIN));
        assert_eq!(StreamId::parse(b"+", IdMode::Lenient, 0), Ok(StreamId::MAX));
    }

    #[test]
    fn rejects_what_redis_rejects() {
        for bad in ["", "-", "+", "1-", "-1", "1-x", "0x10", "1.5", "18446744073709551616", "1--5", "a", "1-2-3"] {
            assert_eq!(strict(bad), Err(InvalidId), "{bad:?}");
        }
        let long = format!("{}1", "0".repeat(127));
        assert_eq!(strict(&long), Err(InvalidId));
        assert_eq!(strict(&long[1..]), Ok(StreamId::new(1, 0)));
    }

    #[test]
    fn add_ids() {
        assert_eq!(StreamId::parse_for_add(b"*"), Ok(AddId::Auto));
        assert_eq!(StreamId::parse_for_add(b"5-*"), Ok(AddId::AutoSeq(5)));
        assert_eq!(StreamId::parse_for_add(b"5-3"), Ok(AddId::Explicit(StreamId::new(5, 3))));
        assert_eq!(StreamId::parse_for_add(b"*-1"), Err(InvalidId));
        assert_eq!(StreamId::parse(b"5-*", IdMode::Strict, 0), Err(InvalidId));
    }

    #[test]
    fn neighbours() {
        assert_eq!(StreamId::new(1, u64::MAX).next(), Some(StreamId::new(2, 0)));
        assert_eq!(StreamId::MAX.next(), None);
        assert_eq!(StreamId::new(2, 0).prev(), Some(StreamId::new(1, u64::MAX)));
        assert_eq!(StreamId::MIN.prev(), None);
    }
}
