//! The lesson player's handle: a lesson (parsed, or validated when it comes from outside)
//! played in one hidden variant, and what the player shows of it as DTOs. Every judgement
//! comes from `streamlab-lessons` (the same checker CI's validator and graders use); this
//! module only builds the learner's session and turns answers into views.

use std::rc::Rc;

use serde::Serialize;
use streamlab_lessons::model::{Goal, TaskKind};
use streamlab_lessons::script::{log_of, parse_line, Parsed};
use streamlab_lessons::validate::parse_index;
use streamlab_lessons::{
    check_answer, judge, option_why, parse_lesson, run_one, shown_order, turned_off, Lesson, LessonError,
};
use streamlab_protocol::console::DEFAULT_CONNECTION;

use crate::embed::CheckEvent;
use crate::view::{self, SnapshotView};
use crate::Playground;

pub use streamlab_lessons::{Answer, Answered};

/// A lesson file problem, as the player lists it.
pub type Problem = LessonError;

/// Problems as lines: `file:line:column: message`.
pub fn describe(problems: &[Problem]) -> String {
    problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
}

/// A section of the lesson list (`lessons/index.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionView {
    /// Its title.
    pub title: String,
    /// Lesson ids, in order.
    pub lessons: Vec<String>,
}

/// Reads `lessons/index.toml`.
pub fn sections(text: &str) -> Result<Vec<SectionView>, Problem> {
    let index = parse_index("index.toml", text)?;
    Ok(index.sections.into_iter().map(|s| SectionView { title: s.title, lessons: s.lessons }).collect())
}

/// One intro step: its text and its demo commands with their replies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IntroView {
    /// Markdown (no raw HTML: the validator refuses it, the player renders a safe subset).
    pub text: String,
    /// The demo, run on the lesson's session in order.
    pub demo: Vec<DemoLine>,
}

/// A demo command and what it printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DemoLine {
    /// The connection that ran it.
    pub conn: String,
    /// The command (or `:clock` step).
    pub line: String,
    /// What the console printed.
    pub output: Vec<String>,
}

/// An option (or an order task's step) as shown: its text and its number in the lesson, which
/// answers name whatever order the options are shown in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OptionView {
    /// The option's index in the lesson file.
    pub index: usize,
    /// Its text (markdown, or a reply as redis-cli prints it).
    pub text: String,
}

/// What a task asks, without its answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum TaskKindView {
    /// Reach a state in the console.
    ReachState {
        /// Hints, shown one at a time.
        hints: Vec<String>,
        /// The fewest state-changing commands that reach the goal (reads are free).
        par: usize,
        /// Commands the task turns off.
        disabled: Vec<String>,
        /// The task starts where the previous one ended.
        continues: bool,
    },
    /// Say what a command prints before running it.
    Predict {
        /// The command.
        command: String,
        /// Replies to choose from, in the order shown; empty when the reply is typed.
        options: Vec<OptionView>,
    },
    /// Pick the right answer (every right answer, with `multiple`).
    Choice {
        /// The options, in the order shown.
        options: Vec<OptionView>,
        /// Several options are right: choose all of them.
        multiple: bool,
    },
    /// Give a number.
    Numeric,
    /// Put steps in order.
    Order {
        /// The steps, in the (shuffled) order they start in.
        steps: Vec<OptionView>,
    },
}

/// A task as the player shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskView {
    /// Short title.
    pub title: String,
    /// What to do (markdown).
    pub prompt: String,
    /// Its kind and what the kind shows.
    pub kind: TaskKindView,
}

/// A lesson as the player shows it, in the variant being played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LessonView {
    /// Id.
    pub id: String,
    /// Version (progress is saved per id and version).
    pub version: u32,
    /// Title.
    pub title: String,
    /// Summary (markdown).
    pub summary: String,
    /// The Redis it is written for.
    pub profile: String,
    /// Estimated minutes.
    pub minutes: u32,
    /// Lessons to take first.
    pub prerequisites: Vec<String>,
    /// The intro.
    pub intro: Vec<IntroView>,
    /// The tasks.
    pub tasks: Vec<TaskView>,
}

