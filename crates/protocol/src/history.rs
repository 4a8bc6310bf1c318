//! `Timeline`: a session with its history, so any step can be undone and redone.
//!
//! Every change to a session goes through one of five steps — run a command, move the clock,
//! open or close a connection, `:fill` — and a session is deterministic given its steps and the
//! clock reading each command used. So the timeline records steps (with that reading) and
//! rebuilds any earlier state by replaying from the nearest checkpoint, a full copy of the
//! session.
//!
//! Where checkpoints go decides the cost of a long session. A copy costs about the session's
//! size; replaying costs the work of the steps replayed. A checkpoint is taken once the work
//! done since the last one is at least a fraction of what the copy costs ([`COPY_SHARE`]), and
//! never closer than [`CHECKPOINT_EVERY`] steps unless that work is large. So copying costs at most a constant times the
//! work already done (the whole session stays linear in its steps, however large its data),
//! the checkpoints together hold at most that constant times the work done, and undoing one
//! step replays at most a quarter of the session's size in work (or 16 steps on a small one).
//!
//! A step recorded while later steps are undone does not drop them: they are set aside as a
//! [`Branch`] (the records as they were, without checkpoints), and [`Timeline::switch_branch`]
//! puts them back, setting aside what followed the fork point instead, so no step is lost.

use crate::session::{ConnId, Delivery, Executed, HostRequest, Session};

/// The fewest steps between two checkpoints (on a small session, where copies are cheap).
pub const CHECKPOINT_EVERY: usize = 16;

/// A checkpoint is due once the work since the last one reaches the session's size divided by
/// this: a larger share means closer checkpoints (faster undo) and more memory in copies.
pub const COPY_SHARE: u64 = 4;

/// The largest step output (counted in reply values, as its work) a record keeps as it was.
pub const MAX_KEPT_REPLY: u64 = 100_000;

/// Work since the last checkpoint that is worth a copy sooner than [`CHECKPOINT_EVERY`] steps.
const BIG_WORK: u64 = 4096;

/// One change to a session. A connection opens with the first command it runs (a session
/// opens an unknown connection on the fly), so opening one is part of that command's step.
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
    /// Unique in the timeline, so a host can tell a step from another recorded at the same
    /// position on another branch; increasing along every line of history.
    pub id: u64,
}

/// Steps set aside: they followed position `at` until a step was recorded there instead.
#[derive(Debug, Clone)]
pub struct Branch {
    at: usize,
    records: Vec<Record>,
    /// Each record's work (see [`work_of`]; a kept output may be a note, so it is not
    /// measured again).
    costs: Vec<u64>,
    /// Branches that grew from these steps: they come back (as branches) when these do.
    children: Vec<Branch>,
}

impl Branch {
    /// The position the set-aside steps continued from.
    pub fn at(&self) -> usize {
        self.at
    }

    /// The steps set aside.
    pub fn records(&self) -> &[Record] {
        &self.records
    }
}

/// A session plus every step taken since it was created.
#[derive(Debug, Clone)]
pub struct Timeline {
    current: Session,
    records: Vec<Record>,
    /// How many of `records` are applied to `current`; the rest can be redone.
    applied: usize,
    /// `work[i]`: the work of the first `i` steps (see [`work_of`]), so `work[0]` is 0.
    work: Vec<u64>,
    /// Copies of the session after as many steps as each position says, in position order; the
    /// first is the session before any step.
    checkpoints: Vec<(usize, Session)>,
    /// The total work at which a checkpoint is next considered (see [`Timeline::consider`]).
    due: u64,
    /// Steps set aside, oldest first.
    branches: Vec<Branch>,
    /// The id the next record gets.
    next_id: u64,
}

impl Timeline {
    /// A timeline starting at `session`.
    pub fn new(session: Session) -> Timeline {
        Timeline {
            checkpoints: vec![(0, session.clone())],
            current: session,
            records: Vec::new(),
            applied: 0,
            work: vec![0],
            due: 0,
            branches: Vec::new(),
            next_id: 0,
        }
    }

    /// The steps set aside, oldest first.
    pub fn branches(&self) -> &[Branch] {
        &self.branches
    }

    /// The session as of the current position.
    pub fn session(&self) -> &Session {
        &self.current
    }

