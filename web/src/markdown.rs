//! The markdown lessons are written in (read by `streamlab_lessons::markdown`) as Yew nodes.
//! Lesson text is never given to the page as HTML: anything else (raw tags included) shows as
//! the text it is.
//! Where the host has a console, the command lines of code (code blocks, the player's demos
//! and solutions) are buttons that put the line in it.

use streamlab_lessons::markdown::{blocks, inlines, Block, Inline};
use streamlab_view::completions;
use streamlab_view::lesson::split_connection;
use yew::prelude::*;

fn render_inlines(inlines: &[Inline]) -> Html {
    inlines
        .iter()
        .map(|inline| match inline {
            Inline::Text(text) => html! { {text.clone()} },
            Inline::Code(code) => html! { <code>{code.clone()}</code> },
            Inline::Strong(inner) => html! { <strong>{render_inlines(inner)}</strong> },
            Inline::Em(inner) => html! { <em>{render_inlines(inner)}</em> },
        })
        .collect()
}

/// Whether a line of code is one a console runs: `:clock`, or a command the console knows, on
/// the default connection or as `name> COMMAND`. Replies and prose are not.
pub fn runnable(line: &str) -> bool {
    let (_, text) = split_connection(line.trim());
    let word = text.split_once(' ').map_or(text, |(word, _)| word).to_ascii_uppercase();
    word == ":CLOCK" || (!word.is_empty() && completions(&word).contains(&word))
}

/// A line of lesson text as a button that hands it to `on_try`.
pub fn try_button(line: &str, on_try: &Callback<String>) -> Html {
    let line = line.trim().to_owned();
    let onclick = {
        let line = line.clone();
        on_try.reform(move |_: MouseEvent| line.clone())
    };
    html! { <button type="button" class="try" title="Put this line in the console (Enter runs it)" {onclick}>{line}</button> }
}

/// Lines of code (a code block, a demo, a solution) as nodes; with `on_try`, each line a
/// console runs is a [`try_button`].
pub fn code(text: &str, on_try: Option<&Callback<String>>) -> Html {
    let mut nodes = Vec::new();
    for line in text.lines() {
        if !nodes.is_empty() {
            nodes.push(Html::from("\n"));
        }
        nodes.push(match on_try.filter(|_| runnable(line)) {
            Some(on_try) => try_button(line, on_try),
            None => Html::from(line.to_owned()),
        });
    }
    Html::from_iter(nodes)
}

/// Lesson text as nodes (every string becomes a text node).
pub fn render(text: &str) -> Html {
    render_with(text, None)
}

/// Lesson text as nodes, the command lines of its code blocks [`try_button`]s when there is
/// `on_try`.
pub fn render_with(text: &str, on_try: Option<&Callback<String>>) -> Html {
    blocks(text)
        .iter()
        .map(|block| match block {
            Block::Paragraph(inlines) => html! { <p>{render_inlines(inlines)}</p> },
            Block::List { ordered: false, items } => {
                html! { <ul>{ for items.iter().map(|i| html! { <li>{render_inlines(i)}</li> }) }</ul> }
            }
            Block::List { ordered: true, items } => {
                html! { <ol>{ for items.iter().map(|i| html! { <li>{render_inlines(i)}</li> }) }</ol> }
            }
            Block::Code(text) => html! { <pre class="md-code"><code>{code(text, on_try)}</code></pre> },
        })
        .collect()
}

/// Short text on one line (an option, a title): inline marks only.
pub fn render_inline(text: &str) -> Html {
    render_inlines(&inlines(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_of_code() {
        for line in ["XADD s * f v", "worker-c> XREADGROUP GROUP g c STREAMS s >", ":clock +60s", "  xinfo groups s"] {
            assert!(runnable(line), "{line}");
        }
        for line in ["1) \"0-0\"", "(integer) 1", "XNOPE s", "", "worker-c>", "key group id"] {
            assert!(!runnable(line), "{line}");
        }
    }
}
