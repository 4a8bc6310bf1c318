//! What the pictures say about themselves: the legend, the time an id's ms part names, and
//! the panel an entry opens with who holds it in each group.

use streamlab_view::diff::duration;
use streamlab_view::view::{GroupView, RailItem, StreamView};
use streamlab_view::Civil;
use yew::prelude::*;

use crate::motion::id_order;

/// A Unix time in ms as a UTC date-time, `2023-11-14 22:13:20.000 UTC` (any u64 of ms has one).
pub fn utc(ms: u64) -> String {
    // Days of a u64 of ms fit an i64 (about 2.1e11 of them).
    let c = Civil::from_day((ms / 86_400_000) as i64, (ms % 86_400_000) as i64);
    let (year, month, day, h, m, s, milli) = (c.year, c.month, c.day, c.hour, c.minute, c.second, c.milli);
    format!("{year:04}-{month:02}-{day:02} {h:02}:{m:02}:{s:02}.{milli:03} UTC")
}

/// Ids whose ms part is below this (early 1973) are not wall-clock readings: a lesson's
/// virtual clock started near 0, or an id typed by hand (`1-0`).
const SMALL: u64 = 100_000_000_000;

/// What an id's ms part means as a time: its UTC date-time; for a small id, also how far it
/// is from 1970, which is what such a clock counted.
pub fn id_time(id: &str) -> String {
    let ms = id_order(id).ms;
    let when = utc(ms);
    if ms < SMALL {
        format!("{when}: a small id, {} after 1970", duration(ms as i64))
    } else {
        when
    }
}

/// The legend: the three states of an entry for a group as swatches in its summary, every
/// other mark explained when opened. Fixed text of ours, so it is written as markup: as Yew
/// nodes it would cost the wasm several KB.
const LEGEND: &str = concat!(
    r#"<details class="legend"><summary>Legend: <span class="swatch acked">acknowledged</span>"#,
    r#"<span class="swatch pending">pending</span><span class="swatch unread">not yet delivered</span></summary><ul>"#,
    r#"<li><span class="swatch acked">1-0</span> behind the group's cursor, not pending: acknowledged (or read with NOACK, or skipped)</li>"#,
    r#"<li><span class="swatch pending">2-0</span> pending: delivered, not yet acknowledged (in the group's PEL)</li>"#,
    r#"<li><span class="swatch unread">3-0</span> not yet delivered: after a group's cursor, counted in its lag</li>"#,
    r#"<li><span class="swatch cursor">▲ name</span> a group's cursor, under its last-delivered-id</li>"#,
    r#"<li><span class="swatch deleted">4-0</span> a tombstone: deleted, its room kept until its node goes</li>"#,
    r#"<li><span class="swatch pel"><b>2-0</b> ×2 <span class="idle">5 s</span></span> a PEL card: ×N deliveries, then idle time since the last one</li>"#,
    r#"<li><span class="swatch pel gone">4-0</span> dashed: pending, but its entry was deleted or trimmed</li>"#,
    r#"</ul><p>Hover or focus a card for its details and its id's time; click it (or Enter) for who holds it.</p></details>"#,
);

/// The legend, as [`LEGEND`] says.
pub fn legend() -> Html {
    Html::from_html_unchecked(AttrValue::Static(LEGEND))
}

/// How `group` holds entry `id`, in words; `pending` says whether the entry, when drawn, is in
/// the group's PEL (which finds it when its consumer's cards stop short at the cap).
fn held(group: &GroupView, id: &str, pending: bool, now: i64) -> String {
    for consumer in &group.consumers {
        if let Some(p) = consumer.pending.iter().find(|p| p.id == id) {
            return format!(
                "pending for {}, delivered ×{}, idle {}, last delivered at {}{}",
                consumer.name,
                p.delivery_count,
                duration(p.idle),
                utc(u64::try_from(now - p.idle).unwrap_or(0)),
                if p.deleted { "; its entry is gone from the stream" } else { "" }
            );
        }
    }
    if pending {
        "pending, for a consumer whose cards stop short of it".to_owned()
    } else if id_order(id) > id_order(&group.last_delivered_id) {
        format!("not yet delivered: after its cursor {}", group.last_delivered_id)
    } else {
        format!(
            "acknowledged (or read with NOACK, or skipped): behind its cursor {}, not pending",
            group.last_delivered_id
        )
    }
}

/// Who holds entry `id` of `stream`, one line per group: acknowledged, pending (for whom, how
/// often delivered, how long idle) or not yet delivered. Redis keeps no log of deliveries, only
/// each pending entry's count and last delivery time, so that is what it tells.
pub fn holders(stream: &StreamView, id: &str, now: i64) -> String {
    let mut pending_in: &[String] = &[];
    for item in &stream.rail {
        if let RailItem::Node(node) = item {
            if let Some(entry) = node.entries.iter().find(|e| e.id == id) {
                pending_in = &entry.pending_in;
            }
        }
    }
    let mut text = format!("Entry {id}, {}", id_time(id));
    for group in &stream.groups {
        text.push_str(&format!("\n{}: {}", group.name, held(group, id, pending_in.contains(&group.name), now)));
    }
    text.push_str(if stream.groups.is_empty() {
        "\nNo group reads this stream."
    } else {
        "\nRedis keeps a pending entry's delivery count and last delivery, not each one: the timeline has those steps."
    });
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_as_utc_times() {
        assert_eq!(utc(1_700_000_000_000), "2023-11-14 22:13:20.000 UTC");
        assert_eq!(utc(0), "1970-01-01 00:00:00.000 UTC");
        assert_eq!(utc(951_782_400_000 + 86_399_999), "2000-02-29 23:59:59.999 UTC");
        assert_eq!(id_time("1700000000000-5"), "2023-11-14 22:13:20.000 UTC");
        assert_eq!(id_time("3301-0"), "1970-01-01 00:00:03.301 UTC: a small id, 3.301 s after 1970");
        // The largest id still has a date.
        assert_eq!(utc(u64::MAX), "584556019-04-03 14:25:51.615 UTC");
    }
}