    /// The clock when the history began (the first checkpoint is the session before any step).
    pub fn start_time(&self) -> i64 {
        self.checkpoints[0].1.now()
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
                let Executed { replies, deliveries, close } = session.execute_at(*conn, args.clone(), *now);
                if close {
                    // QUIT: the server hangs up once it has answered.
                    session.disconnect(*conn);
                }
                StepOutput { replies, deliveries, requests: session.take_requests() }
            }
            Step::AdvanceTo { now } => {
                let deliveries = session.advance_to(*now);
                StepOutput { replies: Vec::new(), deliveries, requests: session.take_requests() }
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

    /// Sets the undone steps aside as a branch and forgets the checkpoints after the current
    /// position. Branches that grew from those steps go with them (positions stay valid: the
    /// steps come back where they were), so nothing is copied.
    fn set_aside(&mut self) {
        let at = self.applied;
        if at < self.records.len() {
            let records = self.records.split_off(at);
            let mut costs = Vec::with_capacity(records.len());
            for pair in self.work[at..].windows(2) {
                costs.push(pair[1] - pair[0]);
            }
            let mut children = Vec::new();
            let mut i = 0;
            while i < self.branches.len() {
                if self.branches[i].at > at {
                    children.push(self.branches.remove(i));
                } else {
                    i += 1;
                }
            }
            self.branches.push(Branch { at, records, costs, children });
        }
        self.work.truncate(at + 1);
        let kept = self.checkpoints_upto(at);
        if kept < self.checkpoints.len() {
            // A new line of history: when its next checkpoint is due is measured afresh.
            self.checkpoints.truncate(kept);
            self.due = 0;
        }
    }

    /// Appends a record (applied to the current session already) and its work.
    fn record(&mut self, record: Record, cost: u64) {
        self.work.push(self.work[self.applied] + cost);
        self.records.push(record);
        self.applied += 1;
        self.consider();
    }

    /// Records and applies a step; undone steps after the current position are set aside.
    fn push(&mut self, step: Step) -> StepOutput {
        self.set_aside();
        let output = Timeline::apply(&mut self.current, &step);
        let cost = work_of(&step, &output);
        // What a step printed is kept for the timeline and a lesson's trail, but not a huge
        // reply (XRANGE of a million entries): a few such steps would hold gigabytes.
        let kept = if cost > MAX_KEPT_REPLY && !matches!(step, Step::Fill { .. }) {
            let note = format!("(a reply of {cost} values, too big to keep in the history)");
            StepOutput { replies: vec![crate::Reply::Status(note)], deliveries: Vec::new(), requests: Vec::new() }
        } else {
            output.clone()
        };
        self.next_id += 1;
        self.record(Record { step, output: kept, id: self.next_id - 1 }, cost);
        output
    }

    /// Puts branch `index` back: moves to where it continued from, sets aside what follows
    /// there, and replays its steps (taking checkpoints as recording them did), ending after
    /// the last. Returns false when there is no such branch.
    pub fn switch_branch(&mut self, index: usize) -> bool {
        if index >= self.branches.len() {
            return false;
        }
        let branch = self.branches.remove(index);
        self.seek(branch.at);
        self.set_aside();
        for (record, cost) in branch.records.into_iter().zip(branch.costs) {
            Timeline::apply(&mut self.current, &record.step);
            self.record(record, cost);
        }
        self.branches.extend(branch.children);
        true
    }

    /// Takes the last step back and forgets it (no redo, nothing set aside): for a host that
    /// grows a step it just recorded (a running clock). False when no step is applied.
    pub fn amend_last(&mut self) -> bool {
        if self.applied == 0 || self.applied < self.records.len() {
            return false;
        }
        self.seek(self.applied - 1);
        self.records.truncate(self.applied);
        self.work.truncate(self.applied + 1);
        let kept = self.checkpoints_upto(self.applied);
        self.checkpoints.truncate(kept);
        true
    }

    /// How many checkpoints are at or before `position` (at least one: the start).
    fn checkpoints_upto(&self, position: usize) -> usize {
        self.checkpoints.partition_point(|(at, _)| *at <= position)
    }

    /// Takes a checkpoint of the current session if one is due. Measuring the session walks its
    /// keys, so it happens only once the work reaches `due`: the least work at which a copy of
    /// the session as last measured would pay for itself. Checkpoints are at least
    /// [`CHECKPOINT_EVERY`] steps apart (a tiny session would otherwise be copied at every
    /// step), unless the work since the last is large (a big `:fill`): then undoing a few steps
    /// must not replay it.
    fn consider(&mut self) {
        let (last, _) = self.checkpoints.last().expect("the first checkpoint is never dropped");
        let last = *last;
        let done = self.work[self.applied] - self.work[last];
        if self.work[self.applied] < self.due || (self.applied < last + CHECKPOINT_EVERY && done < BIG_WORK) {
            return;
        }
        let size = size_of(&self.current);
        if done.saturating_mul(COPY_SHARE) >= size {
            self.checkpoints.push((self.applied, self.current.clone()));
            self.due = self.work[self.applied] + size.div_ceil(COPY_SHARE);
        } else {
            self.due = self.work[last] + size.div_ceil(COPY_SHARE);
        }
    }

    /// Runs a command (reading the clock once) and records it; also returns what it asked of
    /// the host.
    pub fn execute(&mut self, conn: ConnId, args: Vec<Vec<u8>>) -> (Executed, Vec<HostRequest>) {
        let now = self.current.clock_reading();
        let StepOutput { replies, deliveries, requests } = self.push(Step::Execute { conn, args, now });
        // Only QUIT closes its own connection without the host being asked (CLIENT KILL asks).
        let close = self.current.conn(conn).is_none() && !requests.contains(&HostRequest::Close(conn));
        (Executed { replies, deliveries, close }, requests)
    }

    /// Moves the clock (see [`Session::advance`]) and records it.
    pub fn advance(&mut self, ms: i64) -> Vec<Delivery> {
        let now = self.current.advanced_by(ms);
        self.push(Step::AdvanceTo { now }).deliveries
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
        let at = self.checkpoints_upto(position) - 1;
        let (nearest, copy) = &self.checkpoints[at];
        // Moving forward past the last checkpoint before the target: replay only what is missing.
        let base = if position > self.applied && self.applied >= *nearest {
            self.applied
        } else {
            self.current = copy.clone();
            *nearest
        };
        for record in &self.records[base..position] {
            Timeline::apply(&mut self.current, &record.step);
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

/// What a step costs to replay, in units of one small command: its replies' size (a command's
/// work shows in what it answers) or, for `:fill`, the entries it made.
fn work_of(step: &Step, output: &StepOutput) -> u64 {
    let mut answered = 0;
    for reply in &output.replies {
        answered += reply.size();
    }
    for delivery in &output.deliveries {
        answered += delivery.reply.size();
    }
    match step {
        Step::Fill { count, .. } => answered.saturating_add(*count),
        _ => answered.max(1),
    }
}

/// What copying the session costs, in the same units: its keys, entries, pending entries and
/// consumers (string values by their length).
fn size_of(session: &Session) -> u64 {
    let mut size = 1;
    for (_, value) in session.keyspace().iter() {
        size += 1 + match value {
            streamlab_engine::Value::String(bytes) => (bytes.len() / 64) as u64,
            streamlab_engine::Value::Stream(stream) => {
                let mut size = stream.len();
                for (_, group) in stream.groups().iter() {
                    size += 1 + (group.pel().len() + group.consumers().len()) as u64;
                }
                size
            }
        };
    }
    size
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
        let c = 1;
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
        // A new step after an undo sets the undone ones aside instead of redoing them.
        t.execute(c, args("XADD s 100-0 f v"));
        assert!(!t.redo());
        assert_eq!(t.records().len(), 11);
        assert_eq!(xlen(&mut t, c), Reply::Integer(11));
        assert_eq!((t.branches().len(), t.branches()[0].at(), t.branches()[0].records().len()), (1, 10, 30));
        t.session().check_invariants().unwrap();
        // Bringing them back sets the new step aside in turn, and ends after the last one.
        let ids: Vec<u64> = t.branches()[0].records().iter().map(|r| r.id).collect();
        assert!(t.switch_branch(0));
        assert_eq!((t.position(), t.records().len()), (40, 40));
        assert_eq!(xlen(&mut t, c), Reply::Integer(40));
        assert_eq!(t.records()[10..].iter().map(|r| r.id).collect::<Vec<_>>(), ids);
        assert_eq!((t.branches().len(), t.branches()[0].at(), t.branches()[0].records().len()), (1, 10, 1));
        // A fork below a branch's fork point carries that branch along, back when its steps are.
        t.seek(5);
        t.execute(c, args("XADD s 200-0 f v"));
        assert_eq!(t.branches().iter().map(|b| (b.at(), b.records().len())).collect::<Vec<_>>(), [(5, 35)]);
        assert!(t.switch_branch(0));
        assert_eq!(xlen(&mut t, c), Reply::Integer(40));
        assert_eq!(t.branches().iter().map(|b| (b.at(), b.records().len())).collect::<Vec<_>>(), [(5, 1), (10, 1)]);
        assert!(t.switch_branch(1));
        assert_eq!(xlen(&mut t, c), Reply::Integer(11));
        assert_eq!(
            t.records().last().map(|r| &r.step),
            Some(&Step::Execute { conn: c, args: args("XADD s 100-0 f v"), now: t.session().now() })
        );
        assert!(!t.switch_branch(9));
    }

    #[test]
    fn quit_closes_its_connection_within_its_step() {
        let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
        t.execute(1, args("PING"));
        let (executed, _) = t.execute(1, args("QUIT"));
        assert!(executed.close && t.session().conn(1).is_none());
        assert!(t.undo());
        assert!(t.session().conn(1).is_some());
        assert!(!t.execute(1, args("PING")).0.close);
    }

    #[test]
    fn replayed_steps_reproduce_blocking_and_time() {
        let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
        let (a, b) = (1, 2);
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

    fn copies(t: &Timeline) -> u64 {
        t.checkpoints.iter().map(|(_, copy)| size_of(copy)).sum()
    }

    #[test]
    fn checkpoints_cost_at_most_a_share_of_the_work_done() {
        // A stream growing one entry per step: copies grow with it, so they must space out.
        let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
        let c = 1;
        for i in 1..=20_000 {
            t.execute(c, args(&format!("XADD s {i}-0 f v")));
        }
        let work = t.work[t.applied];
        assert!(copies(&t) <= COPY_SHARE * work, "{} copied for {work} work", copies(&t));
        assert!(t.checkpoints.len() < 60, "{} checkpoints", t.checkpoints.len());

        // A big stream and then many small steps: one copy after the fill, none for the pings.
        let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
        let c = 1;
        t.fill(b"big", 100_000);
        for _ in 0..5_000 {
            t.execute(c, args("PING"));
        }
        let positions: Vec<usize> = t.checkpoints.iter().map(|(p, _)| *p).collect();
        assert_eq!(positions, [0, 1], "a copy right after the fill, none for the pings");
        assert!(t.undo());
        assert_eq!(xlen(&mut t, c), Reply::Integer(0), "XLEN of s, not big");
        // Another big fill, long before the pings would make a copy due: copied at once, so
        // undoing the next steps does not replay it.
        t.fill(b"more", 100_000);
        assert_eq!(t.checkpoints.last().map(|(p, _)| *p), Some(t.position()));
        // A new branch after an undo past that copy measures afresh.
        t.seek(3);
        t.fill(b"other", 50_000);
        assert_eq!(t.checkpoints.last().map(|(p, _)| *p), Some(4));
    }

    #[test]
    fn any_seek_equals_replaying_from_the_start() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
        let c = 1;
        for i in 0..600u64 {
            if next(40) == 0 && !t.branches().is_empty() {
                let index = next(t.branches().len() as u64) as usize;
                assert!(t.switch_branch(index));
            }
            match next(10) {
                0 => drop(t.fill(b"s", next(300))),
                1 => drop(t.advance(1 + next(1000) as i64)),
                2 => t.seek(next(t.records().len() as u64 + 1) as usize),
                3 => drop(t.execute(c, args("XTRIM s MAXLEN 50"))),
                _ => drop(t.execute(c, args(&format!("XADD s * n {i}")))),
            }
        }
        // No step recorded is lost: each is on the current line or in a branch.
        fn ids_of(branches: &[Branch], ids: &mut Vec<u64>) {
            for branch in branches {
                ids.extend(branch.records().iter().map(|r| r.id));
                ids_of(&branch.children, ids);
            }
        }
        let mut ids: Vec<u64> = t.records().iter().map(|r| r.id).collect();
        ids_of(t.branches(), &mut ids);
        ids.sort_unstable();
        assert_eq!(ids, (0..t.next_id).collect::<Vec<_>>(), "each step once: nothing lost, nothing copied");
        let steps: Vec<Step> = t.records().iter().map(|r| r.step.clone()).collect();
        for _ in 0..200 {
            let position = next(steps.len() as u64 + 1) as usize;
            t.seek(position);
            let mut fresh = Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS));
            for step in &steps[..position] {
                Timeline::apply(&mut fresh, step);
            }
            assert_eq!(format!("{:?}", t.session().keyspace()), format!("{:?}", fresh.keyspace()), "at {position}");
            assert_eq!(t.session().now(), fresh.now());
        }
    }

    #[test]
    fn huge_replies_are_not_kept_in_the_history() {
        let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
        let c = 1;
        t.fill(b"big", 60_000);
        let (executed, _) = t.execute(c, args("XRANGE big - +"));
        assert!(matches!(&executed.replies[..], [Reply::Array(entries)] if entries.len() == 60_000));
        let kept = &t.records().last().unwrap().output.replies;
        assert_eq!(kept, &[Reply::Status("(a reply of 660001 values, too big to keep in the history)".into())]);
        let (small, _) = t.execute(c, args("XRANGE big - + COUNT 2"));
        assert_eq!(t.records().last().unwrap().output.replies, small.replies);
    }
}
