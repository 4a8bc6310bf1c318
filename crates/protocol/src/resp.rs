//! RESP2/RESP3 wire format: reply encoders, a client-side reply decoder, and the protocol
//! errors of both sides (the server-side request parser is [`crate::request`]).
//!
//! Everything here was checked against Redis 8.2.3 (server side) and redis-cli 7.0.15 with its
//! bundled hiredis (client side) by sending raw bytes; the exact error texts and limits are the
//! ones those binaries produce. Nothing panics on any input: lengths are checked before slicing,
//! length arithmetic is checked, no allocation is sized by an untrusted length, and nesting is
//! bounded.

use std::fmt;

use crate::double::{format_double, push_decimal};
use crate::format::quote_bytes;
use crate::reply::Reply;

/// Deepest nesting [`decode_reply`] accepts. Our own limit (hiredis has none any more): it
/// keeps the recursive decoder from overflowing the stack on hostile input, and real replies
/// (XINFO STREAM FULL is the deepest) stay far below it.
pub const MAX_REPLY_DEPTH: usize = 512;

/// Why bytes could not be parsed.
///
/// Request-parser variants display exactly as Redis's error reply (without the leading `-ERR `);
/// reply-decoder variants display as hiredis (and so redis-cli, after `Error: `) reports them,
/// except the two marked as our own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProtocolError {
    /// Request: the `*N` count is not a valid integer or exceeds [`MAX_MULTIBULK_LEN`](crate::request::MAX_MULTIBULK_LEN).
    InvalidMultibulkLength,
    /// Request: a `$N` length is not a valid integer, is negative or exceeds the connection's
    /// `proto-max-bulk-len` ([`MAX_BULK_LEN`](crate::request::MAX_BULK_LEN) by default).
    InvalidBulkLength,
    /// Request: an argument header did not start with `$`; holds the byte found instead.
    ExpectedDollar(u8),
    /// Request: more than [`INLINE_MAX_SIZE`](crate::request::INLINE_MAX_SIZE) bytes of an inline request without a newline.
    TooBigInlineRequest,
    /// Request: more than [`INLINE_MAX_SIZE`](crate::request::INLINE_MAX_SIZE) bytes of a `*N` line without `\r`.
    TooBigMbulkCountString,
    /// Request: more than [`INLINE_MAX_SIZE`](crate::request::INLINE_MAX_SIZE) bytes of a `$N` line without `\r`.
    TooBigBulkCountString,
    /// Request: an inline request that the tokenizer rejects.
    UnbalancedQuotes,
    /// Reply: a type byte this protocol version does not have.
    UnexpectedTypeByte(u8),
    /// Reply: a malformed `:` integer.
    BadInteger,
    /// Reply: a simple string or error line containing `\r` or `\n`.
    BadSimpleString,
    /// Reply: a malformed blob length.
    BadBulkLength,
    /// Reply: a blob length below -1.
    BulkLengthOutOfRange,
    /// Reply: a malformed aggregate length.
    BadMultiBulkLength,
    /// Reply: an aggregate length below -1.
    MultiBulkLengthOutOfRange,
    /// Reply: a malformed `,` double.
    BadDouble,
    /// Reply: a `#` boolean other than `t` or `f`.
    BadBool,
    /// Reply: a `_` null with content.
    BadNil,
    /// Reply: a malformed `(` big number.
    BadBignum,
    /// Reply: a verbatim string without its `xxx:` format prefix.
    BadVerbatim,
    /// Reply (our own): a blob not followed by `\r\n`. hiredis skips two bytes blindly; we
    /// refuse, because accepting would desynchronise the stream silently.
    MissingCrlf,
    /// Reply (our own): nesting deeper than [`MAX_REPLY_DEPTH`].
    TooDeep,
}

