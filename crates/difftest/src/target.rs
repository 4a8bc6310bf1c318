//! The two kinds of target a sequence runs on.
//!
//! * `redis://HOST:PORT`: a server over TCP (Redis 8.2.3, or StreamLab's own server), spoken
//!   to in RESP2 with `streamlab_protocol::{encode_request, decode_reply}`. One TCP connection
//!   per sequence connection, plus a control connection that resets the server between
//!   sequences and watches which connections are blocked (`CLIENT LIST`, flag `b`).
//! * `inproc`: a `streamlab_protocol::Session` in this process, on the system clock (or, for
//!   printing transcripts, on the virtual clock the transcripts use).
//!
//! Both answer a step with what every connection received during it: the issuing
//! connection's reply first (none if its read blocked), then the replies of blocked
//! connections that the step served, in the order those connections blocked.

use std::collections::BTreeMap;
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use streamlab_protocol::{
    decode_reply, encode, encode_request, Clock, ConnId, Profile, Reply, Session, VIRTUAL_EPOCH_MS,
};

/// The in-process target answers as the reference server does: Redis 8.2.3.
const REFERENCE_PROFILE: Profile = Profile::Redis82;

/// What every connection received during one step: `(connection, reply)`.
pub type Observation = Vec<(usize, Reply)>;

/// How long a server may take to answer before the run gives up on it.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

/// Something that runs commands.
pub trait Target {
    /// A short description for reports (`redis://127.0.0.1:16379`, `inproc`).
    fn describe(&self) -> String;
    /// Drops the connections of the previous sequence, empties the keyspace, restores the
    /// default node limits and opens `conns` fresh connections.
    fn reset(&mut self, conns: usize) -> Result<(), String>;
    /// Runs one command on a connection that is not blocked.
    fn step(&mut self, conn: usize, args: &[Vec<u8>]) -> Result<Observation, String>;
    /// Whether a connection waits in a blocking read.
    fn is_blocked(&self, conn: usize) -> bool;
    /// Internal consistency after a step (StreamLab's invariants); `Err` is a bug.
    fn check(&self) -> Result<(), String> {
        Ok(())
    }
}

/// Opens a target from its description: `redis://HOST:PORT`, `inproc` or `inproc-virtual`.
pub fn open(spec: &str) -> Result<Box<dyn Target>, String> {
    if let Some(addr) = spec.strip_prefix("redis://") {
        let addr = addr.trim_end_matches('/');
        return Ok(Box::new(Tcp::new(addr)?));
    }
    match spec {
        "inproc" => Ok(Box::new(Inproc::new(Clock::Host(host_now)))),
        "inproc-virtual" => Ok(Box::new(Inproc::new(Clock::Virtual(VIRTUAL_EPOCH_MS)))),
        _ => Err(format!("unknown target '{spec}': use redis://HOST:PORT, inproc or inproc-virtual")),
    }
}

/// The system clock in Unix milliseconds.
pub fn host_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// Whether a command may block: XREAD or XREADGROUP with a BLOCK option.
fn may_block(args: &[Vec<u8>]) -> bool {
    let name = args.first().map(|a| a.to_ascii_lowercase()).unwrap_or_default();
    (name == b"xread" || name == b"xreadgroup") && args.iter().any(|a| a.eq_ignore_ascii_case(b"block"))
}

// ----- TCP --------------------------------------------------------------------------------------

/// One RESP2 connection.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    /// The server's CLIENT ID for it.
    pub id: i64,
}

