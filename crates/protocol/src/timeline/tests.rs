//! The timeline's tests: undo, redo, branches, and what checkpoints cost.

use super::*;
use crate::{Clock, Reply, VIRTUAL_EPOCH_MS};
use streamlab_testkit::rng::Rng;

fn args(line: &str) -> Vec<Vec<u8>> {
    line.split(' ').map(|a| a.as_bytes().to_vec()).collect()
}

fn xlen(t: &mut Timeline, conn: ConnId) -> Reply {
    // Read through a throwaway copy so the probe itself is not recorded.
    let mut session = t.session().clone();
    session.execute(conn, args("XLEN s")).replies.remove(0)
}

/// A timeline of `steps` XADDs to `s` on connection 1, ids `1-0` on.
fn adding(steps: u64) -> Timeline {
    let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    for i in 1..=steps {
        t.execute(1, args(&format!("XADD s {i}-0 f v")));
    }
    t
}

#[test]
fn undo_and_redo_walk_the_history() {
    let mut t = adding(40);
    let c = 1;
    assert_eq!(xlen(&mut t, c), Reply::Integer(40));
    for _ in 0..25 {
        assert!(t.undo());
    }
    assert_eq!(xlen(&mut t, c), Reply::Integer(15));
    assert!(t.redo());
    assert_eq!(xlen(&mut t, c), Reply::Integer(16));
    t.seek(41);
    assert_eq!(xlen(&mut t, c), Reply::Integer(40));
    t.seek(0);
    assert!(!t.undo());
    t.seek(10);
    // A new step after an undo sets the undone ones aside instead of redoing them.
    t.execute(c, args("XADD s 100-0 f v"));
    assert!(!t.redo());
    assert_eq!(t.records().len(), 11);
    assert_eq!(xlen(&mut t, c), Reply::Integer(11));
    assert_eq!((t.branches().len(), t.branches()[0].at(), t.branches()[0].records().len()), (1, 10, 30));
    t.session().check_invariants().unwrap();
    // Bringing them back sets the new step aside in turn, and ends after the last one.
    let ids: Vec<u64> = t.branches()[0].records().iter().map(|r| r.id).collect();
    assert!(t.switch_branch(0));
    assert_eq!((t.position(), t.records().len()), (40, 40));
    assert_eq!(xlen(&mut t, c), Reply::Integer(40));
    assert_eq!(t.records()[10..].iter().map(|r| r.id).collect::<Vec<_>>(), ids);
    assert_eq!((t.branches().len(), t.branches()[0].at(), t.branches()[0].records().len()), (1, 10, 1));
    // A fork below a branch's fork point carries that branch along, back when its steps are.
    t.seek(5);
    t.execute(c, args("XADD s 200-0 f v"));
    assert_eq!(t.branches().iter().map(|b| (b.at(), b.records().len())).collect::<Vec<_>>(), [(5, 35)]);
    assert!(t.switch_branch(0));
    assert_eq!(xlen(&mut t, c), Reply::Integer(40));
    assert_eq!(t.branches().iter().map(|b| (b.at(), b.records().len())).collect::<Vec<_>>(), [(5, 1), (10, 1)]);
    assert!(t.switch_branch(1));
    assert_eq!(xlen(&mut t, c), Reply::Integer(11));
    assert_eq!(
        t.records().last().map(|r| &r.step),
        Some(&Step::Execute { conn: c, args: Words::new(&args("XADD s 100-0 f v")), now: t.session().now() })
    );
    assert!(!t.switch_branch(9));
}

#[test]
fn quit_closes_its_connection_within_its_step() {
    let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    t.execute(1, args("PING"));
    let (executed, _) = t.execute(1, args("QUIT"));
    assert!(executed.close && t.session().conn(1).is_none());
    assert!(t.undo());
    assert!(t.session().conn(1).is_some());
    assert!(!t.execute(1, args("PING")).0.close);
}

#[test]
fn replayed_steps_reproduce_blocking_and_time() {
    let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    let (a, b) = (1, 2);
    assert!(t.execute(b, args("XREAD BLOCK 1000 STREAMS s $")).0.replies.is_empty());
    let timed_out = t.advance(1500);
    assert_eq!(timed_out, vec![Delivery { conn: b, reply: Reply::NullArray }]);
    t.execute(a, args("XADD s * f v"));
    let before = format!("{:?}", t.session().keyspace().stream(b"s").unwrap());
    t.undo();
    t.undo();
    t.redo();
    t.redo();
    assert_eq!(format!("{:?}", t.session().keyspace().stream(b"s").unwrap()), before);
    assert_eq!(t.session().now(), VIRTUAL_EPOCH_MS + 1500);
}

