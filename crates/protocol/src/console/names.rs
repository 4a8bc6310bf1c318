//! The console's connection names, and the `name> COMMAND` form of a line.
//!
//! A name stands for a redis-cli of its own. Its connection opens with the first command it
//! runs (so opening is part of that command's undo step), and a name whose connection closed
//! (CLIENT KILL, QUIT, or undone past its opening) reconnects, as redis-cli does, with the
//! next command it runs: a new connection with a new id, unless the id it had is still the
//! next the session would give (nothing opened since), which it then keeps.

use streamlab_engine::SortedMap;

use crate::command;
use crate::session::{ConnId, Session};

/// Whether a connection name is acceptable: one word of letters, digits, `-`, `_` and `.`.
pub fn valid_conn_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// A line of the form `name> REST` (a redis-cli prompt in front of what was typed at it):
/// the name and the rest, trimmed. The name is a valid connection name that is not a command's
/// name, and a space follows the `>`. No Redis command name holds a `>`, so a line read this
/// way is one Redis would refuse as an unknown command; keeping command names out leaves
/// `XLEN> s` the unknown command it is in redis-cli, and a quoted first word (`"a>" b`) is
/// never a name. The rest may be empty or a meta-command: the caller decides.
pub fn split_prefix(line: &str) -> Option<(&str, &str)> {
    // Split at the first `>` (a name never holds one) rather than searching for "> ": a
    // substring search links a second string-search routine into the grader's wasm.
    let (name, rest) = line.trim_start().split_once('>')?;
    let rest = rest.strip_prefix(' ')?;
    (valid_conn_name(name) && command::lookup(name.as_bytes()).is_none()).then(|| (name, rest.trim()))
}

/// The names a console gives its connections, and which connection each stands for now.
#[derive(Debug, Clone)]
pub(super) struct Names {
    /// Each name's connection (open, not yet opened, or closed).
    by_name: SortedMap<String, ConnId>,
    /// The name of every id a name ever stood for (steps set aside or undone keep theirs).
    labels: Vec<(ConnId, String)>,
    /// The id the next new connection gets at the least (ids are never given twice).
    next_id: ConnId,
    /// Connections QUIT closed in an interactive console: their tabs go (until the name is
    /// used again, or the QUIT is undone).
    quit: Vec<ConnId>,
}

impl Names {
    pub(super) fn new(next_id: ConnId) -> Names {
        Names { by_name: SortedMap::new(), labels: Vec::new(), next_id, quit: Vec::new() }
    }

    /// Gives `name` the connection `id`.
    pub(super) fn bind(&mut self, name: &str, id: ConnId) {
        self.by_name.insert(name.to_owned(), id);
        self.labels.push((id, name.to_owned()));
        self.next_id = self.next_id.max(id + 1);
    }

    pub(super) fn id(&self, name: &str) -> Option<ConnId> {
        self.by_name.get(name).copied()
    }

    /// Makes `name` known (with an id its first command will open) and shown again if QUIT had
    /// closed it.
    pub(super) fn add(&mut self, name: &str, session: &Session) {
        match self.id(name) {
            Some(id) => self.quit.retain(|&q| q != id),
            None => self.bind(name, self.next_id.max(session.next_conn_id())),
        }
    }

    /// The connection `name` runs its next command on: its own while open or not yet opened,
    /// else a new one.
    pub(super) fn conn_for(&mut self, name: &str, session: &Session) -> ConnId {
        let id = self.by_name[name];
        if session.conn(id).is_some() || id >= session.next_conn_id() {
            return id;
        }
        let fresh = self.next_id.max(session.next_conn_id());
        self.bind(name, fresh);
        fresh
    }

    /// After time travel: every name stands for the connection of its that is open.
    pub(super) fn follow(&mut self, session: &Session) {
        for (id, name) in &self.labels {
            if session.conn(*id).is_some() {
                if let Some(bound) = self.by_name.get_mut(name.as_str()) {
                    *bound = *id;
                }
            }
        }
    }

    pub(super) fn quit(&mut self, id: ConnId) {
        self.quit.push(id);
    }

    /// The names shown, with their ids, in id order: all but those QUIT closed.
    pub(super) fn shown(&self, session: &Session) -> Vec<(&str, ConnId)> {
        let mut all: Vec<(&str, ConnId)> = Vec::new();
        for (name, &id) in self.by_name.iter() {
            if session.conn(id).is_some() || !self.quit.contains(&id) {
                all.push((name.as_str(), id));
            }
        }
        streamlab_engine::sort::sort_by_key(&mut all, |&(_, id)| id);
        all
    }

    /// The name a connection is shown under.
    pub(super) fn label(&self, conn: ConnId) -> String {
        match self.labels.iter().rfind(|(id, _)| *id == conn) {
            Some((_, name)) => name.clone(),
            None => format!("conn-{conn}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_in_front_of_a_line_name_a_connection() {
        assert_eq!(
            split_prefix("worker-c> XREADGROUP GROUP g c STREAMS s >"),
            Some(("worker-c", "XREADGROUP GROUP g c STREAMS s >"))
        );
        assert_eq!(split_prefix("  bob>   PING  "), Some(("bob", "PING")));
        assert_eq!(split_prefix("bob> :clock +1s"), Some(("bob", ":clock +1s")));
        assert_eq!(split_prefix("bob> "), Some(("bob", "")));
        // What Redis reads as one unknown command, or as a command with a `>` argument, stays.
        for line in [
            "XLEN> s",
            "ping> x",
            "bob>PING",
            "bob>",
            "\"bob>\" PING",
            "a b> PING",
            "XREADGROUP GROUP g c STREAMS s >",
            "b@d> PING",
        ] {
            assert_eq!(split_prefix(line), None, "{line}");
        }
    }
}