/// A lesson in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LessonSummary {
    /// Id.
    pub id: String,
    /// Version.
    pub version: u32,
    /// Title.
    pub title: String,
    /// Summary (markdown).
    pub summary: String,
    /// Estimated minutes.
    pub minutes: u32,
    /// How many tasks.
    pub tasks: usize,
}

/// Progress saved on this machine for one lesson version.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Progress {
    /// How many times the lesson was started over (chooses the hidden variant).
    pub attempt: u32,
    /// Tasks solved, by index.
    pub solved: Vec<usize>,
}

impl Progress {
    /// The storage key: a changed lesson (new version) starts with no progress.
    pub fn key(id: &str, version: u32) -> String {
        format!("streamlab.lesson.{id}@{version}")
    }

    /// Reads saved progress (`ATTEMPT;T,T,...`); anything unreadable is no progress.
    pub fn parse(text: &str) -> Progress {
        let read = || -> Option<Progress> {
            let (attempt, solved) = text.split_once(';')?;
            let solved = solved.split(',').filter(|t| !t.is_empty()).map(|t| t.parse().ok()).collect::<Option<_>>()?;
            Some(Progress { attempt: attempt.parse().ok()?, solved })
        };
        read().unwrap_or_default()
    }

    /// As saved.
    pub fn to_text(&self) -> String {
        let solved: Vec<String> = self.solved.iter().map(ToString::to_string).collect();
        format!("{};{}", self.attempt, solved.join(","))
    }

    /// Marks a task solved.
    pub fn solve(&mut self, task: usize) {
        if !self.solved.contains(&task) {
            self.solved.push(task);
            streamlab_engine::sort::sort(&mut self.solved);
        }
    }

    /// Whether every one of `tasks` tasks is solved.
    pub fn complete(&self, tasks: usize) -> bool {
        (0..tasks).all(|t| self.solved.contains(&t))
    }
}

/// A lesson being played in one variant, on one attempt (which also shuffles its options).
#[derive(Debug, Clone, PartialEq)]
pub struct Tutor {
    /// Shared, not copied, between attempts: `Lesson`'s derived `Clone` (every task, check
    /// and variant) was 4 KB of the app's wasm for starting a lesson over.
    lesson: Rc<Lesson>,
    variant: usize,
    attempt: u32,
}

impl Tutor {
    /// A lesson, parsed: its structure and limits are checked, with lines. The full check (that
    /// each solution reaches its goal, the variants, the prose) is `streamlab check`'s: our
    /// lessons pass it in CI, and an author runs it on theirs; the validator stays out of the
    /// page, where it would cost 16 KB of the app's 350 KB gzipped budget. `attempt` picks the
    /// hidden variant, so starting over plays different ids and names.
    pub fn parse(file: &str, text: &str, attempt: u32) -> Result<Tutor, Vec<Problem>> {
        let lesson = parse_lesson(file, text)?;
        Ok(Tutor::in_variant(Rc::new(lesson), attempt))
    }

    /// The same lesson for another attempt (another hidden variant).
    pub fn attempt(&self, attempt: u32) -> Tutor {
        Tutor::in_variant(Rc::clone(&self.lesson), attempt)
    }

    /// What the lesson list shows.
    pub fn summary(&self) -> LessonSummary {
        let lesson = &self.lesson;
        LessonSummary {
            id: lesson.id.clone(),
            version: lesson.version,
            title: lesson.title.clone(),
            summary: lesson.summary.clone(),
            minutes: lesson.minutes,
            tasks: lesson.tasks.len(),
        }
    }

    fn in_variant(lesson: Rc<Lesson>, attempt: u32) -> Tutor {
        let variant = attempt as usize % lesson.variants.len().max(1);
        Tutor { lesson, variant, attempt }
    }

    /// Whether task `task` starts where the previous one ended.
    pub fn continues(&self, task: usize) -> bool {
        self.lesson.tasks.get(task).is_some_and(|t| t.continues)
    }

