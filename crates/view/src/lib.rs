//! The browser's view-model of a StreamLab session (no wasm-bindgen here: `web` and `grader` bind it).
//!
//! [`Playground`] wraps a [`Console`] (the same console the CLI runs): console lines in,
//! redis-cli text out, plus a [`SnapshotView`] of everything the pictures draw and, for every
//! step of the history, the plain-language list of what it changed. The Yew app uses it
//! in-process; JavaScript scripts use the grader (crates/grader) over [`grade`]. The view DTOs
//! and serde live in this crate only.

pub mod diff;
pub mod embed;
pub mod export;
pub mod grade;
pub mod lesson;
pub mod share;
pub mod view;

use std::rc::Rc;

use serde::Serialize;
use streamlab_engine::{IdMode, StreamId};
use streamlab_protocol::timeline::{Record, Step};
use streamlab_protocol::{format_reply_to, Clock, Console, Output, Reply, Session};

pub use share::SessionSpec;
pub use streamlab_protocol::civil::Civil;
pub use streamlab_protocol::console::{command_line, completions, help_reply, split_prefix, syntax_hint};
pub use streamlab_protocol::tokenize::{ends_in_word, is_separator, last_word_start, words};
pub use streamlab_protocol::{OutputKind, Profile};
pub use view::SnapshotView;
use view::{Opened, RailItem};

/// The profile a host names (an embed option, a grader's argument), or, when it names none,
/// `Profile::default()`: the console's default (the newest Redis), as the terminal console
/// starts, so a line behaves the same in both (the header's select and `:profile NAME` pick
/// another). An unknown name is the error text to show.
pub fn profile_or_default(name: Option<&str>) -> Result<Profile, String> {
    name.map_or(Ok(Profile::default()), |name| name.parse::<Profile>().map_err(|e| e.to_string()))
}

/// The connections a new playground opens, as tabs.
pub const FIRST_CONNECTIONS: [&str; 2] = ["alice", "bob"];

/// One block of console output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutputView {
    /// The connection it reached, when that is not the one that typed the line.
    pub to: Option<String>,
    /// The text, as redis-cli prints it (lines separated by `\n`).
    pub text: String,
    /// Reply, error or info (`reply`, `error`, `info` in JSON).
    #[serde(serialize_with = "kind_name")]
    pub kind: OutputKind,
}

fn kind_name<S: serde::Serializer>(kind: &OutputKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.name())
}

impl OutputView {
    /// The text as a console prints it: `[NAME] ` before each line that reached another
    /// connection.
    pub fn display(&self) -> String {
        Output::lines(self.to.as_deref(), &self.text).collect::<Vec<_>>().join("\n")
    }

    /// Output blocks as a console prints them, one after another (see [`OutputView::display`]).
    pub fn printed(outputs: &[OutputView]) -> String {
        outputs.iter().map(OutputView::display).collect::<Vec<_>>().join("\n")
    }

    /// Whether none of the output blocks is an error.
    pub fn all_ok(outputs: &[OutputView]) -> bool {
        outputs.iter().all(|o| o.kind != OutputKind::Error)
    }

    /// A reply to `args` (nothing for a delivery: a served read never prints raw).
    fn reply(to: Option<String>, args: &[Vec<u8>], reply: &Reply) -> OutputView {
        OutputView::from(Output { to, text: format_reply_to(args, reply), kind: OutputKind::of(reply) })
    }
}

impl From<Output> for OutputView {
    fn from(output: Output) -> OutputView {
        OutputView { to: output.to, text: clip(output.text), kind: output.kind }
    }
}

/// One step of the history, for the timeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepView {
    /// 1-based: the position after this step.
    pub index: usize,
    /// The connection that ran it (commands and connects).
    pub conn: Option<String>,
    /// The step as a console line.
    pub line: String,
    /// What it printed.
    pub output: Vec<OutputView>,
    /// What it changed, in words.
    pub changes: Vec<String>,
    /// Whether it is applied (false for undone steps that can be redone).
    pub applied: bool,
    /// The record's id (see [`Playground::step_state`]).
    pub id: u64,
}

