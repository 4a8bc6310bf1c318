//! A small TOML reader for lesson files that keeps the byte span of every key and value, so
//! [`shape`](crate::shape) can put each error at its line and column.
//!
//! Why in-house: the lessons crate is linked into both wasm bundles and needs only a parse
//! tree with spans: no serde, no writing, no float or date conversions (what the `toml` crate
//! family cost is in ARCHITECTURE.md, "Wasm budget").
//!
//! What it reads is TOML 1.0: comments, bare, quoted and dotted keys, `[tables]`,
//! `[[arrays.of.tables]]`, basic and literal strings (single- and multi-line, every escape),
//! integers (decimal, `0x`, `0o`, `0b`, `_` between digits), booleans, arrays and inline
//! tables. It also accepts what TOML 1.1 relaxes (newlines, comments and a trailing comma in
//! inline tables, the `\e` and `\xHH` escapes, times without seconds), so that every lesson a
//! TOML 1.1 reader accepts loads. Floats
//! and date-times are checked against the grammar and kept as written: no lesson field takes
//! one, so converting them would only link float parsing into the wasm; the shape reader
//! reports them as type errors.
//!
//! The spec's errors (duplicate keys, a table defined twice, dotted keys adding to a table
//! that has its own header or is inline, unterminated strings, bad escapes, control
//! characters, a missing `=`, text after a value, ...) end the parse with the first problem
//! and the span of the bytes at fault. No input makes it panic, and nesting is limited so
//! deep brackets cannot overflow the stack.

use std::ops::Range;

use scalar::{integer, is_date, is_datetime, is_float};

mod scalar;

/// How deep arrays and inline tables may nest, and how many parts a dotted key may have: far
/// beyond any lesson, well within the stack (dropping nested tables recurses too).
const MAX_DEPTH: usize = 64;

/// A value with the byte range of the text it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned<T> {
    span: Range<usize>,
    value: T,
}

impl<T> Spanned<T> {
    /// A value read from `span`.
    pub fn new(span: Range<usize>, value: T) -> Spanned<T> {
        Spanned { span, value }
    }

    /// The byte range it was read from (quotes and brackets included).
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// The value.
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// The value, without its span.
    pub fn into_inner(self) -> T {
        self.value
    }
}

/// A TOML value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A string, escapes decoded.
    String(String),
    /// An integer.
    Integer(i64),
    /// A float, as written (checked against the grammar, not converted).
    Float(String),
    /// A boolean.
    Boolean(bool),
    /// An offset or local date-time, date or time, as written (checked, not converted).
    Datetime(String),
    /// An array, or an array of tables.
    Array(Vec<Spanned<Value>>),
    /// A table.
    Table(Table),
}

impl Value {
    /// The kind of value, with its article, for messages.
    fn kind(&self) -> &'static str {
        match self {
            Value::String(_) => "a string",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Boolean(_) => "a boolean",
            Value::Datetime(_) => "a date-time",
            Value::Array(_) => "an array",
            Value::Table(t) if t.origin == Origin::Inline => "an inline table",
            Value::Table(_) => "a table",
        }
    }
}

/// A table: its keys in the order they were defined, each with its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    entries: Vec<(Spanned<String>, Spanned<Value>)>,
    origin: Origin,
}

/// How a table came to be, which decides what may add to it later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// The document, or a `[header]` / `[[header]]`: defined once, and dotted keys from
    /// outside its body cannot add to it.
    Header,
    /// Named on the way to a header (`a` in `[a.b]`): a later `[a]` may still define it.
    Implicit,
    /// Made by dotted keys (`a` in `a.b = 1`): more dotted keys may add to it, a header may
    /// not define it (but may define tables below it).
    Dotted,
    /// `{ ... }`: complete when it closes.
    Inline,
}

impl Table {
    fn new(origin: Origin) -> Table {
        Table { entries: Vec::new(), origin }
    }

