//! Redis's client limits over real sockets: `proto-max-bulk-len`, `client-query-buffer-limit`
//! and `client-output-buffer-limit`, read and changed with CONFIG as on Redis 8.2.3.

mod common;

use common::{array, bulk, int, server, status, Client};
use streamlab_protocol::Reply;

fn config_error(name: &str, reason: &str) -> Reply {
    Reply::Error(format!("ERR CONFIG SET failed (possibly related to argument '{name}') - {reason}"))
}

#[test]
fn config_get_and_set_answer_as_redis() {
    let server = server();
    let mut c = Client::connect(&server);
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "proto-max-bulk-len"]),
        array(vec![bulk("proto-max-bulk-len"), bulk("536870912")])
    );
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "client*"]),
        array(vec![
            bulk("client-query-buffer-limit"),
            bulk("1073741824"),
            bulk("client-output-buffer-limit"),
            bulk("normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
        ])
    );
    let range = "argument must be between 1048576 and 9223372036854775807 inclusive";
    assert_eq!(c.cmd(&["CONFIG", "SET", "proto-max-bulk-len", "100"]), config_error("proto-max-bulk-len", range));
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "client-query-buffer-limit", "abc"]),
        config_error("client-query-buffer-limit", "argument must be a memory value")
    );
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 2k x"]),
        config_error(
            "client-output-buffer-limit",
            "Error in hard, soft or soft_seconds setting in buffer limit configuration."
        )
    );
    // Names first, then values, and nothing changes when one fails.
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "proto-max-bulk-len", "1mb", "proto-max-bulk-len", "2mb"]),
        config_error("proto-max-bulk-len", "duplicate parameter")
    );
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "proto-max-bulk-len", "1mb", "stream-node-max-entries", "-5"]),
        config_error("stream-node-max-entries", "argument must be between 0 and 9223372036854775807 inclusive")
    );
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "proto-max-bulk-len"]),
        array(vec![bulk("proto-max-bulk-len"), bulk("536870912")])
    );
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "Client-Output-Buffer-Limit", "replica 1mb 1 3 normal 5mb 6mb 7"]),
        status("OK")
    );
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "client-output-buffer-limit"]),
        array(vec![
            bulk("client-output-buffer-limit"),
            bulk("normal 5242880 6291456 7 slave 1048576 1 3 pubsub 33554432 8388608 60")
        ])
    );
    // Queued in a transaction like every other parameter.
    assert_eq!(c.cmd(&["MULTI"]), status("OK"));
    assert_eq!(c.cmd(&["CONFIG", "SET", "proto-max-bulk-len", "2mb"]), status("QUEUED"));
    assert_eq!(c.cmd(&["EXEC"]), array(vec![status("OK")]));
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "proto-max-bulk-len"]),
        array(vec![bulk("proto-max-bulk-len"), bulk("2097152")])
    );
}

#[test]
fn a_bulk_over_a_lowered_proto_max_bulk_len_is_refused() {
    let server = server();
    let mut admin = Client::connect(&server);
    assert_eq!(admin.cmd(&["CONFIG", "SET", "proto-max-bulk-len", "1mb"]), status("OK"));
    let mut c = Client::connect(&server);
    let mut request = b"*2\r\n$4\r\nECHO\r\n$1048576\r\n".to_vec();
    request.extend(vec![b'x'; 1024 * 1024]);
    request.extend_from_slice(b"\r\n");
    c.send_raw(&request);
    assert_eq!(c.read(), Reply::Bulk(vec![b'x'; 1024 * 1024]));
    // One byte more is refused at its header, as Redis refuses it, and the connection closes.
    c.send_raw(b"*2\r\n$4\r\nECHO\r\n$1048577\r\n");
    assert_eq!(c.read_to_close(), b"-ERR Protocol error: invalid bulk length\r\n");
    assert_eq!(admin.cmd(&["PING"]), status("PONG"));
}

#[test]
fn a_client_past_the_query_buffer_limit_is_closed_without_a_reply() {
    let server = server();
    let mut admin = Client::connect(&server);
    assert_eq!(admin.cmd(&["CONFIG", "SET", "client-query-buffer-limit", "1mb"]), status("OK"));
    // The argument being read counts (as it sits in Redis's query buffer) ...
    let mut big = Client::connect(&server);
    let mut request = b"*2\r\n$4\r\nECHO\r\n$2000000\r\n".to_vec();
    request.extend(vec![b'a'; 1_500_000]);
    big.send_raw(&request);
    assert_eq!(big.read_to_close(), b"");
    // ... the arguments already read do not: 1.4 MB of small ones wait for the rest.
    let mut many = Client::connect(&server);
    let mut request = b"*300000\r\n$6\r\nNOSUCH\r\n".to_vec();
    request.extend(b"$1\r\na\r\n".repeat(200_000));
    many.send_raw(&request);
    assert!(!many.has_reply_within(200));
    many.send_raw(&b"$1\r\na\r\n".repeat(99_999));
    let Reply::Error(text) = many.read() else { panic!("an error") };
    assert!(text.starts_with("ERR unknown command 'NOSUCH'"), "{text}");
    assert_eq!(admin.cmd(&["PING"]), status("PONG"));
}

#[test]
fn a_subscriber_over_a_lowered_hard_limit_is_disconnected() {
    let server = server();
    let mut admin = Client::connect(&server);
    assert_eq!(admin.cmd(&["CONFIG", "SET", "client-output-buffer-limit", "pubsub 256kb 0 0"]), status("OK"));
    let mut idle = Client::connect(&server);
    assert_eq!(idle.cmd(&["SUBSCRIBE", "firehose"]), array(vec![bulk("subscribe"), bulk("firehose"), int(1)]));
    let payload = "z".repeat(16 * 1024);
    // The socket buffers take a few MB before the server holds any output; past them the
    // unsent messages reach the limit and the subscriber is dropped.
    let mut published = 0;
    while admin.cmd(&["PUBLISH", "firehose", &payload]) == int(1) {
        published += 1;
        assert!(published < 100_000, "never disconnected");
    }
    assert_eq!(admin.cmd(&["PUBSUB", "NUMSUB", "firehose"]), array(vec![bulk("firehose"), int(0)]));
    // A normal client is not in that class: its replies are not limited by default.
    let mut reader = Client::connect(&server);
    assert_eq!(reader.cmd(&["ECHO", &"y".repeat(1024 * 1024)]), bulk(&"y".repeat(1024 * 1024)));
}

#[test]
fn a_normal_client_over_its_hard_limit_gets_nothing_more() {
    let server = server();
    let mut admin = Client::connect(&server);
    assert_eq!(admin.cmd(&["CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0"]), status("OK"));
    let mut c = Client::connect(&server);
    // One reply over the limit (what the socket takes is not counted, so a single reply is
    // what makes this independent of the kernel's buffers).
    let mut pipeline = streamlab_protocol::encode_request(&["ECHO", &"e".repeat(2 * 1024 * 1024)]);
    pipeline.extend_from_slice(&streamlab_protocol::encode_request(&["SET", "after", "1"]));
    c.send_raw(&pipeline);
    assert_eq!(c.read_to_close(), b"");
    // What followed the command that went over was not run.
    assert_eq!(admin.cmd(&["EXISTS", "after"]), int(0));
    // Under the limit, replies flow.
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["ECHO", &"e".repeat(1000)]), bulk(&"e".repeat(1000)));
}
