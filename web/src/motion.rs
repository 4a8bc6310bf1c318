//! What moved between the previous snapshot and the current one, for the pictures'
//! animations: a pure function of the two snapshots (no timers), so a step always animates the
//! same way and the pictures stay functions of what they are given. Also the page side of
//! motion: the reduced-motion preference and the slides (FLIP) of cards between places.

use std::collections::{HashMap, HashSet};

use streamlab_engine::{IdMode, StreamId};
use streamlab_view::view::{NodeView, PendingView, RailItem, SnapshotView, StreamView};
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;
use web_sys::{Element, HtmlElement};
use yew::prelude::*;

/// The changes the pictures animate. Keys: `stream/id` for rail entries, `stream/group/id` for
/// PEL cards, `stream/group/consumer` for lanes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Motion {
    /// Rail entries that arrived (added after the previous last id).
    pub added: HashSet<String>,
    /// Rail entries that just became tombstones.
    pub tombstoned: HashSet<String>,
    /// Per stream, the entries that left the rail (trimmed, or freed with their node), as the
    /// nodes they were in; they fade away where they were.
    pub left: HashMap<String, Vec<NodeView>>,
    /// PEL cards delivered by this step (new in the group's PEL): they come from the rail.
    pub delivered: HashSet<String>,
    /// PEL cards that changed owner (claims): they slide from lane to lane.
    pub claimed: HashSet<String>,
    /// PEL cards whose entry just went from the stream (deleted or trimmed while pending).
    pub orphaned: HashSet<String>,
    /// Per lane, the cards that left the PEL (acknowledged): they leave the lane.
    pub acked: HashMap<String, Vec<PendingView>>,
}

/// An id's text as the engine's id, for ordering (`1-0` < `10-0`). The views' ids are always
/// valid strict ids; anything else would order first.
pub fn id_order(id: &str) -> StreamId {
    StreamId::parse(id.as_bytes(), IdMode::Strict, 0).unwrap_or_default()
}

/// The drawn entries of a rail: id → tombstone.
fn drawn(stream: &StreamView) -> HashMap<&str, bool> {
    let mut out = HashMap::new();
    for item in &stream.rail {
        if let RailItem::Node(node) = item {
            out.extend(node.entries.iter().map(|e| (e.id.as_str(), e.deleted)));
        }
    }
    out
}

/// Whether an id is still on a rail: drawn, or inside a collapsed block.
fn on_rail(stream: &StreamView, drawn: &HashMap<&str, bool>, id: &str) -> bool {
    drawn.contains_key(id)
        || stream.rail.iter().any(|item| match item {
            RailItem::Collapsed(block) => {
                (id_order(&block.first_id)..=id_order(&block.last_id)).contains(&id_order(id))
            }
            RailItem::Node(_) => false,
        })
}

/// One group's PEL as listed: id → (owner, card), and the lanes whose list is cut short (a
/// card missing from those may just be beyond the cap).
struct Listed<'a> {
    cards: HashMap<&'a str, (&'a str, &'a PendingView)>,
    /// Per consumer, the last id listed when its list is cut at the cap.
    cut: HashMap<&'a str, StreamId>,
}

fn listed<'a>(stream: &'a StreamView, group: &str) -> Option<Listed<'a>> {
    let group = stream.groups.iter().find(|g| g.name == group)?;
    let mut cards = HashMap::new();
    let mut cut = HashMap::new();
    for consumer in &group.consumers {
        cards.extend(consumer.pending.iter().map(|p| (p.id.as_str(), (consumer.name.as_str(), p))));
        if consumer.pending.len() < consumer.pending_count {
            cut.insert(consumer.name.as_str(), consumer.pending.last().map_or(StreamId::MIN, |p| id_order(&p.id)));
        }
    }
    Some(Listed { cards, cut })
}

impl Listed<'_> {
    /// Whether `id` may be in `consumer`'s list beyond the cap.
    fn beyond_cap(&self, consumer: &str, id: &str) -> bool {
        self.cut.get(consumer).is_some_and(|&last| id_order(id) > last)
    }
}

