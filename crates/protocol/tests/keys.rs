//! Keyspace behaviour a transcript cannot pin, through `Session`. The replies Redis 8.2.3
//! gives are in `tests/transcripts/keys-*.txt`; what is here is StreamLab's own:
//!
//! * a key is gone at its deadline (Redis answers for it until its clock passes the
//!   deadline, and a frozen oracle clock never does), and a stream that expires tells its
//!   blocked readers when the clock moves (Redis tells them on the next access or in its
//!   cron, whichever comes first);
//! * KEYS and SCAN replies with several keys, which Redis gives in the order of a hash table
//!   seeded at random on each start, and SCAN cursors other than 0, which come from
//!   StreamLab's own table.

use streamlab_protocol::{Clock, ConnId, Profile, Reply, Session, VIRTUAL_EPOCH_MS};

fn session() -> (Session, ConnId) {
    let mut session = Session::with_profile(Clock::Virtual(VIRTUAL_EPOCH_MS), Profile::Redis82);
    let conn = session.connect();
    (session, conn)
}

fn call(session: &mut Session, conn: ConnId, args: Vec<Vec<u8>>) -> Reply {
    let mut out = session.execute(conn, args);
    session.check_invariants().unwrap();
    assert_eq!(out.replies.len(), 1, "one reply");
    out.replies.remove(0)
}

/// Runs a command line split on spaces.
fn run(session: &mut Session, conn: ConnId, line: &str) -> Reply {
    call(session, conn, line.split(' ').map(|w| w.as_bytes().to_vec()).collect())
}

fn int(n: i64) -> Reply {
    Reply::Integer(n)
}

fn bulk(s: &str) -> Reply {
    Reply::Bulk(s.as_bytes().to_vec())
}

fn bulks(items: &[&str]) -> Reply {
    Reply::Array(items.iter().map(|s| bulk(s)).collect())
}

fn scan_reply(cursor: &str, keys: &[&str]) -> Reply {
    Reply::Array(vec![bulk(cursor), bulks(keys)])
}

