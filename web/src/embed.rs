//! The playground as a widget inside someone else's page: `mount(element, options, on_event)`
//! renders a console and pictures into `element` (embed.js gives each widget its own shadow
//! root) and returns a [`Widget`] handle for the page's method calls. embed.js gives each
//! widget an instance of the module of its own, so a panic (see `panic.rs`) stops only that
//! widget; each has its own session.
//!
//! Events leave through `on_event(type, payload_json)`; embed.js turns them into DOM events
//! and, inside an iframe, into `postMessage`s.

use std::cell::RefCell;
use std::rc::Rc;

use streamlab_view::embed::{
    Answer, CommandEvent, EmbedOptions, ErrorEvent, Layout, Mode, ReadyEvent, SetupErrorEvent, TaskSession,
};
use streamlab_view::json;
use streamlab_view::lesson::{describe, Progress, Tutor};
use streamlab_view::{OutputKind, OutputView, Playground, SessionSpec, SnapshotView};
use wasm_bindgen::prelude::*;
use yew::prelude::*;
use yew::AppHandle;

use crate::console::ConsolePane;
use crate::lesson_run::{LessonRun, PlayerAction, Rules};
use crate::pictures::Pictures;
use crate::player::{beside_goal, Host, LessonPanel};
use crate::state::{Action, AppState};

/// What the component and its handle share: the options, the page's event callback, and the
/// component's dispatcher once it has rendered.
struct Shared {
    options: EmbedOptions,
    on_event: js_sys::Function,
    dispatch: RefCell<Option<Callback<Action>>>,
    /// The session, also held by the reducer's state: the handle reads it directly, and the
    /// embed never replaces it (a new state is loaded into it in place).
    lab: Rc<RefCell<Playground>>,
    /// The lesson (lesson, quiz and player modes).
    lesson: Option<RefCell<LessonRun>>,
    /// Redraws the widget after the lesson changed.
    redraw: RefCell<Option<Callback<()>>>,
    /// The current task's goal, while the learner has it shown (a task's start drops it).
    goal: RefCell<Option<Rc<SnapshotView>>>,
}

impl Shared {
    fn emit(&self, kind: &str, payload: &str) {
        // A throwing listener on the page must not break the widget.
        let _ = self.on_event.call2(&JsValue::NULL, &JsValue::from_str(kind), &JsValue::from_str(payload));
    }

    /// Passes an action to the reducer. In a lesson the lines the task turns off are refused
    /// here, so a typed line, a paste and the page's `run()` all meet the rule: the panel says
    /// why, and the refused line's `command` event carries the refusal (so `run()` resolves).
    fn dispatch(&self, action: Action) {
        let action = match (&self.lesson, action) {
            (Some(lesson), Action::Run(line)) => {
                let refused = self.refuse(lesson, &line);
                lesson.borrow_mut().notice = refused.clone();
                if refused.is_some() {
                    self.redraw();
                    return;
                }
                Action::Run(line)
            }
            (Some(lesson), Action::RunAll(lines)) => {
                let mut refused = None;
                let lines = lines
                    .into_iter()
                    .filter(|line| match line.trim().is_empty() {
                        true => true,
                        false => self.refuse(lesson, line).map(|why| refused = Some(why)).is_none(),
                    })
                    .collect();
                let notice_shown = refused.is_some();
                lesson.borrow_mut().notice = refused;
                if notice_shown {
                    self.redraw();
                }
                Action::RunAll(lines)
            }
            (_, action) => action,
        };
        self.send(action);
    }

    /// Passes an action to the reducer as it is.
    fn send(&self, action: Action) {
        if let Some(dispatch) = self.dispatch.borrow().as_ref() {
            dispatch.emit(action);
        }
    }

    /// Why the lesson's current task refuses `line`, after raising the refused line's
    /// `command` event; `None` when it may run. No borrow is held while the page's listener
    /// runs (it may call the widget back).
    fn refuse(&self, lesson: &RefCell<LessonRun>, line: &str) -> Option<String> {
        let refusal = lesson.borrow().refusal(line)?;
        let conn = self.lab.borrow().snapshot().current.clone();
        let output = [OutputView { to: None, text: refusal.clone(), kind: OutputKind::Error }];
        self.emit("command", &json(&CommandEvent::new(line, &conn, &output, false)));
        Some(refusal)
    }

