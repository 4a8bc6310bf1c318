//! Errors echo a command's bytes raw, as Redis does (review A1.1 and A1.46).

mod common;

use std::io::Read;

use common::{server, Client};

/// Sends a request and returns the raw bytes of the one-line reply.
fn raw_reply(c: &mut Client, args: &[&[u8]]) -> Vec<u8> {
    let mut request = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        request.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        request.extend_from_slice(arg);
        request.extend_from_slice(b"\r\n");
    }
    c.send_raw(&request);
    let mut out = Vec::new();
    let mut byte = [0u8; 1];
    while !out.ends_with(b"\r\n") {
        assert_eq!(c.stream.read(&mut byte).unwrap(), 1, "a whole reply line");
        out.push(byte[0]);
    }
    out
}

#[test]
fn non_utf8_bytes_in_errors_go_out_as_they_came() {
    let server = server();
    let mut c = Client::connect(&server);
    // The replies Redis 8.2.3 sends for the same requests.
    assert_eq!(raw_reply(&mut c, &[b"\xff\xfe"]), b"-ERR unknown command '\xff\xfe', with args beginning with: \r\n");
    assert_eq!(raw_reply(&mut c, &[b"client", b"kill", b"user", b"\xff"]), b"-ERR No such user '\xff'\r\n");
    assert_eq!(raw_reply(&mut c, &[b"xgroup", b"\xfe"]), b"-ERR unknown subcommand '\xfe'. Try XGROUP HELP.\r\n");
    assert_eq!(raw_reply(&mut c, &[b"PING"]), b"+PONG\r\n");
}
