//! The lesson panel, the one every host shows beside its console: the intro with its demos,
//! the task list, the current task (Check with its failing messages, progressive hints, the
//! solution under the host's policy, par and the command count for reach-state tasks; options
//! with their explanations or a typed reply for questions), Previous / Next, and the page's
//! own buttons when the host is the page. It draws a [`LessonRun`] and speaks in [`Step`]s;
//! the host performs them (the page through its reducer, the embed with its events).

use streamlab_wasm::diff::plural;
use streamlab_wasm::embed::SolutionPolicy;
use streamlab_wasm::lesson::{Prediction, TaskKindView};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::lesson_run::{LessonRun, Step, TaskRun};
use crate::markdown;

/// What the host shows beyond the lesson itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Host {
    /// The full page: All lessons, Sandbox, Start over, Show goal, Run it in the console.
    pub page: bool,
    /// The task list.
    pub task_list: bool,
    /// The goal is shown beside the current state.
    pub goal_shown: bool,
}

#[derive(Properties, PartialEq)]
pub struct LessonPanelProps {
    /// The lesson being played.
    pub run: LessonRun,
    /// Commands the learner has run in the current task.
    pub commands: usize,
    /// What the host offers.
    pub host: Host,
    /// Steps for the host to perform.
    pub on_step: Callback<Step>,
}

