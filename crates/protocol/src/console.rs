//! The console every host shows: console lines in, redis-cli text out.
//!
//! A [`Console`] is a [`Timeline`] plus the names the user gives its connections. A line is a
//! command in redis-cli syntax (after an optional `name> ` prompt naming the connection that
//! runs it: see [`split_prefix`]), a `#` comment, a blank line, or a meta-command (`:as NAME`
//! switches to, and creates, a connection; `:clock +MS` moves the virtual clock; `:undo` and
//! `:redo` walk the history; `:branch` brings back steps set aside). Replies that reach another connection (a served blocked read, a
//! Pub/Sub message) come back addressed to that connection, which text output shows as
//! `[NAME] ` in front of each line.
//!
//! The command-line console, the transcript runner and the browser playground all use this
//! type, so they answer alike. An *interactive* console also does what redis-cli does on its
//! own side of the connection: `help CMD` answers locally, SUBSCRIBE prints its banner, a
//! line typed on a connection that waits (a blocked read) is not sent, QUIT closes the tab,
//! and recording a step where undone ones were says they were set aside. Command files are
//! run non-interactively, as `redis-cli` does when its input is a pipe: a line behind a
//! blocked read waits for it.
//!
//! Beside the console: [`syntax_hint`] (the hint redis-cli shows while typing),
//! [`completions`] (Tab), and [`help_text`].

mod assist;
mod meta;
mod names;
mod script;
mod wait;

pub use assist::{completions, help_reply, help_text, parse_clock, syntax_hint};
pub use meta::{fill_count, FILL_BUDGET, MAX_FILL};
pub use names::{split_prefix, valid_conn_name};

use crate::command::{self, CommandSpec};
use crate::format::{format_raw, format_reply, prints_raw, quote_bytes, SUBSCRIBE_BANNER};
use crate::profile::{Capabilities, Profile};
use crate::reply::Reply;
#[cfg(feature = "host")]
use crate::session::HostRequest;
use crate::session::{Clock, ConnId, Delivery, Session, VIRTUAL_EPOCH_MS};
use crate::timeline::{Keep, Step, Timeline};
use crate::tokenize::{ends_in_word, tokenize, words};

/// The connection a console starts on unless told otherwise.
pub const DEFAULT_CONNECTION: &str = "default";

/// The console's answer to a well-formed SHUTDOWN.
#[cfg(feature = "host")]
pub const SHUTDOWN_REFUSED: &str =
    "ERR SHUTDOWN stops a server process, and this console has none (streamlab-server obeys it)";

/// What a console prints where the server hangs up on a `POST` or `Host:` line.
#[cfg(feature = "server")]
const CROSS_PROTOCOL_NOTE: &str = "(connection closed: a POST or Host: line is what a browser tricked into cross-protocol scripting sends, and Redis hangs up on it)";

/// What kind of text an [`Output`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// A reply, printed as redis-cli prints it.
    Reply,
    /// An error reply (`(error) ...`), a line that could not be split, or a meta-command that
    /// failed: hosts show these in red.
    Error,
    /// Text the console prints itself: `help`, the SUBSCRIBE banner.
    Info,
}

impl OutputKind {
    /// How a reply is shown: errors apart from everything else.
    pub fn of(reply: &Reply) -> OutputKind {
        if matches!(reply, Reply::Error(_)) {
            OutputKind::Error
        } else {
            OutputKind::Reply
        }
    }

    /// Its name in a page's markup and JSON: `reply`, `error` or `info`.
    pub fn name(self) -> &'static str {
        match self {
            OutputKind::Reply => "reply",
            OutputKind::Error => "error",
            OutputKind::Info => "info",
        }
    }
}

/// One block of text a line produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// The connection it is for when that is not the one that ran the line (by name).
    pub to: Option<String>,
    /// The text, lines separated by `\n`, without a final newline.
    pub text: String,
    /// How to show it.
    pub kind: OutputKind,
}

