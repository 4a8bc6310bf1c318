//! Listeners, connections and the one `Mutex<Session>` they share.
//!
//! Threads: one acceptor per listener, a reader and a writer per connection, and (on the
//! system clock) one timer that serves blocked reads whose time ran out. Readers parse every
//! complete request in their buffer and run the batch under the session lock; every reply
//! is encoded and appended to its connection's output buffer while the lock is still held,
//! so each socket receives its replies in the order the session produced them, whichever
//! thread produced them. A reader writes its own replies itself once it has let go of the
//! session (no thread hop on the request/reply path); the writer thread sends what other
//! connections produce (served blocked reads, Pub/Sub messages) while the reader waits for
//! input. Whoever writes holds the buffer's `flushing` flag, so bytes never interleave.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use streamlab_protocol::{
    encode, encode_into, parse_request, Clock, CmdError, ConnId, Delivery, ProtocolError, Reply, Session,
    VIRTUAL_EPOCH_MS,
};

use crate::config::{ClockKind, Config, DebugAccess, Port};
use crate::log::{self, Level};

/// A client whose unparsed input grows past this is closed, as Redis closes clients past
/// `client-query-buffer-limit` (1 GB).
const MAX_QUERY_BUFFER: usize = 1024 * 1024 * 1024;

/// A subscriber whose unsent output grows past this is disconnected (Redis's default hard
/// `client-output-buffer-limit` for Pub/Sub clients).
const PUBSUB_OUTPUT_LIMIT: usize = 32 * 1024 * 1024;

/// Requests run under one lock acquisition before the reader lets other connections in.
const BATCH: usize = 256;

/// Redis's answer when DEBUG is disabled.
const DEBUG_NOT_ALLOWED: &str = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.";

/// The system clock in Unix milliseconds (the session's host clock).
pub fn system_ms() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// A connected socket of either family.
enum Sock {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Sock {
    fn try_clone(&self) -> io::Result<Sock> {
        Ok(match self {
            Sock::Tcp(s) => Sock::Tcp(s.try_clone()?),
            Sock::Unix(s) => Sock::Unix(s.try_clone()?),
        })
    }

    fn shutdown(&self) {
        let _ = match self {
            Sock::Tcp(s) => s.shutdown(Shutdown::Both),
            Sock::Unix(s) => s.shutdown(Shutdown::Both),
        };
    }

    fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        match self {
            Sock::Tcp(s) => s.set_read_timeout(timeout),
            Sock::Unix(s) => s.set_read_timeout(timeout),
        }
    }

    fn fd(&self) -> i32 {
        match self {
            Sock::Tcp(s) => s.as_raw_fd(),
            Sock::Unix(s) => s.as_raw_fd(),
        }
    }
}

impl Sock {
    fn write_all_shared(&self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sock::Tcp(s) => (&*s).write_all(buf),
            Sock::Unix(s) => (&*s).write_all(buf),
        }
    }
}

impl Read for Sock {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Sock::Tcp(s) => s.read(buf),
            Sock::Unix(s) => s.read(buf),
        }
    }
}

/// A connection's outgoing bytes, appended under the session lock in session order.
struct Output {
    state: Mutex<OutState>,
    /// Wakes the writer thread.
    wake: Condvar,
    sock: Sock,
}

#[derive(Default)]
struct OutState {
    buf: Vec<u8>,
    /// Somebody is writing: only they touch the socket until it is clear again.
    flushing: bool,
    /// Close the connection once `buf` is written.
    close: bool,
    /// The socket failed or was closed: drop everything.
    dead: bool,
    /// The connection is gone from the session: the writer thread ends.
    detached: bool,
}

impl Output {
    fn new(sock: Sock) -> Output {
        Output { state: Mutex::new(OutState::default()), wake: Condvar::new(), sock }
    }

