//! The server over real sockets: pipelining, RESP3, blocking reads across connections,
//! transactions, Pub/Sub, protocol errors, many connections, DEBUG and the virtual clock.

mod common;

use std::thread;
use std::time::{Duration, Instant};

use common::{array, bulk, int, server, server_with, status, text, virtual_server, Client};
use streamlab_protocol::Reply;
use streamlab_server::{DebugAccess, Port};
use streamlab_testkit::rng::Rng;

#[test]
fn ping_and_a_stream_round_trip() {
    let server = server();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["PING"]), status("PONG"));
    assert_eq!(c.cmd(&["XADD", "s", "1-1", "f", "v"]), bulk("1-1"));
    assert_eq!(
        c.cmd(&["XRANGE", "s", "-", "+"]),
        array(vec![array(vec![bulk("1-1"), array(vec![bulk("f"), bulk("v")])])])
    );
    assert_eq!(
        c.cmd(&["NOSUCH", "x"]),
        Reply::Error("ERR unknown command 'NOSUCH', with args beginning with: 'x' ".into())
    );
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let server = server();
    let mut c = Client::connect(&server);
    let mut bytes = Vec::new();
    for i in 1..=2000 {
        bytes.extend_from_slice(&streamlab_protocol::encode_request(&[
            "XADD",
            "p",
            &format!("{i}-0"),
            "n",
            &i.to_string(),
        ]));
    }
    // Inline commands and empty lines mix with multibulk ones.
    bytes.extend_from_slice(b"\r\n\r\nXLEN p\r\n*0\r\nECHO \"a b\"\r\n");
    c.send_raw(&bytes);
    for i in 1..=2000 {
        assert_eq!(c.read(), bulk(&format!("{i}-0")));
    }
    assert_eq!(c.read(), int(2000));
    assert_eq!(c.read(), bulk("a b"));
}

#[test]
fn a_request_split_across_writes() {
    let server = server();
    let mut c = Client::connect(&server);
    let request = streamlab_protocol::encode_request(&["ECHO", &"x".repeat(200_000)]);
    for piece in request.chunks(7_001) {
        c.send_raw(piece);
        thread::sleep(Duration::from_micros(200));
    }
    assert_eq!(c.read(), bulk(&"x".repeat(200_000)));
}

#[test]
fn hello_3_switches_to_resp3_and_pushes() {
    let server = server();
    let mut sub = Client::connect(&server);
    let hello = sub.cmd(&["HELLO", "3"]);
    let Reply::Map(pairs) = hello else { panic!("HELLO 3 answers a map: {hello:?}") };
    assert!(pairs.contains(&(bulk("proto"), int(3))));
    assert_eq!(sub.cmd(&["SUBSCRIBE", "news"]), Reply::Push(vec![bulk("subscribe"), bulk("news"), int(1)]));
    // RESP3 connections may run anything while subscribed.
    assert_eq!(sub.cmd(&["XADD", "s", "1-0", "a", "b"]), bulk("1-0"));
    let mut publisher = Client::connect(&server);
    assert_eq!(publisher.cmd(&["PUBLISH", "news", "hello"]), int(1));
    assert_eq!(sub.read(), Reply::Push(vec![bulk("message"), bulk("news"), bulk("hello")]));
    // Publishing to itself: the reply first, then the push, as Redis sends them.
    assert_eq!(sub.cmd(&["PUBLISH", "news", "self"]), int(1));
    assert_eq!(sub.read(), Reply::Push(vec![bulk("message"), bulk("news"), bulk("self")]));
    // RESP3 null and map shapes.
    assert_eq!(sub.cmd(&["XREAD", "STREAMS", "nosuch", "0"]), Reply::NullBulk);
    assert!(matches!(sub.cmd(&["CONFIG", "GET", "stream-node-max-entries"]), Reply::Map(_)));
}