    /// The value of `key`. (A linear search: lesson tables have a dozen keys.)
    pub fn get(&self, key: &str) -> Option<&Spanned<Value>> {
        // A search, not `position` and an index: no bounds-check panic path.
        self.entries.iter().find(|(k, _)| k.value == key).map(|(_, value)| value)
    }

    /// Keys and values, in the order the keys were defined.
    pub fn iter(&self) -> impl Iterator<Item = (&Spanned<String>, &Spanned<Value>)> {
        self.entries.iter().map(|(key, value)| (key, value))
    }

    /// How the table is written: `header` (`[t]`, `[[t]]`, or the document), `inline`
    /// (`{ ... }`), `dotted` (made by dotted keys, `t.k = 1`) or `implicit` (named on the way
    /// to a header, `t` in `[t.u]`). An editor adds keys to the first two only.
    pub fn form(&self) -> &'static str {
        match self.origin {
            Origin::Header => "header",
            Origin::Inline => "inline",
            Origin::Dotted => "dotted",
            Origin::Implicit => "implicit",
        }
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k.value == key)
    }
}

/// Why a document is not TOML: the first problem, at the bytes at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// Byte range in the text (empty at the end of the file).
    pub span: Range<usize>,
    /// What is wrong.
    pub message: String,
}

/// The longest document read: lessons are a few KB, and a page or grader handed a bigger one
/// would spend its memory on it. (Error messages spell the limits out: `format!` costs wasm.)
pub const MAX_DOCUMENT: usize = 1 << 20;

/// The most keys one table may have. Lesson tables have a dozen; the limit keeps the reader's
/// duplicate-key search (a scan of the table) cheap on hostile input.
pub const MAX_KEYS: usize = 1000;

/// Reads a TOML document into its top table.
pub fn parse(text: &str) -> Result<Table, Error> {
    if text.len() > MAX_DOCUMENT {
        return Err(Error { span: 0..0, message: "the file is larger than a lesson may be (1 MiB)".to_owned() });
    }
    // A byte order mark is not part of the document.
    let pos = if text.starts_with('\u{feff}') { '\u{feff}'.len_utf8() } else { 0 };
    Parser { text, pos }.document()
}

/// The reader's position in the text; always on a character boundary.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

