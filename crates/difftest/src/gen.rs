//! The seeded generator of command sequences.
//!
//! A sequence is a list of [`Call`]s: one command for one of [`CONNECTIONS`] connections. The
//! generator covers the whole Redis 8.2 stream surface plus the key, server and transaction
//! commands that interact with it: valid commands most of the time, and wrong arities, quirky
//! and invalid ids, bad options, wrong types (a string key), missing keys and groups the rest
//! of the time.
//!
//! It keeps only a rough model (the last id it generated per stream, a few ids it used) to make
//! valid commands likely; it never predicts replies. Everything that would depend on the wall
//! clock is avoided by construction: ids are explicit (a few `*` ids, which the comparison
//! normalises), idle thresholds are either 0 or an hour (entries are idle for milliseconds
//! unless XCLAIM IDLE/TIME moved their delivery time hours back), blocking reads wait forever
//! (`BLOCK 0` or an hour) and are woken by a later XADD, never by a timeout, and TTL/TIME/INFO
//! are not generated.

use streamlab_testkit::rng::Rng;

/// How many client connections a sequence uses.
pub const CONNECTIONS: usize = 3;

/// One command for one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// The connection (0..[`CONNECTIONS`]).
    pub conn: usize,
    /// The command and its arguments.
    pub args: Vec<Vec<u8>>,
}

impl Call {
    /// The command name, upper-cased (for reports).
    pub fn name(&self) -> String {
        String::from_utf8_lossy(self.args.first().map_or(&[][..], |a| a)).to_ascii_uppercase()
    }
}

macro_rules! cmd {
    ($($x:expr),* $(,)?) => {
        vec![$(AsRef::<[u8]>::as_ref(&$x).to_vec()),*]
    };
}

type Args = Vec<Vec<u8>>;

const STREAM_KEYS: [&str; 3] = ["s1", "s2", "s3"];

