//! The redis-cli export: a session as a file that `redis-cli < session.redis` runs unchanged
//! against a real server, printing the replies the page printed, in the page's order.
//!
//! redis-cli reads such a file on one connection, line by line, and has no comment syntax, so
//! the export is built from what the page did rather than from what was typed: the log is run
//! again on a console made as the page makes it, and each recorded step becomes the lines that
//! reproduce it on one connection.
//!
//! - Commands are rebuilt from their arguments ([`command_line`] quotes them as redis-cli
//!   reads them back): no key or name reaches the file as it was typed, one step is one line.
//! - A blocked read is run, without `BLOCK`, where the page answered it: after the command
//!   that served it, with `$` and `+` as they were frozen when it blocked (the session keeps
//!   the rerun form). An XREADGROUP also runs at the point it blocked, since blocking made its
//!   consumer and set its seen time; a read that times out is a blocking XREAD of a key that
//!   never exists, timing out on the real clock when the page's did.
//! - `:clock +N` waits N ms (such a blocking XREAD again): a real server's clock cannot jump,
//!   but it can be waited for, so idle times and claims come out as on the page.
//! - `*` ids are written as the ids the page assigned, so replies that show ids match.
//! - A transaction runs as a whole at its EXEC: queued on one connection, another connection's
//!   commands would be queued into it. When others ran between its MULTI and EXEC, an ECHO
//!   line says it moved.
//! - What one connection cannot do for another (a subscription, which would make redis-cli
//!   wait for messages forever; CLIENT KILL and CLIENT UNBLOCK of the page's connections; a
//!   SHUTDOWN the page refused) is not sent: an ECHO line says so. So do comments.

use streamlab_protocol::console::command_line;
use streamlab_protocol::timeline::{Record, Step};
use streamlab_protocol::{ConnId, Console, Delivery, Reply};

use crate::share::SessionSpec;

/// One line of the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptLine {
    /// The line, as redis-cli reads it.
    pub text: String,
    /// Whether it prints the next reply the page printed (a command's or a served read's);
    /// otherwise it is the export's own (an ECHO note, a wait, the starting fill, a blocked
    /// XREADGROUP's first run) and prints one line of its own.
    pub answers: bool,
}

/// The script as a file.
pub fn redis_cli_script(spec: &SessionSpec) -> String {
    let mut text = String::new();
    for line in redis_cli_lines(spec) {
        text.push_str(&line.text);
        text.push('\n');
    }
    text
}

/// The script, line by line.
pub fn redis_cli_lines(spec: &SessionSpec) -> Vec<ScriptLine> {
    let mut console = crate::start_console(spec);
    let mut script = Script { time: console.session().now(), ..Script::default() };
    script.note(&format!(
        "StreamLab session ({}): every connection's commands run here on one, in the order the page ran them",
        spec.profile
    ));
    if let Some((key, count)) = &spec.fill {
        fill_lines(&mut script, key.as_bytes(), *count, spec.clock);
    }
    for line in spec.log.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') {
            script.note(trimmed);
            continue;
        }
        // `:undo`, `:redo` and `:profile` never appear in a console script (`Console::script`
        // writes the applied steps), and a line after them would not be the page's history.
        if [":undo", ":redo", ":profile"].iter().any(|meta| trimmed.starts_with(meta)) {
            continue;
        }
        let before = console.timeline().position();
        console.run(line);
        let records = console.timeline().records().get(before..console.timeline().position()).unwrap_or_default();
        for record in records {
            script.step(&console, record);
        }
    }
    for (conn, lines) in std::mem::take(&mut script.transactions) {
        script.note(&format!(
            "{}'s MULTI was still open on the page: it is queued here and left open",
            label(&console, conn)
        ));
        for (args, _) in lines {
            script.push(command_line(&args), true);
        }
    }
    script.lines
}

/// A command of an open transaction, with the page's reply to it (`QUEUED`, or an error).
type Queued = (Vec<Vec<u8>>, Reply);

/// The script being written and what the steps so far left open.
#[derive(Default)]
struct Script {
    lines: Vec<ScriptLine>,
    /// The page's clock at this point of the script.
    time: i64,
    /// Blocked reads: the connection, the read to run when the page answered it (without
    /// `BLOCK`), and when it times out.
    blocked: Vec<(ConnId, Vec<Vec<u8>>, Option<i64>)>,
    /// Open transactions: the connection, its MULTI and queued commands with their replies, and
    /// whether another connection printed something since its MULTI.
    transactions: Vec<(ConnId, Vec<Queued>)>,
    interleaved: Vec<ConnId>,
    /// Commands typed on a connection while it waited, which the page ran once it was answered
    /// (their replies are deliveries after the read's).
    backlog: Vec<(ConnId, Vec<Vec<u8>>)>,
}

