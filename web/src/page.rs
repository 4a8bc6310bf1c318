//! The page around the app: local storage, the URL fragment, the theme, timing marks. Every
//! function here is an effect, called from callbacks and effect hooks, never from the reducer.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, JSON};
use streamlab_view::lesson::Progress;
use streamlab_view::SessionSpec;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

const SESSION_KEY: &str = "streamlab.session";
const HISTORY_KEY: &str = "streamlab.history";
const THEME_KEY: &str = "streamlab.theme";

/// Set while a session is being rebuilt, to what is being rebuilt (`link`, `saved` or `retry`),
/// and removed once the page has drawn it: if it is still there when the page starts, the last
/// load never finished (the tab ran out of memory or was closed), and replaying the same
/// session again would likely end the same way.
const LOADING_KEY: &str = "streamlab.loading";

/// The sandbox session the last Reset, server change or opened link replaced, while Undo is
/// offered: its notice, a newline, its share fragment.
const BACKUP_KEY: &str = "streamlab.session.undo";

/// A session whose loading did not finish, kept aside (as its share fragment) until the learner
/// loads it again or discards it.
const STALLED_KEY: &str = "streamlab.session.stalled";

thread_local! {
    static LOADING: Cell<bool> = const { Cell::new(false) };
}

/// The session to start with: the one in the URL fragment (a share link), else the one saved
/// on this machine, else a fresh one. A link or saved session that did not finish loading last
/// time is not replayed: it is kept aside (see [`stalled_session`]) and the page starts without
/// it.
pub fn initial_spec() -> (SessionSpec, Option<String>) {
    let unfinished = storage().and_then(|storage| storage.get_item(LOADING_KEY).ok().flatten());
    if let Some(storage) = storage() {
        let _ = storage.remove_item(LOADING_KEY);
    }
    let fragment = gloo::utils::window().location().hash().unwrap_or_default();
    if fragment.len() > 1 {
        if unfinished.as_deref() == Some("link") {
            set_item(STALLED_KEY, fragment.trim_start_matches('#'));
            clear_fragment();
        } else {
            return match SessionSpec::parse(&fragment) {
                Ok(spec) => {
                    loading("link");
                    (spec, None)
                }
                Err(error) => (SessionSpec::default(), Some(format!("The link could not be read: {error}"))),
            };
        }
    }
    let Some(saved) = load(SESSION_KEY).and_then(|value| value.as_string()) else {
        return (SessionSpec::default(), None);
    };
    if unfinished.as_deref() == Some("saved") {
        set_item(STALLED_KEY, &saved);
        return (SessionSpec::default(), None);
    }
    match SessionSpec::parse(&saved) {
        Ok(spec) => {
            loading("saved");
            (spec, None)
        }
        Err(error) => {
            set_item(STALLED_KEY, &saved);
            (SessionSpec::default(), Some(format!("The saved session could not be restored: {error}")))
        }
    }
}

/// Marks the start of rebuilding a session (see [`LOADING_KEY`]).
pub fn loading(what: &str) {
    set_item(LOADING_KEY, what);
    LOADING.set(true);
}

/// The page has drawn the session being rebuilt: it loaded. A stalled session that was being
/// tried again is now the session, so it is no longer kept aside.
pub fn loaded() {
    if LOADING.replace(false) {
        if let Some(storage) = storage() {
            if storage.get_item(LOADING_KEY).ok().flatten().as_deref() == Some("retry") {
                let _ = storage.remove_item(STALLED_KEY);
            }
            let _ = storage.remove_item(LOADING_KEY);
        }
    }
}

/// The session that did not finish loading, as its share fragment, if one is kept aside.
pub fn stalled_session() -> Option<String> {
    storage()?.get_item(STALLED_KEY).ok().flatten()
}

/// Forgets the session kept aside.
pub fn discard_stalled() {
    if let Some(storage) = storage() {
        let _ = storage.remove_item(STALLED_KEY);
    }
}

fn set_item(key: &str, value: &str) {
    if let Some(storage) = storage() {
        let _ = storage.set_item(key, value);
    }
}

/// Work that waits for the page to be painted: the session's save, which writes the whole
/// session (a long one's is megabytes, tens of ms) and so runs after the change is on the
/// screen rather than before it. Setting new work replaces what waited, so a burst of changes
/// saves once. It runs at once when the page is hidden (no frame comes then) and when
/// [`Deferred::flush`] is called: the app does when the page turns hidden, which it does
/// before a reload, another page or a closed tab too, so a change is never lost to them.
#[derive(Clone, Default)]
pub struct Deferred(Rc<RefCell<Option<Work>>>);

/// What a [`Deferred`] runs.
type Work = Box<dyn FnOnce()>;