/// A key as written: the dotted path before its last part, and the last part.
type Key = (Vec<Spanned<String>>, Spanned<String>);

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// The text from `pos` on. The parser moves `pos` by whole characters only, so every
    /// slice here is on a boundary; it is taken with `get` anyway, here and in [`Self::text_of`],
    /// because `&text[..]`'s panic path links std's Unicode tables into the grader's wasm.
    fn rest(&self) -> &str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    /// The text between two positions.
    fn text_of(&self, span: Range<usize>) -> &str {
        self.text.get(span).unwrap_or_default()
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        if found {
            self.pos += 1;
        }
        found
    }

    fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    /// Eats a newline (`\n` or `\r\n`), if one is next.
    fn newline(&mut self) -> bool {
        let len = if self.rest().starts_with('\n') {
            1
        } else if self.rest().starts_with("\r\n") {
            2
        } else {
            0
        };
        self.pos += len;
        len > 0
    }

    /// Skips a comment, if one is next, up to its newline.
    fn comment(&mut self) -> Result<(), Error> {
        if self.peek() != Some(b'#') {
            return Ok(());
        }
        while let Some(c) = self.rest().chars().next() {
            if c == '\n' || self.rest().starts_with("\r\n") {
                break;
            }
            if is_control(c) {
                return Err(self.unexpected("the end of the comment"));
            }
            self.pos += c.len_utf8();
        }
        Ok(())
    }

    /// Skips spaces, newlines and comments (inside arrays and inline tables).
    fn skip_blank(&mut self) -> Result<(), Error> {
        loop {
            self.skip_spaces();
            self.comment()?;
            if !self.newline() {
                return Ok(());
            }
        }
    }

    /// What is at the position, for messages.
    fn found(&self) -> String {
        match self.rest().chars().next() {
            None => "the end of the file".to_owned(),
            Some('\n') => "the end of the line".to_owned(),
            Some('\r') if self.rest().starts_with("\r\n") => "the end of the line".to_owned(),
            Some(c) if is_control(c) => format!("the control character U+{:04X}", u32::from(c)),
            Some(c) => format!("`{c}`"),
        }
    }

    /// "expected X, found Y" at the position.
    fn unexpected(&self, expected: &str) -> Error {
        let len = self.rest().chars().next().map_or(0, char::len_utf8);
        Error { span: self.pos..self.pos + len, message: format!("expected {expected}, found {}", self.found()) }
    }

    fn duplicate(&self, key: &Spanned<String>, first: &Spanned<String>) -> Error {
        Error {
            span: key.span(),
            message: format!(
                "duplicate key `{}`, first defined on line {}",
                key.value,
                crate::error::line_column(self.text, first.span.start).0
            ),
        }
    }

    /// The whole document: key/value pairs and table headers, one a line.
    fn document(mut self) -> Result<Table, Error> {
        let mut root = Table::new(Origin::Header);
        // The path of the last header: where key/value pairs go.
        let mut current = Vec::new();
        loop {
            self.skip_spaces();
            match self.peek() {
                None => return Ok(root),
                Some(b'#' | b'\n' | b'\r') => {}
                Some(b'[') => current = self.header(&mut root)?,
                Some(_) => {
                    let (key, value) = self.key_value(0)?;
                    let table = self.descend(&mut root, &current, false)?;
                    self.insert(table, key, value)?;
                }
            }
            self.skip_spaces();
            self.comment()?;
            if self.peek().is_some() && !self.newline() {
                return Err(self.unexpected("the end of the line"));
            }
        }
    }

    /// A `[table]` or `[[array.of.tables]]` header: defines it under `root` and returns its
    /// path.
    fn header(&mut self, root: &mut Table) -> Result<Vec<Spanned<String>>, Error> {
        let start = self.pos;
        let array = self.rest().starts_with("[[");
        let close = if array { "]]" } else { "]" };
        self.pos += close.len();
        self.skip_spaces();
        let (mut path, key) = self.key()?;
        self.skip_spaces();
        if !self.rest().starts_with(close) {
            return Err(self.unexpected(&format!("`{close}` to close the table header")));
        }
        self.pos += close.len();
        let span = start..self.pos;
        let parent = self.descend(root, &path, false)?;
        let table = Spanned::new(span.clone(), Value::Table(Table::new(Origin::Header)));
        match parent.position(&key.value) {
            None if array => {
                self.push(parent, key.clone(), Spanned::new(span, Value::Array(vec![table])))?;
            }
            None => self.push(parent, key.clone(), table)?,
            Some(i) => {
                let (old_key, old) = &mut parent.entries[i];
                match &mut old.value {
                    // `[a]` after `[a.b]` defines `a`, keeping `b`.
                    Value::Table(t) if !array && t.origin == Origin::Implicit => {
                        t.origin = Origin::Header;
                        *old_key = key.clone();
                        old.span = span;
                    }
                    Value::Array(items) if array && is_array_of_tables(items) => items.push(table),
                    _ => return Err(self.duplicate(&key, old_key)),
                }
            }
        }
        path.push(key);
        Ok(path)
    }

    /// The table at `path` below `table`, making the tables that are missing. `dotted` says
    /// the path is a dotted key (in a key/value pair), not a header's.
    fn descend<'t>(
        &self,
        mut table: &'t mut Table,
        path: &[Spanned<String>],
        dotted: bool,
    ) -> Result<&'t mut Table, Error> {
        for key in path {
            let i = match table.position(&key.value) {
                Some(i) => i,
                None => {
                    let origin = if dotted { Origin::Dotted } else { Origin::Implicit };
                    let new = Spanned::new(key.span(), Value::Table(Table::new(origin)));
                    self.push(table, key.clone(), new)?;
                    table.entries.len() - 1
                }
            };
            table = extend(&mut table.entries[i].1.value, key, dotted)?;
        }
        Ok(table)
    }

    /// Puts a key/value pair into `table`, the key's dotted path making or extending tables.
    fn insert(&self, table: &mut Table, (path, key): Key, value: Spanned<Value>) -> Result<(), Error> {
        let table = self.descend(table, &path, true)?;
        if let Some((first, _)) = table.entries.iter().find(|(k, _)| k.value == key.value) {
            return Err(self.duplicate(&key, first));
        }
        self.push(table, key, value)
    }

    /// Adds a new key to `table`, within [`MAX_KEYS`].
    fn push(&self, table: &mut Table, key: Spanned<String>, value: Spanned<Value>) -> Result<(), Error> {
        if table.entries.len() >= MAX_KEYS {
            return Err(Error { span: key.span(), message: "a table with more than 1000 keys".to_owned() });
        }
        table.entries.push((key, value));
        Ok(())
    }

    /// `key = value`; `depth` counts the arrays and inline tables around it.
    fn key_value(&mut self, depth: usize) -> Result<(Key, Spanned<Value>), Error> {
        let (path, key) = self.key()?;
        self.skip_spaces();
        if !self.eat(b'=') {
            return Err(self.unexpected(&format!("`=` after the key `{}`", key.value)));
        }
        self.skip_spaces();
        let value = self.value(depth)?;
        Ok(((path, key), value))
    }

    /// A key, dotted or not.
    fn key(&mut self) -> Result<Key, Error> {
        let start = self.pos;
        let mut path = Vec::new();
        let mut last = self.simple_key()?;
        loop {
            self.skip_spaces();
            if !self.eat(b'.') {
                return Ok((path, last));
            }
            if path.len() == MAX_DEPTH {
                return Err(Error { span: start..self.pos, message: "a dotted key with too many parts".to_owned() });
            }
            self.skip_spaces();
            path.push(std::mem::replace(&mut last, self.simple_key()?));
        }
    }

    /// A bare or quoted key.
    fn simple_key(&mut self) -> Result<Spanned<String>, Error> {
        let start = self.pos;
        let key = match self.peek() {
            Some(quote @ (b'"' | b'\'')) => self.string(quote, false)?,
            Some(b) if is_bare_key(b) => {
                while self.peek().is_some_and(is_bare_key) {
                    self.pos += 1;
                }
                self.text_of(start..self.pos).to_owned()
            }
            _ => return Err(self.unexpected("a key")),
        };
        Ok(Spanned::new(start..self.pos, key))
    }

    fn value(&mut self, depth: usize) -> Result<Spanned<Value>, Error> {
        let start = self.pos;
        if depth > MAX_DEPTH {
            return Err(Error { span: start..start, message: "arrays and inline tables nest too deeply".to_owned() });
        }
        let value = match self.peek() {
            Some(quote @ (b'"' | b'\'')) => Value::String(self.string(quote, true)?),
            Some(b'[') => self.array(depth)?,
            Some(b'{') => self.inline_table(depth)?,
            _ => self.scalar()?,
        };
        Ok(Spanned::new(start..self.pos, value))
    }

    /// A basic (`"`) or literal (`'`) string, multi-line too if `multi_line` (keys cannot be).
    fn string(&mut self, quote: u8, multi_line: bool) -> Result<String, Error> {
        let start = self.pos;
        let q = char::from(quote);
        let multi = multi_line && self.rest().as_bytes().starts_with(&[quote; 3]);
        if multi {
            self.pos += 3;
            // A newline right after the opening quotes is not part of the string.
            self.newline();
        } else {
            self.pos += 1;
        }
        let mut out = String::new();
        loop {
            let before = self.pos;
            let Some(c) = self.rest().chars().next() else {
                let message = if multi {
                    format!("unterminated multi-line string: `{q}{q}{q}` is missing")
                } else {
                    format!("unterminated string: `{q}` is missing")
                };
                return Err(Error { span: start..self.pos, message });
            };
            if c == q {
                let run = self.rest().bytes().take_while(|&b| b == quote).count();
                if !multi {
                    self.pos += 1;
                    return Ok(out);
                }
                if run >= 3 {
                    // Up to two quotes may come right before the closing three.
                    let extra = (run - 3).min(2);
                    out.extend(std::iter::repeat_n(q, extra));
                    self.pos += 3 + extra;
                    return Ok(out);
                }
                out.extend(std::iter::repeat_n(q, run));
                self.pos += run;
            } else if c == '\\' && quote == b'"' {
                self.escape(&mut out, multi)?;
            } else if multi && self.newline() {
                // Kept as written (`\r\n` too), as the `toml` crate did.
                out.push_str(self.text_of(before..self.pos));
            } else if c == '\n' || self.rest().starts_with("\r\n") {
                return Err(Error {
                    span: start..self.pos,
                    message: format!(
                        "unterminated string: close it with `{q}` on its line, or use `{q}{q}{q}` for several lines"
                    ),
                });
            } else if is_control(c) {
                let hint =
                    if quote == b'"' { format!(" (write it as `\\u{:04X}`)", u32::from(c)) } else { String::new() };
                return Err(Error {
                    span: self.pos..self.pos + 1,
                    message: format!("the control character U+{:04X} is not allowed in a string{hint}", u32::from(c)),
                });
            } else {
                out.push(c);
                self.pos += c.len_utf8();
            }
        }
    }

    /// An escape in a basic string, at its backslash.
    fn escape(&mut self, out: &mut String, multi: bool) -> Result<(), Error> {
        let start = self.pos;
        self.pos += 1;
        let Some(c) = self.rest().chars().next() else {
            return Err(Error { span: start..self.pos, message: "unterminated string".to_owned() });
        };
        let simple = match c {
            'b' => Some('\u{8}'),
            't' => Some('\t'),
            'n' => Some('\n'),
            'f' => Some('\u{c}'),
            'r' => Some('\r'),
            'e' => Some('\u{1b}'),
            '"' => Some('"'),
            '\\' => Some('\\'),
            _ => None,
        };
        if let Some(decoded) = simple {
            out.push(decoded);
            self.pos += 1;
            return Ok(());
        }
        let width = match c {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            ' ' | '\t' | '\n' | '\r' if multi => {
                // A backslash ending a line (spaces may follow it) joins the lines: the
                // newline and all whitespace up to the next text go.
                self.skip_spaces();
                if !self.newline() {
                    return Err(Error {
                        span: start..self.pos,
                        message: "a `\\` followed by spaces must end its line".to_owned(),
                    });
                }
                loop {
                    self.skip_spaces();
                    if !self.newline() {
                        return Ok(());
                    }
                }
            }
            _ => {
                let end = self.pos + if is_control(c) { 0 } else { c.len_utf8() };
                return Err(Error {
                    span: start..end,
                    message: format!("invalid escape `{}`", self.text_of(start..end)),
                });
            }
        };
        let hex =
            self.text.get(self.pos + 1..self.pos + 1 + width).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
        let decoded = hex.and_then(|h| u32::from_str_radix(h, 16).ok()).and_then(char::from_u32);
        match decoded {
            Some(decoded) => {
                out.push(decoded);
                self.pos += 1 + width;
                Ok(())
            }
            None if hex.is_some() => {
                let end = self.pos + 1 + width;
                Err(Error {
                    span: start..end,
                    message: format!("invalid escape `{}`: not a Unicode scalar value", self.text_of(start..end)),
                })
            }
            None => Err(Error {
                span: start..self.pos + 1,
                message: format!("invalid escape: `\\{c}` takes {width} hex digits"),
            }),
        }
    }

    /// `[ value, ... ]`, over lines, with comments and a trailing comma.
    fn array(&mut self, depth: usize) -> Result<Value, Error> {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_blank()?;
            if self.eat(b']') {
                return Ok(Value::Array(items));
            }
            if self.peek().is_none() {
                return Err(Error { span: start..start + 1, message: "unclosed array: `]` is missing".to_owned() });
            }
            items.push(self.value(depth + 1)?);
            self.skip_blank()?;
            if !self.eat(b',') && !matches!(self.peek(), Some(b']') | None) {
                return Err(self.unexpected("`,` or `]` in the array"));
            }
        }
    }

    /// `{ key = value, ... }`.
    fn inline_table(&mut self, depth: usize) -> Result<Value, Error> {
        let start = self.pos;
        self.pos += 1;
        let mut table = Table::new(Origin::Inline);
        loop {
            self.skip_blank()?;
            if self.eat(b'}') {
                return Ok(Value::Table(table));
            }
            if self.peek().is_none() {
                return Err(Error {
                    span: start..start + 1,
                    message: "unclosed inline table: `}` is missing".to_owned(),
                });
            }
            let (key, value) = self.key_value(depth + 1)?;
            self.insert(&mut table, key, value)?;
            self.skip_blank()?;
            if !self.eat(b',') && !matches!(self.peek(), Some(b'}') | None) {
                return Err(self.unexpected("`,` or `}` in the inline table"));
            }
        }
    }

    /// A boolean, integer, float or date-time: the run of characters they are made of.
    fn scalar(&mut self) -> Result<Value, Error> {
        let start = self.pos;
        self.skip_scalar_chars();
        // A date and a time may be separated by a space.
        let date = is_date(self.text.as_bytes().get(start..self.pos).unwrap_or_default());
        if date && self.peek() == Some(b' ') && self.text.as_bytes().get(self.pos + 1).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
            self.skip_scalar_chars();
        }
        let token = self.text_of(start..self.pos);
        let invalid = |message: String| Err(Error { span: start..self.pos, message });
        match token {
            "" => Err(self.unexpected("a value")),
            "true" => Ok(Value::Boolean(true)),
            "false" => Ok(Value::Boolean(false)),
            _ if is_datetime(token.as_bytes()) => Ok(Value::Datetime(token.to_owned())),
            _ if is_float(token) => Ok(Value::Float(token.to_owned())),
            _ => match integer(token) {
                Some(Some(n)) => Ok(Value::Integer(n)),
                Some(None) => invalid(format!("the integer `{token}` does not fit in 64 bits")),
                None => invalid(format!("`{token}` is not a TOML value (strings need quotes)")),
            },
        }
    }

    fn skip_scalar_chars(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-' | b'.' | b':')) {
            self.pos += 1;
        }
    }
}

