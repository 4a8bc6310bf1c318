//! Consumer-group commands run through the dispatcher and their handlers against a keyspace
//! with a fixed clock. Every expected reply was recorded from a real Redis 8.2.3 (RESP2 for
//! null kinds, RESP3 for which arrays are maps); times were then rewritten to this test's
//! clock. The keyspace's invariants are checked after every command.

use streamlab_engine::{Keyspace, RefPolicy, StreamId, Trim, TrimStrategy, Value};
use streamlab_protocol::command::{check_call, Block, Ctx, Outcome, Run};
use streamlab_protocol::{Profile, Reply};

/// The clock at the start of every test (Unix ms).
const NOW: i64 = 1_800_000_000_000;

struct T {
    db: Keyspace,
    now: i64,
    resp3: bool,
}

impl T {
    fn new() -> T {
        // The replies were recorded from Redis 8.2.3, so its counter rules apply.
        let mut db = Keyspace::new();
        db.rules = Profile::Redis82.caps().counters;
        T { db, now: NOW, resp3: false }
    }

    fn sleep(&mut self, ms: i64) {
        self.now += ms;
    }

    /// Runs one command line (arguments separated by single spaces). A few commands other
    /// families own are emulated on the engine so that scenarios can set things up.
    fn exec(&mut self, line: &str) -> Result<Outcome, String> {
        let args: Vec<Vec<u8>> = line.split(' ').map(|a| a.as_bytes().to_vec()).collect();
        let result = match self.shim(&args) {
            Some(reply) => Ok(Outcome::Reply(reply)),
            None => {
                let caps = Profile::Redis82.caps();
                let spec = check_call(&args, caps).map_err(|e| e.to_string())?;
                let Run::Data(handler) = spec.run else { panic!("{line}: not a data command") };
                #[cfg(feature = "host-params")]
                let mut host = Vec::new();
                let mut ctx = Ctx {
                    db: &mut self.db,
                    now: self.now,
                    resp3: self.resp3,
                    caps,
                    #[cfg(feature = "host-params")]
                    host: &mut host,
                    clients: &mut Default::default(),
                    #[cfg(feature = "host")]
                    process: &Default::default(),
                };
                handler(&mut ctx, &args).map_err(|e| e.to_string())
            }
        };
        if let Err(broken) = self.db.check_invariants() {
            panic!("{line}: {broken}");
        }
        result
    }

    fn shim(&mut self, args: &[Vec<u8>]) -> Option<Reply> {
        let name = String::from_utf8_lossy(&args[0]).to_ascii_uppercase();
        let reply = match name.as_str() {
            "SET" => {
                self.db.set(&args[1], Value::String(args[2].clone()), false);
                Reply::ok()
            }
            "DEL" => i(args[1..].iter().filter(|k| self.db.remove(k)).count() as i64),
            "EXISTS" => i(args[1..].iter().filter(|k| self.db.get(k).is_some()).count() as i64),
            "XDEL" => {
                let stream = self.db.stream_mut(&args[1]).unwrap().unwrap();
                i(args[2..].iter().filter(|a| stream.delete(id(a))).count() as i64)
            }
            "XTRIM" => {
                assert_eq!(args[2], b"MAXLEN", "only exact MAXLEN trims are emulated");
                let max = String::from_utf8_lossy(&args[3]).parse().unwrap();
                let config = self.db.config;
                let trim = Trim {
                    strategy: TrimStrategy::MaxLen(max),
                    approx: false,
                    limit: None,
                    policy: RefPolicy::KeepRef,
                };
                i(self.db.stream_mut(&args[1]).unwrap().unwrap().trim(trim, config) as i64)
            }
            _ => return None,
        };
        Some(reply)
    }

    #[track_caller]
    fn expect(&mut self, line: &str, expected: Result<Outcome, String>) {
        let got = self.exec(line);
        if got != expected {
            panic!("{line}\n     got: {}\nexpected: {}", show(&got), show(&expected));
        }
    }

    #[track_caller]
    fn ok(&mut self, line: &str, expected: Reply) {
        self.expect(line, Ok(Outcome::Reply(expected)));
    }

    #[track_caller]
    fn err(&mut self, line: &str, expected: &str) {
        self.expect(line, Err(expected.to_owned()));
    }

    #[track_caller]
    fn blocks(&mut self, line: &str, keys: &[&str], deadline: Option<i64>) {
        let args = line.split(' ').map(|a| a.as_bytes().to_vec()).collect();
        let keys = keys.iter().map(|k| k.as_bytes().to_vec()).collect();
        self.expect(
            line,
            Ok(Outcome::Block(Block { keys, deadline, args, retry_on_tick: false, streams_only: false })),
        );
    }
}