#[test]
fn resp2_pubsub_uses_arrays_and_the_subscribed_context() {
    let server = server();
    let mut sub = Client::connect(&server);
    assert_eq!(sub.cmd(&["PSUBSCRIBE", "n*"]), array(vec![bulk("psubscribe"), bulk("n*"), int(1)]));
    assert_eq!(
        sub.cmd(&["XLEN", "s"]),
        Reply::Error("ERR Can't execute 'xlen': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context".into())
    );
    assert_eq!(sub.cmd(&["PING"]), array(vec![bulk("pong"), bulk("")]));
    let mut publisher = Client::connect(&server);
    assert_eq!(publisher.cmd(&["PUBLISH", "news", "x"]), int(1));
    assert_eq!(sub.read(), array(vec![bulk("pmessage"), bulk("n*"), bulk("news"), bulk("x")]));
    assert_eq!(sub.cmd(&["RESET"]), status("RESET"));
    assert_eq!(sub.cmd(&["XLEN", "s"]), int(0));
}

#[test]
fn a_blocked_xread_is_served_by_another_connection() {
    let server = server();
    let mut reader = Client::connect(&server);
    let mut writer = Client::connect(&server);
    reader.send(&["XREAD", "BLOCK", "0", "STREAMS", "s", "$"]);
    // Commands pipelined behind the blocked read wait for it.
    reader.send(&["PING"]);
    assert!(!reader.has_reply_within(100));
    assert_eq!(writer.cmd(&["XADD", "s", "5-0", "k", "v"]), bulk("5-0"));
    assert_eq!(
        reader.read(),
        array(vec![array(vec![bulk("s"), array(vec![array(vec![bulk("5-0"), array(vec![bulk("k"), bulk("v")])])])])])
    );
    assert_eq!(reader.read(), status("PONG"));
}

#[test]
fn blocked_group_readers_are_served_in_blocking_order() {
    let server = server();
    let mut admin = Client::connect(&server);
    assert_eq!(admin.cmd(&["XGROUP", "CREATE", "jobs", "g", "$", "MKSTREAM"]), status("OK"));
    let mut first = Client::connect(&server);
    let mut second = Client::connect(&server);
    first.send(&["XREADGROUP", "GROUP", "g", "alice", "BLOCK", "0", "STREAMS", "jobs", ">"]);
    assert!(!first.has_reply_within(50));
    second.send(&["XREADGROUP", "GROUP", "g", "bob", "BLOCK", "0", "STREAMS", "jobs", ">"]);
    assert!(!second.has_reply_within(50));
    admin.cmd(&["XADD", "jobs", "1-0", "n", "1"]);
    let entry = |id: &str, n: &str| {
        array(vec![array(vec![bulk("jobs"), array(vec![array(vec![bulk(id), array(vec![bulk("n"), bulk(n)])])])])])
    };
    assert_eq!(first.read(), entry("1-0", "1"));
    admin.cmd(&["XADD", "jobs", "2-0", "n", "2"]);
    assert_eq!(second.read(), entry("2-0", "2"));
    let pending = admin.cmd(&["XPENDING", "jobs", "g"]);
    assert_eq!(
        pending,
        array(vec![
            int(2),
            bulk("1-0"),
            bulk("2-0"),
            array(vec![array(vec![bulk("alice"), bulk("1")]), array(vec![bulk("bob"), bulk("1")]),])
        ])
    );
}

#[test]
fn a_blocked_read_times_out_on_the_system_clock() {
    let server = server();
    let mut reader = Client::connect(&server);
    let start = Instant::now();
    assert_eq!(reader.cmd(&["XREAD", "BLOCK", "150", "STREAMS", "s", "$"]), Reply::NullArray);
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(140), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    // RESP3 gets its own null.
    reader.cmd(&["HELLO", "3"]);
    assert_eq!(reader.cmd(&["XREAD", "BLOCK", "20", "STREAMS", "s", "$"]), Reply::NullBulk);
}

