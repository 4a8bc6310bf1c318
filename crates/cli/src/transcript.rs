//! Command files and transcripts: the text format `streamlab run` prints and `streamlab replay`
//! checks.
//!
//! A command file holds one item per line: a command in redis-cli syntax, a `#` comment, a
//! blank line, or a meta-command (`:as NAME` switches connection, `:clock +MS` moves the
//! virtual clock, `:undo` takes the last step back, `:redo` puts it again, `:profile NAME`
//! starts a fresh session answering as another server, `:fill KEY COUNT` appends generated
//! order events to a stream). Running it prints comments and blank
//! lines unchanged and every other line as `> ` + the line followed by its replies exactly as
//! `redis-cli --no-raw` prints them. Replies that reach another connection (a served blocked
//! read, a Pub/Sub message) follow, each line prefixed with `[NAME] `. A transcript is
//! therefore also a command file: its inputs are its `> ` lines, comments and blank lines.

use std::collections::BTreeMap;

use streamlab_protocol::{
    format_reply, tokenize, Clock, ConnId, Delivery, Profile, Session, Timeline, VIRTUAL_EPOCH_MS,
};

/// The connection every run starts on.
pub const DEFAULT_CONNECTION: &str = "default";

/// A session's timeline plus the names the command file gives its connections.
#[derive(Clone)]
pub struct Console {
    timeline: Timeline,
    /// Connection names are console labels, not session state: undo does not forget them.
    names: BTreeMap<String, ConnId>,
    current: String,
}

/// What one console line produced, as text lines.
pub type Lines = Vec<String>;

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

    /// A console over a session, on the default connection.
    pub fn new(session: Session) -> Console {
        let mut timeline = Timeline::new(session);
        let first = timeline.connect();
        let names = BTreeMap::from([(DEFAULT_CONNECTION.to_owned(), first)]);
        Console { timeline, names, current: DEFAULT_CONNECTION.to_owned() }
    }

    /// The session underneath, as of the current step.
    pub fn session(&self) -> &Session {
        self.timeline.session()
    }

    /// The current connection's name.
    pub fn current(&self) -> &str {
        &self.current
    }

    fn label(&self, conn: ConnId) -> String {
        self.names.iter().find(|(_, &id)| id == conn).map_or_else(|| format!("conn-{conn}"), |(n, _)| n.clone())
    }

    fn print_deliveries(&self, deliveries: Vec<Delivery>, out: &mut Lines) {
        for delivery in deliveries {
            let label = self.label(delivery.conn);
            for line in format_reply(&delivery.reply).lines() {
                out.push(format!("[{label}] {line}"));
            }
        }
    }

    /// Runs one line (command, meta-command, comment or blank) and returns what it prints,
    /// without the echo of the line itself.
    pub fn run_line(&mut self, line: &str) -> Lines {
        let mut out = Lines::new();
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return out;
        }
        if let Some(meta) = trimmed.strip_prefix(':') {
            self.run_meta(meta, &mut out);
            return out;
        }
        let args = match tokenize(trimmed.as_bytes()) {
            Ok(args) => args,
            Err(error) => {
                out.push(error.to_string());
                return out;
            }
        };
        if args.is_empty() {
            return out;
        }
        let conn = self.names[&self.current];
        let executed = self.timeline.execute(conn, args);
        for reply in &executed.replies {
            out.extend(format_reply(reply).lines().map(str::to_owned));
        }
        self.print_deliveries(executed.deliveries, &mut out);
        out
    }

    fn run_meta(&mut self, meta: &str, out: &mut Lines) {
        let mut words = meta.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("as"), Some(name), None) => {
                if !self.names.contains_key(name) {
                    let id = self.timeline.connect();
                    self.names.insert(name.to_owned(), id);
                }
                self.current = name.to_owned();
            }
            (Some("clock"), Some(amount), None) => match parse_clock(amount) {
                Some(ms) => {
                    let deliveries = self.timeline.advance(ms);
                    self.print_deliveries(deliveries, out);
                }
                None => out.push(format!("(error) bad clock step '{amount}': use +MS, for example :clock +1500")),
            },
            (Some("undo"), None, None) => {
                if !self.timeline.undo() {
                    out.push("(error) nothing to undo".to_owned());
                }
            }
            (Some("redo"), None, None) => {
                if !self.timeline.redo() {
                    out.push("(error) nothing to redo".to_owned());
                }
            }
            // A fresh session (keys, connections, clock and history all start over) answering
            // as another server.
            (Some("profile"), Some(name), None) => match name.parse::<Profile>() {
                Ok(profile) => *self = Console::with_profile(profile),
                Err(error) => out.push(format!("(error) {error}")),
            },
            (Some("profile"), None, None) => out.push(self.session().profile().to_string()),
            (Some("fill"), Some(key), Some(count)) => match (count.parse::<u64>(), words.next()) {
                (Ok(count), None) => {
                    let output = self.timeline.fill(key.as_bytes(), count);
                    for reply in &output.replies {
                        out.extend(format_reply(reply).lines().map(str::to_owned));
                    }
                    self.print_deliveries(output.deliveries, out);
                }
                _ => out.push(format!("(error) bad :fill '{meta}': use :fill KEY COUNT")),
            },
            _ => out.push(format!(
                "(error) unknown meta-command ':{meta}': try :as NAME, :clock +MS, :undo, :redo, :profile NAME or :fill KEY COUNT"
            )),
        }
    }
}

