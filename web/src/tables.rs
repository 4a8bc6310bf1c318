//! The same facts as the pictures, as tables: the text mirror for screen readers and for
//! anyone who prefers rows.

use std::rc::Rc;

use streamlab_view::diff::{duration, or_nil};
use streamlab_view::view::{RailItem, SnapshotView};
use yew::prelude::*;

use crate::pictures::{count, lag_text};

#[derive(Properties, PartialEq)]
pub struct TablesProps {
    pub snapshot: Rc<SnapshotView>,
}

/// A table: its caption, column headings and rows. One function for the six tables, so their
/// markup is built by one copy of the code in the wasm rather than six expansions of `html!`.
fn table(caption: &'static str, columns: &[&'static str], rows: Html) -> Html {
    html! {
        <table>
            <caption>{caption}</caption>
            <thead><tr>{ for columns.iter().map(|&column| html! { <th scope="col">{column}</th> }) }</tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// A row's text cells; the one at `heading` heads the row (`<th scope="row">`).
fn cells(heading: usize, texts: Vec<String>) -> Html {
    texts
        .into_iter()
        .enumerate()
        .map(|(at, text)| {
            if at == heading {
                html! { <th scope="row">{text}</th> }
            } else {
                html! { <td>{text}</td> }
            }
        })
        .collect()
}

/// A row of text cells (see [`cells`]).
fn row(heading: usize, texts: Vec<String>) -> Html {
    html! { <tr>{cells(heading, texts)}</tr> }
}

#[component]
pub fn Tables(props: &TablesProps) -> Html {
    let s = &props.snapshot;
    let streams = s.streams.iter().map(|st| {
        let cells = cells(
            0,
            vec![
                st.key.clone(),
                count(st.length),
                st.first_id.clone(),
                st.last_id.clone(),
                st.max_deleted_id.clone(),
                count(st.entries_added),
                st.node_count.to_string(),
                st.tombstones.to_string(),
            ],
        );
        // Keyed by the stream, as the pictures are.
        html! { <tr key={st.key.clone()}>{cells}</tr> }
    });
    let entries = s.streams.iter().flat_map(|st| {
        st.rail.iter().flat_map(move |item| match item {
            RailItem::Node(node) => node
                .entries
                .iter()
                .map(|e| {
                    let fields = if e.deleted {
                        "deleted (tombstone)".to_owned()
                    } else {
                        e.fields.iter().map(|(f, v)| format!("{f}={v}")).collect::<Vec<_>>().join(" ")
                    };
                    let cells = vec![
                        st.key.clone(),
                        node.master_id.clone(),
                        e.id.clone(),
                        fields,
                        e.cursors.join(", "),
                        e.pending_in.join(", "),
                    ];
                    row(2, cells)
                })
                .collect::<Vec<_>>(),
            RailItem::Collapsed(block) => vec![row(
                2,
                vec![
                    st.key.clone(),
                    format!("{} nodes", block.nodes),
                    format!("{} … {}", block.first_id, block.last_id),
                    format!("{} entries, {} deleted (not listed)", count(block.live), block.deleted),
                    String::new(),
                    String::new(),
                ],
            )],
        })
    });
    let groups = s.streams.iter().flat_map(|st| {
        st.groups.iter().map(move |g| {
            let lag =
                format!("{}{}", lag_text(g), g.lag_reason.as_ref().map(|r| format!(" — {r}")).unwrap_or_default());
            let cells = vec![
                st.key.clone(),
                g.name.clone(),
                g.last_delivered_id.clone(),
                or_nil(g.entries_read),
                lag,
                g.pending.to_string(),
                g.consumers.len().to_string(),
            ];
            row(1, cells)
        })
    });
    let consumers = s.streams.iter().flat_map(|st| {
        st.groups.iter().flat_map(move |g| {
            g.consumers.iter().map(move |c| {
                let cells = vec![
                    st.key.clone(),
                    g.name.clone(),
                    c.name.clone(),
                    c.pending_count.to_string(),
                    duration(c.seen_ago),
                    c.active_ago.map_or_else(|| "never".to_owned(), duration),
                ];
                row(2, cells)
            })
        })
    });
    let pel = s.streams.iter().flat_map(|st| {
        st.groups.iter().flat_map(move |g| {
            g.consumers.iter().flat_map(move |c| {
                c.pending.iter().map(move |p| {
                    let cells = vec![
                        st.key.clone(),
                        g.name.clone(),
                        c.name.clone(),
                        p.id.clone(),
                        p.delivery_count.to_string(),
                        duration(p.idle),
                        (if p.deleted { "yes" } else { "no" }).to_owned(),
                    ];
                    row(3, cells)
                })
            })
        })
    });
    let connections = s.connections.iter().map(|c| {
        let subscriptions: Vec<String> =
            c.channels.iter().cloned().chain(c.patterns.iter().map(|p| format!("{p} (pattern)"))).collect();
        let cells = vec![
            format!("{}{}", c.name, if c.name == s.current { " (current)" } else { "" }),
            c.id.to_string(),
            c.multi.map_or_else(|| "no".to_owned(), |q| format!("open, {q} queued")),
            c.blocked.as_ref().map_or_else(
                || "no".to_owned(),
                |b| match b.deadline {
                    Some(d) => format!("{} (times out in {})", b.command, duration(d - s.now)),
                    None => format!("{} (no timeout)", b.command),
                },
            ),
            subscriptions.join(", "),
            c.messages.iter().map(|m| format!("{}: {}", m.channel, m.payload)).collect::<Vec<_>>().join("; "),
        ];
        row(0, cells)
    });
    html! {
        <div class="tables">
            {table("Streams", &["key", "length", "first id", "last id", "max-deleted-id", "entries-added", "nodes", "tombstones"], streams.collect())}
            {table("Entries (by node)", &["stream", "node", "id", "fields", "cursor of", "pending in"], entries.collect())}
            {table("Groups", &["stream", "group", "last-delivered-id", "entries-read", "lag", "pending", "consumers"], groups.collect())}
            {table("Consumers", &["stream", "group", "consumer", "pending", "seen ago", "active ago"], consumers.collect())}
            {table("Pending entries (PEL)", &["stream", "group", "consumer", "id", "deliveries", "idle", "entry gone"], pel.collect())}
            {table("Connections and Pub/Sub", &["connection", "id", "MULTI", "blocked read", "subscriptions", "messages received"], connections.collect())}
        </div>
    }
}
