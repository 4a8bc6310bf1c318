//! View DTOs: a snapshot of everything the playground draws, as plain serializable data.
//!
//! The pictures and tables are pure functions of a [`SnapshotView`]. Building one reads the
//! engine and the session; nothing here changes them. Big streams stay cheap: the rail holds
//! the entries of at most [`RAIL_BUDGET`] entries' worth of nodes (the tail, the nodes that
//! hold group cursors and pending entries, the head), and collapses every other run of nodes
//! into a block with counts. A learner can open a block a page at a time ([`Opened`]); opened
//! nodes are drawn on top of the budget, up to [`OPEN_CAP`] entries per stream. Pending lists
//! are capped per consumer the same way.

use serde::Serialize;
use streamlab_engine::{Group, Node, SortedMap, SortedSet, Stream, StreamId, Value};
use streamlab_protocol::{console::command_line, Console, Reply};

/// At most this many entries are drawn on one stream's rail; other nodes collapse.
pub const RAIL_BUDGET: u64 = 300;

/// Opening a collapsed block draws its first nodes, up to this many entries (at least one node).
pub const OPEN_PAGE: u64 = 300;

/// At most this many opened entries are drawn per stream; opening more closes the oldest
/// opening first, so the page stays as cheap to redraw as the budget meant.
pub const OPEN_CAP: u64 = 1_500;

/// At most this many pending entries are listed per consumer (the count is always exact).
pub const PENDING_CAP: usize = 200;

/// At most this many received Pub/Sub messages are kept per connection.
pub const MESSAGES_KEPT: usize = 20;

/// How many of the latest applied steps are searched for those messages: every redraw
/// searches, so it must not cost more as the history grows.
pub const MESSAGES_SEARCHED: usize = 10_000;

/// Everything the pictures show, at one step of the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnapshotView {
    /// The engine clock (Unix ms).
    pub now: i64,
    /// How many steps are applied.
    pub position: usize,
    /// How many steps are recorded (more than `position` after an undo).
    pub steps: usize,
    /// The connection the console types into.
    pub current: String,
    /// The named connections, in the order they were opened.
    pub connections: Vec<ConnectionView>,
    /// Every stream, by key.
    pub streams: Vec<StreamView>,
    /// Keys that are not streams.
    pub other_keys: Vec<KeyView>,
    /// Pub/Sub channels and patterns with their subscribers.
    pub channels: Vec<ChannelView>,
}

/// One client connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConnectionView {
    /// The console name.
    pub name: String,
    /// CLIENT ID.
    pub id: u64,
    /// Commands queued by an open MULTI (`None`: no MULTI).
    pub multi: Option<usize>,
    /// The read it is blocked on.
    pub blocked: Option<BlockedView>,
    /// Channels subscribed to.
    pub channels: Vec<String>,
    /// Patterns subscribed to.
    pub patterns: Vec<String>,
    /// The last Pub/Sub messages it received, oldest first.
    pub messages: Vec<MessageView>,
}

/// A blocked read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockedView {
    /// The command, as a console line.
    pub command: String,
    /// When it times out (Unix ms); `None` waits forever.
    pub deadline: Option<i64>,
}

/// A Pub/Sub message as received.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MessageView {
    /// The step that delivered it (1-based position).
    pub step: usize,
    /// The channel.
    pub channel: String,
    /// The pattern that matched, for PSUBSCRIBE.
    pub pattern: Option<String>,
    /// The payload.
    pub payload: String,
}

/// A channel or pattern and who listens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChannelView {
    /// The channel name or pattern.
    pub name: String,
    /// Whether it is a pattern.
    pub pattern: bool,
    /// Subscribed connections, by name.
    pub subscribers: Vec<String>,
}

/// A key that is not a stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyView {
    /// The key.
    pub key: String,
    /// Its type, as TYPE names it.
    pub kind: String,
    /// Its value, quoted as redis-cli shows it.
    pub value: String,
    /// When it expires (Unix ms).
    pub expires: Option<i64>,
}

