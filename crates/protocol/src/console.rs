//! `Console`: a session's timeline driven by console lines, the way the `streamlab` console,
//! command files, transcripts and lessons all drive it.
//!
//! A line is a command in redis-cli syntax, a `#` comment, a blank line, or a meta-command:
//! `:as NAME` switches to (and opens) a named connection, `:clock +MS` moves the virtual clock
//! (`+1500`, `+1.5s`, `+2m`), `:undo` takes the last step back and `:redo` puts it again.
//! Replies are printed exactly as `redis-cli --no-raw` prints them; replies that reach another
//! connection (a served blocked read, a Pub/Sub message) are printed with `[NAME] ` in front.

use std::collections::BTreeMap;

use crate::{format_reply, tokenize, Clock, ConnId, Delivery, Profile, Session, Timeline, VIRTUAL_EPOCH_MS};

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

    /// The timeline underneath (every step, for a history view).
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// The named connections and their ids.
    pub fn connections(&self) -> &BTreeMap<String, ConnId> {
        &self.names
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
pub fn parse_clock(text: &str) -> Option<i64> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_steps() {
        assert_eq!(parse_clock("+1500"), Some(1500));
        assert_eq!(parse_clock("+1.1s"), Some(1100));
        assert_eq!(parse_clock("2m"), Some(120_000));
        assert_eq!(parse_clock("-5"), None);
        assert_eq!(parse_clock("soon"), None);
    }
}
