//! Time travel: undo, redo, a scrubber over every step, and each step's command, reply and
//! plain-language changes.

use std::rc::Rc;

use streamlab_view::{BranchView, StepView};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::state::Action;

#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    pub steps: Rc<Vec<StepView>>,
    /// Runs of steps set aside by typing at an earlier step.
    pub branches: Rc<Vec<BranchView>>,
    pub step_count: usize,
    pub position: usize,
    pub on_action: Callback<Action>,
}

/// The connection a step's line is shown as typed on (meta-commands are shown bare).
fn speaker(step: &StepView) -> Option<&str> {
    step.conn.as_deref().filter(|_| !step.line.starts_with(':'))
}

/// A step as the timeline names it: `alice> XADD ...`, or the meta-command.
fn describe(step: &StepView) -> String {
    match speaker(step) {
        Some(conn) => format!("{conn}> {}", step.line),
        None => step.line.clone(),
    }
}

#[derive(Properties)]
struct StepProps {
    steps: Rc<Vec<StepView>>,
    index: usize,
    current: bool,
    on_action: Callback<Action>,
}

/// A row re-renders only when its own step changes (they rarely do).
impl PartialEq for StepProps {
    fn eq(&self, other: &Self) -> bool {
        self.current == other.current
            && self.on_action == other.on_action
            && self.steps.get(self.index) == other.steps.get(other.index)
    }
}

#[component]
fn StepRow(props: &StepProps) -> Html {
    let Some(step) = props.steps.get(props.index) else { return html! {} };
    let on_action = props.on_action.clone();
    let index = step.index;
    let onclick = Callback::from(move |_| on_action.emit(Action::Seek(index)));
    html! {
        <li class={classes!("step", props.current.then_some("current"), (!step.applied).then_some("undone"))}>
            <button class="step-go" {onclick} aria-current={props.current.then_some("step")}
                title={if step.applied { "Go to the state after this step" } else { "Undone: go forward to this step" }}>
                <span class="n">{step.index}</span>
                // A long name is cut (in full on hover), so it cannot widen the timeline.
                <code>
                    if let Some(conn) = speaker(step) {
                        <span class="name" title={conn.to_owned()}>{conn}</span>{"> "}
                    }
                    {&step.line}
                </code>
            </button>
            { for step.output.iter().map(|o| html! { <pre class={classes!("step-reply", o.kind.name())}>{o.display()}</pre> }) }
            if !step.changes.is_empty() {
                <ul class="changes">{ for step.changes.iter().map(|c| html! { <li>{c}</li> }) }</ul>
            }
        </li>
    }
}

#[component]
pub fn TimelinePane(props: &TimelineProps) -> Html {
    // Keep the current step in view inside the list (in the next frame, once laid out).
    let list_ref = use_node_ref();
    let frame = use_mut_ref(|| None::<gloo::render::AnimationFrame>);
    {
        let list_ref = list_ref.clone();
        use_effect_with(props.position, move |_| {
            *frame.borrow_mut() = Some(gloo::render::request_animation_frame(move |_| {
                let Some(list) = list_ref.cast::<web_sys::HtmlElement>() else { return };
                let Ok(Some(current)) = list.query_selector(".step.current") else { return };
                let Ok(current) = current.dyn_into::<web_sys::HtmlElement>() else { return };
                let (top, bottom) = (current.offset_top(), current.offset_top() + current.offset_height());
                let (view_top, view_bottom) = (list.scroll_top(), list.scroll_top() + list.client_height());
                if top < view_top || bottom > view_bottom {
                    list.set_scroll_top(top - list.client_height() / 3);
                }
            }));
        });
    }
    let emit = |action: Action| {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| on_action.emit(action.clone()))
    };
    let on_scrub = {
        let on_action = props.on_action.clone();
        Callback::from(move |e: InputEvent| {
            let input: web_sys::HtmlInputElement = e.target_unchecked_into();
            if let Ok(position) = input.value().parse() {
                on_action.emit(Action::Seek(position));
            }
        })
    };
    let current = props.steps.iter().find(|s| s.index == props.position);
    let value_text = match current {
        Some(step) => format!("step {} of {}: {}", props.position, props.step_count, describe(step)),
        None => format!("step 0 of {}: the start", props.step_count),
    };
    let rows = (0..props.steps.len()).rev().map(|index| {
        let step = &props.steps[index];
        html! {
            <StepRow key={step.index} steps={props.steps.clone()} {index}
                current={step.index == props.position} on_action={props.on_action.clone()} />
        }
    });
    html! {
        <section class="timeline" aria-labelledby="timeline-title">
            <div class="timeline-bar">
                <h2 id="timeline-title">{"Timeline"}</h2>
                <button onclick={emit(Action::Undo)} disabled={props.position == 0} aria-label="Undo the last step">{"↶ Undo"}</button>
                <button onclick={emit(Action::Redo)} disabled={props.position >= props.step_count} aria-label="Redo the next step">{"Redo ↷"}</button>
                <label class="scrub">
                    <span class="sr-only">{"Step"}</span>
                    <input type="range" min="0" max={props.step_count.to_string()} value={props.position.to_string()}
                        aria-valuetext={value_text.clone()} oninput={on_scrub} disabled={props.step_count == 0} />
                </label>
                <span class="position">{format!("{}/{}", props.position, props.step_count)}</span>
            </div>
            <p class="now-step" title={value_text.clone()}>{value_text}</p>
            // Typing at an earlier step sets the later ones aside, never drops them.
            if !props.branches.is_empty() {
                <ul class="branches" aria-label="Steps set aside">
                    { for props.branches.iter().enumerate().rev().map(|(n, branch)| {
                        let on_action = props.on_action.clone();
                        let onclick = Callback::from(move |_| on_action.emit(Action::Branch(n)));
                        html! {
                            // One text for one step or many (the console's words; each text costs wasm).
                            <li>{format!("What was undone after step {} is set aside ", branch.at)}
                                <button {onclick}>{"Bring it back"}</button></li>
                        }
                    }) }
                </ul>
            }
            if props.step_count == 0 {
                <p class="empty">{"Each command and clock move becomes a step here."}</p>
            } else {
                <ol class="steps" reversed=true ref={list_ref}>{ for rows }</ol>
            }
        </section>
    }
}
