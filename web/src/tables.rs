//! The same facts as the pictures, as tables: the text mirror for screen readers and for
//! anyone who prefers rows.

use std::rc::Rc;

use streamlab_wasm::diff::{duration, or_nil};
use streamlab_wasm::view::{RailItem, SnapshotView};
use yew::prelude::*;

use crate::pictures::{count, lag_text};

#[derive(Properties, PartialEq)]
pub struct TablesProps {
    pub snapshot: Rc<SnapshotView>,
}

#[component]
pub fn Tables(props: &TablesProps) -> Html {
    let s = &props.snapshot;
    let streams = s.streams.iter().map(|st| {
        html! {
            <tr key={st.key.clone()}>
                <th scope="row">{&st.key}</th><td>{count(st.length)}</td><td>{&st.first_id}</td><td>{&st.last_id}</td>
                <td>{&st.max_deleted_id}</td><td>{count(st.entries_added)}</td><td>{st.node_count}</td><td>{st.tombstones}</td>
            </tr>
        }
    });
    let entries = s.streams.iter().flat_map(|st| {
        st.rail.iter().map(move |item| match item {
            RailItem::Node(node) => html! {
                { for node.entries.iter().map(|e| html! {
                    <tr>
                        <td>{&st.key}</td><td>{&node.master_id}</td><th scope="row">{&e.id}</th>
                        <td>{ if e.deleted { "deleted (tombstone)".to_owned() } else {
                            e.fields.iter().map(|(f, v)| format!("{f}={v}")).collect::<Vec<_>>().join(" ") } }</td>
                        <td>{e.cursors.join(", ")}</td><td>{e.pending_in.join(", ")}</td>
                    </tr>
                }) }
            },
            RailItem::Collapsed(block) => html! {
                <tr>
                    <td>{&st.key}</td><td>{format!("{} nodes", block.nodes)}</td>
                    <th scope="row">{format!("{} … {}", block.first_id, block.last_id)}</th>
                    <td>{format!("{} entries, {} deleted (not listed)", count(block.live), block.deleted)}</td><td></td><td></td>
                </tr>
            },
        })
    });
    let groups = s.streams.iter().flat_map(|st| {
        st.groups.iter().map(move |g| html! {
            <tr>
                <td>{&st.key}</td><th scope="row">{&g.name}</th><td>{&g.last_delivered_id}</td><td>{or_nil(g.entries_read)}</td>
                <td>{lag_text(g)}{ g.lag_reason.as_ref().map(|r| format!(" — {r}")).unwrap_or_default() }</td>
                <td>{g.pending}</td><td>{g.consumers.len()}</td>
            </tr>
        })
    });
    let consumers = s.streams.iter().flat_map(|st| {
        st.groups.iter().flat_map(move |g| {
            g.consumers.iter().map(move |c| html! {
                <tr>
                    <td>{&st.key}</td><td>{&g.name}</td><th scope="row">{&c.name}</th><td>{c.pending_count}</td>
                    <td>{duration(c.seen_ago)}</td><td>{c.active_ago.map_or_else(|| "never".to_owned(), duration)}</td>
                </tr>
            })
        })
    });
    let pel = s.streams.iter().flat_map(|st| {
        st.groups.iter().flat_map(move |g| {
            g.consumers.iter().flat_map(move |c| {
                c.pending.iter().map(move |p| html! {
                    <tr>
                        <td>{&st.key}</td><td>{&g.name}</td><td>{&c.name}</td><th scope="row">{&p.id}</th>
                        <td>{p.delivery_count}</td><td>{duration(p.idle)}</td><td>{if p.deleted { "yes" } else { "no" }}</td>
                    </tr>
                })
            })
        })
    });
    let connections = s.connections.iter().map(|c| {
        let subscriptions: Vec<String> =
            c.channels.iter().cloned().chain(c.patterns.iter().map(|p| format!("{p} (pattern)"))).collect();
        html! {
            <tr>
                <th scope="row">{&c.name}{if c.name == s.current { " (current)" } else { "" }}</th><td>{c.id}</td>
                <td>{c.multi.map_or_else(|| "no".to_owned(), |q| format!("open, {q} queued"))}</td>
                <td>{c.blocked.as_ref().map_or_else(|| "no".to_owned(), |b| match b.deadline {
                    Some(d) => format!("{} (times out in {})", b.command, duration(d - s.now)),
                    None => format!("{} (no timeout)", b.command),
                })}</td>
                <td>{subscriptions.join(", ")}</td>
                <td>{c.messages.iter().map(|m| format!("{}: {}", m.channel, m.payload)).collect::<Vec<_>>().join("; ")}</td>
            </tr>
        }
    });
    html! {
        <div class="tables">
            <table>
                <caption>{"Streams"}</caption>
                <thead><tr><th scope="col">{"key"}</th><th scope="col">{"length"}</th><th scope="col">{"first id"}</th><th scope="col">{"last id"}</th>
                    <th scope="col">{"max-deleted-id"}</th><th scope="col">{"entries-added"}</th><th scope="col">{"nodes"}</th><th scope="col">{"tombstones"}</th></tr></thead>
                <tbody>{ for streams }</tbody>
            </table>
            <table>
                <caption>{"Entries (by node)"}</caption>
                <thead><tr><th scope="col">{"stream"}</th><th scope="col">{"node"}</th><th scope="col">{"id"}</th><th scope="col">{"fields"}</th>
                    <th scope="col">{"cursor of"}</th><th scope="col">{"pending in"}</th></tr></thead>
                <tbody>{ for entries }</tbody>
            </table>
            <table>
                <caption>{"Groups"}</caption>
                <thead><tr><th scope="col">{"stream"}</th><th scope="col">{"group"}</th><th scope="col">{"last-delivered-id"}</th><th scope="col">{"entries-read"}</th>
                    <th scope="col">{"lag"}</th><th scope="col">{"pending"}</th><th scope="col">{"consumers"}</th></tr></thead>
                <tbody>{ for groups }</tbody>
            </table>
            <table>
                <caption>{"Consumers"}</caption>
                <thead><tr><th scope="col">{"stream"}</th><th scope="col">{"group"}</th><th scope="col">{"consumer"}</th><th scope="col">{"pending"}</th>
                    <th scope="col">{"seen ago"}</th><th scope="col">{"active ago"}</th></tr></thead>
                <tbody>{ for consumers }</tbody>
            </table>
            <table>
                <caption>{"Pending entries (PEL)"}</caption>
                <thead><tr><th scope="col">{"stream"}</th><th scope="col">{"group"}</th><th scope="col">{"consumer"}</th><th scope="col">{"id"}</th>
                    <th scope="col">{"deliveries"}</th><th scope="col">{"idle"}</th><th scope="col">{"entry gone"}</th></tr></thead>
                <tbody>{ for pel }</tbody>
            </table>
            <table>
                <caption>{"Connections and Pub/Sub"}</caption>
                <thead><tr><th scope="col">{"connection"}</th><th scope="col">{"id"}</th><th scope="col">{"MULTI"}</th><th scope="col">{"blocked read"}</th>
                    <th scope="col">{"subscriptions"}</th><th scope="col">{"messages received"}</th></tr></thead>
                <tbody>{ for connections }</tbody>
            </table>
        </div>
    }
}
