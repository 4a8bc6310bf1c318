//! The commands the session runs itself rather than a data handler: MULTI/EXEC/DISCARD,
//! WATCH, Pub/Sub subscriptions, RESET, CLIENT and HELLO, the connection state they change.

use super::*;

impl Session {
    pub(super) fn run_session(
        &mut self,
        conn: ConnId,
        cmd: SessionCmd,
        args: &[Vec<u8>],
        now: i64,
        out: &mut Executed,
    ) -> Result<(), CmdError> {
        match cmd {
            SessionCmd::Multi => {
                let c = self.conn_mut(conn);
                if c.multi.is_some() {
                    return Err(Msg::MultiNested.into());
                }
                c.multi = Some(Multi::default());
                out.replies.push(Reply::ok());
            }
            SessionCmd::Discard => {
                if self.conn_mut(conn).multi.take().is_none() {
                    return Err(Msg::DiscardWithoutMulti.into());
                }
                self.unwatch_all(conn);
                out.replies.push(Reply::ok());
            }
            SessionCmd::Exec => self.exec(conn, now, out)?,
            SessionCmd::Watch => {
                if self.state.conns[&conn].multi.is_some() {
                    return Err(Msg::WatchInMulti.into());
                }
                self.watch(conn, command::rest(args, 1));
                out.replies.push(Reply::ok());
            }
            SessionCmd::Unwatch => {
                self.unwatch_all(conn);
                out.replies.push(Reply::ok());
            }
            SessionCmd::Subscribe | SessionCmd::PSubscribe => {
                let pattern = cmd == SessionCmd::PSubscribe;
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
            SessionCmd::Unsubscribe | SessionCmd::PUnsubscribe => {
                self.unsubscribe(conn, cmd == SessionCmd::PUnsubscribe, command::rest(args, 1), out)
            }
            SessionCmd::Publish => {
                let receivers = self.publish(command::arg(args, 1), command::arg(args, 2), &mut out.deliveries);
                out.replies.push(Reply::Integer(receivers));
            }
            SessionCmd::Pubsub => out.replies.push(self.pubsub(args)?),
            SessionCmd::Ping => {
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
            SessionCmd::Select => {
                let index = command::parse_int(command::arg(args, 1))?;
                if index != 0 {
                    return Err(CmdError::DbIndexOutOfRange);
                }
                out.replies.push(Reply::ok());
            }
            SessionCmd::Quit => {
                // The connection closes once its command is done (and, served late behind a
                // blocked read, once its OK is delivered).
                out.replies.push(Reply::ok());
                out.close = true;
                self.state.leaving.push(conn);
            }
            SessionCmd::Reset => {
                self.unsubscribe(conn, false, &[], &mut Executed::default());
                self.unsubscribe(conn, true, &[], &mut Executed::default());
                self.unwatch_all(conn);
                self.conn_mut(conn).reset();
                out.replies.push(Reply::Status("RESET".into()));
            }
            #[cfg(feature = "host")]
            SessionCmd::Client if command::is(command::arg(args, 1), "unpause") => self.client_unpause(out),
            SessionCmd::Client => out.replies.push(self.client(conn, args)?),
            #[cfg(feature = "host")]
            SessionCmd::Shutdown => self.shutdown(conn, args)?,
            SessionCmd::Hello => out.replies.push(self.hello(conn, args)?),
            #[cfg(feature = "server")]
            SessionCmd::Debug => self.debug(args, out)?,
        }
        Ok(())
    }

    pub(super) fn exec(&mut self, conn: ConnId, now: i64, out: &mut Executed) -> Result<(), CmdError> {
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
        self.conn_mut(conn).executing = Some(multi.queue.len());
        for args in multi.queue {
            // After the transaction killed its own connection the rest still runs, but Redis
            // sends none of its replies (the array then ends early on its wire, which a Reply
            // cannot say: here it is shorter, and the connection closes after it either way).
            let silenced = self.state.leaving.contains(&conn);
            let mut inner = Executed::default();
            self.run(conn, args, now, &mut inner);
            if silenced {
                inner.replies.clear();
            }
            // A read that would block inside a transaction answers at once, as a timeout would.
            if self.release(conn).is_some() {
                inner.replies.push(Reply::NullArray);
            }
            results.extend(inner.replies);
            out.deliveries.extend(inner.deliveries);
        }
        if let Some(c) = self.state.conns.get_mut(&conn) {
            c.executing = None;
        }
        out.replies.push(Reply::Array(results));
        Ok(())
    }

    pub(super) fn client(&mut self, conn: ConnId, args: &[Vec<u8>]) -> Result<Reply, CmdError> {
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
                let now = self.state.now;
                if args.len() == 2 {
                    self.state.conns.values().for_each(|c| client_line(c, now, &mut text));
                } else if args.len() == 4 && command::is(command::arg(args, 2), "type") {
                    let pubsub = client_type(command::arg(args, 3))?;
                    // Master and replica clients, which a standalone server has none of: none.
                    for c in self.state.conns.values().filter(|c| pubsub == Some(c.subscriptions() > 0)) {
                        client_line(c, now, &mut text);
                    }
                } else if args.len() >= 4 && command::is(command::arg(args, 2), "id") {
                    // Every id is checked before any is listed; each found is listed as often,
                    // and in the order, as it is named.
                    let mut ids = Vec::with_capacity(args.len() - 3);
                    for id in command::rest(args, 3) {
                        ids.push(command::parse_int_or(id, Msg::InvalidClientId)?);
                    }
                    for id in ids {
                        if let Some(c) = ConnId::try_from(id).ok().and_then(|id| self.state.conns.get(&id)) {
                            client_line(c, now, &mut text);
                        }
                    }
                } else {
                    return Err(CmdError::Syntax);
                }
                Ok(Reply::Verbatim { format: *b"txt", text: text.into_bytes() })
            }
            b"info" => {
                let now = self.state.now;
                let mut text = String::new();
                client_line(&self.state.conns[&conn], now, &mut text);
                Ok(Reply::Verbatim { format: *b"txt", text: text.into_bytes() })
            }
            _ => Err(CmdError::UnknownSubcommand { command: "CLIENT".into(), sub: command::arg(args, 1).clone() }),
        }
    }