impl Deferred {
    /// Sets the work to run after the next paint.
    pub fn set(&self, work: impl FnOnce() + 'static) {
        let waiting = self.0.replace(Some(Box::new(work))).is_some();
        if gloo::utils::document().hidden() {
            self.flush();
        } else if !waiting {
            let this = self.clone();
            // A frame callback runs just before the paint; a timeout it queues, after it.
            let frame = Closure::once_into_js(move || {
                gloo::timers::callback::Timeout::new(0, move || this.flush()).forget();
            });
            let _ = gloo::utils::window().request_animation_frame(frame.unchecked_ref());
        }
    }

    /// Runs the work waiting, if any, now.
    pub fn flush(&self) {
        let work = self.0.borrow_mut().take();
        if let Some(work) = work {
            work();
        }
    }
}

/// Saves the session (as its share fragment) on this machine; false when it could not be.
pub fn save_session(fragment: &str) -> bool {
    // Stored as JSON, as it always was. A fragment is percent-encoded, so nothing in it needs
    // escaping in a JSON string: quoting it here spares a long session's save a round trip of
    // megabytes through `JSON.stringify`.
    match storage() {
        Some(storage) => storage.set_item(SESSION_KEY, &format!("\"{fragment}\"")).is_ok(),
        None => false,
    }
}

/// The replaced session Undo offers after a reload, as its notice and its share fragment.
pub fn load_backup() -> Option<(String, String)> {
    let text = storage()?.get_item(BACKUP_KEY).ok().flatten()?;
    let (notice, fragment) = text.split_once('\n')?;
    Some((notice.to_owned(), fragment.to_owned()))
}

/// Keeps the replaced session Undo offers across a reload, or forgets it (None). Like the
/// session's own save, a failure leaves the offer standing until this page closes.
pub fn save_backup(backup: Option<(&str, &str)>) {
    match backup {
        Some((notice, fragment)) => set_item(BACKUP_KEY, &format!("{notice}\n{fragment}")),
        None => {
            if let Some(storage) = storage() {
                let _ = storage.remove_item(BACKUP_KEY);
            }
        }
    }
}

thread_local! {
    static UNSAVED_TOLD: Cell<bool> = const { Cell::new(false) };
}

/// What to tell the learner after a save of their work (`saved` false when it failed): a
/// notice the first time one fails on this page load, nothing otherwise. Once, because saves
/// run after every command and a notice each time would drown the others; what was saved
/// before stays (a failed `setItem` changes nothing), so the notice says only that the
/// latest work is not kept.
pub fn unsaved_notice(saved: bool) -> Option<String> {
    if saved || UNSAVED_TOLD.with(|told| told.replace(true)) {
        return None;
    }
    Some("Your work is not being saved on this machine: the browser's storage for this site is full or turned off. Share or Export to keep it.".to_owned())
}

/// Console history remembered across reloads.
pub fn load_history() -> Vec<String> {
    let lines = load(HISTORY_KEY).filter(Array::is_array).map(|lines| Array::from(&lines));
    lines.and_then(|lines| lines.iter().map(|line| line.as_string()).collect()).unwrap_or_default()
}

/// Remembers the console history (a convenience, not work: a failure goes untold).
pub fn save_history(history: &[String]) {
    save(HISTORY_KEY, &history.iter().map(|line| JsValue::from_str(line)).collect::<Array>());
}

/// The theme chosen: `auto`, `light` or `dark`.
pub fn load_theme() -> String {
    load(THEME_KEY).and_then(|value| value.as_string()).unwrap_or_else(|| "auto".to_owned())
}

/// Applies and remembers a theme.
pub fn apply_theme(theme: &str) {
    // A choice the page shows anyway: a failure to remember it goes untold.
    save(THEME_KEY, &JsValue::from_str(theme));
    if let Some(root) = gloo::utils::document().document_element() {
        let _ = root.set_attribute("data-theme", theme);
    }
}

/// A value saved on this machine as JSON, read by the browser's own JSON parser: the wasm then
/// carries no JSON reader (serde_json's deserializer, which gloo's typed storage calls, cost
/// ~5 KB of the gzipped download). What earlier versions saved reads the same.
fn load(key: &str) -> Option<JsValue> {
    let text = storage()?.get_item(key).ok().flatten()?;
    JSON::parse(&text).ok()
}

/// Saves `value` as JSON under `key`; false when the storage is full or off.
fn save(key: &str, value: &JsValue) -> bool {
    match (storage(), JSON::stringify(value)) {
        (Some(storage), Ok(text)) => storage.set_item(key, &String::from(text)).is_ok(),
        _ => false,
    }
}

/// The page's local storage, when the browser allows it (it can be off).
fn storage() -> Option<web_sys::Storage> {
    gloo::utils::window().local_storage().ok().flatten()
}

