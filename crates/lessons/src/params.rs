//! Lesson parameters: integers a variant may change (a threshold, a count, an idle gap), and
//! the `${expr}` placeholders that put them into text, lines and checks. An expression is
//! integer arithmetic over parameter names: `+ - * / %`, parentheses and unary minus, with
//! `/` dividing towards zero.

use streamlab_engine::SortedMap;

/// Parameter values by name.
pub type Params = SortedMap<String, i64>;

/// Whether a parameter name is acceptable: lower-case letters, digits and `_`, starting with a
/// letter.
pub fn valid_name(name: &str) -> bool {
    name.bytes().next().is_some_and(|c| c.is_ascii_lowercase())
        && name.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

/// One `${...}` in a text: the byte range of the whole placeholder and the expression inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder<'a> {
    /// Where `${` starts.
    pub start: usize,
    /// Just after the closing `}`.
    pub end: usize,
    /// The expression between the braces.
    pub expr: &'a str,
}

/// The `${...}` placeholders of a text, in order. An unclosed `${` is an error at its offset.
pub fn placeholders(text: &str) -> Result<Vec<Placeholder<'_>>, (usize, String)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text.get(from..).and_then(find_open).map(|i| from + i) {
        let inner = at + 2;
        let Some(close) = text.get(inner..).and_then(|rest| rest.bytes().position(|b| b == b'}')) else {
            return Err((at, "`${` without its closing `}`".to_owned()));
        };
        let end = inner + close + 1;
        found.push(Placeholder { start: at, end, expr: text.get(inner..inner + close).unwrap_or_default() });
        from = end;
    }
    Ok(found)
}

/// Whether a text has a `${` placeholder.
pub fn has_placeholder(text: &str) -> bool {
    find_open(text).is_some()
}

/// The offset of the first `${` (a byte-pair scan: see `script::parse_line` on substring search).
fn find_open(text: &str) -> Option<usize> {
    text.as_bytes().windows(2).position(|w| w == b"${")
}

/// A decimal integer as `str::parse::<i64>` reads it (an optional sign, then digits; `None`
/// when it is not one or does not fit). Its own loop: the generic parser costs the grader's
/// wasm more than this.
pub(crate) fn parse_i64(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes() {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        all => (false, all),
    };
    if digits.is_empty() {
        return None;
    }
    let mut n: i64 = 0;
    for &b in digits {
        let digit = i64::from(b.wrapping_sub(b'0'));
        if digit > 9 {
            return None;
        }
        // Accumulated with the sign, so `i64::MIN` fits.
        n = n.checked_mul(10)?;
        n = if negative { n.checked_sub(digit)? } else { n.checked_add(digit)? };
    }
    Some(n)
}

/// Replaces every `${expr}` by its value. A placeholder that cannot be evaluated (the
/// validator reports it) is left as written.
pub fn substitute(text: &str, params: &Params) -> String {
    let Ok(found) = placeholders(text) else { return text.to_owned() };
    if found.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for p in found {
        out.push_str(text.get(last..p.start).unwrap_or_default());
        match eval(p.expr, params) {
            Ok(value) => out.push_str(&value.to_string()),
            Err(_) => out.push_str(text.get(p.start..p.end).unwrap_or_default()),
        }
        last = p.end;
    }
    out.push_str(text.get(last..).unwrap_or_default());
    out
}

/// Evaluates an expression.
pub fn eval(expr: &str, params: &Params) -> Result<i64, String> {
    let tokens = tokens(expr)?;
    let mut parser = Parser { tokens: &tokens, at: 0, params, depth: 0 };
    let value = parser.sum()?;
    match parser.tokens.get(parser.at) {
        None => Ok(value),
        Some(token) => Err(format!("unexpected `{}` in `${{{expr}}}`", token.text())),
    }
}

/// The parameter names an expression uses (for checking them against the lesson's).
pub fn names(expr: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for token in tokens(expr)? {
        if let Token::Name(name) = token {
            out.push(name);
        }
    }
    Ok(out)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Number(i64),
    Name(String),
    Op(char),
}

impl Token {
    fn text(&self) -> String {
        match self {
            Token::Number(n) => n.to_string(),
            Token::Name(name) => name.clone(),
            Token::Op(c) => c.to_string(),
        }
    }
}

fn tokens(expr: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut chars = expr.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_ascii_digit() {
            let mut digits = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit() || **d == '_') {
                if d != '_' {
                    digits.push(d);
                }
                chars.next();
            }
            out.push(Token::Number(parse_i64(&digits).ok_or_else(|| format!("`{digits}` is too large"))?));
        } else if c.is_ascii_lowercase() {
            let mut name = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_alphanumeric() || **d == '_') {
                name.push(d);
                chars.next();
            }
            out.push(Token::Name(name));
        } else if matches!(c, '+' | '-' | '*' | '/' | '%' | '(' | ')') {
            out.push(Token::Op(c));
            chars.next();
        } else {
            return Err(format!(
                "`{c}` cannot be part of an expression: use numbers, parameter names, + - * / % and ()"
            ));
        }
    }
    if out.is_empty() {
        return Err("an empty `${}`".to_owned());
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    params: &'a Params,
    /// Parentheses and unary minuses open so far: a lesson from anywhere must not be able to
    /// exhaust the stack (a wasm stack overflow ends the learner's tab).
    depth: usize,
}