/// `+1500`, `1500`, `+1.5s`, `+2m`: milliseconds to move the clock by.
fn parse_clock(text: &str) -> Option<i64> {
    let text = text.strip_prefix('+').unwrap_or(text);
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(at) => text.split_at(at),
        None => (text, "ms"),
    };
    let value: f64 = number.parse().ok()?;
    let factor = match unit {
        "ms" => 1.0,
        "s" => 1000.0,
        "m" => 60_000.0,
        "h" => 3_600_000.0,
        _ => return None,
    };
    let ms = value * factor;
    (ms.is_finite() && (0.0..1e15).contains(&ms)).then_some(ms.round() as i64)
}

/// Runs a whole command file (or a transcript's inputs) and returns the transcript text,
/// starting with the default profile (a `:profile` line switches).
pub fn run_script(text: &str) -> String {
    run_script_as(text, Profile::default())
}

/// [`run_script`] starting with `profile`.
pub fn run_script_as(text: &str, profile: Profile) -> String {
    let mut console = Console::with_profile(profile);
    let mut out = String::new();
    for line in inputs(text) {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        out.push_str("> ");
        out.push_str(line);
        out.push('\n');
        for printed in console.run_line(line) {
            out.push_str(&printed);
            out.push('\n');
        }
        if let Err(broken) = console.session().check_invariants() {
            if cfg!(debug_assertions) || std::env::var_os("STREAMLAB_CHECK_INVARIANTS").is_some() {
                out.push_str(&format!("!! invariant broken after this line: {broken}\n"));
            }
        }
    }
    out
}

/// The input lines of a command file or transcript: in a transcript (a file with `> ` lines)
/// the `> ` lines, comments and blank lines; in a plain command file every line.
pub fn inputs(text: &str) -> Vec<&str> {
    let is_transcript = text.lines().any(|l| l.starts_with("> "));
    text.lines()
        .filter_map(|line| {
            if !is_transcript {
                return Some(line);
            }
            if let Some(input) = line.strip_prefix("> ") {
                Some(input)
            } else if line.trim().is_empty() || line.starts_with('#') {
                Some(line)
            } else {
                None
            }
        })
        .collect()
}