#[test]
fn a_client_that_leaves_while_blocked_is_forgotten() {
    let server = server();
    let mut admin = Client::connect(&server);
    admin.cmd(&["XGROUP", "CREATE", "q", "g", "$", "MKSTREAM"]);
    {
        let mut gone = Client::connect(&server);
        gone.send(&["XREADGROUP", "GROUP", "g", "ghost", "BLOCK", "0", "STREAMS", "q", ">"]);
        assert!(!gone.has_reply_within(50));
    }
    thread::sleep(Duration::from_millis(100));
    admin.cmd(&["XADD", "q", "1-0", "a", "b"]);
    // Nobody was served: the entry is not pending for the departed consumer.
    assert_eq!(
        admin.cmd(&["XPENDING", "q", "g"]).clone(),
        array(vec![int(0), Reply::NullBulk, Reply::NullBulk, Reply::NullArray])
    );
}

#[test]
fn quit_while_blocked_waits_for_the_read_then_closes() {
    let server = server();
    let mut c = Client::connect(&server);
    c.send_raw(b"XREAD BLOCK 100 STREAMS s $\r\nQUIT\r\nPING\r\n");
    assert_eq!(c.read_to_close(), b"*-1\r\n+OK\r\n");
}

#[test]
fn quit_closes_after_its_reply() {
    let server = server();
    let mut c = Client::connect(&server);
    c.send_raw(b"PING\r\nQUIT\r\nPING\r\n");
    assert_eq!(c.read_to_close(), b"+PONG\r\n+OK\r\n");
}

#[test]
fn multi_exec_and_watch() {
    let server = server();
    let mut a = Client::connect(&server);
    let mut b = Client::connect(&server);
    assert_eq!(a.cmd(&["WATCH", "s"]), status("OK"));
    assert_eq!(a.cmd(&["MULTI"]), status("OK"));
    assert_eq!(a.cmd(&["XADD", "s", "1-0", "a", "1"]), status("QUEUED"));
    assert_eq!(b.cmd(&["XADD", "s", "2-0", "b", "2"]), bulk("2-0"));
    assert_eq!(a.cmd(&["EXEC"]), Reply::NullArray);
    assert_eq!(a.cmd(&["MULTI"]), status("OK"));
    assert_eq!(a.cmd(&["XADD", "s", "3-0", "a", "1"]), status("QUEUED"));
    assert_eq!(a.cmd(&["XLEN", "s"]), status("QUEUED"));
    assert_eq!(a.cmd(&["EXEC"]), array(vec![bulk("3-0"), int(2)]));
    // A blocking read inside MULTI answers at once.
    assert_eq!(a.cmd(&["MULTI"]), status("OK"));
    a.cmd(&["XREAD", "BLOCK", "0", "STREAMS", "s", "$"]);
    assert_eq!(a.cmd(&["EXEC"]), array(vec![Reply::NullArray]));
}

#[test]
fn a_malformed_request_closes_only_that_connection() {
    let server = server();
    let mut good = Client::connect(&server);
    assert_eq!(good.cmd(&["XADD", "s", "1-0", "a", "b"]), bulk("1-0"));
    let mut bad = Client::connect(&server);
    bad.send_raw(b"PING\r\n*1\r\n$x\r\nPING\r\n");
    assert_eq!(bad.read_to_close(), b"+PONG\r\n-ERR Protocol error: invalid bulk length\r\n");
    let mut bad = Client::connect(&server);
    bad.send_raw(b"*2\r\n$4\r\nECHO\r\n:1\r\n");
    assert_eq!(bad.read_to_close(), b"-ERR Protocol error: expected '$', got ':'\r\n");
    let mut bad = Client::connect(&server);
    bad.send_raw(b"*3000000000\r\n");
    assert_eq!(bad.read_to_close(), b"-ERR Protocol error: invalid multibulk length\r\n");
    let mut bad = Client::connect(&server);
    bad.send_raw(b"*1\r\n$536870913\r\n");
    assert_eq!(bad.read_to_close(), b"-ERR Protocol error: invalid bulk length\r\n");
    let mut bad = Client::connect(&server);
    bad.send_raw(b"ECHO \"unbalanced\r\n");
    assert_eq!(bad.read_to_close(), b"-ERR Protocol error: unbalanced quotes in request\r\n");
    assert_eq!(good.cmd(&["XLEN", "s"]), int(1));
}

