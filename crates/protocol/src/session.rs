//! The `Session` façade: one engine, its clock, and the client connections talking to it.
//!
//! Everything that concerns connections rather than data lives here: MULTI/EXEC/WATCH,
//! Pub/Sub, blocked reads, CLIENT and HELLO. The CLI, the RESP server and the browser all drive
//! StreamLab through this type, so they behave alike.
//!
//! A command may produce replies for connections other than the caller: a blocked read that an
//! XADD served, a timed-out read, a published message. Those come back as [`Delivery`] values
//! beside the caller's own replies; the host decides how to show or send them.

use streamlab_engine::{glob_match, AddId, Keyspace, SortedMap, SortedSet, StreamId};

mod admin;
mod blocking;
mod conn;
mod connection;
#[cfg(feature = "server")]
mod debug;
mod fill;
#[cfg(feature = "host")]
mod host;
mod invariants;
mod pubsub;

pub use admin::HostRequest;
pub use conn::Conn;
use conn::{distinct, valid_client_name, Multi};
#[cfg(feature = "server")]
pub use host::DebugAccess;
#[cfg(feature = "host")]
pub use host::{HostInfo, Peer};

#[cfg(feature = "host-params")]
use crate::command::admin::HostParam;
use crate::command::conn::SessionCmd;
use crate::command::{self, Block, Clients, Ctx, Outcome, Run};
use crate::error::{CmdError, Msg};
use crate::profile::{Capabilities, Profile};
use crate::reply::Reply;

/// A connection's id, as CLIENT ID reports it.
pub type ConnId = u64;

/// Where the session's time comes from.
#[derive(Debug, Clone, Copy)]
pub enum Clock {
    /// A clock that moves only when told to ([`Session::advance`]): lessons, tests, transcripts.
    Virtual(i64),
    /// The host's clock (Unix milliseconds): the system clock natively, `Date.now()` in a page.
    Host(fn() -> i64),
}

/// The virtual clock's default starting instant (2023-11-14 22:13:20 UTC), fixed so that runs
/// print the same ids and times on every machine.
pub const VIRTUAL_EPOCH_MS: i64 = 1_700_000_000_000;

/// The furthest a virtual clock moves: the last millisecond of year 9999. Past it, times
/// that commands compute from the clock (`SET ... EX`, TIME in microseconds) would overflow,
/// and a clock pinned at `i64::MAX` would refuse every `XADD *`.
pub const VIRTUAL_CLOCK_MAX_MS: i64 = 253_402_300_799_999;

/// A reply for a connection other than the one whose command produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The receiving connection.
    pub conn: ConnId,
    /// What it receives.
    pub reply: Reply,
}

/// The result of one call to [`Session::execute`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Executed {
    /// Replies for the caller, in order. Empty when the command blocked (or was queued behind
    /// a blocked one); several for SUBSCRIBE with several channels.
    pub replies: Vec<Reply>,
    /// Replies for other connections (and late replies for the caller), in order.
    pub deliveries: Vec<Delivery>,
    /// The connection asked to be closed (QUIT).
    pub close: bool,
}

/// Everything that changes as commands run; cloned for undo checkpoints.
#[derive(Debug, Clone)]
struct State {
    db: Keyspace,
    now: i64,
    /// When the session started (its first clock reading): INFO's uptime counts from here.
    started_at: i64,
    conns: SortedMap<ConnId, Conn>,
    next_conn: ConnId,
    /// Connections in the order they blocked: the order Redis serves them in.
    blocked_order: Vec<ConnId>,
    /// The blocked connections that have a deadline, soonest first, so a host asks for the
    /// next one without looking at every blocked connection. Kept by `park` and `release`.
    deadlines: SortedSet<(i64, ConnId)>,
    /// How many connections WATCH at least one key: with none, a command's changed keys need
    /// no look at every connection. Kept by `watch` and `unwatch_all` only.
    watchers: usize,
    /// CLIENT PAUSE, and the connections waiting for it in the order they began to.
    #[cfg(feature = "host")]
    pause: admin::Pause,
    #[cfg(feature = "host")]
    postponed: Vec<ConnId>,
    /// Connections that close once their command is done: QUIT, CLIENT KILL of the caller.
    leaving: Vec<ConnId>,
    /// `maxclients` and the most the host can serve.
    clients: Clients,
    /// The configuration parameters the host owns (the network server's limits).
    #[cfg(feature = "host-params")]
    host: Vec<HostParam>,
}

