//! The reader against the spec's examples and errors.

use super::*;

fn value(text: &str) -> Value {
    let doc = parse(&format!("v = {text}\n")).unwrap_or_else(|e| panic!("{text}: {e:?}"));
    doc.get("v").unwrap().get_ref().clone()
}

fn string(text: &str) -> String {
    match value(text) {
        Value::String(s) => s,
        other => panic!("{text}: {other:?}"),
    }
}

/// The error's message and the text its span covers.
fn error(text: &str) -> (String, &str) {
    let e = parse(text).expect_err(text);
    (e.message, &text[e.span])
}

#[test]
fn keys_tables_and_spans() {
    let text =
        "# top\na = 1 # one\n\"b c\" = 'x'\nd.e = true\n[t]\nk = \"v\"\n[[arr]]\nn = 1\n[[arr.sub]]\nm = 2\n[[arr]]\n";
    let doc = parse(text).unwrap();
    let keys: Vec<&str> = doc.iter().map(|(k, _)| k.get_ref().as_str()).collect();
    assert_eq!(keys, ["a", "b c", "d", "t", "arr"]);
    let span = |v: &Spanned<Value>| &text[v.span()];
    assert_eq!(span(doc.get("a").unwrap()), "1");
    assert_eq!(span(doc.get("b c").unwrap()), "'x'");
    let (key, _) = doc.iter().nth(1).unwrap();
    assert_eq!(&text[key.span()], "\"b c\"");
    let Value::Table(d) = doc.get("d").unwrap().get_ref() else { panic!() };
    assert_eq!(d.get("e").unwrap().get_ref(), &Value::Boolean(true));
    let t = doc.get("t").unwrap();
    assert_eq!(span(t), "[t]", "a header table spans its header");
    let Value::Array(arr) = doc.get("arr").unwrap().get_ref() else { panic!() };
    assert_eq!(arr.len(), 2);
    assert_eq!(span(&arr[0]), "[[arr]]");
    let Value::Table(first) = arr[0].get_ref() else { panic!() };
    assert_eq!(first.get("n").unwrap().get_ref(), &Value::Integer(1));
    // `[[arr.sub]]` went into the last `[[arr]]` of its time.
    let Value::Array(sub) = first.get("sub").unwrap().get_ref() else { panic!() };
    let Value::Table(sub) = sub[0].get_ref() else { panic!() };
    assert_eq!(sub.get("m").unwrap().get_ref(), &Value::Integer(2));
    let Value::Table(second) = arr[1].get_ref() else { panic!() };
    assert_eq!(second.iter().count(), 0);
}

#[test]
fn implicit_and_dotted_tables() {
    // `[a]` may define a table first named by `[a.b]`, keeping `b`.
    let doc = parse("[a.b]\nx = 1\n[a]\ny = 2\n").unwrap();
    let Value::Table(a) = doc.get("a").unwrap().get_ref() else { panic!() };
    assert_eq!(a.iter().count(), 2);
    // A header may define tables below one made by dotted keys.
    let doc = parse("[f]\napple.color = 'red'\n[f.apple.texture]\nsmooth = true\n").unwrap();
    let Value::Table(f) = doc.get("f").unwrap().get_ref() else { panic!() };
    let Value::Table(apple) = f.get("apple").unwrap().get_ref() else { panic!() };
    assert_eq!(apple.iter().count(), 2);
    assert!(parse("a.b = 1\na.c = 2\n").is_ok());
    assert!(parse("a . b = 1\n").is_ok(), "spaces around the dot");
}