    pub(super) fn hello(&mut self, conn: ConnId, args: &[Vec<u8>]) -> Result<Reply, CmdError> {
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
}

/// CLIENT LIST's line for a connection, newline included (CLIENT INFO's whole reply). Its
/// descriptor, age and idle time come from what the host told (`set_peer`) and the session's
/// clock; without a host they are 0.
#[cfg_attr(not(feature = "host"), allow(unused_variables))]
fn client_line(c: &Conn, now: i64, text: &mut String) {
    let name = c.name.as_deref().map(String::from_utf8_lossy).unwrap_or_default();
    let queued = c.multi.as_ref().map(|m| m.queue.len()).or(c.executing);
    let flags = if queued.is_some() {
        "x"
    } else if c.waiting() {
        "b"
    } else if c.subscriptions() > 0 {
        "P"
    } else {
        "N"
    };
    #[cfg(feature = "host")]
    let (fd, age, idle, flags) = {
        let peer = c.peer.as_deref();
        // A Unix-socket client is flagged U, which takes the place of N.
        let flags = match peer {
            Some(peer) if peer.unix && flags == "N" => "U".to_owned(),
            Some(peer) if peer.unix => format!("{flags}U"),
            _ => flags.to_owned(),
        };
        (peer.map_or(0, |p| p.fd), (now - c.created).max(0) / 1000, (now - c.last_command).max(0) / 1000, flags)
    };
    #[cfg(not(feature = "host"))]
    let (fd, age, idle) = (0, 0, 0);
    text.push_str(&format!(
        "id={} addr={} laddr={} fd={fd} name={name} age={age} idle={idle} flags={flags} db=0 sub={} psub={} ssub=0 multi={} watch={} resp={} lib-name= lib-ver=\n",
        c.id,
        c.addr(),
        c.laddr(),
        c.channels.len(),
        c.patterns.len(),
        queued.map_or(-1, |n| n as i64),
        c.watched.len(),
        c.resp
    ));
}

/// A client type as CLIENT KILL and CLIENT LIST name it: `Some(true)` Pub/Sub clients,
/// `Some(false)` normal ones, `None` master and replica clients (a standalone server has none).
pub(in crate::session) fn client_type(name: &[u8]) -> Result<Option<bool>, CmdError> {
    if command::is(name, "normal") {
        Ok(Some(false))
    } else if command::is(name, "pubsub") {
        Ok(Some(true))
    } else if ["master", "replica", "slave"].iter().any(|t| command::is(name, t)) {
        Ok(None)
    } else {
        Err(CmdError::UnknownClientType(name.to_vec()))
    }
}
