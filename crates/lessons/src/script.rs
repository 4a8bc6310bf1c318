//! Lesson lines and learners' logs as console steps, and how a variant rewrites text.

use streamlab_protocol::command;
use streamlab_protocol::console::{parse_clock, split_prefix, valid_conn_name, DEFAULT_CONNECTION};

use crate::model::{Line, Variant};
use crate::params;

/// One line of a log: what a connection typed (a command, or `:clock +MS`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LogLine {
    /// The connection's name (`default` is the first one).
    pub conn: String,
    /// The command or meta-command.
    pub text: String,
}

impl LogLine {
    /// A line typed on a connection.
    pub fn new(conn: &str, text: &str) -> LogLine {
        LogLine { conn: conn.to_owned(), text: text.to_owned() }
    }

    /// Whether the line is a command (meta-commands such as `:clock` are not counted).
    pub fn is_command(&self) -> bool {
        !self.text.trim_start().starts_with(':')
    }
}

/// What a lesson line says, once its connection prefix is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed<'a> {
    /// `:as NAME`: later lines run on that connection.
    SwitchTo(&'a str),
    /// A command or `:clock`, on the named connection if the line had a `name> ` prefix.
    Run {
        /// The prefix's connection.
        conn: Option<&'a str>,
        /// The rest of the line.
        text: &'a str,
    },
}

/// Reads one lesson line: `name> COMMAND`, `COMMAND`, `:as NAME` or `:clock +MS`.
pub fn parse_line(text: &str) -> Result<Parsed<'_>, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("an empty line".into());
    }
    if let Some(meta) = text.strip_prefix(':') {
        let mut words = meta.split_whitespace();
        return match (words.next(), words.next(), words.next()) {
            (Some("as"), Some(name), None) if valid_conn_name(name) => Ok(Parsed::SwitchTo(name)),
            (Some("clock"), Some(step), None) if parse_clock(step).is_some() => Ok(Parsed::Run { conn: None, text }),
            _ => Err(format!("`{text}` is not a meta-command lessons allow (`:as NAME`, `:clock +MS`)")),
        };
    }
    // The console's own reading of a `name> ` prompt, so a line means the same in both.
    if let Some((name, rest)) = split_prefix(text) {
        if rest.is_empty() || rest.starts_with(':') {
            return Err(format!("`{text}`: a `{name}> ` prefix must be followed by a command"));
        }
        return Ok(Parsed::Run { conn: Some(name), text: rest });
    }
    Ok(Parsed::Run { conn: None, text })
}

/// A lesson's lines as log lines, starting on the default connection, with the variant's
/// rewriting applied.
pub fn log_of(lines: &[Line], variant: &Variant) -> Vec<LogLine> {
    let mut out = Vec::new();
    for line in lines {
        out.push(step(line, variant));
    }
    out
}

/// One lesson line as a log line.
fn step(line: &Line, variant: &Variant) -> LogLine {
    let text = variant.apply(&line.text);
    match parse_line(&text) {
        Ok(Parsed::Run { conn, text }) => LogLine::new(conn.unwrap_or(DEFAULT_CONNECTION), text),
        // The parser rejects these in lesson files; run anyway, the console reports them.
        Ok(Parsed::SwitchTo(_)) | Err(_) => LogLine::new(DEFAULT_CONNECTION, &text),
    }
}

/// Like [`log_of`], each log line with the file line it came from. A lesson line runs on the
/// connection its `name> ` prefix names, or on the default connection: every line says where
/// it runs, so a reader never has to track a current connection.
pub fn steps(lines: &[Line], variant: &Variant) -> Vec<(usize, LogLine)> {
    let mut out = Vec::new();
    for line in lines {
        out.push((line.line, step(line, variant)));
    }
    out
}

