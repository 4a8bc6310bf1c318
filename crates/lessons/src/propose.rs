//! The checks a task's change of state suggests: the studio plays a solution from the task's
//! start and offers, for every thing the solution changed (a group's pending count, cursor,
//! entries-read and lag, a consumer's pending count, an entry's owner and deliveries, a
//! stream's length, its entries, what was deleted, keys, groups and consumers that came or
//! went), a check expecting the end value, with a message written from the check. Each value
//! is measured by the checker's own `measure`, so a proposal kept as it is passes after the
//! solution and fails on the start state by construction.

use streamlab_engine::{StreamId, Value as KeyValue};
use streamlab_protocol::Session;

use crate::check::{describe_actual, measure, Actual};
use crate::model::{Loc, Subject, SubjectKind};
use crate::trail::Trail;

/// Past this many, proposals stop: a solution that touches hundreds of entries is better
/// described by a few counts than by an owner check per entry.
pub const MAX_PROPOSALS: usize = 60;

/// A stream of at most this many entries may be proposed an `entries` check (its contents
/// written out in the file).
const ENTRIES_CHECK_MAX: usize = 10;

/// A check the change of state suggests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    /// The check's kind, as lesson files write it.
    pub kind: &'static str,
    /// Its locating fields, in the order files write them.
    pub fields: Vec<(&'static str, String)>,
    /// The value at the task's start, in words (`none` when it did not exist).
    pub before: String,
    /// The value after the solution, in words.
    pub after: String,
    /// What the check expects: the value after the solution.
    pub expect: Expectation,
    /// The message shown to a learner when the check fails.
    pub message: String,
}

/// An expectation as a lesson file writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expectation {
    /// `equals = N`.
    Int(i64),
    /// `equals = "text"` (`"nil"` for nil).
    Text(String),
    /// `present = true|false`.
    Present(bool),
    /// `equals = [["field", "value", ...], ...]`.
    Entries(Vec<Vec<String>>),
}

/// The checks that tell `after` from `before` (a task's start state and its state after the
/// solution), in the order a reader looks: per stream, its groups, their consumers and
/// pending entries, then the stream's own counts and contents.
pub fn propose(before: &Session, after: &Session) -> Vec<Proposal> {
    let mut out = Vec::new();
    for key in union(keys(before), keys(after)) {
        let name = String::from_utf8_lossy(&key).into_owned();
        let streams = (stream_of(before, &key), stream_of(after, &key));
        if streams.0.is_none() && streams.1.is_none() {
            offer(&mut out, before, after, subject(SubjectKind::Key, &[(Loc::Key, &name)]));
            continue;
        }
        let groups = |s: Option<&streamlab_engine::Stream>| -> Vec<Vec<u8>> {
            s.map(|s| s.groups().keys().cloned().collect()).unwrap_or_default()
        };
        for group in union(groups(streams.0), groups(streams.1)) {
            let group = String::from_utf8_lossy(&group).into_owned();
            let at = [(Loc::Stream, name.as_str()), (Loc::Group, group.as_str())];
            offer(&mut out, before, after, subject(SubjectKind::Group, &at));
            for kind in [SubjectKind::Pending, SubjectKind::LastDeliveredId, SubjectKind::EntriesRead, SubjectKind::Lag]
            {
                offer(&mut out, before, after, subject(kind, &at));
            }
            let (g0, g1) =
                (streams.0.and_then(|s| s.group(group.as_bytes())), streams.1.and_then(|s| s.group(group.as_bytes())));
            let consumers = |g: Option<&streamlab_engine::Group>| -> Vec<Vec<u8>> {
                g.map(|g| g.consumers().keys().map(|c| c.to_vec()).collect()).unwrap_or_default()
            };
            for consumer in union(consumers(g0), consumers(g1)) {
                let consumer = String::from_utf8_lossy(&consumer).into_owned();
                let at = [at[0], at[1], (Loc::Consumer, consumer.as_str())];
                offer(&mut out, before, after, subject(SubjectKind::Consumer, &at));
                offer(&mut out, before, after, subject(SubjectKind::Pending, &at));
            }
            let pending = |g: Option<&streamlab_engine::Group>| -> Vec<StreamId> {
                g.map(|g| g.pel().iter().map(|(id, _)| *id).collect()).unwrap_or_default()
            };
            for id in union(pending(g0), pending(g1)) {
                let id = id.to_string();
                let at = [at[0], at[1], (Loc::Id, id.as_str())];
                offer(&mut out, before, after, subject(SubjectKind::Owner, &at));
                offer(&mut out, before, after, subject(SubjectKind::Deliveries, &at));
            }
        }
        let at = [(Loc::Stream, name.as_str())];
        for kind in [SubjectKind::Length, SubjectKind::EntriesAdded, SubjectKind::MaxDeletedId] {
            offer(&mut out, before, after, subject(kind, &at));
        }
        // Entries that went (deleted, trimmed) by id; what came, by contents: new ids are
        // often `*`'s, which a variant's clock moves, while contents stay.
        if let (Some(s0), Some(s1)) = streams {
            for entry in s0.range(StreamId::MIN, StreamId::MAX, false) {
                if !s1.contains(entry.id) {
                    let id = entry.id.to_string();
                    offer(&mut out, before, after, subject(SubjectKind::Entry, &[at[0], (Loc::Id, id.as_str())]));
                }
            }
        }
        if streams.1.is_some_and(|s| s.len() <= ENTRIES_CHECK_MAX as u64) {
            offer(&mut out, before, after, subject(SubjectKind::Entries, &at));
        }
    }
    out.truncate(MAX_PROPOSALS);
    out
}

