//! The app's state and its reducer. Nothing here touches the page: effects (storage, the URL,
//! timers, focus) live in the components and hooks that dispatch actions.

use std::cell::RefCell;
use std::rc::Rc;

use streamlab_view::embed::SolutionPolicy;
use streamlab_view::lesson::{Progress, Tutor};
use streamlab_view::{
    split_prefix, BranchView, OutputKind, OutputView, Playground, SessionSpec, SnapshotView, StepState, StepView,
};
use yew::Reducible;

use crate::lesson_run::{LessonRun, PlayerAction, Rules};

/// How many console lines of history ↑/↓ keeps.
pub const HISTORY_KEPT: usize = 200;

/// How many console entries the scrollback keeps.
pub const LOG_KEPT: usize = 500;

/// How many steps the timeline lists around the current one.
pub const STEPS_LISTED: usize = 60;

/// One line typed at the console and what it printed.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    /// The connection that typed it (the prompt).
    pub conn: String,
    /// The line.
    pub line: String,
    /// What it printed.
    pub output: Vec<OutputView>,
    /// The line left its connection blocked (a read waiting to be served).
    pub blocked: bool,
    /// The id of the step the line recorded, if it recorded one (see `AppState::marks`).
    pub step: Option<u64>,
}

/// Which view of the state the right-hand side shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The pictures.
    Pictures,
    /// The same facts as tables.
    Tables,
}

/// What the page's player allows: every task, hints, the solution after a confirmation.
pub const PAGE_RULES: Rules = Rules { questions_only: false, hints: true, solution: SolutionPolicy::Confirm };

/// Everything the app renders from.
#[derive(Clone)]
pub struct AppState {
    /// The session and its history (mutated in place: cloning a history per action would be
    /// wasteful; `version` tells renders apart).
    pub lab: Rc<RefCell<Playground>>,
    /// Bumped on every change to `lab`.
    pub version: u64,
    /// The state as of the current step.
    pub snapshot: Rc<SnapshotView>,
    /// The state the page showed before this one: the pictures animate the difference.
    pub previous: Rc<SnapshotView>,
    /// Steps around the current one, for the timeline.
    pub steps: Rc<Vec<StepView>>,
    /// How many steps are recorded.
    pub step_count: usize,
    /// The console scrollback.
    pub log: Rc<Vec<LogEntry>>,
    /// Where each scrollback entry's step is now (`None`: applied, or no step).
    pub marks: Rc<Vec<Option<StepState>>>,
    /// Runs of steps set aside by typing at an earlier step.
    pub branches: Rc<Vec<BranchView>>,
    /// Lines typed, oldest first (↑/↓).
    pub history: Rc<Vec<String>>,
    /// The clock runs in real time.
    pub running: bool,
    /// The last action was a tick of the running clock, so the next tick grows its step
    /// (a clock move made by hand stays a step of its own).
    ticking: bool,
    /// Pictures or tables.
    pub view: View,
    /// A message for the status line ("Link copied", an error restoring a link).
    pub notice: Option<String>,
    /// How many entries were ever added to the scrollback (an embedded console reports each
    /// new one as an event, even after the scrollback was cleared or trimmed).
    pub noted: u64,
    /// The key of the scrollback's first entry: an entry keeps its key while older ones are
    /// dropped from the front, so a full scrollback re-renders only the entry added, not all.
    pub log_first: u64,
    /// The lesson being played, if any (its session is `lab`).
    pub lesson: Option<LessonRun>,
    /// The current task's goal state, while it is shown beside the session.
    pub goal: Option<Rc<SnapshotView>>,
    /// Sessions set aside while another is in the console: the sandbox while a lesson plays,
    /// and every lesson left for the sandbox or another lesson (resumed when reopened).
    /// Changed in place, as `lab` is (it changes only with `lab`).
    pub parked: Rc<RefCell<Vec<Parked>>>,
    /// The work the last destructive action (Reset, Start over, a server change, a link
    /// opened) replaced, offered back until the session changes again.
    pub backup: Option<Backup>,
}

