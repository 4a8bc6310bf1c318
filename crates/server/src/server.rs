//! Listeners, connections and the session, served by one thread.
//!
//! Like Redis, the server is a single-threaded readiness loop (epoll through `mio`): one thread
//! owns the `Session` and every socket. Each round it waits for readiness, accepts new
//! clients, reads what ready clients sent, parses every complete request in a client's buffer
//! and runs the batch, then serves blocked reads whose time ran out, and finally writes each
//! client's pending output with one write. Replies, served blocked reads and Pub/Sub messages
//! are encoded straight into the receiving client's output buffer in the order the session
//! produced them, so every socket receives them in session order. Nothing is locked on the
//! request path and no thread switch happens between a request and its reply.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr};
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use mio::{Events, Interest, Poll, Token, Waker};
use streamlab_protocol::command::is;
use streamlab_protocol::{
    encode, encode_into, parse_request, Clock, CmdError, ConnId, Delivery, HostRequest, ProtocolError, Reply, Session,
    VIRTUAL_CLOCK_MAX_MS, VIRTUAL_EPOCH_MS,
};

use crate::config::{ClockKind, Config, DebugAccess, Port};
use crate::limits::{self, AcceptErrors, MAX_CLIENTS_REACHED};
use crate::log::{self, Level};

mod host;

/// A client whose unparsed input grows past this is closed, as Redis closes clients past
/// `client-query-buffer-limit` (1 GB).
const MAX_QUERY_BUFFER: usize = 1024 * 1024 * 1024;

/// A subscriber whose unsent output grows past this is disconnected (Redis's default hard
/// `client-output-buffer-limit` for Pub/Sub clients).
const PUBSUB_OUTPUT_LIMIT: usize = 32 * 1024 * 1024;

/// A client with this much unsent output is not read from until it takes some: a client that
/// pipelines without reading its replies waits, instead of growing the server's memory.
const OUTPUT_BACKPRESSURE: usize = 1024 * 1024;

/// How much one read takes from a socket. A read that fills it leaves the client marked
/// readable for the next round, so one busy client cannot hold the loop.
const READ_CHUNK: usize = 64 * 1024;

/// An incomplete request larger than this is parsed again only when the buffer has doubled
/// or the client paused: the parser starts from the request's first byte each time, so
/// retrying after every read would cost quadratic time on a request of many arguments.
const DEFER_PARSE_OVER: usize = 256 * 1024;

/// How long a pause in a large request's bytes is before the buffer is parsed anyway.
const PAUSE: Duration = Duration::from_millis(5);

/// How long the loop waits before accepting again after accept() failed (out of descriptors).
const ACCEPT_RETRY: Duration = Duration::from_millis(10);

/// The token that wakes the loop for shutdown. Listeners count down from just below it;
/// clients use their connection id (ids are never reused, so a late event for a closed client
/// finds nothing).
const WAKER: Token = Token(usize::MAX);

/// Redis's answer when DEBUG is disabled.
const DEBUG_NOT_ALLOWED: &str = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.";

/// The system clock in Unix milliseconds (the session's host clock).
pub fn system_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

fn listener_token(index: usize) -> Token {
    Token(usize::MAX - 1 - index)
}

fn client_token(id: ConnId) -> Token {
    Token(id as usize)
}

/// A connected socket of either family.
enum Sock {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Sock {
    fn shutdown(&self) {
        let _ = match self {
            Sock::Tcp(s) => s.shutdown(Shutdown::Both),
            Sock::Unix(s) => s.shutdown(Shutdown::Both),
        };
    }

    fn fd(&self) -> i32 {
        match self {
            Sock::Tcp(s) => s.as_raw_fd(),
            Sock::Unix(s) => s.as_raw_fd(),
        }
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Sock::Tcp(s) => s.read(buf),
            Sock::Unix(s) => s.read(buf),
        }
    }

    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sock::Tcp(s) => s.write(buf),
            Sock::Unix(s) => s.write(buf),
        }
    }

    fn source(&mut self) -> &mut dyn mio::event::Source {
        match self {
            Sock::Tcp(s) => s,
            Sock::Unix(s) => s,
        }
    }
}

/// What a connection asked for while blocked and gets once its wait ends.
enum Closing {
    /// Send these bytes, then close (QUIT, a protocol error).
    Pending(Vec<u8>),
    /// Already queued for sending.
    Sent,
}

/// A client: its socket, its buffers and what CLIENT LIST shows about it.
struct Client {
    sock: Sock,
    addr: String,
    laddr: String,
    unix: bool,
    /// On a Unix socket or from a loopback address (`enable-debug-command local`).
    local: bool,
    created: Instant,
    last_command: Instant,
    closing: Option<Closing>,
    /// Received bytes not parsed yet.
    input: Vec<u8>,
    /// Encoded replies not written yet; `output[sent..]` is what is left.
    output: Vec<u8>,
    sent: usize,
    /// The socket may hold unread bytes (mio reports readiness once per change).
    readable: bool,
    /// Queued in `Core::to_read` / `Core::to_write` (so it is queued once).
    queued_read: bool,
    queued_write: bool,
    /// Parse again once the input reaches this size (0: after every read) ...
    parse_at: usize,
    /// ... or when no byte came for a `PAUSE` (the deadline, while bytes are held back).
    held_until: Option<Instant>,
    /// The client is gone from the session: close once `output` is written.
    hangup: bool,
}

