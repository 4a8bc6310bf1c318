//! XINFO STREAM (plain and FULL), GROUPS and CONSUMERS: the stream's metadata, its groups'
//! cursors, lag and pending counts, and each consumer's pending entries, in Redis's field order.

use super::*;

/// The lines of `XINFO HELP`, as Redis 8.2 sends them (the unbalanced bracket included).
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

fn pair(name: &str, value: Reply) -> (Reply, Reply) {
    (Reply::bulk(name), value)
}

/// XINFO: HELP; the key (missing: `ERR no such key`; type); then the subcommand's own
/// arguments.
pub(super) fn xinfo(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let sub = arg(args, 1);
    if is(sub, "HELP") {
        return Ok(help_reply(XINFO_HELP));
    }
    let key = arg(args, 2);
    let stream = ctx.db.stream(key)?.ok_or(CmdError::NoSuchKey)?;
    let now = ctx.now;
    if is(sub, "STREAM") {
        let syntax = || CmdError::SubcommandSyntax { command: "XINFO".to_owned(), sub: sub.clone() };
        let full = match args.len() {
            3 => None,
            4 if is(arg(args, 3), "FULL") => Some(10),
            6 if is(arg(args, 3), "FULL") && is(arg(args, 4), "COUNT") => {
                // A negative COUNT means the default; 0 means everything.
                let n = parse_int(arg(args, 5))?;
                Some(u64::try_from(n).unwrap_or(10))
            }
            _ => return Err(syntax()),
        };
        let reply = match full {
            None => stream_info(stream, ctx),
            Some(count) => stream_info_full(stream, count, ctx),
        };
        return Ok(reply.into());
    }
    if is(sub, "GROUPS") {
        // Plain loops in XINFO: each collected adapter chain is its own code in the wasm.
        let mut groups = Vec::new();
        for (name, g) in stream.groups().iter() {
            groups.push(Reply::Map(vec![
                pair("name", Reply::Bulk(name.clone())),
                pair("consumers", int(g.consumers().len() as u64)),
                pair("pending", int(g.pel().len() as u64)),
                pair("last-delivered-id", id_reply(g.last_id)),
                pair("entries-read", opt_int(g.entries_read)),
                pair("lag", opt_signed(stream.lag(g))),
            ]));
        }
        return Ok(Reply::Array(groups).into());
    }
    if is(sub, "CONSUMERS") {
        let group = arg(args, 3);
        let g =
            stream.group(group).ok_or_else(|| CmdError::NoGroupForKey { key: key.clone(), group: group.clone() })?;
        let mut consumers = Vec::new();
        for (name, c) in g.consumers().iter() {
            consumers.push(Reply::Map(vec![
                pair("name", Reply::Bulk(name.to_vec())),
                pair("pending", int(c.pending().len() as u64)),
                pair("idle", Reply::Integer(idle(now, c.seen_time))),
                pair("inactive", Reply::Integer(c.active_time.map_or(-1, |t| idle(now, t)))),
            ]));
        }
        return Ok(Reply::Array(consumers).into());
    }
    Err(CmdError::UnknownSubcommand { command: "XINFO".to_owned(), sub: sub.clone() })
}

/// The fields XINFO STREAM and XINFO STREAM FULL begin with.
fn stream_header(stream: &Stream, ctx: &Ctx<'_>) -> Vec<(Reply, Reply)> {
    let mut fields = vec![
        pair("length", int(stream.len())),
        pair("radix-tree-keys", int(stream.nodes().len() as u64)),
        pair("radix-tree-nodes", int(radix_tree_nodes(stream))),
        pair("last-generated-id", id_reply(stream.last_id())),
        pair("max-deleted-entry-id", id_reply(stream.max_deleted_id())),
        pair("entries-added", int(stream.entries_added())),
        pair("recorded-first-entry-id", id_reply(stream.first_id())),
    ];
    if ctx.caps.idmp {
        // Redis 8.6 (docs-only, unverified on a server): on every stream, plain and FULL.
        let (pids, iids) = stream.idmp.tracked(ctx.now);
        fields.extend([
            pair("idmp-duration", int(stream.idmp.duration)),
            pair("idmp-maxsize", int(stream.idmp.maxsize)),
            pair("pids-tracked", int(pids)),
            pair("iids-tracked", int(iids)),
            pair("iids-added", int(stream.idmp.added)),
            pair("iids-duplicates", int(stream.idmp.duplicates)),
        ]);
    }
    fields
}

