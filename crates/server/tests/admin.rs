//! Managing the server the Redis way over real sockets: CLIENT KILL, CLIENT PAUSE / UNPAUSE,
//! SHUTDOWN, INFO clients, maxclients, and DEBUG's guards on the virtual clock.

mod common;

use common::{bulk, int, server, server_with, status, text, virtual_server, Client};
use streamlab_protocol::Reply;

fn error(text: &str) -> Reply {
    Reply::Error(text.to_owned())
}

/// INFO clients once `blocked_clients` reaches `n`: the commands that block were sent on
/// other connections, which the server reads in its own time.
fn info_when_blocked(c: &mut Client, n: usize) -> String {
    let wanted = format!("\r\nblocked_clients:{n}\r\n");
    for _ in 0..2000 {
        let info = text(&c.cmd(&["INFO", "clients"]));
        if info.contains(&wanted) {
            return info;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("never {n} blocked clients");
}

fn client_id(c: &mut Client) -> String {
    match c.cmd(&["CLIENT", "ID"]) {
        Reply::Integer(id) => id.to_string(),
        other => panic!("CLIENT ID: {other:?}"),
    }
}

#[test]
fn client_kill_closes_the_connections_it_names() {
    let server = server();
    let mut admin = Client::connect(&server);
    let mut victim = Client::connect(&server);
    let mut subscriber = Client::connect(&server);
    subscriber.cmd(&["SUBSCRIBE", "news"]);
    let id = client_id(&mut victim);
    // A blocked reader is killed too; it sees its connection closed.
    victim.send(&["XREAD", "BLOCK", "0", "STREAMS", "s", "$"]);
    assert_eq!(admin.cmd(&["CLIENT", "KILL", "ID", &id]), int(1));
    assert_eq!(victim.read_to_close(), b"");
    assert_eq!(admin.cmd(&["CLIENT", "KILL", "ID", &id]), int(0));
    assert_eq!(admin.cmd(&["CLIENT", "KILL", "TYPE", "pubsub"]), int(1));
    assert_eq!(subscriber.read_to_close(), b"");
    // The caller is skipped unless SKIPME no; the old form kills it too, after its +OK.
    assert_eq!(admin.cmd(&["CLIENT", "KILL", "TYPE", "normal"]), int(0));
    let own = admin.stream.local_addr().unwrap().to_string();
    let laddr = admin.stream.peer_addr().unwrap().to_string();
    assert_eq!(admin.cmd(&["CLIENT", "KILL", "LADDR", &laddr, "ADDR", &own]), int(0));
    let mut other = Client::connect(&server);
    assert_eq!(other.cmd(&["CLIENT", "KILL", "ADDR", &own]), int(1));
    assert_eq!(admin.read_to_close(), b"");
    other.send(&["CLIENT", "KILL", &other.stream.local_addr().unwrap().to_string()]);
    assert_eq!(other.read_to_close(), b"+OK\r\n");
    let mut last = Client::connect(&server);
    assert_eq!(last.cmd(&["CLIENT", "KILL", "1.2.3.4:5"]), error("ERR No such client"));
    assert_eq!(last.cmd(&["CLIENT", "KILL", "ID", "abc"]), error("ERR client-id should be greater than 0"));
    assert_eq!(last.cmd(&["CLIENT", "KILL", "TYPE", "foo"]), error("ERR Unknown client type 'foo'"));
    assert_eq!(last.cmd(&["CLIENT", "KILL", "USER", "nobody"]), error("ERR No such user 'nobody'"));
    assert_eq!(last.cmd(&["CLIENT", "KILL", "MAXAGE", "0"]), error("ERR maxage should be greater than 0"));
    assert_eq!(last.cmd(&["PING"]), status("PONG"));
    // Inside MULTI it is queued and kills when EXEC runs, the caller included with SKIPME no.
    last.cmd(&["MULTI"]);
    assert_eq!(last.cmd(&["CLIENT", "KILL", "SKIPME", "no"]), status("QUEUED"));
    last.send(&["EXEC"]);
    assert_eq!(last.read_to_close(), b"*1\r\n:1\r\n");
}

#[test]
fn client_pause_holds_writes_until_it_ends() {
    // On the virtual clock, the pause ends when DEBUG moves time: no waiting on the wall clock.
    let server = virtual_server();
    let mut admin = Client::connect(&server);
    let mut writer = Client::connect(&server);
    let mut reader = Client::connect(&server);
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "1000", "WRITE"]), status("OK"));
    writer.send(&["XADD", "s", "1-0", "f", "v"]);
    writer.send(&["XLEN", "s"]);
    // Reads from others go on; the writer's commands, the read behind its write too, wait.
    assert_eq!(reader.cmd(&["XLEN", "s"]), int(0));
    info_when_blocked(&mut reader, 1);
    assert!(!writer.has_reply_within(100));
    assert_eq!(admin.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "999"]), status("OK"));
    assert!(!writer.has_reply_within(100));
    assert_eq!(admin.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "1"]), status("OK"));
    assert_eq!(writer.read(), bulk("1-0"));
    assert_eq!(writer.read(), int(1));
    // ALL holds reads too (and the pausing client's own commands); UNPAUSE from a
    // connection that was not held releases them in order.
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "5000"]), status("OK"));
    reader.send(&["XLEN", "s"]);
    assert!(!reader.has_reply_within(100));
    let mut fresh = Client::connect(&server);
    fresh.send(&["CLIENT", "UNPAUSE"]);
    assert!(!fresh.has_reply_within(100), "UNPAUSE waits in an ALL pause, as on Redis");
    assert_eq!(writer.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "5000"]), status("OK"));
    assert_eq!(reader.read(), int(1));
    assert_eq!(fresh.read(), status("OK"));
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "1000", "WRITE"]), status("OK"));
    writer.send(&["XADD", "s", "2-0", "f", "v"]);
    assert!(!writer.has_reply_within(100));
    assert_eq!(admin.cmd(&["CLIENT", "UNPAUSE"]), status("OK"));
    assert_eq!(writer.read(), bulk("2-0"));
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "-1"]), error("ERR timeout is negative"));
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "10", "foo"]), error("ERR CLIENT PAUSE mode must be WRITE or ALL"));
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "9223372036854775807"]), error("ERR timeout is out of range"));
}

