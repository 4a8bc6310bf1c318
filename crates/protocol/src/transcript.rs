//! Transcripts, the behaviour spec: the text format `streamlab run` prints and `streamlab
//! replay` checks, and what `cargo test -p streamlab-protocol` replays from
//! `tests/transcripts/`.
//!
//! A command file holds one item per line: a command in redis-cli syntax, a `#` comment, a
//! blank line, or a meta-command (`:as NAME` switches connection, `:clock +MS` moves the
//! virtual clock, `:undo` takes the last step back, `:redo` puts it again, `:profile NAME`
//! starts a fresh session answering as another server, `:fill KEY COUNT` appends generated
//! order events to a stream). Running it prints comments and blank lines unchanged and every
//! other line as `> ` + the line followed by its replies exactly as `redis-cli --no-raw`
//! prints them. Replies that reach another connection (a served blocked read, a Pub/Sub
//! message) follow, each line prefixed with `[NAME] `. A line that would wait behind its
//! connection's blocked read first lets the virtual clock move to the read's deadline, saying
//! so in a `(...)` line (see `console/wait.rs`). A transcript is therefore also a command
//! file: its inputs are its `> ` lines, comments and blank lines.

use crate::console::Console;
use crate::profile::Profile;
use crate::timeline::Keep;

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
        self.console.wait_for_line(line, out);
        if !self.console.transcribe(line, out) || !self.check {
            return;
        }
        if let Err(broken) = self.console.session().check_invariants() {
            out.push_str(&format!("!! invariant broken after this line: {broken}\n"));
        }
    }

    /// Ends the script: waits for its last connection's read, as redis-cli waits for its last
    /// reply, and reports what is left waiting (see `Console::finish`). False when something
    /// was stuck: lines that never ran, or a read nothing could end.
    pub fn finish(&mut self, out: &mut String) -> bool {
        self.console.finish(out)
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
    script.finish(&mut out);
    out
}

/// A line of a command file or transcript as input: in a transcript the `> ` lines, comments
/// and blank lines (its replies are not input); in a plain command file every line.
pub fn input(line: &str, transcript: bool) -> Option<&str> {
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

    /// `redis-cli < file` prints `(nil)` after 10 ms and goes on; so does a script.
    #[test]
    fn a_line_behind_a_read_with_a_timeout_waits_for_its_deadline() {
        let out = run_script_as("XADD s 1-0 f v\nXREAD BLOCK 10 STREAMS s $\nXLEN s\nPING\n", Profile::Redis82);
        let expected = "> XADD s 1-0 f v\n\"1-0\"\n> XREAD BLOCK 10 STREAMS s $\n\
            (default's XREAD BLOCK 10 waits: the virtual clock moves 10 ms, to the next deadline)\n(nil)\n\
            > XLEN s\n(integer) 1\n> PING\nPONG\n";
        assert_eq!(out, expected);
        // The script ends waiting for its last reply, as redis-cli does.
        let out = run_script("XREAD BLOCK 25 STREAMS s $\n");
        assert!(out.ends_with("the virtual clock moves 25 ms, to the next deadline)\n(nil)\n"), "{out}");
    }

    #[test]
    fn a_read_nothing_serves_ends_the_script_naming_what_did_not_run() {
        let mut script = Script::new(Profile::default());
        let mut out = String::new();
        for line in ["XREAD BLOCK 0 STREAMS s $", "XLEN s", "PING"] {
            script.line(line, &mut out);
        }
        assert!(!script.finish(&mut out));
        assert!(
            out.ends_with(
                "!! the script ended with default still waiting for XREAD BLOCK 0 STREAMS s 0-0, and nothing in it \
                 can end that wait; these lines of default did not run: XLEN s | PING\n"
            ),
            "{out}"
        );
        // Served by another connection, the lines behind it run and nothing is stuck.
        let mut script = Script::new(Profile::default());
        let mut out = String::new();
        for line in ["XREAD BLOCK 0 STREAMS s $", "XLEN s", "writer> XADD s 1-0 f v"] {
            script.line(line, &mut out);
        }
        assert!(script.finish(&mut out), "{out}");
        assert!(out.ends_with("[default] (integer) 1\n"), "{out}");
    }

    #[test]
    fn a_command_held_by_client_pause_does_not_move_the_clock() {
        let out = run_script("CLIENT PAUSE 1000 WRITE\nw> XADD s 1-0 f v\nw> XLEN s\n:clock +1000\n");
        assert!(!out.contains("waits:"), "{out}");
        assert!(out.ends_with("> :clock +1000\n[w] \"1-0\"\n[w] (integer) 1\n"), "{out}");
    }
}
