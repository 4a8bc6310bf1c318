//! The markdown lessons are written in, read into blocks and inline runs: paragraphs, `-`/`*`
//! and `1.` lists, fenced code blocks, and inline `code`, **strong** and *emphasis*. Anything
//! else (raw tags included) is the text it is. The player draws these with Yew
//! (web/src/markdown.rs) and the studio's preview with DOM text nodes; neither ever turns
//! lesson text into HTML.

use serde::Serialize;

/// A block of lesson text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "t", content = "c", rename_all = "lowercase")]
pub enum Block {
    /// A paragraph (its lines joined).
    Paragraph(Vec<Inline>),
    /// A list, numbered or not; each item's lines joined.
    List {
        /// `1.` items rather than `-` or `*`.
        ordered: bool,
        /// Each item's runs.
        items: Vec<Vec<Inline>>,
    },
    /// A fenced code block, as written.
    Code(String),
}

/// A run of text inside a block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "t", content = "c", rename_all = "lowercase")]
pub enum Inline {
    /// Plain text.
    Text(String),
    /// `code`.
    Code(String),
    /// **strong**.
    Strong(Vec<Inline>),
    /// *emphasis*.
    Em(Vec<Inline>),
}

/// A list item's marker: `- `, `* ` or `12. `; returns whether it is numbered and the rest.
fn item(line: &str) -> Option<(bool, &str)> {
    if let Some(rest) = line.strip_prefix("- ").or_else(|| line.strip_prefix("* ")) {
        return Some((false, rest));
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    (digits > 0).then(|| line[digits..].strip_prefix(". ").map(|rest| (true, rest))).flatten()
}

/// Splits text into blocks.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    // The text of the paragraph or list item being read.
    let mut open: Option<String> = None;
    let mut list: Option<(bool, Vec<String>)> = None;
    let mut code: Option<String> = None;
    let flush = |open: &mut Option<String>, list: &mut Option<(bool, Vec<String>)>, out: &mut Vec<Block>| {
        if let Some(text) = open.take() {
            match list {
                Some((_, items)) => items.push(text),
                None => out.push(Block::Paragraph(inlines(&text))),
            }
        }
    };
    let end_list = |list: &mut Option<(bool, Vec<String>)>, out: &mut Vec<Block>| {
        if let Some((ordered, items)) = list.take() {
            out.push(Block::List { ordered, items: items.iter().map(|i| inlines(i)).collect() });
        }
    };
    for line in text.lines() {
        if let Some(body) = &mut code {
            if line.trim_start().starts_with("```") {
                out.push(Block::Code(std::mem::take(body)));
                code = None;
            } else {
                body.push_str(line);
                body.push('\n');
            }
            continue;
        }
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            flush(&mut open, &mut list, &mut out);
            end_list(&mut list, &mut out);
            code = Some(String::new());
        } else if trimmed.is_empty() {
            flush(&mut open, &mut list, &mut out);
            end_list(&mut list, &mut out);
        } else if let Some((ordered, rest)) = item(trimmed).filter(|_| !line.starts_with("  ") || list.is_none()) {
            flush(&mut open, &mut list, &mut out);
            if list.as_ref().is_some_and(|(o, _)| *o != ordered) {
                end_list(&mut list, &mut out);
            }
            if list.is_none() {
                list = Some((ordered, Vec::new()));
            }
            open = Some(rest.to_owned());
        } else {
            match &mut open {
                Some(text) => {
                    text.push(' ');
                    text.push_str(trimmed);
                }
                None => open = Some(trimmed.to_owned()),
            }
        }
    }
    if let Some(body) = code {
        out.push(Block::Code(body));
    }
    flush(&mut open, &mut list, &mut out);
    end_list(&mut list, &mut out);
    out
}

/// Splits a block's text into inline runs. An opening mark without its closing one is text.
pub fn inlines(text: &str) -> Vec<Inline> {
    let mut out = Vec::new();
    let mut plain = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let found = match c {
            '`' => rest[1..].find('`').map(|end| (Inline::Code(rest[1..=end].to_owned()), end + 2)),
            '*' if rest.starts_with("**") => rest[2..]
                .find("**")
                .filter(|&end| end > 0)
                .map(|end| (Inline::Strong(inlines(&rest[2..end + 2])), end + 4)),
            '*' | '_' => {
                // `_` only opens emphasis at the start of a word (snake_case stays text).
                let opens = c == '*' || !plain.chars().last().is_some_and(char::is_alphanumeric);
                rest[1..]
                    .find(c)
                    .filter(|&end| opens && end > 0 && !rest[1..].starts_with(' '))
                    .map(|end| (Inline::Em(inlines(&rest[1..=end])), end + 2))
            }
            _ => None,
        };
        match found {
            Some((inline, used)) => {
                if !plain.is_empty() {
                    out.push(Inline::Text(std::mem::take(&mut plain)));
                }
                out.push(inline);
                rest = &rest[used..];
            }
            None => {
                plain.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    if !plain.is_empty() {
        out.push(Inline::Text(plain));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Inline {
        Inline::Text(s.to_owned())
    }

    #[test]
    fn inline_marks() {
        assert_eq!(
            inlines("run `XACK s g 1-0` **now**, *not* later"),
            vec![
                text("run "),
                Inline::Code("XACK s g 1-0".into()),
                text(" "),
                Inline::Strong(vec![text("now")]),
                text(", "),
                Inline::Em(vec![text("not")]),
                text(" later"),
            ]
        );
        // Unclosed marks, snake_case and a lone star stay text.
        assert_eq!(inlines("a `b and **c"), vec![text("a `b and **c")]);
        assert_eq!(inlines("last_delivered_id 2 * 3"), vec![text("last_delivered_id 2 * 3")]);
        assert_eq!(inlines("**`x`**"), vec![Inline::Strong(vec![Inline::Code("x".into())])]);
        // Raw HTML is text, never markup.
        assert_eq!(inlines("<b onclick=x>hi</b>"), vec![text("<b onclick=x>hi</b>")]);
    }

    #[test]
    fn paragraphs_lists_and_code() {
        let md = "One\nline.\n\n- **pending**: a\n  continued;\n- lag\n\n1. first\n2. second\nAfter\n\n```\nXADD s * f v\n```\n";
        assert_eq!(
            blocks(md),
            vec![
                Block::Paragraph(vec![text("One line.")]),
                Block::List {
                    ordered: false,
                    items: vec![vec![Inline::Strong(vec![text("pending")]), text(": a continued;")], vec![text("lag")]]
                },
                Block::List { ordered: true, items: vec![vec![text("first")], vec![text("second After")]] },
                Block::Code("XADD s * f v\n".into()),
            ]
        );
    }
}