impl ProtocolError {
    /// The exact message bytes. They differ from `Display` only for
    /// [`ProtocolError::ExpectedDollar`] with a byte >= 0x80, which Redis sends raw and which
    /// `Display` shows as U+FFFD.
    pub fn to_bytes(&self) -> Vec<u8> {
        let text: &str = match self {
            ProtocolError::InvalidMultibulkLength => "Protocol error: invalid multibulk length",
            ProtocolError::InvalidBulkLength => "Protocol error: invalid bulk length",
            ProtocolError::ExpectedDollar(b) => {
                // Redis replaces CR and LF in error messages with spaces so the reply stays one
                // line; every other byte is sent as is.
                let shown = if matches!(b, b'\r' | b'\n') { b' ' } else { *b };
                let mut out = b"Protocol error: expected '$', got '".to_vec();
                out.push(shown);
                out.push(b'\'');
                return out;
            }
            ProtocolError::TooBigInlineRequest => "Protocol error: too big inline request",
            ProtocolError::TooBigMbulkCountString => "Protocol error: too big mbulk count string",
            ProtocolError::TooBigBulkCountString => "Protocol error: too big bulk count string",
            ProtocolError::UnbalancedQuotes => "Protocol error: unbalanced quotes in request",
            ProtocolError::UnexpectedTypeByte(b) => {
                return format!("Protocol error, got {} as reply type byte", quote_bytes(&[*b])).into_bytes();
            }
            ProtocolError::BadInteger => "Bad integer value",
            ProtocolError::BadSimpleString => "Bad simple string value",
            ProtocolError::BadBulkLength => "Bad bulk string length",
            ProtocolError::BulkLengthOutOfRange => "Bulk string length out of range",
            ProtocolError::BadMultiBulkLength => "Bad multi-bulk length",
            ProtocolError::MultiBulkLengthOutOfRange => "Multi-bulk length out of range",
            ProtocolError::BadDouble => "Bad double value",
            ProtocolError::BadBool => "Bad bool value",
            ProtocolError::BadNil => "Bad nil value",
            ProtocolError::BadBignum => "Bad bignum value",
            ProtocolError::BadVerbatim => "Verbatim string 4 bytes of content type are missing or incorrectly encoded.",
            ProtocolError::MissingCrlf => "Bulk string not terminated by CRLF",
            ProtocolError::TooDeep => "Reply nested too deeply",
        };
        text.as_bytes().to_vec()
    }

    /// The error reply a server sends for a request-parser error (`-ERR Protocol error: ...`).
    /// Redis closes the connection right after sending it.
    pub fn to_reply(&self) -> Reply {
        Reply::Error(format!("ERR {self}"))
    }
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.to_bytes()))
    }
}

impl std::error::Error for ProtocolError {}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

/// Encodes a reply in RESP3 (`resp3`) or RESP2.
///
/// RESP2 has no map, set, push, double, boolean, verbatim or typed null: maps become flat
/// `k, v, ...` arrays, sets and pushes arrays, doubles bulk strings of [`format_double`],
/// booleans `:1`/`:0`, verbatim strings plain bulk strings (without the `txt:` prefix), and
/// the two nulls `$-1` and `*-1`. RESP3 writes both nulls as `_`.
///
/// CR and LF inside a status or error are replaced by spaces, as Redis does for its error
/// messages: a line-based type cannot carry them.
pub fn encode(reply: &Reply, resp3: bool) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(reply, resp3, &mut out);
    out
}

/// Like [`encode`], appending to `out`.
pub fn encode_into(reply: &Reply, resp3: bool, out: &mut Vec<u8>) {
    fn header(out: &mut Vec<u8>, kind: u8, n: u64) {
        out.push(kind);
        push_decimal(out, n);
        out.extend_from_slice(b"\r\n");
    }
    fn line(out: &mut Vec<u8>, kind: u8, text: &str) {
        out.push(kind);
        let start = out.len();
        if kind == b'-' {
            crate::reply::echoed_bytes(text, out);
        } else {
            out.extend_from_slice(text.as_bytes());
        }
        for b in &mut out[start..] {
            if *b == b'\r' || *b == b'\n' {
                *b = b' ';
            }
        }
        out.extend_from_slice(b"\r\n");
    }
    fn blob(out: &mut Vec<u8>, kind: u8, parts: &[&[u8]]) {
        header(out, kind, parts.iter().map(|p| p.len() as u64).sum::<u64>());
        for p in parts {
            out.extend_from_slice(p);
        }
        out.extend_from_slice(b"\r\n");
    }
    match reply {
        Reply::Status(s) => line(out, b'+', s),
        Reply::Error(e) => line(out, b'-', e),
        Reply::Integer(i) => {
            out.push(b':');
            if *i < 0 {
                out.push(b'-');
            }
            push_decimal(out, i.unsigned_abs());
            out.extend_from_slice(b"\r\n");
        }
        Reply::Bulk(b) => blob(out, b'$', &[b]),
        Reply::NullBulk if resp3 => out.extend_from_slice(b"_\r\n"),
        Reply::NullArray if resp3 => out.extend_from_slice(b"_\r\n"),
        Reply::NullBulk => out.extend_from_slice(b"$-1\r\n"),
        Reply::NullArray => out.extend_from_slice(b"*-1\r\n"),
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            let kind = match reply {
                Reply::Set(_) if resp3 => b'~',
                Reply::Push(_) if resp3 => b'>',
                _ => b'*',
            };
            header(out, kind, items.len() as u64);
            for item in items {
                encode_into(item, resp3, out);
            }
        }
        Reply::Map(pairs) => {
            if resp3 {
                header(out, b'%', pairs.len() as u64);
            } else {
                header(out, b'*', pairs.len() as u64 * 2);
            }
            for (k, v) in pairs {
                encode_into(k, resp3, out);
                encode_into(v, resp3, out);
            }
        }
        Reply::Double(d) if resp3 => line(out, b',', &format_double(*d)),
        Reply::Double(d) => blob(out, b'$', &[format_double(*d).as_bytes()]),
        Reply::Boolean(b) if resp3 => out.extend_from_slice(if *b { b"#t\r\n" } else { b"#f\r\n" }),
        Reply::Boolean(b) => out.extend_from_slice(if *b { b":1\r\n" } else { b":0\r\n" }),
        Reply::Verbatim { format, text } if resp3 => blob(out, b'=', &[format, b":", text]),
        Reply::Verbatim { text, .. } => blob(out, b'$', &[text]),
    }
}

