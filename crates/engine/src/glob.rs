//! Glob-style pattern matching as KEYS, SCAN MATCH and PSUBSCRIBE use it.
//!
//! `*` matches any run of bytes, `?` one byte, `[abc]`, `[^abc]` and `[a-z]` a class, and `\`
//! makes the next byte literal. An unclosed `[` class runs to the end of the pattern.

/// Whether `text` matches `pattern`.
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    // Iterative matching with a single backtrack point for the most recent `*`: linear in
    // practice and immune to the exponential blow-up of naive recursion.
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() {
            match pattern[p] {
                b'*' => {
                    while p < pattern.len() && pattern[p] == b'*' {
                        p += 1;
                    }
                    if p == pattern.len() {
                        return true;
                    }
                    star = Some((p, t));
                    continue;
                }
                b'?' => {
                    p += 1;
                    t += 1;
                    continue;
                }
                b'[' => {
                    let (matched, next) = match_class(pattern, p + 1, text[t]);
                    if matched {
                        p = next;
                        t += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pattern.len() => {
                    if pattern[p + 1] == text[t] {
                        p += 2;
                        t += 1;
                        continue;
                    }
                }
                literal => {
                    if literal == text[t] {
                        p += 1;
                        t += 1;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, st)) => {
                p = sp;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// Matches one byte against the class starting after `[` at `start`; returns whether it
/// matched and where the pattern continues after the class.
fn match_class(pattern: &[u8], start: usize, byte: u8) -> (bool, usize) {
    let mut i = start;
    let negate = pattern.get(i) == Some(&b'^');
    if negate {
        i += 1;
    }
    let mut matched = false;
    while i < pattern.len() && pattern[i] != b']' {
        if pattern[i] == b'\\' && i + 1 < pattern.len() {
            matched |= pattern[i + 1] == byte;
            i += 2;
        } else if i + 2 < pattern.len() && pattern[i + 1] == b'-' && pattern[i + 2] != b']' {
            let (lo, hi) = (pattern[i].min(pattern[i + 2]), pattern[i].max(pattern[i + 2]));
            matched |= (lo..=hi).contains(&byte);
            i += 3;
        } else {
            matched |= pattern[i] == byte;
            i += 1;
        }
    }
    // Step over the closing bracket when there is one.
    let next = if i < pattern.len() { i + 1 } else { i };
    (matched != negate, next)
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn patterns() {
        let cases: &[(&str, &str, bool)] = &[
            ("*", "", true),
            ("*", "anything", true),
            ("h?llo", "hello", true),
            ("h?llo", "hllo", false),
            ("h*llo", "heeeello", true),
            ("h[ae]llo", "hallo", true),
            ("h[ae]llo", "hillo", false),
            ("h[^e]llo", "hallo", true),
            ("h[^e]llo", "hello", false),
            ("h[a-b]llo", "hbllo", true),
            ("h[b-a]llo", "hallo", true),
            ("h\\*llo", "h*llo", true),
            ("h\\*llo", "hello", false),
            ("orders:*:dead", "orders:eu:dead", true),
            ("orders:*:dead", "orders:eu:live", false),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "aXbY", false),
        ];
        for &(pattern, text, expected) in cases {
            assert_eq!(glob_match(pattern.as_bytes(), text.as_bytes()), expected, "{pattern} ~ {text}");
        }
    }
}
