//! The lesson list: the site's lessons in their sections (fetched from `lessons/`, which
//! `cargo xtask dist` copies next to the page), each with its saved progress, and a loader for
//! a lesson from a URL or a pasted file (validated before it is played).

use std::rc::Rc;

use streamlab_view::lesson::{describe, sections, SectionView, Tutor};
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

use crate::markdown;
use crate::page;

/// The site's lessons.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// Sections in order.
    pub sections: Vec<SectionView>,
    /// The lessons, as written (attempt 0).
    pub lessons: Vec<Rc<Tutor>>,
}

impl Catalog {
    /// Fetches `lessons/index.toml` and every lesson it lists.
    pub async fn fetch() -> Result<Catalog, String> {
        let index = page::fetch_text("lessons/index.toml").await?;
        let sections = sections(&index).map_err(|e| e.to_string())?;
        let mut lessons = Vec::new();
        for id in sections.iter().flat_map(|s| s.lessons.iter()) {
            let file = format!("{id}.toml");
            let text = page::fetch_text(&format!("lessons/{file}")).await?;
            let tutor = Tutor::parse(&file, &text, 0).map_err(|problems| describe(&problems))?;
            lessons.push(Rc::new(tutor));
        }
        Ok(Catalog { sections, lessons })
    }

    /// The lesson with this id.
    pub fn get(&self, id: &str) -> Option<&Rc<Tutor>> {
        self.lessons.iter().find(|t| t.id() == id)
    }
}

/// The last part of a URL's path, to name a fetched lesson in its problems.
pub fn file_name(url: &str) -> String {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    path.rsplit('/').find(|part| !part.is_empty()).unwrap_or("lesson.toml").to_owned()
}

#[derive(Properties)]
pub struct LessonListProps {
    /// The site's lessons, once fetched.
    pub catalog: Option<Rc<Catalog>>,
    /// Why they could not be fetched.
    pub error: Option<String>,
    /// Problems of a lesson loaded from a URL that failed validation.
    pub problems: Option<String>,
    /// Play a lesson (as written; the host picks the attempt from saved progress).
    pub on_open: Callback<Rc<Tutor>>,
    /// A lesson is being played (the list offers to go back to it).
    pub lesson: bool,
    /// Back to the lesson, or (`true`) to the sandbox.
    pub on_close: Callback<bool>,
}

/// The catalog is fetched once and replaced, never changed in place: comparing it by pointer
/// keeps a render from comparing every lesson (and the wasm from carrying that comparison).
impl PartialEq for LessonListProps {
    fn eq(&self, other: &Self) -> bool {
        let same_catalog = match (&self.catalog, &other.catalog) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        same_catalog
            && self.error == other.error
            && self.problems == other.problems
            && self.on_open == other.on_open
            && self.lesson == other.lesson
            && self.on_close == other.on_close
    }
}