impl Script {
    fn push(&mut self, text: String, answers: bool) {
        if answers {
            // Lines written now come before the open transactions, which are written at EXEC.
            for (conn, _) in &self.transactions {
                if !self.interleaved.contains(conn) {
                    self.interleaved.push(*conn);
                }
            }
        }
        self.lines.push(ScriptLine { text, answers });
    }

    /// An ECHO line: redis-cli prints it as a quoted string.
    fn note(&mut self, text: &str) {
        self.push(command_line(&[b"ECHO".to_vec(), text.as_bytes().to_vec()]), false);
    }

    /// A wait of `ms` on the real clock: a blocking read of a key no session has, which times
    /// out with `(nil)`. Redis times a read out once its deadline is past, a millisecond after
    /// it, so `BLOCK ms - 1` waits `ms`. A zero wait reads without blocking (`BLOCK 0` would
    /// wait forever), and so a 1 ms wait takes 2.
    fn wait(&mut self, ms: i64, why: &str, answers: bool) {
        let key = format!("StreamLab: {why}").into_bytes();
        let args: Vec<Vec<u8>> = if ms > 0 {
            let block = (ms - 1).max(1).to_string().into_bytes();
            vec![b"XREAD".to_vec(), b"BLOCK".to_vec(), block, b"STREAMS".to_vec(), key, b"$".to_vec()]
        } else {
            vec![b"XREAD".to_vec(), b"STREAMS".to_vec(), key, b"0-0".to_vec()]
        };
        self.push(command_line(&args), answers);
        self.time += ms.max(0);
    }

    fn step(&mut self, console: &Console, record: &Record) {
        let output = &record.output;
        match &record.step {
            Step::Disconnect { .. } => {}
            Step::AdvanceTo { now } => {
                for delivery in &output.deliveries {
                    let Some(at) = self.blocked.iter().position(|(conn, ..)| *conn == delivery.conn) else {
                        self.undelivered(console, delivery);
                        continue;
                    };
                    let (conn, read, deadline) = self.blocked.remove(at);
                    match deadline {
                        Some(deadline) if matches!(delivery.reply, Reply::NullArray | Reply::NullBulk) => {
                            let why = format!("{}'s blocked read times out here", label(console, conn));
                            self.wait(deadline - self.time, &why, true);
                        }
                        // Served by time itself (XREADGROUP CLAIM): it reads what it reads now.
                        _ => self.push(command_line(&read), true),
                    }
                }
                let rest = *now - self.time;
                if rest > 0 {
                    self.wait(rest, &format!("the clock moves on {rest} ms here"), false);
                }
                self.time = *now;
            }
            Step::Fill { key, count, .. } => {
                match (output.replies.first(), stream_added(console, key)) {
                    (Some(Reply::Status(filled)), Some(added)) if *count > 0 => {
                        let first_ms = filled.split(": ").nth(1).and_then(|ids| ids.split('-').next()).unwrap_or("0");
                        self.push(fill_eval(key, first_ms, added.saturating_sub(*count), *count), true);
                    }
                    _ => self.note(&format!(
                        "not replayed: :fill {} {count}, which added nothing",
                        String::from_utf8_lossy(key)
                    )),
                }
                self.deliveries(console, &output.deliveries);
            }
            Step::Execute { conn, args, .. } => {
                self.execute(console, *conn, &args.to_vecs(), &output.replies);
                self.deliveries(console, &output.deliveries);
            }
        }
    }