    fn redraw(&self) {
        if let Some(redraw) = self.redraw.borrow().as_ref() {
            redraw.emit(());
        }
    }

    /// Back to the state after the setup (in a lesson: the current task's start).
    fn reset(&self) {
        match &self.lesson {
            Some(lesson) => {
                let result = lesson.borrow_mut().restart(&mut self.lab.borrow_mut());
                self.dispatch(Action::ClearConsole);
                self.redraw();
                if let Err(message) = result {
                    self.emit("error", &json(&ErrorEvent { message }));
                }
            }
            None => {
                self.dispatch(Action::Reset);
                self.dispatch(Action::RunAll(self.options.setup.clone()));
            }
        }
    }

    /// Shows the current task's goal beside the state, or hides it.
    fn show_goal(&self, show: bool) {
        let goal = self.lesson.as_ref().filter(|_| show).and_then(|lesson| {
            let lesson = lesson.borrow();
            lesson.tutor.goal_snapshot(lesson.task())
        });
        *self.goal.borrow_mut() = goal.map(Rc::new);
        self.redraw();
    }

    /// Performs a lesson step, raises its events and redraws. Errors become `error` events.
    fn lesson_step(&self, step: PlayerAction) -> Result<(), String> {
        let Some(lesson) = &self.lesson else { return Err("this widget has no lesson".into()) };
        let moving = matches!(step, PlayerAction::Go(_));
        let result = {
            let mut lesson = lesson.borrow_mut();
            match step {
                PlayerAction::Go(at) => lesson.enter(at, &mut self.lab.borrow_mut()).map(|()| Vec::new()),
                step => lesson.step(step, &self.lab.borrow()),
            }
        };
        if moving {
            self.goal.take();
            // The task's session: the reducer re-reads it, with an empty scrollback unless it
            // continues the learner's own.
            let continued = lesson.borrow().continued;
            self.dispatch(if continued { Action::Refresh } else { Action::ClearConsole });
        }
        self.redraw();
        match result {
            Ok(events) => {
                for (kind, payload) in events {
                    self.emit(kind, &payload);
                }
                Ok(())
            }
            Err(message) => {
                self.emit("error", &json(&ErrorEvent { message: message.clone() }));
                Err(message)
            }
        }
    }
}

/// Runs the `setup` lines one at a time, raising `error` for each that printed one (before
/// `ready`, which still follows: see [`SetupErrorEvent`]).
fn run_setup(shared: &Shared, mut state: Rc<AppState>) -> Rc<AppState> {
    for (index, line) in shared.options.setup.iter().enumerate() {
        let before = state.noted;
        state = state.reduce(Action::RunAll(vec![line.clone()]));
        let new = (state.noted - before) as usize;
        let output: Vec<OutputView> =
            state.log.iter().skip(state.log.len().saturating_sub(new)).flat_map(|e| e.output.iter().cloned()).collect();
        if let Some(event) = SetupErrorEvent::new(index, line, &output) {
            shared.emit("error", &json(&event));
        }
    }
    state
}

/// Reads the options' lesson (validated in full unless it is the site's own) and plays it
/// under the options' rules, on the options' attempt or else a random one (it picks the
/// variant and the order options are shown in; `ready` reports it).
fn lesson_run(options: &EmbedOptions) -> Result<LessonRun, String> {
    let text = options.lesson.as_deref().unwrap_or_default();
    let file = options.file.as_deref().unwrap_or("lesson.toml");
    let attempt = options.attempt.unwrap_or_else(crate::page::random_attempt);
    let tutor = Tutor::parse(file, text, attempt)
        .map_err(|problems| format!("the lesson has problems:\n{}", describe(&problems)))?;
    let id = tutor.id().to_owned();
    let rules = Rules { questions_only: options.mode == Mode::Quiz, hints: options.hints, solution: options.solution };
    let progress = Progress { attempt, solved: Vec::new() };
    LessonRun::new(Rc::new(tutor), rules, &progress)
        .map_err(|_| format!("the lesson {id} has no tasks for mode {}", options.mode.name()))
}

#[derive(Properties)]
struct EmbedProps {
    shared: Rc<Shared>,
}