impl Conn {
    /// Connects and asks for the connection's id.
    pub fn open(addr: &str) -> Result<Conn, String> {
        let stream = TcpStream::connect(addr).map_err(|e| format!("{addr}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let mut conn = Conn { stream, buf: Vec::with_capacity(4096), id: 0 };
        match conn.call(&[b"CLIENT".as_slice(), b"ID"])? {
            Reply::Integer(id) => conn.id = id,
            other => return Err(format!("{addr}: CLIENT ID answered {other:?}")),
        }
        Ok(conn)
    }

    /// Sends a command without waiting.
    pub fn send<A: AsRef<[u8]>>(&mut self, args: &[A]) -> Result<(), String> {
        self.stream.write_all(&encode_request(args)).map_err(|e| format!("write: {e}"))
    }

    /// Sends raw bytes (a pipeline of encoded requests).
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.stream.write_all(bytes).map_err(|e| format!("write: {e}"))
    }

    /// A reply already complete in the buffer, if any.
    fn buffered(&mut self) -> Result<Option<Reply>, String> {
        match decode_reply(&self.buf, false) {
            Ok(Some((reply, used))) => {
                self.buf.drain(..used);
                Ok(Some(reply))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(format!("undecodable reply: {e}")),
        }
    }

    /// The next reply, waiting at most `wait`; `None` if none arrived in time.
    pub fn reply_within(&mut self, wait: Duration) -> Result<Option<Reply>, String> {
        let deadline = Instant::now() + wait;
        let mut chunk = [0u8; 16 * 1024];
        let mut first = true;
        loop {
            if let Some(reply) = self.buffered()? {
                return Ok(Some(reply));
            }
            let left = deadline.saturating_duration_since(Instant::now());
            // Even with no time left, look once at what the socket already holds.
            if left.is_zero() && !first {
                return Ok(None);
            }
            first = false;
            self.stream.set_read_timeout(Some(left.max(Duration::from_micros(100)))).map_err(|e| e.to_string())?;
            match self.stream.read(&mut chunk) {
                Ok(0) => return Err("connection closed by the server".into()),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("read: {e}")),
            }
        }
    }

    /// The next reply; an error if none comes within [`ANSWER_TIMEOUT`].
    pub fn reply(&mut self) -> Result<Reply, String> {
        self.reply_within(ANSWER_TIMEOUT)?.ok_or_else(|| "no reply within 20 s (did the server crash?)".to_owned())
    }

    /// Fails if bytes follow the last reply: one command was sent, so more would mean the
    /// server's reply did not match its own length headers.
    fn check_drained(&self) -> Result<(), String> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(format!("{} bytes after a complete reply: the server's reply is malformed", self.buf.len()))
        }
    }

    /// Sends a command and waits for its reply.
    pub fn call<A: AsRef<[u8]>>(&mut self, args: &[A]) -> Result<Reply, String> {
        self.send(args)?;
        self.reply()
    }
}

/// A server over TCP.
pub struct Tcp {
    addr: String,
    control: Conn,
    conns: Vec<Conn>,
    blocked: Vec<usize>,
}

impl Tcp {
    fn new(addr: &str) -> Result<Tcp, String> {
        let control = Conn::open(addr)?;
        Ok(Tcp { addr: addr.to_owned(), control, conns: Vec::new(), blocked: Vec::new() })
    }

    /// CLIENT LIST as id -> flags.
    fn client_flags(&mut self) -> Result<BTreeMap<i64, String>, String> {
        let text = match self.control.call(&["CLIENT", "LIST"])? {
            Reply::Bulk(text) => String::from_utf8_lossy(&text).into_owned(),
            other => return Err(format!("CLIENT LIST answered {other:?}")),
        };
        let mut flags = BTreeMap::new();
        for line in text.lines() {
            let field = |name: &str| {
                line.split(' ')
                    .find_map(|kv| kv.strip_prefix(name).and_then(|v| v.strip_prefix('=')))
                    .map(str::to_owned)
            };
            if let (Some(id), Some(f)) = (field("id").and_then(|v| v.parse().ok()), field("flags")) {
                flags.insert(id, f);
            }
        }
        Ok(flags)
    }

    /// The reply to a command that may block, or `None` once the server lists the connection
    /// as blocked.
    fn reply_or_blocked(&mut self, conn: usize) -> Result<Option<Reply>, String> {
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        if let Some(reply) = self.conns[conn].reply_within(Duration::from_millis(2))? {
            return Ok(Some(reply));
        }
        while Instant::now() < deadline {
            let flags = self.client_flags()?;
            let blocked = flags.get(&self.conns[conn].id).is_some_and(|f| f.contains('b'));
            // A reply may have arrived while CLIENT LIST ran: it wins.
            if let Some(reply) = self.conns[conn].reply_within(Duration::ZERO)? {
                return Ok(Some(reply));
            }
            if blocked {
                return Ok(None);
            }
            if let Some(reply) = self.conns[conn].reply_within(Duration::from_millis(1))? {
                return Ok(Some(reply));
            }
        }
        Err(format!("{}: connection {conn} neither answered nor blocked", self.addr))
    }
}

impl Target for Tcp {
    fn describe(&self) -> String {
        format!("redis://{}", self.addr)
    }

