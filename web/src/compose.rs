//! The command palette under the console input. On a touch screen (a coarse pointer) it
//! composes a whole command by tapping: command names, then the options the command's syntax
//! offers (the same completions and syntax hint as Tab), and the keys, groups, consumers, ids
//! and fields the snapshot holds, then runs it. With a mouse it offers ready-made templates.

use std::rc::Rc;

use streamlab_view::view::{RailItem, SnapshotView};
use streamlab_view::{command_line, completions, ends_in_word, is_separator, last_word_start, syntax_hint, words};
use yew::prelude::*;

/// Templates put into the input with a click (mouse and keyboard screens).
const TEMPLATES: &[(&str, &str)] = &[
    ("XADD", "XADD jobs * type email"),
    ("XGROUP CREATE", "XGROUP CREATE jobs workers $ MKSTREAM"),
    ("XREADGROUP", "XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >"),
    ("XACK", "XACK jobs workers "),
    ("XPENDING", "XPENDING jobs workers"),
    ("XCLAIM", "XCLAIM jobs workers bob 0 "),
    ("XAUTOCLAIM", "XAUTOCLAIM jobs workers bob 1000 0-0"),
    ("XINFO GROUPS", "XINFO GROUPS jobs"),
    ("XDEL", "XDEL jobs "),
    ("XTRIM", "XTRIM jobs MAXLEN 2"),
];

/// At most this many suggestions of one kind taken from the snapshot.
const SUGGESTED: usize = 8;

/// What can be tapped next, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Commands,
    Options,
    Keys,
    Groups,
    Consumers,
    Ids,
    Fields,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Commands => "Commands",
            Kind::Options => "Options",
            Kind::Keys => "Keys",
            Kind::Groups => "Groups",
            Kind::Consumers => "Consumers",
            Kind::Ids => "IDs",
            Kind::Fields => "Fields and values",
        }
    }
}

/// The line with `word` tapped in: it completes a partly typed last word it extends, and
/// otherwise follows it; a space after, ready for the next word.
pub fn insert(line: &str, word: &str) -> String {
    let word = command_line(&[word.as_bytes().to_vec()]);
    if !ends_in_word(line) {
        return format!("{line}{word} ");
    }
    // Split where the console's completion does: a pasted U+00A0 or U+3000 belongs to its word.
    let (before, partial) = line.split_at_checked(last_word_start(line)).unwrap_or((line, ""));
    // `get`: the word's bytes at the partial's length may fall inside one of its characters.
    if word.len() > partial.len() && word.get(..partial.len()).is_some_and(|head| head.eq_ignore_ascii_case(partial)) {
        format!("{before}{word} ")
    } else {
        format!("{line} {word} ")
    }
}

/// The line without its last word.
pub fn drop_word(line: &str) -> String {
    let kept = line.trim_end_matches(is_separator);
    kept.get(..last_word_start(kept)).unwrap_or_default().to_owned()
}

fn push(list: &mut Vec<String>, word: &str) {
    if list.len() < SUGGESTED && !list.iter().any(|w| w == word) {
        list.push(word.to_owned());
    }
}