/// A stream with its metadata, rail and groups.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StreamView {
    /// The key.
    pub key: String,
    /// Live entries.
    pub length: u64,
    /// `recorded-first-entry-id`.
    pub first_id: String,
    /// `last-generated-id`.
    pub last_id: String,
    /// `max-deleted-entry-id`.
    pub max_deleted_id: String,
    /// `entries-added`.
    pub entries_added: u64,
    /// Tombstones still taking room in nodes.
    pub tombstones: u64,
    /// Entries gone for good (trimmed, or deleted with their node): added − live − tombstones.
    pub removed: u64,
    /// Nodes.
    pub node_count: usize,
    /// The rail, head to tail.
    pub rail: Vec<RailItem>,
    /// The groups, by name.
    pub groups: Vec<GroupView>,
}

/// A piece of the rail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RailItem {
    /// A node drawn entry by entry.
    Node(NodeView),
    /// A run of nodes drawn as one block.
    Collapsed(CollapsedView),
}

/// A node drawn entry by entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NodeView {
    /// The node's master id.
    pub master_id: String,
    /// Drawn because the learner opened the block it was in (it can be closed again).
    pub opened: bool,
    /// Live entries.
    pub live: u32,
    /// Tombstones.
    pub deleted: u32,
    /// Its entries, tombstones included.
    pub entries: Vec<EntryView>,
}

/// A run of nodes shown only as counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CollapsedView {
    /// Nodes in the run.
    pub nodes: usize,
    /// The first node's master id.
    pub first_id: String,
    /// The last id in the run.
    pub last_id: String,
    /// Live entries in the run.
    pub live: u64,
    /// Tombstones in the run.
    pub deleted: u64,
}

/// One entry on the rail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryView {
    /// Its id.
    pub id: String,
    /// A tombstone.
    pub deleted: bool,
    /// Its fields (empty for a tombstone).
    pub fields: Vec<(String, String)>,
    /// Groups whose cursor (last-delivered-id) is this id.
    pub cursors: Vec<String>,
    /// Groups in whose PEL the id is.
    pub pending_in: Vec<String>,
    /// Groups whose cursor is before the id: it is not yet delivered to them (the span their
    /// lag counts).
    pub unread_by: Vec<String>,
}

/// A consumer group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroupView {
    /// Its name.
    pub name: String,
    /// `last-delivered-id`.
    pub last_delivered_id: String,
    /// `entries-read`, when known.
    pub entries_read: Option<u64>,
    /// `lag`, when it can be known.
    pub lag: Option<i64>,
    /// Why the lag is nil, in plain words.
    pub lag_reason: Option<String>,
    /// Entries in the PEL.
    pub pending: usize,
    /// The consumers, by name.
    pub consumers: Vec<ConsumerView>,
}

/// A consumer and the entries it owns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConsumerView {
    /// Its name.
    pub name: String,
    /// Milliseconds since it last read or claimed (XINFO's `seen-time`, as idle).
    pub seen_ago: i64,
    /// Milliseconds since a read or claim last gave it an entry.
    pub active_ago: Option<i64>,
    /// How many entries it owns.
    pub pending_count: usize,
    /// The first [`PENDING_CAP`] of them.
    pub pending: Vec<PendingView>,
}

/// A pending entry: a card in a consumer's lane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingView {
    /// The entry id.
    pub id: String,
    /// Times delivered.
    pub delivery_count: u64,
    /// Milliseconds since its last delivery.
    pub idle: i64,
    /// The entry itself is gone from the stream (deleted or trimmed while pending).
    pub deleted: bool,
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Channel names or patterns as text, in order.
fn texts(names: &SortedSet<Vec<u8>>) -> Vec<String> {
    let mut out = Vec::new();
    for name in names.iter() {
        out.push(text(name));
    }
    out
}

/// The nodes learners opened on big streams' rails: per stream key, master ids in the order
/// they were opened. A view setting, not session state: undo and time travel keep it, and ids
/// whose nodes are gone are simply not drawn.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Opened(SortedMap<Vec<u8>, Vec<StreamId>>);

impl Opened {
    fn of(&self, key: &[u8]) -> &[StreamId] {
        self.0.get(key).map_or(&[], Vec::as_slice)
    }

