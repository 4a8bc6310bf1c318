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

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

pub use streamlab_protocol::console::{Console, Lines, DEFAULT_CONNECTION};
use streamlab_protocol::{Keep, Profile};

/// The undo history a script keeps, in steps: enough for any `:undo` a script makes, while a
/// million-line file holds only the session and this window (see [`Keep::Last`]).
pub const SCRIPT_HISTORY: usize = 1_000;

/// A command file being run line by line: a console that keeps [`SCRIPT_HISTORY`] steps, and
/// whether to check the engine's invariants after each line.
#[derive(Debug)]
pub struct Script {
    console: Console,
    check: bool,
}

impl Script {
    /// A script starting with `profile` (a `:profile` line switches).
    pub fn new(profile: Profile) -> Script {
        // Checking walks the whole session, so a release build checks only when asked: checking
        // after every line would make a long script quadratic.
        let check = cfg!(debug_assertions) || std::env::var_os("STREAMLAB_CHECK_INVARIANTS").is_some();
        Script { console: Console::with_profile(profile).keeping(Keep::Last(SCRIPT_HISTORY)), check }
    }

    /// Runs one input line, appending what the transcript shows for it to `out`.
    pub fn line(&mut self, line: &str, out: &mut String) {
        if !self.console.transcribe(line, out) || !self.check {
            return;
        }
        if let Err(broken) = self.console.session().check_invariants() {
            out.push_str(&format!("!! invariant broken after this line: {broken}\n"));
        }
    }
}

/// Runs a whole command file (or a transcript's inputs) and returns the transcript text,
/// starting with the default profile (a `:profile` line switches).
pub fn run_script(text: &str) -> String {
    run_script_as(text, Profile::default())
}

/// [`run_script`] starting with `profile`.
pub fn run_script_as(text: &str, profile: Profile) -> String {
    let mut script = Script::new(profile);
    let mut out = String::new();
    for line in inputs(text) {
        script.line(line, &mut out);
    }
    out
}

/// A line of a command file or transcript as input: in a transcript the `> ` lines, comments
/// and blank lines (its replies are not input); in a plain command file every line.
fn input(line: &str, transcript: bool) -> Option<&str> {
    if !transcript {
        return Some(line);
    }
    if let Some(input) = line.strip_prefix("> ") {
        Some(input)
    } else if line.trim().is_empty() || line.starts_with('#') {
        Some(line)
    } else {
        None
    }
}

/// The input lines of a command file or transcript (see [`input`]).
pub fn inputs(text: &str) -> Vec<&str> {
    let transcript = text.lines().any(|l| l.starts_with("> "));
    text.lines().filter_map(|line| input(line, transcript)).collect()
}

/// The lines of a file, one at a time into one buffer, each with its line ending as it is in
/// the file (none on a last line that lacks one). `each` returns false to stop early.
fn each_line(path: &Path, mut each: impl FnMut(&str) -> io::Result<bool>) -> io::Result<()> {
    let mut reader = BufReader::new(File::open(path)?);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 || !each(&line)? {
            return Ok(());
        }
    }
}

/// A line without its ending, as `str::lines` gives it.
fn text_of(line: &str) -> &str {
    let text = line.strip_suffix('\n').unwrap_or(line);
    text.strip_suffix('\r').unwrap_or(text)
}

/// Whether a file is a transcript, reading it until its first `> ` line.
fn file_is_transcript(path: &Path) -> io::Result<bool> {
    let mut found = false;
    each_line(path, |line| {
        found = line.starts_with("> ");
        Ok(!found)
    })?;
    Ok(found)
}

/// `streamlab run`: runs a command file (or a transcript's inputs), writing the transcript to
/// `out` line by line as it goes, so a file of any length runs in the memory of its session.
pub fn run_file(path: &Path, profile: Profile, out: &mut impl Write) -> io::Result<()> {
    let transcript = file_is_transcript(path)?;
    let mut script = Script::new(profile);
    let mut printed = String::new();
    each_line(path, |line| {
        if let Some(line) = input(text_of(line), transcript) {
            printed.clear();
            script.line(line, &mut printed);
            out.write_all(printed.as_bytes())?;
        }
        Ok(true)
    })?;
    out.flush()
}

/// What replaying a transcript found.
#[derive(Debug, PartialEq, Eq)]
pub enum Replayed {
    /// It replays byte for byte.
    Same,
    /// It differs, and was rewritten with what it prints now.
    Blessed,
    /// It differs: the diff, expected against actual.
    Differs(String),
}

