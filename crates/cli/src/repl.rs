//! `streamlab repl`: an interactive console that looks and answers like redis-cli.

use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use streamlab_protocol::console::{completions, syntax_hint};
use streamlab_protocol::tokenize::last_word_start;
use streamlab_protocol::{Console, Profile};

/// Completion of command names and the syntax hint redis-cli shows while typing.
struct ReplHelper;

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(&self, line: &str, pos: usize, _: &Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let before = line.get(..pos).unwrap_or(line);
        // The tokenizer's word start, as the playground's Tab: a U+00A0 before the word is part
        // of it, and the start never falls inside a character.
        Ok((last_word_start(before), completions(before)))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, _: &Context<'_>) -> Option<String> {
        if pos != line.len() {
            return None;
        }
        syntax_hint(line)
    }
}

impl Highlighter for ReplHelper {}
impl Validator for ReplHelper {}
impl Helper for ReplHelper {}

const BANNER: &str = "StreamLab console: Redis Streams in a sandbox. Commands as in redis-cli; \
:as NAME switches connection (NAME> CMD runs one line there), :clock +MS moves the clock, :undo and :redo step through history \
(typing after an undo sets the undone steps aside: :branch brings them back), \
:profile NAME switches server (redis-7.4 ... redis-8.10, valkey-9), :fill KEY COUNT appends generated orders, help CMD explains a command.";

/// Runs the interactive console until end of input, starting as `profile`.
pub fn run(profile: Profile) -> rustyline::Result<()> {
    let mut editor: Editor<ReplHelper, DefaultHistory> = Editor::new()?;
    editor.set_helper(Some(ReplHelper));
    let history = std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".streamlab_history"));
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    println!("{BANNER}");
    let mut console = Console::with_profile(profile).interactive();
    loop {
        let prompt = match console.session().profile() {
            p if p == Profile::default() => format!("{}> ", console.current()),
            p => format!("{}@{p}> ", console.current()),
        };
        let line = match editor.readline(&prompt) {
            Ok(line) => line,
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(error) => return Err(error),
        };
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(trimmed);
        if trimmed.eq_ignore_ascii_case("quit") || trimmed.eq_ignore_ascii_case("exit") {
            break;
        }
        for printed in console.run_line(trimmed) {
            println!("{printed}");
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_starts_at_the_word_after_a_multi_byte_space() {
        let history = DefaultHistory::new();
        let context = Context::new(&history);
        let complete = |line: &str| ReplHelper.complete(line, line.len(), &context).unwrap();
        assert_eq!(complete("XADD k\u{a0}x NOMK"), ("XADD k\u{a0}x ".len(), vec!["NOMKSTREAM".to_owned()]));
        assert_eq!(complete("XADD\u{a0}NOMK"), (0, Vec::new()));
        assert_eq!(complete("\u{3000}XAD"), (0, Vec::new()));
    }
}