/// A session set aside with its scrollback and lesson run (none: the sandbox).
#[derive(Clone)]
pub struct Parked {
    pub lesson: Option<LessonRun>,
    pub lab: Rc<RefCell<Playground>>,
    pub log: Rc<Vec<LogEntry>>,
}

impl Default for Parked {
    /// A fresh sandbox.
    fn default() -> Parked {
        Parked {
            lesson: None,
            lab: Rc::new(RefCell::new(Playground::new(&SessionSpec::default()))),
            log: Rc::default(),
        }
    }
}

/// Replaced work that Undo brings back. Destructive actions happen at once and offer this
/// instead of asking first: an undo costs the learner nothing when the action was meant, and
/// it works where a native `confirm` cannot (an iframe without `allow-modals` answers every
/// `confirm` with false at once).
#[derive(Clone)]
pub struct Backup {
    /// The session as it was; none after a reload, when only `fragment` is left.
    pub kept: Option<Parked>,
    /// The sandbox's session as a share fragment, saved so the offer survives a reload (a
    /// lesson's session is not kept across reloads).
    pub fragment: Option<Rc<str>>,
    /// What happened, for the notice beside Undo.
    pub notice: Rc<str>,
}

impl PartialEq for AppState {
    fn eq(&self, other: &Self) -> bool {
        self.version == other.version
            && Rc::ptr_eq(&self.lab, &other.lab)
            && Rc::ptr_eq(&self.log, &other.log)
            && Rc::ptr_eq(&self.history, &other.history)
            && self.running == other.running
            && self.view == other.view
            && self.notice == other.notice
            && self.noted == other.noted
            && self.log_first == other.log_first
            && self.lesson == other.lesson
            && self.goal.as_ref().map(Rc::as_ptr) == other.goal.as_ref().map(Rc::as_ptr)
            && self.backup.is_some() == other.backup.is_some()
    }
}

/// What can happen.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Run one console line on the current connection.
    Run(String),
    /// Run several lines in order (a paste).
    RunAll(Vec<String>),
    /// Switch to a connection (opening it if new).
    Switch(String),
    /// Open a connection with the next free name and switch to it.
    NewConnection,
    /// Move the clock by this many ms (one step).
    Advance(i64),
    /// A real-time clock tick: moves the clock, growing the running clock step.
    Tick(i64),
    /// Start or stop the real-time clock.
    SetRunning(bool),
    /// Take a step back.
    Undo,
    /// Redo a step.
    Redo,
    /// Go to the state after this many steps.
    Seek(usize),
    /// Bring back the steps of a branch set aside (0-based, oldest first).
    Branch(usize),
    /// Start a fresh session (same profile and clock).
    Reset,
    /// Replace the session with one rebuilt from a spec (a share link or a saved session).
    Restore(SessionSpec),
    /// Clear the console scrollback (Ctrl+L).
    ClearConsole,
    /// Re-read the session after its holder changed it in place (an embed's lesson).
    Refresh,
    /// Pictures or tables.
    SetView(View),
    /// Show a message (or clear it).
    Notice(Option<String>),
    /// Open (a page of) a collapsed block of a big stream's rail, or close an opened run of
    /// nodes, named by the stream's key and the first node's id.
    Fold { key: String, first_id: String, open: bool },
    /// Play a lesson (in the variant its progress's attempt picks) from its first unsolved task.
    OpenLesson(Rc<Tutor>, Progress),
    /// A step of the lesson run: moving to a task (its session restarts at the task's start
    /// state), Check on the session as it is, a hint, the solution, an answer.
    Lesson(PlayerAction),
    /// Show (or hide) the goal state beside the current one.
    ShowGoal(bool),
    /// Play the lesson again from the start, in the next hidden variant.
    StartOver,
    /// Set the lesson aside and go back to the sandbox as it was.
    Sandbox,
    /// Bring back what the last destructive action replaced.
    Recover,
}