/// Steps set aside (see [`Playground::switch_branch`]), for the timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchView {
    /// The step they continued from.
    pub at: usize,
    /// How many steps.
    pub steps: usize,
}

/// What a recorded step printed and changed, computed once when it was recorded.
#[derive(Debug, Clone)]
struct Described {
    /// The record's id.
    id: u64,
    output: Vec<OutputView>,
    changes: Vec<String>,
}

/// At most this many lines of one reply are shown; a longer reply (XRANGE over a big stream)
/// ends with a line saying how many more there were.
pub const SHOWN_LINES: usize = 500;

/// A reply's text cut to [`SHOWN_LINES`] lines.
fn clip(text: String) -> String {
    let total = text.lines().count();
    if total <= SHOWN_LINES {
        return text;
    }
    let mut kept: String = text.lines().take(SHOWN_LINES).collect::<Vec<_>>().join("\n");
    kept.push_str(&format!("\n… {} more lines not shown", total - SHOWN_LINES));
    kept
}

/// How many of a restored log's last lines are described with what they changed.
pub const WATCHED_ON_RESTORE: usize = 200;

/// A session, its history, its current snapshot and what each step changed.
#[derive(Debug, Clone)]
pub struct Playground {
    console: Console,
    spec: SessionSpec,
    /// The blocks of big streams the learner opened (a view setting: time travel keeps it).
    opened: Opened,
    /// Shared with the page's state, which keeps the one before too: a snapshot is large,
    /// and the page would otherwise copy it at every step.
    snapshot: Rc<SnapshotView>,
    /// `described[i]` is what step `i + 1` printed and changed, kept from when it was
    /// recorded; as long as the recorded steps.
    described: Vec<Described>,
}

impl Playground {
    /// A fresh playground for `spec`'s profile, clock and fill (its log is not run: see
    /// [`Playground::restore`]).
    pub fn new(spec: &SessionSpec) -> Playground {
        let console = start_console(spec);
        let opened = Opened::default();
        let snapshot = Rc::new(view::snapshot(&console, &opened));
        let spec = SessionSpec { log: String::new(), ..spec.clone() };
        Playground { console, spec, opened, snapshot, described: Vec::new() }
    }

    /// A playground with `spec`'s log replayed line by line. Only the last
    /// [`WATCHED_ON_RESTORE`] lines get the pictures' before-and-after comparison (what each
    /// step changed, for the timeline): comparing costs a snapshot per line, which on a big
    /// session is most of the cost of a long log.
    pub fn restore(spec: &SessionSpec) -> Playground {
        let mut playground = Playground::new(spec);
        let lines: Vec<&str> = spec.log.lines().collect();
        let unwatched = lines.len().saturating_sub(WATCHED_ON_RESTORE);
        for (n, line) in lines.iter().enumerate() {
            if n < unwatched && profile_switch(line).is_none() {
                playground.console.run(line);
                continue;
            }
            if n == unwatched {
                playground.describe_unwatched();
            }
            playground.run(line);
        }
        playground.describe_unwatched();
        playground
    }

    /// Describes the steps recorded since the last description by what they printed only (what
    /// they changed was not watched), and takes the current snapshot.
    fn describe_unwatched(&mut self) {
        let records = self.console.timeline().records();
        let described: Vec<Described> = records
            .get(self.described.len()..)
            .unwrap_or_default()
            .iter()
            .map(|r| self.describe(r, Vec::new()))
            .collect();
        self.described.extend(described);
        self.snapshot = Rc::new(view::snapshot(&self.console, &self.opened));
    }

    /// A playground over a console that already has a history (a lesson's task start, whose
    /// setup steps stay visible in the timeline). `clock` is where its clock started.
    pub fn from_console(console: Console, clock: i64) -> Playground {
        let opened = Opened::default();
        let snapshot = Rc::new(view::snapshot(&console, &opened));
        // The lesson's profile, so the header, Reset and share links keep answering as it does.
        let spec = SessionSpec { clock, profile: console.session().profile(), ..SessionSpec::default() };
        let mut playground = Playground { console, spec, opened, snapshot, described: Vec::new() };
        playground.describe_unwatched();
        playground
    }