#[test]
fn a_too_big_inline_request_closes_only_that_connection() {
    let server = server();
    let mut good = Client::connect(&server);
    let mut bad = Client::connect(&server);
    bad.send_raw(&vec![b'a'; 70 * 1024]);
    assert_eq!(bad.read_to_close(), b"-ERR Protocol error: too big inline request\r\n");
    let mut bad = Client::connect(&server);
    let mut header = b"*1\r\n$".to_vec();
    header.extend(vec![b'1'; 70 * 1024]);
    bad.send_raw(&header);
    assert_eq!(bad.read_to_close(), b"-ERR Protocol error: too big bulk count string\r\n");
    assert_eq!(good.cmd(&["PING"]), status("PONG"));
}

#[test]
fn cross_protocol_scripting_is_refused_silently() {
    let server = server();
    let mut c = Client::connect(&server);
    c.send_raw(b"POST / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_eq!(c.read_to_close(), b"");
}

#[test]
fn garbage_never_takes_the_server_down() {
    let server = server();
    const PIECES: [u8; 13] = [b'*', b'$', b'\r', b'\n', b'1', b'-', b'X', b'A', b'D', b' ', b'"', 0, b'9'];
    let mut rng = Rng::new(0);
    for _ in 0..40 {
        let mut c = Client::connect(&server);
        let bytes: Vec<u8> = (0..2000).map(|_| PIECES[rng.index(PIECES.len())]).collect();
        c.send_raw(&bytes);
        let _ = c.has_reply_within(20);
    }
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["PING"]), status("PONG"));
}

#[test]
fn many_concurrent_connections() {
    let server = server();
    let port = server.tcp_port().unwrap();
    let workers: Vec<_> = (0..64)
        .map(|w| {
            thread::spawn(move || {
                let stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
                stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
                let mut c = Client::from_stream(stream);
                for i in 0..50 {
                    let reply = c.cmd(&["XADD", "shared", "*", "worker", &w.to_string(), "i", &i.to_string()]);
                    assert!(matches!(reply, Reply::Bulk(_)), "{reply:?}");
                }
                assert_eq!(c.cmd(&["CLIENT", "SETNAME", &format!("w{w}")]), status("OK"));
                c
            })
        })
        .collect();
    let clients: Vec<Client> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["XLEN", "shared"]), int(64 * 50));
    let list = text(&c.cmd(&["CLIENT", "LIST"]));
    assert_eq!(list.lines().count(), 65, "{list}");
    drop(clients);
}

#[test]
fn info_and_client_list_know_the_connection() {
    let server = server();
    let port = server.tcp_port().unwrap();
    let mut c = Client::connect(&server);
    let info = text(&c.cmd(&["INFO", "server"]));
    assert!(info.contains(&format!("\r\ntcp_port:{port}\r\n")), "{info}");
    assert!(info.contains(&format!("\r\nlistener0:name=tcp,bind=127.0.0.1,port={port}\r\n")), "{info}");
    assert!(info.contains(&format!("\r\nprocess_id:{}\r\n", std::process::id())), "{info}");
    let list = text(&c.cmd(&["CLIENT", "LIST"]));
    let local = c.stream.local_addr().unwrap();
    assert!(list.contains(&format!(" addr={local} laddr=127.0.0.1:{port} fd=")), "{list}");
    assert!(list.contains(" age=0 idle=0 flags=N "), "{list}");
}

/// The `name:value` field of an INFO text.
fn info_field<'a>(info: &'a str, name: &str) -> &'a str {
    info.split("\r\n")
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .unwrap_or_else(|| panic!("{name} in {info}"))
}