impl PartialEq for EmbedProps {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.shared, &other.shared)
    }
}

#[component]
fn Embed(props: &EmbedProps) -> Html {
    let shared = props.shared.clone();
    let state = {
        let shared = shared.clone();
        use_reducer(move || {
            let state = Rc::new(AppState::new_shared(shared.lab.clone(), Vec::new()));
            let state = if shared.options.state.is_some() || shared.lesson.is_some() {
                state
            } else {
                run_setup(&shared, state)
            };
            Rc::unwrap_or_clone(state)
        })
    };
    if shared.dispatch.borrow().is_none() {
        let dispatcher = state.dispatcher();
        *shared.dispatch.borrow_mut() = Some(Callback::from(move |action| dispatcher.dispatch(action)));
    }
    let dispatch = shared.dispatch.borrow().clone().expect("set just above");
    let redraw = use_force_update();
    if shared.redraw.borrow().is_none() {
        *shared.redraw.borrow_mut() = Some(Callback::from(move |()| redraw.force_update()));
    }

    // Every new scrollback entry is a `command` event; the setup's are not (they ran before
    // `ready`).
    let reported = use_mut_ref(|| state.noted);
    {
        let (shared, state) = (shared.clone(), state.clone());
        use_effect_with(state.noted, move |&noted| {
            let new = (noted - *reported.borrow()) as usize;
            *reported.borrow_mut() = noted;
            for entry in state.log.iter().skip(state.log.len().saturating_sub(new)) {
                let event = CommandEvent::new(&entry.line, &entry.conn, &entry.output, entry.blocked);
                shared.emit("command", &streamlab_view::json(&event));
            }
        });
    }
    {
        let shared = shared.clone();
        use_effect_with((), move |_| {
            let lesson = shared.lesson.as_ref().map(|l| l.borrow());
            let ready = ReadyEvent {
                mode: shared.options.mode.name(),
                profile: shared.lab.borrow().console().session().profile().to_string(),
                lesson: lesson.as_ref().map(|l| l.view.id.clone()),
                version: lesson.as_ref().map(|l| l.tutor.version()),
                tasks: lesson.as_ref().map_or(0, |l| l.order.len()),
                attempt: lesson.as_ref().map(|l| l.attempt),
                variant: lesson.as_ref().map(|l| l.tutor.variant()),
            };
            shared.emit("ready", &streamlab_view::json(&ready));
        });
    }

    let readonly = shared.options.mode == Mode::Readonly;
    let button = |label: &'static str, action: Option<Action>, enabled: bool| {
        let (shared, dispatch) = (shared.clone(), dispatch.clone());
        let onclick = Callback::from(move |_: MouseEvent| match action.clone() {
            Some(action) => dispatch.emit(action),
            None => shared.reset(),
        });
        html! { <button {onclick} disabled={!enabled}>{label}</button> }
    };
    // Through `Shared::dispatch`, which refuses what the lesson's task turns off. Memoized (as
    // `on_step` below) so the console's props stay equal when nothing it shows changed.
    let on_action = {
        let shared = shared.clone();
        use_callback((), move |action: Action, ()| shared.dispatch(action))
    };
    let console = if readonly {
        html! {
            <section class="console" aria-label="Commands run">
                <div class="log" role="log" aria-live="polite">
                    { for state.log.iter().map(|entry| html! {
                        <>
                        <pre class="in"><span class="prompt">{format!("{}> ", entry.conn)}</span>{&entry.line}</pre>
                        { for entry.output.iter().map(|o| html! { <pre class={classes!("out", o.kind.name())}>{o.display()}</pre> }) }
                        </>
                    }) }
                </div>
            </section>
        }
    } else {
        html! {
            <ConsolePane snapshot={state.snapshot.clone()} log={state.log.clone()} first={state.log_first} marks={state.marks.clone()} history={state.history.clone()}
                {on_action} />
        }
    };
    // Memoized, so LessonPanel's props stay equal across renders; `shared` is the component's
    // for its lifetime (its props are never replaced), so neither callback needs deps.
    let on_step = {
        let shared = shared.clone();
        use_callback((), move |step: PlayerAction, ()| match step {
            PlayerAction::Goal(show) => shared.show_goal(show),
            step => {
                let _ = shared.lesson_step(step);
            }
        })
    };
    let goal = shared.goal.borrow().clone();
    let with_console = shared.lesson.as_ref().is_none_or(|lesson| lesson.borrow().needs_console());
    let position = state.snapshot.position;
    let (show_console, show_pictures) = match shared.options.layout {
        Layout::Console => (true, false),
        Layout::Pictures => (false, true),
        Layout::Both => (true, true),
    };
    let panel = shared.lesson.as_ref().map(|lesson| {
        let lesson = lesson.borrow();
        let on_step = on_step.clone();
        let host = Host {
            page: false,
            task_list: shared.options.mode == Mode::Player,
            goal_shown: goal.is_some(),
            console: with_console && show_console && !readonly,
        };
        html! {
            <LessonPanel run={lesson.clone()} commands={lesson.commands(&shared.lab.borrow())} {host} {on_step} />
        }
    });
    let pictures = |snapshot: &Rc<SnapshotView>, previous: &Rc<SnapshotView>| {
        html! { <Pictures snapshot={snapshot.clone()} previous={previous.clone()} on_action={dispatch.clone()} /> }
    };
    // A goal asked for is drawn beside the state even where the options show no pictures.
    let state_part = match &goal {
        Some(goal) => Some(beside_goal(pictures(&state.snapshot, &state.previous), pictures(goal, goal))),
        None => show_pictures.then(|| pictures(&state.snapshot, &state.previous)),
    };
    html! {
        <div class={classes!("sl-embed", format!("sl-mode-{}", shared.options.mode.name()))}>
            {panel.unwrap_or_default()}
            if with_console {
            if !readonly {
                <div class="sl-bar" role="group" aria-label="History">
                    { button("Undo", Some(Action::Undo), position > 0) }
                    { button("Redo", Some(Action::Redo), position < state.step_count) }
                    { button("Reset", None, true) }
                </div>
            }
            <div class={classes!("sl-parts", (show_console && state_part.is_some()).then_some("both"))}>
                if show_console { {console} }
                if let Some(part) = state_part {
                    <section class="right" aria-label="State">{part}</section>
                }
            </div>
            }
        </div>
    }
}

