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
use streamlab_protocol::command::is;
use streamlab_protocol::{
    encode_into, Clock, CmdError, ConnId, Delivery, HostRequest, Reply, Session, VIRTUAL_CLOCK_MAX_MS, VIRTUAL_EPOCH_MS,
};

use crate::client::{Client, Closing, Sock, READ_CHUNK};
use crate::config::{ClockKind, Config, DebugAccess, Port};
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

/// What INFO reports about the process (the session cannot know it).
struct ProcessInfo {
    tcp_port: u16,
    listeners: Vec<String>,
    executable: String,
    config_file: String,
}

/// What the loop reads but never changes.
pub(crate) struct Settings {
    debug: DebugAccess,
    clock: ClockKind,
    pub(crate) log: bool,
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
pub(crate) enum Step {
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
        self.core.session.set_address(id, addr.clone(), laddr.clone());
        self.core.clients.insert(id, Client::new(sock, addr, laddr, unix, local));
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
                self.host_requests(None, &mut Vec::new());
            }
            Err(_) => log::line(self.settings.log, Level::Warning, "Internal error while serving blocked reads"),
        }
    }

    pub(crate) fn run_one(&mut self, id: ConnId, args: Vec<Vec<u8>>, now: Instant, own: &mut Vec<u8>) -> Step {
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
