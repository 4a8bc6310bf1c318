//! RESP2/RESP3 wire format: reply encoders, a client-side reply decoder and the server-side
//! request parser.
//!
//! Everything here was checked against Redis 8.2.3 (server side) and redis-cli 7.0.15 with its
//! bundled hiredis (client side) by sending raw bytes; the exact error texts and limits are the
//! ones those binaries produce. Nothing panics on any input: lengths are checked before slicing,
//! length arithmetic is checked, no allocation is sized by an untrusted length, and nesting is
//! bounded.

use std::fmt;

pub use crate::double::format_double;
use crate::format::quote_bytes;
use crate::reply::Reply;
use crate::tokenize::tokenize;

/// Longest line Redis waits for without finding its terminator: an inline request, or the
/// `*N`/`$N` header of a multibulk request, that has more pending bytes than this and no
/// newline yet is rejected.
pub const INLINE_MAX_SIZE: usize = 64 * 1024;

/// Longest bulk argument accepted in a request (Redis's default `proto-max-bulk-len`, 512 MB).
pub const MAX_BULK_LEN: i64 = 512 * 1024 * 1024;

/// Most arguments accepted in one multibulk request (Redis's limit: a C `int`).
pub const MAX_MULTIBULK_LEN: i64 = i32::MAX as i64;

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
    /// Request: the `*N` count is not a valid integer or exceeds [`MAX_MULTIBULK_LEN`].
    InvalidMultibulkLength,
    /// Request: a `$N` length is not a valid integer, is negative or exceeds [`MAX_BULK_LEN`].
    InvalidBulkLength,
    /// Request: an argument header did not start with `$`; holds the byte found instead.
    ExpectedDollar(u8),
    /// Request: more than [`INLINE_MAX_SIZE`] bytes of an inline request without a newline.
    TooBigInlineRequest,
    /// Request: more than [`INLINE_MAX_SIZE`] bytes of a `*N` line without `\r`.
    TooBigMbulkCountString,
    /// Request: more than [`INLINE_MAX_SIZE`] bytes of a `$N` line without `\r`.
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

