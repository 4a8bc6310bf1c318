//! Hostile text (crates/testkit's `text`: every Unicode whitespace, controls, combining marks,
//! bidi controls, emoji sequences, quotes, and bytes that are not UTF-8) through everything a
//! console line meets before it runs: the tokenizer, the syntax hint, Tab completion, `help`
//! and the interactive console. Fixed seeds and iteration counts, so a run is bounded and
//! repeats; a failure names the line.

use streamlab_protocol::console::{command_line, completions, help_reply, syntax_hint};
use streamlab_protocol::tokenize::{ends_in_word, last_word_start, words};
use streamlab_protocol::{tokenize, Console};
use streamlab_testkit::rng::Rng;
use streamlab_testkit::text;

/// Words the lines are made of, besides hostile text: commands, subcommands and keywords.
const VOCABULARY: &[&str] = &[
    "XADD",
    "xadd",
    "NOMKSTREAM",
    "XGROUP",
    "CREATE",
    "XREADGROUP",
    "GROUP",
    "STREAMS",
    "COUNT",
    "XINFO",
    "help",
    "jobs",
    "*",
    ">",
    "$",
    "\"my key\"",
    "'x'",
    ":as",
    ":clock",
    "+5s",
    "MAXLEN",
    "~",
];

#[test]
fn the_tokenizer_takes_any_bytes_and_its_quoting_round_trips() {
    let mut rng = Rng::new(14);
    for _ in 0..20_000 {
        let line = text::bytes(&mut rng, 60);
        let Ok(args) = tokenize(&line) else { continue };
        for arg in &args {
            assert!(!arg.is_empty() || line.contains(&b'"') || line.contains(&b'\''), "{line:?}: empty bare word");
        }
        // What the console writes for these arguments (the script, the palette) splits back
        // into them.
        let written = command_line(&args);
        assert_eq!(tokenize(written.as_bytes()).as_ref(), Ok(&args), "{line:?} written as {written:?}");
    }
    // Arguments of any bytes, NUL included, survive command_line.
    for _ in 0..5_000 {
        let args: Vec<Vec<u8>> =
            (0..rng.below(4)).map(|_| text::bytes(&mut rng, 12)).filter(|a| !a.is_empty()).collect();
        let written = command_line(&args);
        assert_eq!(tokenize(written.as_bytes()), Ok(args.clone()), "{args:?} written as {written:?}");
    }
}

#[test]
fn words_split_where_the_tokenizer_does() {
    let mut rng = Rng::new(15);
    for _ in 0..20_000 {
        let line = text::line(&mut rng, VOCABULARY);
        let start = last_word_start(&line);
        assert!(line.is_char_boundary(start), "{line:?}: {start}");
        let last = line.get(start..).unwrap_or_default();
        assert!(!last.contains([' ', '\t', '\n', '\r']), "{line:?}: last word {last:?}");
        let typed = if !ends_in_word(&line) { "" } else { words(&line).last().unwrap_or("") };
        assert_eq!(typed, last, "{line:?}");
        // Without quotes the tokenizer's arguments are exactly these words.
        if !line.contains(['"', '\'', '\0']) {
            let split: Vec<&[u8]> = words(&line).map(str::as_bytes).collect();
            assert_eq!(tokenize(line.as_bytes()).map(|a| a.len()), Ok(split.len()), "{line:?}");
            assert!(tokenize(line.as_bytes()).unwrap().iter().zip(&split).all(|(a, w)| a == w), "{line:?}");
        }
    }
}

/// Tab's result: the line up to the word being typed, then the completion.
fn complete(line: &str, word: &str) -> String {
    format!("{}{word}", line.get(..last_word_start(line)).unwrap_or_default())
}

#[test]
fn completion_and_the_hint_answer_any_line_with_valid_lines() {
    let mut rng = Rng::new(16);
    let mut completed = 0;
    for _ in 0..20_000 {
        let line = text::line(&mut rng, VOCABULARY);
        let _ = syntax_hint(&line);
        let _ = help_reply(&line, streamlab_protocol::Profile::default().caps());
        let found = completions(&line);
        let before: Vec<&str> = words(&line).collect();
        let partial = if !ends_in_word(&line) { "" } else { before.last().copied().unwrap_or("") };
        let kept = if partial.is_empty() { &before[..] } else { &before[..before.len() - 1] };
        for (i, word) in found.iter().enumerate() {
            assert!(i == 0 || found[i - 1] < *word, "{line:?}: {found:?} sorted and distinct");
            assert!(word.starts_with(&partial.to_ascii_uppercase()), "{line:?}: {word} extends {partial:?}");
            // The completed line keeps every word before and ends with the completion.
            let after = complete(&line, word);
            let now: Vec<&str> = words(&after).collect();
            assert_eq!((&now[..now.len() - 1], now[now.len() - 1]), (kept, word.as_str()), "{line:?} -> {after:?}");
            assert!(tokenize(after.as_bytes()).is_ok() || tokenize(line.as_bytes()).is_err(), "{line:?} -> {after:?}");
            completed += 1;
        }
    }
    assert!(completed > 1_000, "the lines reach completions ({completed})");
}

#[test]
fn the_lines_of_the_review_complete() {
    // XADD, U+00A0, NOMK: one word to redis-cli, so no completion (it was a panic).
    assert!(completions("XADD\u{a0}NOMK").is_empty());
    assert!(completions("\u{3000}XAD").is_empty());
    assert_eq!(completions("XADD NOMK"), ["NOMKSTREAM"]);
    assert_eq!(completions("XADD k\u{a0}x NOMK"), ["NOMKSTREAM"]);
    assert_eq!(complete("XADD k\u{a0}x NOMK", "NOMKSTREAM"), "XADD k\u{a0}x NOMKSTREAM");
    assert_eq!(syntax_hint("XADD\u{a0}"), None, "not a command redis-cli knows");
}

#[test]
fn an_interactive_console_runs_any_line() {
    let mut rng = Rng::new(17);
    let mut console = Console::default().interactive();
    for n in 0..3_000 {
        let line = if n % 2 == 0 { text::line(&mut rng, VOCABULARY) } else { text::text(&mut rng, 30) };
        for output in console.run(&line) {
            assert!(!output.text.is_empty() || output.kind != streamlab_protocol::OutputKind::Error, "{line:?}");
        }
        if n % 100 == 0 {
            let _ = console.script();
        }
    }
}
