//! `Timeline`: a session with its history, so any step can be undone and redone.
//!
//! Every change to a session goes through one of four steps — run a command, move the clock,
//! open or close a connection — and a session is deterministic given its steps and the clock
//! reading each command used. So the timeline records steps (with that reading) and rebuilds
//! any earlier state by replaying from the nearest checkpoint, a full copy of the session taken
//! every [`CHECKPOINT_EVERY`] steps. Undo costs at most that many replayed steps, and memory
//! grows by one session copy per checkpoint rather than one per step.

use crate::session::{ConnId, Delivery, Executed, HostRequest, Session};

/// How many steps separate two checkpoints.
pub const CHECKPOINT_EVERY: usize = 16;

/// One change to a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A command run by a connection, with the clock reading it used.
    Execute {
        /// The connection.
        conn: ConnId,
        /// The command and its arguments.
        args: Vec<Vec<u8>>,
        /// The clock reading (Unix ms).
        now: i64,
    },
    /// The clock moved to this instant.
    AdvanceTo {
        /// The new time (Unix ms).
        now: i64,
    },
    /// A connection was opened (it got this id).
    Connect {
        /// The new connection's id.
        conn: ConnId,
    },
    /// A connection was closed.
    Disconnect {
        /// The connection.
        conn: ConnId,
    },
    /// `:fill`: generated entries appended to a stream (see [`Session::fill`]).
    Fill {
        /// The stream's key.
        key: Vec<u8>,
        /// How many entries.
        count: u64,
        /// The clock reading (Unix ms).
        now: i64,
    },
}

/// What a step produced, kept for display (a timeline of commands and replies).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepOutput {
    /// The replies for the connection that ran the command.
    pub replies: Vec<crate::Reply>,
    /// Replies for other connections.
    pub deliveries: Vec<Delivery>,
    /// What the step asked of the host (connections CLIENT KILL closed, SHUTDOWN). A replay
    /// drops them: the host acted when the step first ran.
    pub requests: Vec<HostRequest>,
}

/// A recorded step and what it produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The step.
    pub step: Step,
    /// Its output.
    pub output: StepOutput,
}

/// A session plus every step taken since it was created.
#[derive(Debug, Clone)]
pub struct Timeline {
    current: Session,
    records: Vec<Record>,
    /// How many of `records` are applied to `current`; the rest can be redone.
    applied: usize,
    /// `checkpoints[k]` is the session after `k * CHECKPOINT_EVERY` steps.
    checkpoints: Vec<Session>,
}

impl Timeline {
    /// A timeline starting at `session`.
    pub fn new(session: Session) -> Timeline {
        Timeline { checkpoints: vec![session.clone()], current: session, records: Vec::new(), applied: 0 }
    }

    /// The session as of the current position.
    pub fn session(&self) -> &Session {
        &self.current
    }

    /// The clock when the history began (the first checkpoint is the session before any step).
    pub fn start_time(&self) -> i64 {
        self.checkpoints[0].now()
    }

    /// Every recorded step, including those undone and not yet redone.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// How many steps are applied (the position on the timeline).
    pub fn position(&self) -> usize {
        self.applied
    }

    fn apply(session: &mut Session, step: &Step) -> StepOutput {
        match step {
            Step::Execute { conn, args, now } => {
                let Executed { replies, deliveries, .. } = session.execute_at(*conn, args.clone(), *now);
                StepOutput { replies, deliveries, requests: session.take_requests() }
            }
            Step::AdvanceTo { now } => {
                let deliveries = session.advance_to(*now);
                StepOutput { replies: Vec::new(), deliveries, requests: session.take_requests() }
            }
            Step::Connect { .. } => {
                session.connect();
                StepOutput::default()
            }
            Step::Disconnect { conn } => {
                session.disconnect(*conn);
                StepOutput::default()
            }
            Step::Fill { key, count, now } => {
                let (result, deliveries) = session.fill(key, *count, *now);
                let reply = match result {
                    Ok(Some((first, last))) => {
                        crate::Reply::Status(format!("filled {count} entries: {first} .. {last}"))
                    }
                    Ok(None) => crate::Reply::Status("filled 0 entries".to_owned()),
                    Err(error) => crate::Reply::Error(error.to_string()),
                };
                StepOutput { replies: vec![reply], deliveries, requests: Vec::new() }
            }
        }
    }

    /// Records and applies a step, dropping any undone steps after the current position.
    fn push(&mut self, step: Step) -> StepOutput {
        self.records.truncate(self.applied);
        self.checkpoints.truncate(self.applied / CHECKPOINT_EVERY + 1);
        let output = Timeline::apply(&mut self.current, &step);
        self.records.push(Record { step, output: output.clone() });
        self.applied += 1;
        if self.applied.is_multiple_of(CHECKPOINT_EVERY) {
            self.checkpoints.push(self.current.clone());
        }
        output
    }