/// A unified-style diff of two texts, line by line (empty when they are equal).
pub fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    // Longest common subsequence table, from the end.
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if j < b.len() && (i == a.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(('+', b[j]));
            j += 1;
        } else {
            ops.push(('-', a[i]));
            i += 1;
        }
    }
    if ops.iter().all(|(op, _)| *op == ' ') {
        return String::new();
    }
    // Show changes with three lines of context.
    let changed: Vec<usize> = ops.iter().enumerate().filter(|(_, (op, _))| *op != ' ').map(|(k, _)| k).collect();
    let mut out = String::from("--- expected\n+++ actual\n");
    let mut last_printed: Option<usize> = None;
    for (k, (op, line)) in ops.iter().enumerate() {
        let near = changed.iter().any(|&c| c.abs_diff(k) <= 3);
        if !near {
            continue;
        }
        if last_printed.is_some_and(|p| p + 1 != k) || (last_printed.is_none() && k > 0) {
            out.push_str("@@\n");
        }
        out.push(*op);
        out.push_str(line);
        out.push('\n');
        last_printed = Some(k);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_commands_and_meta_commands() {
        let out = run_script("# a comment\nXADD s 1-0 f v\n:as bob\nXLEN s\n\n");
        assert_eq!(out, "# a comment\n> XADD s 1-0 f v\n\"1-0\"\n> :as bob\n> XLEN s\n(integer) 1\n\n");
    }

    #[test]
    fn transcripts_are_their_own_input() {
        let first = run_script("XADD s 1-0 f v\nXRANGE s - +\n");
        assert_eq!(run_script(&first), first);
    }

    #[test]
    fn undo_restores_the_previous_state() {
        let out = run_script("XADD s 1-0 f v\n:undo\nXLEN s\n");
        assert!(out.ends_with("> XLEN s\n(integer) 0\n"), "{out}");
        let out = run_script("XADD s 1-0 f v\nXADD s 2-0 f v\n:undo\n:undo\n:redo\nXLEN s\n:redo\n");
        assert!(out.contains("> XLEN s\n(integer) 1\n"), "{out}");
        // XLEN is a step too, so nothing is left to redo after it.
        assert!(out.ends_with("> :redo\n(error) nothing to redo\n"), "{out}");
    }

    #[test]
    fn profile_starts_a_fresh_session() {
        let out =
            run_script("XADD s 1-0 f v\n:profile redis-7.4\nXLEN s\nXDELEX s IDS 1 1-0\n:profile\n:profile nope\n");
        assert!(out.contains("> XLEN s\n(integer) 0\n"), "{out}");
        assert!(out.contains("(error) ERR unknown command 'XDELEX'"), "{out}");
        assert!(out.contains("> :profile\nredis-7.4\n"), "{out}");
        assert!(out.contains("(error) unknown profile 'nope'"), "{out}");
    }

    #[test]
    fn fill_appends_generated_orders_and_undoes() {
        let out =
            run_script(":fill orders 3\nXLEN orders\nXRANGE orders - + COUNT 1\n:undo\n:undo\n:undo\nXLEN orders\n");
        assert!(out.contains("filled 3 entries: 1700000000000-0 .. 1700000000000-2"), "{out}");
        assert!(out.contains("\"order-created\""), "{out}");
        assert!(out.ends_with("> XLEN orders\n(integer) 0\n"), "{out}");
    }

    #[test]
    fn clock_steps() {
        assert_eq!(parse_clock("+1500"), Some(1500));
        assert_eq!(parse_clock("+1.1s"), Some(1100));
        assert_eq!(parse_clock("2m"), Some(120_000));
        assert_eq!(parse_clock("-5"), None);
        assert_eq!(parse_clock("soon"), None);
    }

    #[test]
    fn diff_shows_changed_lines() {
        assert_eq!(diff("a\nb\n", "a\nb\n"), "");
        let d = diff("a\nb\nc\n", "a\nx\nc\n");
        assert!(d.contains("-b\n") && d.contains("+x\n"), "{d}");
    }
}
