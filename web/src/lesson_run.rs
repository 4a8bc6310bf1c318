//! One lesson being played, for every host (the page's player and the embedded widget's
//! lesson, quiz and player modes): which task is on, and everything the learner did in each
//! task — hints shown, the solution's confirmation and viewing, the last Check, answers,
//! wrong tries and the score. It all lives here, not in components, so a host can raise
//! events from it and save progress. Every judgement comes from the [`Tutor`] (and through it
//! the lessons crate's checker); the score rule is [`task_score`].

use std::rc::Rc;

use streamlab_view::embed::{
    question_score, task_max, task_score, CheckEvent, ProgressEvent, QuizAnswerEvent, SolutionPolicy,
    TaskCompleteEvent, TASK_MAX,
};
use streamlab_view::lesson::{commands_since, Answer, LessonView, Progress, TaskKindView, Tutor};
use streamlab_view::{json, Playground};

/// Events a step raised: (type, payload JSON). The embed raises them; the page has no use
/// for them.
pub type Events = Vec<(&'static str, String)>;

/// One option of a question once it is answered right: whether it is right, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    /// The option's index in the lesson.
    pub index: usize,
    /// Whether it is a right option.
    pub correct: bool,
    /// Why it is right or wrong.
    pub why: String,
}

/// What happened in one task.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskRun {
    /// Hints shown, in the order they were asked for: a failing check's own hint (from the
    /// last Check) comes before the next hint of the task's ladder. Each one counts.
    pub hints: Vec<String>,
    /// How far down the task's ladder of hints the learner went.
    pub ladder: usize,
    /// The solution was shown (a question: what the command prints, after a wrong try).
    pub solution: bool,
    /// "Show solution" was pressed once and waits for the confirmation.
    pub confirming: bool,
    /// The last Check since the task (re)started.
    pub check: Option<CheckEvent>,
    /// The answer shown (questions); "Try again" clears it.
    pub answer: Option<QuizAnswerEvent>,
    /// What the predicted command prints (predict tasks) or the right number (numeric), once
    /// answered; shown only once answered right, or revealed.
    pub reply: String,
    /// A typed prediction's explanation, shown with the reply.
    pub explain: String,
    /// Every option's judgement, once the question is answered right.
    pub options: Vec<Judged>,
    /// Wrong answers before the right one (questions).
    pub wrong: usize,
    /// The score, once the task is complete in this visit.
    pub score: Option<u32>,
    /// Solved (in this visit, or in an earlier one the host saved).
    pub done: bool,
    /// For a task that continued the learner's own session: the learner's logs of the earlier
    /// tasks of its chain, from its first (`None` where that task started from the reference
    /// solutions). With the task's own log it rebuilds the session a Check judged.
    pub base: Vec<Option<String>>,
}

/// What a host lets the learner do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Play only the questions (an embedded quiz).
    pub questions_only: bool,
    /// Hints are offered.
    pub hints: bool,
    /// Whether and how the solution may be shown.
    pub solution: SolutionPolicy,
}

/// A lesson being played. Cloned into every render and into the page's reducer state: the
/// lesson itself is shared (`Rc`), the rest is small.
#[derive(Debug, Clone)]
pub struct LessonRun {
    /// The lesson in its variant.
    pub tutor: Rc<Tutor>,
    /// What the player shows of it (computed once: it runs the intro's demos).
    pub view: Rc<LessonView>,
    /// The tasks played, by index in the lesson (a quiz plays only questions).
    pub order: Rc<Vec<usize>>,
    /// Position in `order`.
    pub at: usize,
    /// Where the task's session started (a timeline position); the learner's commands come
    /// after.
    pub start: usize,
    /// The current task continues the learner's own session from the task before it (rather
    /// than the reference solutions' end state).
    pub continued: bool,
    /// Per task, by index in the lesson.
    pub runs: Vec<TaskRun>,
    /// What the host allows.
    pub rules: Rules,
    /// How many times the lesson was started over (it picked the variant).
    pub attempt: u32,
    /// A message for the learner (a refused command, in hosts whose console does not say it).
    pub notice: Option<String>,
    /// Whether `lesson-complete` was raised.
    completed: bool,
}

