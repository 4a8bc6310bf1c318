//! The pictures: pure functions of a snapshot. A stream is a rail of entry cards grouped by
//! node; a group is a cursor on the rail; a consumer is a lane of the cards it owns in the PEL.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use streamlab_view::diff::duration;
use streamlab_view::view::{
    CollapsedView, ConsumerView, EntryView, GroupView, NodeView, PendingView, RailItem, SnapshotView, StreamView,
};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};
use yew::prelude::*;

use crate::motion::{find, id_order, measure_places, motion, quoted, slide, use_media, Motion};
use crate::state::Action;

mod explain;

use explain::{holders, id_time, legend};

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

/// The keys of the cards: arrows move between the entry cards of a rail or the cards of a PEL
/// lane (one tab stop each); Enter or Space on a PEL card clicks it, as they click an entry's
/// button, which opens who holds its entry.
fn card_keys(e: KeyboardEvent) {
    let Some(card) = e.target().and_then(|t| t.dyn_into::<HtmlElement>().ok()) else { return };
    let list = card.class_list();
    // Only from a card: a block's button keeps its keys.
    let cards = if list.contains("entry") {
        "button.entry"
    } else if list.contains("pel-card") {
        if matches!(e.key().as_str(), "Enter" | " ") {
            e.prevent_default();
            card.click();
            return;
        }
        ".pel-card"
    } else {
        return;
    };
    let step: i64 = match e.key().as_str() {
        "ArrowRight" | "ArrowDown" => 1,
        "ArrowLeft" | "ArrowUp" => -1,
        "Home" => i64::MIN,
        "End" => i64::MAX,
        _ => return,
    };
    let Some(scope) = card.closest(".rail, .pel").ok().flatten() else { return };
    let Ok(cards) = scope.query_selector_all(cards) else { return };
    let len = i64::from(cards.length());
    if len == 0 {
        return;
    }
    let at =
        (0..cards.length()).find(|&i| cards.get(i).is_some_and(|c| card.is_same_node(Some(&c)))).map_or(0, i64::from);
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

/// Marks the rail entry of the PEL card under the pointer or the focus (`.linked`), in the same
/// pictures (the goal beside the learner's state has its own); none when `card` is in no card.
fn link(root: &Element, card: Option<Element>) {
    if let Ok(linked) = root.query_selector_all(".entry.linked") {
        for i in 0..linked.length() {
            if let Some(e) = linked.get(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                let _ = e.class_list().remove_1("linked");
            }
        }
    }
    let Some(card) = card.and_then(|t| t.closest(".pel-card").ok().flatten()) else { return };
    let (Some(id), Some(stream)) = (card.get_attribute("data-id"), card.closest(".stream").ok().flatten()) else {
        return;
    };
    if let Ok(Some(entry)) = stream.query_selector(&format!("button.entry[data-id={}]", quoted(&id))) {
        let _ = entry.class_list().add_1("linked");
    }
}

/// The pointer or the focus moved onto something in the pictures: a PEL card lights its entry,
/// anything else puts the light out.
fn hovered(e: &Event) {
    if let Some(root) = e.current_target().and_then(|t| t.dyn_into::<Element>().ok()) {
        link(&root, e.target().and_then(|t| t.dyn_into::<Element>().ok()));
    }
}

/// An entry card: its id, and, on hover or focus, its id's time, fields and state for each
/// group (`groups` is how many the stream has).
fn entry_card(entry: &EntryView, groups: usize, first: bool, mark: Option<&'static str>) -> Html {
    let fields = entry.fields.iter().map(|(f, v)| format!("{f}={v}")).collect::<Vec<_>>().join(" ");
    let mut about = id_time(&entry.id);
    for (names, what) in [
        (&entry.pending_in, "; pending in "),
        (&entry.unread_by, "; still to be delivered to "),
        (&entry.cursors, "; last delivered to "),
    ] {
        if !names.is_empty() {
            about.push_str(what);
            about.push_str(&names.join(", "));
        }
    }
    let pending = !entry.pending_in.is_empty();
    let unread = !pending && !entry.unread_by.is_empty();
    // The groups it is neither pending in nor ahead of have acknowledged it (or skipped it).
    let open = entry.pending_in.len() + entry.unread_by.iter().filter(|g| !entry.pending_in.contains(g)).count();
    if groups > open {
        about.push_str(if open == 0 { "; acknowledged by every group" } else { "; acknowledged by the other groups" });
    }
    // One text for the tooltip and the name: a row of elements per field would cost the wasm.
    let text =
        format!("{}; {about}", if entry.deleted { "deleted: a tombstone kept in its node" } else { fields.as_str() });
    let label = format!("entry {}, {text}", entry.id);
    let classes = classes!(
        "entry",
        entry.deleted.then_some("deleted"),
        pending.then_some("pending"),
        unread.then_some("unread"),
        (groups > 0 && !pending && !unread).then_some("acked"),
        mark
    );
    html! {
        <li class="card-wrap" key={entry.id.clone()}>
            <button class={classes} tabindex={if first { "0" } else { "-1" }} aria-label={label} data-id={entry.id.clone()}>
                {&entry.id}
            </button>
            <div class="tip" role="tooltip">{text}</div>
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
    /// How many groups the stream has (an entry has a state for each).
    groups: usize,
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
        self.first == other.first
            && self.marks == other.marks
            && self.groups == other.groups
            && self.node() == other.node()
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
                    entry_card(e, props.groups, props.first && i == 0, mark)
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
                first={first_node == Some(item)} marks={marks(node)} groups={stream.groups.len()} />
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
        <ul class="rail" aria-label={format!("Entries of {}, grouped by node; arrow keys move between entries", stream.key)}>
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
    let card = |(i, p): (usize, &PendingView)| {
        let label = format!(
            "{} ({}): pending for {}, delivered ×{}, idle {} since its last delivery{}",
            p.id,
            id_time(&p.id),
            consumer.name,
            p.delivery_count,
            duration(p.idle),
            if p.deleted { "; its entry is gone from the stream" } else { "" }
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
                data-key={key} data-id={p.id.clone()} tabindex={if i == 0 { "0" } else { "-1" }}>
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
    for (i, p) in consumer.pending.iter().enumerate() {
        while let Some(gone) = leaving.next_if(|g| id_order(&g.id) < id_order(&p.id)) {
            cards.push(acked_card(gone));
        }
        cards.push(card((i, p)));
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
            <ol class="pel" aria-label={format!("pending entries of {}; arrow keys move between them, Enter shows who holds one", consumer.name)}>
                { for cards }
            </ol>
        </li>
    }
}

/// The group's lag as a bracket under its facts: the span from its cursor to the stream's tail
/// (on the rail, the entries in it are the underlined ones), drawn dashed as unknown when Redis
/// answers a nil lag.
fn lag_span(stream: &StreamView, group: &GroupView) -> Html {
    let (class, note) = match group.lag {
        Some(0) => ("caught-up", ": caught up"),
        Some(_) => ("", ": not yet delivered"),
        None => ("nil", ": unknown, Redis cannot count it"),
    };
    html! {
        <p class={classes!("lag-span", class)}>
            {format!("▲ {} ⟶ tail {}: lag {}{note}", group.last_delivered_id, stream.last_id, lag_text(group))}
        </p>
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
                { for [
                    ("last-delivered-id ", group.last_delivered_id.clone(), false),
                    ("entries-read ", group.entries_read.map_or_else(|| "nil".to_owned(), count), false),
                    ("lag ", lag_text(group), group.lag.is_none()),
                    ("pending ", count(group.pending as u64), false),
                ].into_iter().map(|(name, value, nil)| html! { <span class={classes!(nil.then_some("nil"))}>{name}<code>{value}</code></span> }) }
                if let Some(placed) = placed { <span class="placed">{format!("cursor {placed}")}</span> }
            </p>
            {lag_span(stream, group)}
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

/// The entry a click or Enter opened, by stream key and id.
type Selected = Option<(String, String)>;

fn stream(
    snapshot: &Rc<SnapshotView>,
    index: usize,
    motion: &Motion,
    on_action: &Folds,
    selected: &UseStateHandle<Selected>,
) -> Html {
    let stream = &snapshot.streams[index];
    let chosen = selected.as_ref().filter(|(key, _)| *key == stream.key).map(|(_, id)| id.as_str());
    let close = {
        let selected = selected.clone();
        Callback::from(move |_| selected.set(None))
    };
    html! {
        <article class="stream" key={stream.key.clone()} aria-label={format!("stream {}", stream.key)} data-key={stream.key.clone()}>
            <h3>{"Stream "}<code>{&stream.key}</code></h3>
            <dl class="meta">
                // One template in a loop: each element written out is its own code in the wasm.
                { for [
                    ("length", count(stream.length)),
                    ("first id", stream.first_id.clone()),
                    ("last id", stream.last_id.clone()),
                    ("max-deleted-id", stream.max_deleted_id.clone()),
                    ("entries-added", count(stream.entries_added)),
                    ("nodes", count(stream.node_count as u64)),
                    ("tombstones", count(stream.tombstones)),
                ].into_iter().map(|(name, value)| html! { <div><dt>{name}</dt><dd>{value}</dd></div> }) }
            </dl>
            {rail(snapshot, index, motion, on_action)}
            // Always there, so what it says when an entry is opened is announced.
            <section class="holders" aria-live="polite" aria-label="who holds the chosen entry" hidden={chosen.is_none()}>
                if let Some(id) = chosen {
                    <p>{holders(stream, id, snapshot.now)}</p>
                    <button onclick={close}>{"Close"}</button>
                }
            </section>
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
    // Clicking an entry or a PEL card (Enter on one) opens who holds that entry; again closes it.
    let selected = use_state(|| None::<(String, String)>);
    let onclick = {
        let selected = selected.clone();
        Callback::from(move |e: MouseEvent| {
            let target = e.target().and_then(|t| t.dyn_into::<Element>().ok());
            let Some(card) = target.and_then(|t| t.closest("button.entry, .pel-card").ok().flatten()) else { return };
            let key = card.closest(".stream").ok().flatten().and_then(|s| s.get_attribute("data-key"));
            let chosen = key.zip(card.get_attribute("data-id"));
            selected.set(if *selected == chosen { None } else { chosen });
        })
    };
    let receivers: Vec<_> = snapshot.connections.iter().filter(|c| !c.messages.is_empty()).collect();
    html! {
        <div class="pictures" {onclick} onkeydown={Callback::from(card_keys)} onmouseover={|e: MouseEvent| hovered(&e)}
            onfocusin={|e: FocusEvent| hovered(&e)}>
            if !snapshot.streams.is_empty() { {legend()} }
            if snapshot.streams.is_empty() {
                <p class="empty">{"No streams yet. "}<code>{"XADD jobs * type email"}</code>{" makes one; "}
                <code>{"XGROUP CREATE jobs workers $ MKSTREAM"}</code>{" makes one with a group."}</p>
            }
            { for (0..snapshot.streams.len()).map(|i| stream(snapshot, i, &motion, &folds, &selected)) }
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
