//! What changed between two snapshots, in plain words: the timeline's "what this step did".

use streamlab_engine::SortedMap;

use crate::view::{ConnectionView, GroupView, RailItem, SnapshotView, StreamView};

/// A duration as the playground prints it: `350 ms`, `1.5 s`, `2 min 5 s`.
pub fn duration(ms: i64) -> String {
    if ms.abs() < 1_000 {
        format!("{ms} ms")
    } else if ms.abs() < 60_000 {
        // Whole milliseconds as seconds with up to three decimals, in integers: float
        // formatting would pull std's float printer into the wasm for this one line.
        let sign = if ms < 0 { "-" } else { "" };
        let (s, frac) = (ms.unsigned_abs() / 1000, ms.unsigned_abs() % 1000);
        let frac = format!("{frac:03}");
        let frac = frac.trim_end_matches('0');
        if frac.is_empty() {
            format!("{sign}{s} s")
        } else {
            format!("{sign}{s}.{frac} s")
        }
    } else {
        let (m, s) = (ms / 60_000, (ms % 60_000) / 1000);
        if s == 0 {
            format!("{m} min")
        } else {
            format!("{m} min {s} s")
        }
    }
}

/// A count and its noun, with an `s` unless the count is 1: `1 step`, `3 steps` (the app's
/// nouns all take a plain `s`).
pub fn plural(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// A count Redis may not know, as it prints one: the number, or `nil`.
pub fn or_nil<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "nil".to_owned(), |v| v.to_string())
}

/// The changes from `before` to `after`, one sentence each, in a stable order: the clock,
/// then each stream (entries, then groups and their consumers), then connections.
pub fn changes(before: &SnapshotView, after: &SnapshotView) -> Vec<String> {
    let mut out = Vec::new();
    if after.now != before.now {
        out.push(format!("clock +{}", duration(after.now - before.now)));
    }
    let old = SortedMap::from_pairs(before.streams.iter().map(|s| (s.key.as_str(), s)).collect());
    let new = SortedMap::from_pairs(after.streams.iter().map(|s| (s.key.as_str(), s)).collect());
    for (&key, &stream) in &new {
        match old.get(key) {
            None => {
                out.push(format!("stream {key} created"));
                stream_changes(&empty_like(stream), stream, &mut out);
            }
            Some(was) => stream_changes(was, stream, &mut out),
        }
    }
    for key in old.keys().filter(|key| !new.contains_key(**key)) {
        out.push(format!("stream {key} removed"));
    }
    let old_keys: Vec<&str> = before.other_keys.iter().map(|k| k.key.as_str()).collect();
    for key in &after.other_keys {
        match before.other_keys.iter().find(|k| k.key == key.key) {
            None => out.push(format!("key {} set to {}", key.key, key.value)),
            Some(was) if was.value != key.value => out.push(format!("key {} set to {}", key.key, key.value)),
            _ => {}
        }
    }
    for key in old_keys.iter().filter(|k| !after.other_keys.iter().any(|n| n.key == **k)) {
        out.push(format!("key {key} removed"));
    }
    for conn in &after.connections {
        match before.connections.iter().find(|c| c.name == conn.name) {
            None => out.push(format!("connection {} opened", conn.name)),
            Some(was) => connection_changes(was, conn, &mut out),
        }
    }
    out
}

fn empty_like(stream: &StreamView) -> StreamView {
    StreamView {
        key: stream.key.clone(),
        length: 0,
        first_id: "0-0".into(),
        last_id: "0-0".into(),
        max_deleted_id: "0-0".into(),
        entries_added: 0,
        tombstones: 0,
        removed: 0,
        node_count: 0,
        rail: Vec::new(),
        groups: Vec::new(),
    }
}

/// The ids of the tombstones drawn on a stream's rail. Loops here and below, not adapter
/// chains collected: each chain is its own iterator code in the wasm app.
fn dead_ids(stream: &StreamView) -> Vec<&str> {
    let mut dead = Vec::new();
    for item in &stream.rail {
        if let RailItem::Node(node) = item {
            for entry in &node.entries {
                if entry.deleted {
                    dead.push(entry.id.as_str());
                }
            }
        }
    }
    dead
}