/// The lesson and its view are replaced, never changed in place: comparing them by pointer
/// keeps every render from comparing whole lessons.
impl PartialEq for LessonRun {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.tutor, &other.tutor)
            && Rc::ptr_eq(&self.view, &other.view)
            && self.order == other.order
            && self.at == other.at
            && self.start == other.start
            && self.continued == other.continued
            && self.runs == other.runs
            && self.rules == other.rules
            && self.attempt == other.attempt
            && self.notice == other.notice
    }
}

/// Whether a task is answered rather than checked.
pub fn is_question(kind: &TaskKindView) -> bool {
    !matches!(kind, TaskKindView::ReachState { .. })
}

impl LessonRun {
    /// Plays `tutor` (already in the variant `progress.attempt` picks) under `rules`, with the
    /// tasks `progress` saved as solved marked done, at the first task not done. Fails when
    /// the rules leave no task to play.
    pub fn new(tutor: Rc<Tutor>, rules: Rules, progress: &Progress) -> Result<LessonRun, String> {
        let view = tutor.view();
        let order: Vec<usize> =
            (0..view.tasks.len()).filter(|&i| !rules.questions_only || is_question(&view.tasks[i].kind)).collect();
        if order.is_empty() {
            return Err(format!("the lesson {} has no tasks to play here", view.id));
        }
        let mut runs = vec![TaskRun::default(); view.tasks.len()];
        for &task in &progress.solved {
            if let Some(run) = runs.get_mut(task) {
                run.done = true;
            }
        }
        let at = order.iter().position(|&t| !runs[t].done).unwrap_or(0);
        Ok(LessonRun {
            tutor,
            view: Rc::new(view),
            order: Rc::new(order),
            at,
            start: 0,
            continued: false,
            runs,
            rules,
            attempt: progress.attempt,
            notice: None,
            completed: false,
        })
    }

    /// The current task's index in the lesson.
    pub fn task(&self) -> usize {
        self.order[self.at]
    }

    /// The current task's run.
    pub fn current(&self) -> &TaskRun {
        &self.runs[self.task()]
    }

    /// Whether the current task needs the console.
    pub fn needs_console(&self) -> bool {
        !is_question(&self.view.tasks[self.task()].kind)
    }

    /// What to save: the attempt and the tasks done.
    pub fn progress(&self) -> Progress {
        let solved = (0..self.runs.len()).filter(|&t| self.runs[t].done).collect();
        Progress { attempt: self.attempt, solved }
    }

    /// How many of the played tasks are done.
    pub fn done(&self) -> usize {
        self.order.iter().filter(|&&t| self.runs[t].done).count()
    }

    /// Moves to position `at` of the order (clamped) and puts the task's session in `lab`.
    /// Moving on from a task to the next one in the lesson, when that one continues, keeps
    /// the learner's own session (with the new task's setup run on it); otherwise the task
    /// starts from its start state (a task that continues, opened out of order, from the
    /// reference solutions of the tasks before it). On failure nothing changed.
    pub fn enter(&mut self, at: usize, lab: &mut Playground) -> Result<(), String> {
        let from = self.task();
        let at = at.min(self.order.len() - 1);
        let to = self.order[at];
        let base = if to == from + 1 && self.tutor.continues(to) {
            // The chain so far (the reference solutions where the task left did not continue
            // the learner's own session), then the task left's log.
            let mut base = if self.continued { self.runs[from].base.clone() } else { Vec::new() };
            base.resize(from - self.tutor.chain_start(from), None);
            base.push(Some(lab.console().log_since(self.start)));
            self.tutor.continue_into(to, lab);
            self.continued = true;
            base
        } else {
            *lab = self.tutor.start(to)?;
            self.continued = false;
            Vec::new()
        };
        self.runs[to].base = base;
        self.at = at;
        self.notice = None;
        self.start = lab.console().timeline().position();
        self.runs[to].check = None;
        Ok(())
    }

