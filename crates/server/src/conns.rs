//! The request path of every connection: the loop's state (`Core`: the session, the clients,
//! the read and write queues, the limits in force), reading a client and running what it sent
//! as one batch, writing output, and routing what the session delivers to other connections.

use std::collections::{BTreeMap, BTreeSet};

use streamlab_protocol::{encode, encode_into, ConnId, Delivery, ProtocolError, Session};

use crate::client::{Client, Closing, Flushed, Received};
use crate::limits::{Class, ClassLimit, Limits};
use crate::log::{self, Level};
use crate::memory::{self, TRIM_AFTER};
use crate::server::{EventLoop, RequestEnd};

/// A client with this much unsent output is not read from until it takes some: a client that
/// pipelines without reading its replies waits, instead of growing the server's memory.
const OUTPUT_BACKPRESSURE: usize = 1024 * 1024;

/// Everything the loop thread owns and changes.
pub(crate) struct Core {
    pub(crate) session: Session,
    pub(crate) clients: BTreeMap<ConnId, Client>,
    /// Clients with input to read or parse this round.
    pub(crate) to_read: Vec<ConnId>,
    /// Clients with output to write at the end of the round.
    pub(crate) to_write: Vec<ConnId>,
    /// The limits in force, as the session's host parameters last said ...
    pub(crate) limits: Limits,
    /// ... when their change count was this.
    pub(crate) limits_seen: u64,
    /// Whether log lines are printed.
    pub(crate) log: bool,
    /// Memory released since the heap was last trimmed (see [`crate::memory`]).
    pub(crate) released: usize,
}

impl Core {
    /// Whether the connection speaks RESP3 (its replies and pushes are encoded so).
    pub(crate) fn resp3(&self, id: ConnId) -> bool {
        self.session.conn(id).is_some_and(|c| c.resp == 3)
    }

    /// Whether the connection waits in a blocked read.
    pub(crate) fn blocked(&self, id: ConnId) -> bool {
        self.session.conn(id).is_some_and(|c| c.waiting())
    }

    pub(crate) fn queue_read(&mut self, id: ConnId) {
        if let Some(client) = self.clients.get_mut(&id) {
            if !client.queued_read {
                client.queued_read = true;
                self.to_read.push(id);
            }
        }
    }

    pub(crate) fn queue_write(&mut self, id: ConnId) {
        if let Some(client) = self.clients.get_mut(&id) {
            if !client.queued_write {
                client.queued_write = true;
                self.to_write.push(id);
            }
        }
    }

    /// Writes what the client is owed, as much as its socket takes; closes it when it hung up
    /// and everything is written.
    pub(crate) fn write_client(&mut self, id: ConnId) {
        let Some(client) = self.clients.get_mut(&id) else { return };
        match client.flush() {
            Flushed::Failed => self.drop_client(id),
            Flushed::Partly => {}
            Flushed::All if client.hangup => self.drop_client(id),
            // Reading waited for the output to drain.
            Flushed::All if client.readable => self.queue_read(id),
            Flushed::All => {}
        }
    }

    /// The limits after a command: CONFIG SET may have changed them.
    pub(crate) fn refresh_limits(&mut self) {
        let changes = self.session.host_changes();
        if changes != self.limits_seen {
            self.limits_seen = changes;
            self.limits = Limits::from_session(&self.session);
        }
    }

    /// The output limit of the client's class: Pub/Sub while it is subscribed to something,
    /// normal otherwise (StreamLab has no replicas).
    pub(crate) fn output_limit(&self, id: ConnId) -> ClassLimit {
        let subscribed = self.session.conn(id).is_some_and(|c| c.subscriptions() > 0);
        self.limits.output[if subscribed { Class::Pubsub } else { Class::Normal } as usize]
    }

    /// The client leaves the session now; its socket closes once what is queued is written.
    pub(crate) fn hang_up(&mut self, id: ConnId) {
        self.session.disconnect(id);
        if let Some(client) = self.clients.get_mut(&id) {
            client.hangup = true;
            self.released += client.held_bytes();
            client.drop_input();
        }
        self.queue_write(id);
    }