    /// Starts again from the same profile, clock and fill.
    pub fn reset(&mut self) {
        *self = self.fresh();
    }

    /// A fresh playground of the same profile, clock and fill.
    pub fn fresh(&self) -> Playground {
        Playground::new(&self.spec)
    }

    /// The server the session answers as.
    pub fn profile(&self) -> Profile {
        self.spec.profile
    }

    /// The console underneath.
    pub fn console(&self) -> &Console {
        &self.console
    }

    /// The state as of the current step.
    pub fn snapshot(&self) -> &Rc<SnapshotView> {
        &self.snapshot
    }

    /// Runs one console line on the current connection. `:profile NAME` starts a fresh
    /// playground answering as that server (as the console does, but with the playground's
    /// own connections, and remembered in the spec so share links carry it).
    pub fn run(&mut self, line: &str) -> Vec<OutputView> {
        if let Some(profile) = profile_switch(line) {
            *self = Playground::new(&SessionSpec { profile, fill: None, log: String::new(), ..self.spec.clone() });
            let text = format!(
                "a fresh session answering as {profile} ({} {})",
                profile.caps().server,
                profile.caps().version
            );
            return vec![OutputView { to: None, text, kind: OutputKind::Info }];
        }
        let outputs = self.console.run(line);
        self.refresh();
        outputs.into_iter().map(OutputView::from).collect()
    }

    /// Switches the console to a connection, opening it if it is new.
    pub fn switch(&mut self, name: &str) {
        self.console.switch(name);
        self.refresh();
    }

    /// Moves the clock forward. With `merge`, a clock move that directly follows another (one
    /// that served nothing, with nothing undone after it) grows that step instead of adding
    /// one: a clock left running makes one step.
    pub fn advance(&mut self, ms: i64, merge: bool) -> Vec<OutputView> {
        let mut ms = ms.max(0);
        if merge {
            let timeline = self.console.timeline();
            let records = timeline.records();
            if let Some(record) = records.last().filter(|_| timeline.position() == records.len()) {
                if let Step::AdvanceTo { now } = record.step {
                    if record.output.deliveries.is_empty() {
                        self.console.amend_last();
                        self.refresh();
                        ms += now - self.console.session().now();
                    }
                }
            }
        }
        let outputs = self.console.advance(ms);
        self.refresh();
        outputs.into_iter().map(OutputView::from).collect()
    }

    /// Takes the last step back.
    pub fn undo(&mut self) -> bool {
        let done = self.console.undo();
        self.refresh();
        done
    }

    /// Re-applies the next undone step.
    pub fn redo(&mut self) -> bool {
        let done = self.console.redo();
        self.refresh();
        done
    }

    /// Moves to the state after `position` steps.
    pub fn seek(&mut self, position: usize) {
        self.console.seek(position);
        self.refresh();
    }

    /// The runs of steps set aside by typing at an earlier step, oldest first.
    pub fn branches(&self) -> Vec<BranchView> {
        let mut views = Vec::new();
        for branch in self.console.timeline().branches() {
            views.push(BranchView { at: branch.at(), steps: branch.records().len() });
        }
        views
    }

    /// Brings back branch `index` (what followed its fork point is set aside in its place);
    /// the restored steps are described by what they printed. Returns the console's note.
    pub fn switch_branch(&mut self, index: usize) -> Option<String> {
        let note = self.console.switch_branch(index);
        self.refresh();
        note
    }

    /// The id of the step the current position is after (`None` at the start): a host tells
    /// by it whether a line recorded a step, and later whether that step is applied, undone or
    /// set aside ([`Playground::step_state`]).
    pub fn last_step_id(&self) -> Option<u64> {
        let timeline = self.console.timeline();
        timeline.records()[..timeline.position()].last().map(|r| r.id)
    }

