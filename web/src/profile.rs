//! The header's profile select: which server the session answers as. Choosing one runs
//! `:profile NAME` on the console, a fresh session; the reducer offers Undo for the one it
//! replaced (as for every action that drops work), so nothing is asked first.

use streamlab_view::Profile;
use yew::prelude::*;

use crate::state::Action;

#[derive(Properties, PartialEq)]
pub struct ProfileSelectProps {
    /// The session's profile.
    pub profile: Profile,
    pub on_action: Callback<Action>,
}

#[component]
pub fn ProfileSelect(props: &ProfileSelectProps) -> Html {
    // An option's `selected` attribute stops counting once the user has picked one, so the
    // select's value follows the session in an effect (a `:profile` typed in the console,
    // a share link opened, a change undone).
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
        let on_action = props.on_action.clone();
        Callback::from(move |e: Event| {
            let select: web_sys::HtmlSelectElement = e.target_unchecked_into();
            if let Ok(profile) = select.value().parse::<Profile>() {
                on_action.emit(Action::Run(format!(":profile {profile}")));
            }
        })
    };
    html! {
        <label class="profile">{"Server "}
            <select ref={select_ref} {onchange} title="The server the session answers as; changing it starts a fresh session (Undo brings this one back)">
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