/// A mounted widget, for the page's method calls.
#[wasm_bindgen]
pub struct Widget {
    shared: Rc<Shared>,
    app: Option<AppHandle<Embed>>,
}

/// The session a state token (`getState`, the `state` option) describes.
fn restore_token(token: &str) -> Result<Playground, JsError> {
    SessionSpec::parse(token)
        .map(|spec| Playground::restore(&spec))
        .map_err(|e| JsError::new(&format!("Bad state: {e}")))
}

/// Mounts a widget into `element` with options (a URL query, see `EmbedOptions::parse`);
/// events go to `on_event(type, payload_json)`. Throws with a readable message when the options are wrong.
#[wasm_bindgen]
pub fn mount(element: web_sys::Element, options: &str, on_event: js_sys::Function) -> Result<Widget, JsError> {
    let options = EmbedOptions::parse(options).map_err(|e| JsError::new(&e))?;
    let lab = match &options.state {
        Some(token) => restore_token(token)?,
        None => Playground::new(&options.base_spec()),
    };
    let lab = Rc::new(RefCell::new(lab));
    let lesson = match options.mode.has_lesson() {
        true => {
            let mut lesson = lesson_run(&options).map_err(|e| JsError::new(&e))?;
            let at = lesson.at;
            lesson.enter(at, &mut lab.borrow_mut()).map_err(|e| JsError::new(&e))?;
            Some(RefCell::new(lesson))
        }
        false => None,
    };
    crate::panic::for_widget(&on_event);
    let shared = Rc::new(Shared {
        options,
        on_event,
        dispatch: RefCell::new(None),
        lab,
        lesson,
        redraw: RefCell::new(None),
        goal: RefCell::new(None),
    });
    let app = yew::Renderer::<Embed>::with_root_and_props(element, EmbedProps { shared: shared.clone() }).render();
    Ok(Widget { shared, app: Some(app) })
}

#[wasm_bindgen]
impl Widget {
    /// Runs a console line on the current connection (its `command` event follows).
    pub fn run(&self, line: &str) {
        self.shared.dispatch(Action::Run(line.to_owned()));
    }

