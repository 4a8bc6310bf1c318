//! The pictures: pure functions of a snapshot. A stream is a rail of entry cards grouped by
//! node; a group is a cursor on the rail; a consumer is a lane of the cards it owns in the PEL.

use std::collections::HashMap;
use std::rc::Rc;

use streamlab_wasm::diff::duration;
use streamlab_wasm::view::{ConsumerView, EntryView, GroupView, NodeView, RailItem, SnapshotView, StreamView};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PicturesProps {
    pub snapshot: Rc<SnapshotView>,
}

/// A count with a thousands separator: 100000 → 100,000.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A lag, or `nil` (negative when ENTRIESREAD was set past the stream's history).
pub fn lag_text(group: &GroupView) -> String {
    match group.lag {
        None => "nil".to_owned(),
        Some(lag) if lag < 0 => format!("-{}", count(lag.unsigned_abs())),
        Some(lag) => count(lag.unsigned_abs()),
    }
}

/// Arrow keys move between the entry cards of a rail (one tab stop per rail).
fn rail_keys(e: KeyboardEvent) {
    let step: i64 = match e.key().as_str() {
        "ArrowRight" | "ArrowDown" => 1,
        "ArrowLeft" | "ArrowUp" => -1,
        "Home" => i64::MIN,
        "End" => i64::MAX,
        _ => return,
    };
    let Some(rail) = e.current_target().and_then(|t| t.dyn_into::<Element>().ok()) else { return };
    let Ok(cards) = rail.query_selector_all(".entry") else { return };
    let active = gloo::utils::document().active_element();
    let len = i64::from(cards.length());
    if len == 0 {
        return;
    }
    let at = (0..cards.length())
        .find(|&i| cards.get(i).zip(active.as_ref()).is_some_and(|(card, active)| card.is_same_node(Some(active))))
        .map_or(0, i64::from);
    let to = match step {
        i64::MIN => 0,
        i64::MAX => len - 1,
        _ => (at + step).clamp(0, len - 1),
    };
    e.prevent_default();
    if let Some(card) = cards.get(to as u32).and_then(|n| n.dyn_into::<HtmlElement>().ok()) {
        let _ = card.focus();
    }
}

fn entry_card(entry: &EntryView, first: bool) -> Html {
    let fields = entry.fields.iter().map(|(f, v)| format!("{f}={v}")).collect::<Vec<_>>().join(" ");
    let mut label = format!("entry {}", entry.id);
    if entry.deleted {
        label.push_str(", deleted (tombstone)");
    } else {
        label.push_str(&format!(", fields {fields}"));
    }
    if !entry.pending_in.is_empty() {
        label.push_str(&format!(", pending in {}", entry.pending_in.join(", ")));
    }
    if !entry.cursors.is_empty() {
        label.push_str(&format!(", last delivered to {}", entry.cursors.join(", ")));
    }
    let classes =
        classes!("entry", entry.deleted.then_some("deleted"), (!entry.pending_in.is_empty()).then_some("pending"));
    html! {
        <li class="card-wrap" key={entry.id.clone()}>
            <button class={classes} tabindex={if first { "0" } else { "-1" }} aria-label={label}>
                {&entry.id}
            </button>
            <div class="tip" role="tooltip">
                if entry.deleted {
                    {"deleted: a tombstone kept in its node"}
                } else {
                    { for entry.fields.iter().map(|(f, v)| html! { <div><b>{f}</b>{" "}{v}</div> }) }
                }
            </div>
            { for entry.cursors.iter().map(|g| html! { <span class="cursor" aria-hidden="true">{format!("▲ {g}")}</span> }) }
        </li>
    }
}

#[derive(Properties)]
struct NodeProps {
    snapshot: Rc<SnapshotView>,
    stream: usize,
    item: usize,
    /// The node holds the rail's first card, its tab stop.
    first: bool,
}

impl NodeProps {
    fn node(&self) -> Option<&NodeView> {
        match self.snapshot.streams.get(self.stream)?.rail.get(self.item)? {
            RailItem::Node(node) => Some(node),
            RailItem::Collapsed(_) => None,
        }
    }
}

/// A node re-renders only when its own entries change, so a command on a big stream redraws
/// the tail, not the whole rail.
impl PartialEq for NodeProps {
    fn eq(&self, other: &Self) -> bool {
        self.first == other.first && self.node() == other.node()
    }
}

