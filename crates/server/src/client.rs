//! One client's connection: its socket, its input as far as it is parsed, its unsent
//! output, and the limits Redis puts on both (see [`crate::limits`]).
//!
//! Input goes through the client's [`RequestParser`], which consumes every byte it can use:
//! a read is parsed where it landed (the loop's shared buffer) and only the unfinished line
//! after the last complete argument is copied into the client's own `input`, so a large
//! request trickling in costs its own size once, and its bytes are looked at once.

use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::os::fd::AsRawFd;
use std::time::Instant;

use mio::net::{TcpStream, UnixStream};
use streamlab_protocol::{ProtocolError, RequestParser};

use crate::limits::{over_output_limit, ClassLimit};

/// How much one read takes from a socket. A read that fills it leaves the client marked
/// readable for the next round, so one busy client cannot hold the loop.
pub(crate) const READ_CHUNK: usize = 64 * 1024;

/// A connected socket of either family.
pub(crate) enum Sock {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Sock {
    pub(crate) fn shutdown(&self) {
        let _ = match self {
            Sock::Tcp(s) => s.shutdown(Shutdown::Both),
            Sock::Unix(s) => s.shutdown(Shutdown::Both),
        };
    }

    pub(crate) fn fd(&self) -> i32 {
        match self {
            Sock::Tcp(s) => s.as_raw_fd(),
            Sock::Unix(s) => s.as_raw_fd(),
        }
    }

    pub(crate) fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Sock::Tcp(s) => s.read(buf),
            Sock::Unix(s) => s.read(buf),
        }
    }

    pub(crate) fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sock::Tcp(s) => s.write(buf),
            Sock::Unix(s) => s.write(buf),
        }
    }

    pub(crate) fn source(&mut self) -> &mut dyn mio::event::Source {
        match self {
            Sock::Tcp(s) => s,
            Sock::Unix(s) => s,
        }
    }
}

/// What a connection asked for while blocked and gets once its wait ends.
pub(crate) enum Closing {
    /// Send these bytes, then close (a protocol error behind a blocked read).
    Pending(Vec<u8>),
    /// Already queued for sending.
    Sent,
}

/// A client: its socket, its buffers and what CLIENT LIST shows about it.
pub(crate) struct Client {
    pub(crate) sock: Sock,
    /// The peer's address, for log lines (the session has its CLIENT LIST fields).
    pub(crate) addr: String,
    pub(crate) closing: Option<Closing>,
    /// The request being read.
    parser: RequestParser,
    /// Received bytes the parser has not consumed: at most the unfinished line.
    input: Vec<u8>,
    /// Encoded replies not written yet; `output[sent..]` is what is left.
    pub(crate) output: Vec<u8>,
    pub(crate) sent: usize,
    /// Since when the unsent output has been at or over its class's soft limit.
    soft_since: Option<Instant>,
    /// The socket may hold unread bytes (mio reports readiness once per change).
    pub(crate) readable: bool,
    /// Queued in `Core::to_read` / `Core::to_write` (so it is queued once).
    pub(crate) queued_read: bool,
    pub(crate) queued_write: bool,
    /// The client is gone from the session: close once `output` is written.
    pub(crate) hangup: bool,
}

/// What one read from a client's socket gave.
pub(crate) enum Received {
    /// This many bytes, at the start of the buffer.
    Bytes(usize),
    /// The client is done sending.
    End,
    /// Nothing now; readiness will be reported again.
    Nothing,
    /// Interrupted: try again.
    Again,
    /// The connection failed.
    Failed,
}

/// What writing a client's output came to.
pub(crate) enum Flushed {
    /// Everything was written.
    All,
    /// The socket takes no more for now.
    Partly,
    /// The connection failed.
    Failed,
}

impl Client {
    pub(crate) fn new(sock: Sock, addr: String) -> Client {
        Client {
            sock,
            addr,
            closing: None,
            parser: RequestParser::new(),
            input: Vec::new(),
            output: Vec::new(),
            sent: 0,
            soft_since: None,
            readable: true,
            queued_read: false,
            queued_write: false,
            hangup: false,
        }
    }

