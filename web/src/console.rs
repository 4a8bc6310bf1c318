//! The console: connection tabs, the scrollback, and the input line with redis-cli's syntax
//! hint, Tab completion, ↑/↓ history, multi-line paste and Ctrl+L.

use std::rc::Rc;

use streamlab_view::{completions, last_word_start, syntax_hint, SnapshotView, StepState};
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::compose::Compose;
use crate::motion::use_media;
use crate::page;
use crate::state::{Action, LogEntry};

#[derive(Properties, PartialEq)]
pub struct ConsoleProps {
    pub snapshot: Rc<SnapshotView>,
    pub log: Rc<Vec<LogEntry>>,
    /// The key of `log`'s first entry (see `AppState::log_first`).
    pub first: u64,
    /// Per log entry: where its step is, when it is not applied.
    pub marks: Rc<Vec<Option<StepState>>>,
    pub history: Rc<Vec<String>>,
    pub on_action: Callback<Action>,
}

/// The longest common prefix of some words.
fn common_prefix(words: &[String]) -> String {
    let Some(first) = words.first() else { return String::new() };
    let mut len = first.len();
    for word in words {
        // Whole characters compared, so the prefix never ends inside one.
        len = len.min(first.chars().zip(word.chars()).take_while(|(a, b)| a == b).map(|(a, _)| a.len_utf8()).sum());
    }
    first.get(..len).unwrap_or_default().to_owned()
}

/// What Tab does to `line`, or `None` when nothing completes (Tab then moves focus on, as
/// usual): the line with the word being typed completed as far as the completions agree (a
/// space after a single one; `None` when that would not lengthen it), and the completions to
/// offer when there are several.
pub fn tab(line: &str) -> Option<(Option<String>, Vec<String>)> {
    let found = completions(line);
    if line.trim().is_empty() || found.is_empty() {
        return None;
    }
    let start = last_word_start(line);
    let word = if found.len() == 1 { format!("{} ", found[0]) } else { common_prefix(&found) };
    let completed =
        (word.len() >= line.len() - start).then(|| format!("{}{word}", line.get(..start).unwrap_or_default()));
    Some((completed, if found.len() > 1 { found } else { Vec::new() }))
}

#[derive(Properties)]
struct LogItemProps {
    log: Rc<Vec<LogEntry>>,
    index: usize,
    /// The entry's read is still waiting: what it waits for.
    waiting: Option<String>,
    /// Its step is undone or set aside.
    mark: Option<StepState>,
}

/// An entry re-renders only when it changes, not whenever a line is added.
impl PartialEq for LogItemProps {
    fn eq(&self, other: &Self) -> bool {
        self.waiting == other.waiting
            && self.mark == other.mark
            && self.log.get(self.index) == other.log.get(other.index)
    }
}

/// What a waiting read waits for, by its deadline: `BLOCK 0` has none.
fn waiting_text(conn: &str, deadline: Option<i64>, now: i64) -> String {
    match deadline {
        None => format!("{conn} is waiting until another connection adds data for it: BLOCK 0 has no timeout"),
        Some(at) => format!(
            "{conn} is waiting: served when another connection adds data, or with nil when its timeout passes on the clock, in {} ms",
            (at - now).max(0)
        ),
    }
}

#[component]
fn LogItem(props: &LogItemProps) -> Html {
    let Some(entry) = props.log.get(props.index) else { return html! {} };
    // A line whose step is not in the state shown says so, in words as well as in looks.
    let mark = match props.mark {
        Some(StepState::Undone) => Some(("undone", "undone", ": Redo brings it back", "undone: Redo brings it back")),
        Some(StepState::SetAside) => Some((
            "aside",
            "set aside",
            ": :branch or the timeline brings it back",
            "set aside: :branch or the timeline brings it back",
        )),
        _ => None,
    };
    html! {
        <div class={classes!("log-item", mark.map(|(class, ..)| class))}>
            <pre class="in">
                if let Some((_, label, more, title)) = mark {
                    <span class="step-mark" {title}>{label}<span class="sr-only">{more}</span></span>
                }
                <span class="prompt"><span class="name" title={entry.conn.clone()}>{&entry.conn}</span>{"> "}</span>{&entry.line}</pre>
            { for entry.output.iter().map(|output| html! { <pre class={classes!("out", output.kind.name())}>{output.display()}</pre> }) }
            if let Some(waiting) = &props.waiting {
                <p class="waiting"><span class="spinner" aria-hidden="true"></span>{waiting}</p>
            } else if entry.blocked {
                <p class="served">{"(was waiting; its reply appears where it was served, marked ["}{&entry.conn}{"])"}</p>
            }
        </div>
    }
}

