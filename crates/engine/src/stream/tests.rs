use super::group_ops::LiveCursor;
use super::*;

fn b(s: impl Into<String>) -> Vec<u8> {
    s.into().into_bytes()
}

/// Fields of the three shapes used to measure node boundaries on Redis 8.2.3.
fn shaped(kind: &str, i: u64) -> Vec<Vec<u8>> {
    match kind {
        "order" => vec![
            b("type"),
            b("order-created"),
            b("orderId"),
            b((1_000_000 + i).to_string()),
            b("isbn"),
            b((9_780_441_013_593 + i * 7).to_string()),
            b("quantity"),
            b((1 + i % 3).to_string()),
        ],
        "long" => vec![b("payload"), b("x".repeat((37 * i % 300) as usize + 1))],
        _ if i.is_multiple_of(3) => vec![b("a"), b(i.to_string())],
        _ => vec![b("b"), b(format!("v{i}")), b("c"), b("-12")],
    }
}

#[test]
fn node_boundaries_match_redis_with_default_limits() {
    // radix-tree-keys reported by Redis 8.2.3 (default settings) for the same XADDs, with
    // ids `1794650000000 + 3i` - `i % 5`.
    let measured = [
        ("order", 100, 2),
        ("order", 1000, 11),
        ("order", 5000, 52),
        ("long", 50, 3),
        ("long", 1000, 41),
        ("long", 5000, 205),
        ("mixed", 100, 1),
        ("mixed", 101, 2),
        ("mixed", 1000, 10),
        ("mixed", 5000, 50),
    ];
    for (kind, n, nodes) in measured {
        let mut stream = Stream::new();
        for i in 0..n {
            let id = AddId::Explicit(StreamId::new(1_794_650_000_000 + i * 3, i % 5));
            stream.add(id, &shaped(kind, i), 0, StreamConfig::default()).unwrap();
        }
        assert_eq!(stream.nodes().len(), nodes, "{kind} x {n}");
        stream.check_invariants().unwrap();
    }
}

#[test]
fn approximate_trimming_removes_whole_nodes_only() {
    // Spec example: nodes of 10, 35 entries, MAXLEN ~ 12 removes 20 and leaves 15.
    let config = StreamConfig { node_max_entries: 10, node_max_bytes: 0 };
    let mut stream = Stream::new();
    for i in 1..=35 {
        stream.add(AddId::Explicit(StreamId::new(i, 0)), &[b("f"), b("v")], 0, config).unwrap();
    }
    let trim = Trim { strategy: TrimStrategy::MaxLen(12), approx: true, limit: None, policy: RefPolicy::KeepRef };
    assert_eq!(stream.trim(trim, config), 20);
    assert_eq!(stream.len(), 15);
    assert_eq!(stream.first_id(), StreamId::new(21, 0));
    stream.check_invariants().unwrap();
}

fn add(stream: &mut Stream, ms: u64) {
    let fields = [b"data".to_vec(), b"x".to_vec()];
    stream.add(AddId::Explicit(StreamId::new(ms, 0)), &fields, 0, StreamConfig::default()).unwrap();
}

#[test]
fn live_cursor_agrees_with_contains() {
    let mut stream = Stream::new();
    let config = StreamConfig { node_max_entries: 3, node_max_bytes: 0 };
    let fields = [b"f".to_vec(), b"v".to_vec()];
    for ms in (2..40).step_by(2) {
        stream.add(AddId::Explicit(StreamId::new(ms, 0)), &fields, 0, config).unwrap();
    }
    for ms in [4, 10, 12, 14, 30] {
        assert!(stream.delete(StreamId::new(ms, 0)));
    }
    let ids: Vec<StreamId> = (0..44).map(|ms| StreamId::new(ms, 0)).collect();
    for stride in 1..5 {
        let mut cursor = LiveCursor::new(stream.nodes());
        for &id in ids.iter().step_by(stride) {
            assert_eq!(cursor.contains(id), stream.contains(id), "{id} (stride {stride})");
        }
    }
    // Asking again, or going back, starts over rather than answering wrongly.
    let mut cursor = LiveCursor::new(stream.nodes());
    for ms in [8, 8, 6, 20, 2, 38, 39, 0] {
        let id = StreamId::new(ms, 0);
        assert_eq!(cursor.contains(id), stream.contains(id), "{id}");
    }
}

/// Found by the engine property test: a trim that removes entries the group has not read
/// yet left the group's read counter one behind per removed entry once it read on, so the
/// lag stayed wrong (redis/redis#13957, fixed in Redis 8.2 by #13958).
#[test]
fn reading_past_a_trim_recomputes_entries_read() {
    let mut stream = Stream::new();
    for ms in 1..=5 {
        add(&mut stream, ms);
    }
    assert!(stream.create_group(b"g1", StreamId::MIN, None));
    let one = ReadGroup { group: b"g1", consumer: b"c11", count: 1, no_ack: false, now: 0 };
    let read = stream.read_group_new(one, &mut ReadBudget::default()).unwrap();
    assert_eq!(read[0].id, StreamId::new(1, 0));
    assert_eq!(stream.group(b"g1").unwrap().entries_read, Some(1));
    let trim = Trim { strategy: TrimStrategy::MaxLen(1), approx: false, limit: None, policy: RefPolicy::KeepRef };
    assert_eq!(stream.trim(trim, StreamConfig::default()), 4);
    assert_eq!(stream.lag(stream.group(b"g1").unwrap()), Some(1));
    let read = stream.read_group_new(one, &mut ReadBudget::default()).unwrap();
    assert_eq!(read[0].id, StreamId::new(5, 0));
    let group = stream.group(b"g1").unwrap();
    assert_eq!(group.entries_read, Some(5));
    assert_eq!(stream.lag(group), Some(0));
}
