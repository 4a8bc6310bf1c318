//! The lesson player's panel, shown beside the console and the pictures: the intro with its
//! demos, the task list, and the current task (Check, Hint, Show goal, Show solution, par and
//! the command count for reach-state tasks; options or a typed reply for quizzes). It reads
//! a [`LessonRun`] and speaks through [`Action`]s, so any host that keeps an `AppState` (the
//! page, an embed) can show it.

use std::rc::Rc;

use streamlab_wasm::lesson::{Answered, Prediction, TaskKindView, TaskView, Tutor};
use web_sys::HtmlTextAreaElement;
use yew::prelude::*;

use crate::markdown;
use crate::state::{Action, LessonRun};

#[derive(Properties, PartialEq)]
pub struct LessonPanelProps {
    /// The lesson being played.
    pub run: LessonRun,
    /// Commands the learner has run in the current task.
    pub commands: usize,
    /// Changes to the app.
    pub on_action: Callback<Action>,
    /// Back to the lesson list.
    pub on_list: Callback<()>,
}

/// The lesson beside the console.
#[component]
pub fn LessonPanel(props: &LessonPanelProps) -> Html {
    let run = &props.run;
    let view = &run.view;
    let emit = |action: Action| {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| on_action.emit(action.clone()))
    };
    let total = view.tasks.len();
    let solved = run.progress.solved.iter().filter(|&&t| t < total).count();
    let task = &view.tasks[run.task];
    let key = format!("{}-{}-{}", view.id, run.tutor.variant(), run.task);
    let next = (run.task + 1 < total && run.progress.solved.contains(&run.task)).then(|| run.task + 1);
    html! {
        <section class="lesson" aria-labelledby="lesson-title">
            <div class="lesson-top">
                <h2 id="lesson-title">{markdown::render_inline(&view.title)}</h2>
                <p class="lesson-meta">{format!("{} min · {} · {solved} of {total} tasks solved", view.minutes, view.profile)}</p>
                <div class="lesson-actions">
                    <button onclick={props.on_list.reform(|_: MouseEvent| ())}>{"All lessons"}</button>
                    <button onclick={emit(Action::Sandbox)} title="Leave the lesson and keep this session in the playground">{"Sandbox"}</button>
                    <button onclick={emit(Action::StartOver)} title="Start the lesson again (the ids and names may change)">{"Start over"}</button>
                </div>
            </div>
            <details class="intro" open={run.task == 0 && solved == 0}>
                <summary>{"Introduction"}</summary>
                <div class="md">{markdown::render(&view.summary)}</div>
                { for view.intro.iter().map(|step| html! {
                    <div class="intro-step">
                        <div class="md">{markdown::render(&step.text)}</div>
                        if !step.demo.is_empty() {
                            <pre class="demo" aria-label="Demo">
                                { for step.demo.iter().map(|d| html! {
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
            <nav aria-label="Tasks">
                <ol class="task-list">
                    { for view.tasks.iter().enumerate().map(|(n, t)| {
                        let done = run.progress.solved.contains(&n);
                        html! {
                            <li>
                                <button class={classes!("task-link", done.then_some("done"))}
                                    aria-current={(n == run.task).then_some("step")}
                                    onclick={emit(Action::StartTask(n))}>
                                    <span aria-hidden="true">{if done { "✓ " } else { "" }}</span>
                                    {format!("{}. ", n + 1)}{markdown::render_inline(&t.title)}
                                    if done { <span class="sr-only">{" (solved)"}</span> }
                                </button>
                            </li>
                        }
                    }) }
                </ol>
            </nav>
            <TaskPanel key={key} tutor={run.tutor.clone()} index={run.task} task={task.clone()}
                check={run.check.clone()} goal_shown={run.goal.is_some()} commands={props.commands}
                solved={run.progress.solved.contains(&run.task)} on_action={props.on_action.clone()} />
            if let Some(next) = next {
                <button class="primary next" onclick={emit(Action::StartTask(next))}>{format!("Next: task {}", next + 1)}</button>
            } else if solved == total {
                <p class="complete" role="status">{"Lesson complete. "}<button onclick={props.on_list.reform(|_: MouseEvent| ())}>{"Choose another lesson"}</button></p>
            }
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct TaskPanelProps {
    tutor: Rc<Tutor>,
    index: usize,
    task: TaskView,
    check: Option<Rc<streamlab_wasm::lesson::CheckView>>,
    goal_shown: bool,
    commands: usize,
    solved: bool,
    on_action: Callback<Action>,
}

/// One task; keyed by lesson, variant and task, so hints and answers start afresh.
#[component]
fn TaskPanel(props: &TaskPanelProps) -> Html {
    let hints = use_state(|| 0usize);
    let solution = use_state(|| Reveal::Hidden);
    let task = &props.task;
    let body = match &task.kind {
        TaskKindView::ReachState { hints: all, par, disabled } => {
            let emit = |action: Action| {
                let on_action = props.on_action.clone();
                Callback::from(move |_: MouseEvent| on_action.emit(action.clone()))
            };
            let more_hint = {
                let hints = hints.clone();
                let count = all.len();
                Callback::from(move |_: MouseEvent| hints.set((*hints + 1).min(count)))
            };
            let set_reveal = |to: Reveal| {
                let solution = solution.clone();
                Callback::from(move |_: MouseEvent| solution.set(to))
            };
            html! {
                <>
                <p class="par">{format!("Par {par} · your commands {}", props.commands)}</p>
                if !disabled.is_empty() {
                    <p class="disabled">{"Turned off in this task: "}{ for disabled.iter().map(|d| html! { <><code>{d}</code>{" "}</> }) }</p>
                }
                <div class="task-actions">
                    <button class="primary" onclick={emit(Action::Check)}>{"Check"}</button>
                    <button onclick={more_hint} disabled={*hints >= all.len()}>
                        {if *hints == 0 { "Hint".to_owned() } else { format!("Next hint ({}/{})", *hints, all.len()) }}
                    </button>
                    <button aria-pressed={props.goal_shown.to_string()} onclick={emit(Action::ShowGoal(!props.goal_shown))}>{"Show goal"}</button>
                    if *solution == Reveal::Hidden {
                        <button onclick={set_reveal(Reveal::Asking)}>{"Show solution"}</button>
                    }
                </div>
                <div class="check-result" role="status" aria-live="polite">
                    if let Some(check) = &props.check {
                        if check.passed {
                            <p class="pass">{format!("✓ Goal reached in {} commands (par {}).", check.commands, check.par)}</p>
                        } else {
                            <div class="fail">
                                <p>{"Not yet:"}</p>
                                <ul>{ for check.failures.iter().map(|f| html! { <li>{markdown::render_inline(f)}</li> }) }</ul>
                            </div>
                        }
                    }
                </div>
                if *hints > 0 {
                    <ol class="hints" aria-label="Hints">{ for all[..*hints].iter().map(|h| html! { <li>{markdown::render_inline(h)}</li> }) }</ol>
                }
                if *solution == Reveal::Asking {
                    <div class="confirm" role="group" aria-label="Show the solution?">
                        <p>{"Show the reference solution? Trying first teaches more; Check will still pass if you type it."}</p>
                        <button onclick={set_reveal(Reveal::Shown)}>{"Yes, show it"}</button>
                        <button onclick={set_reveal(Reveal::Hidden)}>{"Not yet"}</button>
                    </div>
                } else if *solution == Reveal::Shown {
                    <div class="solution">
                        <p>{"Reference solution ("}<code>{"name> "}</code>{" runs a line on that connection; you can type these lines as they are):"}</p>
                        <pre>{props.tutor.solution(props.index).join("\n")}</pre>
                    </div>
                }
                </>
            }
        }
        TaskKindView::Predict { command, options } => html! {
            <>
            <p class="predict-command">{"The command: "}<code>{command}</code></p>
            <Quiz tutor={props.tutor.clone()} index={props.index} options={options.clone()}
                typed={options.is_empty()} command={Some(command.clone())} on_action={props.on_action.clone()} />
            </>
        },
        TaskKindView::Choice { options } => html! {
            <Quiz tutor={props.tutor.clone()} index={props.index} options={options.clone()}
                typed=false command={None::<String>} on_action={props.on_action.clone()} />
        },
    };
    html! {
        <article class="task" aria-labelledby="task-title">
            <h3 id="task-title">
                {format!("Task {}: ", props.index + 1)}{markdown::render_inline(&task.title)}
                if props.solved { <span class="solved-mark">{" ✓ solved"}</span> }
            </h3>
            <div class="md prompt-text">{markdown::render(&task.prompt)}</div>
            {body}
        </article>
    }
}

/// Where the solution's confirmation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reveal {
    Hidden,
    Asking,
    Shown,
}

#[derive(Properties, PartialEq)]
struct QuizProps {
    tutor: Rc<Tutor>,
    index: usize,
    /// Options to choose from (empty when the reply is typed).
    options: Vec<String>,
    typed: bool,
    /// The predicted command (predict tasks), which can be run once answered.
    command: Option<String>,
    on_action: Callback<Action>,
}

/// A multiple-choice or predict-the-reply question.
#[component]
fn Quiz(props: &QuizProps) -> Html {
    let chosen = use_state(|| None::<usize>);
    let answered = use_state(|| None::<(Answered, Vec<String>)>);
    let typed_ref = use_node_ref();
    let name = format!("quiz-{}", props.index);

    let on_submit = {
        let (chosen, answered, typed_ref) = (chosen.clone(), answered.clone(), typed_ref.clone());
        let (tutor, index, typed, count) = (props.tutor.clone(), props.index, props.typed, props.options.len());
        let is_predict = props.command.is_some();
        let on_action = props.on_action.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let result = if typed {
                let text = typed_ref.cast::<HtmlTextAreaElement>().map(|t| t.value()).unwrap_or_default();
                tutor.predict(index, &Prediction::Typed(text)).map(|a| (a, Vec::new()))
            } else {
                let Some(option) = *chosen else { return };
                let answer = if is_predict {
                    tutor.predict(index, &Prediction::Option(option))
                } else {
                    tutor.choose(index, option)
                };
                // Once answered, every option shows why it is right or wrong.
                let whys = (0..count)
                    .map(|n| {
                        let other = if is_predict {
                            tutor.predict(index, &Prediction::Option(n))
                        } else {
                            tutor.choose(index, n)
                        };
                        other
                            .map(|a| format!("{}{}", if a.correct { "Right: " } else { "Wrong: " }, a.why))
                            .unwrap_or_default()
                    })
                    .collect();
                answer.map(|a| (a, whys))
            };
            if let Ok((answer, whys)) = result {
                if answer.correct {
                    on_action.emit(Action::Solved(index));
                }
                answered.set(Some((answer, whys)));
            }
        })
    };
    let done = answered.is_some();
    let legend = if props.command.is_some() { "What will it print?" } else { "Your answer" };
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
                        let why = answered.as_ref().and_then(|(_, whys)| whys.get(n).cloned());
                        let multi_line = option.contains('\n');
                        html! {
                            <div class={classes!("option", why.as_ref().map(|w| if w.starts_with("Right") { "right" } else { "wrong" }))}>
                                <input type="radio" id={id.clone()} name={name.clone()} checked={*chosen == Some(n)} {onchange} />
                                <label for={id}>
                                    if multi_line { <pre>{option.trim_end()}</pre> } else { {markdown::render_inline(option)} }
                                </label>
                                if let Some(why) = why { <p class="option-why">{markdown::render_inline(&why)}</p> }
                            </div>
                        }
                    }) }
                }
                <button type="submit" class="primary" disabled={!props.typed && chosen.is_none()}>{"Answer"}</button>
            </fieldset>
            <div class="answer" role="status" aria-live="polite">
                if let Some((answer, _)) = &*answered {
                    <p class={if answer.correct { "pass" } else { "fail" }}>
                        {if answer.correct { "✓ Right. " } else { "✗ Not quite. " }}
                        if props.typed || props.command.is_none() { {markdown::render_inline(&answer.why)} }
                    </p>
                    if !answer.reply.is_empty() {
                        <p>{"It prints:"}</p>
                        <pre class="reply">{&answer.reply}</pre>
                    }
                }
            </div>
            if let (true, Some(command)) = (done, &props.command) {
                <button type="button" onclick={{
                    let (on_action, command) = (props.on_action.clone(), command.clone());
                    Callback::from(move |_: MouseEvent| on_action.emit(Action::Run(command.clone())))
                }}>{"Run it in the console"}</button>
            }
            if done && !answered.as_ref().is_some_and(|(a, _)| a.correct) {
                <button type="button" onclick={{
                    let answered = answered.clone();
                    Callback::from(move |_: MouseEvent| answered.set(None))
                }}>{"Try again"}</button>
            }
        </form>
    }
}