/// Ids that exercise the parser: its quirks (leading blanks, `+`, zeros, the ` -1` wrap-around,
/// the 127-byte limit) and its refusals; a few are valid only in lenient positions.
fn quirky_ids() -> Vec<String> {
    let mut ids: Vec<String> = [
        "abc",
        "1-",
        "-1",
        "1-2-3",
        "0x1",
        "18446744073709551616",
        "18446744073709551615-18446744073709551615",
        "18446744073709551615",
        "18446744073709551615-18446744073709551614",
        "1-18446744073709551616",
        " 8",
        "007-1",
        "5-+1",
        "5- -1",
        " -1",
        "+5",
        "1.5",
        "",
        "(",
        "(1",
        "(-",
        "(+",
        "-",
        "+",
        "$",
        ">",
        "*",
        "1-*",
        "0-*",
        "0-0",
        "0",
        "0-1",
        "3-18446744073709551615",
        "-0",
        "1--1",
        "2- 1",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    ids.push(format!("{}1-1", "0".repeat(124)));
    ids.push(format!("{}1-1", "0".repeat(125)));
    ids
}

const QUIRKY_INTEGERS: [&str; 8] = ["-1", "x", "1.5", "", " 1", "01", "9223372036854775808", "-9223372036854775809"];

const VALUE_INTEGERS: [&str; 16] = [
    "0",
    "1",
    "-1",
    "127",
    "128",
    "-129",
    "4095",
    "65535",
    "12345678",
    "-2147483649",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "01",
    "1.5",
    " 1",
];

#[derive(Debug, Clone, Default)]
struct StreamModel {
    last: (u64, u64),
    ids: Vec<(u64, u64)>,
}

struct Gen {
    rng: Rng,
    streams: [StreamModel; 3],
    quirky: Vec<String>,
    out: Vec<Call>,
    /// Commands planned for later (the XADD that wakes a blocking read), by step index.
    scheduled: Vec<(usize, Call)>,
}

/// The sequence for `seed`, `len` steps long.
pub fn sequence(seed: u64, len: usize) -> Vec<Call> {
    let mut g = Gen {
        rng: Rng::new(seed),
        streams: Default::default(),
        quirky: quirky_ids(),
        out: Vec::with_capacity(len + 8),
        scheduled: Vec::new(),
    };
    g.prelude();
    while g.out.len() < len {
        g.next();
    }
    g.out.truncate(len);
    g.out
}

fn fmt_id((ms, seq): (u64, u64)) -> String {
    format!("{ms}-{seq}")
}

impl Gen {
    fn push(&mut self, conn: usize, args: Args) {
        self.out.push(Call { conn, args });
    }

    fn conn(&mut self) -> usize {
        self.rng.weighted(&[75, 15, 10])
    }

    /// Node limits first in half of the seeds (small nodes make `~` trimming and node
    /// accounting interesting), and a stream or two with a group to start from.
    fn prelude(&mut self) {
        if self.rng.chance(50) {
            let entries = self.rng.pick(&["1", "2", "3", "5", "10"]);
            let bytes = self.rng.pick(&["0", "64", "100", "200", "4096"]);
            self.push(0, cmd!["CONFIG", "SET", "stream-node-max-entries", entries, "stream-node-max-bytes", bytes]);
        }
        for _ in 0..self.rng.range(0, 4) {
            let stream = self.rng.index(2);
            let args = self.xadd_simple(stream);
            self.push(0, args);
        }
        for key in &STREAM_KEYS[..2] {
            for group in ["g1", "g2"] {
                if self.rng.chance(60) {
                    let id = self.rng.pick(&["0", "$"]);
                    self.push(0, cmd!["XGROUP", "CREATE", key, group, id, "MKSTREAM"]);
                }
            }
        }
    }

    fn next(&mut self) {
        let now = self.out.len();
        if let Some(pos) = self.scheduled.iter().position(|(due, _)| *due <= now) {
            let (_, step) = self.scheduled.remove(pos);
            self.out.push(step);
            return;
        }
        if self.rng.chance(3) {
            self.transaction();
            return;
        }
        if self.rng.chance(2) {
            // Groups get destroyed, keys deleted and flushed: bring one back now and then.
            let key = STREAM_KEYS[self.rng.index(2)];
            let (group, id) = (self.rng.pick(&["g1", "g2"]), self.rng.pick(&["0", "$"]));
            let conn = self.conn();
            self.push(conn, cmd!["XGROUP", "CREATE", key, group, id, "MKSTREAM"]);
            return;
        }
        let conn = self.conn();
        let mut args = self.command(conn);
        self.mutate(&mut args);
        self.push(conn, args);
    }

    fn transaction(&mut self) {
        let conn = self.conn();
        if self.rng.chance(15) {
            let key = self.stream_key();
            self.push(conn, cmd!["WATCH", key]);
        }
        self.push(conn, cmd!["MULTI"]);
        for _ in 0..self.rng.range(1, 5) {
            let mut args = self.command(conn);
            self.mutate(&mut args);
            self.push(conn, args);
        }
        match self.rng.weighted(&[80, 12, 3, 5]) {
            0 => self.push(conn, cmd!["EXEC"]),
            1 => self.push(conn, cmd!["DISCARD"]),
            2 => self.push(conn, cmd!["EXEC", "now"]),
            _ => {}
        }
    }

    /// Wrong arities and mixed-case keywords.
    fn mutate(&mut self, args: &mut Args) {
        if self.rng.chance(3) && args.len() > 1 {
            let keep = self.rng.range(1, args.len() as u64 - 1) as usize;
            args.truncate(keep);
        } else if self.rng.chance(2) {
            let junk = self.rng.pick(&["x", "1", "COUNT", "0-1"]);
            args.push(junk.as_bytes().to_vec());
        }
        if self.rng.chance(5) {
            for arg in args.iter_mut() {
                if arg.len() > 1 && arg.iter().all(u8::is_ascii_uppercase) {
                    arg.make_ascii_lowercase();
                }
            }
        }
    }

    // ----- keys, groups, ids, values ------------------------------------------------------

    fn stream_key(&mut self) -> &'static str {
        ["s1", "s2", "s3", "str", "nokey"][self.rng.weighted(&[45, 35, 8, 6, 6])]
    }

    /// A key for a command that needs a group: mostly the streams that have groups.
    fn group_key(&mut self) -> &'static str {
        ["s1", "s2", "s3", "str", "nokey"][self.rng.weighted(&[52, 40, 3, 3, 2])]
    }

    fn model(&mut self, key: &str) -> &mut StreamModel {
        let index = STREAM_KEYS.iter().position(|k| *k == key).unwrap_or(0);
        &mut self.streams[index]
    }

    fn group(&mut self) -> &'static str {
        ["g1", "g2", "g3"][self.rng.weighted(&[50, 44, 6])]
    }

    fn consumer(&mut self) -> &'static str {
        ["alice", "bob", "carol"][self.rng.weighted(&[45, 40, 15])]
    }

    /// A fresh id above the stream's last generated one (the model moves on).
    fn new_id(&mut self, key: &str) -> (u64, u64) {
        let same_ms = self.rng.chance(45);
        let (d_seq, d_ms, seq) = (1 + self.rng.below(2), 1 + self.rng.below(3), self.rng.below(3));
        let model = self.model(key);
        let (ms, last_seq) = model.last;
        let id = if same_ms { (ms, last_seq + d_seq) } else { (ms + d_ms, seq) };
        model.last = id;
        model.ids.push(id);
        if model.ids.len() > 64 {
            model.ids.remove(0);
        }
        id
    }

    /// An id the stream probably holds (or held).
    fn known_id(&mut self, key: &str) -> (u64, u64) {
        let use_known = self.rng.chance(80);
        let roll = self.rng.next();
        let model = self.model(key).clone();
        if use_known && !model.ids.is_empty() {
            model.ids[(roll % model.ids.len() as u64) as usize]
        } else {
            (roll % (model.last.0 + 2), (roll >> 32) % 3)
        }
    }

    fn quirky_id(&mut self) -> String {
        let i = self.rng.index(self.quirky.len());
        self.quirky[i].clone()
    }

    /// A quirky id for a position that sets a stream's last id (XADD, XSETID). On s1 and s2
    /// ids near the top of the range are left out: they would make every later explicit id
    /// too small and the rest of the sequence would only test one error. s3 gets them all.
    fn quirky_top_id(&mut self, key: &str) -> String {
        loop {
            let id = self.quirky_id();
            let poison = id.contains("18446744073709551615") || id.contains(" -1");
            if key == "s3" || !poison {
                return id;
            }
        }
    }

    /// An id for a position that takes existing ids (XDEL, XACK, XCLAIM, ...).
    fn any_id(&mut self, key: &str) -> String {
        match self.rng.weighted(&[72, 8, 12, 8]) {
            0 => fmt_id(self.known_id(key)),
            1 => {
                let (ms, seq) = self.model(key).last;
                fmt_id((ms + 1, seq))
            }
            2 => self.quirky_id(),
            _ => self.known_id(key).0.to_string(),
        }
    }

    /// An interval bound (XRANGE, XPENDING, XAUTOCLAIM).
    fn bound(&mut self, key: &str) -> String {
        match self.rng.weighted(&[22, 22, 30, 10, 8, 8]) {
            0 => "-".into(),
            1 => "+".into(),
            2 => fmt_id(self.known_id(key)),
            3 => format!("({}", fmt_id(self.known_id(key))),
            4 => self.known_id(key).0.to_string(),
            _ => match self.rng.below(4) {
                0 => format!("({}", self.known_id(key).0),
                1 => self.rng.pick(&["(0-0", "(18446744073709551615-18446744073709551615", "(0", "(-", "(+"]).into(),
                _ => self.quirky_id(),
            },
        }
    }

    fn small_int(&mut self, max: u64) -> String {
        if self.rng.chance(8) {
            self.rng.pick(&QUIRKY_INTEGERS).into()
        } else {
            self.rng.range(0, max).to_string()
        }
    }

    fn field(&mut self) -> String {
        self.rng.pick(&["f", "f", "f", "g", "h", "name", "0", "123"]).into()
    }

    fn value(&mut self) -> String {
        match self.rng.weighted(&[60, 15, 8, 2, 2]) {
            0 => format!("v{}", self.rng.below(100)),
            1 => self.rng.pick(&VALUE_INTEGERS).into(),
            2 => {
                let len = if self.rng.chance(80) { self.rng.range(20, 120) } else { self.rng.range(300, 1000) };
                "abcdefgh".repeat(len as usize / 8 + 1)[..len as usize].to_owned()
            }
            3 => String::new(),
            _ => "v".into(),
        }
    }

    fn fields(&mut self, args: &mut Args) {
        let pairs = [1, 2, 3, 6, 0][self.rng.weighted(&[70, 18, 6, 2, 1])];
        for _ in 0..pairs {
            let (f, v) = (self.field(), self.value());
            args.push(f.into_bytes());
            args.push(v.into_bytes());
        }
        if self.rng.chance(1) {
            args.push(b"odd".to_vec());
        }
    }

    fn policy(&mut self) -> &'static str {
        ["KEEPREF", "DELREF", "ACKED"][self.rng.index(3)]
    }

    fn count_option(&mut self, args: &mut Args, percent: u64, max: u64) {
        if self.rng.chance(percent) {
            let n = self.small_int(max);
            args.push(b"COUNT".to_vec());
            args.push(n.into_bytes());
        }
    }

    /// Milliseconds thresholds far from the idle times a run produces (milliseconds, or hours
    /// after XCLAIM IDLE/TIME), so the answer never depends on timing.
    fn min_idle(&mut self) -> String {
        (*["0", "3600000", "-1", "x", "1.5", "100000000000000"][self.rng.weighted(&[55, 28, 5, 5, 2, 5])]).into()
    }

    // ----- commands -----------------------------------------------------------------------

    fn command(&mut self, conn: usize) -> Args {
        let weights = [
            220, // XADD
            60,  // XRANGE / XREVRANGE
            15,  // XLEN
            35,  // XDEL
            35,  // XTRIM
            20,  // XSETID
            25,  // XDELEX
            25,  // XACKDEL
            40,  // XREAD
            90,  // XREADGROUP
            45,  // XACK
            50,  // XPENDING
            45,  // XCLAIM
            35,  // XAUTOCLAIM
            70,  // XGROUP
            50,  // XINFO
            40,  // keys and strings
            10,  // CONFIG
            8,   // WATCH / UNWATCH / stray EXEC / DISCARD
            6,   // PING, ECHO, DBSIZE, SELECT, unknown commands
        ];
        match self.rng.weighted(&weights) {
            0 => self.xadd(),
            1 => self.xrange(),
            2 => {
                let key = self.stream_key();
                cmd!["XLEN", key]
            }
            3 => self.xdel(),
            4 => self.xtrim(),
            5 => self.xsetid(),
            6 => self.xdelex(),
            7 => self.xackdel(),
            8 => self.xread(conn),
            9 => self.xreadgroup(conn),
            10 => self.xack(),
            11 => self.xpending(),
            12 => self.xclaim(),
            13 => self.xautoclaim(),
            14 => self.xgroup(),
            15 => self.xinfo(),
            16 => self.keys(),
            17 => self.config(),
            18 => self.transaction_control(),
            _ => self.misc(),
        }
    }

    /// A plain valid XADD with a fresh id.
    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.rng.index(i + 1);
            items.swap(i, j);
        }
    }

    fn block_option(&mut self, opts: &mut Vec<Args>, percent: u64) -> bool {
        if !self.rng.chance(percent) {
            return false;
        }
        let timeout = ["0", "3600000", "-1", "1.5", "x"][self.rng.weighted(&[45, 40, 5, 5, 5])];
        opts.push(cmd!["BLOCK", timeout]);
        true
    }

    /// After a read that may block: an XADD to one of its streams from another connection a
    /// few steps later, so the reader is woken by data, never by a timeout.
    fn schedule_wake(&mut self, conn: usize, keys: &[&'static str]) {
        if !self.rng.chance(85) {
            return;
        }
        let key = self.rng.pick(keys);
        let other = (conn + 1 + self.rng.index(CONNECTIONS - 1)) % CONNECTIONS;
        let due = self.out.len() + 1 + self.rng.index(5);
        let id = if key == "s3" && self.rng.chance(50) { "*".to_owned() } else { fmt_id(self.new_id(key)) };
        let value = self.value();
        self.scheduled.push((due, Call { conn: other, args: cmd!["XADD", key, id, "f", value] }));
    }

    fn read_keys(&mut self) -> Vec<&'static str> {
        let n = [1, 2, 3][self.rng.weighted(&[75, 22, 3])];
        (0..n).map(|_| self.stream_key()).collect()
    }

    fn xread(&mut self, conn: usize) -> Args {
        let keys = self.read_keys();
        let mut opts: Vec<Args> = Vec::new();
        if self.rng.chance(35) {
            let n = self.small_int(5);
            opts.push(cmd!["COUNT", n]);
        }
        let blocking = self.block_option(&mut opts, 10);
        if self.rng.chance(2) {
            opts.push(if self.rng.chance(50) { cmd!["GROUP", "g1", "alice"] } else { cmd!["NOACK"] });
        }
        self.shuffle(&mut opts);
        let mut args = cmd!["XREAD"];
        args.extend(opts.into_iter().flatten());
        if self.rng.chance(99) {
            args.push(b"STREAMS".to_vec());
        }
        for key in &keys {
            args.push(key.as_bytes().to_vec());
        }
        for key in &keys {
            let id = match self.rng.weighted(&[15, 10, 3, 20, 35, 7, 10]) {
                0 => "$".into(),
                1 => "+".into(),
                2 => ">".into(),
                3 => "0".into(),
                4 => fmt_id(self.known_id(key)),
                5 => self.quirky_id(),
                _ => self.known_id(key).0.to_string(),
            };
            args.push(id.into_bytes());
        }
        if self.rng.chance(2) {
            args.pop();
        }
        if blocking {
            self.schedule_wake(conn, &keys);
        }
        args
    }
}