/// One engine, its clock and its connections, answering as one server profile.
#[derive(Debug, Clone)]
pub struct Session {
    state: State,
    clock: Clock,
    caps: &'static Capabilities,
    /// What commands asked of the host, until it takes them. Outside `State`: a replay
    /// recomputes state, not the host's past work.
    #[cfg(feature = "host")]
    requests: Vec<HostRequest>,
    /// What the host told about its process (`set_host`).
    #[cfg(feature = "host")]
    host: std::sync::Arc<HostInfo>,
    /// Virtual time a DEBUG SLEEP asked to pass once the command is done (a sleep inside EXEC
    /// holds the whole transaction, as Redis's does; its timeouts are served after it).
    #[cfg(feature = "server")]
    sleep: Option<i64>,
}

impl Session {
    /// A session with no connections yet, answering as the default profile (the newest Redis).
    pub fn new(clock: Clock) -> Session {
        Session::with_profile(clock, Profile::default())
    }

    /// A session with no connections yet, answering as `profile`. The profile is fixed for
    /// the session's life: switching servers means starting a new session.
    pub fn with_profile(clock: Clock, profile: Profile) -> Session {
        let now = match clock {
            Clock::Virtual(start) => start,
            Clock::Host(read) => read(),
        };
        let caps = profile.caps();
        let mut db = Keyspace::new();
        db.rules = caps.counters;
        Session {
            state: State {
                db,
                now,
                started_at: now,
                conns: SortedMap::new(),
                next_conn: 1,
                blocked_order: Vec::new(),
                deadlines: SortedSet::new(),
                watchers: 0,
                #[cfg(feature = "host")]
                pause: admin::Pause::default(),
                #[cfg(feature = "host")]
                postponed: Vec::new(),
                leaving: Vec::new(),
                clients: Clients::default(),
                #[cfg(feature = "host-params")]
                host: Vec::new(),
            },
            clock,
            caps,
            #[cfg(feature = "host")]
            requests: Vec::new(),
            #[cfg(feature = "host")]
            host: Default::default(),
            #[cfg(feature = "server")]
            sleep: None,
        }
    }

    /// Adds a configuration parameter the host owns: CONFIG GET and CONFIG SET treat it as
    /// one of their own (the `host-params` feature; the wasm builds leave it out).
    #[cfg(feature = "host-params")]
    pub fn add_host_param(&mut self, param: HostParam) {
        self.state.host.push(param);
    }

    /// A host-owned parameter's value as CONFIG GET shows it.
    #[cfg(feature = "host-params")]
    pub fn host_param(&self, name: &str) -> Option<&str> {
        self.state.host.iter().find(|p| p.name == name).map(|p| p.value.as_str())
    }

    /// Counts the CONFIG SET calls that changed host-owned parameters, so the host reads
    /// them again only when this moved.
    #[cfg(feature = "host-params")]
    pub fn host_changes(&self) -> u64 {
        self.state.host.iter().map(|p| p.changes).sum()
    }

    /// The profile the session answers as.
    pub fn profile(&self) -> Profile {
        self.caps.profile
    }

