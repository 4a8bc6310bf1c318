//! The lesson panel, the one every host shows beside its console: the intro with its demos,
//! the task list, the current task (Check with its failing messages, progressive hints, the
//! solution under the host's policy, par and the command count for reach-state tasks; options
//! with their explanations or a typed reply for questions), Previous / Next, and the page's
//! own buttons when the host is the page. It draws a [`LessonRun`] and speaks in [`PlayerAction`]s;
//! the host performs them (the page through its reducer, the embed with its events).
//!
//! The task comes before the introduction, so the task and its Check are on screen when a
//! lesson opens, whatever the introduction's length; the page's layout rules (style.css)
//! keep the lesson, the console and the state on screen together. Lines of lesson text that
//! a console would run (the introduction's demos, command lines of code blocks, the
//! solution) are buttons that put the line in the console's input: running it is the
//! learner's Enter, since in a lesson a command changes the graded state and counts against
//! par.

use std::rc::Rc;

use streamlab_view::diff::plural;
use streamlab_view::embed::SolutionPolicy;
use streamlab_view::lesson::{Answer, OptionView, TaskKindView};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::lesson_run::{LessonRun, PlayerAction, TaskRun};
use crate::markdown;

/// What the host shows beyond the lesson itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Host {
    /// The full page: All lessons, Sandbox, Start over, Run it in the console, the phone's
    /// view switch; the goal shown from the start of a reach-state task.
    pub page: bool,
    /// The task list.
    pub task_list: bool,
    /// The goal is shown beside the current state.
    pub goal_shown: bool,
    /// A console is shown to put the lesson's example lines in.
    pub console: bool,
}

#[derive(Properties, PartialEq)]
pub struct LessonPanelProps {
    /// The lesson being played.
    pub run: LessonRun,
    /// State-changing commands the learner has run in the current task.
    pub commands: usize,
    /// What the host offers.
    pub host: Host,
    /// Steps for the host to perform.
    pub on_step: Callback<PlayerAction>,
}

/// Why par counts only some commands, where par is shown.
const PAR_NOTE: &str = "Only commands that change state count; reads such as XINFO, XPENDING and XRANGE are free.";

/// What a phone shows of a lesson, one at a time: the lesson, the console with the timeline,
/// or the state (their radio buttons' ids, which the layout rules read, and labels). Plain
/// radio buttons: the browser keeps the choice, and a line put in the console can switch to
/// it at once, before giving the console's input the keyboard.
const VIEWS: [(&str, &str); 3] = [("view-task", "Task"), ("view-console", "Console"), ("view-state", "State")];

/// Another view was chosen: it starts at its top, so the page goes back up to the switch if
/// it was scrolled past it.
fn view_shown(e: Event) {
    let layout = e.target_dyn_into::<Element>().and_then(|radio| radio.closest(".layout").ok().flatten());
    let top = layout.map_or(0.0, |l| l.get_bounding_client_rect().top());
    if top < 0.0 {
        gloo::utils::window().scroll_by_with_x_and_y(0.0, top);
    }
}

/// The learner's state with the goal beside it (under it, in a narrow column). The goal is
/// drawn still: it has no step before it to animate from.
pub fn beside_goal(now: Html, goal: Html) -> Html {
    html! {
        <div class="compare">
            <section aria-labelledby="now-title"><h3 id="now-title">{"Your state"}</h3>{now}</section>
            <section class="goal" aria-labelledby="goal-title">
                <h3 id="goal-title">{"Goal (after the reference solution)"}</h3>{goal}
            </section>
        </div>
    }
}

/// Shows the console next to `from` (the page's or the widget's; on a phone, its view) and
/// returns where it is.
fn show_console(from: &Element) -> Option<Element> {
    let host = from.closest(".layout, .sl-embed").ok()??;
    if let Some(radio) = host.query_selector("#view-console").ok().flatten() {
        radio.dyn_into::<HtmlInputElement>().ok()?.set_checked(true);
    }
    Some(host)
}