/// Whether an array was made by `[[headers]]`: its tables are header tables, where a value
/// array's tables are inline (and an empty array is a value).
fn is_array_of_tables(items: &[Spanned<Value>]) -> bool {
    matches!(items.first(), Some(Spanned { value: Value::Table(t), .. }) if t.origin == Origin::Header)
}

/// The table `value` is, for `key`'s path to continue into; `dotted` as in `descend`.
fn extend<'t>(value: &'t mut Value, key: &Spanned<String>, dotted: bool) -> Result<&'t mut Table, Error> {
    let kind = value.kind();
    match value {
        Value::Table(t) => match t.origin {
            Origin::Inline => Err(cannot_add(key, kind)),
            Origin::Header if dotted => Err(Error {
                span: key.span(),
                message: format!("table `{}` has its own [header], so dotted keys cannot add to it", key.value),
            }),
            Origin::Header | Origin::Implicit | Origin::Dotted => {
                if dotted {
                    // Dotted keys added to it, so no header may define it any more.
                    t.origin = Origin::Dotted;
                }
                Ok(t)
            }
        },
        // A header below an array of tables goes into its last table.
        Value::Array(items) if !dotted => match items.last_mut() {
            Some(Spanned { value: Value::Table(t), .. }) if t.origin == Origin::Header => Ok(t),
            _ => Err(cannot_add(key, kind)),
        },
        _ => Err(cannot_add(key, kind)),
    }
}

fn cannot_add(key: &Spanned<String>, kind: &str) -> Error {
    Error { span: key.span(), message: format!("cannot add keys to `{}`: it is {kind}", key.value) }
}

fn is_bare_key(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// Control characters other than tab, which TOML allows only as escapes.
fn is_control(c: char) -> bool {
    (c < ' ' && c != '\t') || c == '\u{7f}'
}

#[cfg(test)]
mod tests;