#[component]
fn NodeBox(props: &NodeProps) -> Html {
    let Some(node) = props.node() else { return html! {} };
    let label = format!("node {}: {} live, {} deleted", node.master_id, node.live, node.deleted);
    html! {
        <li class="node">
            <span class="node-label" aria-hidden="true">{format!("node {}", node.master_id)}</span>
            <ul class="cards" aria-label={label}>
                { for node.entries.iter().enumerate().map(|(i, e)| entry_card(e, props.first && i == 0)) }
            </ul>
        </li>
    }
}

fn rail(snapshot: &Rc<SnapshotView>, index: usize) -> Html {
    let stream = &snapshot.streams[index];
    let first_node = stream.rail.iter().position(|item| matches!(item, RailItem::Node(_)));
    let items = stream.rail.iter().enumerate().map(|(item, rail_item)| match rail_item {
        RailItem::Node(node) => html! {
            <NodeBox key={node.master_id.clone()} snapshot={snapshot.clone()} stream={index} {item} first={first_node == Some(item)} />
        },
        RailItem::Collapsed(block) => html! {
            <li class="block" key={format!("block-{}", block.first_id)}>
                <strong>{format!("{} nodes", count(block.nodes as u64))}</strong>
                <span>{format!("{} entries", count(block.live))}</span>
                if block.deleted > 0 { <span>{format!("{} deleted", count(block.deleted))}</span> }
                <span class="range">{format!("{} … {}", block.first_id, block.last_id)}</span>
            </li>
        },
    });
    html! {
        <ul class="rail" aria-label={format!("Entries of {}, grouped by node; arrow keys move between entries", stream.key)} onkeydown={Callback::from(rail_keys)}>
            if stream.removed > 0 {
                <li class="gone">{format!("{} removed (trimmed, or freed with their node)", count(stream.removed))}</li>
            }
            { for items }
            if stream.rail.is_empty() {
                <li class="empty-rail">{"no entries"}</li>
            }
        </ul>
    }
}

fn drawn(stream: &StreamView, id: &str) -> bool {
    stream.rail.iter().any(|item| matches!(item, RailItem::Node(n) if n.entries.iter().any(|e| e.id == id)))
}

/// A consumer's lane; `group_key` names its stream and group, so a card keeps its identity
/// when a claim moves it to another lane of the same group.
fn lane(group_key: &str, consumer: &ConsumerView) -> Html {
    let seen = format!("seen {} ago", duration(consumer.seen_ago));
    let active =
        consumer.active_ago.map_or_else(|| "never active".to_owned(), |a| format!("active {} ago", duration(a)));
    let cards = consumer.pending.iter().map(|p| {
        let label = format!(
            "{} delivered {} time{}, idle {}{}",
            p.id,
            p.delivery_count,
            if p.delivery_count == 1 { "" } else { "s" },
            duration(p.idle),
            if p.deleted { ", its entry is gone from the stream" } else { "" }
        );
        html! {
            <li key={p.id.clone()} class={classes!("pel-card", p.deleted.then_some("deleted"))} aria-label={label}
                data-key={format!("{group_key}/{}", p.id)}>
                <span class="id">{&p.id}</span>
                <span class="count">{format!("×{}", p.delivery_count)}</span>
                <span class="idle">{duration(p.idle)}</span>
            </li>
        }
    });
    let more = consumer.pending_count - consumer.pending.len();
    html! {
        <li class="lane" key={consumer.name.clone()}>
            <div class="who">
                <strong>{&consumer.name}</strong>
                <span class="pending-count">{format!("{} pending", consumer.pending_count)}</span>
                <small>{format!("{seen} · {active}")}</small>
            </div>
            <ol class="pel" aria-label={format!("pending entries of {}", consumer.name)}>
                { for cards }
                if more > 0 { <li class="more">{format!("+{} more", count(more as u64))}</li> }
                if consumer.pending_count == 0 { <li class="none">{"nothing pending"}</li> }
            </ol>
        </li>
    }
}