    /// Reset: the current task again from where it started (a continued session goes back to
    /// the step it continued from; the steps after it stay on the timeline to redo).
    pub fn restart(&mut self, lab: &mut Playground) -> Result<(), String> {
        if !self.continued {
            return self.enter(self.at, lab);
        }
        lab.seek(self.start);
        self.notice = None;
        let task = self.task();
        self.runs[task].check = None;
        Ok(())
    }

    /// State-changing commands the learner ran in the current task (what par counts).
    pub fn commands(&self, lab: &Playground) -> usize {
        commands_since(lab, self.start)
    }

    /// Why a typed line is refused in the current task.
    pub fn refusal(&self, line: &str) -> Option<String> {
        self.tutor.refusal(self.task(), line)
    }

    /// The reference solution of the current task.
    pub fn solution_lines(&self) -> Vec<String> {
        self.tutor.solution(self.task())
    }

    /// The current task's ladder of hints (empty for questions).
    pub fn ladder(&self) -> &[String] {
        match &self.view.tasks[self.task()].kind {
            TaskKindView::ReachState { hints, .. } => hints,
            _ => &[],
        }
    }

    /// The hint "Hint" would show next: a failing check's own hint from the last Check, then
    /// the ladder's next one (hints already shown are skipped).
    pub fn next_hint(&self) -> Option<(String, usize)> {
        if !self.rules.hints {
            return None;
        }
        let run = self.current();
        let fresh = |h: &&String| !run.hints.contains(h);
        if let Some(hint) = run.check.as_ref().and_then(|c| c.hints.iter().find(fresh)) {
            return Some((hint.clone(), run.ladder));
        }
        let ladder = self.ladder();
        let skipped = ladder.iter().skip(run.ladder).take_while(|h| !fresh(h)).count();
        ladder.get(run.ladder + skipped).map(|h| (h.clone(), run.ladder + skipped + 1))
    }

    /// Check on the current reach-state task.
    fn check(&mut self, lab: &Playground) -> Result<Events, String> {
        let task = self.task();
        let mut event = self
            .tutor
            .check(task, self.at, lab, self.start)
            .ok_or_else(|| format!("task {task} is a question: answer it instead of checking"))?;
        // Where the host turns hints off, the event does not carry them either.
        if !self.rules.hints {
            event.hints.clear();
        }
        let mut events = vec![("check", json(&event))];
        let run = &mut self.runs[task];
        run.check = Some(event.clone());
        if event.passed && run.score.is_none() {
            let hints = run.hints.len();
            let complete = TaskCompleteEvent {
                task: self.at,
                lesson_task: task,
                score: task_score(event.commands, event.par, hints, run.solution),
                max: TASK_MAX,
                commands: event.commands,
                par: event.par,
                hints_used: hints,
                solution_viewed: run.solution,
            };
            self.complete(complete, &mut events);
        }
        Ok(events)
    }

    /// Answers the current question. Once it is right, every option says why it is right or
    /// wrong; a wrong answer shows only what that answer's own explanation says.
    fn answer(&mut self, answer: Answer) -> Result<Events, String> {
        let task = self.task();
        let kind = &self.view.tasks[task].kind;
        if !is_question(kind) {
            return Err(format!("task {task} is checked, not answered"));
        }
        let answered = self.tutor.answer(task, &answer)?;
        let shown = match kind {
            TaskKindView::Choice { options, .. } | TaskKindView::Predict { options, .. } if answered.correct => {
                options.as_slice()
            }
            _ => &[],
        };
        let options = shown
            .iter()
            .filter_map(|o| self.tutor.option_why(task, o.index).ok().map(|(correct, why)| (o.index, correct, why)))
            .map(|(index, correct, why)| Judged { index, correct, why })
            .collect();
        let typed_prediction = matches!(kind, TaskKindView::Predict { options, .. } if options.is_empty());
        // Events number tasks as the learner sees them: question 1 of a quiz is 0.
        let mut event = QuizAnswerEvent {
            task: self.at,
            lesson_task: task,
            option: None,
            options: None,
            order: None,
            typed: None,
            correct: answered.correct,
            why: answered.why,
        };
        match answer {
            Answer::Option(n) => event.option = Some(n),
            Answer::Options(set) => event.options = Some(set),
            Answer::Order(steps) => event.order = Some(steps),
            Answer::Typed(text) => event.typed = Some(text),
        }
        let mut events = vec![("quiz-answer", json(&event))];
        let run = &mut self.runs[task];
        if typed_prediction {
            run.explain = event.why.clone();
        }
        run.answer = Some(event.clone());
        if !answered.reply.is_empty() {
            run.reply = answered.reply;
        }
        run.options = options;
        if run.score.is_none() {
            if event.correct {
                let complete = TaskCompleteEvent {
                    task: self.at,
                    lesson_task: task,
                    score: question_score(run.wrong, run.solution),
                    max: 1,
                    commands: 0,
                    par: 0,
                    hints_used: 0,
                    solution_viewed: run.solution,
                };
                self.complete(complete, &mut events);
            } else {
                run.wrong += 1;
            }
        }
        Ok(events)
    }