impl AppState {
    /// A state over a playground, with remembered console history.
    pub fn new(lab: Playground, history: Vec<String>) -> AppState {
        AppState::new_shared(Rc::new(RefCell::new(lab)), history)
    }

    /// A state over a playground someone else holds too (an embedded widget's handle).
    pub fn new_shared(lab: Rc<RefCell<Playground>>, history: Vec<String>) -> AppState {
        let snapshot = lab.borrow().snapshot().clone();
        let mut state = AppState {
            previous: snapshot.clone(),
            snapshot,
            lab,
            version: 0,
            steps: Rc::default(),
            step_count: 0,
            log: Rc::default(),
            marks: Rc::default(),
            branches: Rc::default(),
            history: Rc::new(history),
            running: false,
            ticking: false,
            view: View::Pictures,
            notice: None,
            noted: 0,
            log_first: 0,
            lesson: None,
            goal: None,
            parked: Rc::default(),
            backup: None,
        };
        state.refresh();
        state
    }

    /// A state over a session rebuilt from its log (a reload, a share link), its scrollback
    /// the restored steps as the console printed them.
    pub fn restored(lab: Playground, history: Vec<String>) -> AppState {
        let mut state = AppState::new(lab, history);
        state.log = replayed(&state.lab.borrow());
        state
    }

    /// Sets the session (with its scrollback and lesson) aside as the backup Undo brings back,
    /// leaving a fresh session of the same profile and clock in its place; says so in the notice.
    fn set_aside(&mut self, notice: &str) {
        let fresh = self.lab.borrow().fresh();
        let lab = std::mem::replace(&mut *self.lab.borrow_mut(), fresh);
        let fragment = self.lesson.is_none().then(|| lab.spec().to_fragment().into());
        let kept = Parked { lesson: self.lesson.clone(), lab: Rc::new(RefCell::new(lab)), log: self.log.clone() };
        self.backup = Some(Backup { kept: Some(kept), fragment, notice: notice.into() });
        self.notice = Some(notice.to_owned());
    }

    /// Sets the session in the console aside (lesson and scrollback) and puts `parked` in its
    /// place; the console's session stays the same `RefCell`, which an embed's handle shares.
    fn swap_in(&mut self, parked: Parked) {
        std::mem::swap(&mut *self.lab.borrow_mut(), &mut *parked.lab.borrow_mut());
        let out =
            Parked { lesson: self.lesson.take(), lab: parked.lab, log: std::mem::replace(&mut self.log, parked.log) };
        self.lesson = parked.lesson;
        self.parked.borrow_mut().push(out);
        self.running = false;
        self.goal = None;
    }

    /// The parked session of the lesson with this id (None: the sandbox's), taken out of the
    /// parked ones.
    fn unpark(&mut self, lesson: Option<&str>) -> Option<Parked> {
        let mut parked = self.parked.borrow_mut();
        let at = parked.iter().position(|p| p.lesson.as_ref().map(|run| run.tutor.id()) == lesson)?;
        Some(parked.remove(at))
    }

    /// Plays a lesson from its first unsolved task in the console's session.
    fn open(&mut self, tutor: Rc<Tutor>, progress: &Progress) {
        match LessonRun::new(tutor, PAGE_RULES, progress) {
            Ok(run) => {
                let at = run.at;
                self.lesson = Some(run);
                self.start_task(at, false);
            }
            Err(error) => self.notice = Some(format!("Could not open the lesson: {error}")),
        }
    }

