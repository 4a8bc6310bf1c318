//! The StreamLab playground: a Yew app over an in-process StreamLab session.
//!
//! `state` holds the reducer; the components only get props and callbacks; effects on the page
//! (storage, the URL, timers, focus) live in `app` and `page`. `embed` mounts the console and
//! pictures as widgets into other pages.

mod app;
mod compose;
mod console;
mod embed;
#[cfg(test)]
mod hostile;
mod lesson_run;
mod lessons;
mod markdown;
mod motion;
mod page;
mod panic;
mod pictures;
mod player;
mod profile;
mod state;
mod tables;
mod timeline;

/// The playground page starts itself. A page that loaded `embed.js` (it defines
/// `window.StreamLab` before loading the wasm) is someone else's: widgets are mounted there
/// through `embed::mount` only.
fn main() {
    if gloo::utils::window().get("StreamLab").is_none() {
        panic::for_page();
        yew::Renderer::<app::App>::new().render();
    }
}