fn stream_changes(was: &StreamView, now: &StreamView, out: &mut Vec<String>) {
    let key = &now.key;
    let added = now.entries_added.saturating_sub(was.entries_added);
    if added == 1 {
        out.push(format!("{key}: entry {} added", now.last_id));
    } else if added > 1 {
        out.push(format!("{key}: {} added, up to {}", plural(added, "entry"), now.last_id));
    }
    if now.tombstones > was.tombstones || now.max_deleted_id != was.max_deleted_id {
        let old_dead = dead_ids(was);
        let mut new_dead = dead_ids(now);
        new_dead.retain(|id| !old_dead.contains(id));
        if new_dead.is_empty() {
            out.push(format!(
                "{key}: entries deleted, max-deleted-entry-id {} → {}",
                was.max_deleted_id, now.max_deleted_id
            ));
        }
        for id in new_dead {
            out.push(format!("{key}: entry {id} deleted (left as a tombstone in its node)"));
        }
    }
    let live_gone = (was.length + added).saturating_sub(now.length);
    if live_gone > 0 && now.max_deleted_id == was.max_deleted_id {
        out.push(format!(
            "{key}: trimmed {}, first id {} → {}",
            plural(live_gone, "entry"),
            was.first_id,
            now.first_id
        ));
    }
    let freed = was.tombstones.saturating_sub(now.tombstones);
    if freed > 0 {
        out.push(format!("{key}: {} freed with their node", plural(freed, "tombstone")));
    }
    if now.last_id != was.last_id && added == 0 {
        out.push(format!("{key}: last-generated-id {} → {}", was.last_id, now.last_id));
    }
    for group in &now.groups {
        match was.groups.iter().find(|g| g.name == group.name) {
            None => {
                out.push(format!("group {} created at {}", group.name, group.last_delivered_id));
                group_changes(&GroupView { consumers: Vec::new(), ..group.clone() }, group, out);
            }
            Some(old) => group_changes(old, group, out),
        }
    }
    for group in was.groups.iter().filter(|g| !now.groups.iter().any(|n| n.name == g.name)) {
        out.push(format!("group {} destroyed", group.name));
    }
}

fn group_changes(was: &GroupView, now: &GroupView, out: &mut Vec<String>) {
    let name = &now.name;
    if was.last_delivered_id != now.last_delivered_id {
        out.push(format!("{name} last-delivered-id {} → {}", was.last_delivered_id, now.last_delivered_id));
    }
    if was.entries_read != now.entries_read {
        out.push(format!("{name} entries-read {} → {}", or_nil(was.entries_read), or_nil(now.entries_read)));
    }
    if was.lag != now.lag {
        out.push(format!("{name} lag {} → {}", or_nil(was.lag), or_nil(now.lag)));
    }
    // Where every listed pending id lives, before and after.
    fn owners(g: &GroupView) -> SortedMap<&str, (&str, u64, bool)> {
        let mut pairs = Vec::new();
        for c in &g.consumers {
            for p in &c.pending {
                pairs.push((p.id.as_str(), (c.name.as_str(), p.delivery_count, p.deleted)));
            }
        }
        SortedMap::from_pairs(pairs)
    }
    let (before, after) = (owners(was), owners(now));
    for consumer in &now.consumers {
        let old = was.consumers.iter().find(|c| c.name == consumer.name);
        if old.is_none() {
            out.push(format!("{name}: consumer {} created", consumer.name));
        }
        let old_count = old.map_or(0, |c| c.pending_count);
        // The entries it gained from another consumer.
        let mut claimed = Vec::new();
        for p in &consumer.pending {
            if let Some((owner, _, _)) = before.get(p.id.as_str()) {
                if *owner != consumer.name {
                    claimed.push(format!("{} from {owner}", p.id));
                }
            }
        }
        if consumer.pending_count > old_count {
            out.push(format!("{name} PEL +{} ({})", consumer.pending_count - old_count, consumer.name));
        } else if consumer.pending_count < old_count {
            out.push(format!("{name} PEL −{} ({})", old_count - consumer.pending_count, consumer.name));
        }
        if !claimed.is_empty() {
            out.push(format!("{name}: {} claimed {}", consumer.name, claimed.join(", ")));
        }
        for pending in &consumer.pending {
            if let Some((owner, count, deleted)) = before.get(pending.id.as_str()) {
                if *owner == consumer.name && pending.delivery_count > *count {
                    out.push(format!(
                        "{name}: {} delivered again to {} (×{})",
                        pending.id, consumer.name, pending.delivery_count
                    ));
                }
                if pending.deleted && !deleted {
                    out.push(format!("entry {} deleted while pending in {name} ({})", pending.id, consumer.name));
                }
            }
        }
    }
    for consumer in was.consumers.iter().filter(|c| !now.consumers.iter().any(|n| n.name == c.name)) {
        out.push(format!("{name}: consumer {} deleted with {} pending", consumer.name, consumer.pending_count));
    }
    let acked: Vec<&str> = before
        .keys()
        .copied()
        .filter(|id| !after.contains_key(*id) && now.consumers.iter().all(|c| c.pending.len() == c.pending_count))
        .collect();
    if !acked.is_empty() && now.pending < was.pending {
        out.push(format!("{name}: {} left the PEL", acked.join(", ")));
    }
}