#[test]
fn inside_multi_info_and_client_list_answer_as_outside() {
    let server = server();
    let port = server.tcp_port().unwrap();
    let mut c = Client::connect(&server);
    let outside_info = text(&c.cmd(&["INFO", "server"]));
    let outside_list = text(&c.cmd(&["CLIENT", "LIST"]));
    assert_eq!(c.cmd(&["MULTI"]), status("OK"));
    assert_eq!(c.cmd(&["INFO", "server"]), status("QUEUED"));
    assert_eq!(c.cmd(&["CLIENT", "LIST"]), status("QUEUED"));
    let Reply::Array(replies) = c.cmd(&["EXEC"]) else { panic!("EXEC answers an array") };
    let (inside_info, inside_list) = (text(&replies[0]), text(&replies[1]));
    for name in ["tcp_port", "process_id", "executable", "config_file", "listener0"] {
        assert_eq!(info_field(&inside_info, name), info_field(&outside_info, name), "{name}");
    }
    assert_eq!(info_field(&inside_info, "tcp_port"), port.to_string());
    assert_eq!(info_field(&inside_info, "process_id"), std::process::id().to_string());
    // The same connection, the same peer fields; only the MULTI state differs, as on Redis.
    let fields = |list: &str| -> Vec<String> {
        list.split(' ')
            .filter(|f| ["addr=", "laddr=", "fd=", "id="].iter().any(|p| f.starts_with(p)))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(fields(&inside_list), fields(&outside_list));
    let local = c.stream.local_addr().unwrap();
    assert!(inside_list.contains(&format!(" addr={local} laddr=127.0.0.1:{port} fd=")), "{inside_list}");
    assert!(inside_list.contains(" flags=x ") && inside_list.contains(" multi=2 "), "{inside_list}");
}

#[test]
fn quit_behind_a_blocked_read_closes_once_the_read_is_served() {
    let server = server();
    let mut reader = Client::connect(&server);
    let mut writer = Client::connect(&server);
    reader.send(&["XREAD", "BLOCK", "0", "STREAMS", "s", "$"]);
    reader.send(&["QUIT"]);
    reader.send(&["PING"]);
    assert!(!reader.has_reply_within(100));
    assert_eq!(writer.cmd(&["XADD", "s", "1-0", "f", "v"]), bulk("1-0"));
    assert!(matches!(reader.read(), Reply::Array(_)));
    assert_eq!(reader.read(), status("OK"));
    assert_eq!(reader.read_to_close(), b"", "QUIT closed the connection, and the PING after it never ran");
}

#[test]
fn debug_is_refused_by_default_as_redis_refuses_it() {
    let server = server();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["DEBUG"]), Reply::Error("ERR wrong number of arguments for 'debug' command".into()));
    let Reply::Error(refusal) = c.cmd(&["DEBUG", "SLEEP", "0"]) else { panic!() };
    assert!(
        refusal.starts_with("ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\"")
    );
    // Refused while queueing: the transaction is aborted, as in Redis.
    c.cmd(&["MULTI"]);
    assert!(c.cmd(&["DEBUG", "SLEEP", "0"]).is_error());
    assert_eq!(c.cmd(&["EXEC"]), Reply::Error("EXECABORT Transaction discarded because of previous errors.".into()));
    let local = server_with(|c| c.debug = DebugAccess::Local);
    let mut c = Client::connect(&local);
    assert_eq!(c.cmd(&["DEBUG", "SLEEP", "0"]), status("OK"));
}

#[test]
fn debug_subcommands() {
    let server = server_with(|c| c.debug = DebugAccess::Yes);
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["DEBUG", "SLEEP", "0"]), status("OK"));
    assert_eq!(c.cmd(&["DEBUG", "sleep", "0.01"]), status("OK"));
    assert_eq!(
        c.cmd(&["DEBUG", "SLEEP"]),
        Reply::Error("ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP.".into())
    );
    assert_eq!(
        c.cmd(&["DEBUG", "jmap"]),
        Reply::Error("ERR unknown subcommand or wrong number of arguments for 'jmap'. Try DEBUG HELP.".into())
    );
    assert!(matches!(c.cmd(&["DEBUG", "HELP"]), Reply::Array(lines) if lines.len() == 9));
    // A table command like any other: queued inside MULTI and run by EXEC.
    assert_eq!(c.cmd(&["MULTI"]), status("OK"));
    assert_eq!(c.cmd(&["DEBUG", "SLEEP", "0"]), status("QUEUED"));
    assert_eq!(c.cmd(&["DEBUG", "nope"]), status("QUEUED"));
    let subcommand = "ERR unknown subcommand or wrong number of arguments for 'nope'. Try DEBUG HELP.";
    assert_eq!(c.cmd(&["EXEC"]), array(vec![status("OK"), Reply::Error(subcommand.into())]));
    // The system clock cannot be moved.
    assert!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "10"]).is_error());
}

