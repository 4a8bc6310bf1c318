//! What a panic does in the browser. The wasm is built with `panic = "abort"`: after the hook
//! returns, the instance traps, and nothing in it (a `RefCell` left borrowed, yew's scheduler
//! mid-render) may run again. So the hook only tells the host, once, in words:
//!
//! * each embedded widget has an instance of its own (embed.js instantiates the compiled module
//!   once per widget): the hook raises the widget's `panic` event, and embed.js replaces that
//!   widget with an error panel that restarts it in a fresh instance from its last good state,
//!   while the page's other widgets, in their own instances, carry on;
//! * the full page draws a panel over itself with the message and links that reload it, with
//!   the saved session or without it. Links, because no code of this instance may run again to
//!   handle a click.

use std::cell::RefCell;
use std::sync::Once;

use streamlab_view::embed::ErrorEvent;
use wasm_bindgen::JsValue;

/// Who hears of a panic in this instance.
enum Host {
    /// The full page, which draws its own panel.
    Page,
    /// The event callbacks of the widgets mounted here (embed.js mounts one per instance); a
    /// page of widgets never gets the full page's panel, even after the last one is destroyed.
    Widgets(Vec<js_sys::Function>),
}

thread_local! {
    static HOST: RefCell<Host> = const { RefCell::new(Host::Widgets(Vec::new())) };
}

/// Installs the hook (once per instance).
fn install() {
    static HOOK: Once = Once::new();
    // yew's own setter: a renderer would otherwise put its console hook in place of this one.
    HOOK.call_once(|| {
        yew::set_custom_panic_hook(Box::new(|info| {
            console_error_panic_hook::hook(info); // the message and stack, for whoever debugs
            report(&info.to_string());
        }))
    });
}

/// The full page reports its panics itself.
pub fn for_page() {
    install();
    HOST.with(|host| *host.borrow_mut() = Host::Page);
}

/// A widget's panics go to its page as a `panic` event.
pub fn for_widget(on_event: &js_sys::Function) {
    install();
    HOST.with(|host| {
        if let Host::Widgets(widgets) = &mut *host.borrow_mut() {
            widgets.push(on_event.clone());
        }
    });
}

/// The widget is gone: its page hears no more from this instance.
pub fn forget_widget(on_event: &js_sys::Function) {
    HOST.with(|host| {
        if let Host::Widgets(widgets) = &mut *host.borrow_mut() {
            widgets.retain(|f| f != on_event);
        }
    });
}

fn report(message: &str) {
    // `try_borrow`: the panic may have come from inside a borrow of this very list.
    let widgets = HOST.with(|host| match host.try_borrow().as_deref() {
        Ok(Host::Page) => None,
        Ok(Host::Widgets(widgets)) => Some(widgets.clone()),
        Err(_) => Some(Vec::new()),
    });
    let Some(widgets) = widgets else {
        page_panel(message);
        return;
    };
    let payload = JsValue::from_str(&streamlab_view::json(&ErrorEvent { message: message.to_owned() }));
    for on_event in widgets {
        // A throwing listener must not stop the others from hearing it.
        let _ = on_event.call2(&JsValue::NULL, &JsValue::from_str("panic"), &payload);
    }
}

/// The page's error panel: what happened, and links that reload the page with its saved
/// session (the one saved after the last step that worked) or with an empty one.
fn page_panel(message: &str) {
    let window = gloo::utils::window();
    let document = gloo::utils::document();
    let Some(body) = document.body() else { return };
    let location = window.location();
    let path = location.pathname().unwrap_or_default();
    let search = location.search().unwrap_or_default();
    let Ok(panel) = document.create_element("div") else { return };
    panel.set_class_name("fatal");
    let _ = panel.set_attribute("role", "alertdialog");
    let _ = panel.set_attribute("aria-labelledby", "fatal-title");
    let mut parts = Vec::new();
    for (tag, text) in [
        ("h2", "StreamLab hit an internal error"),
        ("p", "The playground stopped so that it cannot show a wrong state. Your session was saved after the last step that worked."),
        ("pre", message),
    ] {
        if let Ok(node) = document.create_element(tag) {
            node.set_text_content(Some(text));
            parts.push(node);
        }
    }
    if let Some(title) = parts.first() {
        title.set_id("fatal-title");
    }
    // A new address, not the same one with another fragment (which would not reload): the
    // saved session loads when the address has no fragment, an empty one with `#log=`.
    let join = if search.is_empty() { "?" } else { "&" };
    for (href, text) in [
        (format!("{path}{search}"), "Reload and restore the session"),
        (format!("{path}{search}{join}empty#log="), "Reload with an empty session"),
    ] {
        if let Ok(link) = document.create_element("a") {
            let _ = link.set_attribute("href", &href);
            link.set_class_name("button");
            link.set_text_content(Some(text));
            parts.push(link);
        }
    }
    for part in parts {
        let _ = panel.append_child(&part);
    }
    let _ = body.append_child(&panel);
}