/// Puts `line` in the console's input next to `from` as if typed, and gives it the keyboard.
fn put_in_console(from: &Element, line: &str) -> Option<()> {
    let input = show_console(from)?.query_selector("#console-input").ok()??;
    let input: HtmlInputElement = input.dyn_into().ok()?;
    input.set_value(line);
    // The console keeps what is typed in its own state, from its input events.
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    input.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).ok()?).ok()?;
    input.focus().ok()
}

/// A demo as the console showed it: each line as lessons write it (a clock move belongs to no
/// connection), then its reply's lines.
fn demo_text(demo: &[streamlab_view::lesson::DemoLine]) -> String {
    let mut text = String::new();
    for d in demo {
        if !d.line.starts_with(':') {
            text.push_str(&d.conn);
            text.push_str("> ");
        }
        text.push_str(&d.line);
        text.push('\n');
        for line in &d.output {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// The lesson beside the console.
#[component]
pub fn LessonPanel(props: &LessonPanelProps) -> Html {
    let run = &props.run;
    let view = &run.view;
    let step = |s: PlayerAction| {
        let on_step = props.on_step.clone();
        Callback::from(move |_: MouseEvent| on_step.emit(s.clone()))
    };
    let section = use_node_ref();
    // Whether the goal is wanted beside the state (from the start on the page, once asked for
    // in a widget), and the lesson (its view's address) last drawn.
    let memo = use_mut_ref(|| (props.host.page, 0));
    let reach = matches!(view.tasks[run.task()].kind, TaskKindView::ReachState { .. });
    {
        let (memo, on_step, page, section) = (memo.clone(), props.on_step.clone(), props.host.page, section.clone());
        let checked = run.current().check.is_some();
        let deps = (Rc::as_ptr(view) as usize, run.task(), props.host.goal_shown, checked);
        use_effect_with(deps, move |&(drawn, _, shown, checked)| {
            // What Check found is brought into view in the lesson's own column (or the page), as
            // little as it takes.
            let result = section.cast::<Element>().and_then(|s| s.query_selector(".check-result").ok().flatten());
            if let Some(result) = result.filter(|_| checked) {
                let options = web_sys::ScrollIntoViewOptions::new();
                options.set_block(web_sys::ScrollLogicalPosition::Nearest);
                result.scroll_into_view_with_scroll_into_view_options(&options);
            }
            let (want, last) = *memo.borrow();
            memo.borrow_mut().1 = drawn;
            // A lesson opens at the top of the page, not where the list was scrolled to.
            if page && last != drawn {
                gloo::utils::window().scroll_to_with_x_and_y(0.0, 0.0);
            }
            // The goal stays beside the state while the learner works: the host drops it when
            // a task starts, and it comes back.
            if reach && !shown && want {
                on_step.emit(PlayerAction::Goal(true));
            }
        });
    }
    let toggle_goal = {
        let (memo, on_step, show) = (memo.clone(), props.on_step.clone(), !props.host.goal_shown);
        Callback::from(move |_: MouseEvent| {
            memo.borrow_mut().0 = show;
            on_step.emit(PlayerAction::Goal(show));
        })
    };
    let on_try = props.host.console.then(|| {
        let section = section.clone();
        Callback::from(move |line: String| {
            if let Some(from) = section.cast::<Element>() {
                put_in_console(&from, &line);
            }
        })
    });
    let noun = if run.rules.questions_only { "Question" } else { "Task" };
    let total = run.order.len();
    let done = run.done();
    let index = run.task();
    let task = &view.tasks[index];
    let current = run.current();
    let body = match &task.kind {
        TaskKindView::ReachState { par, disabled, continues, .. } => {
            let goal = (toggle_goal, props.host.goal_shown);
            reach_state(run, (*par, disabled, *continues), props.commands, goal, on_try.as_ref(), &step)
        }
        kind => html! {
            <>
            if let TaskKindView::Predict { command, .. } = kind {
                <p class="predict-command">{"The command: "}<code>{command}</code></p>
            }
            <Quiz key={quiz_key(run)} index={index} kind={kind.clone()} run={current.clone()} page={props.host.page}
                reveal={run.rules.solution != SolutionPolicy::Never} on_step={props.on_step.clone()} />
            </>
        },
    };
    html! {
        <>
        if props.host.page {
            <div class="views" role="radiogroup" aria-label="Show" onchange={Callback::from(view_shown)}>
                { for VIEWS.iter().map(|(id, label)| html! {
                    <><input type="radio" name="view" id={*id} /><label for={*id}>{*label}</label></>
                }) }
            </div>
        }
        <section class="lesson" aria-labelledby="lesson-title" ref={section}>
            <div class="lesson-top">
                <h2 id="lesson-title">{markdown::render_inline(&view.title)}</h2>
                <p class="lesson-meta">{format!("{} min · {} · {done} of {total} solved", view.minutes, view.profile)}</p>
                if props.host.page {
                    <div class="lesson-actions">
                        <button onclick={step(PlayerAction::List)}>{"All lessons"}</button>
                        <button onclick={step(PlayerAction::Sandbox)} title="Back to your own session; this lesson keeps its place">{"Sandbox"}</button>
                        <button onclick={step(PlayerAction::StartOver)} title="Start the lesson again (the ids, names and numbers may change)">{"Start over"}</button>
                    </div>
                }
            </div>
            if props.host.task_list {
                <nav aria-label="Tasks">
                    <ol class="task-list">
                        { for run.order.iter().enumerate().map(|(n, &t)| {
                            let solved = run.runs[t].done;
                            let title = &view.tasks[t].title;
                            html! {
                                <li>
                                    <button class={classes!("task-link", solved.then_some("done"))}
                                        aria-current={(n == run.at).then_some("step")} title={plain(title)}
                                        onclick={step(PlayerAction::Go(n))}>
                                        <span aria-hidden="true">{if solved { "✓ " } else { "" }}</span>
                                        {format!("{}. ", n + 1)}<span class="task-name">{markdown::render_inline(title)}</span>
                                        if solved { <span class="sr-only">{" (solved)"}</span> }
                                    </button>
                                </li>
                            }
                        }) }
                    </ol>
                </nav>
            }
            <article class="task" aria-labelledby="task-title">
                <h3 id="task-title">
                    {format!("{noun} {}: ", run.at + 1)}{markdown::render_inline(&task.title)}
                    if current.done { <span class="solved-mark">{" ✓ solved"}</span> }
                </h3>
                <div class="md prompt-text">{markdown::render_with(&task.prompt, on_try.as_ref())}</div>
                {body}
                if let Some(notice) = &run.notice { <p class="notice" role="alert">{notice}</p> }
            </article>
            <div class="lesson-nav">
                <button onclick={step(PlayerAction::Go(run.at.saturating_sub(1)))} disabled={run.at == 0}>{"← Previous"}</button>
                <button onclick={step(PlayerAction::Go(run.at + 1))} disabled={run.at + 1 == total}>{"Next →"}</button>
            </div>
            if done == total {
                <p class="complete" role="status">{"Lesson complete. "}
                    if props.host.page { <button onclick={step(PlayerAction::List)}>{"Choose another lesson"}</button> }
                </p>
            }
            if !run.rules.questions_only {
                <details class="intro" open={run.at == 0 && done == 0}>
                    <summary>{"Introduction"}</summary>
                    <div class="md">{markdown::render(&view.summary)}</div>
                    { for view.intro.iter().map(|intro| html! {
                        <div class="intro-step">
                            <div class="md">{markdown::render_with(&intro.text, on_try.as_ref())}</div>
                            if !intro.demo.is_empty() {
                                <pre class="demo" aria-label="Demo" tabindex="0">{markdown::code(&demo_text(&intro.demo), on_try.as_ref())}
                                </pre>
                            }
                        </div>
                    }) }
                </details>
            }
        </section>
        </>
    }
}

/// The quiz's drafts (the chosen options, the typed text, the steps' order) start afresh per
/// lesson attempt and task.
fn quiz_key(run: &LessonRun) -> String {
    format!("{}-{}-{}", run.view.id, run.attempt, run.task())
}

/// A reach-state task's par, buttons, check result, hints and solution; the task's par,
/// disabled commands and whether it continues come from its view.
fn reach_state(
    run: &LessonRun,
    (par, disabled, continues): (usize, &[String], bool),
    commands: usize,
    (toggle_goal, goal_shown): (Callback<MouseEvent>, bool),
    on_try: Option<&Callback<String>>,
    step: &dyn Fn(PlayerAction) -> Callback<MouseEvent>,
) -> Html {
    let current = run.current();
    let next_hint = run.next_hint();
    let offer_hints = run.rules.hints && (!run.ladder().is_empty() || !current.hints.is_empty() || next_hint.is_some());
    // A failing check's own hint waits behind the Hint button.
    let check_hint_waiting =
        next_hint.as_ref().is_some_and(|(h, _)| current.check.as_ref().is_some_and(|c| c.hints.contains(h)));
    html! {
        <>
        if continues {
            <p class="continues">
                if run.continued {
                    {"This task continues from where you left off in the task before."}
                } else {
                    {"This task continues from the end of the task before (as its reference solution leaves it)."}
                }
            </p>
        }
        <p class="par" title={PAR_NOTE}>
            {format!("Par {} · yours {commands}", plural(par as u64, "change"))}
            <span class="par-note">{" · reads are free"}</span>
        </p>
        if !disabled.is_empty() {
            <p class="disabled">{"Turned off in this task: "}{ for disabled.iter().map(|d| html! { <><code>{d}</code>{" "}</> }) }</p>
        }
        <div class="task-actions">
            <button class="primary" onclick={step(PlayerAction::Check)}>{"Check"}</button>
            if offer_hints {
                <button onclick={step(PlayerAction::Hint)} disabled={next_hint.is_none()}>
                    {if current.hints.is_empty() { "Hint" } else { "Next hint" }}
                </button>
            }
            <button aria-pressed={goal_shown.to_string()} onclick={toggle_goal}>{"Show goal"}</button>
            if run.rules.solution != SolutionPolicy::Never && !current.solution && !current.confirming {
                <button onclick={step(PlayerAction::Reveal)}>{"Show solution"}</button>
            }
        </div>
        <div class="check-result" role="status" aria-live="polite">
            if let Some(check) = &current.check {
                if check.passed {
                    <p class="pass">{format!("✓ Goal reached with {} (par {}).", plural(check.commands as u64, "change"), check.par)}</p>
                } else {
                    if let Some(misconception) = &check.misconception {
                        <p class="misconception"><strong>{"What happened: "}</strong>{markdown::render_inline(misconception)}</p>
                    }
                    <div class="fail">
                        <p>{"Not yet:"}</p>
                        <ul>{ for check.failed.iter().map(|f| html! { <li>{markdown::render_inline(f)}</li> }) }</ul>
                        if check_hint_waiting { <p class="hint-offer">{"Hint has a tip about this."}</p> }
                    </div>
                }
            }
        </div>
        if !current.hints.is_empty() {
            <ol class="hints" aria-label="Hints">{ for current.hints.iter().map(|h| html! { <li>{markdown::render_inline(h)}</li> }) }</ol>
        }
        if current.confirming {
            <div class="confirm" role="group" aria-label="Show the solution?">
                <p>{"Show the reference solution? Trying first teaches more; Check will still pass if you type it."}</p>
                <button onclick={step(PlayerAction::Reveal)}>{"Yes, show it"}</button>
                <button onclick={step(PlayerAction::KeepHidden)}>{"Not yet"}</button>
            </div>
        } else if current.solution {
            <div class="solution">
                <p>{"Reference solution ("}<code>{"name> "}</code>{" runs a line on that connection; you can type these lines as they are):"}</p>
                <pre tabindex="0">{markdown::code(&run.solution_lines().join("\n"), on_try)}</pre>
            </div>
        }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct QuizProps {
    index: usize,
    /// What the question asks (its options or steps in the order shown).
    kind: TaskKindView,
    /// What happened in the task (the answer shown, the options' explanations).
    run: TaskRun,
    page: bool,
    /// A typed prediction's reply may be shown after a wrong try.
    reveal: bool,
    on_step: Callback<PlayerAction>,
}

/// What a number may look like (as redis-cli prints one, too): the browser checks it.
const NUMBER: &str = r"\s*(\(integer\))?\s*-?[0-9]+\s*";

/// Lesson text as plain words, for a spoken note (code spans and emphasis unmarked).
fn plain(text: &str) -> String {
    text.replace(['`', '*'], "")
}

/// A question: predict the reply (options or typed), single or multiple choice, a number, or
/// steps to put in order. Only the drafts live here; the answer is the run's. A wrong answer
/// shows only what that answer's own explanation says; a right one, every option's.
#[component]
fn Quiz(props: &QuizProps) -> Html {
    let kind = &props.kind;
    // Options chosen, by their index in the lesson.
    let chosen = use_state(Vec::<usize>::new);
    // An order task's steps as the learner arranged them (shuffled to start with), by their
    // index in the lesson.
    let steps = use_state(|| match kind {
        TaskKindView::Order { steps } => steps.iter().map(|s| s.index).collect(),
        _ => Vec::new(),
    });
    let moved = use_state(String::new);
    // The move button to focus once the list is drawn again (its `data-move`).
    let focus = use_mut_ref(|| None::<String>);
    let list_ref = use_node_ref();
    let typed_ref = use_node_ref();
    let retry_ref = use_node_ref();
    {
        let (focus, list_ref) = (focus.clone(), list_ref.clone());
        use_effect(move || {
            let wanted = focus.borrow_mut().take();
            let list = list_ref.cast::<web_sys::Element>();
            if let (Some(wanted), Some(list)) = (wanted, list) {
                let button = list.query_selector(&format!("[data-move=\"{wanted}\"]")).ok().flatten();
                if let Some(button) = button.and_then(|b| b.dyn_into::<HtmlElement>().ok()) {
                    let _ = button.focus();
                }
            }
        });
    }
    let answer = props.run.answer.as_ref();
    let wrong = answer.is_some_and(|a| !a.correct);
    {
        // After a wrong answer, the keyboard goes on from "Try again".
        let retry_ref = retry_ref.clone();
        use_effect_with(wrong, move |&wrong| {
            if let Some(button) = retry_ref.cast::<HtmlElement>().filter(|_| wrong) {
                let _ = button.focus();
            }
        });
    }
    let typed_prediction = matches!(kind, TaskKindView::Predict { options, .. } if options.is_empty());
    let on_submit = {
        let (chosen, steps, typed_ref, on_step, kind) =
            (chosen.clone(), steps.clone(), typed_ref.clone(), props.on_step.clone(), kind.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let typed = || {
                let area = typed_ref.cast::<HtmlTextAreaElement>().map(|t| t.value());
                area.or_else(|| typed_ref.cast::<HtmlInputElement>().map(|i| i.value())).unwrap_or_default()
            };
            let answer = match &kind {
                TaskKindView::Order { .. } => Answer::Order((*steps).clone()),
                TaskKindView::Choice { multiple: true, .. } if !chosen.is_empty() => Answer::Options((*chosen).clone()),
                TaskKindView::Choice { multiple: false, .. } | TaskKindView::Predict { .. } if !chosen.is_empty() => {
                    Answer::Option(chosen[0])
                }
                // The browser refuses an empty reply or a number that is not one (`required`,
                // `pattern`) before this runs: a slip of the keyboard is not a wrong answer.
                TaskKindView::Numeric => Answer::Typed(typed()),
                TaskKindView::Predict { .. } if typed_prediction => Answer::Typed(typed()),
                _ => return,
            };
            on_step.emit(PlayerAction::Answer(answer));
        })
    };
    let done = answer.is_some();
    let button = |label: &'static str, s: PlayerAction, node: Option<NodeRef>| {
        let on_step = props.on_step.clone();
        let onclick = Callback::from(move |e: MouseEvent| {
            // The predicted command runs in the console: a phone shows it there.
            if let (PlayerAction::Run(_), Some(from)) = (&s, e.target_dyn_into::<Element>()) {
                show_console(&from);
            }
            on_step.emit(s.clone())
        });
        html! { <button type="button" ref={node.unwrap_or_default()} {onclick}>{label}</button> }
    };
    let name = format!("quiz-{}", props.index);
    let (legend, fields) = match kind {
        TaskKindView::Predict { options, .. } if !options.is_empty() => {
            ("What will it print?", option_list(&name, options, false, &chosen, &props.run))
        }
        TaskKindView::Predict { .. } => (
            "What will it print?",
            html! {
                <>
                <label for={format!("{name}-typed")}>{"Type the reply as redis-cli prints it"}</label>
                <textarea id={format!("{name}-typed")} ref={typed_ref} rows="3" spellcheck="false" class="typed-reply" required=true />
                </>
            },
        ),
        TaskKindView::Choice { options, multiple } => (
            if *multiple { "Select all that apply" } else { "Choose one" },
            option_list(&name, options, *multiple, &chosen, &props.run),
        ),
        TaskKindView::Numeric => (
            "Your answer",
            html! {
                <>
                <label for={format!("{name}-number")}>{"A whole number"}</label>
                <input id={format!("{name}-number")} ref={typed_ref} type="text" inputmode="numeric" autocomplete="off"
                    class="numeric-answer" required=true pattern={NUMBER} title="A whole number, such as 3" />
                </>
            },
        ),
        TaskKindView::Order { steps: texts } => {
            ("Put the steps in order", order_list(&name, texts, &steps, &moved, &focus, &list_ref))
        }
        TaskKindView::ReachState { .. } => return html! {},
    };
    let nothing_chosen = matches!(kind, TaskKindView::Choice { .. } | TaskKindView::Predict { .. })
        && !typed_prediction
        && chosen.is_empty();
    let right = answer.is_some_and(|a| a.correct);
    let revealed = props.run.solution;
    // What the command prints: once answered right, or revealed after a wrong try.
    let show_reply = !props.run.reply.is_empty() && matches!(kind, TaskKindView::Predict { .. }) && (right || revealed);
    // Questions without per-option explanations explain the answer itself once it is right.
    let explained_whole = matches!(kind, TaskKindView::Numeric | TaskKindView::Order { .. }) || typed_prediction;
    html! {
        <form class="quiz" onsubmit={on_submit}>
            <fieldset disabled={done}>
                <legend>{legend}</legend>
                {fields}
                <button type="submit" class="primary" disabled={nothing_chosen}>{"Answer"}</button>
            </fieldset>
            <div class="answer" role="status" aria-live="polite">
                if let Some(answer) = answer {
                    if answer.correct {
                        <p class="pass">{"✓ Right. "}if explained_whole { {markdown::render_inline(&answer.why)} }</p>
                    } else {
                        <p class="fail">{"✗ Not quite. "}
                            if typed_prediction { {"That is not what it prints."} } else { {markdown::render_inline(&answer.why)} }
                        </p>
                    }
                }
                if show_reply {
                    <p>{"It prints:"}</p>
                    <pre class="reply" tabindex="0">{&props.run.reply}</pre>
                    if !right && !props.run.explain.is_empty() { <p>{markdown::render_inline(&props.run.explain)}</p> }
                }
            </div>
            if let (true, true, TaskKindView::Predict { command, .. }) = (right || revealed, props.page, kind) {
                { button("Run it in the console", PlayerAction::Run(command.clone()), None) }
            }
            if wrong {
                { button("Try again", PlayerAction::Retry, Some(retry_ref)) }
            }
            if typed_prediction && props.reveal && props.run.wrong > 0 && !revealed && !right {
                { button("Show what it prints", PlayerAction::Reveal, None) }
            }
        </form>
    }
}

/// Radio buttons (one answer) or checkboxes (all that apply), in the order shown. Once the
/// question is answered right, each says why it is right or wrong; after a wrong single
/// answer, only the chosen option is marked.
fn option_list(
    name: &str,
    options: &[OptionView],
    multiple: bool,
    chosen: &UseStateHandle<Vec<usize>>,
    run: &TaskRun,
) -> Html {
    let wrong_pick = run.answer.as_ref().filter(|a| !a.correct).and_then(|a| a.option);
    html! {
        { for options.iter().enumerate().map(|(shown, option)| {
            let n = option.index;
            // The id names the shown place, not the lesson's index: that would tell the order
            // the author wrote them in (the right one is often first) to anyone reading the page.
            let id = format!("{name}-{shown}");
            let onchange = {
                let chosen = chosen.clone();
                Callback::from(move |_: Event| {
                    let mut set = if multiple { (*chosen).clone() } else { Vec::new() };
                    match set.iter().position(|&c| c == n) {
                        Some(at) if multiple => { set.remove(at); }
                        _ => set.push(n),
                    }
                    chosen.set(set);
                })
            };
            let judged = run.options.iter().find(|j| j.index == n);
            let mark = judged.map(|j| j.correct).or((wrong_pick == Some(n)).then_some(false));
            let text = option.text.as_str();
            html! {
                <div class={classes!("option", mark.map(|right| if right { "right" } else { "wrong" }))}>
                    <input type={if multiple { "checkbox" } else { "radio" }} id={id.clone()} name={name.to_owned()}
                        checked={chosen.contains(&n)} {onchange} />
                    <label for={id}>
                        if text.contains('\n') { <pre>{text.trim_end()}</pre> } else { {markdown::render_inline(text)} }
                    </label>
                    if let Some(j) = judged {
                        <p class="option-why">{if j.correct { "Right: " } else { "Wrong: " }}{markdown::render_inline(&j.why)}</p>
                    }
                </div>
            }
        }) }
    }
}

/// An order task's steps as the learner arranged them (`order`: lesson indices into `texts`),
/// each with Move up / Move down buttons; the keyboard stays on the moved step's button, and a
/// polite note says where it went.
fn order_list(
    name: &str,
    texts: &[OptionView],
    order: &UseStateHandle<Vec<usize>>,
    moved: &UseStateHandle<String>,
    focus: &Rc<std::cell::RefCell<Option<String>>>,
    list_ref: &NodeRef,
) -> Html {
    let count = order.len();
    let text = |index: usize| texts.iter().find(|t| t.index == index).map_or("", |t| t.text.as_str());
    let slot_of = |index: usize| texts.iter().position(|t| t.index == index).unwrap_or(index);
    let mover = |at: usize, up: bool| {
        let (order, moved, focus) = (order.clone(), moved.clone(), focus.clone());
        let (to, step) = (if up { at.wrapping_sub(1) } else { at + 1 }, order[at]);
        let note = format!("“{}” is now step {} of {count}.", plain(text(step)), to.wrapping_add(1));
        let slot = slot_of(step);
        Callback::from(move |_: MouseEvent| {
            if to >= order.len() {
                return;
            }
            let mut arranged = (*order).clone();
            arranged.swap(at, to);
            // At either end the button that moved it is off: the other one takes the keyboard.
            let dir = match (up, to) {
                (true, 0) => "down",
                (false, to) if to + 1 == arranged.len() => "up",
                (true, _) => "up",
                (false, _) => "down",
            };
            *focus.borrow_mut() = Some(format!("{slot}-{dir}"));
            moved.set(note.clone());
            order.set(arranged);
        })
    };
    html! {
        <>
        <ol class="order-steps" ref={list_ref.clone()}>
            { for order.iter().enumerate().map(|(at, &step)| {
                // Ids and the focus key name a step by where it was first shown, never by its
                // lesson index, which is its right place.
                let slot = slot_of(step);
                let text_id = format!("{name}-step-{slot}");
                html! {
                    <li key={step} class="order-step">
                        <span class="step-text" id={text_id.clone()}>{markdown::render_inline(text(step))}</span>
                        <span class="step-moves">
                            <button type="button" aria-label="Move up" title="Move up" aria-describedby={text_id.clone()}
                                data-move={format!("{slot}-up")} disabled={at == 0} onclick={mover(at, true)}>{"↑"}</button>
                            <button type="button" aria-label="Move down" title="Move down" aria-describedby={text_id}
                                data-move={format!("{slot}-down")} disabled={at + 1 == count} onclick={mover(at, false)}>{"↓"}</button>
                        </span>
                    </li>
                }
            }) }
        </ol>
        <p class="order-note" aria-live="polite">{(**moved).clone()}</p>
        </>
    }
}
