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

pub use streamlab_protocol::console::{Console, Lines, DEFAULT_CONNECTION};
use streamlab_protocol::Profile;

/// Runs a whole command file (or a transcript's inputs) and returns the transcript text,
/// starting with the default profile (a `:profile` line switches).
pub fn run_script(text: &str) -> String {
    run_script_as(text, Profile::default())
}

/// [`run_script`] starting with `profile`.
pub fn run_script_as(text: &str, profile: Profile) -> String {
    let mut console = Console::with_profile(profile);
    let mut out = String::new();
    // Checking walks the whole session, so a release build checks only when asked: checking
    // after every line would make a long script quadratic.
    let check = cfg!(debug_assertions) || std::env::var_os("STREAMLAB_CHECK_INVARIANTS").is_some();
    for line in inputs(text) {
        if !console.transcribe(line, &mut out) || !check {
            continue;
        }
        if let Err(broken) = console.session().check_invariants() {
            out.push_str(&format!("!! invariant broken after this line: {broken}\n"));
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
