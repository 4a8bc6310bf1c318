//! The pictures: pure functions of a snapshot. A stream is a rail of entry cards grouped by
//! node; a group is a cursor on the rail; a consumer is a lane of the cards it owns in the PEL.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use streamlab_wasm::diff::duration;
use streamlab_wasm::view::{
    CollapsedView, ConsumerView, EntryView, GroupView, NodeView, PendingView, RailItem, SnapshotView, StreamView,
};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};
use yew::prelude::*;

use crate::motion::{find, id_order, measure_places, motion, quoted, slide, use_media, Motion};
use crate::state::Action;

#[derive(Properties, PartialEq)]
pub struct PicturesProps {
    pub snapshot: Rc<SnapshotView>,
    /// The state shown before: what changed since is animated.
    pub previous: Rc<SnapshotView>,
    /// Opening and closing blocks of big rails.
    pub on_action: Callback<Action>,
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
    // Only from an entry card: a block's button keeps its keys.
    let from_entry =
        e.target().and_then(|t| t.dyn_into::<Element>().ok()).is_some_and(|t| t.class_list().contains("entry"));
    if !from_entry {
        return;
    }
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

fn entry_card(entry: &EntryView, first: bool, mark: Option<&'static str>) -> Html {
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
    let classes = classes!(
        "entry",
        entry.deleted.then_some("deleted"),
        (!entry.pending_in.is_empty()).then_some("pending"),
        mark
    );
    html! {
        <li class="card-wrap" key={entry.id.clone()}>
            <button class={classes} tabindex={if first { "0" } else { "-1" }} aria-label={label} data-id={entry.id.clone()}>
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
    /// Animation classes of its entries, by id.
    marks: Vec<(String, &'static str)>,
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
        self.first == other.first && self.marks == other.marks && self.node() == other.node()
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
                { for node.entries.iter().enumerate().map(|(i, e)| {
                    let mark = props.marks.iter().find(|(id, _)| *id == e.id).map(|(_, mark)| *mark);
                    entry_card(e, props.first && i == 0, mark)
                }) }
            </ul>
        </li>
    }
}

/// A node that left the rail, fading away where it was (hidden from assistive technology:
/// the rail's counts already say it).
fn left_node(node: &NodeView) -> Html {
    html! {
        <li class="node rail-ghost leaving" key={format!("ghost-{}", node.master_id)} aria-hidden="true">
            <span class="node-label">{format!("node {}", node.master_id)}</span>
            <ul class="cards">
                { for node.entries.iter().map(|e| html! {
                    <li class="card-wrap"><span class={classes!("entry", e.deleted.then_some("deleted"))}>{&e.id}</span></li>
                }) }
            </ul>
        </li>
    }
}

/// What the blocks' buttons need: the dispatcher, and the button to focus after the redraw
/// (the one pressed: it now opens or closes the same run).
#[derive(Clone)]
struct Folds {
    on_action: Callback<Action>,
    refocus: Rc<RefCell<Option<String>>>,
}

/// The button that opens or closes a block, named `data-fold="KEY/FIRST-ID"` in both states.
/// Its name is its visible text (counts, range, and what pressing it does).
fn fold(key: &str, first_id: &str, open: bool, body: Html, folds: &Folds) -> Html {
    let folds = folds.clone();
    let name = format!("{key}/{first_id}");
    let (key, first_id) = (key.to_owned(), first_id.to_owned());
    let onclick = {
        let name = name.clone();
        Callback::from(move |_| {
            *folds.refocus.borrow_mut() = Some(name.clone());
            folds.on_action.emit(Action::Fold { key: key.clone(), first_id: first_id.clone(), open: !open })
        })
    };
    html! {
        <button class="fold" aria-expanded={open.to_string()} data-fold={name} {onclick}>{body}</button>
    }
}

fn collapsed(key: &str, block: &CollapsedView, on_action: &Folds) -> Html {
    let body = html! {
        <>
            <strong>{format!("{} nodes", count(block.nodes as u64))}</strong>
            <span>{format!("{} entries", count(block.live))}</span>
            if block.deleted > 0 { <span>{format!("{} deleted", count(block.deleted))}</span> }
            <span class="range">{format!("{} … {}", block.first_id, block.last_id)}</span>
            <span class="fold-hint"><span aria-hidden="true">{"▸ "}</span>{"show entries"}</span>
        </>
    };
    html! {
        <li class="block" key={format!("block-{}", block.first_id)}>
            {fold(key, &block.first_id, false, body, on_action)}
        </li>
    }
}

fn rail(snapshot: &Rc<SnapshotView>, index: usize, motion: &Motion, on_action: &Folds) -> Html {
    let stream = &snapshot.streams[index];
    let key = &stream.key;
    let first_node = stream.rail.iter().position(|item| matches!(item, RailItem::Node(_)));
    // This stream's marked entries, from the (small) sets of what moved: no string is made
    // per drawn entry, which matters on a big rail.
    let prefix = format!("{key}/");
    let mut marked: HashMap<&str, &'static str> = HashMap::new();
    for (set, mark) in [(&motion.added, "added"), (&motion.tombstoned, "tombstoning")] {
        marked.extend(set.iter().filter_map(|at| at.strip_prefix(prefix.as_str())).map(|id| (id, mark)));
    }
    let marks = |node: &NodeView| -> Vec<(String, &'static str)> {
        if marked.is_empty() {
            return Vec::new();
        }
        node.entries.iter().filter_map(|e| Some((e.id.clone(), *marked.get(e.id.as_str())?))).collect()
    };
    let node_box = |item: usize, node: &NodeView| {
        html! {
            <NodeBox key={node.master_id.clone()} snapshot={snapshot.clone()} stream={index} {item}
                first={first_node == Some(item)} marks={marks(node)} />
        }
    };
    // Nodes that left go back where they were, among the items that stay.
    let left = motion.left.get(key).map_or(&[][..], Vec::as_slice);
    let start_of = |item: &RailItem| {
        id_order(match item {
            RailItem::Node(node) => &node.master_id,
            RailItem::Collapsed(block) => &block.first_id,
        })
    };
    let mut items: Vec<Html> = Vec::new();
    let mut ghosts = left.iter().peekable();
    let mut at = 0;
    while at < stream.rail.len() {
        let item = &stream.rail[at];
        while let Some(ghost) = ghosts.next_if(|g| id_order(&g.master_id) < start_of(item)) {
            items.push(left_node(ghost));
        }
        match item {
            RailItem::Node(node) if node.opened => {
                // A run of nodes the learner opened, under the button that closes it.
                let run: Vec<usize> = (at..stream.rail.len())
                    .take_while(|&i| matches!(&stream.rail[i], RailItem::Node(n) if n.opened))
                    .collect();
                let nodes: Vec<&NodeView> = run
                    .iter()
                    .filter_map(|&i| match &stream.rail[i] {
                        RailItem::Node(n) => Some(n),
                        RailItem::Collapsed(_) => None,
                    })
                    .collect();
                let entries: usize = nodes.iter().map(|n| n.entries.len()).sum();
                let last = nodes.last().and_then(|n| n.entries.last()).map_or("", |e| e.id.as_str());
                let body = html! {
                    <>
                        <strong>{format!("{} nodes opened", nodes.len())}</strong>
                        <span>{format!("{} entries", count(entries as u64))}</span>
                        <span class="range">{format!("{} … {last}", node.master_id)}</span>
                        <span class="fold-hint"><span aria-hidden="true">{"▾ "}</span>{"collapse"}</span>
                    </>
                };
                items.push(html! {
                    <li class="block opened" key={format!("block-{}", node.master_id)}>
                        {fold(key, &node.master_id, true, body, on_action)}
                        <ul class="run" aria-label={format!("opened nodes of {key}")}>
                            { for run.iter().zip(&nodes).map(|(&i, n)| node_box(i, n)) }
                        </ul>
                    </li>
                });
                at += run.len();
                continue;
            }
            RailItem::Node(node) => items.push(node_box(at, node)),
            RailItem::Collapsed(block) => items.push(collapsed(key, block, on_action)),
        }
        at += 1;
    }
    items.extend(ghosts.map(left_node));
    if items.is_empty() {
        items.push(html! { <li class="empty-rail" key="empty">{"no entries"}</li> });
    }
    if stream.removed > 0 {
        let gone = format!("{} removed (trimmed, or freed with their node)", count(stream.removed));
        items.insert(0, html! { <li class="gone" key="gone">{gone}</li> });
    }
    // One keyed list as the only children: an unkeyed sibling beside it would make every
    // redraw move all the nodes.
    html! {
        <ul class="rail" aria-label={format!("Entries of {}, grouped by node; arrow keys move between entries", stream.key)} onkeydown={Callback::from(rail_keys)}>
            { for items }
        </ul>
    }
}

fn drawn(stream: &StreamView, id: &str) -> bool {
    stream.rail.iter().any(|item| matches!(item, RailItem::Node(n) if n.entries.iter().any(|e| e.id == id)))
}

/// A PEL card that left its lane (acknowledged), fading toward the acked state where it was.
fn acked_card(p: &PendingView) -> Html {
    html! {
        <li key={format!("ghost-{}", p.id)} class="pel-ghost acked" aria-hidden="true">
            <span class="id">{&p.id}</span>
            <span class="count">{"✓ acked"}</span>
        </li>
    }
}

/// A consumer's lane; `group_key` names its stream and group, so a card keeps its identity
/// when a claim moves it to another lane of the same group.
fn lane(group_key: &str, consumer: &ConsumerView, motion: &Motion) -> Html {
    let seen = format!("seen {} ago", duration(consumer.seen_ago));
    let active =
        consumer.active_ago.map_or_else(|| "never active".to_owned(), |a| format!("active {} ago", duration(a)));
    let card = |p: &PendingView| {
        let label = format!(
            "{} delivered {} time{}, idle {}{}",
            p.id,
            p.delivery_count,
            if p.delivery_count == 1 { "" } else { "s" },
            duration(p.idle),
            if p.deleted { ", its entry is gone from the stream" } else { "" }
        );
        let key = format!("{group_key}/{}", p.id);
        let mark = if motion.delivered.contains(&key) {
            Some("delivered")
        } else if motion.claimed.contains(&key) {
            Some("claimed")
        } else if motion.orphaned.contains(&key) {
            Some("orphaned")
        } else {
            None
        };
        html! {
            <li key={p.id.clone()} class={classes!("pel-card", p.deleted.then_some("deleted"), mark)} aria-label={label}
                data-key={key}>
                <span class="id">{&p.id}</span>
                <span class="count">{format!("×{}", p.delivery_count)}</span>
                <span class="idle">{duration(p.idle)}</span>
            </li>
        }
    };
    // Acknowledged cards leave from where they were, among the cards that stay.
    let acked = motion.acked.get(&format!("{group_key}/{}", consumer.name)).map_or(&[][..], Vec::as_slice);
    let mut leaving = acked.iter().peekable();
    let mut cards: Vec<Html> = Vec::new();
    for p in &consumer.pending {
        while let Some(gone) = leaving.next_if(|g| id_order(&g.id) < id_order(&p.id)) {
            cards.push(acked_card(gone));
        }
        cards.push(card(p));
    }
    cards.extend(leaving.map(acked_card));
    let more = consumer.pending_count - consumer.pending.len();
    if more > 0 {
        cards.push(html! { <li class="more" key="more">{format!("+{} more", count(more as u64))}</li> });
    }
    if consumer.pending_count == 0 {
        cards.push(html! { <li class="none" key="none">{"nothing pending"}</li> });
    }
    html! {
        <li class="lane" key={consumer.name.clone()}>
            <div class="who">
                <strong class="name" title={consumer.name.clone()}>{&consumer.name}</strong>
                <span class="pending-count">{format!("{} pending", consumer.pending_count)}</span>
                <small>{format!("{seen} · {active}")}</small>
            </div>
            <ol class="pel" aria-label={format!("pending entries of {}", consumer.name)}>
                { for cards }
            </ol>
        </li>
    }
}

fn group(stream: &StreamView, group: &GroupView, motion: &Motion) -> Html {
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
                <ol class="lanes">{ for group.consumers.iter().map(|c| lane(&format!("{}/{}", stream.key, group.name), c, motion)) }</ol>
            }
        </section>
    }
}