/// The suggestions for the next word of `line`, most likely kind first (from the syntax hint
/// and the word before), each kind with its words.
pub fn suggest(line: &str, snapshot: &SnapshotView) -> Vec<(Kind, Vec<String>)> {
    let words: Vec<&str> = words(line).collect();
    let typing_first = words.is_empty() || (words.len() == 1 && ends_in_word(line));
    if typing_first {
        return vec![(Kind::Commands, completions(line))];
    }
    let command = words[0].to_ascii_uppercase();
    let upper: Vec<String> = words.iter().map(|w| w.to_ascii_uppercase()).collect();
    // The streams the line names, to offer their groups, consumers, ids and fields.
    let named: Vec<_> = snapshot.streams.iter().filter(|s| words.contains(&s.key.as_str())).collect();
    let streams = if named.is_empty() { snapshot.streams.iter().collect() } else { named };

    let mut keys = Vec::new();
    for key in snapshot.streams.iter().map(|s| &s.key).chain(snapshot.other_keys.iter().map(|k| &k.key)) {
        push(&mut keys, key);
    }
    let mut groups = Vec::new();
    let mut consumers = Vec::new();
    let mut ids = Vec::new();
    let specials: &[&str] = match command.as_str() {
        "XADD" => &["*"],
        "XREADGROUP" => &[">", "0"],
        "XREAD" => &["$", "0", "+"],
        "XGROUP" => &["$", "0"],
        "XRANGE" | "XPENDING" => &["-", "+"],
        "XREVRANGE" => &["+", "-"],
        "XAUTOCLAIM" => &["0-0"],
        _ => &[],
    };
    for id in specials {
        push(&mut ids, id);
    }
    let mut fields = Vec::new();
    for stream in &streams {
        for group in &stream.groups {
            push(&mut groups, &group.name);
            for consumer in &group.consumers {
                push(&mut consumers, &consumer.name);
                for card in consumer.pending.iter().take(3) {
                    push(&mut ids, &card.id);
                }
            }
        }
        let entries = stream.rail.iter().rev().flat_map(|item| match item {
            RailItem::Node(node) => node.entries.iter().rev().collect::<Vec<_>>(),
            RailItem::Collapsed(_) => Vec::new(),
        });
        for entry in entries.filter(|e| !e.deleted).take(SUGGESTED) {
            push(&mut ids, &entry.id);
            for (field, value) in &entry.fields {
                push(&mut fields, field);
                push(&mut fields, value);
            }
        }
    }
    for conn in &snapshot.connections {
        push(&mut consumers, &conn.name);
    }
    let spaced = format!("{} ", line.trim_end_matches(is_separator));
    let options = completions(&spaced);

    // What comes next: the hint's first word, or what the word before asks for.
    let hint = syntax_hint(&spaced).unwrap_or_default();
    let next = hint.split_whitespace().next().unwrap_or("").trim_matches(|c| matches!(c, '[' | ']' | '<' | '>' | '.'));
    let before = upper.last().map_or("", String::as_str);
    let after_streams = upper.iter().any(|w| w == "STREAMS");
    // XADD's options come before the id; once the id is there, fields and values follow.
    let after_id =
        command == "XADD" && words.iter().skip(2).any(|w| *w == "*" || w.starts_with(|c: char| c.is_ascii_digit()));
    let first = match (before, next) {
        _ if after_id => Kind::Fields,
        ("STREAMS", _) => Kind::Keys,
        ("GROUP", _) | (_, "group") => Kind::Groups,
        (_, "consumer") => Kind::Consumers,
        _ if upper.len() >= 2 && upper[upper.len() - 2] == "GROUP" => Kind::Consumers,
        (_, "key") => Kind::Keys,
        _ if after_streams => Kind::Ids,
        (_, "id" | "start" | "end" | "id | $") => Kind::Ids,
        (_, "field" | "value") => Kind::Fields,
        (_, n) if n.chars().next().is_some_and(|c| c.is_ascii_uppercase()) => Kind::Options,
        _ if words.len() == 1 => Kind::Keys,
        _ => Kind::Ids,
    };
    let mut kinds = vec![
        (Kind::Keys, keys),
        (Kind::Options, options),
        (Kind::Groups, groups),
        (Kind::Consumers, consumers),
        (Kind::Ids, ids),
        (Kind::Fields, fields),
    ];
    kinds.retain(|(_, words)| !words.is_empty());
    if let Some(at) = kinds.iter().position(|(kind, _)| *kind == first) {
        let likely = kinds.remove(at);
        kinds.insert(0, likely);
    }
    kinds
}

#[derive(Properties, PartialEq)]
pub struct ComposeProps {
    /// The console input's line.
    pub line: String,
    pub snapshot: Rc<SnapshotView>,
    /// A touch screen: compose by tapping.
    pub touch: bool,
    /// Replaces the input's line.
    pub on_edit: Callback<String>,
    /// Runs the input's line.
    pub on_run: Callback<()>,
}

