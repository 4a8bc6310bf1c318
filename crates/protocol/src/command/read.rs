//! XREAD and XREADGROUP: one option parser (Redis parses both with the same routine, so their
//! errors line up), id resolution per key, and serving or blocking.

use streamlab_engine::StreamId;

use super::{entry_reply, id_reply, is, parse_int, Block, CommandSpec, Ctx, Outcome, Run};
use crate::error::{CmdError, Msg};
use crate::reply::Reply;

/// The read commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "xread",
        arity: -4,
        write: false,
        syntax: "[COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]",
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
        syntax: "GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]",
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
    /// The stream keys, in order.
    pub keys: &'a [Vec<u8>],
    /// The id arguments, one per key, unparsed.
    pub ids: &'a [Vec<u8>],
}

/// Parses the options of XREAD (`group_mode` false) or XREADGROUP (true), left to right up to
/// STREAMS, with Redis's errors for each misuse.
pub(crate) fn parse_read_args(args: &[Vec<u8>], group_mode: bool) -> Result<ReadArgs<'_>, CmdError> {
    let mut parsed = ReadArgs { count: 0, block: None, group: None, no_ack: false, keys: &[], ids: &[] };
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
                return Err(if group_mode { Msg::UnbalancedXreadgroup } else { Msg::UnbalancedXread }.into());
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
        } else {
            return Err(CmdError::Syntax);
        }
        i += 1;
    }
    let Some(at) = streams_at else { return Err(CmdError::Syntax) };
    if group_mode && parsed.group.is_none() {
        return Err(Msg::MissingGroup.into());
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
            streams_only: read.group.is_none(),
        }),
        None => Reply::NullArray.into(),
    }
}

fn xread(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let read = parse_read_args(args, false)?;
    // Resolve every id first (type errors and bad ids fail the whole command).
    let mut positions = Vec::with_capacity(read.keys.len());
    for (key, id) in read.keys.iter().zip(read.ids) {
        let stream = ctx.db.stream(key)?;
        let position = match id.as_slice() {
            b"$" => stream.map_or(StreamId::MIN, |s| s.last_id()),
            // `+` means "the last live entry": read after the id just below it.
            b"+" => stream.and_then(|s| s.last_live_id().prev()).unwrap_or(StreamId::MIN),
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
        let entries: Vec<Reply> = stream.range(from, StreamId::MAX, false).take(limit).map(entry_reply).collect();
        served.push((key.clone(), Reply::Array(entries)));
    }
    if !served.is_empty() {
        return Ok(streams_reply(ctx, served).into());
    }
    // When woken, the read runs again with `$` frozen to the id it meant now; `+` stays `+`
    // and means the last entry at wake-up time (observed on 8.2.3: two entries added in one
    // EXEC serve a blocked `+` reader the second only).
    let mut rerun = args[..args.len() - positions.len()].to_vec();
    rerun.extend(read.ids.iter().zip(&positions).map(|(id, position)| match id.as_slice() {
        b"+" => id.clone(),
        _ => position.to_string().into_bytes(),
    }));
    Ok(nothing(&read, ctx, rerun))
}

fn xreadgroup(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let read = parse_read_args(args, true)?;
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
            // Redis stands for `>` with the largest id, so that id typed out reads new
            // entries too (observed on 8.2.3).
            _ => match super::parse_strict_id(id)? {
                StreamId::MAX => Position::New,
                after => Position::After(after),
            },
        });
    }
    let mut served = Vec::new();
    for (key, position) in read.keys.iter().zip(positions) {
        let stream = ctx.db.stream_mut(key)?.expect("validated above");
        match position {
            Position::New => {
                if let Some(entries) = stream.read_group_new(group, consumer, read.count, read.no_ack, ctx.now) {
                    served.push((key.clone(), Reply::Array(entries.into_iter().map(entry_reply).collect())));
                }
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
