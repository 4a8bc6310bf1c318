use super::*;
use streamlab_view::lesson::{Answer, TaskKindView};

fn streamlab_protocol_epoch() -> i64 {
    SessionSpec::default().clock
}

fn state() -> Rc<AppState> {
    Rc::new(AppState::new(Playground::new(&SessionSpec::default()), Vec::new()))
}

#[test]
fn lines_run_on_the_current_connection_and_are_logged() {
    let s = state().reduce(Action::Run("XADD s 1-0 f v".into()));
    assert_eq!(s.log[0].conn, "alice");
    assert_eq!(s.log[0].output[0].text, "\"1-0\"");
    assert_eq!(s.snapshot.streams[0].length, 1);
    assert_eq!(*s.history, vec!["XADD s 1-0 f v"]);
    let s = s.reduce(Action::Switch("bob".into())).reduce(Action::Run("XREAD BLOCK 0 STREAMS s $".into()));
    assert!(s.log[1].blocked);
    assert_eq!(s.log[1].conn, "bob");
    let s = s.reduce(Action::Switch("alice".into())).reduce(Action::Run("XADD s 2-0 f v".into()));
    assert_eq!(s.log[2].output[1].to.as_deref(), Some("bob"));
    assert_eq!(s.step_count, 3);
}

#[test]
fn pastes_run_in_order_and_undo_moves_the_snapshot() {
    let s = state().reduce(Action::RunAll(vec!["XADD s 1-0 f v".into(), "".into(), "XADD s 2-0 f v".into()]));
    assert_eq!(s.snapshot.streams[0].length, 2);
    let s = s.reduce(Action::Undo);
    assert_eq!((s.snapshot.streams[0].length, s.snapshot.position, s.step_count), (1, 1, 2));
    let s = s.reduce(Action::Seek(0));
    assert!(s.snapshot.streams.is_empty());
    let s = s.reduce(Action::Redo).reduce(Action::Redo);
    assert_eq!(s.snapshot.streams[0].length, 2);
    // The pictures get the state before the step, to animate the difference, until
    // something else changes.
    assert_eq!((s.previous.streams[0].length, s.previous.position), (1, 1));
    let s = s.reduce(Action::ClearConsole).reduce(Action::SetView(View::Tables));
    assert_eq!((s.previous.position, s.snapshot.position), (1, 2));
    assert_eq!(s.steps[1].changes, ["s: entry 2-0 added"]);
}

#[test]
fn new_connections_get_free_names_and_clocks_tick_into_one_step() {
    let s = state().reduce(Action::NewConnection).reduce(Action::NewConnection);
    let names: Vec<&str> = s.snapshot.connections.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["alice", "bob", "carol", "dave"]);
    assert_eq!(s.snapshot.current, "dave");
    // Naming a connection is no step: its first command opens it.
    let s = s.reduce(Action::Advance(100)).reduce(Action::Tick(250)).reduce(Action::Tick(250));
    assert_eq!(s.step_count, 2);
    assert_eq!(s.snapshot.now - streamlab_protocol_epoch(), 600);
    let s = s.reduce(Action::ClearConsole).reduce(Action::Reset);
    assert_eq!((s.step_count, s.log.len()), (0, 0));
}

