//! The header's profile select: which server the session answers as. Choosing one runs
//! `:profile NAME` on the console, a fresh session, after asking when there is history to lose.

use streamlab_wasm::diff::plural;
use streamlab_wasm::Profile;
use yew::prelude::*;

use crate::state::Action;

#[derive(Properties, PartialEq)]
pub struct ProfileSelectProps {
    /// The session's profile.
    pub profile: Profile,
    /// How many steps a fresh session would drop.
    pub steps: usize,
    pub on_action: Callback<Action>,
}

#[component]
pub fn ProfileSelect(props: &ProfileSelectProps) -> Html {
    // An option's `selected` attribute stops counting once the user has picked one, so the
    // select's value follows the session in an effect (a `:profile` typed in the console,
    // a share link opened, a cancelled change).
    let select_ref = use_node_ref();
    {
        let select_ref = select_ref.clone();
        use_effect_with(props.profile, move |profile| {
            if let Some(select) = select_ref.cast::<web_sys::HtmlSelectElement>() {
                select.set_value(profile.name());
            }
        });
    }
    let onchange = {
        let (current, steps, on_action) = (props.profile, props.steps, props.on_action.clone());
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            let Ok(profile) = select.value().parse::<Profile>() else { return };
            let question = format!(
                "Start a fresh session answering as {profile}? The {} of this session will be dropped.",
                plural(steps as u64, "step")
            );
            if steps == 0 || gloo::utils::window().confirm_with_message(&question).unwrap_or(false) {
                on_action.emit(Action::Run(format!(":profile {profile}")));
            } else {
                select.set_value(current.name());
            }
        })
    };
    html! {
        <label class="profile">{"Server "}
            <select ref={select_ref} {onchange} title="The server the session answers as; changing it starts a fresh session">
                { for Profile::ALL.iter().map(|p| {
                    let caps = p.caps();
                    html! {
                        <option value={caps.name} selected={*p == props.profile}>
                            {format!("{} ({} {})", caps.name, caps.server, caps.version)}
                        </option>
                    }
                }) }
            </select>
        </label>
    }
}
