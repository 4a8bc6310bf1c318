//! `Timeline`: a session with its history, so any step can be undone and redone.
//!
//! Every change to a session goes through one of four steps — run a command (which opens its
//! connection if it is new), move the clock, close a connection, `:fill` — and a session is deterministic given its steps and the
//! clock reading each command used. So the timeline records steps (with that reading) and
//! rebuilds any earlier state by replaying from the nearest checkpoint, a copy of the session.
//!
//! A copy shares its data with the live session: the engine's large collections are chunk
//! maps whose chunks (and a stream's nodes) sit behind `Arc`s, so copying a session costs a
//! pointer per chunk, and a change after a copy duplicates only the chunk and node it touches.
//! Where checkpoints go decides what a long session costs. A copy costs about the session's
//! pointer count (`size_of`); replaying costs the work of the steps replayed (`work_of`). A
//! checkpoint is taken once the work done since the last one is at least a [`COPY_SHARE`]th of
//! what the copy costs, and never closer than [`CHECKPOINT_EVERY`] steps unless that work is
//! large ([`BIG_WORK`]). So (the invariants the tests hold):
//! - copying costs at most a constant times the work done, and memory held by checkpoints is
//!   at most a pointer per chunk per [`CHECKPOINT_EVERY`] steps plus the chunks and nodes
//!   changed since each: a session's cost stays linear in its steps, however large its data;
//! - undoing one step, or seeking to any step, replays at most `max(CHECKPOINT_EVERY steps,
//!   BIG_WORK, size / COPY_SHARE)` work from the checkpoint before it.
//!
//! A host that needs no long history (a script runner, a grader replaying a log) bounds it with
//! [`Keep::Last`]: steps older than that many, and the checkpoints before them, are forgotten
//! as new checkpoints are taken, so memory holds the session plus a constant window.
//!
//! A step recorded while later steps are undone does not drop them: they are set aside as a
//! [`Branch`] (the records as they were, without checkpoints), and [`Timeline::switch_branch`]
//! puts them back, setting aside what followed the fork point instead, so no step is lost.

use crate::reply::Reply;
use crate::session::{ConnId, Delivery, Executed, HostRequest, Session};

/// The fewest steps between two checkpoints: what bounds the memory copies hold (a copy is
/// cheap to make, but the chunks and nodes changed after it are its own), and few enough to
/// replay in well under a millisecond.
pub const CHECKPOINT_EVERY: usize = 256;

/// A checkpoint is due once the work since the last one reaches the session's size divided by
/// this: a larger share means closer checkpoints (faster undo) and more memory in copies.
pub const COPY_SHARE: u64 = 4;

/// The largest step output (counted in reply values, as its work) a record keeps as it was.
pub const MAX_KEPT_REPLY: u64 = 100_000;

/// Work since the last checkpoint that is worth a copy sooner than [`CHECKPOINT_EVERY`] steps.
pub const BIG_WORK: u64 = 4096;

/// How much history a timeline keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Every step, so any can be undone (the playground, lessons).
    All,
    /// At least the last this many steps; older ones are forgotten, a batch at a time.
    Last(usize),
}

/// One change to a session. A connection opens with the first command it runs (a session
/// opens an unknown connection on the fly), so opening one is part of that command's step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A command run by a connection, with the clock reading it used.
    Execute {
        /// The connection.
        conn: ConnId,
        /// The command and its arguments.
        args: Words,
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

/// A recorded command's arguments in one allocation: each argument's length (LEB128), then
/// its bytes. A history holds one per step, and ten small `Vec`s (24 bytes each plus an
/// allocation) were most of its memory. Not the RESP parser's `Args`, which keeps big
/// arguments in buffers of their own so that they can be moved out; a record never is.
#[derive(Clone, PartialEq, Eq)]
pub struct Words(Box<[u8]>);

impl Words {
    /// Packs `args`.
    pub fn new(args: &[Vec<u8>]) -> Words {
        let mut packed = Vec::new();
        for arg in args {
            let mut len = arg.len();
            while len >= 0x80 {
                packed.push((len & 0x7f) as u8 | 0x80);
                len >>= 7;
            }
            packed.push(len as u8);
            packed.extend_from_slice(arg);
        }
        Words(packed.into_boxed_slice())
    }

    /// The arguments, in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        let mut rest: &[u8] = &self.0;
        std::iter::from_fn(move || {
            let mut len = 0;
            let mut shift = 0;
            while let [byte, tail @ ..] = rest {
                rest = tail;
                len |= usize::from(byte & 0x7f) << shift;
                shift += 7;
                if *byte < 0x80 {
                    let (arg, tail) = rest.split_at(len.min(rest.len()));
                    rest = tail;
                    return Some(arg);
                }
            }
            None
        })
    }

    /// The arguments as a session takes them.
    pub fn to_vecs(&self) -> Vec<Vec<u8>> {
        // A plain loop, not `collect`: each adapter chain is its own code in the wasm.
        let mut out = Vec::new();
        for arg in self.iter() {
            out.push(arg.to_vec());
        }
        out
    }
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(String::from_utf8_lossy)).finish()
    }
}