fn copies(t: &Timeline) -> u64 {
    t.checkpoints.iter().map(|(_, copy)| size_of(copy)).sum()
}

fn positions(t: &Timeline) -> Vec<usize> {
    t.checkpoints.iter().map(|(p, _)| *p).collect()
}

#[test]
fn checkpoints_cost_at_most_a_share_of_the_work_done() {
    // A stream growing one entry per step: a copy costs a pointer per chunk, so checkpoints
    // come every CHECKPOINT_EVERY steps and together cost less than the work.
    let c = 1;
    let t = adding(20_000);
    let work = t.work[t.applied];
    assert!(copies(&t) <= COPY_SHARE * work, "{} copied for {work} work", copies(&t));
    assert_eq!(t.checkpoints.len(), 1 + 20_000 / CHECKPOINT_EVERY);

    // A big fill is copied at once (undoing the next steps must not replay it), and the small
    // steps after it are checkpointed as before: the copy does not copy the entries.
    let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    t.fill(b"big", 100_000);
    for _ in 0..1_000 {
        t.execute(c, args("PING"));
    }
    assert_eq!(positions(&t), [0, 1, 257, 513, 769]);
    assert!(t.undo());
    assert_eq!(xlen(&mut t, c), Reply::Integer(0), "XLEN of s, not big");
    t.fill(b"more", 100_000);
    assert_eq!(t.checkpoints.last().map(|(p, _)| *p), Some(t.position()));
    // A new branch after an undo past those copies measures afresh.
    t.seek(3);
    t.fill(b"other", 50_000);
    assert_eq!(positions(&t), [0, 1, 4]);

    // A big PEL makes a copy dearer (a pointer per chunk of it and of its consumer's share):
    // checkpoints space out past CHECKPOINT_EVERY, and still cost less than the work.
    let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    t.fill(b"s", 200_000);
    t.execute(c, args("XGROUP CREATE s g 0"));
    t.execute(c, args("XREADGROUP GROUP g alice COUNT 200000 STREAMS s >"));
    let acks_from = t.position();
    let mut probe = t.session().clone();
    let Reply::Array(entries) = probe.execute(c, args("XRANGE s - + COUNT 3000")).replies.remove(0) else {
        panic!("XRANGE answers an array")
    };
    for entry in entries {
        let Reply::Array(parts) = entry else { panic!("an entry is an array") };
        let Reply::Bulk(id) = &parts[0] else { panic!("an id is a bulk string") };
        t.execute(c, vec![b"XACK".to_vec(), b"s".to_vec(), b"g".to_vec(), id.clone()]);
    }
    let work = t.work[t.applied];
    assert!(copies(&t) <= COPY_SHARE * work, "{} copied for {work} work", copies(&t));
    let gaps: Vec<usize> = positions(&t).windows(2).filter(|w| w[0] >= acks_from).map(|w| w[1] - w[0]).collect();
    assert!(!gaps.is_empty() && gaps.iter().all(|&gap| gap > 2 * CHECKPOINT_EVERY), "{gaps:?}");
}

#[test]
fn a_bounded_history_forgets_old_steps_and_keeps_the_rest_exact() {
    let mut full = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    let mut kept = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    kept.set_keep(Keep::Last(100));
    let c = 1;
    for i in 0..5_000 {
        let line = match i % 7 {
            0 => ":fill".to_owned(),
            1 => "XTRIM s MAXLEN 300".to_owned(),
            _ => format!("XADD s * n {i}"),
        };
        for t in [&mut full, &mut kept] {
            if line == ":fill" {
                t.fill(b"s", 3);
            } else {
                t.execute(c, args(&line));
            }
        }
        // What is kept is never less than asked, nor more than two checkpoints' spacing beyond.
        let len = kept.records().len();
        assert!(len >= (i + 1).min(100) && len <= 100 + 2 * CHECKPOINT_EVERY, "{len} kept after {i}");
        assert_eq!(kept.forgotten() + kept.records().len(), i + 1);
    }
    assert_eq!(kept.records(), &full.records()[kept.forgotten()..]);
    let fills: u64 = full.records()[..kept.forgotten()]
        .iter()
        .map(|r| if let Step::Fill { count, .. } = r.step { count } else { 0 })
        .sum();
    assert_eq!(kept.forgotten_fills(), fills);
    // Every kept step can be undone to, and matches the full history there.
    for back in [1, 50, 100, kept.records().len()] {
        kept.seek(kept.records().len() - back);
        full.seek(full.records().len() - back);
        assert_eq!(
            format!("{:?}", kept.session().keyspace()),
            format!("{:?}", full.session().keyspace()),
            "{back} back"
        );
    }
    assert!(!kept.undo(), "nothing before the kept window");
    // A branch forked inside the window survives; one forked before what is forgotten goes.
    kept.seek(10);
    kept.execute(c, args("XADD s * forked yes"));
    assert_eq!(kept.branches().len(), 1);
    for i in 0..3 * CHECKPOINT_EVERY {
        kept.execute(c, args(&format!("XADD s * n {i}")));
    }
    assert!(kept.branches().is_empty() && kept.forgotten() > 0);
}