/// How deep parentheses and unary minuses may nest.
const MAX_DEPTH: usize = 32;

impl Parser<'_> {
    fn next_op(&self, ops: &[char]) -> Option<char> {
        // A slice, not a `&str`: `str::contains(char)` links the substring searcher for
        // characters outside ASCII (see `script::parse_line`).
        match self.tokens.get(self.at) {
            Some(Token::Op(c)) if ops.contains(c) => Some(*c),
            _ => None,
        }
    }

    fn sum(&mut self) -> Result<i64, String> {
        let mut value = self.product()?;
        while let Some(op) = self.next_op(&['+', '-']) {
            self.at += 1;
            let right = self.product()?;
            value = if op == '+' { value.checked_add(right) } else { value.checked_sub(right) }
                .ok_or("the expression overflows")?;
        }
        Ok(value)
    }

    fn product(&mut self) -> Result<i64, String> {
        let mut value = self.unary()?;
        while let Some(op) = self.next_op(&['*', '/', '%']) {
            self.at += 1;
            let right = self.unary()?;
            value = match op {
                '*' => value.checked_mul(right).ok_or("the expression overflows")?,
                _ if right == 0 => return Err("division by zero".to_owned()),
                // Checked: the smallest i64 divided by -1 overflows.
                '/' => value.checked_div(right).ok_or("the expression overflows")?,
                _ => value.checked_rem(right).ok_or("the expression overflows")?,
            };
        }
        Ok(value)
    }

    fn unary(&mut self) -> Result<i64, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("the expression nests deeper than {MAX_DEPTH}"));
        }
        let value = if self.next_op(&['-']).is_some() {
            self.at += 1;
            self.unary()?.checked_neg().ok_or_else(|| "the expression overflows".to_owned())
        } else {
            self.atom()
        };
        self.depth -= 1;
        value
    }

    fn atom(&mut self) -> Result<i64, String> {
        let token = self.tokens.get(self.at);
        self.at += 1;
        match token {
            Some(Token::Number(n)) => Ok(*n),
            Some(Token::Name(name)) => {
                self.params.get(name).copied().ok_or_else(|| format!("unknown parameter `{name}`"))
            }
            Some(Token::Op('(')) => {
                let value = self.sum()?;
                if self.next_op(&[')']).is_none() {
                    return Err("a `(` without its `)`".to_owned());
                }
                self.at += 1;
                Ok(value)
            }
            Some(other) => Err(format!("unexpected `{}`", other.text())),
            None => Err("the expression ends too early".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        SortedMap::from_pairs(vec![("n".to_owned(), 4), ("gap_s".to_owned(), 50)])
    }

    #[test]
    fn expressions_follow_arithmetic() {
        let p = params();
        assert_eq!(eval("n", &p), Ok(4));
        assert_eq!(eval("gap_s * 1000 + 5_000", &p), Ok(55_000));
        assert_eq!(eval("-(n - 10) / 4", &p), Ok(1));
        assert_eq!(eval("7 % n", &p), Ok(3));
        assert_eq!(eval("-7 / 2", &p), Ok(-3), "division goes towards zero");
        assert_eq!(eval("n / (n - 4)", &p), Err("division by zero".into()));
        assert_eq!(eval("m", &p), Err("unknown parameter `m`".into()));
        assert!(eval("n +", &p).unwrap_err().contains("ends too early"));
        assert!(eval("(n", &p).unwrap_err().contains("without its"));
        assert!(eval("n n", &p).unwrap_err().contains("unexpected `n`"));
        assert!(eval("n & 1", &p).unwrap_err().contains("`&` cannot"));
        assert!(eval("", &p).unwrap_err().contains("empty"));
        assert!(eval("99999999999999999999", &p).unwrap_err().contains("too large"));
        assert!(eval("(-9223372036854775807 - 1) / -1", &p).unwrap_err().contains("overflows"));
        assert!(eval(&format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000)), &p).unwrap_err().contains("deeper"));
        assert!(eval(&format!("{}1", "-".repeat(10_000)), &p).unwrap_err().contains("deeper"));
        assert_eq!(eval("((((1))))", &p), Ok(1));
        assert!(eval("(-9223372036854775807 - 1) % -1", &p).unwrap_err().contains("overflows"));
        assert_eq!(names("gap_s * n + 1"), Ok(vec!["gap_s".to_owned(), "n".to_owned()]));
    }

    #[test]
    fn placeholders_are_replaced_in_text() {
        let p = params();
        assert_eq!(
            substitute("XAUTOCLAIM s g c ${gap_s * 1000} 0-0 COUNT ${n}", &p),
            "XAUTOCLAIM s g c 50000 0-0 COUNT 4"
        );
        assert_eq!(substitute("no placeholder, $ alone, {braces}", &p), "no placeholder, $ alone, {braces}");
        // What cannot be evaluated stays as written (the validator reports it).
        assert_eq!(substitute("a ${nope} b", &p), "a ${nope} b");
        assert_eq!(placeholders("x ${n"), Err((2, "`${` without its closing `}`".to_owned())));
        let found = placeholders("${n}-0 and ${ gap_s }").unwrap();
        assert_eq!((found[1].start, found[1].end, found[1].expr), (11, 21, " gap_s "));
        assert!(valid_name("idle_2") && !valid_name("2x") && !valid_name("Idle"));
    }
}