/// The lesson beside the console.
#[component]
pub fn LessonPanel(props: &LessonPanelProps) -> Html {
    let run = &props.run;
    let view = &run.view;
    let step = |s: Step| {
        let on_step = props.on_step.clone();
        Callback::from(move |_: MouseEvent| on_step.emit(s.clone()))
    };
    let noun = if run.rules.questions_only { "Question" } else { "Task" };
    let total = run.order.len();
    let done = run.done();
    let index = run.task();
    let task = &view.tasks[index];
    let current = run.current();
    let body = match &task.kind {
        TaskKindView::ReachState { hints, par, disabled } => {
            reach_state(run, (hints, *par, disabled), props.commands, props.host, &step)
        }
        TaskKindView::Predict { command, options } => html! {
            <>
            <p class="predict-command">{"The command: "}<code>{command}</code></p>
            <Quiz key={quiz_key(run)} index={index} options={options.clone()} typed={options.is_empty()}
                command={Some(command.clone())} run={current.clone()} page={props.host.page} on_step={props.on_step.clone()} />
            </>
        },
        TaskKindView::Choice { options } => html! {
            <Quiz key={quiz_key(run)} index={index} options={options.clone()} typed=false command={None::<String>}
                run={current.clone()} page={props.host.page} on_step={props.on_step.clone()} />
        },
    };
    html! {
        <section class="lesson" aria-labelledby="lesson-title">
            <div class="lesson-top">
                <h2 id="lesson-title">{markdown::render_inline(&view.title)}</h2>
                <p class="lesson-meta">{format!("{} min · {} · {done} of {total} solved", view.minutes, view.profile)}</p>
                if props.host.page {
                    <div class="lesson-actions">
                        <button onclick={step(Step::List)}>{"All lessons"}</button>
                        <button onclick={step(Step::Sandbox)} title="Leave the lesson and keep this session in the playground">{"Sandbox"}</button>
                        <button onclick={step(Step::StartOver)} title="Start the lesson again (the ids and names may change)">{"Start over"}</button>
                    </div>
                }
            </div>
            if !run.rules.questions_only {
                <details class="intro" open={run.at == 0 && done == 0}>
                    <summary>{"Introduction"}</summary>
                    <div class="md">{markdown::render(&view.summary)}</div>
                    { for view.intro.iter().map(|intro| html! {
                        <div class="intro-step">
                            <div class="md">{markdown::render(&intro.text)}</div>
                            if !intro.demo.is_empty() {
                                <pre class="demo" aria-label="Demo">
                                    { for intro.demo.iter().map(|d| html! {
                                        <>
                                        <span class="prompt">{format!("{}> ", d.conn)}</span>{&d.line}{"\n"}
                                        { for d.output.iter().map(|o| html! { <>{o}{"\n"}</> }) }
                                        </>
                                    }) }
                                </pre>
                            }
                        </div>
                    }) }
                </details>
            }
            if props.host.task_list {
                <nav aria-label="Tasks">
                    <ol class="task-list">
                        { for run.order.iter().enumerate().map(|(n, &t)| {
                            let solved = run.runs[t].done;
                            html! {
                                <li>
                                    <button class={classes!("task-link", solved.then_some("done"))}
                                        aria-current={(n == run.at).then_some("step")}
                                        onclick={step(Step::Go(n))}>
                                        <span aria-hidden="true">{if solved { "✓ " } else { "" }}</span>
                                        {format!("{}. ", n + 1)}{markdown::render_inline(&view.tasks[t].title)}
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
                <div class="md prompt-text">{markdown::render(&task.prompt)}</div>
                {body}
                if let Some(notice) = &run.notice { <p class="notice" role="alert">{notice}</p> }
            </article>
            <div class="lesson-nav">
                <button onclick={step(Step::Go(run.at.saturating_sub(1)))} disabled={run.at == 0}>{"← Previous"}</button>
                <button onclick={step(Step::Go(run.at + 1))} disabled={run.at + 1 == total}>{"Next →"}</button>
            </div>
            if done == total {
                <p class="complete" role="status">{"Lesson complete. "}
                    if props.host.page { <button onclick={step(Step::List)}>{"Choose another lesson"}</button> }
                </p>
            }
        </section>
    }
}

/// The quiz's drafts (the chosen option, the typed text) start afresh per lesson variant and
/// task.
fn quiz_key(run: &LessonRun) -> String {
    format!("{}-{}-{}", run.view.id, run.tutor.variant(), run.task())
}

/// A reach-state task's par, buttons, check result, hints and solution; the task's hints, par
/// and disabled commands come from its view.
fn reach_state(
    run: &LessonRun,
    (hints, par, disabled): (&[String], usize, &[String]),
    commands: usize,
    host: Host,
    step: &dyn Fn(Step) -> Callback<MouseEvent>,
) -> Html {
    let current = run.current();
    let offer_hints = run.rules.hints && !hints.is_empty();
    html! {
        <>
        <p class="par">{format!("Par {par} · your commands {commands}")}</p>
        if !disabled.is_empty() {
            <p class="disabled">{"Turned off in this task: "}{ for disabled.iter().map(|d| html! { <><code>{d}</code>{" "}</> }) }</p>
        }
        <div class="task-actions">
            <button class="primary" onclick={step(Step::Check)}>{"Check"}</button>
            if offer_hints {
                <button onclick={step(Step::Hint)} disabled={current.hints >= hints.len()}>
                    {if current.hints == 0 { "Hint".to_owned() } else { format!("Next hint ({}/{})", current.hints, hints.len()) }}
                </button>
            }
            if host.page {
                <button aria-pressed={host.goal_shown.to_string()} onclick={step(Step::Goal(!host.goal_shown))}>{"Show goal"}</button>
            }
            if run.rules.solution != SolutionPolicy::Never && !current.solution && !current.confirming {
                <button onclick={step(Step::Reveal)}>{"Show solution"}</button>
            }
        </div>
        <div class="check-result" role="status" aria-live="polite">
            if let Some(check) = &current.check {
                if check.passed {
                    <p class="pass">{format!("✓ Goal reached in {} (par {}).", plural(check.commands as u64, "command"), check.par)}</p>
                } else {
                    <div class="fail">
                        <p>{"Not yet:"}</p>
                        <ul>{ for check.failed.iter().map(|f| html! { <li>{markdown::render_inline(f)}</li> }) }</ul>
                    </div>
                }
            }
        </div>
        if offer_hints && current.hints > 0 {
            <ol class="hints" aria-label="Hints">{ for hints[..current.hints].iter().map(|h| html! { <li>{markdown::render_inline(h)}</li> }) }</ol>
        }
        if current.confirming {
            <div class="confirm" role="group" aria-label="Show the solution?">
                <p>{"Show the reference solution? Trying first teaches more; Check will still pass if you type it."}</p>
                <button onclick={step(Step::Reveal)}>{"Yes, show it"}</button>
                <button onclick={step(Step::KeepHidden)}>{"Not yet"}</button>
            </div>
        } else if current.solution {
            <div class="solution">
                <p>{"Reference solution ("}<code>{"name> "}</code>{" runs a line on that connection; you can type these lines as they are):"}</p>
                <pre>{run.solution_lines().join("\n")}</pre>
            </div>
        }
        </>
    }
}

#[derive(Properties, PartialEq)]
struct QuizProps {
    index: usize,
    /// Options to choose from (empty when the reply is typed).
    options: Vec<String>,
    typed: bool,
    /// The predicted command (predict tasks), which the page can run once answered.
    command: Option<String>,
    /// What happened in the task (the answer shown, the options' explanations).
    run: TaskRun,
    page: bool,
    on_step: Callback<Step>,
}

/// A multiple-choice or predict-the-reply question. Only the drafts live here; the answer
/// is the run's.
#[component]
fn Quiz(props: &QuizProps) -> Html {
    let chosen = use_state(|| None::<usize>);
    let typed_ref = use_node_ref();
    let name = format!("quiz-{}", props.index);
    let on_submit = {
        let (chosen, typed_ref, typed, on_step) =
            (chosen.clone(), typed_ref.clone(), props.typed, props.on_step.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let answer = if typed {
                Prediction::Typed(typed_ref.cast::<HtmlTextAreaElement>().map(|t| t.value()).unwrap_or_default())
            } else {
                let Some(option) = *chosen else { return };
                Prediction::Option(option)
            };
            on_step.emit(Step::Answer(answer));
        })
    };
    let answer = props.run.answer.as_ref();
    let done = answer.is_some();
    let legend = if props.command.is_some() { "What will it print?" } else { "Your answer" };
    let button = |label: &'static str, s: Step| {
        let on_step = props.on_step.clone();
        html! { <button type="button" onclick={Callback::from(move |_: MouseEvent| on_step.emit(s.clone()))}>{label}</button> }
    };
    html! {
        <form class="quiz" onsubmit={on_submit}>
            <fieldset disabled={done}>
                <legend>{legend}</legend>
                if props.typed {
                    <label for={format!("{name}-typed")}>{"Type the reply as redis-cli prints it"}</label>
                    <textarea id={format!("{name}-typed")} ref={typed_ref} rows="3" spellcheck="false" class="typed-reply" />
                } else {
                    { for props.options.iter().enumerate().map(|(n, option)| {
                        let id = format!("{name}-{n}");
                        let onchange = {
                            let chosen = chosen.clone();
                            Callback::from(move |_: Event| chosen.set(Some(n)))
                        };
                        let judged = props.run.options.get(n);
                        html! {
                            <div class={classes!("option", judged.map(|j| if j.correct { "right" } else { "wrong" }))}>
                                <input type="radio" id={id.clone()} name={name.clone()} checked={*chosen == Some(n)} {onchange} />
                                <label for={id}>
                                    if option.contains('\n') { <pre>{option.trim_end()}</pre> } else { {markdown::render_inline(option)} }
                                </label>
                                if let Some(j) = judged {
                                    <p class="option-why">{markdown::render_inline(&format!("{}{}", if j.correct { "Right: " } else { "Wrong: " }, j.why))}</p>
                                }
                            </div>
                        }
                    }) }
                }
                <button type="submit" class="primary" disabled={!props.typed && chosen.is_none()}>{"Answer"}</button>
            </fieldset>
            <div class="answer" role="status" aria-live="polite">
                if let Some(answer) = answer {
                    <p class={if answer.correct { "pass" } else { "fail" }}>
                        {if answer.correct { "✓ Right. " } else { "✗ Not quite. " }}
                        // A predicted reply chosen among options is explained by the options themselves.
                        if props.typed || props.command.is_none() { {markdown::render_inline(&answer.why)} }
                    </p>
                    if !props.run.reply.is_empty() {
                        <p>{"It prints:"}</p>
                        <pre class="reply">{&props.run.reply}</pre>
                    }
                }
            </div>
            if let (true, true, Some(command)) = (done, props.page, &props.command) {
                { button("Run it in the console", Step::Run(command.clone())) }
            }
            if answer.is_some_and(|a| !a.correct) {
                { button("Try again", Step::Retry) }
            }
        </form>
    }
}
