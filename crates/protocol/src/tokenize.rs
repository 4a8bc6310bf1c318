//! Splitting one console line into arguments, the way `redis-cli` does it.
//!
//! The rules were re-derived by typing lines into an interactive `redis-cli` 7.0.15 connected
//! to Redis 8.2.3 (which uses the same splitting rules for inline requests, see
//! [`crate::request::parse_request`]):
//!
//! * ASCII whitespace (space, `\t`, `\n`, `\v`, `\f`, `\r`) separates arguments; runs of it
//!   count once and leading/trailing whitespace is ignored.
//! * A `"` or `'` anywhere in an unquoted word opens a quoted part that is glued to what came
//!   before: `a"b c"` is the single argument `ab c`.
//! * Inside double quotes: `\n \r \t \b \a` are control characters, `\xHH` (two hex digits,
//!   either case) is that byte, and a backslash before any other character yields that
//!   character (`\q` -> `q`, `\\` -> `\`, `\"` -> `"`). An incomplete hex escape is *not* kept
//!   literally: only the backslash is dropped, so `"\x4"` -> `x4` and `"\xzz"` -> `xzz`.
//! * Inside single quotes only `\'` is an escape; every other byte, backslash included, is
//!   literal (`'a\nb'` -> `a\nb` with a real backslash).
//! * A closing quote must be followed by whitespace or the end of the line (`"a"b`, `"x"""`
//!   are invalid), and a quote that is never closed makes the line invalid.
//! * A NUL byte ends the line, because the original works on C strings. Nothing typed at a
//!   console can contain one, but the rule keeps the parser total and faithful.

use std::fmt;

/// The line could not be split (an unbalanced quote, or a closing quote glued to more text).
///
/// Its `Display` is exactly what interactive `redis-cli` prints for such a line:
/// `Invalid argument(s)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenizeError;

impl fmt::Display for TokenizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Invalid argument(s)")
    }
}

impl std::error::Error for TokenizeError {}

/// Whitespace as C's `isspace` sees it in the "C" locale.
fn is_space(b: u8) -> bool {
    is_separator(char::from(b))
}

/// Whether `c` is space between arguments, as `is_space` decides for its byte: the console's
/// hint and completion split words with it, so what they call a word is the argument the line
/// sends (a pasted U+00A0 or U+3000 is part of a word, as it is to redis-cli).
pub fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// Whether `b` ends a bare word. A vertical tab or form feed is skipped between words but kept
/// inside one: Redis 8.2.3 and redis-cli both echo `ECHO a\x0bb` as three bytes.
fn ends_word(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Where the words of a console line start and end, as the tokenizer splits its bare words.
fn word_spans(line: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = line.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while bytes.get(at).is_some_and(|&b| is_space(b)) {
            at += 1;
        }
        let start = at;
        while bytes.get(at).is_some_and(|&b| !ends_word(b)) {
            at += 1;
        }
        (at > start).then_some((start, at))
    })
}

/// The words of a console line, where the tokenizer splits its bare words (every separator is
/// one byte, so each word is a slice on character boundaries).
pub fn words(line: &str) -> impl Iterator<Item = &str> {
    word_spans(line).filter_map(|(start, end)| line.get(start..end))
}

/// Where the word being typed at the end of `line` starts, or the line's length when it ends
/// between words; `line.get(..start)` is the line before it and never cuts a character.
pub fn last_word_start(line: &str) -> usize {
    match word_spans(line).last() {
        Some((start, end)) if end == line.len() => start,
        _ => line.len(),
    }
}

