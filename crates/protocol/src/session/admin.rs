//! The commands that manage connections and the server rather than data: CLIENT KILL,
//! CLIENT PAUSE / UNPAUSE, SHUTDOWN, and what INFO's clients section counts.
//!
//! The session does what it can itself (a killed connection leaves the session, a paused
//! connection's commands wait in its backlog) and tells its host the rest through
//! [`HostRequest`]s: which sockets to close, whether to stop. A host drains them with
//! [`Session::take_requests`] after every command and clock move.

use super::{ConnId, Executed, Session};
use crate::command::{self, is, ClientCounts};
use crate::error::{CmdError, Msg};
use crate::reply::Reply;

/// What a command asked of the host running the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostRequest {
    /// CLIENT KILL closed this connection: it has left the session; the host closes its
    /// socket once what it is owed is written.
    Close(ConnId),
    /// SHUTDOWN from this connection, its options checked.
    Shutdown {
        /// The connection that asked (it gets the error if the host refuses).
        conn: ConnId,
        /// `SAVE`: a final snapshot was asked for.
        save: bool,
        /// `FORCE`: stop even if saving fails.
        force: bool,
    },
}

/// CLIENT PAUSE's state: until when (session clock, Unix ms) every command waits, and until
/// when writes wait. The two are kept apart because a shorter pause never shortens a longer
/// one, and an ALL pause outlives a WRITE pause given after it (as observed on Redis 8.2.3).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Pause {
    all_until: Option<i64>,
    write_until: Option<i64>,
}

/// CLIENT KILL's filters: a connection is killed when it matches every one given.
#[derive(Default)]
struct Filter<'a> {
    id: Option<ConnId>,
    addr: Option<&'a [u8]>,
    laddr: Option<&'a [u8]>,
    /// `Some(true)`: Pub/Sub clients; `Some(false)`: normal ones; master and replica
    /// clients, which a standalone server does not have, match nothing.
    pubsub: Option<Option<bool>>,
    maxage: Option<i64>,
    keep_caller: bool,
}

impl Session {
    /// What commands asked of the host since the last call (see [`HostRequest`]).
    pub fn take_requests(&mut self) -> Vec<HostRequest> {
        std::mem::take(&mut self.requests)
    }

    /// Tells the session where a connection comes from and what it reached (CLIENT KILL ADDR
    /// and LADDR match these; a host that does not call this leaves CLIENT LIST's
    /// placeholders).
    pub fn set_address(&mut self, id: ConnId, addr: String, laddr: String) {
        if let Some(c) = self.state.conns.get_mut(&id) {
            c.addr = Some((addr, laddr));
        }
    }

    /// Sets `maxclients` and the most clients the host can serve: CONFIG SET maxclients
    /// above that is refused with Redis's "try with" error.
    pub fn set_client_limits(&mut self, maxclients: u64, ceiling: u64) {
        let clients = &mut self.state.clients;
        clients.ceiling = ceiling;
        clients.maxclients = maxclients.min(ceiling);
    }

    /// CONFIG's `maxclients`: how many clients the host should accept.
    pub fn maxclients(&self) -> u64 {
        self.state.clients.maxclients
    }

