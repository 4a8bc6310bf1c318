//! The page's Export (`Playground::export`) run through the real `redis-cli` against Redis
//! 8.2.3, the file piped in unchanged (`redis-cli --no-raw < session.redis`, and once more as
//! the README says, `redis-cli < session.redis`):
//!
//! - sessions of several connections (blocked reads served by another connection, a read that
//!   times out, MULTI/EXEC, errors, `:fill`, XAUTOCLAIM/XPENDING/XINFO after clock moves):
//!   redis-cli's output must be the page's replies, line for line, with nothing normalised.
//!   The export's own lines (ECHO notes, waits, the starting fill) print one line each, which
//!   is checked too;
//! - hostile share links: a canary key survives and the keys are exactly the page's;
//! - what one connection cannot replay (subscriptions, CLIENT KILL) still runs to the end.
//!
//! The server runs under libfaketime on a frozen clock (tests/oracle/README.md), started at
//! the session's virtual clock. The export turns `:clock +N` into a blocking XREAD that times
//! out after N ms; a real server's clock gets there by itself, this one's is moved by the test
//! when it sees redis-cli blocked in such a wait — the only thing the test does besides
//! piping the file — so idle times come out exact. redis-cli blocked anywhere else fails the
//! test (the file would hang).
//!
//! It needs a server, so `cargo test` skips it; `cargo xtask test` runs it in the oracle step
//! against the faketime'd Redis 8.2.3 it starts (`STREAMLAB_EXPORT_REDIS_PORT`,
//! `STREAMLAB_EXPORT_FAKETIME_FILE`; `REDIS_CLI` overrides the client's path). By hand:
//! `ORACLE_FAKETIME=1 tests/oracle/redis.sh start 16390`, then
//! `STREAMLAB_EXPORT_REDIS_PORT=16390 STREAMLAB_EXPORT_FAKETIME_FILE=$(tests/oracle/redis.sh faketime-file 16390) cargo test -p streamlab-view --test export_redis_cli -- --ignored`.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use streamlab_protocol::timeline::Step;
use streamlab_protocol::{decode_reply, encode_request, format_reply, format_reply_to, tokenize, Reply, Session};
use streamlab_view::export::redis_cli_lines;
use streamlab_view::share::SessionSpec;
use streamlab_view::Playground;

/// A key's type and length (XLEN, or a string's bytes), as both servers report it.
type Shape = BTreeMap<Vec<u8>, (String, i64)>;

struct Redis(TcpStream);

