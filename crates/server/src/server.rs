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
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::unix::fs::PermissionsExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use mio::net::{TcpListener, UnixListener};
use mio::{Events, Interest, Poll, Token, Waker};
use streamlab_protocol::session::{HostInfo, Peer};
use streamlab_protocol::{encode_into, Clock, ConnId, HostRequest, Reply, Session, VIRTUAL_EPOCH_MS};

use crate::client::{Client, Sock, READ_CHUNK};
use crate::config::{ClockKind, Config, Port};
use crate::conns::{route, Core};
use crate::log::{self, Level};
use crate::maxclients::{self, AcceptErrors, MAX_CLIENTS_REACHED};

mod host;

/// How long the loop waits before accepting again after accept() failed (out of descriptors).
const ACCEPT_RETRY: Duration = Duration::from_millis(10);

/// The token that wakes the loop for shutdown. Listeners count down from just below it;
/// clients use their connection id (ids are never reused, so a late event for a closed client
/// finds nothing).
const WAKER: Token = Token(usize::MAX);

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

/// What the loop reads but never changes.
pub(crate) struct Settings {
    clock: ClockKind,
    pub(crate) log: bool,
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
pub(crate) enum RequestEnd {
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
        let fit = maxclients::fit_open_files(config.maxclients, config.log)?;
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
        session.set_host(HostInfo {
            tcp_port,
            process_id: std::process::id(),
            executable: std::env::current_exe().map(|p| p.display().to_string()).unwrap_or_default(),
            config_file: config.config_file.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            listeners: lines,
            debug: config.debug,
        });
        for param in config.limits.host_params() {
            session.add_host_param(param);
        }
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
                limits: config.limits,
                limits_seen: 0,
                log: config.log,
                released: 0,
            },
            settings: Settings { clock: config.clock, log: config.log },
            shared: Arc::clone(&shared),
        };
        let looper = std::thread::Builder::new().name("streamlab-loop".into()).spawn(move || event_loop.run())?;
        Ok(Server { shared, tcp, unix, looper: Some(looper) })
    }

    /// The TCP port listened on, if TCP is on (the real one when it was picked by the system).
    pub fn tcp_port(&self) -> Option<u16> {
        self.tcp.first().map(SocketAddr::port)
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
pub(crate) struct EventLoop {
    poll: Poll,
    listeners: Vec<Listener>,
    /// When to try accepting again after accept() failed.
    retry_accept: Option<Instant>,
    accept_errors: AcceptErrors,
    /// One read buffer for every client.
    pub(crate) chunk: Vec<u8>,
    /// The requests of the batch being run (kept for its allocation).
    pub(crate) requests: Vec<Vec<Vec<u8>>>,
    pub(crate) core: Core,
    pub(crate) settings: Settings,
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
            self.core.trim_if_released();
        }
        // Shutdown: the listeners close as they drop; every client is cut off.
        self.listeners.clear();
        for client in self.core.clients.values() {
            client.sock.shutdown();
        }
    }

    /// How long the next poll may wait: not at all while a client has unread input, else
    /// until the next blocked read's deadline or accept retry. (No write is
    /// queued here: every round ends with `write_pending`, which queues none.)
    fn timeout(&self) -> Option<Duration> {
        if !self.core.to_read.is_empty() {
            return Some(Duration::ZERO);
        }
        let now = Instant::now();
        let mut next: Option<Instant> = self.retry_accept;
        let mut sooner = |at: Instant| next = Some(next.map_or(at, |n| n.min(at)));
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
        self.core
            .session
            .set_peer(id, Peer { addr: addr.clone(), laddr, fd: u64::try_from(sock.fd()).unwrap_or(0), unix, local });
        self.core.clients.insert(id, Client::new(sock, addr));
        // Bytes may have come before the registration.
        self.core.queue_read(id);
        Ok(())
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
                let _ = self.host_requests(None, &mut Vec::new());
            }
            Err(_) => log::line(self.settings.log, Level::Warning, "Internal error while serving blocked reads"),
        }
    }

    pub(crate) fn run_one(&mut self, id: ConnId, args: Vec<Vec<u8>>, own: &mut Vec<u8>) -> RequestEnd {
        let core = &mut self.core;
        let session = &mut core.session;
        let executed = match catch_unwind(AssertUnwindSafe(|| session.execute(id, args))) {
            Ok(executed) => executed,
            Err(_) => return internal_error(self.settings.log, &format!("running a command of client id={id}"), own),
        };
        let resp3 = core.resp3(id);
        for reply in &executed.replies {
            encode_into(reply, resp3, own);
        }
        route(core, Some(id), executed.deliveries, own);
        match self.host_requests(Some(id), own) {
            Some(step) => step,
            None if executed.close => RequestEnd::Close,
            None => RequestEnd::Go,
        }
    }
}

/// A command panicked: the client gets an error and is closed, and the log says what was
/// running.
fn internal_error(log_enabled: bool, what: &str, own: &mut Vec<u8>) -> RequestEnd {
    log::line(log_enabled, Level::Warning, &format!("Internal error while {what}"));
    encode_into(&Reply::Error("ERR internal error".into()), false, own);
    RequestEnd::Close
}