fn keys(session: &Session) -> Vec<Vec<u8>> {
    session.keyspace().iter().map(|(key, _)| key.clone()).collect()
}

fn stream_of<'a>(session: &'a Session, key: &[u8]) -> Option<&'a streamlab_engine::Stream> {
    match session.keyspace().get(key) {
        Some(KeyValue::Stream(s)) => Some(s),
        _ => None,
    }
}

/// Both lists' items, sorted, once each (sorted by the engine's one sort: see the wasm budget
/// in ARCHITECTURE.md).
fn union<T: Ord>(mut a: Vec<T>, b: Vec<T>) -> Vec<T> {
    a.extend(b);
    streamlab_engine::sort::sort(&mut a);
    a.dedup();
    a
}

fn subject(kind: SubjectKind, at: &[(Loc, &str)]) -> Subject {
    let mut subject = Subject::new(kind);
    for (loc, value) in at {
        subject.texts[*loc as usize] = Some((*value).to_owned());
    }
    subject
}

/// Adds the check for `subject` when its value differs between the two states and the end
/// state has one to expect.
fn offer(out: &mut Vec<Proposal>, before: &Session, after: &Session, subject: Subject) {
    if out.len() >= MAX_PROPOSALS {
        return;
    }
    let trail = Trail::default();
    let (was, is) = (measure(&subject, before, &trail), measure(&subject, after, &trail));
    if was == is {
        return;
    }
    let expect = match &is {
        Actual::Int(n) => Expectation::Int(*n),
        Actual::Nil => Expectation::Text("nil".into()),
        Actual::Text(t) => Expectation::Text(t.clone()),
        Actual::Present(p) => Expectation::Present(*p),
        Actual::Entries(e) => Expectation::Entries(e.clone()),
        // Nothing to expect: the thing is gone (its absence is proposed by the kind that
        // says so, `group`, `consumer`, `key` or `entry`).
        Actual::Seen(_) | Actual::Missing(_) => return,
    };
    let owner = subject.kind == SubjectKind::Owner;
    let describe = |a: &Actual| match a {
        Actual::Missing(_) => "none".to_owned(),
        found => describe_actual(found, owner),
    };
    let kind = subject.kind.spec().0;
    out.push(Proposal {
        kind,
        fields: subject.fields(),
        before: describe(&was),
        after: describe(&is),
        expect,
        message: message(&subject).to_owned(),
    });
}

