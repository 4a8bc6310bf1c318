//! Blocked reads: parking a connection on one, waking it when a signalled key can serve it or
//! its deadline passes, then running what it sent meanwhile (its backlog), and the deadlines a
//! host must next serve.

use super::*;

impl Session {
    /// Bookkeeping after every command: WATCH invalidation, then waking blocked reads whose
    /// keys were signalled, then running what those connections had queued meanwhile.
    pub(super) fn after_command(&mut self, deliveries: &mut Vec<Delivery>) {
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
    pub(super) fn unblock(&mut self, conn: ConnId, reply: Reply, deliveries: &mut Vec<Delivery>) {
        self.release(conn);
        deliveries.push(Delivery { conn, reply });
        self.run_backlog(conn, deliveries);
    }

    /// Runs what a connection queued while it waited, until it waits again.
    pub(super) fn run_backlog(&mut self, conn: ConnId, deliveries: &mut Vec<Delivery>) {
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
            if out.close {
                // QUIT served late: the host closes the socket once the OK is written.
                #[cfg(feature = "host")]
                self.requests.push(HostRequest::Close(conn));
            }
            // A connection that quit or killed itself runs nothing more of what it sent.
            if self.let_go() {
                break;
            }
        }
        if let Some(c) = self.state.conns.get_mut(&conn) {
            c.backlog.extend(queued);
        }
    }

    /// Parks `conn` on a blocked read.
    pub(super) fn park(&mut self, conn: ConnId, block: Block) {
        if let Some(deadline) = block.deadline {
            self.state.deadlines.insert((deadline, conn));
        }
        self.conn_mut(conn).blocked = Some(block);
        self.state.blocked_order.push(conn);
    }

    /// Ends `conn`'s blocked read, if it has one, and returns it.
    pub(super) fn release(&mut self, conn: ConnId) -> Option<Block> {
        let block = self.state.conns.get_mut(&conn)?.blocked.take()?;
        if let Some(deadline) = block.deadline {
            self.state.deadlines.remove(&(deadline, conn));
        }
        self.state.blocked_order.retain(|&c| c != conn);
        Some(block)
    }

    pub(super) fn serve_timeouts(&mut self, now: i64, deliveries: &mut Vec<Delivery>) {
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

    /// The earliest deadline among blocked reads, if any has one (Unix ms on the session's
    /// clock): when a host must next serve timeouts.
    pub fn next_deadline(&self) -> Option<i64> {
        let read = self.state.deadlines.iter().next().map(|&(deadline, _)| deadline);
        match (read, self.pause_wakeup()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