    fn execute(&mut self, console: &Console, conn: ConnId, args: &[Vec<u8>], replies: &[Reply]) {
        // Before the replies are looked at: the page's host answers SHUTDOWN itself, outside
        // the recorded replies, so its step may have none.
        if let Some(why) = not_sent(args) {
            self.note(&format!("not sent, {why}: {}", command_line(args)));
            return;
        }
        let state = console.session().conn(conn);
        let Some(reply) = replies.first() else {
            if self.blocked.iter().any(|(c, ..)| *c == conn) {
                self.backlog.push((conn, args.to_vec()));
                return;
            }
            match state.and_then(|c| c.blocked()) {
                Some(block) => {
                    let read = without_block(&block.args);
                    if is(args.first(), "xreadgroup") {
                        // Blocking made the consumer and set its seen time: the same read
                        // without BLOCK does that and reads nothing, as the blocked one did.
                        self.push(command_line(&read), false);
                    } else {
                        let name = label(console, conn);
                        self.note(&format!("{name}'s XREAD blocks here; it runs below, where the page answered it"));
                    }
                    self.blocked.push((conn, read, block.deadline));
                }
                None => self.note(&format!(
                    "not replayed: {} got no reply on the page: {}",
                    label(console, conn),
                    command_line(args)
                )),
            }
            return;
        };
        let line = (with_assigned_id(args, reply), reply.clone());
        if let Some(at) = self.transactions.iter().position(|(c, _)| *c == conn) {
            self.transactions[at].1.push(line);
            if !state.is_some_and(|c| c.in_multi()) {
                let (_, lines) = self.transactions.remove(at);
                self.commit(console, conn, lines);
            }
        } else if state.is_some_and(|c| c.in_multi()) {
            self.transactions.push((conn, vec![line]));
        } else {
            self.push(command_line(&line.0), true);
        }
    }

    /// A transaction, written at its end (EXEC, DISCARD, or whatever closed it). Queued XADDs
    /// get the ids EXEC's reply shows.
    fn commit(&mut self, console: &Console, conn: ConnId, lines: Vec<Queued>) {
        if let Some(at) = self.interleaved.iter().position(|c| *c == conn) {
            self.interleaved.remove(at);
            self.note(&format!(
                "{}'s MULTI..EXEC ran while other connections ran commands; it runs here, at its EXEC",
                label(console, conn)
            ));
        }
        let results: &[Reply] = match lines.last() {
            Some((_, Reply::Array(results))) => results,
            _ => &[],
        };
        let mut results = results.iter();
        for (args, reply) in &lines {
            let args = match reply {
                Reply::Status(s) if s == "QUEUED" => match results.next() {
                    Some(result) => with_assigned_id(args, result),
                    None => args.clone(),
                },
                _ => args.clone(),
            };
            self.push(command_line(&args), true);
        }
    }

    /// What a step delivered to other connections: blocked reads it served run here.
    fn deliveries(&mut self, console: &Console, deliveries: &[Delivery]) {
        for delivery in deliveries {
            match self.blocked.iter().position(|(conn, ..)| *conn == delivery.conn) {
                Some(at) => {
                    let (_, read, _) = self.blocked.remove(at);
                    self.push(command_line(&read), true);
                }
                None => self.undelivered(console, delivery),
            }
        }
    }

    /// A delivery that answers no blocked read: a command that waited behind one, or a
    /// subscription's message.
    fn undelivered(&mut self, console: &Console, delivery: &Delivery) {
        if let Some(at) = self.backlog.iter().position(|(conn, _)| *conn == delivery.conn) {
            let (_, args) = self.backlog.remove(at);
            self.push(command_line(&with_assigned_id(&args, &delivery.reply)), true);
            return;
        }
        let name = label(console, delivery.conn);
        self.note(&format!("not replayed: what the page delivered to {name} here (a subscription's message)"));
    }
}

fn label(console: &Console, conn: ConnId) -> String {
    console.label(conn)
}

fn is(word: Option<&Vec<u8>>, name: &str) -> bool {
    word.is_some_and(|w| w.eq_ignore_ascii_case(name.as_bytes()))
}

/// Why a command the page ran is not sent, if it is not.
fn not_sent(args: &[Vec<u8>]) -> Option<&'static str> {
    let first = args.first();
    let sub = args.get(1);
    if read_by_redis_cli(first.map_or(&[][..], Vec::as_slice), args.len()) {
        Some("redis-cli would run it itself")
    } else if ["subscribe", "psubscribe", "ssubscribe", "monitor"].iter().any(|name| is(first, name)) {
        Some("redis-cli would wait for messages from then on")
    } else if is(first, "client") && (is(sub, "kill") || is(sub, "unblock")) {
        Some("it names the page's connections")
    } else if is(first, "shutdown") {
        Some("the page refused it")
    } else {
        None
    }
}