    fn lock(&self) -> MutexGuard<'_, OutState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends bytes; `notify` wakes the writer thread (for bytes nobody else will flush).
    fn push(&self, bytes: &[u8], notify: bool) {
        let mut state = self.lock();
        if state.dead || state.close || bytes.is_empty() {
            return;
        }
        state.buf.extend_from_slice(bytes);
        if notify && !state.flushing {
            self.wake.notify_one();
        }
    }

    /// Asks for the connection to be closed after what is queued.
    fn close(&self, notify: bool) {
        let mut state = self.lock();
        state.close = true;
        if notify && !state.flushing {
            self.wake.notify_one();
        }
    }

    /// Bytes waiting to be written.
    fn pending(&self) -> usize {
        self.lock().buf.len()
    }

    /// Ends the writer thread (the connection left the session).
    fn detach(&self) {
        self.lock().detached = true;
        self.wake.notify_one();
    }

    /// Shuts the socket down from outside (server shutdown).
    fn kill(&self) {
        let mut state = self.lock();
        state.dead = true;
        state.detached = true;
        state.buf = Vec::new();
        self.sock.shutdown();
        self.wake.notify_one();
    }

    /// Writes everything queued, unless somebody else is already writing (they will write it).
    fn flush(&self) {
        let mut state = self.lock();
        if state.flushing {
            return;
        }
        state.flushing = true;
        loop {
            if state.dead {
                state.buf = Vec::new();
                break;
            }
            if state.buf.is_empty() {
                if state.close {
                    state.dead = true;
                    self.sock.shutdown();
                }
                break;
            }
            let data = std::mem::take(&mut state.buf);
            drop(state);
            let written = self.sock.write_all_shared(&data);
            state = self.lock();
            if written.is_err() {
                // The client is gone: make its reader notice.
                state.dead = true;
                self.sock.shutdown();
            } else if state.buf.is_empty() && data.capacity() <= 64 * 1024 {
                // Keep the allocation for the next reply.
                state.buf = data;
                state.buf.clear();
            }
        }
        state.flushing = false;
        if state.detached {
            // The writer thread may be waiting for this flush to end.
            self.wake.notify_one();
        }
    }
}

/// What a connection asked for while blocked and gets once its wait ends.
enum Closing {
    /// Send these bytes, then close (QUIT, a protocol error).
    Pending(Vec<u8>),
    /// Already handed to the writer.
    Sent,
}

/// The server's side of a connection: its writer and what CLIENT LIST shows about it.
struct Client {
    out: Arc<Output>,
    addr: String,
    laddr: String,
    fd: i32,
    unix: bool,
    /// On a Unix socket or from a loopback address (`enable-debug-command local`).
    local: bool,
    created: Instant,
    last_command: Instant,
    closing: Option<Closing>,
}

struct Core {
    session: Session,
    clients: BTreeMap<ConnId, Client>,
}

/// What INFO reports about the process (the session cannot know it).
struct ProcessInfo {
    tcp_port: u16,
    listeners: Vec<String>,
    executable: String,
    config_file: String,
}

struct Shared {
    core: Mutex<Core>,
    /// Wakes the timer when a read blocks (or at shutdown).
    wake: Condvar,
    stop: AtomicBool,
    debug: DebugAccess,
    clock: ClockKind,
    log: bool,
    info: ProcessInfo,
}

/// How a reader goes on after a batch.
enum Flow {
    Continue,
    /// Keep reading (to notice the client leaving) but run nothing more.
    Discard,
    Stop,
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
    acceptors: Vec<JoinHandle<()>>,
    timer: Option<JoinHandle<()>>,
    stopped: bool,
}

