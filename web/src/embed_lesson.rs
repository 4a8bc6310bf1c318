//! A lesson inside an embedded widget (modes lesson, quiz and player): which task is on, what
//! the learner has used and earned, and the panel that shows the task. Every judgement comes
//! from the player's [`Tutor`] (and through it the lessons crate's checker); this module keeps
//! the widget's score and turns steps into events.

use std::cell::RefCell;
use std::rc::Rc;

use streamlab_wasm::embed::{
    task_score, CheckEvent, EmbedOptions, Mode, Prediction, ProgressEvent, QuizAnswerEvent, SolutionPolicy,
    TaskCompleteEvent, TASK_MAX,
};
use streamlab_wasm::lesson::{LessonView, TaskKindView, Tutor};
use streamlab_wasm::{json, Playground};
use yew::prelude::*;

use crate::markdown::render as text;

/// Events a step raised: (type, payload JSON).
pub type Events = Vec<(&'static str, String)>;

/// What happened in one task.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskRun {
    /// Hints shown.
    pub hints: usize,
    /// The solution was shown.
    pub solution: bool,
    /// "Show solution" was pressed once and waits for the confirmation.
    pub confirming: bool,
    /// The last Check.
    pub check: Option<CheckEvent>,
    /// The last answer (questions).
    pub answer: Option<QuizAnswerEvent>,
    /// Wrong answers before the right one (questions).
    pub wrong: usize,
    /// The score, once the task is complete.
    pub score: Option<u32>,
}

/// A lesson being played in a widget.
pub struct LessonRun {
    tutor: Tutor,
    /// The lesson as shown.
    pub view: Rc<LessonView>,
    /// The tasks this widget plays, by index in the lesson (a quiz plays only questions).
    pub order: Vec<usize>,
    /// Position in `order`.
    pub at: usize,
    /// How many steps the learner's session had when the current task started.
    start: usize,
    /// Per task, by index in the lesson.
    pub runs: Vec<TaskRun>,
    /// Whether hints are offered.
    pub hints: bool,
    /// Whether the solution may be shown.
    pub solution: SolutionPolicy,
    /// A message for the learner (a refused command).
    pub notice: Option<String>,
    /// Whether `lesson-complete` was raised.
    completed: bool,
}

fn is_question(kind: &TaskKindView) -> bool {
    !matches!(kind, TaskKindView::ReachState { .. })
}

impl LessonRun {
    /// Reads the options' lesson (validated in full unless it is the site's own).
    pub fn new(options: &EmbedOptions) -> Result<LessonRun, String> {
        let text = options.lesson.as_deref().unwrap_or_default();
        let file = options.file.as_deref().unwrap_or("lesson.toml");
        let tutor = if options.trusted {
            Tutor::parse(file, text, options.attempt)
        } else {
            Tutor::load(file, text, options.attempt)
        }
        .map_err(|problems| {
            let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
            format!("the lesson has problems:\n{}", lines.join("\n"))
        })?;
        let view = tutor.view();
        let order: Vec<usize> =
            (0..view.tasks.len()).filter(|&i| options.mode != Mode::Quiz || is_question(&view.tasks[i].kind)).collect();
        if order.is_empty() {
            return Err(format!("the lesson {} has no tasks for mode {}", view.id, options.mode.name()));
        }
        Ok(LessonRun {
            tutor,
            runs: vec![TaskRun::default(); view.tasks.len()],
            view: Rc::new(view),
            order,
            at: 0,
            start: 0,
            hints: options.hints,
            solution: options.solution,
            notice: None,
            completed: false,
        })
    }

    /// The current task's index in the lesson.
    pub fn task(&self) -> usize {
        self.order[self.at]
    }

    /// Whether the current task needs the console.
    pub fn needs_console(&self) -> bool {
        !is_question(&self.view.tasks[self.task()].kind)
    }

    /// Moves to position `at` of the order; a reach-state task's session replaces `lab`'s.
    pub fn go(&mut self, at: usize, lab: &RefCell<Playground>) -> Result<(), String> {
        self.at = at.min(self.order.len() - 1);
        self.notice = None;
        if self.needs_console() {
            let playground = self.tutor.start(self.task())?;
            self.start = playground.step_count();
            *lab.borrow_mut() = playground;
        }
        Ok(())
    }

    /// Why a typed line is refused in the current task.
    pub fn refusal(&self, line: &str) -> Option<String> {
        self.tutor.refusal(self.task(), line)
    }

    /// The reference solution of the current task.
    pub fn solution_lines(&self) -> Vec<String> {
        self.tutor.solution(self.task())
    }