/// Reads a log written as a command file, the way the console runs one: `:as NAME` switches
/// connection for the lines that follow, `name> ` in front runs one line on a connection (and
/// switches to it), `#` comments and blank lines are skipped.
pub fn parse_log(text: &str) -> Vec<LogLine> {
    let mut current = DEFAULT_CONNECTION.to_owned();
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_line(line) {
            Ok(Parsed::SwitchTo(name)) => current = name.to_owned(),
            Ok(Parsed::Run { conn, text }) => {
                if let Some(conn) = conn {
                    current = conn.to_owned();
                }
                out.push(LogLine::new(&current, text));
            }
            Err(_) => out.push(LogLine::new(&current, line)),
        }
    }
    out
}

/// The command's name and (for container commands) its second word, upper case.
pub fn command_words(text: &str) -> (String, String) {
    let mut words = text.split_whitespace().map(str::to_ascii_uppercase);
    (words.next().unwrap_or_default(), words.next().unwrap_or_default())
}

/// Whether a command line changes state (and so counts against par): the command table's
/// write flag, plus PUBLISH (it delivers) and CONFIG SET. Reads, transaction control and
/// mistakes (unknown commands) are free, so looking before acting never costs points.
pub fn changes_state(text: &str) -> bool {
    let (name, sub) = command_words(text);
    match name.as_str() {
        "PUBLISH" => true,
        "CONFIG" => sub == "SET",
        _ => command::lookup(name.as_bytes()).is_some_and(|spec| spec.write),
    }
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

impl Variant {
    /// Whether this is the lesson as written.
    pub fn is_identity(&self) -> bool {
        self.ids == 0 && self.clock == 0 && self.values.is_empty() && self.changed.is_empty()
    }

    /// Rewrites a line, a check's field or a reply for this variant: every `${expr}` becomes
    /// its value with this variant's parameters; then every word (a run of letters, digits,
    /// `-` and `_`) that is an explicit stream id `MS-SEQ` or `MS-*` with `MS > 0` gets `ids`
    /// added to `MS`, and every word equal to a key of `values` becomes its value. Everything
    /// else is kept.
    pub fn apply(&self, text: &str) -> String {
        self.rewrite(text, false)
    }

    /// Rewrites markdown (a prompt, a hint, a message, an option) for this variant: like
    /// [`Variant::apply`], except that names are replaced only inside code (backtick spans
    /// and fenced blocks). Outside code the words are English, and a name that is also an
    /// ordinary word ("three `events`" against "three events") must keep its sentence's
    /// grammar; the validator rejects a renamed word outside code, so a name the learner must
    /// type never goes stale there either.
    pub fn apply_prose(&self, text: &str) -> String {
        self.rewrite(text, true)
    }

    fn rewrite(&self, text: &str, prose: bool) -> String {
        let substituted;
        let text = if params::has_placeholder(text) {
            substituted = params::substitute(text, &self.params);
            substituted.as_str()
        } else {
            text
        };
        if self.ids == 0 && self.values.is_empty() {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len() + 8);
        if prose {
            for (code, part) in code_parts(text) {
                self.rewrite_words(part, code, &mut out);
            }
        } else {
            self.rewrite_words(text, true, &mut out);
        }
        out
    }

    fn rewrite_words(&self, text: &str, names: bool, out: &mut String) {
        let mut word = String::new();
        for c in text.chars() {
            // `MS-*` (an explicit time with an automatic sequence) is one word.
            let auto_seq = c == '*' && word.strip_suffix('-').is_some_and(|ms| ms.bytes().all(|b| b.is_ascii_digit()));
            if is_word_char(c) || auto_seq {
                word.push(c);
            } else {
                self.push_word(out, &word, names);
                word.clear();
                out.push(c);
            }
        }
        self.push_word(out, &word, names);
    }

    fn push_word(&self, out: &mut String, word: &str, names: bool) {
        if word.is_empty() {
            return;
        }
        if let Some(value) = self.values.get(word).filter(|_| names) {
            out.push_str(value);
            return;
        }
        if self.ids > 0 {
            if let Some((ms, seq)) = word.split_once('-') {
                let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
                if digits(ms) && (digits(seq) || seq == "*") {
                    if let Some(ms) = ms.parse::<u64>().ok().filter(|&ms| ms > 0) {
                        out.push_str(&format!("{}-{seq}", ms.saturating_add(self.ids)));
                        return;
                    }
                }
            }
        }
        out.push_str(word);
    }
}

/// The words of markdown that stand outside code, with the byte offset each starts at (words
/// as [`Variant::apply`] reads them). The end of a possessive or a contraction ("group's",
/// "don't") is part of its English word, not a word of its own.
pub fn prose_words(text: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    // The two characters before the current one, across parts: "`s`'s" is a possessive too.
    let (mut offset, mut before) = (0, [' ', ' ']);
    for (code, part) in code_parts(text) {
        if !code {
            let mut start = None;
            for (i, c) in part.char_indices().chain(std::iter::once((part.len(), ' '))) {
                match (is_word_char(c), start) {
                    (true, None) => {
                        let suffix = matches!(before[1], '\'' | '’') && (is_word_char(before[0]) || before[0] == '`');
                        start = (!suffix).then_some(i);
                    }
                    (false, Some(s)) => {
                        found.push((offset + s, &part[s..i]));
                        start = None;
                    }
                    _ => {}
                }
                if i < part.len() {
                    before = [before[1], c];
                }
            }
        }
        offset += part.len();
    }
    found
}

/// Markdown cut into (is code, text) parts that together are the text: a fenced block's or a
/// backtick span's content is code, its backticks belong to the prose around it.
pub(crate) fn code_parts(text: &str) -> Vec<(bool, &str)> {
    // Cut with `get` at backticks (ASCII, so always character boundaries): slicing would link
    // the grader's wasm to the panic path of a bad boundary, kilobytes of formatting.
    fn cut(s: &str, at: usize) -> (&str, &str) {
        (s.get(..at).unwrap_or_default(), s.get(at..).unwrap_or_default())
    }
    let mut parts = Vec::new();
    let mut rest = text;
    loop {
        let Some(tick) = rest.bytes().position(|b| b == b'`') else {
            parts.push((false, rest));
            return parts;
        };
        // A fence is three backticks; a span closes at a run as long as the one that opened it.
        let run = if backticks(rest, 3) == Some(tick) {
            3
        } else {
            rest.bytes().skip(tick).take_while(|&b| b == b'`').count()
        };
        let (open, after) = cut(rest, tick + run);
        let (code, after) = cut(after, backticks(after, run).unwrap_or(after.len()));
        let (close, after) = cut(after, run.min(after.len()));
        parts.extend([(false, open), (true, code), (false, close)]);
        rest = after;
    }
}

/// Where the first `run` (at least 1) backticks in a row start in `text`. By bytes, not
/// `str::find` with a string: that would be the wasm app's second copy of std's substring
/// searcher (the page's own is in another crate's code), about 1 KB.
pub(crate) fn backticks(text: &str, run: usize) -> Option<usize> {
    text.as_bytes().windows(run).position(|w| w.iter().all(|&b| b == b'`'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_name_their_connection() {
        assert_eq!(parse_line("alice> XACK s g 1-0"), Ok(Parsed::Run { conn: Some("alice"), text: "XACK s g 1-0" }));
        assert_eq!(
            parse_line("XREADGROUP GROUP g c STREAMS s >"),
            Ok(Parsed::Run { conn: None, text: "XREADGROUP GROUP g c STREAMS s >" })
        );
        assert_eq!(parse_line(":as bob"), Ok(Parsed::SwitchTo("bob")));
        assert_eq!(parse_line(":clock +1.5s"), Ok(Parsed::Run { conn: None, text: ":clock +1.5s" }));
        assert!(parse_line(":undo").is_err());
        assert!(parse_line(":clock soon").is_err());
        assert!(parse_line("bob> :clock +1s").is_err());
        // In a lesson, every line names its connection or runs on the default one.
        let lines: Vec<Line> = ["XADD s 1-0 f v", "bob> XLEN s", "XLEN s", ":clock +1s", "carol> PING"]
            .iter()
            .map(|t| Line { text: (*t).to_owned(), line: 1 })
            .collect();
        let log = log_of(&lines, &Variant::default());
        let conns: Vec<&str> = log.iter().map(|l| l.conn.as_str()).collect();
        assert_eq!(conns, ["default", "bob", "default", "default", "carol"]);
        assert_eq!(log.iter().filter(|l| l.is_command()).count(), 4);
        // A learner's log follows the console: `:as` and prefixes switch the current connection.
        let log = parse_log("# c\nXLEN s\n\n:as x\nPING\nbob> PING\nECHO hi\n");
        let expected = [("default", "XLEN s"), ("x", "PING"), ("bob", "PING"), ("bob", "ECHO hi")]
            .map(|(c, t)| LogLine::new(c, t));
        assert_eq!(log, expected);
    }

    #[test]
    fn variants_shift_ids_and_rename_words() {
        let mut values = streamlab_engine::SortedMap::new();
        values.insert("jobs".to_owned(), "tasks".to_owned());
        values.insert("alice".to_owned(), "ana".to_owned());
        let params = streamlab_engine::SortedMap::from_pairs(vec![("n".to_owned(), 3)]);
        let variant = Variant { ids: 1000, clock: 0, values, params, changed: Default::default(), line: 0 };
        assert_eq!(
            variant.apply("alice> XACK jobs workers 1-0 2-3 0-0 (5-0 7-* jobs:dead"),
            "ana> XACK tasks workers 1001-0 1002-3 0-0 (1005-0 1007-* tasks:dead"
        );
        assert_eq!(variant.apply("entry `3-0`, then \"4-0\"."), "entry `1003-0`, then \"1004-0\".");
        // Words that merely contain a key or look like ids in part stay.
        assert_eq!(variant.apply("jobs2 x1-0 1-0a 12 -1"), "jobs2 x1-0 1-0a 12 -1");
        assert_eq!(Variant::default().apply("1-0"), "1-0");
        // In markdown, names change only in code, so English around them keeps its grammar;
        // ids and parameters change everywhere.
        assert_eq!(
            variant.apply_prose("alice took two jobs: `XACK jobs g 1-0`, then 2-0 (${n}).\n```\njobs\n```\n"),
            "alice took two jobs: `XACK tasks g 1001-0`, then 1002-0 (3).\n```\ntasks\n```\n"
        );
        assert_eq!(variant.apply_prose("``jobs`` and `alice`'s"), "``tasks`` and `ana`'s");
        assert_eq!(variant.apply_prose("an open `jobs"), "an open `tasks", "an unclosed span is code to the end");
        let words: Vec<&str> =
            prose_words("alice `jobs` x-1 ```jobs``` bob's `s`'s 's").into_iter().map(|(_, w)| w).collect();
        assert_eq!(words, ["alice", "x-1", "bob", "s"], "a possessive's `s` is no word, one on its own is");
        // Parameters first, then ids and names: `${n}-0` is an id like any other.
        assert_eq!(variant.apply("jobs ${n * 2}-0 COUNT ${n}"), "tasks 1006-0 COUNT 3");
        assert!(changes_state("XADD s * f v") && changes_state("xgroup setid s g 0") && changes_state("PUBLISH c m"));
        assert!(!changes_state("XINFO GROUPS s") && !changes_state("XPENDING s g") && !changes_state("MULTI"));
        assert!(!changes_state("NOSUCH x") && changes_state("CONFIG SET stream-node-max-entries 2"));
    }
}