    /// The client went over its output limit: it leaves at once, as Redis closes it.
    pub(crate) fn close_over_limit(&mut self, id: ConnId) {
        if let Some(client) = self.clients.get(&id) {
            let text = format!(
                "Client addr={} scheduled to be closed ASAP for overcoming of output buffer limits.",
                client.addr
            );
            log::line(self.log, Level::Warning, &text);
        }
        self.drop_client(id);
    }

    /// The client leaves at once, whatever it had queued.
    pub(crate) fn drop_client(&mut self, id: ConnId) {
        self.session.disconnect(id);
        if let Some(client) = self.clients.remove(&id) {
            self.released += client.held_bytes();
            client.sock.shutdown();
        }
    }

    /// Gives released memory back to the system once there is enough of it.
    pub(crate) fn trim_if_released(&mut self) {
        if self.released >= TRIM_AFTER {
            self.released = 0;
            memory::trim();
        }
    }
}

/// Sends deliveries to their connections. Those for `own` (the connection whose command is
/// running) go into its reply buffer, after its own replies, as Redis sends pushes after the
/// reply of the command that caused them. A connection that asked to close while blocked is
/// closed once its wait is over.
pub(crate) fn route(core: &mut Core, own: Option<ConnId>, deliveries: Vec<Delivery>, own_buf: &mut Vec<u8>) {
    // Clients whose close waits for their blocked read to end: closed after the loop, so the
    // close follows every delivery of this batch.
    // Sets: one PUBLISH can push thousands of subscribers over their limit at once.
    let mut closing: BTreeSet<ConnId> = BTreeSet::new();
    let mut over_limit: BTreeSet<ConnId> = BTreeSet::new();
    for delivery in deliveries {
        let resp3 = core.resp3(delivery.conn);
        if Some(delivery.conn) == own {
            encode_into(&delivery.reply, resp3, own_buf);
            continue;
        }
        let limit = core.output_limit(delivery.conn);
        if let Some(client) = core.clients.get_mut(&delivery.conn) {
            if client.hangup || over_limit.contains(&delivery.conn) {
                continue;
            }
            encode_into(&delivery.reply, resp3, &mut client.output);
            let unsent = client.unsent();
            if client.over_limit(limit, unsent) {
                // A subscriber that does not read its messages, as a rule.
                over_limit.insert(delivery.conn);
            }
            if matches!(client.closing, Some(Closing::Pending(_))) {
                closing.insert(delivery.conn);
            }
            core.queue_write(delivery.conn);
        }
    }
    for conn in closing {
        if core.blocked(conn) {
            continue;
        }
        if let Some(client) = core.clients.get_mut(&conn) {
            if let Some(Closing::Pending(bytes)) = client.closing.replace(Closing::Sent) {
                client.output.extend_from_slice(&bytes);
                core.hang_up(conn);
            }
        }
    }
    for conn in over_limit {
        core.close_over_limit(conn);
    }
}

impl EventLoop {
    /// Reads once from every client queued for reading and runs what it sent.
    pub(crate) fn read_ready(&mut self) {
        let ids = std::mem::take(&mut self.core.to_read);
        for id in ids {
            if let Some(client) = self.core.clients.get_mut(&id) {
                client.queued_read = false;
            }
            self.read_client(id);
        }
    }

