//! XREAD and XREADGROUP: one option parser (Redis parses both with the same routine, so their
//! errors line up), id resolution per key, and serving or blocking.

use streamlab_engine::{ReadBudget, StreamId};

use super::{entry_reply, id_reply, is, parse_int, Block, CommandSpec, Ctx, Outcome, Run};
use crate::error::{CmdError, Msg};
use crate::profile::{Capabilities, PlusRule};
use crate::reply::Reply;

/// The read commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "xread",
        arity: -4,
        write: false,
        syntax: "[COUNT count] [MAXCOUNT maxcount] [MAXSIZE maxsize] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]",
        summary: "Returns messages from multiple streams with IDs greater than the ones requested. Blocks until a message is available otherwise.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xread),
    },
    CommandSpec {
        name: "xreadgroup",
        arity: -7,
        write: true,
        syntax: "GROUP group consumer [COUNT count] [MAXCOUNT maxcount] [MAXSIZE maxsize] [BLOCK milliseconds] [CLAIM min-idle-time] [NOACK] STREAMS key [key ...] id [id ...]",
        summary: "Returns new or historical messages from a stream for a consumer in a group. Blocks until a message is available otherwise.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xreadgroup),
    },
];

/// XREAD / XREADGROUP options, as parsed before any key is looked at.
#[derive(Debug)]
pub(crate) struct ReadArgs<'a> {
    /// COUNT (0: no limit).
    pub count: u64,
    /// BLOCK in milliseconds, if given (0: forever).
    pub block: Option<i64>,
    /// GROUP's group and consumer (XREADGROUP only).
    pub group: Option<(&'a [u8], &'a [u8])>,
    /// NOACK (XREADGROUP only).
    pub no_ack: bool,
    /// CLAIM min-idle-time (XREADGROUP only; Redis 8.4, docs-only).
    pub claim: Option<i64>,
    /// MAXCOUNT / MAXSIZE (Redis 8.10, docs-only): the whole command's budget.
    pub budget: ReadBudget,
    /// The stream keys, in order.
    pub keys: &'a [Vec<u8>],
    /// The id arguments, one per key, unparsed.
    pub ids: &'a [Vec<u8>],
}

/// Parses the options of XREAD (`group_mode` false) or XREADGROUP (true), left to right up to
/// STREAMS, with Redis's errors for each misuse. Options newer than the profile's server are
/// unknown tokens there: `ERR syntax error` (observed on Redis 8.2 for CLAIM, MAXCOUNT and
/// MAXSIZE).
pub(crate) fn parse_read_args<'a>(
    args: &'a [Vec<u8>],
    group_mode: bool,
    caps: &Capabilities,
) -> Result<ReadArgs<'a>, CmdError> {
    let mut parsed = ReadArgs {
        count: 0,
        block: None,
        group: None,
        no_ack: false,
        claim: None,
        budget: ReadBudget::default(),
        keys: &[],
        ids: &[],
    };
    let mut streams_at = None;
    let mut i = 1;
    while i < args.len() {
        let more = args.len() - 1 - i;
        let opt = &args[i];
        if is(opt, "BLOCK") && more > 0 {
            i += 1;
            let ms = super::parse_int_or(&args[i], Msg::TimeoutNotInteger)?;
            if ms < 0 {
                return Err(Msg::TimeoutNegative.into());
            }
            parsed.block = Some(ms);
        } else if is(opt, "COUNT") && more > 0 {
            i += 1;
            parsed.count = parse_int(&args[i])?.max(0) as u64;
        } else if is(opt, "STREAMS") && more > 0 {
            let rest = args.len() - (i + 1);
            if !rest.is_multiple_of(2) {
                return Err(match (group_mode, caps.unbalanced_mentions_plus) {
                    (true, _) => Msg::UnbalancedXreadgroup,
                    (false, true) => Msg::UnbalancedXread,
                    (false, false) => Msg::UnbalancedXreadNoPlus,
                }
                .into());
            }
            streams_at = Some(i + 1);
            break;
        } else if is(opt, "GROUP") && more >= 2 {
            if !group_mode {
                return Err(Msg::GroupOnlyInXreadgroup.into());
            }
            parsed.group = Some((&args[i + 1], &args[i + 2]));
            i += 2;
        } else if is(opt, "NOACK") {
            if !group_mode {
                return Err(Msg::NoackOnlyInXreadgroup.into());
            }
            parsed.no_ack = true;
        } else if caps.read_claim && group_mode && is(opt, "CLAIM") && more > 0 {
            // Redis 8.4, docs-only: a negative min-idle-time is taken as 0, as XCLAIM does.
            i += 1;
            parsed.claim = Some(parse_int(&args[i])?.max(0));
        } else if caps.read_caps && (is(opt, "MAXCOUNT") || is(opt, "MAXSIZE")) && more > 0 {
            // Redis 8.10, docs-only: positive integers; the error for a value that is not
            // one is a guess (the integer error, or a syntax error for zero and below).
            let n = parse_int(&args[i + 1])?;
            if n <= 0 {
                return Err(CmdError::Syntax);
            }
            if is(opt, "MAXCOUNT") {
                parsed.budget.max_count = Some(n as u64);
            } else {
                parsed.budget.max_size = Some(n as u64);
            }
            i += 1;
        } else {
            return Err(CmdError::Syntax);
        }
        i += 1;
    }
    let Some(at) = streams_at else { return Err(CmdError::Syntax) };
    if group_mode && parsed.group.is_none() {
        return Err(Msg::MissingGroup.into());
    }
    // MAXCOUNT may not be below COUNT (docs-only; the error is a guess).
    if parsed.budget.max_count.is_some_and(|max| parsed.count > max) {
        return Err(CmdError::Syntax);
    }
    let half = (args.len() - at) / 2;
    parsed.keys = &args[at..at + half];
    parsed.ids = &args[at + half..];
    Ok(parsed)
}