    /// The lesson's id.
    pub fn id(&self) -> &str {
        &self.lesson.id
    }

    /// The lesson's version.
    pub fn version(&self) -> u32 {
        self.lesson.version
    }

    /// The first task of the chain task `task` belongs to (itself unless it continues).
    pub fn chain_start(&self, task: usize) -> usize {
        *self.lesson.chain(task).start()
    }

    /// Which variant is played (0: the lesson as written).
    pub fn variant(&self) -> usize {
        self.variant
    }

    fn text(&self, text: &str) -> String {
        self.lesson.render(text, self.variant)
    }

    /// A console line or a reply in this variant (every name renamed, not only in code).
    fn code(&self, text: &str) -> String {
        self.lesson.variants[self.variant].apply(text)
    }

    /// The lesson as the player shows it: texts in this variant, and the intro's demos run.
    pub fn view(&self) -> LessonView {
        let lesson = &self.lesson;
        let variant = &lesson.variants[self.variant];
        // `self.variant` is one of the lesson's (Display, not `expect`'s Debug: no escaping
        // code in the wasm for a message that cannot be shown).
        let mut console = lesson.after_setup(self.variant).unwrap_or_else(|e| unreachable!("{e}"));
        let intro = lesson
            .intro
            .iter()
            .map(|step| IntroView {
                text: self.text(&step.text),
                demo: log_of(&step.demo, variant)
                    .into_iter()
                    .map(|line| {
                        let output = run_one(&mut console, &line, &mut String::new());
                        DemoLine { conn: line.conn, line: line.text, output }
                    })
                    .collect(),
            })
            .collect();
        // Options and steps in this attempt's order, each with its number in the lesson.
        let shown = |n: usize, texts: &[&str], render: &dyn Fn(&str) -> String| -> Vec<OptionView> {
            shown_order(lesson, n, self.attempt)
                .into_iter()
                .filter_map(|index| texts.get(index).map(|text| OptionView { index, text: render(text) }))
                .collect()
        };
        let (prose, code) = (|t: &str| self.text(t), |t: &str| self.code(t));
        let tasks = lesson
            .tasks
            .iter()
            .enumerate()
            .map(|(n, task)| TaskView {
                title: self.text(&task.title),
                prompt: self.text(&task.prompt),
                kind: match &task.kind {
                    TaskKind::ReachState(goal) => TaskKindView::ReachState {
                        hints: goal.hints.iter().map(|h| self.text(h)).collect(),
                        par: goal.par,
                        disabled: goal.disabled.clone(),
                        continues: task.continues,
                    },
                    TaskKind::Predict(predict) => TaskKindView::Predict {
                        command: self.code(&predict.command.text),
                        options: shown(n, &predict.options.iter().map(|o| o.text.as_str()).collect::<Vec<_>>(), &code),
                    },
                    TaskKind::Choice(choice) => TaskKindView::Choice {
                        options: shown(n, &choice.options.iter().map(|o| o.text.as_str()).collect::<Vec<_>>(), &prose),
                        multiple: choice.multiple,
                    },
                    TaskKind::Numeric(_) => TaskKindView::Numeric,
                    TaskKind::Order(order) => TaskKindView::Order {
                        steps: shown(n, &order.steps.iter().map(String::as_str).collect::<Vec<_>>(), &prose),
                    },
                },
            })
            .collect();
        LessonView {
            id: lesson.id.clone(),
            version: lesson.version,
            title: self.text(&lesson.title),
            summary: self.text(&lesson.summary),
            profile: lesson.profile.to_string(),
            minutes: lesson.minutes,
            prerequisites: lesson.prerequisites.clone(),
            intro,
            tasks,
        }
    }

