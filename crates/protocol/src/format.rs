//! Printing a reply the way `redis-cli` prints it on a terminal (or with `--no-raw`).
//!
//! Rules re-derived from redis-cli 7.0.15, fed both by Redis 8.2.3 and by a fake server that
//! sent hand-made RESP3 shapes:
//!
//! * scalars: `(integer) 5`, `(error) ERR msg`, status text bare, bulk strings quoted (see
//!   [`quote_bytes`]), both nulls `(nil)`, `(double) 1.5`, `(true)` / `(false)`, verbatim
//!   strings as their raw text without the `txt:` prefix (newlines included, unquoted);
//! * empty aggregates: `(empty array)`, `(empty hash)` (map), `(empty set)`, `(empty push)`;
//! * elements are numbered `1)` (arrays and pushes), `1~` (sets), `1#` (maps, printed
//!   `1# key => value`), right-aligned to the widest number (` 9)` / `10)`), followed by one
//!   space; the first element sits on the parent's line, later ones are indented by the
//!   parent's indentation plus the width of this aggregate's number column (width + 2);
//! * a map value starts on a new line (indented like the map's elements) when it spans several
//!   elements: an aggregate with two or more elements, or with exactly one element that itself
//!   qualifies (for a map, its only *value*). `1# "a" => 1) (integer) 1` stays on one line,
//!   `1# "a" =>` followed by `   1) ...` / `   2) ...` does not. Keys never move.
//!
//! Push messages are numbered like arrays. When redis-cli runs SUBSCRIBE / PSUBSCRIBE /
//! SSUBSCRIBE it first prints [`SUBSCRIBE_BANNER`] on its own line (once, before the first
//! reply, in both RESP2 and RESP3 and also non-interactively with `--no-raw`; not with
//! `--raw`), then every confirmation and message as a numbered array. Printing it is left to
//! the caller.

use crate::double::format_double;
use crate::reply::Reply;

/// The line redis-cli 7.0.15 prints before the replies of a (P|S)SUBSCRIBE command.
pub const SUBSCRIBE_BANNER: &str = "Reading messages... (press Ctrl-C to quit)";

/// Quotes bytes the way redis-cli shows a bulk string: inside double quotes, with `\\`, `\"`,
/// `\n`, `\r`, `\t`, `\a`, `\b` escaped, other bytes outside printable ASCII (0x20..=0x7e)
/// as lowercase `\xhh`.
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    out.push('"');
    for &b in bytes {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x07 => out.push_str("\\a"),
            0x08 => out.push_str("\\b"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}

/// Formats a reply exactly as `redis-cli --no-raw` prints it, without the final newline:
/// print the result followed by one `\n`. Lines inside are separated by `\n`.
///
/// Status, error and verbatim texts are printed raw by redis-cli; a verbatim text that is not
/// UTF-8 is converted lossily here.
pub fn format_reply(reply: &Reply) -> String {
    let mut out = String::new();
    write_reply(&mut out, reply, "");
    out
}

/// Whether redis-cli prints the reply to `args` raw even on a terminal (or with `--no-raw`):
/// found by sending every command and subcommand of Redis 8.2.3's COMMAND DOCS, with zero to
/// two more arguments, from redis-cli 7.0.15 to a fake server answering each with a bulk
/// string. INFO and LOLWUT always; CLIENT LIST / INFO, MEMORY DOCTOR / MALLOC-STATS, DEBUG
/// HTSTATS / HTSTATS-KEY / CLIENT-EVICTION and PROXY INFO with any arguments after the
/// subcommand; CLUSTER INFO / NODES and LATENCY DOCTOR alone; LATENCY GRAPH with one event.
pub fn prints_raw(args: &[Vec<u8>]) -> bool {
    let is = |i: usize, name: &str| args.get(i).is_some_and(|a| a.eq_ignore_ascii_case(name.as_bytes()));
    let sub = |names: &[&str]| names.iter().any(|name| is(1, name));
    let n = args.len();
    is(0, "info")
        || is(0, "lolwut")
        || (is(0, "client") && sub(&["list", "info"]))
        || (is(0, "memory") && sub(&["doctor", "malloc-stats"]))
        || (is(0, "debug") && sub(&["htstats", "htstats-key", "client-eviction"]))
        || (is(0, "proxy") && sub(&["info"]))
        || (is(0, "cluster") && sub(&["info", "nodes"]) && n == 2)
        || (is(0, "latency") && ((sub(&["doctor"]) && n == 2) || (sub(&["graph"]) && n == 3)))
}

/// A reply to `args` as redis-cli prints it: raw for the commands of [`prints_raw`], as
/// [`format_reply`] otherwise.
pub fn format_reply_to(args: &[Vec<u8>], reply: &Reply) -> String {
    if prints_raw(args) {
        format_raw(reply)
    } else {
        format_reply(reply)
    }
}

/// A reply as redis-cli prints it raw, without the final newline.
pub fn format_raw(reply: &Reply) -> String {
    let mut out = String::new();
    write_raw(&mut out, reply);
    // The text's own `\r\n` line ends are lines (a char loop: a substring pattern would bring
    // a second string searcher into the wasm), and redis-cli adds no newline after it.
    let mut text = String::with_capacity(out.len());
    let mut chars = out.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\r' || chars.peek() != Some(&'\n') {
            text.push(c);
        }
    }
    while text.ends_with('\n') {
        text.pop();
    }
    text
}

