//! The server-side request parser, incremental as Redis's is.
//!
//! A [`RequestParser`] belongs to one connection and remembers how far the request being read
//! got: the multibulk count, the arguments already read and how much of the current bulk has
//! come. Each call takes the bytes that arrived and consumes every one it can use, so the
//! caller keeps at most the unfinished header line (`*N`, `$N` or an inline request) and each
//! byte is looked at a bounded number of times however slowly a large request trickles in.
//! A bulk of [`BIG_ARG`] bytes or more goes straight into a buffer of its own, sized once from
//! its header; smaller arguments are packed one after another in [`Args`].
//!
//! Every rule below was checked against Redis 8.2.3 by sending raw bytes: the error texts
//! ([`ProtocolError`]), the limits and the quirks kept.

use crate::resp::{parse_strict_i64, ProtocolError};
use crate::tokenize::tokenize;

/// Longest line Redis waits for without finding its terminator: an inline request, or the
/// `*N`/`$N` header of a multibulk request, that has more pending bytes than this and no
/// newline yet is rejected.
pub const INLINE_MAX_SIZE: usize = 64 * 1024;

/// Longest bulk argument accepted in a request by default (Redis's `proto-max-bulk-len`,
/// 512 MB); [`RequestParser::parse`] takes the connection's current limit.
pub const MAX_BULK_LEN: i64 = 512 * 1024 * 1024;

/// Most arguments accepted in one multibulk request (Redis's limit: a C `int`).
pub const MAX_MULTIBULK_LEN: i64 = i32::MAX as i64;

/// A bulk at least this long is read into a buffer of its own, reserved at its full length
/// when its header arrives, so its bytes are copied once and the buffer never grows by
/// reallocation (which would hold two copies at its peak).
pub const BIG_ARG: usize = 32 * 1024;

/// The arguments of one request, packed: small arguments' bytes one after another with the
/// offset where each ends (9 bytes of overhead for a 1-byte argument, where a `Vec<u8>` each
/// would cost 24 plus an allocation), big ones in their own buffers.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Args {
    /// The small arguments' bytes.
    data: Vec<u8>,
    /// Per argument, where it ends in `data` (a big argument ends where the one before it did).
    ends: Vec<usize>,
    /// The big arguments, with their positions, in order.
    big: Vec<(usize, Vec<u8>)>,
}

impl Args {
    /// How many arguments there are.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none (an empty request, which Redis skips).
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Adds an argument.
    pub fn push(&mut self, arg: &[u8]) {
        self.data.extend_from_slice(arg);
        self.ends.push(self.data.len());
    }

    /// The arguments as the session takes them. Big arguments move; small ones are copied.
    pub fn into_vecs(self) -> Vec<Vec<u8>> {
        let mut out = Vec::with_capacity(self.ends.len());
        let mut big = self.big.into_iter().peekable();
        let mut start = 0;
        for (i, &end) in self.ends.iter().enumerate() {
            match big.next_if(|(at, _)| *at == i) {
                Some((_, bytes)) => out.push(bytes),
                None => out.push(self.data[start..end].to_vec()),
            }
            start = end;
        }
        out
    }
}

/// Where the request being read is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum State {
    /// Between requests.
    #[default]
    Start,
    /// In a multibulk request, before the `$N` header of an argument; `left` arguments
    /// (this one included) are still to come.
    Header { left: u64 },
    /// Reading an argument of `len` bytes and the 2 bytes after it: `got` of them have come.
    Bulk { left: u64, len: usize, got: usize },
}

/// One connection's request parser (see the module documentation).
#[derive(Debug, Default)]
pub struct RequestParser {
    state: State,
    /// How many bytes of the pending line were searched for its terminator already. A NUL
    /// stops the search for good (Redis searches its buffer as a C string), so it stays here.
    scanned: usize,
    /// The arguments read so far.
    args: Args,
    /// The big argument being read.
    big: Vec<u8>,
}

impl RequestParser {
    /// A parser between requests.
    pub fn new() -> RequestParser {
        RequestParser::default()
    }

    /// Whether a request is partly read (bytes were consumed that belong to no finished
    /// request yet).
    pub fn in_request(&self) -> bool {
        self.state != State::Start
    }

    /// How many bytes of the argument being read have arrived. Redis counts them in the
    /// client's query buffer (arguments already read do not count).
    pub fn partial_bulk(&self) -> usize {
        match self.state {
            State::Bulk { len, got, .. } => got.min(len),
            _ => 0,
        }
    }

