//! What must hold of a session between commands, checked after every line of every
//! transcript in debug builds and after every command of the property tests.

use super::*;

impl Session {
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