impl Redis {
    fn call(&mut self, args: &[&[u8]]) -> Reply {
        self.0.write_all(&encode_request(args)).unwrap();
        let mut buf = Vec::new();
        loop {
            if let Some((reply, _)) = decode_reply(&buf, false).unwrap() {
                return reply;
            }
            let mut chunk = [0; 65536];
            let n = self.0.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed the connection");
            buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// The keys of a server, with their types and lengths, asked through `call`.
fn shape(mut call: impl FnMut(&[&[u8]]) -> Reply) -> Shape {
    let Reply::Array(keys) = call(&[b"KEYS", b"*"]) else { panic!("KEYS failed") };
    let mut shape = Shape::new();
    for key in keys {
        let Reply::Bulk(key) = key else { panic!("a key that is not a bulk string") };
        let Reply::Status(kind) = call(&[b"TYPE", &key]) else { panic!("TYPE failed") };
        // StreamLab has no STRLEN: a string's length is its value's.
        let length = match kind.as_str() {
            "stream" => call(&[b"XLEN", &key]),
            "string" => match call(&[b"GET", &key]) {
                Reply::Bulk(value) => Reply::Integer(value.len() as i64),
                other => other,
            },
            _ => Reply::Integer(-1),
        };
        let Reply::Integer(length) = length else { panic!("no length for {key:?}: {length:?}") };
        shape.insert(key, (kind, length));
    }
    shape
}

/// A connection of its own on the page's session, so nothing a link left a connection in
/// (MULTI, a subscription) changes the answers.
const CHECKER: u64 = 1_000_000;

/// The keys the page holds after loading `spec`, asked on a copy of its session.
fn page_shape(page: &Playground) -> Shape {
    let mut session: Session = page.console().session().clone();
    shape(|args| {
        let mut replies = session.execute(CHECKER, args.iter().map(|a| a.to_vec()).collect()).replies;
        assert_eq!(replies.len(), 1);
        replies.remove(0)
    })
}

/// Percent-encodes a share fragment's value.
fn enc(text: &str) -> String {
    streamlab_view::share::encode(text)
}

/// The faketime'd Redis 8.2.3 and the redis-cli to run against it.
struct Oracle {
    port: String,
    cli: String,
    clock_file: PathBuf,
    redis: Redis,
    dir: PathBuf,
}

impl Oracle {
    fn new() -> Oracle {
        let port = std::env::var("STREAMLAB_EXPORT_REDIS_PORT").expect("STREAMLAB_EXPORT_REDIS_PORT names the server");
        let clock_file = std::env::var("STREAMLAB_EXPORT_FAKETIME_FILE")
            .expect("STREAMLAB_EXPORT_FAKETIME_FILE names the faketime clock file of that server")
            .into();
        let cli = std::env::var("REDIS_CLI").unwrap_or_else(|_| "redis-cli".to_owned());
        let redis = Redis(TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap());
        let dir = std::env::temp_dir().join(format!("streamlab-export-{}-{}", std::process::id(), port));
        std::fs::create_dir_all(&dir).unwrap();
        Oracle { port, cli, clock_file, redis, dir }
    }

    /// Sets the server's frozen clock to `ms` (5 us past it: libfaketime reads the file as a
    /// double, and `.000000` can come back as the microsecond before) and waits until the
    /// server reads it.
    fn set_clock(&mut self, ms: i64) {
        let tmp = self.clock_file.with_extension("tmp");
        std::fs::write(&tmp, format!("{}.{:03}005\n", ms / 1000, ms % 1000)).unwrap();
        std::fs::rename(&tmp, &self.clock_file).unwrap();
        let started = Instant::now();
        loop {
            let Reply::Array(time) = self.redis.call(&[b"TIME"]) else { panic!("TIME failed") };
            let part = |i: usize| match time.get(i) {
                Some(Reply::Bulk(n)) => std::str::from_utf8(n).unwrap().parse::<i64>().unwrap(),
                other => panic!("TIME answered {other:?}"),
            };
            // A double's microseconds: 5 us past the millisecond may read as 4.
            if part(0) * 1000 + part(1) / 1000 == ms {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(10), "the server does not read the clock file");
        }
    }

    /// The clients blocked in a command: (id, bytes read from it so far, command), and with
    /// `all`, every client.
    fn clients(&mut self, all: bool) -> Vec<(String, String, String)> {
        let Reply::Bulk(list) = self.redis.call(&[b"CLIENT", b"LIST"]) else { panic!("CLIENT LIST failed") };
        let mut blocked = Vec::new();
        for line in String::from_utf8_lossy(&list).lines() {
            let field = |name: &str| {
                line.split(' ').find_map(|kv| kv.strip_prefix(name).and_then(|v| v.strip_prefix('='))).unwrap_or("")
            };
            if all || field("flags").contains('b') {
                blocked.push((field("id").to_owned(), field("tot-net-in").to_owned(), field("cmd").to_owned()));
            }
        }
        blocked
    }

    /// An empty server whose clock stands at `start`.
    fn fresh(&mut self, start: i64) {
        assert_eq!(self.redis.call(&[b"FLUSHALL"]), Reply::Status("OK".into()));
        self.set_clock(start);
    }

    /// Pipes `script` unchanged into redis-cli (with `--no-raw` when `no_raw`) on the server
    /// whose clock stands at `start`, and returns what it printed. Each time redis-cli
    /// blocks in one of the script's waits, the clock moves on by that wait.
    fn run(&mut self, script: &str, start: i64, no_raw: bool) -> String {
        let mut waits = Vec::new();
        for line in script.lines() {
            let args = tokenize(line.as_bytes()).unwrap();
            if let [xread, block, ms, streams, key, dollar] = &args[..] {
                if xread == b"XREAD"
                    && block == b"BLOCK"
                    && streams == b"STREAMS"
                    && dollar == b"$"
                    && key.starts_with(b"StreamLab: ")
                {
                    // Redis times the read out once its deadline is past: a millisecond after.
                    waits.push(std::str::from_utf8(ms).unwrap().parse::<i64>().unwrap() + 1);
                }
            }
        }
        let file = self.dir.join("session.redis");
        std::fs::write(&file, script).unwrap();
        // Only the redis-cli started here is watched.
        let others: Vec<String> = self.clients(true).into_iter().map(|(id, ..)| id).collect();
        let mut command = Command::new(&self.cli);
        command.args(["-p", &self.port]);
        if no_raw {
            command.arg("--no-raw");
        }
        let mut child = command
            .stdin(std::fs::File::open(&file).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", self.cli));
        let mut stdout = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut out = Vec::new();
            stdout.read_to_end(&mut out).unwrap();
            out
        });
        let (mut now, mut served, mut seen) = (start, 0, None);
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            let blocked = self.clients(false).into_iter().find(|(id, ..)| !others.contains(id));
            if let Some((id, read, cmd)) = blocked {
                if seen.as_ref() != Some(&(id.clone(), read.clone())) {
                    let Some(&ms) = waits.get(served).filter(|_| cmd == "xread") else {
                        child.kill().unwrap();
                        panic!(
                            "redis-cli is blocked in {cmd} outside the script's waits: the file would hang\n{script}"
                        );
                    };
                    now += ms;
                    self.set_clock(now);
                    served += 1;
                    seen = Some((id, read));
                }
            }
            // A guard against a test bug, far above the seconds a run takes.
            if started.elapsed() > Duration::from_secs(120) {
                child.kill().unwrap();
                panic!("redis-cli did not finish\n{script}");
            }
        };
        let printed = String::from_utf8(reader.join().unwrap()).unwrap();
        let mut stderr = String::new();
        child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        assert!(status.success(), "redis-cli failed: {printed}{stderr}");
        assert_eq!(served, waits.len(), "every wait of the script blocked once\n{script}");
        printed
    }
}

/// What the page printed, reply by reply, in order (a command's replies, then what reached
/// other connections), as the console prints it (raw for INFO and the like) without its
/// `[NAME] ` prefixes.
fn page_replies(page: &Playground) -> Vec<String> {
    let timeline = page.console().timeline();
    let mut replies = Vec::new();
    for record in &timeline.records()[..timeline.position()] {
        let args = match &record.step {
            Step::Execute { args, .. } => args.to_vecs(),
            _ => Vec::new(),
        };
        for reply in &record.output.replies {
            replies.push(format_reply_to(&args, reply));
        }
        for delivery in &record.output.deliveries {
            replies.push(format_reply(&delivery.reply));
        }
    }
    replies
}

/// The line redis-cli prints for one of the export's own lines: an ECHO's text, the starting
/// fill's EVAL status (the order events from `<ms>-0` on a fresh stream, as `:fill` says it),
/// a wait's or a blocked XREADGROUP's first `(nil)`.
fn own_output(line: &str) -> String {
    let args = tokenize(line.as_bytes()).unwrap();
    match args.first().map(Vec::as_slice) {
        Some(b"ECHO") => format_reply(&Reply::Bulk(args[1].clone())),
        Some(b"EVAL") => {
            let (ms, count) = (String::from_utf8_lossy(&args[4]), String::from_utf8_lossy(&args[6]));
            let last = count.parse::<u64>().unwrap() - 1;
            format!("filled {count} entries: {ms}-0 .. {ms}-{last}")
        }
        _ => "(nil)".to_owned(),
    }
}

fn is_latency_note(line: &str) -> bool {
    let Some(inner) = line.strip_prefix('(').and_then(|l| l.strip_suffix("s)")) else { return false };
    let (whole, cents) = inner.split_once('.').unwrap_or(("", ""));
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && cents.len() == 2
        && cents.bytes().all(|b| b.is_ascii_digit())
}

/// Exports the session a share link makes, runs it through redis-cli and compares the output
/// with the page's replies line by line; also runs it without `--no-raw`, which must print as
/// many error lines as the page printed errors.
fn replays_as_on_the_page(oracle: &mut Oracle, log: &str) -> String {
    // The profile of the server the file runs on (newer ones print more, XINFO's IDMP fields).
    let page = Playground::restore(&SessionSpec::parse(&format!("profile=redis-8.2&log={}", enc(log))).unwrap());
    let spec = page.spec();
    let script = page.export();
    let lines = redis_cli_lines(&spec);
    let joined: String = lines.iter().map(|l| format!("{}\n", l.text)).collect();
    assert_eq!(joined, script);
    oracle.fresh(spec.clock);
    let printed = oracle.run(&script, spec.clock, true);

    let mut replies = page_replies(&page).into_iter();
    let mut expected = Vec::new();
    for line in &lines {
        if line.answers {
            let reply =
                replies.next().unwrap_or_else(|| panic!("{:?} answers no reply of the page\n{script}", line.text));
            expected.extend(reply.lines().map(str::to_owned));
        } else {
            expected.push(own_output(&line.text));
        }
    }
    let left: Vec<String> = replies.collect();
    assert!(left.is_empty(), "replies of the page no line of the export prints: {left:?}\n{script}");
    // redis-cli notes a command that took half a second or more of its own (real) time, as
    // `(1.17s)`: the only line dropped. No reply prints like that (strings are quoted).
    let printed_lines: Vec<&str> = printed.lines().filter(|l| !is_latency_note(l)).collect();
    for (n, (want, got)) in expected.iter().zip(&printed_lines).enumerate() {
        assert_eq!(
            got,
            want,
            "line {} of redis-cli's output\nthe file:\n{script}\nredis-cli printed:\n{printed}",
            n + 1
        );
    }
    assert_eq!(printed_lines.len(), expected.len(), "the file:\n{script}\nredis-cli printed:\n{printed}");

    oracle.fresh(spec.clock);
    let raw = oracle.run(&script, spec.clock, false);
    // Raw errors (CLIENT LIST's) print without `(error) ` on the page as in redis-cli.
    let errors = page_replies(&page).iter().filter(|r| ["(error) ", "ERR "].iter().any(|p| r.starts_with(p))).count();
    let error_lines = raw
        .lines()
        .filter(|l| ["ERR ", "WRONGTYPE ", "NOGROUP ", "BUSYGROUP ", "EXECABORT "].iter().any(|p| l.starts_with(p)))
        .count();
    assert_eq!(error_lines, errors, "redis-cli < session.redis printed:\n{raw}");
    script
}

#[test]
#[ignore = "needs Redis 8.2.3 under faketime and redis-cli: `cargo xtask test` runs it (STREAMLAB_EXPORT_REDIS_PORT)"]
fn exported_sessions_print_the_pages_replies_through_redis_cli() {
    let mut oracle = Oracle::new();
    // Several connections: a BLOCK 0 XREADGROUP and a BLOCK 0 XREAD `$` served by another
    // connection's XADD (ids from `*`), a read that times out in a clock move, errors.
    let script = replays_as_on_the_page(
        &mut oracle,
        "XGROUP CREATE jobs workers $ MKSTREAM\n\
         :as bob\nXREADGROUP GROUP workers bob BLOCK 0 STREAMS jobs >\n\
         :as carol\nXREAD BLOCK 0 STREAMS jobs $\n\
         :as alice\nXINFO CONSUMERS jobs workers\nXADD jobs * type email\nXADD jobs * type sms\n\
         :as dave\nXREAD BLOCK 1500 STREAMS jobs $\n\
         :as alice\nXLEN\nXADD jobs 1-0 type stale\nXACK jobs nosuchgroup 1-0\nXREADGROUP GROUP nosuch x STREAMS jobs >\n\
         :clock +2s\nXPENDING jobs workers - + 10\nXINFO CONSUMERS jobs workers\n         INFO keyspace\ninfo KEYSPACE\n",
    );
    assert!(!script.contains("BLOCK 0"), "{script}");
    // Clock moves, then claims by idle time, XPENDING's idle column and XINFO's times; a
    // transaction; a `:fill`.
    replays_as_on_the_page(
        &mut oracle,
        "XGROUP CREATE orders billing $ MKSTREAM\n:fill orders 5\n\
         :as bob\nXREADGROUP GROUP billing worker-a COUNT 3 STREAMS orders >\n\
         :clock +10s\nXREADGROUP GROUP billing worker-b COUNT 1 STREAMS orders >\n\
         :clock +25s\n:as alice\nXAUTOCLAIM orders billing worker-c 30000 0-0\n\
         XPENDING orders billing IDLE 20000 - + 10\nXPENDING orders billing - + 10\nXPENDING orders billing\n\
         XCLAIM orders billing worker-d 1000 1700000000000-3\nXINFO CONSUMERS orders billing\n\
         :clock +1500\nXINFO STREAM orders FULL\n\
         MULTI\nXADD orders * type refund\nXACK orders billing 1700000000000-0\nXLEN orders\nEXEC\n\
         MULTI\nXADD orders\nEXEC\nSET k v\nXADD k * a b\n",
    );
}

#[test]
#[ignore = "needs Redis 8.2.3 under faketime and redis-cli: `cargo xtask test` runs it (STREAMLAB_EXPORT_REDIS_PORT)"]
fn what_one_connection_cannot_replay_is_echoed_and_the_file_still_runs() {
    let mut oracle = Oracle::new();
    let log = "SUBSCRIBE news\n:as bob\nPUBLISH news hi\nCLIENT KILL ID 1\nMULTI\nSET k 1\n:as carol\nSET k 2\n\
               :as bob\nEXEC\nGET k\nXREAD BLOCK 0 STREAMS never $\n";
    let page = Playground::restore(&SessionSpec::parse(&format!("log={}", enc(log))).unwrap());
    let script = page.export();
    oracle.fresh(page.spec().clock);
    let printed = oracle.run(&script, page.spec().clock, true);
    for note in [
        "\"not sent, redis-cli would wait for messages from then on: SUBSCRIBE news\"",
        "\"not replayed: what the page delivered to alice here (a subscription's message)\"",
        "\"not sent, it names the page's connections: CLIENT KILL ID 1\"",
        "\"bob's MULTI..EXEC ran while other connections ran commands; it runs here, at its EXEC\"",
    ] {
        assert!(printed.lines().any(|l| l == note), "{note} missing from\n{printed}");
    }
    // The transaction ran at its EXEC, after carol's SET, as on the page.
    assert!(
        printed.ends_with("1) OK\n\"1\"\n\"bob's XREAD blocks here; it runs below, where the page answered it\"\n"),
        "{printed}"
    );
    let steps = page.console().timeline().records().iter().filter(|r| matches!(r.step, Step::Execute { .. })).count();
    assert!(steps >= 9, "{steps}");
}

#[test]
#[ignore = "needs Redis 8.2.3 under faketime and redis-cli: `cargo xtask test` runs it (STREAMLAB_EXPORT_REDIS_PORT)"]
fn hostile_share_links_export_only_what_the_page_ran() {
    let mut oracle = Oracle::new();
    let dir = oracle.dir.join("hostile");
    std::fs::create_dir_all(&dir).unwrap();
    let pwned = dir.join("PWNED");
    let touch = format!("$(touch {})", pwned.display());

    // The review's link: a line break in the fill key smuggled a FLUSHALL into the script.
    let refused = SessionSpec::parse("fill=x%0AFLUSHALL%0A%23%3A3").unwrap_err();
    assert_eq!(refused, "the fill key has a control character in it");

    let key = format!("k{touch} \"q\" 'a' \\ é🔥:");
    let log = [
        "SET \"k\\nFLUSHALL\" v".to_owned(),
        "SET r v\rDEL canary".to_owned(),
        "SET z 1\0FLUSHALL".to_owned(),
        "SET t v\r".to_owned(),
        format!("XADD \"s p a c e\" * f \"{touch}\" g \"it's\\\\\""),
        "SET 流🔥é \"\\x00\\xff\"".to_owned(),
        ":as a\"b\\c".to_owned(),
        "SET on-b 1".to_owned(),
        ":clock +1500".to_owned(),
        "\"3\" INCR repeated".to_owned(),
        "\":set\" hints".to_owned(),
        "\"connect\" 127.0.0.1 1".to_owned(),
        "\"\" SET empty v".to_owned(),
        "SET \"unbalanced v".to_owned(),
        "# a comment with \"a quote".to_owned(),
        "\"quit\"".to_owned(),
        "SET after-quit v".to_owned(),
        "DEL".to_owned(),
    ]
    .join("\n");
    // A starting fill, small or big, is one EVAL of the same loop as a `:fill` of the log.
    for count in [3, 1_500] {
        let fragment = format!("fill={}&log={}", enc(&format!("{key}:{count}")), enc(&log));
        let page = Playground::restore(&SessionSpec::parse(&fragment).unwrap());
        let script = page.export();
        let file = dir.join(format!("session-{count}.redis"));
        std::fs::write(&file, &script).unwrap();

        oracle.fresh(page.spec().clock);
        assert_eq!(oracle.redis.call(&[b"SET", b"canary", b"alive"]), Reply::Status("OK".into()));
        let printed = oracle.run(&script, page.spec().clock, false);

        assert_eq!(oracle.redis.call(&[b"GET", b"canary"]), Reply::Bulk(b"alive".to_vec()), "{script}\n{printed}");
        let mut theirs = shape(|args| oracle.redis.call(args));
        theirs.remove(b"canary".as_slice());
        let ours = page_shape(&page);
        assert_eq!(theirs, ours, "the file:\n{script}\nredis-cli printed:\n{printed}");
        // What the page holds, so the comparison is not vacuous.
        let expected: Vec<&[u8]> =
            vec![b"k\nFLUSHALL", b"z", b"t", b"s p a c e", "流🔥é".as_bytes(), b"on-b", b"after-quit"];
        let mut names: Vec<&[u8]> = ours.keys().map(Vec::as_slice).collect();
        names.retain(|name| *name != key.as_bytes());
        names.sort();
        let mut expected = expected;
        expected.sort();
        assert_eq!(names, expected);
        assert_eq!(ours[key.as_bytes()], ("stream".to_owned(), count));
        // The fill's entries are the page's, ids and fields.
        let newest: &[&[u8]] = &[b"XREVRANGE", key.as_bytes(), b"+", b"-", b"COUNT", b"2"];
        let mut session: Session = page.console().session().clone();
        let on_page = session.execute(CHECKER, newest.iter().map(|a| a.to_vec()).collect()).replies.remove(0);
        assert!(matches!(&on_page, Reply::Array(entries) if entries.len() == 2), "{on_page:?}");
        assert_eq!(oracle.redis.call(newest), on_page);
        assert_eq!(ours["流🔥é".as_bytes()], ("string".to_owned(), 2));
        assert!(!pwned.exists(), "the export ran a shell command");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "needs Redis 8.2.3 and redis-cli: `cargo xtask test` runs it (STREAMLAB_EXPORT_REDIS_PORT)"]
fn help_for_a_group_lists_what_redis_cli_lists() {
    let oracle = Oracle::new();
    let spec = SessionSpec::parse("profile=redis-8.2").unwrap();
    for group in ["@stream", "@STREAM", "@nosuchgroup"] {
        let ran = Command::new(&oracle.cli).args(["-p", &oracle.port, "help", group]).output().unwrap();
        // redis-cli colours the names and ends lines with `\r\n` even into a pipe; the page
        // prints neither, so both are dropped, nothing else.
        let mut theirs = String::new();
        let text = String::from_utf8(ran.stdout).unwrap();
        let mut chars = text.chars();
        while let Some(c) = chars.next() {
            match c {
                '\u{1b}' => {
                    for c in chars.by_ref() {
                        if c == 'm' {
                            break;
                        }
                    }
                }
                '\r' => {}
                c => theirs.push(c),
            }
        }
        let mut page = Playground::restore(&spec);
        let ours = page.run(&format!("help {group}"));
        assert_eq!(ours.len(), 1, "{ours:?}");
        let ours = format!("{}\n", ours[0].text);
        // The layout, the entries, their order and versions must be redis-cli's. Syntax lines
        // and summaries are the command table's own wording (what `help XADD` prints too,
        // covering every profile's options), so only each entry's name is compared there.
        let (ours, theirs): (Vec<&str>, Vec<&str>) = (ours.split('\n').collect(), theirs.split('\n').collect());
        assert_eq!(ours.len(), theirs.len(), "help {group}:\n{}\n---\n{}", ours.join("\n"), theirs.join("\n"));
        for (n, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            match n % 4 {
                // `  NAME syntax`: the name is its upper-case words before the syntax.
                1 if !a.is_empty() => {
                    let name: Vec<&str> = a.split(' ').skip(2).take_while(|w| !w.is_empty()).collect();
                    let command = if name.len() > 1
                        && theirs.iter().any(|t| t.starts_with(&format!("  {} {} ", name[0], name[1])))
                    {
                        format!("  {} {} ", name[0], name[1])
                    } else {
                        format!("  {} ", name[0])
                    };
                    assert!(
                        a.starts_with(&command) && b.starts_with(&command),
                        "help {group}, line {n}: {a:?} / {b:?}"
                    );
                }
                2 if !a.is_empty() => {
                    assert!(a.starts_with("  summary: ") && b.starts_with("  summary: "), "help {group}, line {n}")
                }
                _ => assert_eq!(a, b, "help {group}, line {n}"),
            }
        }
    }
}
