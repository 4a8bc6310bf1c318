//! One lesson being played, for every host (the page's player and the embedded widget's
//! lesson, quiz and player modes): which task is on, and everything the learner did in each
//! task — hints shown, the solution's confirmation and viewing, the last Check, answers,
//! wrong tries and the score. It all lives here, not in components, so a host can raise
//! events from it and save progress. Every judgement comes from the [`Tutor`] (and through it
//! the lessons crate's checker); the score rule is [`task_score`].

use std::rc::Rc;

use streamlab_wasm::embed::{
    task_score, CheckEvent, Prediction, ProgressEvent, QuizAnswerEvent, SolutionPolicy, TaskCompleteEvent, TASK_MAX,
};
use streamlab_wasm::lesson::{commands_since, Answered, LessonView, Progress, TaskKindView, Tutor};
use streamlab_wasm::{json, Playground};

/// Events a step raised: (type, payload JSON). The embed raises them; the page has no use
/// for them.
pub type Events = Vec<(&'static str, String)>;

/// What happened in one task.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskRun {
    /// Hints shown.
    pub hints: usize,
    /// The solution was shown.
    pub solution: bool,
    /// "Show solution" was pressed once and waits for the confirmation.
    pub confirming: bool,
    /// The last Check since the task (re)started.
    pub check: Option<CheckEvent>,
    /// The answer shown (questions); "Try again" clears it.
    pub answer: Option<QuizAnswerEvent>,
    /// What the predicted command prints, once answered (predict tasks).
    pub reply: String,
    /// Every option's judgement, once an option was chosen: each says why it is right or wrong.
    pub options: Vec<Answered>,
    /// Wrong answers before the right one (questions).
    pub wrong: usize,
    /// The score, once the task is complete in this visit.
    pub score: Option<u32>,
    /// Solved (in this visit, or in an earlier one the host saved).
    pub done: bool,
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
    /// Steps the task's session had when it started; the learner's commands come after.
    pub start: usize,
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

    /// Moves to position `at` of the order (clamped).
    pub fn go(&mut self, at: usize) {
        self.at = at.min(self.order.len() - 1);
        self.notice = None;
    }

    /// A session at the current task's start state (the host puts it in its console); the
    /// last Check no longer describes it.
    pub fn session(&mut self) -> Result<Playground, String> {
        let task = self.task();
        let playground = self.tutor.start(task)?;
        self.start = playground.step_count();
        self.runs[task].check = None;
        Ok(playground)
    }

    /// Commands the learner ran in the current task.
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

    /// Check on the current reach-state task.
    fn check(&mut self, lab: &Playground) -> Result<Events, String> {
        let task = self.task();
        let event = self
            .tutor
            .check(task, lab, self.start)
            .ok_or_else(|| format!("task {task} is a question: answer it instead of checking"))?;
        let mut events = vec![("check", json(&event))];
        let run = &mut self.runs[task];
        run.check = Some(event.clone());
        if event.passed && run.score.is_none() {
            let complete = TaskCompleteEvent {
                task,
                score: task_score(event.commands, event.par, run.hints, run.solution),
                max: TASK_MAX,
                commands: event.commands,
                par: event.par,
                hints_used: run.hints,
                solution_viewed: run.solution,
            };
            self.complete(complete, &mut events);
        }
        Ok(events)
    }

    /// Answers the current question with an option or a typed reply.
    fn answer(&mut self, answer: Prediction) -> Result<Events, String> {
        let task = self.task();
        let judge = |answer: &Prediction| match (&self.view.tasks[task].kind, answer) {
            (TaskKindView::Choice { .. }, Prediction::Option(n)) => self.tutor.choose(task, *n),
            (TaskKindView::Choice { .. }, Prediction::Typed(_)) => Err(format!("task {task} takes an option")),
            (TaskKindView::Predict { .. }, answer) => self.tutor.predict(task, answer),
            (TaskKindView::ReachState { .. }, _) => Err(format!("task {task} is checked, not answered")),
        };
        let answered = judge(&answer)?;
        // Once an option is chosen, every option shows why it is right or wrong.
        let options = match (&answer, &self.view.tasks[task].kind) {
            (Prediction::Option(_), TaskKindView::Choice { options } | TaskKindView::Predict { options, .. }) => {
                (0..options.len()).filter_map(|n| judge(&Prediction::Option(n)).ok()).collect()
            }
            _ => Vec::new(),
        };
        let (option, typed) = match answer {
            Prediction::Option(n) => (Some(n), None),
            Prediction::Typed(text) => (None, Some(text)),
        };
        let event = QuizAnswerEvent { task, option, typed, correct: answered.correct, why: answered.why };
        let mut events = vec![("quiz-answer", json(&event))];
        let run = &mut self.runs[task];
        run.answer = Some(event.clone());
        run.reply = answered.reply;
        run.options = options;
        if run.score.is_none() {
            if event.correct {
                let complete = TaskCompleteEvent {
                    task,
                    score: u32::from(run.wrong == 0),
                    max: 1,
                    commands: 0,
                    par: 0,
                    hints_used: 0,
                    solution_viewed: false,
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
        run.reply.clear();
        run.options.clear();
    }

    /// Shows the next hint, when hints are offered.
    fn hint(&mut self) {
        let task = self.task();
        if let (true, TaskKindView::ReachState { hints, .. }) = (self.rules.hints, &self.view.tasks[task].kind) {
            let run = &mut self.runs[task];
            run.hints = (run.hints + 1).min(hints.len());
        }
    }

    /// "Show solution": asks first when the policy says so.
    fn reveal(&mut self) {
        let task = self.task();
        let run = &mut self.runs[task];
        match self.rules.solution {
            SolutionPolicy::Never => {}
            SolutionPolicy::Confirm if !run.confirming && !run.solution => run.confirming = true,
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
    pub fn step(&mut self, step: Step, lab: &Playground) -> Result<Events, String> {
        match step {
            Step::Check => return self.check(lab),
            Step::Answer(answer) => return self.answer(answer),
            Step::Hint => self.hint(),
            Step::Reveal => self.reveal(),
            Step::KeepHidden => self.keep_hidden(),
            Step::Retry => self.retry(),
            Step::Go(_) | Step::Run(_) | Step::Goal(_) | Step::StartOver | Step::Sandbox | Step::List => {}
        }
        Ok(Vec::new())
    }

    /// A task is complete: its score is kept, and `task-complete` and the progress events
    /// are raised.
    fn complete(&mut self, complete: TaskCompleteEvent, events: &mut Events) {
        let run = &mut self.runs[complete.task];
        run.score = Some(complete.score);
        run.done = true;
        events.push(("task-complete", json(&complete)));
        self.progress_events(events);
    }

    /// The progress event (and `lesson-complete` the first time every task is done).
    fn progress_events(&mut self, events: &mut Events) {
        let max_of = |i: usize| if is_question(&self.view.tasks[i].kind) { 1 } else { TASK_MAX };
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
pub enum Step {
    /// Go to a position in the run's order (the task's session restarts).
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
    Answer(Prediction),
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
    use streamlab_wasm::SessionSpec;

    const NOACK: &str = include_str!("../../lessons/noack.toml");

    fn run(rules: Rules, progress: &Progress) -> LessonRun {
        let tutor = Rc::new(Tutor::parse("noack.toml", NOACK, progress.attempt).unwrap());
        LessonRun::new(tutor, rules, progress).unwrap()
    }

    const PAGE: Rules = Rules { questions_only: false, hints: true, solution: SolutionPolicy::Confirm };

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
    fn hints_and_the_solution_follow_the_rules_and_score() {
        let mut r = run(PAGE, &Progress::default());
        let lab = r.session().unwrap();
        r.hint();
        r.reveal();
        assert!(r.current().confirming && !r.current().solution);
        r.keep_hidden();
        assert!(!r.current().confirming);
        r.reveal();
        r.reveal();
        assert!(r.current().solution);
        let events = r.check(&lab).unwrap();
        assert_eq!(events.len(), 1, "a failing check raises only `check`");
        assert!(!r.current().done);
        // The reference solution passes; hints and the solution cost points.
        let mut lab = r.session().unwrap();
        for line in r.solution_lines() {
            let (conn, text) = streamlab_wasm::lesson::split_connection(&line);
            if let Some(conn) = conn {
                lab.switch(conn);
            }
            lab.run(text);
        }
        let events = r.check(&lab).unwrap();
        let kinds: Vec<&str> = events.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, ["check", "task-complete", "progress"]);
        assert_eq!(r.current().score, Some(1));
        assert_eq!(r.progress().solved, vec![0]);
        let never = Rules { hints: false, solution: SolutionPolicy::Never, ..PAGE };
        let mut r = run(never, &Progress::default());
        r.hint();
        r.reveal();
        assert_eq!((r.current().hints, r.current().solution), (0, false));
        assert!(r.commands(&Playground::new(&SessionSpec::default())) == 0);
    }

    #[test]
    fn answers_count_wrong_tries_and_explain_every_option() {
        let mut r = run(PAGE, &Progress::default());
        let at = r.order.iter().position(|&t| matches!(r.view.tasks[t].kind, TaskKindView::Choice { .. })).unwrap();
        r.go(at);
        let TaskKindView::Choice { options } = &r.view.tasks[r.task()].kind else { unreachable!() };
        let count = options.len();
        let right = (0..count).find(|&n| r.tutor.choose(r.task(), n).unwrap().correct).unwrap();
        let wrong = (0..count).find(|&n| n != right).unwrap();
        r.answer(Prediction::Option(wrong)).unwrap();
        assert_eq!((r.current().wrong, r.current().options.len()), (1, count));
        r.retry();
        assert!(r.current().answer.is_none() && r.current().options.is_empty());
        let events = r.answer(Prediction::Option(right)).unwrap();
        assert!(events.iter().any(|(k, p)| *k == "task-complete" && p.contains("\"score\":0")));
        assert!(r.current().done);
        assert!(r.answer(Prediction::Typed("x".into())).is_err(), "a choice takes an option");
    }
}
