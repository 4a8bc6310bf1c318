//! Hostile lines (crates/testkit's `text`) through what the console input computes while the
//! learner types: Tab, and the touch palette's taps, backspace and suggestions, which run on
//! every render. Before they split words where the tokenizer does, a U+00A0 or U+3000 before
//! the last word cut a character in two and the wasm trapped.

use streamlab_protocol::tokenize;
use streamlab_testkit::rng::Rng;
use streamlab_testkit::text;
use streamlab_view::{last_word_start, words, Playground, SessionSpec};

use crate::compose::{drop_word, insert, suggest};
use crate::console::tab;

const VOCABULARY: &[&str] = &[
    "XADD",
    "NOMKSTREAM",
    "XGROUP",
    "CREATE",
    "XREADGROUP",
    "GROUP",
    "STREAMS",
    "jobs",
    "workers",
    "alice",
    "*",
    ">",
    "\"my key\"",
    "k\u{e9}y",
    "\u{1f525}",
];

#[test]
fn the_lines_of_the_review() {
    assert_eq!(tab("XADD\u{a0}NOMK"), None, "one word to redis-cli: nothing completes");
    assert_eq!(tab("\u{3000}XAD"), None);
    assert_eq!(tab("XADD k\u{a0}x NOMK"), Some((Some("XADD k\u{a0}x NOMKSTREAM ".to_owned()), Vec::new())));
    assert_eq!(insert("XADD\u{a0}s", "jobs"), "XADD\u{a0}s jobs ");
    assert_eq!(insert("XADD\u{3000}", "jobs"), "XADD\u{3000} jobs ");
    assert_eq!(insert("XADD jo", "jobs"), "XADD jobs ");
    assert_eq!(insert("XADD \u{e9}", "e"), "XADD \u{e9} e ", "the partial is not a prefix");
    assert_eq!(
        insert("XADD \u{e9}", "\u{e9}"),
        "XADD \u{e9} \"\\xc3\\xa9\" ",
        "words are written as the console quotes them"
    );
    assert_eq!(drop_word("XADD\u{a0}s jobs"), "XADD\u{a0}s ");
    assert_eq!(drop_word("XADD\u{a0}s\u{2003}"), "");
}

#[test]
fn any_line_gives_valid_lines() {
    let mut p = Playground::new(&SessionSpec::default());
    for line in [
        "XGROUP CREATE jobs workers $ MKSTREAM",
        "XADD jobs * f\u{a0}x \u{1f525}",
        "XREADGROUP GROUP workers alice STREAMS jobs >",
    ] {
        p.run(line);
    }
    let snapshot = p.snapshot();
    let mut rng = Rng::new(21);
    let (mut tabs, mut taps) = (0, 0);
    for _ in 0..4_000 {
        let line = text::line(&mut rng, VOCABULARY);
        let typed: Vec<&str> = words(&line).collect();
        let before = line.get(..last_word_start(&line)).unwrap_or_default();
        if let Some((completed, offered)) = tab(&line) {
            tabs += 1;
            // Tab changes only the word being typed, and only by lengthening it.
            if let Some(completed) = &completed {
                let rest = completed.strip_prefix(before).unwrap_or_else(|| panic!("{line:?} -> {completed:?}"));
                let partial = line.get(before.len()..).unwrap_or_default().to_ascii_uppercase();
                assert!(rest.to_ascii_uppercase().starts_with(&partial), "{line:?} -> {completed:?}");
            }
            assert!(offered.iter().all(|w| tab(&format!("{before}{w}")).is_some()), "{line:?}: {offered:?}");
        }
        let dropped = drop_word(&line);
        assert!(line.starts_with(&dropped), "{line:?} -> {dropped:?}");
        assert_eq!(words(&dropped).count(), typed.len().saturating_sub(1), "{line:?} -> {dropped:?}");
        for (_, offered) in suggest(&line, snapshot) {
            for word in offered.iter().take(3) {
                taps += 1;
                let tapped = insert(&line, word);
                // The tapped word is the line's last argument, whole, and what came before stays.
                let args = tokenize(tapped.as_bytes());
                let last = args.as_ref().ok().and_then(|a| a.last().cloned());
                assert!(
                    last.as_deref() == Some(word.as_bytes())
                        || tokenize(line.as_bytes()).is_err()
                        || line.contains('\0'),
                    "{line:?} + {word:?} -> {tapped:?}"
                );
                assert!(tapped.starts_with(before), "{line:?} + {word:?} -> {tapped:?}");
            }
        }
    }
    assert!(tabs > 50 && taps > 2_000, "the lines reach Tab ({tabs}) and taps ({taps})");
}