fn group(stream: &StreamView, group: &GroupView) -> Html {
    let placed = if drawn(stream, &group.last_delivered_id) {
        None
    } else if group.last_delivered_id == "0-0" {
        Some("before the first entry".to_owned())
    } else {
        Some("not drawn on the rail (collapsed, deleted or trimmed)".to_owned())
    };
    html! {
        <section class="group" key={group.name.clone()} aria-label={format!("group {}", group.name)}>
            <h4><span class="cursor-mark" aria-hidden="true">{"▲"}</span>{format!(" group {}", group.name)}</h4>
            <p class="group-facts">
                <span>{"last-delivered-id "}<code>{&group.last_delivered_id}</code></span>
                <span>{"entries-read "}<code>{group.entries_read.map_or_else(|| "nil".to_owned(), count)}</code></span>
                <span class={classes!(group.lag.is_none().then_some("nil"))}>{"lag "}<code>{lag_text(group)}</code></span>
                <span>{"pending "}<code>{count(group.pending as u64)}</code></span>
                if let Some(placed) = placed { <span class="placed">{format!("cursor {placed}")}</span> }
            </p>
            if let Some(reason) = &group.lag_reason {
                <p class="why"><strong>{"Why is lag nil? "}</strong>{reason}</p>
            }
            if group.consumers.is_empty() {
                <p class="none">{"No consumers yet: XREADGROUP creates them."}</p>
            } else {
                <ol class="lanes">{ for group.consumers.iter().map(|c| lane(&format!("{}/{}", stream.key, group.name), c)) }</ol>
            }
        </section>
    }
}

fn stream(snapshot: &Rc<SnapshotView>, index: usize) -> Html {
    let stream = &snapshot.streams[index];
    html! {
        <article class="stream" key={stream.key.clone()} aria-label={format!("stream {}", stream.key)}>
            <h3>{"Stream "}<code>{&stream.key}</code></h3>
            <dl class="meta">
                <div><dt>{"length"}</dt><dd>{count(stream.length)}</dd></div>
                <div><dt>{"first id"}</dt><dd>{&stream.first_id}</dd></div>
                <div><dt>{"last id"}</dt><dd>{&stream.last_id}</dd></div>
                <div><dt>{"max-deleted-id"}</dt><dd>{&stream.max_deleted_id}</dd></div>
                <div><dt>{"entries-added"}</dt><dd>{count(stream.entries_added)}</dd></div>
                <div><dt>{"nodes"}</dt><dd>{count(stream.node_count as u64)}</dd></div>
                <div><dt>{"tombstones"}</dt><dd>{count(stream.tombstones)}</dd></div>
            </dl>
            {rail(snapshot, index)}
            { for stream.groups.iter().map(|g| group(stream, g)) }
        </article>
    }
}

/// At most this many PEL cards are measured to animate claims; beyond, claims just happen.
const ANIMATED_CARDS: u32 = 200;

/// What the claim animation remembers between renders.
#[derive(Default)]
struct Flip {
    /// Where each PEL card was last drawn (page coordinates), by `stream/group/id`.
    places: HashMap<String, (f64, f64)>,
    /// Which consumer owned each card.
    owners: HashMap<String, String>,
    /// The pending measurement of the places.
    frame: Option<gloo::render::AnimationFrame>,
}

/// Every PEL card's key and owner, from the snapshot.
fn owners(snapshot: &SnapshotView) -> HashMap<String, String> {
    let mut owners = HashMap::new();
    for stream in &snapshot.streams {
        for group in &stream.groups {
            for consumer in &group.consumers {
                for p in &consumer.pending {
                    owners.insert(format!("{}/{}/{}", stream.key, group.name, p.id), consumer.name.clone());
                }
            }
        }
    }
    owners
}

fn page_offset() -> (f64, f64) {
    let window = gloo::utils::window();
    (window.scroll_x().unwrap_or(0.0), window.scroll_y().unwrap_or(0.0))
}

fn card(key: &str) -> Option<HtmlElement> {
    let selector = format!(".pel-card[data-key=\"{}\"]", key.replace('\\', "\\\\").replace('"', "\\\""));
    gloo::utils::document().query_selector(&selector).ok().flatten().and_then(|e| e.dyn_into().ok())
}

/// Where the PEL cards are, read in an animation frame, when the browser lays the page out
/// anyway (reading earlier would force an extra layout on every command).
fn measure_places() -> HashMap<String, (f64, f64)> {
    let mut places = HashMap::new();
    let Ok(cards) = gloo::utils::document().query_selector_all(".pel-card[data-key]") else { return places };
    if cards.length() > ANIMATED_CARDS {
        return places;
    }
    let (sx, sy) = page_offset();
    for i in 0..cards.length() {
        let Some(card) = cards.get(i).and_then(|n| n.dyn_into::<Element>().ok()) else { continue };
        if let Some(key) = card.get_attribute("data-key") {
            let rect = card.get_bounding_client_rect();
            places.insert(key, (rect.left() + sx, rect.top() + sy));
        }
    }
    places
}