#[test]
fn any_seek_equals_replaying_from_the_start() {
    let mut rng = Rng::new(0);
    let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    let c = 1;
    for i in 0..600u64 {
        if rng.below(40) == 0 && !t.branches().is_empty() {
            let index = rng.index(t.branches().len());
            assert!(t.switch_branch(index));
        }
        match rng.below(10) {
            0 => drop(t.fill(b"s", rng.below(300))),
            1 => drop(t.advance(1 + rng.below(1000) as i64)),
            2 => t.seek(rng.index(t.records().len() + 1)),
            3 => drop(t.execute(c, args("XTRIM s MAXLEN 50"))),
            _ => drop(t.execute(c, args(&format!("XADD s * n {i}")))),
        }
    }
    // No step recorded is lost: each is on the current line or in a branch.
    fn ids_of(branches: &[Branch], ids: &mut Vec<u64>) {
        for branch in branches {
            ids.extend(branch.records().iter().map(|r| r.id));
            ids_of(&branch.children, ids);
        }
    }
    let mut ids: Vec<u64> = t.records().iter().map(|r| r.id).collect();
    ids_of(t.branches(), &mut ids);
    ids.sort_unstable();
    assert_eq!(ids, (0..t.next_id).collect::<Vec<_>>(), "each step once: nothing lost, nothing copied");
    let steps: Vec<Step> = t.records().iter().map(|r| r.step.clone()).collect();
    for _ in 0..200 {
        let position = rng.index(steps.len() + 1);
        t.seek(position);
        let mut fresh = Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS));
        for step in &steps[..position] {
            Timeline::apply(&mut fresh, step, None);
        }
        assert_eq!(format!("{:?}", t.session().keyspace()), format!("{:?}", fresh.keyspace()), "at {position}");
        assert_eq!(t.session().now(), fresh.now());
    }
}

#[test]
fn huge_replies_are_not_kept_in_the_history() {
    let mut t = Timeline::new(Session::new(Clock::Virtual(VIRTUAL_EPOCH_MS)));
    let c = 1;
    t.fill(b"big", 60_000);
    let (executed, _) = t.execute(c, args("XRANGE big - +"));
    assert!(matches!(&executed.replies[..], [Reply::Array(entries)] if entries.len() == 60_000));
    let kept = &t.records().last().unwrap().output.replies;
    assert_eq!(kept, &[Reply::Status("(a reply of 660001 values, too big to keep in the history)".into())]);
    let (small, _) = t.execute(c, args("XRANGE big - + COUNT 2"));
    assert_eq!(t.records().last().unwrap().output.replies, small.replies);
}

#[test]
fn words_keep_any_arguments_exactly() {
    let long = vec![0xffu8; 300];
    let cases: Vec<Vec<Vec<u8>>> = vec![
        vec![],
        vec![Vec::new()],
        args("XADD s * f v"),
        vec![b"SET".to_vec(), long.clone(), vec![0, 0x80, b'\n'], Vec::new(), vec![b'x'; 127], vec![b'y'; 128]],
        vec![vec![7u8; 20_000]],
    ];
    for case in cases {
        let words = Words::new(&case);
        assert_eq!(words.to_vecs(), case);
        assert_eq!(words.iter().count(), case.len());
    }
    assert_eq!(format!("{:?}", Words::new(&args("GET k"))), r#"["GET", "k"]"#);
}