#[test]
fn prompts_undone_lines_and_set_aside_steps_show_in_the_scrollback() {
    let s = state().reduce(Action::Run("bob> XADD s 1-0 f v".into()));
    assert_eq!(
        (s.log[0].conn.as_str(), s.log[0].line.as_str(), s.snapshot.current.as_str()),
        ("bob", "XADD s 1-0 f v", "bob")
    );
    let s = s.reduce(Action::Run("XADD s 2-0 f v".into())).reduce(Action::Run(":as alice".into()));
    assert_eq!(s.step_count, 2);
    let s = s.reduce(Action::Undo);
    assert_eq!(*s.marks, vec![None, Some(StepState::Undone), None]);
    // Typing at step 1 sets step 2 aside, says so, and the timeline can bring it back.
    let s = s.reduce(Action::Run("XLEN s".into()));
    assert!(
        s.log[3]
            .output
            .iter()
            .any(|o| o.kind == OutputKind::Info && o.text.contains("undone after step 1 is set aside")),
        "{:?}",
        s.log[3]
    );
    assert_eq!(*s.marks, vec![None, Some(StepState::SetAside), None, None]);
    assert_eq!(*s.branches, vec![BranchView { at: 1, steps: 1 }]);
    let s = s.reduce(Action::Branch(0));
    assert_eq!(s.snapshot.streams[0].length, 2);
    assert_eq!(s.marks[1..4], [None, None, Some(StepState::SetAside)]);
    // A line typed on a waiting connection is refused, and the waiting entry stays the read.
    let s = s.reduce(Action::Run("XREAD BLOCK 0 STREAMS s $".into())).reduce(Action::Run("XLEN s".into()));
    let (read, refused) = (&s.log[s.log.len() - 2], &s.log[s.log.len() - 1]);
    assert!(read.blocked && !refused.blocked && refused.step.is_none());
    assert!(refused.output[0].text.starts_with("(refused) alice is waiting for XREAD BLOCK 0"), "{:?}", refused);
    let s = s.reduce(Action::Run(":as bob".into()));
    assert!(!s.log.last().unwrap().blocked);
}

#[test]
fn restoring_a_spec_replays_its_log() {
    let s = state().reduce(Action::Run("XADD s 1-0 f v".into()));
    let spec = s.lab.borrow().spec();
    let t = state().reduce(Action::Restore(spec));
    assert_eq!(t.snapshot.streams[0].length, 1);
}

#[test]
fn a_lesson_task_restarts_refuses_disabled_commands_and_checks() {
    let text = include_str!("../../../tests/browser/fixtures/rich.toml");
    let tutor = Rc::new(Tutor::parse("rich.toml", text, 0).unwrap());
    let s = state().reduce(Action::Run("XADD mine 1-0 f v".into()));
    let s = s.reduce(Action::OpenLesson(tutor, Progress::default()));
    let run = s.lesson.clone().unwrap();
    assert_eq!((run.task(), run.start), (0, s.snapshot.position));
    assert!(s.snapshot.streams.iter().all(|st| st.key != "mine"), "the lesson plays in a session of its own");
    let s = s.reduce(Action::Run("carol> XCLAIM jobs workers carol 0 1-0".into()));
    let s = s.reduce(Action::Lesson(PlayerAction::Check));
    let check = s.lesson.as_ref().unwrap().current().check.clone().unwrap();
    assert!(!check.passed && check.misconception.is_some());
    assert!(s.lesson.as_ref().unwrap().progress().solved.is_empty());
    // Hints and the confirmation are the run's, so they survive renders.
    let s = s.reduce(Action::Lesson(PlayerAction::Hint)).reduce(Action::Lesson(PlayerAction::Reveal));
    let current = s.lesson.as_ref().unwrap().current().clone();
    assert_eq!((current.hints.len(), current.confirming, current.solution), (1, true, false));
    // The goal is drawn on demand; Reset restarts the task.
    let s = s.reduce(Action::ShowGoal(true));
    assert!(s.goal.is_some());
    let s = s.reduce(Action::Reset);
    assert!(s.goal.is_none() && s.log.is_empty());
    assert_eq!(s.lesson.as_ref().unwrap().commands(&s.lab.borrow()), 0);
    // The next task continues the learner's session, scrollback and all.
    let s = s.reduce(Action::Run("carol> XAUTOCLAIM jobs workers carol 55000 0-0 COUNT 2".into()));
    let s = s.reduce(Action::Lesson(PlayerAction::Go(1)));
    let run = s.lesson.clone().unwrap();
    assert!(run.continued && run.task() == 1 && s.log.len() == 1);
    assert_eq!(run.start, s.snapshot.position);
    // Answering a question right solves it; Start over plays the next variant afresh.
    let choice =
        run.view.tasks.iter().position(|t| matches!(t.kind, TaskKindView::Choice { multiple: false, .. })).unwrap();
    let s = s.reduce(Action::Lesson(PlayerAction::Go(choice)));
    let right = (0..).find(|&n| run.tutor.option_why(choice, n).unwrap().0).map(Answer::Option).unwrap();
    let s = s.reduce(Action::Lesson(PlayerAction::Answer(right)));
    assert_eq!(s.lesson.as_ref().unwrap().progress().solved, vec![choice]);
    let s = s.reduce(Action::StartOver);
    let run = s.lesson.clone().unwrap();
    assert_eq!((run.attempt, run.progress().solved.len(), run.tutor.variant()), (1, 0, 1));
    // Start over can be undone, to the attempt, the progress and the session it replaced.
    let s = s.reduce(Action::Recover);
    let back = s.lesson.clone().unwrap();
    assert_eq!((back.attempt, back.progress().solved.clone(), back.task()), (0, vec![choice], choice));
    assert!(s.backup.is_none());
    // The sandbox comes back as it was; the lesson, reopened, resumes where it was.
    let lesson_state = s.snapshot.clone();
    let s = s.reduce(Action::Sandbox);
    assert!(s.lesson.is_none());
    assert!(s.snapshot.streams.iter().any(|st| st.key == "mine"), "the sandbox's own stream");
    let s = s.reduce(Action::OpenLesson(run.tutor.clone(), Progress::default()));
    assert_eq!((s.lesson.as_ref().unwrap().task(), &*s.snapshot), (choice, &*lesson_state));
    assert_eq!(s.parked.borrow().len(), 1, "only the sandbox is parked");
}