/// What a step produced, kept for display (a timeline of commands and replies).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StepOutput {
    /// The replies for the connection that ran the command.
    pub replies: Vec<Reply>,
    /// Replies for other connections.
    pub deliveries: Vec<Delivery>,
    /// What the step asked of the host (connections CLIENT KILL closed, SHUTDOWN). A replay
    /// drops them: the host acted when the step first ran.
    pub requests: Vec<HostRequest>,
    /// The connection that ran the command closed (QUIT).
    pub close: bool,
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
    /// Counted from the session's start, steps a bounded history forgot included.
    at: usize,
    records: Vec<Record>,
    /// Each record's work (see [`work_of`]; a kept output may be a note, so it is not
    /// measured again).
    costs: Vec<u64>,
    /// Branches that grew from these steps: they come back (as branches) when these do.
    children: Vec<Branch>,
}

impl Branch {
    /// The step the set-aside steps continued from, counted from the session's start (steps a
    /// bounded history forgot included; see [`Timeline::forgotten`]).
    pub fn at(&self) -> usize {
        self.at
    }

    /// The steps set aside.
    pub fn records(&self) -> &[Record] {
        &self.records
    }
}

/// What forgets a bounded history's old steps (see [`Timeline::forget`]).
type Forget = fn(&mut Timeline, usize);