impl Output {
    fn new(kind: OutputKind, text: impl Into<String>) -> Output {
        Output { to: None, text: text.into(), kind }
    }

    /// Its lines as a console prints them: `[NAME] ` before each when it reached another
    /// connection (named `to`).
    pub fn lines<'a>(to: Option<&'a str>, text: &'a str) -> impl Iterator<Item = String> + 'a {
        text.lines().map(move |line| match to {
            Some(to) => format!("[{to}] {line}"),
            None => line.to_owned(),
        })
    }
}

/// What one console line produced, as text lines.
pub type Lines = Vec<String>;

/// A session's timeline plus the names the user gives its connections.
#[derive(Debug, Clone)]
pub struct Console {
    timeline: Timeline,
    /// Connection names are console labels, not session state: undo does not forget them.
    names: names::Names,
    /// The connection the console started on (a script's lines start there).
    first: String,
    current: String,
    /// Set by [`Console::interactive`]: what only an interactive console does. Function
    /// pointers, not a flag, so that a console never made interactive (the grader) does not
    /// carry that code and its texts, which its wasm budget counts.
    interactive: Option<Interactive>,
    /// What [`Console::script`] wrote so far.
    script: script::Cache,
}

/// [`Interactive::before`]'s signature.
type BeforeCommand = fn(&Console, ConnId, &[Vec<u8>], &mut Vec<Output>) -> bool;

/// What an interactive console does beyond running lines, as redis-cli does at a terminal.
#[derive(Debug, Clone, Copy)]
struct Interactive {
    /// Answers a `help` line.
    help: fn(&str, &Capabilities) -> Option<String>,
    /// Before a command runs on a connection: what redis-cli prints first (the SUBSCRIBE
    /// banner), or false when it refuses the line (the connection waits for a reply).
    before: BeforeCommand,
    /// After it ran: says undone steps were set aside, and closes the tab QUIT closed.
    after: fn(&mut Console, ConnId, Option<usize>, bool, &mut Vec<Output>),
}

impl Default for Console {
    fn default() -> Self {
        Console::with_profile(Profile::default())
    }
}

impl Console {
    /// A console over a fresh virtual-clock session answering as `profile`.
    pub fn with_profile(profile: Profile) -> Console {
        Console::new(Session::with_profile(Clock::Virtual(VIRTUAL_EPOCH_MS), profile))
    }

