//! Reading TOML tables without serde: a table's shape is data (a list of [`Field`]s, each
//! with its [`Ty`]), [`check`] walks a value against it once, reporting unknown fields,
//! missing fields and wrong types at their span, worded as serde words them; then the reader
//! takes what it needs through [`Fields`], whose accessors cannot fail.
//!
//! (Deserializing through serde generated several times more code for the browser than the
//! parser itself. A reader per field, generic over what it returns, was still one copy of the
//! error paths and drop glue for every field of every table; one walk over data is one copy.)

use std::ops::Range;

use crate::toml::{self, Spanned, Table, Value};
use streamlab_engine::SortedMap;

/// A problem in the file's shape: where (a byte range in the text), and what. It is the
/// reader's own error type: TOML syntax errors arrive as [`crate::toml`] words them, and the
/// shape's own problems are worded as serde words them.
pub type ShapeError = toml::Error;

/// The result of reading a part of the file.
pub type Read<T> = Result<T, ShapeError>;

/// What a value must be.
#[derive(Debug, Clone, Copy)]
pub enum Ty {
    /// A string.
    Str,
    /// A boolean.
    Bool,
    /// An integer in a range.
    Int(&'static IntRange),
    /// Anything (the reader decides later what it accepts).
    Any,
    /// An array of such values.
    List(&'static Ty),
    /// A table with these fields (and no others).
    Table(&'static [Field]),
    /// A table of strings.
    StrMap,
    /// A table of integers.
    IntMap,
}

/// The integers a field takes, and their type's name in errors (`u32`, `i64`...). (Behind
/// a reference in [`Ty`], so the tables of fields stay small.)
#[derive(Debug)]
pub struct IntRange {
    /// The smallest value.
    pub min: i64,
    /// The largest value.
    pub max: i64,
    /// The type's name in errors.
    pub what: &'static str,
}

/// A `u32`.
pub const U32: Ty = Ty::Int(&IntRange { min: 0, max: u32::MAX as i64, what: "u32" });
/// A `u64` (as far as TOML's integers go).
pub const U64: Ty = Ty::Int(&IntRange { min: 0, max: i64::MAX, what: "u64" });
/// An `i64`.
pub const I64: Ty = Ty::Int(&IntRange { min: i64::MIN, max: i64::MAX, what: "i64" });
/// A `usize` on the target that reads it.
pub const USIZE: Ty =
    Ty::Int(&IntRange { min: 0, max: if usize::BITS < 64 { usize::MAX as i64 } else { i64::MAX }, what: "usize" });
/// An array of strings.
pub const STRINGS: Ty = Ty::List(&Ty::Str);

/// One field of a table: its name, what it holds, whether it must be there.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The key.
    pub name: &'static str,
    /// What its value must be.
    pub ty: Ty,
    /// Whether a table without it is an error.
    pub required: bool,
}

/// A field that must be there.
pub const fn required(name: &'static str, ty: Ty) -> Field {
    Field { name, ty, required: true }
}

/// A field that may be missing.
pub const fn optional(name: &'static str, ty: Ty) -> Field {
    Field { name, ty, required: false }
}

/// Parses a TOML document and checks its top table against `fields` (a missing top-level
/// field is reported at the start).
pub fn document(text: &str, fields: &[Field]) -> Read<Table> {
    let table = toml::parse(text)?;
    check_table(&table, 0..0, fields)?;
    Ok(table)
}

/// Checks a value against `ty`: the first problem, in the order the fields are listed (each
/// field's value checked through before the next field is looked at).
pub fn check(value: &Spanned<Value>, ty: Ty) -> Read<()> {
    let expected = match (ty, value.get_ref()) {
        (Ty::Str, Value::String(_)) | (Ty::Bool, Value::Boolean(_)) | (Ty::Any, _) => return Ok(()),
        (Ty::Int(IntRange { min, max, what }), Value::Integer(n)) => {
            if n < min || n > max {
                return Err(ShapeError {
                    span: value.span(),
                    message: format!("invalid value: integer `{n}`, expected {what}"),
                });
            }
            return Ok(());
        }
        (Ty::List(item), Value::Array(items)) => {
            for value in items {
                check(value, *item)?;
            }
            return Ok(());
        }
        (Ty::Table(fields), Value::Table(t)) => return check_table(t, value.span(), fields),
        (Ty::StrMap | Ty::IntMap, Value::Table(t)) => {
            let item = match ty {
                Ty::StrMap => Ty::Str,
                _ => Ty::Int(&IntRange { min: i64::MIN, max: i64::MAX, what: "an integer" }),
            };
            for (_, value) in t.iter() {
                check(value, item)?;
            }
            return Ok(());
        }
        (Ty::Str, _) => "a string",
        (Ty::Bool, _) => "a boolean",
        (Ty::Int(range), _) => range.what,
        (Ty::List(_), _) => "a sequence",
        (Ty::IntMap, _) => "a map of integers",
        (Ty::Table(_) | Ty::StrMap, _) => "a map",
    };
    Err(invalid(value, expected))
}

/// Checks a table: the first field (in the file's order) that `fields` does not list, then
/// each listed field in turn.
fn check_table(table: &Table, span: Range<usize>, fields: &[Field]) -> Read<()> {
    let mut unknown: Option<&Spanned<String>> = None;
    for (key, _) in table.iter() {
        let known = fields.iter().any(|f| f.name == key.get_ref());
        if !known && unknown.is_none_or(|u| key.span().start < u.span().start) {
            unknown = Some(key);
        }
    }
    if let Some(key) = unknown {
        return Err(ShapeError {
            span: key.span(),
            message: format!("unknown field `{}`, {}", key.get_ref(), expected_one_of(fields)),
        });
    }
    for field in fields {
        match table.get(field.name) {
            Some(value) => check(value, field.ty)?,
            None if field.required => {
                return Err(ShapeError { span: span.clone(), message: format!("missing field `{}`", field.name) })
            }
            None => {}
        }
    }
    Ok(())
}

/// serde's wording for the fields a table knows.
fn expected_one_of(fields: &[Field]) -> String {
    let mut names = Vec::new();
    for field in fields {
        names.push(field.name);
    }
    match names.as_slice() {
        [] => "there are no fields".to_owned(),
        [one] => format!("expected `{one}`"),
        [a, b] => format!("expected `{a}` or `{b}`"),
        all => format!("expected one of {}", quoted(all)),
    }
}

/// Names as an error lists them: `` `a`, `b` ``.
pub fn quoted(names: &[&str]) -> String {
    let mut out = String::new();
    for name in names {
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push('`');
        out.push_str(name);
        out.push('`');
    }
    out
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

/// A table [`check`] has passed, read by field name. Every accessor answers for a missing
/// field (an empty string, `None`, no items), and, the types being checked, never finds
/// another type than its own.
#[derive(Debug, Clone)]
pub struct Fields<'a> {
    table: &'a Table,
    span: Range<usize>,
}

impl<'a> Fields<'a> {
    /// A checked table, with its span (where its missing fields are reported).
    pub fn new(table: &'a Table, span: Range<usize>) -> Fields<'a> {
        Fields { table, span }
    }

    /// The table's span.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// A field's value.
    pub fn get(&self, name: &str) -> Option<&'a Spanned<Value>> {
        self.table.get(name)
    }

    /// A field's span.
    pub fn span_of(&self, name: &str) -> Option<Range<usize>> {
        self.get(name).map(Spanned::span)
    }

    /// A string field (empty when missing).
    pub fn str(&self, name: &str) -> &'a str {
        self.get(name).map_or("", text)
    }

    /// A string field, owned.
    pub fn string(&self, name: &str) -> String {
        self.str(name).to_owned()
    }

    /// A string field, `None` when missing.
    pub fn opt_string(&self, name: &str) -> Option<String> {
        self.get(name).map(|v| text(v).to_owned())
    }

    /// An integer field.
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name).map(Spanned::get_ref) {
            Some(Value::Integer(n)) => Some(*n),
            _ => None,
        }
    }

    /// A boolean field.
    pub fn bool(&self, name: &str) -> Option<bool> {
        match self.get(name).map(Spanned::get_ref) {
            Some(Value::Boolean(b)) => Some(*b),
            _ => None,
        }
    }

    /// An array field's items (none when missing).
    pub fn items(&self, name: &str) -> &'a [Spanned<Value>] {
        self.get(name).map_or(&[], items)
    }

    /// An array of strings.
    pub fn strings(&self, name: &str) -> Vec<String> {
        let mut out = Vec::new();
        for item in self.items(name) {
            out.push(text(item).to_owned());
        }
        out
    }

    /// An array of tables.
    pub fn tables(&self, name: &str) -> impl Iterator<Item = Fields<'a>> {
        self.items(name).iter().filter_map(table)
    }

    /// A table field.
    pub fn table(&self, name: &str) -> Option<Fields<'a>> {
        self.get(name).and_then(table)
    }

    /// A table of strings (empty when missing).
    pub fn string_map(&self, name: &str) -> SortedMap<String, String> {
        // Inserting keeps collect's sort out of the wasm.
        let mut out = SortedMap::new();
        if let Some(t) = self.table(name) {
            for (k, v) in t.table.iter() {
                out.insert(k.get_ref().clone(), text(v).to_owned());
            }
        }
        out
    }

    /// A table of integers (empty when missing).
    pub fn integer_map(&self, name: &str) -> SortedMap<String, i64> {
        let mut out = SortedMap::new();
        if let Some(t) = self.table(name) {
            for (k, v) in t.table.iter() {
                if let Value::Integer(n) = v.get_ref() {
                    out.insert(k.get_ref().clone(), *n);
                }
            }
        }
        out
    }
}