    /// Re-reads the snapshot and the steps around the current one after `lab` changed.
    fn refresh(&mut self) {
        let lab = self.lab.borrow();
        self.version += 1;
        // `previous` is the state before the last change, so what a step set moving keeps moving
        // through renders that change nothing (a view switch, Ctrl+L).
        if **lab.snapshot() != *self.snapshot {
            self.previous = std::mem::replace(&mut self.snapshot, lab.snapshot().clone());
        }
        self.step_count = lab.step_count();
        let position = self.snapshot.position;
        let from = position.saturating_sub(STEPS_LISTED / 2).min(self.step_count.saturating_sub(STEPS_LISTED));
        self.steps = Rc::new(lab.steps(from, from + STEPS_LISTED));
        let mut marks = Vec::with_capacity(self.log.len());
        for entry in self.log.iter() {
            marks.push(entry.step.map(|id| lab.step_state(id)).filter(|&state| state != StepState::Applied));
        }
        if *marks != *self.marks {
            self.marks = Rc::new(marks);
        }
        let branches = lab.branches();
        if *branches != *self.branches {
            self.branches = Rc::new(branches);
        }
    }

    fn run_line(&mut self, line: &str) {
        if streamlab_view::profile_switch(line).is_some() && self.step_count > 0 {
            // The switch starts a fresh session: the one it replaces is kept for Undo.
            self.set_aside("Server changed: a fresh session.");
        }
        if let Some(run) = &self.lesson {
            // A task refuses the commands it turns off, as the checker does.
            if let Some(refusal) = run.refusal(line) {
                let conn = self.lab.borrow().snapshot().current.clone();
                self.remember(line);
                let output = vec![OutputView { to: None, text: refusal, kind: OutputKind::Error }];
                self.note(conn, line.to_owned(), output, false, None);
                return;
            }
        }
        // The console reads a `name> COMMAND` line itself; the scrollback shows it as typed
        // at that connection's prompt.
        let (conn, text) = match split_prefix(line) {
            Some((name, rest)) if !rest.is_empty() && !rest.starts_with(':') => (name.to_owned(), rest),
            _ => (self.lab.borrow().snapshot().current.clone(), line),
        };
        let before = self.lab.borrow().last_step_id();
        let output = self.lab.borrow_mut().run(line);
        let lab = self.lab.borrow();
        let step = lab.last_step_id().filter(|&id| Some(id) != before);
        // Only a command that ran and is waiting now left its connection blocked (not a
        // meta-command typed there, nor a line the console refused).
        let blocked = step.is_some()
            && !text.trim_start().starts_with(':')
            && lab.snapshot().connections.iter().any(|c| c.name == conn && c.blocked.is_some());
        drop(lab);
        self.remember(line);
        self.note(conn, text.to_owned(), output, blocked, step);
    }

    /// Adds a typed line to the ↑/↓ history.
    fn remember(&mut self, line: &str) {
        let trimmed = line.trim();
        if !trimmed.is_empty() {
            let history = Rc::make_mut(&mut self.history);
            if history.last().map(String::as_str) != Some(trimmed) {
                history.push(trimmed.to_owned());
            }
            let excess = history.len().saturating_sub(HISTORY_KEPT);
            history.drain(..excess);
        }
    }

    /// Moves the lesson to position `at` of its order and puts that task's session in the
    /// console (see [`LessonRun::enter`]: the next task of a chain continues the learner's own);
    /// with `reset`, restarts the current task instead.
    fn start_task(&mut self, at: usize, reset: bool) {
        let Some(run) = &mut self.lesson else { return };
        let was = run.at;
        let result = {
            let mut lab = self.lab.borrow_mut();
            if reset {
                run.restart(&mut lab)
            } else {
                run.enter(at, &mut lab)
            }
        };
        match result {
            Ok(()) => {
                // A session continued from the task before keeps its scrollback.
                if !run.continued || reset {
                    self.log = Rc::default();
                }
                self.running = false;
                self.goal = None;
            }
            Err(error) => {
                run.at = was;
                self.notice = Some(format!("Could not start the task: {error}"));
            }
        }
    }

    /// Brings back what `backup` kept.
    fn recover(&mut self, backup: Backup) {
        if let Some(kept) = backup.kept {
            std::mem::swap(&mut *self.lab.borrow_mut(), &mut *kept.lab.borrow_mut());
            self.log = kept.log;
            self.lesson = kept.lesson;
        } else if let Some(Ok(spec)) = backup.fragment.map(|f| SessionSpec::parse(&f)) {
            *self.lab.borrow_mut() = Playground::restore(&spec);
            self.log = replayed(&self.lab.borrow());
        }
        self.running = false;
        self.goal = None;
        self.notice = None;
    }

