//! What is compared: each reply with only its wall-clock-dependent parts replaced.
//!
//! The replaced parts, and nothing else:
//! * ids made by `*` (a 13-digit millisecond part: 2001-09-09 .. 2286-11-20), anywhere;
//! * XPENDING's extended form: each entry's idle time;
//! * XINFO CONSUMERS: `idle`, and `inactive` unless it is -1 (never active);
//! * XINFO STREAM [FULL]: `radix-tree-nodes` (an artefact of Redis's radix tree, see the spec
//!   section 3.3); with FULL, the delivery time of every PEL entry, `seen-time`, and
//!   `active-time` unless it is -1;
//! * KEYS and SCAN list keys in hash-table order: sorted; CONFIG GET with a pattern lists
//!   pairs in hash-table order: pairs sorted;
//! * EXEC: each element as the command queued at that position.
//!
//! Replaced values become [`TIME`] (a status string no command returns), so a difference in
//! shape (an integer where Redis has nil, a missing field) still shows.

use streamlab_protocol::Reply;

/// What a time-dependent value is replaced with.
pub const TIME: &str = "<time>";

fn time() -> Reply {
    Reply::Status(TIME.into())
}

/// Whether a bulk string is an id made from the wall clock by `*`.
pub fn is_time_id(bytes: &[u8]) -> bool {
    let Some(dash) = bytes.iter().position(|&b| b == b'-') else { return false };
    let (ms, seq) = (&bytes[..dash], &bytes[dash + 1..]);
    ms.len() == 13
        && ms[0] != b'0'
        && ms.iter().all(u8::is_ascii_digit)
        && !seq.is_empty()
        && seq.iter().all(u8::is_ascii_digit)
}

fn lower(arg: Option<&Vec<u8>>) -> Vec<u8> {
    arg.map(|a| a.to_ascii_lowercase()).unwrap_or_default()
}

/// Normalises `reply`, the answer to `args` (for EXEC, `queued` holds the commands the
/// transaction ran, in order).
pub fn normalize(reply: &Reply, args: &[Vec<u8>], queued: &[Vec<Vec<u8>>]) -> Reply {
    let mut reply = ids(reply.clone());
    let name = lower(args.first());
    let sub = lower(args.get(1));
    match name.as_slice() {
        b"exec" => {
            if let Reply::Array(items) = &mut reply {
                if items.len() == queued.len() {
                    for (item, args) in items.iter_mut().zip(queued) {
                        *item = normalize(item, args, &[]);
                    }
                }
            }
        }
        b"xpending" if args.len() >= 6 => {
            if let Reply::Array(entries) = &mut reply {
                for entry in entries {
                    if let Reply::Array(fields) = entry {
                        if fields.len() == 4 && matches!(fields[2], Reply::Integer(_)) {
                            fields[2] = time();
                        }
                    }
                }
            }
        }
        b"xinfo" if sub == b"consumers" => {
            if let Reply::Array(consumers) = &mut reply {
                for consumer in consumers {
                    replace_fields(consumer, &["idle", "inactive"]);
                }
            }
        }
        b"xinfo" if sub == b"stream" => {
            replace_fields(&mut reply, &["radix-tree-nodes"]);
            if let Some(Reply::Array(groups)) = field_mut(&mut reply, "groups") {
                for group in groups {
                    if let Some(Reply::Array(pending)) = field_mut(group, "pending") {
                        time_column(pending, 4, 2);
                    }
                    if let Some(Reply::Array(consumers)) = field_mut(group, "consumers") {
                        for consumer in consumers {
                            replace_fields(consumer, &["seen-time", "active-time"]);
                            if let Some(Reply::Array(pending)) = field_mut(consumer, "pending") {
                                time_column(pending, 3, 1);
                            }
                        }
                    }
                }
            }
        }
        b"keys" => {
            if let Reply::Array(keys) = &mut reply {
                sort(keys);
            }
        }
        b"scan" => {
            if let Reply::Array(parts) = &mut reply {
                if let Some(Reply::Array(keys)) = parts.get_mut(1) {
                    sort(keys);
                }
            }
        }
        b"config" if sub == b"get" => {
            if let Reply::Array(flat) = &mut reply {
                let mut pairs: Vec<(Reply, Reply)> =
                    flat.chunks(2).filter(|c| c.len() == 2).map(|c| (c[0].clone(), c[1].clone())).collect();
                pairs.sort_by_key(|(k, _)| format!("{k:?}"));
                if pairs.len() * 2 == flat.len() {
                    *flat = pairs.into_iter().flat_map(|(k, v)| [k, v]).collect();
                }
            }
        }
        _ => {}
    }
    reply
}

fn sort(items: &mut [Reply]) {
    items.sort_by_key(|r| format!("{r:?}"));
}