/// Appends `n` in decimal, as every length and integer on the wire is written. Replies are
/// encoded for every command, so this avoids the formatting machinery and its allocation (the
/// buffer's capacity is reused).
pub fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
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
fn parse_strict_i64(text: &[u8]) -> Option<i64> {
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

// ---------------------------------------------------------------------------------------------
// Server side: request parser
// ---------------------------------------------------------------------------------------------

/// Finds `target` in `buf[from..]` the way Redis's `strchr` on its query buffer does: the
/// search stops at a NUL byte, so a NUL before the terminator means "not found yet". (A real
/// Redis then waits for more bytes, and eventually reports the line as too big.)
fn find_c(buf: &[u8], from: usize, target: u8) -> Option<usize> {
    let rest = buf.get(from..)?;
    let i = rest.iter().position(|&b| b == target || b == 0)?;
    (rest[i] == target).then_some(from + i)
}

/// Parses one client request from the start of `buf`, as Redis 8.2 does.
///
/// Returns `Ok(None)` if more bytes are needed, otherwise the arguments and the number of bytes
/// consumed. An **empty argument list** means "nothing to run, drop the bytes and go on": Redis
/// silently skips empty inline lines, blank lines, `*0` and negative counts such as `*-1`.
/// After an `Err`, Redis replies with [`ProtocolError::to_reply`] and closes the connection.
///
/// A buffer starting with `*` is a multibulk request, anything else an inline one:
/// * inline: a line up to `\n` (a `\r` before it is dropped), split with the
///   [`tokenize`] rules; an unsplittable line is [`ProtocolError::UnbalancedQuotes`];
///   more than [`INLINE_MAX_SIZE`] bytes without `\n` is [`ProtocolError::TooBigInlineRequest`].
/// * multibulk: `*N\r\n` with `N <= MAX_MULTIBULK_LEN`, then N times `$len\r\n`, `len`
///   bytes and 2 more bytes. Quirks kept from Redis: the header lines end at `\r` and the
///   byte after it is skipped unchecked; the 2 bytes after an argument are skipped unchecked
///   too (`$4\r\nPINGXX` is fine); a NUL inside a header line hides its `\r`.
///
/// The parser keeps no state between calls, so a request arriving in many pieces has its
/// headers re-read on each call; Redis remembers its progress instead, with the same results.
///
/// Not modelled: the stricter limits Redis applies to clients that still have to AUTH.
// The signature spells the type out so callers see it without chasing an alias.
#[allow(clippy::type_complexity)]
pub fn parse_request(buf: &[u8]) -> Result<Option<(Vec<Vec<u8>>, usize)>, ProtocolError> {
    match buf.first() {
        None => Ok(None),
        Some(b'*') => parse_multibulk(buf),
        Some(_) => parse_inline(buf),
    }
}

/// Arguments and bytes used, or `None` if incomplete.
type Parsed = Option<(Vec<Vec<u8>>, usize)>;

fn parse_inline(buf: &[u8]) -> Result<Parsed, ProtocolError> {
    let Some(nl) = find_c(buf, 0, b'\n') else {
        return if buf.len() > INLINE_MAX_SIZE { Err(ProtocolError::TooBigInlineRequest) } else { Ok(None) };
    };
    let line = &buf[..nl];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let args = tokenize(line).map_err(|_| ProtocolError::UnbalancedQuotes)?;
    Ok(Some((args, nl + 1)))
}

/// Reads a `*N` / `$N` header line at `pos`: `Ok(None)` if incomplete, else the text between
/// the type byte and `\r`, and the position after the two terminator bytes.
fn header_line(buf: &[u8], pos: usize, too_big: ProtocolError) -> Result<Option<(&[u8], usize)>, ProtocolError> {
    let Some(cr) = find_c(buf, pos, b'\r') else {
        return if buf.len() - pos > INLINE_MAX_SIZE { Err(too_big) } else { Ok(None) };
    };
    // Redis needs the byte after '\r' to be there, but never looks at it.
    if cr + 1 >= buf.len() {
        return Ok(None);
    }
    Ok(Some((&buf[pos..cr], cr + 2)))
}

fn parse_multibulk(buf: &[u8]) -> Result<Parsed, ProtocolError> {
    let Some((line, mut pos)) = header_line(buf, 0, ProtocolError::TooBigMbulkCountString)? else {
        return Ok(None);
    };
    let count = parse_strict_i64(&line[1..])
        .filter(|n| *n <= MAX_MULTIBULK_LEN)
        .ok_or(ProtocolError::InvalidMultibulkLength)?;
    if count <= 0 {
        return Ok(Some((Vec::new(), pos)));
    }
    // `count` is untrusted: cap the up-front allocation by what the buffer could hold.
    let mut args = Vec::with_capacity((count as usize).min(buf.len() / 4));
    for _ in 0..count {
        let Some((line, next)) = header_line(buf, pos, ProtocolError::TooBigBulkCountString)? else {
            return Ok(None);
        };
        // `line` may be empty (`\r` right away), so look at the buffer itself.
        if buf[pos] != b'$' {
            return Err(ProtocolError::ExpectedDollar(buf[pos]));
        }
        let len = parse_strict_i64(&line[1..])
            .filter(|n| (0..=MAX_BULK_LEN).contains(n))
            .ok_or(ProtocolError::InvalidBulkLength)? as usize;
        // The argument plus two trailing bytes that Redis skips without checking them.
        if buf.len() - next < len + 2 {
            return Ok(None);
        }
        args.push(buf[next..next + len].to_vec());
        pos = next + len + 2;
    }
    Ok(Some((args, pos)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(buf: &[u8]) -> Result<Parsed, ProtocolError> {
        parse_request(buf)
    }

    fn args(list: &[&[u8]]) -> Vec<Vec<u8>> {
        list.iter().map(|a| a.to_vec()).collect()
    }

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

    #[test]
    fn multibulk_requests() {
        let ping = b"*1\r\n$4\r\nPING\r\n";
        assert_eq!(req(ping), Ok(Some((args(&[b"PING"]), ping.len()))));
        let set = b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\nrest";
        assert_eq!(req(set), Ok(Some((args(&[b"SET", b"k", b""]), set.len() - 4))));
        // Binary-safe arguments.
        assert_eq!(req(b"*1\r\n$3\r\n\0\r\n\r\n"), Ok(Some((args(&[b"\0\r\n"]), 13))));
    }

    #[test]
    fn unchecked_terminators_are_skipped_like_redis() {
        // Verified: `*1\r\n$4\r\nPINGXX` answers +PONG.
        assert_eq!(req(b"*1\r\n$4\r\nPINGXX"), Ok(Some((args(&[b"PING"]), 14))));
        // `*1\rx\n...`: the byte after '\r' is skipped, so the next header starts at '\n'.
        assert_eq!(req(b"*1\rx\n$4\r\nPING\r\n"), Err(ProtocolError::ExpectedDollar(b'\n')));
    }

    #[test]
    fn incomplete_requests_wait() {
        for buf in [
            &b""[..],
            b"*",
            b"*1",
            b"*1\r",
            b"*1\r\n",
            b"*1\r\nX",
            b"*1\r\nX\r",
            b"*1\r\n$x\r",
            b"*1\r\n$4\r\nPING",
            b"*1\r\n$4\r\nPING\r",
            b"*2\r\n$4\r\nECHO\r\n",
            b"*2147483647\r\n",
            b"*1\r\n$536870912\r\n",
            b"PING",
            b"PING\r",
            // A NUL hides the terminator from Redis's C-string search.
            b"*1\r\n\0\r\n",
            b"PING\0\r\n",
        ] {
            assert_eq!(req(buf), Ok(None), "{buf:?}");
        }
    }

    #[test]
    fn empty_requests_are_skipped() {
        for (buf, used) in [
            (&b"*0\r\n"[..], 4),
            (b"*-1\r\n", 5),
            (b"*-2\r\nPING\r\n", 5),
            (b"*-9223372036854775808\r\n", 23),
            (b"\r\n", 2),
            (b"\n", 1),
            (b"   \r\n", 5),
        ] {
            assert_eq!(req(buf), Ok(Some((vec![], used))), "{buf:?}");
        }
    }

    #[test]
    fn request_errors_match_redis() {
        use ProtocolError::*;
        let cases: &[(&[u8], ProtocolError)] = &[
            (b"*x\r\n", InvalidMultibulkLength),
            (b"*\r\n", InvalidMultibulkLength),
            (b"* 1\r\n", InvalidMultibulkLength),
            (b"*+1\r\n", InvalidMultibulkLength),
            (b"*01\r\n", InvalidMultibulkLength),
            (b"*-0\r\n", InvalidMultibulkLength),
            (b"*1x\r\n", InvalidMultibulkLength),
            (b"*2147483648\r\n", InvalidMultibulkLength),
            (b"*99999999999999999999\r\n", InvalidMultibulkLength),
            (b"*1\r\n$x\r\n", InvalidBulkLength),
            (b"*1\r\n$\r\n", InvalidBulkLength),
            (b"*1\r\n$-1\r\n", InvalidBulkLength),
            (b"*1\r\n$-0\r\n", InvalidBulkLength),
            (b"*1\r\n$01\r\n", InvalidBulkLength),
            (b"*1\r\n$+1\r\n", InvalidBulkLength),
            (b"*1\r\n$ 1\r\n", InvalidBulkLength),
            (b"*1\r\n$4x\r\n", InvalidBulkLength),
            (b"*1\r\n$\xff\r\n", InvalidBulkLength),
            (b"*2\r\n$536870913\r\n", InvalidBulkLength),
            (b"*1\r\n:4\r\n", ExpectedDollar(b':')),
            (b"*1\r\nX\r\n", ExpectedDollar(b'X')),
            (b"*1\r\n\r\n", ExpectedDollar(b'\r')),
            (b"*1\r\n\n\r\n", ExpectedDollar(b'\n')),
            (b"*1\r\n\xff\r\n", ExpectedDollar(0xff)),
            (b"ECHO \"a\r\n", UnbalancedQuotes),
            (b"ECHO 'a\r\n", UnbalancedQuotes),
            (b"ECHO \"a\"b\r\n", UnbalancedQuotes),
            (b"ECHO \"a\"\"b\"\r\n", UnbalancedQuotes),
        ];
        for (buf, want) in cases {
            assert_eq!(req(buf), Err(*want), "{buf:?}");
        }
    }

    #[test]
    fn request_error_texts() {
        use ProtocolError::*;
        let texts = [
            (InvalidMultibulkLength, "Protocol error: invalid multibulk length"),
            (InvalidBulkLength, "Protocol error: invalid bulk length"),
            (ExpectedDollar(b'X'), "Protocol error: expected '$', got 'X'"),
            (ExpectedDollar(b'\r'), "Protocol error: expected '$', got ' '"),
            (ExpectedDollar(b'\n'), "Protocol error: expected '$', got ' '"),
            (TooBigInlineRequest, "Protocol error: too big inline request"),
            (TooBigMbulkCountString, "Protocol error: too big mbulk count string"),
            (TooBigBulkCountString, "Protocol error: too big bulk count string"),
            (UnbalancedQuotes, "Protocol error: unbalanced quotes in request"),
        ];
        for (err, text) in texts {
            assert_eq!(err.to_string(), text);
        }
        assert_eq!(ExpectedDollar(0xff).to_bytes(), b"Protocol error: expected '$', got '\xff'");
        assert_eq!(InvalidBulkLength.to_reply(), Reply::Error("ERR Protocol error: invalid bulk length".into()));
    }

    #[test]
    fn line_size_limits() {
        // Verified with 65536 / 65537 pending bytes and no terminator.
        let mut inline = vec![b'A'; INLINE_MAX_SIZE];
        assert_eq!(req(&inline), Ok(None));
        inline.push(b'A');
        assert_eq!(req(&inline), Err(ProtocolError::TooBigInlineRequest));
        // A longer inline line is fine once its newline is there.
        inline.extend_from_slice(b"\r\n");
        assert_eq!(req(&inline).map(|r| r.map(|(a, n)| (a.len(), n))), Ok(Some((1, 65539))));

        let mut count = b"*".to_vec();
        count.resize(INLINE_MAX_SIZE, b'9');
        assert_eq!(req(&count), Ok(None));
        count.push(b'9');
        assert_eq!(req(&count), Err(ProtocolError::TooBigMbulkCountString));

        let mut bulk = b"*1\r\n$".to_vec();
        bulk.resize(4 + INLINE_MAX_SIZE, b'9');
        assert_eq!(req(&bulk), Ok(None));
        bulk.push(b'9');
        assert_eq!(req(&bulk), Err(ProtocolError::TooBigBulkCountString));
    }

    #[test]
    fn inline_requests() {
        assert_eq!(req(b"PING\r\n"), Ok(Some((args(&[b"PING"]), 6))));
        assert_eq!(req(b"PING\n"), Ok(Some((args(&[b"PING"]), 5))));
        // '\r' inside a line is whitespace for the splitter.
        assert_eq!(req(b"PI\rNG\r\n"), Ok(Some((args(&[b"PI", b"NG"]), 7))));
        assert_eq!(req(b"ECHO \"\\x41\" ''\r\n"), Ok(Some((args(&[b"ECHO", b"A", b""]), 16))));
        // Only '*' at the very start selects multibulk.
        assert_eq!(req(b" *1\r\n"), Ok(Some((args(&[b"*1"]), 5))));
        assert_eq!(req(b"$4\r\nPING\r\n"), Ok(Some((args(&[b"$4"]), 4))));
    }
}
