//! Consumer-group commands: XGROUP, XACK, XACKDEL, XPENDING, XCLAIM, XAUTOCLAIM, XINFO.
//! (XREADGROUP shares its parser with XREAD in `read.rs`.)
//!
//! Group bookkeeping (creating groups and consumers, deliveries, acks, claims) does not count
//! as a change of the key for WATCH: Redis 8.2.3 lets a watched transaction run after any of
//! them (see `tests/transcripts/multi.txt`). Only XACKDEL, which can delete entries, does.

use streamlab_engine::{AutoClaimOptions, ClaimOptions, Entry, IdMode, Stream, StreamId};

use super::streams::{outcome_code, PolicyIds};
use super::{
    entry_reply, id_reply, is, parse_bound, parse_int, parse_strict_id, BoundKind, CommandSpec, Ctx, Outcome, Run,
    SubSpec,
};
use crate::error::{CmdError, Msg};
use crate::reply::Reply;

/// The consumer-group commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "xgroup",
        arity: -2,
        write: true,
        syntax: "<CREATE | SETID | DESTROY | CREATECONSUMER | DELCONSUMER | HELP> ...",
        summary: "A container for consumer groups commands.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[
            SubSpec { name: "create", arity: -5, syntax: "key group <id | $> [MKSTREAM] [ENTRIESREAD entries-read]", summary: "Creates a consumer group." },
            SubSpec { name: "setid", arity: -5, syntax: "key group <id | $> [ENTRIESREAD entries-read]", summary: "Sets the last-delivered ID of a consumer group." },
            SubSpec { name: "destroy", arity: 4, syntax: "key group", summary: "Destroys a consumer group." },
            SubSpec { name: "createconsumer", arity: 5, syntax: "key group consumer", summary: "Creates a consumer in a consumer group." },
            SubSpec { name: "delconsumer", arity: 5, syntax: "key group consumer", summary: "Deletes a consumer from a consumer group." },
            SubSpec { name: "help", arity: 2, syntax: "", summary: "Returns helpful text about the different subcommands." },
        ],
        run: Run::Data(xgroup),
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
        name: "xinfo",
        arity: -2,
        write: false,
        syntax: "<CONSUMERS | GROUPS | STREAM | HELP> ...",
        summary: "A container for stream introspection commands.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[
            SubSpec { name: "consumers", arity: 4, syntax: "key group", summary: "Returns a list of the consumers in a consumer group." },
            SubSpec { name: "groups", arity: 3, syntax: "key", summary: "Returns a list of the consumer groups of a stream." },
            SubSpec { name: "stream", arity: -3, syntax: "key [FULL [COUNT count]]", summary: "Returns information about a stream." },
            SubSpec { name: "help", arity: 2, syntax: "", summary: "Returns helpful text about the different subcommands." },
        ],
        run: Run::Data(xinfo),
    },
];

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

const XINFO_HELP: &[&str] = &[
    "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CONSUMERS <key> <groupname>",
    "    Show consumers of <groupname>.",
    "GROUPS <key>",
    "    Show the stream consumer groups.",
    "STREAM <key> [FULL [COUNT <count>]",
    "    Show information about the stream.",
    "HELP",
    "    Print this help.",
];

fn help(lines: &[&str]) -> Outcome {
    Reply::Array(lines.iter().map(|l| Reply::Status((*l).to_owned())).collect()).into()
}

