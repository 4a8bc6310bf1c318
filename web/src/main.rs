//! The StreamLab playground: a Yew app over an in-process StreamLab session.
//!
//! `state` holds the reducer; the components only get props and callbacks; effects on the page
//! (storage, the URL, timers, focus) live in `app` and `page`.

mod app;
mod compose;
mod console;
mod lessons;
mod markdown;
mod motion;
mod page;
mod pictures;
mod player;
mod profile;
mod state;
mod tables;
mod timeline;

fn main() {
    yew::Renderer::<app::App>::new().render();
}