    /// Everything the profile decides.
    pub fn capabilities(&self) -> &'static Capabilities {
        self.caps
    }

    /// The keyspace, for pictures and checks.
    pub fn keyspace(&self) -> &Keyspace {
        &self.state.db
    }

    /// The current time as the session sees it (the last clock reading).
    pub fn now(&self) -> i64 {
        self.state.now
    }

    /// How many connections are open.
    pub fn conn_count(&self) -> usize {
        self.state.conns.len()
    }

    /// One connection's state.
    pub fn conn(&self, id: ConnId) -> Option<&Conn> {
        self.state.conns.get(&id)
    }

    /// Opens a connection.
    pub fn connect(&mut self) -> ConnId {
        let id = self.state.next_conn;
        self.state.next_conn += 1;
        self.state.conns.insert(id, Conn::new(id, self.state.now));
        id
    }

    /// Closes a connection, dropping its subscriptions and any blocked read.
    pub fn disconnect(&mut self, id: ConnId) {
        if self.state.conns.contains_key(&id) {
            self.unwatch_all(id);
        }
        self.release(id);
        #[cfg(feature = "host")]
        self.state.postponed.retain(|&c| c != id);
        self.state.conns.remove(&id);
    }

    /// Reads the clock as the next command would (a virtual clock just reports its time).
    pub fn clock_reading(&mut self) -> i64 {
        self.read_clock()
    }

    /// The instant [`Session::advance`] by `ms` would move to.
    pub fn advanced_by(&mut self, ms: i64) -> i64 {
        match self.clock {
            Clock::Virtual(_) => self.state.now.saturating_add(ms.max(0)).min(VIRTUAL_CLOCK_MAX_MS.max(self.state.now)),
            Clock::Host(_) => self.read_clock(),
        }
    }

    /// Whether time moves only when told to ([`Clock::Virtual`]).
    pub fn virtual_clock(&self) -> bool {
        matches!(self.clock, Clock::Virtual(_))
    }

    /// The id the next [`Session::connect`] will give.
    pub fn next_conn_id(&self) -> ConnId {
        self.state.next_conn
    }

    fn read_clock(&mut self) -> i64 {
        if let Clock::Host(read) = self.clock {
            // Never let time run backwards inside the session, whatever the host clock does.
            self.state.now = self.state.now.max(read());
        }
        self.state.now
    }

    /// Moves a virtual clock forward and serves the blocked reads whose time ran out.
    /// On a host clock it only reads the clock and serves timeouts.
    pub fn advance(&mut self, ms: i64) -> Vec<Delivery> {
        let to = self.advanced_by(ms);
        self.advance_to(to)
    }

    /// Moves the session's time to `now` (never backwards) and serves what that makes due:
    /// expired keys and timed-out blocked reads. Replaying history uses this to reproduce a
    /// step exactly.
    pub fn advance_to(&mut self, now: i64) -> Vec<Delivery> {
        let mut deliveries = self.advance_once(now);
        self.sleep_through(&mut deliveries);
        deliveries
    }

    fn advance_once(&mut self, now: i64) -> Vec<Delivery> {
        self.state.now = self.state.now.max(now);
        let now = self.state.now;
        self.state.db.expire_due(now);
        let mut deliveries = Vec::new();
        self.resume_due(&mut deliveries);
        // Reads that time alone can serve (XREADGROUP CLAIM) look again at their keys.
        // Plain loops here and below: each collected adapter chain is its own wasm code.
        let mut retry: Vec<Vec<u8>> = Vec::new();
        for block in self.state.conns.values().filter_map(|c| c.blocked.as_ref()) {
            if block.retry_on_tick {
                retry.extend(block.keys.iter().cloned());
            }
        }
        for key in retry {
            self.state.db.signal_ready(&key);
        }
        self.after_command(&mut deliveries);
        self.serve_timeouts(now, &mut deliveries);
        self.shape_deliveries(&mut deliveries);
        deliveries
    }

    /// Runs one command for a connection, reading the clock once for it. Unknown connections
    /// are opened on the fly.
    pub fn execute(&mut self, conn: ConnId, args: Vec<Vec<u8>>) -> Executed {
        let now = self.read_clock();
        self.execute_at(conn, args, now)
    }

    /// Runs one command as if the clock read `now` (never earlier than the session's time):
    /// what [`Session::execute`] does after reading the clock, and what replaying history does
    /// with the reading it recorded.
    pub fn execute_at(&mut self, conn: ConnId, args: Vec<Vec<u8>>, now: i64) -> Executed {
        if !self.state.conns.contains_key(&conn) {
            self.state.conns.insert(conn, Conn::new(conn, self.state.now));
            // Keep future connection ids clear of one opened on the fly.
            self.state.next_conn = self.state.next_conn.max(conn + 1);
        }
        let mut out = Executed::default();
        #[cfg(feature = "host")]
        {
            self.conn_mut(conn).last_command = self.state.now.max(now);
        }
        if self.state.conns[&conn].waiting() {
            self.conn_mut(conn).backlog.push(args);
            return out;
        }
        self.state.now = self.state.now.max(now);
        let now = self.state.now;
        self.state.db.expire_due(now);
        self.resume_due(&mut out.deliveries);
        if self.postpones(conn, &args) {
            self.postpone(conn, args);
            self.shape_deliveries(&mut out.deliveries);
            return out;
        }
        self.run(conn, args, now, &mut out);
        self.after_command(&mut out.deliveries);
        if self.speaks_resp2(conn) {
            for reply in &mut out.replies {
                *reply = std::mem::replace(reply, Reply::NullBulk).into_resp2();
            }
        }
        self.shape_deliveries(&mut out.deliveries);
        self.let_go();
        self.sleep_through(&mut out.deliveries);
        out
    }

    /// Lets go of the connections that close once their command is done; whether any did.
    fn let_go(&mut self) -> bool {
        let leaving = std::mem::take(&mut self.state.leaving);
        for &id in &leaving {
            self.disconnect(id);
        }
        !leaving.is_empty()
    }

    /// Lets pass the virtual time DEBUG SLEEP asked for, serving what comes due.
    #[cfg_attr(not(feature = "server"), allow(unused_variables, clippy::ptr_arg))]
    fn sleep_through(&mut self, deliveries: &mut Vec<Delivery>) {
        #[cfg(feature = "server")]
        while let Some(ms) = self.sleep.take() {
            let to = self.advanced_by(ms);
            let served = self.advance_once(to);
            deliveries.extend(served);
        }
    }

    fn speaks_resp2(&self, conn: ConnId) -> bool {
        self.state.conns.get(&conn).is_none_or(|c| c.resp == 2)
    }

    /// Replies are built in RESP3 shape; RESP2 connections see them as the wire shows them.
    fn shape_deliveries(&self, deliveries: &mut [Delivery]) {
        for delivery in deliveries {
            if self.speaks_resp2(delivery.conn) {
                delivery.reply = std::mem::replace(&mut delivery.reply, Reply::NullBulk).into_resp2();
            }
        }
    }

    /// Adds keys to a connection's WATCH list.
    fn watch(&mut self, conn: ConnId, keys: &[Vec<u8>]) {
        let c = self.conn_mut(conn);
        let was_watching = !c.watched.is_empty();
        for key in keys {
            c.watched.insert(key.clone());
        }
        if !was_watching && !c.watched.is_empty() {
            self.state.watchers += 1;
        }
    }

    /// Forgets every key a connection watches, and whether one changed.
    fn unwatch_all(&mut self, conn: ConnId) {
        let c = self.conn_mut(conn);
        let was_watching = !c.watched.is_empty();
        c.watched.clear();
        c.watch_dirty = false;
        if was_watching {
            self.state.watchers -= 1;
        }
    }

    fn conn_mut(&mut self, id: ConnId) -> &mut Conn {
        self.state.conns.get_mut(&id).expect("connection exists")
    }

    /// Runs a command that is not queued behind a block.
    fn run(&mut self, conn: ConnId, args: Vec<Vec<u8>>, now: i64, out: &mut Executed) {
        if args.is_empty() {
            return;
        }
        #[cfg(feature = "server")]
        if debug::cross_protocol(&args) {
            self.hang_up_on_attack(conn);
            return;
        }
        let spec = command::check_call(&args, self.caps);
        // A malformed call of a connection command is still that command (a bad EXEC ends
        // the transaction).
        let cmd = match spec {
            Ok(spec) => spec.session_cmd(),
            Err(_) => command::lookup_in(self.caps, command::arg(&args, 0)).and_then(|s| s.session_cmd()),
        };
        let in_multi = self.state.conns[&conn].multi.is_some();
        if in_multi && self.caps.strict_multi && matches!(cmd, Some(SessionCmd::Multi | SessionCmd::Watch)) {
            // Valkey refuses these inside a transaction like any forbidden command, and the
            // transaction fails.
            self.fail_transaction(conn);
            let name = if cmd == Some(SessionCmd::Multi) { "multi" } else { "watch" };
            out.replies.push(Reply::Error(CmdError::NotInTransaction(name.to_owned()).to_string()));
            return;
        }
        // Refused before queueing: inside MULTI the transaction fails, as Redis fails it.
        let spec = spec.and_then(|spec| self.refusal(conn, spec).map_or(Ok(spec), Err));
        if in_multi && !cmd.is_some_and(SessionCmd::controls_transaction) {
            let reply = match spec {
                Err(error) => {
                    self.fail_transaction(conn);
                    Reply::Error(error.to_string())
                }
                Ok(_) => {
                    if let Some(multi) = self.conn_mut(conn).multi.as_mut() {
                        multi.queue.push(args);
                    }
                    Reply::Status("QUEUED".into())
                }
            };
            out.replies.push(reply);
            return;
        }
        let spec = match spec {
            Ok(spec) => spec,
            Err(error) if cmd == Some(SessionCmd::Exec) => {
                // A malformed EXEC ends the transaction on the spot, naming the reason; outside
                // MULTI it answers the same way and still drops the connection's WATCHes.
                self.conn_mut(conn).multi = None;
                self.unwatch_all(conn);
                out.replies.push(Reply::Error(CmdError::ExecAbortBecause(Box::new(error)).to_string()));
                return;
            }
            Err(error) => {
                self.fail_transaction(conn);
                out.replies.push(Reply::Error(error.to_string()));
                return;
            }
        };
        if self.state.conns[&conn].in_subscribed_context() && !cmd.is_some_and(SessionCmd::allowed_subscribed) {
            // Subcommands are named by their full name, `client|setname`.
            let full = match args.get(1) {
                Some(sub) if !spec.subcommands.is_empty() => {
                    format!("{}|{}", spec.name, String::from_utf8_lossy(&sub.to_ascii_lowercase()))
                }
                _ => spec.name.to_owned(),
            };
            out.replies.push(Reply::Error(CmdError::SubscribedContext(full).to_string()));
            return;
        }
        let result = match spec.run {
            Run::Data(handler) => self.run_data(conn, handler, &args, now),
            Run::Owning(handler) => handler(&mut self.ctx(conn, now), args),
            Run::Session(cmd) => {
                if let Err(error) = self.run_session(conn, cmd, &args, now, out) {
                    out.replies.push(Reply::Error(error.to_string()));
                }
                return;
            }
        };
        match result {
            Ok(Outcome::Reply(reply)) => out.replies.push(reply),
            Ok(Outcome::Block(block)) => self.park(conn, block),
            Err(error) => out.replies.push(Reply::Error(error.to_string())),
        }
    }

    /// Marks the connection's transaction, if it has one, as failed.
    fn fail_transaction(&mut self, conn: ConnId) {
        if let Some(multi) = self.conn_mut(conn).multi.as_mut() {
            multi.failed = true;
        }
    }

    /// Why a well-formed command is refused before it runs or queues: SHUTDOWN inside MULTI,
    /// DEBUG where the host does not allow it.
    #[cfg_attr(not(feature = "host"), allow(unused_variables))]
    fn refusal(&self, conn: ConnId, spec: &command::CommandSpec) -> Option<CmdError> {
        #[cfg(feature = "host")]
        if spec.session_cmd() == Some(SessionCmd::Shutdown) && self.state.conns[&conn].multi.is_some() {
            return Some(Msg::NotAllowedInMulti.into());
        }
        #[cfg(feature = "server")]
        if spec.session_cmd() == Some(SessionCmd::Debug) && !self.debug_allowed(conn) {
            return Some(Msg::DebugNotAllowed.into());
        }
        None
    }

    /// What a data command of `conn` may touch.
    fn ctx(&mut self, conn: ConnId, now: i64) -> Ctx<'_> {
        let resp3 = self.state.conns[&conn].resp == 3;
        Ctx {
            db: &mut self.state.db,
            now,
            started_at: self.state.started_at,
            resp3,
            caps: self.caps,
            #[cfg(feature = "host-params")]
            host: &mut self.state.host,
            clients: &mut self.state.clients,
            #[cfg(feature = "host")]
            process: &self.host,
        }
    }

    fn run_data(
        &mut self,
        conn: ConnId,
        handler: command::Handler,
        args: &[Vec<u8>],
        now: i64,
    ) -> Result<Outcome, CmdError> {
        // Only INFO reads the counts, and they take a look at every connection.
        self.state.clients.counts = if cfg!(feature = "host") && command::is(command::arg(args, 0), "info") {
            Some(self.client_counts())
        } else {
            None
        };
        handler(&mut self.ctx(conn, now), args)
    }
}