#[component]
pub fn Compose(props: &ComposeProps) -> Html {
    let chip = |label: &str, line: String| {
        let on_edit = props.on_edit.clone();
        html! { <button type="button" class="chip" onclick={move |_| on_edit.emit(line.clone())}>{label.to_owned()}</button> }
    };
    if !props.touch {
        return html! {
            <div class="palette" role="group" aria-label="Command templates">
                { for TEMPLATES.iter().map(|(label, template)| chip(label, (*template).to_owned())) }
            </div>
        };
    }
    let line = &props.line;
    let hint = syntax_hint(line).unwrap_or_default();
    let sections = suggest(line, &props.snapshot).into_iter().enumerate().map(|(i, (kind, words))| {
        let chips = |words: &[String]| words.iter().map(|w| chip(w, insert(line, w))).collect::<Html>();
        let body = if kind == Kind::Commands {
            // Stream commands first; the rest behind a disclosure.
            let (streams, others): (Vec<String>, Vec<String>) = words.into_iter().partition(|w| w.starts_with('X'));
            html! {
                <>
                    <div class="chips">{chips(&streams)}</div>
                    if !others.is_empty() {
                        <details><summary>{format!("Other commands ({})", others.len())}</summary><div class="chips">{chips(&others)}</div></details>
                    }
                </>
            }
        } else {
            html! { <div class="chips">{chips(&words)}</div> }
        };
        html! {
            <div class={classes!("compose-kind", (i == 0).then_some("likely"))} role="group" aria-label={kind.label()}>
                <h3>{kind.label()}{if i == 0 && kind != Kind::Commands { " (next)" } else { "" }}</h3>
                {body}
            </div>
        }
    });
    let on_run = props.on_run.clone();
    let empty = line.trim().is_empty();
    html! {
        <section class="compose" aria-label="Compose a command by tapping">
            <div class="compose-bar">
                <button type="button" class="primary run" disabled={empty} onclick={move |_| on_run.emit(())}>{"Run ⏎"}</button>
                {chip("⌫ word", drop_word(line))}
                {chip("Clear", String::new())}
                <span class="compose-hint">{ if hint.trim().is_empty() { "tap words to build a command".to_owned() } else { format!("next:{hint}") } }</span>
            </div>
            { for sections }
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamlab_view::{Playground, SessionSpec};

    #[test]
    fn taps_insert_words_and_backspace_drops_them() {
        assert_eq!(insert("", "XACK"), "XACK ");
        assert_eq!(insert("xa", "XACK"), "XACK ");
        assert_eq!(insert("XACK jobs", "workers"), "XACK jobs workers ");
        assert_eq!(insert("XACK ", "my key"), "XACK \"my key\" ");
        assert_eq!(drop_word("XACK jobs workers "), "XACK jobs ");
        assert_eq!(drop_word("XACK"), "");
    }

    #[test]
    fn suggestions_follow_the_syntax_and_the_snapshot() {
        let mut p = Playground::new(&SessionSpec::default());
        for line in [
            "XGROUP CREATE jobs workers $ MKSTREAM",
            "XADD jobs 1-0 type email",
            "XREADGROUP GROUP workers alice COUNT 1 STREAMS jobs >",
        ] {
            p.run(line);
        }
        let s = p.snapshot();
        let first = |line: &str| suggest(line, s).into_iter().next().unwrap();
        let (kind, words) = first("XA");
        assert_eq!(kind, Kind::Commands);
        assert!(words.contains(&"XACK".to_owned()) && words.contains(&"XADD".to_owned()), "{words:?}");
        assert_eq!(first("XACK "), (Kind::Keys, vec!["jobs".to_owned()]));
        assert_eq!(first("XACK jobs ").0, Kind::Groups);
        let (kind, ids) = first("XACK jobs workers ");
        assert_eq!(kind, Kind::Ids);
        assert!(ids.contains(&"1-0".to_owned()), "{ids:?}");
        assert_eq!(first("XREADGROUP GROUP ").0, Kind::Groups);
        let (kind, consumers) = first("XREADGROUP GROUP workers ");
        assert_eq!(kind, Kind::Consumers);
        assert_eq!(consumers, vec!["alice", "bob"]);
        assert_eq!(first("XREADGROUP GROUP workers alice ").0, Kind::Options);
        assert_eq!(first("XREADGROUP GROUP workers alice STREAMS ").0, Kind::Keys);
        let (kind, ids) = first("XREADGROUP GROUP workers alice STREAMS jobs ");
        assert_eq!((kind, ids[0].as_str()), (Kind::Ids, ">"));
        assert_eq!(first("XADD jobs * ").0, Kind::Fields);
        // Any line at all gets an answer, never a panic.
        for line in ["XADD ", "XADD", " ", "GET ", "XREADGROUP GROUP ", "NOPE x y ", "\"x "] {
            let _ = suggest(line, s);
        }
    }
}