    pub(crate) fn unsent(&self) -> usize {
        self.output.len() - self.sent
    }

    /// Reads once from the socket into `chunk`.
    pub(crate) fn receive(&mut self, chunk: &mut [u8]) -> Received {
        match self.sock.read(chunk) {
            Ok(0) => Received::End,
            Ok(n) => {
                // A short read emptied the socket; more bytes will be reported. A full one may
                // have left some: the caller comes back next round.
                if n < chunk.len() {
                    self.readable = false;
                }
                Received::Bytes(n)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                self.readable = false;
                Received::Nothing
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Received::Again,
            Err(_) => Received::Failed,
        }
    }

    /// The bytes Redis would count against `client-query-buffer-limit` once `more` are added:
    /// what waits unparsed and the part of the argument being read (arguments already read
    /// do not count).
    pub(crate) fn query_bytes(&self, more: usize) -> usize {
        self.input.len() + more + self.parser.partial_bulk()
    }

    /// Parses `got`, the bytes just read, after what was pending: every complete request is
    /// added to `requests` (empty ones, which Redis skips, are dropped). Returns the protocol
    /// error that stopped parsing, if any.
    pub(crate) fn feed(
        &mut self,
        got: &[u8],
        max_bulk: i64,
        requests: &mut Vec<Vec<Vec<u8>>>,
    ) -> Option<ProtocolError> {
        if self.input.is_empty() {
            // The usual case: parsed where it landed, and only an unfinished line is kept.
            let (used, error) = parse_all(&mut self.parser, got, max_bulk, requests);
            self.input.extend_from_slice(&got[used..]);
            return error;
        }
        self.input.extend_from_slice(got);
        let (used, error) = parse_all(&mut self.parser, &self.input, max_bulk, requests);
        self.input.drain(..used);
        if self.input.capacity() > 2 * READ_CHUNK && self.input.len() < READ_CHUNK {
            self.input.shrink_to(READ_CHUNK);
        }
        error
    }

    /// Roughly how much memory the client's buffers and half-read request hold.
    pub(crate) fn held_bytes(&self) -> usize {
        self.input.capacity() + self.output.capacity() + self.parser.held_bytes()
    }

    /// Drops the input and the request being read (the client is leaving or closing), with
    /// their memory.
    pub(crate) fn drop_input(&mut self) {
        self.input = Vec::new();
        self.parser = RequestParser::new();
    }

    /// Writes what the client is owed, as much as its socket takes.
    pub(crate) fn flush(&mut self) -> Flushed {
        while self.sent < self.output.len() {
            match self.sock.write(&self.output[self.sent..]) {
                Ok(0) => return Flushed::Failed,
                Ok(n) => self.sent += n,
                // The socket reports when it can take more.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return Flushed::Failed,
            }
        }
        if self.sent < self.output.len() {
            if self.sent > 64 * 1024 {
                self.output.drain(..self.sent);
                self.sent = 0;
            }
            return Flushed::Partly;
        }
        self.sent = 0;
        self.output.clear();
        if self.output.capacity() > 64 * 1024 {
            self.output = Vec::new();
        }
        self.soft_since = None;
        Flushed::All
    }

    /// Whether output of `unsent` bytes (the client's, or a batch being built for it) is
    /// over `limit` now.
    pub(crate) fn over_limit(&mut self, limit: ClassLimit, unsent: usize) -> bool {
        over_output_limit(limit, unsent, &mut self.soft_since, Instant::now())
    }
}

/// Parses every complete request at the start of `buf`; returns the bytes consumed and the
/// protocol error that stopped parsing, if any.
fn parse_all(
    parser: &mut RequestParser,
    buf: &[u8],
    max_bulk: i64,
    requests: &mut Vec<Vec<Vec<u8>>>,
) -> (usize, Option<ProtocolError>) {
    let mut used = 0;
    loop {
        let (n, result) = parser.parse(&buf[used..], max_bulk);
        used += n;
        match result {
            Ok(Some(args)) => {
                if !args.is_empty() {
                    requests.push(args.into_vecs());
                }
            }
            Ok(None) => return (used, None),
            Err(e) => return (used, Some(e)),
        }
    }
}