    pub(crate) fn read_client(&mut self, id: ConnId) {
        let Some(client) = self.core.clients.get_mut(&id) else { return };
        if client.hangup {
            return;
        }
        if !client.readable || client.unsent() >= OUTPUT_BACKPRESSURE {
            return;
        }
        let got = match client.receive(&mut self.chunk) {
            Received::Bytes(n) => n,
            Received::End => {
                // The client is done sending; what it is owed is still written.
                self.core.hang_up(id);
                return;
            }
            Received::Nothing => return,
            Received::Again => {
                self.core.queue_read(id);
                return;
            }
            Received::Failed => {
                self.core.drop_client(id);
                return;
            }
        };
        if client.readable {
            // The read filled the buffer and may have left bytes: come back next round.
            self.core.queue_read(id);
        }
        let Some(client) = self.core.clients.get_mut(&id) else { return };
        if client.closing.is_some() {
            // Input is read (to notice the client leaving) but no longer run.
            return;
        }
        let limits = self.core.limits;
        if client.query_bytes(got) as u64 > limits.query_buffer {
            // Redis closes such a client without a reply.
            let text = format!("Closing client that reached max query buffer length: addr={}", client.addr);
            log::line(self.settings.log, Level::Warning, &text);
            self.core.drop_client(id);
            return;
        }
        let mut requests = std::mem::take(&mut self.requests);
        let error = client.feed(&self.chunk[..got], limits.max_bulk, &mut requests);
        if !requests.is_empty() || error.is_some() {
            self.run_batch(id, &mut requests, error);
        }
        requests.clear();
        self.requests = requests;
    }

    /// Writes every client's pending output; closes those that hung up once they are done.
    pub(crate) fn write_pending(&mut self) {
        let ids = std::mem::take(&mut self.core.to_write);
        for id in ids {
            if let Some(client) = self.core.clients.get_mut(&id) {
                client.queued_write = false;
                self.core.write_client(id);
            }
        }
    }

    /// Runs a batch of requests from one client, then reports a protocol error that followed
    /// them, if any. Replies go to the client's output buffer.
    pub(crate) fn run_batch(&mut self, id: ConnId, requests: &mut Vec<Vec<Vec<u8>>>, error: Option<ProtocolError>) {
        let Some(client) = self.core.clients.get_mut(&id) else { return };
        let mut own = std::mem::take(&mut client.output);
        let start = own.len();
        let mut step = RequestEnd::Go;
        // What the batch's arguments hold, released once they ran (a Vec costs 24 bytes).
        self.core.released += requests.iter().flatten().map(|a| a.capacity() + 24).sum::<usize>();
        for args in requests.drain(..) {
            match self.core.clients.get(&id) {
                Some(client) if client.closing.is_none() => {}
                _ => break,
            }
            step = self.run_one(id, args, &mut own);
            // CONFIG SET may have changed the limits.
            self.core.refresh_limits();
            let limit = self.core.output_limit(id);
            let Some(client) = self.core.clients.get_mut(&id) else { return };
            if client.over_limit(limit, own.len() - client.sent) {
                // Redis runs nothing more of such a client and sends it nothing.
                self.core.close_over_limit(id);
                return;
            }
            if !matches!(step, RequestEnd::Go) {
                break;
            }
        }
        if matches!(step, RequestEnd::Abort) {
            // Nothing of this batch is sent.
            own.truncate(start);
        }
        let mut close = !matches!(step, RequestEnd::Go);
        if let (Some(error), RequestEnd::Go) = (error, &step) {
            let resp3 = self.core.resp3(id);
            let bytes = encode(&error.to_reply(), resp3);
            if self.core.blocked(id) {
                // Redis reads no further while a client is blocked: the error comes after the
                // blocked reply.
                if let Some(client) = self.core.clients.get_mut(&id) {
                    client.closing.get_or_insert(Closing::Pending(bytes));
                }
            } else {
                own.extend_from_slice(&bytes);
                close = true;
            }
        }
        let Some(client) = self.core.clients.get_mut(&id) else { return };
        client.output = own;
        if client.closing.is_some() {
            // Keep reading to notice the client leaving, but run nothing more.
            client.drop_input();
        }
        if close {
            self.core.hang_up(id);
        } else if client.unsent() > 0 {
            // Right away rather than at the end of the round: the client can send its next
            // request while the loop goes on with the others.
            self.core.write_client(id);
        }
    }
}
