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

pub use admin::HostRequest;

#[cfg(feature = "host-params")]
use crate::command::server::HostParam;
use crate::command::{self, Block, Clients, Ctx, Outcome, Run};
use crate::error::{CmdError, Msg};
use crate::profile::{Capabilities, Profile};
use crate::reply::Reply;

/// What `:fill` added: the first and last ids, or `None` for nothing.
pub type Filled = Option<(StreamId, StreamId)>;

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

#[derive(Debug, Clone, Default)]
struct Multi {
    queue: Vec<Vec<Vec<u8>>>,
    failed: bool,
}

/// A connection's state.
#[derive(Debug, Clone)]
pub struct Conn {
    /// CLIENT ID.
    pub id: ConnId,
    /// CLIENT SETNAME's name.
    pub name: Option<Vec<u8>>,
    /// The protocol version, 2 or 3.
    pub resp: u8,
    multi: Option<Multi>,
    watched: SortedSet<Vec<u8>>,
    watch_dirty: bool,
    channels: SortedSet<Vec<u8>>,
    patterns: SortedSet<Vec<u8>>,
    blocked: Option<Block>,
    /// Commands that arrived while the connection was blocked or paused, run once it is
    /// served (as a server would leave them in the socket buffer).
    backlog: Vec<Vec<Vec<u8>>>,
    /// A command of its waits for CLIENT PAUSE to end (it is first in `backlog`).
    #[cfg(feature = "host")]
    postponed: bool,
    /// When it connected (session clock), for CLIENT KILL MAXAGE.
    #[cfg(feature = "host")]
    created: i64,
    /// Where it comes from and what it reached, as its host told (`set_address`).
    #[cfg(feature = "host")]
    addr: Option<(String, String)>,
}

impl Conn {
    #[cfg_attr(not(feature = "host"), allow(unused_variables))]
    fn new(id: ConnId, created: i64) -> Conn {
        Conn {
            id,
            name: None,
            resp: 2,
            multi: None,
            watched: SortedSet::new(),
            watch_dirty: false,
            channels: SortedSet::new(),
            patterns: SortedSet::new(),
            blocked: None,
            backlog: Vec::new(),
            #[cfg(feature = "host")]
            postponed: false,
            #[cfg(feature = "host")]
            created,
            #[cfg(feature = "host")]
            addr: None,
        }
    }

    /// RESET: a fresh connection, except for where it comes from and when it came.
    fn reset(&mut self) {
        let fresh = Conn::new(self.id, 0);
        #[cfg(feature = "host")]
        let fresh = Conn { addr: self.addr.take(), created: self.created, ..fresh };
        *self = fresh;
    }

    /// The peer address CLIENT LIST and CLIENT KILL show (a placeholder unless the host said).
    fn addr(&self) -> &str {
        #[cfg(feature = "host")]
        if let Some((addr, _)) = &self.addr {
            return addr;
        }
        "127.0.0.1:0"
    }

    /// The local address CLIENT LIST and CLIENT KILL LADDR show.
    fn laddr(&self) -> &str {
        #[cfg(feature = "host")]
        if let Some((_, laddr)) = &self.addr {
            return laddr;
        }
        "127.0.0.1:6379"
    }

    /// Whether its commands wait: in a blocked read, or behind CLIENT PAUSE.
    pub fn waiting(&self) -> bool {
        #[cfg(feature = "host")]
        if self.postponed {
            return true;
        }
        self.blocked.is_some()
    }

    /// Whether a MULTI is open.
    pub fn in_multi(&self) -> bool {
        self.multi.is_some()
    }

    /// Commands queued by the open MULTI.
    pub fn queued(&self) -> usize {
        self.multi.as_ref().map_or(0, |m| m.queue.len())
    }

    /// The commands the open MULTI queued.
    #[cfg(feature = "host")]
    fn queued_commands(&self) -> &[Vec<Vec<u8>>] {
        self.multi.as_ref().map_or(&[], |m| &m.queue)
    }

