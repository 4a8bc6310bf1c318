//! What XREAD and XREADGROUP share: Redis reads both commands' options with one routine, so
//! they accept the same tokens in the same order and report the same errors, and their
//! replies have the same shape.
//!
//! Use from a handler:
//!
//! 1. [`parse_read_args`] reads every option up to and including the `STREAMS` block. Errors
//!    Redis reports while scanning the options are returned at once; errors about one id
//!    (`$`, `+` or `>` used with the wrong command, or a malformed id) are kept in
//!    [`ReadStream::id`] because Redis reports them only when it reaches that stream, after
//!    the type check of its key (and, for XREADGROUP, after the group check).
//! 2. The handler walks [`ReadArgs::streams`] in order, checks each key, then takes the id's
//!    `Result` with `?`; only when every stream passed does it serve anything.
//! 3. XREAD turns each [`ReadId`] into the id to read after with [`ReadId::xread_after`].
//! 4. When nothing was served and BLOCK was given, the handler answers with
//!    [`crate::command::Outcome::Block`]: keys from [`ReadArgs::keys`], deadline from
//!    [`ReadArgs::deadline`], and the command to run again: XREADGROUP's own arguments,
//!    XREAD's from [`ReadArgs::rerun_args`] (which freezes `$` and `+` to the ids they
//!    meant when the read blocked).
//! 5. [`streams_reply`] builds the reply from the served streams (RESP2 array of
//!    `[key, entries]`, RESP3 map).

// The steps above link the private items that carry them out: this page is meant to be read
// from `cargo doc --document-private-items`, where those links resolve.
#![allow(rustdoc::private_intra_doc_links)]

use streamlab_engine::{count_limit, ReadBudget, Stream, StreamId};

use super::{arg, entry_reply, is, parse_int, parse_strict_id, Block, CommandSpec, Ctx, Outcome, Run};
use crate::error::{CmdError, Msg};
use crate::profile::{Capabilities, PlusRule};
use crate::reply::Reply;

/// What one id argument of XREAD or XREADGROUP asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadId {
    /// `$` (XREAD only): entries added after the stream's last id as of now.
    Last,
    /// `+` (XREAD only): the stream's last entry.
    LastEntry,
    /// `>` (XREADGROUP only): entries never delivered to the group.
    New,
    /// An explicit id (a missing sequence means 0). XREAD serves entries after it;
    /// XREADGROUP serves the consumer's own pending entries after it.
    After(StreamId),
}

impl ReadId {
    /// The id XREAD reads after: `$` is the stream's last generated id (0-0 if the key is
    /// missing); `+` is just below the stream's last live entry, so that entry alone is
    /// served (0-0 when the stream is missing or has no live entry: a read blocked on it is
    /// then served whatever arrives). `None` for `>`, which the parser never lets through
    /// for XREAD.
    ///
    /// Which entry `+` means depends on the server: Redis 8.2 reads the newest live one, 7.4
    /// and Valkey read after last-generated-id minus one (so nothing once that entry is gone).
    pub(crate) fn xread_after(self, stream: Option<&Stream>, plus: PlusRule) -> Option<StreamId> {
        match self {
            ReadId::Last => Some(stream.map_or(StreamId::MIN, Stream::last_id)),
            ReadId::LastEntry => {
                let last = match plus {
                    PlusRule::NewestLive => stream.map(Stream::last_live_id),
                    PlusRule::LastGenerated => stream.map(Stream::last_id),
                };
                Some(last.and_then(StreamId::prev).unwrap_or(StreamId::MIN))
            }
            ReadId::New => None,
            ReadId::After(id) => Some(id),
        }
    }
}

/// One key of the `STREAMS` block and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadStream<'a> {
    /// The key.
    pub key: &'a [u8],
    /// The id, or the error Redis reports when it reaches this stream (after checking the
    /// key's type and, for XREADGROUP, the group).
    pub id: Result<ReadId, CmdError>,
}

impl ReadStream<'_> {
    /// The id, or the error it gave, taken out (the read fails with it). Not `id.clone()`:
    /// that links `CmdError`'s `Clone`, 1 KB of wasm that nothing else in the bundles uses.
    pub fn take_id(&mut self) -> Result<ReadId, CmdError> {
        match &mut self.id {
            Ok(id) => Ok(*id),
            Err(error) => Err(std::mem::replace(error, CmdError::Syntax)),
        }
    }
}