impl Client {
    fn unsent(&self) -> usize {
        self.output.len() - self.sent
    }
}

/// Everything the loop thread owns and changes.
struct Core {
    session: Session,
    clients: BTreeMap<ConnId, Client>,
    /// Clients with input to read or parse this round.
    to_read: Vec<ConnId>,
    /// Clients with output to write at the end of the round.
    to_write: Vec<ConnId>,
    /// Clients holding back a large incomplete request (`Client::held_until` is set).
    held: Vec<ConnId>,
}

impl Core {
    /// Whether the connection speaks RESP3 (its replies and pushes are encoded so).
    fn resp3(&self, id: ConnId) -> bool {
        self.session.conn(id).is_some_and(|c| c.resp == 3)
    }

    /// Whether the connection waits (in a blocked read, or behind CLIENT PAUSE).
    fn blocked(&self, id: ConnId) -> bool {
        self.session.conn(id).is_some_and(|c| c.waiting())
    }

    fn queue_read(&mut self, id: ConnId) {
        if let Some(client) = self.clients.get_mut(&id) {
            if !client.queued_read {
                client.queued_read = true;
                self.to_read.push(id);
            }
        }
    }

    fn queue_write(&mut self, id: ConnId) {
        if let Some(client) = self.clients.get_mut(&id) {
            if !client.queued_write {
                client.queued_write = true;
                self.to_write.push(id);
            }
        }
    }

    /// Writes what the client is owed, as much as its socket takes; closes it when it hung up
    /// and everything is written.
    fn write_client(&mut self, id: ConnId) {
        let Some(client) = self.clients.get_mut(&id) else { return };
        let mut failed = false;
        while client.sent < client.output.len() {
            match client.sock.write(&client.output[client.sent..]) {
                Ok(0) => {
                    failed = true;
                    break;
                }
                Ok(n) => client.sent += n,
                // The socket reports when it can take more.
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    failed = true;
                    break;
                }
            }
        }
        if failed {
            self.drop_client(id);
            return;
        }
        if client.sent == client.output.len() {
            client.sent = 0;
            client.output.clear();
            if client.output.capacity() > 64 * 1024 {
                client.output = Vec::new();
            }
            if client.hangup {
                self.drop_client(id);
            } else if client.readable {
                // Reading waited for the output to drain.
                self.queue_read(id);
            }
        } else if client.sent > 64 * 1024 {
            client.output.drain(..client.sent);
            client.sent = 0;
        }
    }

    /// The client leaves the session now; its socket closes once what is queued is written.
    fn hang_up(&mut self, id: ConnId) {
        self.session.disconnect(id);
        if let Some(client) = self.clients.get_mut(&id) {
            client.hangup = true;
            client.input = Vec::new();
        }
        self.queue_write(id);
    }

    /// The client leaves at once, whatever it had queued.
    fn drop_client(&mut self, id: ConnId) {
        self.session.disconnect(id);
        if let Some(client) = self.clients.remove(&id) {
            client.sock.shutdown();
        }
    }
}

/// What INFO reports about the process (the session cannot know it).
struct ProcessInfo {
    tcp_port: u16,
    listeners: Vec<String>,
    executable: String,
    config_file: String,
}

/// What the loop reads but never changes.
struct Settings {
    debug: DebugAccess,
    clock: ClockKind,
    log: bool,
    info: ProcessInfo,
}