    /// Check on the current reach-state task.
    pub fn check(&mut self, lab: &RefCell<Playground>) -> Result<Events, String> {
        let task = self.task();
        let view = self
            .tutor
            .check(task, &lab.borrow(), self.start)
            .ok_or_else(|| format!("task {task} is a question: answer it instead of checking"))?;
        let event =
            CheckEvent { task, passed: view.passed, failed: view.failures, commands: view.commands, par: view.par };
        let mut events = vec![("check", json(&event))];
        let run = &mut self.runs[task];
        run.check = Some(event.clone());
        if event.passed && run.score.is_none() {
            let score = task_score(event.commands, event.par, run.hints, run.solution);
            run.score = Some(score);
            let complete = TaskCompleteEvent {
                task,
                score,
                max: TASK_MAX,
                commands: event.commands,
                par: event.par,
                hints_used: run.hints,
                solution_viewed: run.solution,
            };
            events.push(("task-complete", json(&complete)));
            self.progress(&mut events);
        }
        Ok(events)
    }

    /// Answers the current question with an option or a typed reply.
    pub fn answer(&mut self, answer: Prediction) -> Result<Events, String> {
        let task = self.task();
        let (option, typed) = match &answer {
            Prediction::Option(n) => (Some(*n), None),
            Prediction::Typed(text) => (None, Some(text.clone())),
        };
        let answered = match &self.view.tasks[task].kind {
            TaskKindView::Choice { .. } => self.tutor.choose(task, option.unwrap_or(usize::MAX))?,
            TaskKindView::Predict { .. } => self.tutor.predict(task, &answer)?,
            TaskKindView::ReachState { .. } => return Err(format!("task {task} is checked, not answered")),
        };
        let event = QuizAnswerEvent { task, option, typed, correct: answered.correct, why: answered.why };
        let mut events = vec![("quiz-answer", json(&event))];
        let run = &mut self.runs[task];
        run.answer = Some(event.clone());
        if run.score.is_none() {
            if event.correct {
                let score = u32::from(run.wrong == 0);
                run.score = Some(score);
                let complete = TaskCompleteEvent {
                    task,
                    score,
                    max: 1,
                    commands: 0,
                    par: 0,
                    hints_used: 0,
                    solution_viewed: false,
                };
                events.push(("task-complete", json(&complete)));
                self.progress(&mut events);
            } else {
                run.wrong += 1;
            }
        }
        Ok(events)
    }

    /// Shows the next hint.
    pub fn hint(&mut self) {
        let task = self.task();
        if let TaskKindView::ReachState { hints, .. } = &self.view.tasks[task].kind {
            let run = &mut self.runs[task];
            run.hints = (run.hints + 1).min(hints.len());
        }
    }

    /// "Show solution": asks first when the policy says so.
    pub fn reveal(&mut self) {
        let run = &mut self.runs[self.order[self.at]];
        match self.solution {
            SolutionPolicy::Never => {}
            SolutionPolicy::Confirm if !run.confirming && !run.solution => run.confirming = true,
            _ => {
                run.confirming = false;
                run.solution = true;
            }
        }
    }

    /// The progress event (and `lesson-complete` the first time every task is done).
    fn progress(&mut self, events: &mut Events) {
        let max_of = |i: usize| if is_question(&self.view.tasks[i].kind) { 1 } else { TASK_MAX };
        let progress = ProgressEvent {
            lesson: self.view.id.clone(),
            done: self.order.iter().filter(|&&i| self.runs[i].score.is_some()).count(),
            total: self.order.len(),
            score: self.order.iter().filter_map(|&i| self.runs[i].score).sum(),
            max: self.order.iter().map(|&i| max_of(i)).sum(),
        };
        events.push(("progress", json(&progress)));
        if progress.done == progress.total && !self.completed {
            self.completed = true;
            events.push(("lesson-complete", json(&progress)));
        }
    }
}

/// What the panel's buttons do; the widget performs them (it owns the session and events).
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Go to a position in the order.
    Go(usize),
    /// Check the current task.
    Check,
    /// Show a hint.
    Hint,
    /// Show (or confirm showing) the solution.
    Reveal,
    /// Answer the current question.
    Answer(Prediction),
}

#[derive(Properties, PartialEq)]
pub struct PanelProps {
    /// The lesson's state, read at render time.
    pub view: Rc<LessonView>,
    /// The current task's index in the lesson, its position, and the order.
    pub task: usize,
    pub at: usize,
    pub order: Rc<Vec<usize>>,
    /// What happened in the current task.
    pub run: TaskRun,
    pub hints: bool,
    pub solution: SolutionPolicy,
    pub solution_lines: Rc<Vec<String>>,
    pub notice: Option<String>,
    pub mode: Mode,
    pub on_step: Callback<Step>,
}