    pub(super) fn client_kill(&mut self, conn: ConnId, args: &[Vec<u8>]) -> Result<Reply, CmdError> {
        if args.len() == 3 {
            // The old form, `CLIENT KILL ip:port`, kills the caller too.
            let addr = command::arg(args, 2);
            let mut found = None;
            for c in self.state.conns.values() {
                if c.addr().as_bytes() == addr.as_slice() {
                    found = Some(c.id);
                    break;
                }
            }
            let Some(id) = found else { return Err(Msg::NoSuchClient.into()) };
            self.kill(id);
            return Ok(Reply::ok());
        }
        let pairs = command::rest(args, 2);
        if !pairs.len().is_multiple_of(2) {
            return Err(CmdError::Syntax);
        }
        let mut filter = Filter { keep_caller: true, ..Filter::default() };
        for pair in pairs.chunks(2) {
            let (name, value) = (command::arg(pair, 0), command::arg(pair, 1));
            if is(name, "id") {
                let id = command::parse_int(value).ok().filter(|&id| id > 0).ok_or(Msg::ClientIdNotPositive)?;
                filter.id = Some(id as ConnId);
            } else if is(name, "addr") {
                filter.addr = Some(value);
            } else if is(name, "laddr") {
                filter.laddr = Some(value);
            } else if is(name, "type") {
                filter.pubsub = Some(if is(value, "normal") {
                    Some(false)
                } else if is(value, "pubsub") {
                    Some(true)
                } else if is(value, "master") || is(value, "replica") || is(value, "slave") {
                    None
                } else {
                    return Err(CmdError::UnknownClientType(value.clone()));
                });
            } else if is(name, "user") {
                // Every connection is the default user's: there is no ACL.
                if !is(value, "default") {
                    return Err(CmdError::NoSuchUser(value.clone()));
                }
            } else if is(name, "skipme") {
                filter.keep_caller = if is(value, "yes") {
                    true
                } else if is(value, "no") {
                    false
                } else {
                    return Err(CmdError::Syntax);
                };
            } else if is(name, "maxage") {
                let age = command::parse_int_or(value, Msg::MaxAgeNotInteger)?;
                if age <= 0 {
                    return Err(Msg::MaxAgeNotPositive.into());
                }
                filter.maxage = Some(age);
            } else {
                return Err(CmdError::Syntax);
            }
        }
        let now = self.state.now;
        let mut doomed = Vec::new();
        for c in self.state.conns.values() {
            let (addr, laddr) = (c.addr(), c.laddr());
            let matches = !(filter.keep_caller && c.id == conn)
                && filter.id.is_none_or(|id| id == c.id)
                && filter.addr.is_none_or(|a| a == addr.as_bytes())
                && filter.laddr.is_none_or(|a| a == laddr.as_bytes())
                && filter.pubsub.is_none_or(|kind| kind == Some(c.subscriptions() > 0))
                && filter.maxage.is_none_or(|age| (now - c.created) / 1000 >= age);
            if matches {
                doomed.push(c.id);
            }
        }
        for &id in &doomed {
            self.kill(id);
        }
        Ok(Reply::Integer(doomed.len() as i64))
    }

    /// The connection leaves the session and its host is told to close it.
    fn kill(&mut self, id: ConnId) {
        self.disconnect(id);
        self.requests.push(HostRequest::Close(id));
    }

    pub(super) fn client_pause(&mut self, args: &[Vec<u8>], now: i64) -> Result<Reply, CmdError> {
        if args.len() > 4 {
            return Err(CmdError::SubcommandSyntax { command: "CLIENT".into(), sub: command::arg(args, 1).clone() });
        }
        let timeout = command::parse_int_or(command::arg(args, 2), Msg::TimeoutNotInteger)?;
        if timeout < 0 {
            return Err(Msg::TimeoutNegative.into());
        }
        let until = now.checked_add(timeout).ok_or(Msg::TimeoutOutOfRange)?;
        let all = match args.get(3) {
            None => true,
            Some(mode) if is(mode, "all") => true,
            Some(mode) if is(mode, "write") => false,
            Some(_) => return Err(Msg::PauseMode.into()),
        };
        let pause = &mut self.state.pause;
        let slot = if all { &mut pause.all_until } else { &mut pause.write_until };
        *slot = Some(slot.map_or(until, |t| t.max(until)));
        Ok(Reply::ok())
    }

    /// CLIENT UNPAUSE: the pause ends now and what waited runs (its replies are deliveries).
    pub(super) fn client_unpause(&mut self, out: &mut Executed) {
        self.state.pause = Pause::default();
        out.replies.push(Reply::ok());
        self.resume(&mut out.deliveries);
    }

    /// SHUTDOWN's options, checked: `NOSAVE` or `SAVE`, `NOW`, `FORCE`, in any order and
    /// repeated, or `ABORT` alone (no shutdown is ever in progress here: nothing makes one
    /// wait). Accepted, it is the host's to carry out.
    pub(super) fn shutdown(&mut self, conn: ConnId, args: &[Vec<u8>]) -> Result<(), CmdError> {
        let (mut save, mut nosave, mut force, mut abort) = (false, false, false, false);
        for option in command::rest(args, 1) {
            if is(option, "save") {
                save = true;
            } else if is(option, "nosave") {
                nosave = true;
            } else if is(option, "force") {
                force = true;
            } else if is(option, "abort") {
                abort = true;
            } else if !is(option, "now") {
                return Err(CmdError::Syntax);
            }
        }
        if (save && nosave) || (abort && args.len() > 2) {
            return Err(CmdError::Syntax);
        }
        if abort {
            return Err(Msg::NoShutdownInProgress.into());
        }
        self.requests.push(HostRequest::Shutdown { conn, save, force });
        Ok(())
    }