    /// The learner's session for a task: the lesson's setup, the intro's demos and the task's
    /// own setup, exactly as the checker builds it.
    pub fn start(&self, task: usize) -> Result<Playground, String> {
        let mut console = self.lesson.task_start(task, self.variant).map_err(|e| e.to_string())?;
        // Lesson lines without a `name> ` prefix run on the default connection: so do the
        // learner's, until they switch.
        console.switch(DEFAULT_CONNECTION);
        let clock = self.lesson.start_clock(&self.lesson.variants[self.variant]);
        Ok(Playground::from_console(console.interactive(), clock))
    }

    /// Carries the learner's session on into task `task`, one that continues: its own setup
    /// runs on the session as it is (as the checker runs it on the previous task's end), and
    /// the learner stays on the connection they were on.
    pub fn continue_into(&self, task: usize, playground: &mut Playground) {
        let Some(t) = self.lesson.tasks.get(task) else { return };
        let current = playground.snapshot().current.clone();
        for line in log_of(&t.setup, &self.lesson.variants[self.variant]) {
            if line.is_command() {
                playground.switch(&line.conn);
            }
            playground.run(&line.text);
        }
        playground.switch(&current);
    }

    fn goal(&self, task: usize) -> Option<&Goal> {
        match &self.lesson.tasks.get(task)?.kind {
            TaskKind::ReachState(goal) => Some(goal),
            _ => None,
        }
    }

    /// Why a line typed during a task is refused (a command the task turns off), as the
    /// console shows it; `None` when it may run.
    pub fn refusal(&self, task: usize, line: &str) -> Option<String> {
        let (_, text) = split_connection(line);
        // A task's work is what the timeline holds from its start on, so stepping back past it
        // (`:undo`, `:redo`), another server (`:profile`) or generated entries (`:fill`) would
        // have the checks read something else; the Undo button stops at the task's start.
        if let Some(meta) = text.trim_start().strip_prefix(':') {
            let word = meta.split_whitespace().next().unwrap_or_default();
            return (!matches!(word, "as" | "clock")).then(|| {
                format!("(error) `{}` is turned off in a lesson: only `:as` and `:clock` work here", text.trim())
            });
        }
        self.lesson.is_disabled(task, text).then(|| format!("(error) {}", turned_off(text)))
    }

    /// Checks a reach-state task on the learner's session as it is now. `start` is how many
    /// steps the session had when the task started (the learner's commands come after);
    /// `place` is the task's place among those the player plays (the event's `task`).
    pub fn check(&self, task: usize, place: usize, playground: &Playground, start: usize) -> Option<CheckEvent> {
        let verdict = judge(&self.lesson, task, self.variant, playground.console(), start).ok()?;
        Some(CheckEvent {
            task: place,
            lesson_task: task,
            passed: verdict.passed,
            misconception: verdict.misconception,
            hints: verdict.failures.iter().filter_map(|f| f.hint.clone()).collect(),
            failed: verdict.failures.into_iter().map(|f| f.message).collect(),
            commands: verdict.commands,
            par: verdict.par,
        })
    }

    /// A reach-state task's goal: its start with the reference solution run.
    pub fn goal_snapshot(&self, task: usize) -> Option<SnapshotView> {
        let console = self.lesson.goal_state(task, self.variant).ok()?;
        Some(view::snapshot(&console, &view::Opened::default()))
    }

    /// The reference solution's lines (`name> COMMAND` runs on that connection).
    pub fn solution(&self, task: usize) -> Vec<String> {
        self.goal(task).map_or_else(Vec::new, |goal| goal.solution.iter().map(|l| self.code(&l.text)).collect())
    }

    /// Answers a question (option and step numbers are the lesson's, as [`OptionView::index`]
    /// gives them).
    pub fn answer(&self, task: usize, answer: &Answer) -> Result<Answered, String> {
        check_answer(&self.lesson, task, self.variant, answer).map_err(|e| e.to_string())
    }

    /// Whether option `option` of a question is right, and why (shown for every option once
    /// the question is answered right).
    pub fn option_why(&self, task: usize, option: usize) -> Result<(bool, String), String> {
        option_why(&self.lesson, task, self.variant, option).map_err(|e| e.to_string())
    }
}

