//! A connection's state: its transaction, WATCHes, subscriptions, blocked read and the backlog
//! of what it sent while it waited.

use super::*;

#[derive(Debug, Clone, Default)]
pub(super) struct Multi {
    pub(super) queue: Vec<Vec<Vec<u8>>>,
    pub(super) failed: bool,
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
    pub(super) multi: Option<Multi>,
    /// While EXEC runs its transaction: how many commands it holds (CLIENT LIST still shows
    /// the connection in MULTI then, as Redis does).
    pub(super) executing: Option<usize>,
    pub(super) watched: SortedSet<Vec<u8>>,
    pub(super) watch_dirty: bool,
    pub(super) channels: SortedSet<Vec<u8>>,
    pub(super) patterns: SortedSet<Vec<u8>>,
    pub(super) blocked: Option<Block>,
    /// Commands that arrived while the connection was blocked or paused, run once it is
    /// served (as a server would leave them in the socket buffer).
    pub(super) backlog: Vec<Vec<Vec<u8>>>,
    /// A command of its waits for CLIENT PAUSE to end (it is first in `backlog`).
    #[cfg(feature = "host")]
    pub(super) postponed: bool,
    /// When it connected (session clock), for CLIENT KILL MAXAGE.
    #[cfg(feature = "host")]
    pub(super) created: i64,
    /// When it last sent a command (session clock), for CLIENT LIST's `idle`.
    #[cfg(feature = "host")]
    pub(super) last_command: i64,
    /// Where it comes from, as its host told (`set_peer`).
    #[cfg(feature = "host")]
    pub(super) peer: Option<Box<Peer>>,
}

impl Conn {
    #[cfg_attr(not(feature = "host"), allow(unused_variables))]
    pub(super) fn new(id: ConnId, created: i64) -> Conn {
        Conn {
            id,
            name: None,
            resp: 2,
            multi: None,
            executing: None,
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
            last_command: created,
            #[cfg(feature = "host")]
            peer: None,
        }
    }

    /// RESET: a fresh connection, except for where it comes from and when it came.
    pub(super) fn reset(&mut self) {
        let fresh = Conn::new(self.id, 0);
        #[cfg(feature = "host")]
        let fresh = Conn { peer: self.peer.take(), created: self.created, last_command: self.last_command, ..fresh };
        *self = fresh;
    }

    /// The peer address CLIENT LIST and CLIENT KILL show (a placeholder unless the host said).
    pub(super) fn addr(&self) -> &str {
        #[cfg(feature = "host")]
        if let Some(peer) = &self.peer {
            return &peer.addr;
        }
        "127.0.0.1:0"
    }

    /// The local address CLIENT LIST and CLIENT KILL LADDR show.
    pub(super) fn laddr(&self) -> &str {
        #[cfg(feature = "host")]
        if let Some(peer) = &self.peer {
            return &peer.laddr;
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
    pub(super) fn queued_commands(&self) -> &[Vec<Vec<u8>>] {
        self.multi.as_ref().map_or(&[], |m| &m.queue)
    }

    /// What it sent while it waited, not run yet, oldest first.
    pub fn backlog(&self) -> &[Vec<Vec<u8>>] {
        &self.backlog
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
pub(super) fn distinct(conns: &SortedMap<ConnId, Conn>, patterns: bool) -> SortedSet<Vec<u8>> {
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
pub(super) fn valid_client_name(name: &[u8]) -> bool {
    name.iter().all(|&b| (b'!'..=b'~').contains(&b))
}
