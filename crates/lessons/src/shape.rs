//! Reading TOML tables field by field, without serde: the spans [`crate::toml`] keeps, an
//! error for every field a table does not know, and type errors at the value. (Deserializing
//! the lesson's shape through serde generated several times more code for the browser than the
//! parser itself; this reader keeps serde's messages.)

use std::ops::Range;

use crate::toml::{self, Spanned, Table, Value};
use streamlab_engine::SortedMap;

/// A problem in the file's shape: where (a byte range in the text), and what. It is the
/// reader's own error type: TOML syntax errors arrive as [`crate::toml`] words them, and the
/// shape's own problems are worded as serde words them.
pub type ShapeError = toml::Error;

/// The result of reading a part of the file.
pub type Read<T> = Result<T, ShapeError>;

/// Parses a TOML document into its top table (whose span is empty, at the start: a missing
/// top-level field is reported there).
pub fn document(text: &str) -> Read<Spanned<Table>> {
    toml::parse(text).map(|table| Spanned::new(0..0, table))
}

/// A table whose fields are read by name; it has no field outside `known`.
pub struct Fields<'a> {
    table: &'a Table,
    span: Range<usize>,
}

impl<'a> Fields<'a> {
    /// Starts reading a table: the first field (in the file's order) that is not `known` is
    /// an error.
    pub fn new(table: &'a Table, span: Range<usize>, known: &[&str]) -> Read<Fields<'a>> {
        let unknown = table
            .iter()
            .filter(|(key, _)| !known.contains(&key.get_ref().as_str()))
            .min_by_key(|(key, _)| key.span().start);
        if let Some((key, _)) = unknown {
            return Err(ShapeError {
                span: key.span(),
                message: format!("unknown field `{}`, {}", key.get_ref(), expected_one_of(known)),
            });
        }
        Ok(Fields { table, span })
    }

    fn get(&self, name: &str) -> Option<&'a Spanned<Value>> {
        self.table.get(name)
    }