/// The read a blocked one runs when it is served, without its `BLOCK` option (with data there,
/// the same reply; and a mistake here can never make redis-cli wait forever).
fn without_block(args: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut out = Vec::with_capacity(args.len());
    let mut i = 0;
    // XREADGROUP's GROUP NAME CONSUMER may be any words, BLOCK included.
    let skip = if is(args.first(), "xreadgroup") { 4 } else { 1 };
    while let Some(arg) = args.get(i) {
        if i >= skip && is(Some(arg), "streams") {
            out.extend_from_slice(args.get(i..).unwrap_or_default());
            break;
        }
        if i >= skip && is(Some(arg), "block") {
            i += 2;
            continue;
        }
        if i >= skip && (is(Some(arg), "count") || is(Some(arg), "claim")) {
            out.push(arg.clone());
            if let Some(value) = args.get(i + 1) {
                out.push(value.clone());
            }
            i += 2;
            continue;
        }
        out.push(arg.clone());
        i += 1;
    }
    out
}

/// An XADD with `*` or `<ms>-*` as its id, with the id the page assigned instead (from its
/// reply): a real server's clock would assign others. Anything else is kept as it is.
fn with_assigned_id(args: &[Vec<u8>], reply: &Reply) -> Vec<Vec<u8>> {
    let mut out = args.to_vec();
    let Reply::Bulk(id) = reply else { return out };
    if !is(args.first(), "xadd") {
        return out;
    }
    let mut i = 2;
    while let Some(arg) = args.get(i) {
        let word = |name: &str| arg.eq_ignore_ascii_case(name.as_bytes());
        if word("nomkstream") || word("keepref") || word("delref") || word("acked") {
            i += 1;
        } else if word("maxlen") || word("minid") {
            i += 1;
            if args.get(i).is_some_and(|a| a == b"=" || a == b"~") {
                i += 1;
            }
            i += 1;
            if args.get(i).is_some_and(|a| a.eq_ignore_ascii_case(b"limit")) {
                i += 2;
            }
        } else if word("idmp") || word("idmpauto") {
            // A duplicate answers the id it had before: an explicit id would not.
            return out;
        } else {
            break;
        }
    }
    if let Some(slot) = out.get_mut(i) {
        if slot.as_slice() == b"*" || slot.ends_with(b"-*") {
            *slot = id.clone();
        }
    }
    out
}

/// The stream's entries-added after a fill.
fn stream_added(console: &Console, key: &[u8]) -> Option<u64> {
    console.session().keyspace().stream(key).ok().flatten().map(|s| s.entries_added())
}

/// A fill (of the log, or the session's starting stream): the entries `Session::fill` makes,
/// each XADD with `<ms>-*` at the millisecond the page used (so the sequence numbers follow
/// as they did), numbered on from the stream's entries-added; its reply is the line the page
/// printed.
const FILL_SCRIPT: &str = "local first, last \
for i = 1, tonumber(ARGV[3]) do \
local n = tonumber(ARGV[2]) + i \
local id = redis.call('XADD', KEYS[1], ARGV[1] .. '-*', 'type', 'order-created', 'orderId', string.format('%d', n), \
'isbn', string.format('978-%09d', (n * 7919) % 1000000000), 'quantity', string.format('%d', 1 + n % 3)) \
first = first or id last = id end \
return redis.status_reply('filled ' .. ARGV[3] .. ' entries: ' .. first .. ' .. ' .. last)";

/// The session's starting stream: the order events `Session::fill` made at the session's
/// first instant, by the same server-side loop as a `:fill` of the log (so the file stays
/// small and no shell is involved: the key is an argument like any other).
fn fill_lines(script: &mut Script, key: &[u8], count: u64, clock: i64) {
    script.note(&format!("the session started with {count} entries in {}", command_line(&[key.to_vec()])));
    script.push(fill_eval(key, &clock.to_string(), 0, count), false);
}

/// The line that makes `count` fill entries in `key` at millisecond `ms`, numbered on from
/// `base` entries added.
fn fill_eval(key: &[u8], ms: &str, base: u64, count: u64) -> String {
    let args = [
        b"EVAL".to_vec(),
        FILL_SCRIPT.as_bytes().to_vec(),
        b"1".to_vec(),
        key.to_vec(),
        ms.as_bytes().to_vec(),
        base.to_string().into_bytes(),
        count.to_string().into_bytes(),
    ];
    command_line(&args)
}