/// Slides the cards that changed owner (claims) from their old lane to the new one (FLIP).
/// Reduced motion turns the transition off in the style sheet.
fn slide(keys: &[String], places: &HashMap<String, (f64, f64)>) {
    let (sx, sy) = page_offset();
    let moved: Vec<(HtmlElement, f64, f64)> = keys
        .iter()
        .filter_map(|key| {
            let (x, y) = *places.get(key)?;
            let card = card(key)?;
            let rect = card.get_bounding_client_rect();
            Some((card, x - rect.left() - sx, y - rect.top() - sy))
        })
        .collect();
    for (card, dx, dy) in &moved {
        let style = card.style();
        let _ = style.set_property("animation", "none");
        let _ = style.set_property("transition", "none");
        let _ = style.set_property("transform", &format!("translate({dx}px, {dy}px)"));
    }
    if let Some((card, _, _)) = moved.first() {
        let _ = card.offset_width(); // apply the start positions before transitioning
    }
    for (card, _, _) in &moved {
        let style = card.style();
        let _ = style.set_property("transition", "transform 450ms ease");
        let _ = style.set_property("transform", "");
    }
}

#[component]
pub fn Pictures(props: &PicturesProps) -> Html {
    let snapshot = &props.snapshot;
    let flip = use_mut_ref(Flip::default);
    use_effect_with(props.snapshot.clone(), move |snapshot| {
        let now = owners(snapshot);
        let claimed: Vec<String> = {
            let flip = flip.borrow();
            now.iter()
                .filter(|(k, o)| flip.owners.get(*k).is_some_and(|was| was != *o))
                .map(|(k, _)| k.clone())
                .collect()
        };
        if !claimed.is_empty() {
            slide(&claimed, &flip.borrow().places);
        }
        let measured = flip.clone();
        let frame = gloo::render::request_animation_frame(move |_| measured.borrow_mut().places = measure_places());
        let mut flip = flip.borrow_mut();
        flip.owners = now;
        flip.frame = Some(frame);
    });
    let receivers: Vec<_> = snapshot.connections.iter().filter(|c| !c.messages.is_empty()).collect();
    html! {
        <div class="pictures">
            if snapshot.streams.is_empty() {
                <p class="empty">{"No streams yet. "}<code>{"XADD jobs * type email"}</code>{" makes one; "}
                <code>{"XGROUP CREATE jobs workers $ MKSTREAM"}</code>{" makes one with a group."}</p>
            }
            { for (0..snapshot.streams.len()).map(|i| stream(snapshot, i)) }
            if !snapshot.channels.is_empty() || !receivers.is_empty() {
                <article class="pubsub" aria-label="Pub/Sub">
                    <h3>{"Pub/Sub"}</h3>
                    <ul class="channels">
                        { for snapshot.channels.iter().map(|c| html! {
                            <li key={format!("{}{}", c.pattern, c.name)}>
                                <code>{&c.name}</code>{if c.pattern { " (pattern)" } else { "" }}
                                {" → "}{c.subscribers.join(", ")}
                            </li>
                        }) }
                    </ul>
                    { for receivers.iter().map(|c| html! {
                        <div class="inbox" key={c.name.clone()}>
                            <strong>{format!("{} received", c.name)}</strong>
                            <ol>{ for c.messages.iter().map(|m| html! {
                                <li><code>{&m.channel}</code>{": "}{&m.payload}<small>{format!(" (step {})", m.step)}</small></li>
                            }) }</ol>
                        </div>
                    }) }
                </article>
            }
            if !snapshot.other_keys.is_empty() {
                <article class="keys" aria-label="Other keys">
                    <h3>{"Other keys"}</h3>
                    <ul>{ for snapshot.other_keys.iter().map(|k| html! {
                        <li key={k.key.clone()}><code>{&k.key}</code>{format!(" ({}) {}", k.kind, k.value)}</li>
                    }) }</ul>
                </article>
            }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_have_separators() {
        assert_eq!(count(100_000), "100,000");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_000), "1,000");
    }
}