/// A session plus every step taken since it was created.
#[derive(Debug, Clone)]
pub struct Timeline {
    current: Session,
    records: Vec<Record>,
    /// How many of `records` are applied to `current`; the rest can be redone.
    applied: usize,
    /// `work[i]`: the work of the steps before `records[i]` (see [`work_of`]), counted from the
    /// session's start (so `work[0]` is 0 unless a bounded history forgot steps).
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
    /// Under [`Keep::Last`], how many steps to keep and what forgets the older ones; `None`
    /// keeps everything. A function pointer so that a host that keeps everything (the
    /// playground page) does not carry that code, which its wasm budget counts.
    forgetting: Option<(usize, Forget)>,
    /// Steps forgotten under [`Keep::Last`], and the entries their `:fill`s made.
    forgotten: usize,
    forgotten_fills: u64,
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
            forgetting: None,
            forgotten: 0,
            forgotten_fills: 0,
        }
    }

    /// Keeps only as much history as `keep` says from the next checkpoint on.
    pub fn set_keep(&mut self, keep: Keep) {
        self.forgetting = match keep {
            Keep::All => None,
            Keep::Last(steps) => Some((steps, Timeline::forget)),
        };
    }

    /// Keeps as much history as `other` does (without naming what forgets, so a host that
    /// never bounds its history still does not carry that code).
    pub fn keep_like(&mut self, other: &Timeline) {
        self.forgetting = other.forgetting;
    }

    /// How much history is kept.
    pub fn keep(&self) -> Keep {
        match self.forgetting {
            Some((steps, _)) => Keep::Last(steps),
            None => Keep::All,
        }
    }

    /// How many steps were forgotten under [`Keep::Last`] (positions count from after them).
    pub fn forgotten(&self) -> usize {
        self.forgotten
    }

    /// The entries the forgotten steps' `:fill`s made.
    pub fn forgotten_fills(&self) -> u64 {
        self.forgotten_fills
    }

    /// The id the next recorded step gets: a record with this id or later was recorded after
    /// this was read.
    pub fn next_id(&self) -> u64 {
        self.next_id
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

    /// Applies `step`; a command runs with `owned` when given (its arguments, already split:
    /// recording a step need not unpack what it just packed).
    fn apply(session: &mut Session, step: &Step, owned: Option<Vec<Vec<u8>>>) -> StepOutput {
        match step {
            Step::Execute { conn, args, now } => {
                let args = owned.unwrap_or_else(|| args.to_vecs());
                let Executed { replies, deliveries, close } = session.execute_at(*conn, args, *now);
                StepOutput { replies, deliveries, requests: session.take_requests(), close }
            }
            Step::AdvanceTo { now } => {
                let deliveries = session.advance_to(*now);
                StepOutput { replies: Vec::new(), deliveries, requests: session.take_requests(), close: false }
            }
            Step::Disconnect { conn } => {
                session.disconnect(*conn);
                StepOutput::default()
            }
            Step::Fill { key, count, now } => {
                let (reply, deliveries) = session.fill(key, *count, *now);
                StepOutput { replies: vec![reply], deliveries, ..StepOutput::default() }
            }
        }
    }

    /// Sets the undone steps aside as a branch and forgets the checkpoints after the current
    /// position. Branches that grew from those steps go with them (positions stay valid: the
    /// steps come back where they were), so nothing is copied.
    fn set_aside(&mut self) {
        let at = self.applied;
        let step = at + self.forgotten;
        if at < self.records.len() {
            let records = self.records.split_off(at);
            let mut costs = Vec::with_capacity(records.len());
            for pair in self.work[at..].windows(2) {
                costs.push(pair[1] - pair[0]);
            }
            let mut children = Vec::new();
            let mut i = 0;
            while i < self.branches.len() {
                if self.branches[i].at > step {
                    children.push(self.branches.remove(i));
                } else {
                    i += 1;
                }
            }
            self.branches.push(Branch { at: step, records, costs, children });
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

    /// Records and applies a step (a command with `owned`, its arguments); undone steps after
    /// the current position are set aside.
    fn push(&mut self, step: Step, owned: Option<Vec<Vec<u8>>>) -> StepOutput {
        self.set_aside();
        let output = Timeline::apply(&mut self.current, &step, owned);
        let cost = work_of(&step, &output);
        // What a step printed is kept for the timeline and a lesson's trail, but not a huge
        // reply (XRANGE of a million entries): a few such steps would hold gigabytes.
        let kept = if cost > MAX_KEPT_REPLY && !matches!(step, Step::Fill { .. }) {
            let note = format!("(a reply of {cost} values, too big to keep in the history)");
            StepOutput { replies: vec![Reply::Status(note)], ..StepOutput::default() }
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
        self.seek(branch.at - self.forgotten);
        self.set_aside();
        for (record, cost) in branch.records.into_iter().zip(branch.costs) {
            Timeline::apply(&mut self.current, &record.step, None);
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
    /// [`CHECKPOINT_EVERY`] steps apart, unless the work since the last is large (a big `:fill`):
    /// then undoing a few steps must not replay it.
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
            if let Some((steps, forget)) = self.forgetting {
                forget(self, steps);
            }
        } else {
            self.due = self.work[last] + size.div_ceil(COPY_SHARE);
        }
    }

    /// Under [`Keep::Last`], forgets the steps before the latest checkpoint that still leaves
    /// the kept number of steps after it, with the checkpoints and branches before it. Called
    /// as a checkpoint is taken, so what it moves (the kept window) is paid for by the steps
    /// since the last one.
    fn forget(&mut self, steps: usize) {
        let at = self.checkpoints_upto(self.applied.saturating_sub(steps)) - 1;
        let from = self.checkpoints[at].0;
        if from == 0 {
            return;
        }
        // `split_off`, not `drain`: the same moves, and code the bundles already carry. Work
        // totals and branch positions count from the session's start, so they stay as they are.
        let kept = self.records.split_off(from);
        for record in std::mem::replace(&mut self.records, kept) {
            if let Step::Fill { count, .. } = record.step {
                self.forgotten_fills = self.forgotten_fills.saturating_add(count);
            }
        }
        self.work = self.work[from..].to_vec();
        // The checkpoints before the kept window go, oldest first (`remove`: code the bundles
        // carry anyway; there are few of them).
        for _ in 0..at {
            self.checkpoints.remove(0);
        }
        for (position, _) in &mut self.checkpoints {
            *position -= from;
        }
        self.applied -= from;
        self.forgotten += from;
        // A branch that forked before the kept window cannot be put back: it goes too.
        let mut i = 0;
        while i < self.branches.len() {
            if self.branches[i].at < self.forgotten {
                self.branches.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// Runs a command (reading the clock once) and records it; also returns what it asked of
    /// the host.
    pub fn execute(&mut self, conn: ConnId, args: Vec<Vec<u8>>) -> (Executed, Vec<HostRequest>) {
        let now = self.current.clock_reading();
        let step = Step::Execute { conn, args: Words::new(&args), now };
        let StepOutput { replies, deliveries, requests, close } = self.push(step, Some(args));
        (Executed { replies, deliveries, close }, requests)
    }

    /// Moves the clock (see [`Session::advance`]) and records it.
    pub fn advance(&mut self, ms: i64) -> Vec<Delivery> {
        let now = self.current.advanced_by(ms);
        self.push(Step::AdvanceTo { now }, None).deliveries
    }

    /// Appends generated entries to a stream (`:fill`, see [`Session::fill`]) and records it.
    pub fn fill(&mut self, key: &[u8], count: u64) -> StepOutput {
        let now = self.current.clock_reading();
        self.push(Step::Fill { key: key.to_vec(), count, now }, None)
    }

    /// Closes a connection and records it.
    pub fn disconnect(&mut self, conn: ConnId) {
        self.push(Step::Disconnect { conn }, None);
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
            Timeline::apply(&mut self.current, &record.step, None);
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

/// What copying the session costs, in the same units: a unit per connection and per key (the
/// keyspace's copy is shared chunk by chunk, but walking it here costs that), and one per
/// chunk of each stream's nodes, each group's PEL and (about) each consumer's share of it:
/// pointers a copy of the stream duplicates when its key is next changed.
fn size_of(session: &Session) -> u64 {
    let mut size = 1 + session.conn_count() as u64;
    for (_, value) in session.keyspace().iter() {
        size += 1;
        if let streamlab_engine::Value::Stream(stream) = value {
            size += stream.nodes().chunk_count() as u64;
            for (_, group) in stream.groups().iter() {
                // The consumers' shares split the PEL: about as many chunks again, plus one
                // (partly filled) per consumer.
                size += 1 + 2 * group.pel().chunk_count() as u64 + group.consumers().len() as u64;
            }
        }
    }
    size
}

#[cfg(test)]
mod tests;