/// A SCAN reply's cursor and keys.
fn scan_parts(reply: Reply) -> (String, Vec<String>) {
    let Reply::Array(parts) = reply else { panic!("{reply:?}") };
    let [Reply::Bulk(next), Reply::Array(keys)] = parts.as_slice() else { panic!("{parts:?}") };
    let keys = keys
        .iter()
        .map(|k| match k {
            Reply::Bulk(k) => String::from_utf8(k.clone()).unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    (String::from_utf8(next.clone()).unwrap(), keys)
}

/// A whole SCAN walk with `options`: every key seen (with repeats) and the number of calls.
fn walk(session: &mut Session, conn: ConnId, options: &str) -> (Vec<String>, usize) {
    let mut cursor = "0".to_owned();
    let mut seen = Vec::new();
    for calls in 1..10_000 {
        let (next, keys) = scan_parts(run(session, conn, &format!("SCAN {cursor} {options}")));
        seen.extend(keys);
        if next == "0" {
            return (seen, calls);
        }
        cursor = next;
    }
    panic!("SCAN {options} never ended");
}

#[test]
fn keys_go_at_their_deadline() {
    let (mut s, c) = session();
    run(&mut s, c, "SET k v PX 1500");
    s.advance(1499);
    assert_eq!(run(&mut s, c, "PTTL k"), int(1));
    s.advance(1);
    assert_eq!(run(&mut s, c, "PTTL k"), int(-2));
    let now = s.now();
    assert_eq!(run(&mut s, c, &format!("SET k v PXAT {now}")), Reply::ok());
    assert_eq!(run(&mut s, c, "EXISTS k"), int(0));

    // A stream that expires answers its blocked group reader as the clock reaches the deadline.
    let reader = s.connect();
    for line in ["XADD s 1-0 f v", "XGROUP CREATE s g $", "PEXPIRE s 10"] {
        run(&mut s, c, line);
    }
    let parked = s.execute(reader, "XREADGROUP GROUP g c BLOCK 0 STREAMS s >".split(' ').map(Into::into).collect());
    assert!(parked.replies.is_empty());
    assert!(s.advance(9).is_empty());
    let told = s.advance(1);
    assert_eq!(told.len(), 1);
    assert_eq!(told[0].conn, reader);
    assert!(matches!(&told[0].reply, Reply::Error(e) if e.starts_with("NOGROUP ")), "{:?}", told[0].reply);
}

#[test]
fn keys_lists_several_keys_in_byte_order() {
    let (mut s, c) = session();
    for k in ["s", "a", "b", "user:1", "user:2", "user:10", "h[x]"] {
        run(&mut s, c, &format!("SET {k} v"));
    }
    assert_eq!(run(&mut s, c, "KEYS *"), bulks(&["a", "b", "h[x]", "s", "user:1", "user:10", "user:2"]));
    assert_eq!(run(&mut s, c, "KEYS user:?"), bulks(&["user:1", "user:2"]));
    assert_eq!(run(&mut s, c, "KEYS user:*"), bulks(&["user:1", "user:10", "user:2"]));
    assert_eq!(run(&mut s, c, "KEYS [ab]"), bulks(&["a", "b"]));
    assert_eq!(run(&mut s, c, "KEYS [a-c]"), bulks(&["a", "b"]));
}

#[test]
fn scan_of_a_small_keyspace_is_one_call() {
    let (mut s, c) = session();
    for line in ["SET a 1", "SET b 2", "XADD s 1-0 f v"] {
        run(&mut s, c, line);
    }
    let (cursor, mut keys) = scan_parts(run(&mut s, c, "SCAN 0"));
    assert_eq!(cursor, "0");
    keys.sort();
    assert_eq!(keys, ["a", "b", "s"]);
    let strings = run(&mut s, c, "SCAN 0 TYPE string MATCH *");
    assert_eq!(run(&mut s, c, "SCAN 0 TYPE String MATCH ?"), strings);
    assert_eq!(run(&mut s, c, "SCAN 0 count 10 match * type string"), strings);
    let everything = run(&mut s, c, "SCAN 0");
    assert_eq!(run(&mut s, c, "SCAN 0 COUNT 1 COUNT 9223372036854775807"), everything);
    // Any number is a cursor (the large ones land somewhere in the walk).
    for cursor in ["01", "+1", " -1", " -2", "18446744073709551615", "018446744073709551615", " -18446744073709551615"]
    {
        let reply = call(&mut s, c, vec![b"SCAN".to_vec(), cursor.as_bytes().to_vec()]);
        assert!(matches!(&reply, Reply::Array(parts) if parts.len() == 2), "{cursor:?}: {reply:?}");
    }
}

#[test]
fn scan_cursors_are_deterministic() {
    // Pinned so that a change of hash or walk (which would change every cursor a lesson
    // shows) is a deliberate decision.
    let (mut s, c) = session();
    for k in ["a", "b", "s"] {
        run(&mut s, c, &format!("SET {k} v"));
    }
    let (mut again, c2) = session();
    for k in ["s", "b", "a"] {
        run(&mut again, c2, &format!("SET {k} v"));
    }
    assert_eq!(run(&mut again, c2, "SCAN 0 COUNT 1"), scan_reply("2", &["b"]));
    assert_eq!(run(&mut s, c, "SCAN 0 COUNT 1"), scan_reply("2", &["b"]));
    assert_eq!(run(&mut s, c, "SCAN 2 COUNT 1"), scan_reply("1", &["s"]));
    assert_eq!(run(&mut s, c, "SCAN 1 COUNT 1"), scan_reply("0", &["a"]));
}

#[test]
fn scan_walks_visit_every_key_once() {
    let (mut s, c) = session();
    let mut expected: Vec<String> = (0..200).map(|i| format!("key:{i}")).collect();
    for k in &expected {
        run(&mut s, c, &format!("SET {k} v"));
    }
    expected.sort();
    for count in [1, 3, 10, 1000] {
        let (mut seen, calls) = walk(&mut s, c, &format!("COUNT {count}"));
        seen.sort();
        assert_eq!(seen, expected, "COUNT {count}");
        if count == 1000 {
            assert_eq!(calls, 1);
        } else {
            assert!(calls > 200 / count / 2, "COUNT {count}: {calls} calls");
        }
    }
    // Filters apply after the walk: the number of calls does not change.
    let (_, plain) = walk(&mut s, c, "COUNT 5");
    let (mut seen, filtered) = walk(&mut s, c, "COUNT 5 MATCH key:1?");
    assert_eq!(plain, filtered);
    seen.sort();
    assert_eq!(seen, (10..20).map(|i| format!("key:{i}")).collect::<Vec<_>>());
    assert!(walk(&mut s, c, "TYPE stream").0.is_empty());
}

#[test]
fn scan_survives_growth_and_shrinking() {
    // Keys present for the whole walk come back at least once even when the table grows or
    // shrinks between calls.
    for (start, change) in [(20usize, 500usize), (500, 20)] {
        let (mut s, c) = session();
        let stable: Vec<String> = (0..start.min(change)).map(|i| format!("stable:{i}")).collect();
        for k in &stable {
            run(&mut s, c, &format!("SET {k} v"));
        }
        let extra = start.saturating_sub(stable.len());
        for i in 0..extra {
            run(&mut s, c, &format!("SET extra:{i} v"));
        }
        let mut cursor = "0".to_owned();
        let mut seen = std::collections::BTreeSet::new();
        for calls in 1.. {
            let (next, keys) = scan_parts(run(&mut s, c, &format!("SCAN {cursor} COUNT 7")));
            seen.extend(keys);
            if calls == 2 {
                // Resize in the middle of the walk.
                for i in 0..change.saturating_sub(start) {
                    run(&mut s, c, &format!("SET more:{i} v"));
                }
                for i in 0..extra {
                    run(&mut s, c, &format!("DEL extra:{i}"));
                }
            }
            if next == "0" {
                break;
            }
            cursor = next;
        }
        for k in &stable {
            assert!(seen.contains(k), "{start}->{change}: missed {k}");
        }
    }
}