/// What moved from `before` to `after`.
pub fn motion(before: &SnapshotView, after: &SnapshotView) -> Motion {
    let mut motion = Motion::default();
    for stream in &after.streams {
        let Some(was) = before.streams.iter().find(|s| s.key == stream.key) else { continue };
        let key = &stream.key;
        let (old, new) = (drawn(was), drawn(stream));
        let last = id_order(&was.last_id);
        for (&id, &deleted) in &new {
            match old.get(id) {
                Some(false) if deleted => {
                    motion.tombstoned.insert(format!("{key}/{id}"));
                }
                None if !deleted && id_order(id) > last => {
                    motion.added.insert(format!("{key}/{id}"));
                }
                _ => {}
            }
        }
        let mut left = Vec::new();
        for item in &was.rail {
            let RailItem::Node(node) = item else { continue };
            let gone: Vec<_> = node.entries.iter().filter(|e| !on_rail(stream, &new, &e.id)).cloned().collect();
            if !gone.is_empty() {
                left.push(NodeView { entries: gone, ..node.clone() });
            }
        }
        if !left.is_empty() {
            motion.left.insert(key.clone(), left);
        }
        for group in &stream.groups {
            let (Some(then), Some(now)) = (listed(was, &group.name), listed(stream, &group.name)) else { continue };
            let prefix = format!("{key}/{}", group.name);
            for (&id, &(owner, card)) in &now.cards {
                match then.cards.get(id) {
                    Some(&(old_owner, _)) if old_owner != owner => {
                        motion.claimed.insert(format!("{prefix}/{id}"));
                    }
                    Some(&(_, old_card)) if card.deleted && !old_card.deleted => {
                        motion.orphaned.insert(format!("{prefix}/{id}"));
                    }
                    None if !then.cut.keys().any(|c| then.beyond_cap(c, id)) => {
                        motion.delivered.insert(format!("{prefix}/{id}"));
                    }
                    _ => {}
                }
            }
            for (&id, &(owner, card)) in &then.cards {
                if !now.cards.contains_key(id) && !now.beyond_cap(owner, id) {
                    motion.acked.entry(format!("{prefix}/{owner}")).or_default().push(card.clone());
                }
            }
        }
    }
    for cards in motion.acked.values_mut() {
        streamlab_engine::sort::sort_by_key(cards, |c| id_order(&c.id));
    }
    motion
}

/// Whether a media query matches, following changes (the reduced-motion preference, a coarse
/// pointer).
#[hook]
pub fn use_media(query: &'static str) -> bool {
    let list = use_memo((), move |_| gloo::utils::window().match_media(query).ok().flatten());
    let matches = use_state(|| list.as_ref().as_ref().is_some_and(web_sys::MediaQueryList::matches));
    {
        let matches = matches.clone();
        use_effect_with(list, move |list| {
            let listener = list.as_ref().as_ref().map(|list| {
                let target = list.clone();
                gloo::events::EventListener::new(list, "change", move |_| matches.set(target.matches()))
            });
            move || drop(listener)
        });
    }
    *matches
}

/// At most this many PEL cards are measured to slide; beyond, cards just appear.
const ANIMATED_CARDS: u32 = 200;

fn page_offset() -> (f64, f64) {
    let window = gloo::utils::window();
    (window.scroll_x().unwrap_or(0.0), window.scroll_y().unwrap_or(0.0))
}

/// The first element a selector finds.
pub fn find(selector: &str) -> Option<HtmlElement> {
    gloo::utils::document().query_selector(selector).ok().flatten().and_then(|e| e.dyn_into().ok())
}