#[test]
fn info_clients_counts_what_the_connections_do() {
    let server = server();
    let mut a = Client::connect(&server);
    let mut b = Client::connect(&server);
    let mut c = Client::connect(&server);
    let mut d = Client::connect(&server);
    a.cmd(&["WATCH", "k1", "k2"]);
    b.cmd(&["WATCH", "k2"]);
    c.cmd(&["SUBSCRIBE", "ch"]);
    d.cmd(&["XGROUP", "CREATE", "s", "g", "$", "MKSTREAM"]);
    d.send(&["XREADGROUP", "GROUP", "g", "c", "BLOCK", "100000", "STREAMS", "s", ">"]);
    let mut e = Client::connect(&server);
    e.send(&["XREAD", "BLOCK", "0", "STREAMS", "s", "t", "$", "$"]);
    let mut me = Client::connect(&server);
    let info = info_when_blocked(&mut me, 2);
    let expected = "# Clients\r\nconnected_clients:6\r\ncluster_connections:0\r\nmaxclients:10000\r\n\
                    client_recent_max_input_buffer:0\r\nclient_recent_max_output_buffer:0\r\n\
                    blocked_clients:2\r\ntracking_clients:0\r\npubsub_clients:1\r\nwatching_clients:2\r\n\
                    clients_in_timeout_table:1\r\ntotal_watched_keys:2\r\ntotal_blocking_keys:2\r\n\
                    total_blocking_keys_on_nokey:1\r\n";
    assert_eq!(info, expected);
    // INFO's default sections include it, between server and keyspace.
    let all = text(&me.cmd(&["INFO"]));
    assert!(all.contains("\r\n# Clients\r\nconnected_clients:6\r\n"), "{all}");
    assert!(all.find("# Clients").unwrap() < all.find("# Keyspace").unwrap());
}

#[test]
fn maxclients_is_enforced_and_configurable() {
    let server = server_with(|c| c.maxclients = 2);
    let mut a = Client::connect(&server);
    assert_eq!(a.cmd(&["CONFIG", "GET", "maxclients"]), Reply::Array(vec![bulk("maxclients"), bulk("2")]));
    let _b = Client::connect(&server);
    let mut over = Client::connect(&server);
    assert_eq!(over.read_to_close(), b"-ERR max number of clients reached\r\n");
    // The descriptors allow more (the binary's test shows the refusal when they do not).
    assert_eq!(a.cmd(&["CONFIG", "SET", "maxclients", "3"]), status("OK"));
    let mut third = Client::connect(&server);
    assert_eq!(third.cmd(&["PING"]), status("PONG"));
    let mut over = Client::connect(&server);
    assert_eq!(over.read_to_close(), b"-ERR max number of clients reached\r\n");
    // Lowered below the clients connected, it keeps them and refuses new ones.
    assert_eq!(a.cmd(&["CONFIG", "SET", "maxclients", "1"]), status("OK"));
    assert_eq!(third.cmd(&["PING"]), status("PONG"));
    let mut over = Client::connect(&server);
    assert_eq!(over.read_to_close(), b"-ERR max number of clients reached\r\n");
    assert_eq!(
        a.cmd(&["CONFIG", "SET", "maxclients", "0"]),
        Reply::Error("ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive".into())
    );
}