    /// Whether a command must wait for the pause to end: every command in an ALL pause,
    /// writes (and PUBLISH) in a WRITE pause. Unknown and malformed commands are answered at
    /// once, as Redis checks them before the pause.
    pub(super) fn postpones(&self, args: &[Vec<u8>]) -> bool {
        let now = self.state.now;
        let pause = self.state.pause;
        let all = pause.all_until.is_some_and(|t| now < t);
        if !all && pause.write_until.is_none_or(|t| now >= t) {
            return false;
        }
        command::check_call(args, self.caps).is_ok_and(|spec| all || spec.write || spec.name == "publish")
    }

    /// Parks a connection's command until the pause ends.
    pub(super) fn postpone(&mut self, conn: ConnId, args: Vec<Vec<u8>>) {
        let c = self.conn_mut(conn);
        c.postponed = true;
        c.backlog.insert(0, args);
        self.state.postponed.push(conn);
    }

    /// When a host must next look at the pause: the soonest end of a pause while a command
    /// waits for it.
    pub(super) fn pause_wakeup(&self) -> Option<i64> {
        if self.state.postponed.is_empty() {
            return None;
        }
        let pause = self.state.pause;
        match (pause.all_until, pause.write_until) {
            (Some(a), Some(w)) => Some(a.min(w)),
            (a, w) => a.or(w),
        }
    }

    /// Ends the pauses that are over and runs what waited for them, in the order it began
    /// to wait (what still may not run waits on).
    pub(super) fn resume_due(&mut self, deliveries: &mut Vec<super::Delivery>) {
        let now = self.state.now;
        let pause = &mut self.state.pause;
        let mut ended = false;
        for slot in [&mut pause.all_until, &mut pause.write_until] {
            if slot.is_some_and(|t| t <= now) {
                *slot = None;
                ended = true;
            }
        }
        if ended {
            self.resume(deliveries);
        }
    }

    fn resume(&mut self, deliveries: &mut Vec<super::Delivery>) {
        let waiting = std::mem::take(&mut self.state.postponed);
        for conn in waiting {
            if let Some(c) = self.state.conns.get_mut(&conn) {
                c.postponed = false;
                self.run_backlog(conn, deliveries);
            }
        }
    }

    /// What INFO's clients section counts.
    pub(super) fn client_counts(&self) -> ClientCounts {
        let mut counts = ClientCounts { connected: self.state.conns.len() as u64, ..ClientCounts::default() };
        let mut watched: Vec<&Vec<u8>> = Vec::new();
        let mut blocking: Vec<&Vec<u8>> = Vec::new();
        let mut nokey: Vec<&Vec<u8>> = Vec::new();
        for c in self.state.conns.values() {
            if c.blocked.is_some() || c.postponed {
                counts.blocked += 1;
            }
            if c.subscriptions() > 0 {
                counts.pubsub += 1;
            }
            if !c.watched.is_empty() {
                counts.watching += 1;
            }
            for key in c.watched.iter() {
                if !watched.contains(&key) {
                    watched.push(key);
                }
            }
            if let Some(block) = &c.blocked {
                for key in &block.keys {
                    if !blocking.contains(&key) {
                        blocking.push(key);
                    }
                    // A group read also wakes when its key goes away, to say so.
                    if !block.streams_only && !nokey.contains(&key) {
                        nokey.push(key);
                    }
                }
            }
        }
        counts.in_timeout_table = self.state.deadlines.len() as u64;
        counts.watched_keys = watched.len() as u64;
        counts.blocking_keys = blocking.len() as u64;
        counts.blocking_keys_on_nokey = nokey.len() as u64;
        let now = self.state.now;
        counts.write_paused = self.state.pause.write_until.filter(|&t| t > now).map(|t| t - now);
        counts
    }
}