/// Encodes a command as a multibulk request (`*N` then one `$len` bulk per argument), the form
/// clients send.
pub fn encode_request<A: AsRef<[u8]>>(args: &[A]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        let arg = arg.as_ref();
        out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Shared parsing helpers
// ---------------------------------------------------------------------------------------------

/// Parses an integer the way Redis's `string2ll` does: optional `-`, then digits without
/// leading zeros (`0` alone is fine, `-0`, `01`, `+1`, ` 1` and the empty string are not),
/// no overflow.
pub(crate) fn parse_strict_i64(text: &[u8]) -> Option<i64> {
    let (neg, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    match digits {
        [] => return None,
        [b'0'] if !neg => return Some(0),
        [b'0', ..] => return None,
        _ => {}
    }
    let mut value: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        let d = i64::from(d - b'0');
        // Accumulate negatively so that i64::MIN is reachable.
        value = value.checked_mul(10)?.checked_sub(d)?;
    }
    if neg {
        Some(value)
    } else {
        value.checked_neg()
    }
}

// ---------------------------------------------------------------------------------------------
// Client side: reply decoder
// ---------------------------------------------------------------------------------------------

/// Decodes one reply from the start of `buf`.
///
/// Returns `Ok(None)` when `buf` holds only part of a reply (read more and call again with the
/// whole buffer), or the reply and how many bytes it used. With `resp3 == false` only the
/// RESP2 types (`+ - : $ *`) are accepted; with `resp3 == true` all RESP3 types are, and so are
/// RESP2's `$-1`/`*-1` nulls. Mapping onto [`Reply`]:
/// * `$-1` (and `=-1`) -> `NullBulk`; `*-1` (and `%-1`, `~-1`, `>-1`) -> `NullArray`;
///   `_` -> `NullBulk` (RESP3 has one null, and redis-cli prints both as `(nil)`);
/// * `(` big numbers -> `Bulk` of their digits, which is what Redis sends for them in RESP2;
/// * `!` blob errors -> `Error`;
/// * `|` attributes are decoded and dropped; the reply that follows is returned and the byte
///   count covers both.
///
/// Streamed (`$?`) strings and aggregates are not supported (Redis never sends them).
pub fn decode_reply(buf: &[u8], resp3: bool) -> Result<Option<(Reply, usize)>, ProtocolError> {
    let mut decoder = Decoder { buf, pos: 0, resp3 };
    match decoder.reply(0)? {
        Some(reply) => Ok(Some((reply, decoder.pos))),
        None => Ok(None),
    }
}

struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
    resp3: bool,
}

/// `Ok(None)` = incomplete input.
type Step<T> = Result<Option<T>, ProtocolError>;