/// Whether redis-cli's prompt handles a line with `argc` words starting with `first` itself
/// instead of sending it (quoting cannot stop that: it looks at the word after unquoting, as a
/// C string, so up to a NUL): `quit`/`exit`, `:preferences`, `restart`, `connect HOST PORT`,
/// `clear`, `help`/`?`, and a number (or nothing) before a command, read as a repeat count.
fn read_by_redis_cli(first: &[u8], argc: usize) -> bool {
    let word = first.split(|&b| b == 0).next().unwrap_or_default();
    let is = |name: &str| word.eq_ignore_ascii_case(name.as_bytes());
    // strtol: optional C whitespace, an optional sign, then digits up to the end.
    let number = {
        let spaces = word.iter().take_while(|b| matches!(b, b' ' | b'\t'..=b'\r')).count();
        let rest = word.get(spaces..).unwrap_or_default();
        let rest = rest.strip_prefix(b"+").or_else(|| rest.strip_prefix(b"-")).unwrap_or(rest);
        word.is_empty() || (!rest.is_empty() && rest.iter().all(u8::is_ascii_digit))
    };
    is("quit")
        || is("exit")
        || word.first() == Some(&b':')
        || is("restart")
        || (is("connect") && argc == 3)
        || (is("clear") && argc == 1)
        || is("help")
        || is("?")
        || (number && argc > 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamlab_protocol::tokenize;

    fn script(log: &str) -> String {
        redis_cli_script(&SessionSpec { log: log.into(), ..SessionSpec::default() })
    }

    /// The arguments redis-cli reads from each line (the console's tokenizer splits as
    /// redis-cli's `sdssplitargs` does).
    fn commands(script: &str) -> Vec<Vec<Vec<u8>>> {
        script.lines().map(|l| tokenize(l.as_bytes()).unwrap_or_else(|e| panic!("{l:?}: {e}"))).collect()
    }

    fn words(words: &[&[u8]]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.to_vec()).collect()
    }

    /// The lines after the header, as text.
    fn body(script: &str) -> Vec<&str> {
        script.lines().skip(1).collect()
    }

    #[test]
    fn no_line_is_a_comment_and_blocked_reads_run_where_they_were_answered() {
        let log = "# a note\nXGROUP CREATE jobs workers $ MKSTREAM\n:as bob\nXREADGROUP GROUP workers bob BLOCK 0 STREAMS jobs >\n\
                   :as dave\nXREAD BLOCK 0 STREAMS jobs $\n:as alice\nXADD jobs * type email\n:as carol\nXREAD BLOCK 1000 STREAMS jobs $\n:clock +2500\nXLEN jobs\n";
        let script = script(log);
        assert!(script.lines().all(|l| !l.trim_start().starts_with('#')), "{script}");
        assert_eq!(
            body(&script),
            [
                "ECHO \"# a note\"",
                "XGROUP CREATE jobs workers $ MKSTREAM",
                // The blocked XREADGROUP's own run (its consumer), then bob's XREAD noted.
                "XREADGROUP GROUP workers bob STREAMS jobs >",
                "ECHO \"dave's XREAD blocks here; it runs below, where the page answered it\"",
                "XADD jobs 1700000000000-0 type email",
                // Served in the order they blocked, `$` frozen to what it meant then.
                "XREADGROUP GROUP workers bob STREAMS jobs >",
                "XREAD STREAMS jobs 0-0",
                "ECHO \"carol's XREAD blocks here; it runs below, where the page answered it\"",
                "XREAD BLOCK 999 STREAMS \"StreamLab: carol's blocked read times out here\" $",
                "XREAD BLOCK 1499 STREAMS \"StreamLab: the clock moves on 1500 ms here\" $",
                "XLEN jobs",
            ],
            "{script}"
        );
        // carol's `$` was frozen at 1700000000000-0; she timed out, so she is not run again.
        assert!(!script.contains("STREAMS jobs 1700000000000-0"), "{script}");
        let answering: Vec<bool> = redis_cli_lines(&SessionSpec { log: log.into(), ..SessionSpec::default() })
            .iter()
            .map(|l| l.answers)
            .collect();
        assert_eq!(answering, [false, false, true, false, false, true, true, true, false, true, false, true]);
    }

    #[test]
    fn transactions_run_whole_at_exec_and_say_so_when_they_moved() {
        let plain = script("MULTI\nXADD s * f v\nEXEC\n");
        assert_eq!(body(&plain), ["MULTI", "XADD s 1700000000000-0 f v", "EXEC"]);
        let moved = script("MULTI\nSET k 1\n:as bob\nSET k 2\n:as alice\nGET k\nEXEC\n");
        assert_eq!(
            body(&moved),
            [
                "SET k 2",
                "ECHO \"alice's MULTI..EXEC ran while other connections ran commands; it runs here, at its EXEC\"",
                "MULTI",
                "SET k 1",
                "GET k",
                "EXEC",
            ]
        );
    }

    #[test]
    fn lines_that_cannot_run_on_one_connection_are_echoed() {
        let script = script(
            "SUBSCRIBE news\n:as bob\nPUBLISH news hi\nCLIENT KILL ID 1\nSHUTDOWN NOSAVE\n\"quit\"\n3 SET rep v\n",
        );
        let body = body(&script);
        assert_eq!(
            body.first(),
            Some(&"ECHO \"not sent, redis-cli would wait for messages from then on: SUBSCRIBE news\"")
        );
        assert!(body.contains(&"PUBLISH news hi"), "{script}");
        assert!(
            body.contains(&"ECHO \"not replayed: what the page delivered to alice here (a subscription's message)\""),
            "{script}"
        );
        assert!(body.contains(&"ECHO \"not sent, it names the page's connections: CLIENT KILL ID 1\""), "{script}");
        assert!(body.contains(&"ECHO \"not sent, the page refused it: SHUTDOWN NOSAVE\""), "{script}");
        assert!(body.contains(&"ECHO \"not sent, redis-cli would run it itself: quit\""), "{script}");
        assert!(body.contains(&"ECHO \"not sent, redis-cli would run it itself: 3 SET rep v\""), "{script}");
        assert!(commands(&script).iter().all(|c| c.first().is_some_and(|w| w != b"SUBSCRIBE" && w != b"quit")));
    }

    #[test]
    fn exported_fills_quote_their_key_and_use_no_shell() {
        let key = "k$(touch /tmp/pwned) \"q\" 'a' \\ é";
        let big = redis_cli_script(&SessionSpec { fill: Some((key.into(), 1_001)), ..SessionSpec::default() });
        assert_eq!(
            commands(&big)[2..],
            [words(&[b"EVAL", FILL_SCRIPT.as_bytes(), b"1", key.as_bytes(), b"1700000000000", b"0", b"1001"])]
        );
        assert!(!big.contains("seq") && !big.contains("| redis-cli"), "{big}");
        // A `:fill` of the log replays at the page's millisecond, numbered on from what the
        // stream had.
        let log =
            redis_cli_script(&SessionSpec { log: "XADD o 5-0 a b\n:fill o 3\n".into(), ..SessionSpec::default() });
        assert_eq!(
            commands(&log)[2..],
            [words(&[b"EVAL", FILL_SCRIPT.as_bytes(), b"1", b"o", b"1700000000000", b"1", b"3"])]
        );
    }

    #[test]
    fn exported_lines_are_the_arguments_the_console_ran() {
        let log = "SET \"k\\nFLUSHALL\" v\nSET r v\rDEL canary\nSET z 1\0FLUSHALL\n  SET t v\r\nSET \"u\nXLEN s\n:as a\"b\\c\n:clock soon\n:undo\n";
        assert_eq!(
            commands(&script(log))[1..],
            [
                words(&[b"SET", b"k\nFLUSHALL", b"v"]),
                words(&[b"SET", b"r", b"v", b"DEL", b"canary"]),
                words(&[b"SET", b"z", b"1"]),
                words(&[b"SET", b"t", b"v"]),
                words(&[b"XLEN", b"s"]),
            ]
        );
    }

    #[test]
    fn only_the_block_option_is_dropped_from_a_served_read() {
        let args = |line: &str| tokenize(line.as_bytes()).unwrap();
        assert_eq!(
            without_block(&args("XREADGROUP GROUP block BLOCK COUNT 2 BLOCK 0 STREAMS block >")),
            args("XREADGROUP GROUP block BLOCK COUNT 2 STREAMS block >")
        );
        assert_eq!(without_block(&args("xread block 5 count 1 streams s 0")), args("xread count 1 streams s 0"));
        let id = Reply::Bulk(b"9-1".to_vec());
        assert_eq!(
            with_assigned_id(&args("XADD s MAXLEN ~ 5 LIMIT 2 * f *"), &id),
            args("XADD s MAXLEN ~ 5 LIMIT 2 9-1 f *")
        );
        assert_eq!(with_assigned_id(&args("XADD s NOMKSTREAM 9-* f v"), &id), args("XADD s NOMKSTREAM 9-1 f v"));
        assert_eq!(with_assigned_id(&args("XADD s 1-1 f v"), &id), args("XADD s 1-1 f v"));
    }
}