/// The list of lessons and the loader.
#[component]
pub fn LessonList(props: &LessonListProps) -> Html {
    let problems = use_state(|| None::<String>);
    let url_ref = use_node_ref();
    let paste_ref = use_node_ref();

    let load = {
        let problems = problems.clone();
        let on_open = props.on_open.clone();
        Callback::from(move |(file, text): (String, String)| match Tutor::parse(&file, &text, 0) {
            Ok(tutor) => {
                problems.set(None);
                on_open.emit(Rc::new(tutor));
            }
            Err(found) => problems.set(Some(describe(&found))),
        })
    };
    let on_url = {
        let load = load.clone();
        let problems = problems.clone();
        let url_ref = url_ref.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(url) = url_ref.cast::<HtmlInputElement>().map(|i| i.value()) else { return };
            let (load, problems) = (load.clone(), problems.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match page::fetch_text(url.trim()).await {
                    Ok(text) => load.emit((file_name(&url), text)),
                    Err(error) => problems.set(Some(error)),
                }
            });
        })
    };
    let on_paste = {
        let paste_ref = paste_ref.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            if let Some(area) = paste_ref.cast::<HtmlTextAreaElement>() {
                load.emit(("pasted.toml".to_owned(), area.value()));
            }
        })
    };
    let back = |sandbox: bool| props.on_close.reform(move |_: MouseEvent| sandbox);
    let shown_problems = (*problems).clone().or_else(|| props.problems.clone());

    let list = match (&props.catalog, &props.error) {
        (Some(catalog), _) => catalog
            .sections
            .iter()
            .enumerate()
            .map(|(n, section)| {
                let heading = format!("section-{n}");
                html! {
                    <section class="lesson-section" aria-labelledby={heading.clone()}>
                        <h3 id={heading}>{&section.title}</h3>
                        <ol class="lesson-cards">
                            { for section.lessons.iter().filter_map(|id| catalog.get(id)).map(|tutor| card(tutor, &props.on_open)) }
                        </ol>
                    </section>
                }
            })
            .collect::<Html>(),
        (None, Some(error)) => html! { <p class="problem" role="alert">{format!("The lessons could not be loaded: {error}")}</p> },
        (None, None) => html! { <p role="status">{"Loading the lessons…"}</p> },
    };

    html! {
        <main class="lessons-page" aria-labelledby="lessons-title">
            <div class="lessons-head">
                <h2 id="lessons-title">{"Lessons"}</h2>
                if props.lesson { <button onclick={back(false)}>{"Back to the lesson"}</button> }
                <button onclick={back(true)}>{"Back to the playground"}</button>
            </div>
            <p>{"Each lesson sets up a situation, lets you act in the console, and checks the state you reach. Your progress is saved in this browser."}</p>
            {list}
            <section class="lesson-loader" aria-labelledby="loader-title">
                <h3 id="loader-title">{"Load a lesson file"}</h3>
                <p>{"A lesson from elsewhere is checked the way "}<code>{"streamlab check"}</code>{" checks ours before you play it. You can also open "}<code>{"?lesson=URL"}</code>{"."}</p>
                <form class="loader-row" onsubmit={on_url}>
                    <label for="lesson-url">{"From a URL"}</label>
                    <input id="lesson-url" ref={url_ref} type="url" placeholder="https://example.com/my-lesson.toml" />
                    <button type="submit">{"Load"}</button>
                </form>
                <form class="loader-paste" onsubmit={on_paste}>
                    <label for="lesson-paste">{"Or paste the file"}</label>
                    <textarea id="lesson-paste" ref={paste_ref} rows="8" spellcheck="false" />
                    <button type="submit">{"Check and play"}</button>
                </form>
                if let Some(problems) = shown_problems {
                    <div class="problems" role="alert">
                        <p>{"This lesson cannot be played:"}</p>
                        <pre>{problems}</pre>
                    </div>
                }
            </section>
        </main>
    }
}

fn card(tutor: &Rc<Tutor>, on_open: &Callback<Rc<Tutor>>) -> Html {
    let summary = tutor.summary();
    let progress = page::load_progress(&summary.id, summary.version);
    let solved = progress.solved.iter().filter(|&&t| t < summary.tasks).count();
    let status = if progress.complete(summary.tasks) {
        "done".to_owned()
    } else if solved > 0 {
        format!("{solved} of {} tasks", summary.tasks)
    } else {
        "not started".to_owned()
    };
    let onclick = {
        let (tutor, on_open) = (tutor.clone(), on_open.clone());
        Callback::from(move |_: MouseEvent| on_open.emit(tutor.clone()))
    };
    html! {
        <li class={classes!("lesson-card", progress.complete(summary.tasks).then_some("done"))} data-lesson={summary.id.clone()}>
            <button class="lesson-open" {onclick}>
                <span class="lesson-name">{markdown::render_inline(&summary.title)}</span>
                <span class="lesson-meta">{format!("{} min · {} tasks · ", summary.minutes, summary.tasks)}<span class="lesson-status">{status}</span></span>
            </button>
            <div class="lesson-summary">{markdown::render(&summary.summary)}</div>
        </li>
    }
}