/// Replaces `*` ids everywhere in the tree.
fn ids(reply: Reply) -> Reply {
    match reply {
        Reply::Bulk(b) if is_time_id(&b) => time(),
        Reply::Array(items) => Reply::Array(items.into_iter().map(ids).collect()),
        other => other,
    }
}

/// The value after the bulk string `name` in a flat key/value array.
fn field_mut<'a>(reply: &'a mut Reply, name: &str) -> Option<&'a mut Reply> {
    let Reply::Array(flat) = reply else { return None };
    let at = flat.chunks(2).position(|pair| matches!(&pair[0], Reply::Bulk(k) if k == name.as_bytes()))?;
    flat.get_mut(at * 2 + 1)
}

/// Replaces the integer values of these fields of a flat key/value array, except -1 (which
/// means "never" and does not depend on time).
fn replace_fields(reply: &mut Reply, names: &[&str]) {
    for name in names {
        if let Some(value) = field_mut(reply, name) {
            if matches!(value, Reply::Integer(v) if *v != -1) {
                *value = time();
            }
        }
    }
}

/// In a list of fixed-size arrays, replaces the integer at `column` of each.
fn time_column(rows: &mut [Reply], width: usize, column: usize) {
    for row in rows {
        if let Reply::Array(cells) = row {
            if cells.len() == width && matches!(cells[column], Reply::Integer(_)) {
                cells[column] = time();
            }
        }
    }
}

/// Whether a (normalised) leaf is a placeholder.
pub fn is_placeholder(reply: &Reply) -> bool {
    matches!(reply, Reply::Status(s) if s == TIME)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<Vec<u8>> {
        line.split(' ').map(|s| s.as_bytes().to_vec()).collect()
    }

    fn bulk(s: &str) -> Reply {
        Reply::bulk(s)
    }

    #[test]
    fn time_ids() {
        assert!(is_time_id(b"1700000000000-0"));
        assert!(is_time_id(b"1700000000000-12"));
        assert!(!is_time_id(b"17-0"));
        assert!(!is_time_id(b"17000000000000-0"));
        assert!(!is_time_id(b"1700000000000-"));
        assert!(!is_time_id(b"0700000000000-1"));
    }

    #[test]
    fn xpending_idle_times() {
        let entry = |idle| Reply::Array(vec![bulk("1-0"), bulk("alice"), Reply::Integer(idle), Reply::Integer(1)]);
        let a = normalize(&Reply::Array(vec![entry(3)]), &args("XPENDING s g - + 10"), &[]);
        let b = normalize(&Reply::Array(vec![entry(9)]), &args("xpending s g - + 10"), &[]);
        assert_eq!(a, b);
        // The summary form has no time in it.
        let summary = Reply::Array(vec![Reply::Integer(1), bulk("1-0"), bulk("1-0"), Reply::Array(vec![])]);
        assert_eq!(normalize(&summary, &args("XPENDING s g"), &[]), summary);
    }

    #[test]
    fn xinfo_consumers_keeps_never_active() {
        let consumer = |idle, inactive| {
            Reply::Array(vec![
                bulk("name"),
                bulk("alice"),
                bulk("pending"),
                Reply::Integer(0),
                bulk("idle"),
                Reply::Integer(idle),
                bulk("inactive"),
                Reply::Integer(inactive),
            ])
        };
        let norm = |idle, inactive| {
            normalize(&Reply::Array(vec![consumer(idle, inactive)]), &args("XINFO CONSUMERS s g"), &[])
        };
        assert_eq!(norm(1, 5), norm(7, 2));
        assert_ne!(norm(1, -1), norm(1, 5));
    }

    #[test]
    fn exec_elements_follow_their_commands() {
        let entry = |idle| Reply::Array(vec![bulk("1-0"), bulk("alice"), Reply::Integer(idle), Reply::Integer(1)]);
        let reply = |idle| Reply::Array(vec![Reply::Integer(5), Reply::Array(vec![entry(idle)])]);
        let queued = vec![args("XLEN s"), args("XPENDING s g - + 1")];
        assert_eq!(normalize(&reply(1), &args("EXEC"), &queued), normalize(&reply(4), &args("EXEC"), &queued));
        // Without the queue, nothing but ids is touched.
        assert_ne!(normalize(&reply(1), &args("EXEC"), &[]), normalize(&reply(4), &args("EXEC"), &[]));
    }

    #[test]
    fn keys_are_sorted() {
        let a = Reply::Array(vec![bulk("b"), bulk("a")]);
        let b = Reply::Array(vec![bulk("a"), bulk("b")]);
        assert_eq!(normalize(&a, &args("KEYS *"), &[]), normalize(&b, &args("KEYS *"), &[]));
        assert_ne!(normalize(&a, &args("XRANGE s - +"), &[]), normalize(&b, &args("XRANGE s - +"), &[]));
    }
}
