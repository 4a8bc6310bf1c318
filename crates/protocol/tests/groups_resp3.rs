//! Consumer-group replies on a RESP3 connection, where a transcript cannot go (redis-cli
//! prints RESP2, and the recorder only measures RESP2 replies): XREADGROUP's top level is a
//! map from key to entries, while XPENDING, XCLAIM, XAUTOCLAIM and the HELP texts stay arrays.
//! The values themselves are pinned by the transcripts (`tests/transcripts/groups-*.txt`);
//! the shapes below are what Redis 8.2.3 sends after `HELLO 3`.

use streamlab_protocol::{Clock, ConnId, Profile, Reply, Session, VIRTUAL_EPOCH_MS};

fn run(session: &mut Session, conn: ConnId, line: &str) -> Reply {
    let args = line.split(' ').map(|w| w.as_bytes().to_vec()).collect();
    let mut out = session.execute(conn, args);
    session.check_invariants().unwrap();
    assert_eq!(out.replies.len(), 1, "{line}: one reply");
    out.replies.remove(0)
}

fn b(s: &str) -> Reply {
    Reply::Bulk(s.as_bytes().to_vec())
}

fn arr(items: Vec<Reply>) -> Reply {
    Reply::Array(items)
}

/// An entry: `[id, [field, value]]`.
fn entry(id: &str, field: &str, value: &str) -> Reply {
    arr(vec![b(id), arr(vec![b(field), b(value)])])
}

/// A deleted entry still pending: `[id, nil]`.
fn deleted(id: &str) -> Reply {
    arr(vec![b(id), Reply::NullArray])
}

fn map(pairs: Vec<(&str, Reply)>) -> Reply {
    Reply::Map(pairs.into_iter().map(|(k, v)| (b(k), v)).collect())
}

#[test]
fn xreadgroup_is_a_map_and_the_rest_stay_arrays() {
    let mut session = Session::with_profile(Clock::Virtual(VIRTUAL_EPOCH_MS), Profile::Redis82);
    let c = session.connect();
    let resp2 = session.connect();
    for line in ["XADD r 1-0 f v1", "XADD r 2-0 f v2", "XADD q 1-0 g w", "XGROUP CREATE r g 0", "XGROUP CREATE q g $"] {
        run(&mut session, c, line);
    }
    assert!(matches!(run(&mut session, c, "HELLO 3"), Reply::Map(_)));

    // Only streams that serve something are keys of the map; nothing at all is a null.
    assert_eq!(
        run(&mut session, c, "XREADGROUP GROUP g c STREAMS r q > >"),
        map(vec![("r", arr(vec![entry("1-0", "f", "v1"), entry("2-0", "f", "v2")]))])
    );
    assert_eq!(run(&mut session, c, "XREADGROUP GROUP g c STREAMS r q > >"), Reply::NullArray);
    run(&mut session, c, "XDEL r 2-0");
    // History reads are keys even when empty, in the order named.
    assert_eq!(
        run(&mut session, c, "XREADGROUP GROUP g c STREAMS q r 0 0"),
        map(vec![("q", arr(vec![])), ("r", arr(vec![entry("1-0", "f", "v1"), deleted("2-0")]))])
    );
    assert_eq!(run(&mut session, c, "XREADGROUP GROUP g c STREAMS q r 0 >"), map(vec![("q", arr(vec![]))]));
    assert_eq!(
        run(&mut session, c, "XREADGROUP GROUP g c STREAMS r 18446744073709551615-18446744073709551615"),
        Reply::NullArray
    );

    assert_eq!(
        run(&mut session, c, "XPENDING r g"),
        arr(vec![Reply::Integer(2), b("1-0"), b("2-0"), arr(vec![arr(vec![b("c"), b("2")])])])
    );
    assert_eq!(
        run(&mut session, c, "XPENDING r g - + 10"),
        arr(vec![
            arr(vec![b("1-0"), b("c"), Reply::Integer(0), Reply::Integer(2)]),
            arr(vec![b("2-0"), b("c"), Reply::Integer(0), Reply::Integer(1)]),
        ])
    );
    assert_eq!(
        run(&mut session, c, "XAUTOCLAIM r g c 0 0"),
        arr(vec![b("0-0"), arr(vec![entry("1-0", "f", "v1")]), arr(vec![b("2-0")])])
    );
    assert_eq!(run(&mut session, c, "XCLAIM r g c 0 1-0 JUSTID"), arr(vec![b("1-0")]));

    // HELP is the same array of simple strings in both protocols.
    for help in ["XGROUP HELP", "XINFO HELP"] {
        let reply = run(&mut session, c, help);
        let Reply::Array(lines) = &reply else { panic!("{help}: {reply:?}") };
        assert!(lines.iter().all(|l| matches!(l, Reply::Status(_))), "{help}: {reply:?}");
        assert_eq!(reply, run(&mut session, resp2, help), "{help}");
    }
}