/// A compact rendering for failure messages.
fn show(result: &Result<Outcome, String>) -> String {
    fn reply(r: &Reply) -> String {
        let list = |items: &[Reply]| items.iter().map(reply).collect::<Vec<_>>().join(", ");
        match r {
            Reply::Status(s) => format!("+{s}"),
            Reply::Error(e) => format!("-{e}"),
            Reply::Integer(n) => format!(":{n}"),
            Reply::Bulk(bytes) => format!("{:?}", String::from_utf8_lossy(bytes)),
            Reply::NullBulk => "nil-bulk".into(),
            Reply::NullArray => "nil-array".into(),
            Reply::Array(items) => format!("[{}]", list(items)),
            Reply::Map(pairs) => {
                format!(
                    "{{{}}}",
                    pairs.iter().map(|(k, v)| format!("{} => {}", reply(k), reply(v))).collect::<Vec<_>>().join(", ")
                )
            }
            other => format!("{other:?}"),
        }
    }
    match result {
        Ok(Outcome::Reply(r)) => reply(r),
        Ok(Outcome::Block(block)) => format!("{block:?}"),
        Err(e) => format!("error {e}"),
    }
}

fn id(text: &[u8]) -> StreamId {
    StreamId::parse(text, streamlab_engine::IdMode::Strict, 0).unwrap()
}

// ----- reply builders -----------------------------------------------------------------------

fn st(s: &str) -> Reply {
    Reply::Status(s.to_owned())
}
fn i(n: i64) -> Reply {
    Reply::Integer(n)
}
fn b(s: &str) -> Reply {
    Reply::bulk(s)
}
fn nb() -> Reply {
    Reply::NullBulk
}
fn na() -> Reply {
    Reply::NullArray
}
fn a(items: Vec<Reply>) -> Reply {
    Reply::Array(items)
}
fn m(pairs: Vec<(&str, Reply)>) -> Reply {
    Reply::Map(pairs.into_iter().map(|(k, v)| (b(k), v)).collect())
}
/// An entry: `[id, [field, value, ...]]`.
fn e(id: &str, fields: &[&str]) -> Reply {
    a(vec![b(id), a(fields.iter().map(|f| b(f)).collect())])
}

/// RESP3: XREADGROUP's top level is a map from key to entries; XPENDING, XCLAIM and XAUTOCLAIM stay arrays.
#[test]
fn resp3_shapes() {
    let mut t = T::new();
    t.ok("XADD r 1-0 f v1", b("1-0"));
    t.ok("XADD r 2-0 f v2", b("2-0"));
    t.ok("XADD q 1-0 g w", b("1-0"));
    t.ok("XGROUP CREATE r g 0", st("OK"));
    t.ok("XGROUP CREATE q g $", st("OK"));
    t.resp3 = true;
    t.ok(
        "XREADGROUP GROUP g c STREAMS r q > >",
        m(vec![("r", a(vec![e("1-0", &["f", "v1"]), e("2-0", &["f", "v2"])]))]),
    );
    t.ok("XREADGROUP GROUP g c STREAMS r q > >", na());
    t.ok("XDEL r 2-0", i(1));
    t.ok(
        "XREADGROUP GROUP g c STREAMS q r 0 0",
        m(vec![("q", a(vec![])), ("r", a(vec![e("1-0", &["f", "v1"]), a(vec![b("2-0"), na()])]))]),
    );
    t.ok("XREADGROUP GROUP g c STREAMS q r 0 >", m(vec![("q", a(vec![]))]));
    t.ok("XREADGROUP GROUP g c STREAMS r 18446744073709551615-18446744073709551615", na());
    t.ok("XPENDING r g", a(vec![i(2), b("1-0"), b("2-0"), a(vec![a(vec![b("c"), b("2")])])]));
    t.ok("XPENDING r g - + 10", a(vec![a(vec![b("1-0"), b("c"), i(0), i(2)]), a(vec![b("2-0"), b("c"), i(0), i(1)])]));
    t.ok("XAUTOCLAIM r g c 0 0", a(vec![b("0-0"), a(vec![e("1-0", &["f", "v1"])]), a(vec![b("2-0")])]));
    t.ok("XCLAIM r g c 0 1-0 JUSTID", a(vec![b("1-0")]));
    t.ok(
        "XGROUP HELP",
        a(vec![
            st("XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
            st("CREATE <key> <groupname> <id|$> [option]"),
            st("    Create a new consumer group. Options are:"),
            st("    * MKSTREAM"),
            st("      Create the empty stream if it does not exist."),
            st("    * ENTRIESREAD entries_read"),
            st("      Set the group's entries_read counter (internal use)."),
            st("CREATECONSUMER <key> <groupname> <consumer>"),
            st("    Create a new consumer in the specified group."),
            st("DELCONSUMER <key> <groupname> <consumer>"),
            st("    Remove the specified consumer."),
            st("DESTROY <key> <groupname>"),
            st("    Remove the specified group."),
            st("SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]"),
            st("    Set the current group ID and entries_read counter."),
            st("HELP"),
            st("    Print this help."),
        ]),
    );
    t.ok(
        "XINFO HELP",
        a(vec![
            st("XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
            st("CONSUMERS <key> <groupname>"),
            st("    Show consumers of <groupname>."),
            st("GROUPS <key>"),
            st("    Show the stream consumer groups."),
            st("STREAM <key> [FULL [COUNT <count>]"),
            st("    Show information about the stream."),
            st("HELP"),
            st("    Print this help."),
        ]),
    );
}