    /// Appends `line` to a transcript: a comment or blank line as it is, anything else as
    /// `> ` + the line followed by what it prints. Returns whether the line was run.
    pub fn transcribe(&mut self, line: &str, out: &mut String) -> bool {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            out.push_str(line);
            out.push('\n');
            return false;
        }
        out.push_str("> ");
        out.push_str(line);
        out.push('\n');
        for printed in self.run_line(line) {
            out.push_str(&printed);
            out.push('\n');
        }
        true
    }

    /// A console over a session, on the [`DEFAULT_CONNECTION`].
    pub fn new(session: Session) -> Console {
        let mut names = names::Names::new(session.next_conn_id());
        names.add(DEFAULT_CONNECTION, &session);
        let first = DEFAULT_CONNECTION.to_owned();
        Console {
            timeline: Timeline::new(session),
            names,
            current: first.clone(),
            first,
            interactive: None,
            script: Default::default(),
        }
    }

    /// A console whose connections `names` (at least one) are open before its history starts,
    /// so undo never closes them; it starts on the first.
    pub fn with_connections(mut session: Session, names: &[&str]) -> Console {
        assert!(!names.is_empty(), "a console needs a connection");
        let mut named = names::Names::new(0);
        for name in names {
            named.bind(name, session.connect());
        }
        let first = names[0].to_owned();
        Console {
            timeline: Timeline::new(session),
            names: named,
            current: first.clone(),
            first,
            interactive: None,
            script: Default::default(),
        }
    }

    /// Makes the console answer `help` itself and print the SUBSCRIBE banner, as interactive
    /// redis-cli does.
    pub fn interactive(mut self) -> Console {
        self.interactive =
            Some(Interactive { help: help_reply, before: Console::before_command, after: Console::after_command });
        self
    }

    /// Keeps only as much undo history as `keep` says (a script runner or a grader replaying a
    /// long log needs little of it; see [`Keep`]).
    pub fn keeping(mut self, keep: Keep) -> Console {
        self.timeline.set_keep(keep);
        self
    }

    /// The session underneath, as of the current step.
    pub fn session(&self) -> &Session {
        self.timeline.session()
    }

    /// The history.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// The current connection's name.
    pub fn current(&self) -> &str {
        &self.current
    }

    /// The current connection's id (one its next command opens, if it is not open).
    pub fn current_conn(&self) -> ConnId {
        self.names.id(&self.current).expect("the current name is known")
    }

    /// Every named connection with its id, in id order: open ones, and those a command will
    /// open (new, closed, or undone past their opening); not those QUIT closed.
    pub fn connections(&self) -> Vec<(&str, ConnId)> {
        self.names.shown(self.session())
    }

    /// The name a connection is shown under.
    pub fn label(&self, conn: ConnId) -> String {
        self.names.label(conn)
    }

    fn deliveries(&self, deliveries: Vec<Delivery>, out: &mut Vec<Output>) {
        for delivery in deliveries {
            let kind = OutputKind::of(&delivery.reply);
            out.push(Output { to: Some(self.label(delivery.conn)), text: format_reply(&delivery.reply), kind });
        }
    }

    /// Runs one line (command, meta-command, comment or blank) and returns what it prints,
    /// without the echo of the line itself, as text lines (`[NAME] ` before the lines of
    /// other connections).
    pub fn run_line(&mut self, line: &str) -> Lines {
        let mut lines = Lines::new();
        for output in self.run(line) {
            lines.extend(Output::lines(output.to.as_deref(), &output.text));
        }
        lines
    }

    /// Runs one line and returns what it prints, block by block.
    pub fn run(&mut self, line: &str) -> Vec<Output> {
        let mut out = Vec::new();
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return out;
        }
        if let Some(meta) = trimmed.strip_prefix(':') {
            self.run_meta(meta, &mut out);
            return out;
        }
        let trimmed = match split_prefix(trimmed) {
            // `name> ` alone: what Redis would make of `name>`, an unknown command.
            Some((_, "")) | None => trimmed,
            Some((_, rest)) if rest.starts_with(':') => {
                out.push(Output::new(OutputKind::Error, "(error) a `name> ` prompt must be followed by a command"));
                return out;
            }
            Some((name, rest)) => {
                self.switch(name);
                rest
            }
        };
        if let Some(interactive) = self.interactive {
            if let Some(text) = (interactive.help)(trimmed, self.session().capabilities()) {
                out.push(Output::new(OutputKind::Info, text));
                return out;
            }
        }
        let args = match tokenize(trimmed.as_bytes()) {
            Ok(args) => args,
            Err(error) => {
                out.push(Output::new(OutputKind::Error, error.to_string()));
                return out;
            }
        };
        if args.is_empty() {
            return out;
        }
        let conn = self.names.conn_for(&self.current, self.timeline.session());
        if let Some(interactive) = self.interactive {
            if !(interactive.before)(self, conn, &args, &mut out) {
                return out;
            }
        }
        let raw = prints_raw(&args);
        let undone = self.undone();
        let (executed, _requests) = self.timeline.execute(conn, args);
        for reply in &executed.replies {
            let text = if raw { format_raw(reply) } else { format_reply(reply) };
            out.push(Output::new(OutputKind::of(reply), text));
        }
        self.deliveries(executed.deliveries, &mut out);
        // Only the host feature's commands ask anything of the host (the grader has none).
        #[cfg(feature = "host")]
        self.host_requests(conn, _requests, &mut out);
        if let Some(interactive) = self.interactive {
            (interactive.after)(self, conn, undone, executed.close, &mut out);
        }
        out
    }

    /// [`Interactive::before`].
    fn before_command(&self, conn: ConnId, args: &[Vec<u8>], out: &mut Vec<Output>) -> bool {
        let subscribing =
            ["subscribe", "psubscribe", "ssubscribe"].iter().any(|s| args[0].eq_ignore_ascii_case(s.as_bytes()));
        if subscribing {
            // redis-cli announces a subscription before printing its confirmations.
            out.push(Output::new(OutputKind::Info, SUBSCRIBE_BANNER));
        }
        let Some(waiting) = self.session().conn(conn).filter(|c| c.waiting()) else { return true };
        // redis-cli sends nothing while a command of its waits: the line is not run.
        let on = match waiting.blocked() {
            // A read with a deadline says how far the clock must move to end it.
            Some(block) => match block.deadline {
                Some(at) => {
                    format!("{} (it times out at :clock +{})", command_line(&block.args), at - self.session().now())
                }
                None => command_line(&block.args),
            },
            None => "CLIENT PAUSE to end".to_owned(),
        };
        let text = format!(
            "(refused) {} is waiting for {on}; nothing else runs on it until that is served. Serve it from another connection, move the clock, or switch with :as NAME",
            self.current
        );
        out.push(Output::new(OutputKind::Error, text));
        false
    }

    /// [`Interactive::after`].
    fn after_command(&mut self, conn: ConnId, undone: Option<usize>, closed: bool, out: &mut Vec<Output>) {
        self.set_aside_note(undone, out);
        if closed {
            self.closed_by_quit(conn, out);
        }
    }

    /// The position before the undone steps, if any are undone: recording a step sets the
    /// steps after it aside.
    fn undone(&self) -> Option<usize> {
        let position = self.timeline.position();
        (position < self.timeline.records().len()).then_some(position)
    }

    /// Says that the undone steps were set aside by the step just recorded.
    fn set_aside_note(&self, undone: Option<usize>, out: &mut Vec<Output>) {
        if let Some(at) = undone {
            let n = self.timeline.branches().len();
            // One message for one step or many: each formatted message costs the grader's wasm.
            let at = at + self.timeline.forgotten();
            let text = format!("(what was undone after step {at} is set aside, not lost: :branch {n} brings it back)");
            out.push(Output::new(OutputKind::Info, text));
        }
    }

    /// An interactive console after QUIT: as in redis-cli the connection is gone, so its tab
    /// goes and typing moves to the first tab left. A console left with no other tab keeps
    /// the name, which reconnects with its next command (a non-interactive one always does).
    fn closed_by_quit(&mut self, conn: ConnId, out: &mut Vec<Output>) {
        self.names.quit(conn);
        let gone = std::mem::take(&mut self.current);
        let next = self.connections().first().map(|&(name, _)| name.to_owned());
        let text = match next {
            Some(next) => {
                let text = format!("({gone}'s connection is closed; typing on {next} now)");
                self.current = next;
                text
            }
            None => {
                self.names.add(&gone, self.timeline.session());
                self.current = gone;
                "(connection closed; the next command opens a new one)".to_owned()
            }
        };
        out.push(Output::new(OutputKind::Info, text));
    }

    /// What a command run on `conn` asked of the console as a host: CLIENT KILL's closing is
    /// done (the name reconnects with its next command, see `names`).
    #[cfg(feature = "host")]
    fn host_requests(&mut self, conn: ConnId, requests: Vec<HostRequest>, out: &mut Vec<Output>) {
        for request in requests {
            match request {
                HostRequest::Close(_) => {}
                HostRequest::Shutdown { conn: asked, .. } => {
                    // A page has no server process: SHUTDOWN is understood (its options were
                    // checked) but refused, where streamlab-server would stop.
                    let to = (asked != conn).then(|| self.label(asked));
                    let reply = Reply::Error(SHUTDOWN_REFUSED.to_owned());
                    out.push(Output { to, text: format_reply(&reply), kind: OutputKind::Error });
                }
                // A console never stops: on the host's clock the time passes by itself.
                #[cfg(feature = "server")]
                HostRequest::Sleep(_) => {}
                #[cfg(feature = "server")]
                HostRequest::Attack(_) => out.push(Output::new(OutputKind::Info, CROSS_PROTOCOL_NOTE)),
            }
        }
    }

    /// Switches to the connection `name`, naming it if it is new (its first command opens it,
    /// in the same step).
    pub fn switch(&mut self, name: &str) {
        self.names.add(name, self.timeline.session());
        self.current = name.to_owned();
    }

    /// Moves the virtual clock forward by `ms` (one recorded step) and returns what that
    /// served: timed-out blocked reads.
    pub fn advance(&mut self, ms: i64) -> Vec<Output> {
        let deliveries = self.timeline.advance(ms);
        let mut out = Vec::new();
        self.deliveries(deliveries, &mut out);
        out
    }

    /// Takes the last step back; false at the start.
    pub fn undo(&mut self) -> bool {
        let done = self.timeline.undo();
        self.names.follow(self.timeline.session());
        done
    }

    /// Re-applies the next undone step; false when there is none.
    pub fn redo(&mut self) -> bool {
        let done = self.timeline.redo();
        self.names.follow(self.timeline.session());
        done
    }

    /// Moves to the state after `position` steps.
    pub fn seek(&mut self, position: usize) {
        self.timeline.seek(position);
        self.names.follow(self.timeline.session());
    }

    /// Takes the last step back and forgets it (see [`Timeline::amend_last`]).
    pub fn amend_last(&mut self) -> bool {
        let done = self.timeline.amend_last();
        self.names.follow(self.timeline.session());
        done
    }

    /// Brings back the steps of branch `index` (0-based, oldest first; see
    /// [`Timeline::switch_branch`]) and says what moved, or `None` when there is no such branch.
    pub fn switch_branch(&mut self, index: usize) -> Option<String> {
        let at = self.timeline.branches().get(index)?.at();
        self.timeline.switch_branch(index);
        self.names.follow(self.timeline.session());
        // Steps count from the session's start, forgotten ones included (as a branch's does).
        let back = self.timeline.position() + self.timeline.forgotten();
        Some(format!("(back to step {back}; what followed step {at} is set aside: :branch brings it back)"))
    }

    /// A step as a console line: `:as NAME` for a connection opened, `:clock +MS` for a clock
    /// move (relative to the time before it), the command itself otherwise.
    pub fn step_line(&self, step: &Step, time_before: i64) -> String {
        match step {
            Step::Execute { args, .. } => command_line(&args.to_vecs()),
            Step::AdvanceTo { now } => format!(":clock +{}", now - time_before),
            Step::Disconnect { conn } => format!("# {} disconnected", self.label(*conn)),
            Step::Fill { key, count, .. } => format!(":fill {} {count}", String::from_utf8_lossy(key)),
        }
    }
}

/// A command's arguments as a line the tokenizer splits back into the same arguments: plain
/// words bare, anything else quoted as redis-cli shows bulk strings.
pub fn command_line(args: &[Vec<u8>]) -> String {
    let word = |arg: &Vec<u8>| {
        let plain = !arg.is_empty() && arg.iter().all(|&b| b.is_ascii_graphic() && !matches!(b, b'"' | b'\'' | b'\\'));
        if plain {
            String::from_utf8_lossy(arg).into_owned()
        } else {
            quote_bytes(arg)
        }
    };
    let mut line = String::new();
    for (n, arg) in args.iter().enumerate() {
        if n > 0 {
            line.push(' ');
        }
        line.push_str(&word(arg));
    }
    line
}

#[cfg(test)]
mod tests;