/// XREAD / XREADGROUP arguments, as far as they can be checked without the keyspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReadArgs<'a> {
    /// COUNT: at most this many entries per stream; 0 (also for a negative COUNT or none)
    /// means no limit.
    pub count: u64,
    /// BLOCK in milliseconds, when given; 0 waits forever.
    pub block: Option<i64>,
    /// `GROUP group consumer` (XREADGROUP; the last one given wins).
    pub group: Option<(&'a [u8], &'a [u8])>,
    /// NOACK (XREADGROUP).
    pub no_ack: bool,
    /// The streams, in argument order (a key may appear more than once).
    pub streams: Vec<ReadStream<'a>>,
    /// Index in the arguments of the first id (the one after the last key).
    pub ids_at: usize,
    /// `CLAIM min-idle-time` (XREADGROUP, Redis 8.4; docs-only, unverified on a server).
    pub claim: Option<i64>,
    /// `MAXCOUNT` / `MAXSIZE` (Redis 8.10; docs-only): the whole command's budget.
    pub budget: ReadBudget,
}

/// Reads XREAD's (`group_mode == false`) or XREADGROUP's (`group_mode == true`) options.
/// `now` is the command's clock reading: Redis refuses at parse time a BLOCK whose deadline
/// would overflow.
///
/// Options are scanned left to right from the argument after the command name; each is
/// recognised only when enough arguments follow it, otherwise it is a syntax error:
/// - `BLOCK ms`: `ERR timeout is not an integer or out of range`, `ERR timeout is negative`,
///   `ERR timeout is out of range` (deadline past the largest time);
/// - `COUNT n`: integer error; negative means no limit; repeatable, the last one wins;
/// - `GROUP g c` (two values): in XREAD `ERR The GROUP option is only supported by XREADGROUP...`;
/// - `NOACK`: in XREAD `ERR The NOACK option is only supported by XREADGROUP...`;
/// - `STREAMS` followed by at least one argument ends the scan: the rest must split evenly
///   into keys and ids, else the command's "Unbalanced ... list of streams" error;
/// - anything else: `ERR syntax error`.
///
/// Then: no `STREAMS` -> syntax error; XREADGROUP without `GROUP` -> `ERR Missing GROUP option
/// for XREADGROUP`. Ids are classified per command (see [`ReadStream::id`]): XREAD takes `$`
/// and `+` and refuses `>`; XREADGROUP takes `>` and refuses `$` and `+`; anything else must
/// be a strict id.
///
/// Options newer than the profile's server are unknown tokens there (`ERR syntax error`, as
/// Redis 8.2 answers CLAIM, MAXCOUNT and MAXSIZE).
pub(crate) fn parse_read_args<'a>(
    args: &'a [Vec<u8>],
    group_mode: bool,
    now: i64,
    caps: &Capabilities,
) -> Result<ReadArgs<'a>, CmdError> {
    let mut parsed = ReadArgs {
        count: 0,
        block: None,
        group: None,
        no_ack: false,
        streams: Vec::new(),
        ids_at: 0,
        claim: None,
        budget: ReadBudget::default(),
    };
    let mut streams_at = None;
    let mut i = 1;
    while i < args.len() {
        let word = arg(args, i);
        let more = args.len() - i - 1;
        if is(word, "BLOCK") && more >= 1 {
            parsed.block = Some(parse_timeout(arg(args, i + 1), now)?);
            i += 2;
        } else if is(word, "COUNT") && more >= 1 {
            parsed.count = u64::try_from(parse_int(arg(args, i + 1))?).unwrap_or(0);
            i += 2;
        } else if is(word, "STREAMS") && more >= 1 {
            streams_at = Some(i + 1);
            break;
        } else if is(word, "GROUP") && more >= 2 {
            if !group_mode {
                return Err(Msg::GroupOnlyInXreadgroup.into());
            }
            parsed.group = Some((arg(args, i + 1), arg(args, i + 2)));
            i += 3;
        } else if is(word, "NOACK") {
            if !group_mode {
                return Err(Msg::NoackOnlyInXreadgroup.into());
            }
            parsed.no_ack = true;
            i += 1;
        } else if caps.read_claim && group_mode && is(word, "CLAIM") && more >= 1 {
            // Docs-only: a negative min-idle-time is taken as 0, as XCLAIM does.
            parsed.claim = Some(parse_int(arg(args, i + 1))?.max(0));
            i += 2;
        } else if caps.read_caps && (is(word, "MAXCOUNT") || is(word, "MAXSIZE")) && more >= 1 {
            // Docs-only: positive integers; the errors for other values are guesses (the
            // integer error, or a syntax error for zero and below).
            let n = parse_int(arg(args, i + 1))?;
            if n <= 0 {
                return Err(CmdError::Syntax);
            }
            if is(word, "MAXCOUNT") {
                parsed.budget.max_count = Some(n as u64);
            } else {
                parsed.budget.max_size = Some(n as u64);
            }
            i += 2;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let Some(streams_at) = streams_at else { return Err(CmdError::Syntax) };
    let rest = args.len() - streams_at;
    if rest % 2 == 1 {
        return Err(match (group_mode, caps.unbalanced_mentions_plus) {
            (true, _) => Msg::UnbalancedXreadgroup,
            (false, true) => Msg::UnbalancedXread,
            (false, false) => Msg::UnbalancedXreadNoPlus,
        }
        .into());
    }
    if group_mode && parsed.group.is_none() {
        return Err(Msg::MissingGroup.into());
    }
    // MAXCOUNT may not be below COUNT (docs-only; the error is a guess).
    if parsed.budget.max_count.is_some_and(|max| parsed.count > max) {
        return Err(CmdError::Syntax);
    }
    let n = rest / 2;
    parsed.ids_at = streams_at + n;
    // Plain loops in this module: each collected adapter chain is its own code in the wasm.
    for k in 0..n {
        let stream =
            ReadStream { key: arg(args, streams_at + k), id: read_id(arg(args, streams_at + n + k), group_mode) };
        parsed.streams.push(stream);
    }
    Ok(parsed)
}

/// BLOCK's value: a canonical integer of milliseconds, not negative, whose deadline fits.
fn parse_timeout(arg: &[u8], now: i64) -> Result<i64, CmdError> {
    let ms = super::parse_int_or(arg, Msg::TimeoutNotInteger)?;
    if ms < 0 {
        return Err(Msg::TimeoutNegative.into());
    }
    if ms > 0 && now.checked_add(ms).is_none() {
        return Err(Msg::TimeoutOutOfRange.into());
    }
    Ok(ms)
}

fn read_id(arg: &[u8], group_mode: bool) -> Result<ReadId, CmdError> {
    match (arg, group_mode) {
        (b"$", false) => Ok(ReadId::Last),
        (b"+", false) => Ok(ReadId::LastEntry),
        (b">", true) => Ok(ReadId::New),
        (b">", false) => Err(Msg::GreaterIdOnlyInXreadgroup.into()),
        (b"$", true) => Err(Msg::DollarInXreadgroup.into()),
        (b"+", true) => Err(Msg::PlusInXreadgroup.into()),
        _ => Ok(ReadId::After(parse_strict_id(arg)?)),
    }
}

impl ReadArgs<'_> {
    /// The keys a blocked read waits on: each key once, in argument order.
    pub(crate) fn keys(&self) -> Vec<Vec<u8>> {
        let mut keys: Vec<Vec<u8>> = Vec::with_capacity(self.streams.len());
        for stream in &self.streams {
            if !keys.iter().any(|k| k.as_slice() == stream.key) {
                keys.push(stream.key.to_vec());
            }
        }
        keys
    }

    /// When a read that blocks now times out: `None` for `BLOCK 0` (or no BLOCK). The parser
    /// has made sure the sum does not overflow.
    pub(crate) fn deadline(&self, now: i64) -> Option<i64> {
        match self.block {
            Some(ms) if ms > 0 => Some(now + ms),
            _ => None,
        }
    }

    /// The arguments to run again when a blocked XREAD wakes: the same command with each
    /// `$` and `+` replaced by the id it resolved to (`after[k]` for stream `k`, from
    /// [`ReadId::xread_after`]), so that entries added while blocked are the ones served.
    pub(crate) fn rerun_args(&self, args: &[Vec<u8>], after: &[StreamId]) -> Vec<Vec<u8>> {
        let mut out = args.to_vec();
        for (k, (stream, id)) in self.streams.iter().zip(after).enumerate() {
            // `+` stays `+`: woken, it means the last entry at that moment (observed on 8.2.3:
            // two entries added in one EXEC serve a blocked `+` reader the second only).
            if matches!(stream.id, Ok(ReadId::Last)) {
                out[self.ids_at + k] = id.to_string().into_bytes();
            }
        }
        out
    }
}