    /// Opens the collapsed block of `stream` (under `key`) that starts with the node
    /// `first_id` and spans `nodes` nodes: its first [`OPEN_PAGE`] entries' worth of nodes.
    /// The rest of the block stays collapsed, and opens the same way.
    pub fn open(&mut self, key: &[u8], stream: &Stream, first_id: StreamId, nodes: usize) {
        let mut page = Vec::new();
        let mut entries = 0;
        for node in stream.nodes().range(first_id..).map(|(_, n)| n).take(nodes) {
            if !page.is_empty() && entries + node.members() > OPEN_PAGE {
                break;
            }
            entries += node.members();
            page.push(node.master_id);
        }
        let (_, opened) = self.0.get_or_insert_with(key, Vec::new);
        opened.retain(|id| !page.contains(id));
        opened.extend(page);
        // Keep within the cap, closing the oldest openings first.
        let size = |id: &StreamId| stream.nodes().get(id).map_or(0, |n| n.members());
        let mut total: u64 = opened.iter().map(size).sum();
        while total > OPEN_CAP && opened.len() > 1 {
            total -= size(&opened.remove(0));
        }
    }

    /// Closes opened nodes again.
    pub fn close(&mut self, key: &[u8], ids: &[StreamId]) {
        if let Some(opened) = self.0.get_mut(key) {
            opened.retain(|id| !ids.contains(id));
            if opened.is_empty() {
                self.0.remove(key);
            }
        }
    }
}

/// The snapshot of a console at its current step, with the blocks learners opened.
pub fn snapshot(console: &Console, opened: &Opened) -> SnapshotView {
    let session = console.session();
    let now = session.now();
    let db = session.keyspace();
    let mut streams = Vec::new();
    let mut other_keys = Vec::new();
    for (key, value) in db.iter() {
        match value {
            Value::Stream(stream) => streams.push(stream_view(key, stream, now, opened.of(key))),
            Value::String(bytes) => other_keys.push(KeyView {
                key: text(key),
                kind: "string".into(),
                value: streamlab_protocol::quote_bytes(bytes),
                expires: db.expiry(key),
            }),
        }
    }
    // Loops, not `filter_map`/`map` chains collected: each chain is its own iterator code in
    // the wasm app.
    let mut connections = Vec::new();
    for (name, id) in console.connections() {
        // A name whose connection is not open (its first command opens it) has a tab all the same.
        let conn = session.conn(id);
        connections.push(ConnectionView {
            name: name.to_owned(),
            id,
            multi: conn.filter(|c| c.in_multi()).map(|c| c.queued()),
            blocked: conn
                .and_then(|c| c.blocked())
                .map(|block| BlockedView { command: command_line(&block.args), deadline: block.deadline }),
            channels: conn.map(|c| texts(c.channels())).unwrap_or_default(),
            patterns: conn.map(|c| texts(c.patterns())).unwrap_or_default(),
            messages: messages(console, id),
        });
    }
    let mut channels: Vec<ChannelView> = Vec::new();
    for conn in &connections {
        for (names, pattern) in [(&conn.channels, false), (&conn.patterns, true)] {
            for name in names {
                match channels.iter_mut().find(|c| &c.name == name && c.pattern == pattern) {
                    Some(channel) => channel.subscribers.push(conn.name.clone()),
                    None => {
                        channels.push(ChannelView { name: name.clone(), pattern, subscribers: vec![conn.name.clone()] })
                    }
                }
            }
        }
    }
    streamlab_engine::sort::sort_by(&mut channels, |a, b| (a.pattern, &a.name).cmp(&(b.pattern, &b.name)));
    SnapshotView {
        now,
        position: console.timeline().position(),
        steps: console.timeline().records().len(),
        current: console.current().to_owned(),
        connections,
        streams,
        other_keys,
        channels,
    }
}

/// The last Pub/Sub messages a connection received, from the latest [`MESSAGES_SEARCHED`]
/// applied steps.
fn messages(console: &Console, conn: u64) -> Vec<MessageView> {
    let timeline = console.timeline();
    let mut kept = Vec::new();
    let from = timeline.position().saturating_sub(MESSAGES_SEARCHED);
    let searched = timeline.records().get(from..timeline.position()).unwrap_or_default();
    for (index, record) in searched.iter().enumerate().rev() {
        let index = from + index;
        for delivery in record.output.deliveries.iter().rev().filter(|d| d.conn == conn) {
            let (Reply::Array(items) | Reply::Push(items)) = &delivery.reply else { continue };
            let bulk = |i: usize| match items.get(i) {
                Some(Reply::Bulk(b)) => Some(text(b)),
                _ => None,
            };
            let message = match (bulk(0).as_deref(), items.len()) {
                (Some("message"), 3) => bulk(1).zip(bulk(2)).map(|(channel, payload)| (channel, None, payload)),
                (Some("pmessage"), 4) => bulk(2).zip(bulk(3)).map(|(channel, payload)| (channel, bulk(1), payload)),
                _ => None,
            };
            if let Some((channel, pattern, payload)) = message {
                kept.push(MessageView { step: index + 1, channel, pattern, payload });
                if kept.len() == MESSAGES_KEPT {
                    kept.reverse();
                    return kept;
                }
            }
        }
    }
    kept.reverse();
    kept
}

