//! Seeded random command sequences through the `Session`.
//!
//! Several connections send a mix of valid and malformed commands (wrong arity, bad ids, bad
//! options, wrong types) over a few streams, groups and consumers, with XDEL/XTRIM under
//! pending entries, MULTI/EXEC, Pub/Sub, blocking reads and clock advances. After every step:
//!
//! * nothing panicked (each step runs under `catch_unwind`);
//! * `Session::check_invariants` holds;
//! * a command whose only reply is an error left the keyspace exactly as it was (compared with
//!   a copy taken before the step: `Keyspace` equality covers every byte of every node). Inside
//!   EXEC a failing command does not undo the others, but EXEC's own reply is then an array,
//!   not an error.
//!
//! A failure is shrunk (steps are dropped while it still fails the same way) and reported with
//! its seed and the remaining steps, in redis-cli syntax.
//!
//! A command a profile does not have answers the unknown-command error, which must also leave
//! the keyspace alone, so the generator speaks the whole streams and keyspace vocabulary.
//!
//! `STREAMLAB_PROPTEST_SEEDS=N` runs N seeds (default 200), `STREAMLAB_PROPTEST_STEPS=N` sets
//! the steps per seed (default 300), `STREAMLAB_PROPTEST_SEED=S` runs that one seed only;
//! `STREAMLAB_PROPTEST_STATS=1` prints what the run covered.

use std::convert::Infallible;
use std::fmt::Write as _;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};

use streamlab_engine::{Keyspace, StreamId, Value};
use streamlab_protocol::console::command_line;
use streamlab_protocol::{Clock, Reply, Session, VIRTUAL_EPOCH_MS};
use streamlab_testkit::rng::Rng;
use streamlab_testkit::shrink::ddmin;

/// One step of a run.
#[derive(Debug, Clone)]
enum Op {
    /// A command from a connection.
    Execute(u64, Vec<Vec<u8>>),
    /// The virtual clock moves forward (serving timed-out blocked reads).
    Advance(i64),
    /// A connection goes away (its next command opens it again).
    Disconnect(u64),
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Op::Execute(conn, args) => {
                write!(f, "[conn {conn}] {}", command_line(args))
            }
            Op::Advance(ms) => write!(f, "(clock advances {ms} ms)"),
            Op::Disconnect(conn) => write!(f, "(conn {conn} disconnects)"),
        }
    }
}

// ----- the generator ------------------------------------------------------------------------

const CONNS: u64 = 4;
const STREAM_KEYS: &[&str] = &["s1", "s2", "s3"];
const OTHER_KEYS: &[&str] = &["str", "missing", "s1"];
const GROUPS: &[&str] = &["g1", "g2", "g3"];
const CONSUMERS: &[&str] = &["alice", "bob", "carol"];
const CHANNELS: &[&str] = &["news", "orders", "news.eu"];
const POLICIES: &[&str] = &["KEEPREF", "DELREF", "ACKED"];
const JUNK: &[&str] = &[
    "",
    "abc",
    "-1",
    "0",
    "1-",
    "-",
    "+",
    "$",
    ">",
    "*",
    "~",
    "=",
    "(",
    "(1",
    "1-x",
    "0x10",
    "1.5",
    " 7",
    "18446744073709551615-18446744073709551615",
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999999999999",
    "COUNT",
    "BLOCK",
    "STREAMS",
    "LIMIT",
    "IDS",
    "\u{0}",
    "\u{ff}",
];

struct Gen {
    rng: Rng,
    /// The session's time when the step is made, so that explicit ids are mostly valid.
    now: i64,
    /// How often (in percent) a command is an XADD rather than anything else; it varies from
    /// seed to seed so that some runs build long streams and others churn short ones.
    xadd_percent: u64,
    /// Connections the generator believes have a MULTI open, to finish transactions often.
    in_multi: [bool; CONNS as usize + 1],
}

