//! The commands that manage connections and the server rather than data: CLIENT KILL,
//! CLIENT PAUSE / UNPAUSE, SHUTDOWN, and what INFO's clients section counts.
//!
//! The session does what it can itself (a killed connection leaves the session, a paused
//! connection's commands wait in its backlog) and tells its host the rest through
//! [`HostRequest`]s: which sockets to close, whether to stop. A host drains them with
//! [`Session::take_requests`] after every command and clock move.

#[cfg(feature = "host")]
mod commands;

use super::{ConnId, Session};
use streamlab_engine::SortedSet;

use crate::command::ClientCounts;

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
    /// DEBUG SLEEP on the host's clock: the whole server stops for this many microseconds,
    /// as Redis's does.
    #[cfg(feature = "server")]
    Sleep(u64),
    /// A `POST` or `Host:` line (cross-protocol scripting): the connection has left the
    /// session; the host logs Redis's warning and closes the socket without writing more.
    #[cfg(feature = "server")]
    Attack(ConnId),
}

/// CLIENT PAUSE's state: one pause, as Redis 8.2.3 keeps it. A new CLIENT PAUSE never shortens
/// it and sets its mode: `PAUSE 3000 WRITE` then `PAUSE 100 ALL` holds reads for 3 s.
#[derive(Debug, Clone, Copy, Default)]
#[cfg(feature = "host")]
pub(super) struct Pause {
    /// When the pause ends; a later CLIENT PAUSE only ever extends it.
    until: Option<i64>,
    /// Whether it holds every command (ALL) or only writes: the latest CLIENT PAUSE's mode,
    /// as Redis keeps one pause whose mode the last call sets.
    all: bool,
}

/// Without the admin commands nothing pauses.
#[cfg(not(feature = "host"))]
impl Session {
    pub(super) fn postpones(&self, _conn: ConnId, _args: &[Vec<u8>]) -> bool {
        false
    }

    pub(super) fn postpone(&mut self, _conn: ConnId, _args: Vec<Vec<u8>>) {}

    pub(super) fn pause_wakeup(&self) -> Option<i64> {
        None
    }

    pub(super) fn resume_due(&mut self, _deliveries: &mut Vec<super::Delivery>) {}
}

impl Session {
    /// What commands asked of the host since the last call (see [`HostRequest`]).
    pub fn take_requests(&mut self) -> Vec<HostRequest> {
        #[cfg(feature = "host")]
        return std::mem::take(&mut self.requests);
        #[cfg(not(feature = "host"))]
        Vec::new()
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

    /// What INFO's clients section counts.
    pub(super) fn client_counts(&self) -> ClientCounts {
        let mut counts = ClientCounts { connected: self.state.conns.len() as u64, ..ClientCounts::default() };
        // The sets the connections keep their keys in (their code is in the bundles already).
        let mut watched = SortedSet::new();
        let mut blocking = SortedSet::new();
        let mut nokey = SortedSet::new();
        for c in self.state.conns.values() {
            if c.waiting() {
                counts.blocked += 1;
            }
            if c.subscriptions() > 0 {
                counts.pubsub += 1;
            }
            if !c.watched.is_empty() {
                counts.watching += 1;
            }
            for key in c.watched.iter() {
                watched.insert(key.clone());
            }
            if let Some(block) = &c.blocked {
                for key in &block.keys {
                    blocking.insert(key.clone());
                    // A group read also wakes when its key goes away, to say so.
                    if !block.streams_only {
                        nokey.insert(key.clone());
                    }
                }
            }
        }
        counts.in_timeout_table = self.state.deadlines.len() as u64;
        counts.watched_keys = watched.len() as u64;
        counts.blocking_keys = blocking.len() as u64;
        counts.blocking_keys_on_nokey = nokey.len() as u64;
        #[cfg(feature = "host")]
        {
            let now = self.state.now;
            let pause = self.state.pause;
            counts.write_paused = pause.until.filter(|&t| t > now && !pause.all).map(|t| t - now);
        }
        counts
    }
}