    /// Runs a command (reading the clock once) and records it; also returns what it asked of
    /// the host.
    pub fn execute(&mut self, conn: ConnId, args: Vec<Vec<u8>>) -> (Executed, Vec<HostRequest>) {
        let now = self.current.clock_reading();
        let close = args.first().is_some_and(|name| name.eq_ignore_ascii_case(b"quit"));
        let StepOutput { replies, deliveries, requests } = self.push(Step::Execute { conn, args, now });
        (Executed { replies, deliveries, close }, requests)
    }

    /// Moves the clock (see [`Session::advance`]) and records it.
    pub fn advance(&mut self, ms: i64) -> Vec<Delivery> {
        let now = self.current.advanced_by(ms);
        self.push(Step::AdvanceTo { now }).deliveries
    }

    /// Opens a connection and records it.
    pub fn connect(&mut self) -> ConnId {
        let conn = self.current.next_conn_id();
        self.push(Step::Connect { conn });
        conn
    }

    /// Appends generated entries to a stream (`:fill`, see [`Session::fill`]) and records it.
    pub fn fill(&mut self, key: &[u8], count: u64) -> StepOutput {
        let now = self.current.clock_reading();
        self.push(Step::Fill { key: key.to_vec(), count, now })
    }

    /// Closes a connection and records it.
    pub fn disconnect(&mut self, conn: ConnId) {
        self.push(Step::Disconnect { conn });
    }

    /// Moves to the state after `position` steps (clamped to what was recorded).
    pub fn seek(&mut self, position: usize) {
        let position = position.min(self.records.len());
        if position == self.applied {
            return;
        }
        let base = if position > self.applied && position / CHECKPOINT_EVERY == self.applied / CHECKPOINT_EVERY {
            // Moving forward inside the same checkpoint span: just replay what is missing.
            self.applied
        } else {
            let k = (position / CHECKPOINT_EVERY).min(self.checkpoints.len() - 1);
            self.current = self.checkpoints[k].clone();
            k * CHECKPOINT_EVERY
        };
        for index in base..position {
            Timeline::apply(&mut self.current, &self.records[index].step);
            let done = index + 1;
            if done.is_multiple_of(CHECKPOINT_EVERY) && self.checkpoints.len() == done / CHECKPOINT_EVERY {
                self.checkpoints.push(self.current.clone());
            }
        }
        self.applied = position;
    }

    /// Takes the last step back; returns false at the start.
    pub fn undo(&mut self) -> bool {
        if self.applied == 0 {
            return false;
        }
        self.seek(self.applied - 1);
        true
    }

    /// Re-applies the next undone step; returns false when there is none.
    pub fn redo(&mut self) -> bool {
        if self.applied == self.records.len() {
            return false;
        }
        self.seek(self.applied + 1);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Clock, Reply, VIRTUAL_EPOCH_MS};

    fn args(line: &str) -> Vec<Vec<u8>> {
        line.split(' ').map(|a| a.as_bytes().to_vec()).collect()
    }

    fn xlen(t: &mut Timeline, conn: ConnId) -> Reply {
        // Read through a throwaway copy so the probe itself is not recorded.
        let mut session = t.session().clone();
        session.execute(conn, args("XLEN s")).replies.remove(0)
    }

    #[test]
    fn undo_and_redo_walk_the_history() {
        let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
        let c = t.connect();
        for i in 1..=40 {
            t.execute(c, args(&format!("XADD s {i}-0 f v")));
        }
        assert_eq!(xlen(&mut t, c), Reply::Integer(40));
        for _ in 0..25 {
            assert!(t.undo());
        }
        assert_eq!(xlen(&mut t, c), Reply::Integer(15));
        assert!(t.redo());
        assert_eq!(xlen(&mut t, c), Reply::Integer(16));
        t.seek(41);
        assert_eq!(xlen(&mut t, c), Reply::Integer(40));
        t.seek(0);
        assert!(!t.undo());
        t.seek(10);
        // A new step after an undo drops the redo tail.
        t.execute(c, args("XADD s 100-0 f v"));
        assert!(!t.redo());
        assert_eq!(t.records().len(), 11);
        assert_eq!(xlen(&mut t, c), Reply::Integer(10));
        t.session().check_invariants().unwrap();
    }

    #[test]
    fn replayed_steps_reproduce_blocking_and_time() {
        let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
        let a = t.connect();
        let b = t.connect();
        assert!(t.execute(b, args("XREAD BLOCK 1000 STREAMS s $")).0.replies.is_empty());
        let timed_out = t.advance(1500);
        assert_eq!(timed_out, vec![Delivery { conn: b, reply: Reply::NullArray }]);
        t.execute(a, args("XADD s * f v"));
        let before = format!("{:?}", t.session().keyspace().stream(b"s").unwrap());
        t.undo();
        t.undo();
        t.redo();
        t.redo();
        assert_eq!(format!("{:?}", t.session().keyspace().stream(b"s").unwrap()), before);
        assert_eq!(t.session().now(), VIRTUAL_EPOCH_MS + 1500);
    }
}