    fn note(&mut self, conn: String, line: String, output: Vec<OutputView>, blocked: bool, step: Option<u64>) {
        let log = Rc::make_mut(&mut self.log);
        log.push(LogEntry { conn, line, output, blocked, step });
        self.noted += 1;
        let excess = log.len().saturating_sub(LOG_KEPT);
        log.drain(..excess);
        self.log_first += excess as u64;
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        let ticking = std::mem::replace(&mut next.ticking, matches!(action, Action::Tick(_)));
        // Undo stays on offer while the session is as the destructive action left it: once
        // it changes, bringing the old one back would lose the new work.
        let keeps = matches!(
            action,
            Action::Notice(Some(_))
                | Action::SetView(_)
                | Action::Fold { .. }
                | Action::ClearConsole
                | Action::Refresh
                | Action::ShowGoal(_)
                | Action::SetRunning(_)
        );
        let backup = if keeps { None } else { next.backup.take() };
        match action.clone() {
            Action::Run(line) => next.run_line(&line),
            Action::RunAll(lines) => {
                for line in lines.iter().filter(|l| !l.trim().is_empty()) {
                    next.run_line(line);
                }
            }
            Action::Switch(name) => next.lab.borrow_mut().switch(&name),
            Action::NewConnection => {
                let taken: Vec<String> = next.snapshot.connections.iter().map(|c| c.name.clone()).collect();
                let name = ["carol", "dave", "erin", "frank", "grace", "heidi"]
                    .iter()
                    .map(|n| (*n).to_owned())
                    .chain((1..).map(|i| format!("client-{i}")))
                    .find(|n| !taken.contains(n))
                    .expect("an endless list has a free name");
                next.lab.borrow_mut().switch(&name);
            }
            Action::Advance(ms) | Action::Tick(ms) => {
                // Only a tick that follows a tick grows the running clock's step.
                let merge = ticking && matches!(action, Action::Tick(_));
                let conn = next.snapshot.current.clone();
                let output = next.lab.borrow_mut().advance(ms, merge);
                if !output.is_empty() {
                    let step = next.lab.borrow().last_step_id();
                    next.note(conn, format!(":clock +{ms}"), output, false, step);
                }
            }
            Action::SetRunning(running) => next.running = running,
            // In a lesson, time travel stops where the task started: what came before is the
            // task's start state, and its checks read the learner's steps from there on.
            Action::Undo
                if next
                    .lesson
                    .as_ref()
                    .is_some_and(|run| next.lab.borrow().console().timeline().position() <= run.start) => {}
            Action::Undo => {
                next.lab.borrow_mut().undo();
            }
            Action::Redo => {
                next.lab.borrow_mut().redo();
            }
            Action::Seek(position) => {
                let floor = next.lesson.as_ref().map_or(0, |run| run.start);
                next.lab.borrow_mut().seek(position.max(floor));
            }
            Action::Branch(index) => {
                // In a lesson a branch that left the task's steps is not brought back (none can
                // fork there: time travel stops at the task's start).
                let floor = next.lesson.as_ref().map_or(0, |run| run.start);
                if next.branches.get(index).is_some_and(|b| b.at >= floor) {
                    let conn = next.snapshot.current.clone();
                    let note = next.lab.borrow_mut().switch_branch(index);
                    if let Some(text) = note {
                        let output = vec![OutputView { to: None, text, kind: OutputKind::Info }];
                        next.note(conn, format!(":branch {}", index + 1), output, false, None);
                    }
                }
            }
            Action::Reset if next.lesson.is_some() => {
                // A task that continues the one before restarts by seeking back, which Redo
                // undoes; any other starts from its setup again, replacing the session.
                if next.lesson.as_ref().is_some_and(|run| !run.continued) {
                    next.set_aside("Task restarted.");
                }
                next.start_task(0, true);
            }
            Action::Reset => {
                if next.step_count > 0 {
                    next.set_aside("Session reset.");
                }
                next.lab.borrow_mut().reset();
                next.log = Rc::default();
                next.running = false;
            }
            Action::Restore(spec) => {
                if next.step_count > 0 {
                    next.set_aside("The link's session replaced yours.");
                }
                next.lab = Rc::new(RefCell::new(Playground::restore(&spec)));
                next.log = replayed(&next.lab.borrow());
                next.running = false;
            }
            Action::Recover => {
                if let Some(backup) = backup {
                    next.recover(backup);
                }
            }
            Action::Fold { key, first_id, open } => {
                let mut lab = next.lab.borrow_mut();
                if open {
                    lab.open_block(&key, &first_id);
                } else {
                    lab.close_block(&key, &first_id);
                }
            }
            Action::ClearConsole => next.log = Rc::default(),
            Action::Refresh => {}
            Action::SetView(view) => next.view = view,
            Action::Notice(notice) => {
                next.notice = notice;
                return Rc::new(next);
            }
            Action::OpenLesson(tutor, progress) => {
                // The session in the console (the sandbox or another lesson) is parked; a
                // lesson left earlier resumes where it was.
                match next.unpark(Some(tutor.id())) {
                    Some(parked) => next.swap_in(parked),
                    None => {
                        next.swap_in(Parked::default());
                        next.open(tutor, &progress);
                    }
                }
            }
            Action::Lesson(PlayerAction::Go(at)) => next.start_task(at, false),
            Action::Lesson(step) => {
                if let Some(run) = &mut next.lesson {
                    // The page shows what the run keeps; it has no use for the events.
                    let result = run.step(step, &next.lab.borrow());
                    if let Err(error) = result {
                        next.notice = Some(error);
                    }
                }
            }
            Action::ShowGoal(show) => {
                if let Some(run) = &next.lesson {
                    next.goal = if show { run.tutor.goal_snapshot(run.task()).map(Rc::new) } else { None };
                }
            }
            Action::StartOver => {
                if let Some(run) = &next.lesson {
                    let progress = Progress { attempt: run.attempt.wrapping_add(1), solved: Vec::new() };
                    let tutor = Rc::new(run.tutor.attempt(progress.attempt));
                    next.set_aside("Lesson started over: a new variant, nothing solved yet.");
                    next.open(tutor, &progress);
                }
            }
            Action::Sandbox => {
                if next.lesson.is_some() {
                    let sandbox = next.unpark(None).unwrap_or_default();
                    next.swap_in(sandbox);
                }
            }
        }
        next.refresh();
        if matches!(
            action,
            Action::Reset
                | Action::Restore(_)
                | Action::Recover
                | Action::OpenLesson(..)
                | Action::StartOver
                | Action::Sandbox
        ) {
            // Another session: nothing moved, there is nothing to animate.
            next.previous = next.snapshot.clone();
        }
        Rc::new(next)
    }
}

/// The scrollback of a session rebuilt from its log: its last applied steps as the console
/// printed them (connects and `:` lines print nothing there, nor does a clock move that served
/// no one).
fn replayed(lab: &Playground) -> Rc<Vec<LogEntry>> {
    let snapshot = lab.snapshot();
    let mut log = Vec::new();
    for step in lab.steps(snapshot.position.saturating_sub(LOG_KEPT), snapshot.position) {
        // A command whose only output went to others left its connection waiting.
        let (conn, blocked) = match step.conn {
            Some(conn) if !step.line.starts_with([':', '#']) => (conn, step.output.iter().all(|o| o.to.is_some())),
            None if !step.output.is_empty() => (snapshot.current.clone(), false),
            _ => continue,
        };
        log.push(LogEntry { conn, line: step.line, output: step.output, blocked, step: Some(step.id) });
    }
    Rc::new(log)
}

#[cfg(test)]
mod tests;
