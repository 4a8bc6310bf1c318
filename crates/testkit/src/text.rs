//! Hostile text for property tests: what a learner can type or paste (every Unicode
//! whitespace, control characters, combining marks, right-to-left text and bidi controls,
//! emoji sequences, quotes and backslashes), and bytes that are not UTF-8 at all.

use crate::rng::Rng;

/// Every character Unicode calls whitespace (`char::is_whitespace`); the first six are the
/// ones C's `isspace` (and so redis-cli) splits on.
pub const WHITESPACE: &[char] = &[
    '\t', '\n', '\x0b', '\x0c', '\r', ' ', '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2001}', '\u{2002}',
    '\u{2003}', '\u{2004}', '\u{2005}', '\u{2006}', '\u{2007}', '\u{2008}', '\u{2009}', '\u{200a}', '\u{2028}',
    '\u{2029}', '\u{202f}', '\u{205f}', '\u{3000}',
];

/// Single characters of the other kinds, by kind.
const KINDS: &[&[char]] = &[
    // Controls (C0, DEL, C1) and the byte-order mark.
    &['\0', '\x01', '\x07', '\x08', '\x1b', '\x1f', '\x7f', '\u{80}', '\u{9f}', '\u{feff}'],
    // Combining marks, alone or after a letter.
    &['\u{300}', '\u{301}', '\u{308}', '\u{36f}', '\u{20d7}', '\u{fe20}'],
    // Right-to-left letters and the bidi controls (marks, embeddings, overrides, isolates).
    &['\u{5d0}', '\u{5ea}', '\u{627}', '\u{644}', '\u{64a}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}'],
    &['\u{202c}', '\u{202d}', '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}', '\u{61c}'],
    // Emoji pieces: people, ZWJ, skin tone, variation selectors, a flag's regional indicators.
    &['\u{1f468}', '\u{1f469}', '\u{200d}', '\u{1f3fd}', '\u{fe0e}', '\u{fe0f}', '\u{1f525}', '\u{1f1eb}'],
    // Quotes, backslashes and what the tokenizer's escapes use.
    &['"', '\'', '\\', 'x', 'n', '0', 'f', '`', '$', '{', '}', '#', ':', '>', '*', '-'],
    // Wide and unusual letters: CJK, fullwidth, the last scalar values.
    &['漢', '字', 'Ａ', 'ß', 'İ', 'ǅ', '\u{fffd}', '\u{10ffff}', '\u{e000}'],
];

/// Whole emoji sequences whose parts must stay together.
const SEQUENCES: &[&str] = &["👨\u{200d}👩\u{200d}👧", "❤\u{fe0f}", "🇫🇷", "e\u{301}", "\u{202e}abc\u{202c}", "👍🏽"];

/// One hostile character.
pub fn char(rng: &mut Rng) -> char {
    match rng.below(10) {
        0..=2 => char::from(b' ' + rng.below(95) as u8), // printable ASCII
        3..=4 => WHITESPACE[rng.index(WHITESPACE.len())],
        _ => {
            let kind = KINDS[rng.index(KINDS.len())];
            kind[rng.index(kind.len())]
        }
    }
}

/// Up to `max` hostile characters (and sequences).
pub fn text(rng: &mut Rng, max: usize) -> String {
    let mut out = String::new();
    for _ in 0..rng.below(max as u64 + 1) {
        if rng.chance(5) {
            out.push_str(SEQUENCES[rng.index(SEQUENCES.len())]);
        } else {
            out.push(char(rng));
        }
    }
    out
}

/// A console line: words from `vocabulary` or hostile text, joined by runs of any whitespace
/// (so `XADD`, U+00A0, `NOMK` comes up), sometimes with leading or trailing whitespace.
pub fn line(rng: &mut Rng, vocabulary: &[&str]) -> String {
    let mut out = String::new();
    let words = rng.below(6);
    for n in 0..words {
        if n > 0 || rng.chance(15) {
            for _ in 0..=rng.below(2) {
                out.push(WHITESPACE[rng.index(WHITESPACE.len())]);
            }
        }
        if rng.chance(60) && !vocabulary.is_empty() {
            let word = vocabulary[rng.index(vocabulary.len())];
            // A word being typed: a prefix of a vocabulary word, cut at a character.
            let cut = if rng.chance(30) { word.char_indices().nth(rng.index(word.len() + 1)) } else { None };
            out.push_str(cut.map_or(word, |(at, _)| word.get(..at).unwrap_or(word)));
        } else {
            out.push_str(&text(rng, 6));
        }
    }
    if rng.chance(30) {
        out.push(WHITESPACE[rng.index(WHITESPACE.len())]);
    }
    out
}

/// Up to `max` bytes that are often not UTF-8: hostile text cut anywhere, lone continuation
/// and lead bytes, truncated, overlong and surrogate encodings, and bytes never in UTF-8.
pub fn bytes(rng: &mut Rng, max: usize) -> Vec<u8> {
    const BROKEN: &[&[u8]] = &[
        b"\x80",
        b"\xbf",
        b"\xc3",
        b"\xe2\x82",
        b"\xf0\x9f\x98",
        b"\xc0\x80",
        b"\xe0\x80\xaf",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xfe",
        b"\xff",
    ];
    let mut out = Vec::new();
    while out.len() < max && !rng.chance(3) {
        if rng.chance(25) {
            out.extend_from_slice(BROKEN[rng.index(BROKEN.len())]);
        } else {
            let mut buf = [0; 4];
            out.extend_from_slice(char(rng).encode_utf8(&mut buf).as_bytes());
        }
    }
    out.truncate(max);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_every_kind() {
        let mut rng = Rng::new(1);
        let all: String = (0..200).map(|_| text(&mut rng, 20)).collect();
        assert!(WHITESPACE.iter().all(|c| c.is_whitespace()));
        assert!(WHITESPACE.iter().all(|c| all.contains(*c)), "every whitespace drawn");
        assert!(all.contains('\u{202e}') && all.contains('\u{200d}') && all.contains('\u{301}'));
        let raw: Vec<u8> = (0..200).flat_map(|_| bytes(&mut rng, 40)).collect();
        assert!(std::str::from_utf8(&raw).is_err());
        let lines: Vec<String> = (0..200).map(|_| line(&mut rng, &["XADD", "NOMKSTREAM"])).collect();
        assert!(lines.iter().any(|l| l.contains("XADD\u{a0}")), "multi-byte separators between words");
    }
}