/// Whether `line` ends inside a word (one more character would extend it).
pub fn ends_in_word(line: &str) -> bool {
    last_word_start(line) < line.len()
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Splits one line into arguments with `redis-cli`'s rules (see the module docs).
///
/// A blank line yields an empty vector, which `redis-cli` silently ignores.
pub fn tokenize(line: &[u8]) -> Result<Vec<Vec<u8>>, TokenizeError> {
    // Everything from the first NUL on is invisible, as it is to C string code.
    let line = match line.iter().position(|&b| b == 0) {
        Some(nul) => &line[..nul],
        None => line,
    };
    let at = |i: usize| line.get(i).copied();
    let mut args = Vec::new();
    let mut i = 0;
    loop {
        while at(i).is_some_and(is_space) {
            i += 1;
        }
        if i >= line.len() {
            return Ok(args);
        }
        let mut arg = Vec::new();
        // Quoting state of the word being read.
        #[derive(PartialEq)]
        enum Quote {
            None,
            Double,
            Single,
        }
        let mut quote = Quote::None;
        loop {
            let Some(c) = at(i) else {
                if quote == Quote::None {
                    break;
                }
                return Err(TokenizeError);
            };
            match quote {
                Quote::Double => {
                    if c == b'\\' {
                        let next = at(i + 1);
                        let hex = match next {
                            Some(b'x') => at(i + 2).and_then(hex_value).zip(at(i + 3).and_then(hex_value)),
                            _ => None,
                        };
                        if let Some((hi, lo)) = hex {
                            arg.push(hi << 4 | lo);
                            i += 4;
                        } else if let Some(n) = next {
                            arg.push(match n {
                                b'n' => b'\n',
                                b'r' => b'\r',
                                b't' => b'\t',
                                b'b' => b'\x08',
                                b'a' => b'\x07',
                                other => other,
                            });
                            i += 2;
                        } else {
                            // A lone backslash at the end: kept, then the quote is unbalanced.
                            arg.push(c);
                            i += 1;
                        }
                    } else if c == b'"' {
                        if at(i + 1).is_some_and(|n| !is_space(n)) {
                            return Err(TokenizeError);
                        }
                        i += 1;
                        break;
                    } else {
                        arg.push(c);
                        i += 1;
                    }
                }
                Quote::Single => {
                    if c == b'\\' && at(i + 1) == Some(b'\'') {
                        arg.push(b'\'');
                        i += 2;
                    } else if c == b'\'' {
                        if at(i + 1).is_some_and(|n| !is_space(n)) {
                            return Err(TokenizeError);
                        }
                        i += 1;
                        break;
                    } else {
                        arg.push(c);
                        i += 1;
                    }
                }
                Quote::None => {
                    if ends_word(c) {
                        break;
                    }
                    match c {
                        b'"' => quote = Quote::Double,
                        b'\'' => quote = Quote::Single,
                        _ => arg.push(c),
                    }
                    i += 1;
                }
            }
        }
        args.push(arg);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &[u8]) -> Vec<Vec<u8>> {
        tokenize(line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    fn args(list: &[&[u8]]) -> Vec<Vec<u8>> {
        list.iter().map(|a| a.to_vec()).collect()
    }

    #[test]
    fn blank_lines_are_empty() {
        assert!(ok(b"").is_empty());
        assert!(ok(b"   ").is_empty());
        assert!(ok(b" \t\r\n\x0b\x0c ").is_empty());
        assert_eq!(ok(b"ECHO a\x0bb \x0cc\x0c"), [&b"ECHO"[..], b"a\x0bb", b"c\x0c"]);
    }

    #[test]
    fn whitespace_separates() {
        assert_eq!(ok(b"set k v"), args(&[b"set", b"k", b"v"]));
        assert_eq!(ok(b"  echo   a\tb \r"), args(&[b"echo", b"a", b"b"]));
    }

    #[test]
    fn empty_quoted_argument_is_kept() {
        assert_eq!(ok(b"echo \"\""), args(&[b"echo", b""]));
        assert_eq!(ok(b"echo ''"), args(&[b"echo", b""]));
    }

    #[test]
    fn double_quote_escapes() {
        assert_eq!(ok(br#""\n\r\t\b\a\\\"""#), args(&[b"\n\r\t\x08\x07\\\""]));
        assert_eq!(ok(br#""\x41\xfF\x00""#), args(&[b"A\xff\x00"]));
        // Any other escaped character stands for itself.
        assert_eq!(ok(br#""\q\'""#), args(&[b"q'"]));
    }

    #[test]
    fn incomplete_hex_escape_drops_only_the_backslash() {
        // Verified: `echo "\x4"` prints "x4", `echo "\xzz"` prints "xzz",
        // `echo "\x41\x4g"` prints "Ax4g", `echo "\x"` prints "x".
        assert_eq!(ok(br#""\x4""#), args(&[b"x4"]));
        assert_eq!(ok(br#""\xzz""#), args(&[b"xzz"]));
        assert_eq!(ok(br#""\x41\x4g""#), args(&[b"Ax4g"]));
        assert_eq!(ok(br#""\x""#), args(&[b"x"]));
        // `\X` is not a hex escape.
        assert_eq!(ok(br#""\XfF""#), args(&[b"XfF"]));
    }

    #[test]
    fn single_quotes_only_escape_the_quote() {
        assert_eq!(ok(br"'a\'b'"), args(&[b"a'b"]));
        assert_eq!(ok(br"'a\nb'"), args(&[br"a\nb"]));
        assert_eq!(ok(br#"'say "hi"'"#), args(&[br#"say "hi""#]));
        // `'\\'` is a backslash then an escaped quote: never closed.
        assert_eq!(tokenize(br"'\\'"), Err(TokenizeError));
        assert_eq!(tokenize(br"'a\\'"), Err(TokenizeError));
    }

    #[test]
    fn quotes_glue_to_preceding_text() {
        assert_eq!(ok(b"echo a\"b c\""), args(&[b"echo", b"ab c"]));
        assert_eq!(ok(b"a'b'"), args(&[b"ab"]));
    }

    #[test]
    fn closing_quote_must_end_the_word() {
        for line in [&br#"echo "a"b"#[..], br#"echo "x""""#, br"echo 'a'b", br#"echo "a""b""#] {
            assert_eq!(tokenize(line), Err(TokenizeError), "{line:?}");
        }
        assert_eq!(ok(b"\"a\"\tb"), args(&[b"a", b"b"]));
        assert_eq!(ok(b"\"a\"\r"), args(&[b"a"]));
    }

    #[test]
    fn unbalanced_quotes_are_invalid() {
        for line in [&b"echo \"abc"[..], b"echo 'abc", b"echo a\"b", b"echo a'b", br#"echo "abc\""#, b"\"", br#""\"#] {
            assert_eq!(tokenize(line), Err(TokenizeError), "{line:?}");
        }
    }

    #[test]
    fn nul_ends_the_line() {
        assert_eq!(ok(b"a b\0c d"), args(&[b"a", b"b"]));
        assert_eq!(tokenize(b"\"a\0\""), Err(TokenizeError));
    }

    #[test]
    fn error_text_matches_redis_cli() {
        assert_eq!(TokenizeError.to_string(), "Invalid argument(s)");
    }
}