#[test]
fn shutdown_in_process_stops_the_loop_and_says_so() {
    let server = server();
    let mut a = Client::connect(&server);
    let mut b = Client::connect(&server);
    a.cmd(&["MULTI"]);
    assert_eq!(a.cmd(&["SHUTDOWN"]), error("ERR Command not allowed inside a transaction"));
    assert_eq!(a.cmd(&["EXEC"]), error("EXECABORT Transaction discarded because of previous errors."));
    assert!(!server.shut_down_by_client());
    a.send(&["SHUTDOWN", "NOSAVE", "NOW", "FORCE"]);
    assert_eq!(a.read_to_close(), b"");
    assert_eq!(b.read_to_close(), b"");
    assert!(server.shut_down_by_client());
    let (tx, rx) = std::sync::mpsc::channel();
    server.on_shutdown(move || tx.send(()).unwrap());
    rx.recv().expect("a hook set after the SHUTDOWN runs at once");
}

#[test]
fn huge_sleeps_and_clock_steps_never_pin_the_virtual_clock() {
    let server = virtual_server();
    let mut c = Client::connect(&server);
    let start = c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "GET"]);
    // What Redis does not sleep for (NaN, negative, more microseconds than an i64 holds)
    // answers OK and leaves the clock alone.
    for seconds in ["1e308", "nan", "-5", "inf", "1e13"] {
        assert_eq!(c.cmd(&["DEBUG", "SLEEP", seconds]), status("OK"), "{seconds}");
    }
    assert_eq!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "GET"]), start);
    let refused =
        "ERR the virtual clock cannot move past 253402300799999 (the end of year 9999); it is at 1700000000000";
    assert_eq!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "9223372036854775807"]), error(refused));
    assert_eq!(c.cmd(&["DEBUG", "SLEEP", "9e12"]), error(refused));
    assert_eq!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "GET"]), start);
    // The last instant is reachable, and XADD * still works there.
    assert_eq!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "251702300799999"]), status("OK"));
    assert_eq!(c.cmd(&["XADD", "s", "*", "f", "v"]), bulk("253402300799999-0"));
    assert_eq!(c.cmd(&["SET", "k", "v", "EX", "10"]), status("OK"));
    let past = c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "1"]);
    assert!(matches!(&past, Reply::Error(e) if e.contains("cannot move past")), "{past:?}");
}

#[test]
fn a_transaction_that_kills_its_own_connection_finishes_then_closes() {
    // Redis 8.2.3 runs the whole EXEC, sends the replies up to the kill's count and none
    // after it (its array header still says 4; ours counts what is sent), then closes; a
    // pipelined command after EXEC is not run.
    let server = server();
    let mut c = Client::connect(&server);
    for command in [&["MULTI"][..], &["SET", "before", "1"], &["CLIENT", "KILL", "SKIPME", "no", "TYPE", "normal"]] {
        c.send(command);
    }
    c.send(&["SET", "x", "1"]);
    c.send(&["PING"]);
    c.send(&["EXEC"]);
    c.send(&["SET", "after", "1"]);
    let queued = "+QUEUED\r\n".repeat(4);
    assert_eq!(c.read_to_close(), format!("+OK\r\n{queued}*2\r\n+OK\r\n:1\r\n").as_bytes());
    let mut other = Client::connect(&server);
    assert_eq!(other.cmd(&["EXISTS", "before", "x", "after"]), int(2));
}

#[test]
fn a_later_client_pause_sets_the_mode_and_never_shortens_the_pause() {
    // Redis 8.2.3 keeps one pause: `PAUSE 3000 WRITE` then `PAUSE 100 ALL` holds reads for
    // the whole 3 s, not 100 ms.
    let server = virtual_server();
    let mut admin = Client::connect(&server);
    let mut reader = Client::connect(&server);
    let mut clock = Client::connect(&server);
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "3000", "WRITE"]), status("OK"));
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "100", "ALL"]), status("OK"));
    assert_eq!(clock.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "400"]), status("OK"));
    reader.send(&["XLEN", "s"]);
    assert!(!reader.has_reply_within(200), "a read waits past the shorter pause's end");
    assert_eq!(clock.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "2600"]), status("OK"));
    assert_eq!(reader.read(), int(0));
}