// After `cmd!`, which they use (a macro is in scope only below its definition).
mod groups;
mod keyspace;
mod streams;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_are_reproducible_and_long_enough() {
        let a = sequence(42, 500);
        assert_eq!(a, sequence(42, 500));
        assert_eq!(a.len(), 500);
        assert_ne!(a, sequence(43, 500));
        assert!(a.iter().all(|s| s.conn < CONNECTIONS && !s.args.is_empty()));
    }

    #[test]
    fn no_argument_holds_a_nul_or_starts_a_line_with_a_digit() {
        for seed in 0..20 {
            for step in sequence(seed, 400) {
                assert!(step.args.iter().all(|a| !a.contains(&0)));
                assert!(!step.args[0].first().is_some_and(u8::is_ascii_digit));
            }
        }
    }

    #[test]
    fn the_surface_is_covered() {
        let mut names = std::collections::BTreeSet::new();
        for seed in 0..10 {
            for step in sequence(seed, 1000) {
                names.insert(step.name());
            }
        }
        for name in [
            "XADD",
            "XRANGE",
            "XREVRANGE",
            "XLEN",
            "XDEL",
            "XTRIM",
            "XSETID",
            "XDELEX",
            "XACKDEL",
            "XREAD",
            "XREADGROUP",
            "XACK",
            "XPENDING",
            "XCLAIM",
            "XAUTOCLAIM",
            "XGROUP",
            "XINFO",
            "MULTI",
            "EXEC",
            "WATCH",
            "CONFIG",
            "SET",
        ] {
            assert!(names.contains(name), "{name} never generated");
        }
    }
}