/// A checked string value's text.
pub fn text(value: &Spanned<Value>) -> &str {
    match value.get_ref() {
        Value::String(s) => s,
        _ => "",
    }
}

/// A checked array value's items.
pub fn items(value: &Spanned<Value>) -> &[Spanned<Value>] {
    match value.get_ref() {
        Value::Array(items) => items,
        _ => &[],
    }
}

/// A checked table value.
pub fn table(value: &Spanned<Value>) -> Option<Fields<'_>> {
    match value.get_ref() {
        Value::Table(t) => Some(Fields::new(t, value.span())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE: &[Field] = &[required("a", Ty::Str), optional("b", U32)];

    #[test]
    fn fields_types_and_unknown_keys() {
        let error = document("b = 1\nzz = 2\na = \"x\"\nyy = 3\n", SHAPE).err().unwrap();
        // The first unknown key in the file, not in key order.
        assert_eq!(error.message, "unknown field `zz`, expected `a` or `b`");
        assert_eq!(error.span, 6..8);
        let error = document("b = -3\na = \"x\"", SHAPE).unwrap_err();
        assert_eq!(error.message, "invalid value: integer `-3`, expected u32");
        let error = document("b = \"x\"\na = \"x\"", SHAPE).unwrap_err();
        assert_eq!(error.message, "invalid type: string \"x\", expected u32");
        assert_eq!(document("b = 3", SHAPE).unwrap_err().message, "missing field `a`");
        let shape = &[required("l", Ty::Any), optional("m", STRINGS), required("n", I64)];
        let doc = document("l = [1, \"two\", [3]]\nn = -3\n", shape).unwrap();
        let fields = Fields::new(&doc, 0..0);
        assert_eq!(fields.int("n"), Some(-3));
        assert_eq!(fields.strings("m"), Vec::<String>::new());
        assert_eq!(fields.items("l").len(), 3);
        let shape = &[optional("f", Ty::Str), optional("d", Ty::Bool)];
        let error = document("f = 1.5\nd = 1979-05-27\n", shape).unwrap_err();
        assert_eq!(
            (error.message.as_str(), error.span),
            ("invalid type: floating point `1.5`, expected a string", 4..7)
        );
        assert_eq!(
            document("d = 1979-05-27\n", shape).unwrap_err().message,
            "invalid type: datetime `1979-05-27`, expected a boolean"
        );
        assert_eq!(document("a = 1\na = 2\n", SHAPE).err().unwrap().span, 6..7, "syntax errors keep their span");
    }
}
