//! The scalar tokens of a TOML value: integers in their radixes, floats, dates and times, each
//! recognised by the spec's grammar on the token's text.

use std::ops::Range;

/// Digits of `radix` with single `_`s between them.
fn digit_run(s: &str, radix: u32) -> bool {
    !s.is_empty()
        && !s.starts_with('_')
        && !s.ends_with('_')
        && !s.as_bytes().windows(2).any(|pair| pair == b"__")
        && s.chars().all(|c| c == '_' || c.is_digit(radix))
}

/// A decimal integer's digits: no leading zero.
fn decimal(s: &str) -> bool {
    digit_run(s, 10) && !(s.len() > 1 && s.starts_with('0'))
}

/// `None` when `token` is not an integer; `Some(None)` when it is one beyond 64 bits.
pub(super) fn integer(token: &str) -> Option<Option<i64>> {
    let (radix, negative, digits) = match token.get(..2).zip(token.get(2..)) {
        Some(("0x", digits)) => (16, false, digits),
        Some(("0o", digits)) => (8, false, digits),
        Some(("0b", digits)) => (2, false, digits),
        _ => {
            let (negative, digits) = match token.strip_prefix('-') {
                Some(digits) => (true, digits),
                None => (false, token.strip_prefix('+').unwrap_or(token)),
            };
            if !decimal(digits) {
                return None;
            }
            (10, negative, digits)
        }
    };
    if !digit_run(digits, radix) {
        return None;
    }
    // Negative numbers are summed downwards, so i64::MIN fits.
    let value = digits.chars().filter_map(|c| c.to_digit(radix)).try_fold(0i64, |n, d| {
        let n = n.checked_mul(i64::from(radix))?;
        if negative {
            n.checked_sub(i64::from(d))
        } else {
            n.checked_add(i64::from(d))
        }
    });
    Some(value)
}

/// A float: `inf`, `nan`, or a decimal integer part with a fraction, an exponent or both.
pub(super) fn is_float(token: &str) -> bool {
    let body = token.strip_prefix(['+', '-']).unwrap_or(token);
    if body == "inf" || body == "nan" {
        return true;
    }
    let (mantissa, exponent) = match body.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent.strip_prefix(['+', '-']).unwrap_or(exponent))),
        None => (body, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    (fraction.is_some() || exponent.is_some())
        && decimal(whole)
        && fraction.is_none_or(|f| digit_run(f, 10))
        && exponent.is_none_or(|e| digit_run(e, 10))
}

/// The number in `b[range]` if it is all digits and at most `max`.
fn number(b: &[u8], range: Range<usize>, max: u32) -> Option<u32> {
    let digits = b.get(range)?;
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0'));
    (n <= max).then_some(n)
}

/// `YYYY-MM-DD` at the start of `b`, a real day.
fn date_at(b: &[u8]) -> bool {
    let (Some(year), Some(month)) = (number(b, 0..4, 9999), number(b, 5..7, 12)) else { return false };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    b.get(4) == Some(&b'-') && b.get(7) == Some(&b'-') && month >= 1 && number(b, 8..10, days).is_some_and(|d| d >= 1)
}

pub(super) fn is_date(b: &[u8]) -> bool {
    b.len() == 10 && date_at(b)
}

/// `HH:MM[:SS[.fraction]]` at the start of `b`; the rest of `b` after it.
fn time(b: &[u8]) -> Option<&[u8]> {
    number(b, 0..2, 23)?;
    number(b, 3..5, 59)?;
    if b.get(2) != Some(&b':') {
        return None;
    }
    let mut rest = &b[5..];
    if rest.first() == Some(&b':') {
        number(rest, 1..3, 60)?;
        rest = &rest[3..];
        if rest.first() == Some(&b'.') {
            let digits = rest[1..].iter().take_while(|d| d.is_ascii_digit()).count();
            if digits == 0 {
                return None;
            }
            rest = &rest[1 + digits..];
        }
    }
    Some(rest)
}

/// A date, a time, or a date and time with an optional offset (`Z` or `+HH:MM`).
pub(super) fn is_datetime(b: &[u8]) -> bool {
    if !date_at(b) {
        return time(b).is_some_and(<[u8]>::is_empty);
    }
    let Some(rest) = b.get(10..) else { return false };
    let Some((separator, rest)) = rest.split_first() else { return true };
    let Some(offset) = time(rest).filter(|_| matches!(separator, b'T' | b't' | b' ')) else { return false };
    match offset {
        [] | [b'Z' | b'z'] => true,
        [b'+' | b'-', ..] => {
            offset.len() == 6
                && number(offset, 1..3, 23).is_some()
                && offset[3] == b':'
                && number(offset, 4..6, 59).is_some()
        }
        _ => false,
    }
}
