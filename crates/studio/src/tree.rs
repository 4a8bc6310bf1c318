//! A lesson file's TOML as a tree of values with their places in the text, for the studio's
//! editor: it changes a file by replacing the text of one value, or inserting a key or a
//! table at a place this tree gives, so every byte the author did not touch (comments, blank
//! lines, key order, quoting) stays as it was.
//!
//! Places are UTF-16 offsets, JavaScript's string indexes, not the reader's byte offsets.

use serde::Serialize;
use streamlab_lessons::error::line_column;
use streamlab_lessons::toml::{self, Spanned, Value};

/// One value and where it stands.
#[derive(Debug, Serialize)]
#[serde(tag = "t", rename_all = "lowercase")]
pub enum Node {
    /// A string (escapes decoded).
    String { s: [usize; 2], v: String },
    /// An integer.
    Integer { s: [usize; 2], v: i64 },
    /// A float, a boolean or a date-time, as written.
    Other { s: [usize; 2], v: String },
    /// An array; for an array of tables, each item is a table whose `s` is its header.
    Array { s: [usize; 2], items: Vec<Node> },
    /// A table: for a `[header]` table `s` is the header, for an inline table its braces,
    /// for the document 0..0, for a dotted or implicit one the key that made it. `form` says
    /// which (`header`, `inline`, `dotted`, `implicit`). Keys in the order they were defined.
    Table { s: [usize; 2], form: &'static str, keys: Vec<Key> },
}

/// A key of a table, with its value.
#[derive(Debug, Serialize)]
pub struct Key {
    /// The key.
    pub k: String,
    /// Where the key is written (for a header table, its name in the header).
    pub s: [usize; 2],
    /// Its value.
    pub v: Node,
}

/// A file that is not TOML: where and why.
#[derive(Debug, Serialize)]
pub struct Broken {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
    /// Where, as a UTF-16 offset.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

/// Byte offsets to UTF-16 offsets: identity for ASCII text, else a table.
struct Offsets(Option<Vec<u32>>);

impl Offsets {
    fn new(text: &str) -> Offsets {
        if text.is_ascii() {
            return Offsets(None);
        }
        let mut table = vec![0u32; text.len() + 1];
        let mut units = 0u32;
        for (at, c) in text.char_indices() {
            for slot in table.iter_mut().skip(at).take(c.len_utf8()) {
                *slot = units;
            }
            units += c.len_utf16() as u32;
        }
        if let Some(end) = table.last_mut() {
            *end = units;
        }
        Offsets(Some(table))
    }

    fn at(&self, byte: usize) -> usize {
        match &self.0 {
            None => byte,
            Some(table) => table.get(byte).copied().unwrap_or_default() as usize,
        }
    }

    fn span(&self, span: std::ops::Range<usize>) -> [usize; 2] {
        [self.at(span.start), self.at(span.end)]
    }
}

/// The file's tree, or where it stops being TOML.
pub fn tree(text: &str) -> Result<Node, Broken> {
    let offsets = Offsets::new(text);
    match toml::parse(text) {
        Ok(root) => Ok(table(&offsets, [0, 0], &root)),
        Err(error) => {
            let (line, column) = line_column(text, error.span.start);
            Err(Broken { line, column, at: offsets.at(error.span.start), message: error.message })
        }
    }
}

fn table(offsets: &Offsets, s: [usize; 2], table: &toml::Table) -> Node {
    let mut keys = Vec::new();
    for (key, value) in table.iter() {
        keys.push(Key { k: key.get_ref().clone(), s: offsets.span(key.span()), v: node(offsets, value) });
    }
    Node::Table { s, form: table.form(), keys }
}

fn node(offsets: &Offsets, value: &Spanned<Value>) -> Node {
    let s = offsets.span(value.span());
    match value.get_ref() {
        Value::String(v) => Node::String { s, v: v.clone() },
        Value::Integer(v) => Node::Integer { s, v: *v },
        Value::Float(v) | Value::Datetime(v) => Node::Other { s, v: v.clone() },
        Value::Boolean(v) => Node::Other { s, v: v.to_string() },
        Value::Array(items) => Node::Array { s, items: items.iter().map(|item| node(offsets, item)).collect() },
        Value::Table(t) => table(offsets, s, t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_utf16_offsets_of_keys_values_and_headers() {
        let text = "title = \"é😀\" # note\n[[task]]\nkind = \"choice\"\n";
        let Node::Table { keys, .. } = tree(text).unwrap() else { panic!("a table") };
        let Node::String { s, v } = &keys[0].v else { panic!("a string") };
        assert_eq!((v.as_str(), *s), ("é😀", [8, 13]));
        assert_eq!(&text.encode_utf16().collect::<Vec<_>>()[8..13], &"\"é😀\"".encode_utf16().collect::<Vec<_>>()[..]);
        let Node::Array { items, .. } = &keys[1].v else { panic!("an array of tables") };
        let Node::Table { s, keys, .. } = &items[0] else { panic!("a table") };
        let header = &text.encode_utf16().collect::<Vec<_>>()[s[0]..s[1]];
        assert_eq!(String::from_utf16_lossy(header), "[[task]]");
        assert_eq!(keys[0].k, "kind");
    }

    #[test]
    fn broken_files_say_where() {
        let broken = tree("a = 1\nb = [\n").unwrap_err();
        assert_eq!((broken.line, broken.message.contains("unclosed")), (2, true));
    }
}
