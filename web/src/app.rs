//! The app: the header (clock, share, export, theme), the console and timeline on the left,
//! the pictures or tables on the right. Owns the reducer and every effect on the page.

use std::rc::Rc;

use gloo::timers::callback::Interval;
use streamlab_view::diff::duration;
use streamlab_view::lesson::{describe, Progress, Tutor};
use streamlab_view::{Playground, SessionSpec};
use yew::prelude::*;

use crate::console::ConsolePane;
use crate::lesson_run::PlayerAction;
use crate::lessons::{file_name, Catalog, LessonList};
use crate::page;
use crate::pictures::Pictures;
use crate::player::{beside_goal, Host, LessonPanel};
use crate::profile::ProfileSelect;
use crate::state::{Action, AppState, Backup, View};
use crate::tables::Tables;
use crate::timeline::TimelinePane;

/// How often a running clock ticks, in ms of both real and engine time.
const TICK_MS: u32 = 250;

fn initial_state() -> AppState {
    let (spec, problem) = page::initial_spec();
    let lab = Playground::restore(&spec);
    let mut state = AppState::restored(lab, page::load_history());
    // An Undo offered before the reload is offered again.
    let backup = page::load_backup().map(|(notice, fragment)| Backup {
        kept: None,
        fragment: Some(fragment.into()),
        notice: notice.into(),
    });
    state.notice = problem.or_else(|| backup.as_ref().map(|b| b.notice.to_string()));
    state.backup = backup;
    state
}

/// The clock as elapsed time since the session started: `+00:01.100`.
fn elapsed(ms: i64) -> String {
    let (minutes, rest) = (ms / 60_000, ms % 60_000);
    format!("+{minutes:02}:{:02}.{:03}", rest / 1000, rest % 1000)
}

/// The state as pictures (animating what changed since `previous`) or as tables.
fn state_view(
    view: View,
    snapshot: Rc<streamlab_view::SnapshotView>,
    previous: Rc<streamlab_view::SnapshotView>,
    on_action: Callback<Action>,
) -> Html {
    match view {
        View::Pictures => html! { <Pictures {snapshot} {previous} {on_action} /> },
        View::Tables => html! { <Tables {snapshot} /> },
    }
}