/// The lesson panel: intro (lesson and player modes), the current task and its buttons.
#[component]
pub fn Panel(props: &PanelProps) -> Html {
    let typed = use_state(String::new);
    let step = |s: Step| {
        let on_step = props.on_step.clone();
        Callback::from(move |_: MouseEvent| on_step.emit(s.clone()))
    };
    let task = &props.view.tasks[props.task];
    let run = &props.run;
    let choices = |command: Option<&String>, options: &Vec<String>| {
        html! {
            <>
            if let Some(command) = command { <pre class="sl-command">{format!("> {command}")}</pre> }
            <div class="sl-options" role="group" aria-label="Answers">
                { for options.iter().enumerate().map(|(i, o)| {
                    let chosen = run.answer.as_ref().is_some_and(|a| a.option == Some(i));
                    html! { <button aria-pressed={chosen.to_string()} onclick={step(Step::Answer(Prediction::Option(i)))}>{text(o)}</button> }
                }) }
            </div>
            </>
        }
    };
    let body = match &task.kind {
        TaskKindView::ReachState { hints, par, disabled } => html! {
            <>
            <p class="sl-meta">{format!("Par: {par} command{}", if *par == 1 { "" } else { "s" })}
                { if disabled.is_empty() { String::new() } else { format!(" · turned off: {}", disabled.join(", ")) } }</p>
            <div class="sl-actions">
                <button class="primary" onclick={step(Step::Check)}>{"Check"}</button>
                if props.hints && !hints.is_empty() {
                    <button onclick={step(Step::Hint)} disabled={run.hints >= hints.len()}>
                        {format!("Hint ({}/{})", run.hints, hints.len())}</button>
                }
                if props.solution != SolutionPolicy::Never && !run.solution {
                    <button onclick={step(Step::Reveal)}>{ if run.confirming { "Really show the solution?" } else { "Show solution" } }</button>
                }
            </div>
            if props.hints && run.hints > 0 {
                <ol class="sl-hints">{ for hints.iter().take(run.hints).map(|h| html! { <li>{text(h)}</li> }) }</ol>
            }
            if run.solution {
                <div class="sl-solution"><strong>{"Solution"}</strong>
                    <pre>{props.solution_lines.join("\n")}</pre></div>
            }
            if let Some(check) = &run.check {
                if check.passed {
                    <p class="sl-pass" role="status">{format!("✓ Passed in {} command{} (par {}).", check.commands, if check.commands == 1 { "" } else { "s" }, check.par)}</p>
                } else {
                    <div class="sl-fail" role="status"><strong>{"Not yet:"}</strong>
                        <ul>{ for check.failed.iter().map(|m| html! { <li>{text(m)}</li> }) }</ul></div>
                }
            }
            </>
        },
        TaskKindView::Choice { options } => choices(None, options),
        TaskKindView::Predict { command, options } if !options.is_empty() => choices(Some(command), options),
        TaskKindView::Predict { command, .. } => {
            let oninput = {
                let typed = typed.clone();
                Callback::from(move |e: InputEvent| {
                    typed.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())
                })
            };
            let answer = step(Step::Answer(Prediction::Typed((*typed).clone())));
            html! {
                <>
                <pre class="sl-command">{format!("> {command}")}</pre>
                <label class="sl-typed">{"What does it print? "}
                    <input type="text" value={(*typed).clone()} {oninput} /></label>
                <button class="primary" onclick={answer}>{"Answer"}</button>
                </>
            }
        }
    };
    let answer = run.answer.as_ref().map(|a| {
        html! {
            <div class={if a.correct { "sl-pass" } else { "sl-fail" }} role="status">
                <strong>{ if a.correct { "✓ Right. " } else { "✗ Not quite. " } }</strong>{text(&a.why)}</div>
        }
    });
    let last = props.order.len() - 1;
    html! {
        <section class="sl-lesson" aria-label={format!("Lesson: {}", props.view.title)}>
            <header class="sl-head">
                <h2>{&props.view.title}</h2>
                <span class="sl-meta">{format!("{} {} of {}", if props.mode == Mode::Quiz { "Question" } else { "Task" }, props.at + 1, props.order.len())}</span>
            </header>
            if props.mode != Mode::Quiz && props.at == 0 {
                <details class="sl-intro" open=true><summary>{"Introduction"}</summary>
                    { for props.view.intro.iter().map(|step| html! {
                        <>
                        {text(&step.text)}
                        if !step.demo.is_empty() {
                            <pre class="sl-demo">{ step.demo.iter().map(|d| format!("{}> {}\n{}", d.conn, d.line, d.output.join("\n"))).collect::<Vec<_>>().join("\n") }</pre>
                        }
                        </>
                    }) }
                </details>
            }
            if props.mode == Mode::Player {
                <nav class="sl-tasks" aria-label="Tasks">
                    { for props.order.iter().enumerate().map(|(i, &t)| html! {
                        <button aria-current={(i == props.at).then_some("step")} onclick={step(Step::Go(i))}>
                            {format!("{}. {}", i + 1, props.view.tasks[t].title)}</button>
                    }) }
                </nav>
            }
            <h3>{&task.title}</h3>
            {text(&task.prompt)}
            {body}
            {answer.unwrap_or_default()}
            if let Some(notice) = &props.notice { <p class="sl-fail" role="alert">{notice}</p> }
            <div class="sl-actions">
                <button onclick={step(Step::Go(props.at.saturating_sub(1)))} disabled={props.at == 0}>{"← Previous"}</button>
                <button onclick={step(Step::Go(props.at + 1))} disabled={props.at == last}>{"Next →"}</button>
            </div>
        </section>
    }
}