impl Gen {
    fn junk(&mut self) -> String {
        self.rng.pick(JUNK).to_owned()
    }

    fn stream_key(&mut self) -> String {
        if self.rng.chance(90) {
            self.rng.pick(STREAM_KEYS).to_owned()
        } else {
            self.rng.pick(OTHER_KEYS).to_owned()
        }
    }

    fn any_key(&mut self) -> String {
        if self.rng.chance(60) {
            self.rng.pick(STREAM_KEYS).to_owned()
        } else {
            self.rng.pick(OTHER_KEYS).to_owned()
        }
    }

    fn group(&mut self) -> String {
        self.rng.pick(GROUPS).to_owned()
    }

    fn consumer(&mut self) -> String {
        self.rng.pick(CONSUMERS).to_owned()
    }

    fn small(&mut self) -> String {
        match self.rng.below(20) {
            0 => "-1".into(),
            1 => self.junk(),
            _ => self.rng.below(12).to_string(),
        }
    }

    /// An explicit id close to the clock, so that XADD succeeds about as often as it fails.
    fn near_id(&mut self) -> String {
        let ms = self.now - 25 + self.rng.below(30) as i64;
        if self.rng.chance(15) {
            ms.to_string()
        } else {
            format!("{ms}-{}", self.rng.below(3))
        }
    }

    fn id(&mut self) -> String {
        match self.rng.below(20) {
            0 => "0-0".into(),
            1 => "0".into(),
            2 => self.junk(),
            3 => format!("{}-{}", self.now + 1000, self.rng.below(2)),
            _ => self.near_id(),
        }
    }

    fn start_bound(&mut self) -> String {
        match self.rng.below(10) {
            0..=3 => "-".into(),
            4 => format!("({}", self.near_id()),
            5 => self.junk(),
            _ => self.near_id(),
        }
    }

    fn end_bound(&mut self) -> String {
        match self.rng.below(10) {
            0..=3 => "+".into(),
            4 => format!("({}", self.near_id()),
            5 => self.junk(),
            _ => self.near_id(),
        }
    }

    fn policy(&mut self) -> String {
        self.rng.pick(POLICIES).to_owned()
    }

    /// `MAXLEN|MINID [=|~] threshold [LIMIT n]`.
    fn trim_args(&mut self, out: &mut Vec<String>) {
        let minid = self.rng.chance(30);
        out.push(if minid { "MINID" } else { "MAXLEN" }.into());
        match self.rng.below(3) {
            0 => out.push("~".into()),
            1 => out.push("=".into()),
            _ => {}
        }
        let threshold = match self.rng.below(4) {
            _ if minid => self.id(),
            0 => self.small(),
            _ => self.rng.below(60).to_string(),
        };
        out.push(threshold);
        if self.rng.chance(30) {
            out.push("LIMIT".into());
            out.push(self.small());
        }
    }

    fn fields(&mut self, out: &mut Vec<String>) {
        for _ in 0..1 + self.rng.below(3) {
            out.push(self.rng.pick(&["type", "orderId", "quantity", "f", ""]).to_owned());
            // A long value now and then fills a node (4096 listpack bytes) in a few entries, so
            // streams span several nodes and trimming meets node boundaries.
            let value = if self.rng.chance(15) {
                "v".repeat(300 + self.rng.below(900) as usize)
            } else {
                self.rng.pick(&["order-created", "1000001", "3", "-7", "007", "", "x y"]).to_owned()
            };
            out.push(value);
        }
    }

    fn ids(&mut self, out: &mut Vec<String>) {
        for _ in 0..1 + self.rng.below(3) {
            out.push(self.id());
        }
    }

    fn block(&mut self, out: &mut Vec<String>) {
        if self.rng.chance(40) {
            out.push("BLOCK".into());
            out.push(self.rng.pick(&["0", "10", "100", "1000", "-5", "x"]).to_owned());
        }
    }