    fn reset(&mut self, conns: usize) -> Result<(), String> {
        self.conns.clear();
        self.blocked.clear();
        // Wait until the server has seen the old connections go (a stale blocked reader could
        // otherwise still be served), then start from an empty keyspace and default limits.
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        while self.client_flags()?.len() > 1 {
            if Instant::now() > deadline {
                return Err(format!("{}: old connections do not go away", self.addr));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        for args in
            [&["FLUSHALL"][..], &["CONFIG", "SET", "stream-node-max-entries", "100", "stream-node-max-bytes", "4096"]]
        {
            let reply = self.control.call(args)?;
            if reply != Reply::ok() {
                return Err(format!("{}: {} answered {reply:?}", self.addr, args.join(" ")));
            }
        }
        for _ in 0..conns {
            self.conns.push(Conn::open(&self.addr)?);
        }
        Ok(())
    }

    fn step(&mut self, conn: usize, args: &[Vec<u8>]) -> Result<Observation, String> {
        self.conns[conn].send(args)?;
        let own = if may_block(args) { self.reply_or_blocked(conn)? } else { Some(self.conns[conn].reply()?) };
        let mut seen = Vec::new();
        match own {
            Some(reply) => {
                self.conns[conn].check_drained()?;
                seen.push((conn, reply));
            }
            None => self.blocked.push(conn),
        }
        if self.blocked.iter().any(|&c| c != conn) {
            // CLIENT LIST runs after everything the step caused: a reader that is no longer
            // blocked has been served, and its reply is on its way.
            let flags = self.client_flags()?;
            let waiting = std::mem::take(&mut self.blocked);
            for c in waiting {
                let id = self.conns[c].id;
                if flags.get(&id).is_some_and(|f| f.contains('b')) {
                    self.blocked.push(c);
                } else {
                    seen.push((c, self.conns[c].reply()?));
                }
            }
        }
        Ok(seen)
    }

    fn is_blocked(&self, conn: usize) -> bool {
        self.blocked.contains(&conn)
    }
}

// ----- in process -------------------------------------------------------------------------------

/// A StreamLab `Session` in this process.
pub struct Inproc {
    clock: Clock,
    session: Session,
    conns: Vec<ConnId>,
    blocked: Vec<usize>,
}

impl Inproc {
    /// A session on the given clock.
    pub fn new(clock: Clock) -> Inproc {
        Inproc {
            clock,
            session: Session::with_profile(clock, REFERENCE_PROFILE),
            conns: Vec::new(),
            blocked: Vec::new(),
        }
    }
}

/// A reply as a RESP2 client decodes it from the wire.
fn through_the_wire(reply: &Reply) -> Result<Reply, String> {
    let bytes = encode(reply, false);
    match decode_reply(&bytes, false) {
        Ok(Some((decoded, used))) if used == bytes.len() => Ok(decoded),
        other => Err(format!("StreamLab's RESP2 encoding of {reply:?} does not decode: {other:?}")),
    }
}

impl Target for Inproc {
    fn describe(&self) -> String {
        match self.clock {
            Clock::Host(_) => "inproc".into(),
            Clock::Virtual(_) => "inproc-virtual".into(),
        }
    }

    fn reset(&mut self, conns: usize) -> Result<(), String> {
        // A fresh session is exactly the state a flushed server with default limits is in.
        self.session = Session::with_profile(self.clock, REFERENCE_PROFILE);
        self.blocked.clear();
        self.conns = (0..conns).map(|_| self.session.connect()).collect();
        Ok(())
    }

    fn step(&mut self, conn: usize, args: &[Vec<u8>]) -> Result<Observation, String> {
        let executed = self.session.execute(self.conns[conn], args.to_vec());
        let mut seen = Vec::new();
        for reply in &executed.replies {
            seen.push((conn, through_the_wire(reply)?));
        }
        let mut served: BTreeMap<usize, Vec<Reply>> = BTreeMap::new();
        for delivery in &executed.deliveries {
            let Some(c) = self.conns.iter().position(|&id| id == delivery.conn) else { continue };
            served.entry(c).or_default().push(through_the_wire(&delivery.reply)?);
        }
        let waiting = std::mem::take(&mut self.blocked);
        for c in waiting {
            match served.remove(&c) {
                Some(replies) => seen.extend(replies.into_iter().map(|r| (c, r))),
                None => self.blocked.push(c),
            }
        }
        // Anything else (a late reply for a connection that was not blocked) is reported too,
        // so that it shows up as a difference.
        for (c, replies) in served {
            seen.extend(replies.into_iter().map(|r| (c, r)));
        }
        if executed.replies.is_empty() {
            self.blocked.push(conn);
        }
        Ok(seen)
    }

    fn is_blocked(&self, conn: usize) -> bool {
        self.blocked.contains(&conn)
    }

    fn check(&self) -> Result<(), String> {
        self.session.check_invariants()
    }
}