/// The learner-facing message of a proposed check: what should be, what is, in the terms
/// the check's fields give.
fn message(subject: &Subject) -> &'static str {
    use SubjectKind as K;
    match subject.kind {
        K::Pending if subject.get(Loc::Consumer).is_some() => {
            "{consumer} should have {expected} pending entries in {group}; it has {actual}."
        }
        K::Pending => "{group} on {stream} should have {expected} pending entries; it has {actual}.",
        K::Owner => "Entry {id} in {group} should be with {expected}; it is with {actual}.",
        K::Deliveries => {
            "Entry {id} should have been delivered {expected} times in {group}; it was delivered {actual} times."
        }
        K::LastDeliveredId => "The last id delivered to {group} should be {expected}; it is {actual}.",
        K::EntriesRead => "{group}'s entries-read should be {expected}; it is {actual}.",
        K::Lag => "{group}'s lag should be {expected}; it is {actual}.",
        K::Length => "{stream} should hold {expected} entries; it holds {actual}.",
        K::EntriesAdded => "{stream} should have had {expected} entries added in all; it has had {actual}.",
        K::MaxDeletedId => "The largest id deleted from {stream} should be {expected}; it is {actual}.",
        K::Entry => "Entry {id} should be {expected} in {stream}; it is {actual}.",
        K::Key => "The key {key} should be {expected}; it is {actual}.",
        K::Group => "The group {group} on {stream} should be {expected}; it is {actual}.",
        K::Consumer => "{consumer} should be {expected} in {group}; it is {actual}.",
        K::Entries => "{stream} should hold {expected}; it holds {actual}.",
        _ => "Expected {expected}; found {actual}.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamlab_protocol::console::Console;
    use streamlab_protocol::{Clock, Profile};

    fn console() -> Console {
        Console::new(Session::with_profile(Clock::Virtual(1_700_000_000_000), Profile::default()))
    }

    fn after(console: &mut Console, lines: &[&str]) {
        for line in lines {
            console.run_line(line);
        }
    }

    #[test]
    fn a_claim_proposes_owner_deliveries_and_pending_counts() {
        let mut console = console();
        after(
            &mut console,
            &[
                "XADD jobs 1-0 n 1",
                "XADD jobs 2-0 n 2",
                "XGROUP CREATE jobs w 0",
                "XREADGROUP GROUP w alice STREAMS jobs >",
            ],
        );
        let start = console.session().clone();
        after(&mut console, &[":clock +60s", "XCLAIM jobs w bob 1000 1-0", "XDEL jobs 2-0"]);
        let found = propose(&start, console.session());
        let summary: Vec<String> = found
            .iter()
            .map(|p| {
                let fields: Vec<String> = p.fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{} {} {}->{}", p.kind, fields.join(","), p.before, p.after)
            })
            .collect();
        assert_eq!(
            summary,
            [
                "pending stream=jobs,group=w,consumer=alice 2->1",
                "consumer stream=jobs,group=w,consumer=bob absent->present",
                "pending stream=jobs,group=w,consumer=bob 0->1",
                "owner stream=jobs,group=w,id=1-0 alice->bob",
                "deliveries stream=jobs,group=w,id=1-0 1->2",
                "length stream=jobs 2->1",
                "max-deleted-id stream=jobs 0-0->2-0",
                "entry stream=jobs,id=2-0 present->absent",
                "entries stream=jobs [n=1] [n=2]->[n=1]",
            ]
        );
        assert_eq!(found[3].expect, Expectation::Text("bob".into()));
        assert_eq!(found[1].expect, Expectation::Present(true));
        // Nothing changed, nothing proposed.
        assert!(propose(&start, &start).is_empty());
    }

    #[test]
    fn proposals_stop_at_the_cap() {
        let mut console = console();
        let start = console.session().clone();
        for n in 0..100 {
            console.run_line(&format!("SET k{n} v"));
        }
        assert_eq!(propose(&start, console.session()).len(), MAX_PROPOSALS);
    }
}
