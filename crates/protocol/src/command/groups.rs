//! Consumer-group commands: XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, XACKDEL
//! and XINFO.
//!
//! WATCH: Redis does not count changes to groups, consumers or PELs as changes of the key
//! (measured on 8.2.3: XGROUP CREATE/SETID/DESTROY/CREATECONSUMER/DELCONSUMER, XREADGROUP,
//! XACK, XCLAIM and XAUTOCLAIM leave a WATCH intact). Only creating the key
//! (`XGROUP CREATE ... MKSTREAM`) and deleting entries (XACKDEL) touch it. XGROUP DESTROY
//! wakes blocked readers of the key without touching it.

use streamlab_engine::{
    count_limit, AutoClaimOptions, ClaimOptions, ConsumerName, Group, IdMode, NackMode, Pending, ReadGroup, Stream,
    StreamId, Walk,
};

use super::read::{parse_read_args, streams_reply, ReadId};
use super::streams::{outcome_code, PolicyIds};
use super::{
    arg, entry_reply, fields_reply, id_reply, is, parse_bound, parse_int, parse_int_or, parse_strict_id,
    parse_strict_ids, rest, Block, BoundKind, CommandSpec, Ctx, Outcome, Run, SubSpec, HELP_SUBCOMMAND,
};
use crate::error::{CmdError, Msg};
use crate::reply::Reply;

mod xinfo;

use xinfo::xinfo;

/// The consumer-group commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "xgroup",
        arity: -2,
        write: true,
        syntax: "<CREATE | SETID | DESTROY | CREATECONSUMER | DELCONSUMER | HELP> [arguments]",
        summary: "A container for consumer groups commands.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[
            SubSpec {
                name: "create", since: "5.0.0",
                arity: -5,
                syntax: "key group <id | $> [MKSTREAM] [ENTRIESREAD entries-read]",
                summary: "Creates a consumer group.",
            },
            SubSpec {
                name: "setid", since: "5.0.0",
                arity: -5,
                syntax: "key group <id | $> [ENTRIESREAD entries-read]",
                summary: "Sets the last-delivered ID of a consumer group.",
            },
            SubSpec { name: "destroy", since: "5.0.0", arity: 4, syntax: "key group", summary: "Destroys a consumer group." },
            SubSpec {
                name: "createconsumer", since: "6.2.0",
                arity: 5,
                syntax: "key group consumer",
                summary: "Creates a consumer in a consumer group.",
            },
            SubSpec {
                name: "delconsumer", since: "5.0.0",
                arity: 5,
                syntax: "key group consumer",
                summary: "Deletes a consumer from a consumer group.",
            },
            HELP_SUBCOMMAND,
        ],
        run: Run::Data(xgroup),
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
    CommandSpec {
        name: "xack",
        arity: -4,
        write: true,
        syntax: "key group id [id ...]",
        summary: "Returns the number of messages that were successfully acknowledged by the consumer group member of a stream.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xack),
    },
    CommandSpec {
        name: "xpending",
        arity: -3,
        write: false,
        syntax: "key group [[IDLE min-idle-time] start end count [consumer]]",
        summary: "Returns the information and entries from a stream consumer group's pending entries list.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xpending),
    },
    CommandSpec {
        name: "xclaim",
        arity: -6,
        write: true,
        syntax: "key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]",
        summary: "Changes, or acquires, ownership of a message in a consumer group, as if the message was delivered a consumer group member.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xclaim),
    },
    CommandSpec {
        name: "xautoclaim",
        arity: -6,
        write: true,
        syntax: "key group consumer min-idle-time start [COUNT count] [JUSTID]",
        summary: "Changes, or acquires, ownership of messages in a consumer group, as if the messages were delivered to as consumer group member.",
        since: "6.2.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xautoclaim),
    },
    CommandSpec {
        name: "xackdel",
        arity: -6,
        write: true,
        syntax: "key group [KEEPREF | DELREF | ACKED] IDS numids id [id ...]",
        summary: "Acknowledges and conditionally deletes one or multiple entries for a stream consumer group.",
        since: "8.2.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xackdel),
    },
    CommandSpec {
        name: "xnack",
        arity: -7,
        write: true,
        syntax: "key group <SILENT | FAIL | FATAL> IDS numids id [id ...] [RETRYCOUNT count] [FORCE]",
        summary: "Releases pending messages back to the group's PEL without acknowledging them, making them available for re-delivery.",
        since: "8.8.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xnack),
    },
    CommandSpec {
        name: "xinfo",
        arity: -2,
        write: false,
        syntax: "<STREAM | GROUPS | CONSUMERS | HELP> [arguments]",
        summary: "A container for stream introspection commands.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[
            SubSpec {
                name: "stream", since: "5.0.0",
                arity: -3,
                syntax: "key [FULL [COUNT count]]",
                summary: "Returns information about a stream.",
            },
            SubSpec { name: "groups", since: "5.0.0", arity: 3, syntax: "key", summary: "Returns a list of the consumer groups of a stream." },
            SubSpec {
                name: "consumers", since: "5.0.0",
                arity: 4,
                syntax: "key group",
                summary: "Returns a list of the consumers in a consumer group.",
            },
            HELP_SUBCOMMAND,
        ],
        run: Run::Data(xinfo),
    },
];