/// State-changing commands run after the first `start` steps, up to the current position
/// (the learner's command count in a task, which par is measured against: reads are free).
pub fn commands_since(playground: &Playground, start: usize) -> usize {
    streamlab_lessons::Trail::of(playground.console(), start).changes()
}

/// A line as lessons write it: `name> COMMAND` runs on connection `name`. Returns the
/// connection (if named) and the rest.
pub fn split_connection(line: &str) -> (Option<&str>, &str) {
    match parse_line(line) {
        Ok(Parsed::Run { conn, text }) => (conn, text),
        _ => (None, line),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lessons crate's fixture: every kind of task, parameters, a chain, misconceptions.
    const RICH: &str = include_str!("../../lessons/tests/fixtures/rich.toml");

    fn rich(attempt: u32) -> Tutor {
        Tutor::parse("rich.toml", RICH, attempt).unwrap()
    }

    #[test]
    fn a_task_is_played_on_the_checkers_start_state() {
        let tutor = rich(0);
        let view = tutor.view();
        assert_eq!(view.intro[0].text, "bob took 3 jobs 60 s ago.");
        let demo = &view.intro[0].demo;
        assert_eq!((demo[0].conn.as_str(), demo[0].line.as_str()), ("default", "XPENDING jobs workers"));
        assert_eq!(demo[0].output[0], "1) (integer) 3");
        let mut lab = tutor.start(0).unwrap();
        assert_eq!(lab.snapshot().current, "default");
        let start = lab.step_count();
        let check = tutor.check(0, 0, &lab, start).unwrap();
        assert_eq!(check.failed, ["carol holds 0 of 3.", "carol ran XAUTOCLAIM 0 times."]);
        assert_eq!(check.hints, ["Claim from the start of the pending list."]);
        // Looking first is free; XCLAIM of one id is the misconception the lesson names.
        lab.switch("carol");
        lab.run("XPENDING jobs workers - + 10");
        lab.run("XCLAIM jobs workers carol 0 1-0");
        let check = tutor.check(0, 0, &lab, start).unwrap();
        assert_eq!((check.passed, check.commands), (false, 1));
        assert_eq!(check.misconception.as_deref(), Some("XCLAIM takes only the ids you name."));
        lab.run("XAUTOCLAIM jobs workers carol 55000 0-0");
        let check = tutor.check(0, 0, &lab, start).unwrap();
        assert_eq!((check.passed, check.commands, check.par), (true, 2, 1));
        // The goal is the start with the solution run.
        let goal = tutor.goal_snapshot(0).unwrap();
        assert!(goal.streams[0].groups.iter().any(|g| g.name == "workers" && g.pending == 3));
        // Questions are answered, not checked on the session.
        assert!(tutor.check(2, 2, &lab, start).is_none());
        assert!(tutor.answer(2, &Answer::Typed("2".into())).unwrap().correct);
        assert!(tutor.answer(4, &Answer::Options(vec![0, 1])).unwrap().correct);
        assert_eq!(tutor.option_why(4, 2), Ok((false, "It only waits longer.".to_owned())));
        assert!(tutor.continues(1) && !tutor.continues(0));
    }

    #[test]
    fn options_are_shown_shuffled_with_their_numbers() {
        let orders: Vec<Vec<usize>> = (0..6)
            .map(|attempt| match &rich(attempt).view().tasks[5].kind {
                TaskKindView::Order { steps } => steps.iter().map(|s| s.index).collect(),
                other => unreachable!("{other:?}"),
            })
            .collect();
        assert!(orders.iter().all(|o| o != &[0, 1, 2]), "an order task never starts solved");
        let TaskKindView::Choice { options, multiple } = &rich(1).view().tasks[4].kind else { unreachable!() };
        assert!(*multiple);
        let right = options.iter().find(|o| o.text == "Reading with NOACK").unwrap();
        assert!(rich(1).answer(4, &Answer::Options(vec![right.index, 0])).unwrap().correct);
    }

    #[test]
    fn disabled_commands_are_refused_whatever_the_connection() {
        let tutor =
            Tutor::parse("r.toml", &RICH.replace("hints = [\"An idle", "disabled = [\"XDEL\"]\nhints = [\"An idle"), 0)
                .unwrap();
        assert!(tutor.refusal(0, "alice> XDEL jobs 1-0").is_some_and(|r| r.contains("turned off")));
        assert!(tutor.refusal(0, "xdel jobs 1-0").is_some());
        assert!(tutor.refusal(0, "XLEN jobs").is_none());
        // Time travel past the task's start, another server or generated entries are refused;
        // switching connections and moving the clock are part of a task's work.
        assert!(tutor.refusal(0, ":undo").is_some_and(|r| r.contains("turned off in a lesson")));
        assert!(tutor.refusal(0, ":profile redis-7.4").is_some());
        assert!(tutor.refusal(0, ":fill s 100").is_some());
        assert!(tutor.refusal(0, ":clock +5s").is_none() && tutor.refusal(0, ":as bob").is_none());
    }

    #[test]
    fn later_attempts_play_hidden_variants() {
        let tutor = rich(1);
        assert_eq!(tutor.variant(), 1);
        assert_eq!(tutor.view().intro[0].text, "bob took 4 jobs 40 s ago.");
        assert_eq!(tutor.solution(0)[0], "carol> XAUTOCLAIM jobs workers carol 35000 0-0");
        // The answer remembered from the lesson as written does not fit.
        let mut lab = tutor.start(0).unwrap();
        let start = lab.step_count();
        lab.run("carol> XAUTOCLAIM jobs workers carol 55000 0-0");
        assert!(!tutor.check(0, 0, &lab, start).unwrap().passed);
        assert_eq!(rich(3).variant(), 0, "the attempts go round the variants");
        assert_eq!(tutor.attempt(2).variant(), 2);
    }

    #[test]
    fn lessons_are_parsed_with_lines() {
        let broken = RICH.replace("minutes = 5", "minutes = 5\ncolour = \"red\"");
        let problems = Tutor::parse("mine.toml", &broken, 0).unwrap_err();
        assert!(problems[0].to_string().starts_with("mine.toml:7:1: unknown field `colour`"), "{problems:?}");
        assert_eq!(Tutor::parse("any.toml", RICH, 0).map(|t| t.id().to_owned()), Ok("rich".to_owned()));
    }

    #[test]
    fn progress_is_kept_per_version() {
        let mut progress = Progress::default();
        progress.solve(1);
        progress.solve(0);
        progress.solve(1);
        assert_eq!(Progress::parse(&progress.to_text()), progress);
        assert!(progress.complete(2) && !progress.complete(3));
        assert_eq!(progress.to_text(), "0;0,1");
        assert_eq!(Progress::parse("3;"), Progress { attempt: 3, solved: Vec::new() });
        assert_eq!(Progress::parse("nonsense"), Progress::default());
        assert_eq!(Progress::parse("1;0,x"), Progress::default());
        assert_ne!(Progress::key("a", 1), Progress::key("a", 2));
        assert_eq!(split_connection("bob> XLEN s"), (Some("bob"), "XLEN s"));
        let summary = rich(0).summary();
        assert_eq!((summary.id.as_str(), summary.version, summary.tasks), ("rich", 1, 6));
    }

    #[test]
    fn the_index_gives_sections() {
        let index = sections(
            "[[section]]\ntitle = \"A\"\nlessons = [\"a\", \"b\"]\n[[section]]\ntitle = \"B\"\nlessons = [\"c\"]\n",
        );
        let index = index.unwrap();
        assert_eq!(index.len(), 2);
        assert_eq!(index[0].lessons, ["a", "b"]);
        assert!(sections("[[section]]\ntitle = \"x\"\n").unwrap_err().message.contains("missing field `lessons`"));
        // The course's own index reads too.
        assert!(sections(include_str!("../../../lessons/index.toml")).unwrap().len() >= 4);
    }
}