impl Decoder<'_> {
    /// The rest of the current line (up to `\r\n`, which is consumed), or None if incomplete.
    fn line(&mut self) -> Option<&[u8]> {
        let rest = self.buf.get(self.pos..)?;
        let end = rest.windows(2).position(|w| w == b"\r\n")?;
        self.pos += end + 2;
        Some(&rest[..end])
    }

    fn length(&mut self, bad: ProtocolError, out_of_range: ProtocolError) -> Step<Option<usize>> {
        let Some(line) = self.line() else {
            return Ok(None);
        };
        match parse_strict_i64(line) {
            Some(-1) => Ok(Some(None)),
            Some(n) if n < -1 => Err(out_of_range),
            Some(n) => usize::try_from(n).map(|n| Some(Some(n))).map_err(|_| out_of_range),
            None => Err(bad),
        }
    }

    fn blob(&mut self, len: usize) -> Step<&[u8]> {
        let start = self.pos;
        let Some(end) = start.checked_add(len) else {
            return Err(ProtocolError::BulkLengthOutOfRange);
        };
        let Some(tail) = self.buf.get(end..end.saturating_add(2)) else {
            return Ok(None);
        };
        if tail != b"\r\n" {
            return Err(ProtocolError::MissingCrlf);
        }
        self.pos = end + 2;
        Ok(Some(&self.buf[start..end]))
    }

    fn items(&mut self, n: usize, depth: usize) -> Step<Vec<Reply>> {
        // Never trust `n` for the allocation: each element takes at least 3 bytes.
        let mut items = Vec::with_capacity(n.min(self.buf.len() / 3));
        for _ in 0..n {
            match self.reply(depth + 1)? {
                Some(item) => items.push(item),
                None => return Ok(None),
            }
        }
        Ok(Some(items))
    }

    fn reply(&mut self, depth: usize) -> Step<Reply> {
        if depth > MAX_REPLY_DEPTH {
            return Err(ProtocolError::TooDeep);
        }
        let Some(&kind) = self.buf.get(self.pos) else {
            return Ok(None);
        };
        let resp3_only = matches!(kind, b'_' | b',' | b'#' | b'(' | b'!' | b'=' | b'%' | b'~' | b'>' | b'|');
        if resp3_only && !self.resp3 {
            return Err(ProtocolError::UnexpectedTypeByte(kind));
        }
        self.pos += 1;
        // Shorthand: propagate "incomplete".
        macro_rules! need {
            ($e:expr) => {
                match $e {
                    Some(v) => v,
                    None => return Ok(None),
                }
            };
        }
        let reply = match kind {
            b'+' | b'-' => {
                let line = need!(self.line());
                if line.contains(&b'\r') || line.contains(&b'\n') {
                    return Err(ProtocolError::BadSimpleString);
                }
                let text = String::from_utf8_lossy(line).into_owned();
                if kind == b'+' {
                    Reply::Status(text)
                } else {
                    Reply::Error(text)
                }
            }
            b':' => {
                let line = need!(self.line());
                Reply::Integer(parse_strict_i64(line).ok_or(ProtocolError::BadInteger)?)
            }
            b'$' | b'=' | b'!' => {
                let len = need!(self.length(ProtocolError::BadBulkLength, ProtocolError::BulkLengthOutOfRange)?);
                let Some(len) = len else {
                    return Ok(Some(Reply::NullBulk));
                };
                let data = need!(self.blob(len)?);
                match kind {
                    b'$' => Reply::Bulk(data.to_vec()),
                    b'!' => Reply::Error(String::from_utf8_lossy(data).into_owned()),
                    _ => match data {
                        [a, b, c, b':', text @ ..] => Reply::Verbatim { format: [*a, *b, *c], text: text.to_vec() },
                        _ => return Err(ProtocolError::BadVerbatim),
                    },
                }
            }
            b'*' | b'%' | b'~' | b'>' | b'|' => {
                let n =
                    need!(self.length(ProtocolError::BadMultiBulkLength, ProtocolError::MultiBulkLengthOutOfRange)?);
                let Some(n) = n else {
                    return Ok(Some(Reply::NullArray));
                };
                match kind {
                    b'*' => Reply::Array(need!(self.items(n, depth)?)),
                    b'~' => Reply::Set(need!(self.items(n, depth)?)),
                    b'>' => Reply::Push(need!(self.items(n, depth)?)),
                    _ => {
                        let Some(pairs) = n.checked_mul(2) else {
                            return Err(ProtocolError::MultiBulkLengthOutOfRange);
                        };
                        let flat = need!(self.items(pairs, depth)?);
                        if kind == b'|' {
                            // Attributes describe the next reply; we drop them. Counting them
                            // as a level keeps a long chain of attributes from recursing
                            // without bound.
                            return self.reply(depth + 1);
                        }
                        let mut it = flat.into_iter();
                        let mut map = Vec::with_capacity(n);
                        while let (Some(k), Some(v)) = (it.next(), it.next()) {
                            map.push((k, v));
                        }
                        Reply::Map(map)
                    }
                }
            }
            b'_' => {
                if !need!(self.line()).is_empty() {
                    return Err(ProtocolError::BadNil);
                }
                Reply::NullBulk
            }
            b'#' => match need!(self.line()) {
                b"t" => Reply::Boolean(true),
                b"f" => Reply::Boolean(false),
                _ => return Err(ProtocolError::BadBool),
            },
            b',' => Reply::Double(parse_double(need!(self.line())).ok_or(ProtocolError::BadDouble)?),
            b'(' => {
                let line = need!(self.line());
                let digits = line.strip_prefix(b"-").unwrap_or(line);
                if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                    return Err(ProtocolError::BadBignum);
                }
                Reply::Bulk(line.to_vec())
            }
            other => return Err(ProtocolError::UnexpectedTypeByte(other)),
        };
        Ok(Some(reply))
    }
}