/// An attribute value quoted for a selector.
pub fn quoted(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The PEL card with this `stream/group/id` key.
fn card(key: &str) -> Option<HtmlElement> {
    find(&format!(".pel-card[data-key={}]", quoted(key)))
}

/// Where the PEL cards are (page coordinates), by key; read in an animation frame, when the
/// browser lays the page out anyway (reading earlier would force an extra layout per command).
pub fn measure_places() -> HashMap<String, (f64, f64)> {
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

/// Slides cards from where they were (page coordinates) to where they are now (FLIP): claimed
/// cards from their old lane (`places`, measured after the previous render), delivered ones
/// from their entry on the rail. Nothing moves for reduced motion: the motion is empty then.
pub fn slide(motion: &Motion, places: &HashMap<String, (f64, f64)>) {
    if motion.claimed.is_empty() && motion.delivered.is_empty() {
        return;
    }
    let (sx, sy) = page_offset();
    let from_rail = |key: &String| -> Option<(f64, f64)> {
        let (stream, rest) = key.split_once('/')?;
        let id = rest.rsplit_once('/')?.1;
        let entry = find(&format!(".stream[data-key={}] .entry[data-id={}]", quoted(stream), quoted(id)))?;
        let rect = entry.get_bounding_client_rect();
        Some((rect.left() + sx, rect.top() + sy))
    };
    let starts =
        motion.claimed.iter().filter_map(|key| Some((key, *places.get(key)?))).chain(
            motion.delivered.iter().take(ANIMATED_CARDS as usize).filter_map(|key| Some((key, from_rail(key)?))),
        );
    let moved: Vec<(HtmlElement, f64, f64)> = starts
        .filter_map(|(key, (x, y))| {
            let card = card(key)?;
            let rect = card.get_bounding_client_rect();
            Some((card, x - rect.left() - sx, y - rect.top() - sy))
        })
        .collect();
    // A script animation (Element.animate, called through JavaScript: web-sys keeps it behind
    // its unstable APIs): it leaves no style behind, and it wins over the cards' CSS
    // animations for the transform while they go on (a delivered card still fades in).
    let object = |pairs: &[(&str, JsValue)]| {
        let object = js_sys::Object::new();
        for (name, value) in pairs {
            let _ = js_sys::Reflect::set(&object, &(*name).into(), value);
        }
        object
    };
    let options = object(&[("duration", 450.into()), ("easing", "ease".into()), ("id", "slide".into())]);
    for (card, dx, dy) in moved {
        let from = object(&[("transform", format!("translate({}px, {}px)", js_number(dx), js_number(dy)).into())]);
        let frames = js_sys::Array::of2(&from, &object(&[("transform", "none".into())]));
        let animate =
            js_sys::Reflect::get(&card, &"animate".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        if let Some(animate) = animate {
            let _ = animate.call2(&card, &frames, &options);
        }
    }
}

/// A number as JavaScript prints it: the shortest round-trip digits, as Rust's `{}` would
/// (below 1e-6 JavaScript writes an exponent, which CSS lengths accept too). The wasm then
/// needs no float printer of its own, ~8 KB gzipped, for the slide's offsets.
fn js_number(value: f64) -> String {
    js_sys::Number::from(value).to_string_with_radix(10).map(String::from).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamlab_view::{Playground, SessionSpec};

    fn after(lines: &[&str], then: &[&str]) -> Motion {
        let mut p = Playground::new(&SessionSpec::default());
        for line in lines {
            p.run(line);
        }
        let before = p.snapshot().clone();
        for line in then {
            p.run(line);
        }
        motion(&before, p.snapshot())
    }

    const SETUP: [&str; 6] = [
        "XGROUP CREATE jobs workers $ MKSTREAM",
        "XADD jobs 1-0 type email",
        "XADD jobs 2-0 type sms",
        "XADD jobs 3-0 type push",
        "XREADGROUP GROUP workers alice COUNT 2 STREAMS jobs >",
        "XREADGROUP GROUP workers bob COUNT 1 STREAMS jobs >",
    ];

    fn set(keys: &[&str]) -> HashSet<String> {
        keys.iter().map(|k| (*k).to_owned()).collect()
    }

    #[test]
    fn reads_claims_acks_and_deletes_move_cards() {
        assert_eq!(after(&SETUP, &[]), Motion::default(), "nothing moves without a step");
        let read = after(&SETUP[..4], &SETUP[4..5]);
        assert_eq!(read.delivered, set(&["jobs/workers/1-0", "jobs/workers/2-0"]));
        let claim = after(&SETUP, &["XCLAIM jobs workers bob 0 1-0"]);
        assert_eq!((claim.claimed, claim.delivered), (set(&["jobs/workers/1-0"]), HashSet::new()));
        let ack = after(&SETUP, &["XACK jobs workers 1-0 3-0"]);
        let acked: Vec<(String, Vec<String>)> = {
            let mut lanes: Vec<_> =
                ack.acked.iter().map(|(k, v)| (k.clone(), v.iter().map(|p| p.id.clone()).collect())).collect();
            lanes.sort();
            lanes
        };
        assert_eq!(
            acked,
            vec![("jobs/workers/alice".into(), vec!["1-0".into()]), ("jobs/workers/bob".into(), vec!["3-0".into()])]
        );
        let del = after(&SETUP, &["XDEL jobs 2-0"]);
        assert_eq!(del.tombstoned, set(&["jobs/2-0"]));
        assert_eq!(del.orphaned, set(&["jobs/workers/2-0"]));
        assert!(del.acked.is_empty() && del.left.is_empty());
        let add = after(&SETUP, &["XADD jobs 4-0 type fax"]);
        assert_eq!(add.added, set(&["jobs/4-0"]));
    }

    #[test]
    fn trimmed_entries_leave_the_rail() {
        let mut lines: Vec<String> = vec!["CONFIG SET stream-node-max-entries 2".into()];
        lines.extend((1..=6).map(|i| format!("XADD s {i}-0 f v")));
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let trim = after(&lines, &["XTRIM s MAXLEN 2"]);
        let left: Vec<&str> = trim.left["s"].iter().flat_map(|n| n.entries.iter().map(|e| e.id.as_str())).collect();
        assert_eq!(left, vec!["1-0", "2-0", "3-0", "4-0"]);
        assert_eq!(trim.left["s"].len(), 2, "as the nodes they were in");
        // Undoing brings them back: they are added, not left.
        let mut p = Playground::new(&SessionSpec::default());
        for line in &lines {
            p.run(line);
        }
        p.run("XTRIM s MAXLEN 2");
        let trimmed = p.snapshot().clone();
        p.undo();
        assert!(motion(&trimmed, p.snapshot()).left.is_empty());
    }

    #[test]
    fn big_rails_do_not_count_collapsed_entries_as_gone() {
        let spec = SessionSpec { fill: Some(("big".into(), 5_000)), ..SessionSpec::default() };
        let mut p = Playground::new(&spec);
        let before = p.snapshot().clone();
        p.run("XADD big * n x");
        let moved = motion(&before, p.snapshot());
        assert!(moved.left.is_empty(), "{:?}", moved.left.keys());
        assert_eq!(moved.added.len(), 1);
        assert_eq!(id_order("10-2"), StreamId::new(10, 2));
        assert!(id_order("9-0") < id_order("10-0"));
    }
}
