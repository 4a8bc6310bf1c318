//! Pub/Sub on the session: subscription confirmations as pushes, UNSUBSCRIBE and
//! PUNSUBSCRIBE, PUBLISH's deliveries to channel and pattern subscribers, and PUBSUB's
//! introspection.

use super::*;

impl Session {
    /// A Pub/Sub message in the connection's protocol: an array in RESP2, a push in RESP3.
    pub(super) fn push(&self, conn: ConnId, items: Vec<Reply>) -> Reply {
        if self.state.conns.get(&conn).is_some_and(|c| c.resp == 3) {
            Reply::Push(items)
        } else {
            Reply::Array(items)
        }
    }

    pub(super) fn unsubscribe(&mut self, conn: ConnId, pattern: bool, names: &[Vec<u8>], out: &mut Executed) {
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

    pub(super) fn publish(&mut self, channel: &[u8], message: &[u8], deliveries: &mut Vec<Delivery>) -> i64 {
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

    pub(super) fn pubsub(&self, args: &[Vec<u8>]) -> Result<Reply, CmdError> {
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
}