    /// "Try again": clears the shown answer (the wrong tries stay counted).
    fn retry(&mut self) {
        let task = self.task();
        let run = &mut self.runs[task];
        run.answer = None;
        run.options.clear();
    }

    /// Shows the next hint, when hints are offered.
    fn hint(&mut self) {
        if let Some((hint, ladder)) = self.next_hint() {
            let task = self.task();
            let run = &mut self.runs[task];
            run.hints.push(hint);
            run.ladder = ladder;
        }
    }

    /// "Show solution": asks first when the policy says so (a question, already tried, shows
    /// what the command prints at once).
    fn reveal(&mut self) {
        let task = self.task();
        let question = is_question(&self.view.tasks[task].kind);
        let run = &mut self.runs[task];
        match self.rules.solution {
            SolutionPolicy::Never => {}
            SolutionPolicy::Confirm if !question && !run.confirming && !run.solution => run.confirming = true,
            _ => {
                run.confirming = false;
                run.solution = true;
            }
        }
    }

    /// "Not yet": the confirmation goes away, the solution stays hidden.
    fn keep_hidden(&mut self) {
        let task = self.task();
        self.runs[task].confirming = false;
    }

    /// Performs a step that changes only the run (Check on `lab`, an answer, a hint, the
    /// solution, Try again). Moving (`Go`: the host replaces its session) and the page's own
    /// steps are the host's: they do nothing here.
    pub fn step(&mut self, step: PlayerAction, lab: &Playground) -> Result<Events, String> {
        match step {
            PlayerAction::Check => return self.check(lab),
            PlayerAction::Answer(answer) => return self.answer(answer),
            PlayerAction::Hint => self.hint(),
            PlayerAction::Reveal => self.reveal(),
            PlayerAction::KeepHidden => self.keep_hidden(),
            PlayerAction::Retry => self.retry(),
            PlayerAction::Go(_)
            | PlayerAction::Run(_)
            | PlayerAction::Goal(_)
            | PlayerAction::StartOver
            | PlayerAction::Sandbox
            | PlayerAction::List => {}
        }
        Ok(Vec::new())
    }

    /// A task is complete: its score is kept, and `task-complete` and the progress events
    /// are raised.
    fn complete(&mut self, complete: TaskCompleteEvent, events: &mut Events) {
        let run = &mut self.runs[complete.lesson_task];
        run.score = Some(complete.score);
        run.done = true;
        events.push(("task-complete", json(&complete)));
        self.progress_events(events);
    }

    /// The progress event (and `lesson-complete` the first time every task is done).
    fn progress_events(&mut self, events: &mut Events) {
        let max_of = |i: usize| task_max(is_question(&self.view.tasks[i].kind));
        let progress = ProgressEvent {
            lesson: self.view.id.clone(),
            done: self.done(),
            total: self.order.len(),
            score: self.order.iter().filter_map(|&i| self.runs[i].score).sum(),
            max: self.order.iter().map(|&i| max_of(i)).sum(),
        };
        events.push(("progress", json(&progress)));
        if progress.done == progress.total && !self.completed {
            self.completed = true;
            events.push(("lesson-complete", json(&progress)));
        }
    }
}