/// What to read from one stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    /// Entries after this id.
    After(StreamId),
    /// XREADGROUP `>`: entries never delivered to the group.
    New,
}

/// Wraps per-stream results in the reply shape of the connection's protocol.
fn streams_reply(ctx: &Ctx<'_>, served: Vec<(Vec<u8>, Reply)>) -> Reply {
    if ctx.resp3 {
        Reply::Map(served.into_iter().map(|(key, entries)| (Reply::Bulk(key), entries)).collect())
    } else {
        Reply::Array(served.into_iter().map(|(key, entries)| Reply::Array(vec![Reply::Bulk(key), entries])).collect())
    }
}

/// Nothing to serve: wait if BLOCK was given, else answer a null array.
fn nothing(read: &ReadArgs<'_>, ctx: &Ctx<'_>, rerun: Vec<Vec<u8>>) -> Outcome {
    match read.block {
        Some(ms) => Outcome::Block(Block {
            keys: read.keys.to_vec(),
            deadline: (ms > 0).then(|| ctx.now.saturating_add(ms)),
            args: rerun,
        }),
        None => Reply::NullArray.into(),
    }
}

fn xread(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let mut read = parse_read_args(args, false, ctx.caps)?;
    // Resolve every id first (type errors and bad ids fail the whole command).
    let mut positions = Vec::with_capacity(read.keys.len());
    for (key, id) in read.keys.iter().zip(read.ids) {
        let stream = ctx.db.stream(key)?;
        let position = match id.as_slice() {
            b"$" => stream.map_or(StreamId::MIN, |s| s.last_id()),
            // `+` means "the last entry": Redis 8.2 reads the newest live one, 7.4 and Valkey
            // read after last-generated-id minus one (nothing once that entry is deleted).
            b"+" => {
                let last = match ctx.caps.xread_plus {
                    PlusRule::NewestLive => stream.map(|s| s.last_live_id()),
                    PlusRule::LastGenerated => stream.map(|s| s.last_id()),
                };
                last.and_then(|id| id.prev()).unwrap_or(StreamId::MIN)
            }
            b">" => return Err(Msg::GreaterIdOnlyInXreadgroup.into()),
            _ => super::parse_strict_id(id)?,
        };
        positions.push(position);
    }
    let limit = if read.count == 0 { usize::MAX } else { usize::try_from(read.count).unwrap_or(usize::MAX) };
    let mut served = Vec::new();
    for (key, &after) in read.keys.iter().zip(&positions) {
        let Some(stream) = ctx.db.stream(key)? else { continue };
        if stream.is_empty() || stream.last_live_id() <= after {
            continue;
        }
        let Some(from) = after.next() else { continue };
        let budget = &mut read.budget;
        let entries: Vec<Reply> = stream
            .range(from, StreamId::MAX, false)
            .take(limit)
            .take_while(|entry| budget.admit(entry))
            .map(entry_reply)
            .collect();
        if entries.is_empty() {
            continue;
        }
        served.push((key.clone(), Reply::Array(entries)));
    }
    if !served.is_empty() {
        return Ok(streams_reply(ctx, served).into());
    }
    // When woken, the read runs again with `$` frozen to the id it meant now.
    let mut rerun = args[..args.len() - positions.len()].to_vec();
    rerun.extend(positions.iter().map(|id| id.to_string().into_bytes()));
    Ok(nothing(&read, ctx, rerun))
}