fn stream_info(stream: &Stream, ctx: &Ctx<'_>) -> Reply {
    let mut fields = stream_header(stream, ctx);
    let first = stream.range(StreamId::MIN, StreamId::MAX, false).next();
    let last = stream.range(StreamId::MIN, StreamId::MAX, true).next();
    fields.push(pair("groups", int(stream.groups().len() as u64)));
    fields.push(pair("first-entry", first.map_or(Reply::NullBulk, entry_reply)));
    fields.push(pair("last-entry", last.map_or(Reply::NullBulk, entry_reply)));
    Reply::Map(fields)
}

fn stream_info_full(stream: &Stream, count: u64, ctx: &Ctx<'_>) -> Reply {
    let limit = count_limit(count);
    let mut fields = stream_header(stream, ctx);
    let mut entries = Vec::new();
    for entry in stream.range(StreamId::MIN, StreamId::MAX, false).take(limit) {
        entries.push(entry_reply(entry));
    }
    fields.push(pair("entries", Reply::Array(entries)));
    let mut groups = Vec::new();
    for (name, g) in stream.groups().iter() {
        let mut pel = Vec::new();
        for (id, p) in g.pel().iter().take(limit) {
            let p: &Pending = p;
            pel.push(Reply::Array(vec![
                id_reply(*id),
                Reply::bulk(p.owner_name()),
                Reply::Integer(p.delivery_time),
                int(p.delivery_count),
            ]));
        }
        let mut consumers = Vec::new();
        for (name, c) in g.consumers().iter() {
            let name: &ConsumerName = name;
            let mut pending = Vec::new();
            for id in c.pending().iter().take(limit) {
                let p = &g.pel()[id];
                pending.push(Reply::Array(vec![id_reply(*id), Reply::Integer(p.delivery_time), int(p.delivery_count)]));
            }
            consumers.push(Reply::Map(vec![
                pair("name", Reply::Bulk(name.to_vec())),
                pair("seen-time", Reply::Integer(c.seen_time)),
                pair("active-time", Reply::Integer(c.active_time.unwrap_or(-1))),
                pair("pel-count", int(c.pending().len() as u64)),
                pair("pending", Reply::Array(pending)),
            ]));
        }
        {
            let mut fields = vec![
                pair("name", Reply::Bulk(name.clone())),
                pair("last-delivered-id", id_reply(g.last_id)),
                pair("entries-read", opt_int(g.entries_read)),
                pair("lag", opt_signed(stream.lag(g))),
                pair("pel-count", int(g.pel().len() as u64)),
            ];
            if ctx.caps.xnack {
                // Redis 8.8 (docs-only, unverified on a server; placed after pel-count).
                fields.push(pair("nacked-count", int(g.nacked().len() as u64)));
            }
            fields.push(pair("pending", Reply::Array(pel)));
            fields.push(pair("consumers", Reply::Array(consumers)));
            groups.push(Reply::Map(fields));
        }
    }
    fields.push(pair("groups", Reply::Array(groups)));
    Reply::Map(fields)
}

/// The node count of Redis's radix tree over the stream's nodes, keyed by their master ids as
/// 16 big-endian bytes (`radix-tree-nodes`): a run of bytes with a single continuation is one
/// node, a point where keys diverge is one node with a child per distinct next byte, and every
/// key ends in a leaf node; the empty tree is one node. Checked against Redis 8.2.3 for 1, 2,
/// 3, 10, 100 and 1000 nodes with sequential, timestamp-like and random ids, and after trims
/// and deletions that removed nodes: every case matched (Redis re-compresses on removal).
fn radix_tree_nodes(stream: &Stream) -> u64 {
    let mut keys: Vec<[u8; 16]> = Vec::new();
    for id in stream.nodes().keys() {
        let mut key = [0u8; 16];
        key[..8].copy_from_slice(&id.ms.to_be_bytes());
        key[8..].copy_from_slice(&id.seq.to_be_bytes());
        keys.push(key);
    }
    if keys.is_empty() {
        return 1;
    }
    subtree_nodes(&keys, 0)
}

/// Nodes under a point at byte `depth` of sorted, distinct, equally long `keys`.
fn subtree_nodes(keys: &[[u8; 16]], depth: usize) -> u64 {
    if depth == 16 {
        return 1;
    }
    // `first`/`last`, not `keys[0]`: no bounds-check panic path (callers pass some keys).
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else { return 1 };
    let shared = (depth..16).take_while(|&d| first[d] == last[d]).count();
    if shared > 0 {
        // One compressed node for the shared run, then whatever follows it.
        return 1 + subtree_nodes(keys, depth + shared);
    }
    // A branching node, with one child per distinct byte at this depth (keys are sorted, so
    // each byte's keys are contiguous).
    let mut total = 1;
    let mut from = 0;
    while from < keys.len() {
        let byte = keys[from][depth];
        let to = from + keys[from..].iter().take_while(|k| k[depth] == byte).count();
        total += subtree_nodes(&keys[from..to], depth + 1);
        from = to;
    }
    total
}