    fn command(&mut self, conn: u64) -> Vec<String> {
        let mut a: Vec<String> = Vec::new();
        let push = |a: &mut Vec<String>, items: &[&str]| a.extend(items.iter().map(|s| (*s).to_owned()));
        if self.in_multi[conn as usize] && self.rng.chance(20) {
            self.in_multi[conn as usize] = false;
            return vec![self.rng.pick(&["EXEC", "EXEC", "EXEC", "DISCARD"]).to_owned()];
        }
        let choice = if self.rng.chance(self.xadd_percent) { 0 } else { self.rng.below(44) };
        match choice {
            0..=7 => {
                push(&mut a, &["XADD"]);
                let key = self.stream_key();
                a.push(key);
                if self.rng.chance(10) {
                    a.push("NOMKSTREAM".into());
                }
                if self.rng.chance(15) {
                    let p = self.policy();
                    a.push(p);
                }
                if self.rng.chance(25) {
                    self.trim_args(&mut a);
                }
                let id = if self.rng.chance(40) { "*".to_owned() } else { self.id() };
                a.push(id);
                self.fields(&mut a);
            }
            8 | 9 => {
                let rev = self.rng.chance(30);
                a.push(if rev { "XREVRANGE" } else { "XRANGE" }.into());
                a.push(self.stream_key());
                let (s, e) = (self.start_bound(), self.end_bound());
                if rev {
                    a.extend([e, s]);
                } else {
                    a.extend([s, e]);
                }
                if self.rng.chance(40) {
                    a.push("COUNT".into());
                    a.push(self.small());
                }
            }
            10 => {
                a.push("XLEN".into());
                a.push(self.any_key());
            }
            11 | 12 => {
                a.push("XDEL".into());
                a.push(self.stream_key());
                self.ids(&mut a);
            }
            13 | 14 => {
                a.push("XTRIM".into());
                a.push(self.stream_key());
                self.trim_args(&mut a);
                if self.rng.chance(30) {
                    let p = self.policy();
                    a.push(p);
                }
            }
            15 => {
                a.push("XSETID".into());
                a.push(self.stream_key());
                a.push(self.id());
                if self.rng.chance(30) {
                    a.push("ENTRIESADDED".into());
                    a.push(self.small());
                }
                if self.rng.chance(30) {
                    a.push("MAXDELETEDID".into());
                    a.push(self.id());
                }
            }
            16 | 17 if self.rng.chance(35) => {
                // XNACK (Redis 8.8): releases into the nacked zone, which the invariants check.
                a.push("XNACK".into());
                a.push(self.stream_key());
                a.push(self.group());
                a.push(self.rng.pick(&["SILENT", "FAIL", "FATAL", "fail", "MAYBE"]).into());
                a.push("IDS".into());
                let n = 1 + self.rng.below(3);
                a.push(n.to_string());
                for _ in 0..n {
                    a.push(self.id());
                }
                if self.rng.chance(25) {
                    a.push("RETRYCOUNT".into());
                    a.push(self.small());
                }
                if self.rng.chance(25) {
                    a.push("FORCE".into());
                }
            }
            16 | 17 => {
                let ackdel = self.rng.chance(50);
                a.push(if ackdel { "XACKDEL" } else { "XDELEX" }.into());
                a.push(self.stream_key());
                if ackdel {
                    a.push(self.group());
                }
                if self.rng.chance(60) {
                    let p = self.policy();
                    a.push(p);
                }
                a.push("IDS".into());
                let n = 1 + self.rng.below(3);
                a.push(if self.rng.chance(10) { self.small() } else { n.to_string() });
                for _ in 0..n {
                    a.push(self.id());
                }
            }
            18 | 19 => {
                a.push("XREAD".into());
                if self.rng.chance(40) {
                    a.push("COUNT".into());
                    a.push(self.small());
                }
                self.block(&mut a);
                a.push("STREAMS".into());
                let keys = 1 + self.rng.below(2) as usize;
                for _ in 0..keys {
                    a.push(self.stream_key());
                }
                for _ in 0..keys {
                    let id = if self.rng.chance(40) { self.rng.pick(&["$", "+", "0"]).to_owned() } else { self.id() };
                    a.push(id);
                }
            }
            20..=23 => {
                a.push("XREADGROUP".into());
                a.push("GROUP".into());
                a.push(self.group());
                a.push(self.consumer());
                if self.rng.chance(50) {
                    a.push("COUNT".into());
                    a.push(self.small());
                }
                self.block(&mut a);
                if self.rng.chance(15) {
                    a.push("NOACK".into());
                }
                if self.rng.chance(25) {
                    a.push("CLAIM".into());
                    a.push(self.small());
                }
                if self.rng.chance(10) {
                    a.push(self.rng.pick(&["MAXCOUNT", "MAXSIZE"]).into());
                    a.push(self.small());
                }
                a.push("STREAMS".into());
                let keys = 1 + self.rng.below(2) as usize;
                for _ in 0..keys {
                    a.push(self.stream_key());
                }
                for _ in 0..keys {
                    let id = if self.rng.chance(70) { ">".to_owned() } else { self.id() };
                    a.push(id);
                }
            }
            24 | 25 => {
                a.push("XGROUP".into());
                match self.rng.below(6) {
                    0..=1 => {
                        a.push("CREATE".into());
                        a.push(self.stream_key());
                        a.push(self.group());
                        let id = if self.rng.chance(50) { self.rng.pick(&["$", "0"]).to_owned() } else { self.id() };
                        a.push(id);
                        if self.rng.chance(40) {
                            a.push("MKSTREAM".into());
                        }
                        if self.rng.chance(20) {
                            a.push("ENTRIESREAD".into());
                            a.push(self.small());
                        }
                    }
                    2 => {
                        a.push("SETID".into());
                        a.push(self.stream_key());
                        a.push(self.group());
                        let id = if self.rng.chance(30) { "$".to_owned() } else { self.id() };
                        a.push(id);
                    }
                    3 => {
                        a.push("DESTROY".into());
                        a.push(self.stream_key());
                        a.push(self.group());
                    }
                    4 => {
                        a.push("CREATECONSUMER".into());
                        a.push(self.stream_key());
                        a.push(self.group());
                        a.push(self.consumer());
                    }
                    _ => {
                        a.push("DELCONSUMER".into());
                        a.push(self.stream_key());
                        a.push(self.group());
                        a.push(self.consumer());
                    }
                }
            }
            26 | 27 => {
                a.push("XACK".into());
                a.push(self.stream_key());
                a.push(self.group());
                self.ids(&mut a);
            }
            28 => {
                a.push("XPENDING".into());
                a.push(self.stream_key());
                a.push(self.group());
                if self.rng.chance(70) {
                    if self.rng.chance(30) {
                        a.push("IDLE".into());
                        a.push(self.small());
                    }
                    let (s, e) = (self.start_bound(), self.end_bound());
                    a.extend([s, e, self.small()]);
                    if self.rng.chance(40) {
                        a.push(self.consumer());
                    }
                }
            }
            29 | 30 => {
                a.push("XCLAIM".into());
                a.push(self.stream_key());
                a.push(self.group());
                a.push(self.consumer());
                a.push(self.small());
                self.ids(&mut a);
                for _ in 0..self.rng.below(3) {
                    match self.rng.below(6) {
                        0 => a.extend(["IDLE".into(), self.small()]),
                        1 => a.extend(["TIME".into(), (self.now + self.rng.below(5) as i64).to_string()]),
                        2 => a.extend(["RETRYCOUNT".into(), self.small()]),
                        3 => a.push("FORCE".into()),
                        4 => a.push("JUSTID".into()),
                        _ => a.extend(["LASTID".into(), self.id()]),
                    }
                }
            }
            31 => {
                a.push("XAUTOCLAIM".into());
                a.push(self.stream_key());
                a.push(self.group());
                a.push(self.consumer());
                a.push(self.small());
                a.push(self.start_bound());
                if self.rng.chance(50) {
                    a.push("COUNT".into());
                    a.push(self.small());
                }
                if self.rng.chance(20) {
                    a.push("JUSTID".into());
                }
            }
            32 => {
                a.push("XINFO".into());
                match self.rng.below(4) {
                    0 => {
                        a.push("STREAM".into());
                        a.push(self.stream_key());
                        if self.rng.chance(40) {
                            a.push("FULL".into());
                            if self.rng.chance(50) {
                                a.push("COUNT".into());
                                a.push(self.small());
                            }
                        }
                    }
                    1 => {
                        a.push("GROUPS".into());
                        a.push(self.stream_key());
                    }
                    2 => {
                        a.push("CONSUMERS".into());
                        a.push(self.stream_key());
                        a.push(self.group());
                    }
                    _ => a.push("HELP".into()),
                }
            }
            33 | 34 => match self.rng.below(12) {
                0 => {
                    a.push("SET".into());
                    a.push(self.any_key());
                    a.push(self.rng.pick(&["v", "1", ""]).to_owned());
                }
                1 => {
                    a.push("GET".into());
                    a.push(self.any_key());
                }
                2 => {
                    a.push(self.rng.pick(&["DEL", "UNLINK", "EXISTS"]).to_owned());
                    for _ in 0..1 + self.rng.below(2) {
                        a.push(self.any_key());
                    }
                }
                3 => {
                    a.push(self.rng.pick(&["TYPE", "TTL", "PTTL", "PERSIST"]).to_owned());
                    a.push(self.any_key());
                }
                4 => {
                    a.push(self.rng.pick(&["EXPIRE", "PEXPIRE"]).to_owned());
                    a.push(self.any_key());
                    a.push(self.rng.pick(&["0", "1", "50", "-1", "x", "100000"]).to_owned());
                }
                5 => {
                    a.push("KEYS".into());
                    a.push(self.rng.pick(&["*", "s?", "[a-z]*", "\\"]).to_owned());
                }
                6 => {
                    a.push("SCAN".into());
                    a.push(self.rng.pick(&["0", "1", "x"]).to_owned());
                }
                7 => {
                    a.push(self.rng.pick(&["RENAME", "RENAMENX", "COPY"]).to_owned());
                    a.push(self.any_key());
                    a.push(self.any_key());
                }
                8 => a.push(self.rng.pick(&["FLUSHALL", "DBSIZE", "DBSIZE", "RANDOMKEY"]).to_owned()),
                9 => {
                    a.push("OBJECT".into());
                    a.push("ENCODING".into());
                    a.push(self.any_key());
                }
                10 => {
                    a.push("DUMP".into());
                    a.push(self.any_key());
                }
                _ => {
                    a.push("CONFIG".into());
                    a.push("SET".into());
                    a.push(self.rng.pick(&["stream-node-max-entries", "stream-node-max-bytes"]).to_owned());
                    a.push(self.rng.pick(&["0", "3", "100", "-1", "x"]).to_owned());
                }
            },
            35..=37 => {
                let word = self.rng.pick(&["MULTI", "MULTI", "EXEC", "EXEC", "DISCARD", "WATCH", "UNWATCH"]);
                a.push(word.into());
                self.in_multi[conn as usize] = word == "MULTI";
                if word == "WATCH" {
                    a.push(self.any_key());
                }
            }
            38 | 39 => {
                let word =
                    self.rng.pick(&["SUBSCRIBE", "PSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "PUBLISH", "PUBSUB"]);
                a.push(word.into());
                match word {
                    "PUBLISH" => {
                        a.push(self.rng.pick(CHANNELS).into());
                        a.push("hello".into());
                    }
                    "PUBSUB" => {
                        a.push(self.rng.pick(&["CHANNELS", "NUMSUB", "NUMPAT", "HELP"]).into());
                        if self.rng.chance(50) {
                            a.push(self.rng.pick(CHANNELS).into());
                        }
                    }
                    "PSUBSCRIBE" | "PUNSUBSCRIBE" => a.push(self.rng.pick(&["news*", "*", "orders"]).into()),
                    _ => {
                        if word == "SUBSCRIBE" || self.rng.chance(50) {
                            a.push(self.rng.pick(CHANNELS).into());
                        }
                    }
                }
            }
            40 | 41 => match self.rng.below(7) {
                0 => push(&mut a, &["PING"]),
                1 => {
                    a.push("HELLO".into());
                    a.push(self.rng.pick(&["2", "3", "3", "4", "x"]).into());
                }
                2 => push(&mut a, &["CLIENT", self.rng.pick(&["ID", "GETNAME", "LIST", "INFO", "NOPE"])]),
                3 => push(&mut a, &["CLIENT", "SETNAME", self.rng.pick(&["worker", "", "a b"])]),
                4 => push(&mut a, &["SELECT", self.rng.pick(&["0", "1", "x"])]),
                5 => push(&mut a, &["RESET"]),
                _ => push(&mut a, &[self.rng.pick(&["INFO", "COMMAND", "TIME", "ECHO"])]),
            },
            _ => {
                // Garbage: a made-up command or nothing recognisable at all.
                let name = self.rng.pick(&["NOSUCH", "xadd", "XaDd", "", "X"]).to_owned();
                a.push(name);
                for _ in 0..self.rng.below(4) {
                    let junk = self.junk();
                    a.push(junk);
                }
            }
        }
        // Now and then break a well-formed command: drop, add or replace an argument.
        if a.len() > 1 && self.rng.chance(8) {
            let at = 1 + self.rng.below(a.len() as u64 - 1) as usize;
            match self.rng.below(3) {
                0 => {
                    a.remove(at);
                }
                1 => {
                    let junk = self.junk();
                    a.insert(at, junk);
                }
                _ => a[at] = self.junk(),
            }
        }
        if self.rng.chance(10) {
            a[0] = a[0].to_lowercase();
        }
        a
    }

    fn step(&mut self) -> Op {
        match self.rng.below(100) {
            0..=5 => Op::Advance(self.rng.pick(&["0", "1", "2", "5", "50", "150", "1500"]).parse().unwrap()),
            6 => {
                let conn = 1 + self.rng.below(CONNS);
                self.in_multi[conn as usize] = false;
                Op::Disconnect(conn)
            }
            _ => {
                // Connection 4 is mostly the subscriber: in RESP2 a subscribed connection refuses
                // most commands, so the others subscribe only now and then.
                let conn = 1 + self.rng.below(CONNS);
                let mut command = self.command(conn);
                let subscribing = matches!(command[0].as_str(), "SUBSCRIBE" | "PSUBSCRIBE");
                if conn != CONNS && subscribing && self.rng.chance(85) {
                    command[0] = "PUBLISH".into();
                    command.push("hello".into());
                    command.truncate(3);
                }
                Op::Execute(conn, command.into_iter().map(String::into_bytes).collect())
            }
        }
    }
}

// ----- the checks ---------------------------------------------------------------------------

/// Everything observable about the keyspace through the engine's public accessors, as text:
/// what a failure report shows before and after the faulty step.
fn fingerprint(db: &Keyspace) -> String {
    let mut out = String::new();
    for (key, value) in db.iter() {
        let _ = out.write_fmt(format_args!("{:?} ttl={:?}: ", String::from_utf8_lossy(key), db.expiry(key)));
        match value {
            Value::String(s) => {
                let _ = writeln!(out, "string {s:?}");
            }
            Value::Stream(s) => {
                let _ = out.write_fmt(format_args!(
                    "stream len={} last={} first={} maxdel={} added={}\n",
                    s.len(),
                    s.last_id(),
                    s.first_id(),
                    s.max_deleted_id(),
                    s.entries_added()
                ));
                for node in s.nodes().values() {
                    let _ = out.write_fmt(format_args!(
                        "  node {}..{} live={} deleted={} bytes={}\n",
                        node.master_id,
                        node.last_id,
                        node.live,
                        node.deleted,
                        node.listpack_bytes()
                    ));
                }
                for entry in s.range(StreamId::MIN, StreamId::MAX, false) {
                    // Values can be long: a digest keeps the report short.
                    let mut digest = DefaultHasher::new();
                    entry.fields.hash(&mut digest);
                    let _ =
                        out.write_fmt(format_args!("  {} {}:{:016x}\n", entry.id, entry.fields.len(), digest.finish()));
                }
                for (name, group) in s.groups() {
                    let _ = out.write_fmt(format_args!(
                        "  group {:?} last={} read={:?}\n",
                        String::from_utf8_lossy(name),
                        group.last_id,
                        group.entries_read
                    ));
                    for (id, p) in group.pel() {
                        let _ = out.write_fmt(format_args!(
                            "    pending {id} {:?} t={} n={}\n",
                            String::from_utf8_lossy(p.owner_name()),
                            p.delivery_time,
                            p.delivery_count
                        ));
                    }
                    for (name, c) in group.consumers() {
                        let _ = out.write_fmt(format_args!(
                            "    consumer {:?} seen={} active={:?} owns={}\n",
                            String::from_utf8_lossy(name),
                            c.seen_time,
                            c.active_time,
                            c.pending().len()
                        ));
                    }
                }
            }
        }
    }
    out
}

/// An error line without its details: the code and the first few words.
fn error_kind(line: &str) -> String {
    line.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

fn describe(replies: &[Reply]) -> String {
    replies.iter().map(|r| format!("{r:?}")).collect::<Vec<_>>().join(", ")
}

/// Why a run failed, and at which step.
#[derive(Debug, Clone)]
struct Failure {
    step: usize,
    kind: &'static str,
    detail: String,
}

/// What the runs did, printed at the end (`cargo test -- --nocapture`) to show the generator
/// reaches the interesting cases.
#[derive(Debug, Default)]
struct Stats {
    commands: u64,
    errors: std::collections::BTreeMap<String, u64>,
    successes: std::collections::BTreeMap<String, u64>,
    max_len: u64,
}

/// Plays the steps on a fresh session, checking the properties after each one.
fn play(steps: &[Op]) -> Result<(), Failure> {
    play_counting(steps, &mut Stats::default(), false)
}

/// [`play`], counting what happened; with `keep_text` the keyspace is also kept as text, so
/// that a failure can show it before and after the faulty step (the report replays with it).
fn play_counting(steps: &[Op], stats: &mut Stats, keep_text: bool) -> Result<(), Failure> {
    let mut session = Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS));
    let mut before_text = String::new();
    for (i, step) in steps.iter().enumerate() {
        let fail = |kind, detail| Failure { step: i, kind, detail };
        // A copy to compare with if the step answers an error. `Keyspace`'s equality covers
        // every byte of every node, tombstones and node boundaries included.
        let before = session.keyspace().clone();
        let result = catch_unwind(AssertUnwindSafe(|| match step {
            Op::Execute(conn, args) => Some(session.execute(*conn, args.clone())),
            Op::Advance(ms) => {
                session.advance(*ms);
                None
            }
            Op::Disconnect(conn) => {
                session.disconnect(*conn);
                None
            }
        }));
        let executed = match result {
            Ok(executed) => executed,
            Err(payload) => {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                return Err(fail("panic", message));
            }
        };
        if let Err(e) = session.check_invariants() {
            return Err(fail("invariant", e));
        }
        if let (Some(out), Op::Execute(_, args)) = (&executed, step) {
            stats.commands += 1;
            let name = String::from_utf8_lossy(args.first().map_or(&[][..], |a| a)).to_uppercase();
            match out.replies.first() {
                Some(Reply::Error(e)) => *stats.errors.entry(format!("{name}: {}", error_kind(e))).or_default() += 1,
                Some(_) => *stats.successes.entry(name).or_default() += 1,
                None => {}
            }
            for (_, value) in session.keyspace().iter() {
                if let Value::Stream(s) = value {
                    stats.max_len = stats.max_len.max(s.len());
                }
            }
        }
        if let Some(out) = executed {
            if matches!(out.replies.as_slice(), [Reply::Error(_)]) && *session.keyspace() != before {
                let after_text = fingerprint(session.keyspace());
                return Err(fail(
                    "error changed the keyspace",
                    format!("reply {}\n--- before\n{before_text}--- after\n{after_text}", describe(&out.replies)),
                ));
            }
        }
        if keep_text {
            before_text = fingerprint(session.keyspace());
        }
    }
    Ok(())
}

fn generate(seed: u64, count: usize, stats: &mut Stats) -> Result<Vec<Op>, (Vec<Op>, Failure)> {
    // The generator tracks the virtual clock itself so that its ids stay near it.
    let mut rng = Rng::new(seed);
    let xadd_percent = rng.below(50);
    let mut gen = Gen { rng, now: VIRTUAL_EPOCH_MS, xadd_percent, in_multi: [false; CONNS as usize + 1] };
    let mut steps = Vec::with_capacity(count);
    for _ in 0..count {
        let step = gen.step();
        if let Op::Advance(ms) = step {
            gen.now += ms;
        }
        steps.push(step);
    }
    match play_counting(&steps, stats, false) {
        Ok(()) => Ok(steps),
        Err(failure) => Err((steps, failure)),
    }
}

/// The steps cut after the failure, then shrunk while the run still fails the same way.
fn shrink(mut steps: Vec<Op>, failure: &Failure) -> Vec<Op> {
    steps.truncate(failure.step + 1);
    let Ok(()) = ddmin(&mut steps, |candidate| {
        let same = play(candidate).err().filter(|f| f.kind == failure.kind);
        Ok::<_, Infallible>(same.map(|f| candidate[..=f.step].to_vec()))
    });
    steps
}

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

#[test]
fn random_command_sequences_keep_the_session_sound() {
    let seeds: Vec<u64> = match env_number("STREAMLAB_PROPTEST_SEED") {
        Some(seed) => vec![seed],
        None => (0..env_number("STREAMLAB_PROPTEST_SEEDS").unwrap_or(200)).collect(),
    };
    let count = env_number("STREAMLAB_PROPTEST_STEPS").unwrap_or(300) as usize;
    let mut stats = Stats::default();
    for seed in seeds {
        if let Err((steps, failure)) = generate(seed, count, &mut stats) {
            let original = failure.step + 1;
            let steps = shrink(steps, &failure);
            let failure = play_counting(&steps, &mut Stats::default(), true).expect_err("shrunk run fails");
            let mut report = format!(
                "seed {seed}: {} at step {} of {original} (shrunk to {} steps; rerun with \
                 STREAMLAB_PROPTEST_SEED={seed})\n",
                failure.kind,
                failure.step + 1,
                steps.len()
            );
            for step in &steps {
                let _ = writeln!(report, "  {step}");
            }
            let _ = writeln!(report, "{}", failure.detail);
            panic!("{report}");
        }
    }
    // What the run covered, for whoever tunes the generator (quiet otherwise).
    if std::env::var_os("STREAMLAB_PROPTEST_STATS").is_some() {
        eprintln!("{} commands, longest stream {}", stats.commands, stats.max_len);
        eprintln!("successes: {:?}", stats.successes);
        for (kind, n) in &stats.errors {
            eprintln!("{n:>6}  {kind}");
        }
    }
}