/// hiredis accepts exactly `inf`, `-inf`, `nan` and what `strtod` fully consumes; we accept the
/// same minus `strtod`'s leading blanks and hex floats, which no server sends.
fn parse_double(text: &[u8]) -> Option<f64> {
    match text {
        b"inf" | b"+inf" => return Some(f64::INFINITY),
        b"-inf" => return Some(f64::NEG_INFINITY),
        b"nan" => return Some(f64::NAN),
        _ => {}
    }
    // Rust would also take "infinity" and "NaN", which hiredis refuses.
    if !text.iter().all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E')) {
        return None;
    }
    std::str::from_utf8(text).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_lengths_in_decimal() {
        let cases: [(Reply, &[u8]); 6] = [
            (Reply::Integer(0), b":0\r\n"),
            (Reply::Integer(-7), b":-7\r\n"),
            (Reply::Integer(i64::MIN), b":-9223372036854775808\r\n"),
            (Reply::Integer(i64::MAX), b":9223372036854775807\r\n"),
            (Reply::Bulk(vec![b'x'; 1234]), b"$1234\r\n"),
            (Reply::Array(vec![Reply::Integer(10); 10]), b"*10\r\n:10\r\n"),
        ];
        for (reply, start) in cases {
            assert!(encode(&reply, false).starts_with(start), "{reply:?}");
        }
        let mut out = Vec::new();
        push_decimal(&mut out, u64::MAX);
        assert_eq!(out, u64::MAX.to_string().as_bytes());
    }

    #[test]
    fn doubles_as_redis_prints_them() {
        // Each pair was read back from Redis 8.2.3 with ZADD + ZSCORE (or EVAL for -0 / nan).
        let cases: &[(f64, &str)] = &[
            (1.5, "1.5"),
            (0.1, "0.1"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
            (-f64::NAN, "nan"),
            (0.0, "0"),
            (-0.0, "-0"),
            (3.0, "3"),
            (100.0, "100"),
            (-1.25, "-1.25"),
            (1e300, "1e+300"),
            (-1.5e300, "-1.5e+300"),
            (1e-300, "1e-300"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (0.30000000000000004, "0.30000000000000004"),
            (123456789012345678.0, "123456789012345680"),
            (1e15, "1000000000000000"),
            (1e17, "100000000000000000"),
            (1e18, "1000000000000000000"),
            (4.6e18, "4600000000000000000"),
            (4611686018427387904.0, "4611686018427387904"),
            (-4611686018427387904.0, "-4611686018427387904"),
            (4611686018427388928.0, "4611686018427389000"),
            (4.7e18, "4.7e+18"),
            (9.3e18, "9.3e+18"),
            (9223372036854775807.0, "9223372036854776000"),
            (1e19, "1e+19"),
            (1e20, "1e+20"),
            (1.5e21, "1.5e+21"),
            (123456789012345678901.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (5e-7, "5e-7"),
            (1.25e-6, "1.25e-6"),
            (2.5e-5, "0.000025"),
            (1e-5, "0.00001"),
            (0.0001, "0.0001"),
            (0.000123, "0.000123"),
            (1.2345e-5, "1.2345e-5"),
            (0.001234567, "0.001234567"),
            (0.0001234567, "1.234567e-4"),
            (0.12345678901234568, "0.12345678901234568"),
            (1234.5678901234567, "1234.5678901234567"),
            (12345.678901234567, "1.2345678901234567e+4"),
            (123456.789, "123456.789"),
            (1234567.5, "1234567.5"),
            (1.5e-100, "1.5e-100"),
        ];
        for &(d, want) in cases {
            assert_eq!(format_double(d), want, "{d:e}");
        }
    }

    #[test]
    fn strict_integers() {
        for (text, want) in [
            (&b"0"[..], Some(0)),
            (b"-1", Some(-1)),
            (b"9223372036854775807", Some(i64::MAX)),
            (b"-9223372036854775808", Some(i64::MIN)),
            (b"9223372036854775808", None),
            (b"-9223372036854775809", None),
            (b"-0", None),
            (b"01", None),
            (b"+1", None),
            (b" 1", None),
            (b"1 ", None),
            (b"", None),
            (b"-", None),
        ] {
            assert_eq!(parse_strict_i64(text), want, "{text:?}");
        }
    }
}
