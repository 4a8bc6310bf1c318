//! The admin commands' parsing and effects (the `admin` feature): CLIENT KILL, CLIENT PAUSE,
//! CLIENT UNPAUSE, SHUTDOWN. What they leave behind (the pause, the host requests) is
//! `admin.rs`'s, which every build has.

use super::{HostRequest, Pause};
use crate::command::{self, is};
use crate::error::{CmdError, Msg};
use crate::reply::Reply;
use crate::session::connection::client_type;
use crate::session::{ConnId, Delivery, Executed, Session};

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
    pub(in crate::session) fn client_kill(&mut self, conn: ConnId, args: &[Vec<u8>]) -> Result<Reply, CmdError> {
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
            self.kill(id, conn);
            return Ok(Reply::ok());
        }
        let pairs = command::rest(args, 2);
        let mut filter = Filter { keep_caller: true, ..Filter::default() };
        // Pair by pair, as Redis 8.2.3 checks them: `CLIENT KILL id 0 type` is the id's error;
        // only a name left without its value is a syntax error.
        for pair in pairs.chunks(2) {
            if pair.len() < 2 {
                return Err(CmdError::Syntax);
            }
            let (name, value) = (command::arg(pair, 0), command::arg(pair, 1));
            if is(name, "id") {
                let id = command::parse_int(value).ok().filter(|&id| id > 0).ok_or(Msg::ClientIdNotPositive)?;
                filter.id = Some(id as ConnId);
            } else if is(name, "addr") {
                filter.addr = Some(value);
            } else if is(name, "laddr") {
                filter.laddr = Some(value);
            } else if is(name, "type") {
                filter.pubsub = Some(client_type(value)?);
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
            self.kill(id, conn);
        }
        Ok(Reply::Integer(doomed.len() as i64))
    }

    /// The connection leaves the session and its host is told to close it. The caller itself
    /// leaves only once its command is done, as Redis closes it after the reply: the rest of
    /// a transaction that killed it still runs and answers.
    fn kill(&mut self, id: ConnId, caller: ConnId) {
        if id == caller {
            self.state.leaving.push(id);
        } else {
            self.disconnect(id);
        }
        self.requests.push(HostRequest::Close(id));
    }

    pub(in crate::session) fn client_pause(&mut self, args: &[Vec<u8>]) -> Result<Reply, CmdError> {
        let now = self.state.now;
        if args.len() > 4 {
            return Err(CmdError::SubcommandSyntax { command: "CLIENT".into(), sub: command::arg(args, 1).clone() });
        }
        // The mode is checked before the timeout (Redis 8.2.3: `CLIENT PAUSE abc foo` is a
        // mode error).
        let all = match args.get(3) {
            None => true,
            Some(mode) if is(mode, "all") => true,
            Some(mode) if is(mode, "write") => false,
            Some(_) => return Err(Msg::PauseMode.into()),
        };
        let timeout = command::parse_int_or(command::arg(args, 2), Msg::TimeoutNotInteger)?;
        if timeout < 0 {
            return Err(Msg::TimeoutNegative.into());
        }
        let until = now.checked_add(timeout).ok_or(Msg::TimeoutOutOfRange)?;
        let pause = &mut self.state.pause;
        pause.until = Some(pause.until.map_or(until, |t| t.max(until)));
        pause.all = all;
        Ok(Reply::ok())
    }

    /// CLIENT UNPAUSE: the pause ends now and what waited runs (its replies are deliveries).
    pub(in crate::session) fn client_unpause(&mut self, out: &mut Executed) {
        self.state.pause = Pause::default();
        out.replies.push(Reply::ok());
        self.resume(&mut out.deliveries);
    }

    /// SHUTDOWN's options, checked: `NOSAVE` or `SAVE`, `NOW`, `FORCE`, in any order and
    /// repeated, or `ABORT` alone (no shutdown is ever in progress here: nothing makes one
    /// wait). Accepted, it is the host's to carry out.
    pub(in crate::session) fn shutdown(&mut self, conn: ConnId, args: &[Vec<u8>]) -> Result<(), CmdError> {
        let (mut save, mut nosave, mut force, mut abort, mut now) = (false, false, false, false, false);
        for option in command::rest(args, 1) {
            if is(option, "save") {
                save = true;
            } else if is(option, "nosave") {
                nosave = true;
            } else if is(option, "force") {
                force = true;
            } else if is(option, "abort") {
                abort = true;
            } else if is(option, "now") {
                now = true;
            } else {
                return Err(CmdError::Syntax);
            }
        }
        // ABORT goes with no other option, but may be repeated (`SHUTDOWN ABORT ABORT`).
        if (save && nosave) || (abort && (save || nosave || force || now)) {
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
    pub(in crate::session) fn postpones(&self, conn: ConnId, args: &[Vec<u8>]) -> bool {
        let now = self.state.now;
        let pause = self.state.pause;
        if pause.until.is_none_or(|t| now >= t) {
            return false;
        }
        let all = pause.all;
        let writes = |args: &[Vec<u8>]| {
            command::check_call(args, self.caps).is_ok_and(|spec| spec.write || spec.name == "publish")
        };
        let Ok(spec) = command::check_call(args, self.caps) else { return false };
        // StreamLab's clock control is the world's time, not a client's command: a pause on a
        // virtual clock would otherwise never end.
        #[cfg(feature = "server")]
        if crate::session::debug::controls_the_clock(spec, args) {
            return false;
        }
        // EXEC waits when its transaction would write (observed on Redis 8.2.3).
        all || writes(args)
            || (spec.name == "exec"
                && self.state.conns.get(&conn).is_some_and(|c| c.queued_commands().iter().any(|q| writes(q))))
    }

    /// Parks a connection's command until the pause ends.
    pub(in crate::session) fn postpone(&mut self, conn: ConnId, args: Vec<Vec<u8>>) {
        let c = self.conn_mut(conn);
        c.postponed = true;
        c.backlog.insert(0, args);
        self.state.postponed.push(conn);
    }

    /// When a host must next look at the pause: the soonest end of a pause while a command
    /// waits for it.
    pub(in crate::session) fn pause_wakeup(&self) -> Option<i64> {
        if self.state.postponed.is_empty() {
            return None;
        }
        self.state.pause.until
    }

    /// Ends the pauses that are over and runs what waited for them, in the order it began
    /// to wait (what still may not run waits on).
    pub(in crate::session) fn resume_due(&mut self, deliveries: &mut Vec<Delivery>) {
        let now = self.state.now;
        if self.state.pause.until.is_some_and(|t| t <= now) {
            self.state.pause = Pause::default();
            self.resume(deliveries);
        }
    }

    fn resume(&mut self, deliveries: &mut Vec<Delivery>) {
        let waiting = std::mem::take(&mut self.state.postponed);
        for conn in waiting {
            if let Some(c) = self.state.conns.get_mut(&conn) {
                c.postponed = false;
                self.run_backlog(conn, deliveries);
            }
        }
    }
}