    /// Where the step with id `id` is: applied, undone (redo brings it back) or set aside.
    pub fn step_state(&self, id: u64) -> StepState {
        let timeline = self.console.timeline();
        // Ids increase along the line, so the current one is searched by bisection.
        match timeline.records().binary_search_by_key(&id, |r| r.id) {
            Ok(at) if at < timeline.position() => StepState::Applied,
            Ok(_) => StepState::Undone,
            Err(_) => StepState::SetAside,
        }
    }

    /// Opens (a page of) the collapsed block that starts at the node `first_id` on the rail
    /// of `key`; nothing when there is no such block.
    pub fn open_block(&mut self, key: &str, first_id: &str) {
        let block = self.snapshot.streams.iter().find(|s| s.key == key).and_then(|s| {
            s.rail.iter().find_map(|item| match item {
                RailItem::Collapsed(block) if block.first_id == first_id => Some(block.nodes),
                _ => None,
            })
        });
        let stream = self.console.session().keyspace().stream(key.as_bytes()).ok().flatten();
        let first = StreamId::parse(first_id.as_bytes(), IdMode::Strict, 0).ok();
        if let (Some(nodes), Some(stream), Some(first)) = (block, stream, first) {
            self.opened.open(key.as_bytes(), stream, first, nodes);
            self.refresh();
        }
    }

    /// Closes the run of opened nodes that starts at the node `first_id` on `key`'s rail.
    pub fn close_block(&mut self, key: &str, first_id: &str) {
        let Some(stream) = self.snapshot.streams.iter().find(|s| s.key == key) else { return };
        let run: Vec<StreamId> = stream
            .rail
            .iter()
            .skip_while(|item| !matches!(item, RailItem::Node(n) if n.master_id == first_id))
            .map_while(|item| match item {
                RailItem::Node(n) if n.opened => StreamId::parse(n.master_id.as_bytes(), IdMode::Strict, 0).ok(),
                _ => None,
            })
            .collect();
        if !run.is_empty() {
            self.opened.close(key.as_bytes(), &run);
            self.refresh();
        }
    }

    /// After anything that may have moved or recorded a step: a new snapshot, and the
    /// description of the steps that are new on the line: the step just recorded with what it
    /// changed, steps a branch brought back by what they printed.
    fn refresh(&mut self) {
        let after = view::snapshot(&self.console, &self.opened);
        let timeline = self.console.timeline();
        let position = timeline.position();
        let records = timeline.records();
        // Descriptions of steps no longer on the line (set aside, or replaced) go, from the
        // end back: as many as changed.
        let mut keep = self.described.len().min(records.len());
        while keep > 0 && self.described[keep - 1].id != records[keep - 1].id {
            keep -= 1;
        }
        self.described.truncate(keep);
        if keep + 1 == position {
            let described = self.describe(&records[position - 1], diff::changes(&self.snapshot, &after));
            self.described.push(described);
        }
        for record in records.get(self.described.len()..).unwrap_or_default() {
            let described = self.describe(record, Vec::new());
            self.described.push(described);
        }
        self.snapshot = Rc::new(after);
    }

    /// A recorded step with what it printed and `changes`.
    fn describe(&self, record: &Record, changes: Vec<String>) -> Described {
        let args = match &record.step {
            Step::Execute { args, .. } => args.to_vecs(),
            _ => Vec::new(),
        };
        let mut output: Vec<OutputView> =
            record.output.replies.iter().map(|r| OutputView::reply(None, &args, r)).collect();
        output.extend(
            record.output.deliveries.iter().map(|d| OutputView::reply(Some(self.console.label(d.conn)), &[], &d.reply)),
        );
        Described { id: record.id, output, changes }
    }

    /// How many steps are recorded.
    pub fn step_count(&self) -> usize {
        self.console.timeline().records().len()
    }