    /// A field that must be there.
    pub fn required<T>(&self, name: &str, read: impl Fn(&'a Spanned<Value>) -> Read<T>) -> Read<T> {
        match self.get(name) {
            Some(value) => read(value),
            None => Err(ShapeError { span: self.span.clone(), message: format!("missing field `{name}`") }),
        }
    }

    /// A field that may be missing.
    pub fn optional<T>(&self, name: &str, read: impl Fn(&'a Spanned<Value>) -> Read<T>) -> Read<Option<T>> {
        self.get(name).map(read).transpose()
    }

    /// A field that takes a default when missing.
    pub fn or_default<T: Default>(&self, name: &str, read: impl Fn(&'a Spanned<Value>) -> Read<T>) -> Read<T> {
        Ok(self.optional(name, read)?.unwrap_or_default())
    }
}

/// Names as an error lists them: `` `a`, `b` ``.
pub fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// serde's wording for the fields a table knows.
fn expected_one_of(known: &[&str]) -> String {
    let quoted: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    match quoted.as_slice() {
        [] => "there are no fields".to_owned(),
        [one] => format!("expected {one}"),
        [a, b] => format!("expected {a} or {b}"),
        all => format!("expected one of {}", all.join(", ")),
    }
}

fn invalid(value: &Spanned<Value>, expected: &str) -> ShapeError {
    let found = match value.get_ref() {
        Value::String(s) => format!("string \"{s}\""),
        Value::Integer(n) => format!("integer `{n}`"),
        Value::Float(f) => format!("floating point `{f}`"),
        Value::Boolean(b) => format!("boolean `{b}`"),
        Value::Datetime(d) => format!("datetime `{d}`"),
        Value::Array(_) => "sequence".to_owned(),
        Value::Table(_) => "map".to_owned(),
    };
    ShapeError { span: value.span(), message: format!("invalid type: {found}, expected {expected}") }
}

/// A string.
pub fn string(value: &Spanned<Value>) -> Read<String> {
    match value.get_ref() {
        Value::String(s) => Ok(s.clone()),
        _ => Err(invalid(value, "a string")),
    }
}

/// A value read by `read`, with its span.
pub fn keep_span<'a, T>(
    value: &'a Spanned<Value>,
    read: impl FnOnce(&'a Spanned<Value>) -> Read<T>,
) -> Read<Spanned<T>> {
    Ok(Spanned::new(value.span(), read(value)?))
}

/// A string with its span.
pub fn spanned_string(value: &Spanned<Value>) -> Read<Spanned<String>> {
    keep_span(value, string)
}

/// A boolean.
pub fn boolean(value: &Spanned<Value>) -> Read<bool> {
    match value.get_ref() {
        Value::Boolean(b) => Ok(*b),
        _ => Err(invalid(value, "a boolean")),
    }
}

/// An integer that fits `T` (`what` names `T` in errors).
pub fn integer<T: TryFrom<i64>>(value: &Spanned<Value>, what: &str) -> Read<T> {
    let Value::Integer(n) = value.get_ref() else { return Err(invalid(value, what)) };
    T::try_from(*n).map_err(|_| ShapeError {
        span: value.span(),
        message: format!("invalid value: integer `{n}`, expected {what}"),
    })
}

/// An array, each item read by `item`.
pub fn array<'a, T>(value: &'a Spanned<Value>, item: impl Fn(&'a Spanned<Value>) -> Read<T>) -> Read<Vec<T>> {
    let Value::Array(items) = value.get_ref() else { return Err(invalid(value, "a sequence")) };
    // A plain loop: `collect` into a `Result` costs the browser an adapter per item type.
    let mut out = Vec::with_capacity(items.len());
    for value in items.iter() {
        out.push(item(value)?);
    }
    Ok(out)
}

/// A table, read by `read` from its fields (which must all be `known`).
pub fn table<'a, T>(
    value: &'a Spanned<Value>,
    known: &[&str],
    read: impl Fn(&Fields<'a>) -> Read<T>,
) -> Read<Spanned<T>> {
    match value.get_ref() {
        Value::Table(t) => Ok(Spanned::new(value.span(), read(&Fields::new(t, value.span(), known)?)?)),
        _ => Err(invalid(value, "a map")),
    }
}

/// A table of strings.
pub fn string_map(value: &Spanned<Value>) -> Read<SortedMap<String, String>> {
    match value.get_ref() {
        Value::Table(t) => {
            // A plain loop, as in `array`; and inserting keeps collect's sort out of the wasm.
            let mut out = SortedMap::new();
            for (k, v) in t.iter() {
                out.insert(k.get_ref().clone(), string(v)?);
            }
            Ok(out)
        }
        _ => Err(invalid(value, "a map")),
    }
}

/// A value kept as it is, for checks that decide later what they accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loose {
    /// An integer.
    Int(i64),
    /// A string.
    Str(String),
    /// An array.
    List(Vec<Loose>),
    /// Anything else.
    Other,
}

/// Any value, as a [`Loose`] one.
pub fn loose(value: &Spanned<Value>) -> Read<Loose> {
    Ok(match value.get_ref() {
        Value::Integer(n) => Loose::Int(*n),
        Value::String(s) => Loose::Str(s.clone()),
        Value::Array(items) => Loose::List(items.iter().map(loose).collect::<Read<_>>()?),
        _ => Loose::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_types_and_unknown_keys() {
        let doc = document("b = 1\nzz = 2\na = \"x\"\nyy = 3\n").unwrap();
        let error = Fields::new(doc.get_ref(), doc.span(), &["a", "b"]).err().unwrap();
        // The first unknown key in the file, not in key order.
        assert_eq!(error.message, "unknown field `zz`, expected `a` or `b`");
        assert_eq!(error.span, 6..8);
        let doc = document("a = \"x\"\nn = -3\nl = [1, \"two\", [3]]\n").unwrap();
        let fields = Fields::new(doc.get_ref(), doc.span(), &["a", "n", "l", "m"]).unwrap();
        assert_eq!(fields.required("a", string).unwrap(), "x");
        assert_eq!(fields.required("n", |v| integer::<i64>(v, "i64")).unwrap(), -3);
        let error = fields.required("n", |v| integer::<u32>(v, "u32")).unwrap_err();
        assert_eq!(error.message, "invalid value: integer `-3`, expected u32");
        assert_eq!(
            fields.required("a", |v| integer::<u32>(v, "u32")).unwrap_err().message,
            "invalid type: string \"x\", expected u32"
        );
        assert_eq!(fields.required("m", string).unwrap_err().message, "missing field `m`");
        assert_eq!(fields.or_default("m", |v| array(v, string)).unwrap(), Vec::<String>::new());
        assert_eq!(
            fields.required("l", loose).unwrap(),
            Loose::List(vec![Loose::Int(1), Loose::Str("two".into()), Loose::List(vec![Loose::Int(3)])])
        );
        let doc = document("f = 1.5\nd = 1979-05-27\n").unwrap();
        let fields = Fields::new(doc.get_ref(), doc.span(), &["f", "d"]).unwrap();
        let error = fields.required("f", string).unwrap_err();
        assert_eq!(
            (error.message.as_str(), error.span),
            ("invalid type: floating point `1.5`, expected a string", 4..7)
        );
        assert_eq!(
            fields.required("d", boolean).unwrap_err().message,
            "invalid type: datetime `1979-05-27`, expected a boolean"
        );
        assert_eq!(document("a = 1\na = 2\n").err().unwrap().span, 6..7, "syntax errors keep their span");
    }
}
