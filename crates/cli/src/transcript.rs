//! `streamlab run` and `streamlab replay` on files: the transcript format and the script
//! runner are `streamlab_protocol::transcript`'s; this module reads files a line at a time.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

pub use streamlab_protocol::transcript::{diff, input, inputs, run_script, run_script_as, Script, SCRIPT_HISTORY};
use streamlab_protocol::Profile;

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
/// Returns false when the script ended with something stuck (see [`Script::finish`]).
pub fn run_file(path: &Path, profile: Profile, out: &mut impl Write) -> io::Result<bool> {
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
    printed.clear();
    let settled = script.finish(&mut printed);
    out.write_all(printed.as_bytes())?;
    out.flush()?;
    Ok(settled)
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
    // What was printed and what was read that do not match up yet: each side is cut by the
    // prefix they share after every line, so a match holds only the text in flight (a wait's
    // lines are printed with the next input but stand in the file before it). `same` turns
    // false once neither is a prefix of the other (only then are whole texts needed, for the
    // diff).
    let mut printed = String::new();
    let mut read = String::new();
    let mut same = true;
    let mut blessed = if bless { Some(io::BufWriter::new(File::create(blessing(path))?)) } else { None };
    each_line(path, |line| {
        if let Some(input) = input(text_of(line), transcript) {
            let before = printed.len();
            script.line(input, &mut printed);
            if let Some(file) = &mut blessed {
                file.write_all(&printed.as_bytes()[before..])?;
            }
        }
        read.push_str(line);
        same &= settle(&mut printed, &mut read);
        Ok(same || blessed.is_some())
    })?;
    let before = printed.len();
    script.finish(&mut printed);
    if let Some(file) = &mut blessed {
        file.write_all(&printed.as_bytes()[before..])?;
    }
    same &= settle(&mut printed, &mut read) && printed.is_empty() && read.is_empty();
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

/// Cuts the prefix two texts share from both; whether one is still a prefix of the other.
fn settle(a: &mut String, b: &mut String) -> bool {
    let mut shared = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(shared) {
        shared -= 1;
    }
    a.drain(..shared);
    b.drain(..shared);
    a.is_empty() || b.is_empty()
}

/// Where `--bless` writes a transcript's new text before it replaces the old.
fn blessing(path: &Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".blessing");
    name.into()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn waits_replay_and_a_stuck_script_fails() {
        let commands = "XREAD BLOCK 10 STREAMS s $\nXLEN s\nXREAD BLOCK 5 STREAMS s $\n";
        let transcript = run_script(commands);
        let path = file("waits.txt", &transcript);
        assert_eq!(replay_file(&path, Profile::default(), false).unwrap(), Replayed::Same);
        // The wait lines are checked like replies: a wrong one, or one missing, differs.
        for wrong in [transcript.replace("moves 10 ms", "moves 11 ms"), transcript.replace("moves 5 ms", "")] {
            let path = file("waits-wrong.txt", &wrong);
            assert!(matches!(replay_file(&path, Profile::default(), false).unwrap(), Replayed::Differs(_)), "{wrong}");
        }
        let mut out = Vec::new();
        assert!(run_file(&file("fine.txt", commands), Profile::default(), &mut out).unwrap());
        let stuck = file("stuck.txt", "XREAD BLOCK 0 STREAMS s $\nPING\n");
        let mut out = Vec::new();
        assert!(!run_file(&stuck, Profile::default(), &mut out).unwrap());
        assert!(String::from_utf8(out).unwrap().contains("these lines of default did not run: PING"));
    }
}