/// `streamlab replay`: runs a transcript's inputs and compares what they print with the
/// transcript as it is read, holding one line and the session. A difference is shown as a
/// diff of the two whole texts (read again), or with `bless` the file is rewritten.
pub fn replay_file(path: &Path, profile: Profile, bless: bool) -> io::Result<Replayed> {
    let transcript = file_is_transcript(path)?;
    let mut script = Script::new(profile);
    // What the last input printed, matched against the file's lines up to `at`; `same` turns
    // false at the first byte that differs (only then are whole texts needed, for the diff).
    let mut printed = String::new();
    let mut at = 0;
    let mut same = true;
    let mut blessed = if bless { Some(io::BufWriter::new(File::create(blessing(path))?)) } else { None };
    each_line(path, |line| {
        if let Some(input) = input(text_of(line), transcript) {
            // An input line: what the previous input printed must all have been in the file.
            same &= at == printed.len();
            printed.clear();
            at = 0;
            script.line(input, &mut printed);
            if let Some(file) = &mut blessed {
                file.write_all(printed.as_bytes())?;
            }
        }
        if printed.get(at..).is_some_and(|rest| rest.starts_with(line)) {
            at += line.len();
        } else {
            same = false;
        }
        Ok(same || blessed.is_some())
    })?;
    same &= at == printed.len();
    if let Some(mut file) = blessed {
        file.flush()?;
        drop(file);
        if same {
            std::fs::remove_file(blessing(path))?;
            return Ok(Replayed::Same);
        }
        std::fs::rename(blessing(path), path)?;
        return Ok(Replayed::Blessed);
    }
    if same {
        return Ok(Replayed::Same);
    }
    let expected = std::fs::read_to_string(path)?;
    Ok(Replayed::Differs(diff(&expected, &run_script_as(&expected, profile))))
}

/// Where `--bless` writes a transcript's new text before it replaces the old.
fn blessing(path: &Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".blessing");
    name.into()
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

    /// A file in this test process's own temporary directory, written with `text`.
    fn file(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("streamlab-transcript-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn files_run_and_replay_line_by_line_as_whole_texts_do() {
        let commands = "XADD s 1-0 f v\r\n# note\n\nXRANGE s - +\n:undo\nXLEN s";
        let path = file("commands.txt", commands);
        let mut out = Vec::new();
        run_file(&path, Profile::default(), &mut out).unwrap();
        let transcript = run_script(commands);
        assert_eq!(String::from_utf8(out).unwrap(), transcript);
        let path = file("same.txt", &transcript);
        assert_eq!(replay_file(&path, Profile::default(), false).unwrap(), Replayed::Same);
        // A changed reply, a reply missing at the end, a missing final newline: each differs.
        let changed = transcript.replace("(integer) 1", "(integer) 2");
        for wrong in [changed.as_str(), transcript.strip_suffix("(integer) 1\n").unwrap(), transcript.trim_end()] {
            let path = file("wrong.txt", wrong);
            match replay_file(&path, Profile::default(), false).unwrap() {
                Replayed::Differs(diff) => assert_eq!(diff, super::diff(wrong, &transcript)),
                other => panic!("{other:?} for {wrong:?}"),
            }
        }
        let path = file("bless.txt", &changed);
        assert_eq!(replay_file(&path, Profile::default(), true).unwrap(), Replayed::Blessed);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), transcript);
        assert_eq!(replay_file(&path, Profile::default(), true).unwrap(), Replayed::Same);
        assert!(!blessing(&path).exists());
    }

    #[test]
    fn a_script_keeps_a_bounded_history_and_says_so() {
        let mut text: String = (0..3 * SCRIPT_HISTORY).map(|i| format!("XADD s {}-0 f v\n", i + 1)).collect();
        text.push_str(&":undo\n".repeat(2 * SCRIPT_HISTORY));
        text.push_str("XLEN s\n");
        let out = run_script(&text);
        assert!(
            out.contains("(error) nothing to undo: this session keeps only its last 1000 steps"),
            "undo past the window"
        );
        let kept: usize = out.rsplit("> XLEN s\n(integer) ").next().unwrap().trim().parse().unwrap();
        assert!((SCRIPT_HISTORY..3 * SCRIPT_HISTORY).contains(&(3 * SCRIPT_HISTORY - kept)), "{kept} left");
    }

    #[test]
    fn diff_shows_changed_lines() {
        assert_eq!(diff("a\nb\n", "a\nb\n"), "");
        let d = diff("a\nb\nc\n", "a\nx\nc\n");
        assert!(d.contains("-b\n") && d.contains("+x\n"), "{d}");
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
}
