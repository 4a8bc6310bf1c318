//! Blocked reads through the session: the commands a client sends behind one wait for it and
//! then run in order; timeouts are served soonest deadline first and a host learns the next
//! one from `Session::next_deadline`.

use streamlab_protocol::{Clock, Delivery, Reply, Session, VIRTUAL_EPOCH_MS};

fn args(line: &str) -> Vec<Vec<u8>> {
    line.split(' ').map(|w| w.as_bytes().to_vec()).collect()
}

fn bulk(s: &str) -> Reply {
    Reply::Bulk(s.as_bytes().to_vec())
}

/// The reply an `XREAD ... STREAMS s $` gets when `id` is added to `s` with `f v`.
fn read_of(id: &str) -> Reply {
    Reply::Array(vec![Reply::Array(vec![
        bulk("s"),
        Reply::Array(vec![Reply::Array(vec![bulk(id), Reply::Array(vec![bulk("f"), bulk("v")])])]),
    ])])
}

#[test]
fn a_command_in_the_backlog_that_blocks_holds_back_the_rest() {
    let mut session = Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS));
    let reader = session.connect();
    let writer = session.connect();
    let mut run = |conn, line: &str| {
        let out = session.execute(conn, args(line));
        session.check_invariants().unwrap();
        out
    };
    assert!(run(reader, "XREAD BLOCK 0 STREAMS s $").replies.is_empty());
    for queued in ["PING", "XREAD BLOCK 0 STREAMS s $", "ECHO after"] {
        assert!(run(reader, queued).replies.is_empty(), "{queued} waits behind the block");
    }

    // The first add serves the first read and PING; the second read blocks again, so ECHO waits.
    let out = run(writer, "XADD s 1-0 f v");
    assert_eq!(out.replies, [bulk("1-0")]);
    let to_reader: Vec<Reply> = out
        .deliveries
        .into_iter()
        .map(|Delivery { conn, reply }| {
            assert_eq!(conn, reader);
            reply
        })
        .collect();
    assert_eq!(to_reader, [read_of("1-0"), Reply::Status("PONG".into())]);

    let out = run(writer, "XADD s 2-0 f v");
    let to_reader: Vec<Reply> = out.deliveries.into_iter().map(|d| d.reply).collect();
    assert_eq!(to_reader, [read_of("2-0"), bulk("after")]);

    // Nothing is left queued: the next command answers at once.
    assert_eq!(run(reader, "PING").replies, [Reply::Status("PONG".into())]);
}

#[test]
fn the_next_deadline_follows_blocks_timeouts_transactions_and_disconnects() {
    let start = VIRTUAL_EPOCH_MS;
    let mut session = Session::new(Clock::Virtual(start));
    let [slow, fast, forever, in_multi] = [(); 4].map(|()| session.connect());
    let run = |session: &mut Session, conn, line: &str| {
        let out = session.execute(conn, args(line));
        session.check_invariants().unwrap();
        out.replies
    };
    assert_eq!(session.next_deadline(), None);
    run(&mut session, slow, "XREAD BLOCK 500 STREAMS s $");
    run(&mut session, fast, "XREAD BLOCK 100 STREAMS s $");
    run(&mut session, forever, "XREAD BLOCK 0 STREAMS s $");
    assert_eq!(session.next_deadline(), Some(start + 100));
    // A read that would block inside a transaction answers nil at once and leaves no deadline.
    run(&mut session, in_multi, "MULTI");
    run(&mut session, in_multi, "XREAD BLOCK 50 STREAMS s $");
    assert_eq!(run(&mut session, in_multi, "EXEC"), [Reply::Array(vec![Reply::NullArray])]);
    assert_eq!(session.next_deadline(), Some(start + 100));

    let served = session.advance(100);
    session.check_invariants().unwrap();
    assert_eq!(served, [Delivery { conn: fast, reply: Reply::NullArray }]);
    assert_eq!(session.next_deadline(), Some(start + 500));
    session.disconnect(slow);
    session.check_invariants().unwrap();
    assert_eq!(session.next_deadline(), None, "BLOCK 0 has no deadline");
    assert!(session.advance(1_000_000).is_empty());
    assert!(session.conn(forever).unwrap().blocked().is_some());
}