#[test]
fn strings() {
    assert_eq!(string(r#""a\b\t\n\f\r\"\\\e\x41\u00e9\U0001F600""#), "a\u{8}\t\n\u{c}\r\"\\\u{1b}Aé😀");
    assert_eq!(string(r"'C:\no\escape'"), r"C:\no\escape");
    assert_eq!(string("\"\"\"\nfirst\nsecond\"\"\""), "first\nsecond", "the first newline is trimmed");
    assert_eq!(string("\"\"\"\r\nwin\r\nlines\"\"\""), "win\r\nlines");
    assert_eq!(string("\"\"\"one \\\n    two \\  \n\n  three\"\"\""), "one two three");
    assert_eq!(string("\"\"\"say \"\"hi\"\"\"\"\""), "say \"\"hi\"\"");
    assert_eq!(string("'''\nraw \\n 'quoted' ''\n'''"), "raw \\n 'quoted' ''\n");
    assert_eq!(string("''''x'''''"), "'x''");
    assert_eq!(string("\"tab\there\""), "tab\there");
    assert_eq!(string("\"\""), "");
}

#[test]
fn numbers_booleans_and_dates() {
    assert_eq!(value("+1_000"), Value::Integer(1000));
    assert_eq!(value("-17"), Value::Integer(-17));
    assert_eq!(value("0"), Value::Integer(0));
    assert_eq!(value("0xDEAD_beef"), Value::Integer(0xdead_beef));
    assert_eq!(value("0o755"), Value::Integer(0o755));
    assert_eq!(value("0b1101"), Value::Integer(13));
    assert_eq!(value("-9223372036854775808"), Value::Integer(i64::MIN));
    assert_eq!(value("9223372036854775807"), Value::Integer(i64::MAX));
    assert_eq!(value("false"), Value::Boolean(false));
    for float in ["1.5", "-0.01", "5e+22", "1e06", "6.626E-34", "1_000.5", "inf", "-nan", "+inf"] {
        assert_eq!(value(float), Value::Float(float.to_owned()), "{float}");
    }
    for date in [
        "1979-05-27T07:32:00Z",
        "1979-05-27T00:32:00.999999-07:00",
        "1979-05-27 07:32:00",
        "1979-05-27",
        "07:32:00",
        "00:32:00.5",
        "2024-02-29t23:59",
    ] {
        assert_eq!(value(date), Value::Datetime(date.to_owned()), "{date}");
    }
}

#[test]
fn arrays_and_inline_tables() {
    let v = value("[\n  1, # one\n  'two',\n  [3],\n\n]");
    let Value::Array(items) = v else { panic!() };
    let kinds: Vec<&str> = items.iter().map(|i| i.get_ref().kind()).collect();
    assert_eq!(kinds, ["an integer", "a string", "an array"]);
    assert_eq!(value("[]"), Value::Array(Vec::new()));
    let text = "t = { a = 1, b.c = \"x\", 'd' = { e = [] } }\n";
    let doc = parse(text).unwrap();
    let t = doc.get("t").unwrap();
    assert_eq!(&text[t.span()], &text[4..text.len() - 1]);
    let Value::Table(t) = t.get_ref() else { panic!() };
    assert_eq!(t.get("a").unwrap().get_ref(), &Value::Integer(1));
    assert_eq!(&text[t.get("a").unwrap().span()], "1");
    assert_eq!(value("{}").kind(), "an inline table");
    // TOML 1.1: newlines, comments and a trailing comma.
    assert!(parse("t = {\n  a = 1, # c\n  b = 2,\n}\n").is_ok());
}

#[test]
fn crlf_comments_and_bom() {
    let doc = parse("\u{feff}a = 1\r\n# c\r\n[t]\r\nb = 'x' # done\r\n").unwrap();
    assert_eq!(doc.iter().count(), 2);
    assert_eq!(parse("").unwrap().iter().count(), 0);
    assert_eq!(parse("# only a comment").unwrap().iter().count(), 0);
}

#[test]
fn syntax_errors_point_at_their_bytes() {
    assert_eq!(error("a = 1\na = 2\n"), ("duplicate key `a`, first defined on line 1".into(), "a"));
    assert_eq!(error("[t]\n[t]\n"), ("duplicate key `t`, first defined on line 1".into(), "t"));
    assert_eq!(error("t = 1\n[t]\n").0, "duplicate key `t`, first defined on line 1");
    assert_eq!(error("a.b = 1\n[a]\n").0, "duplicate key `a`, first defined on line 1");
    assert_eq!(error("a.b = 1\na.b = 2\n"), ("duplicate key `b`, first defined on line 1".into(), "b"));
    assert_eq!(error("a = [1]\n[[a]]\n").0, "duplicate key `a`, first defined on line 1");
    assert_eq!(error("[[a]]\n[a]\n").0, "duplicate key `a`, first defined on line 1");
    assert_eq!(error("[a]\nb.c = 1\n[a.b]\n").0, "duplicate key `b`, first defined on line 2");
    assert_eq!(
        error("[a.b]\n[a]\nb.c = 1\n"),
        ("table `b` has its own [header], so dotted keys cannot add to it".into(), "b")
    );
    assert_eq!(error("a = 1\na.b = 2\n"), ("cannot add keys to `a`: it is an integer".into(), "a"));
    assert_eq!(error("a = {}\na.b = 2\n").0, "cannot add keys to `a`: it is an inline table");
    assert_eq!(error("a = {}\n[a.b]\n").0, "cannot add keys to `a`: it is an inline table");
    assert_eq!(error("a = [{}]\n[a.b]\n").0, "cannot add keys to `a`: it is an array");
    // Dotted keys cannot reach into an array of tables (the `toml` crate let this pass).
    assert_eq!(error("[[a.b]]\n[a]\nb.c = 1\n"), ("cannot add keys to `b`: it is an array".into(), "b"));
    assert_eq!(error("t = {a = 1, a = 2}\n").0, "duplicate key `a`, first defined on line 1");
    assert_eq!(
        error("a = \"open\nb = 1\n"),
        ("unterminated string: close it with `\"` on its line, or use `\"\"\"` for several lines".into(), "\"open")
    );
    assert_eq!(error("a = 'open"), ("unterminated string: `'` is missing".into(), "'open"));
    assert_eq!(
        error("a = \"\"\"\nopen\n"),
        ("unterminated multi-line string: `\"\"\"` is missing".into(), "\"\"\"\nopen\n")
    );
    assert_eq!(error("a = \"\\q\""), ("invalid escape `\\q`".into(), "\\q"));
    assert_eq!(error("a = \"\\u12\""), ("invalid escape: `\\u` takes 4 hex digits".into(), "\\u"));
    assert_eq!(error("a = \"\\uD800\""), ("invalid escape `\\uD800`: not a Unicode scalar value".into(), "\\uD800"));
    assert_eq!(error("a = \"x \\ y\"").0, "invalid escape `\\ `");
    assert_eq!(error("a = \"\"\"x \\ y\"\"\"").0, "a `\\` followed by spaces must end its line");
    assert_eq!(
        error("a = \"bell\u{7}\""),
        ("the control character U+0007 is not allowed in a string (write it as `\\u0007`)".into(), "\u{7}")
    );
    assert_eq!(error("a = 'cr\rx'").0, "the control character U+000D is not allowed in a string");
    assert_eq!(
        error("# bell \u{7}\n"),
        ("expected the end of the comment, found the control character U+0007".into(), "\u{7}")
    );
    assert_eq!(error("a = 1\rb = 2").0, "expected the end of the line, found the control character U+000D");
    assert_eq!(error("a 1\n"), ("expected `=` after the key `a`, found `1`".into(), "1"));
    assert_eq!(error("a = 1 2\n"), ("expected the end of the line, found `2`".into(), "2"));
    assert_eq!(error("a =\n"), ("expected a value, found the end of the line".into(), "\n"));
    assert_eq!(error("a = "), ("expected a value, found the end of the file".into(), ""));
    assert_eq!(error("= 1\n"), ("expected a key, found `=`".into(), "="));
    assert_eq!(error("a = hello\n"), ("`hello` is not a TOML value (strings need quotes)".into(), "hello"));
    assert_eq!(error("a = 99999999999999999999\n").0, "the integer `99999999999999999999` does not fit in 64 bits");
    for bad in [
        "01",
        "1__0",
        "_1",
        "1_",
        "0x",
        "+0x1",
        "1.",
        ".5",
        "1e",
        "1.e5",
        "2024-13-01",
        "2023-02-29",
        "24:00:00",
        "1979-05-27T07:32:00+25:00",
        "True",
    ] {
        assert!(error(&format!("a = {bad}\n")).0.contains("is not a TOML value"), "{bad}");
    }
    assert_eq!(error("a = [1 2]\n"), ("expected `,` or `]` in the array, found `2`".into(), "2"));
    assert_eq!(error("a = [1,,]\n").0, "expected a value, found `,`");
    assert_eq!(error("a = [1,\n"), ("unclosed array: `]` is missing".into(), "["));
    assert_eq!(error("a = {b = 1 c = 2}\n").0, "expected `,` or `}` in the inline table, found `c`");
    assert_eq!(error("a = {b = 1"), ("unclosed inline table: `}` is missing".into(), "{"));
    assert_eq!(error("[t\n"), ("expected `]` to close the table header, found the end of the line".into(), "\n"));
    assert_eq!(error("[[t]\n").0, "expected `]]` to close the table header, found `]`");
    assert_eq!(error("[]\n").0, "expected a key, found `]`");
    assert_eq!(error("[t] x\n").0, "expected the end of the line, found `x`");
    assert_eq!(error("\"\"\"k\"\"\" = 1\n").0, "expected `=` after the key ``, found `\"`");
    let deep = format!("a = {}{}\n", "[".repeat(100), "]".repeat(100));
    assert_eq!(error(&deep).0, "arrays and inline tables nest too deeply");
    let long = format!("[{}]\n", vec!["a"; 100].join("."));
    assert_eq!(error(&long), ("a dotted key with too many parts".into(), &long[1..131]));
    assert!(parse(&format!("{} = 1\n", vec!["a"; 60].join("."))).is_ok());
}

#[test]
fn tables_and_documents_have_limits() {
    let keys = |n: usize| (0..n).map(|i| format!("k{i} = {i}\n")).collect::<String>();
    assert!(parse(&keys(MAX_KEYS)).is_ok());
    assert_eq!(error(&keys(MAX_KEYS + 1)), ("a table with more than 1000 keys".to_owned(), "k1000"));
    // Every way of adding a key counts: dotted keys, headers, inline tables.
    let dotted = (0..=MAX_KEYS).map(|i| format!("t.k{i} = 1\n")).collect::<String>();
    assert_eq!(error(&dotted).1, "k1000");
    let headers = (0..=MAX_KEYS).map(|i| format!("[h{i}]\n")).collect::<String>();
    assert_eq!(error(&headers).1, "h1000");
    let inline = format!("t = {{{}}}", (0..=MAX_KEYS).map(|i| format!("k{i} = 1")).collect::<Vec<_>>().join(", "));
    assert_eq!(error(&inline).1, "k1000");
    let big = format!("a = \"{}\"\n", "x".repeat(MAX_DOCUMENT));
    assert_eq!(parse(&big).unwrap_err().message, "the file is larger than a lesson may be (1 MiB)");
}