fn xreadgroup(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let mut read = parse_read_args(args, true, ctx.caps)?;
    let (group, consumer) = read.group.expect("parse_read_args requires GROUP in group mode");
    // Every key is validated before anything is served.
    let mut positions = Vec::with_capacity(read.keys.len());
    for (key, id) in read.keys.iter().zip(read.ids) {
        let stream = ctx.db.stream(key)?;
        if stream.and_then(|s| s.group(group)).is_none() {
            return Err(CmdError::NoGroupRead { key: key.clone(), group: group.to_vec() });
        }
        positions.push(match id.as_slice() {
            b">" => Position::New,
            b"$" => return Err(Msg::DollarInXreadgroup.into()),
            b"+" => return Err(Msg::PlusInXreadgroup.into()),
            _ => Position::After(super::parse_strict_id(id)?),
        });
    }
    let mut served = Vec::new();
    for (key, position) in read.keys.iter().zip(positions) {
        let stream = ctx.db.stream_mut(key)?.expect("validated above");
        match position {
            Position::New => {
                // CLAIM (Redis 8.4, docs-only): idle pending entries first, then new ones,
                // COUNT bounding both together.
                let claimed = match read.claim {
                    Some(min_idle) => {
                        stream.read_group_claim(group, consumer, min_idle, read.count, ctx.now, &mut read.budget)
                    }
                    None => Vec::new(),
                };
                let mut replies: Vec<Reply> = claimed
                    .into_iter()
                    .map(|c| {
                        let Reply::Array(mut parts) = entry_reply(c.entry) else {
                            unreachable!("an entry is an array")
                        };
                        parts.push(Reply::Integer(c.idle));
                        parts.push(Reply::Integer(i64::try_from(c.delivered).unwrap_or(i64::MAX)));
                        Reply::Array(parts)
                    })
                    .collect();
                let room = if read.count == 0 { Some(0) } else { read.count.checked_sub(replies.len() as u64) };
                let fresh = match room {
                    Some(0) if read.count != 0 => None,
                    Some(room) => {
                        stream.read_group_new_within(group, consumer, room, read.no_ack, ctx.now, &mut read.budget)
                    }
                    None => None,
                };
                let fresh = fresh.unwrap_or_default();
                if replies.is_empty() && fresh.is_empty() {
                    continue;
                }
                replies.extend(fresh.into_iter().map(entry_reply));
                served.push((key.clone(), Reply::Array(replies)));
            }
            Position::After(after) => {
                let history = stream.read_group_history(group, consumer, after, read.count, ctx.now);
                let entries = history
                    .into_iter()
                    .map(|(id, fields)| match fields {
                        Some(fields) => entry_reply(streamlab_engine::Entry { id, fields }),
                        None => Reply::Array(vec![id_reply(id), Reply::NullArray]),
                    })
                    .collect();
                served.push((key.clone(), Reply::Array(entries)));
            }
        }
    }
    if !served.is_empty() {
        return Ok(streams_reply(ctx, served).into());
    }
    Ok(nothing(&read, ctx, args.to_vec()))
}