#[component]
pub fn App() -> Html {
    let state = use_reducer(initial_state);
    // After `initial_state`, which is what sets a session aside when its last load stalled.
    let stalled = use_state(page::stalled_session);
    // One callback for the app's lifetime, so memoized children see equal props.
    let dispatch: Callback<Action> = {
        let dispatcher = state.dispatcher();
        (*use_memo((), move |_| Callback::from(move |action: Action| dispatcher.dispatch(action)))).clone()
    };
    let theme = use_state(page::load_theme);
    let panel = use_state(|| None::<&'static str>);
    // The lesson list is shown (over the playground); the site's lessons once fetched.
    let show_list = use_state(|| false);
    let catalog = use_state(|| None::<Rc<Catalog>>);
    let catalog_error = use_state(|| None::<String>);
    let url_problems = use_state(|| None::<String>);

    // Plays a lesson in the variant its saved progress's attempt picks; a lesson never played
    // here starts on a random attempt (saved with its progress from then on).
    // Memoized (the dispatcher and the setter never change), so LessonList's props stay equal.
    let open_lesson =
        use_callback((dispatch.clone(), show_list.setter()), |tutor: Rc<Tutor>, (dispatch, show_list)| {
            let progress = page::saved_progress(tutor.id(), tutor.version())
                .unwrap_or_else(|| Progress { attempt: page::random_attempt(), solved: Vec::new() });
            let tutor = Rc::new(tutor.attempt(progress.attempt));
            dispatch.emit(Action::OpenLesson(tutor, progress));
            show_list.set(false);
        });
    // Back to the lesson, or (`true`) to the sandbox, setting the lesson aside.
    let close_list = use_callback((dispatch.clone(), show_list.setter()), |sandbox: bool, (dispatch, show_list)| {
        if sandbox {
            dispatch.emit(Action::Sandbox);
        }
        show_list.set(false);
    });
    {
        // Fetch the lessons once; `?lesson=ID` opens one of them, `?lesson=URL` loads one from
        // elsewhere (validated first; its problems show on the list).
        let (catalog, catalog_error, url_problems) = (catalog.clone(), catalog_error.clone(), url_problems.clone());
        let (open_lesson, show_list) = (open_lesson.clone(), show_list.clone());
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                let fetched = Catalog::fetch().await.map(Rc::new);
                let wanted = page::lesson_param();
                if let Ok(found) = &fetched {
                    catalog.set(Some(found.clone()));
                }
                if let Err(error) = &fetched {
                    catalog_error.set(Some(error.clone()));
                }
                let Some(wanted) = wanted else { return };
                if let Some(tutor) = fetched.as_ref().ok().and_then(|c| c.get(&wanted).cloned()) {
                    open_lesson.emit(tutor);
                    return;
                }
                let loaded = match page::fetch_text(&wanted).await {
                    Ok(text) => Tutor::parse(&file_name(&wanted), &text, 0).map_err(|problems| describe(&problems)),
                    Err(error) => Err(error),
                };
                match loaded {
                    Ok(tutor) => open_lesson.emit(Rc::new(tutor)),
                    Err(problems) => {
                        url_problems.set(Some(problems));
                        show_list.set(true);
                    }
                }
            });
        });
    }
    {
        // Keyed by the lesson's id and version, not the lesson itself: comparing a whole
        // lesson on every render (each command, each clock tick) costs more than the save.
        let saved = state.lesson.as_ref().map(|run| (run.tutor.id().to_owned(), run.tutor.version(), run.progress()));
        let state = state.clone();
        use_effect_with(saved, move |saved| {
            if let Some((id, version, progress)) = saved {
                if let Some(notice) = page::unsaved_notice(page::save_progress(id, *version, progress)) {
                    state.dispatch(Action::Notice(Some(notice)));
                }
            }
        });
    }

    // A lesson fills the window at desktop sizes (style.css), which the page's body needs to
    // know: a class on it rather than `body:has(...)`, since Chromium then restyled the whole
    // page at every change under the body, most of a command's time with a long scrollback.
    let lesson_page = state.lesson.is_some() && !*show_list;
    use_effect_with(lesson_page, |&lesson_page| {
        let _ = gloo::utils::body().class_list().toggle_with_force("lesson-page", lesson_page);
    });
    // Save the sandbox (after the paint: see `page::Deferred`) and time the render after every
    // change. A fragment in the address bar (a link just opened or shared) no longer describes
    // the session once it changes, so it goes once the session is saved: a reload then
    // restores the saved session.
    let first = use_mut_ref(|| true);
    let saving = use_memo((), |_| page::Deferred::default());
    // Whether the sandbox changed since its last save: the save that waits may run after a
    // lesson has opened and parked it.
    let sandbox_changed = use_mut_ref(|| false);
    {
        let saving = saving.clone();
        // A page going away (reload, another page, a closed tab) turns hidden first: the last
        // moment a page can rely on, so what waits is written then.
        use_effect_with((), move |_| {
            let hidden = gloo::events::EventListener::new(&gloo::utils::document(), "visibilitychange", move |_| {
                if gloo::utils::document().hidden() {
                    saving.flush();
                }
            });
            move || drop(hidden)
        });
    }
    {
        let state = state.clone();
        use_effect_with(state.version, move |_| {
            // A lesson's session is not the playground's: it is kept only if the learner
            // takes it to the sandbox.
            if state.lesson.is_none() {
                *sandbox_changed.borrow_mut() = true;
            }
            let latest = state.clone();
            saving.set(move || {
                // A reducer handle reads the reducer's newest state, not this render's: the
                // sandbox is found where it is by now, in the console or parked behind a lesson.
                let state = latest;
                if std::mem::take(&mut *sandbox_changed.borrow_mut()) {
                    let sandbox = match state.lesson {
                        None => Some(state.lab.clone()),
                        Some(_) => state.parked.borrow().iter().find(|p| p.lesson.is_none()).map(|p| p.lab.clone()),
                    };
                    if let Some(lab) = sandbox {
                        let saved = page::save_session(&lab.borrow().spec().to_fragment());
                        if let Some(notice) = page::unsaved_notice(saved) {
                            state.dispatch(Action::Notice(Some(notice)));
                        }
                    }
                }
                // The sandbox's replaced session is kept on this machine while Undo offers it
                // (the offer comes and goes with a change of the session).
                let backup = state.backup.as_ref().and_then(|b| Some((&*b.notice, &**b.fragment.as_ref()?)));
                page::save_backup(backup);
                page::clear_fragment();
            });
            page::loaded();
            page::record_render(std::mem::replace(&mut *first.borrow_mut(), false));
        });
    }
    {
        let history = state.history.clone();
        use_effect_with(history, |history| page::save_history(history));
    }
    use_effect_with((*theme).clone(), |theme| page::apply_theme(theme));
    {
        // A running clock ticks while `running` is set; dropping the interval stops it.
        let dispatch = dispatch.clone();
        use_effect_with(state.running, move |&running| {
            let interval =
                running.then(|| Interval::new(TICK_MS, move || dispatch.emit(Action::Tick(i64::from(TICK_MS)))));
            move || drop(interval)
        });
    }
    {
        // Opening another share link in this tab replaces the session.
        let dispatch = dispatch.clone();
        use_effect_with((), move |_| {
            let listener = gloo::events::EventListener::new(&gloo::utils::window(), "hashchange", move |_| {
                let fragment = gloo::utils::window().location().hash().unwrap_or_default();
                if fragment.len() > 1 {
                    if let Ok(spec) = SessionSpec::parse(&fragment) {
                        page::loading("link");
                        dispatch.emit(Action::Restore(spec));
                        page::clear_fragment();
                    }
                }
            });
            move || drop(listener)
        });
    }

    let snapshot = &state.snapshot;
    let start = state.lab.borrow().start_clock();
    // Share puts the link in the address bar and copies it; the panel's Copy copies it again.
    let share = |notice: &'static str| {
        let (state, panel) = (state.clone(), panel.clone());
        Callback::from(move |_: MouseEvent| {
            let url = page::url_with(&state.lab.borrow().spec().to_fragment());
            page::show_url(&url);
            page::copy(&url);
            panel.set(Some("share"));
            state.dispatch(Action::Notice(Some(notice.into())));
        })
    };
    let on_recover = {
        let (dispatch, show_list) = (dispatch.clone(), show_list.clone());
        Callback::from(move |_: MouseEvent| {
            dispatch.emit(Action::Recover);
            show_list.set(false);
        })
    };
    let toggle = |name: &'static str| {
        let panel = panel.clone();
        Callback::from(move |_| panel.set(if *panel == Some(name) { None } else { Some(name) }))
    };
    let close_panel = {
        let panel = panel.clone();
        Callback::from(move |_| panel.set(None))
    };
    let on_theme = {
        let theme = theme.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            theme.set(select.value());
        })
    };
    let emit = |action: Action| {
        let dispatch = dispatch.clone();
        Callback::from(move |_: MouseEvent| dispatch.emit(action.clone()))
    };
    // The lesson panel's steps: the page's own ones here, the run's through the reducer.
    // Memoized, so LessonPanel's props stay equal across clock ticks.
    let on_step =
        use_callback((dispatch.clone(), show_list.setter()), |step: PlayerAction, (dispatch, show_list)| match step {
            PlayerAction::List => show_list.set(true),
            PlayerAction::Run(line) => dispatch.emit(Action::Run(line)),
            PlayerAction::Goal(show) => dispatch.emit(Action::ShowGoal(show)),
            PlayerAction::StartOver => dispatch.emit(Action::StartOver),
            PlayerAction::Sandbox => dispatch.emit(Action::Sandbox),
            step => dispatch.emit(Action::Lesson(step)),
        });
    let panel_body = match *panel {
        Some("share") => {
            let url = page::url_with(&state.lab.borrow().spec().to_fragment());
            html! {
                <section class="panel" aria-labelledby="share-title">
                    <h2 id="share-title">{"Share"}</h2>
                    <p>{"This link rebuilds the session exactly: profile, clock and every command."}</p>
                    <label for="share-url">{"Link"}</label>
                    <input id="share-url" class="wide" readonly=true value={url} />
                    <button onclick={share("Link copied")}>{"Copy"}</button>
                    <button onclick={close_panel.clone()}>{"Close"}</button>
                </section>
            }
        }
        Some("export") => {
            let script = state.lab.borrow().export();
            let href = format!("data:text/plain;charset=utf-8,{}", streamlab_view::share::encode(&script));
            html! {
                <section class="panel" aria-labelledby="export-title">
                    <h2 id="export-title">{"Export for redis-cli"}</h2>
                    <p>{"Replay the session against a real server with "}<code>{"redis-cli --no-raw < session.redis"}</code>{": every connection's commands run on one, in the page's order, and clock moves become waits. ECHO lines note what one connection cannot replay."}</p>
                    <label for="export-text">{"Script"}</label>
                    <textarea id="export-text" class="wide" readonly=true rows="10" value={script} />
                    <a class="button" href={href} download="session.redis">{"Download session.redis"}</a>
                    <button onclick={close_panel.clone()}>{"Close"}</button>
                </section>
            }
        }
        _ => html! {},
    };
    let stalled_banner = (*stalled).clone().map(|fragment| {
        let retry = {
            let (stalled, dispatch) = (stalled.clone(), dispatch.clone());
            Callback::from(move |_: MouseEvent| {
                stalled.set(None);
                match SessionSpec::parse(&fragment) {
                    Ok(spec) => {
                        page::loading("retry");
                        dispatch.emit(Action::Restore(spec));
                    }
                    Err(error) => dispatch.emit(Action::Notice(Some(format!("It cannot be loaded: {error}")))),
                }
            })
        };
        let discard = {
            let stalled = stalled.clone();
            Callback::from(move |_: MouseEvent| {
                page::discard_stalled();
                stalled.set(None);
            })
        };
        html! {
            <section class="panel stalled" role="alert" aria-labelledby="stalled-title">
                <h2 id="stalled-title">{"A session did not finish loading"}</h2>
                <p>{"The last time this page opened, it was rebuilding a session and never got to \
                     show it: the browser may have run out of memory. It is kept aside, and this \
                     page started without it."}</p>
                <div class="choices">
                    <button onclick={retry}>{"Load it again"}</button>
                    <button onclick={discard}>{"Discard it"}</button>
                </div>
            </section>
        }
    });

    html! {
        <>
        <a class="skip" href="#console-input">{"Skip to the console"}</a>
        <header class="top">
            <h1>{"StreamLab"}</h1>
            <ProfileSelect profile={state.lab.borrow().profile()} on_action={dispatch.clone()} />
            <div class="clock" role="group" aria-label="Clock">
                <span class="time" title={format!("engine time {} ms (Unix)", snapshot.now)}>
                    <span class="sr-only">{"Clock "}</span>{elapsed(snapshot.now - start)}
                </span>
                <button onclick={emit(Action::Advance(100))}>{"+100 ms"}</button>
                <button onclick={emit(Action::Advance(1_000))}>{"+1 s"}</button>
                <button onclick={emit(Action::Advance(60_000))}>{"+1 min"}</button>
                if state.running {
                    // Its icon is drawn in CSS: no font Debian's Chromium ships has U+23F8.
                    <button class="primary pause" aria-pressed="true" onclick={emit(Action::SetRunning(false))}>{"Pause"}</button>
                } else {
                    <button aria-pressed="false" onclick={emit(Action::SetRunning(true))}>{"▶ Run"}</button>
                }
            </div>
            <div class="actions">
                <button onclick={{ let show_list = show_list.clone(); Callback::from(move |_: MouseEvent| show_list.set(true)) }}>{"Lessons"}</button>
                <a class="button" href="studio.html" title="Make a lesson: the lesson studio">{"Create"}</a>
                <button onclick={share("Share link copied and put in the address bar")}>{"Share"}</button>
                <button onclick={toggle("export")} aria-expanded={(*panel == Some("export")).to_string()}>{"Export"}</button>
                <button onclick={emit(Action::Reset)}>{"Reset"}</button>
                <label class="theme">{"Theme "}
                    <select onchange={on_theme} aria-label="Theme">
                        { for ["auto", "light", "dark"].iter().map(|t| html! {
                            <option value={*t} selected={*theme == *t}>{*t}</option>
                        }) }
                    </select>
                </label>
            </div>
        </header>
        // Under the header, where the buttons that cause notices are; with Undo in it, sticky,
        // so the offer stays on screen wherever the page is scrolled (it goes once the session
        // changes).
        <div class="notice-bar">
            <p class="status" role="status">{ state.notice.clone().unwrap_or_default() }</p>
            if state.backup.is_some() {
                <button onclick={on_recover}>{"Undo"}</button>
            }
        </div>
        {stalled_banner}
        {panel_body}
        if *show_list {
            <LessonList catalog={(*catalog).clone()} error={(*catalog_error).clone()} problems={(*url_problems).clone()}
                on_open={open_lesson.clone()} lesson={state.lesson.is_some()}
                on_close={close_list} />
        } else {
        <main class={classes!("layout", state.lesson.is_some().then_some("with-lesson"))}>
            if let Some(run) = &state.lesson {
                <LessonPanel run={run.clone()} commands={run.commands(&state.lab.borrow())}
                    host={Host { page: true, task_list: true, goal_shown: state.goal.is_some(), console: true }} {on_step} />
            }
            <div class="left">
                <ConsolePane
                    snapshot={state.snapshot.clone()}
                    log={state.log.clone()} first={state.log_first}
                    marks={state.marks.clone()}
                    history={state.history.clone()}
                    on_action={dispatch.clone()} />
                <TimelinePane
                    steps={state.steps.clone()}
                    branches={state.branches.clone()}
                    step_count={state.step_count}
                    position={snapshot.position}
                    on_action={dispatch.clone()} />
            </div>
            <section class="right" aria-labelledby="state-title">
                <div class="view-switch">
                    <h2 id="state-title">{"State"}</h2>
                    <div role="group" aria-label="Show the state as">
                        <button aria-pressed={(state.view == View::Pictures).to_string()} onclick={emit(Action::SetView(View::Pictures))}>{"Pictures"}</button>
                        <button aria-pressed={(state.view == View::Tables).to_string()} onclick={emit(Action::SetView(View::Tables))}>{"Tables"}</button>
                    </div>
                    <span class="now">{format!("engine clock {}", elapsed(snapshot.now - start))}</span>
                </div>
                if let Some(goal) = state.goal.clone() {
                    {beside_goal(
                        state_view(state.view, state.snapshot.clone(), state.previous.clone(), dispatch.clone()),
                        state_view(state.view, goal.clone(), goal, dispatch.clone()),
                    )}
                } else {
                    {state_view(state.view, state.snapshot.clone(), state.previous.clone(), dispatch.clone())}
                }
            </section>
        </main>
        }
        <p class="sr-only">{format!("Idle times follow the engine clock; a tick is {}.", duration(i64::from(TICK_MS)))}</p>
        </>
    }
}
