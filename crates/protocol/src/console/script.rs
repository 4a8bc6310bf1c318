//! [`Console::script`]: the command file of the applied history, kept as it grows.
//!
//! A host that saves the session after every command (the page) asks for the whole script
//! each time; writing it afresh would cost the whole history per command, so a long session
//! would cost the square of its length. The text written so far is kept with, for each step,
//! the record it came from: the steps still applied with the same records keep their text,
//! and only the rest is written. A step's line depends only on the steps before it (the
//! connection the script is on, the clock before it), so a kept prefix stays right.

use std::cell::RefCell;

use super::Console;
use crate::session::ConnId;
use crate::timeline::Step;

/// The script written so far.
#[derive(Debug, Clone, Default)]
pub(super) struct Written {
    text: String,
    steps: Vec<Line>,
}

/// One step's line in [`Written::text`], and where the script stands after it.
#[derive(Debug, Clone, Copy)]
struct Line {
    /// The record it was written from.
    record: u64,
    /// Where its text ends.
    end: usize,
    /// The connection the script is on (`None`: still the first).
    on: Option<ConnId>,
    /// The clock after it.
    time: i64,
}

/// Interior mutability, since asking for the script changes nothing a user can see; one
/// console is used from one thread at a time (the server's runs on its loop).
pub(super) type Cache = RefCell<Written>;

impl Console {
    /// A command file that rebuilds the applied history from a console made the same way:
    /// every applied step as a line, with `:as NAME` wherever the connection changes, and a
    /// final `:as` back to the current connection. Clock moves are relative to the clock the
    /// history began at.
    pub fn script(&self) -> String {
        let records = &self.timeline.records()[..self.timeline.position()];
        let mut written = self.script.borrow_mut();
        let kept = written.steps.iter().zip(records).take_while(|(line, record)| line.record == record.id).count();
        written.steps.truncate(kept);
        let end = written.steps.last().map_or(0, |line| line.end);
        written.text.truncate(end);
        // By name, not id: a connection opens with its first command, and a name that
        // reconnects keeps its name under a new id.
        let (mut on, mut time) = match written.steps.last() {
            Some(line) => (line.on, line.time),
            None => (None, self.timeline.start_time()),
        };
        let mut on_name = on.map_or_else(|| self.first.clone(), |conn| self.label(conn));
        for record in &records[kept..] {
            let line = self.step_line(&record.step, time);
            match record.step {
                Step::Execute { conn, .. } if self.label(conn) != on_name => {
                    on = Some(conn);
                    on_name = self.label(conn);
                    written.text.push_str(":as ");
                    written.text.push_str(&on_name);
                    written.text.push('\n');
                }
                Step::AdvanceTo { now } => time = now,
                _ => {}
            }
            written.text.push_str(&line);
            written.text.push('\n');
            let end = written.text.len();
            written.steps.push(Line { record: record.id, end, on, time });
        }
        let mut text = written.text.clone();
        if on_name != self.current {
            text.push_str(":as ");
            text.push_str(&self.current);
            text.push('\n');
        }
        text
    }
}

impl Console {
    /// The applied steps from timeline position `start` on, as a log: one line each, a command
    /// as `name> COMMAND` on the connection that ran it, a clock move as `:clock +MS`. What a
    /// learner did since a task started, in the form the lesson checker replays (a closed
    /// connection is a `#` comment: the QUIT or CLIENT KILL before it closes it again). No line
    /// holds a line break: arguments with one are quoted.
    pub fn log_since(&self, start: usize) -> String {
        let records = self.timeline.records().iter().take(self.timeline.position());
        let mut time = self.timeline.start_time();
        let mut log = String::new();
        // One pass (no slicing: each range check is a panic path in the wasm); the clock
        // moves before `start` set the time the first line's move counts from.
        for (n, record) in records.enumerate() {
            if n >= start {
                if !log.is_empty() {
                    log.push('\n');
                }
                if let Step::Execute { conn, .. } = record.step {
                    log.push_str(&self.label(conn));
                    log.push_str("> ");
                }
                log.push_str(&self.step_line(&record.step, time));
            }
            if let Step::AdvanceTo { now } = record.step {
                time = now;
            }
        }
        log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The script written from nothing, as if never asked before.
    fn afresh(console: &Console) -> String {
        let copy = console.clone();
        *copy.script.borrow_mut() = Written::default();
        copy.script()
    }

    #[test]
    fn the_kept_script_is_the_one_written_afresh_through_undo_redo_and_branches() {
        let mut console = Console::default();
        let check = |console: &Console, what: &str| assert_eq!(console.script(), afresh(console), "after {what}");
        let lines = ["XADD s 1-0 a 1", "bob> XADD s 2-0 b 2", ":clock +1500", "XLEN s", ":as bob", "XADD s * c 3"];
        // A connection that quits and comes back under its name, and another clock move.
        let lines = lines.iter().chain(&["bob> QUIT", "bob> XLEN s", ":clock +7", "alice> XLEN s"]);
        for line in lines {
            console.run(line);
            check(&console, line);
        }
        assert!(console.undo() && console.undo());
        check(&console, "two undos");
        assert!(console.redo());
        check(&console, "a redo");
        // A new step sets the undone one aside; putting it back moves the other aside.
        console.run("alice> XDEL s 1-0");
        check(&console, "a step after an undo");
        assert!(console.switch_branch(0).is_some());
        check(&console, "a branch put back");
        while console.undo() {}
        check(&console, "undoing everything");
        console.run("XADD t * d 4");
        check(&console, "a new first step");
        let script = console.script();
        let commands: Vec<&str> = script.lines().filter(|line| !line.starts_with(':')).collect();
        assert_eq!(commands, ["XADD t * d 4"], "{script}");
    }

    #[test]
    fn a_bounded_history_writes_its_window_afresh_as_it_forgets() {
        let mut console = Console::default().keeping(crate::timeline::Keep::Last(300));
        for n in 0..2_000 {
            console.run(if n % 7 == 0 { ":clock +5" } else { "XADD s * n 1" });
            if n % 250 == 0 {
                assert_eq!(console.script(), afresh(&console), "after {n} lines");
            }
        }
        assert!(console.timeline().forgotten() > 0);
        assert_eq!(console.script(), afresh(&console));
    }

    #[test]
    fn the_log_since_a_step_names_each_line_s_connection_and_clock_moves() {
        let mut console = Console::default();
        for line in ["XADD s 1-0 a 1", ":clock +1500", "bob> XADD s 2-0 b \"two words\"", ":clock +7", "XLEN s"] {
            console.run(line);
        }
        assert_eq!(console.log_since(1), ":clock +1500\nbob> XADD s 2-0 b \"two words\"\n:clock +7\nbob> XLEN s");
        assert_eq!(console.log_since(3), ":clock +7\nbob> XLEN s", "the clock before the range counts");
        assert!(console.undo());
        assert_eq!(console.log_since(3), ":clock +7", "only applied steps");
        assert!(console.log_since(99).is_empty());
        console.run("XADD s 3-0 \"line\nbreak\" v");
        assert_eq!(console.log_since(4), "bob> XADD s 3-0 \"line\\nbreak\" v", "one line a step");
    }
}