fn connection_changes(was: &ConnectionView, now: &ConnectionView, out: &mut Vec<String>) {
    let name = &now.name;
    match (&was.blocked, &now.blocked) {
        (None, Some(block)) => out.push(format!("{name} waits: {}", block.command)),
        (Some(_), None) => out.push(format!("{name}'s blocked read was answered")),
        _ => {}
    }
    match (was.multi, now.multi) {
        (None, Some(_)) => out.push(format!("{name} opened a transaction (MULTI)")),
        (Some(_), None) => out.push(format!("{name}'s transaction ended")),
        (Some(a), Some(b)) if b > a => out.push(format!("{name} queued a command ({b} queued)")),
        _ => {}
    }
    for channel in now.channels.iter().filter(|c| !was.channels.contains(c)) {
        out.push(format!("{name} subscribed to {channel}"));
    }
    for channel in was.channels.iter().filter(|c| !now.channels.contains(c)) {
        out.push(format!("{name} unsubscribed from {channel}"));
    }
    for pattern in now.patterns.iter().filter(|c| !was.patterns.contains(c)) {
        out.push(format!("{name} subscribed to pattern {pattern}"));
    }
    for pattern in was.patterns.iter().filter(|c| !now.patterns.contains(c)) {
        out.push(format!("{name} unsubscribed from pattern {pattern}"));
    }
    let received = now.messages.iter().filter(|m| !was.messages.contains(m)).count();
    if received > 0 {
        out.push(format!("{name} received {}", plural(received as u64, "message")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::{snapshot, Opened};
    use streamlab_protocol::{Clock, Console, Session};

    fn steps(lines: &[&str]) -> Vec<Vec<String>> {
        let mut console = Console::with_connections(Session::new(Clock::Virtual(0)), &["alice", "bob"]);
        let mut before = snapshot(&console, &Opened::default());
        lines
            .iter()
            .map(|line| {
                console.run(line);
                let after = snapshot(&console, &Opened::default());
                let changed = changes(&before, &after);
                before = after;
                changed
            })
            .collect()
    }

    #[test]
    fn reads_claims_acks_and_deletes_are_told_in_words() {
        let s = steps(&[
            "XGROUP CREATE jobs workers 0 MKSTREAM",
            "XADD jobs 1-0 f v",
            "XADD jobs 2-0 f v",
            "XREADGROUP GROUP workers alice STREAMS jobs >",
            ":clock +2s",
            "XCLAIM jobs workers bob 1000 2-0",
            "XACK jobs workers 1-0",
            "XDEL jobs 2-0",
            "XTRIM jobs MAXLEN 0",
        ]);
        assert_eq!(s[0], vec!["stream jobs created", "group workers created at 0-0"]);
        assert_eq!(s[1], vec!["jobs: entry 1-0 added", "workers lag 0 → 1"]);
        assert_eq!(
            s[3],
            vec![
                "workers last-delivered-id 0-0 → 2-0",
                "workers entries-read nil → 2",
                "workers lag 2 → 0",
                "workers: consumer alice created",
                "workers PEL +2 (alice)"
            ]
        );
        assert_eq!(s[4], vec!["clock +2 s"]);
        assert_eq!(
            s[5],
            vec![
                "workers PEL −1 (alice)",
                "workers: consumer bob created",
                "workers PEL +1 (bob)",
                "workers: bob claimed 2-0 from alice"
            ]
        );
        assert_eq!(s[6], vec!["workers PEL −1 (alice)", "workers: 1-0 left the PEL"]);
        assert!(s[7].contains(&"entry 2-0 deleted while pending in workers (bob)".to_owned()), "{:?}", s[7]);
        assert!(s[7].contains(&"jobs: entry 2-0 deleted (left as a tombstone in its node)".to_owned()), "{:?}", s[7]);
        assert_eq!(s[8], vec!["jobs: trimmed 1 entry, first id 1-0 → 0-0", "jobs: 1 tombstone freed with their node"]);
    }

    #[test]
    fn connections_are_told_too() {
        let s = steps(&[":as bob", "XREAD BLOCK 0 STREAMS s $", ":as alice", "XADD s 1-0 f v", "MULTI"]);
        assert_eq!(s[1], vec!["bob waits: XREAD BLOCK 0 STREAMS s 0-0"]);
        assert!(s[3].contains(&"bob's blocked read was answered".to_owned()), "{:?}", s[3]);
        assert_eq!(s[4], vec!["alice opened a transaction (MULTI)"]);
        assert_eq!(duration(61_000), "1 min 1 s");
        assert_eq!(duration(1_500), "1.5 s");
        assert_eq!(duration(1_000), "1 s");
        assert_eq!(duration(1_050), "1.05 s");
        assert_eq!(duration(59_999), "59.999 s");
        assert_eq!(duration(-2_250), "-2.25 s");
        assert_eq!(duration(-999), "-999 ms");
    }
}