#[test]
fn the_virtual_clock_moves_only_through_debug() {
    let server = virtual_server();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "GET"]), int(1_700_000_000_000));
    assert_eq!(c.cmd(&["XADD", "s", "*", "a", "1"]), bulk("1700000000000-0"));
    assert_eq!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "1500"]), status("OK"));
    assert_eq!(c.cmd(&["XADD", "s", "*", "a", "2"]), bulk("1700000001500-0"));
    assert_eq!(c.cmd(&["DEBUG", "SLEEP", "2"]), status("OK"));
    assert_eq!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "GET"]), int(1_700_000_003_500));
    assert_eq!(
        c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "-1"]),
        Reply::Error("ERR value is not an integer or out of range".into())
    );
    // A blocked read waits however long the wall clock runs, until the clock is moved.
    let mut reader = Client::connect(&server);
    reader.send(&["XREAD", "BLOCK", "1000", "STREAMS", "s", "$"]);
    assert!(!reader.has_reply_within(1200));
    assert_eq!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "999"]), status("OK"));
    assert!(!reader.has_reply_within(100));
    assert_eq!(c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "1"]), status("OK"));
    assert_eq!(reader.read(), Reply::NullArray);
    // Idle times follow the virtual clock too.
    c.cmd(&["XGROUP", "CREATE", "s", "g", "0"]);
    c.cmd(&["XREADGROUP", "GROUP", "g", "w", "COUNT", "1", "STREAMS", "s", ">"]);
    c.cmd(&["DEBUG", "STREAMLAB-CLOCK", "ADVANCE", "250"]);
    let pending = c.cmd(&["XPENDING", "s", "g", "-", "+", "10"]);
    assert_eq!(pending, array(vec![array(vec![bulk("1700000000000-0"), bulk("w"), int(250), int(1)])]));
}