#[component]
pub fn ConsolePane(props: &ConsoleProps) -> Html {
    let input = use_state(String::new);
    // Position in the history while browsing it with ↑/↓ (None: editing a new line).
    let browsing = use_state(|| None::<usize>);
    let offered = use_state(Vec::<String>::new);
    let log_ref = use_node_ref();
    let input_ref = use_node_ref();

    // Keep the newest output in view, scrolling in the next animation frame, when the page is
    // laid out anyway (reading the height at once would force an extra layout per command).
    let scroll_frame = use_mut_ref(|| None::<gloo::render::AnimationFrame>);
    {
        let log_ref = log_ref.clone();
        use_effect_with(props.log.len(), move |_| {
            *scroll_frame.borrow_mut() = Some(gloo::render::request_animation_frame(move |_| {
                if let Some(log) = log_ref.cast::<web_sys::Element>() {
                    log.set_scroll_top(log.scroll_height());
                }
            }));
        });
    }

    let snapshot = &props.snapshot;
    let current = snapshot.current.clone();

    let oninput = {
        let input = input.clone();
        let offered = offered.clone();
        Callback::from(move |e: InputEvent| {
            let element: HtmlInputElement = e.target_unchecked_into();
            input.set(element.value());
            offered.set(Vec::new());
        })
    };

    // Enter, or the palette's Run.
    let on_run = {
        let input = input.clone();
        let browsing = browsing.clone();
        let offered = offered.clone();
        let on_action = props.on_action.clone();
        Callback::from(move |()| {
            page::mark_command();
            on_action.emit(Action::Run((*input).clone()));
            input.set(String::new());
            browsing.set(None);
            offered.set(Vec::new());
        })
    };
    let onkeydown = {
        let on_run = on_run.clone();
        let input = input.clone();
        let browsing = browsing.clone();
        let offered = offered.clone();
        let history = props.history.clone();
        let on_action = props.on_action.clone();
        Callback::from(move |e: KeyboardEvent| {
            let line = (*input).clone();
            match e.key().as_str() {
                "Enter" => {
                    e.prevent_default();
                    on_run.emit(());
                }
                "ArrowUp" if !history.is_empty() => {
                    e.prevent_default();
                    let at = browsing.map_or(history.len() - 1, |i| i.saturating_sub(1));
                    browsing.set(Some(at));
                    input.set(history[at].clone());
                }
                "ArrowDown" => {
                    if let Some(i) = *browsing {
                        e.prevent_default();
                        if i + 1 < history.len() {
                            browsing.set(Some(i + 1));
                            input.set(history[i + 1].clone());
                        } else {
                            browsing.set(None);
                            input.set(String::new());
                        }
                    }
                }
                "Tab" if !e.shift_key() => {
                    let Some((completed, offer)) = tab(&line) else {
                        return; // nothing to complete: Tab moves focus on, as usual
                    };
                    e.prevent_default();
                    if let Some(completed) = completed {
                        input.set(completed);
                    }
                    offered.set(offer);
                }
                "Escape" => offered.set(Vec::new()),
                "l" | "L" if e.ctrl_key() => {
                    e.prevent_default();
                    on_action.emit(Action::ClearConsole);
                }
                _ => {}
            }
        })
    };

    let onpaste = {
        let input = input.clone();
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let Some(event) = e.dyn_ref::<web_sys::ClipboardEvent>() else { return };
            let Some(text) = event.clipboard_data().and_then(|d| d.get_data("text").ok()) else { return };
            if !text.contains('\n') {
                return;
            }
            e.prevent_default();
            let joined = format!("{}{}", *input, text);
            page::mark_command();
            on_action.emit(Action::RunAll(joined.lines().map(str::to_owned).collect()));
            input.set(String::new());
        })
    };

    let tabs = snapshot.connections.iter().map(|conn| {
        let selected = conn.name == current;
        let on_action = props.on_action.clone();
        let name = conn.name.clone();
        let onclick = Callback::from(move |_| on_action.emit(Action::Switch(name.clone())));
        let mut badges = Vec::new();
        if let Some(queued) = conn.multi {
            badges.push(format!("MULTI {queued} queued"));
        }
        if conn.blocked.is_some() {
            badges.push("waiting".to_owned());
        }
        let subscriptions = conn.channels.len() + conn.patterns.len();
        if subscriptions > 0 {
            badges.push(format!("subscribed {subscriptions}"));
        }
        let title = conn.blocked.as_ref().map(|b| format!("blocked on: {}", b.command));
        html! {
            <button class={classes!("tab", selected.then_some("selected"))} aria-pressed={selected.to_string()} {onclick} title={title}>
                <span class="name" title={conn.name.clone()}>{&conn.name}</span>
                { for badges.iter().map(|b| html! { <span class={classes!("badge", (b == "waiting").then_some("wait"))}>{b}</span> }) }
            </button>
        }
    });
    let new_tab = {
        let on_action = props.on_action.clone();
        Callback::from(move |_| on_action.emit(Action::NewConnection))
    };

    // Which entries still wait: the last applied blocking entry of every connection blocked
    // now, with what it waits for.
    let applied = |index: usize| props.marks.get(index).copied().flatten().is_none();
    let mut waiting: Vec<(usize, String)> = Vec::new();
    for conn in &snapshot.connections {
        let Some(block) = &conn.blocked else { continue };
        let found =
            (0..props.log.len()).rev().find(|&i| props.log[i].blocked && props.log[i].conn == conn.name && applied(i));
        if let Some(index) = found {
            waiting.push((index, waiting_text(&conn.name, block.deadline, snapshot.now)));
        }
    }
    let entries = (0..props.log.len()).map(|index| {
        let wait = waiting.iter().find(|(i, _)| *i == index).map(|(_, text)| text.clone());
        let mark = props.marks.get(index).copied().flatten();
        html! { <LogItem key={props.first + index as u64} log={props.log.clone()} {index} waiting={wait} {mark} /> }
    });

    let hint = syntax_hint(&input).unwrap_or_default();
    let touch = use_media("(pointer: coarse)");
    let on_edit = {
        let input = input.clone();
        let input_ref = input_ref.clone();
        Callback::from(move |line: String| {
            input.set(line);
            // With a keyboard, typing goes on in the input; a touch screen keeps its keyboard
            // closed while the palette composes.
            if !touch {
                if let Some(element) = input_ref.cast::<HtmlInputElement>() {
                    let _ = element.focus();
                }
            }
        })
    };
    let onsubmit = Callback::from(|e: SubmitEvent| e.prevent_default());

    html! {
        <section class="console" aria-labelledby="console-title">
            <h2 id="console-title">{"Console"}</h2>
            <nav class="tabs" aria-label="Connections">
                { for tabs }
                <button class="tab add" onclick={new_tab} aria-label="Open a new connection" title="Open a new connection">{"+"}</button>
            </nav>
            <div class="log" role="log" aria-live="polite" aria-label="Console output" tabindex="0" ref={log_ref}>
                if props.log.is_empty() {
                    // The examples go into the input (Enter runs them); the keys are no help on
                    // a touch screen, which the style sheet hides them on.
                    <p class="intro">{"Type a Redis command, for example "}{crate::markdown::try_button("XADD jobs * type email", &on_edit)}
                    {". Tabs are client connections; "}{crate::markdown::try_button("help XADD", &on_edit)}{" explains a command"}
                    <span class="keys-help">{", Tab completes, ↑/↓ recall, Ctrl+L clears"}</span>{"."}</p>
                }
                <div class="log-items">{ for entries }</div>
            </div>
            <form class="prompt-line" {onsubmit}>
                <label for="console-input" class="prompt" title={current.clone()}><span class="name">{current.clone()}</span>{">"}</label>
                <div class="field">
                    <div class="ghost" aria-hidden="true"><span class="typed">{(*input).clone()}</span><span class="hint">{hint.clone()}</span></div>
                    <input id="console-input" ref={input_ref.clone()} type="text" autocomplete="off" autocapitalize="off"
                        spellcheck="false" aria-describedby="syntax-hint" value={(*input).clone()}
                        {oninput} {onkeydown} {onpaste} />
                </div>
            </form>
            <p id="syntax-hint" class="syntax-line">{ if hint.is_empty() { String::new() } else { format!("{}{hint}", *input) } }</p>
            if !offered.is_empty() {
                <p class="offered" aria-live="polite">{"Completions: "}{offered.join("  ")}</p>
            }
            <Compose line={(*input).clone()} snapshot={props.snapshot.clone()} {touch} {on_edit} {on_run} />
        </section>
    }
}