#[test]
fn reset_and_a_server_change_offer_undo_until_the_session_changes() {
    let s = state().reduce(Action::Run("XADD s 1-0 f v".into())).reduce(Action::Run("XADD s 2-0 f v".into()));
    let s = s.reduce(Action::Reset);
    assert_eq!((s.step_count, s.notice.as_deref()), (0, Some("Session reset.")));
    assert!(s.backup.as_ref().unwrap().fragment.as_deref().unwrap().contains("XADD"));
    // Harmless actions keep the offer; Undo brings back the session and its scrollback.
    let s = s.reduce(Action::SetView(View::Tables)).reduce(Action::Recover);
    assert_eq!((s.step_count, s.log.len(), s.snapshot.streams[0].length), (2, 2, 2));
    assert!(s.backup.is_none() && s.notice.is_none());
    let s = s.reduce(Action::Run(":profile redis-7.4".into()));
    assert_eq!(s.lab.borrow().profile().name(), "redis-7.4");
    let s = s.reduce(Action::Recover);
    assert_eq!((s.lab.borrow().profile().name(), s.step_count), ("redis-8.10", 2));
    // Once the fresh session changes, there is nothing to bring back over it.
    let s = s.reduce(Action::Reset).reduce(Action::Run("PING".into())).reduce(Action::Recover);
    assert_eq!((s.step_count, s.backup.is_none()), (1, true));
    // An empty session has nothing to lose: no offer.
    assert!(state().reduce(Action::Reset).backup.is_none());
}

#[test]
fn a_restored_session_shows_its_steps_in_the_scrollback() {
    let s = state()
        .reduce(Action::Run("XADD s 1-0 f v".into()))
        .reduce(Action::Switch("bob".into()))
        .reduce(Action::Run("XREAD BLOCK 0 STREAMS s $".into()))
        .reduce(Action::Switch("alice".into()))
        .reduce(Action::Run("XADD s 2-0 f v".into()));
    let t = AppState::restored(Playground::restore(&s.lab.borrow().spec()), Vec::new());
    assert_eq!(*t.log, *s.log);
}