/// Shared between the loop thread and the [`Server`] handle.
struct Shared {
    stop: AtomicBool,
    waker: Waker,
    /// A client's SHUTDOWN stopped the loop.
    commanded: AtomicBool,
    /// Called once when SHUTDOWN stops the loop (the binary wakes its main thread with it).
    on_shutdown: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

impl Shared {
    /// SHUTDOWN: the loop stops after this round, and whoever waits for that is told.
    fn shut_down(&self) {
        self.commanded.store(true, Ordering::SeqCst);
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.waker.wake();
        if let Some(hook) = self.on_shutdown.lock().ok().and_then(|mut hook| hook.take()) {
            hook();
        }
    }
}

/// How one request ended.
enum Step {
    Go,
    /// Send what is pending, then close (QUIT, a panic).
    Close,
    /// Close without sending anything more (Redis's cross-protocol scripting guard).
    Abort,
}

enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

/// A running server. Dropping it shuts it down.
pub struct Server {
    shared: Arc<Shared>,
    tcp: Vec<SocketAddr>,
    unix: Option<PathBuf>,
    looper: Option<JoinHandle<()>>,
}

impl Server {
    /// Binds every listener the configuration asks for and starts serving. Errors carry the
    /// message redis-server would log for them.
    pub fn start(config: &Config) -> io::Result<Server> {
        let fit = limits::fit_open_files(config.maxclients, config.log)?;
        let mut listeners = Vec::new();
        let mut tcp = Vec::new();
        let port = match config.port {
            Port::Disabled => None,
            Port::Fixed(port) => Some(port),
            Port::Ephemeral => Some(0),
        };
        if let Some(mut port) = port {
            let wanted = port;
            for entry in &config.bind {
                let (optional, name) = match entry.strip_prefix('-') {
                    Some(name) => (true, name),
                    None => (false, entry.as_str()),
                };
                let ip: IpAddr = match name {
                    "*" => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
                    "::*" => IpAddr::V6(Ipv6Addr::UNSPECIFIED),
                    other => match other.parse() {
                        Ok(ip) => ip,
                        Err(_) if optional => continue,
                        Err(_) => {
                            return Err(io::Error::new(
                                io::ErrorKind::InvalidInput,
                                format!(
                                    "Could not create server TCP listening socket {name}:{wanted}: invalid address"
                                ),
                            ))
                        }
                    },
                };
                match std::net::TcpListener::bind((ip, port)) {
                    Ok(listener) => {
                        let addr = listener.local_addr()?;
                        port = addr.port();
                        tcp.push(addr);
                        listener.set_nonblocking(true)?;
                        listeners.push(Listener::Tcp(TcpListener::from_std(listener)));
                    }
                    Err(_) if optional => {}
                    Err(e) => {
                        return Err(io::Error::new(
                            e.kind(),
                            format!("Could not create server TCP listening socket {name}:{wanted}: bind: {e}"),
                        ))
                    }
                }
            }
            if tcp.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::AddrNotAvailable,
                    format!("Failed listening on port {wanted} (tcp), aborting."),
                ));
            }
        }
        let mut unix = None;
        if let Some(path) = &config.unixsocket {
            // Redis removes a stale socket file before binding.
            let _ = std::fs::remove_file(path);
            let listener = UnixListener::bind(path)
                .map_err(|e| io::Error::new(e.kind(), format!("Failed opening Unix socket: bind: {e}")))?;
            if let Some(perm) = config.unixsocketperm {
                std::fs::set_permissions(path, std::fs::Permissions::from_mode(perm))?;
            }
            unix = Some(path.clone());
            listeners.push(Listener::Unix(listener));
        }
        if listeners.is_empty() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "Configured to not listen anywhere, exiting."));
        }
        let tcp_port = tcp.first().map_or(0, SocketAddr::port);
        let mut lines = Vec::new();
        if !tcp.is_empty() {
            let binds: Vec<String> = tcp.iter().map(|a| format!("bind={}", a.ip())).collect();
            lines.push(format!("name=tcp,{},port={tcp_port}", binds.join(",")));
        }
        if let Some(path) = &unix {
            lines.push(format!("name=unix,bind={}", path.display()));
        }
        let clock = match config.clock {
            ClockKind::System => Clock::Host(system_ms),
            ClockKind::Virtual => Clock::Virtual(VIRTUAL_EPOCH_MS),
        };
        let poll = Poll::new()?;
        for (i, listener) in listeners.iter_mut().enumerate() {
            let source: &mut dyn mio::event::Source = match listener {
                Listener::Tcp(l) => l,
                Listener::Unix(l) => l,
            };
            poll.registry().register(source, listener_token(i), Interest::READABLE)?;
        }
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            waker: Waker::new(poll.registry(), WAKER)?,
            commanded: AtomicBool::new(false),
            on_shutdown: Mutex::new(None),
        });
        let mut session = Session::with_profile(clock, config.profile);
        // What the descriptors allow is also the most CONFIG SET maxclients may ask for.
        session.set_client_limits(fit.maxclients, fit.ceiling);
        let event_loop = EventLoop {
            poll,
            listeners,
            retry_accept: None,
            accept_errors: AcceptErrors::default(),
            chunk: vec![0; READ_CHUNK],
            requests: Vec::new(),
            core: Core {
                session,
                clients: BTreeMap::new(),
                to_read: Vec::new(),
                to_write: Vec::new(),
                held: Vec::new(),
            },
            settings: Settings {
                debug: config.debug,
                clock: config.clock,
                log: config.log,
                info: ProcessInfo {
                    tcp_port,
                    listeners: lines.into_iter().enumerate().map(|(i, l)| format!("listener{i}:{l}")).collect(),
                    executable: std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_default(),
                    config_file: config.config_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
                },
            },
            shared: Arc::clone(&shared),
        };
        let looper = std::thread::Builder::new().name("streamlab-loop".into()).spawn(move || event_loop.run())?;
        Ok(Server { shared, tcp, unix, looper: Some(looper) })
    }

    /// The TCP port listened on, if TCP is on (the real one when it was picked by the system).
    pub fn tcp_port(&self) -> Option<u16> {
        self.tcp.first().map(SocketAddr::port)
    }

    /// Every TCP address listened on.
    pub fn tcp_addrs(&self) -> &[SocketAddr] {
        &self.tcp
    }

    /// The Unix socket listened on, if any.
    pub fn unix_socket(&self) -> Option<&Path> {
        self.unix.as_deref()
    }

    /// Has `hook` called (once, from the loop thread) when a client's SHUTDOWN stops the
    /// server; at once if one already has.
    pub fn on_shutdown(&self, hook: impl FnOnce() + Send + 'static) {
        if let Ok(mut slot) = self.shared.on_shutdown.lock() {
            *slot = Some(Box::new(hook));
        }
        if self.shared.commanded.load(Ordering::SeqCst) {
            if let Some(hook) = self.shared.on_shutdown.lock().ok().and_then(|mut hook| hook.take()) {
                hook();
            }
        }
    }

    /// Whether a client's SHUTDOWN stopped the server.
    pub fn shut_down_by_client(&self) -> bool {
        self.shared.commanded.load(Ordering::SeqCst)
    }

    /// Stops accepting, closes the listeners, removes the Unix socket file and closes every
    /// connection.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        let Some(looper) = self.looper.take() else { return };
        self.shared.stop.store(true, Ordering::SeqCst);
        // The loop closes the listeners and every client before it returns.
        if self.shared.waker.wake().is_ok() {
            let _ = looper.join();
        }
        if let Some(path) = &self.unix {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The loop thread's state.
struct EventLoop {
    poll: Poll,
    listeners: Vec<Listener>,
    /// When to try accepting again after accept() failed.
    retry_accept: Option<Instant>,
    accept_errors: AcceptErrors,
    /// One read buffer for every client.
    chunk: Vec<u8>,
    /// The requests of the batch being run (kept for its allocation).
    requests: Vec<Vec<Vec<u8>>>,
    core: Core,
    settings: Settings,
    shared: Arc<Shared>,
}

impl EventLoop {
    fn run(mut self) {
        let mut events = Events::with_capacity(1024);
        loop {
            let timeout = self.timeout();
            if let Err(e) = self.poll.poll(&mut events, timeout) {
                if e.kind() != io::ErrorKind::Interrupted {
                    log::line(self.settings.log, Level::Warning, &format!("Event loop: {e}"));
                    std::thread::sleep(ACCEPT_RETRY);
                }
                continue;
            }
            if self.shared.stop.load(Ordering::SeqCst) {
                break;
            }
            for event in events.iter() {
                match event.token() {
                    WAKER => {}
                    Token(t) if t >= usize::MAX - self.listeners.len() => self.accept(usize::MAX - 1 - t),
                    Token(t) => {
                        let id = t as ConnId;
                        let Some(client) = self.core.clients.get_mut(&id) else { continue };
                        let read = event.is_readable() || event.is_read_closed() || event.is_error();
                        client.readable |= read;
                        let write = event.is_writable() && client.unsent() > 0;
                        if read {
                            self.core.queue_read(id);
                        }
                        if write {
                            self.core.queue_write(id);
                        }
                    }
                }
            }
            if self.retry_accept.is_some_and(|at| at <= Instant::now()) {
                self.retry_accept = None;
                for i in 0..self.listeners.len() {
                    self.accept(i);
                }
            }
            self.read_ready();
            self.serve_timeouts();
            self.write_pending();
        }
        // Shutdown: the listeners close as they drop; every client is cut off.
        self.listeners.clear();
        for client in self.core.clients.values() {
            client.sock.shutdown();
        }
    }

    /// How long the next poll may wait: not at all while a client has unread input, else
    /// until the next blocked read's deadline, held-back parse or accept retry. (No write is
    /// queued here: every round ends with `write_pending`, which queues none.)
    fn timeout(&self) -> Option<Duration> {
        if !self.core.to_read.is_empty() {
            return Some(Duration::ZERO);
        }
        let now = Instant::now();
        let mut next: Option<Instant> = self.retry_accept;
        let mut sooner = |at: Instant| next = Some(next.map_or(at, |n| n.min(at)));
        for id in &self.core.held {
            if let Some(at) = self.core.clients.get(id).and_then(|c| c.held_until) {
                sooner(at);
            }
        }
        if self.settings.clock == ClockKind::System {
            if let Some(deadline) = self.core.session.next_deadline() {
                let wait = u64::try_from(deadline - system_ms()).unwrap_or(0);
                // Wake a millisecond late rather than early: the deadline is in whole ms.
                sooner(now + Duration::from_millis(wait + 1));
            }
        }
        next.map(|at| at.saturating_duration_since(now))
    }

    fn accept(&mut self, index: usize) {
        loop {
            if self.shared.stop.load(Ordering::SeqCst) {
                return;
            }
            let accepted = match &self.listeners[index] {
                Listener::Tcp(l) => l.accept().and_then(|(s, peer)| {
                    let local = s.local_addr()?;
                    let _ = s.set_nodelay(true);
                    Ok((Sock::Tcp(s), peer.to_string(), local.to_string(), false, peer.ip().is_loopback()))
                }),
                Listener::Unix(l) => l.accept().and_then(|(s, _)| {
                    let local = s.local_addr()?;
                    let path = local.as_pathname().map(|p| p.display().to_string()).unwrap_or_default();
                    Ok((Sock::Unix(s), format!("{path}:0"), format!("{path}:0"), true, true))
                }),
            };
            match accepted {
                Ok((mut sock, ..)) if self.core.clients.len() as u64 >= self.core.session.maxclients() => {
                    // As Redis does: the client is told, then closed (a fresh socket takes
                    // these few bytes at once).
                    let _ = sock.write(MAX_CLIENTS_REACHED);
                    sock.shutdown();
                }
                Ok((sock, addr, laddr, unix, local)) => {
                    if let Err(e) = self.register(sock, addr, laddr, unix, local) {
                        log::line(self.settings.log, Level::Warning, &format!("Error registering a client: {e}"));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.accept_errors.report(&e, Instant::now(), self.settings.log);
                    self.retry_accept = Some(Instant::now() + ACCEPT_RETRY);
                    return;
                }
            }
        }
    }

    fn register(&mut self, mut sock: Sock, addr: String, laddr: String, unix: bool, local: bool) -> io::Result<()> {
        let id = self.core.session.next_conn_id();
        // Readable and writable once, for good: readiness is reported when it changes, so a
        // writable socket costs nothing until a write could not finish.
        self.poll.registry().register(sock.source(), client_token(id), Interest::READABLE | Interest::WRITABLE)?;
        let connected = self.core.session.connect();
        debug_assert_eq!(connected, id);
        self.core.session.set_address(id, addr.clone(), laddr.clone());
        let now = Instant::now();
        self.core.clients.insert(
            id,
            Client {
                sock,
                addr,
                laddr,
                unix,
                local,
                created: now,
                last_command: now,
                closing: None,
                input: Vec::new(),
                output: Vec::new(),
                sent: 0,
                readable: true,
                queued_read: false,
                queued_write: false,
                parse_at: 0,
                held_until: None,
                hangup: false,
            },
        );
        // Bytes may have come before the registration.
        self.core.queue_read(id);
        Ok(())
    }

    /// Reads once from every client queued for reading and runs what it sent.
    fn read_ready(&mut self) {
        if !self.core.held.is_empty() {
            // Clients whose held-back input waited a whole pause are parsed now.
            let now = Instant::now();
            let mut held = std::mem::take(&mut self.core.held);
            let mut due = Vec::new();
            held.retain(|&id| match self.core.clients.get_mut(&id) {
                Some(client) if client.held_until.is_some_and(|at| at <= now) => {
                    client.held_until = None;
                    client.parse_at = 0;
                    due.push(id);
                    false
                }
                Some(client) => client.held_until.is_some(),
                None => false,
            });
            self.core.held = held;
            for id in due {
                self.core.queue_read(id);
            }
        }
        let ids = std::mem::take(&mut self.core.to_read);
        for id in ids {
            if let Some(client) = self.core.clients.get_mut(&id) {
                client.queued_read = false;
            }
            self.read_client(id);
        }
    }

    fn read_client(&mut self, id: ConnId) {
        let Some(client) = self.core.clients.get_mut(&id) else { return };
        if client.hangup {
            return;
        }
        let mut got = 0;
        if client.readable && client.unsent() < OUTPUT_BACKPRESSURE {
            match client.sock.read(&mut self.chunk) {
                Ok(0) => {
                    // The client is done sending; what it is owed is still written.
                    self.core.hang_up(id);
                    return;
                }
                Ok(n) => {
                    got = n;
                    // A short read emptied the socket; more bytes will be reported. A full
                    // one may have left some: come back next round.
                    if n == self.chunk.len() {
                        self.core.queue_read(id);
                    } else {
                        client.readable = false;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => client.readable = false,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => self.core.queue_read(id),
                Err(_) => {
                    self.core.drop_client(id);
                    return;
                }
            }
        }
        let Some(client) = self.core.clients.get_mut(&id) else { return };
        if client.closing.is_some() {
            // Input is read (to notice the client leaving) but no longer run.
            return;
        }
        let mut requests = std::mem::take(&mut self.requests);
        let error = if client.input.is_empty() && got > 0 {
            // The usual case: whole requests in one read, parsed where they landed.
            let parsed = parse_all(&self.chunk[..got], &mut requests);
            client.input.extend_from_slice(&self.chunk[parsed.used..got]);
            parsed.error
        } else {
            client.input.extend_from_slice(&self.chunk[..got]);
            if client.input.len() > MAX_QUERY_BUFFER {
                log::line(self.settings.log, Level::Warning, "Closing client that reached max query buffer length");
                self.core.drop_client(id);
                return;
            }
            if got > 0 && client.input.len() < client.parse_at {
                // Parse when the buffer has doubled, or as soon as the client pauses.
                if client.held_until.replace(Instant::now() + PAUSE).is_none() {
                    self.core.held.push(id);
                }
                return;
            }
            if client.input.is_empty() || (got == 0 && client.parse_at > 0) {
                return;
            }
            client.held_until = None;
            let parsed = parse_all(&client.input, &mut requests);
            client.input.drain(..parsed.used);
            if client.input.capacity() > 1024 * 1024 && client.input.len() < 64 * 1024 {
                client.input.shrink_to(64 * 1024);
            }
            let defer = parsed.error.is_none() && client.input.len() > DEFER_PARSE_OVER;
            client.parse_at = if defer { client.input.len() * 2 } else { 0 };
            parsed.error
        };
        if !requests.is_empty() || error.is_some() {
            self.run_batch(id, &mut requests, error);
        }
        requests.clear();
        self.requests = requests;
    }

    /// Serves the blocked reads whose deadline passed (system clock).
    fn serve_timeouts(&mut self) {
        if self.settings.clock != ClockKind::System {
            return;
        }
        if self.core.session.next_deadline().is_none_or(|deadline| deadline > system_ms()) {
            return;
        }
        let session = &mut self.core.session;
        match catch_unwind(AssertUnwindSafe(|| session.advance(0))) {
            Ok(deliveries) => {
                route(&mut self.core, None, deliveries, &mut Vec::new());
                self.host_requests(None, &mut Vec::new());
            }
            Err(_) => log::line(self.settings.log, Level::Warning, "Internal error while serving blocked reads"),
        }
    }

    /// Writes every client's pending output; closes those that hung up once they are done.
    fn write_pending(&mut self) {
        let ids = std::mem::take(&mut self.core.to_write);
        for id in ids {
            if let Some(client) = self.core.clients.get_mut(&id) {
                client.queued_write = false;
                self.core.write_client(id);
            }
        }
    }

    /// Runs a batch of requests from one client, then reports a protocol error that followed
    /// them, if any. Replies go to the client's output buffer.
    fn run_batch(&mut self, id: ConnId, requests: &mut Vec<Vec<Vec<u8>>>, error: Option<ProtocolError>) {
        let Some(client) = self.core.clients.get_mut(&id) else { return };
        let mut own = std::mem::take(&mut client.output);
        let start = own.len();
        let mut step = Step::Go;
        let now = Instant::now();
        for args in requests.drain(..) {
            match self.core.clients.get(&id) {
                Some(client) if client.closing.is_none() => {}
                _ => break,
            }
            step = self.run_one(id, args, now, &mut own);
            if !matches!(step, Step::Go) {
                break;
            }
        }
        if matches!(step, Step::Abort) {
            // Nothing of this batch is sent.
            own.truncate(start);
        }
        let mut close = !matches!(step, Step::Go);
        if let (Some(error), Step::Go) = (error, &step) {
            let resp3 = self.core.resp3(id);
            let bytes = encode(&error.to_reply(), resp3);
            if self.core.blocked(id) {
                // Redis reads no further while a client is blocked: the error comes after the
                // blocked reply.
                if let Some(client) = self.core.clients.get_mut(&id) {
                    client.closing.get_or_insert(Closing::Pending(bytes));
                }
            } else {
                own.extend_from_slice(&bytes);
                close = true;
            }
        }
        let Some(client) = self.core.clients.get_mut(&id) else { return };
        client.output = own;
        if client.closing.is_some() {
            // Keep reading to notice the client leaving, but run nothing more.
            client.input = Vec::new();
        }
        if close {
            self.core.hang_up(id);
        } else if client.unsent() > 0 {
            // Right away rather than at the end of the round: the client can send its next
            // request while the loop goes on with the others.
            self.core.write_client(id);
        }
    }

    fn run_one(&mut self, id: ConnId, args: Vec<Vec<u8>>, now: Instant, own: &mut Vec<u8>) -> Step {
        let log_enabled = self.settings.log;
        let core = &mut self.core;
        let blocked = core.blocked(id);
        let Some(client) = core.clients.get_mut(&id) else { return Step::Abort };
        client.last_command = now;
        let name = args[0].as_slice();
        if is(name, "post") || is(name, "host:") {
            log::line(
                log_enabled,
                Level::Warning,
                &format!("Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection from {} aborted.", client.addr),
            );
            return Step::Abort;
        }
        if blocked && is(name, "quit") {
            // QUIT waits behind the blocked read like any other command, then closes.
            client.closing.get_or_insert(Closing::Pending(b"+OK\r\n".to_vec()));
            return Step::Go;
        }
        if is(name, "debug") && !blocked {
            let local = client.local;
            let session = &mut core.session;
            let settings = &self.settings;
            let Ok((reply, deliveries)) = catch_unwind(AssertUnwindSafe(|| settings.debug(session, id, &args, local)))
            else {
                return internal_error(log_enabled, &format!("running DEBUG for client id={id}"), own);
            };
            let resp3 = core.resp3(id);
            encode_into(&reply, resp3, own);
            route(core, Some(id), deliveries, own);
            return if self.host_requests(Some(id), own) { Step::Close } else { Step::Go };
        }
        let patch = if is(name, "info") {
            Patch::Info
        } else if is(name, "client") && args.get(1).is_some_and(|a| is(a, "list")) {
            Patch::ClientList
        } else {
            Patch::None
        };
        let session = &mut core.session;
        let executed = match catch_unwind(AssertUnwindSafe(|| session.execute(id, args))) {
            Ok(executed) => executed,
            Err(_) => return internal_error(log_enabled, &format!("running a command of client id={id}"), own),
        };
        let resp3 = core.resp3(id);
        for reply in executed.replies {
            let reply = match patch {
                Patch::None => reply,
                Patch::Info => map_text(reply, |text| self.settings.patch_info(text)),
                Patch::ClientList => map_text(reply, |text| patch_client_list(&core.clients, text)),
            };
            encode_into(&reply, resp3, own);
        }
        route(core, Some(id), executed.deliveries, own);
        if self.host_requests(Some(id), own) || executed.close {
            Step::Close
        } else {
            Step::Go
        }
    }
}

/// A command panicked: the client gets an error and is closed, and the log says what was
/// running.
fn internal_error(log_enabled: bool, what: &str, own: &mut Vec<u8>) -> Step {
    log::line(log_enabled, Level::Warning, &format!("Internal error while {what}"));
    encode_into(&Reply::Error("ERR internal error".into()), false, own);
    Step::Close
}

/// What [`parse_all`] found after the complete requests.
struct Parsed {
    /// Bytes taken by complete requests.
    used: usize,
    /// The protocol error that stopped parsing, if any.
    error: Option<ProtocolError>,
}

/// Parses every complete request at the start of `buf` into `requests` (empty ones, which
/// Redis skips, are dropped).
fn parse_all(buf: &[u8], requests: &mut Vec<Vec<Vec<u8>>>) -> Parsed {
    let mut used = 0;
    loop {
        match parse_request(&buf[used..]) {
            Ok(Some((args, n))) => {
                used += n;
                if !args.is_empty() {
                    requests.push(args);
                }
            }
            Ok(None) => return Parsed { used, error: None },
            Err(e) => return Parsed { used, error: Some(e) },
        }
    }
}

/// Sends deliveries to their connections. Those for `own` (the connection whose command is
/// running) go into its reply buffer, after its own replies, as Redis sends pushes after the
/// reply of the command that caused them. A connection that asked to close while blocked is
/// closed once its wait is over.
fn route(core: &mut Core, own: Option<ConnId>, deliveries: Vec<Delivery>, own_buf: &mut Vec<u8>) {
    // Clients whose close waits for their blocked read to end: closed after the loop, so the
    // close follows every delivery of this batch.
    let mut closing: Vec<ConnId> = Vec::new();
    let mut over_limit: Vec<ConnId> = Vec::new();
    for delivery in deliveries {
        let resp3 = core.resp3(delivery.conn);
        if Some(delivery.conn) == own {
            encode_into(&delivery.reply, resp3, own_buf);
        } else if let Some(client) = core.clients.get_mut(&delivery.conn) {
            if client.hangup {
                continue;
            }
            encode_into(&delivery.reply, resp3, &mut client.output);
            // The size test first: it is cheap and rarely passes.
            if client.unsent() > PUBSUB_OUTPUT_LIMIT
                && !over_limit.contains(&delivery.conn)
                && core.session.conn(delivery.conn).is_some_and(|c| c.subscriptions() > 0)
            {
                // Redis's hard limit for Pub/Sub clients that do not read their messages.
                over_limit.push(delivery.conn);
            }
            if matches!(client.closing, Some(Closing::Pending(_))) && !closing.contains(&delivery.conn) {
                closing.push(delivery.conn);
            }
            core.queue_write(delivery.conn);
        }
    }
    for conn in closing {
        if core.blocked(conn) {
            continue;
        }
        if let Some(client) = core.clients.get_mut(&conn) {
            if let Some(Closing::Pending(bytes)) = client.closing.replace(Closing::Sent) {
                client.output.extend_from_slice(&bytes);
                core.hang_up(conn);
            }
        }
    }
    for conn in over_limit {
        core.drop_client(conn);
    }
}

/// Replies the server completes with what only it knows.
enum Patch {
    None,
    Info,
    ClientList,
}

impl Settings {
    fn debug(&self, session: &mut Session, id: ConnId, args: &[Vec<u8>], local: bool) -> (Reply, Vec<Delivery>) {
        let error = |text: String| (Reply::Error(text), Vec::new());
        if args.len() < 2 {
            return error("ERR wrong number of arguments for 'debug' command".into());
        }
        let allowed = match self.debug {
            DebugAccess::Yes => true,
            DebugAccess::No => false,
            DebugAccess::Local => local,
        };
        let conn = session.conn(id);
        let in_multi = conn.is_some_and(|c| c.in_multi());
        let subscribed = conn.is_some_and(|c| c.in_subscribed_context());
        let fail_multi = |session: &mut Session, reply: (Reply, Vec<Delivery>)| {
            if in_multi {
                // The session does not know DEBUG: sending it a malformed command marks the
                // transaction failed, as Redis marks it for a command refused while queueing.
                let _ = session.execute(id, vec![b"debug".to_vec()]);
            }
            reply
        };
        if !allowed {
            return fail_multi(session, error(DEBUG_NOT_ALLOWED.into()));
        }
        if subscribed {
            return error(CmdError::SubscribedContext("debug".into()).to_string());
        }
        if in_multi {
            return fail_multi(session, error("ERR DEBUG cannot be queued in a transaction by StreamLab".into()));
        }
        let sub = &args[1];
        let unknown = || {
            error(format!(
                "ERR unknown subcommand or wrong number of arguments for '{}'. Try DEBUG HELP.",
                String::from_utf8_lossy(sub)
            ))
        };
        if is(sub, "sleep") && args.len() == 3 {
            // Redis sleeps only when the time is a positive number of microseconds that fits
            // a signed 64-bit integer; anything else (negative, NaN, 1e308) answers OK at once.
            let micros = strtod(&args[2]) * 1e6;
            if !(micros >= 1.0 && micros < i64::MAX as f64) {
                return (Reply::ok(), Vec::new());
            }
            let deliveries = match self.clock {
                // Virtual time passes as the sleep says; nothing waits.
                ClockKind::Virtual => match clock_step(session, (micros / 1000.0) as i64) {
                    Ok(ms) => session.advance(ms),
                    Err(text) => return error(text),
                },
                ClockKind::System => {
                    // Like Redis, the whole server stops for that long.
                    std::thread::sleep(Duration::from_micros(micros as u64));
                    Vec::new()
                }
            };
            return (Reply::ok(), deliveries);
        }
        if is(sub, "streamlab-clock") && args.len() == 3 && is(&args[2], "get") {
            return (Reply::Integer(session.now()), Vec::new());
        }
        if is(sub, "streamlab-clock") && args.len() == 4 && is(&args[2], "advance") {
            let Some(ms) = std::str::from_utf8(&args[3]).ok().and_then(|s| s.parse::<i64>().ok()).filter(|ms| *ms >= 0)
            else {
                return error("ERR value is not an integer or out of range".into());
            };
            if self.clock == ClockKind::System {
                return error(
                    "ERR the server reads the system clock; start it with --clock virtual to move time".into(),
                );
            }
            return match clock_step(session, ms) {
                Ok(ms) => (Reply::ok(), session.advance(ms)),
                Err(text) => error(text),
            };
        }
        if is(sub, "help") && args.len() == 2 {
            let lines = [
                "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
                "SLEEP <seconds>",
                "    Stop the server for <seconds>. Decimals allowed. On a virtual clock, move it instead.",
                "STREAMLAB-CLOCK ADVANCE <milliseconds>",
                "    Move the virtual clock forward (--clock virtual) and serve the reads whose time ran out.",
                "STREAMLAB-CLOCK GET",
                "    Return the server's time in Unix milliseconds.",
                "HELP",
                "    Print this help.",
            ];
            return (Reply::Array(lines.iter().map(|l| Reply::Status((*l).to_owned())).collect()), Vec::new());
        }
        unknown()
    }

    fn patch_info(&self, text: &[u8]) -> Vec<u8> {
        let text = String::from_utf8_lossy(text);
        let mut out = Vec::new();
        for line in text.split_inclusive("\r\n") {
            let (body, end) = match line.strip_suffix("\r\n") {
                Some(body) => (body, "\r\n"),
                None => (line, ""),
            };
            let field = |name: &str| body.starts_with(name) && body[name.len()..].starts_with(':');
            let replaced = if field("tcp_port") {
                format!("tcp_port:{}", self.info.tcp_port)
            } else if field("process_id") {
                format!("process_id:{}", std::process::id())
            } else if field("executable") {
                format!("executable:{}", self.info.executable)
            } else if field("config_file") {
                format!("config_file:{}", self.info.config_file)
            } else if field("listener0") {
                self.info.listeners.join("\r\n")
            } else {
                body.to_owned()
            };
            out.extend_from_slice(replaced.as_bytes());
            out.extend_from_slice(end.as_bytes());
        }
        out
    }
}

/// Applies `f` to the text of a bulk or verbatim reply.
fn map_text(reply: Reply, f: impl FnOnce(&[u8]) -> Vec<u8>) -> Reply {
    match reply {
        Reply::Bulk(text) => Reply::Bulk(f(&text)),
        Reply::Verbatim { format, text } => Reply::Verbatim { format, text: f(&text) },
        other => other,
    }
}

/// Fills in the CLIENT LIST fields only the server knows: addresses, descriptor, age, idle
/// time, and the `U` flag of Unix-socket clients.
fn patch_client_list(clients: &BTreeMap<ConnId, Client>, text: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    let now = Instant::now();
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let client = body
            .split(' ')
            .find_map(|f| f.strip_prefix("id="))
            .and_then(|id| id.parse::<ConnId>().ok())
            .and_then(|id| clients.get(&id));
        let Some(client) = client else {
            out.push_str(line);
            continue;
        };
        let fields: Vec<String> = body
            .split(' ')
            .map(|field| {
                let (key, value) = field.split_once('=').unwrap_or((field, ""));
                match key {
                    "addr" => format!("addr={}", client.addr),
                    "laddr" => format!("laddr={}", client.laddr),
                    "fd" => format!("fd={}", client.sock.fd()),
                    "age" => format!("age={}", now.duration_since(client.created).as_secs()),
                    "idle" => format!("idle={}", now.duration_since(client.last_command).as_secs()),
                    "flags" if client.unix => {
                        let flags = value.replace('N', "");
                        format!("flags={flags}U")
                    }
                    _ => field.to_owned(),
                }
            })
            .collect();
        out.push_str(&fields.join(" "));
        out.push_str(end);
    }
    out.into_bytes()
}

/// A virtual clock step, refused when it would carry the clock past its last instant.
fn clock_step(session: &Session, ms: i64) -> Result<i64, String> {
    if session.now().checked_add(ms).is_none_or(|to| to > VIRTUAL_CLOCK_MAX_MS) {
        return Err(format!(
            "ERR the virtual clock cannot move past {VIRTUAL_CLOCK_MAX_MS} (the end of year 9999); it is at {}",
            session.now()
        ));
    }
    Ok(ms)
}

/// C's `strtod` on the longest numeric prefix (after leading blanks); 0 when there is none.
fn strtod(arg: &[u8]) -> f64 {
    let start = arg.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(arg.len());
    let numeric: Vec<u8> = arg[start..]
        .iter()
        .take(64)
        .take_while(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        .copied()
        .collect();
    (0..=numeric.len())
        .rev()
        .find_map(|i| std::str::from_utf8(&numeric[..i]).ok()?.parse::<f64>().ok().filter(|v| v.is_finite()))
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_takes_the_numeric_prefix() {
        assert_eq!(strtod(b"0"), 0.0);
        assert_eq!(strtod(b"1.5"), 1.5);
        assert_eq!(strtod(b" 2s"), 2.0);
        assert_eq!(strtod(b"abc"), 0.0);
    }
}