/// The page's address with `fragment`.
pub fn url_with(fragment: &str) -> String {
    let location = gloo::utils::window().location();
    format!(
        "{}{}{}#{fragment}",
        location.origin().unwrap_or_default(),
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    )
}

/// Puts an address of this page into the address bar without adding a history entry.
pub fn show_url(url: &str) {
    if let Ok(history) = gloo::utils::window().history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url));
    }
}

/// Takes the fragment out of the address bar once the session it described is loaded, so a
/// reload restores the session as saved since rather than the link's starting point.
pub fn clear_fragment() {
    let window = gloo::utils::window();
    let location = window.location();
    if location.hash().unwrap_or_default().len() <= 1 {
        return;
    }
    show_url(&format!("{}{}", location.pathname().unwrap_or_default(), location.search().unwrap_or_default()));
}

/// Copies text to the clipboard (where the page may: the promise's failure is ignored, the
/// link is shown for copying by hand anyway).
pub fn copy(text: &str) {
    let _promise = gloo::utils::window().navigator().clipboard().write_text(text);
}

/// Milliseconds since the page started loading.
pub fn now_ms() -> f64 {
    gloo::utils::window().performance().map_or(0.0, |p| p.now())
}

thread_local! {
    static COMMAND_STARTED: Cell<Option<f64>> = const { Cell::new(None) };
}

/// Marks the moment a command was entered, to time it until the page shows its result.
pub fn mark_command() {
    COMMAND_STARTED.with(|c| c.set(Some(now_ms())));
}

/// After a render: how long the last marked command took to show, written on `<body>` as
/// `data-command-ms` (the budget script reads it), and the first render as
/// `data-first-render-ms`.
pub fn record_render(first: bool) {
    let body = gloo::utils::body();
    if first {
        let _ = body.set_attribute("data-first-render-ms", &fixed(now_ms(), 1));
        // index.html's "Loading" line covers the download and the rebuilding of a long
        // session, which happens before the first render.
        if let Some(loading) = gloo::utils::document().get_element_by_id("loading") {
            loading.remove();
        }
    }
    if let Some(started) = COMMAND_STARTED.with(Cell::take) {
        let _ = body.set_attribute("data-command-ms", &fixed(now_ms() - started, 2));
    }
}

/// `value` with `digits` decimals, printed by JavaScript's `toFixed`: Rust's float printer
/// would add ~8 KB gzipped to the wasm for these timing attributes.
fn fixed(value: f64, digits: u8) -> String {
    js_sys::Number::from(value).to_fixed(digits).map(String::from).unwrap_or_default()
}

/// Saved progress in a lesson version, if any was saved.
pub fn saved_progress(id: &str, version: u32) -> Option<Progress> {
    // Stored as plain text (not JSON): the reading needs no serde.
    let text = storage().and_then(|storage| storage.get_item(&Progress::key(id, version)).ok().flatten());
    text.map(|text| Progress::parse(&text))
}

/// Saved progress in a lesson version (none yet: attempt 0, nothing solved).
pub fn load_progress(id: &str, version: u32) -> Progress {
    saved_progress(id, version).unwrap_or_default()
}

/// A first attempt picked at random (it picks the hidden variant and the order options are
/// shown in), so two learners, or one learner on two machines, do not all start alike.
pub fn random_attempt() -> u32 {
    (js_sys::Math::random() * 1000.0) as u32
}

/// Saves progress in a lesson version; false when it could not be.
pub fn save_progress(id: &str, version: u32, progress: &Progress) -> bool {
    storage().is_some_and(|storage| storage.set_item(&Progress::key(id, version), &progress.to_text()).is_ok())
}

/// The `lesson` parameter of the address (`?lesson=ID` or `?lesson=URL`), if any.
pub fn lesson_param() -> Option<String> {
    let search = gloo::utils::window().location().search().ok()?;
    let value = streamlab_view::share::query_parts(search.trim_start_matches('?'))
        .find_map(|(name, value)| (name == "lesson").then_some(value))?;
    streamlab_view::share::decode(value).filter(|v| !v.is_empty())
}

/// Fetches a text file (a lesson, the lesson index).
pub async fn fetch_text(url: &str) -> Result<String, String> {
    use wasm_bindgen::JsCast;
    use wasm_bindgen_futures::JsFuture;
    let failed =
        |e: wasm_bindgen::JsValue| format!("{url}: {}", e.as_string().unwrap_or_else(|| "could not be fetched".into()));
    let response = JsFuture::from(gloo::utils::window().fetch_with_str(url)).await.map_err(failed)?;
    let response: web_sys::Response = response.dyn_into().map_err(failed)?;
    if !response.ok() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let text = JsFuture::from(response.text().map_err(failed)?).await.map_err(failed)?;
    text.as_string().ok_or_else(|| format!("{url}: not text"))
}