/// The lines of `XGROUP HELP`, as Redis 8.2 sends them.
const XGROUP_HELP: &[&str] = &[
    "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
    "HELP",
    "    Print this help.",
];

fn help_reply(lines: &[&str]) -> Outcome {
    let mut reply = Vec::with_capacity(lines.len());
    for line in lines {
        reply.push(Reply::Status((*line).to_owned()));
    }
    Reply::Array(reply).into()
}

fn int(n: u64) -> Reply {
    Reply::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

/// `None` (an unknown counter) is a null bulk string, as Redis shows entries-read and lag.
fn opt_signed(n: Option<i64>) -> Reply {
    n.map_or(Reply::NullBulk, Reply::Integer)
}

fn opt_int(n: Option<u64>) -> Reply {
    n.map_or(Reply::NullBulk, int)
}

// ----- XGROUP -------------------------------------------------------------------------------

/// XGROUP's order: HELP; the options after the id (`MKSTREAM` for CREATE, `ENTRIESREAD n`
/// for CREATE and SETID); the key's type; the key's existence (unless MKSTREAM); the group's
/// existence (SETID, CREATECONSUMER, DELCONSUMER); the argument count CREATE (at most 8) and
/// SETID (5 or 7) accept; the id; then the change.
fn xgroup(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let sub = arg(args, 1);
    if is(sub, "HELP") {
        return Ok(help_reply(XGROUP_HELP));
    }
    let create = is(sub, "CREATE");
    let setid = is(sub, "SETID");
    let syntax = || CmdError::SubcommandSyntax { command: "XGROUP".to_owned(), sub: sub.clone() };

    let mut mkstream = false;
    let mut entries_read: Option<i64> = None;
    let mut i = 5;
    while i < args.len() {
        if create && is(arg(args, i), "MKSTREAM") {
            mkstream = true;
            i += 1;
        } else if (create || setid) && is(arg(args, i), "ENTRIESREAD") && i + 1 < args.len() {
            let n = parse_int(arg(args, i + 1))?;
            if n < 0 && n != -1 {
                return Err(Msg::EntriesReadNegative.into());
            }
            entries_read = Some(n);
            i += 2;
        } else {
            return Err(syntax());
        }
    }
    // -1 means "unknown", like leaving ENTRIESREAD out.
    let entries_read = entries_read.and_then(|n| u64::try_from(n).ok());

    let key = arg(args, 2);
    let group = arg(args, 3);
    let stream = ctx.db.stream(key)?;
    if stream.is_none() && !mkstream {
        return Err(Msg::XgroupNeedsKey.into());
    }

    if create {
        if args.len() > 8 {
            return Err(syntax());
        }
        let id = match arg(args, 4).as_slice() {
            b"$" => stream.map_or(StreamId::MIN, Stream::last_id),
            other => parse_strict_id(other)?,
        };
        if stream.is_some_and(|s| s.group(group).is_some()) {
            return Err(CmdError::BusyGroup);
        }
        if stream.is_none() {
            ctx.db.stream_or_create(key)?;
            ctx.db.touch(key);
        }
        let stream = ctx.db.stream_mut(key)?.expect("stream exists");
        stream.create_group(group, id, entries_read);
        return Ok(Reply::ok().into());
    }

    let stream = ctx.db.stream_mut(key)?.expect("existence checked");
    if is(sub, "DESTROY") {
        let destroyed = stream.destroy_group(group);
        if destroyed {
            ctx.db.signal_ready(key);
        }
        return Ok(Reply::Integer(i64::from(destroyed)).into());
    }
    if stream.group(group).is_none() {
        return Err(CmdError::NoGroupForKey { key: key.clone(), group: group.clone() });
    }
    if setid {
        if args.len() != 5 && args.len() != 7 {
            return Err(syntax());
        }
        let id = match arg(args, 4).as_slice() {
            b"$" => stream.last_id(),
            other => StreamId::parse(other, IdMode::Lenient, 0)?,
        };
        stream.set_group_id(group, id, entries_read);
        return Ok(Reply::ok().into());
    }
    let g = stream.group_mut(group).expect("group checked");
    let consumer = arg(args, 4);
    if is(sub, "CREATECONSUMER") {
        let created = g.create_consumer(consumer, ctx.now);
        return Ok(Reply::Integer(i64::from(created)).into());
    }
    if is(sub, "DELCONSUMER") {
        let owned = g.delete_consumer(consumer).unwrap_or(0);
        return Ok(int(owned as u64).into());
    }
    Err(CmdError::UnknownSubcommand { command: "XGROUP".to_owned(), sub: sub.clone() })
}

// ----- XREADGROUP ---------------------------------------------------------------------------

/// What XREADGROUP does with one stream once every stream has been checked.
enum Serve {
    New,
    History(StreamId),
}

/// XREADGROUP: options (shared with XREAD), then every stream in order — its key's type, the
/// key and group existing, its id — before anything is served.
fn xreadgroup(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let mut parsed = parse_read_args(args, true, ctx.now, ctx.caps)?;
    let (group, consumer) = parsed.group.expect("the parser insists on GROUP");
    let mut plan = Vec::with_capacity(parsed.streams.len());
    for stream in &mut parsed.streams {
        let found = ctx.db.stream(stream.key)?;
        if found.and_then(|s| s.group(group)).is_none() {
            return Err(CmdError::NoGroupRead { key: stream.key.to_vec(), group: group.to_vec() });
        }
        let serve = match stream.take_id()? {
            ReadId::New => Serve::New,
            // Redis stands for `>` with the largest id, so that id typed out reads new entries
            // too (observed on 8.2.3).
            ReadId::After(StreamId::MAX) => Serve::New,
            ReadId::After(id) => Serve::History(id),
            ReadId::Last | ReadId::LastEntry => unreachable!("the parser refuses $ and + for XREADGROUP"),
        };
        plan.push((stream.key, serve));
    }

    let now = ctx.now;
    let read = ReadGroup { group, consumer, count: parsed.count, no_ack: parsed.no_ack, now };
    let mut served = Vec::new();
    for (key, serve) in plan {
        let stream = ctx.db.stream_mut(key)?.expect("checked above");
        match serve {
            Serve::New => {
                // CLAIM (Redis 8.4, docs-only): idle pending entries of any consumer first,
                // each with its idle time and earlier delivery count, then new entries, COUNT
                // bounding both together.
                let claimed = match parsed.claim {
                    Some(min_idle) => stream.read_group_claim(read, min_idle, &mut parsed.budget),
                    None => Vec::new(),
                };
                let mut replies = Vec::with_capacity(claimed.len());
                for c in claimed {
                    replies.push(Reply::Array(vec![
                        id_reply(c.entry.id),
                        fields_reply(c.entry.fields),
                        Reply::Integer(c.idle),
                        int(c.delivered),
                    ]));
                }
                let room = match parsed.count {
                    0 => Some(0),
                    count => count.checked_sub(replies.len() as u64).filter(|&room| room > 0),
                };
                let fresh = room
                    .and_then(|room| stream.read_group_new(ReadGroup { count: room, ..read }, &mut parsed.budget))
                    .unwrap_or_default();
                if replies.is_empty() && fresh.is_empty() {
                    continue;
                }
                for entry in fresh {
                    replies.push(entry_reply(entry));
                }
                served.push((key.to_vec(), Reply::Array(replies)));
            }
            Serve::History(after) => {
                let history = stream.read_group_history(read, after);
                let mut entries = Vec::with_capacity(history.len());
                for (id, fields) in history {
                    entries.push(Reply::Array(vec![id_reply(id), fields.map_or(Reply::NullArray, fields_reply)]));
                }
                served.push((key.to_vec(), Reply::Array(entries)));
            }
        }
    }
    if !served.is_empty() {
        return Ok(streams_reply(ctx.resp3, served).into());
    }
    if parsed.block.is_some() {
        return Ok(Outcome::Block(Block {
            keys: parsed.keys(),
            deadline: parsed.deadline(now),
            args: args.to_vec(),
            retry_on_tick: parsed.claim.is_some(),
            streams_only: false,
        }));
    }
    Ok(Reply::NullArray.into())
}

// ----- XACK ---------------------------------------------------------------------------------

/// XACK: the key's type; a missing key or group answers 0 before the ids are looked at; then
/// every id must parse before any is acknowledged.
fn xack(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let Some(stream) = ctx.db.stream_mut(arg(args, 1))? else { return Ok(Reply::Integer(0).into()) };
    let Some(group) = stream.group_mut(arg(args, 2)) else { return Ok(Reply::Integer(0).into()) };
    let ids = parse_strict_ids(rest(args, 3))?;
    let acked = ids.into_iter().filter(|&id| group.remove_pending(id)).count();
    Ok(int(acked as u64).into())
}

// ----- XNACK (Redis 8.8) --------------------------------------------------------------------

/// XNACK key group <SILENT|FAIL|FATAL> IDS numids id... [RETRYCOUNT n] [FORCE]
/// (Redis 8.8; docs-only, unverified on a server). The IDS block is read as XDELEX reads
/// it, with its errors; RETRYCOUNT and FORCE may follow it. Guesses where the docs are
/// silent: an unknown mode or token is `ERR syntax error`, a negative or non-integer
/// RETRYCOUNT the integer error, and a missing key or group NOGROUP (as XCLAIM answers).
fn xnack(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let (key, group) = (arg(args, 1), arg(args, 2));
    let mode = if is(arg(args, 3), "SILENT") {
        NackMode::Silent
    } else if is(arg(args, 3), "FAIL") {
        NackMode::Fail
    } else if is(arg(args, 3), "FATAL") {
        NackMode::Fatal
    } else {
        return Err(CmdError::Syntax);
    };
    if !is(arg(args, 4), "IDS") {
        return Err(CmdError::Syntax);
    }
    let n = parse_int(arg(args, 5)).ok().filter(|&n| n > 0).ok_or(Msg::NumIdsNotPositive)? as u64;
    let start = 6;
    if n > (args.len() - start) as u64 {
        return Err(Msg::NumIdsMismatch.into());
    }
    let raw_ids = &args[start..start + n as usize];
    let (mut retry_count, mut force) = (None, false);
    let mut i = start + n as usize;
    while i < args.len() {
        if is(arg(args, i), "RETRYCOUNT") && i + 1 < args.len() {
            retry_count = Some(u64::try_from(parse_int(arg(args, i + 1))?).map_err(|_| CmdError::NotInteger)?);
            i += 2;
        } else if is(arg(args, i), "FORCE") {
            force = true;
            i += 1;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let ids = parse_strict_ids(raw_ids)?;
    let stream = ctx
        .db
        .stream_mut(key)?
        .filter(|s| s.group(group).is_some())
        .ok_or_else(|| CmdError::NoGroup { key: key.clone(), group: group.clone() })?;
    let released = stream.nack(group, &ids, mode, retry_count, force);
    Ok(Reply::Integer(released as i64).into())
}

// ----- XPENDING -----------------------------------------------------------------------------

struct PendingRange<'a> {
    min_idle: i64,
    start: StreamId,
    end: StreamId,
    count: u64,
    consumer: Option<&'a [u8]>,
}

/// How long ago an entry was delivered, never negative.
fn idle(now: i64, since: i64) -> i64 {
    now.saturating_sub(since).max(0)
}

/// XPENDING: argument count (3, or 6 to 9); `IDLE n` (then at least 8 arguments); count;
/// start; end — all before the key's type and the group's existence.
fn xpending(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let argc = args.len();
    if argc != 3 && !(6..=9).contains(&argc) {
        return Err(CmdError::Syntax);
    }
    let range = if argc >= 6 {
        let mut at = 3;
        let mut min_idle = 0;
        if is(arg(args, 3), "IDLE") {
            min_idle = parse_int(arg(args, 4))?;
            if argc < 8 {
                return Err(CmdError::Syntax);
            }
            at = 5;
        }
        let count = u64::try_from(parse_int(arg(args, at + 2))?).unwrap_or(0);
        let start = parse_bound(arg(args, at), BoundKind::Start)?;
        let end = parse_bound(arg(args, at + 1), BoundKind::End)?;
        // Arguments after the consumer are ignored, as in Redis.
        let consumer = args.get(at + 3).map(Vec::as_slice);
        Some(PendingRange { min_idle, start, end, count, consumer })
    } else {
        None
    };

    let (key, group) = (arg(args, 1), arg(args, 2));
    let g = ctx
        .db
        .stream(key)?
        .and_then(|s| s.group(group))
        .ok_or_else(|| CmdError::NoGroup { key: key.clone(), group: group.clone() })?;
    let Some(range) = range else { return Ok(pending_summary(g).into()) };

    let now = ctx.now;
    // A `Walk`, not a `Box<dyn Iterator>` (see `Walk`).
    let ids = if range.start > range.end {
        Walk::Empty
    } else {
        match range.consumer {
            Some(name) => match g.consumer(name) {
                Some(c) => Walk::Left(c.pending().range(range.start..=range.end)),
                None => Walk::Empty,
            },
            None => Walk::Right(g.pel().range(range.start..=range.end).map(|(id, _)| id)),
        }
    };
    // A plain loop (an adapter chain collected is its own code in the wasm bundles).
    let limit = usize::try_from(range.count).unwrap_or(usize::MAX);
    let mut rows = Vec::new();
    for id in ids {
        if rows.len() >= limit {
            break;
        }
        let Some(p) = g.pel().get(id) else { continue };
        if range.min_idle > 0 && idle(now, p.delivery_time) < range.min_idle {
            continue;
        }
        // A released (XNACKed) entry shows no owner and idle -1; its delivery time is 0, so
        // IDLE never filters it out (docs-only, unverified on a server).
        let shown_idle = if p.owner.is_none() { -1 } else { idle(now, p.delivery_time) };
        rows.push(Reply::Array(vec![
            id_reply(*id),
            Reply::bulk(p.owner_name()),
            Reply::Integer(shown_idle),
            int(p.delivery_count),
        ]));
    }
    Ok(Reply::Array(rows).into())
}

fn pending_summary(g: &Group) -> Reply {
    let (Some((first, _)), Some((last, _))) = (g.pel().first_key_value(), g.pel().last_key_value()) else {
        return Reply::Array(vec![Reply::Integer(0), Reply::NullBulk, Reply::NullBulk, Reply::NullArray]);
    };
    let mut per_consumer = Vec::new();
    for (name, c) in g.consumers().iter() {
        if !c.pending().is_empty() {
            per_consumer.push(Reply::Array(vec![
                Reply::Bulk(name.to_vec()),
                Reply::Bulk(c.pending().len().to_string().into_bytes()),
            ]));
        }
    }
    Reply::Array(vec![int(g.pel().len() as u64), id_reply(*first), id_reply(*last), Reply::Array(per_consumer)])
}

// ----- XCLAIM -------------------------------------------------------------------------------

/// XCLAIM: the key's type; the key and group existing; min-idle-time; the ids (up to the
/// first argument that is not one); the options.
fn xclaim(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let (key, group, consumer) = (arg(args, 1), arg(args, 2), arg(args, 3));
    if ctx.db.stream(key)?.and_then(|s| s.group(group)).is_none() {
        return Err(CmdError::NoGroup { key: key.clone(), group: group.clone() });
    }
    let now = ctx.now;
    let min_idle = parse_int_or(arg(args, 4), Msg::XclaimMinIdle)?.max(0);
    let mut i = 5;
    let mut ids = Vec::new();
    while let Some(id) = args.get(i).and_then(|a| parse_strict_id(a).ok()) {
        ids.push(id);
        i += 1;
    }
    let mut opts =
        ClaimOptions { min_idle, delivery_time: now, retry_count: None, force: false, just_id: false, last_id: None };
    while i < args.len() {
        let opt = arg(args, i);
        let value = args.get(i + 1);
        match value {
            _ if is(opt, "FORCE") => opts.force = true,
            _ if is(opt, "JUSTID") => opts.just_id = true,
            Some(v) if is(opt, "IDLE") => {
                opts.delivery_time = now.wrapping_sub(parse_int_or(v, Msg::XclaimIdle)?);
                i += 1;
            }
            Some(v) if is(opt, "TIME") => {
                opts.delivery_time = parse_int_or(v, Msg::XclaimTime)?;
                i += 1;
            }
            Some(v) if is(opt, "RETRYCOUNT") => {
                // A negative count is the same as none: the count is incremented as usual.
                opts.retry_count = u64::try_from(parse_int_or(v, Msg::XclaimRetryCount)?).ok();
                i += 1;
            }
            Some(v) if is(opt, "LASTID") => {
                opts.last_id = Some(parse_strict_id(v)?);
                i += 1;
            }
            _ => return Err(CmdError::UnrecognizedXclaimOption(opt.clone())),
        }
        i += 1;
    }
    if opts.delivery_time < 0 || opts.delivery_time > now {
        opts.delivery_time = now;
    }

    let stream = ctx.db.stream_mut(key)?.expect("checked above");
    let claimed = stream.claim(group, consumer, &ids, opts, now);
    Ok(Reply::Array(claimed_reply(stream, claimed, opts.just_id)).into())
}

fn claimed_reply(stream: &Stream, ids: Vec<StreamId>, just_id: bool) -> Vec<Reply> {
    let mut reply = Vec::with_capacity(ids.len());
    for id in ids {
        reply.push(match (just_id, stream.get(id)) {
            (false, Some(entry)) => entry_reply(entry),
            _ => id_reply(id),
        });
    }
    reply
}

// ----- XAUTOCLAIM ---------------------------------------------------------------------------

/// The largest COUNT the XAUTOCLAIM parser accepts (Redis keeps `COUNT * 16` within a signed
/// 64-bit size).
const AUTOCLAIM_MAX_COUNT: i64 = i64::MAX / 16;

/// Above this COUNT the reference server (8.2.3, x86-64) fails to allocate the 16-byte-per-id
/// buffer it reserves up front and answers "Insufficient memory"; the exact limit depends on
/// the host's free address space, this is the one measured there (`COUNT * 16` = 96 TiB).
const AUTOCLAIM_ALLOCATABLE_COUNT: u64 = 6_597_069_766_656;

/// XAUTOCLAIM: min-idle-time; start; options — all before the key's type and the group's
/// existence; then the buffer allocation that a huge COUNT makes fail.
fn xautoclaim(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let (key, group, consumer) = (arg(args, 1), arg(args, 2), arg(args, 3));
    let min_idle = parse_int_or(arg(args, 4), Msg::XautoclaimMinIdle)?.max(0);
    let start = parse_bound(arg(args, 5), BoundKind::Start)?;
    let mut count = 100u64;
    let mut just_id = false;
    let mut i = 6;
    while i < args.len() {
        if is(arg(args, i), "COUNT") && i + 1 < args.len() {
            let n = parse_int(arg(args, i + 1))
                .ok()
                .filter(|n| (1..=AUTOCLAIM_MAX_COUNT).contains(n))
                .ok_or(Msg::XautoclaimCount)?;
            count = n as u64;
            i += 2;
        } else if is(arg(args, i), "JUSTID") {
            just_id = true;
            i += 1;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    if ctx.db.stream(key)?.and_then(|s| s.group(group)).is_none() {
        return Err(CmdError::NoGroup { key: key.clone(), group: group.clone() });
    }
    if count > AUTOCLAIM_ALLOCATABLE_COUNT {
        return Err(Msg::XautoclaimCountTooHigh.into());
    }

    let stream = ctx.db.stream_mut(key)?.expect("checked above");
    let result = stream.auto_claim(group, consumer, AutoClaimOptions { min_idle, start, count, just_id }, ctx.now);
    let mut deleted = Vec::with_capacity(result.deleted.len());
    for id in result.deleted {
        deleted.push(id_reply(id));
    }
    Ok(Reply::Array(vec![
        id_reply(result.next),
        Reply::Array(claimed_reply(stream, result.claimed, just_id)),
        Reply::Array(deleted),
    ])
    .into())
}

// ----- XACKDEL ------------------------------------------------------------------------------

/// XACKDEL (Redis 8.2): the key's type; the options; a missing key or group answers -1 per
/// id before the ids are looked at; then every id must parse before anything changes.
fn xackdel(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let (key, group) = (arg(args, 1), arg(args, 2));
    let exists = ctx.db.stream(key)?.map(|s| s.group(group).is_some());
    let request = PolicyIds::parse(args, 3)?;
    if exists != Some(true) {
        return Ok(request.all_missing().into());
    }
    let ids = request.parsed_ids()?;
    let stream = ctx.db.stream_mut(key)?.expect("checked above");
    let before = stream.len();
    let mut results = Vec::with_capacity(ids.len());
    for id in ids {
        results.push(outcome_code(stream.ack_and_delete(group, id, request.policy)));
    }
    // Only removing entries counts as a change of the key; acknowledging alone does not.
    if stream.len() != before {
        ctx.db.touch(key);
    }
    Ok(Reply::Array(results).into())
}