fn stream(snapshot: &Rc<SnapshotView>, index: usize, motion: &Motion, on_action: &Folds) -> Html {
    let stream = &snapshot.streams[index];
    html! {
        <article class="stream" key={stream.key.clone()} aria-label={format!("stream {}", stream.key)} data-key={stream.key.clone()}>
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
            {rail(snapshot, index, motion, on_action)}
            { for stream.groups.iter().map(|g| group(stream, g, motion)) }
        </article>
    }
}

#[component]
pub fn Pictures(props: &PicturesProps) -> Html {
    let snapshot = &props.snapshot;
    // What moved since the previous state; nothing with reduced motion.
    let still = use_media("(prefers-reduced-motion: reduce)");
    let motion = {
        let (previous, snapshot) = (props.previous.clone(), props.snapshot.clone());
        use_memo(
            (previous, snapshot, still),
            |(previous, snapshot, still)| {
                if *still {
                    Motion::default()
                } else {
                    motion(previous, snapshot)
                }
            },
        )
    };
    // Where the PEL cards were drawn last, for the next claim to slide from.
    let places = use_mut_ref(HashMap::new);
    let frame = use_mut_ref(|| None::<gloo::render::AnimationFrame>);
    let folds = Folds { on_action: props.on_action.clone(), refocus: use_mut_ref(|| None::<String>) };
    let refocus = folds.refocus.clone();
    use_effect_with((props.snapshot.clone(), motion.clone()), move |(_, motion)| {
        // A block's button pressed: keep the focus on it, wherever the redraw put it.
        if let Some(name) = refocus.borrow_mut().take() {
            if let Some(button) = find(&format!(".fold[data-fold={}]", quoted(&name))) {
                let _ = button.focus();
            }
        }
        slide(motion, &places.borrow());
        *frame.borrow_mut() =
            Some(gloo::render::request_animation_frame(move |_| *places.borrow_mut() = measure_places()));
    });
    let receivers: Vec<_> = snapshot.connections.iter().filter(|c| !c.messages.is_empty()).collect();
    html! {
        <div class="pictures">
            if snapshot.streams.is_empty() {
                <p class="empty">{"No streams yet. "}<code>{"XADD jobs * type email"}</code>{" makes one; "}
                <code>{"XGROUP CREATE jobs workers $ MKSTREAM"}</code>{" makes one with a group."}</p>
            }
            { for (0..snapshot.streams.len()).map(|i| stream(snapshot, i, &motion, &folds)) }
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