#[test]
fn a_unix_socket_with_tcp_off() {
    let dir = std::env::temp_dir().join(format!("streamlab-unix-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("redis.sock");
    std::fs::write(&path, b"stale").unwrap();
    let server = server_with(|c| {
        c.port = Port::Disabled;
        c.unixsocket = Some(path.clone());
        c.unixsocketperm = Some(0o700);
    });
    assert_eq!(server.tcp_port(), None);
    use std::io::{Read, Write};
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o700);
    let mut s = std::os::unix::net::UnixStream::connect(&path).unwrap();
    s.write_all(b"PING\r\nCLIENT LIST\r\n").unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    while !got.ends_with(b"\n\r\n") {
        let n = s.read(&mut chunk).unwrap();
        assert!(n > 0);
        got.extend_from_slice(&chunk[..n]);
    }
    let got = String::from_utf8(got).unwrap();
    assert!(got.starts_with("+PONG\r\n"), "{got}");
    assert!(got.contains(&format!("addr={0}:0 laddr={0}:0 fd=", path.display())), "{got}");
    assert!(got.contains(" flags=U "), "{got}");
    server.shutdown();
    assert!(!path.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn shutdown_closes_the_port_and_the_clients() {
    let server = server();
    let port = server.tcp_port().unwrap();
    let mut c = Client::connect(&server);
    c.send(&["XREAD", "BLOCK", "0", "STREAMS", "s", "$"]);
    assert!(!c.has_reply_within(50));
    server.shutdown();
    assert_eq!(c.read_to_close(), b"");
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn a_request_of_many_arguments_trickling_in_holds_nobody_up() {
    let server = server();
    let mut c = Client::connect(&server);
    let mut args = vec!["XADD".to_owned(), "wide".to_owned(), "1-0".to_owned()];
    args.extend((0..400_000).map(|i| format!("f{i}")));
    let request = streamlab_protocol::encode_request(&args);
    c.send_raw(&request);
    assert_eq!(c.read(), bulk("1-0"));
    // A request held one argument short, then fed a byte at a time, while another client is
    // served between the bytes; it completes with its last byte (how fast is
    // tests/bench/hostile.py's business).
    let mut slow = Client::connect(&server);
    let mut other = Client::connect(&server);
    let mut request = b"*200002\r\n$4\r\nECHO\r\n$5\r\nfirst\r\n".to_vec();
    request.extend(b"$1\r\na\r\n".repeat(199_999));
    slow.send_raw(&request);
    for &byte in b"$1\r\nz\r\n" {
        assert_eq!(other.cmd(&["PING"]), status("PONG"));
        slow.send_raw(&[byte]);
    }
    assert_eq!(slow.read(), Reply::Error("ERR wrong number of arguments for 'echo' command".into()));
    // The last byte of a large bulk completes it at once.
    let request = streamlab_protocol::encode_request(&["ECHO", &"y".repeat(1_000_000)]);
    c.send_raw(&request[..request.len() - 1]);
    thread::sleep(Duration::from_millis(100));
    c.send_raw(&request[request.len() - 1..]);
    assert_eq!(c.read(), bulk(&"y".repeat(1_000_000)));
}

#[test]
fn a_subscriber_that_never_reads_is_disconnected_past_the_output_limit() {
    let server = server();
    let mut idle = Client::connect(&server);
    assert_eq!(idle.cmd(&["SUBSCRIBE", "firehose"]), array(vec![bulk("subscribe"), bulk("firehose"), int(1)]));
    let mut publisher = Client::connect(&server);
    let payload = "z".repeat(1024 * 1024);
    let mut receivers = Vec::new();
    for _ in 0..100 {
        let Reply::Integer(n) = publisher.cmd(&["PUBLISH", "firehose", &payload]) else { panic!() };
        receivers.push(n);
    }
    // Once the unread output passed 32 MB the subscriber was dropped.
    assert_eq!(receivers.first(), Some(&1));
    assert_eq!(receivers.last(), Some(&0));
    assert_eq!(publisher.cmd(&["PUBSUB", "NUMSUB", "firehose"]), array(vec![bulk("firehose"), int(0)]));
}

#[test]
fn connection_commands_over_the_wire() {
    let server = server();
    let mut c = Client::connect(&server);
    let Reply::Integer(id) = c.cmd(&["CLIENT", "ID"]) else { panic!() };
    assert!(id > 0);
    assert_eq!(c.cmd(&["CLIENT", "GETNAME"]), Reply::NullBulk);
    assert_eq!(c.cmd(&["CLIENT", "SETNAME", "worker-1"]), status("OK"));
    assert_eq!(c.cmd(&["CLIENT", "GETNAME"]), bulk("worker-1"));
    assert!(text(&c.cmd(&["CLIENT", "LIST"])).contains(&format!("id={id} ")));
    assert_eq!(c.cmd(&["SELECT", "0"]), status("OK"));
    assert_eq!(c.cmd(&["SELECT", "1"]), Reply::Error("ERR DB index is out of range".into()));
    assert!(matches!(c.cmd(&["COMMAND", "COUNT"]), Reply::Integer(n) if n > 20));
    assert!(matches!(c.cmd(&["COMMAND", "DOCS", "XADD"]), Reply::Array(docs) if docs.len() == 2));
    assert_eq!(c.cmd(&["CONFIG", "SET", "stream-node-max-entries", "7"]), status("OK"));
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "stream-node-max-entries"]),
        array(vec![bulk("stream-node-max-entries"), bulk("7")])
    );
    c.cmd(&["HELLO", "3"]);
    c.cmd(&["SUBSCRIBE", "x"]);
    assert_eq!(c.cmd(&["RESET"]), status("RESET"));
    // RESET returns to RESP2, no name, no subscriptions.
    assert_eq!(c.cmd(&["CLIENT", "GETNAME"]), Reply::NullBulk);
    assert_eq!(c.cmd(&["XREAD", "STREAMS", "nosuch", "0"]), Reply::NullArray);
    assert_eq!(c.cmd(&["PUBSUB", "NUMSUB", "x"]), array(vec![bulk("x"), int(0)]));
}