    /// Roughly how much memory the request being read holds (its arguments so far).
    pub fn held_bytes(&self) -> usize {
        let big: usize = self.args.big.iter().map(|(_, b)| b.capacity()).sum();
        self.args.data.capacity() + self.args.ends.capacity() * std::mem::size_of::<usize>() + big + self.big.capacity()
    }

    /// Reads from `buf`, the bytes that came after everything consumed so far, with bulks
    /// limited to `max_bulk` bytes (`proto-max-bulk-len`). Returns how many bytes were
    /// consumed (the caller drops them and passes the rest, with what arrives next, to the
    /// next call) and:
    /// * `Ok(Some(args))`: a request, complete. **Empty `args`** means "nothing to run": Redis
    ///   silently skips empty inline lines, blank lines, `*0` and negative counts such as
    ///   `*-1`. Call again for the next request.
    /// * `Ok(None)`: every usable byte was consumed and more are needed.
    /// * `Err`: Redis replies with [`ProtocolError::to_reply`] and closes the connection.
    ///
    /// A buffer starting with `*` is a multibulk request, anything else an inline one:
    /// * inline: a line up to `\n` (a `\r` before it is dropped), split with the
    ///   [`tokenize`] rules; an unsplittable line is [`ProtocolError::UnbalancedQuotes`];
    ///   more than [`INLINE_MAX_SIZE`] bytes without `\n` is
    ///   [`ProtocolError::TooBigInlineRequest`].
    /// * multibulk: `*N\r\n` with `N <= MAX_MULTIBULK_LEN`, then N times `$len\r\n`, `len`
    ///   bytes and 2 more bytes. Quirks kept from Redis: the header lines end at `\r` and the
    ///   byte after it is skipped unchecked; the 2 bytes after an argument are skipped
    ///   unchecked too (`$4\r\nPINGXX` is fine); a NUL inside a header line hides its `\r`.
    ///
    /// Not modelled: the stricter limits Redis applies to clients that still have to AUTH.
    pub fn parse(&mut self, buf: &[u8], max_bulk: i64) -> (usize, Result<Option<Args>, ProtocolError>) {
        let mut pos = 0;
        loop {
            let step = match self.state {
                State::Start => match buf.get(pos) {
                    None => Ok(None),
                    Some(b'*') => self.count(buf, pos),
                    Some(_) => self.inline(buf, pos),
                },
                State::Header { left } => self.header(buf, pos, left, max_bulk),
                State::Bulk { .. } if pos == buf.len() => Ok(None),
                State::Bulk { left, len, got } => Ok(Some(self.bulk(buf, pos, left, len, got))),
            };
            match step {
                Ok(Some(Progress::Went(next))) => pos = next,
                Ok(Some(Progress::Done(next))) => {
                    self.state = State::Start;
                    return (next, Ok(Some(std::mem::take(&mut self.args))));
                }
                Ok(None) => return (pos, Ok(None)),
                Err(e) => {
                    *self = RequestParser::default();
                    return (pos, Err(e));
                }
            }
        }
    }

    /// Finds the end of the line starting at `start`: the first `target` byte, unless a NUL
    /// comes first. Resumes where the last search of the same line stopped.
    fn find(&mut self, buf: &[u8], start: usize, target: u8) -> Option<usize> {
        let line = buf.get(start..).unwrap_or_default();
        let from = self.scanned.min(line.len());
        match line[from..].iter().position(|&b| b == target || b == 0) {
            Some(i) if line[from + i] == target => Some(start + from + i),
            Some(i) => {
                self.scanned = from + i;
                None
            }
            None => {
                self.scanned = line.len();
                None
            }
        }
    }