    /// Steps `from..to` (0-based record indexes, clamped), for the timeline.
    pub fn steps(&self, from: usize, to: usize) -> Vec<StepView> {
        let timeline = self.console.timeline();
        let records = timeline.records();
        let to = to.min(records.len());
        let from = from.min(to);
        // The clock before each step, to print clock moves as +MS: the reading of the latest
        // step before `from` that has one (a command reads the clock, a move sets it), found
        // from `from` back so that listing the last steps costs the same at any length.
        let mut time = self.spec.clock;
        for record in records[..from].iter().rev() {
            if let Step::Execute { now, .. } | Step::AdvanceTo { now } | Step::Fill { now, .. } = record.step {
                time = now;
                break;
            }
        }
        let mut views = Vec::with_capacity(to - from);
        for (index, record) in records.iter().enumerate().take(to).skip(from) {
            let conn = match record.step {
                Step::Execute { conn, .. } | Step::Disconnect { conn } => Some(self.console.label(conn)),
                Step::AdvanceTo { .. } | Step::Fill { .. } => None,
            };
            let line = self.console.step_line(&record.step, time);
            if let Step::AdvanceTo { now } = record.step {
                time = now;
            }
            let described = self.described.get(index);
            views.push(StepView {
                index: index + 1,
                conn,
                line,
                output: described.map(|d| d.output.clone()).unwrap_or_default(),
                changes: described.map(|d| d.changes.clone()).unwrap_or_default(),
                applied: index < timeline.position(),
                id: record.id,
            });
        }
        views
    }

    /// The clock the session started at (without writing out its script, as `spec` does).
    pub fn start_clock(&self) -> i64 {
        self.spec.clock
    }

    /// The session as a spec: profile, clock, fill and the command log of the applied steps.
    pub fn spec(&self) -> SessionSpec {
        SessionSpec { log: self.console.script(), ..self.spec.clone() }
    }

    /// A script for `redis-cli` that replays the session against a real server.
    pub fn export(&self) -> String {
        export::redis_cli_script(&self.spec())
    }
}

/// The console a playground for `spec` starts with: its profile, clock and fill, and the
/// first connections (its log is not run).
fn start_console(spec: &SessionSpec) -> Console {
    let mut session = Session::with_profile(Clock::Virtual(spec.clock), spec.profile);
    if let Some((key, count)) = &spec.fill {
        // The same order events as `:fill`, straight into the session before history starts:
        // the starting point, not a hundred thousand steps. The spec's own checks (the key,
        // the count's limit) leave nothing for the fill to refuse.
        let _ = session.fill(key.as_bytes(), *count, spec.clock);
    }
    Console::with_connections(session, &FIRST_CONNECTIONS).interactive()
}

/// Where a recorded step is (see [`Playground::step_state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepState {
    /// On the current line, at or before the position.
    Applied,
    /// On the current line after the position: redo brings it back.
    Undone,
    /// In a branch set aside: `:branch` (or the timeline's button) brings it back.
    SetAside,
}

/// The profile a `:profile NAME` line switches to, when it is one naming a known profile
/// (other `:profile` lines, such as a bad name, are the console's to answer).
pub fn profile_switch(line: &str) -> Option<Profile> {
    let mut words = line.trim().strip_prefix(':')?.split_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some("profile"), Some(name), None) => name.parse().ok(),
        _ => None,
    }
}