/// What a button asks the host to do.
#[derive(Debug, Clone, PartialEq)]
pub enum PlayerAction {
    /// Go to a position in the run's order (the host puts the task's session in its console).
    Go(usize),
    /// Check the current task.
    Check,
    /// Show the next hint.
    Hint,
    /// Show (or ask to confirm showing) the solution.
    Reveal,
    /// Decline the confirmation.
    KeepHidden,
    /// Answer the current question.
    Answer(Answer),
    /// Clear a wrong answer to try again.
    Retry,
    /// Run a line in the console (a predict task's command, once answered). Page only.
    Run(String),
    /// Show or hide the goal beside the current state. Page only.
    Goal(bool),
    /// Play the lesson again in the next hidden variant. Page only.
    StartOver,
    /// Leave the lesson, keeping its session. Page only.
    Sandbox,
    /// Back to the lesson list. Page only.
    List,
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamlab_view::SessionSpec;

    /// Every kind of task (the browser tests' fixture).
    const RICH: &str = include_str!("../../tests/browser/fixtures/rich.toml");

    const PAGE: Rules = Rules { questions_only: false, hints: true, solution: SolutionPolicy::Confirm };

    fn run(rules: Rules, progress: &Progress) -> LessonRun {
        let tutor = Rc::new(Tutor::parse("rich.toml", RICH, progress.attempt).unwrap());
        LessonRun::new(tutor, rules, &progress.clone()).unwrap()
    }

    fn type_lines(lab: &mut Playground, lines: &[&str]) {
        for line in lines {
            lab.run(line);
        }
    }

    /// A run at its first task, with the task's session.
    fn started(rules: Rules, progress: &Progress) -> (LessonRun, Playground) {
        let mut r = run(rules, progress);
        let mut lab = Playground::new(&SessionSpec::default());
        let at = r.at;
        r.enter(at, &mut lab).unwrap();
        (r, lab)
    }

    fn kind_at(r: &LessonRun, kind: &str) -> usize {
        let name = |k: &TaskKindView| match k {
            TaskKindView::ReachState { .. } => "reach-state",
            TaskKindView::Predict { options, .. } if options.is_empty() => "typed",
            TaskKindView::Predict { .. } => "predict",
            TaskKindView::Choice { multiple: true, .. } => "multiple",
            TaskKindView::Choice { .. } => "choice",
            TaskKindView::Numeric => "numeric",
            TaskKindView::Order { .. } => "order",
        };
        r.order.iter().position(|&t| name(&r.view.tasks[t].kind) == kind).unwrap()
    }

    #[test]
    fn saved_progress_marks_tasks_done_and_starts_at_the_first_open_one() {
        let r = run(PAGE, &Progress { attempt: 0, solved: vec![0, 1] });
        assert_eq!(r.at, 2);
        assert_eq!(r.progress(), Progress { attempt: 0, solved: vec![0, 1] });
        let quiz = run(Rules { questions_only: true, ..PAGE }, &Progress::default());
        assert!(quiz.order.iter().all(|&t| is_question(&quiz.view.tasks[t].kind)));
        assert!(!quiz.order.is_empty() && quiz.order.len() < quiz.view.tasks.len());
    }

    #[test]
    fn events_number_tasks_as_the_widget_shows_them() {
        // A quiz plays only the questions: its first one is task 0 whatever its place in the
        // lesson, and `lessonTask` is that place, the number the grader takes.
        let (mut quiz, lab) = started(Rules { questions_only: true, ..PAGE }, &Progress::default());
        let first = quiz.order[0];
        assert!(first > 0, "the fixture's first question is not its first task");
        let answer = match &quiz.view.tasks[first].kind {
            TaskKindView::Predict { options, .. } if options.is_empty() => Answer::Typed("0".into()),
            TaskKindView::Choice { multiple: true, .. } => Answer::Options(vec![0]),
            TaskKindView::Numeric => Answer::Typed("0".into()),
            TaskKindView::Order { steps } => Answer::Order((0..steps.len()).collect()),
            _ => Answer::Option(0),
        };
        let events = quiz.step(PlayerAction::Answer(answer), &lab).unwrap();
        assert!(events[0].1.starts_with(&format!("{{\"task\":0,\"lessonTask\":{first},")), "{events:?}");
        // In lesson and player modes every task is shown, so the two numbers agree.
        let (mut r, mut lab) = started(PAGE, &Progress::default());
        type_lines(&mut lab, &["carol> XAUTOCLAIM jobs workers carol 55000 0-0"]);
        let events = r.check(&lab).unwrap();
        assert!(events[0].1.starts_with("{\"task\":0,\"lessonTask\":0,"), "{events:?}");
        assert!(events[1].1.starts_with("{\"task\":0,\"lessonTask\":0,"), "{events:?}");
    }