/// redis-cli's raw form: strings and error texts as they are (an error without `(error) `),
/// numbers bare, nothing for a null, an aggregate's elements one per line.
fn write_raw(out: &mut String, reply: &Reply) {
    match reply {
        Reply::Status(s) => out.push_str(s),
        Reply::Error(e) => out.push_str(&crate::reply::shown_error(e)),
        Reply::Integer(i) => out.push_str(&i.to_string()),
        Reply::Bulk(b) | Reply::Verbatim { text: b, .. } => out.push_str(&String::from_utf8_lossy(b)),
        Reply::NullBulk | Reply::NullArray => {}
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push('\n');
                }
                write_raw(out, item);
            }
        }
        // Not a reply these commands give; printed as on a terminal.
        _ => write_reply(out, reply, ""),
    }
}

/// Whether a map value goes on its own line (see the module docs).
fn spans_lines(reply: &Reply) -> bool {
    match reply {
        Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => match items.as_slice() {
            [] => false,
            [only] => spans_lines(only),
            _ => true,
        },
        Reply::Map(pairs) => match pairs.as_slice() {
            [] => false,
            [(_, value)] => spans_lines(value),
            _ => true,
        },
        _ => false,
    }
}

/// Appends `reply`; `indent` is what starts each of its continuation lines.
fn write_reply(out: &mut String, reply: &Reply, indent: &str) {
    let (len, mark, empty) = match reply {
        Reply::Status(s) => return out.push_str(s),
        Reply::Error(e) => {
            out.push_str("(error) ");
            return out.push_str(&crate::reply::shown_error(e));
        }
        Reply::Integer(i) => return out.push_str(&format!("(integer) {i}")),
        Reply::Bulk(b) => return out.push_str(&quote_bytes(b)),
        Reply::NullBulk | Reply::NullArray => return out.push_str("(nil)"),
        Reply::Double(d) => return out.push_str(&format!("(double) {}", format_double(*d))),
        Reply::Boolean(b) => return out.push_str(if *b { "(true)" } else { "(false)" }),
        Reply::Verbatim { text, .. } => return out.push_str(&String::from_utf8_lossy(text)),
        Reply::Array(items) => (items.len(), ')', "(empty array)"),
        Reply::Push(items) => (items.len(), ')', "(empty push)"),
        Reply::Set(items) => (items.len(), '~', "(empty set)"),
        Reply::Map(pairs) => (pairs.len(), '#', "(empty hash)"),
    };
    if len == 0 {
        return out.push_str(empty);
    }
    let width = len.to_string().len();
    let child = format!("{indent}{:width$}", "", width = width + 2);
    for i in 0..len {
        if i > 0 {
            out.push('\n');
            out.push_str(indent);
        }
        out.push_str(&format!("{:>width$}{mark} ", i + 1));
        match reply {
            // `get`, not `[i]`: `i` is below the length, and an index is a panic path.
            Reply::Map(pairs) => {
                let Some((key, value)) = pairs.get(i) else { break };
                write_reply(out, key, &child);
                out.push_str(" => ");
                if spans_lines(value) {
                    out.push('\n');
                    out.push_str(&child);
                }
                write_reply(out, value, &child);
            }
            Reply::Array(items) | Reply::Set(items) | Reply::Push(items) => {
                if let Some(item) = items.get(i) {
                    write_reply(out, item, &child);
                }
            }
            _ => unreachable!("only aggregates get here"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(n: i64) -> Vec<Reply> {
        (1..=n).map(Reply::Integer).collect()
    }

    #[test]
    fn scalars() {
        assert_eq!(format_reply(&Reply::ok()), "OK");
        assert_eq!(format_reply(&Reply::Error("ERR x".into())), "(error) ERR x");
        assert_eq!(format_reply(&Reply::Integer(-3)), "(integer) -3");
        assert_eq!(format_reply(&Reply::NullBulk), "(nil)");
        assert_eq!(format_reply(&Reply::NullArray), "(nil)");
        assert_eq!(format_reply(&Reply::Double(1.5)), "(double) 1.5");
        assert_eq!(format_reply(&Reply::Boolean(false)), "(false)");
        let verbatim = Reply::Verbatim { format: *b"txt", text: b"a\nb".to_vec() };
        assert_eq!(format_reply(&verbatim), "a\nb");
    }

    #[test]
    fn quoting_matches_redis_cli() {
        // `redis-cli --no-raw GET k` where k holds the bytes 0..=255, captured verbatim.
        let expected = r##""\x00\x01\x02\x03\x04\x05\x06\a\b\t\n\x0b\x0c\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\x7f\x80\x81\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b\x8c\x8d\x8e\x8f\x90\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9d\x9e\x9f\xa0\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8\xa9\xaa\xab\xac\xad\xae\xaf\xb0\xb1\xb2\xb3\xb4\xb5\xb6\xb7\xb8\xb9\xba\xbb\xbc\xbd\xbe\xbf\xc0\xc1\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef\xf0\xf1\xf2\xf3\xf4\xf5\xf6\xf7\xf8\xf9\xfa\xfb\xfc\xfd\xfe\xff""##;
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(quote_bytes(&all), expected);
        assert_eq!(quote_bytes(b""), "\"\"");
    }

    #[test]
    fn the_commands_redis_cli_prints_raw_print_raw() {
        let args = |line: &str| line.split(' ').map(|w| w.as_bytes().to_vec()).collect::<Vec<_>>();
        let info = Reply::bulk("# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=0\r\n");
        assert_eq!(format_reply_to(&args("INFO keyspace"), &info), "# Keyspace\ndb0:keys=1,expires=0,avg_ttl=0");
        assert_eq!(format_reply_to(&args("client list"), &Reply::bulk("id=1 addr=x\n")), "id=1 addr=x");
        let error = Reply::Error("ERR wrong number of arguments for 'client|info' command".into());
        assert_eq!(
            format_reply_to(&args("CLIENT INFO x"), &error),
            "ERR wrong number of arguments for 'client|info' command"
        );
        assert_eq!(format_reply_to(&args("LOLWUT"), &Reply::Array(vec![Reply::bulk("a"), Reply::Integer(5)])), "a\n5");
        for quoted in
            ["CLIENT GETNAME", "CLUSTER INFO x", "LATENCY DOCTOR x", "LATENCY GRAPH", "XINFO STREAM s", "MEMORY"]
        {
            assert_eq!(format_reply_to(&args(quoted), &Reply::bulk("a\r\nb")), "\"a\\r\\nb\"", "{quoted}");
        }
        for raw in [
            "CLUSTER NODES",
            "LATENCY DOCTOR",
            "LATENCY GRAPH command",
            "MEMORY DOCTOR x",
            "DEBUG HTSTATS 0",
            "proxy info",
        ] {
            assert!(prints_raw(&args(raw)), "{raw}");
        }
    }

    #[test]
    fn empty_aggregates() {
        assert_eq!(format_reply(&Reply::Array(vec![])), "(empty array)");
        assert_eq!(format_reply(&Reply::Map(vec![])), "(empty hash)");
        assert_eq!(format_reply(&Reply::Set(vec![])), "(empty set)");
        assert_eq!(format_reply(&Reply::Push(vec![])), "(empty push)");
    }

    #[test]
    fn index_width_and_indentation() {
        let nested = Reply::Array(vec![Reply::Array(ints(10)), Reply::Integer(0)]);
        let text = format_reply(&nested);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "1)  1) (integer) 1");
        assert_eq!(lines[1], "    2) (integer) 2");
        assert_eq!(lines[9], "   10) (integer) 10");
        assert_eq!(lines[10], "2) (integer) 0");
    }

    #[test]
    fn map_values_move_to_their_own_line_when_they_span_elements() {
        let one_line = Reply::Map(vec![(Reply::bulk("a"), Reply::Array(ints(1)))]);
        assert_eq!(format_reply(&one_line), "1# \"a\" => 1) (integer) 1");
        let multi = Reply::Map(vec![(Reply::bulk("a"), Reply::Array(ints(2)))]);
        assert_eq!(format_reply(&multi), "1# \"a\" => \n   1) (integer) 1\n   2) (integer) 2");
        let deep_single = Reply::Map(vec![(Reply::Integer(0), Reply::Array(vec![Reply::Array(ints(2))]))]);
        assert_eq!(format_reply(&deep_single), "1# (integer) 0 => \n   1) 1) (integer) 1\n      2) (integer) 2");
        // A multi-line key does not move the value.
        let key_multi =
            Reply::Map(vec![(Reply::Integer(0), Reply::Map(vec![(Reply::Array(ints(2)), Reply::Integer(3))]))]);
        assert_eq!(
            format_reply(&key_multi),
            "1# (integer) 0 => 1# 1) (integer) 1\n      2) (integer) 2 => (integer) 3"
        );
    }
}