    /// Reads a `*N` / `$N` header line at `start`: `Ok(None)` if incomplete, else the text
    /// after the type byte up to `\r`, and the position after the two terminator bytes.
    fn line<'b>(
        &mut self,
        buf: &'b [u8],
        start: usize,
        too_big: ProtocolError,
    ) -> Result<Option<(&'b [u8], usize)>, ProtocolError> {
        let Some(cr) = self.find(buf, start, b'\r') else {
            return if buf.len() - start > INLINE_MAX_SIZE { Err(too_big) } else { Ok(None) };
        };
        // Redis needs the byte after '\r' to be there, but never looks at it.
        if cr + 1 >= buf.len() {
            self.scanned = cr - start;
            return Ok(None);
        }
        self.scanned = 0;
        // The text after the type byte; empty when the line is a lone `\r`.
        Ok(Some((buf.get(start + 1..cr).unwrap_or_default(), cr + 2)))
    }

    fn inline(&mut self, buf: &[u8], start: usize) -> Result<Option<Progress>, ProtocolError> {
        let Some(nl) = self.find(buf, start, b'\n') else {
            return if buf.len() - start > INLINE_MAX_SIZE {
                Err(ProtocolError::TooBigInlineRequest)
            } else {
                Ok(None)
            };
        };
        self.scanned = 0;
        let line = &buf[start..nl];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        for arg in tokenize(line).map_err(|_| ProtocolError::UnbalancedQuotes)? {
            self.args.push(&arg);
        }
        Ok(Some(Progress::Done(nl + 1)))
    }

    fn count(&mut self, buf: &[u8], start: usize) -> Result<Option<Progress>, ProtocolError> {
        let Some((text, next)) = self.line(buf, start, ProtocolError::TooBigMbulkCountString)? else {
            return Ok(None);
        };
        let count =
            parse_strict_i64(text).filter(|n| *n <= MAX_MULTIBULK_LEN).ok_or(ProtocolError::InvalidMultibulkLength)?;
        if count <= 0 {
            return Ok(Some(Progress::Done(next)));
        }
        self.state = State::Header { left: count as u64 };
        Ok(Some(Progress::Went(next)))
    }

    fn header(
        &mut self,
        buf: &[u8],
        start: usize,
        left: u64,
        max_bulk: i64,
    ) -> Result<Option<Progress>, ProtocolError> {
        let Some((text, next)) = self.line(buf, start, ProtocolError::TooBigBulkCountString)? else {
            return Ok(None);
        };
        // The line may be empty (`\r` right away), so look at the buffer itself.
        if buf[start] != b'$' {
            return Err(ProtocolError::ExpectedDollar(buf[start]));
        }
        let len = parse_strict_i64(text)
            .filter(|n| (0..=max_bulk).contains(n))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(ProtocolError::InvalidBulkLength)?;
        if len >= BIG_ARG {
            // Reserved, not written: the pages are only touched as the bytes arrive. A length
            // no allocator can give (a raised `proto-max-bulk-len`) grows as it comes instead.
            self.big = Vec::new();
            let _ = self.big.try_reserve_exact(len);
        }
        self.state = State::Bulk { left, len, got: 0 };
        Ok(Some(Progress::Went(next)))
    }

    fn bulk(&mut self, buf: &[u8], start: usize, left: u64, len: usize, got: usize) -> Progress {
        let avail = &buf[start..];
        // The argument's bytes, then the two that Redis skips without checking them.
        let take = (len + 2 - got).min(avail.len());
        let data = &avail[..take.min(len.saturating_sub(got))];
        if len >= BIG_ARG {
            self.big.extend_from_slice(data);
        } else {
            self.args.data.extend_from_slice(data);
        }
        let got = got + take;
        if got < len + 2 {
            self.state = State::Bulk { left, len, got };
            return Progress::Went(start + take);
        }
        if len >= BIG_ARG {
            let index = self.args.ends.len();
            self.args.big.push((index, std::mem::take(&mut self.big)));
        }
        self.args.ends.push(self.args.data.len());
        if left == 1 {
            return Progress::Done(start + take);
        }
        self.state = State::Header { left: left - 1 };
        Progress::Went(start + take)
    }
}

/// What one step of [`RequestParser::parse`] did.
enum Progress {
    /// Consumed bytes up to here; the request goes on.
    Went(usize),
    /// The request ended here.
    Done(usize),
}