fn stream_view(key: &[u8], stream: &Stream, now: i64, opened: &[StreamId]) -> StreamView {
    let mut groups = Vec::new();
    for (name, group) in stream.groups().iter() {
        groups.push(group_view(name, group, stream, now));
    }
    let tombstones: u64 = stream.nodes().values().map(|n| u64::from(n.deleted)).sum();
    StreamView {
        key: text(key),
        length: stream.len(),
        first_id: stream.first_id().to_string(),
        last_id: stream.last_id().to_string(),
        max_deleted_id: stream.max_deleted_id().to_string(),
        entries_added: stream.entries_added(),
        tombstones,
        removed: stream.entries_added().saturating_sub(stream.len() + tombstones),
        node_count: stream.nodes().len(),
        rail: rail(stream, opened),
        groups,
    }
}

/// How a node is drawn on the rail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Draw {
    /// Counted in a collapsed block.
    Collapsed,
    /// Entry by entry, within the budget.
    Drawn,
    /// Entry by entry, because the learner opened it.
    Opened,
}

/// How to draw each node: everything when it fits the budget; otherwise the opened nodes,
/// then the tail, the nodes holding group cursors and the first and last pending entries,
/// then the head, as long as the budget lasts.
fn expanded_nodes(stream: &Stream, opened: &[StreamId]) -> Vec<Draw> {
    // Loops, not adapter chains: each chain is its own iterator code in the wasm bundles.
    let mut nodes: Vec<&Node> = Vec::new();
    let mut total = 0;
    for node in stream.nodes().values() {
        nodes.push(node);
        total += node.members();
    }
    if total <= RAIL_BUDGET {
        return vec![Draw::Drawn; nodes.len()];
    }
    let node_of = |id: StreamId| nodes.partition_point(|n| n.master_id <= id).checked_sub(1);
    let mut wanted: Vec<usize> = Vec::new();
    wanted.extend((0..nodes.len()).rev().take(2));
    for group in stream.groups().values() {
        wanted.extend(node_of(group.last_id));
        let pel = group.pel();
        wanted.extend(pel.keys().take(3).filter_map(|&id| node_of(id)));
        wanted.extend(pel.keys().rev().take(3).filter_map(|&id| node_of(id)));
    }
    wanted.push(0);
    // Each opened id is looked up by bisection: a stream can have thousands of nodes and
    // an opening up to `OPEN_CAP` small ones.
    let mut draw = vec![Draw::Collapsed; nodes.len()];
    for &id in opened {
        if let Some(index) = node_of(id).filter(|&i| nodes[i].master_id == id) {
            draw[index] = Draw::Opened;
        }
    }
    let mut used = 0;
    for index in wanted {
        if draw[index] == Draw::Collapsed && used + nodes[index].members() <= RAIL_BUDGET {
            draw[index] = Draw::Drawn;
            used += nodes[index].members();
        }
    }
    draw
}

fn rail(stream: &Stream, opened: &[StreamId]) -> Vec<RailItem> {
    let draw = expanded_nodes(stream, opened);
    let mut items: Vec<RailItem> = Vec::new();
    for (node, draw) in stream.nodes().values().zip(draw) {
        if draw != Draw::Collapsed {
            items.push(RailItem::Node(node_view(node, stream, draw == Draw::Opened)));
            continue;
        }
        match items.last_mut() {
            Some(RailItem::Collapsed(run)) => {
                run.nodes += 1;
                run.last_id = node.last_id.to_string();
                run.live += u64::from(node.live);
                run.deleted += u64::from(node.deleted);
            }
            _ => items.push(RailItem::Collapsed(CollapsedView {
                nodes: 1,
                first_id: node.master_id.to_string(),
                last_id: node.last_id.to_string(),
                live: u64::from(node.live),
                deleted: u64::from(node.deleted),
            })),
        }
    }
    items
}