    /// Back to the state after the setup.
    pub fn reset(&self) {
        self.shared.reset();
    }

    /// Takes the last step back.
    pub fn undo(&self) {
        self.shared.dispatch(Action::Undo);
    }

    /// Re-applies the next undone step.
    pub fn redo(&self) {
        self.shared.dispatch(Action::Redo);
    }

    /// A token that rebuilds this session (`setState`, or the `state` option).
    #[wasm_bindgen(js_name = getState)]
    pub fn get_state(&self) -> String {
        self.shared.lab.borrow().spec().to_fragment()
    }

    /// Replaces the session with the one a token describes.
    #[wasm_bindgen(js_name = setState)]
    pub fn set_state(&self, token: &str) -> Result<(), JsError> {
        *self.shared.lab.borrow_mut() = restore_token(token)?;
        // Clearing the scrollback also makes the reducer re-read the session.
        self.shared.dispatch(Action::ClearConsole);
        Ok(())
    }

    /// A lesson step by name, as embed.js takes them: `live` (JSON of `TaskSession`, the
    /// current task's session, for a receipt), `check` (its events follow), `hint`,
    /// `reveal`, `go TASK` (by its index in the lesson file), and the answers `option N`,
    /// `options N...`, `order N...`, `typed TEXT` (what a receipt's replay takes). One entry
    /// point rather than one per step: each export costs the wasm its glue. The others return
    /// the current task's count of hints shown (the replay of a receipt needs it); throws in a
    /// widget without a lesson, or where the step cannot be taken.
    pub fn act(&self, action: &str) -> Result<JsValue, JsError> {
        let Some(lesson) = self.shared.lesson.as_ref() else { return Err(JsError::new("this widget plays no lesson")) };
        let (word, rest) = action.split_once(' ').unwrap_or((action, ""));
        // Parsed as u32, the parse the options' `attempt` already has (usize's would be new code).
        let (mut numbers, mut numbered) = (Vec::new(), true);
        for number in rest.split(' ') {
            match number.parse::<u32>() {
                Ok(n) => numbers.push(n as usize),
                Err(_) => numbered = false,
            }
        }
        let bad = || JsError::new("not a lesson step");
        let step = match (word, numbered) {
            ("live", _) => {
                let lesson = lesson.borrow();
                let (task, log) = (lesson.task(), self.shared.lab.borrow().console().log_since(lesson.start));
                let (mut hints, mut solutions) = (Vec::new(), Vec::new());
                for (t, run) in lesson.runs.iter().enumerate() {
                    hints.push(run.hints.len());
                    if run.solution {
                        solutions.push(t);
                    }
                }
                let session = TaskSession { task, base: lesson.runs[task].base.clone(), log, hints, solutions };
                return Ok(JsValue::from_str(&json(&session)));
            }
            ("check", _) => PlayerAction::Check,
            ("hint", _) => PlayerAction::Hint,
            ("reveal", _) => PlayerAction::Reveal,
            ("typed", _) => PlayerAction::Answer(Answer::Typed(rest.to_owned())),
            // `split` yields at least one word, so a numbered step has its first number.
            ("go", true) => {
                PlayerAction::Go(lesson.borrow().order.iter().position(|&t| t == numbers[0]).ok_or_else(bad)?)
            }
            ("option", true) => PlayerAction::Answer(Answer::Option(numbers[0])),
            ("options", true) => PlayerAction::Answer(Answer::Options(numbers)),
            ("order", true) => PlayerAction::Answer(Answer::Order(numbers)),
            _ => return Err(bad()),
        };
        self.shared.lesson_step(step).map_err(|error| JsError::new(&error))?;
        Ok(JsValue::from_f64(lesson.borrow().current().hints.len() as f64))
    }

    /// A redis-cli script that replays the session against a real server.
    #[wasm_bindgen(js_name = exportScript)]
    pub fn export_script(&self) -> String {
        self.shared.lab.borrow().export()
    }

    /// Unmounts the widget.
    pub fn destroy(&mut self) {
        if let Some(app) = self.app.take() {
            app.destroy();
        }
        self.shared.dispatch.borrow_mut().take();
        self.shared.redraw.borrow_mut().take();
        crate::panic::forget_widget(&self.shared.on_event);
    }
}