    /// The blocked read this connection waits on, if any.
    pub fn blocked(&self) -> Option<&Block> {
        self.blocked.as_ref()
    }

    /// Channels subscribed to.
    pub fn channels(&self) -> &SortedSet<Vec<u8>> {
        &self.channels
    }

    /// Patterns subscribed to.
    pub fn patterns(&self) -> &SortedSet<Vec<u8>> {
        &self.patterns
    }

    /// How many channels and patterns the connection is subscribed to (what SUBSCRIBE and its
    /// kin report); above zero it is a Pub/Sub client.
    pub fn subscriptions(&self) -> usize {
        self.channels.len() + self.patterns.len()
    }

    /// Whether the connection is in RESP2's subscribed context: a RESP2 connection with
    /// subscriptions, which accepts only a few commands.
    pub fn in_subscribed_context(&self) -> bool {
        self.resp == 2 && self.subscriptions() > 0
    }
}

/// The distinct channels (or, with `patterns`, patterns) the connections subscribe to, in
/// order. Inserted one by one into the same kind of set the connections keep them in: sorting
/// a collected list would bring a whole sort routine into the wasm for this one use.
fn distinct(conns: &SortedMap<ConnId, Conn>, patterns: bool) -> SortedSet<Vec<u8>> {
    // Two loops, not a `flat_map` per caller: each chain is its own code in the wasm bundles.
    let mut set = SortedSet::new();
    for c in conns.values() {
        for name in if patterns { &c.patterns } else { &c.channels }.iter() {
            set.insert(name.clone());
        }
    }
    set
}

/// Client names are printable ASCII without spaces (CLIENT LIST must stay parseable).
fn valid_client_name(name: &[u8]) -> bool {
    name.iter().all(|&b| (b'!'..=b'~').contains(&b))
}