impl Server {
    /// Binds every listener the configuration asks for and starts serving. Errors carry the
    /// message redis-server would log for them.
    pub fn start(config: &Config) -> io::Result<Server> {
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
                match TcpListener::bind((ip, port)) {
                    Ok(listener) => {
                        let addr = listener.local_addr()?;
                        port = addr.port();
                        tcp.push(addr);
                        listeners.push(Listener::Tcp(listener));
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
        let shared = Arc::new(Shared {
            core: Mutex::new(Core { session: Session::with_profile(clock, config.profile), clients: BTreeMap::new() }),
            wake: Condvar::new(),
            stop: AtomicBool::new(false),
            debug: config.debug,
            clock: config.clock,
            log: config.log,
            info: ProcessInfo {
                tcp_port,
                listeners: lines.into_iter().enumerate().map(|(i, l)| format!("listener{i}:{l}")).collect(),
                executable: std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_default(),
                config_file: config.config_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            },
        });
        let mut acceptors = Vec::new();
        for listener in listeners {
            let shared = Arc::clone(&shared);
            acceptors.push(
                std::thread::Builder::new()
                    .name("streamlab-accept".into())
                    .spawn(move || accept_loop(&shared, listener))?,
            );
        }
        let timer = match config.clock {
            ClockKind::System => {
                let shared = Arc::clone(&shared);
                Some(std::thread::Builder::new().name("streamlab-timer".into()).spawn(move || timer(&shared))?)
            }
            ClockKind::Virtual => None,
        };
        Ok(Server { shared, tcp, unix, acceptors, timer, stopped: false })
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

    /// Stops accepting, closes the listeners, removes the Unix socket file and closes every
    /// connection.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        self.shared.stop.store(true, Ordering::SeqCst);
        // Acceptors sit in accept(): a connection of our own wakes each one up.
        let mut woken = true;
        for addr in &self.tcp {
            let ip = match addr.ip() {
                IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
                ip => ip,
            };
            woken &= TcpStream::connect_timeout(&SocketAddr::new(ip, addr.port()), Duration::from_secs(1)).is_ok();
        }
        if let Some(path) = &self.unix {
            woken &= UnixStream::connect(path).is_ok();
        }
        for acceptor in self.acceptors.drain(..) {
            // An acceptor that could not be woken is left behind rather than waited for.
            if woken {
                let _ = acceptor.join();
            }
        }
        if let Some(path) = &self.unix {
            let _ = std::fs::remove_file(path);
        }
        {
            let mut core = self.shared.lock();
            for client in core.clients.values() {
                client.out.kill();
            }
            core.clients.clear();
        }
        self.shared.wake.notify_all();
        if let Some(timer) = self.timer.take() {
            let _ = timer.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn accept_loop(shared: &Arc<Shared>, listener: Listener) {
    loop {
        let accepted = match &listener {
            Listener::Tcp(l) => l.accept().and_then(|(s, peer)| {
                let local = s.local_addr()?;
                let _ = s.set_nodelay(true);
                Ok((Sock::Tcp(s), peer.to_string(), local.to_string(), false, peer.ip().is_loopback()))
            }),
            Listener::Unix(l) => l.accept().and_then(|(s, _)| {
                let path = s.local_addr()?.as_pathname().map(|p| p.display().to_string()).unwrap_or_default();
                Ok((Sock::Unix(s), format!("{path}:0"), format!("{path}:0"), true, true))
            }),
        };
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        match accepted {
            Ok((sock, addr, laddr, unix, local)) => {
                if let Err(e) = spawn_client(shared, sock, addr, laddr, unix, local) {
                    log::line(shared.log, Level::Warning, &format!("Error registering a client: {e}"));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                log::line(shared.log, Level::Warning, &format!("Accepting client connection: {e}"));
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

fn spawn_client(
    shared: &Arc<Shared>,
    sock: Sock,
    addr: String,
    laddr: String,
    unix: bool,
    local: bool,
) -> io::Result<()> {
    let out = Arc::new(Output::new(sock.try_clone()?));
    let now = Instant::now();
    let fd = sock.fd();
    let id = {
        let mut core = shared.lock();
        let id = core.session.connect();
        let client = Client {
            out: Arc::clone(&out),
            addr,
            laddr,
            fd,
            unix,
            local,
            created: now,
            last_command: now,
            closing: None,
        };
        core.clients.insert(id, client);
        id
    };
    let writer_out = Arc::clone(&out);
    let spawned = std::thread::Builder::new()
        .name(format!("streamlab-w{id}"))
        .stack_size(128 * 1024)
        .spawn(move || writer(&writer_out))
        .and_then(|_| {
            let shared = Arc::clone(shared);
            std::thread::Builder::new()
                .name(format!("streamlab-r{id}"))
                .stack_size(1024 * 1024)
                .spawn(move || reader(&shared, id, sock, &out))
        });
    if let Err(e) = spawned {
        shared.disconnect(id);
        return Err(e);
    }
    Ok(())
}

/// Sends what other connections produce for this one while its reader waits for input.
fn writer(out: &Output) {
    loop {
        {
            let mut state = out.lock();
            while !state.dead && (state.flushing || (state.buf.is_empty() && !state.close && !state.detached)) {
                state = out.wake.wait(state).unwrap_or_else(|e| e.into_inner());
            }
            if state.dead || (state.detached && state.buf.is_empty()) {
                return;
            }
        }
        out.flush();
    }
}

/// An incomplete request larger than this is parsed again only when the buffer has doubled
/// or the client paused: the parser starts from the request's first byte each time, so
/// retrying after every read would cost quadratic time on a request of many arguments.
const DEFER_PARSE_OVER: usize = 256 * 1024;

/// How long a pause in a large request's bytes is before the buffer is parsed anyway.
const PAUSE: Duration = Duration::from_millis(5);

fn reader(shared: &Arc<Shared>, id: ConnId, mut sock: Sock, out: &Output) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut discarding = false;
    // Parse again once the buffer reaches this size (0: after every read) ...
    let mut parse_at = 0;
    // ... or when a read times out: a read timeout is set while bytes are held back.
    let mut waiting = false;
    loop {
        let n = match sock.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if waiting && matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                parse_at = 0;
                0
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if discarding {
            continue;
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > MAX_QUERY_BUFFER {
            log::line(shared.log, Level::Warning, "Closing client that reached max query buffer length");
            break;
        }
        if buf.len() < parse_at {
            // Parse when the buffer has doubled, or as soon as the client pauses.
            if !waiting {
                waiting = true;
                let _ = sock.set_read_timeout(Some(PAUSE));
            }
            continue;
        }
        if waiting {
            waiting = false;
            let _ = sock.set_read_timeout(None);
        }
        let mut requests = Vec::new();
        let mut used = 0;
        let mut error = None;
        loop {
            match parse_request(&buf[used..]) {
                Ok(Some((args, n))) => {
                    used += n;
                    if !args.is_empty() {
                        requests.push(args);
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        buf.drain(..used);
        if buf.capacity() > 1024 * 1024 && buf.len() < 64 * 1024 {
            buf.shrink_to(64 * 1024);
        }
        let defer = error.is_none() && buf.len() > DEFER_PARSE_OVER;
        parse_at = if defer { buf.len() * 2 } else { 0 };
        if requests.is_empty() && error.is_none() {
            continue;
        }
        let flow = shared.run(id, out, requests, error);
        // Our own replies go out from this thread, outside the session lock.
        out.flush();
        match flow {
            Flow::Continue => {}
            Flow::Discard => {
                discarding = true;
                buf = Vec::new();
            }
            Flow::Stop => break,
        }
    }
    shared.disconnect(id);
}

/// Serves the blocked reads whose deadline passed, sleeping until the next deadline.
fn timer(shared: &Arc<Shared>) {
    let mut core = shared.lock();
    loop {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let next = core.session.conns().filter_map(|c| c.blocked().and_then(|b| b.deadline)).min();
        let now = system_ms();
        core = match next {
            Some(deadline) if deadline <= now => {
                let session = &mut core.session;
                let Ok(deliveries) = catch_unwind(AssertUnwindSafe(|| session.advance(0))) else {
                    log::line(shared.log, Level::Warning, "Internal error while serving blocked reads");
                    return;
                };
                route(&mut core, None, deliveries, &mut Vec::new());
                core
            }
            Some(deadline) => {
                let wait = Duration::from_millis(u64::try_from(deadline - now).unwrap_or(0));
                shared.wake.wait_timeout(core, wait).unwrap_or_else(|e| e.into_inner()).0
            }
            None => shared.wake.wait(core).unwrap_or_else(|e| e.into_inner()),
        };
    }
}

/// Sends deliveries to their connections. Those for `own` (the connection whose command is
/// running) go into its reply buffer, after its own replies, as Redis sends pushes after the
/// reply of the command that caused them. A connection that asked to close while blocked is
/// closed once its wait is over.
fn route(core: &mut Core, own: Option<ConnId>, deliveries: Vec<Delivery>, own_buf: &mut Vec<u8>) {
    let mut touched: Vec<ConnId> = Vec::new();
    for delivery in deliveries {
        let resp3 = core.session.conn(delivery.conn).is_some_and(|c| c.resp == 3);
        if Some(delivery.conn) == own {
            encode_into(&delivery.reply, resp3, own_buf);
        } else if let Some(client) = core.clients.get(&delivery.conn) {
            client.out.push(&encode(&delivery.reply, resp3), true);
            let subscriber =
                core.session.conn(delivery.conn).is_some_and(|c| !c.channels().is_empty() || !c.patterns().is_empty());
            if subscriber && client.out.pending() > PUBSUB_OUTPUT_LIMIT {
                // Redis's hard limit for Pub/Sub clients that do not read their messages.
                client.out.kill();
            }
            if !touched.contains(&delivery.conn) {
                touched.push(delivery.conn);
            }
        }
    }
    for conn in touched {
        let blocked = core.session.conn(conn).is_some_and(|c| c.blocked().is_some());
        if let Some(client) = core.clients.get_mut(&conn) {
            if !blocked && matches!(client.closing, Some(Closing::Pending(_))) {
                if let Some(Closing::Pending(bytes)) = client.closing.replace(Closing::Sent) {
                    client.out.push(&bytes, true);
                    client.out.close(true);
                }
            }
        }
    }
}

fn is(arg: &[u8], word: &str) -> bool {
    arg.eq_ignore_ascii_case(word.as_bytes())
}

/// Replies the server completes with what only it knows.
enum Patch {
    None,
    Info,
    ClientList,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Core> {
        // A panic is caught inside the lock, so poisoning is not expected; if it happens the
        // session is still the best state there is.
        self.core.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn disconnect(&self, id: ConnId) {
        let mut core = self.lock();
        core.session.disconnect(id);
        if let Some(client) = core.clients.remove(&id) {
            // The writer ends once it has written what is queued.
            client.out.detach();
        }
    }

    /// Runs a batch of requests from one connection, then reports a protocol error that
    /// followed them, if any.
    /// Replies are left in `out` for the caller to flush once the lock is released.
    fn run(&self, id: ConnId, out: &Output, requests: Vec<Vec<Vec<u8>>>, error: Option<ProtocolError>) -> Flow {
        let mut core = self.lock();
        let mut own = Vec::new();
        for (i, args) in requests.into_iter().enumerate() {
            if i > 0 && i % BATCH == 0 {
                out.push(&std::mem::take(&mut own), false);
                drop(core);
                out.flush();
                core = self.lock();
            }
            let Some(client) = core.clients.get(&id) else { return Flow::Stop };
            if client.closing.is_some() {
                break;
            }
            match self.run_one(&mut core, id, args, &mut own) {
                Step::Go => {}
                Step::Close => {
                    out.push(&own, false);
                    out.close(false);
                    return Flow::Stop;
                }
                Step::Abort => {
                    out.close(false);
                    return Flow::Stop;
                }
            }
        }
        let blocked = core.session.conn(id).is_some_and(|c| c.blocked().is_some());
        if let Some(error) = error {
            let resp3 = core.session.conn(id).is_some_and(|c| c.resp == 3);
            let bytes = encode(&error.to_reply(), resp3);
            if blocked {
                // Redis reads no further while a client is blocked: the error comes after the
                // blocked reply.
                if let Some(client) = core.clients.get_mut(&id) {
                    client.closing.get_or_insert(Closing::Pending(bytes));
                }
            } else {
                own.extend_from_slice(&bytes);
                out.push(&own, false);
                out.close(false);
                return Flow::Stop;
            }
        }
        out.push(&own, false);
        if blocked {
            self.wake.notify_all();
        }
        match core.clients.get(&id) {
            None => Flow::Stop,
            Some(client) if client.closing.is_some() => Flow::Discard,
            Some(_) => Flow::Continue,
        }
    }

    fn run_one(&self, core: &mut Core, id: ConnId, args: Vec<Vec<u8>>, own: &mut Vec<u8>) -> Step {
        let Some(client) = core.clients.get_mut(&id) else { return Step::Abort };
        client.last_command = Instant::now();
        let name = args[0].as_slice();
        if is(name, "post") || is(name, "host:") {
            log::line(
                self.log,
                Level::Warning,
                &format!("Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Redis. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Redis instance. Connection from {} aborted.", client.addr),
            );
            return Step::Abort;
        }
        let blocked = core.session.conn(id).is_some_and(|c| c.blocked().is_some());
        if blocked && is(name, "quit") {
            // QUIT waits behind the blocked read like any other command, then closes.
            client.closing.get_or_insert(Closing::Pending(b"+OK\r\n".to_vec()));
            return Step::Go;
        }
        if is(name, "debug") && !blocked {
            let local = client.local;
            let session = &mut core.session;
            let Ok((reply, deliveries)) = catch_unwind(AssertUnwindSafe(|| self.debug(session, id, &args, local)))
            else {
                log::line(self.log, Level::Warning, &format!("Internal error while running DEBUG for client id={id}"));
                encode_into(&Reply::Error("ERR internal error".into()), false, own);
                return Step::Close;
            };
            let resp3 = core.session.conn(id).is_some_and(|c| c.resp == 3);
            encode_into(&reply, resp3, own);
            route(core, Some(id), deliveries, own);
            return Step::Go;
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
            Err(_) => {
                log::line(
                    self.log,
                    Level::Warning,
                    &format!("Internal error while running a command of client id={id}"),
                );
                encode_into(&Reply::Error("ERR internal error".into()), false, own);
                core.session.disconnect(id);
                return Step::Close;
            }
        };
        let resp3 = core.session.conn(id).is_some_and(|c| c.resp == 3);
        for reply in executed.replies {
            let reply = match patch {
                Patch::None => reply,
                Patch::Info => map_text(reply, |text| self.patch_info(text)),
                Patch::ClientList => map_text(reply, |text| patch_client_list(&core.clients, text)),
            };
            encode_into(&reply, resp3, own);
        }
        route(core, Some(id), executed.deliveries, own);
        if executed.close {
            Step::Close
        } else {
            Step::Go
        }
    }

    /// DEBUG, which the server runs itself: checks in Redis's order (arity, permission,
    /// subscribed context), then SLEEP, STREAMLAB-CLOCK and HELP.
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
        let subscribed = conn.is_some_and(|c| c.resp == 2 && (!c.channels().is_empty() || !c.patterns().is_empty()));
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
            let seconds = strtod(&args[2]).max(0.0);
            let deliveries = match self.clock {
                // Virtual time passes as the sleep says; nothing waits.
                ClockKind::Virtual => session.advance((seconds * 1000.0) as i64),
                ClockKind::System => {
                    // Like Redis, the whole server stops for that long.
                    std::thread::sleep(Duration::from_secs_f64(seconds.min(1e9)));
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
            return (Reply::ok(), session.advance(ms));
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
                    "fd" => format!("fd={}", client.fd),
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
