//! The page around the app: local storage, the URL fragment, the theme, timing marks. Every
//! function here is an effect, called from callbacks and effect hooks, never from the reducer.

use std::cell::Cell;

use streamlab_wasm::lesson::Progress;
use streamlab_wasm::SessionSpec;

// Every value is stored as plain text, not JSON: reading JSON back would link serde_json's
// deserializer into the wasm for three strings. (The keys differ from the JSON-valued ones
// the first builds used, so an old value is never misread.)
const SESSION_KEY: &str = "streamlab.session.text";
const HISTORY_KEY: &str = "streamlab.history.text";
const THEME_KEY: &str = "streamlab.theme.text";

/// The page's local storage, when the browser allows it (it can be off, or full).
fn storage() -> Option<web_sys::Storage> {
    gloo::utils::window().local_storage().ok().flatten()
}

/// The text stored under `key`.
fn load(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

/// Stores `value` under `key`; a full or disabled storage only loses the saving.
fn store(key: &str, value: &str) {
    if let Some(storage) = storage() {
        let _ = storage.set_item(key, value);
    }
}

/// The session to start with: the one in the URL fragment (a share link), else the one saved
/// on this machine, else a fresh one.
pub fn initial_spec() -> (SessionSpec, Option<String>) {
    let fragment = gloo::utils::window().location().hash().unwrap_or_default();
    if fragment.len() > 1 {
        return match SessionSpec::parse(&fragment) {
            Ok(spec) => (spec, None),
            Err(error) => (SessionSpec::default(), Some(format!("The link could not be read: {error}"))),
        };
    }
    let spec = load(SESSION_KEY).and_then(|text| SessionSpec::parse(&text).ok()).unwrap_or_default();
    (spec, None)
}

/// Saves the session (as its share fragment) on this machine.
pub fn save_session(fragment: &str) {
    store(SESSION_KEY, fragment);
}

/// Console history remembered across reloads.
pub fn load_history() -> Vec<String> {
    load(HISTORY_KEY).map(|text| text.lines().map(str::to_owned).collect()).unwrap_or_default()
}

/// Remembers the console history, a line per entry (an entry is one console line, so it
/// holds no line break).
pub fn save_history(history: &[String]) {
    store(HISTORY_KEY, &history.join("\n"));
}

/// The theme chosen: `auto`, `light` or `dark`.
pub fn load_theme() -> String {
    load(THEME_KEY).unwrap_or_else(|| "auto".to_owned())
}

/// Applies and remembers a theme.
pub fn apply_theme(theme: &str) {
    store(THEME_KEY, theme);
    if let Some(root) = gloo::utils::document().document_element() {
        let _ = root.set_attribute("data-theme", theme);
    }
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

/// Saved progress in a lesson version.
pub fn load_progress(id: &str, version: u32) -> Progress {
    load(&Progress::key(id, version)).map(|text| Progress::parse(&text)).unwrap_or_default()
}

/// Saves progress in a lesson version.
pub fn save_progress(id: &str, version: u32, progress: &Progress) {
    store(&Progress::key(id, version), &progress.to_text());
}

/// The `lesson` parameter of the address (`?lesson=ID` or `?lesson=URL`), if any.
pub fn lesson_param() -> Option<String> {
    let search = gloo::utils::window().location().search().ok()?;
    let value = search.trim_start_matches('?').split('&').find_map(|part| part.strip_prefix("lesson="))?;
    streamlab_wasm::share::decode(value).filter(|v| !v.is_empty())
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