/// Everything that changes as commands run; cloned for undo checkpoints.
#[derive(Debug, Clone)]
struct State {
    db: Keyspace,
    now: i64,
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
        db.started_at = Some(now);
        db.rules = caps.counters;
        Session {
            state: State {
                db,
                now,
                conns: SortedMap::new(),
                next_conn: 1,
                blocked_order: Vec::new(),
                deadlines: SortedSet::new(),
                watchers: 0,
                #[cfg(feature = "host")]
                pause: admin::Pause::default(),
                #[cfg(feature = "host")]
                postponed: Vec::new(),
                clients: Clients::default(),
                #[cfg(feature = "host-params")]
                host: Vec::new(),
            },
            clock,
            caps,
            #[cfg(feature = "host")]
            requests: Vec::new(),
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
            out.replies = out.replies.into_iter().map(Reply::into_resp2).collect();
        }
        self.shape_deliveries(&mut out.deliveries);
        out
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
        let spec = command::check_call(&args, self.caps);
        // The table's names are lower case, so a known command needs no lowered copy.
        let lowered;
        let name: &[u8] = match spec {
            Ok(spec) => spec.name.as_bytes(),
            Err(_) => {
                lowered = command::arg(&args, 0).to_ascii_lowercase();
                &lowered
            }
        };
        let in_multi = self.state.conns[&conn].multi.is_some();
        if in_multi && self.caps.strict_multi && matches!(name, b"multi" | b"watch") {
            // Valkey refuses these inside a transaction like any forbidden command, and the
            // transaction fails.
            if let Some(multi) = self.conn_mut(conn).multi.as_mut() {
                multi.failed = true;
            }
            let error = CmdError::NotInTransaction(String::from_utf8_lossy(name).into_owned());
            out.replies.push(Reply::Error(error.to_string()));
            return;
        }
        let transaction_control = matches!(name, b"exec" | b"discard" | b"multi" | b"watch" | b"quit" | b"reset");
        if in_multi && !transaction_control {
            let reply = match spec {
                #[cfg(feature = "host")]
                Ok(_) if name == b"shutdown" => {
                    if let Some(multi) = self.conn_mut(conn).multi.as_mut() {
                        multi.failed = true;
                    }
                    Reply::Error(CmdError::from(Msg::NotAllowedInMulti).to_string())
                }
                Err(error) => {
                    if let Some(multi) = self.conn_mut(conn).multi.as_mut() {
                        multi.failed = true;
                    }
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
            Err(error) if name == b"exec" => {
                // A malformed EXEC ends the transaction on the spot, naming the reason; outside
                // MULTI it answers the same way and still drops the connection's WATCHes.
                self.conn_mut(conn).multi = None;
                self.unwatch_all(conn);
                out.replies.push(Reply::Error(CmdError::ExecAbortBecause(Box::new(error)).to_string()));
                return;
            }
            Err(error) => {
                if let Some(multi) = self.conn_mut(conn).multi.as_mut() {
                    multi.failed = true;
                }
                out.replies.push(Reply::Error(error.to_string()));
                return;
            }
        };
        if self.state.conns[&conn].in_subscribed_context()
            && !matches!(
                name,
                b"subscribe" | b"psubscribe" | b"unsubscribe" | b"punsubscribe" | b"ping" | b"quit" | b"reset"
            )
        {
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
            Run::Session => {
                if let Err(error) = self.run_session(conn, name, &args, now, out) {
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

    /// What a data command of `conn` may touch.
    fn ctx(&mut self, conn: ConnId, now: i64) -> Ctx<'_> {
        let resp3 = self.state.conns[&conn].resp == 3;
        Ctx {
            db: &mut self.state.db,
            now,
            resp3,
            caps: self.caps,
            #[cfg(feature = "host-params")]
            host: &mut self.state.host,
            clients: &mut self.state.clients,
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

    /// Bookkeeping after every command: WATCH invalidation, then waking blocked reads whose
    /// keys were signalled, then running what those connections had queued meanwhile.
    fn after_command(&mut self, deliveries: &mut Vec<Delivery>) {
        loop {
            // With nobody watching or blocked, the logs are cleared in place (keeping their
            // allocations) instead of being looked at.
            if self.state.watchers == 0 {
                self.state.db.clear_touched();
            } else {
                let touched = self.state.db.take_touched();
                for conn in self.state.conns.values_mut() {
                    if !conn.watch_dirty && touched.iter().any(|k| conn.watched.contains(k)) {
                        conn.watch_dirty = true;
                    }
                }
            }
            if self.state.blocked_order.is_empty() {
                self.state.db.clear_ready();
                return;
            }
            let ready = self.state.db.take_ready();
            if ready.is_empty() {
                return;
            }
            let now = self.state.now;
            let waiting: Vec<ConnId> = self.state.blocked_order.clone();
            for conn in waiting {
                let Some(block) = self.state.conns.get(&conn).and_then(|c| c.blocked.clone()) else { continue };
                let wakes = |k: &Vec<u8>| {
                    ready.contains(k) && (!block.streams_only || matches!(self.state.db.stream(k), Ok(Some(_))))
                };
                if !block.keys.iter().any(wakes) {
                    continue;
                }
                let Ok(spec) = command::check_call(&block.args, self.caps) else { continue };
                let Run::Data(handler) = spec.run else { continue };
                let reply = match self.run_data(conn, handler, &block.args, now) {
                    Ok(Outcome::Block(_)) => continue,
                    Ok(Outcome::Reply(reply)) => reply,
                    Err(error) => Reply::Error(error.to_string()),
                };
                self.unblock(conn, reply, deliveries);
            }
        }
    }

    /// Ends a connection's wait with a reply, then runs whatever it had queued meanwhile.
    fn unblock(&mut self, conn: ConnId, reply: Reply, deliveries: &mut Vec<Delivery>) {
        self.release(conn);
        deliveries.push(Delivery { conn, reply });
        self.run_backlog(conn, deliveries);
    }

    /// Runs what a connection queued while it waited, until it waits again.
    fn run_backlog(&mut self, conn: ConnId, deliveries: &mut Vec<Delivery>) {
        let now = self.state.now;
        // Nothing joins the backlog while it runs (commands queue only from outside), so it is
        // taken whole; what a command that blocks again leaves unrun goes back, still first.
        let mut queued = std::mem::take(&mut self.conn_mut(conn).backlog).into_iter();
        while self.state.conns.get(&conn).is_some_and(|c| !c.waiting()) {
            let Some(args) = queued.next() else { break };
            if self.postpones(conn, &args) {
                self.postpone(conn, args);
                break;
            }
            let mut out = Executed::default();
            self.run(conn, args, now, &mut out);
            deliveries.extend(out.replies.into_iter().map(|reply| Delivery { conn, reply }));
            deliveries.extend(out.deliveries);
        }
        if let Some(c) = self.state.conns.get_mut(&conn) {
            c.backlog.extend(queued);
        }
    }

    /// Parks `conn` on a blocked read.
    fn park(&mut self, conn: ConnId, block: Block) {
        if let Some(deadline) = block.deadline {
            self.state.deadlines.insert((deadline, conn));
        }
        self.conn_mut(conn).blocked = Some(block);
        self.state.blocked_order.push(conn);
    }

    /// Ends `conn`'s blocked read, if it has one, and returns it.
    fn release(&mut self, conn: ConnId) -> Option<Block> {
        let block = self.state.conns.get_mut(&conn)?.blocked.take()?;
        if let Some(deadline) = block.deadline {
            self.state.deadlines.remove(&(deadline, conn));
        }
        self.state.blocked_order.retain(|&c| c != conn);
        Some(block)
    }

    fn serve_timeouts(&mut self, now: i64, deliveries: &mut Vec<Delivery>) {
        if self.next_deadline().is_none_or(|deadline| deadline > now) {
            return;
        }
        // Several reads timing out at one instant are answered in blocking order: that is the
        // order a transcript prints them in (each goes to its own connection, so a real
        // server's order between them is not something a client sees).
        let mut expired: Vec<ConnId> = Vec::new();
        for &c in &self.state.blocked_order {
            if self.state.conns[&c].blocked.as_ref().and_then(|b| b.deadline).is_some_and(|d| d <= now) {
                expired.push(c);
            }
        }
        for conn in expired {
            self.unblock(conn, Reply::NullArray, deliveries);
            self.after_command(deliveries);
        }
    }

    // ----- connection commands ------------------------------------------------------------

    fn run_session(
        &mut self,
        conn: ConnId,
        name: &[u8],
        args: &[Vec<u8>],
        now: i64,
        out: &mut Executed,
    ) -> Result<(), CmdError> {
        match name {
            b"multi" => {
                let c = self.conn_mut(conn);
                if c.multi.is_some() {
                    return Err(Msg::MultiNested.into());
                }
                c.multi = Some(Multi::default());
                out.replies.push(Reply::ok());
            }
            b"discard" => {
                if self.conn_mut(conn).multi.take().is_none() {
                    return Err(Msg::DiscardWithoutMulti.into());
                }
                self.unwatch_all(conn);
                out.replies.push(Reply::ok());
            }
            b"exec" => self.exec(conn, now, out)?,
            b"watch" => {
                if self.state.conns[&conn].multi.is_some() {
                    return Err(Msg::WatchInMulti.into());
                }
                self.watch(conn, command::rest(args, 1));
                out.replies.push(Reply::ok());
            }
            b"unwatch" => {
                self.unwatch_all(conn);
                out.replies.push(Reply::ok());
            }
            b"subscribe" | b"psubscribe" => {
                let pattern = name == b"psubscribe";
                for channel in command::rest(args, 1) {
                    let c = self.conn_mut(conn);
                    let set = if pattern { &mut c.patterns } else { &mut c.channels };
                    set.insert(channel.clone());
                    let kind: &[u8] = if pattern { b"psubscribe" } else { b"subscribe" };
                    let count = c.subscriptions() as i64;
                    out.replies.push(
                        self.push(conn, vec![Reply::bulk(kind), Reply::Bulk(channel.clone()), Reply::Integer(count)]),
                    );
                }
            }
            b"unsubscribe" | b"punsubscribe" => {
                self.unsubscribe(conn, name == b"punsubscribe", command::rest(args, 1), out)
            }
            b"publish" => {
                let receivers = self.publish(command::arg(args, 1), command::arg(args, 2), &mut out.deliveries);
                out.replies.push(Reply::Integer(receivers));
            }
            b"pubsub" => out.replies.push(self.pubsub(args)?),
            b"ping" => {
                let c = &self.state.conns[&conn];
                if args.len() > 2 {
                    return Err(CmdError::WrongArity("ping".into()));
                }
                let reply = if c.in_subscribed_context() {
                    let message = args.get(1).cloned().unwrap_or_default();
                    Reply::Array(vec![Reply::bulk("pong"), Reply::Bulk(message)])
                } else {
                    match args.get(1) {
                        Some(message) => Reply::Bulk(message.clone()),
                        None => Reply::Status("PONG".into()),
                    }
                };
                out.replies.push(reply);
            }
            b"select" => {
                let index = command::parse_int(command::arg(args, 1))?;
                if index != 0 {
                    return Err(CmdError::DbIndexOutOfRange);
                }
                out.replies.push(Reply::ok());
            }
            b"quit" => {
                out.replies.push(Reply::ok());
                out.close = true;
            }
            b"reset" => {
                self.unsubscribe(conn, false, &[], &mut Executed::default());
                self.unsubscribe(conn, true, &[], &mut Executed::default());
                self.unwatch_all(conn);
                self.conn_mut(conn).reset();
                out.replies.push(Reply::Status("RESET".into()));
            }
            #[cfg(feature = "host")]
            b"client" if command::is(command::arg(args, 1), "unpause") => self.client_unpause(out),
            b"client" => out.replies.push(self.client(conn, args)?),
            #[cfg(feature = "host")]
            b"shutdown" => self.shutdown(conn, args)?,
            b"hello" => out.replies.push(self.hello(conn, args)?),
            _ => return Err(CmdError::unknown_command(args)),
        }
        Ok(())
    }

    fn exec(&mut self, conn: ConnId, now: i64, out: &mut Executed) -> Result<(), CmdError> {
        let c = self.conn_mut(conn);
        let Some(multi) = c.multi.take() else { return Err(Msg::ExecWithoutMulti.into()) };
        let dirty = c.watch_dirty;
        self.unwatch_all(conn);
        if multi.failed {
            return Err(CmdError::ExecAbort);
        }
        if dirty {
            out.replies.push(Reply::NullArray);
            return Ok(());
        }
        let mut results = Vec::with_capacity(multi.queue.len());
        for args in multi.queue {
            let mut inner = Executed::default();
            self.run(conn, args, now, &mut inner);
            // A read that would block inside a transaction answers at once, as a timeout would.
            if self.release(conn).is_some() {
                inner.replies.push(Reply::NullArray);
            }
            results.extend(inner.replies);
            out.deliveries.extend(inner.deliveries);
        }
        out.replies.push(Reply::Array(results));
        Ok(())
    }

    /// A Pub/Sub message in the connection's protocol: an array in RESP2, a push in RESP3.
    fn push(&self, conn: ConnId, items: Vec<Reply>) -> Reply {
        if self.state.conns.get(&conn).is_some_and(|c| c.resp == 3) {
            Reply::Push(items)
        } else {
            Reply::Array(items)
        }
    }

    fn unsubscribe(&mut self, conn: ConnId, pattern: bool, names: &[Vec<u8>], out: &mut Executed) {
        let kind: &[u8] = if pattern { b"punsubscribe" } else { b"unsubscribe" };
        let targets: Vec<Vec<u8>> = if names.is_empty() {
            let c = &self.state.conns[&conn];
            let set = if pattern { &c.patterns } else { &c.channels };
            let mut all = Vec::new();
            for name in set.iter() {
                all.push(name.clone());
            }
            all
        } else {
            names.to_vec()
        };
        if targets.is_empty() {
            let count = self.state.conns[&conn].subscriptions() as i64;
            out.replies.push(self.push(conn, vec![Reply::bulk(kind), Reply::NullBulk, Reply::Integer(count)]));
            return;
        }
        for name in targets {
            let c = self.conn_mut(conn);
            let set = if pattern { &mut c.patterns } else { &mut c.channels };
            set.remove(&name);
            let count = c.subscriptions() as i64;
            out.replies.push(self.push(conn, vec![Reply::bulk(kind), Reply::Bulk(name), Reply::Integer(count)]));
        }
    }

    fn publish(&mut self, channel: &[u8], message: &[u8], deliveries: &mut Vec<Delivery>) -> i64 {
        let mut receivers = 0;
        let mut ids: Vec<ConnId> = Vec::new();
        for &id in self.state.conns.keys() {
            ids.push(id);
        }
        for id in &ids {
            if self.state.conns[id].channels.contains(channel) {
                let reply = self.push(*id, vec![Reply::bulk("message"), Reply::bulk(channel), Reply::bulk(message)]);
                deliveries.push(Delivery { conn: *id, reply });
                receivers += 1;
            }
        }
        for id in &ids {
            let mut patterns: Vec<Vec<u8>> = Vec::new();
            for p in self.state.conns[id].patterns.iter() {
                if glob_match(p, channel) {
                    patterns.push(p.clone());
                }
            }
            for pattern in patterns {
                let reply = self.push(
                    *id,
                    vec![Reply::bulk("pmessage"), Reply::Bulk(pattern), Reply::bulk(channel), Reply::bulk(message)],
                );
                deliveries.push(Delivery { conn: *id, reply });
                receivers += 1;
            }
        }
        receivers
    }

    fn pubsub(&self, args: &[Vec<u8>]) -> Result<Reply, CmdError> {
        let sub = command::arg(args, 1).to_ascii_lowercase();
        match sub.as_slice() {
            b"channels" if args.len() > 3 => {
                Err(CmdError::SubcommandSyntax { command: "PUBSUB".into(), sub: command::arg(args, 1).clone() })
            }
            b"channels" => {
                let pattern = args.get(2).map(Vec::as_slice);
                let mut listed = Vec::new();
                for ch in distinct(&self.state.conns, false) {
                    if pattern.is_none_or(|p| glob_match(p, &ch)) {
                        listed.push(Reply::Bulk(ch));
                    }
                }
                Ok(Reply::Array(listed))
            }
            b"numsub" => {
                let mut counts = Vec::new();
                for ch in command::rest(args, 2) {
                    let n = self.state.conns.values().filter(|c| c.channels.contains(ch)).count();
                    counts.push(Reply::Bulk(ch.clone()));
                    counts.push(Reply::Integer(n as i64));
                }
                Ok(Reply::Array(counts))
            }
            b"numpat" => Ok(Reply::Integer(distinct(&self.state.conns, true).len() as i64)),
            _ => Err(CmdError::UnknownSubcommand { command: "PUBSUB".into(), sub: command::arg(args, 1).clone() }),
        }
    }

    fn client(&mut self, conn: ConnId, args: &[Vec<u8>]) -> Result<Reply, CmdError> {
        let sub = command::arg(args, 1).to_ascii_lowercase();
        match sub.as_slice() {
            b"id" => Ok(Reply::Integer(conn as i64)),
            #[cfg(feature = "host")]
            b"kill" => self.client_kill(conn, args),
            #[cfg(feature = "host")]
            b"pause" => self.client_pause(args),
            b"getname" => Ok(self.state.conns[&conn].name.clone().map_or(Reply::NullBulk, Reply::Bulk)),
            b"setname" => {
                let name = command::arg(args, 2);
                if !valid_client_name(name) {
                    return Err(CmdError::ClientNameInvalid);
                }
                self.conn_mut(conn).name = if name.is_empty() { None } else { Some(name.clone()) };
                Ok(Reply::ok())
            }
            b"list" => {
                let mut text = String::new();
                for c in self.state.conns.values() {
                    let name = c.name.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
                    let flags = if c.multi.is_some() {
                        "x"
                    } else if c.waiting() {
                        "b"
                    } else if c.subscriptions() > 0 {
                        "P"
                    } else {
                        "N"
                    };
                    text.push_str(&format!(
                        "id={} addr={} laddr={} fd=0 name={name} age=0 idle=0 flags={flags} db=0 sub={} psub={} ssub=0 multi={} watch={} resp={} lib-name= lib-ver=\n",
                        c.id,
                        c.addr(),
                        c.laddr(),
                        c.channels.len(),
                        c.patterns.len(),
                        c.multi.as_ref().map_or(-1, |m| m.queue.len() as i64),
                        c.watched.len(),
                        c.resp
                    ));
                }
                Ok(Reply::Verbatim { format: *b"txt", text: text.into_bytes() })
            }
            _ => Err(CmdError::UnknownSubcommand { command: "CLIENT".into(), sub: command::arg(args, 1).clone() }),
        }
    }

    fn hello(&mut self, conn: ConnId, args: &[Vec<u8>]) -> Result<Reply, CmdError> {
        let mut resp = self.state.conns[&conn].resp;
        let mut name = None;
        if let Some(version) = args.get(1) {
            let v = command::parse_int(version).map_err(|_| CmdError::ProtocolVersion)?;
            if !(2..=3).contains(&v) {
                return Err(CmdError::NoProto);
            }
            resp = v as u8;
            let mut i = 2;
            while i < args.len() {
                let more = args.len() - 1 - i;
                if command::is(command::arg(args, i), "SETNAME") && more >= 1 {
                    name = Some(command::arg(args, i + 1).clone());
                    i += 2;
                } else if command::is(command::arg(args, i), "AUTH") && more >= 2 {
                    i += 3;
                } else {
                    return Err(CmdError::HelloSyntax(command::arg(args, i).clone()));
                }
            }
        }
        if name.as_ref().is_some_and(|n| !valid_client_name(n)) {
            return Err(CmdError::ClientNameInvalid);
        }
        let c = self.conn_mut(conn);
        c.resp = resp;
        if let Some(name) = name {
            c.name = if name.is_empty() { None } else { Some(name) };
        }
        // Redis 8 reports its built-in vector sets module here, Valkey its Lua engine.
        let modules = self
            .caps
            .modules
            .iter()
            .map(|m| {
                Reply::Map(vec![
                    (Reply::bulk("name"), Reply::bulk(m.name)),
                    (Reply::bulk("ver"), Reply::Integer(m.ver)),
                    (Reply::bulk("path"), Reply::bulk(m.path)),
                    (Reply::bulk("args"), Reply::Array(Vec::new())),
                ])
            })
            .collect();
        Ok(Reply::Map(vec![
            (Reply::bulk("server"), Reply::bulk(self.caps.server)),
            (Reply::bulk("version"), Reply::bulk(self.caps.version)),
            (Reply::bulk("proto"), Reply::Integer(i64::from(resp))),
            (Reply::bulk("id"), Reply::Integer(conn as i64)),
            (Reply::bulk("mode"), Reply::bulk("standalone")),
            (Reply::bulk("role"), Reply::bulk("master")),
            (Reply::bulk("modules"), Reply::Array(modules)),
        ]))
    }

    /// StreamLab's `:fill KEY COUNT` (not a Redis command): appends `count` generated order
    /// events to the stream at `key` (created if missing) as `XADD key * type order-created
    /// orderId N isbn 978-... quantity Q` would, all at the clock reading `now`, so ids run
    /// `<now>-0`, `<now>-1`, ... Lessons use it to build streams too long to type (the seed
    /// article's million orders). Returns the first and last ids added (a key of another type
    /// is a WRONGTYPE error; a stream that runs out of ids stops early), and the replies that
    /// reach blocked readers.
    pub fn fill(&mut self, key: &[u8], count: u64, now: i64) -> (Result<Filled, CmdError>, Vec<Delivery>) {
        let mut deliveries = Vec::new();
        let result = self.fill_entries(key, count, now, &mut deliveries);
        self.shape_deliveries(&mut deliveries);
        (result, deliveries)
    }

    fn fill_entries(
        &mut self,
        key: &[u8],
        count: u64,
        now: i64,
        deliveries: &mut Vec<Delivery>,
    ) -> Result<Filled, CmdError> {
        self.state.now = self.state.now.max(now);
        let now = self.state.now;
        self.state.db.expire_due(now);
        if count == 0 {
            return Ok(None);
        }
        let config = self.state.db.config;
        self.state.db.stream(key)?;
        // Check the first id before creating the key, so a failure leaves nothing behind.
        if let Some(stream) = self.state.db.stream(key)? {
            stream.next_id(AddId::Auto, now).map_err(|_| Msg::StreamExhausted)?;
        }
        let stream = self.state.db.stream_or_create(key)?;
        let base = stream.entries_added();
        let mut first = None;
        let mut last = StreamId::MIN;
        for i in 0..count {
            let n = base + i + 1;
            let fields = [
                b"type".to_vec(),
                b"order-created".to_vec(),
                b"orderId".to_vec(),
                n.to_string().into_bytes(),
                b"isbn".to_vec(),
                format!("978-{:09}", (n * 7919) % 1_000_000_000).into_bytes(),
                b"quantity".to_vec(),
                (1 + n % 3).to_string().into_bytes(),
            ];
            match stream.add(AddId::Auto, &fields, now, config) {
                Ok(id) => {
                    first.get_or_insert(id);
                    last = id;
                }
                Err(_) => break,
            }
        }
        self.state.db.touch(key);
        self.state.db.signal_ready(key);
        self.after_command(deliveries);
        Ok(first.map(|first| (first, last)))
    }

    /// The earliest deadline among blocked reads, if any has one (Unix ms on the session's
    /// clock): when a host must next serve timeouts.
    pub fn next_deadline(&self) -> Option<i64> {
        let read = self.state.deadlines.iter().next().map(|&(deadline, _)| deadline);
        match (read, self.pause_wakeup()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Checks the engine's invariants and the session's own (blocked order matches blocked
    /// connections).
    pub fn check_invariants(&self) -> Result<(), String> {
        self.state.db.check_invariants()?;
        for id in &self.state.blocked_order {
            if self.state.conns.get(id).and_then(|c| c.blocked.as_ref()).is_none() {
                return Err(format!("connection {id} is in the blocked order but not blocked"));
            }
        }
        let blocked = self.state.conns.values().filter(|c| c.blocked.is_some()).count();
        if blocked != self.state.blocked_order.len() {
            return Err("blocked connections and blocked order disagree".into());
        }
        let mut timed = 0;
        for (&id, conn) in &self.state.conns {
            if let Some(deadline) = conn.blocked.as_ref().and_then(|b| b.deadline) {
                timed += 1;
                if !self.state.deadlines.contains(&(deadline, id)) {
                    return Err(format!("connection {id}'s deadline {deadline} is missing from the index"));
                }
            }
        }
        if timed != self.state.deadlines.len() {
            return Err(format!(
                "{timed} blocked reads have deadlines but the index holds {}",
                self.state.deadlines.len()
            ));
        }
        #[cfg(feature = "host")]
        for (&id, conn) in &self.state.conns {
            if conn.postponed != self.state.postponed.contains(&id) || (conn.postponed && conn.backlog.is_empty()) {
                return Err(format!("connection {id}'s pause bookkeeping disagrees"));
            }
        }
        let watchers = self.state.conns.values().filter(|c| !c.watched.is_empty()).count();
        if watchers != self.state.watchers {
            return Err(format!("{watchers} connections watch keys but the count says {}", self.state.watchers));
        }
        Ok(())
    }
}