fn node_view(node: &Node, stream: &Stream, opened: bool) -> NodeView {
    // Loops, not adapter chains collected: each chain is its own iterator code in the wasm.
    let mut entries = Vec::new();
    for raw in node.walk() {
        let mut fields = Vec::new();
        if !raw.deleted {
            for (f, v) in node.fields(&raw) {
                fields.push((text(&f), text(&v)));
            }
        }
        let (mut cursors, mut pending_in, mut unread_by) = (Vec::new(), Vec::new(), Vec::new());
        for (name, group) in stream.groups().iter() {
            if group.last_id == raw.id {
                cursors.push(text(name));
            }
            if group.pel().contains_key(&raw.id) {
                pending_in.push(text(name));
            }
            if raw.id > group.last_id {
                unread_by.push(text(name));
            }
        }
        entries.push(EntryView {
            id: raw.id.to_string(),
            deleted: raw.deleted,
            fields,
            cursors,
            pending_in,
            unread_by,
        });
    }
    NodeView { master_id: node.master_id.to_string(), opened, live: node.live, deleted: node.deleted, entries }
}

/// Why Redis answers a nil lag for this group, in plain words.
fn lag_reason(group: &Group, stream: &Stream) -> String {
    let max_deleted = stream.max_deleted_id();
    if !max_deleted.is_zero() && group.last_id <= max_deleted {
        format!(
            "An entry at or after this group's last-delivered-id ({}) was deleted (max-deleted-entry-id {}), so \
             Redis cannot count how many of the remaining entries the group has read without scanning.",
            group.last_id, max_deleted
        )
    } else if group.entries_read.is_none() {
        "entries-read is unknown: the group was placed with XGROUP CREATE or SETID at an id Redis could not count \
         to, and it has not yet read to the end of the stream."
            .to_owned()
    } else {
        "The group's position cannot be turned into a count of unread entries.".to_owned()
    }
}