/// The reply of a read that served something: in RESP2 an array of `[key, entries]`, in
/// RESP3 a map from key to entries, in the order the streams were served.
pub(crate) fn streams_reply(resp3: bool, served: Vec<(Vec<u8>, Reply)>) -> Reply {
    if resp3 {
        let mut pairs = Vec::new();
        for (key, entries) in served {
            pairs.push((Reply::Bulk(key), entries));
        }
        Reply::Map(pairs)
    } else {
        let mut items = Vec::new();
        for (key, entries) in served {
            items.push(Reply::Array(vec![Reply::Bulk(key), entries]));
        }
        Reply::Array(items)
    }
}

/// XREAD's table entry (XREADGROUP lives with the other group commands).
pub const COMMANDS: &[CommandSpec] = &[CommandSpec {
    name: "xread",
    arity: -4,
    write: false,
    syntax: "[COUNT count] [MAXCOUNT maxcount] [MAXSIZE maxsize] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]",
    summary: "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.",
    since: "5.0.0",
    group: "stream",
    subcommands: &[],
    run: Run::Data(xread),
}];

/// XREAD: every key's type and id are checked, in order, before anything is served; missing
/// keys are skipped; a stream is served when it has a live entry after the requested id.
fn xread(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let mut parsed = parse_read_args(args, false, ctx.now, ctx.caps)?;
    let mut after = Vec::with_capacity(parsed.streams.len());
    for stream in &mut parsed.streams {
        let found = ctx.db.stream(stream.key)?;
        let id = stream.take_id()?;
        after.push(id.xread_after(found, ctx.caps.xread_plus).ok_or(Msg::GreaterIdOnlyInXreadgroup)?);
    }
    let limit = count_limit(parsed.count);
    let mut served = Vec::new();
    for (stream, &from) in parsed.streams.iter().zip(&after) {
        let Some(found) = ctx.db.stream(stream.key)? else { continue };
        if found.is_empty() || found.last_live_id() <= from {
            continue;
        }
        let Some(start) = from.next() else { continue };
        let budget = &mut parsed.budget;
        let mut entries = Vec::new();
        for entry in found.range(start, StreamId::MAX, false).take(limit) {
            if !budget.admit(&entry) {
                break;
            }
            entries.push(entry_reply(entry));
        }
        if entries.is_empty() {
            continue;
        }
        served.push((stream.key.to_vec(), Reply::Array(entries)));
    }
    if !served.is_empty() {
        return Ok(streams_reply(ctx.resp3, served).into());
    }
    match parsed.block {
        // When woken, the read runs again with `$` and `+` frozen to what they meant now.
        Some(_) => Ok(Outcome::Block(Block {
            keys: parsed.keys(),
            deadline: parsed.deadline(ctx.now),
            args: parsed.rerun_args(args, &after),
            retry_on_tick: false,
            streams_only: true,
        })),
        None => Ok(Reply::NullArray.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_000_000;

    /// The options as the default profile reads them, at the test's clock reading.
    fn parse(args: &[Vec<u8>], group_mode: bool) -> Result<ReadArgs<'_>, CmdError> {
        parse_read_args(args, group_mode, NOW, crate::profile::Profile::default().caps())
    }

    fn argv(line: &str) -> Vec<Vec<u8>> {
        line.split_whitespace().map(|s| s.as_bytes().to_vec()).collect()
    }

    fn err(line: &str, group_mode: bool) -> String {
        let args = argv(line);
        parse(&args, group_mode).expect_err(line).to_string()
    }

    #[test]
    fn options_and_streams() {
        let args = argv("XREADGROUP GROUP g c COUNT 5 BLOCK 10 NOACK STREAMS a b > 3");
        let parsed = parse(&args, true).unwrap();
        assert_eq!(parsed.count, 5);
        assert_eq!(parsed.block, Some(10));
        assert_eq!(parsed.group, Some((&b"g"[..], &b"c"[..])));
        assert!(parsed.no_ack);
        assert_eq!(parsed.ids_at, 12);
        assert_eq!(
            parsed.streams,
            vec![
                ReadStream { key: b"a", id: Ok(ReadId::New) },
                ReadStream { key: b"b", id: Ok(ReadId::After(StreamId::new(3, 0))) },
            ]
        );
        assert_eq!(parsed.deadline(NOW), Some(NOW + 10));

        // Repeated options: the last one wins; a negative COUNT means no limit.
        let args = argv("XREADGROUP GROUP g c GROUP h d COUNT 3 COUNT -1 BLOCK 0 STREAMS a 0");
        let parsed = parse(&args, true).unwrap();
        assert_eq!(parsed.group, Some((&b"h"[..], &b"d"[..])));
        assert_eq!(parsed.count, 0);
        assert_eq!(parsed.deadline(NOW), None);

        // STREAMS takes everything after it, even option names.
        let args = argv("XREAD STREAMS STREAMS 0");
        let parsed = parse(&args, false).unwrap();
        assert_eq!(parsed.streams, vec![ReadStream { key: b"STREAMS", id: Ok(ReadId::After(StreamId::MIN)) }]);
    }

    #[test]
    fn ids_per_command() {
        let args = argv("XREAD STREAMS a b c d $ + > bad");
        let ids: Vec<_> = parse(&args, false).unwrap().streams.into_iter().map(|s| s.id).collect();
        assert_eq!(
            ids,
            vec![
                Ok(ReadId::Last),
                Ok(ReadId::LastEntry),
                Err(Msg::GreaterIdOnlyInXreadgroup.into()),
                Err(CmdError::InvalidStreamId)
            ]
        );
        let args = argv("XREADGROUP GROUP g c STREAMS a b c d $ + > -");
        let ids: Vec<_> = parse(&args, true).unwrap().streams.into_iter().map(|s| s.id).collect();
        assert_eq!(
            ids,
            vec![
                Err(Msg::DollarInXreadgroup.into()),
                Err(Msg::PlusInXreadgroup.into()),
                Ok(ReadId::New),
                Err(CmdError::InvalidStreamId)
            ]
        );
    }

    #[test]
    fn errors_in_redis_order() {
        assert_eq!(
            err("XREADGROUP GROUP g c STREAMS a > >", true),
            "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified."
        );
        assert_eq!(
            err("XREAD STREAMS a 0 b", false),
            "ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or '$' must be specified."
        );
        assert_eq!(err("XREADGROUP COUNT 1 BLOCK 1 STREAMS a >", true), "ERR Missing GROUP option for XREADGROUP");
        assert_eq!(err("XREADGROUP COUNT 1 COUNT 1 GROUP x y", true), "ERR syntax error");
        assert_eq!(err("XREADGROUP GROUP g c COUNT 1 BLOCK", true), "ERR syntax error");
        assert_eq!(err("XREADGROUP GROUP g c FOO STREAMS a >", true), "ERR syntax error");
        assert_eq!(err("XREAD COUNT 1 BLOCK 1 STREAMS", false), "ERR syntax error");
        assert_eq!(err("XREAD COUNT 1 GROUP a", false), "ERR syntax error");
        assert_eq!(
            err("XREAD COUNT 1 GROUP a b", false),
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
        );
        assert_eq!(
            err("XREAD NOACK COUNT x STREAMS a 0", false),
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."
        );
        assert_eq!(err("XREAD COUNT x NOACK STREAMS a 0", false), "ERR value is not an integer or out of range");
        assert_eq!(err("XREAD COUNT 05 STREAMS a 0", false), "ERR value is not an integer or out of range");
        for bad in ["x", "1.5", "00", "-0", "+5", "99999999999999999999"] {
            assert_eq!(
                err(&format!("XREAD BLOCK {bad} STREAMS a 0"), false),
                "ERR timeout is not an integer or out of range"
            );
        }
        assert_eq!(err("XREAD BLOCK -1 STREAMS a 0", false), "ERR timeout is negative");
        // The deadline must fit: checked while scanning, so it beats a later bad COUNT.
        let limit = i64::MAX - NOW;
        assert_eq!(
            err(&format!("XREAD BLOCK {} COUNT x STREAMS a 0", limit + 1), false),
            "ERR timeout is out of range"
        );
        assert_eq!(
            err(&format!("XREAD COUNT x BLOCK {} STREAMS a 0", limit + 1), false),
            "ERR value is not an integer or out of range"
        );
        let args = argv(&format!("XREAD BLOCK {limit} STREAMS a 0"));
        assert_eq!(parse(&args, false).unwrap().deadline(NOW), Some(i64::MAX));
    }

    #[test]
    fn xread_resolution_and_rerun() {
        let mut stream = Stream::new();
        let config = streamlab_engine::StreamConfig::default();
        for ms in 1..=3 {
            stream
                .add(
                    streamlab_engine::AddId::Explicit(StreamId::new(ms, 0)),
                    &[b"f".to_vec(), b"v".to_vec()],
                    0,
                    config,
                )
                .unwrap();
        }
        assert_eq!(ReadId::Last.xread_after(Some(&stream), PlusRule::NewestLive), Some(StreamId::new(3, 0)));
        assert_eq!(
            ReadId::LastEntry.xread_after(Some(&stream), PlusRule::NewestLive),
            Some(StreamId::new(2, u64::MAX))
        );
        assert!(stream.delete(StreamId::new(3, 0)));
        // `+` follows the last live entry; `$` the last generated id.
        assert_eq!(ReadId::Last.xread_after(Some(&stream), PlusRule::NewestLive), Some(StreamId::new(3, 0)));
        assert_eq!(
            ReadId::LastEntry.xread_after(Some(&stream), PlusRule::NewestLive),
            Some(StreamId::new(1, u64::MAX))
        );
        stream.delete(StreamId::new(1, 0));
        stream.delete(StreamId::new(2, 0));
        assert_eq!(ReadId::LastEntry.xread_after(Some(&stream), PlusRule::NewestLive), Some(StreamId::MIN));
        assert_eq!(ReadId::Last.xread_after(None, PlusRule::NewestLive), Some(StreamId::MIN));
        assert_eq!(ReadId::LastEntry.xread_after(None, PlusRule::NewestLive), Some(StreamId::MIN));
        assert_eq!(
            ReadId::After(StreamId::new(7, 1)).xread_after(None, PlusRule::NewestLive),
            Some(StreamId::new(7, 1))
        );
        assert_eq!(ReadId::New.xread_after(Some(&stream), PlusRule::NewestLive), None);

        let args = argv("XREAD BLOCK 0 STREAMS a b a c $ + 5 $");
        let parsed = parse(&args, false).unwrap();
        assert_eq!(parsed.keys(), vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
        let after = [StreamId::new(9, 0), StreamId::MIN, StreamId::new(5, 0), StreamId::new(4, 2)];
        // `$` freezes to the id it meant; `+` stays `+` (it means the last entry when woken).
        assert_eq!(parsed.rerun_args(&args, &after), argv("XREAD BLOCK 0 STREAMS a b a c 9-0 + 5 4-2"));
    }

    #[test]
    fn reply_shapes() {
        let served = vec![(b"a".to_vec(), Reply::Array(vec![])), (b"b".to_vec(), Reply::Array(vec![]))];
        assert_eq!(
            streams_reply(false, served.clone()),
            Reply::Array(vec![
                Reply::Array(vec![Reply::bulk("a"), Reply::Array(vec![])]),
                Reply::Array(vec![Reply::bulk("b"), Reply::Array(vec![])]),
            ])
        );
        assert_eq!(
            streams_reply(true, served),
            Reply::Map(vec![(Reply::bulk("a"), Reply::Array(vec![])), (Reply::bulk("b"), Reply::Array(vec![]))])
        );
    }
}