/// Parses one client request from the start of `buf` with a fresh [`RequestParser`] and the
/// default bulk limit: `Ok(None)` if more bytes are needed, otherwise the arguments and the
/// number of bytes used (see [`RequestParser::parse`] for the rules and the empty request).
// The signature spells the type out so callers see it without chasing an alias.
#[allow(clippy::type_complexity)]
pub fn parse_request(buf: &[u8]) -> Result<Option<(Vec<Vec<u8>>, usize)>, ProtocolError> {
    match RequestParser::new().parse(buf, MAX_BULK_LEN) {
        (used, Ok(Some(args))) => Ok(Some((args.into_vecs(), used))),
        (_, Ok(None)) => Ok(None),
        (_, Err(e)) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reply;
    use streamlab_testkit::rng::Rng;

    /// Bytes used, or `None` if incomplete.
    type Parsed = Option<(Vec<Vec<u8>>, usize)>;

    fn req(buf: &[u8]) -> Result<Parsed, ProtocolError> {
        parse_request(buf)
    }

    fn args(list: &[&[u8]]) -> Vec<Vec<u8>> {
        list.iter().map(|a| a.to_vec()).collect()
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

    /// What a connection's bytes produce: the requests (empty ones included) and the error that
    /// ended them, if any, with how many bytes had arrived when it was reported.
    type Outcome = (Vec<Vec<Vec<u8>>>, Option<(ProtocolError, usize)>);

    /// Feeds `buf` to one parser in pieces ending at `cuts` (then the rest), keeping the
    /// unconsumed bytes as the server does, and parsing until each piece is used up.
    fn fed(buf: &[u8], cuts: &[usize], max_bulk: i64) -> Outcome {
        let mut parser = RequestParser::new();
        let mut pending: Vec<u8> = Vec::new();
        let mut requests = Vec::new();
        let mut arrived = 0;
        for &end in cuts.iter().chain([buf.len()].iter()) {
            let end = end.clamp(arrived, buf.len());
            pending.extend_from_slice(&buf[arrived..end]);
            arrived = end;
            loop {
                let (used, result) = parser.parse(&pending, max_bulk);
                pending.drain(..used);
                match result {
                    Ok(Some(args)) => requests.push(args.into_vecs()),
                    Ok(None) => break,
                    Err(e) => return (requests, Some((e, arrived))),
                }
            }
            // Everything the parser could use is gone: only an unfinished line stays.
            assert!(pending.len() <= INLINE_MAX_SIZE + 1 + (end - arrived) || pending.is_empty());
        }
        (requests, None)
    }

    /// The same bytes in one piece; an error is dated by the shortest prefix that reports it.
    fn one_shot(buf: &[u8], max_bulk: i64) -> Outcome {
        let (requests, error) = fed(buf, &[], max_bulk);
        let error = error.map(|(e, _)| {
            let at = (0..=buf.len()).find(|&n| fed(&buf[..n], &[], max_bulk).1.is_some()).unwrap_or(buf.len());
            (e, at)
        });
        (requests, error)
    }

    fn byte_at_a_time(buf: &[u8], max_bulk: i64) -> Outcome {
        let cuts: Vec<usize> = (1..buf.len()).collect();
        fed(buf, &cuts, max_bulk)
    }

    #[test]
    fn byte_at_a_time_equals_one_shot() {
        let big = [b"*2\r\n$4\r\nECHO\r\n$40000\r\n".to_vec(), vec![b'x'; BIG_ARG + 7232], b"\r\n".to_vec()].concat();
        let cases: Vec<&[u8]> = vec![
            b"*1\r\n$4\r\nPING\r\n",
            b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n*1\r\n$4\r\nPING\r\n",
            b"PING\r\nECHO \"a b\" 'c'\r\n\r\n\n  \r\n*0\r\n*-1\r\nPING\n",
            b"*1\r\n$4\r\nPINGXX*1\rx$4\r\nPING\r\n",
            b"*1\r\n$3\r\n\0\r\n\r\n",
            b"*2\r\n$4\r\nECHO\r\n$3\r\na\0b\r\n",
            b"*3\r\n$3\r\nSET\r\nPING\r\n",
            b"*1\r\n$-5\r\n",
            b"*1\r\n$536870913\r\n",
            b"PING\r\n*x\r\n",
            b"PING\r\n*1\r\n:4\r\n",
            b"ECHO \"a\r\n",
            b"PING\r\nECHO 'a\r\nPING\r\n",
            b"*1\r\n\0\r\n$4\r\nPING\r\n",
            b"PING\0\r\nPING\r\n",
            b"*2\r\n$4\r\nECHO\r\n$4\r\nPING",
            &big,
        ];
        for case in cases {
            assert_eq!(byte_at_a_time(case, MAX_BULK_LEN), one_shot(case, MAX_BULK_LEN), "{case:?}");
        }
        let (requests, error) = byte_at_a_time(&big, MAX_BULK_LEN);
        assert_eq!((requests[0][1].len(), error), (40000, None));
        // The lines that are too long are reported when the byte past the limit arrives.
        // The lines that are too long are reported when the byte past the limit arrives: the
        // limit counts from the line's first byte.
        for (prefix, line_start, err) in [
            (&b""[..], 0, ProtocolError::TooBigInlineRequest),
            (b"*", 0, ProtocolError::TooBigMbulkCountString),
            (b"*1\r\n$", 4, ProtocolError::TooBigBulkCountString),
        ] {
            let mut line = prefix.to_vec();
            line.resize(line_start + INLINE_MAX_SIZE + 3, b'9');
            assert_eq!(byte_at_a_time(&line, MAX_BULK_LEN).1, Some((err, line_start + INLINE_MAX_SIZE + 1)));
        }
    }

    #[test]
    fn the_bulk_limit_is_the_callers() {
        let buf = b"*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n";
        assert_eq!(byte_at_a_time(buf, 5).0, vec![args(&[b"ECHO", b"hello"])]);
        assert_eq!(byte_at_a_time(buf, 4).1, Some((ProtocolError::InvalidBulkLength, 18)));
    }

    #[test]
    fn consumed_bytes_are_not_kept() {
        // A request of many arguments arriving a byte at a time leaves nothing pending
        // between arguments, and each byte is searched once.
        let mut parser = RequestParser::new();
        let mut buf = b"*1000002\r\n$6\r\nNOSUCH\r\n".to_vec();
        buf.extend(b"$1\r\na\r\n".repeat(1000));
        let mut pending = Vec::new();
        let mut most = 0;
        for &b in &buf {
            pending.push(b);
            let (used, result) = parser.parse(&pending, MAX_BULK_LEN);
            assert_eq!(result, Ok(None));
            pending.drain(..used);
            most = most.max(pending.len());
        }
        // At most the longest header line, `*1000002\r`.
        assert!(most <= 9, "{most} bytes held");
        assert!(parser.in_request());
        assert_eq!(parser.args.len(), 1001);
        // A partial big bulk counts as held, as in Redis's query buffer.
        let mut parser = RequestParser::new();
        let (used, result) = parser.parse(&[&b"*1\r\n$100000\r\n"[..], &[b'a'; 5000]].concat(), MAX_BULK_LEN);
        assert_eq!((used, result, parser.partial_bulk()), (5013, Ok(None), 5000));
    }

    /// A valid request of random shape, or bytes near one.
    fn random_stream(rng: &mut Rng) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..rng.index(4) + 1 {
            match rng.index(5) {
                0 => out.extend_from_slice(rng.pick(&[
                    &b"PING\r\n"[..],
                    b"ECHO \"a\\x41\" 'b'\n",
                    b"\r\n",
                    b"*0\r\n",
                    b"*-1\r\n",
                ])),
                _ => {
                    let n = rng.index(5);
                    out.extend_from_slice(format!("*{n}\r\n").as_bytes());
                    for _ in 0..n {
                        let len = if rng.chance(5) { BIG_ARG + rng.index(100) } else { rng.index(12) };
                        out.extend_from_slice(format!("${len}\r\n").as_bytes());
                        for _ in 0..len {
                            out.push(rng.next() as u8);
                        }
                        out.extend_from_slice(b"\r\n");
                    }
                }
            }
        }
        // Sometimes break it: a byte changed, inserted or removed, or the end cut off.
        const ALPHABET: &[u8] = b"*$\r\n0123456789-x \0\"'";
        for _ in 0..rng.index(3) {
            let at = rng.index(out.len());
            match rng.index(3) {
                0 => out[at] = ALPHABET[rng.index(ALPHABET.len())],
                1 => out.insert(at, ALPHABET[rng.index(ALPHABET.len())]),
                _ => {
                    out.remove(at);
                }
            }
        }
        if rng.chance(20) {
            out.truncate(rng.index(out.len() + 1));
        }
        out
    }

    #[test]
    fn random_splits_change_nothing() {
        let mut rng = Rng::new(0x5eed_0014);
        let mut errors = 0;
        for _ in 0..3000 {
            let buf = random_stream(&mut rng);
            let whole = fed(&buf, &[], MAX_BULK_LEN);
            let mut cuts: Vec<usize> = (0..rng.index(6)).map(|_| rng.index(buf.len() + 1)).collect();
            cuts.sort_unstable();
            let split = fed(&buf, &cuts, MAX_BULK_LEN);
            assert_eq!(split.0, whole.0, "{buf:?} cut at {cuts:?}");
            assert_eq!(split.1.map(|(e, _)| e), whole.1.map(|(e, _)| e), "{buf:?} cut at {cuts:?}");
            errors += usize::from(whole.1.is_some());
        }
        // The generator reaches both outcomes, or the test proves little.
        assert!(errors > 300 && errors < 2700, "{errors} errors");
    }
}