/// A view or event as JSON, for JavaScript.
pub fn json<T: Serialize>(value: &T) -> String {
    // Plain structs of strings and numbers always serialize. The error is not formatted:
    // `expect` would pull serde_json's Debug (and str's escaping) into the wasm, Display its
    // table of messages, for a message that cannot be shown.
    serde_json::to_string(value).unwrap_or_else(|_| unreachable!("views serialize"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn playground(lines: &[&str]) -> Playground {
        let mut p = Playground::new(&SessionSpec::default());
        for line in lines {
            p.run(line);
        }
        p
    }

    #[test]
    fn steps_carry_line_output_and_changes() {
        let mut p = playground(&[
            "XGROUP CREATE jobs workers $ MKSTREAM",
            ":as bob",
            "XREADGROUP GROUP workers bob BLOCK 0 STREAMS jobs >",
            ":as alice",
        ]);
        let out = p.run("XADD jobs 1-0 type email");
        assert_eq!(out[0], OutputView { to: None, text: "\"1-0\"".into(), kind: OutputKind::Reply });
        assert_eq!(out[1].to.as_deref(), Some("bob"));
        let steps = p.steps(0, 10);
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[1].line, "XREADGROUP GROUP workers bob BLOCK 0 STREAMS jobs >");
        assert_eq!(steps[1].conn.as_deref(), Some("bob"));
        assert!(steps[2].changes.contains(&"workers PEL +1 (bob)".to_owned()), "{:?}", steps[2].changes);
        assert!(p.undo());
        assert!(!p.steps(0, 10)[2].applied);
        assert_eq!(p.snapshot().streams[0].length, 0);
        assert!(p.redo());
        assert_eq!(p.snapshot().streams[0].groups[0].pending, 1);
        // A new step after an undo replaces the undone one and its changes.
        p.undo();
        p.run("XADD jobs 5-0 type sms");
        assert_eq!(p.step_count(), 3);
        assert!(p.steps(2, 3)[0].line.contains("5-0"));
    }

    #[test]
    fn long_replies_are_cut_for_display() {
        let mut p = playground(&[]);
        let lines: Vec<String> = (1..=300).map(|i| format!("XADD s {i}-0 f v")).collect();
        for line in &lines {
            p.run(line);
        }
        let out = p.run("XRANGE s - +");
        let shown: Vec<&str> = out[0].text.lines().collect();
        assert_eq!(shown.len(), SHOWN_LINES + 1);
        assert_eq!(shown[SHOWN_LINES], "… 400 more lines not shown");
        assert_eq!(p.steps(300, 301)[0].output, out);
    }

    #[test]
    fn a_window_of_steps_prints_clock_moves_as_the_whole_list_does() {
        let mut p =
            playground(&["XADD s 1-0 f v", ":clock +500", ":fill s 3", "XLEN s", ":clock +20", ":as bob", "PING"]);
        p.advance(70, false);
        let all: Vec<String> = p.steps(0, 100).into_iter().map(|s| s.line).collect();
        assert!(all.iter().filter(|l| l.starts_with(":clock +")).count() >= 3, "{all:?}");
        for (from, line) in all.iter().enumerate() {
            assert_eq!(&p.steps(from, from + 1)[0].line, line, "step {from}");
        }
    }

    #[test]
    fn a_running_clock_makes_one_step() {
        let mut p = playground(&["XADD s 1-0 f v"]);
        p.advance(100, true);
        p.advance(250, true);
        assert_eq!(p.step_count(), 2);
        assert_eq!(p.snapshot().now, streamlab_protocol::VIRTUAL_EPOCH_MS + 350);
        assert_eq!(p.steps(1, 2)[0].line, ":clock +350");
        assert_eq!(p.steps(1, 2)[0].changes, vec!["clock +350 ms"]);
        p.advance(50, false);
        assert_eq!(p.step_count(), 3);
    }

    #[test]
    fn specs_round_trip_through_restore() {
        let p =
            playground(&["XADD s 1-0 f \"a b\"", ":as bob", "XLEN s", ":clock +2s", ":as carol", "PING", ":as alice"]);
        let spec = p.spec();
        let again = Playground::restore(&SessionSpec::parse(&spec.to_fragment()).unwrap());
        assert_eq!(again.snapshot(), p.snapshot());
        assert_eq!(again.spec(), spec);
    }

    #[test]
    fn profile_lines_start_a_fresh_session_as_another_server() {
        let claim = "XREADGROUP GROUP g alice CLAIM 0 STREAMS s >";
        let mut p = playground(&["XADD s 1-0 f v", "XGROUP CREATE s g 0"]);
        assert_eq!(p.profile(), Profile::default(), "the console's default");
        assert_eq!(p.run(claim)[0].kind, OutputKind::Reply);
        let out = p.run(":profile redis-8.2");
        assert_eq!(out[0].text, "a fresh session answering as redis-8.2 (redis 8.2.3)");
        assert_eq!((p.step_count(), p.snapshot().streams.len(), p.profile()), (0, 0, Profile::Redis82));
        let names: Vec<&str> = p.snapshot().connections.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, FIRST_CONNECTIONS);
        p.run("XADD s 1-0 f v");
        p.run("XGROUP CREATE s g 0");
        assert_eq!(p.run(claim)[0].text, "(error) ERR syntax error");
        // The spec carries the profile, so a share link answers as the same server.
        let again = Playground::restore(&SessionSpec::parse(&p.spec().to_fragment()).unwrap());
        assert_eq!(again.profile(), Profile::Redis82);
        assert_eq!(again.snapshot(), p.snapshot());
        // A bad name is the console's error, and changes nothing.
        let out = p.run(":profile redis-6");
        assert!(out[0].text.starts_with("(error) unknown profile 'redis-6'"), "{:?}", out);
        assert_eq!(p.profile(), Profile::Redis82);
        p.reset();
        assert_eq!((p.profile(), p.step_count()), (Profile::Redis82, 0));
    }

    #[test]
    fn collapsed_blocks_open_a_page_at_a_time_and_close() {
        let spec = SessionSpec { fill: Some(("big".into(), 10_000)), ..SessionSpec::default() };
        let mut p = Playground::new(&spec);
        let blocks = |p: &Playground| -> Vec<(String, usize)> {
            p.snapshot().streams[0]
                .rail
                .iter()
                .filter_map(|item| match item {
                    RailItem::Collapsed(b) => Some((b.first_id.clone(), b.nodes)),
                    RailItem::Node(_) => None,
                })
                .collect()
        };
        let opened = |p: &Playground| -> Vec<String> {
            p.snapshot().streams[0]
                .rail
                .iter()
                .filter_map(|item| match item {
                    RailItem::Node(n) if n.opened => Some(n.master_id.clone()),
                    _ => None,
                })
                .collect()
        };
        let opened_entries = |p: &Playground| -> usize {
            p.snapshot().streams[0]
                .rail
                .iter()
                .map(|item| match item {
                    RailItem::Node(n) if n.opened => n.entries.len(),
                    _ => 0,
                })
                .sum()
        };
        let (first, nodes) = blocks(&p)[0].clone();
        p.open_block("big", &first);
        let shown = opened(&p);
        assert_eq!(shown[0], first);
        let entries = opened_entries(&p);
        assert!(entries > 0 && entries as u64 <= view::OPEN_PAGE, "{entries}");
        // The rest of the block stays collapsed, starting after the opened page.
        let rest = blocks(&p);
        assert_eq!(rest[0].1, nodes - shown.len());
        // Opened nodes stay open across commands and undo.
        p.run("XADD big * n x");
        p.undo();
        assert_eq!(opened(&p), shown);
        // Opening page after page stays under the cap.
        for _ in 0..20 {
            let (next, _) = blocks(&p)[0].clone();
            p.open_block("big", &next);
        }
        let drawn = opened_entries(&p);
        assert!(drawn as u64 <= view::OPEN_CAP, "{drawn}");
        // Closing a run closes its nodes only; runs close one by one.
        let before = opened(&p);
        p.close_block("big", &before[0]);
        let after = opened(&p);
        assert!(
            !after.contains(&before[0]) && after.len() < before.len() && after.iter().all(|id| before.contains(id))
        );
        for _ in 0..before.len() {
            if let Some(first) = opened(&p).first().cloned() {
                p.close_block("big", &first);
            }
        }
        assert!(opened(&p).is_empty());
        p.open_block("big", "no-such-block");
        assert!(opened(&p).is_empty());
    }

    #[test]
    fn fill_starts_with_a_big_stream_and_no_steps() {
        let spec = SessionSpec { fill: Some(("big".into(), 1_000)), ..SessionSpec::default() };
        let p = Playground::new(&spec);
        assert_eq!(p.snapshot().streams[0].length, 1_000);
        assert_eq!(p.step_count(), 0);
        let names: Vec<u64> = p.snapshot().connections.iter().map(|c| c.id).collect();
        assert_eq!(names, vec![1, 2]);
    }
}