    #[test]
    fn hints_come_from_the_failing_check_first_and_all_count() {
        let (mut r, mut lab) = started(PAGE, &Progress::default());
        assert_eq!(r.next_hint().unwrap().0, r.ladder()[0], "before a Check, the ladder");
        // A wrong path: the check says what happened, and its own hint waits behind Hint.
        type_lines(&mut lab, &["carol> XCLAIM jobs workers carol 0 1-0"]);
        let events = r.check(&lab).unwrap();
        let check = r.current().check.clone().unwrap();
        assert_eq!(check.misconception.as_deref(), Some("XCLAIM takes only the ids you name."));
        assert_eq!(check.hints, ["Claim from the start of the pending list."]);
        assert!(events[0].1.contains("\"misconception\":\"XCLAIM takes only the ids you name.\""), "{events:?}");
        r.hint();
        r.hint();
        r.hint();
        let shown = &r.current().hints;
        assert_eq!(shown[0], "Claim from the start of the pending list.");
        assert_eq!(shown[1..], r.ladder()[..2]);
        assert!(r.next_hint().is_none());
        // The reference solution passes; three hints cost one point.
        r.restart(&mut lab).unwrap();
        type_lines(&mut lab, &["carol> XAUTOCLAIM jobs workers carol 55000 0-0"]);
        let events = r.check(&lab).unwrap();
        let kinds: Vec<&str> = events.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, ["check", "task-complete", "progress"]);
        assert!(events[1].1.contains("\"hintsUsed\":3"), "{events:?}");
        assert_eq!(r.current().score, Some(2));
        let never = Rules { hints: false, solution: SolutionPolicy::Never, ..PAGE };
        let (mut r, _) = started(never, &Progress::default());
        r.hint();
        r.reveal();
        assert_eq!((r.current().hints.len(), r.current().solution), (0, false));
    }

    #[test]
    fn the_next_task_of_a_chain_continues_the_learners_session() {
        let (mut r, mut lab) = started(PAGE, &Progress::default());
        // Only two of bob's three jobs.
        type_lines(&mut lab, &["carol> XAUTOCLAIM jobs workers carol 55000 0-0 COUNT 2"]);
        r.enter(1, &mut lab).unwrap();
        assert!(r.continued);
        let carol = |lab: &Playground| {
            let groups = &lab.snapshot().streams.iter().find(|s| s.key == "jobs").unwrap().groups;
            groups[0].consumers.iter().find(|c| c.name == "carol").map_or(0, |c| c.pending.len())
        };
        assert_eq!(carol(&lab), 2, "the learner's own state");
        assert_eq!(r.commands(&lab), 0);
        // Reads are free; Reset goes back to where the task continued from.
        type_lines(&mut lab, &["XPENDING jobs workers", "carol> XACK jobs workers 1-0"]);
        assert_eq!(r.commands(&lab), 1);
        r.restart(&mut lab).unwrap();
        assert_eq!((r.commands(&lab), carol(&lab), r.continued), (0, 2, true));
        type_lines(
            &mut lab,
            &["carol> MULTI", "carol> XADD dead * source 3-0", "carol> XACK jobs workers 3-0", "carol> EXEC"],
        );
        assert!(r.check(&lab).unwrap()[0].1.contains("\"passed\":true"));
        // Opened out of order, it starts from the reference solutions' end state.
        r.enter(2, &mut lab).unwrap();
        r.enter(1, &mut lab).unwrap();
        assert!(!r.continued);
        assert_eq!(carol(&lab), 3);
    }

    #[test]
    fn a_wrong_answer_explains_only_itself_a_right_one_every_option() {
        let (mut r, mut lab) = started(PAGE, &Progress::default());
        let at = kind_at(&r, "choice");
        r.enter(at, &mut lab).unwrap();
        let TaskKindView::Choice { options, .. } = r.view.tasks[r.task()].kind.clone() else { unreachable!() };
        let right = options.iter().find(|o| r.tutor.option_why(r.task(), o.index).unwrap().0).unwrap().index;
        let wrong = options.iter().find(|o| o.index != right).unwrap().index;
        let events = r.answer(Answer::Option(wrong)).unwrap();
        assert!(events[0].1.contains(&format!("\"option\":{wrong}")));
        assert_eq!((r.current().wrong, r.current().options.len()), (1, 0));
        r.retry();
        assert!(r.current().answer.is_none());
        let events = r.answer(Answer::Option(right)).unwrap();
        assert!(events.iter().any(|(k, p)| *k == "task-complete" && p.contains("\"score\":0")));
        assert_eq!(r.current().options.len(), options.len(), "every option explains itself");
        assert!(r.current().done);
        assert!(r.answer(Answer::Typed("x".into())).is_err(), "a choice takes an option");
    }

    #[test]
    fn every_kind_of_question_is_answered_and_raises_its_fields() {
        let (mut r, mut lab) = started(PAGE, &Progress::default());
        let mut go = |r: &mut LessonRun, kind: &str| {
            let at = kind_at(r, kind);
            r.enter(at, &mut lab).unwrap();
        };
        go(&mut r, "multiple");
        let events = r.answer(Answer::Options(vec![0])).unwrap();
        assert!(
            events[0].1.contains("\"options\":[0]") && events[0].1.contains("1 right option is missing"),
            "{events:?}"
        );
        assert!(r.current().options.is_empty(), "a wrong set names no option");
        let events = r.answer(Answer::Options(vec![1, 0])).unwrap();
        assert!(events[0].1.contains("\"correct\":true"));
        assert_eq!(r.current().options.len(), 4);
        go(&mut r, "order");
        let TaskKindView::Order { steps } = r.view.tasks[r.task()].kind.clone() else { unreachable!() };
        assert_ne!(steps.iter().map(|s| s.index).collect::<Vec<_>>(), [0, 1, 2, 3], "shown shuffled");
        let events = r.answer(Answer::Order(vec![0, 1, 2, 3])).unwrap();
        assert!(events[0].1.contains("\"order\":[0,1,2,3]") && events[0].1.contains("\"correct\":true"));
        go(&mut r, "numeric");
        let events = r.answer(Answer::Typed("3".into())).unwrap();
        assert!(events[0].1.contains("\"typed\":\"3\"") && events[0].1.contains("\"correct\":false"));
        assert!(r.current().reply.is_empty(), "a wrong number does not give the right one away");
        r.answer(Answer::Typed("2".into())).unwrap();
        assert_eq!(r.current().reply, "2");
        // A typed prediction: a wrong try keeps the reply back until it is asked for.
        go(&mut r, "typed");
        r.answer(Answer::Typed("(integer) 2".into())).unwrap();
        assert_eq!(r.current().reply, "(integer) 1");
        assert!(!r.current().solution);
        r.reveal();
        assert!(r.current().solution, "a question shows the reply without a confirmation");
        let events = r.answer(Answer::Typed("1".into())).unwrap();
        assert!(events.iter().any(|(k, p)| *k == "task-complete" && p.contains("\"solutionViewed\":true")));
    }

    #[test]
    fn attempts_shuffle_the_options_and_pick_variants() {
        let shown = |attempt: u32| {
            let r = run(PAGE, &Progress { attempt, solved: Vec::new() });
            let at = kind_at(&r, "multiple");
            let TaskKindView::Choice { options, .. } = &r.view.tasks[r.order[at]].kind else { unreachable!() };
            (options.iter().map(|o| o.index).collect::<Vec<_>>(), r.tutor.variant())
        };
        let (first, variant) = shown(0);
        let (second, next) = shown(1);
        assert_ne!(first, second, "Start over shows the options in another order");
        assert_eq!((variant, next), (0, 1));
    }
}