fn int(n: u64) -> Reply {
    Reply::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

fn opt_int(n: Option<u64>) -> Reply {
    n.map_or(Reply::NullBulk, int)
}

// ----- XGROUP -------------------------------------------------------------------------------

fn xgroup(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let sub = args[1].to_ascii_lowercase();
    if sub == b"help" {
        return Ok(help(XGROUP_HELP));
    }
    let syntax = || CmdError::SubcommandSyntax { command: "XGROUP".into(), sub: args[1].clone() };
    let (key, group) = (&args[2], &args[3]);
    // Options come first, then the key, then the group: Redis reports errors in that order.
    let (mut mkstream, mut entries_read) = (false, None);
    let mut i = 5;
    while i < args.len() {
        if sub == b"create" && is(&args[i], "MKSTREAM") {
            mkstream = true;
            i += 1;
        } else if (sub == b"create" || sub == b"setid") && is(&args[i], "ENTRIESREAD") && i + 1 < args.len() {
            let n = parse_int(&args[i + 1])?;
            if n < 0 && n != -1 {
                return Err(Msg::EntriesReadNegative.into());
            }
            entries_read = u64::try_from(n).ok();
            i += 2;
        } else {
            return Err(syntax());
        }
    }
    let exists = ctx.db.stream(key)?.is_some();
    if !exists && !mkstream {
        return Err(Msg::XgroupNeedsKey.into());
    }
    // Each subcommand takes a bounded number of arguments; the excess is only noticed here,
    // after the options and the key were checked.
    let fits = match sub.as_slice() {
        b"create" => args.len() <= 8,
        b"setid" => args.len() == 5 || args.len() == 7,
        _ => true,
    };
    let no_group = || CmdError::NoGroupForKey { key: key.clone(), group: group.clone() };
    let has_group = ctx.db.stream(key)?.is_some_and(|s| s.group(group).is_some());
    let reply = match sub.as_slice() {
        b"create" => {
            if !fits {
                return Err(syntax());
            }
            let last = ctx.db.stream(key)?.map_or(StreamId::MIN, Stream::last_id);
            let id = if args[4].as_slice() == b"$" { last } else { parse_strict_id(&args[4])? };
            if has_group {
                return Err(CmdError::BusyGroup);
            }
            ctx.db.stream_or_create(key)?.create_group(group, id, entries_read);
            if !exists {
                // MKSTREAM made the key: that is a change WATCH sees (the group alone is not).
                ctx.db.touch(key);
            }
            Reply::ok()
        }
        b"setid" => {
            if !has_group {
                return Err(no_group());
            }
            if !fits {
                return Err(syntax());
            }
            let stream = ctx.db.stream_mut(key)?.expect("stream exists");
            let id = if args[4].as_slice() == b"$" {
                stream.last_id()
            } else {
                StreamId::parse(&args[4], IdMode::Lenient, 0)?
            };
            stream.set_group_id(group, id, entries_read);
            Reply::ok()
        }
        b"destroy" => {
            let destroyed = ctx.db.stream_mut(key)?.expect("stream exists").destroy_group(group);
            if destroyed {
                ctx.db.signal_ready(key);
            }
            return Ok(Reply::Integer(i64::from(destroyed)).into());
        }
        b"createconsumer" => {
            if !has_group {
                return Err(no_group());
            }
            let stream = ctx.db.stream_mut(key)?.expect("stream exists");
            let created = stream.group_mut(group).expect("group exists").create_consumer(&args[4], ctx.now);
            return Ok(Reply::Integer(i64::from(created)).into());
        }
        b"delconsumer" => {
            if !has_group {
                return Err(no_group());
            }
            let stream = ctx.db.stream_mut(key)?.expect("stream exists");
            let owned = stream.group_mut(group).expect("group exists").delete_consumer(&args[4]).unwrap_or(0);
            return Ok(Reply::Integer(owned as i64).into());
        }
        _ => return Err(syntax()),
    };
    Ok(reply.into())
}

// ----- XACK / XACKDEL -----------------------------------------------------------------------

fn xack(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let (key, group) = (&args[1], &args[2]);
    // A missing key or group answers 0 before the ids are parsed.
    let Some(g) = ctx.db.stream_mut(key)?.and_then(|s| s.group_mut(group)) else {
        return Ok(Reply::Integer(0).into());
    };
    let ids = args[3..].iter().map(|a| parse_strict_id(a)).collect::<Result<Vec<_>, _>>()?;
    let acked = ids.into_iter().filter(|&id| g.remove_pending(id)).count();
    Ok(Reply::Integer(acked as i64).into())
}

fn xackdel(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let (key, group) = (&args[1], &args[2]);
    ctx.db.stream(key)?;
    let request = PolicyIds::parse(args, 3)?;
    let Some(stream) = ctx.db.stream_mut(key)?.filter(|s| s.group(group).is_some()) else {
        return Ok(request.all_missing().into());
    };
    let ids = request.parsed_ids()?;
    let before = stream.len();
    let codes: Vec<Reply> =
        ids.into_iter().map(|id| outcome_code(stream.ack_and_delete(group, id, request.policy))).collect();
    // Only entries leaving the stream are a change WATCH sees: an id acknowledged whose entry
    // was already gone answers 1 too, and leaves WATCH alone (observed on 8.2.3).
    if stream.len() < before {
        ctx.db.touch(key);
    }
    Ok(Reply::Array(codes).into())
}

// ----- XPENDING -----------------------------------------------------------------------------

fn xpending(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let argc = args.len();
    if argc != 3 && !(6..=9).contains(&argc) {
        return Err(CmdError::Syntax);
    }
    let mut range = None;
    if argc >= 6 {
        let mut at = 3;
        let mut min_idle = 0;
        if is(&args[3], "IDLE") {
            min_idle = parse_int(&args[4])?;
            if argc < 8 {
                return Err(CmdError::Syntax);
            }
            at += 2;
        }
        let count = parse_int(&args[at + 2])?.max(0) as u64;
        let start = parse_bound(&args[at], BoundKind::Start)?;
        let end = parse_bound(&args[at + 1], BoundKind::End)?;
        range = Some((min_idle, start, end, count, args.get(at + 3)));
    }
    let (key, group) = (&args[1], &args[2]);
    let g = ctx
        .db
        .stream(key)?
        .and_then(|s| s.group(group))
        .ok_or_else(|| CmdError::NoGroup { key: key.clone(), group: group.clone() })?;
    let Some((min_idle, start, end, count, consumer)) = range else {
        let pel = g.pel();
        let (Some(first), Some(last)) = (pel.keys().next(), pel.keys().next_back()) else {
            return Ok(Reply::Array(vec![Reply::Integer(0), Reply::NullBulk, Reply::NullBulk, Reply::NullArray]).into());
        };
        let per_consumer = g
            .consumers()
            .iter()
            .filter(|(_, c)| !c.pending().is_empty())
            .map(|(name, c)| Reply::Array(vec![Reply::bulk(name), Reply::bulk(c.pending().len().to_string())]))
            .collect();
        return Ok(Reply::Array(vec![
            int(pel.len() as u64),
            id_reply(*first),
            id_reply(*last),
            Reply::Array(per_consumer),
        ])
        .into());
    };
    let ids: Box<dyn Iterator<Item = StreamId>> = match consumer {
        Some(name) => match g.consumer(name) {
            Some(c) if start <= end => Box::new(c.pending().range(start..=end).copied()),
            _ => Box::new(std::iter::empty()),
        },
        None if start <= end => Box::new(g.pel().range(start..=end).map(|(id, _)| *id)),
        None => Box::new(std::iter::empty()),
    };
    let now = ctx.now;
    let rows = ids
        .map(|id| (id, &g.pel()[&id]))
        .map(|(id, p)| (id, p, (now - p.delivery_time).max(0)))
        .filter(|(_, _, idle)| min_idle <= 0 || *idle >= min_idle)
        .take(usize::try_from(count).unwrap_or(usize::MAX))
        .map(|(id, p, idle)| {
            Reply::Array(vec![id_reply(id), Reply::bulk(&*p.owner), Reply::Integer(idle), int(p.delivery_count)])
        })
        .collect();
    Ok(Reply::Array(rows).into())
}

// ----- XCLAIM / XAUTOCLAIM ------------------------------------------------------------------

fn claimed_reply(stream: &Stream, ids: Vec<StreamId>, just_id: bool) -> Reply {
    Reply::Array(
        ids.into_iter()
            .filter_map(|id| if just_id { Some(id_reply(id)) } else { stream.get(id).map(entry_reply) })
            .collect(),
    )
}

fn xclaim(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let (key, group, consumer) = (&args[1], &args[2], &args[3]);
    if ctx.db.stream(key)?.and_then(|s| s.group(group)).is_none() {
        return Err(CmdError::NoGroup { key: key.clone(), group: group.clone() });
    }
    let min_idle = super::parse_int_or(&args[4], Msg::XclaimMinIdle)?.max(0);
    let now = ctx.now;
    let mut ids = Vec::new();
    let mut j = 5;
    while j < args.len() {
        match parse_strict_id(&args[j]) {
            Ok(id) => ids.push(id),
            Err(_) => break,
        }
        j += 1;
    }
    let mut opts =
        ClaimOptions { min_idle, delivery_time: now, retry_count: None, force: false, just_id: false, last_id: None };
    let mut delivery: Option<i64> = None;
    while j < args.len() {
        let more = j + 1 < args.len();
        let opt = &args[j];
        if is(opt, "FORCE") {
            opts.force = true;
        } else if is(opt, "JUSTID") {
            opts.just_id = true;
        } else if is(opt, "IDLE") && more {
            j += 1;
            delivery = Some(now.saturating_sub(super::parse_int_or(&args[j], Msg::XclaimIdle)?));
        } else if is(opt, "TIME") && more {
            j += 1;
            delivery = Some(super::parse_int_or(&args[j], Msg::XclaimTime)?);
        } else if is(opt, "RETRYCOUNT") && more {
            j += 1;
            // A negative count means "not given", as in Redis.
            opts.retry_count = u64::try_from(super::parse_int_or(&args[j], Msg::XclaimRetryCount)?).ok();
        } else if is(opt, "LASTID") && more {
            j += 1;
            opts.last_id = Some(parse_strict_id(&args[j])?);
        } else {
            return Err(CmdError::UnrecognizedXclaimOption(opt.clone()));
        }
        j += 1;
    }
    // An out-of-range delivery time (negative, or in the future) is quietly taken as now.
    opts.delivery_time = delivery.filter(|&t| (0..=now).contains(&t)).unwrap_or(now);
    let stream = ctx.db.stream_mut(key)?.expect("stream exists");
    let claimed = stream.claim(group, consumer, &ids, opts, now);
    let reply = claimed_reply(stream, claimed, opts.just_id);
    Ok(reply.into())
}

/// The largest COUNT XAUTOCLAIM accepts (its scan budget is COUNT times ten).
const AUTOCLAIM_MAX_COUNT: i64 = i64::MAX / 16;

/// Redis allocates 16 bytes per COUNT for the ids it may delete, before it scans; when that
/// allocation fails it answers `Insufficient memory ... COUNT too high` (after the key and
/// group checks, before the consumer is created). Where it fails depends on the machine:
/// above 2^43 (16 * 2^43 = 128 TiB, the whole x86-64 user address space) it always fails;
/// Redis 8.2.3 on a Linux test machine failed from about 5.5e12 and allocated 1e12 lazily.
/// StreamLab refuses from 2^43 on.
const AUTOCLAIM_ALLOCATION_LIMIT: u64 = 1 << 43;

fn xautoclaim(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let (key, group, consumer) = (&args[1], &args[2], &args[3]);
    let min_idle = super::parse_int_or(&args[4], Msg::XautoclaimMinIdle)?.max(0);
    let start = parse_bound(&args[5], BoundKind::Start)?;
    let (mut count, mut just_id) = (100u64, false);
    let mut j = 6;
    while j < args.len() {
        if is(&args[j], "COUNT") && j + 1 < args.len() {
            count = parse_int(&args[j + 1])
                .ok()
                .filter(|n| (1..=AUTOCLAIM_MAX_COUNT).contains(n))
                .ok_or(Msg::XautoclaimCount)? as u64;
            j += 2;
        } else if is(&args[j], "JUSTID") {
            just_id = true;
            j += 1;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let stream = ctx
        .db
        .stream_mut(key)?
        .filter(|s| s.group(group).is_some())
        .ok_or_else(|| CmdError::NoGroup { key: key.clone(), group: group.clone() })?;
    if count >= AUTOCLAIM_ALLOCATION_LIMIT {
        return Err(Msg::XautoclaimCountTooHigh.into());
    }
    let result = stream.auto_claim(group, consumer, AutoClaimOptions { min_idle, start, count, just_id }, ctx.now);
    let reply = Reply::Array(vec![
        id_reply(result.next),
        claimed_reply(stream, result.claimed, just_id),
        Reply::Array(result.deleted.into_iter().map(id_reply).collect()),
    ]);
    Ok(reply.into())
}

// ----- XINFO --------------------------------------------------------------------------------

fn xinfo(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let sub = args[1].to_ascii_lowercase();
    if sub == b"help" {
        return Ok(help(XINFO_HELP));
    }
    let key = &args[2];
    let stream = ctx.db.stream(key)?.ok_or(CmdError::NoSuchKey)?;
    let now = ctx.now;
    let reply = match sub.as_slice() {
        b"consumers" => {
            let group = stream
                .group(&args[3])
                .ok_or_else(|| CmdError::NoGroupForKey { key: key.clone(), group: args[3].clone() })?;
            Reply::Array(
                group
                    .consumers()
                    .iter()
                    .map(|(name, c)| {
                        Reply::Map(vec![
                            (Reply::bulk("name"), Reply::bulk(name)),
                            (Reply::bulk("pending"), int(c.pending().len() as u64)),
                            (Reply::bulk("idle"), Reply::Integer((now - c.seen_time).max(0))),
                            (Reply::bulk("inactive"), Reply::Integer(c.active_time.map_or(-1, |t| (now - t).max(0)))),
                        ])
                    })
                    .collect(),
            )
        }
        b"groups" => Reply::Array(
            stream
                .groups()
                .iter()
                .map(|(name, g)| {
                    Reply::Map(vec![
                        (Reply::bulk("name"), Reply::bulk(name)),
                        (Reply::bulk("consumers"), int(g.consumers().len() as u64)),
                        (Reply::bulk("pending"), int(g.pel().len() as u64)),
                        (Reply::bulk("last-delivered-id"), id_reply(g.last_id)),
                        (Reply::bulk("entries-read"), opt_int(g.entries_read)),
                        (Reply::bulk("lag"), stream.lag(g).map_or(Reply::NullBulk, Reply::Integer)),
                    ])
                })
                .collect(),
        ),
        _ => {
            let full = match &args[3..] {
                [] => None,
                [f] if is(f, "FULL") => Some(10),
                [f, c, n] if is(f, "FULL") && is(c, "COUNT") => {
                    let n = parse_int(n)?;
                    Some(if n < 0 { 10 } else { n as u64 })
                }
                _ => return Err(CmdError::SubcommandSyntax { command: "XINFO".into(), sub: args[1].clone() }),
            };
            stream_info(stream, full)
        }
    };
    Ok(reply.into())
}

/// The radix tree node count Redis reports for a stream with these node keys: a compressed
/// trie over the 16-byte big-endian master ids (a run of single-child bytes is one node, a
/// branch is one node, every key ends in a leaf). An implementation artefact, modelled so small
/// cases print what Redis prints.
fn rax_nodes(keys: &[[u8; 16]]) -> u64 {
    fn count(keys: &[[u8; 16]], depth: usize) -> u64 {
        if depth == 16 {
            return 1;
        }
        if keys.len() == 1 {
            return 2;
        }
        let first = &keys[0];
        let last = &keys[keys.len() - 1];
        let common = (depth..16).take_while(|&d| first[d] == last[d]).count();
        if common > 0 {
            return 1 + branch(keys, depth + common);
        }
        branch(keys, depth)
    }
    fn branch(keys: &[[u8; 16]], depth: usize) -> u64 {
        if depth == 16 {
            return 1;
        }
        let mut total = 1;
        let mut start = 0;
        while start < keys.len() {
            let byte = keys[start][depth];
            let end = start + keys[start..].iter().take_while(|k| k[depth] == byte).count();
            total += count(&keys[start..end], depth + 1);
            start = end;
        }
        total
    }
    if keys.is_empty() {
        1
    } else {
        count(keys, 0)
    }
}

fn stream_info(stream: &Stream, full: Option<u64>) -> Reply {
    let keys: Vec<[u8; 16]> = stream
        .nodes()
        .keys()
        .map(|id| {
            let mut key = [0u8; 16];
            key[..8].copy_from_slice(&id.ms.to_be_bytes());
            key[8..].copy_from_slice(&id.seq.to_be_bytes());
            key
        })
        .collect();
    let mut map = vec![
        (Reply::bulk("length"), int(stream.len())),
        (Reply::bulk("radix-tree-keys"), int(keys.len() as u64)),
        (Reply::bulk("radix-tree-nodes"), int(rax_nodes(&keys))),
        (Reply::bulk("last-generated-id"), id_reply(stream.last_id())),
        (Reply::bulk("max-deleted-entry-id"), id_reply(stream.max_deleted_id())),
        (Reply::bulk("entries-added"), int(stream.entries_added())),
        (Reply::bulk("recorded-first-entry-id"), id_reply(stream.first_id())),
    ];
    let Some(count) = full else {
        let first = stream.range(StreamId::MIN, StreamId::MAX, false).next();
        let last = stream.range(StreamId::MIN, StreamId::MAX, true).next();
        map.push((Reply::bulk("groups"), int(stream.groups().len() as u64)));
        map.push((Reply::bulk("first-entry"), first.map_or(Reply::NullBulk, entry_reply)));
        map.push((Reply::bulk("last-entry"), last.map_or(Reply::NullBulk, entry_reply)));
        return Reply::Map(map);
    };
    let limit = if count == 0 { usize::MAX } else { usize::try_from(count).unwrap_or(usize::MAX) };
    let entries: Vec<Reply> =
        stream.range(StreamId::MIN, StreamId::MAX, false).take(limit).map(|e: Entry| entry_reply(e)).collect();
    map.push((Reply::bulk("entries"), Reply::Array(entries)));
    let groups = stream
        .groups()
        .iter()
        .map(|(name, g)| {
            let pending = g
                .pel()
                .iter()
                .take(limit)
                .map(|(id, p)| {
                    Reply::Array(vec![
                        id_reply(*id),
                        Reply::bulk(&*p.owner),
                        Reply::Integer(p.delivery_time),
                        int(p.delivery_count),
                    ])
                })
                .collect();
            let consumers = g
                .consumers()
                .iter()
                .map(|(cname, c)| {
                    let pending = c
                        .pending()
                        .iter()
                        .take(limit)
                        .map(|id| {
                            let p = &g.pel()[id];
                            Reply::Array(vec![id_reply(*id), Reply::Integer(p.delivery_time), int(p.delivery_count)])
                        })
                        .collect();
                    Reply::Map(vec![
                        (Reply::bulk("name"), Reply::bulk(cname)),
                        (Reply::bulk("seen-time"), Reply::Integer(c.seen_time)),
                        (Reply::bulk("active-time"), Reply::Integer(c.active_time.unwrap_or(-1))),
                        (Reply::bulk("pel-count"), int(c.pending().len() as u64)),
                        (Reply::bulk("pending"), Reply::Array(pending)),
                    ])
                })
                .collect();
            Reply::Map(vec![
                (Reply::bulk("name"), Reply::bulk(name)),
                (Reply::bulk("last-delivered-id"), id_reply(g.last_id)),
                (Reply::bulk("entries-read"), opt_int(g.entries_read)),
                (Reply::bulk("lag"), stream.lag(g).map_or(Reply::NullBulk, Reply::Integer)),
                (Reply::bulk("pel-count"), int(g.pel().len() as u64)),
                (Reply::bulk("pending"), Reply::Array(pending)),
                (Reply::bulk("consumers"), Reply::Array(consumers)),
            ])
        })
        .collect();
    map.push((Reply::bulk("groups"), Reply::Array(groups)));
    Reply::Map(map)
}