fn group_view(name: &[u8], group: &Group, stream: &Stream, now: i64) -> GroupView {
    let lag = stream.lag(group);
    let mut consumers = Vec::new();
    for (consumer_name, consumer) in group.consumers().iter() {
        let mut pending = Vec::new();
        for &id in consumer.pending().iter().take(PENDING_CAP) {
            let record = &group.pel()[&id];
            pending.push(PendingView {
                id: id.to_string(),
                delivery_count: record.delivery_count,
                idle: now - record.delivery_time,
                deleted: !stream.contains(id),
            });
        }
        consumers.push(ConsumerView {
            name: text(consumer_name),
            seen_ago: now - consumer.seen_time,
            active_ago: consumer.active_time.map(|t| now - t),
            pending_count: consumer.pending().len(),
            pending,
        });
    }
    GroupView {
        name: text(name),
        last_delivered_id: group.last_id.to_string(),
        entries_read: group.entries_read,
        lag,
        lag_reason: lag.is_none().then(|| lag_reason(group, stream)),
        pending: group.pel().len(),
        consumers,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamlab_protocol::{Clock, Session};

    fn console(lines: &[&str]) -> Console {
        let mut console = Console::with_connections(Session::new(Clock::Virtual(1_000)), &["alice", "bob"]);
        for line in lines {
            console.run(line);
        }
        console
    }

    #[test]
    fn snapshot_shows_rail_groups_and_pending_cards() {
        let c = console(&[
            "XGROUP CREATE jobs workers $ MKSTREAM",
            "XADD jobs 1-0 type email",
            "XADD jobs 2-0 type sms",
            "XADD jobs 3-0 type push",
            "XREADGROUP GROUP workers alice COUNT 2 STREAMS jobs >",
            ":clock +1500",
            "XDEL jobs 2-0",
        ]);
        let view = snapshot(&c, &Opened::default());
        assert_eq!(view.now, 2_500);
        let jobs = &view.streams[0];
        assert_eq!((jobs.length, jobs.entries_added, jobs.tombstones), (2, 3, 1));
        assert_eq!(
            (jobs.first_id.as_str(), jobs.last_id.as_str(), jobs.max_deleted_id.as_str()),
            ("1-0", "3-0", "2-0")
        );
        let RailItem::Node(node) = &jobs.rail[0] else { panic!("small streams are drawn whole") };
        let ids: Vec<(&str, bool)> = node.entries.iter().map(|e| (e.id.as_str(), e.deleted)).collect();
        assert_eq!(ids, vec![("1-0", false), ("2-0", true), ("3-0", false)]);
        assert_eq!(node.entries[0].fields, vec![("type".to_owned(), "email".to_owned())]);
        assert_eq!(node.entries[1].cursors, vec!["workers"]);
        assert_eq!(node.entries[1].pending_in, vec!["workers"]);
        assert!(node.entries[1].unread_by.is_empty());
        assert_eq!(node.entries[2].unread_by, vec!["workers"], "after the cursor: not yet delivered");
        let workers = &jobs.groups[0];
        assert_eq!((workers.last_delivered_id.as_str(), workers.entries_read, workers.lag), ("2-0", Some(2), None));
        assert!(workers.lag_reason.as_deref().unwrap().contains("max-deleted-entry-id 2-0"));
        let alice = &workers.consumers[0];
        assert_eq!(alice.name, "alice");
        assert_eq!(alice.pending_count, 2);
        assert_eq!(alice.pending[1], PendingView { id: "2-0".into(), delivery_count: 1, idle: 1_500, deleted: true });
        assert_eq!(alice.seen_ago, 1_500);
    }

    #[test]
    fn connections_show_blocks_multi_and_subscriptions() {
        let c = console(&[
            ":as bob",
            "XREAD BLOCK 5000 STREAMS s $",
            ":as carol",
            "SUBSCRIBE news",
            ":as alice",
            "MULTI",
            "PING",
        ]);
        let view = snapshot(&c, &Opened::default());
        let names: Vec<&str> = view.connections.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["alice", "bob", "carol"]);
        assert_eq!(view.connections[0].multi, Some(1));
        let blocked = view.connections[1].blocked.as_ref().unwrap();
        assert_eq!((blocked.command.as_str(), blocked.deadline), ("XREAD BLOCK 5000 STREAMS s 0-0", Some(6_000)));
        assert_eq!(
            view.channels,
            vec![ChannelView { name: "news".into(), pattern: false, subscribers: vec!["carol".into()] }]
        );
        let mut c = c;
        c.run("EXEC");
        c.run("PUBLISH news hello");
        let view = snapshot(&c, &Opened::default());
        assert_eq!(
            view.connections[2].messages,
            vec![MessageView { step: 6, channel: "news".into(), pattern: None, payload: "hello".into() }]
        );
    }

    #[test]
    fn big_streams_collapse_into_blocks() {
        let mut c = console(&["XGROUP CREATE big g 0 MKSTREAM"]);
        for i in 1..=5_000 {
            c.run(&format!("XADD big {i}-0 n {i}"));
        }
        c.run("XREADGROUP GROUP g alice COUNT 10 STREAMS big >");
        let view = snapshot(&c, &Opened::default());
        let big = &view.streams[0];
        let drawn: usize = big
            .rail
            .iter()
            .map(|item| match item {
                RailItem::Node(n) => n.entries.len(),
                RailItem::Collapsed(_) => 0,
            })
            .sum();
        assert!(drawn as u64 <= RAIL_BUDGET, "{drawn}");
        let collapsed: u64 = big
            .rail
            .iter()
            .map(|item| match item {
                RailItem::Collapsed(c) => c.live,
                RailItem::Node(n) => u64::from(n.live),
            })
            .sum();
        assert_eq!(collapsed, 5_000);
        // The tail and the node with the cursor and the pending entries are drawn.
        let RailItem::Node(last) = big.rail.last().unwrap() else { panic!("tail is drawn") };
        assert_eq!(last.entries.last().unwrap().id, "5000-0");
        let RailItem::Node(first) = &big.rail[0] else { panic!("cursor node is drawn") };
        assert_eq!(first.entries[9].cursors, vec!["g"]);
        assert!(big.rail.iter().any(|item| matches!(item, RailItem::Collapsed(c) if c.nodes > 1)));
    }

    #[test]
    fn snapshot_serializes_to_json() {
        let c = console(&["XADD s 1-0 f v"]);
        let json = serde_json::to_string(&snapshot(&c, &Opened::default())).unwrap();
        assert!(json.contains(r#""rail":[{"kind":"node","master_id":"1-0","opened":false"#), "{json}");
    }
}
