//! A minimal RESP client and server launcher for the integration tests.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use streamlab_protocol::{decode_reply, encode_request, Reply};
use streamlab_server::{ClockKind, Config, DebugAccess, Port, Server};

/// A server on an ephemeral loopback port.
pub fn server() -> Server {
    server_with(|_| {})
}

/// A server on an ephemeral loopback port, after `tweak` adjusts its configuration.
pub fn server_with(tweak: impl FnOnce(&mut Config)) -> Server {
    let mut config = Config { port: Port::Ephemeral, ..Config::default() };
    tweak(&mut config);
    Server::start(&config).expect("server starts")
}

/// A virtual-clock server that lets everybody run DEBUG.
pub fn virtual_server() -> Server {
    server_with(|c| {
        c.clock = ClockKind::Virtual;
        c.debug = DebugAccess::Yes;
    })
}

pub struct Client {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    pub fn connect(server: &Server) -> Client {
        Client::from_stream(TcpStream::connect(("127.0.0.1", server.tcp_port().expect("tcp on"))).expect("connect"))
    }

    pub fn from_stream(stream: TcpStream) -> Client {
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        Client { stream, buf: Vec::new() }
    }

    /// Sends a command without waiting for its reply.
    pub fn send(&mut self, args: &[&str]) {
        self.stream.write_all(&encode_request(args)).unwrap();
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// Reads one reply (RESP2 or RESP3).
    pub fn read(&mut self) -> Reply {
        loop {
            if let Some((reply, used)) = decode_reply(&self.buf, true).expect("well-formed reply") {
                self.buf.drain(..used);
                return reply;
            }
            let mut chunk = [0u8; 65536];
            let n = self.stream.read(&mut chunk).expect("reply before the timeout");
            assert!(
                n > 0,
                "connection closed while waiting for a reply; have {:?}",
                String::from_utf8_lossy(&self.buf)
            );
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }

    /// Sends a command and reads its reply.
    pub fn cmd(&mut self, args: &[&str]) -> Reply {
        self.send(args);
        self.read()
    }

    /// Reads until the server closes the connection; returns everything that came.
    pub fn read_to_close(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.buf);
        let mut chunk = [0u8; 65536];
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => return out,
                Ok(n) => out.extend_from_slice(&chunk[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return out,
                Err(e) => panic!("connection not closed: {e}; have {:?}", String::from_utf8_lossy(&out)),
            }
        }
    }

    /// Whether a reply arrives within `ms` milliseconds (it stays buffered).
    pub fn has_reply_within(&mut self, ms: u64) -> bool {
        if decode_reply(&self.buf, true).ok().flatten().is_some() {
            return true;
        }
        self.stream.set_read_timeout(Some(Duration::from_millis(ms))).unwrap();
        let mut chunk = [0u8; 65536];
        let got = match self.stream.read(&mut chunk) {
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                n > 0
            }
            Err(_) => false,
        };
        self.stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        got
    }
}

pub fn bulk(s: &str) -> Reply {
    Reply::Bulk(s.as_bytes().to_vec())
}

pub fn status(s: &str) -> Reply {
    Reply::Status(s.to_owned())
}

pub fn int(n: i64) -> Reply {
    Reply::Integer(n)
}

pub fn array(items: Vec<Reply>) -> Reply {
    Reply::Array(items)
}

/// The text of a bulk or verbatim reply.
pub fn text(reply: &Reply) -> String {
    match reply {
        Reply::Bulk(b) => String::from_utf8_lossy(b).into_owned(),
        Reply::Verbatim { text, .. } => String::from_utf8_lossy(text).into_owned(),
        other => panic!("not text: {other:?}"),
    }
}
